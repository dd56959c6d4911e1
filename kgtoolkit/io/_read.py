"""Reading a file of facts, per format (CSV, TSV, JSON Lines, Parquet), as text with each row's ``line``:
:func:`read_facts_file`, and which file column feeds each field."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequest
from .._names import printable
from ._formats import _decompressed, _existing, _format

if TYPE_CHECKING:
    import polars as pl


#: The columns an import uses (``subject, predicate, object`` are needed).
FIELDS: tuple[str, ...] = (
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "confidence",
    "source",
    "source_closet",
    "subject_type",
    "object_type",
    "recorded_at",
    "invalidated_at",
    "ended_by",
    "occurrence",
)
_POSITIONAL = ("subject", "predicate", "object", "valid_from", "valid_to")
_LINE = "\x00line"  # the line column while reading (a file may have a column called "line")
_SHORT = "\x00short"  # while reading: why a CSV/TSV row is malformed (it has fewer fields than the header), else null
#: The column of :func:`kgtoolkit.store.import_facts` that marks a row the reader found malformed (its reason).
MALFORMED = "_malformed"


# A cell the CSV/TSV export escaped against formulas ('=…, see _export._FORMULA): reading takes one ' off.
_ESCAPED_FORMULA = r"^'('*[=+\-@\t\r])"


def read_facts_file(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    columns: Mapping[str | int, str] | None = None,
    delimiter: str | None = None,
    header: bool = True,
) -> pl.DataFrame:
    """Read a CSV, TSV, JSON Lines or Parquet file of facts as text, with each row's line in the file.

    In CSV and TSV, a ``'`` before a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return is taken
    off: the escape :func:`export_file` writes against spreadsheet formulas. A row with fewer fields than
    the header gets its reason in ``_malformed``, and the import refuses it. A compressed file is read by
    its suffix.

    Parameters
    ----------
    path
        The file.
    format
        ``csv``, ``tsv``, ``jsonl`` or ``parquet``, instead of the suffix's.
    columns
        The file's headers (or positions, with ``header=False``) mapped to :data:`FIELDS`. Other columns
        are ignored.
    delimiter
        The separator of a CSV/TSV file.
    header
        False: a CSV/TSV file without a header line.

    Returns
    -------
    polars.DataFrame
        ``line`` (Int64) and the :data:`FIELDS` the file has (String), ready for
        :func:`kgtoolkit.store.import_facts`.

    Raises
    ------
    InvalidRequest
        ``subject``, ``predicate`` or ``object`` not found (the message names what the file has), or a
        file that cannot be read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "facts.csv"
    >>> _ = path.write_text("head,relation,tail\\nmy_api,uses,Redis\\n")
    >>> frame = read_facts_file(path, columns={"head": "subject", "relation": "predicate", "tail": "object"})
    >>> frame.row(0, named=True)["object"], frame["line"].to_list()
    ('Redis', [2])
    """
    return _read(path, format=format, columns=columns, delimiter=delimiter, header=header)[0]


#: The columns that only :func:`export_file`'s CSV/TSV/JSONL/Parquet have (those of :func:`kgtoolkit.frames.facts`).
_EXPORT_SIGNATURE = frozenset({"subject_name", "object_name", "object_is_value", "state", "recorded_at"})


def _read(
    path: str | os.PathLike[str],
    *,
    format: str | None,
    columns: Mapping[str | int, str] | None,
    delimiter: str | None,
    header: bool,
) -> tuple[pl.DataFrame, bool]:
    """:func:`read_facts_file`, and whether the file is a kgtoolkit export read as it was written."""

    file = _existing(path)
    fmt = _format(file, format, allowed=("csv", "tsv", "jsonl", "parquet"), purpose="read_facts_file")
    with _decompressed(file) as plain:
        if fmt in ("csv", "tsv"):
            raw = _read_delimited(plain, fmt, delimiter=delimiter, header=header)
        elif fmt == "jsonl":
            raw = _read_jsonl(plain)
        else:
            raw = _read_parquet(plain)
        shaped, export = _shape(raw, plain, fmt, columns, header)
        return shaped(raw), export


def _shape(
    first: pl.DataFrame, file: Path, fmt: str, columns: Mapping[str | int, str] | None, header: bool
) -> tuple[Callable[[pl.DataFrame], pl.DataFrame], bool]:
    """How a file's raw rows (``first``: them, or its first batch) become the import's columns (``line`` and the
    fields, as text), and whether the file is a kgtoolkit export read as it was written."""
    import polars as pl

    chosen = _choose(first, file, columns, positional=fmt in ("csv", "tsv") and not header)
    export = columns is None and header and {c.strip().lower() for c in first.columns} >= _EXPORT_SIGNATURE

    def shaped(raw: pl.DataFrame) -> pl.DataFrame:
        return raw.select(
            pl.col(_LINE).cast(pl.Int64).alias("line"),
            *[_as_text(raw, source).alias(field) for field, source in chosen.items()],
            *([pl.col(_SHORT).alias(MALFORMED)] if _SHORT in raw.columns else []),
        )

    return shaped, bool(export)


#: A file of facts bigger than this (CSV/TSV: bytes; Parquet: rows) is imported in batches of :data:`BATCH_ROWS` rows.
STREAM_BYTES = 64 * 2**20
STREAM_ROWS = 1_000_000
BATCH_ROWS = 250_000


def _read_batches(
    path: str | os.PathLike[str],
    *,
    format: str | None,
    columns: Mapping[str | int, str] | None,
    delimiter: str | None,
    header: bool,
    batch_size: int = BATCH_ROWS,
) -> tuple[Iterator[pl.DataFrame], bool, int | None] | None:
    """:func:`_read` in batches of ``batch_size`` rows, for a big CSV, TSV or Parquet file (None for any other:
    read it whole): the batches (line numbers as the whole read gives them), whether it is a kgtoolkit export, and
    how many rows it has (Parquet: exactly; CSV/TSV: estimated from the first batch, for a progress bar's total and
    the load's choices, such as building the indexes after it). The first batch is read here, so a file that cannot
    be read at all fails now; a later bad line fails when its batch is read."""
    import polars as pl
    import pyarrow.parquet as pq

    file = _existing(path)
    fmt = _format(file, format, allowed=("csv", "tsv", "jsonl", "parquet"), purpose="read_facts_file")
    rows: int | None = None
    if fmt == "parquet":
        try:
            rows = pq.read_metadata(file).num_rows
        except (OSError, ValueError) as exc:
            raise _polars_error(file, fmt, exc) from exc
        if rows <= STREAM_ROWS:
            return None
        raws = _parquet_batches(file, batch_size)
    elif fmt in ("csv", "tsv") and file.stat().st_size > STREAM_BYTES:
        raws = _delimited_batches(file, fmt, delimiter=delimiter, header=header, batch_size=batch_size)
    else:
        return None
    first = next(raws, None)
    if first is None:
        return None
    shaped, export = _shape(first, file, fmt, columns, header)
    if rows is None:  # CSV/TSV: the file's size over the first batch's bytes per row (each cell and its separator)
        cells = [c for c in first.columns if c != _LINE]
        per_row = first.select(pl.sum_horizontal(pl.col(c).str.len_bytes().fill_null(0) + 1 for c in cells).mean())
        rows = max(first.height, int(file.stat().st_size / max(float(per_row.item() or 1.0), 1.0)))

    def batches() -> Iterator[pl.DataFrame]:
        yield shaped(first)
        for raw in raws:
            yield shaped(raw)

    return batches(), export, rows


def _parquet_batches(file: Path, batch_size: int) -> Iterator[pl.DataFrame]:
    import polars as pl

    offset = 1
    try:
        for df in pl.scan_parquet(file).collect_batches(chunk_size=batch_size):
            yield df.with_columns((offset + pl.int_range(pl.len(), dtype=pl.Int64)).alias(_LINE))
            offset += df.height
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise _polars_error(file, "parquet", exc) from exc


def _delimited_batches(
    file: Path, fmt: str, *, delimiter: str | None, header: bool, batch_size: int
) -> Iterator[pl.DataFrame]:
    """:func:`_read_delimited` a batch at a time: the same cells, line numbers and refusals."""
    import polars as pl

    separator = _separator(fmt, delimiter)
    first = 0  # the line of the next batch's first row
    short = _short_rows(file, separator, quoted=fmt == "csv")
    try:
        for df in pl.scan_csv(
            file,
            separator=separator,
            quote_char='"' if fmt == "csv" else None,
            has_header=header,
            infer_schema=False,
            raise_if_empty=False,
        ).collect_batches(chunk_size=batch_size):
            if not first:
                first = 1 + (1 + sum(c.count("\n") for c in df.columns) if header else 0)
            if not header:
                df = df.rename({c: str(i) for i, c in enumerate(df.columns)})
            df, first = _numbered(df, first)
            yield _marked(df, short)
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise _delimited_error(file, fmt, separator, exc) from exc


def _separator(fmt: str, delimiter: str | None) -> str:
    separator = delimiter if delimiter is not None else ("," if fmt == "csv" else "\t")
    if len(separator) != 1:
        raise InvalidRequest(f"delimiter must be one character, not {separator!r}", field="delimiter", value=separator)
    return separator


def _delimited_error(file: Path, fmt: str, separator: str, exc: Exception) -> InvalidRequest:
    """The error for a CSV/TSV file polars could not parse: the first ragged line if there is one."""
    ragged = _ragged_line(file, separator, quoted=fmt == "csv")
    if ragged is not None:
        number, fields, first = ragged
        return InvalidRequest(
            f"{file.name} line {number} has {fields} fields where its first line has {first}: every line needs "
            f"the same columns (a line of since/until qualifiers, as some published sets carry, is another "
            f"layout: give each fact one line with its valid_from and valid_to)",
            field="line",
            value=str(number),
        )
    return _polars_error(file, fmt, exc)


def _numbered(df: pl.DataFrame, first: int) -> tuple[pl.DataFrame, int]:
    """The cells unescaped and each row's line number (``first`` for the first row, then one line per row plus the
    line breaks inside quoted values), blank lines dropped; and the line after the last row. Only the columns that
    hold an escaped cell or a line break are rewritten or counted (a scan each, cheaper than the rewrite)."""
    import polars as pl

    if not df.width:
        return df.with_columns(pl.lit(None, pl.Int64).alias(_LINE)), first
    df = df.with_columns(pl.col(c).cast(pl.String) for c in df.columns)
    escaped = [c for c in df.columns if df[c].str.starts_with("'").any()]
    df = df.with_columns(_unescape_formula(pl.col(c)).alias(c) for c in escaped)
    line = first + pl.int_range(pl.len(), dtype=pl.Int64)
    after = first + df.height
    if multiline := [c for c in df.columns if df[c].str.contains("\n", literal=True).any()]:
        breaks = pl.sum_horizontal([pl.col(c).str.count_matches("\n", literal=True).fill_null(0) for c in multiline])
        df = df.with_columns((line + breaks.cum_sum() - breaks).alias(_LINE), breaks.alias("\x00breaks"))
        after += int(df["\x00breaks"].sum() or 0)
        df = df.drop("\x00breaks")
    else:
        df = df.with_columns(line.alias(_LINE))
    data = [c for c in df.columns if c != _LINE]
    return df.filter(~pl.all_horizontal(pl.col(c).is_null() for c in data)), after


def _polars_error(file: Path, fmt: str, exc: Exception) -> InvalidRequest:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InvalidRequest(f"cannot read {file} as {fmt.upper()}: {first}", field="path", value=str(file))


def _read_delimited(file: Path, fmt: str, *, delimiter: str | None, header: bool) -> pl.DataFrame:
    """A CSV/TSV file read by polars as text, every column a string."""
    import polars as pl

    separator = _separator(fmt, delimiter)
    try:
        df = pl.read_csv(
            file,
            separator=separator,
            quote_char='"' if fmt == "csv" else None,
            has_header=header,
            infer_schema=False,
            raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise _delimited_error(file, fmt, separator, exc) from exc
    if not header:
        df = df.rename({c: str(i) for i, c in enumerate(df.columns)})
    # Line numbers: the header's lines, then one line per row plus the line breaks inside quoted values.
    first = 1 + (1 + sum(c.count("\n") for c in df.columns) if header else 0)
    return _marked(_numbered(df, first)[0], _short_rows(file, separator, quoted=fmt == "csv"))  # blank lines: no rows


# A quoted CSV value on one line (its "" escapes included): taken out before a line's separators are counted.
_QUOTED = r'"(?:[^"]|"")*"'


def _short_rows(file: Path, separator: str, *, quoted: bool) -> pl.DataFrame:
    """The rows of a CSV/TSV file with fewer fields than its first line (the header): ``line`` (the row's first
    line) and ``fields``, and the first line's count in ``expected``. A reader pads such a row with nulls, so a
    file cut mid-row would store a fact without its end; the import refuses it instead. Counted set-wise, one
    pass over the lines; a CSV with line breaks inside quoted values is counted by Python's csv reader."""
    import polars as pl

    schema = {_LINE: pl.Int64, "fields": pl.Int64, "expected": pl.Int64}
    text = pl.col("text").str.strip_suffix("\r")
    bare = text.str.replace_all(_QUOTED, "") if quoted else text
    try:
        lines = (
            pl.scan_lines(file, name="text")
            .with_row_index(_LINE, offset=1)
            .filter(text != "")
            .select(
                pl.col(_LINE).cast(pl.Int64),
                (bare.str.count_matches(separator, literal=True) + 1).cast(pl.Int64).alias("fields"),
                (bare.str.contains('"', literal=True) if quoted else pl.lit(False)).alias("open"),
            )
        )
        counted = lines.select(pl.col("fields").first().alias("expected"), pl.col("open").any().alias("open")).collect()
        if not counted.height or counted["expected"][0] is None:
            return pl.DataFrame(schema=schema)
        expected = int(counted["expected"][0])
        if bool(counted["open"][0]):  # a value spans lines: the csv module knows where each row starts
            return _short_rows_parsed(file, separator, expected, schema)
        return (
            lines.filter(pl.col("fields") < expected)
            .select(_LINE, "fields", pl.lit(expected, pl.Int64).alias("expected"))
            .collect()
        )
    except (pl.exceptions.PolarsError, OSError):  # unreadable: the reader says why
        return pl.DataFrame(schema=schema)


def _short_rows_parsed(file: Path, separator: str, expected: int, schema: Mapping[str, Any]) -> pl.DataFrame:
    """The rows with fewer than ``expected`` fields, found by Python's csv reader: (line, fields, expected)."""
    import csv

    import polars as pl

    found: list[tuple[int, int, int]] = []
    try:
        with file.open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle, delimiter=separator, quoting=csv.QUOTE_MINIMAL)
            start = 1
            for row in rows:
                if row and len(row) < expected:
                    found.append((start, len(row), expected))
                start = rows.line_num + 1
    except (OSError, UnicodeDecodeError, csv.Error):
        pass
    return pl.DataFrame(found, schema=dict(schema), orient="row")


def _marked(df: pl.DataFrame, short: pl.DataFrame) -> pl.DataFrame:
    """The rows read, each row :func:`_short_rows` found with its reason in ``_SHORT``."""
    import polars as pl

    if not short.height:
        return df
    found = short.filter(pl.col(_LINE).is_in(df[_LINE].implode()))
    if not found.height:
        return df
    reason = pl.format(
        "the row has {} of the header's {} fields: cut short (a file cut mid-row, a field left out?); every row "
        "needs every column, empty ones included",
        pl.col("fields"),
        pl.col("expected"),
    )
    reasons = found.select(_LINE, reason.alias(_SHORT))
    marked = pl.col(_LINE).replace_strict(reasons[_LINE], reasons[_SHORT], default=None, return_dtype=pl.String)
    return df.with_columns(marked.alias(_SHORT))


def _ragged_line(file: Path, separator: str, *, quoted: bool) -> tuple[int, int, int] | None:
    """The first line (number, its field count, the first line's) whose number of fields differs from the first
    line's, or None: what makes a delimited file unreadable as a table more often than anything else."""
    import csv

    try:
        with file.open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle, delimiter=separator, quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE)
            first = None
            for row in rows:
                if not row:
                    continue  # a blank line is not a row
                if first is None:
                    first = len(row)
                elif len(row) != first:
                    return rows.line_num, len(row), first
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _unescape_formula(cell: pl.Expr) -> pl.Expr:
    """The cell without the ``'`` :func:`export_file` puts before a formula-like cell (see ``_FORMULA``)."""
    import polars as pl

    return pl.when(cell.str.starts_with("'")).then(cell.str.replace(_ESCAPED_FORMULA, "$1")).otherwise(cell)


def _json_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _check_json_text(file: Path, number: int, key: str, value: Any) -> None:
    """A JSON Lines field that no text column can hold (a lone ``\\ud800``-``\\udfff`` escape) refuses the file."""
    for text in (key, value) if isinstance(value, str) else (key,):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidRequest(
                f"{file} line {number}: {printable(key)!r} holds an unpaired \\u{ord(text[exc.start]):04x} "
                "escape, which is not valid Unicode text; write the character itself, or a "
                "complete surrogate pair",
                field="line",
                value=str(number),
            ) from exc


def _read_jsonl(file: Path) -> pl.DataFrame:
    """A JSON Lines file read as text columns, each record with its line; blank lines skipped."""
    import polars as pl

    records: list[dict[str, Any]] = []
    lines: list[int] = []
    keys: dict[str, None] = {}
    try:
        with file.open(encoding="utf-8-sig") as fh:
            for number, text in enumerate(fh, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except ValueError as exc:
                    raise InvalidRequest(
                        f"{file} line {number} is not JSON ({exc.args[0]}); JSON Lines needs one object per line",
                        field="line",
                        value=str(number),
                    ) from exc
                if not isinstance(record, dict):
                    raise InvalidRequest(
                        f"{file} line {number} is not a JSON object; JSON Lines needs one object per line",
                        field="line",
                        value=str(number),
                    )
                for key, value in record.items():
                    _check_json_text(file, number, key, value)
                records.append(record)
                lines.append(number)
                keys.update(dict.fromkeys(record))
    except UnicodeDecodeError as exc:
        raise InvalidRequest(
            f"cannot read {file} as JSON Lines: not UTF-8 ({exc.reason})", field="path", value=str(file)
        ) from exc
    except OSError as exc:  # no permission, an I/O error: as for the other formats
        raise _polars_error(file, "jsonl", exc) from exc
    data = {key: pl.Series(key, [_json_text(r.get(key)) for r in records], dtype=pl.String) for key in keys}
    return pl.DataFrame({**data, _LINE: pl.Series(_LINE, lines, dtype=pl.Int64)})


def _read_parquet(file: Path) -> pl.DataFrame:
    import polars as pl

    try:
        df = pl.read_parquet(file)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise _polars_error(file, "parquet", exc) from exc
    return df.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(_LINE))


def _as_text(df: pl.DataFrame, column: str) -> pl.Expr:
    """A column as text: dates ISO, datetimes ISO with Z (a zone-less datetime stays zone-less)."""
    import polars as pl

    dtype = df.schema[column]
    col = pl.col(column)
    if dtype == pl.String:
        return col
    if isinstance(dtype, (pl.Categorical, pl.Enum)):  # what pandas "category" columns become
        return col.cast(pl.String)
    if dtype == pl.Date:
        return col.dt.to_string("%Y-%m-%d")
    if isinstance(dtype, pl.Datetime):
        if dtype.time_zone is None:
            return col.dt.to_string("%Y-%m-%dT%H:%M:%S%.f")
        return col.dt.convert_time_zone("UTC").dt.to_string("%Y-%m-%dT%H:%M:%S%.fZ")
    if dtype == pl.Boolean:
        return pl.when(col).then(pl.lit("true")).when(~col).then(pl.lit("false")).otherwise(None)
    if dtype.is_numeric() or dtype == pl.Null:
        return col.cast(pl.String)
    raise InvalidRequest(
        f"column {column!r} holds {dtype} values; an import needs text, numbers or dates",
        field=column,
        value=str(dtype),
    )


def _choose(
    raw: pl.DataFrame, file: Path, columns: Mapping[str | int, str] | None, *, positional: bool
) -> dict[str, str]:
    """Which file column feeds each field."""
    present = [c for c in raw.columns if c != _LINE]
    by_name: dict[str, str] = {}
    for c in present:
        by_name.setdefault(c.strip().lower(), c)
    chosen: dict[str, str] = {}
    if columns is not None and not isinstance(columns, Mapping):
        raise InvalidRequest(
            "columns must map the file's column names to fields, e.g. {'head': 'subject'}",
            field="columns",
            value=repr(columns),
        )
    for key, field in (columns or {}).items():
        source = str(key)
        if field not in FIELDS:
            raise InvalidRequest(
                f"columns={{{source!r}: {field!r}}}: {field!r} is not a field; fields: {', '.join(FIELDS)}",
                field="columns",
                value=str(field),
            )
        actual = source if source in present else by_name.get(source.strip().lower())
        if actual is None:
            raise InvalidRequest(
                f"columns={{{source!r}: {field!r}}} names a column {file.name} does not have (it has: "
                f"{', '.join(present) or 'no columns'})",
                field="columns",
                value=source,
            )
        if field in chosen:
            raise InvalidRequest(
                f"columns={{{chosen[field]!r}: {field!r}}} and columns={{{source!r}: {field!r}}} map two columns to "
                f"{field!r}: map one",
                field="columns",
                value=field,
            )
        chosen[field] = actual
    if positional and columns is None:
        chosen = {field: str(i) for i, field in enumerate(_POSITIONAL) if str(i) in present}
    elif not positional:
        taken = set(chosen.values())
        mapped = set(chosen)
        for field in FIELDS:
            column = by_name.get(field)
            if field not in chosen and column is not None and column not in taken:
                chosen[field] = column
        # An export of frames.facts: subject/object are ids there, subject_name/object_name the spellings.
        subject_name, object_name = by_name.get("subject_name"), by_name.get("object_name")
        if subject_name and object_name and not {"subject", "object"} & mapped:
            chosen["subject"], chosen["object"] = subject_name, object_name
    missing = [f for f in ("subject", "predicate", "object") if f not in chosen]
    if missing:
        has = ", ".join(present) if present else "no columns"
        data = "" if positional else _looks_like_data(present)
        if data:  # a header-less file read with a header: say so first
            raise InvalidRequest(
                f"{file.name} has no header line naming subject, predicate and object: its first line ({has}) looks "
                f"like data ({data}); import it with header=False, which reads the columns in the order "
                f"{', '.join(_POSITIONAL)} (remap them with columns={{'0': 'subject'}} and so on)",
                field=missing[0],
                value=has,
            )
        pairs = _proposals(present, missing, set(chosen.values()), positional=positional)
        if pairs:
            mapping = "columns={" + ", ".join(f"{a!r}: {b!r}" for a, b in pairs) + "}"
            fix = f"map the file's columns, e.g. {mapping}"
        else:
            fix = f"name the file's columns subject, predicate and object, or map them with columns={{'THEIRS': {missing[0]!r}}}"
        header = "" if positional else "; a file without a header line imports with header=False"
        raise InvalidRequest(
            f"{file.name} has no column for {', '.join(missing)} (it has: {has}); {fix}{header}",
            field=missing[0],
            value=has,
        )
    return {field: chosen[field] for field in FIELDS if field in chosen}


#: Column names that usually mean one of the needed fields (the names of common triple and knowledge-graph files).
_LOOKS_LIKE: dict[str, frozenset[str]] = {
    "subject": frozenset(
        {"head", "h", "s", "subj", "src", "from_entity", "entity", "entity1", "e1", "node1", "start_node"}
    ),
    "predicate": frozenset({"relation", "rel", "r", "p", "pred", "property", "relationship", "edge_type"}),
    "object": frozenset({"tail", "t", "o", "obj", "dst", "target", "to_entity", "entity2", "e2", "node2", "end_node"}),
}


def _proposals(present: list[str], missing: list[str], taken: set[str], *, positional: bool) -> list[tuple[str, str]]:
    """Mappings worth proposing for the missing fields: a header-less file's positions, else only the unused
    columns whose names look like the field (:data:`_LOOKS_LIKE`); none rather than a wrong one."""
    if positional:
        return [(str(i), f) for i, f in enumerate(("subject", "predicate", "object")) if f in missing]
    fields = {c.strip().lower() for c in present} & set(FIELDS)
    free = [c for c in present if c not in taken and c.strip().lower() not in fields]
    pairs: list[tuple[str, str]] = []
    for field in missing:
        match = next((c for c in free if c.strip().lower() in _LOOKS_LIKE[field]), None)
        if match is not None:
            pairs.append((match, field))
            free.remove(match)
    return pairs


_DATA_LIKE = re.compile(r"^-?\d{1,4}(-\d\d){0,2}([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$|^-?\d+(\.\d+)?$")


def _looks_like_data(names: list[str]) -> str:
    """The first header cell that reads as a value (a date, a year, a number) rather than a column's name, or ''."""
    return next((repr(n) for n in names if _DATA_LIKE.match(n.strip())), "")

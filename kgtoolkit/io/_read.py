"""Reading a file of facts, per format (CSV, TSV, JSON Lines, Parquet), as text with each row's ``line``:
:func:`read_facts_file`, and which file column feeds each field."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequest
from .._names import printable
from ._formats import _existing, _format

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
    "occurrence",
)
_POSITIONAL = ("subject", "predicate", "object", "valid_from", "valid_to")
_LINE = "\x00line"  # the line column while reading (a file may have a column called "line")


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
    """Read a CSV/TSV/JSONL/Parquet file of facts as text, with each row's file ``line``.

    Returns ``line`` (Int64) and the :data:`FIELDS` the file has (String), ready for
    :func:`kgtoolkit.store.import_facts`. ``columns`` maps the file's headers (or positions, with
    ``header=False``) to those fields; unknown columns are ignored. Raises :class:`InvalidRequest`
    naming what is missing and what the file has when ``subject, predicate, object`` are not found.
    In CSV/TSV a ``'`` before a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return is taken off
    (the escape :func:`export_file` writes against spreadsheet formulas).
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
    if fmt in ("csv", "tsv"):
        raw = _read_delimited(file, fmt, delimiter=delimiter, header=header)
    elif fmt == "jsonl":
        raw = _read_jsonl(file)
    else:
        raw = _read_parquet(file)
    shaped, export = _shape(raw, file, fmt, columns, header)
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
            yield df
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise _delimited_error(file, fmt, separator, exc) from exc


def _separator(fmt: str, delimiter: str | None) -> str:
    separator = delimiter if delimiter is not None else ("," if fmt == "csv" else "\t")
    if len(separator) != 1:
        raise InvalidRequest(f"delimiter must be one character, not {separator!r}", field="delimiter", value=separator)
    return separator


def _delimited_error(file: Path, fmt: str, separator: str, exc: Exception) -> InvalidRequest:
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
    return _numbered(df, first)[0]  # blank lines are not rows


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
                f"columns maps {source!r} to {field!r}, which is not a field; fields: {', '.join(FIELDS)}",
                field="columns",
                value=str(field),
            )
        actual = source if source in present else by_name.get(source.strip().lower())
        if actual is None:
            raise InvalidRequest(
                f"columns names {source!r}, which {file.name} does not have (it has: "
                f"{', '.join(present) or 'no columns'})",
                field="columns",
                value=source,
            )
        if field in chosen:
            raise InvalidRequest(
                f"columns maps both {chosen[field]!r} and {source!r} to {field!r}", field="columns", value=field
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
                f"like data ({data}); import it with --no-header (header=False in Python), which reads the columns "
                f"in the order {', '.join(_POSITIONAL)} (remap them with --map 0=subject …)",
                field=missing[0],
                value=has,
            )
        pairs = (
            (("0", "subject"), ("1", "predicate"), ("2", "object"))
            if positional
            else (
                (present[0] if present else "head", "subject"),
                (present[1] if len(present) > 1 else "relation", "predicate"),
                (present[2] if len(present) > 2 else "tail", "object"),
            )
        )
        cli = " ".join(f"--map {shlex.quote(a)}={b}" for a, b in pairs)
        python = "columns={" + ", ".join(f"{a!r}: {b!r}" for a, b in pairs) + "}"
        header = "" if positional else "; a file without a header line imports with --no-header (header=False)"
        raise InvalidRequest(
            f"{file.name} has no column for {', '.join(missing)} (it has: {has}); map the file's "
            f"columns ({cli} on the command line, {python} in Python){header}",
            field=missing[0],
            value=has,
        )
    return {field: chosen[field] for field in FIELDS if field in chosen}


_DATA_LIKE = re.compile(r"^-?\d{1,4}(-\d\d){0,2}([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$|^-?\d+(\.\d+)?$")


def _looks_like_data(names: list[str]) -> str:
    """The first header cell that reads as a value (a date, a year, a number) rather than a column's name, or ''."""
    return next((repr(n) for n in names if _DATA_LIKE.match(n.strip())), "")

"""Bulk import and export: CSV, TSV, JSON Lines, Parquet, a lossless JSON dump, and other programs' SQLite graphs.

>>> import kgtoolkit, tempfile, pathlib
>>> from kgtoolkit import io
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> io.export_file(kg, folder / "facts.csv")
1
>>> io.import_file(kgtoolkit.open(":memory:"), folder / "facts.csv").inserted
1

Formats (from the file's suffix; ``format=`` overrides):

=========  ===========================  ===============================================================
format     suffixes                     notes
=========  ===========================  ===============================================================
csv        .csv                         comma separated, ``"`` quoting, first line is the header
tsv        .tsv .txt .tab               tab separated, **no quoting** (a ``"`` is an ordinary character)
jsonl      .jsonl .ndjson               one JSON object per line; blank lines are skipped
parquet    .parquet .pq                 row n is "line" n
json       .json                        the lossless dump of the whole graph (import/export only)
sqlite     .sqlite .sqlite3 .db         import only: a kgtoolkit graph, or MemPalace's / Flowly's
                                        ``entities``/``triples`` file (read-only; see ``kgtoolkit.store._foreign``)
=========  ===========================  ===============================================================

The graph itself may be an SQLite file or a PostgreSQL database (:func:`kgtoolkit.store.resolve`):
every format reads and writes the same there (the same file from the same graph, but for the
transaction times), and the ``sqlite`` format always names a *source* file, whatever holds the graph.

**Formulas** (CSV injection). A spreadsheet runs a CSV or TSV cell that begins with ``=``, ``+``, ``-``
or ``@`` (or a tab or carriage return) as a formula: ``=HYPERLINK(…)`` in a fact would become a live
link. So CSV and TSV exports put a ``'`` before such a text cell (a spreadsheet shows it as text,
without the ``'``), and before one that already begins with ``'`` and one of those characters; reading
a CSV or TSV takes exactly one such ``'`` off again, so an exported file re-imports to the same facts.
``escape_formulas=False`` (``--no-escape-formulas``) writes the cells as they are, for programs that
are not spreadsheets; such a file re-imports the same too, except that a value beginning with ``'=``
(or ``'+``, …) loses its ``'``. JSONL and Parquet are never changed.

Every value is read as text (``0360-01-01`` and ids stay as written). Columns are matched by name
(case-insensitive): ``subject, predicate, object`` are needed; ``valid_from, valid_to, confidence,
source, source_closet, subject_type, object_type, recorded_at, invalidated_at`` are used when present;
other columns are ignored. A file written by :func:`export_file` re-imports as is, recognised by its
columns (its ``subject_name``/``object_name`` give the spellings, which the comma guard leaves alone as
the source graph accepted them; ``recorded_at``/``invalidated_at`` are kept; ``subject_type``/``object_type`` the types; a type outside the importing graph's vocabulary
rejects the row, as in ``add``: extend the vocabulary first, or move whole graphs with the JSON dump). ``columns={"head": "subject", "relation": "predicate", "tail": "object", "start":
"valid_from", "end": "valid_to"}`` maps other headers. **Header-less** CSV/TSV: pass ``header=False``;
the columns are then named by position (``"0"``, ``"1"``, …) for ``columns``, and without ``columns``
they are taken as ``subject, predicate, object, valid_from, valid_to`` (3 to 5 columns, more ignored).

Every import is one transaction: it happens whole or not at all, even on Ctrl-C. The reports'
``line`` is the file's line (CSV/TSV: the header is line 1, so data starts at 2; quoted line breaks
are counted), the JSONL line, the Parquet row + 1, a dump's fact id, or a foreign triple's rowid.

The JSON dump: into an **empty** graph (no entities, facts, aliases or memories) it is restored
exactly (ids, transaction times, types, properties, aliases, memories, settings), so export → import
→ export gives identical files. Every record is checked first by the rules the store keeps (names
normalised, types in the dump's own vocabulary, dates and transaction times in the stored form,
references to entities of the dump, one current fact per triple, ...: see ``kgtoolkit._dump``); one
bad record refuses the whole dump, and :class:`~kgtoolkit.InvalidRows` names every problem with its
``record`` (``facts[3]``, ``config``) and, for a fact, its id as ``line``. Into a graph that is **not
empty** a dump is merged by the add rules, like any other import: facts get new ids and transaction
times, facts already there are skipped, entity types are upgraded from ``unknown`` and properties
merged, aliases registered unless they clash, memories added unless their id exists or they break
the dump's rules; the graph's settings stay. Both are reported.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from ._errors import InvalidRequest, NotFound
from ._names import printable
from ._time import TimeInput
from .graph import KnowledgeGraph
from .store import (
    ImportReport,
    InvalidRows,
    dump,
    dump_parts,
    dump_predicate_aliases,
    import_facts,
    import_graph,
    is_empty,
    is_kgtoolkit_file,
    is_sqlite_file,
    read_foreign,
    restore,
)
from .store._failures import os_failure

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FIELDS", "FORMATS", "export_file", "import_file", "read_facts_file"]

Progress = Callable[[int, int], None]

FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet", "json", "sqlite")
#: The columns an import uses (``subject, predicate, object`` are needed).
FIELDS: tuple[str, ...] = ("subject", "predicate", "object", "valid_from", "valid_to", "confidence", "source",
                           "source_closet", "subject_type", "object_type", "recorded_at", "invalidated_at")
_POSITIONAL = ("subject", "predicate", "object", "valid_from", "valid_to")
_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
             ".parquet": "parquet", ".pq": "parquet", ".json": "json", ".sqlite": "sqlite", ".sqlite3": "sqlite",
             ".db": "sqlite"}
_SYNONYMS = {"ndjson": "jsonl", "txt": "tsv", "tab": "tsv", "pq": "parquet", "sqlite3": "sqlite", "db": "sqlite"}
_LINE = "\x00line"  # the line column while reading (a file may have a column called "line")
# A text cell a spreadsheet would run as a formula (OWASP's CSV injection list: = + - @, tab, carriage
# return), or one already escaped so ('=…): CSV/TSV exports put one ' before it, their import takes it off.
_FORMULA = r"^'*[=+\-@\t\r]"
_ESCAPED_FORMULA = r"^'('*[=+\-@\t\r])"
_REJECT_COLUMNS = ("line", "field", "value", "code", "reason")


def _format(path: Path, format: str | None, *, allowed: tuple[str, ...], purpose: str) -> str:
    if format is not None:
        fmt = _SYNONYMS.get(str(format).lower(), str(format).lower())
        if fmt not in FORMATS:
            raise InvalidRequest(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}", field="format",
                                 value=str(format))
    else:
        fmt = _SUFFIXES.get(path.suffix.lower(), "")
        if not fmt and purpose == "import" and is_sqlite_file(path):
            fmt = "sqlite"
        if not fmt:
            raise InvalidRequest(f"cannot tell the format of {path.name} from its suffix; name it .csv, .tsv, .jsonl, "
                                 f".parquet or .json, or pass format= ({', '.join(allowed)})", field="format",
                                 value=path.suffix)
    if fmt not in allowed:
        raise InvalidRequest(f"{purpose} does not handle the {fmt} format; it handles {', '.join(allowed)}",
                             field="format", value=fmt)
    return fmt


def _existing(path: str | os.PathLike[str]) -> Path:
    file = Path(path).expanduser()
    if not file.is_file():
        raise NotFound(f"no file at {file}", field="path", value=str(file))
    return file


# ---------------------------------------------------------------------- reading files


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


def _read(path: str | os.PathLike[str], *, format: str | None, columns: Mapping[str | int, str] | None,
          delimiter: str | None, header: bool) -> tuple[pl.DataFrame, bool]:
    """:func:`read_facts_file`, and whether the file is a kgtoolkit export read as it was written."""
    import polars as pl

    file = _existing(path)
    fmt = _format(file, format, allowed=("csv", "tsv", "jsonl", "parquet"), purpose="read_facts_file")
    if fmt in ("csv", "tsv"):
        raw = _read_delimited(file, fmt, delimiter=delimiter, header=header)
    elif fmt == "jsonl":
        raw = _read_jsonl(file)
    else:
        raw = _read_parquet(file)
    chosen = _choose(raw, file, columns, positional=fmt in ("csv", "tsv") and not header)
    export = columns is None and header and {c.strip().lower() for c in raw.columns} >= _EXPORT_SIGNATURE
    return raw.select(pl.col(_LINE).cast(pl.Int64).alias("line"),
                      *[_as_text(raw, source).alias(field) for field, source in chosen.items()]), export


def _polars_error(file: Path, fmt: str, exc: Exception) -> InvalidRequest:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InvalidRequest(f"cannot read {file} as {fmt.upper()}: {first}", field="path", value=str(file))


def _read_delimited(file: Path, fmt: str, *, delimiter: str | None, header: bool) -> pl.DataFrame:
    import polars as pl

    separator = delimiter if delimiter is not None else ("," if fmt == "csv" else "\t")
    if len(separator) != 1:
        raise InvalidRequest(f"delimiter must be one character, not {separator!r}", field="delimiter", value=separator)
    try:
        df = pl.read_csv(file, separator=separator, quote_char='"' if fmt == "csv" else None, has_header=header,
                         infer_schema=False, raise_if_empty=False)
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise _polars_error(file, fmt, exc) from exc
    if not header:
        df = df.rename({c: str(i) for i, c in enumerate(df.columns)})
    df = df.with_columns(_unescape_formula(pl.col(c).cast(pl.String)).alias(c) for c in df.columns)
    # Line numbers: the header's lines, then one line per row plus the line breaks inside quoted values.
    first = 1 + (1 + sum(c.count("\n") for c in df.columns) if header else 0)
    if not df.width:
        return df.with_columns(pl.lit(None, pl.Int64).alias(_LINE))
    breaks = pl.sum_horizontal([pl.col(c).str.count_matches("\n", literal=True).fill_null(0) for c in df.columns])
    df = df.with_columns((first + pl.int_range(pl.len(), dtype=pl.Int64) + breaks.cum_sum() - breaks).alias(_LINE))
    data = [c for c in df.columns if c != _LINE]
    return df.filter(~pl.all_horizontal(pl.col(c).is_null() for c in data))  # blank lines are not rows


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
            raise InvalidRequest(f"{file} line {number}: {printable(key)!r} holds an unpaired \\u{ord(text[exc.start]):04x} "
                                 "escape, which is not valid Unicode text; write the character itself, or a "
                                 "complete surrogate pair", field="line", value=str(number)) from exc


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
                    raise InvalidRequest(f"{file} line {number} is not JSON ({exc.args[0]}); JSON Lines needs one "
                                         "object per line", field="line", value=str(number)) from exc
                if not isinstance(record, dict):
                    raise InvalidRequest(f"{file} line {number} is not a JSON object; JSON Lines needs one object "
                                         "per line", field="line", value=str(number))
                for key, value in record.items():
                    _check_json_text(file, number, key, value)
                records.append(record)
                lines.append(number)
                keys.update(dict.fromkeys(record))
    except UnicodeDecodeError as exc:
        raise InvalidRequest(f"cannot read {file} as JSON Lines: not UTF-8 ({exc.reason})", field="path",
                             value=str(file)) from exc
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
    raise InvalidRequest(f"column {column!r} holds {dtype} values; an import needs text, numbers or dates",
                         field=column, value=str(dtype))


def _choose(raw: pl.DataFrame, file: Path, columns: Mapping[str | int, str] | None, *, positional: bool) -> dict[str, str]:
    """Which file column feeds each field."""
    present = [c for c in raw.columns if c != _LINE]
    by_name: dict[str, str] = {}
    for c in present:
        by_name.setdefault(c.strip().lower(), c)
    chosen: dict[str, str] = {}
    if columns is not None and not isinstance(columns, Mapping):
        raise InvalidRequest("columns must map the file's column names to fields, e.g. {'head': 'subject'}",
                             field="columns", value=repr(columns))
    for key, field in (columns or {}).items():
        source = str(key)
        if field not in FIELDS:
            raise InvalidRequest(f"columns maps {source!r} to {field!r}, which is not a field; fields: "
                                 f"{', '.join(FIELDS)}", field="columns", value=str(field))
        actual = source if source in present else by_name.get(source.strip().lower())
        if actual is None:
            raise InvalidRequest(f"columns names {source!r}, which {file.name} does not have (it has: "
                                 f"{', '.join(present) or 'no columns'})", field="columns", value=source)
        if field in chosen:
            raise InvalidRequest(f"columns maps both {chosen[field]!r} and {source!r} to {field!r}", field="columns",
                                 value=field)
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
        hint = ("columns={'0': 'subject', '1': 'predicate', '2': 'object', ...}" if positional
                else "columns={'head': 'subject', 'relation': 'predicate', 'tail': 'object'}")
        raise InvalidRequest(f"{file.name} has no column for {', '.join(missing)} (it has: {has}); map the file's "
                             f"columns with {hint}, or pass header=False for a file without a header line",
                             field=missing[0], value=has)
    return {field: chosen[field] for field in FIELDS if field in chosen}


# ---------------------------------------------------------------------- import


def import_file(
    kg: KnowledgeGraph,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    columns: Mapping[str | int, str] | None = None,
    header: bool = True,
    delimiter: str | None = None,
    on_error: Literal["raise", "skip"] = "raise",
    rejects: str | os.PathLike[str] | None = None,
    allow_commas: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
) -> ImportReport:
    """Import a file of facts (or a dump, or another program's SQLite graph) in one transaction.

    Rows follow :meth:`KnowledgeGraph.add`'s rules; facts already current (or identical history)
    are skipped, so importing twice changes nothing. ``on_error="raise"`` refuses the whole file
    if any row is bad (:class:`~kgtoolkit.InvalidRows` names line, field, value and reason);
    ``"skip"`` imports the good rows. ``rejects``: a CSV file that receives the bad rows (``line,
    field, value, reason`` and the row's fields, escaped against spreadsheet formulas as
    :func:`export_file` does), in both modes. ``allow_commas`` turns the comma
    guard off (curated names such as "Washington, D.C."). ``source`` is the default ``source`` of
    rows without one. ``progress(done, total)`` is called as facts are written.

    A JSON dump is restored exactly into an empty graph, after every record is checked: a bad one
    refuses the whole dump (``on_error``, ``allow_commas`` and ``source`` do not apply), and
    ``rejects`` gets each problem with its ``record``; into a non-empty graph it is merged by the add
    rules. SQLite files: another kgtoolkit graph is imported like its dump; MemPalace's and Flowly's
    ``entities``/``triples`` files are read read-only and what was not recognised is listed in
    ``warnings``.

    ``dry_run=True`` (a file of facts: CSV, TSV, JSONL, Parquet) reads the file and checks every row
    by the rules and this graph's settings without writing anything (a read-only graph too): the
    report's ``rows``, ``rejected`` and ``rejects`` (and the ``rejects`` file) are the import's, and
    ``inserted`` and the other counts are 0 (see :func:`kgtoolkit.store.import_facts`). A preview
    before importing, as the dashboard shows it.
    """
    file = _existing(path)
    fmt = _format(file, format, allowed=FORMATS, purpose="import")
    if on_error not in ("raise", "skip"):
        raise InvalidRequest(f"on_error must be 'raise' or 'skip', not {on_error!r}", field="on_error", value=str(on_error))
    if dry_run and fmt in ("json", "sqlite"):
        raise InvalidRequest(f"a dry run checks a file of facts (csv, tsv, jsonl, parquet), not a {fmt} graph; "
                             "import it into an empty graph to check it (a restore refuses a bad dump whole)",
                             field="dry_run", value=str(file))
    options: dict[str, Any] = {"on_error": on_error, "allow_commas": allow_commas, "source": source, "progress": progress}
    if fmt == "json":
        return _import_dump(kg, _load_json(file), rejects, options)
    if fmt == "sqlite":
        if is_kgtoolkit_file(file):
            if kg.path is not None and not kg.location.memory and Path(kg.path).resolve() == file.resolve():
                raise InvalidRequest(f"{file} is this graph's own file; nothing to import", field="path", value=str(file))
            other = KnowledgeGraph(file, read_only=True)
            try:
                data = dump(other)
            finally:
                other.close()
            return _import_dump(kg, data, rejects, options)
        foreign = read_foreign(file, value_predicates=kg.config.value_predicates)
        report = _guarded(lambda: import_graph(kg, foreign.facts, entities=foreign.entities, aliases=foreign.aliases,
                                               **options), foreign.facts, rejects)
        return dataclasses.replace(report, warnings=tuple(foreign.warnings) + report.warnings)
    frame, export = _read(file, format=fmt, columns=columns, delimiter=delimiter, header=header)
    if export:  # its names were accepted by the graph it came from: the comma guard has nothing to say
        options["allow_commas"] = True
    return _guarded(lambda: import_facts(kg, frame, dry_run=dry_run, **options), frame, rejects)


def _import_dump(kg: KnowledgeGraph, data: Any, rejects: str | os.PathLike[str] | None,
                 options: dict[str, Any]) -> ImportReport:
    if is_empty(kg):
        if rejects is not None:
            _check_writable(Path(rejects))
        try:
            report = restore(kg, data, progress=options["progress"])
        except InvalidRows as exc:  # every bad record of the dump, with where it is (``record``)
            if rejects is not None:
                import polars as pl

                schema = {"line": pl.Int64, "record": pl.String, **{c: pl.String for c in _REJECT_COLUMNS[1:]}}
                _write_rejects(Path(rejects), pl.DataFrame(exc.data.get("rows", []), schema=schema), None)
            raise
        if rejects is not None:
            _write_rejects(Path(rejects), None, None)
        return report
    frame, entities, aliases, memories = dump_parts(data)
    pairs = dump_predicate_aliases(data)
    return _guarded(lambda: import_graph(kg, frame, entities=entities, aliases=aliases, memories=memories,
                                         predicate_aliases=pairs, **options), frame, rejects)


def _guarded(run: Callable[[], tuple[ImportReport, pl.DataFrame]], frame: pl.DataFrame,
             rejects: str | os.PathLike[str] | None) -> ImportReport:
    """Run an import, writing the rejects file (when asked) whether it succeeds or refuses.

    The rejects file's folder is checked first: an import must not commit and then report failure.
    """
    import polars as pl

    if rejects is not None:
        _check_writable(Path(rejects))
    try:
        report, bad = run()
    except InvalidRows as exc:
        if rejects is not None:
            schema = {"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String, "reason": pl.String}
            _write_rejects(Path(rejects), pl.DataFrame(exc.data.get("rows", []), schema=schema), frame)
        raise
    if rejects is not None:
        _write_rejects(Path(rejects), bad, frame)
    return report


def _check_writable(target: Path) -> None:
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".check"):
            pass
    except OSError as exc:
        raise InvalidRequest(f"cannot write the rejects file {target}: {exc.strerror or exc}; choose another path "
                             "(nothing was imported)", field="rejects", value=str(target)) from exc


def _write_rejects(target: Path, bad: pl.DataFrame | None, frame: pl.DataFrame | None) -> None:
    """The rejected rows as CSV: ``line, field, value, code, reason``, then the row's own fields (a dump's
    problems: ``line, record, field, value, code, reason``)."""
    import polars as pl

    if bad is None:
        bad = pl.DataFrame(schema={"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String, "reason": pl.String})
    out = bad.select("line", *(["record"] if "record" in bad.columns else []), *_REJECT_COLUMNS[1:])
    if frame is not None:
        fields = frame.select("line", *[pl.col(c).cast(pl.String) for c in frame.columns if c != "line"])
        out = out.join(fields, on="line", how="left", suffix="_row")
    out = _escape_formulas(out)  # the bad rows are meant to be opened in a spreadsheet
    _atomic(target, lambda tmp: out.write_csv(tmp))


def _load_json(file: Path) -> Any:
    try:
        with file.open(encoding="utf-8-sig") as fh:  # a BOM is fine, as in the other formats
            return json.load(fh)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than Python parses
        raise InvalidRequest(f"{file} is not valid JSON ({exc}); a .json file must be a kgtoolkit dump, and one fact "
                             "per line is JSON Lines (.jsonl)", field="path", value=str(file)) from exc
    except OSError as exc:  # no permission, an I/O error: as for the other formats
        raise _polars_error(file, "json", exc) from exc


# ---------------------------------------------------------------------- export


def export_file(
    kg: KnowledgeGraph,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    current_only: bool = False,
    predicate: str | None = None,
    entity: str | None = None,
    escape_formulas: bool = True,
    progress: Progress | None = None,
) -> int:
    """Write the graph's facts to ``path``; returns the number of facts written.

    CSV/TSV/JSONL/Parquet: the columns of :func:`kgtoolkit.frames.facts` (filters as there).
    ``valid_from``/``valid_to`` are the stored text, so the file re-imports to the same facts; in the
    text formats the instants (``start, end, recorded_at, invalidated_at``) are ISO text with ``Z``,
    in Parquet they are UTC timestamps. TSV has no quoting, so a value holding a tab or line break is
    refused there (use CSV, JSONL or Parquet). ``json``: the lossless dump of the whole graph (no
    filters). The file is written whole or not at all (a temporary file renamed into place).

    ``escape_formulas`` (CSV and TSV): a text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return gets a ``'`` in front, so a spreadsheet shows it as text instead of running it as
    a formula (CSV injection); so does one beginning with ``'`` and one of those. :func:`import_file`
    and :func:`read_facts_file` take that ``'`` off, so the file still re-imports to the same facts.
    ``False`` writes every cell as it is, for programs that are not spreadsheets.
    """
    import polars as pl

    from . import frames

    target = Path(path).expanduser()
    fmt = _format(target, format, allowed=("csv", "tsv", "jsonl", "parquet", "json"), purpose="export")
    if fmt == "json":
        used = [name for name, value in (("as_of", as_of), ("known_at", known_at), ("predicate", predicate),
                                         ("entity", entity)) if value not in (None, "")] + (["current_only"] if current_only else [])
        if used:
            raise InvalidRequest(f"the JSON dump holds the whole graph, so {', '.join(used)} cannot apply; export "
                                 "CSV, TSV, JSONL or Parquet to filter", field=used[0])
        data = dump(kg)
        total = len(data["facts"])
        if progress:
            progress(0, total)
        _atomic(target, lambda tmp: _write_dump(data, tmp))
        if progress:
            progress(total, total)
        return total
    frame = frames.facts(kg, as_of=as_of, known_at=known_at, predicate=predicate, entity=entity,
                         current_only=current_only)
    assert isinstance(frame, pl.DataFrame)
    total = frame.height
    if progress:
        progress(0, total)
    if fmt != "parquet":
        frame = frame.with_columns(pl.col(c).dt.convert_time_zone("UTC").dt.to_string("%Y-%m-%dT%H:%M:%S%.6fZ")
                                   for c, t in frame.schema.items() if isinstance(t, pl.Datetime))
    if fmt == "tsv":
        text = [c for c, t in frame.schema.items() if t == pl.String]
        broken = [c for c in text if frame.select(pl.col(c).str.contains(r"[\t\r\n]").any()).item()]
        if broken:
            raise InvalidRequest(f"a value in {', '.join(broken)} holds a tab or a line break, which TSV cannot hold; "
                                 "export CSV, JSONL or Parquet instead", field=broken[0])
    if fmt in ("csv", "tsv") and escape_formulas:
        frame = _escape_formulas(frame)
    writers: dict[str, Callable[[Path], None]] = {
        "csv": lambda tmp: frame.write_csv(tmp),
        "tsv": lambda tmp: frame.write_csv(tmp, separator="\t", quote_style="never"),
        "jsonl": lambda tmp: frame.write_ndjson(tmp),
        "parquet": lambda tmp: frame.write_parquet(tmp),
    }
    _atomic(target, writers[fmt])
    if progress:
        progress(total, total)
    return total


def _escape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with a ``'`` before each text cell a spreadsheet would run as a formula (see ``_FORMULA``)."""
    import polars as pl

    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_FORMULA)).then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c)).alias(c)
        for c, t in frame.schema.items() if t == pl.String)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _write_dump(data: Mapping[str, Any], tmp: Path) -> None:
    """The dump as JSON, one record per line (diffable, and the same graph always gives the same bytes).

    Text an older version stored that is not valid Unicode (a lone surrogate, which only JSON strings
    can hold) is written as its ``\\udcXX`` JSON escape, so the dump stays UTF-8 and restores it as it was.
    """
    with tmp.open("w", encoding="utf-8", errors="backslashreplace", newline="\n") as fh:
        _dump_to(data, fh)


def _dump_to(data: Mapping[str, Any], fh: IO[str]) -> None:
    fh.write("{\n")
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        end = ",\n" if i < len(items) - 1 else "\n"
        if isinstance(value, list) and value:
            fh.write(f"  {_json(key)}: [\n")
            fh.write(",\n".join(f"    {_json(item)}" for item in value))
            fh.write(f"\n  ]{end}")
        else:
            fh.write(f"  {_json(key)}: {_json(value)}{end}")
    fh.write("}\n")


def _atomic(target: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename it into place."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    except OSError as exc:  # a full disk is disk_full; any other failure store_error (kgtoolkit.store._failures)
        tmp.unlink(missing_ok=True)
        raise os_failure(exc, path=target, doing="write") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

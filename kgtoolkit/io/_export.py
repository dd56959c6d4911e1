"""Writing a graph's facts to a file: :func:`export_file` (CSV, TSV, JSON Lines, Parquet, the JSON dump),
escaped against spreadsheet formulas, written whole or not at all (:func:`_atomic`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._errors import InvalidRequest
from .._private import private_file
from .._time import TimeInput
from ..graph import KnowledgeGraph
from ..store import dump
from ..store.engine import os_failure
from ._formats import Progress, _compressing, _compression, _format

if TYPE_CHECKING:
    import polars as pl


# A text cell a spreadsheet would run as a formula (OWASP's CSV injection list: = + - @, tab, carriage
# return), or one already escaped so ('=…): CSV/TSV exports put one ' before it, their import takes it off.
_FORMULA = r"^'*[=+\-@\t\r]"


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
    """Write the graph's facts to a file: CSV, TSV, JSON Lines, Parquet, or the lossless JSON dump.

    CSV, TSV, JSONL and Parquet hold the columns of :func:`kgtoolkit.frames.facts`. ``valid_from`` and
    ``valid_to`` are the stored text, so the file re-imports to the same facts. The instants (``start``,
    ``end``, ``recorded_at``, ``invalidated_at``) are ISO text with ``Z``, or UTC timestamps in Parquet.
    ``json`` is the dump of the whole graph. The file is written whole or not at all (a temporary file
    renamed into place). A path ending ``.gz``, ``.bz2`` or ``.zst`` is compressed so, and imports back
    as it is.

    Parameters
    ----------
    kg
        The graph.
    path
        The file. Its suffix gives the format.
    format
        ``csv``, ``tsv``, ``jsonl``, ``parquet`` or ``json``, instead of the suffix's.
    as_of, known_at, current_only, predicate, entity
        Filters, as :func:`kgtoolkit.frames.facts` takes them. The JSON dump takes none.
    escape_formulas
        CSV and TSV: put a ``'`` before a text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab
        or a carriage return, so a spreadsheet shows it as text (CSV injection). :func:`import_file`
        takes that ``'`` off again. False writes every cell as it is.
    progress
        Called as ``progress(done, total)`` while facts are written.

    Returns
    -------
    int
        The number of facts written.

    Raises
    ------
    InvalidRequest
        An unknown format, a filter given to the JSON dump, or a TSV value holding a tab or line break
        (TSV has no quoting: use CSV, JSONL or Parquet).

    Examples
    --------
    >>> import kgtoolkit, tempfile, pathlib
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("sheet", "note", "=1+1")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "facts.csv"
    >>> export_file(kg, path)
    1
    >>> "'=1+1" in path.read_text()
    True
    """
    import polars as pl

    from .. import frames

    target = Path(path).expanduser()
    fmt = _format(target, format, allowed=("csv", "tsv", "jsonl", "parquet", "json"), purpose="export")
    if fmt == "json":
        used = [
            name
            for name, value in (("as_of", as_of), ("known_at", known_at), ("predicate", predicate), ("entity", entity))
            if value not in (None, "")
        ] + (["current_only"] if current_only else [])
        if used:
            raise InvalidRequest(
                f"the JSON dump holds the whole graph, so {', '.join(used)} cannot apply; export "
                "CSV, TSV, JSONL or Parquet to filter",
                field=used[0],
            )
        data = dump(kg)
        total = len(data["facts"])
        if progress:
            progress(0, total)
        _atomic(target, _compressing(_compression(target), lambda tmp: _write_dump(data, tmp)))
        if progress:
            progress(total, total)
        return total
    frame = frames.facts(
        kg, as_of=as_of, known_at=known_at, predicate=predicate, entity=entity, current_only=current_only
    )
    assert isinstance(frame, pl.DataFrame)
    total = frame.height
    if progress:
        progress(0, total)
    if fmt != "parquet":
        frame = frame.with_columns(
            pl.col(c).dt.convert_time_zone("UTC").dt.to_string("%Y-%m-%dT%H:%M:%S%.6fZ")
            for c, t in frame.schema.items()
            if isinstance(t, pl.Datetime)
        )
    if fmt == "tsv":
        text = [c for c, t in frame.schema.items() if t == pl.String]
        broken = [c for c in text if frame.select(pl.col(c).str.contains(r"[\t\r\n]").any()).item()]
        if broken:
            raise InvalidRequest(
                f"a value in {', '.join(broken)} holds a tab or a line break, which TSV cannot hold; "
                "export CSV, JSONL or Parquet instead",
                field=broken[0],
            )
    if fmt in ("csv", "tsv") and escape_formulas:
        frame = _escape_formulas(frame)
    writers: dict[str, Callable[[Path], None]] = {
        "csv": lambda tmp: frame.write_csv(tmp),
        "tsv": lambda tmp: frame.write_csv(tmp, separator="\t", quote_style="never"),
        "jsonl": lambda tmp: frame.write_ndjson(tmp),
        "parquet": lambda tmp: frame.write_parquet(tmp),
    }
    _atomic(target, _compressing(_compression(target), writers[fmt]))
    if progress:
        progress(total, total)
    return total


def _escape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with a ``'`` before each text cell a spreadsheet would run as a formula (see ``_FORMULA``)."""
    import polars as pl

    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_FORMULA)).then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c)).alias(c)
        for c, t in frame.schema.items()
        if t == pl.String
    )


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
    """Write the dump as JSON with one record a line (lists of records indented), so files diff by record."""
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
    """Write through a temporary file in the same folder (created 0600), then rename it into place."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(private_file(tmp))  # 0600: a dump holds every memory (contract §8)
        os.replace(tmp, target)
    except OSError as exc:  # a full disk is disk_full; any other failure store_error (kgtoolkit.store.engine._failures)
        tmp.unlink(missing_ok=True)
        raise os_failure(exc, path=target, doing="write") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

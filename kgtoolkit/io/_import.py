"""Importing a file into a graph in one transaction: :func:`import_file`, by format (a file of facts, a JSON
dump, a kgtoolkit or another program's SQLite graph)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from .._errors import InvalidRequest
from ..graph import KnowledgeGraph
from ..store import (
    ImportReport,
    dump,
    import_facts,
    import_graph,
    is_kgtoolkit_file,
    read_foreign,
)
from ._dump_import import _import_dump, _load_json
from ._formats import FORMATS, Progress, _decompressed, _existing, _format
from ._read import _read, _read_batches
from ._rejects import _guarded


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
    comma_guard: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
) -> ImportReport:
    """Import a file of facts, a JSON dump, or another program's SQLite graph, in one transaction.

    Rows follow the rules of :meth:`KnowledgeGraph.add`. Facts already current (or identical history)
    are skipped, so importing twice changes nothing. A CSV/TSV row with fewer fields than the header (a
    file cut mid-row) is a bad row, never padded. A compressed file (``.gz``, ``.bz2``, ``.zst``) is
    decompressed into a temporary file first.

    A JSON dump is restored exactly into an empty graph, after every record is checked; one bad record
    refuses the whole dump. Into a graph that is not empty it is merged by the add rules. Another
    kgtoolkit SQLite graph is imported like its dump. MemPalace's and Flowly's ``entities``/``triples``
    files are read read-only; what was not recognised is listed in ``warnings``.

    Parameters
    ----------
    kg
        The graph to import into.
    path
        The file. Its suffix gives the format (the module's docstring lists them).
    format
        The format, instead of the suffix's.
    columns
        The file's headers (or positions, with ``header=False``) mapped to fields, e.g.
        ``{"head": "subject"}``.
    header
        False: a CSV/TSV file without a header line.
    delimiter
        The separator of a CSV/TSV file.
    on_error
        ``"raise"`` refuses the whole file if any row is bad. ``"skip"`` imports the good rows.
    rejects
        A CSV file that receives the bad rows with ``line``, ``field``, ``value`` and ``reason``,
        escaped against spreadsheet formulas. Written in both modes.
    allow_commas
        The older spelling of the default: no comma guard, nothing counted.
    comma_guard
        Refuse names with commas as packed lists (contract §2). By default they are imported as written
        and counted in the warnings.
    source
        The ``source`` of rows that name none.
    progress
        Called as ``progress(done, total)`` while facts are written.
    dry_run
        Check every row by the rules and this graph's settings, and write nothing (a read-only graph
        too). The report's ``rows``, ``rejected`` and ``rejects`` are the import's; the other counts
        are 0. The dashboard's import preview is this.

    Returns
    -------
    ImportReport
        What was inserted, skipped and rejected, with warnings.

    Raises
    ------
    kgtoolkit.InvalidRows
        With ``on_error="raise"``, a bad row (or dump record); ``data["rows"]`` names each problem.
    InvalidRequest
        A file that is missing or unreadable, an unknown format, or missing ``subject``, ``predicate``
        or ``object`` columns.

    Examples
    --------
    >>> import kgtoolkit, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "facts.tsv"
    >>> _ = path.write_text("subject\\tpredicate\\tobject\\nmy_api\\tuses\\tRedis\\nmy_api\\tuses\\t\\n")
    >>> report = import_file(kgtoolkit.open(":memory:"), path, on_error="skip")
    >>> report.inserted, report.rejected
    (1, 1)
    """
    file = _existing(path)
    fmt = _format(file, format, allowed=FORMATS, purpose="import")
    if on_error not in ("raise", "skip"):
        raise InvalidRequest(
            f"on_error must be 'raise' or 'skip', not {on_error!r}", field="on_error", value=str(on_error)
        )
    if dry_run and fmt in ("json", "sqlite"):
        raise InvalidRequest(
            f"a dry run checks a file of facts (csv, tsv, jsonl, parquet), not a {fmt} graph; "
            "import it into an empty graph to check it (a restore refuses a bad dump whole)",
            field="dry_run",
            value=str(file),
        )
    options: dict[str, Any] = {
        "on_error": on_error,
        "allow_commas": allow_commas,
        "comma_guard": comma_guard,
        "source": source,
        "progress": progress,
    }
    with _decompressed(file) as plain:  # a compressed file: its content, in a temporary file while it is imported
        return _import(kg, plain, fmt, options, columns, header, delimiter, rejects, dry_run)


def _import(
    kg: KnowledgeGraph,
    file: Path,
    fmt: str,
    options: dict[str, Any],
    columns: Mapping[str | int, str] | None,
    header: bool,
    delimiter: str | None,
    rejects: str | os.PathLike[str] | None,
    dry_run: bool,
) -> ImportReport:
    """Import ``file`` by its format: a dump, an SQLite graph, or facts read whole or in batches."""
    if fmt == "json":
        return _import_dump(kg, _load_json(file), rejects, options)
    if fmt == "sqlite":
        if is_kgtoolkit_file(file):
            file_of = kg.location.path
            if file_of is not None and not kg.location.memory and file_of.resolve() == file.resolve():
                raise InvalidRequest(
                    f"{file} is this graph's own file; nothing to import", field="path", value=str(file)
                )
            other = KnowledgeGraph(file, read_only=True)
            try:
                data = dump(other)
            finally:
                other.close()
            return _import_dump(kg, data, rejects, options)
        foreign = read_foreign(file, value_predicates=kg.config.value_predicates)
        report = _guarded(
            lambda: import_graph(kg, foreign.facts, entities=foreign.entities, aliases=foreign.aliases, **options),
            foreign.facts,
            rejects,
        )
        return dataclasses.replace(report, warnings=tuple(foreign.warnings) + report.warnings)
    streamed = _read_batches(file, format=fmt, columns=columns, delimiter=delimiter, header=header)
    if streamed is not None:  # a big file: read, checked and written a batch at a time, in one transaction
        batches, export, rows = streamed
        if export:
            options["allow_commas"] = True
        return _guarded(lambda: import_facts(kg, batches, dry_run=dry_run, rows=rows, **options), None, rejects)
    frame, export = _read(file, format=fmt, columns=columns, delimiter=delimiter, header=header)
    if export:  # its names were accepted by the graph it came from: the comma guard has nothing to say
        options["allow_commas"] = True
    return _guarded(lambda: import_facts(kg, frame, dry_run=dry_run, **options), frame, rejects)

"""The import path of a JSON dump (or another kgtoolkit graph's): reading the file, then an exact restore into
an empty graph or a merge by the add rules into one that is not."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .._errors import InvalidRequest
from ..graph import KnowledgeGraph
from ..store import (
    ImportReport,
    InvalidRows,
    dump_parts,
    dump_predicate_aliases,
    import_graph,
    is_empty,
    restore,
)
from ._read import _polars_error
from ._rejects import _REJECT_COLUMNS, _check_writable, _guarded, _write_rejects


def _import_dump(
    kg: KnowledgeGraph, data: Any, rejects: str | os.PathLike[str] | None, options: dict[str, Any]
) -> ImportReport:
    """Restore a dump into an empty graph (every record checked first), or merge it by the add rules."""
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
    return _guarded(
        lambda: import_graph(
            kg, frame, entities=entities, aliases=aliases, memories=memories, predicate_aliases=pairs, **options
        ),
        frame,
        rejects,
    )


def _load_json(file: Path) -> Any:
    """The JSON of ``file``, or a clear error saying a dump is expected."""
    try:
        with file.open(encoding="utf-8-sig") as fh:  # a BOM is fine, as in the other formats
            return json.load(fh)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than Python parses
        raise InvalidRequest(
            f"{file} is not valid JSON ({exc}); a .json file must be a kgtoolkit dump, and one fact "
            "per line is JSON Lines (.jsonl)",
            field="path",
            value=str(file),
        ) from exc
    except OSError as exc:  # no permission, an I/O error: as for the other formats
        raise _polars_error(file, "json", exc) from exc

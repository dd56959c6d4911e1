"""A whole graph from one database to another (SQLite or PostgreSQL, either way), losslessly.

Into an empty target, :func:`copy_graph` keeps everything: ids, transaction times, names, types,
properties, aliases, memories, settings and the pairs marked not the same, read from one snapshot of the source and written in one
transaction of the target. Into a target that holds a graph already it refuses, unless ``merge``: the
source is then merged by the add rules, as importing its dump would (new ids, duplicates skipped).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._checks import MAX_FACT_ID
from ..._errors import InvalidRequest
from ..._names import check_data, check_text, control_regex, printable
from ..._records import CopyReport
from ..engine import FACT_COLUMNS, TABLE_COLUMNS
from ._dump import _empty
from ._export import _typed

if TYPE_CHECKING:
    import pyarrow as pa

    from .._graph_store import GraphStore

__all__ = ["CopyReport", "copy_graph"]

Progress = Callable[[int, int], None]
_CHUNK = 50_000


def copy_graph(
    source: GraphStore, target: GraphStore, *, merge: bool = False, progress: Progress | None = None
) -> CopyReport:
    """Copy every table of ``source`` into ``target`` (see the module's docstring). ``progress(done, total)``
    counts rows as they are written."""
    # The same database under two names (a relative and an absolute path; localhost and 127.0.0.1): the
    # identity is the resolved file, or the graph id PostgreSQL keeps in the schema.
    if source.location == target.location or (
        source.backend == target.backend
        and not source.location.memory
        and source.engine.identity() == target.engine.identity()
    ):
        raise InvalidRequest(
            f"{source.location} is both the source and the target; copy to another database",
            field="target",
            value=str(target.location),
        )
    if merge and not _is_empty(target):
        return _merge(source, target, progress)
    columns = {name: ", ".join(TABLE_COLUMNS[name]) for name in ("entities", "aliases", "memories")}
    parts, (entities, aliases, memories, settings, labels, predicate_aliases, not_duplicates) = (
        source.engine.read_arrow(
            [
                (f"SELECT {columns['entities']} FROM entities ORDER BY id", {}),
                (f"SELECT {columns['aliases']} FROM aliases ORDER BY alias", {}),
                (f"SELECT {columns['memories']} FROM memories ORDER BY id", {}),
                ("SELECT key, value FROM settings ORDER BY key", {}),
                ("SELECT id, label FROM predicates ORDER BY id", {}),
                ("SELECT alias, predicate FROM predicate_aliases ORDER BY alias", {}),
                (f"SELECT {', '.join(TABLE_COLUMNS['not_duplicates'])} FROM not_duplicates ORDER BY kind, a, b", {}),
            ],
            split=(
                f"SELECT {', '.join(FACT_COLUMNS)} FROM facts f WHERE f.id >= :_lo AND f.id <= :_hi ORDER BY f.id",
                {},
            ),
        )
    )
    facts = [_typed(p, "facts") for p in parts]
    _check_copied(
        [("entities", entities), ("aliases", aliases), ("memories", memories), ("settings", settings)]
        + [("predicates", labels), ("predicate_aliases", predicate_aliases), ("not_duplicates", not_duplicates)]
        + [("facts", part) for part in facts]
    )
    total = sum(p.num_rows for p in facts) + entities.num_rows + aliases.num_rows + memories.num_rows
    done = 0
    backend = target.engine
    with backend.bulk_write() as cur:
        if not _empty(cur):
            raise InvalidRequest(
                f"{target.location} already holds a graph; copy into an empty database, or merge into "
                "this one by the add rules (merge=True, `kgtoolkit copy --merge`)",
                field="target",
                value=str(target.location),
            )
        if progress:
            progress(0, total)
        cur.execute("DELETE FROM settings")
        cur.execute("DELETE FROM predicates")  # labels of predicates no fact uses: the source's replace them
        backend.insert_rows(cur, "settings", ("key", "value"), [(r["key"], r["value"]) for r in settings.to_pylist()])
        for name, table in (
            ("entities", entities),
            ("facts", None),
            ("aliases", aliases),
            ("memories", memories),
            ("not_duplicates", not_duplicates),
        ):
            tables = facts if table is None else [_typed(table, name)]
            for part in tables:
                for batch in part.to_batches(_CHUNK):
                    backend.insert_rows(cur, name, TABLE_COLUMNS[name], zip(*[c.to_pylist() for c in batch.columns]))
                    done += batch.num_rows
                    if progress:
                        progress(done, total)
        for name, table, keys in (
            ("predicates", labels, ("id", "label")),
            ("predicate_aliases", predicate_aliases, ("alias", "predicate")),
        ):
            backend.insert_rows(cur, name, keys, [tuple(r[k] for k in keys) for r in table.to_pylist()])
        backend.after_explicit_ids(cur, "facts")
    return CopyReport(
        str(source.location),
        str(target.location),
        False,
        sum(p.num_rows for p in facts),
        entities.num_rows,
        aliases.num_rows,
        memories.num_rows,
        settings.num_rows,
    )


_JSON_COLUMNS = frozenset({"properties", "metadata", "value"})
# A JSON text's escape of a character check_text refuses (json.dumps writes the C0 controls so).
_ESCAPED_CONTROL = r"\\u(00[01][0-9a-fA-F]|007[fF]|00[89][0-9a-fA-F]|202[a-eA-E]|206[6-9])"


def _check_copied(tables: list[tuple[str, pa.Table]]) -> None:
    """Refuse a source holding what a write refuses (contract §2, §9): a control character in any text (a JSON
    column's keys and texts too), a fact id past :data:`MAX_FACT_ID`. Matched in bulk, by Arrow; a row found is
    named, and nothing is written."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pattern = control_regex()
    for name, table in tables:
        if name == "facts" and table.num_rows and (pc.max(table["id"]).as_py() or 0) > MAX_FACT_ID:
            raise InvalidRequest(
                f"the source holds a fact id past 2**53 ({MAX_FACT_ID:,}), which a restore refuses: a larger id "
                "leaves no room for the ids of later writes; export it (`kgtoolkit export x.json`), renumber the "
                "facts and import the dump",
                field="id",
                value=str(pc.max(table["id"]).as_py()),
            )
        for column in table.column_names:
            values = table[column]
            if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
                continue
            found = pc.match_substring_regex(values, pattern)
            if column in _JSON_COLUMNS:
                found = pc.or_(found, pc.match_substring_regex(values, _ESCAPED_CONTROL))
            for row in pc.indices_nonzero(pc.fill_null(found, False)).to_pylist():
                _refuse_row(name, column, table.slice(row, 1).to_pylist()[0])


def _refuse_row(name: str, column: str, row: dict[str, Any]) -> None:
    """Raise for the row ``row`` of ``name`` whose ``column`` holds a control character (a JSON column's escape
    may be text that only looks like one: then the row passes)."""
    value = row[column]
    key = next((str(row[k]) for k in ("id", "alias", "key", "a") if k in row), "?")
    where = f"{name} {key!r}: {column}"
    try:
        if column in _JSON_COLUMNS:
            check_data(json.loads(value), field=where)
        else:
            check_text(value, field=where, error=InvalidRequest)
    except InvalidRequest as exc:
        raise InvalidRequest(
            f"the source holds text a write refuses; nothing was copied: {exc.message}. Fix it in the source "
            "(or export it, edit the dump and import that)",
            field=column,
            value=printable(str(value)[:200]),
        ) from None


def _is_empty(kg: GraphStore) -> bool:
    if kg.engine.missing:  # a graph not made yet holds nothing
        return True
    with kg.engine.read() as cur:
        return _empty(cur)


def _merge(source: GraphStore, target: GraphStore, progress: Progress | None) -> CopyReport:
    """Copy ``source`` into a graph that holds facts already: a dump merged, as ``import_graph`` merges."""
    from ._dump import dump, dump_parts, dump_predicate_aliases, import_graph

    data = dump(source)
    frame, entities, aliases, memories = dump_parts(data)
    before = _counts(target)
    report, _ = import_graph(
        target,
        frame,
        entities=entities,
        aliases=aliases,
        memories=memories,
        allow_commas=True,
        predicate_aliases=dump_predicate_aliases(data),
        progress=progress,
    )
    after = _counts(target)  # the aliases and memories added (those already there, or clashing, are not)
    return CopyReport(
        str(source.location),
        str(target.location),
        True,
        report.inserted,
        report.entities_created,
        after[0] - before[0],
        after[1] - before[1],
        0,
        report.duplicates,
        report.warnings,
    )


def _counts(kg: GraphStore) -> tuple[int, int]:
    with kg.engine.read() as cur:
        aliases, memories = cur.execute(
            "SELECT (SELECT count(*) FROM aliases), (SELECT count(*) FROM memories)"
        ).fetchone()
        return int(aliases), int(memories)

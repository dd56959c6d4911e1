"""Whole tables out as Arrow, in one read snapshot through the engine.

SQLite reads a small table here and a large one in a reader process; PostgreSQL reads through ADBC. A read
of the facts may keep a time window (``as_of``, ``known_at``) and a few filters, and comes whole or in batches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..._errors import InvalidRequest
from ..._names import normalize_predicate
from ..._time import OPEN_END, TimeInput
from ..._window import ReadWindow
from ..engine import FACT_COLUMNS, TABLE_COLUMNS
from ..reads import _queries as q

if TYPE_CHECKING:
    import pyarrow as pa

    from .._graph_store import GraphStore


__all__ = ["Table", "count_facts", "facts_batches", "facts_table", "read_table"]

Table = Literal["facts", "entities", "aliases", "memories"]


def read_table(
    kg: GraphStore,
    table: Table,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> pa.Table:
    """One table of the graph as Arrow (every stored column), filters pushed down into SQL.

    For ``facts``: ``as_of``/``known_at``/``current_only`` as in :meth:`GraphStore.query`, a
    ``predicate``, and an ``entity`` (facts where it is subject or object). With ``known_at``, ends
    recorded after it are blanked, as the store would have shown them then. For the other tables,
    ``entity`` keeps that entity's rows.
    """
    if table not in TABLE_COLUMNS:
        raise InvalidRequest(
            f"no table {table!r}; choose one of {', '.join(TABLE_COLUMNS)}", field="table", value=table
        )
    if table == "facts":
        import pyarrow as pa

        window = ReadWindow(as_of, known_at, current_only=current_only)
        parts, _ = facts_table(kg, FACT_COLUMNS, window, predicate=predicate, entity=entity)
        return pa.concat_tables(parts)
    columns = ", ".join(f"f.{c}" for c in TABLE_COLUMNS[table])
    params: dict[str, Any] = {}
    where = ""
    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    if entity_id is not None:
        params["e"] = entity_id
        where = {"entities": " AND f.id = :e", "aliases": " AND f.entity_id = :e", "memories": " AND FALSE"}[table]
    key = "id" if table != "aliases" else "alias"
    _, (result,) = kg.engine.read_arrow(
        [(f"SELECT {columns} FROM {table} f WHERE TRUE{where} ORDER BY f.{key}", params)]
    )
    return _typed(result, table)


def facts_table(
    kg: GraphStore,
    columns: Sequence[str],
    window: ReadWindow,
    *,
    predicate: str | None = None,
    entity: str | None = None,
    extra: Sequence[str] = (),
    names: bool = False,
) -> tuple[list[pa.Table], list[pa.Table]]:
    """:func:`read_table` of the ``facts`` in ``window`` with a choice of ``columns``, in parts ordered by id (one, or two for a
    big SQLite table read on two connections at once), and ``extra`` queries from the same snapshot. ``names``:
    then (last) the ``id, name, type`` of the entities the facts name: with an ``entity`` filter, those alone
    (looked up by key); else the whole entities table."""
    where, params, known = _facts_filter(kg, window, predicate, entity)
    if known is not None:  # the blanking below needs these
        columns = [*columns, *[c for c in _BLANKED if c not in columns]]
    selected = ", ".join(f"f.{c}" for c in columns)
    split = (f"SELECT {selected} FROM facts f WHERE f.id >= :_lo AND f.id <= :_hi{where} ORDER BY f.id", params)
    queries: list[tuple[str, dict[str, Any]]] = [(sql, {}) for sql in extra]
    if names and "e" in params:  # one entity's facts: their entities by key, not the whole table
        queries.append(
            (
                "SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN ("
                f"SELECT f.subject FROM facts f WHERE TRUE{where} "
                f"UNION SELECT f.object_id FROM facts f WHERE TRUE{where})",
                params,
            )
        )
    elif names:
        queries.append(("SELECT id, name, type FROM entities", {}))
    parts, others = kg.engine.read_arrow(queries, split=split)
    return [_blank_later(_typed(part, "facts", columns), known) for part in parts], others


#: The columns of a fact's end, blanked in a read ``known_at`` a moment before the end was recorded.
_BLANKED = ("valid_to", "to_us", "invalidated_at", "ended_by")


def _facts_filter(
    kg: GraphStore, window: ReadWindow, predicate: str | None, entity: str | None
) -> tuple[str, dict[str, Any], str | None]:
    """The facts filters as SQL conditions on alias ``f`` (each `` AND …``), their parameters, and the
    ``known_at`` instant whose later ends :func:`_blank_later` blanks (None without ``known_at``)."""
    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    where, params, known = q.time_filter(window)
    if predicate not in (None, ""):
        assert predicate is not None
        normalize_predicate(predicate)  # a bad name is refused before the graph is read
        params["p"] = kg.resolve_predicate(predicate)  # through a predicate alias (contract §13)
        where += " AND f.predicate = :p"
    if entity_id is not None:
        params["e"] = entity_id
        where += " AND (f.subject = :e OR f.object_id = :e)"
    return where, params, known


def _blank_later(part: pa.Table, known: str | None) -> pa.Table:
    """A facts part as the store showed it at ``known``: the ends recorded after it blanked."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if known is None or not part.num_rows:
        return part
    later = pc.fill_null(pc.greater(part["invalidated_at"], pa.scalar(known)), False)
    for name, blank in (
        ("valid_to", pa.nulls(1, pa.string())[0]),
        ("to_us", pa.scalar(OPEN_END)),
        ("invalidated_at", pa.nulls(1, pa.string())[0]),
        ("ended_by", pa.nulls(1, pa.string())[0]),
    ):
        i = part.schema.get_field_index(name)
        part = part.set_column(i, name, pc.if_else(later, blank, part[name]))
    return part


def count_facts(
    kg: GraphStore,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> int:
    """How many facts match the filters of :func:`read_table` (one ``count(*)``, for a progress bar's total)."""
    window = ReadWindow(as_of, known_at, current_only=current_only)
    where, params, _ = _facts_filter(kg, window, predicate, entity)
    rows = kg.engine.fetch_all(f"SELECT count(*) FROM facts f WHERE TRUE{where}", params)
    return int(rows[0][0])


def facts_batches(
    kg: GraphStore,
    columns: Sequence[str],
    window: ReadWindow,
    *,
    batch_size: int,
    predicate: str | None = None,
    entity: str | None = None,
) -> Iterator[tuple[pa.Table, pa.Table]]:
    """The facts in ``window`` matching the filters of :func:`read_table`, ``batch_size`` at a time in id order: for each batch,
    an Arrow table of ``columns`` and one of the entities it names (``id, name, type``: the subjects and objects
    of the batch only, looked up by key in sorted order; the entities table is never read whole), both read in
    one snapshot. Memory is bounded by one batch.

    Keyset reads: each batch is ``f.id > last id seen … ORDER BY f.id LIMIT batch_size``, its own snapshot; the
    filters (and the clock of ``current_only``) are fixed when this is called. Fact ids are never reused
    (contract §1), so no fact comes twice; a fact written meanwhile comes if its id is past the batches read (on
    PostgreSQL, a writer still running may commit an id lower than one already read: that fact is missed), and
    one changed meanwhile comes as the batch that reads it sees it.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidRequest(
            f"batch_size must be a whole number from 1, not {batch_size!r}", field="batch_size", value=str(batch_size)
        )
    where, params, known = _facts_filter(kg, window, predicate, entity)
    if known is not None:
        columns = [*columns, *[c for c in _BLANKED if c not in columns]]
    selected = ", ".join(f"f.{c}" for c in columns)
    batch_sql = f"FROM facts f WHERE f.id > :_after{where} ORDER BY f.id LIMIT :_limit"
    facts_sql = f"SELECT {selected} {batch_sql}"
    # The batch's entities: an IN list the engine sorts, so the lookups walk the entities' key in order.
    names_sql = (
        "SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN ("
        f"SELECT b.subject FROM (SELECT f.subject {batch_sql}) b "
        f"UNION SELECT c.object_id FROM (SELECT f.object_id {batch_sql}) c)"
    )
    backend = kg.engine

    def batches() -> Iterator[tuple[pa.Table, pa.Table]]:  # the filters above are checked now, not at the first batch
        after = -(2**63)
        while True:
            bounds = {**params, "_after": after, "_limit": batch_size}
            _, (batch, names) = backend.read_arrow([(facts_sql, bounds), (names_sql, bounds)])
            batch = _blank_later(_typed(batch, "facts", columns), known)
            if batch.num_rows:
                yield batch, _typed(names, "entities", ("id", "name", "type"))
            if batch.num_rows < batch_size:
                return
            after = batch["id"][-1].as_py()

    return batches()


def _typed(table: pa.Table, name: str, columns: Sequence[str] | None = None) -> pa.Table:
    """Give every column its declared type (a driver may type an all-NULL column otherwise)."""
    import pyarrow as pa

    ints = {"id", "from_us", "to_us", "occurrence"} if name == "facts" else set()
    names = list(columns or TABLE_COLUMNS[name])
    schema = pa.schema(
        [(c, pa.int64() if c in ints else pa.float64() if c == "confidence" else pa.string()) for c in names]
    )
    if table.num_rows == 0:
        return schema.empty_table()
    return pa.table({c: table[c].cast(schema.field(c).type) for c in names}, schema=schema)

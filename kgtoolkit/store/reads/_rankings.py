"""Rankings and spans computed in the engine: what :func:`kgtoolkit.analysis.most_volatile`,
:func:`~kgtoolkit.analysis.most_changed`, :func:`~kgtoolkit.analysis.most_connected` and the dashboard's Churn page
read when given the graph instead of a facts frame (issue #32).

The counts are those of the frame path by construction: the instants are the stored keys ``from_us``/``to_us``
(:mod:`kgtoolkit._time`; an open bound is the frame's null), the event rule is :class:`~._rules.EventRule`'s and
"current" is :func:`~._queries.current_sql` at the real now (contract §4). Ordering and ties are left to polars
(the engines' collations differ), except in :func:`connected_counts`, which cuts its top rows in SQL by the entities'
key (``COLLATE "C"`` on PostgreSQL: byte order, as SQLite and polars compare).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..._time import OPEN_END, OPEN_START
from ..._validity import Clock
from . import _changed_walk, _rollups, _volatile_walk
from . import _queries as q

if TYPE_CHECKING:
    import polars as pl

    from .._graph_store import GraphStore

__all__ = [
    "changing_pair_facts",
    "connected_counts",
    "fact_span",
    "most_changed_pairs",
    "nearest_bounds",
    "pair_changes",
    "volatile_counts",
]

#: Rows turned into a frame at a time by :func:`_rows_frame`.
ROWS_PER_FRAME = 100_000


def _rows_frame(rows: Any, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """The rows of an executed query (``rows``: its cursor) as one frame of ``schema``, made ``ROWS_PER_FRAME`` rows
    at a time: the rows of a big answer (a million entities, millions of facts) are never all Python tuples at once
    (about 350 bytes a row, against some 60 in the frame's columns)."""
    import polars as pl

    each = iter(rows)
    parts = []
    while chunk := list(itertools.islice(each, ROWS_PER_FRAME)):
        parts.append(pl.DataFrame(chunk, schema=schema, orient="row"))
    return pl.concat(parts, rechunk=True) if parts else pl.DataFrame(schema=schema)


def fact_span(kg: GraphStore) -> tuple[int, int] | None:
    """The first known start and the last known start or end of the graph's facts (microseconds), or None when no
    fact has a known start. Three index seeks (``facts_validity`` for the starts: no key is below ``OPEN_START``;
    ``facts_ended`` for the ends: a known end is a ``valid_to``), not a scan of every fact (2-6 s at 10M facts)."""
    with kg.engine.read() as cur:
        lo, hi_start, hi_end = cur.execute(
            f"SELECT (SELECT min(from_us) FROM facts WHERE from_us > {OPEN_START}), "
            f"(SELECT max(from_us) FROM facts WHERE from_us > {OPEN_START}), "
            f"(SELECT max(to_us) FROM facts WHERE valid_to IS NOT NULL AND to_us < {OPEN_END})"
        ).fetchone()
    if lo is None:
        return None
    return int(lo), max(int(hi_start), int(hi_end) if hi_end is not None else int(hi_start))


def nearest_bounds(kg: GraphStore, before: int, after: int) -> tuple[int | None, int | None]:
    """The last known end before ``before`` and the first known start from ``after`` (microseconds; None when
    there is none): the days a view opens on when no fact is valid today."""
    with kg.engine.read() as cur:
        last, first = cur.execute(
            f"SELECT (SELECT max(to_us) FROM facts WHERE to_us <> {OPEN_END} AND to_us < :before), "
            f"(SELECT min(from_us) FROM facts WHERE from_us <> {OPEN_START} AND from_us >= :after)",
            {"before": before, "after": after},
        ).fetchone()
    return (None if last is None else int(last)), (None if first is None else int(first))


def volatile_counts(
    kg: GraphStore,
    by: Literal["entity", "subject", "predicate"],
    lo: int | None,
    hi: int | None,
    *,
    top: int | None = None,
) -> pl.DataFrame:
    """Per entity (either side of a fact: its subject, and its object unless a value or the subject itself), subject
    or predicate with changes from ``lo`` to ``hi`` (microseconds, both included; None: open): the key (and its
    name: ``entity_name``, ``subject_name``), ``added`` (state facts started then), ``ended`` (state facts ended
    then), ``events`` (events that occurred then: at their start, else their end), ``facts`` and ``current`` (the
    group's facts, and its current ones, whatever the window), as :func:`kgtoolkit.analysis.most_volatile` counts
    them; unordered. ``top``: only the ``top`` groups with the most changes (``added + ended + events``), ties by key
    in byte order (the columns are ``COLLATE "C"`` on PostgreSQL), cut in the engine: only those rows (and names)
    come back, not one per entity of the graph."""
    import polars as pl

    if (
        by == "entity"
        and top is not None
        and (walked := _volatile_walk.walk(kg, lo, hi, top, _rows_frame, volatile_query)) is not None
    ):
        return walked  # contract §18: the top entities found along the kept counts, when that is short
    with kg.engine.read() as cur:
        sql, params = volatile_query(cur, kg.engine.dialect, by, lo, hi, top=top)
        keys = [by] if by == "predicate" else [by, f"{by}_name"]
        counts = ("added", "ended", "facts", "current", "events")
        return _rows_frame(
            cur.execute(sql, params), {**{k: pl.String() for k in keys}, **{c: pl.Int64() for c in counts}}
        )


def volatile_query(
    cur: Any,
    d: Any,
    by: Literal["entity", "subject", "predicate"],
    lo: int | None,
    hi: int | None,
    *,
    top: int | None = None,
    ids: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """The SQL of :func:`volatile_counts` and its parameters, read with ``cur``. ``ids``: the name of a list
    parameter (bound by the caller) of the only entities counted (``by="entity"``): their facts read through the
    subject and object indexes, not the whole table."""
    rule = q.event_rule(cur)
    event = rule.sql(d)
    start = f"CASE WHEN f.from_us <> {OPEN_START} THEN f.from_us END"
    end = f"CASE WHEN f.to_us <> {OPEN_END} THEN f.to_us END"
    occurred = f"CASE WHEN f.from_us <> {OPEN_START} THEN f.from_us WHEN f.to_us <> {OPEN_END} THEN f.to_us END"
    (started, window), (ended, _), (happened, _) = (q.inside(c, lo, hi) for c in (start, end, occurred))
    flags = (
        f"CASE WHEN NOT {event} AND {started} THEN 1 ELSE 0 END AS a, "
        f"CASE WHEN NOT {event} AND {ended} THEN 1 ELSE 0 END AS e, "
        f"CASE WHEN {event} AND {happened} THEN 1 ELSE 0 END AS v, "
        f"CASE WHEN NOT {event} AND {q.current_sql('f')} THEN 1 ELSE 0 END AS c"
    )
    if by == "entity":
        table = "facts f" if ids else d.scan("facts f")
        subject_only = f" WHERE f.subject IN {d.values(ids)}" if ids else ""
        object_only = f" AND f.object_id IN {d.values(ids)}" if ids else ""
        sides = (
            f"SELECT f.subject AS k, {flags} FROM {table}{subject_only} UNION ALL "
            f"SELECT f.object_id AS k, {flags} FROM {table} "
            f"WHERE f.object_id IS NOT NULL AND f.object_id <> f.subject{object_only}"
        )
    else:
        sides = f"SELECT f.{by} AS k, {flags} FROM {d.scan('facts f')}"
    sums = (
        "CAST(sum(a) AS BIGINT) AS added, CAST(sum(e) AS BIGINT) AS ended, count(*) AS n, "
        "CAST(sum(c) AS BIGINT) AS cur, CAST(sum(v) AS BIGINT) AS events"
    )
    grouped = f"SELECT k, {sums} FROM ({sides}) s GROUP BY k HAVING sum(a) + sum(e) + sum(v) > 0"
    if top is not None:
        grouped += " ORDER BY sum(a) + sum(e) + sum(v) DESC, k LIMIT :top"
    if by == "predicate":
        sql = f"SELECT g.k, g.added, g.ended, g.n, g.cur, g.events FROM ({grouped}) g"
    else:
        sql = f"SELECT g.k, n.name, g.added, g.ended, g.n, g.cur, g.events FROM ({grouped}) g " + (
            "LEFT JOIN entities n ON n.id = g.k"
        )
    params: dict[str, Any] = {**rule.params(d), **Clock.real().params(), **window}
    if top is not None:
        params["top"] = int(top)
    return sql, params


def most_changed_pairs(
    kg: GraphStore, multi_valued: Sequence[str], top: int, lo: int | None, hi: int | None
) -> list[tuple[str, str]]:
    """The ``top`` (subject, predicate) pairs whose object changed most often, as
    :func:`kgtoolkit.analysis.most_changed` ranks them (changes, then subject, then predicate; byte order on both
    engines), counted in the engine: each state fact whose ``object_key`` differs from the previous one's in the
    pair (by start, unknown first, then id) is a change, counted when its start is known and within ``lo``..``hi``
    (microseconds, None: open). Found along the kept pairs when that is short (contract §18,
    :mod:`._changed_walk`), else one sort of the state facts in the database; nothing but the pairs comes back."""
    if (walked := _changed_walk.walk(kg, multi_valued, top, lo, hi, pair_changes)) is not None:
        return walked
    with kg.engine.read() as cur:
        sql, params = _changes_query(cur, kg.engine.dialect, multi_valued, lo, hi)
        rows = cur.execute(
            f"SELECT subject, predicate FROM ({sql}) c WHERE changes > 0 ORDER BY changes DESC, subject, predicate "
            "LIMIT :top",
            {**params, "top": int(top)},
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def pair_changes(
    cur: Any,
    d: Any,
    multi_valued: Sequence[str],
    lo: int | None,
    hi: int | None,
    pairs: Sequence[tuple[str, str]],
) -> dict[tuple[str, str], int]:
    """The changes from ``lo`` to ``hi`` of each of ``pairs`` (subject, predicate), counted as
    :func:`most_changed_pairs` counts them, from the pairs' own facts (read through ``facts_subject``); a pair with
    no state fact is left out."""
    if not pairs:
        return {}
    extra: dict[str, Any] = {}
    terms = []
    for i, (subject, predicate) in enumerate(pairs):
        terms.append(f"(f.subject = :ws{i} AND f.predicate = :wp{i})")
        extra[f"ws{i}"], extra[f"wp{i}"] = subject, predicate
    sql, params = _changes_query(cur, d, multi_valued, lo, hi, f" AND ({' OR '.join(terms)})")
    return {(str(s), str(p)): int(n) for s, p, n in cur.execute(sql, {**params, **extra}).fetchall()}


def _changes_query(
    cur: Any, d: Any, multi_valued: Sequence[str], lo: int | None, hi: int | None, where: str = ""
) -> tuple[str, dict[str, Any]]:
    """The SQL of every pair's changes from ``lo`` to ``hi`` (``subject``, ``predicate``, ``changes``; the state facts
    also meeting ``where`` on ``f``) and its parameters: the one rule of what a change is, in the engine."""
    state, params = _state_facts(cur, d, multi_valued)
    known, bounds = q.inside("x.from_us", lo, hi)
    window = f"x.from_us <> {OPEN_START} AND {known}"
    params.update(bounds)
    return (
        "SELECT x.subject AS subject, x.predicate AS predicate, "
        f"sum(CASE WHEN x.prev IS NOT NULL AND x.object_key <> x.prev AND {window} THEN 1 ELSE 0 END) AS changes "
        "FROM (SELECT f.subject AS subject, f.predicate AS predicate, f.object_key AS object_key, "
        "f.from_us AS from_us, lag(f.object_key) OVER (PARTITION BY f.subject, f.predicate "
        f"ORDER BY f.from_us, f.id) AS prev FROM facts f WHERE {state}{where}) x "
        "GROUP BY x.subject, x.predicate"
    ), params


def _state_facts(cur: Any, d: Any, multi_valued: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The SQL condition (on ``f``) of the state facts of predicates not in ``multi_valued``, and its parameters."""
    event, params = q.event_rule(cur).bound(d)  # checked on every row: its predicates bound one by one
    state = f"NOT {event}"
    params.update(Clock.real().params())
    if multi_valued:
        state += f" AND NOT ({d.in_list('f.predicate', 'multi_valued')})"  # per row: = ANY on PostgreSQL
        params["multi_valued"] = d.list_param(sorted(multi_valued))
    return state, params


def changing_pair_facts(
    kg: GraphStore, multi_valued: Sequence[str], *, pairs: Sequence[tuple[str, str]] | None = None
) -> pl.DataFrame:
    """The state facts of the (subject, predicate) pairs whose object may have changed (at least two state facts,
    the predicate not in ``multi_valued``; ``pairs``: only those), with the columns
    :func:`kgtoolkit.analysis.most_changed` reads (``id``, ``subject``, ``subject_name``, ``predicate``, ``object``,
    ``object_name``, ``object_is_value``, ``start``, ``end``, ``current``, ``kind``): its answer on these rows is its
    answer on the whole graph's frame, since a pair of one fact has no change."""
    import polars as pl

    d = kg.engine.dialect
    with kg.engine.read() as cur:
        state, params = _state_facts(cur, d, multi_valued)
        if pairs is not None:  # the pairs' subjects and predicates here, the pairs themselves below
            state += f" AND f.subject IN {d.values('ps')} AND f.predicate IN {d.values('pp')}"
            params["ps"] = d.list_param(sorted({s for s, _ in pairs}))
            params["pp"] = d.list_param(sorted({p for _, p in pairs}))
        pairs_sql = (
            f"SELECT f.subject AS subject, f.predicate AS predicate FROM facts f WHERE {state} "
            "GROUP BY f.subject, f.predicate HAVING count(*) > 1"
        )
        found = cur.execute(
            "SELECT f.id, f.subject, s.name, f.predicate, f.object_id, o.name, f.object_value, f.from_us, f.to_us, "
            f"CASE WHEN {q.current_sql('f')} THEN 1 ELSE 0 END FROM facts f JOIN ({pairs_sql}) p "
            "ON p.subject = f.subject AND p.predicate = f.predicate "
            "LEFT JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id "
            f"WHERE {state}",
            params,
        )
        raw = _rows_frame(
            found,
            {
                "id": pl.Int64(),
                "subject": pl.String(),
                "subject_name": pl.String(),
                "predicate": pl.String(),
                "object_id": pl.String(),
                "_object_name": pl.String(),
                "object_value": pl.String(),
                "from_us": pl.Int64(),
                "to_us": pl.Int64(),
                "current": pl.Int64(),
            },
        )

    def instant(column: str, open_key: int) -> pl.Expr:
        return (
            pl.when(pl.col(column) != open_key).then(pl.col(column)).cast(pl.Datetime("us")).dt.replace_time_zone("UTC")
        )

    out = raw.select(
        "id",
        "subject",
        "subject_name",
        "predicate",
        pl.coalesce("object_id", "object_value").alias("object"),
        pl.coalesce("_object_name", "object_value").alias("object_name"),
        pl.col("object_id").is_null().alias("object_is_value"),
        instant("from_us", OPEN_START).alias("start"),
        instant("to_us", OPEN_END).alias("end"),
        (pl.col("current") == 1).alias("current"),
        pl.lit("state").alias("kind"),
    )
    if pairs is None:
        return out
    wanted = pl.DataFrame(list(pairs), schema={"subject": pl.String(), "predicate": pl.String()}, orient="row")
    return out.join(wanted, on=["subject", "predicate"], how="semi", maintain_order="left")


def connected_counts(kg: GraphStore, top: int | None, *, ids: Sequence[str] | None = None) -> pl.DataFrame:
    """Every entity of the graph (``ids``: only these) with ``outgoing`` (the facts it is the subject of, values
    included) and ``incoming`` (the facts whose object it is) counted in the engine, most facts first
    (``outgoing + incoming``), ties by id (byte order), the first ``top`` (None: all): ``id``, ``name``, ``type``,
    ``outgoing``, ``incoming``.

    Each side is one GROUP BY over its index (``facts_subject``, ``facts_object``); the ranking is cut in SQL and
    only the kept rows' names and types are read."""
    import polars as pl

    if (rolled := _rollups.connected_counts(kg.engine, top, ids)) is not None:  # contract §18
        return rolled
    d = kg.engine.dialect
    params: dict[str, Any] = {"limit": q.page(d, top, 0)["limit"]}
    only = ""
    if ids is not None:
        only = f" WHERE e.id IN {d.values('ids')}"
        params["ids"] = d.list_param(sorted(set(ids)))
    counted = (
        f"SELECT e.id AS id, coalesce(o.n, 0) AS outgoing, coalesce(i.n, 0) AS incoming FROM entities e "
        "LEFT JOIN (SELECT f.subject AS k, count(*) AS n FROM facts f GROUP BY f.subject) o ON o.k = e.id "
        "LEFT JOIN (SELECT f.object_id AS k, count(*) AS n FROM facts f WHERE f.object_id IS NOT NULL "
        f"GROUP BY f.object_id) i ON i.k = e.id{only} "
        "ORDER BY coalesce(o.n, 0) + coalesce(i.n, 0) DESC, e.id LIMIT :limit"
    )
    with kg.engine.read() as cur:
        rows = cur.execute(
            "SELECT r.id, e.name, e.type, r.outgoing, r.incoming "
            f"FROM ({counted}) r JOIN entities e ON e.id = r.id ORDER BY r.outgoing + r.incoming DESC, r.id",
            params,
        ).fetchall()
    return pl.DataFrame(
        rows,
        schema={
            "id": pl.String(),
            "name": pl.String(),
            "type": pl.String(),
            "outgoing": pl.Int64(),
            "incoming": pl.Int64(),
        },
        orient="row",
    )

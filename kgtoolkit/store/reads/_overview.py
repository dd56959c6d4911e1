"""What a picture of the graph's most connected part reads, asked of the engine (issue #32): the entities ranked by
their relationship facts valid in a window, the facts among a few chosen entities, and the entities ranked by every
fact naming them. The dashboard's Graph page and entity pickers read these instead of the whole graph.

The counts are those of the frame path (:func:`kgtoolkit.dashboard.graphview.build`,
:func:`kgtoolkit.analysis.most_connected`) by construction: validity is :func:`kgtoolkit._validity.valid_at` on the
stored keys, the columns are ``COLLATE "C"`` on PostgreSQL so ties go by id in byte order on both engines, as polars
sorts them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..._errors import InvalidRequest
from ..._time import TimeInput
from ..._validity import Sql, valid_at
from ..._window import span_keys
from ..ops import _conflicts
from ..transfer._export import _typed
from . import _links_walk, _rollups
from . import _queries as q

if TYPE_CHECKING:
    import pyarrow as pa

    from .._graph_store import GraphStore

__all__ = [
    "GraphCounts",
    "LinkRanking",
    "Neighbourhood",
    "conflict_counts",
    "facts_among",
    "facts_with_ids",
    "graph_counts",
    "link_ranking",
    "neighbourhood",
    "predicates_in_use",
]


@dataclasses.dataclass(frozen=True, slots=True)
class LinkRanking:
    """The entities with the most relationship facts (``ranked``: id, name, type, degree; most first, ties by id),
    of ``nodes`` entities and ``links`` relationship facts in all. ``values_only``: no relationship fact matched, so
    the entities are the subjects of the value facts valid then (degree 0, by id), as the overview draws them."""

    ranked: tuple[tuple[str, str, str, int], ...]
    nodes: int
    links: int
    values_only: bool


def _valid(as_of: TimeInput | None, params: dict[str, Any]) -> str:
    keys = span_keys(as_of)
    if keys is None:
        return ""
    params["lo"], params["hi"] = keys
    start, end = q.interval_keys()
    return f" AND {valid_at(start, end, Sql(':lo'), Sql(':hi')).text}"


def _in_list(prefix: str, values: Sequence[str], params: dict[str, Any]) -> str:
    """``(:prefix0, :prefix1, …)`` for ``values``, bound in ``params`` (one scalar each: both engines, every reader)."""
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return f"({', '.join(names)})"


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidRequest(f"limit must be a whole number from 0, not {limit!r}", field="limit", value=str(limit))
    return limit


def link_ranking(
    kg: GraphStore,
    *,
    as_of: TimeInput | None = None,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    limit: int,
) -> LinkRanking:
    """The ``limit`` entities with the most relationship facts (an entity object) valid in ``as_of`` (a window as
    :func:`kgtoolkit._window.span_keys` reads it; None: every fact), of ``predicates`` (ids) when given, between two entities of
    ``types`` when given; each fact counts once for its subject and once for its object. One snapshot."""
    if _limit(limit) < 1:
        raise InvalidRequest(f"limit must be a whole number from 1, not {limit!r}", field="limit", value=str(limit))
    if not predicates and not types and (kept := _links_walk.rank(kg, span_keys(as_of), limit)) is not None:
        return LinkRanking(tuple(kept[0]), kept[1], kept[2], False)  # contract §18: the kept links, when short
    params: dict[str, Any] = {"limit": limit}
    where = _valid(as_of, params)
    join = ""
    if predicates:
        where += f" AND f.predicate IN {_in_list('p', predicates, params)}"
    if types:
        join = " JOIN entities se ON se.id = f.subject JOIN entities oe ON oe.id = f.object_id"
        wanted = _in_list("t", types, params)
        where += f" AND se.type IN {wanted} AND oe.type IN {wanted}"
    degrees = (
        f"SELECT e, count(*) AS n FROM (SELECT f.subject AS e FROM facts f{join} WHERE f.object_id IS NOT NULL{where} "
        f"UNION ALL SELECT f.object_id FROM facts f{join} WHERE f.object_id IS NOT NULL{where}) ends GROUP BY e"
    )
    with kg.engine.read() as cur:
        rows = cur.execute(
            "SELECT r.e, en.name, en.type, r.n, r.nodes, r.ends FROM ("
            f"SELECT e, n, count(*) OVER () AS nodes, sum(n) OVER () AS ends FROM ({degrees}) d "
            "ORDER BY n DESC, e LIMIT :limit) r JOIN entities en ON en.id = r.e ORDER BY r.n DESC, r.e",
            params,
        ).fetchall()
        if rows:
            ranked = tuple((str(e), str(name), str(kind or "unknown"), int(n)) for e, name, kind, n, _, _ in rows)
            return LinkRanking(ranked, int(rows[0][4]), int(rows[0][5]) // 2, False)
        values = {k: v for k, v in params.items() if k in ("lo", "hi", "limit")}
        where = _valid(as_of, {})
        subjects = f"SELECT DISTINCT f.subject AS e FROM facts f WHERE f.object_id IS NULL{where}"
        rows = cur.execute(
            "SELECT r.e, en.name, en.type, r.nodes FROM ("
            f"SELECT e, count(*) OVER () AS nodes FROM ({subjects}) s ORDER BY e LIMIT :limit) r "
            "JOIN entities en ON en.id = r.e ORDER BY r.e",
            values,
        ).fetchall()
        if not rows:
            return LinkRanking((), 0, 0, True)
    return LinkRanking(
        tuple((str(e), str(name), str(kind or "unknown"), 0) for e, name, kind, _ in rows), int(rows[0][3]), 0, True
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Neighbourhood:
    """The entities within some hops of a centre, as a picture of it chooses them: ``ranked`` (id, name, type,
    relationship facts, hop; nearest first, then most connected, then by id: the first ``max_nodes`` + 5), of
    ``nodes`` entities and ``links`` relationship facts among them in all; ``hidden``: for each of the first
    ``max_nodes``, its facts to the other entities of the neighbourhood (none when every one is drawn)."""

    ranked: tuple[tuple[str, str, str, int, int], ...]
    nodes: int
    links: int
    hidden: dict[str, int]


def neighbourhood(
    kg: GraphStore,
    center: str,
    *,
    hops: int,
    as_of: TimeInput | None = None,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    max_nodes: int,
) -> Neighbourhood:
    """The entities within ``hops`` of ``center`` (an entity id) over the relationship facts valid in ``as_of``, of
    ``predicates`` when given, between entities of ``types`` (or the centre) when given, walked breadth-first in the
    engine; each one's relationship facts over the whole graph so filtered; one snapshot."""
    d = kg.engine.dialect
    params: dict[str, Any] = {"center": center}
    where = _valid(as_of, params)
    join = ""
    if predicates:
        where += f" AND f.predicate IN {_in_list('p', predicates, params)}"
    if types:
        join = " JOIN entities se ON se.id = f.subject JOIN entities oe ON oe.id = f.object_id"
        wanted = _in_list("t", types, params)
        where += f" AND (se.type IN {wanted} OR f.subject = :center) AND (oe.type IN {wanted} OR f.object_id = :center)"
    links = f"FROM facts f{join} WHERE f.object_id IS NOT NULL{where}"
    with kg.engine.read() as cur:
        hop_of: dict[str, int] = {center: 0}
        frontier = {center}
        for hop in range(1, hops + 1):
            if not frontier:
                break
            step = {**params, "front": d.list_param(sorted(frontier))}
            front = d.values("front")
            rows = cur.execute(
                f"SELECT f.object_id {links} AND f.subject IN {front} "
                f"UNION SELECT f.subject {links} AND f.object_id IN {front}",
                step,
            ).fetchall()
            frontier = {str(r[0]) for r in rows} - hop_of.keys()
            for node in frontier:
                hop_of[node] = hop
        every = {**params, "c": d.list_param(sorted(hop_of))}
        inside = d.values("c")
        degree_of = dict(
            cur.execute(
                f"SELECT e, count(*) FROM (SELECT f.subject AS e {links} AND f.subject IN {inside} "
                f"UNION ALL SELECT f.object_id {links} AND f.object_id IN {inside}) ends GROUP BY e",
                every,
            ).fetchall()
        )
        ranked = sorted(hop_of, key=lambda n: (hop_of[n], -degree_of.get(n, 0), n))
        total = int(
            cur.execute(
                f"SELECT count(*) {links} AND f.subject IN {inside} AND f.object_id IN {inside}", every
            ).fetchone()[0]
        )
        hidden: dict[str, int] = {}
        if len(ranked) > max_nodes:
            every["k"] = d.list_param(sorted(ranked[:max_nodes]))
            kept = d.values("k")
            hidden = {
                str(e): int(n)
                for e, n in cur.execute(
                    f"SELECT e, count(*) FROM (SELECT f.subject AS e {links} AND f.subject IN {kept} "
                    f"AND f.object_id IN {inside} AND f.object_id NOT IN {kept} "
                    f"UNION ALL SELECT f.object_id {links} AND f.object_id IN {kept} "
                    f"AND f.subject IN {inside} AND f.subject NOT IN {kept}) ends GROUP BY e",
                    every,
                ).fetchall()
            }
        shown = ranked[: max_nodes + 5]
        names = {
            str(i): (str(n), str(t or "unknown"))
            for i, n, t in cur.execute(
                f"SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN {d.values('s')}",
                {"s": d.list_param(shown)},
            ).fetchall()
        }
        dated: dict[str, Any] = {"center": center, **{k: params[k] for k in ("lo", "hi") if k in params}}
        if not cur.execute(  # a centre no fact names then is drawn by its id, as the frame path draws it
            f"SELECT count(*) FROM (SELECT 1 FROM facts f WHERE (f.subject = :center OR f.object_id = :center)"
            f"{_valid(as_of, {})} LIMIT 1) x",
            dated,
        ).fetchone()[0]:
            names[center] = (center, "unknown")
    return Neighbourhood(
        tuple((n, *names.get(n, (n, "unknown")), int(degree_of.get(n, 0)), hop_of[n]) for n in shown),
        len(ranked),
        total,
        hidden,
    )


def facts_among(
    kg: GraphStore, columns: Sequence[str], ids: Sequence[str], *, as_of: TimeInput | None = None
) -> tuple[pa.Table, pa.Table]:
    """The facts valid in ``as_of`` whose subject is one of ``ids`` and whose object is one of them or a value
    (``columns``, by id), and the entities of ``ids`` (``id, name, type``), in one snapshot."""
    params: dict[str, Any] = {}
    among = _in_list("i", sorted(set(ids)), params) if ids else "(NULL)"  # none: nothing matches
    where = _valid(as_of, params)
    selected = ", ".join(f"f.{c}" for c in columns)
    _, (facts, names) = kg.engine.read_arrow(
        [
            (
                f"SELECT {selected} FROM facts f WHERE f.subject IN {among} "
                f"AND (f.object_id IS NULL OR f.object_id IN {among}){where} ORDER BY f.id",
                params,
            ),
            (f"SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN {among} ORDER BY e.id", params),
        ]
    )
    return _typed(facts, "facts", columns), _typed(names, "entities", ("id", "name", "type"))


def facts_with_ids(kg: GraphStore, columns: Sequence[str], ids: Sequence[int]) -> tuple[pa.Table, pa.Table]:
    """The facts whose id is one of ``ids`` (``columns``, by id) and the entities they name (``id, name, type``),
    in one snapshot; an id no fact has is skipped."""
    params: dict[str, Any] = {}
    wanted = sorted({int(i) for i in ids})
    for i, value in enumerate(wanted):
        params[f"i{i}"] = value
    among = f"({', '.join(f':i{i}' for i in range(len(wanted)))})" if wanted else "(NULL)"  # none: nothing matches
    selected = ", ".join(f"f.{c}" for c in columns)
    named = (
        f"SELECT f.subject FROM facts f WHERE f.id IN {among} "
        f"UNION SELECT f.object_id FROM facts f WHERE f.id IN {among} AND f.object_id IS NOT NULL"
    )
    _, (facts, names) = kg.engine.read_arrow(
        [
            (f"SELECT {selected} FROM facts f WHERE f.id IN {among} ORDER BY f.id", params),
            (f"SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN ({named}) ORDER BY e.id", params),
        ]
    )
    return _typed(facts, "facts", columns), _typed(names, "entities", ("id", "name", "type"))


def predicates_in_use(kg: GraphStore) -> tuple[str, ...]:
    """Every predicate some fact uses, by id (byte order): the ids :meth:`GraphStore.predicates` lists, found by
    skipping along the ``facts_predicate`` index from one predicate to the next (one index seek per predicate,
    whatever the number of facts; ``predicates()`` counts every fact of each, 13-19 s at 10M facts)."""
    with kg.engine.read() as cur:
        return q.predicates_in_use(cur)


@dataclasses.dataclass(frozen=True, slots=True)
class GraphCounts:
    """The counts of :meth:`GraphStore.stats` that need no scan of the facts' rows: ``entities`` (and by type),
    ``facts``, the ``predicates`` in use (:func:`predicates_in_use`), ``aliases`` and ``memories``. What the
    dashboard's sidebar shows on every page; the states (current, ended, events) need the whole scan."""

    entities: int
    entities_by_type: tuple[tuple[str, int], ...]
    facts: int
    predicates: tuple[str, ...]
    aliases: int
    memories: int


def graph_counts(kg: GraphStore) -> GraphCounts:
    """:class:`GraphCounts` of the graph, in one snapshot: the facts counted on an index (SQLite counts the
    smallest one), the entities grouped by type (the entities table), the predicates by :func:`predicates_in_use`.
    Equal to the same counts of :meth:`GraphStore.stats` (at 10M facts: well under a second and some 2 s for
    1.6M entities' types, against 13-23 s for ``stats``); from the rollups (contract §18) in a few milliseconds."""
    with kg.engine.read() as cur:
        if (rolled := _rollups.table_counts(cur)) is not None:
            t, facts = rolled
        else:
            t = q.table_counts(cur)
            facts = int(cur.execute("SELECT count(*) FROM facts").fetchone()[0])
    return GraphCounts(
        sum(n for _, n in t.entities_by_type), t.entities_by_type, facts, t.predicates, t.aliases, t.memories
    )


def conflict_counts(kg: GraphStore) -> tuple[int, int]:
    """How many conflict groups there are and how many need action (:meth:`GraphStore.conflicts`'s ``total``
    and :meth:`~GraphStore.conflicts_needing_action`), judged once in SQL, no fact read."""
    with kg.engine.read() as cur:
        judged, params, _ = _conflicts._judgement(kg.engine, cur, None, False)
        groups, needing = cur.execute(
            f"{judged} SELECT count(*), coalesce(sum(CASE WHEN needs = 1 THEN 1 ELSE 0 END), 0) FROM judged", params
        ).fetchone()
    return int(groups), int(needing)

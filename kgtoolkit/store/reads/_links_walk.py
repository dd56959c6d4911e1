"""The Graph page's ranking over a window most facts overlap, from the kept links (contract §18, issue 47).

:func:`~._overview.link_ranking` ranks the entities by their relationship facts valid in a window (each fact once
for its subject, once for its object), and counts the entities and facts there are. The rollups keep every entity's
links over all time (``rollup_links``, ranked by ``rollup_links_rank``) and the relationship facts of every predicate
(``rollup_predicates``: facts less value facts). A fact not valid in ``[lo, hi]`` ended before ``lo`` or starts
after ``hi``: two index ranges (``facts_ended``, ``facts_validity``). So when those facts are few (the page's whole
range, through time), each entity's degree in the window is its kept links less its facts outside, exactly: the
ranking is read along the rank index until no entity left can reach the last one kept, the totals are the kept ones
less the outside's. Otherwise (a single day, where most facts are outside) it says None and the caller scans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..._time import OPEN_END
from ..ops._rollups import covered
from . import _rollups

if TYPE_CHECKING:
    from .._graph_store import GraphStore

__all__ = ["BUDGET", "rank"]

#: The most facts outside the window read, as a share of the graph's relationship facts, before giving up.
BUDGET = 0.05
_BATCH = 256


def rank(
    kg: GraphStore, keys: tuple[int, int] | None, limit: int
) -> tuple[list[tuple[str, str, str, int]], int, int] | None:
    """The ``limit`` entities with the most relationship facts valid in ``keys`` (the window's first and last
    instant keys; None: every fact), most first, ties by id (byte order), with their name and type, the entities
    with such a fact and the facts: what :func:`~._overview.link_ranking` returns when some fact matches; None when
    the kept links do not answer (the caller scans), or when no relationship fact is valid then."""
    if _rollups.source("link_ranking") == "scan" or kg.engine.missing:
        return None
    with kg.engine.read() as cur:
        if not covered(cur):
            return None
        (links,) = cur.execute("SELECT COALESCE(sum(facts - value_facts), 0) FROM rollup_predicates").fetchone()
        links = int(links)
        outside: dict[str, int] = {}
        gone = 0
        if keys is not None:
            most = int(links * BUDGET)
            window = {"lo": keys[0], "hi": keys[1], "most": most + 1}
            (many,) = cur.execute(  # first counted on the indexes alone, at most ``most`` + 1 of each side
                "SELECT (SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f.valid_to IS NOT NULL AND f.to_us < :lo "
                "LIMIT :most) a) + (SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f.from_us > :hi LIMIT :most) b)",
                window,
            ).fetchone()
            if int(many) > most:
                return None  # many facts lie outside the window (a day): the scan is the shorter
            rows = cur.execute(
                "SELECT f.subject, f.object_id FROM facts f WHERE f.valid_to IS NOT NULL "
                f"AND f.to_us < :lo AND f.to_us <> {OPEN_END} AND f.object_id IS NOT NULL "
                "UNION ALL SELECT f.subject, f.object_id FROM facts f WHERE f.from_us > :hi AND f.object_id IS NOT NULL "
                "AND NOT (f.valid_to IS NOT NULL AND f.to_us < :lo) "
                "LIMIT :most",
                window,
            ).fetchall()
            for subject, obj in rows:
                outside[str(subject)] = outside.get(str(subject), 0) + 1
                outside[str(obj)] = outside.get(str(obj), 0) + 1
            gone = len(rows)
        if links - gone <= 0:
            return None
        (nodes,) = cur.execute("SELECT count(*) FROM rollup_links WHERE n > 0").fetchone()
        if outside:
            kept = dict(_links_of(cur, kg.engine.dialect, sorted(outside)))
            nodes -= sum(1 for e, n in outside.items() if kept.get(e, 0) == n)
        ranked = _walk(cur, outside, limit)
        names = {
            str(i): (str(n), str(t or "unknown"))
            for i, n, t in cur.execute(
                f"SELECT id, name, type FROM entities WHERE id IN {kg.engine.dialect.values('ids')}",
                {"ids": kg.engine.dialect.list_param([e for e, _ in ranked])},
            ).fetchall()
        }
    return [(e, *names.get(e, (e, "unknown")), n) for e, n in ranked], int(nodes), links - gone


def _links_of(cur: Any, d: Any, entities: list[str]) -> list[tuple[str, int]]:
    """The kept links of ``entities``."""
    return [
        (str(e), int(n))
        for e, n in cur.execute(
            f"SELECT entity, n FROM rollup_links WHERE entity IN {d.values('es')}", {"es": d.list_param(entities)}
        ).fetchall()
    ]


def _walk(cur: Any, outside: dict[str, int], limit: int) -> list[tuple[str, int]]:
    """The ``limit`` entities with the most links in the window (kept links less those outside), read along the
    rank index until no entity left can reach, or tie and come before, the last one kept."""
    found: list[tuple[int, str]] = []  # (degree, entity)
    after: tuple[int, str] | None = None
    while True:
        params: dict[str, Any] = {"size": _BATCH}
        where = "n > 0"
        if after is not None:
            where += " AND (n < :n OR (n = :n AND entity > :e))"
            params |= {"n": after[0], "e": after[1]}
        batch = [
            (int(n), str(e))
            for n, e in cur.execute(
                f"SELECT n, entity FROM rollup_links WHERE {where} ORDER BY n DESC, entity LIMIT :size", params
            ).fetchall()
        ]
        if not batch:
            break
        after = batch[-1]
        found += [(n - outside.get(e, 0), e) for n, e in batch if n - outside.get(e, 0) > 0]
        found.sort(key=lambda r: (-r[0], r[1]))
        del found[limit:]
        if len(found) == limit:
            last = found[-1]
            if after[0] < last[0] or (after[0] == last[0] and after[1] >= last[1]):
                break  # an entity not read has fewer links, or as many and comes after the last one kept
    return [(e, n) for n, e in found]

"""Multi-hop reads in the store (contract §11): neighbours within k hops, paths between two entities,
and chains of predicates, walked breadth-first, one frontier at a time, in SQL.

Each step reads the facts around a whole frontier in one statement (the frontier's ids as one list
parameter, so SQLite's parameter limit never bites), through the indexes ``facts_subject`` and
``facts_object``; only ids, ends and starts are read while walking, the full facts only for the
answer. Every hop obeys one time rule (:func:`when`): valid at ``as_of``, overlapping ``during``, or
(by default) current; ``known_at`` answers as the graph believed then. A bound on the facts read
(``max_facts``) keeps a hub from blowing up a call, and the answer says when it was hit.

``paths`` walks from both ends (the smaller frontier first) until the two walks together cover
``max_hops``: every path of at most ``max_hops`` facts then lies among the facts read, and the paths are
enumerated from them in memory, shortest first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from .._checks import whole_number
from .._errors import IntervalOrder, InvalidRequest
from .._records import Direction, Fact
from .._time import OPEN_END, TimeInput, parse_window
from .._traversal import MAX_HOPS, Neighborhood, Paths, Reached
from . import _predicates as _preds
from . import _queries as q
from ._backend import Cursor, Dialect
from ._schema import FACT_SELECT

__all__ = ["Step", "When", "check_direction", "check_hops", "check_max_facts", "check_predicates", "fetch_facts",
           "follow", "neighbors", "paths", "when"]

_DIRECTIONS = ("outgoing", "incoming", "both")
#: The most facts of a path search's enumeration steps (partial paths tried), past which it stops, capped.
MAX_STEPS = 200_000
#: The largest ``max_facts`` a call may ask for.
MAX_FACTS_LIMIT = 1_000_000


class When(NamedTuple):
    """The time rule of every hop: SQL conditions on ``f``, their parameters, and the ``known_at`` text."""

    where: str
    params: dict[str, Any]
    known: str | None


class Step(NamedTuple):
    """One fact as a walk sees it: walked from ``here`` to ``there`` (``outgoing``: from its subject)."""

    id: int
    here: str
    there: str
    direction: str
    start: int


def when(as_of: TimeInput | None, known_at: TimeInput | None,
         during: Sequence[TimeInput] | None) -> When:
    """The time rule: ``as_of`` (valid then), ``during=(start, end)`` (the interval overlaps it), else current
    facts (valid now, started: never a scheduled one); ``known_at`` as the graph believed at that moment."""
    if during is not None:
        if as_of not in (None, ""):
            raise InvalidRequest("give as_of or during, not both", field="during", value=str(during))
        if isinstance(during, (str, bytes)) or len(during) != 2:
            raise InvalidRequest("during takes two dates, (start, end)", field="during", value=str(during))
        lo = parse_window(during[0], field="during").lo
        hi = parse_window(during[1], field="during").hi
        if hi < lo:
            raise IntervalOrder(f"during ends ({during[1]}) before it starts ({during[0]})", field="during",
                                value=str(during[1]))
        where, params, known = q.time_filter(None, known_at, False)
        end_key = f"(CASE WHEN f.invalidated_at > :known THEN {OPEN_END} ELSE f.to_us END)" if known else "f.to_us"
        params.update(dlo=lo, dhi=hi)
        return When(where + f" AND f.from_us <= :dhi AND {end_key} >= :dlo", params, known)
    if as_of not in (None, ""):
        return When(*q.time_filter(as_of, known_at, False))
    return When(*q.time_filter(None, known_at, True))


def check_direction(direction: str) -> None:
    if direction not in _DIRECTIONS:
        raise InvalidRequest(f"direction must be one of {', '.join(_DIRECTIONS)}, not {direction!r}",
                             field="direction", value=str(direction))


def check_hops(value: object, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_HOPS:
        raise InvalidRequest(f"{field} must be a whole number from 1 to {MAX_HOPS}, not {value!r}; a longer walk "
                             "reads too much of a big graph (follow the answer's ends onward instead)",
                             field=field, value=str(value))
    return value


def check_max_facts(value: object) -> int:
    return whole_number(value, field="max_facts", low=1, high=MAX_FACTS_LIMIT)


def check_predicates(cur: Cursor, dialect: Dialect, predicates: Iterable[str] | None) -> list[str] | None:
    """The predicates as canonical ids (through their aliases), each one the graph uses (else
    :class:`NotFound` with suggestions); None for no filter, an empty list refused."""
    if predicates is None:
        return None
    out = _preds.check_used(cur, dialect, [predicates] if isinstance(predicates, str) else predicates)
    if not out:
        raise InvalidRequest("predicates is empty: name at least one, or leave it out for every predicate",
                             field="predicates")
    return out


def _expand(cur: Cursor, d: Dialect, frontier: Sequence[str], direction: str, predicates: list[str] | None,
            w: When, room: int) -> tuple[list[Step], bool]:
    """The facts around ``frontier`` walked ``direction`` (at most ``room``; ordered by id, outgoing first),
    and whether there were more."""
    if not frontier or room <= 0:
        return [], bool(frontier)
    params: dict[str, Any] = {**w.params, "ids": d.list_param(frontier), "room": room + 1}
    pred = ""
    if predicates is not None:
        params["preds"] = d.list_param(predicates)
        pred = f" AND f.predicate IN {d.values('preds')}"
    parts = []
    if direction in ("outgoing", "both"):
        parts.append(f"SELECT f.id, f.subject, f.object_id, 0 AS way, f.from_us FROM facts f WHERE f.subject IN "
                     f"{d.values('ids')} AND f.object_id IS NOT NULL AND f.object_id <> f.subject{pred}{w.where}")
    if direction in ("incoming", "both"):
        parts.append(f"SELECT f.id, f.object_id, f.subject, 1 AS way, f.from_us FROM facts f WHERE f.object_id IN "
                     f"{d.values('ids')} AND f.object_id <> f.subject{pred}{w.where}")
    rows = cur.execute(" UNION ALL ".join(parts) + " ORDER BY 1, 4 LIMIT :room", params).fetchall()
    more = len(rows) > room
    return [Step(int(r[0]), r[1], r[2], "incoming" if r[3] else "outgoing", int(r[4])) for r in rows[:room]], more


def fetch_facts(cur: Cursor, d: Dialect, ids: Iterable[int], known: str | None) -> dict[int, Fact]:
    """The full facts of ``ids`` (their ends as known at ``known``), by id."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = cur.execute(f"{FACT_SELECT} WHERE f.id IN {d.values('ids', 'bigint')}",
                       {"ids": d.list_param(wanted)}).fetchall()
    return {int(r[0]): q.row_fact(r, known_at=known) for r in rows}


def _names(cur: Cursor, d: Dialect, ids: Iterable[str]) -> dict[str, str]:
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    return dict(cur.execute(f"SELECT id, name FROM entities WHERE id IN {d.values('ids')}",
                            {"ids": d.list_param(wanted)}).fetchall())


def _cap_note(visited: int, max_facts: int) -> str:
    return (f"stopped at max_facts={max_facts:,} facts read ({visited:,}): a hub lies within reach, so the answer "
            "may be incomplete; narrow it with predicates or a date, or raise max_facts")


def neighbors(cur: Cursor, d: Dialect, name: str, *, hops: int, direction: Direction, predicates: list[str] | None,
              w: When, max_facts: int, limit: int | None, offset: int) -> Neighborhood:
    """The entities and facts within ``hops`` of ``name`` (see :meth:`KnowledgeGraph.neighbors`)."""
    center = q.resolve(cur, d, name)
    distance = {center: 0}
    found: dict[int, tuple[int, Step]] = {}
    frontier, visited, capped = [center], 0, False
    for hop in range(1, hops + 1):
        steps, more = _expand(cur, d, frontier, direction, predicates, w, max_facts - visited)
        visited += len(steps)
        frontier = []
        for step in steps:
            if step.id in found:
                continue
            found[step.id] = (hop, step)
            if step.there not in distance:
                distance[step.there] = hop
                frontier.append(step.there)
        if more:
            capped = True
            break
        if not frontier:
            break
    order = sorted(found.items(), key=lambda item: (item[1][0], item[0]))
    page = order[offset:] if limit is None else order[offset:offset + limit]
    facts = fetch_facts(cur, d, (fid for fid, _ in page), w.known)
    shown = [dataclasses.replace(facts[fid], direction=step.direction) for fid, (_, step) in page]
    ends = {center} | {f.subject for f in shown} | {f.object for f in shown}
    names = _names(cur, d, ends)
    entities = sorted((Reached(e, names.get(e, e), distance[e]) for e in ends), key=lambda r: (r.hops, r.id))
    return Neighborhood(center, hops, tuple(entities), tuple(shown), len(order), len(distance), offset, visited,
                        capped, _cap_note(visited, max_facts) if capped else None)


def paths(cur: Cursor, d: Dialect, source: str, target: str, *, max_hops: int, direction: Direction,
          predicates: list[str] | None, w: When, time_respecting: bool, max_facts: int,
          limit: int | None, offset: int = 0) -> Paths:
    """Paths of at most ``max_hops`` facts from ``source`` to ``target``, shortest first (then by fact ids)."""
    src = q.resolve(cur, d, source, field="source")
    dst = q.resolve(cur, d, target, field="target")
    if src == dst:
        raise InvalidRequest(f"source and target are the same entity ({src!r}); a path needs two",
                             field="target", value=target)
    back = {"outgoing": "incoming", "incoming": "outgoing", "both": "both"}[direction]
    seen: dict[int, Step] = {}  # every fact read, as walked forwards
    sides = {"forward": ([src], {src}, direction), "backward": ([dst], {dst}, back)}
    visited, capped, depth = 0, False, 0
    while depth < max_hops:
        name = min(sides, key=lambda k: (len(sides[k][0]), k != "forward"))
        frontier, reached, way = sides[name]
        if not frontier:
            break  # that side's whole reach is read: every path lies among the facts read
        steps, more = _expand(cur, d, frontier, way, predicates, w, max_facts - visited)
        visited += len(steps)
        nxt: list[str] = []
        for step in steps:
            seen.setdefault(step.id, step if name == "forward" else _reverse(step))
            if step.there not in reached:
                reached.add(step.there)
                nxt.append(step.there)
        sides[name] = (nxt, reached, way)
        depth += 1
        if more:
            capped = True
            break
    found, more_paths, stopped = _enumerate(seen.values(), src, dst, direction, max_hops, time_respecting,
                                            None if limit is None else offset + limit)
    capped = capped or stopped
    total = None if more_paths else len(found)
    found = found[offset:]
    facts = fetch_facts(cur, d, (s.id for p in found for s in p), w.known)
    answer = tuple(tuple(dataclasses.replace(facts[s.id], direction=s.direction) for s in p) for p in found)
    note = None
    if capped:
        note = _cap_note(visited, max_facts) if not stopped else (
            f"stopped after {MAX_STEPS:,} steps of the path search: the answer may be incomplete; narrow it with "
            "predicates, a date or fewer max_hops")
    return Paths(src, dst, answer, (dst,) if total != 0 else (), total, offset, more_paths, visited, capped, note)


def _reverse(step: Step) -> Step:
    """A fact read walking backwards from the target, as walked forwards."""
    return Step(step.id, step.there, step.here, "incoming" if step.direction == "outgoing" else "outgoing", step.start)


def _enumerate(steps: Iterable[Step], src: str, dst: str, direction: str, max_hops: int, time_respecting: bool,
               limit: int | None) -> tuple[list[list[Step]], bool, bool]:
    """Simple paths src → dst over the facts read, shortest first, then by their fact ids: the paths (at most
    ``limit``), whether more exist, and whether the step bound stopped the search."""
    adjacency: dict[str, list[Step]] = {}
    for s in {(s.id): s for s in steps}.values():
        ways = []
        if direction in ("outgoing", "both"):
            ways.append(s if s.direction == "outgoing" else _reverse(s))
        if direction in ("incoming", "both"):
            ways.append(s if s.direction == "incoming" else _reverse(s))
        for way in ways:
            adjacency.setdefault(way.here, []).append(way)
    for out in adjacency.values():
        out.sort(key=lambda s: s.id)
    # Hops still needed to reach dst from each entity, over the facts read (a lower bound of the real need).
    need = {dst: 0}
    into: dict[str, list[str]] = {}
    for out in adjacency.values():
        for s in out:
            into.setdefault(s.there, []).append(s.here)
    layer = [dst]
    while layer:
        nxt = []
        for v in layer:
            for u in into.get(v, ()):
                if u not in need:
                    need[u] = need[v] + 1
                    nxt.append(u)
        layer = nxt
    found: list[list[Step]] = []
    budget = [MAX_STEPS]
    want = None if limit is None else limit + 1

    def walk(node: str, path: list[Step], on: set[str], length: int) -> bool:
        """Extend ``path`` to exactly ``length`` facts; False when the budget or the wanted count ran out."""
        if len(path) == length:
            if node == dst:
                found.append(list(path))
                return want is None or len(found) < want
            return True
        for s in adjacency.get(node, ()):
            if s.there in on or need.get(s.there, max_hops + 1) > length - len(path) - 1:
                continue
            if time_respecting and path and s.start < path[-1].start:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return False
            path.append(s)
            on.add(s.there)
            going = walk(s.there, path, on, length)
            on.discard(s.there)
            path.pop()
            if not going:
                return False
        return True

    stopped = False
    if src in need:
        for length in range(need[src], max_hops + 1):
            if not walk(src, [], {src}, length):
                stopped = budget[0] < 0
                break
    more = want is not None and len(found) >= want
    return found[:limit] if limit is not None else found, more, stopped


def follow(cur: Cursor, d: Dialect, start: str, predicates: list[str], *, direction: Direction, w: When,
           time_respecting: bool, max_facts: int, limit: int | None, offset: int = 0) -> Paths:
    """Every branch of the chain ``predicates`` from ``start`` (see :meth:`KnowledgeGraph.follow`)."""
    origin = q.resolve(cur, d, start)
    branches: list[tuple[Step, ...]] = [()]
    visited, capped = 0, False
    for pred in predicates:
        ends = sorted({b[-1].there if b else origin for b in branches})
        steps, more = _expand(cur, d, ends, direction, [pred], w, max_facts - visited)
        visited += len(steps)
        by_end: dict[str, list[Step]] = {}
        for s in steps:
            by_end.setdefault(s.here, []).append(s)
        grown: list[tuple[Step, ...]] = []
        for b in branches:
            here = b[-1].there if b else origin
            on = {origin} | {s.there for s in b}
            for s in by_end.get(here, ()):
                if s.there in on or (time_respecting and b and s.start < b[-1].start):
                    continue
                grown.append((*b, s))
        branches = grown
        if len(branches) > max_facts:
            branches, more = branches[:max_facts], True
        if more:
            capped = True
            break
        if not branches:
            break
    if capped:
        branches = []  # a chain cut short is no answer: say so instead of showing half of it
    branches.sort(key=lambda b: [s.id for s in b])
    shown = branches[offset:] if limit is None else branches[offset:offset + limit]
    facts = fetch_facts(cur, d, (s.id for b in shown for s in b), w.known)
    answer = tuple(tuple(dataclasses.replace(facts[s.id], direction=s.direction) for s in b) for b in shown)
    ends_seen: list[str] = []
    for b in branches:
        if b[-1].there not in ends_seen:
            ends_seen.append(b[-1].there)
    return Paths(origin, None, answer, tuple(ends_seen), len(branches), offset, offset + len(shown) < len(branches),
                 visited, capped, _cap_note(visited, max_facts) if capped else None)


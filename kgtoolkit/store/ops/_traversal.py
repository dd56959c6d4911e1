"""Multi-hop reads in the store (contract §11): neighbours within k hops, paths between two entities,
and chains of predicates, walked breadth-first, one frontier at a time, in SQL.

Each step reads the facts around a whole frontier in one statement (the frontier's ids as one list
parameter, so SQLite's parameter limit never bites), through the covering indexes ``facts_walk_out`` and
``facts_walk_in`` (both ends, the interval keys, the predicate: a hop reads no table row, but for a one-day
fact an undated walk reads its row to tell an event from a state); only ids, ends and starts are read while
walking, the full facts only for the answer. Every hop obeys one time rule
(:func:`when`): valid at ``as_of``, overlapping ``during``, or (by default) a current state fact or an event
that has occurred; ``known_at`` answers as the graph believed then. A bound on the facts read
(``max_facts``) keeps a hub from blowing up a call, and the answer says when it was hit.

``paths`` walks from both ends (the smaller frontier first) until the two walks together cover
``max_hops``: every path of at most ``max_hops`` facts then lies among the facts read, and the paths are
enumerated from them in memory, shortest first, over only the hops that fit between the two walks'
distances (the last step of each walk reads many facts that lead nowhere within ``max_hops``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from ..._checks import whole_number
from ..._errors import InvalidRequest
from ..._limits import MAX_HOPS
from ..._records import Direction, Fact, Neighborhood, Paths, Reached
from ..._validity import NOW, NOW_DAY_LAST, Clock, Sql, current, occurred
from ..._window import ReadWindow
from ..engine import FACT_SELECT, Cursor, Dialect
from ..reads import _queries as q
from . import _predicates as _preds
from ._rules import EventRule

__all__ = [
    "Step",
    "When",
    "check_direction",
    "check_hops",
    "check_max_facts",
    "check_predicates",
    "fetch_facts",
    "follow",
    "neighbors",
    "paths",
    "when",
]

_DIRECTIONS = ("outgoing", "incoming", "both")
#: The most facts of a path search's enumeration steps (partial paths tried), past which it stops, capped.
MAX_STEPS = 200_000
#: The largest ``max_facts`` a call may ask for.
MAX_FACTS_LIMIT = 1_000_000


class When(NamedTuple):
    """The time rule of every hop: SQL conditions on ``f``, their parameters, and the ``known_at`` text; ``either``:
    disjoint conditions a hop meets one of (each read on its own: see :func:`when`), none for one read."""

    where: str
    params: dict[str, Any]
    known: str | None
    either: tuple[str, ...] = ()


class Step(NamedTuple):
    """One fact as a walk sees it: walked from ``here`` to ``there`` (``outgoing``: from its subject)."""

    id: int
    here: str
    there: str
    direction: str
    start: int


def when(cur: Cursor, d: Dialect, window: ReadWindow) -> When:
    """The time rule of a read window: valid at its ``as_of``, overlapping its ``during``, else a current state
    fact (valid now, started: never a scheduled one) or an event that has occurred, at any date (contract §11, §12:
    an event is never current, so an event graph would have no hop); as the graph believed at its ``known_at``.
    The graph's event rule is read from ``cur`` for the default."""
    if window.dated:
        return When(*q.time_filter(window))
    # Current, or an event that occurred (_validity.walked), read as two disjoint halves: the current facts through
    # the walk's covering indexes (the integer keys decide, an end after now is a range of them), then the other
    # started facts that are events (their one-day test first, on the keys: only those rows are read from the table).
    # A started fact that is not current ends at the latest today (its key at most :now_day_last): said outright,
    # that range leads both engines to the walk's indexes for the second half too.
    where, params, known = q.time_filter(window)
    start, end = q.interval_keys(known=known is not None)
    events = q.event_rule(cur)
    params.update(Clock.real().params())
    params.update(events.params(d))
    now = current(start, end, NOW, NOW_DAY_LAST).text  # _validity.walked: current(...) | occurred(...)
    event = occurred(start, NOW, Sql(events.sql(d))).text
    ended = (Sql("f.to_us") <= NOW_DAY_LAST).text
    return When(where, params, known, (f" AND {now}", f" AND {ended} AND NOT {now} AND {event}"))


def check_direction(direction: str) -> None:
    if direction not in _DIRECTIONS:
        raise InvalidRequest(
            f"direction must be one of {', '.join(_DIRECTIONS)}, not {direction!r}",
            field="direction",
            value=str(direction),
        )


def check_hops(value: object, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_HOPS:
        raise InvalidRequest(
            f"{field} must be a whole number from 1 to {MAX_HOPS}, not {value!r}; a longer walk "
            "reads too much of a big graph (follow the answer's ends onward instead)",
            field=field,
            value=str(value),
        )
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
        raise InvalidRequest(
            "predicates is empty: name at least one, or leave it out for every predicate", field="predicates"
        )
    return out


def _around(
    d: Dialect, frontier: Sequence[str], direction: str, predicates: list[str] | None, w: When
) -> tuple[str, dict[str, Any]]:
    """The statement of the facts around ``frontier`` walked ``direction``, as rows ``(id, here, there, way,
    start)`` (``way`` 0: outgoing, 1: incoming), and its parameters."""
    params: dict[str, Any] = {**w.params, "ids": d.list_param(frontier)}
    pred = ""
    if predicates is not None:
        params["preds"] = d.list_param(predicates)
        pred = f" AND f.predicate IN {d.values('preds')}"
    parts = []
    for either in w.either or ("",):
        if direction in ("outgoing", "both"):
            parts.append(
                f"SELECT f.id AS id, f.subject AS here, f.object_id AS there, 0 AS way, f.from_us AS start "
                f"FROM facts f WHERE f.subject IN {d.values('ids')} AND f.object_id IS NOT NULL "
                f"AND f.object_id <> f.subject{pred}{w.where}{either}"
            )
        if direction in ("incoming", "both"):
            parts.append(
                f"SELECT f.id AS id, f.object_id AS here, f.subject AS there, 1 AS way, f.from_us AS start "
                f"FROM facts f WHERE f.object_id IN "
                f"{d.values('ids')} AND f.object_id <> f.subject{pred}{w.where}{either}"
            )
    return " UNION ALL ".join(parts), params


def _rows(
    cur: Cursor, d: Dialect, frontier: Sequence[str], direction: str, predicates: list[str] | None, w: When, room: int
) -> tuple[list[tuple[Any, ...]], bool]:
    """The rows of :func:`_around` (at most ``room``; ordered by id, outgoing first), and whether there were
    more."""
    if not frontier or room <= 0:
        return [], bool(frontier)
    sql, params = _around(d, frontier, direction, predicates, w)
    rows = cur.execute(sql + " ORDER BY 1, 4 LIMIT :room", {**params, "room": room + 1}).fetchall()
    more = len(rows) > room
    return rows[:room], more


class _LastHop(NamedTuple):
    """The last hop of a walk, counted: the rows it read (at most the room left), whether there were more, the
    facts and entities it adds, and the ids of one page of the facts it adds, in order."""

    rows: int
    more: bool
    facts: int
    entities: int
    page: list[int]


def _last_hop(
    cur: Cursor,
    d: Dialect,
    frontier: Sequence[str],
    direction: str,
    predicates: list[str] | None,
    w: When,
    room: int,
    found: Iterable[int],
    known: Iterable[str],
    skip: int,
    take: int | None,
) -> _LastHop:
    """The last hop as :func:`_rows` reads it (its first ``room`` rows by id and way), counted from its light rows
    (id, other end): a hub in the frontier adds thousands of facts that only count, except the page shown, so no
    full fact is made but the page's.

    Each fact the hop adds is counted once: a fact's id is in the rows twice only when the walk goes both ways and
    both its ends are in the frontier, and its outgoing row comes first by (id, way), so its incoming row is never
    read alone; the facts added are the distinct ids not found before. Each column comes into Python as one array
    (:meth:`Dialect.array_agg`) and is counted with set operations: read row by row, a hub's rows cost more than
    the scan. Counting in SQL instead read the hop twice and cost more (its distinct is a temporary B-tree of text
    keys). The way each page fact was walked is :func:`_first_way`, from its subject."""
    room = max(room, 0)
    ids: list[int] = []
    ends: list[str] = []
    more = False
    if frontier:
        sql, params = _around(d, frontier, direction, predicates, w)

        def lists(order: str, n: int) -> tuple[list[int], list[str]]:  # the first n rows' ids and other ends
            id_array, end_array = cur.execute(
                f"SELECT {d.array_agg('id')}, {d.array_agg('there')} FROM (SELECT id, there FROM ({sql}) u{order} "
                "LIMIT :n) v",
                {**params, "n": n},
            ).fetchone()
            return d.array(id_array), d.array(end_array)

        # Any rows first (most hops fit the room); past it, the first ``room`` by id and way, as a capped hop reads.
        ids, ends = lists("", room + 1)
        more = len(ids) > room
        if more:
            ids, ends = lists(" ORDER BY id, way", room)
    adds = set(ids).difference(found)
    entities = len(set(ends).difference(known))
    page = sorted(adds)[skip:] if take is None else heapq.nsmallest(skip + take, adds)[skip:]
    return _LastHop(len(ids), more, len(adds), entities, [int(i) for i in page])


def _first_way(fact: Fact, direction: str, frontier: set[str]) -> str:
    """The way a walk from ``frontier`` going ``direction`` first reads ``fact`` (by (id, way), outgoing first):
    outgoing whenever its subject is in the frontier."""
    if direction == "both":
        return "outgoing" if fact.subject in frontier else "incoming"
    return direction


def _expand(
    cur: Cursor, d: Dialect, frontier: Sequence[str], direction: str, predicates: list[str] | None, w: When, room: int
) -> tuple[list[Step], bool]:
    """:func:`_rows` as :class:`Step` records."""
    rows, more = _rows(cur, d, frontier, direction, predicates, w, room)
    return [Step(int(r[0]), r[1], r[2], "incoming" if r[3] else "outgoing", int(r[4])) for r in rows], more


def fetch_facts(cur: Cursor, d: Dialect, ids: Iterable[int], known: str | None) -> dict[int, Fact]:
    """The full facts of ``ids`` (their ends as known at ``known``), by id."""
    wanted = set(ids)
    walked = _walked(cur, d, wanted, known)
    return {fid: walked(fid, None) for fid in wanted}


def _walked(cur: Cursor, d: Dialect, ids: Iterable[int], known: str | None) -> Callable[[int, str | None], Fact]:
    """Read the full facts of ``ids`` at once; the answer makes each as walked one way (its ends as known at
    ``known``)."""
    wanted = sorted(set(ids))
    rows = (
        {
            int(r[0]): r
            for r in cur.execute(
                f"{FACT_SELECT} WHERE f.id IN {d.values('ids', 'bigint')}", {"ids": d.list_param(wanted)}
            ).fetchall()
        }
        if wanted
        else {}
    )
    events = q.event_rule(cur) if wanted else EventRule()
    return lambda fid, way: q.row_fact(rows[fid], events=events, direction=way, known_at=known)


def _names(cur: Cursor, d: Dialect, ids: Iterable[str]) -> dict[str, str]:
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    return dict(
        cur.execute(
            f"SELECT id, name FROM entities WHERE id IN {d.values('ids')}", {"ids": d.list_param(wanted)}
        ).fetchall()
    )


def _cap_note(visited: int, max_facts: int) -> str:
    return (
        f"stopped at max_facts={max_facts:,} facts read ({visited:,}): a hub lies within reach, so the answer "
        "may be incomplete; narrow it with predicates or a date, or raise max_facts"
    )


def neighbors(
    cur: Cursor,
    d: Dialect,
    name: str,
    *,
    hops: int,
    direction: Direction,
    predicates: list[str] | None,
    w: When,
    max_facts: int,
    limit: int | None,
    offset: int,
) -> Neighborhood:
    """The entities and facts within ``hops`` of ``name`` (see :meth:`KnowledgeGraph.neighbors`)."""
    center = q.resolve(cur, d, name)
    distance = {center: 0}
    found: dict[int, tuple[int, str]] = {}  # fact id -> (the hop that reached it, the way it was walked)
    frontier, visited, capped, last = [center], 0, False, None
    for hop in range(1, hops + 1):
        if hop == hops:  # counted in the store: only the page is read
            before = len(found)
            skip = max(offset - before, 0)
            take = None if limit is None else max(limit - max(before - offset, 0), 0)
            last = _last_hop(
                cur, d, frontier, direction, predicates, w, max_facts - visited, found, distance, skip, take
            )
            visited += last.rows
            capped = last.more
            break
        steps, more = _expand(cur, d, frontier, direction, predicates, w, max_facts - visited)
        visited += len(steps)
        frontier = []
        for step in steps:
            if step.id in found:
                continue
            found[step.id] = (hop, step.direction)
            if step.there not in distance:
                distance[step.there] = hop
                frontier.append(step.there)
        if more:
            capped = True
            break
        if not frontier:
            break
    order = sorted(found.items(), key=lambda item: (item[1][0], item[0]))
    page = [(fid, way) for fid, (_, way) in (order[offset:] if limit is None else order[offset : offset + limit])]
    total, reached = len(order), len(distance)
    if last is not None:
        total, reached = total + last.facts, reached + last.entities
    walked = _walked(cur, d, [fid for fid, _ in page] + (last.page if last is not None else []), w.known)
    shown = [walked(fid, way) for fid, way in page]
    if last is not None:  # ``frontier`` is the last hop's
        starts = set(frontier)
        shown += [walked(fid, _first_way(walked(fid, None), direction, starts)) for fid in last.page]
    names = {f.subject: f.subject_name for f in shown} | {f.object: f.object_name for f in shown}
    if center not in names:
        names |= _names(cur, d, [center])
    ends = set(names) | {center}
    # An end not reached before the last hop was reached by it.
    entities = sorted((Reached(e, names.get(e, e), distance.get(e, hops)) for e in ends), key=lambda r: (r.hops, r.id))
    return Neighborhood(
        center,
        hops,
        tuple(entities),
        tuple(shown),
        total,
        reached,
        offset,
        visited,
        capped,
        _cap_note(visited, max_facts) if capped else None,
    )


def paths(
    cur: Cursor,
    d: Dialect,
    source: str,
    target: str,
    *,
    max_hops: int,
    direction: Direction,
    predicates: list[str] | None,
    w: When,
    time_respecting: bool,
    max_facts: int,
    limit: int | None,
    offset: int = 0,
) -> Paths:
    """Paths of at most ``max_hops`` facts from ``source`` to ``target``, shortest first (then by fact ids)."""
    src = q.resolve(cur, d, source, field="source")
    dst = q.resolve(cur, d, target, field="target")
    if src == dst:
        raise InvalidRequest(
            f"source and target are the same entity ({src!r}); a path needs two", field="target", value=target
        )
    back = {"outgoing": "incoming", "incoming": "outgoing", "both": "both"}[direction]
    ends: dict[int, tuple[str, str, int]] = {}  # every fact read: (subject, object, start)
    # Each side: its frontier, the distance of every entity it reached, the way it walks, whether it is done.
    frontiers = {"forward": [src], "backward": [dst]}
    distance = {"forward": {src: 0}, "backward": {dst: 0}}
    ways = {"forward": direction, "backward": back}
    visited, capped, depth = 0, False, 0
    while depth < max_hops:
        side = min(frontiers, key=lambda k: (len(frontiers[k]), k != "forward"))
        frontier, reached = frontiers[side], distance[side]
        if not frontier:
            break  # that side's whole reach is read: every path lies among the facts read
        rows, more = _rows(cur, d, frontier, ways[side], predicates, w, max_facts - visited)
        visited += len(rows)
        nxt: list[str] = []
        for fid, here, there, way, start in rows:
            if fid not in ends:
                ends[fid] = (here, there, int(start)) if way == 0 else (there, here, int(start))
            if there not in reached:
                reached[there] = reached[here] + 1
                nxt.append(there)
        frontiers[side] = nxt
        depth += 1
        if more:
            capped = True
            break
    # A lower bound of the hops from each entity to the target: exact within the backward walk's reach, past it
    # one more than that reach (or no way at all, when the backward walk read the target's whole reach).
    bounds = {
        side: max_hops + 1 if not frontiers[side] and not capped else max(distance[side].values()) + 1
        for side in frontiers
    }
    found, more_paths, stopped = _enumerate(
        ends,
        src,
        dst,
        direction,
        max_hops,
        time_respecting,
        None if limit is None else offset + limit,
        distance,
        bounds,
    )
    capped = capped or stopped
    total = None if more_paths else len(found)
    found = found[offset:]
    walked = _walked(cur, d, (fid for p in found for fid, _ in p), w.known)
    answer = tuple(tuple(walked(fid, way) for fid, way in p) for p in found)
    note = None
    if capped:
        note = (
            _cap_note(visited, max_facts)
            if not stopped
            else (
                f"stopped after {MAX_STEPS:,} steps of the path search: the answer may be incomplete; narrow it with "
                "predicates, a date or fewer max_hops"
            )
        )
    return Paths(src, dst, answer, (dst,) if total != 0 else (), total, offset, more_paths, visited, capped, note)


def _enumerate(
    ends: dict[int, tuple[str, str, int]],
    src: str,
    dst: str,
    direction: str,
    max_hops: int,
    time_respecting: bool,
    limit: int | None,
    distance: dict[str, dict[str, int]],
    bounds: dict[str, int],
) -> tuple[list[list[tuple[int, str]]], bool, bool]:
    """Simple paths src → dst over the facts read (``ends``: id → subject, object, start), shortest first, then
    by their fact ids: the paths as (fact id, direction) lists (at most ``limit``), whether more exist, and
    whether the step bound stopped the search.

    ``distance[side]`` holds the hops from src (``forward``) and to dst (``backward``) of the entities each walk
    reached, exact within its reach; past it, ``bounds[side]`` is a lower bound. A hop u → v lies on no path
    of at most ``max_hops`` facts when the bounds from src to u and from v to dst leave no room for it: only the
    other hops are kept, and the walk from src goes only where the target is still within reach.
    """
    from_src, to_dst = distance["forward"], distance["backward"]
    past_src, past_dst = bounds["forward"], bounds["backward"]
    adjacency: dict[str, list[tuple[int, str, str, int]]] = {}
    ways = [w for w in ("outgoing", "incoming") if direction in (w, "both")]
    for fid in sorted(ends):
        subject, obj, start = ends[fid]
        for way in ways:
            u, v = (subject, obj) if way == "outgoing" else (obj, subject)
            if from_src.get(u, past_src) + 1 + to_dst.get(v, past_dst) <= max_hops:
                adjacency.setdefault(u, []).append((fid, v, way, start))
    to_target, beyond = to_dst, past_dst
    found: list[list[tuple[int, str]]] = []
    budget = [MAX_STEPS]
    want = None if limit is None else limit + 1
    path: list[tuple[int, str]] = []
    starts: list[int] = []
    on = {src}

    def walk(node: str, left: int) -> bool:
        """Extend ``path`` by exactly ``left`` facts to dst; False when the budget or the wanted count ran out."""
        if left == 0:
            if node == dst:
                found.append(list(path))
                return want is None or len(found) < want
            return True
        for fid, there, way, start in adjacency.get(node, ()):
            if there in on or to_target.get(there, beyond) > left - 1:
                continue
            if time_respecting and starts and start < starts[-1]:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return False
            path.append((fid, way))
            starts.append(start)
            on.add(there)
            going = walk(there, left - 1)
            on.discard(there)
            starts.pop()
            path.pop()
            if not going:
                return False
        return True

    stopped = False
    for length in range(to_target.get(src, beyond), max_hops + 1):
        if not walk(src, length):
            stopped = budget[0] < 0
            break
    more = want is not None and len(found) >= want
    return found[:limit] if limit is not None else found, more, stopped


def follow(
    cur: Cursor,
    d: Dialect,
    start: str,
    predicates: list[str],
    *,
    direction: Direction,
    w: When,
    time_respecting: bool,
    max_facts: int,
    limit: int | None,
    offset: int = 0,
) -> Paths:
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
    shown = branches[offset:] if limit is None else branches[offset : offset + limit]
    walked = _walked(cur, d, (s.id for b in shown for s in b), w.known)
    answer = tuple(tuple(walked(s.id, s.direction) for s in b) for b in shown)
    ends_seen: list[str] = []
    for b in branches:
        if b[-1].there not in ends_seen:
            ends_seen.append(b[-1].there)
    return Paths(
        origin,
        None,
        answer,
        tuple(ends_seen),
        len(branches),
        offset,
        offset + len(shown) < len(branches),
        visited,
        capped,
        _cap_note(visited, max_facts) if capped else None,
    )

"""Multi-hop reads and diffs (contract §11) against a plain-Python model, on generated graphs, on both backends.

Each test builds a few seeded random graphs (entities ``e0``…, predicates ``p``, ``q``, ``r``, dated and
undated, open and ended facts, a self-loop and a value fact that no walk may take) and checks
``neighbors``, ``paths``, ``follow`` and ``diff`` against a breadth-first / depth-first search over the
list of stored facts, under each time rule: current, ``as_of``, ``during``, and time-respecting paths.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import kgtoolkit
from conftest import undo_steps
from kgtoolkit import Fact, IntervalOrder, InvalidRequest, KnowledgeGraph, NotFound, frames

ENTITIES = [f"e{i}" for i in range(9)]
PREDICATES = ["p", "q", "r"]
TODAY = dt.date.today().isoformat()
RULES: list[dict[str, Any]] = [{}, {"as_of": "2022-06-15"}, {"during": ("2021-01-01", "2021-12-31")}]


# ---------------------------------------------------------------------- generated graphs and the model


def _day(rng: random.Random) -> str:
    return (dt.date(2020, 1, 1) + dt.timedelta(days=rng.randrange(5 * 365))).isoformat()


def build(kg: KnowledgeGraph, seed: int, n: int = 36, events: int = 0) -> list[Fact]:
    """A random graph of about ``n`` facts and ``events`` one-day events (a few still to come); the facts as
    stored."""
    rng = random.Random(seed)
    for _ in range(n):
        s, o = rng.sample(ENTITIES, 2)
        start = None if rng.random() < 0.25 else _day(rng)
        end = None
        if rng.random() < 0.4:
            end = (dt.date.fromisoformat(start or "2020-01-01") + dt.timedelta(days=rng.randrange(0, 900))).isoformat()
        kg.add(s, rng.choice(PREDICATES), o, valid_from=start, valid_to=end)
    for _ in range(events):
        s, o = rng.sample(ENTITIES, 2)
        day = "2090-01-01" if rng.random() < 0.2 else _day(rng)
        kg.add(s, rng.choice(PREDICATES), o, valid_from=day, valid_to=day)
    kg.add("e0", "p", "e0")  # a self-loop: never a hop
    kg.add("e1", "email", "e1@example.com")  # a value fact: never a hop
    return kg.timeline(limit=None)


def valid(f: Fact, rule: dict[str, Any]) -> bool:
    """The time rule of every hop, on the dates as text (every date here is a whole day): by default a current fact
    (a date end D ends it on D), or an event (every fact here is written by add: one day as both bounds) that has
    occurred, at any date."""
    lo, hi = f.valid_from or "0000", f.valid_to or "9999"
    if "as_of" in rule:
        return lo <= rule["as_of"] <= hi
    if "during" in rule:
        a, b = rule["during"]
        return lo <= b and hi >= a
    if f.valid_from is not None and f.valid_from == f.valid_to:
        return lo <= TODAY
    return lo <= TODAY and (f.valid_to is None or f.valid_to > TODAY)


def hops_of(
    facts: list[Fact], direction: str, predicates: list[str] | None, rule: dict[str, Any]
) -> dict[str, list[tuple[Fact, str, str]]]:
    """Each entity's walkable facts: (fact, the entity at the other end, the way it was walked)."""
    out: dict[str, list[tuple[Fact, str, str]]] = {}
    for f in facts:
        if f.object_is_value or f.subject == f.object or not valid(f, rule):
            continue
        if predicates is not None and f.predicate not in predicates:
            continue
        if direction in ("outgoing", "both"):
            out.setdefault(f.subject, []).append((f, f.object, "outgoing"))
        if direction in ("incoming", "both"):
            out.setdefault(f.object, []).append((f, f.subject, "incoming"))
    return out


def model_neighbors(
    facts: list[Fact], center: str, hops: int, direction: str, predicates: list[str] | None, rule: dict[str, Any]
) -> tuple[list[tuple[int, int]], dict[str, int]]:
    """(hop, fact id) of every fact within reach, in order, and every entity's distance."""
    adj = hops_of(facts, direction, predicates, rule)
    dist, found, frontier = {center: 0}, dict[int, int](), [center]
    for hop in range(1, hops + 1):
        nxt = []
        for u in frontier:
            for f, v, _ in adj.get(u, ()):
                found.setdefault(f.id, hop)
                if v not in dist:
                    dist[v] = hop
                    nxt.append(v)
        frontier = nxt
    return sorted((h, i) for i, h in found.items()), dist


def model_capped_neighbors(
    facts: list[Fact],
    center: str,
    hops: int,
    direction: str,
    max_facts: int,
) -> tuple[list[tuple[int, str]], int, int, int, bool]:
    """The walk with a bound: each hop reads its frontier's rows ordered by (fact id, outgoing first), at most the
    room left. (fact id, way) in answer order, the total, the entities reached, the rows read, capped."""
    adj = hops_of(facts, direction, None, {})
    dist, found, frontier, visited, capped = {center: 0}, dict[int, tuple[int, str]](), [center], 0, False
    for hop in range(1, hops + 1):
        rows = sorted(
            ((f.id, way, v) for u in frontier for f, v, way in adj.get(u, ())), key=lambda r: (r[0], r[1] != "outgoing")
        )
        room = max_facts - visited
        capped, rows = len(rows) > room, rows[:room]
        visited += len(rows)
        frontier = []
        for fid, way, v in rows:
            if fid in found:
                continue
            found[fid] = (hop, way)
            if v not in dist:
                dist[v] = hop
                frontier.append(v)
        if capped or not frontier:
            break
    order = sorted(found.items(), key=lambda item: (item[1][0], item[0]))
    return [(fid, way) for fid, (_, way) in order], len(order), len(dist), visited, capped


def start_key(f: Fact) -> str:
    return f.valid_from or ""


def model_paths(
    facts: list[Fact],
    src: str,
    dst: str,
    max_hops: int,
    direction: str,
    predicates: list[str] | None,
    rule: dict[str, Any],
    time_respecting: bool,
) -> list[list[tuple[int, str]]]:
    """Every simple path src → dst of at most max_hops facts, shortest first, then by fact ids."""
    adj = hops_of(facts, direction, predicates, rule)
    out: list[list[tuple[Fact, str]]] = []

    def walk(u: str, path: list[tuple[Fact, str]], on: set[str]) -> None:
        if u == dst:
            out.append(list(path))
            return
        if len(path) == max_hops:
            return
        for f, v, way in adj.get(u, ()):
            if v in on or (time_respecting and path and start_key(f) < start_key(path[-1][0])):
                continue
            walk(v, [*path, (f, way)], on | {v})

    walk(src, [], {src})
    out.sort(key=lambda p: (len(p), [f.id for f, _ in p]))
    return [[(f.id, way) for f, way in p] for p in out]


def model_follow(
    facts: list[Fact], start: str, predicates: list[str], direction: str, rule: dict[str, Any]
) -> list[list[int]]:
    branches: list[tuple[list[int], str, set[str]]] = [([], start, {start})]
    for pred in predicates:
        adj = hops_of(facts, direction, [pred], rule)
        branches = [([*ids, f.id], v, on | {v}) for ids, u, on in branches for f, v, _ in adj.get(u, ()) if v not in on]
    return sorted(ids for ids, _, _ in branches)


def walked(path: tuple[Fact, ...]) -> list[tuple[int, str]]:
    return [(f.id, f.direction or "") for f in path]


@pytest.fixture
def graphs(new_db: Callable[[str], Path | str]) -> Iterator[Callable[..., tuple[KnowledgeGraph, list[Fact]]]]:
    """``graphs(seed, events=0)``: a new graph on this backend, filled by :func:`build`."""
    opened: list[KnowledgeGraph] = []

    def make(seed: int, events: int = 0) -> tuple[KnowledgeGraph, list[Fact]]:
        kg = kgtoolkit.open(new_db("graph"))
        opened.append(kg)
        return kg, build(kg, seed, events=events)

    yield make
    for kg in opened:
        kg.close()


# ---------------------------------------------------------------------- neighbors, paths, follow vs the model


def test_neighbors_match_the_model(graphs: Callable[..., tuple[KnowledgeGraph, list[Fact]]]) -> None:
    rng = random.Random(7)
    for seed in range(3):
        kg, facts = graphs(seed, events=10 * seed)  # seeds 1 and 2: events beside the states
        for rule in RULES:
            for direction in ("outgoing", "incoming", "both"):
                hops, center = rng.randint(1, 3), rng.choice(ENTITIES[:6])
                preds = rng.choice([None, ["p"], ["p", "q"]])
                got = kg.neighbors(center, hops=hops, direction=direction, predicates=preds, limit=None, **rule)  # type: ignore[arg-type]
                order, dist = model_neighbors(facts, center, hops, direction, preds, rule)
                case = (seed, rule, direction, hops, center, preds)
                assert [f.id for f in got.facts] == [i for _, i in order], case
                assert got.total == len(order) and got.entity_total == len(dist) and not got.capped, case
                assert all(f.direction == direction for f in got.facts) or direction == "both", case
                assert {r.id: r.hops for r in got.entities} == {r.id: dist[r.id] for r in got.entities}, case
                assert {r.id for r in got.entities} == {center} | {e for f in got.facts for e in (f.subject, f.object)}
                # paging: one page at a time gives the same facts
                first = kg.neighbors(center, hops=hops, direction=direction, predicates=preds, limit=3, **rule)  # type: ignore[arg-type]
                rest = kg.neighbors(
                    center,
                    hops=hops,
                    direction=direction,
                    predicates=preds,
                    offset=3,
                    limit=None,  # type: ignore[arg-type]
                    **rule,
                )
                assert [f.id for f in first.facts + rest.facts] == [i for _, i in order], case
                assert first.truncated == (len(order) > 3) and first.next_offset == (3 if len(order) > 3 else None)


def test_paths_match_the_model(graphs: Callable[..., tuple[KnowledgeGraph, list[Fact]]]) -> None:
    rng = random.Random(11)
    nonempty = 0
    for seed in range(3):
        kg, facts = graphs(seed, events=10 * seed)  # seeds 1 and 2: events beside the states
        for rule in RULES:
            for direction in ("outgoing", "both"):
                for time_respecting in (False, True):
                    src, dst = rng.sample(ENTITIES[:7], 2)
                    max_hops = rng.randint(1, 4)
                    preds = rng.choice([None, None, ["p", "q"]])
                    got = kg.paths(
                        src,
                        dst,
                        max_hops=max_hops,
                        direction=direction,
                        predicates=preds,  # type: ignore[arg-type]
                        time_respecting=time_respecting,
                        limit=None,
                        **rule,
                    )
                    want = model_paths(facts, src, dst, max_hops, direction, preds, rule, time_respecting)
                    case = (seed, rule, direction, time_respecting, src, dst, max_hops, preds)
                    assert [walked(p) for p in got.paths] == want, case
                    assert not got.truncated and not got.capped and got.ends == ((dst,) if want else ()), case
                    nonempty += bool(want)
                    for p in got.paths:  # each path is a chain: every hop starts where the last one ended
                        here = src
                        for f in p:
                            here = f.object if f.direction == "outgoing" else f.subject
                        assert here == dst
                    if len(want) > 2:
                        two = kg.paths(
                            src,
                            dst,
                            max_hops=max_hops,
                            direction=direction,
                            predicates=preds,  # type: ignore[arg-type]
                            time_respecting=time_respecting,
                            limit=2,
                            **rule,
                        )
                        assert [walked(p) for p in two.paths] == want[:2] and two.truncated, case
    assert nonempty >= 5  # the generated graphs do have paths to compare


def test_follow_matches_the_model(graphs: Callable[..., tuple[KnowledgeGraph, list[Fact]]]) -> None:
    rng = random.Random(5)
    for seed in range(3):
        kg, facts = graphs(seed, events=10 * seed)  # seeds 1 and 2: events beside the states
        for rule in RULES:
            for _ in range(3):
                start = rng.choice(ENTITIES[:6])
                chain = [rng.choice(PREDICATES) for _ in range(rng.randint(1, 3))]
                direction = rng.choice(["outgoing", "both"])
                got = kg.follow(start, chain, direction=direction, limit=None, **rule)  # type: ignore[arg-type]
                want = model_follow(facts, start, chain, direction, rule)
                case = (seed, rule, start, chain, direction)
                assert [[f.id for f in p] for p in got.paths] == want, case
                assert [f.predicate for p in got.paths for f in p] == chain * len(want), case
                ends = []
                for p in got.paths:
                    last = p[-1]
                    end = last.object if last.direction == "outgoing" else last.subject
                    if end not in ends:
                        ends.append(end)
                assert list(got.ends) == ends and not got.capped and not got.truncated, case


# ---------------------------------------------------------------------- the worked question and time rules


def test_the_multi_hop_question_of_the_issue(kg: KnowledgeGraph) -> None:
    kg.add("billing_service", "owned_by", "payments team")
    kg.add("billing_service", "owned_by", "platform team", valid_from="2024-01-01", valid_to="2024-06-30")
    kg.add("payments team", "reports_to", "Dana")
    kg.add("platform team", "reports_to", "Eve")
    assert kg.follow("billing_service", ["owned by", "reports_to"]).ends == ("dana",)
    assert kg.follow("billing_service", ["owned_by", "reports_to"], as_of="2024-03").ends == ("dana", "eve")
    back = kg.follow("Dana", ["reports_to", "owned_by"], direction="incoming")
    assert back.ends == ("billing_service",) and back.paths[0][0].direction == "incoming"
    best = kg.paths("billing_service", "dana")
    assert [[f.predicate for f in p] for p in best.paths] == [["owned_by", "reports_to"]]
    assert best.to_dict()["paths"][0][0]["object"] == "payments_team" and best.to_dict()["count"] == 1
    near = kg.neighbors("payments team")
    assert {r.id: r.hops for r in near.entities} == {"payments_team": 0, "billing_service": 1, "dana": 1}


def test_time_respecting_paths_keep_each_next_start_no_earlier(kg: KnowledgeGraph) -> None:
    kg.add("a", "p", "b", valid_from="2021-05-01", valid_to="2021-12-31")
    kg.add("b", "p", "c", valid_from="2021-03-01", valid_to="2021-12-31")  # starts before a→b: not onward in time
    kg.add("b", "q", "c", valid_from="2021-05-01", valid_to="2021-12-31")  # the same day counts
    during = ("2021-01-01", "2021-12-31")
    every = kg.paths("a", "c", during=during, direction="outgoing")
    assert [[f.predicate for f in p] for p in every.paths] == [["p", "p"], ["p", "q"]]
    onward = kg.paths("a", "c", during=during, direction="outgoing", time_respecting=True)
    assert [[f.predicate for f in p] for p in onward.paths] == [["p", "q"]]
    assert kg.paths("a", "c", direction="outgoing").paths == ()  # nothing current
    assert len(kg.paths("a", "c", as_of="2021-06").paths) == 2  # a month: both held in it
    assert kg.paths("a", "c", as_of="2021-04-01").paths == ()  # a→b had not started


def test_known_at_walks_the_graph_as_it_was_believed(kg: KnowledgeGraph) -> None:
    kg.add("svc", "owned_by", "team_a", valid_from="2020-01-01")
    kg.add("team_a", "reports_to", "ann")
    kg.add("team_b", "reports_to", "bob")
    before = kg.fact(3).recorded_at
    kg.supersede("svc", "owned_by", "team_a", "team_b", at="2020-06-01")
    assert kg.follow("svc", ["owned_by", "reports_to"]).ends == ("bob",)
    then = kg.follow("svc", ["owned_by", "reports_to"], as_of="2021-01-01", known_at=before)
    assert then.ends == ("ann",) and then.paths[0][0].valid_to is None  # its end was not known yet
    assert kg.neighbors("svc", as_of="2020-06-01").total == 2  # the switch day: both hold


def test_a_hub_is_capped_with_a_note(kg: KnowledgeGraph) -> None:
    for i in range(30):
        kg.add("hub", "links", f"leaf{i}")
    kg.add("leaf0", "links", "far")
    full = kg.neighbors("hub", hops=2)
    assert full.total == 31 and not full.capped and full.note is None
    cut = kg.neighbors("hub", hops=2, max_facts=10)
    assert cut.capped and cut.visited <= 10 and cut.total <= 10 and "max_facts=10" in (cut.note or "")
    assert cut.to_dict()["capped"] is True and cut.to_dict()["note"] == cut.note
    capped_paths = kg.paths("leaf3", "far", max_facts=10)
    assert capped_paths.capped and "max_facts" in (capped_paths.note or "")
    assert [len(p) for p in kg.paths("leaf3", "far").paths] == [3]
    chain = kg.follow("leaf3", ["links", "links"], direction="both", max_facts=5)
    assert chain.capped and chain.paths == () and chain.note
    assert len(kg.follow("leaf3", ["links", "links"], direction="both").paths) == 29


def test_a_capped_walk_matches_the_model_at_every_bound_and_page(kg: KnowledgeGraph) -> None:
    """The last hop is counted in the store and only its page is read: the same answer as reading every row,
    capped or not, whatever the page."""
    rng = random.Random(5)
    for i in range(40):  # two hubs, linked, with leaves (some linked both ways to the hubs)
        kg.add(f"leaf{i}", "links", "hub" if i % 2 else "hub2")
        if i % 5 == 0:
            kg.add("hub", "links", f"leaf{i}")
    kg.add("hub", "links", "hub2")
    kg.add("leaf3", "links", "leaf8")
    facts = kg.timeline(limit=None)
    for _ in range(60):
        center, hops = rng.choice(["leaf3", "leaf0", "hub", "leaf7"]), rng.randint(1, 3)
        direction, bound = rng.choice(["outgoing", "incoming", "both"]), rng.randint(1, 70)
        order, total, reached, visited, capped = model_capped_neighbors(facts, center, hops, direction, bound)
        case = (center, hops, direction, bound)
        got = kg.neighbors(center, hops=hops, direction=direction, max_facts=bound, limit=None)  # type: ignore[arg-type]
        assert [(f.id, f.direction) for f in got.facts] == order, case
        assert (got.total, got.entity_total, got.visited, got.capped) == (total, reached, visited, capped), case
        limit, offset = rng.randint(0, 12), rng.randint(0, 30)
        page = kg.neighbors(
            center,
            hops=hops,
            direction=direction,
            max_facts=bound,
            limit=limit,  # type: ignore[arg-type]
            offset=offset,
        )
        assert [(f.id, f.direction) for f in page.facts] == order[offset : offset + limit], case
        assert page.total == total and page.entity_total == reached and page.capped == capped, case
        assert {r.id for r in page.entities} == {center} | {e for f in page.facts for e in (f.subject, f.object)}


def test_neighbors_and_diff_answer_one_page_of_100_by_default(kg: KnowledgeGraph) -> None:
    for i in range(130):
        kg.add("hub", "links", f"leaf{i}", valid_from="2026-01-05")
    near, diff = kg.neighbors("hub"), kg.diff("2026-01", "2026-01")
    assert (len(near.facts), near.total, near.truncated, near.next_offset) == (100, 130, True, 100)
    assert (len(diff.changes), diff.total, diff.began, diff.truncated) == (100, 130, 130, True)
    assert near.facts == kg.neighbors("hub", limit=None).facts[:100]
    assert diff.changes == kg.diff("2026-01", "2026-01", limit=None).changes[:100]


def test_unknown_names_and_bad_requests_change_nothing(kg: KnowledgeGraph) -> None:
    kg.add("billing", "owned_by", "payments")
    version = kg.data_version()
    stats = kg.stats()
    with pytest.raises(NotFound) as e:
        kg.neighbors("billing_svc")
    assert e.value.code == "not_found" and "billing" in e.value.data["suggestions"]
    with pytest.raises(NotFound) as e:
        kg.paths("billing", "payments_team")
    assert e.value.data["field"] == "target" and "payments" in e.value.data["suggestions"]
    with pytest.raises(NotFound) as e:
        kg.follow("billing", ["owned"])
    assert e.value.data["field"] == "predicates" and "owned_by" in e.value.data["suggestions"]
    for bad in (0, 5, -1, "2", True, 2.0, None):
        with pytest.raises(InvalidRequest, match="from 1 to 4") as e:
            kg.neighbors("billing", hops=bad)  # type: ignore[arg-type]
        assert e.value.code == "invalid_request" and e.value.data["field"] == "hops"
        with pytest.raises(InvalidRequest, match="max_hops"):
            kg.paths("billing", "payments", max_hops=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match="predicates"):
        kg.follow("billing", ["owned_by"] * 5)
    with pytest.raises(InvalidRequest, match="direction"):
        kg.neighbors("billing", direction="sideways")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match="not both"):
        kg.neighbors("billing", as_of="2024", during=("2024", "2025"))
    with pytest.raises(IntervalOrder):
        kg.paths("billing", "payments", during=("2025", "2024"))
    with pytest.raises(InvalidRequest, match="same entity"):
        kg.paths("billing", "Billing")
    with pytest.raises(InvalidRequest):
        kg.neighbors("billing", limit=-1)
    with pytest.raises(InvalidRequest):
        kg.neighbors("billing", max_facts=0)
    with pytest.raises(IntervalOrder):
        kg.diff("2025", "2024")
    with pytest.raises(InvalidRequest):
        kg.diff("2024", "2025", by="sometime")  # type: ignore[arg-type]
    assert kg.data_version() == version and kg.stats() == stats


# ---------------------------------------------------------------------- diff


def model_diff(
    facts: list[Fact], lo: str, hi: str, multi: frozenset[str]
) -> list[tuple[str, str, int | None, int | None]]:
    """(kind, at, old id, new id) of every change between two days, in time order (valid time)."""
    began = [f for f in facts if f.valid_from is not None and lo <= f.valid_from <= hi]
    ended = [f for f in facts if f.valid_to is not None and lo <= f.valid_to <= hi]

    def pairs_with(old: Fact, new: Fact) -> bool:
        if old.id == new.id or (old.subject, old.predicate) != (new.subject, new.predicate) or old.object == new.object:
            return False
        if old.predicate in multi or old.valid_from == old.valid_to or new.valid_from == new.valid_to:
            return False
        assert old.valid_to is not None and new.valid_from is not None
        next_day = (dt.date.fromisoformat(old.valid_to) + dt.timedelta(days=1)).isoformat()
        return (old.valid_from is None or new.valid_from >= old.valid_from) and new.valid_from <= next_day

    def gap(old: Fact, new: Fact) -> int:
        assert old.valid_to is not None and new.valid_from is not None
        return (dt.date.fromisoformat(old.valid_to) - dt.date.fromisoformat(new.valid_from)).days

    candidates = sorted((gap(o, n), o.id, n.id) for o in ended for n in began if pairs_with(o, n))
    olds, news, out = set(), set(), []
    by_id = {f.id: f for f in facts}
    for _, o, n in candidates:
        if o not in olds and n not in news:
            olds.add(o)
            news.add(n)
            out.append(((by_id[n].valid_from, 0, 0, n), ("replaced", by_id[n].valid_from, o, n)))
    out += [((f.valid_to, 1, 1, f.id), ("ended", f.valid_to, f.id, None)) for f in ended if f.id not in olds]
    out += [((f.valid_from, 0, 2, f.id), ("began", f.valid_from, None, f.id)) for f in began if f.id not in news]
    return [change for _, change in sorted(out)]  # type: ignore[arg-type]


def _changes(d: kgtoolkit.Diff) -> list[tuple[str, str, int | None, int | None]]:
    return [(c.kind, c.at, c.old.id if c.old else None, c.new.id if c.new else None) for c in d.changes]


def test_diff_matches_the_model(graphs: Callable[..., tuple[KnowledgeGraph, list[Fact]]]) -> None:
    rng = random.Random(3)
    for seed in range(2):
        kg, facts = graphs(100 + seed)
        for s, p, old, new, at in [("e0", "p", "e1", "e2", "2022-03-02"), ("e3", "q", "e4", "e5", "2022-03-09")]:
            kg.add(s, p, old, valid_from="2021-01-01")
            kg.supersede(s, p, old, new, at=at)
        facts = kg.timeline(limit=None)
        multi = kg.config.multi_valued
        for lo, hi in [("2022-03-01", "2022-03-31"), ("2020-01-01", "2024-12-31"), ("2023-05-01", "2023-08-01")]:
            got = kg.diff(lo, hi, limit=None)
            want = model_diff(facts, lo, hi, multi)
            assert _changes(got) == want, (seed, lo, hi)
            assert (got.began, got.ended, got.replaced) == tuple(
                sum(c[0] == k for c in want) for k in ("began", "ended", "replaced")
            )
            entity, pred = rng.choice(ENTITIES[:5]), rng.choice(PREDICATES)
            mine = kg.diff(lo, hi, entity=entity, predicates=[pred], limit=None)
            sub = [f for f in facts if f.predicate == pred and entity in (f.subject, f.object)]
            assert _changes(mine) == model_diff(sub, lo, hi, multi)
            page = kg.diff(lo, hi, limit=2, offset=1)
            assert _changes(page) == want[1:3] and page.total == len(want)
            assert page.truncated == (len(want) > 3)
        march = _changes(kg.diff("2022-03", "2022-03"))
        assert ("replaced", "2022-03-02") in [c[:2] for c in march] and ("replaced", "2022-03-09") in [
            c[:2] for c in march
        ]


def test_diff_rules(kg: KnowledgeGraph) -> None:
    kg.add("api", "uses", "Redis", valid_from="2026-01-05")
    kg.supersede("api", "uses", "Redis", "SQLite", at="2026-03-02")
    kg.add("api", "depends_on", "auth", valid_from="2026-03-05")  # multi-valued: a new one is one more
    kg.add("api", "depends_on", "billing", valid_from="2025-01-01", valid_to="2026-03-04")
    kg.add("x", "met", "y", valid_from="2026-03-10", valid_to="2026-03-10")  # an event
    kg.add("x", "met", "z", valid_from="2026-03-11", valid_to="2026-03-11")  # the next event: no replacement
    d = kg.diff("2026-03", "2026-03")
    assert [(c.kind, c.at, c.predicate) for c in d.changes] == [
        ("replaced", "2026-03-02", "uses"),
        ("ended", "2026-03-04", "depends_on"),
        ("began", "2026-03-05", "depends_on"),
        ("occurred", "2026-03-10", "met"),  # events (contract §12)
        ("occurred", "2026-03-11", "met"),
    ]
    replaced = d.changes[0]
    assert (replaced.old and replaced.old.object_name, replaced.new and replaced.new.object_name) == ("Redis", "SQLite")
    assert d.to_dict()["changes"][0]["old"]["valid_to"] == "2026-03-02" and d.to_dict()["total"] == 5
    assert kg.diff("2026-04", "2026-12").total == 0
    frame = frames.diff(kg, "2026-03", "2026-03", entity="api")
    assert frame.select("kind", "old_object_name", "new_object_name").rows() == [
        ("replaced", "Redis", "SQLite"),
        ("ended", "billing", None),
        ("began", None, "auth"),
    ]


def test_diff_by_known_time(kg: KnowledgeGraph) -> None:
    kg.add("api", "uses", "Redis", valid_from="2020-01-01")
    t1 = kg.fact(1).recorded_at
    kg.supersede("api", "uses", "Redis", "SQLite", at="2020-06-01")  # learned now, about 2020
    kg.add("api", "owner", "ann", valid_from="2019-01-01", valid_to="2019-12-31")  # history, recorded ended
    t2 = kg.fact(3).recorded_at
    assert t1 is not None and t2 is not None
    everything = kg.diff(t1, t2, by="known")
    assert [(c.kind, c.predicate) for c in everything.changes] == [
        ("began", "uses"),
        ("replaced", "uses"),
        ("began", "owner"),
    ]
    assert everything.changes[1].at == kg.fact(2).recorded_at and everything.by == "known"
    assert kg.diff("2020-01-01", "2020-12-31").replaced == 1  # by valid time, the same switch
    later = kg.diff(kg.fact(2).recorded_at or "", t2, by="known")
    assert [(c.kind, c.predicate) for c in later.changes] == [("began", "uses"), ("began", "owner")]


# ---------------------------------------------------------------------- the walk's indexes


@pytest.mark.sqlite_only
def test_a_file_of_the_schema_before_the_walk_indexes_is_upgraded_in_place(tmp_path: Path) -> None:
    import sqlite3

    from kgtoolkit.store.engine._schema import MIGRATIONS, SCHEMA_VERSION

    steps = MIGRATIONS["sqlite"]
    mine = next(i for i, step in enumerate(steps) if any("facts_walk_out" in s for s in step))
    path = tmp_path / "before.sqlite3"
    conn = sqlite3.connect(path)
    for step in steps[:mine]:
        for statement in step:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {mine}")
    conn.commit()
    conn.close()
    with kgtoolkit.open(path) as kg:  # opening it migrates it
        facts = build(kg, 1)
        got = kg.paths("e0", "e3", limit=None)
        assert [walked(p) for p in got.paths] == model_paths(facts, "e0", "e3", 4, "both", None, {}, False)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"facts_walk_out", "facts_walk_in", "facts_ended"} <= names
        plan = " ".join(
            str(r)
            for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT f.id, f.object_id, f.from_us FROM facts f WHERE f.subject IN ('e0', 'e1') AND "
                "f.object_id IS NOT NULL AND f.to_us = 4611686018427387904 AND f.from_us <= 0"
            )
        )
        assert "COVERING INDEX facts_walk_out" in plan  # a hop reads no table row
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


@pytest.mark.sqlite_only
def test_a_file_with_the_first_walk_indexes_gets_them_with_the_end_key_second(tmp_path: Path) -> None:
    """Schema step 7: a step-6 file (walk indexes ordered subject/object then the other end) is upgraded in place
    to indexes that seek the still-valid facts, and answers the same."""
    import sqlite3

    from kgtoolkit.store.engine._schema import MIGRATIONS, SCHEMA_VERSION

    steps = MIGRATIONS["sqlite"]
    mine = next(i for i, step in enumerate(steps) if "DROP INDEX IF EXISTS facts_walk_out" in step)
    path = tmp_path / "step6.sqlite3"
    with kgtoolkit.open(path) as kg:
        facts = build(kg, 2)
        want = kg.neighbors("e0", hops=3, limit=None)
    conn = sqlite3.connect(path)
    for statement in undo_steps(mine + 1, "sqlite"):  # the steps after this one, undone
        conn.execute(statement)
    for statement in steps[mine - 2]:  # the walk indexes as the step that made them wrote them
        if "facts_walk_" in statement:
            conn.execute(statement.replace("CREATE INDEX", "DROP INDEX").split(" ON ")[0])
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {mine}")
    conn.commit()
    assert [r[2] for r in conn.execute("PRAGMA index_info(facts_walk_in)")][:2] == ["object_id", "subject"]
    conn.close()
    with kgtoolkit.open(path) as kg:  # opening it migrates it
        assert kg.neighbors("e0", hops=3, limit=None) == want
        got = kg.paths("e0", "e3", limit=None)
        assert [walked(p) for p in got.paths] == model_paths(facts, "e0", "e3", 4, "both", None, {}, False)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        for index, first in (("facts_walk_out", "subject"), ("facts_walk_in", "object_id")):
            assert [r[2] for r in conn.execute(f"PRAGMA index_info({index})")][:2] == [first, "to_us"]
        plan = " ".join(
            str(r)
            for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT f.id, f.subject, f.from_us FROM facts f WHERE f.object_id IN ('e0', 'e1') AND "
                "f.to_us = 4611686018427387904 AND f.from_us <= 0"
            )
        )
        assert "COVERING INDEX facts_walk_in (object_id=? AND to_us=?)" in plan  # seeks the current facts
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


@pytest.mark.parametrize("collector_on", [True, False])
def test_walks_and_diff_leave_the_garbage_collector_as_they_found_it(kg: KnowledgeGraph, collector_on: bool) -> None:
    """The big reads pause Python's cyclic collector (store/engine/_gc.py) and put it back as it was: on, or off when the
    caller had turned it off; also when the call is refused."""
    import gc

    kg.add("billing", "owned_by", "payments")
    kg.add("payments", "reports_to", "Dana")
    was = gc.isenabled()
    try:
        (gc.enable if collector_on else gc.disable)()
        assert kg.neighbors("billing", hops=2).total == 2
        assert len(kg.paths("billing", "dana").paths) == 1
        assert kg.diff("2020", "2030").total == 0
        with pytest.raises(NotFound):
            kg.neighbors("nobody")
        with pytest.raises(IntervalOrder):
            kg.diff("2030", "2020")
        assert gc.isenabled() is collector_on
    finally:
        (gc.enable if was else gc.disable)()

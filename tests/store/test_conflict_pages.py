"""A page of conflicts reads only its groups (issue 32): the store judges every group in SQL (``needs_action``:
more than one current fact, or an overlapping planned switch), sorts and cuts the page there, and reads the facts
of the page's groups alone. Each page must equal the old answer, which read every group's facts and judged them in
Python: :func:`whole_read` keeps a copy of it as the model. Both engines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit import _validity as v
from kgtoolkit._errors import InvalidRequest
from kgtoolkit._names import not_by_subject
from kgtoolkit._records import ConflictAxis, ConflictGroup, Fact
from kgtoolkit._validity import Clock
from kgtoolkit.generate import add_generated
from kgtoolkit.store.engine._schema import FACT_FROM, FACT_READ
from kgtoolkit.store.ops._conflicts import _conflict_group
from kgtoolkit.store.reads import _queries as q


def whole_read(kg: KnowledgeGraph, entity: str | None, current_only: bool, needs_action: bool) -> list[ConflictGroup]:
    """The conflict groups as the store found them before issue 32: every group's facts read, judged in Python,
    sorted (needing action first, then subject or object key, predicate, subject groups before object groups); the
    groups by object of one-holder predicates too."""
    d = kg.engine.dialect
    with kg._read() as cur:
        config = q.read_config(cur)
        params: dict[str, Any] = {
            "mv": d.list_param(sorted(not_by_subject(config.multi_valued, config.one_holder, config.single_valued))),
            "oh": d.list_param(sorted(config.one_holder)),
            "e": None,
        }
        if entity is not None:
            params["e"] = q.resolve(cur, d, entity, field="entity")
        events = q.event_rule(cur)
        params.update(events.params(d))
        current = f" AND NOT {events.sql(d, 'facts')}"
        if current_only:
            params.update(Clock.real().params())
            current += f" AND {q.current_sql('facts')}"
        found: dict[tuple[int, str, str], list[Fact]] = {}
        for axis, anchor, other, keep in (
            (
                0,
                "subject",
                "object_key",
                f"predicate NOT IN {d.values('mv')} AND (CAST(:e AS TEXT) IS NULL OR subject = :e)",
            ),
            (
                1,
                "object_key",
                "subject",
                f"predicate IN {d.values('oh')} AND (CAST(:e AS TEXT) IS NULL OR object_id = :e)",
            ),
        ):
            rows = cur.execute(
                f"""WITH groups AS (
                        SELECT {anchor} AS anchor, predicate FROM facts WHERE {keep}{current}
                        GROUP BY {anchor}, predicate HAVING count(DISTINCT {other}) > 1)
                    SELECT {FACT_READ}, f.{anchor} FROM {FACT_FROM} JOIN groups g ON g.anchor = f.{anchor} AND g.predicate = f.predicate
                    WHERE TRUE{current.replace("facts.", "f.")}
                    ORDER BY f.{anchor}, f.predicate, f.valid_from IS NULL, f.from_us, f.id""",
                params,
            ).fetchall()
            for row in rows:
                fact = q.row_fact(row, events=events)
                found.setdefault((axis, row[-1], fact.predicate), []).append(fact)
    axes: tuple[ConflictAxis, ConflictAxis] = ("subject", "object")
    result = [_conflict_group(a, p, facts, by=axes[x]) for (x, a, p), facts in found.items()]
    if needs_action:
        result = [g for g in result if g.needs_action]
    result.sort(key=lambda g: (not g.needs_action, g.subject or g.facts[0].object_key, g.predicate, g.by != "subject"))
    return result


def history_order(fact: Fact) -> tuple[int, int, int]:
    """The order of a group's history: the last ended first (its end, then its start, then its id, descending)."""
    return (-v.key(fact.valid_to, end=True), -v.key(fact.valid_from), -fact.id)


def capped(group: ConflictGroup, history: int | None = 20, history_offset: int = 0) -> ConflictGroup:
    """The model of a bounded group (issue 43): the whole group's judgement and counts, its current and scheduled
    facts and the page of its history asked for (store order kept)."""
    ended = sorted((f for f in group.facts if f.state == "ended"), key=history_order)
    page = ended[history_offset:] if history is None else ended[history_offset : history_offset + history]
    keep = {f.id for f in page} | {f.id for f in group.facts if f.state != "ended"}
    return dataclasses.replace(
        group,
        facts=tuple(f for f in group.facts if f.id in keep),
        facts_total=len(group.facts),
        history_total=len(ended),
        history_offset=history_offset,
    )


def assert_histories_agree(kg: KnowledgeGraph, entity: str | None, want: list[ConflictGroup], **options: Any) -> None:
    """The whole groups (``history=None``) equal the model; smaller pages of history (none at all too) keep the
    judgement and the totals, and their pages in turn concatenate to each group's whole history."""
    assert kg.conflicts(entity, history=None, **options) == want
    assert kg.conflicts(entity, history=0, **options) == [capped(g, 0) for g in want]
    pieces: list[list[ConflictGroup]] = [
        kg.conflicts(entity, history=2, history_offset=k, **options) for k in (0, 2, 4)
    ]
    for k, got in zip((0, 2, 4), pieces, strict=True):
        assert got == [capped(g, 2, k) for g in want]
    for i, group in enumerate(want):
        joined = [f for piece in pieces for f in piece[i].facts if f.state == "ended"]
        whole = sorted((f for f in group.facts if f.state == "ended"), key=history_order)
        assert sorted(joined, key=history_order) == whole[:6]


def assert_pages_agree(
    kg: KnowledgeGraph, entities: list[str | None], sizes: tuple[int, ...], pages: int | None = None
) -> int:
    """Every page (each size, every offset up to one past the end; with ``pages``, about that many of them,
    the last ones included) of every filter equals the model's slice; :meth:`conflicts_needing_action` its count.
    Returns how many groups need action in all."""
    flagged = 0
    for entity, current_only, needs_action in itertools.product(entities, (False, True), (False, True)):
        whole = whole_read(kg, entity, current_only, needs_action)
        want = [capped(g) for g in whole]
        options = {"current_only": current_only, "needs_action": needs_action}
        assert kg.conflicts(entity, **options) == want
        assert_histories_agree(kg, entity, whole, **options)
        every = kg.conflicts(entity, **options)
        assert (list(every.items), every.total) == (want, len(want))
        for size in sizes:
            step = size if pages is None else max(size, len(want) // pages)
            for offset in sorted({*range(0, len(want) + 2, step), *range(max(0, len(want) - size), len(want) + 2)}):
                page = kg.conflicts(entity, limit=size, offset=offset, **options)
                assert list(page.items) == want[offset : offset + size], (entity, options, size, offset)
                assert page.total == len(want)
            assert kg.conflicts(entity, limit=size, offset=len(want) + 5, **options) == []
        needing = sum(g.needs_action for g in want)
        assert kg.conflicts_needing_action(entity, current_only=current_only) == needing
        if entity is None and not current_only:
            flagged = needing
    return flagged


def test_generated_graph_pages(kg: KnowledgeGraph) -> None:
    """A generated graph with conflicts, its later facts scheduled (it runs past today)."""
    today = dt.datetime.now(dt.UTC).date()
    add_generated(kg, 3000, seed=11, start=(today - dt.timedelta(days=700)).isoformat(), days=1400)
    kg.add("svc", "hosted_on", "aws", valid_from="2020-01-01", valid_to="2090-08-01")
    kg.add("svc", "hosted_on", "gcp", valid_from="2090-06-01")
    groups = kg.conflicts()
    assert len(groups) > 20 and any(g.planned_switch for g in groups)
    subjects = [groups[0].subject, groups[-1].subject, "svc"]
    flagged = assert_pages_agree(kg, [None, *subjects], (1, 7, 50), pages=12)
    assert 0 < flagged < len(groups)


def test_bad_pages_are_refused(kg: KnowledgeGraph) -> None:
    for bad in ({"limit": -1}, {"offset": -1}, {"limit": "3"}):
        with pytest.raises(InvalidRequest):
            kg.conflicts(**bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the switch-day edges

S_DAY = "2090-06-01"
#: Bounds around the switch day: date and datetime ends on it, the day before and after, today, open.
BOUNDS = [
    "2020-01-01",
    "2090-05-31",
    S_DAY,
    f"{S_DAY}T00:00:00Z",
    f"{S_DAY}T08:00:00Z",
    f"{S_DAY}T23:59:59Z",
    "2090-06-02",
    "2091",
    "TODAY",
    "TOMORROW",
    None,
]


def bound(text: str | None) -> str | None:
    today = dt.datetime.now(dt.UTC).date()
    if text == "TODAY":
        return today.isoformat()
    if text == "TOMORROW":
        return (today + dt.timedelta(days=1)).isoformat()
    return text


#: Starts: long ago, today, or on the switch day (a date or an instant) and after it; unknown.
STARTS = ["2020-01-01", "TODAY", S_DAY, f"{S_DAY}T08:00:00Z", "2091", None]
#: Each switch-day edge once, in its own group (s1 p: a date end on the day, no overlap; s1 q: a datetime end at
#: S's instant, none; s2 p: an instant later that day, an overlap; s2 q: the next day, one; s3 p: open, one).
EDGES = [
    ("s1", "p", "a", "2020-01-01", S_DAY),
    ("s1", "p", "b", S_DAY, None),
    ("s1", "q", "a", "2020-01-01", f"{S_DAY}T08:00:00Z"),
    ("s1", "q", "b", f"{S_DAY}T08:00:00Z", None),
    ("s2", "p", "a", "2020-01-01", f"{S_DAY}T08:00:00Z"),
    ("s2", "p", "b", S_DAY, None),
    ("s2", "q", "a", "2020-01-01", "2090-06-02"),
    ("s2", "q", "b", S_DAY, None),
    ("s3", "p", "a", "2020-01-01", None),
    ("s3", "p", "b", f"{S_DAY}T00:00:00Z", None),
]

facts = st.lists(
    st.tuples(
        st.sampled_from(["s1", "s2", "s3"]),
        st.sampled_from(["p", "q"]),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(STARTS),
        st.sampled_from(BOUNDS),
    ),
    min_size=2,
    max_size=14,
)


@pytest.fixture
def fresh(new_db: Callable[[str], Path | str]) -> Callable[[], KnowledgeGraph]:
    names = itertools.count()
    return lambda: kgtoolkit.open(new_db(f"pages{next(names)}"))


def test_switch_day_edges(backend: str, fresh: Callable[[], KnowledgeGraph]) -> None:
    """Hypothesis graphs around a planned switch on 2090-06-01: other facts ending on that day by date or at an
    instant, before or after it, open-ended, scheduled themselves, or events (start = end)."""

    @settings(
        max_examples=120 if backend == "sqlite" else 30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(facts, st.booleans(), st.sampled_from(["", "one_holder", "both"]))
    @example(EDGES, False, "")
    @example(EDGES, True, "")
    @example(EDGES, False, "both")
    def check(rows: list[tuple[str, str, str, str | None, str | None]], events_of_q: bool, holder: str) -> None:
        with fresh() as kg:
            if events_of_q:
                kg.configure(event_predicates={"q"})
            if holder:  # p: one holder per object (grouped by object), and single-valued too (by subject as well)
                kg.configure(one_holder={"p"}, single_valued={"p"} if holder == "both" else set())
            for s, p, o, start, end in rows:
                try:
                    kg.add(s, p, o, valid_from=bound(start), valid_to=bound(end))
                except InvalidRequest:
                    pass  # an end before its start
            groups = kg.conflicts()
            # one entity of a group, when there is one: a subject, and the object of a one-holder group
            entities = (
                sorted({g.subject for g in groups if g.subject})[:1]
                + sorted({g.object for g in groups if g.object})[:1]
            )
            assert_pages_agree(kg, [None, *entities], (1, 2))

    check()


# ---------------------------------------------------------------------- bounded groups (issue 43)


def long_history(kg: KnowledgeGraph, ended: int = 45) -> None:
    """svc owned_by: ``ended`` closed terms (three owners in turn, a few with unknown starts), two current owners
    and a planned switch that overlaps; svc hosted_on: a short history of two objects."""
    day = dt.date(2001, 1, 1)
    for i in range(ended):
        start = None if i % 11 == 0 else (day + dt.timedelta(days=10 * i)).isoformat()
        kg.add(
            "svc",
            "owned_by",
            f"team {i % 3}",
            valid_from=start,
            valid_to=(day + dt.timedelta(days=10 * i + 5)).isoformat(),
        )
    kg.add("svc", "owned_by", "team a", valid_from="2020-01-01")
    kg.add("svc", "owned_by", "team b", valid_from="2021-01-01")
    kg.add("svc", "owned_by", "team c", valid_from="2095-01-01")
    kg.add("svc", "hosted_on", "aws", valid_from="2019-01-01", valid_to="2020-01-01")
    kg.add("svc", "hosted_on", "gcp", valid_from="2020-01-01")


def test_a_long_history_is_carried_a_page_at_a_time(kg: KnowledgeGraph) -> None:
    """A group carries its current and scheduled facts and at most ``history`` ended ones (the last ended), with
    the whole group's counts and judgement; its history's pages in turn concatenate to the whole."""
    long_history(kg)
    whole = {g.predicate: g for g in kg.conflicts(history=None)}
    assert len(whole["owned_by"].facts) == 48 and whole["owned_by"].history_more == 0
    groups = {g.predicate: g for g in kg.conflicts()}
    owned = groups["owned_by"]
    assert (owned.current, owned.scheduled, owned.history_shown) == (2, 1, 20)
    assert (owned.facts_total, owned.history_total, owned.history_more, owned.objects) == (48, 45, 25, 6)
    assert owned == capped(whole["owned_by"])  # its judgement (planned switch, suggestion) is the whole group's
    assert owned.needs_action and owned.planned_switch == "2095-01-01" and owned.suggestion is None
    assert groups["hosted_on"] == whole["hosted_on"]  # a short history is whole
    assert owned.to_dict()["history_more"] == 25
    history = sorted((f for f in whole["owned_by"].facts if f.state == "ended"), key=history_order)
    assert {f.id for f in owned.facts if f.state == "ended"} == {f.id for f in history[:20]}
    pages = []
    for skip in range(0, 50, 7):
        (group,) = kg.conflicts("svc", predicates="owned_by", history=7, history_offset=skip)
        assert group.history_more == max(0, 45 - skip - 7) and group.current == 2
        pages.append(sorted((f for f in group.facts if f.state == "ended"), key=history_order))
    assert [f for page in pages for f in page] == history
    only = kg.conflicts("svc", predicates=["hosted_on"], history=0)
    assert [(g.predicate, g.history_shown, g.history_more) for g in only.items] == [("hosted_on", 0, 1)]
    assert kg.conflicts_needing_action("svc", predicates="hosted_on") == 0


def test_a_one_holder_group_is_bounded_by_object(kg: KnowledgeGraph) -> None:
    """A one-holder predicate's group (by object) carries a page of its own history, cut per object and predicate,
    with the whole group's counts (its holders) and judgement: the mayor's 40 past terms, two current holders and a
    planned handover; a clerk's two ended holders alone (its object named with no fact carried); a value spelt two
    ways (one group, named as its first fact spells it). Single-valued too: person 0's group by subject shares facts
    with the mayor's and the clerk's groups by object, each cut by its own order."""
    kg.configure(one_holder={"holds_office", "email"}, single_valued={"holds_office"})
    day = dt.date(2001, 1, 1)
    for i in range(40):
        start = day + dt.timedelta(days=10 * i)
        kg.add(
            f"person {i % 5}",
            "holds_office",
            "Mayor",
            valid_from=start.isoformat(),
            valid_to=str(start + dt.timedelta(days=5)),
        )
    kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01")
    kg.add("Ben", "holds_office", "Mayor", valid_from="2021-01-01")
    kg.add("Cy", "holds_office", "Mayor", valid_from="2095-01-01")
    kg.add("person 0", "holds_office", "Clerk", valid_from="1990-01-01", valid_to="1995-01-01")
    kg.add("Dee", "holds_office", "Clerk", valid_from="1996-01-01", valid_to="1999-01-01")
    kg.add("Ann", "email", "Ann@X.org", valid_from="2019-01-01", valid_to="2020-01-01")
    kg.add("Eve", "email", "ann@x.org", valid_from="2020-01-01")
    whole = kg.conflicts(history=None)
    assert whole == whole_read(kg, None, False, False)
    mayor = next(g for g in whole if g.object == "mayor")
    assert (mayor.by, mayor.subject, mayor.object_name, mayor.subjects, mayor.objects) == (
        "object",
        None,
        "Mayor",
        8,
        1,
    )
    assert (mayor.facts_total, mayor.history_total, mayor.current, mayor.scheduled) == (43, 40, 2, 1)
    assert mayor.needs_action and mayor.planned_switch == "2095-01-01"
    groups = kg.conflicts()
    assert groups == [capped(g) for g in whole]
    got = next(g for g in groups if g.object == "mayor")
    assert (got.history_shown, got.history_more, got.subjects, got.facts_total) == (20, 20, 8, 43)
    history = sorted((f for f in mayor.facts if f.state == "ended"), key=history_order)
    pages = []
    for skip in range(0, 45, 9):  # its history page by page: the entity names the object
        (group,) = kg.conflicts("Mayor", predicates="holds_office", history=9, history_offset=skip)
        assert group.by == "object" and group.history_more == max(0, 40 - skip - 9) and group.current == 2
        pages.append(sorted((f for f in group.facts if f.state == "ended"), key=history_order))
    assert [f for page in pages for f in page] == history
    (clerk,) = kg.conflicts("Clerk", history=0)
    assert (clerk.object_name, clerk.facts, clerk.subjects, clerk.history_more) == ("Clerk", (), 2, 2)
    (email,) = kg.conflicts(predicates="email", history=0)
    assert (email.object, email.object_name, [f.object for f in email.facts]) == (
        "Ann@X.org",
        "Ann@X.org",
        ["ann@x.org"],
    )
    person = next(g for g in whole if g.subject == "person_0")
    assert (person.objects, person.history_total) == (2, 9)
    for size in (0, 1, 2):
        assert kg.conflicts(history=size) == [capped(g, size) for g in whole]
    assert_pages_agree(kg, [None, "Mayor", "person 0", "Clerk"], (1, 3))
    answer = kgtoolkit.run_tool({"action": "conflicts", "name": "Mayor", "history": 5}, kg=kg)["result"]
    (held,) = answer["groups"]
    assert (held["by"], held["subjects"], held["history_total"], held["history_more"]) == ("object", 8, 40, 35)


def test_history_is_checked(kg: KnowledgeGraph) -> None:
    long_history(kg, 3)
    for bad in ({"history": -1}, {"history": True}, {"history_offset": -2}, {"history": "3"}):
        with pytest.raises(InvalidRequest) as caught:
            kg.conflicts(**bad)  # type: ignore[arg-type]
        assert caught.value.data["field"] in ("history", "history_offset")
    with pytest.raises(kgtoolkit.KGError) as missing:
        kg.conflicts(predicates="owned_bye")
    assert missing.value.code == "not_found"


def test_the_tool_answers_bounded_groups(kg: KnowledgeGraph) -> None:
    """The agent tool (and so the MCP server, the same code) carries at most ``history`` ended facts per group,
    20 unless told, at most 1,000."""
    long_history(kg, 60)
    answer = kgtoolkit.run_tool({"action": "conflicts"}, kg=kg)
    assert answer["ok"], answer
    owned = next(g for g in answer["result"]["groups"] if g["predicate"] == "owned_by")
    assert len(owned["facts"]) == 2 + 1 + 20
    assert (owned["facts_total"], owned["history_total"], owned["history_more"]) == (63, 60, 40)
    paged = kgtoolkit.run_tool(
        {"action": "conflicts", "name": "svc", "predicates": ["owned_by"], "history": 25, "history_offset": 50}, kg=kg
    )["result"]
    (group,) = paged["groups"]
    assert (len(group["facts"]), group["history_offset"], group["history_more"]) == (13, 50, 0)
    for bad in ({"history": 1001}, {"history": -1}, {"history_offset": "x"}):
        refused = kgtoolkit.run_tool({"action": "conflicts", **bad}, kg=kg)
        assert not refused["ok"] and refused["error"]["code"] == "invalid_request", refused


def test_not_current_lists_a_bounded_history(kg: KnowledgeGraph) -> None:
    """Ending a fact that is not current answers its last 20 ended facts (store order) and how many in all, not
    every one (the error goes through every door, the tool's JSON too)."""
    day = dt.date(2001, 1, 1)
    for i in range(30):
        start = day + dt.timedelta(days=10 * i)
        kg.add("svc", "owned_by", "team a", valid_from=start.isoformat(), valid_to=str(start + dt.timedelta(days=5)))
    with pytest.raises(kgtoolkit.KGError) as err:
        kg.invalidate("svc", "owned_by", "team a")
    assert err.value.code == "not_current" and err.value.data["history_total"] == 30
    listed = [h["valid_from"] for h in err.value.data["history"]]
    assert listed == [(day + dt.timedelta(days=10 * i)).isoformat() for i in range(10, 30)]
    assert "(and 10 earlier)" in err.value.message
    answer = kgtoolkit.run_tool(
        {"action": "invalidate", "subject": "svc", "predicate": "owned_by", "object": "team a"}, kg=kg
    )
    assert answer["error"]["history_total"] == 30 and len(answer["error"]["history"]) == 20

"""Current means valid now (contract §4), on every door and both engines.

The rule lives once in ``kgtoolkit._validity`` and runs as Python (``Fact.state``), as SQL (the store) and as
polars (frames, analysis). Here an independent model, written on plain ``datetime``/``date`` values and never
on keys, judges intervals that start and end before, on and after today; every twin must agree with it.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit._records import fact_state
from kgtoolkit._validity import NOW, NOW_DAY_LAST, Clock, Sql, current, key, state_expr

UTC = dt.UTC
Bound = dt.date | dt.datetime | None


# ---------------------------------------------------------------------- the model


def model(start: Bound, end: Bound, now: dt.datetime) -> str:
    """The state of a state fact at ``now``, as a person reads the contract: started when its start (a day
    begins at midnight) is not after now; ended on its end's day (a date) or at its instant (a datetime)."""
    if start is not None:
        begins = start if isinstance(start, dt.datetime) else dt.datetime.combine(start, dt.time(), UTC)
        if begins > now:
            return "scheduled"
    if end is None:
        return "current"
    if isinstance(end, dt.datetime):
        return "current" if now < end else "ended"
    return "current" if now.date() < end else "ended"


def text(bound: Bound) -> str | None:
    if bound is None:
        return None
    if isinstance(bound, dt.datetime):
        return bound.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return bound.isoformat()


def as_key(bound: Bound, *, end: bool) -> int:
    return key(text(bound), end=end)


def bounds_near(now: dt.datetime) -> st.SearchStrategy[Bound]:
    """None, a date a few days around ``now``'s day, or an instant a few hours around ``now`` (whole seconds)."""
    days = st.integers(-3, 3).map(lambda n: now.date() + dt.timedelta(days=n))
    instants = st.integers(-6 * 3600, 6 * 3600).map(lambda s: (now + dt.timedelta(seconds=s)).replace(microsecond=0))
    return st.one_of(st.none(), days, instants)


NOW_FIXED = dt.datetime(2026, 6, 15, 9, 30, tzinfo=UTC)


def _ordered(pair: tuple[Bound, Bound]) -> bool:
    start, end = pair
    return start is None or end is None or as_key(start, end=False) <= as_key(end, end=True)


@settings(max_examples=400, deadline=None)
@given(st.tuples(bounds_near(NOW_FIXED), bounds_near(NOW_FIXED)).filter(_ordered))
def test_python_sql_and_polars_agree_with_the_model(pair: tuple[Bound, Bound]) -> None:
    start, end = pair
    want = model(start, end, NOW_FIXED)
    clock = Clock.at(as_key(NOW_FIXED, end=False))
    s, e = as_key(start, end=False), as_key(end, end=True)
    assert fact_state(text(start), text(end), now=clock.now) == want
    frame = pl.DataFrame({"s": [s], "e": [e]})
    got = frame.select(state_expr(pl.col("s"), pl.col("e"), pl.lit(False), clock)).item()
    assert got == want
    rendered = current(Sql("s"), Sql("e"), NOW, NOW_DAY_LAST).text
    with sqlite3.connect(":memory:") as conn:
        found = conn.execute(f"SELECT {rendered} FROM (SELECT :s AS s, :e AS e)", {"s": s, "e": e, **clock.params()})
        assert bool(found.fetchone()[0]) is (want == "current")


def test_the_switch_day_belongs_to_the_new_fact() -> None:
    """An interval ending on D and one starting on D are never two current facts, at any instant of D."""
    day = dt.date(2031, 1, 3)
    for hour in (0, 12, 23):
        now = Clock.at(as_key(dt.datetime.combine(day, dt.time(hour), UTC), end=False)).now
        assert (fact_state("2025-01-03", "2031-01-03", now=now), fact_state("2031-01-03", "2037-01-03", now=now)) == (
            "ended",
            "current",
        )
    eve = as_key(dt.datetime(2031, 1, 2, 23, 59, 59, tzinfo=UTC), end=False)
    assert (fact_state("2025-01-03", "2031-01-03", now=eve), fact_state("2031-01-03", None, now=eve)) == (
        "current",
        "scheduled",
    )


# ---------------------------------------------------------------------- every door, both engines


def _cases(now: dt.datetime) -> list[tuple[Bound, Bound]]:
    today = now.date()
    starts: list[Bound] = [
        None,
        today - dt.timedelta(days=400),
        today - dt.timedelta(days=1),
        today,
        today + dt.timedelta(days=1),
        today + dt.timedelta(days=400),
        now - dt.timedelta(hours=1),
        now + dt.timedelta(hours=1),
    ]
    ends: list[Bound] = [
        None,
        today - dt.timedelta(days=1),
        today,
        today + dt.timedelta(days=1),
        today + dt.timedelta(days=800),
        now - dt.timedelta(minutes=30),
        now + dt.timedelta(minutes=30),
    ]
    pairs = [(s, e) for s in starts for e in ends]
    return [
        (s, e if not isinstance(e, dt.datetime) else e.replace(microsecond=0))
        for s, e in pairs
        if _ordered((s if not isinstance(s, dt.datetime) else s.replace(microsecond=0), e)) and text(s) != text(e)
    ]  # equal bounds make an event (contract §12), judged below


def _fill(kg: KnowledgeGraph, now: dt.datetime) -> dict[str, str]:
    """One fact per interval (its own subject, all on one predicate); subject → the model's state."""
    want = {}
    for i, (start, end) in enumerate(_cases(now)):
        if isinstance(start, dt.datetime):
            start = start.replace(microsecond=0)
        subject = f"case{i:03}"
        kg.add(subject, "holds", "seat", valid_from=text(start), valid_to=text(end))
        want[subject] = model(start, end, now)
    return want


def test_every_door_agrees_with_the_model(kg: KnowledgeGraph) -> None:
    now = dt.datetime.now(UTC)
    want = _fill(kg, now)
    counts = Counter(want.values())
    assert counts["current"] and counts["scheduled"] and counts["ended"]  # the cases cover every state
    current_now = {s for s, state in want.items() if state == "current"}
    # Records, and their wire form.
    got = {f.subject: f.state for f in kg.by_predicate("holds")}
    assert got == want
    assert {f.subject for f in kg.by_predicate("holds") if f.to_dict()["current"]} == current_now
    # current_only on query, search, and the entity walk.
    assert {f.subject for f in kg.by_predicate("holds", current_only=True)} == current_now
    assert {f.subject for f in kg.query("seat", current_only=True)} == current_now
    assert {f.subject for f in kg.neighbors("seat").facts} == current_now
    # stats and the predicates list count the same.
    stats = kg.stats()
    assert (stats.current, stats.scheduled, stats.ended) == (counts["current"], counts["scheduled"], counts["ended"])
    assert {p.id: p.current for p in kg.predicates()}["holds"] == counts["current"]
    # Frames (polars) and the analysis defaults of a frame without state columns.
    frame = frames.facts(kg)
    assert dict(frame.select("subject", "state").iter_rows()) == want
    assert set(frame.filter(pl.col("current"))["subject"]) == current_now
    assert set(frames.facts(kg, current_only=True)["subject"]) == current_now
    bare = frame.drop("current", "state")
    rebuilt = analysis.gantt(bare.filter(pl.col("start").is_not_null()), now=now)
    assert {r["subject"]: r["state"] for r in rebuilt.to_dicts()} == {
        s: state for s, state in want.items() if frame.filter(pl.col("subject") == s)["start"][0] is not None
    }
    # The summary's fact lines name only current facts (up to its per-entity cap), scheduled ones only on the
    # Planned line, ended ones nowhere.
    lines = kg.summary(limit=1).splitlines()
    listed = {line.split("`")[1] for line in lines if line.startswith("- `case")}
    planned = " ".join(line for line in lines if line.startswith("- Planned:"))
    assert listed and listed <= current_now and len(listed) == min(len(current_now), 12)
    assert all(s not in " ".join(lines) for s, state in want.items() if state == "ended")
    assert all(s in planned for s, state in want.items() if state == "scheduled") or "… and" in " ".join(lines)


def test_the_rendered_rule_runs_on_the_engine(kg: KnowledgeGraph, db_path: Path | str, sql: Any) -> None:
    """The SQL text of the rule, evaluated by the test's engine itself over the stored keys."""
    now = dt.datetime.now(UTC)
    want = _fill(kg, now)
    clock = Clock.real()
    rendered = current(Sql("f.from_us"), Sql("f.to_us"), NOW, NOW_DAY_LAST).text
    rendered = rendered.replace(":now_day_last", str(clock.day_last)).replace(":now", str(clock.now))
    rows = sql(db_path, f"SELECT s.id FROM facts f JOIN entities s ON s.id = f.subject WHERE {rendered}")
    assert {r[0] for r in rows} == {s for s, state in want.items() if state == "current"}


def test_a_supersede_at_a_future_date_keeps_the_old_fact_current(kg: KnowledgeGraph) -> None:
    kg.add("billing", "uses_database", "Postgres", valid_from="2020-01-01")
    switch = kg.supersede("billing", "uses_database", "Postgres", "CockroachDB", at="2090-06-01")
    assert (switch.old.state, switch.new.state) == ("current", "scheduled")
    assert [f.object_name for f in kg.query("billing", current_only=True)] == ["Postgres"]
    (group,) = kg.conflicts()
    assert (group.current, group.scheduled, group.planned_switch) == (1, 1, "2090-06-01")
    assert not group.switch_overlaps and not group.needs_action  # a switch planned right
    assert kg.conflicts_needing_action() == 0
    summary = kg.summary()
    assert "uses_database → `Postgres` (since 2020-01-01, until 2090-06-01)" in summary
    assert "Planned: uses_database → `CockroachDB` from 2090-06-01" in summary
    stats = kg.stats()
    assert (stats.current, stats.scheduled, stats.ended) == (1, 1, 0)


def test_two_facts_valid_now_need_action_not_two_without_an_end(kg: KnowledgeGraph) -> None:
    # Two bounded facts valid now: a real contradiction, though neither is open-ended.
    kg.add("lease", "tenant", "ann", valid_from="2020-01-01", valid_to="2090-01-01")
    kg.add("lease", "tenant", "bob", valid_from="2021-01-01", valid_to="2089-01-01")
    # Back-to-back terms on today's date: one current fact, no action.
    today = dt.datetime.now(UTC).date().isoformat()
    kg.add("seat", "held_by", "cat", valid_from="2020-01-01", valid_to=today)
    kg.add("seat", "held_by", "dan", valid_from=today, valid_to="2090-01-01")
    groups = {g.subject: g for g in kg.conflicts()}
    assert (groups["lease"].current, groups["lease"].needs_action) == (2, True)
    assert (groups["seat"].current, groups["seat"].needs_action) == (1, False)
    assert kg.conflicts_needing_action() == 1
    assert [g.subject for g in kg.conflicts(current_only=True)] == ["lease"]
    assert [f.object_name for f in kg.query("seat", current_only=True)] == ["dan"]
    frame_groups = analysis.conflicts(frames.facts(kg), multi_valued=kg.config.multi_valued)
    assert {r["subject"]: (r["current"], r["needs_action"]) for r in frame_groups.to_dicts()} == {
        "lease": (2, True),
        "seat": (1, False),
    }
    codes = [f.code for f in kg.check().items]
    assert codes.count("single_valued_overlap") == 0  # tenant/held_by are not declared single-valued


def test_invalidate_today_ends_it_and_a_planned_end_is_said(kg: KnowledgeGraph) -> None:
    kg.add("svc", "runs_on", "k8s", valid_from="2020-01-01")
    ended = kg.invalidate("svc", "runs_on", "k8s")
    assert ended.state == "ended" and kg.query("svc", current_only=True) == []
    kg.add("svc", "licensed_to", "acme", valid_from="2020-01-01", valid_to="2090-01-01")
    with pytest.raises(kgtoolkit.NotCurrent, match="already ends on 2090-01-01 \\(it is current until then\\)"):
        kg.invalidate("svc", "licensed_to", "acme")
    assert kg.query("svc", current_only=True)[0].valid_to == "2090-01-01"  # nothing changed


def test_events_are_never_current(kg: KnowledgeGraph) -> None:
    today = dt.datetime.now(UTC).date().isoformat()
    event = kg.add("china", "criticize", "japan", valid_from=today, valid_to=today).fact
    assert event.kind == "event" and event.state == "occurred"
    assert kg.stats().current == 0 and kg.query("china", current_only=True) == []


# ---------------------------------------------------------------------- real data: terms of office

TERMS = Path(__file__).resolve().parents[1] / "data" / "us_congress_terms.tsv"


def _terms_model(now: dt.datetime) -> tuple[int, set[tuple[str, str, str]], int]:
    """From the file alone: how many terms are current now, which seats, and how many (member, predicate)
    pairs hold two different current objects."""
    current_rows = []
    for line in TERMS.read_text(encoding="utf-8").splitlines()[1:]:
        subject, predicate, obj, start, end = line.split("\t")
        if model(dt.date.fromisoformat(start), dt.date.fromisoformat(end), now) == "current":
            current_rows.append((subject, predicate, obj))
    per_pair = Counter((s, p) for s, p, _ in set(current_rows))
    return len(current_rows), set(current_rows), sum(1 for n in per_pair.values() if n > 1)


def test_terms_of_office_with_scheduled_ends(kg: KnowledgeGraph) -> None:
    """Every sitting member of the US Congress (public domain data): a Senate seat 2025-01-03 → 2031-01-03 is
    current today, and back-to-back terms (one ends on the day the next begins) are never two current facts."""
    from kgtoolkit import io

    now = dt.datetime.now(UTC)
    count, seats, contradictions = _terms_model(now)
    report = io.import_file(kg, TERMS, allow_commas=True)  # 'Sanford D. Bishop, Jr.' is one name
    assert (report.rows, report.rejected) == (len(TERMS.read_text(encoding="utf-8").splitlines()) - 1, 0)
    assert kg.stats().current == count
    assert contradictions == 0 and kg.conflicts_needing_action() == 0
    senators = {(f.subject_name, f.object_name) for f in kg.by_predicate("senator_from", current_only=True)}
    assert senators == {(s, o) for s, p, o in seats if p == "senator_from"}
    if now.date() < dt.date(2031, 1, 3):  # the class of 2024 sits until then
        assert ("Adam B. Schiff", "CA") in senators
        facts = kg.query("Adam B. Schiff", current_only=True, predicates="senator_from")
        assert [(f.valid_from, f.valid_to, f.state) for f in facts] == [("2025-01-03", "2031-01-03", "current")]


def test_the_cli_counts_sitting_members(db_path: Path | str) -> None:
    import json

    from typer.testing import CliRunner

    from kgtoolkit.cli import app

    count, _, _ = _terms_model(dt.datetime.now(UTC))
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db_path), "import", str(TERMS), "--allow-commas"]).exit_code == 0
    stats = runner.invoke(app, ["--db", str(db_path), "stats", "--json"])
    assert stats.exit_code == 0 and json.loads(stats.stdout)["current"] == count

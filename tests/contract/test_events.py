"""Events beside states (contract §12): the rule, the states, and what every operation does with events.

A fact is an event when its predicate is declared an event predicate, or its whole graph an event graph, or
its ``valid_from`` equals its ``valid_to``. The rule is checked on both backends, against a plain-Python
model (hypothesis), and on ICEWS14 (skipped when the shared data folder is absent).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_graphs import RealGraph
from shared_data import DATA
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit.cli import app
from kgtoolkit.dashboard import graphview
from kgtoolkit.report import churn_report
from kgtoolkit.search._notes import _fact_note
from kgtoolkit.store.reads import _search as store_search

ICEWS14 = DATA / "icews14" / "facts.tsv"


def _kinds(kg: KnowledgeGraph, name: str) -> dict[str, tuple[str, str]]:
    """object → (kind, state) of ``name``'s outgoing facts."""
    return {f.object: (f.kind, f.state) for f in kg.query(name, direction="outgoing")}


# ---------------------------------------------------------------------- the rule and the states


def test_a_fact_of_one_day_or_instant_is_an_event(kg: KnowledgeGraph) -> None:
    kg.add("police", "arrest", "protesters", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("police", "arrest", "journalists", valid_from="2014-01-02T10:00:00Z", valid_to="2014-01-02T10:00:00Z")
    kg.add("police", "arrest", "students", valid_from="2014-01-02", valid_to="2014-01-03")  # two days: a state
    kg.add("police", "arrest", "crowd", valid_from="2014-01-02")  # open-ended: a state
    kg.add("police", "arrest", "rioters", valid_from="2090-05-01", valid_to="2090-05-01")  # an event to come
    assert _kinds(kg, "police") == {
        "protesters": ("event", "occurred"),
        "journalists": ("event", "occurred"),
        "students": ("state", "ended"),
        "crowd": ("state", "current"),
        "rioters": ("event", "scheduled"),
    }
    record = kg.query("police", other="protesters")[0].to_dict()
    assert (record["kind"], record["state"], record["current"]) == ("event", "occurred", False)
    assert kg.fact(record["id"]).kind == "event"  # every read says it


# (valid_from, valid_to, is it an event?) at every precision a bound is stored with: the engine tests the keys
# first (less than a day apart) and the texts after, so spans shorter than a day with other texts stay states.
_PRECISIONS = [
    ("2014", "2014", False),  # a year: stored as 2014-01-01 … 2014-12-31
    ("2014-01", "2014-01", False),  # a month
    ("2014-01-02", "2014-01-02", True),
    ("2014-01-02T00:00:00Z", "2014-01-02T00:00:00Z", True),
    ("2014-01-02T10:00:00+02:00", "2014-01-02T08:00:00Z", True),  # the same instant, stored in UTC
    ("2014-01-02", "2014-01-02T00:00:00Z", False),  # keys equal, texts not
    ("2014-01-02T00:00:00Z", "2014-01-02T23:59:59.999999Z", False),  # a day less a microsecond
    ("2014-01-02T00:00:00Z", "2014-01-02", False),
    ("2014-01-02", "2014-01-03", False),
    (None, "2014-01-02", False),
    ("2014-01-02", None, False),
]


def test_the_engine_applies_the_rule_at_every_precision(kg: KnowledgeGraph) -> None:
    for n, (start, end, _) in enumerate(_PRECISIONS):
        kg.add("clock", "ticks", f"t{n}", valid_from=start, valid_to=end)
    want = {f"t{n}": event for n, (_, _, event) in enumerate(_PRECISIONS)}
    assert {o: kind == "event" for o, (kind, _) in _kinds(kg, "clock").items()} == want  # the records (Python)
    assert kg.stats().events == sum(want.values())  # the engine's scan
    in_engine = analysis.events(kg, every="1y")
    assert in_engine.equals(analysis.events(frames.facts(kg), every="1y"))
    assert int(in_engine["events"].sum()) == sum(want.values())


def test_declared_event_predicates_and_event_graphs(kg: KnowledgeGraph) -> None:
    kg.add("rebels", "attacked", "convoy", valid_from="2014-03-01")
    kg.add("rebels", "controls", "town", valid_from="2014-01-01", valid_to="2014-06-30")
    assert _kinds(kg, "rebels") == {"convoy": ("state", "current"), "town": ("state", "ended")}
    config = kg.configure(event_predicates={"Attacked"})  # normalised as every predicate setting
    assert config.event_predicates == {"attacked"} and not config.events
    assert _kinds(kg, "rebels") == {"convoy": ("event", "occurred"), "town": ("state", "ended")}  # stored facts too
    assert kg.configure(events=True).events
    assert _kinds(kg, "rebels") == {"convoy": ("event", "occurred"), "town": ("event", "occurred")}
    kg.configure(events=False, event_predicates=[])
    assert _kinds(kg, "rebels") == {"convoy": ("state", "current"), "town": ("state", "ended")}


def test_bad_event_settings_change_nothing(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"attacked"})
    with pytest.raises(kgtoolkit.InvalidRequest, match="events must be true or false"):
        kg.configure(events="yes", event_predicates={"met"})  # type: ignore[arg-type]
    with pytest.raises(kgtoolkit.InvalidRequest):
        kg.configure(event_predicates="attacked")  # one string, not a list
    assert (kg.config.events, kg.config.event_predicates) == (False, {"attacked"})


def test_the_declaration_follows_a_predicate_alias_and_a_rename(kg: KnowledgeGraph) -> None:
    kg.alias_predicate("hit", "attacked")
    assert kg.configure(event_predicates={"hit"}).event_predicates == {"attacked"}  # an alias names its predicate
    kg.add("a", "struck", "b", valid_from="2014-01-01")
    kg.configure(event_predicates={"attacked", "struck"})
    kg.rename_predicate("struck", "bombed")
    assert kg.config.event_predicates == {"attacked", "bombed"}
    assert kg.query("a")[0].kind == "event"


# ---------------------------------------------------------------------- counts and current


def test_stats_count_events_apart(kg: KnowledgeGraph) -> None:
    kg.add("a", "met", "b", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("a", "met", "c", valid_from="2090-01-02", valid_to="2090-01-02")
    kg.add("a", "works_at", "x", valid_from="2014-01-01")
    kg.add("a", "works_at", "y", valid_from="2010-01-01", valid_to="2013-12-31")
    kg.add("a", "works_at", "z", valid_from="2090-01-01")
    stats = kg.stats()
    assert (stats.facts, stats.current, stats.scheduled, stats.ended, stats.events) == (5, 1, 1, 1, 2)
    kg.configure(events=True)
    stats = kg.stats()
    assert (stats.facts, stats.current, stats.scheduled, stats.ended, stats.events) == (5, 0, 0, 0, 5)


def test_an_event_is_never_current(kg: KnowledgeGraph) -> None:
    kg.add("rebels", "attacked", "convoy", valid_from="2014-03-01")  # open-ended
    kg.add("rebels", "controls", "town", valid_from="2014-01-01")
    kg.configure(event_predicates={"attacked"})
    assert [f.object for f in kg.query("rebels", current_only=True)] == ["town"]
    assert [f.object for f in kg.query("rebels", current_only=True)] == ["town"]
    assert [f.object for f in kg.by_predicate("attacked", current_only=True)] == []
    assert [f.object for f in kg.by_predicate("attacked")] == ["convoy"]
    assert [(e.id, n) for e, n in kg.top_entities()] == [("rebels", 1), ("town", 1)]
    assert frames.facts(kg, current_only=True)["object"].to_list() == ["town"]
    assert [f.object for f in kg.query("rebels", as_of="2014-03-01")] == ["town", "convoy"]  # as_of keeps it
    assert "convoy" not in kg.summary()
    assert {p.id: (p.facts, p.current) for p in kg.predicates()} == {"attacked": (1, 0), "controls": (1, 1)}


def test_the_summary_of_an_event_graph_says_what_it_holds(kg: KnowledgeGraph) -> None:
    kg.add("a", "met", "b", valid_from="2014-01-02", valid_to="2014-01-02")
    assert "no current facts" in kg.summary() and "1 events" in kg.summary()


# ---------------------------------------------------------------------- never conflicts


def test_events_are_never_conflicts(kg: KnowledgeGraph) -> None:
    for day, obj in (("2014-01-02", "china"), ("2014-01-03", "russia"), ("2014-01-04", "iran")):
        kg.add("obama", "criticize", obj, valid_from=day, valid_to=day)
    kg.add("rebels", "attacked", "convoy", valid_from="2014-03-01")
    kg.add("rebels", "attacked", "village", valid_from="2014-03-02")
    kg.add("svc", "owned_by", "team_a", valid_from="2026-01-01")
    kg.add("svc", "owned_by", "team_b", valid_from="2026-02-01")
    assert {g.subject for g in kg.conflicts()} == {"rebels", "svc"}  # two open facts of 'attacked': states yet
    kg.configure(event_predicates={"attacked"}, single_valued={"criticize", "attacked"})
    assert [(g.subject, g.needs_action) for g in kg.conflicts()] == [("svc", True)]
    assert kg.conflicts().total == 1 and kg.conflicts_needing_action() == 1
    assert analysis.conflicts(frames.facts(kg))["subject"].to_list() == ["svc"]
    assert [f.code for f in kg.check(codes=["single_valued_overlap", "scheduled_overlap"])] == []
    kg.configure(events=True)
    assert kg.conflicts() == [] and analysis.conflicts(frames.facts(kg)).height == 0


# ---------------------------------------------------------------------- diff


def test_diff_reports_events_as_occurred(kg: KnowledgeGraph) -> None:
    kg.add("obama", "criticize", "china", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("obama", "criticize", "russia", valid_from="2014-01-03", valid_to="2014-01-03")
    kg.add("obama", "criticize", "iran", valid_from="2014-02-03", valid_to="2014-02-03")
    kg.add("api", "uses", "redis", valid_from="2014-01-01")
    kg.supersede("api", "uses", "redis", "sqlite", at="2014-01-20")
    d = kg.diff("2014-01", "2014-01")
    assert [(c.kind, c.at, c.new.object if c.new else None) for c in d.changes] == [
        ("began", "2014-01-01", "redis"),
        ("occurred", "2014-01-02", "china"),
        ("occurred", "2014-01-03", "russia"),
        ("replaced", "2014-01-20", "sqlite"),
    ]
    assert (d.began, d.ended, d.replaced, d.occurred, d.total) == (1, 0, 1, 2, 4)
    assert d.to_dict()["occurred"] == 2
    frame = frames.diff(kg, "2014-01", "2014-02")
    occurred = frame.filter(pl.col("kind") == "occurred")
    assert occurred["new_object"].to_list() == ["china", "russia", "iran"] and occurred["old_id"].null_count() == 3
    gantt = analysis.gantt(frames.facts(kg), entity="obama", now="2014-06-01")
    assert gantt["state"].to_list() == ["occurred"] * 3
    learned = kg.diff("2000", "2100", by="known")  # by transaction time: when the graph recorded them
    assert learned.occurred == 3 and learned.ended == 0


def test_a_declared_event_with_an_interval_occurred_at_its_start(kg: KnowledgeGraph) -> None:
    kg.add("a", "summit", "b", valid_from="2014-01-30", valid_to="2014-02-02")
    kg.configure(event_predicates={"summit"})
    assert [(c.kind, c.at) for c in kg.diff("2014-01", "2014-03").changes] == [("occurred", "2014-01-30")]
    assert kg.diff("2014-02", "2014-02").changes == ()  # its end is no change


# ---------------------------------------------------------------------- frames and analysis


def test_frames_carry_the_kind(kg: KnowledgeGraph) -> None:
    kg.add("a", "met", "b", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("a", "works_at", "x", valid_from="2014-01-01")
    facts = frames.facts(kg)
    assert facts.schema["kind"] == pl.String() and frames.FACTS_SCHEMA["kind"] == pl.String()
    assert facts.select("object", "kind", "state", "current").rows() == [
        ("b", "event", "occurred", False),
        ("x", "state", "current", True),
    ]
    assert frames.facts(kg, predicate="nothing").schema["kind"] == pl.String()  # an empty frame too
    assert frames.facts(kg, backend="pandas")["kind"].tolist() == ["event", "state"]


def test_churn_counts_event_volume_not_add_end_pairs(kg: KnowledgeGraph) -> None:
    for day in ("2014-01-02", "2014-01-03", "2014-02-03", "2014-02-04", "2014-02-05", "2014-04-01"):
        kg.add("a", "met", f"b{day}", valid_from=day, valid_to=day)
    kg.add("a", "works_at", "x", valid_from="2014-01-01")
    kg.supersede("a", "works_at", "x", "y", at="2014-02-10")
    monthly = analysis.churn(frames.facts(kg), every="1mo")
    assert monthly.select(
        pl.col("period").dt.strftime("%Y-%m"), "added", "ended", "events", "events_change", "active_at_start"
    ).rows() == [
        ("2014-01", 1, 0, 2, 2, 0),
        ("2014-02", 1, 1, 3, 1, 1),
        ("2014-03", 0, 0, 0, -3, 1),
        ("2014-04", 0, 0, 1, 1, 1),
    ]
    since_march = analysis.churn(frames.facts(kg), every="1mo", since="2014-03")
    assert since_march["events_change"].to_list() == [-3, 1]  # February, before the window, is the base
    by_predicate = analysis.churn(frames.facts(kg), every="1mo", by="predicate").filter(pl.col("predicate") == "met")
    assert by_predicate.select("events", "events_change", "added", "ended").rows() == [
        (2, 2, 0, 0),
        (3, 1, 0, 0),
        (1, -2, 0, 0),
    ]
    volatile = analysis.most_volatile(frames.facts(kg), by="predicate")
    assert volatile.select("predicate", "changes", "added", "ended", "events").rows() == [
        ("met", 6, 0, 0, 6),
        ("works_at", 3, 2, 1, 0),
    ]
    assert analysis.timeline(frames.facts(kg), predicate="met")["event"].unique().to_list() == ["occurred"]
    assert analysis.most_changed(frames.facts(kg))["predicate"].to_list() == ["works_at"]  # events replace nothing


def test_a_frame_without_a_kind_column_reads_the_bounds(kg: KnowledgeGraph) -> None:
    kg.add("a", "met", "b", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("a", "met", "c", valid_from="2014-01-02", valid_to="2014-01-05")
    bare = frames.facts(kg).drop("kind", "state", "current")
    assert analysis.churn(bare, every="1mo").select("added", "ended", "events").rows() == [(1, 1, 1)]


def test_the_churn_report_of_an_event_graph_reports_volume(kg: KnowledgeGraph, tmp_path: Path) -> None:
    for day in ("2014-01-02", "2014-01-03", "2014-02-03"):
        kg.add("a", "met", f"b{day}", valid_from=day, valid_to=day)
    html_path, md_path = churn_report(kg, out=tmp_path / "churn.html")
    page, markdown = html_path.read_text(), md_path.read_text()
    assert 'id="stat-events"' in page and "Events per period" in page
    assert "Facts added / ended per period" not in page  # no add/end pairs to draw
    assert "| period | events | change on the period before |" in markdown  # no add/end columns
    assert "busiest period" in markdown and "2014-01 (2, partial period)" in markdown  # from the 2nd
    for absent in ("added", "ended", "current", "conflicts", "net"):  # no state tiles on an event graph
        assert f'id="stat-{absent}"' not in page


# ---------------------------------------------------------------------- search notes and the graph view


def test_search_never_calls_an_event_replaced_by_the_next(kg: KnowledgeGraph) -> None:
    first = kg.add("obama", "criticize", "china", valid_from="2014-01-02", valid_to="2014-01-02").fact
    kg.add("obama", "criticize", "russia", valid_from="2014-01-03", valid_to="2014-01-03")
    assert _fact_note(first, [], None, []) == "event: occurred 2014-01-02"
    state = kg.add("obama", "criticize", "iran", valid_from="2013-01-01", valid_to="2013-12-31").fact
    assert store_search.successors(kg, state.id) == []  # the next event replaces no state either


def test_the_graph_view_draws_events_in_their_own_colour(kg: KnowledgeGraph) -> None:
    kg.add("obama", "criticize", "china", valid_from="2014-01-02", valid_to="2014-01-02")
    kg.add("obama", "criticize", "china", valid_from="2014-02-02", valid_to="2014-02-02")
    kg.add("obama", "visited", "japan", valid_from="2013-01-01", valid_to="2013-06-30")
    edges = {e.predicate: e for e in graphview.build(frames.facts(kg), center="obama").edges}
    event, ended = edges["criticize"], edges["visited"]
    assert (event.event, event.dashes, event.color, event.count) == (True, False, graphview.EVENT_EDGE, 2)
    assert "2 events, 2014-01-02 … 2014-02-02" in event.title and "ended" not in event.title
    assert (ended.event, ended.dashes, ended.color) == (False, True, graphview.ENDED_EDGE)


# ---------------------------------------------------------------------- the CLI


def test_config_and_stats_on_the_command_line(db_path: Path | str) -> None:
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--db", str(db_path)])
        assert result.exit_code == 0, result.output
        return result.output

    run("add", "rebels", "attacked", "convoy", "--from", "2014-03-01")
    run("add", "a", "met", "b", "--from", "2014-01-02", "--to", "2014-01-02")
    shown = json.loads(run("config", "--add-event-predicate", "Attacked", "--json"))
    assert (shown["events"], shown["event_predicates"]) == (False, ["attacked"])
    assert "attacked" in run("config")
    assert json.loads(run("stats", "--json"))["events"] == 2
    assert "occurred" in run("diff", "--from", "2014-01", "--to", "2014-03")
    shown = json.loads(run("config", "--events", "--remove-event-predicate", "attacked", "--json"))
    assert (shown["events"], shown["event_predicates"]) == (True, [])
    assert "every fact" in run("config")
    assert json.loads(run("config", "--no-events", "--json"))["events"] is False


# ---------------------------------------------------------------------- against a plain model


_DAYS = st.sampled_from([None, "2014-01-01", "2014-01-02", "2090-01-01"])


def _model_kind(events: bool, declared: set[str], predicate: str, valid_from: str | None, valid_to: str | None) -> str:
    if events or predicate in declared:
        return "event"
    return "event" if valid_from is not None and valid_from == valid_to else "state"


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["met", "attacked", "works_at"]), st.sampled_from("xyz"), _DAYS, _DAYS), max_size=10
    ),
    events=st.booleans(),
    declared=st.sets(st.sampled_from(["met", "attacked", "works_at"])),
)
def test_the_kinds_are_the_plain_models(
    rows: list[tuple[str, str, str | None, str | None]], events: bool, declared: set[str]
) -> None:
    """Every door's kind (records, stats, frames, conflicts) is the rule as written in plain Python."""
    with kgtoolkit.open(":memory:") as kg:
        for predicate, obj, start, end in rows:
            if start is not None and end is not None and end < start:
                start, end = end, start
            kg.add("s", predicate, obj, valid_from=start, valid_to=end)
        kg.configure(events=events, event_predicates=declared)
        facts = kg.timeline()
        want = {f.id: _model_kind(events, declared, f.predicate, f.valid_from, f.valid_to) for f in facts}
        assert {f.id: f.kind for f in facts} == want
        for f in facts:
            if want[f.id] == "event":
                assert f.state == ("scheduled" if f.valid_from == "2090-01-01" else "occurred")
            else:
                assert f.state in ("current", "scheduled", "ended")
        assert kg.stats().events == list(want.values()).count("event")
        frame = frames.facts(kg)
        assert dict(zip(frame["id"].to_list(), frame["kind"].to_list(), strict=True)) == want
        in_conflicts = {f.id for g in kg.conflicts() for f in g.facts}
        assert all(want[i] == "state" for i in in_conflicts)
        occurred = {c.new.id for c in kg.diff("2000", "2100", limit=None).changes if c.kind == "occurred" and c.new}
        dated = {f.id for f in facts if f.valid_from or f.valid_to}  # at its start, else its end; undated: never
        assert occurred == {i for i, k in want.items() if k == "event" and i in dated}


# ---------------------------------------------------------------------- ICEWS14


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_icews14_is_an_event_graph(real_graph: Callable[..., RealGraph], tmp_path: Path) -> None:
    if not ICEWS14.is_file():
        pytest.skip(f"ICEWS14 not found at {ICEWS14} (the shared data folder is absent)")
    with ICEWS14.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    imported = real_graph("icews14", allow_commas=True)  # io.import_file(kg, ICEWS14, allow_commas=True), once
    report = imported.report
    with kgtoolkit.open(imported.db) as kg:
        stats = kg.stats()
        # Every ICEWS event is one day: all events, none current or ended, no conflicts at all; every row is kept
        # (a repeated row would be another occurrence, contract §12).
        assert stats.facts == report.inserted == len(rows) and stats.events == stats.facts
        assert (stats.current, stats.ended, stats.scheduled) == (0, 0, 0)
        assert kg.conflicts(limit=1).total == 0 and analysis.conflicts(frames.facts(kg)).height == 0
        facts = frames.facts(kg)
        assert facts["kind"].unique().to_list() == ["event"] and facts["state"].unique().to_list() == ["occurred"]
        # Churn reports the volume per month, not add/end pairs.
        monthly = analysis.churn(facts, every="1mo")
        assert monthly.height == 12 and int(monthly["events"].sum()) == stats.facts
        assert int(monthly["added"].sum()) == int(monthly["ended"].sum()) == 0
        first = monthly["events"][0]
        assert monthly["events_change"].to_list() == [first] + [
            b - a for a, b in zip(monthly["events"], monthly["events"][1:])
        ]
        # Diff reports occurrences: January's, as many as churn counts (the file's January rows, every one).
        january = kg.diff("2014-01", "2014-01", limit=5)
        in_file = sum(r["valid_from"].startswith("2014-01") for r in rows)
        assert january.occurred == january.total == int(monthly["events"][0]) == in_file
        assert (january.began, january.ended, january.replaced) == (0, 0, 0)
        assert {c.kind for c in january.changes} == {"occurred"}
        html_path, _ = churn_report(kg, out=tmp_path / "icews.html")
        assert 'id="stat-events"' in html_path.read_text()

"""The data behind each dashboard page (kgtoolkit/dashboard/data.py), checked against the library's own answers:
the Entity page's facts are what ``kg.query`` answers, the Churn and Conflicts pages' predicates are
``kg.predicate_labels()``, the Changes and Paths pages colour the facts ``kg.diff`` and ``kg.paths`` return, the
Import / export page's dry run writes nothing. No Streamlit here: these run without a browser or AppTest."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.dashboard import data, graphview

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    kg = build_demo(tmp_path_factory.mktemp("pages") / "demo.sqlite3")
    yield kg
    kg.close()


def _facts(kg: KnowledgeGraph) -> pl.DataFrame:
    """The dashboard's facts frame: every fact, each predicate's label beside it (kgdash.facts_frame)."""
    return data.labelled(frames.facts(kg), kg.predicate_labels(), alias="predicate_label")


def _spelled(kg: KnowledgeGraph) -> None:
    """Predicates spelled otherwise than their ids (worksAt → worksat), states that change, and a contradiction."""
    kg.add("Ada", "worksAt", "Acme", valid_from="2024-01-10", valid_to="2024-06-30")
    kg.add("Ada", "worksAt", "Globex", valid_from="2024-07-01")
    kg.add("Ada", "worksAt", "Initech", valid_from="2024-08-01")  # two current employers: a conflict
    kg.add("Bob", "Reports To", "Ada", valid_from="2024-02-01", valid_to="2024-09-30")
    kg.add("Bob", "Reports To", "Cy", valid_from="2024-10-01")
    kg.add("Ada", "email", "ada@acme.example", valid_from="2024-01-10")


# ---------------------------------------------------------------------- the Entity page: kg.query's facts


@pytest.mark.parametrize("direction", ["both", "outgoing", "incoming"])
def test_around_is_what_query_answers_for_every_entity(demo: KnowledgeGraph, direction: str) -> None:
    every = frames.facts(demo)
    for entity in frames.entities(demo)["id"].to_list():
        want = [(f.id, f.direction) for f in demo.query(entity, direction=direction)]  # type: ignore[arg-type]
        got = frames.around(every, entity, direction=direction)  # type: ignore[arg-type]
        assert list(got.select("id", "direction").iter_rows()) == want, entity


@pytest.mark.parametrize("window", [None, "2025-09-15", "2026-10-12", "2026-10", "2026", "2026-01-01/2026-06-30"])
def test_the_entity_pages_lists_are_the_librarys_answers(demo: KnowledgeGraph, window: str | None) -> None:
    facts = _facts(demo)
    for entity in ("my_api", "dana_whitfield", "billing_service", "payments_team"):
        page = data.entity_facts(facts, entity, window)
        asked = demo.query(entity)
        assert sorted(page.history["id"].to_list()) == sorted(f.id for f in asked)
        assert page.history["id"].to_list() == page.history.sort("start", "id", nulls_last=True)["id"].to_list()
        assert set(page.current["id"].to_list()) == {f.id for f in demo.query(entity, current_only=True)}
        assert page.ended == sum(f.state == "ended" for f in asked)
        assert set(page.cited["id"].to_list()) == {f.id for f in asked if f.source_closet}
        if window is None:
            assert page.valid["id"].to_list() == page.history["id"].to_list()
        elif "/" not in window:  # a day, a month or a year: the store's own as_of
            assert set(page.valid["id"].to_list()) == {f.id for f in demo.query(entity, as_of=window)}
        else:
            assert set(page.valid["id"].to_list()) == set(frames.valid_at(page.history, window)["id"].to_list())
        assert page.opening == ("current" if page.current.height else "valid" if page.valid.height else "history")
        assert "predicate_label" in page.history.columns


def test_the_entity_page_opens_on_the_window_when_nothing_is_current() -> None:
    kg = kgtoolkit.open(":memory:")
    kg.add("Ann", "lived_in", "Oslo", valid_from="2014-03-01", valid_to="2014-04-30")
    kg.add("Ann", "visited", "Oslo", valid_from="2014-03-01", valid_to="2014-03-01")  # an event
    facts = _facts(kg)
    assert data.entity_facts(facts, "ann", "2014-03").opening == "valid"
    assert data.entity_facts(facts, "ann", "2015").opening == "history"
    found = data.entity_facts(facts, "ann", None)
    assert (found.events["predicate"].to_list(), found.states, found.ended) == (["visited"], 1, 1)


def test_an_entity_of_events_opens_on_its_events() -> None:
    """Events are never current nor ended (contract §12): an entity of an event graph lists its events, their
    volume per month and the entities it has them with, not "Current 0 / Ended 0"."""
    kg = kgtoolkit.open(":memory:")
    for day, other in (("2014-01-02", "Japan"), ("2014-01-09", "Japan"), ("2014-02-01", "Iran")):
        kg.add("China", "criticize", other, valid_from=day, valid_to=day)
    kg.add("Japan", "consult", "China", valid_from="2014-02-03", valid_to="2014-02-03")
    found = data.entity_facts(_facts(kg), "china", None)
    assert found.opening == "events" and (found.current.height, found.ended, found.states) == (0, 0, 0)
    assert found.events["start"].dt.strftime("%Y-%m-%d").to_list() == [  # the latest first
        "2014-02-03",
        "2014-02-01",
        "2014-01-09",
        "2014-01-02",
    ]
    volume = found.event_volume("1mo")
    expected = analysis.events(found.events, every="1mo")
    assert volume["events"].to_list() == expected["events"].to_list() == [2, 2]
    assert found.partners("china").select("name", "events", "first", "last").rows() == [
        ("Japan", 3, "2014-01-02", "2014-02-03"),
        ("Iran", 1, "2014-02-01", "2014-02-01"),
    ]
    assert data.entity_facts(_facts(kg), "nobody", None).history.height == 0


def test_the_timeline_is_the_gantt_of_the_entitys_facts(demo: KnowledgeGraph) -> None:
    history = data.entity_facts(_facts(demo), "my_api", None).history
    bars = analysis.gantt(history, now=NOW, as_of="2026-06-01")
    drawn = data.timeline(history, as_of="2026-06-01", now=NOW)
    assert drawn.total == bars.height and drawn.bars["id"].to_list() == bars["id"].to_list()
    assert drawn.bars["state"].to_list() == bars["state"].to_list()
    assert drawn.bars.columns == ["row", "label", "start", "end", "state", "id"]
    assert drawn.bars.schema["start"] == pl.Datetime("us")  # no time zone: what the chart draws
    assert drawn.bars["row"][0].endswith(bars["start"][0].strftime("  · %Y-%m-%d"))
    latest = data.timeline(history, as_of=None, now=NOW, limit=2)
    assert latest.total == bars.height and latest.bars["id"].to_list() == bars["id"].tail(2).to_list()


# ---------------------------------------------------------------------- labels (contract §13)


def test_churn_labels_are_the_graphs_predicate_labels() -> None:
    kg = kgtoolkit.open(":memory:")
    _spelled(kg)
    labels = kg.predicate_labels()
    assert labels["worksat"] == "worksAt" and labels["reports_to"] == "Reports To"
    facts = _facts(kg)
    tables = data.churn(  # asked of the graph (the engine); each table equals the frame path's on its frame
        kg, labels, every="1mo", since="2024-01-01", until="2024-12-31", top=10, multi_valued=kg.config.multi_valued
    )
    raw = analysis.churn(facts, every="1mo", since="2024-01-01", until="2024-12-31", by="predicate")
    assert tables.by_predicate["predicate"].to_list() == [labels[p] for p in raw["predicate"].to_list()]
    assert set(tables.changed["predicate"].to_list()) <= set(labels.values())
    assert set(tables.top_predicates(1)["predicate"].to_list()) <= {"worksAt", "Reports To", "email"}
    assert tables.overall.equals(analysis.churn_to_date(facts, every="1mo", since="2024-01-01", until="2024-12-31"))
    assert (tables.added, tables.ended) == (int(raw["added"].sum()), int(raw["ended"].sum()))
    assert tables.net == tables.added - tables.ended and tables.states == tables.added + tables.ended  # all past
    assert tables.events == 0 and tables.mean_rate is not None
    moves = tables.moves()
    assert moves.filter(pl.col("event") == "ended")["facts"].sum() == -tables.ended
    assert tables.changed_table().columns == ["subject", "predicate", "changes", "history", "current"]
    assert tables.volatile_moves()["facts"].sum() == int(
        tables.volatile["added"].sum() + tables.volatile["ended"].sum()
    )
    assert tables.volatile.equals(analysis.most_volatile(facts, top=10, since="2024-01-01", until="2024-12-31"))
    changed = analysis.most_changed(facts, top=10, since="2024-01-01", until="2024-12-31")
    assert tables.changed.equals(data.labelled(changed, labels))


def test_the_churn_window_runs_from_the_first_start_to_the_last_end() -> None:
    kg = kgtoolkit.open(":memory:")
    assert data.churn_span(kg) is None
    kg.add("Ada", "worksAt", "Acme", valid_from="2024-01-10", valid_to="2024-06-30")
    kg.add("Ada", "worksAt", "Globex", valid_from="2024-03-01")
    assert data.churn_span(kg) == (dt.date(2024, 1, 10), dt.date(2024, 6, 30))
    one = kgtoolkit.open(":memory:")
    one.add("Ann", "visited", "Oslo", valid_from="2014-03-01")
    assert data.churn_span(one) == (dt.date(2014, 3, 1), dt.date(2014, 3, 2))  # a slider needs two


def test_an_event_graphs_churn_has_its_volume() -> None:
    kg = kgtoolkit.open(":memory:")
    for day in ("2014-01-03", "2014-02-10", "2014-02-11", "2014-05-01"):
        kg.add("Barack Obama", "criticize", "China", valid_from=day, valid_to=day)
    tables = data.churn(
        kg,
        kg.predicate_labels(),
        every="1mo",
        since="2014-01-01",
        until="2014-12-31",
        top=5,
        multi_valued=kg.config.multi_valued,
    )
    assert tables.events == 4 and tables.states == 0
    assert tables.busiest()["events"] == 2 and tables.busiest()["period"].month == 2
    assert tables.volume().columns == ["period", "end", "events", "events_change", "partial"]
    assert tables.kind == "events" and tables.whole_change() == analysis.last_full_change(tables.overall)
    assert tables.pairs_table().rows() == [("Barack Obama", "China", 4, "2014-01-03", "2014-05-01", "criticize")]
    assert tables.volatile_moves()["event"].unique().to_list() == ["events"]  # no empty added / ended bars


def test_conflict_groups_are_labelled_and_filtered() -> None:
    kg = kgtoolkit.open(":memory:")
    _spelled(kg)
    facts = _facts(kg)
    table = data.conflict_table(facts, kg.predicate_labels(), kg.config.multi_valued)
    plain = analysis.conflicts(facts, multi_valued=kg.config.multi_valued)
    now = ("overlap", "open_for")  # durations up to the moment each was computed
    assert table.drop("predicate_label", "history_more", *now).equals(plain.drop(*now))
    assert table["history_more"].to_list() == [0] * table.height  # the whole table: every group whole
    labels = kg.predicate_labels()
    assert table["predicate_label"].to_list() == [labels[p] for p in table["predicate"].to_list()]
    needs = data.conflict_groups(table, needs_only=True, text="")
    assert needs.select("subject", "predicate").rows() == [("ada", "worksat")]
    assert data.conflict_groups(table, needs_only=False, text="  BOB ")["subject"].to_list() == ["bob"]
    assert data.conflict_groups(table, needs_only=False, text="works").height == 1
    assert data.conflict_groups(table, needs_only=True, text="bob").height == 0
    members = data.group_facts(facts, needs["facts"][0])
    assert members["object_name"].to_list() == ["Acme", "Globex", "Initech"]
    choices = data.current_choices(members)
    assert sorted(choices.values()) == ["Globex", "Initech"]
    first = next(iter(choices))
    assert data.fact_row(facts, first)["object_name"] == choices[first]


def test_the_fact_table_lists_the_label_as_the_predicate() -> None:
    kg = kgtoolkit.open(":memory:")
    _spelled(kg)
    shown = data.fact_table(_facts(kg))
    assert shown.columns == [
        "id",
        "subject",
        "predicate",
        "object",
        "valid_from",
        "valid_to",
        "current",
        "confidence",
        "source",
        "source_closet",
    ]
    assert "worksAt" in shown["predicate"].to_list()
    assert data.fact_table(frames.facts(kg))["predicate"].to_list()[0] == "worksat"  # no labels: the ids


# ---------------------------------------------------------------------- entity lists, Changes, Paths, Search


def test_entity_lists_are_the_ranking(demo: KnowledgeGraph) -> None:
    ranking = analysis.most_connected(frames.facts(demo), frames.entities(demo))
    choices = data.entity_choices(ranking, 3)
    assert choices.top == tuple(ranking["id"].head(3).to_list())
    assert choices.known == set(frames.entities(demo)["id"].to_list())
    assert choices.counts == data.entity_fact_counts(ranking)
    assert choices.counts["my_api"] == len(demo.query("my_api"))
    assert choices.names["my_api"] == demo.entity("my_api").name
    assert data.predicate_fact_counts(demo) == {p.id: p.facts for p in demo.predicates()}


def test_the_changes_page_colours_and_lists_the_diff(demo: KnowledgeGraph) -> None:
    colors = {"began": "green", "ended": "red", "replaced": "orange", "occurred": "brown"}
    result = demo.diff("2026-01-01", "2026-12-31")
    painted = data.change_colors(result.changes, colors)
    seen: set[int] = set()
    for change in result.changes:  # each fact in the colour of the first change naming it
        for fact in (change.old, change.new):
            if fact is not None and fact.id not in seen:
                seen.add(fact.id)
                want = "red" if change.kind == "replaced" and fact is change.old else colors[change.kind]
                assert painted[fact.id] == want
    kg = kgtoolkit.open(":memory:")
    old = kg.add("my_api", "uses_queue", "Redis", valid_from="2020-01-01").fact.id
    new = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12").new.id
    assert data.change_colors(kg.diff("2026-01-01", "2026-12-31").changes, colors) == {old: "red", new: "orange"}
    ids = {f.id for ch in result.changes for f in (ch.old, ch.new) if f is not None}
    assert set(painted) == ids
    rows = data.change_rows(result.changes, demo.predicate_labels())
    assert rows.height == len(result.changes) and rows["change"].to_list() == [ch.kind for ch in result.changes]
    view = data.facts_view(_facts(demo), painted, 150)
    values = set(_facts(demo).filter(pl.col("object_is_value"))["id"].to_list())
    assert ids & values and set(view.edge_ids) == ids - values  # a value fact is no edge
    assert {e.color for e in view.edges} <= set(colors.values())


def test_the_paths_page_colours_the_shortest_path_first(demo: KnowledgeGraph) -> None:
    found = demo.paths("billing_service", "dana_whitfield", max_hops=3)
    assert found.paths
    colors = data.path_colors(found.paths, "red", "orange")
    assert {colors[f.id] for f in found.paths[0]} == {"red"}
    assert set(colors) == {f.id for p in found.paths for f in p}
    assert data.path_colors((), "red", "orange") == {}
    start, steps = data.path_steps(found.paths[0])
    assert start == demo.entity("billing_service").name
    assert [forward for forward, *_ in steps] == [f.direction != "incoming" for f in found.paths[0]]
    assert steps[-1][2] == demo.entity("dana_whitfield").name and len(steps) == len(found.paths[0])


def test_a_search_hits_history_is_its_relationship(demo: KnowledgeGraph) -> None:
    facts = _facts(demo)
    history = data.relationship_history(facts, "my_api", "uses_queue")
    assert sorted(history["id"].to_list()) == sorted(
        f.id for f in demo.query("my_api", predicates="uses_queue", direction="outgoing")
    )
    assert history.height > 1 and history["start"].is_sorted()


def test_the_graph_views_summaries(demo: KnowledgeGraph) -> None:
    view = graphview.build(frames.facts(demo), center="my_api")
    assert view.current_edges == sum(1 for e in view.edges if e.current) and view.current_edges < len(view.edges)
    assert view.legend == sorted({(n.type, n.color) for n in view.nodes})
    assert view.names["my_api"] == demo.entity("my_api").name and list(view.names) == view.node_ids


# ---------------------------------------------------------------------- Clean up and Import / export


def test_clean_up_lists_filter_and_keep_the_side_more_facts_name() -> None:
    kg = kgtoolkit.open(":memory:")
    kg.add("billing", "uses_db", "Postgres")
    kg.add("search", "uses_db", "PostgreSQL")
    kg.add("ledger", "uses_db", "PostgreSQL")
    kg.add("Melbourne", "located_in", "Australia")
    kg.add("Melbourne FL", "located_in", "Florida")
    found = kg.duplicates(kind="entities").items
    pair = next(p for p in found if {p.a, p.b} == {"postgres", "postgresql"})
    assert data.matching_pairs(found, "") == list(found)
    assert data.matching_pairs(found, " postgresQL ") == [p for p in found if "postgres" in p.a + p.b] != []
    assert data.keep_first(pair, data.entity_fact_counts(analysis.most_connected(frames.facts(kg)))) == "postgresql"
    assert data.pair_names(pair, {}) == {pair.a: pair.a_name, pair.b: pair.b_name}
    assert data.pair_names(pair, {pair.a: "spelled"})[pair.a] == "spelled"


def test_an_upload_is_checked_without_writing_then_imported(tmp_path: Path) -> None:
    source = kgtoolkit.open(":memory:")
    _spelled(source)
    name, content, count = data.export_bytes(source, "team.sqlite3", "csv")
    assert (name, count) == ("team.csv", 6) and content.startswith(b"id,subject,")
    assert pl.read_csv(content)["id"].sort().to_list() == frames.facts(source)["id"].to_list()
    rows = frames.facts(source).select("subject_name", "predicate", "object_name", "valid_from", "valid_to")
    bad = (
        rows.rename({"subject_name": "subject", "object_name": "object"}).write_csv().encode()
        + b"Zed,worksAt,Acme,19##,\n"
    )
    target = kgtoolkit.open(tmp_path / "target.sqlite3")
    rows, dry = data.check_upload(target, name, bad, comma_guard=False, source="upload")
    assert rows.height == 7 and (dry["rows"], dry["rejected"]) == (7, 1)
    assert not (tmp_path / "target.sqlite3").exists()  # checked by a new graph's settings; nothing made (contract §8)
    rejects = data.rejects_frame(dry)
    assert rejects.columns == ["line", "field", "value", "reason"] and rejects["field"].to_list() == ["valid_from"]
    report = data.import_upload(target, name, bad, comma_guard=False, source="upload")
    assert (report.inserted, report.rejected) == (6, 1) and target.stats().facts == 6
    name, _, count = data.export_bytes(target, "", "json")
    assert (name, count) == ("graph.json", 6)
    _, _, current = data.export_bytes(target, "t", "jsonl", current_only=True)
    assert current == len(target.query("ada", current_only=True, direction="outgoing")) + 1  # and Bob → Cy


def test_the_page_data_needs_no_streamlit() -> None:
    """data.py and graphview.py import without Streamlit (tests, benchmarks and notebooks use them bare)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['streamlit'] = None\n"
        "import kgtoolkit.dashboard.data, kgtoolkit.dashboard.graphview\n"
        "assert 'streamlit' not in {m.split('.')[0] for m in sys.modules if sys.modules[m] is not None}"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr

"""The Streamlit dashboard under ``streamlit.testing.v1.AppTest``: every page, on the demo graph and on
an empty graph; the date filter changes the data behind the graph; read-only mode disables writes; the
Clean up page's buttons merge, alias and mark pairs of a graph with planted duplicates, on both backends."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

pytest.importorskip("streamlit")
pytest.importorskip("pyvis")

from shared_data import DATA
from streamlit.testing.v1 import AppTest

import kgtoolkit
from kgtoolkit import analysis, dashboard, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.dashboard import data, graphview
from kgtoolkit.dashboard._text import md_code, md_text, plain
from kgtoolkit.store import dump

APP = dashboard.SCRIPT  # the script the package ships (kgtoolkit/dashboard/app.py)
CHECKOUT_APP = Path(__file__).resolve().parents[2] / "app" / "dashboard.py"  # `streamlit run app/dashboard.py`
PAGES = ["graph", "entity", "paths", "changes", "conflicts", "cleanup", "churn", "search", "import_export"]
FOOTER = "kgtoolkit dashboard"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dash") / "demo.sqlite3"
    build_demo(path).close()
    return path


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dash") / "empty.sqlite3"
    kgtoolkit.open(path, create=True).close()
    return path


def _app(monkeypatch: pytest.MonkeyPatch, db: Path, *, read_only: bool = False, **state: object) -> AppTest:
    monkeypatch.setenv("KGTOOLKIT_DB", str(db))
    monkeypatch.setenv("KGTOOLKIT_DASHBOARD_READ_ONLY", "1" if read_only else "0")
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _open(at: AppTest, page: str) -> AppTest:
    at.run()
    if page != "graph":
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any(c.value.startswith(FOOTER) and f"· {page.replace('_', '-')} ·" in c.value for c in at.caption)
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_the_demo_graph(monkeypatch: pytest.MonkeyPatch, demo_db: Path, page: str) -> None:
    _open(_app(monkeypatch, demo_db, entity="my_api"), page)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_an_empty_graph(monkeypatch: pytest.MonkeyPatch, empty_db: Path, page: str) -> None:
    _open(_app(monkeypatch, empty_db), page)


def test_a_missing_graph_is_said_not_shown_blank(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Reads never create a graph (contract §8): a mistyped path says there is none, and makes nothing."""
    missing = tmp_path / "typo.sqlite3"
    at = _app(monkeypatch, missing)
    at.run()
    assert not at.exception
    assert [e.value.split(" · ")[0] for e in at.error] == [f"No graph at {md_code(str(missing))}"]
    assert "kgtoolkit import FILE --db" in at.error[0].value and not missing.exists()


def test_a_source_checkout_runs_the_same_app(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    """`streamlit run app/dashboard.py` runs the package's app: every page, found by its absolute path."""
    monkeypatch.setenv("KGTOOLKIT_DB", str(demo_db))
    monkeypatch.setenv("KGTOOLKIT_DASHBOARD_READ_ONLY", "1")
    at = AppTest.from_file(str(CHECKOUT_APP), default_timeout=60)
    at.session_state["entity"] = "my_api"
    at.run()
    for page in PAGES:
        if page != "graph":
            at.switch_page(str(dashboard.VIEWS / f"{page}.py")).run()
        assert not at.exception, [e.value for e in at.exception]
        assert any(c.value.startswith(FOOTER) and f"· {page.replace('_', '-')} ·" in c.value for c in at.caption)
    at.switch_page(str(dashboard.VIEWS / "graph.py")).run()
    assert not at.exception and at.session_state["graph_view"].center == "my_api"
    at.button(key="graph_open_entity").click().run()  # st.switch_page to the Entity page, by its absolute path
    assert not at.exception, [e.value for e in at.exception]
    assert any(c.value.startswith(FOOTER) and "· entity ·" in c.value for c in at.caption)


def test_every_page_runs_on_all_dates(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _app(monkeypatch, demo_db, entity="billing_service", all_time=True)
    for page in PAGES:
        _open(at, page)


def test_as_of_changes_what_the_graph_page_shows(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _open(_app(monkeypatch, demo_db, entity="my_api", as_of=dt.date(2026, 11, 1)), "graph")
    late = at.session_state["graph_view"]
    assert late.center == "my_api" and "sqlite" in late.node_ids and "redis" not in late.node_ids

    at.sidebar.date_input(key="as_of").set_value(dt.date(2026, 6, 1)).run()
    assert not at.exception
    early = at.session_state["graph_view"]
    assert "redis" in early.node_ids and "sqlite" not in early.node_ids
    assert {(e.target, e.current) for e in early.edges if e.source == "my_api" and e.predicate == "uses_queue"} == {
        ("redis", False)
    }
    assert any("as of 2026-06-01" in c.value for c in at.caption)

    at.sidebar.date_input(key="as_of").set_value(dt.date(2026, 10, 12)).run()  # the day of the switch: both
    both = at.session_state["graph_view"]
    assert {"redis", "sqlite"} <= set(both.node_ids)

    at.sidebar.toggle(key="all_time").set_value(True).run()
    history = at.session_state["graph_view"]
    assert set(history.edge_ids) >= set(both.edge_ids) | set(early.edge_ids)


ICEWS14 = DATA / "icews14" / "facts.tsv"


@pytest.fixture(scope="module")
def past_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph whose facts all lie in the past: every 30th event of ICEWS14 (2014), or made-up ones like them."""
    path = tmp_path_factory.mktemp("dash") / "past.sqlite3"
    with kgtoolkit.open(path) as kg:
        kg.configure(comma_guard=False)  # ICEWS names hold commas
        if ICEWS14.is_file():
            lines = ICEWS14.read_text(encoding="utf-8").splitlines()[1::30]  # 3,025 events across the year
            rows = [line.split("\t") for line in lines]
        else:
            rows = [
                [
                    f"Actor {i % 40}",
                    "Make statement",
                    f"Actor {(i * 7) % 40}",
                    f"2014-{1 + i % 12:02d}-{1 + i % 28:02d}",
                    f"2014-{1 + i % 12:02d}-{1 + i % 28:02d}",
                ]
                for i in range(600)
            ]
        for subject, predicate, obj, start, end, *_ in rows:
            kg.add(subject, predicate, obj, valid_from=start, valid_to=end)
    return path


def test_a_graph_of_the_past_opens_on_its_last_day(monkeypatch: pytest.MonkeyPatch, past_db: Path) -> None:
    # It opened on today: an empty graph, an Entity page on "Current (0)".
    with kgtoolkit.open(past_db, read_only=True) as kg:
        last = max(f.valid_to for f in kg.timeline())
    at = _open(_app(monkeypatch, past_db), "graph")
    assert at.session_state["as_of"] == dt.date.fromisoformat(last[:10])
    assert any(f"showing {last[:10]}, the last day with facts" in plain(c.value) for c in at.sidebar.caption)
    assert at.session_state["graph_view"].nodes  # something to look at
    at.switch_page("views/entity.py").run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [t.label for t in at.tabs]
    assert labels[0] == "Current (0)" and labels[3].startswith(f"Valid as of {last[:10]}")
    assert labels[1] == labels[2].replace("History", "Events"), (
        labels
    )  # all events: never current (contract §12): the page lists them apart
    at.sidebar.date_input(key="as_of").set_value(dt.date(2026, 12, 3)).run()  # the user's own date: no note
    assert not any("the last day with facts" in c.value for c in at.sidebar.caption)


def test_churn_of_an_event_graph_shows_its_volume(monkeypatch: pytest.MonkeyPatch, past_db: Path) -> None:
    """ICEWS-like events never end (contract §12): the Churn page shows events per period, not an empty
    added / ended chart."""
    with kgtoolkit.open(past_db, read_only=True) as kg:
        overall = analysis.churn(frames.facts(kg), every="1mo")
    at = _open(_app(monkeypatch, past_db), "churn")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Events"] == f"{int(overall['events'].sum()):,}"
    assert "Added" not in metrics and "Ended" not in metrics  # no state tiles on a graph of events
    busiest = overall.sort("events", descending=True, maintain_order=True).row(0, named=True)
    assert metrics["Busiest month"] == busiest["period"].date().isoformat()[:7]
    with kgtoolkit.open(past_db, read_only=True) as kg:
        change = analysis.last_full_change(analysis.churn_to_date(kg, every="1mo"))
    assert change is not None and metrics["Change on the month before"] == f"{change[1]:+,}"
    assert metrics["Busiest pair"].endswith(" events")
    assert [s.value for s in at.subheader][:3] == ["Events per month", "Busiest pairs", "Bursts"]
    assert "Added and ended per month" not in [s.value for s in at.subheader]


def _churn_shown(at: AppTest) -> tuple[dict[str, str], list[tuple[object, ...]]]:
    """The Churn page's metrics, and the rows of its table of the most changed relationships (the last table, on a
    graph with state facts; a graph of events has none)."""
    changed = "Most changed relationships" in [s.value for s in at.subheader]
    rows = list(at.dataframe[-1].value.itertuples(index=False)) if changed else []
    return {m.label: m.value for m in at.metric}, rows


def _churn_answer(db: Path | str) -> tuple[dict[str, str], list[tuple[object, ...]]]:
    """What the library answers for the page's default view (the opening period, the span to today, top 10), as
    the page says it: what happened to date (``analysis.churn_to_date``), the rankings to the end of today."""
    today = dt.datetime.now(dt.UTC).date()
    with kgtoolkit.open(db, read_only=True) as kg:
        labels = kg.predicate_labels()
        span = data.churn_span(kg)
        assert span is not None
        since, until = data.opening_window(span, today)
        every = data.PERIODS[data.opening_period((since, until))]
        overall = analysis.churn_to_date(kg, every=every, since=since, until=until)
        kind = analysis.graph_kind(kg.stats())
        done = max(min(until, today), since)
        changed = analysis.most_changed(kg, top=10, since=since, until=done, multi_valued=kg.config.multi_valued)
    metrics = {}
    if kind != "events":
        metrics["Added"] = f"{int(overall['added'].sum()):,}"
        metrics["Ended"] = f"{int(overall['ended'].sum()):,}"
        metrics["Net"] = f"{int(overall['net'].sum()):+,}"
        metrics["Scheduled to end"] = f"{int(overall['scheduled_ended'].sum()):,}"
    if int(overall["events"].sum()):
        metrics["Events"] = f"{int(overall['events'].sum()):,}"
    rows = [
        (r["subject_name"], labels.get(r["predicate"], r["predicate"]), r["changes"])
        for r in changed.iter_rows(named=True)
    ]
    return metrics, rows


def _same_churn(at: AppTest, db: Path | str) -> None:
    shown, table = _churn_shown(at)
    metrics, rows = _churn_answer(db)
    assert {k: shown[k] for k in metrics} == metrics
    assert [(r[0], r[1], r[2]) for r in table] == rows


def test_the_churn_page_shows_what_the_engine_answers(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, past_db: Path
) -> None:
    """The page's totals and most changed relationships are ``analysis.churn(kg)`` and ``most_changed(kg)``, each
    predicate by ``kg.predicate_labels()``."""
    for db in (demo_db, past_db):
        _same_churn(_open(_app(monkeypatch, db), "churn"), db)


def test_the_churn_page_shows_what_the_engine_answers_on_postgres(
    monkeypatch: pytest.MonkeyPatch, team_db: str
) -> None:
    _same_churn(_open(_app(monkeypatch, team_db), "churn"), team_db)


def test_the_first_views_read_no_whole_facts_frame(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every page's first view asks the engine for what it draws (issue #32): opened on a graph never shown before,
    the Churn page (and the sidebar, and a session's opening day), the Graph page's overview, the Entity page (and
    every entity picker), the Conflicts page, the Paths, Changes, Clean up and Import / export pages read no facts
    table whole (``frames.facts``, or its ``facts_table``); a text filter on the Conflicts page still does."""
    db = tmp_path / "fresh.sqlite3"
    build_demo(db).close()
    reads: list[str] = []
    from kgtoolkit.frames import _facts as frames_facts  # where frames.facts calls facts_table

    for module, name in ((frames, "facts"), (frames_facts, "facts_table")):
        original = getattr(module, name)

        def counted(*args: object, _original: Any = original, _name: str = name, **kwargs: object) -> object:
            reads.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    at = _app(monkeypatch, db)
    at.switch_page("views/churn.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(c.value.startswith(FOOTER) and "· churn ·" in c.value for c in at.caption)
    assert reads == []
    _same_churn(at, db)
    at.selectbox(key="churn_period").set_value("week").run()
    at.slider(key="churn_window").set_value((dt.date(2025, 1, 1), dt.date(2025, 6, 30))).run()
    assert not at.exception and reads == []
    for page in ("graph", "entity", "conflicts", "paths", "changes", "cleanup", "import_export"):
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert any(c.value.startswith(FOOTER) for c in at.caption), page
        assert reads == [], page
    assert at.session_state["entity"]  # the Entity page chose one: the Graph page now centres on it
    at.switch_page("views/conflicts.py").run()
    at.toggle(key="conflicts_only").set_value(False).run()
    at.number_input(key="conflicts_page").set_value(2).run()
    assert not at.exception and reads == []
    at.text_input(key="conflicts_filter").set_value("owned").run()  # a text filter reads every group (the test sees it)
    assert not at.exception and reads


def test_an_event_graph_says_its_events_in_the_sidebar_and_the_picture(
    monkeypatch: pytest.MonkeyPatch, past_db: Path
) -> None:
    """Events are never current nor ended (contract §12): the sidebar counts them, the Graph page says which
    edges are events and its legend names their colour (a first use on ICEWS05-15 read "0 current, 0 ended",
    "0 edges current now, 10 not")."""
    with kgtoolkit.open(past_db, read_only=True) as kg:
        events = kg.stats().events
    # the sidebar's "States" expander open; the picture of the date alone (not through time)
    at = _open(_app(monkeypatch, past_db, sidebar_states=True, graph_time=False), "graph")
    tiles = {m.label: m.value for m in at.sidebar.metric}
    assert (tiles["Events"], tiles["Current"], tiles["Ended"]) == (f"{events:,}", "0", "0")
    view = at.session_state["graph_view"]
    assert view.event_edges == len(view.edges) > 0 and view.current_edges == 0
    caption = next(m.value for m in at.markdown if "edges current now" in m.value)
    assert f"**0** not, **{len(view.edges):,}** events)" in caption
    assert any("events (they occurred)" in m.value for m in at.markdown)


def test_the_window_spans_a_month_a_year_or_a_range(monkeypatch: pytest.MonkeyPatch, past_db: Path) -> None:
    at = _open(_app(monkeypatch, past_db, as_of=dt.date(2014, 1, 15)), "graph")
    facts = frames.facts(kgtoolkit.open(past_db, read_only=True)).filter(~pl.col("object_is_value"))

    def in_window(window: str) -> set[int]:
        return set(frames.valid_at(facts, window)["id"].to_list())

    def check(window: str, label: str) -> None:
        assert not at.exception, [e.value for e in at.exception]
        view = at.session_state["graph_view"]
        assert view.total_edges == len(in_window(window)) and set(view.edge_ids) <= in_window(window)
        assert any(label in c.value for c in at.caption)

    check("2014-01-15", "as of 2014-01-15")
    at.sidebar.segmented_control(key="span").set_value("month").run()
    check("2014-01", "in 2014-01")
    at.sidebar.segmented_control(key="span").set_value("year").run()
    check("2014", "in 2014")
    at.sidebar.segmented_control(key="span").set_value("range").run()
    at.sidebar.date_input(key="as_of_to").set_value(dt.date(2014, 1, 20)).run()
    check("2014-01-15/2014-01-20", "from 2014-01-15 to 2014-01-20")
    assert len(in_window("2014-01-15")) < len(in_window("2014-01-15/2014-01-20")) < len(in_window("2014-01"))


def test_the_paths_page_draws_the_librarys_paths(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _open(_app(monkeypatch, demo_db, entity="billing_service", paths_target="dana_whitfield"), "paths")
    found, view = at.session_state["paths_result"], at.session_state["paths_view"]
    with kgtoolkit.open(demo_db, read_only=True) as kg:
        want = kg.paths(
            "billing_service", "dana_whitfield", max_hops=3, as_of=at.session_state["as_of"].isoformat(), limit=10
        )
    assert [[f.id for f in p] for p in found.paths] == [[f.id for f in p] for p in want.paths] != []
    shortest = {f.id for f in found.paths[0]}
    colour = {i: e.color for e in view.edges for i in e.ids}
    assert {colour[i] for i in shortest} == {"#E45756"} and set(colour) == {f.id for p in found.paths for f in p}
    assert any("—owned_by→" in plain(m.value) and "payments_team" in plain(m.value).lower() for m in at.markdown)
    at.toggle(key="paths_time").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_changes_page_lists_and_colours_the_librarys_diff(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _app(monkeypatch, demo_db, changes_from=dt.date(2026, 1, 1), changes_to=dt.date(2026, 6, 30))
    at = _open(at, "changes")
    got, view = at.session_state["changes_result"], at.session_state["changes_view"]
    with kgtoolkit.open(demo_db, read_only=True) as kg:
        want = kg.diff("2026-01-01", "2026-06-30", limit=2000)
    assert got.to_dict() == want.to_dict() and got.total > 0
    colour = {i: e.color for e in view.edges for i in e.ids}
    for change in want.changes:
        if change.kind == "began":
            assert colour.get(change.new.id, "#54A24B") == "#54A24B"
        if change.kind == "replaced":
            assert colour.get(change.new.id, "#F58518") == "#F58518"
    assert {m.label: m.value for m in at.metric}["Changes"] == f"{want.total:,}"
    at.date_input(key="changes_from").set_value(dt.date(2026, 7, 1)).run()
    at.date_input(key="changes_to").set_value(dt.date(2026, 6, 1)).run()
    assert any("swap them" in w.value for w in at.warning)


def test_pages_show_predicates_as_people_spell_them(monkeypatch: pytest.MonkeyPatch, past_db: Path) -> None:
    # ICEWS14's "Make statement" showed as make_statement everywhere.
    with kgtoolkit.open(past_db, read_only=True) as kg:
        spelled = kg.predicate_labels()
    at = _open(_app(monkeypatch, past_db), "graph")
    view = at.session_state["graph_view"]
    assert view.edges and all(e.label == spelled[e.predicate] for e in view.edges)
    assert any(" " in e.label for e in view.edges) and all(e.label in e.title for e in view.edges)
    at.switch_page("views/churn.py").run()
    assert not at.exception, [e.value for e in at.exception]
    pairs = at.dataframe[0].value["predicates"] if at.dataframe else []  # the busiest pairs' predicates, labelled
    assert len(pairs) and all(any(cell.startswith(label) for label in spelled.values()) for cell in pairs)
    assert not any(cell.startswith(p) for cell in pairs for p in spelled if p not in spelled.values())


def test_the_cap_notice_names_the_centre_by_its_name(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _app(monkeypatch, demo_db, entity="acme", all_time=True)
    at.run()
    at.selectbox(key="graph_hops").set_value(3).run()
    at.slider(key="graph_cap").set_value(10).run()
    view = at.session_state["graph_view"]
    assert view.center == "acme" and view.notice is not None
    assert "hops of Acme and" in view.notice and "of acme" not in view.notice


def test_node_cap_shows_what_was_left_out(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _app(monkeypatch, demo_db, entity=None, all_time=True)
    at.run()
    at.slider(key="graph_cap").set_value(10).run()
    view = at.session_state["graph_view"]
    assert len(view.nodes) == 10 and view.omitted_nodes == view.total_nodes - 10 > 0
    assert any("Left out" in w.value for w in at.warning)


def test_the_sidebar_counts_on_indexes_and_states_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The sidebar's tiles come from ``graph_counts`` (no scan of the facts' rows); the states (a scan of every fact)
    only once the "States" expander is open. Answers are cached for the whole server, shared by sessions, keyed on
    the graph's data version: a write by another handle (another process, for the server) shows in the next
    session's first view, the cache never serving the count from before it."""
    db = tmp_path / "demo.sqlite3"
    build_demo(db).close()

    def tiles(**state: object) -> dict[str, str]:
        at = _open(_app(monkeypatch, db, read_only=True, **state), "graph")
        return {m.label: m.value for m in at.sidebar.metric}

    with kgtoolkit.open(db, read_only=True) as kg:
        before = kg.stats()
    assert tiles() == {"Entities": f"{before.entities:,}", "Facts": f"{before.facts:,}"}
    shown = tiles(sidebar_states=True)
    assert (shown["Current"], shown["Ended"]) == (f"{before.current:,}", f"{before.ended:,}")
    with kgtoolkit.open(db) as kg:  # another writer; the dashboard reads read-only
        kg.add("new_service", "uses_queue", "Redis")
        after = kg.stats()
    assert after.facts == before.facts + 1
    shown = tiles(sidebar_states=True)
    assert (shown["Entities"], shown["Facts"], shown["Current"]) == (
        f"{after.entities:,}",
        f"{after.facts:,}",
        f"{after.current:,}",
    )


def test_read_only_disables_writes(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _open(_app(monkeypatch, demo_db, read_only=True), "conflicts")
    apply = [b for b in at.button if b.key and b.key.startswith("cf_apply_")]
    assert apply and all(b.disabled for b in apply)
    assert any("Read-only" in i.value for i in at.info)
    assert any("Read-only mode" in i.value for i in at.sidebar.info)
    at.switch_page("views/import_export.py").run()
    assert not at.exception and any("Read-only" in i.value for i in at.info)


def test_conflict_action_writes_when_not_read_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    build_demo(db).close()
    at = _open(_app(monkeypatch, db), "conflicts")
    apply = [b for b in at.button if b.key and b.key.startswith("cf_apply_")]
    assert len(apply) == 1 and not apply[0].disabled
    apply[0].click().run()
    assert not at.exception
    assert any("Ended fact" in s.value for s in at.success)
    with kgtoolkit.open(db, read_only=True) as kg:
        assert not any(g.needs_action for g in kg.conflicts())


@pytest.mark.parametrize("module", ["faiss", "sentence_transformers"])
def test_search_page_says_when_search_is_not_installed(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, module: str
) -> None:
    """Without one of the search packages (None in sys.modules: Python's own "cannot be imported"), the
    page says so and how to install it, and the rest of the dashboard is unaffected."""
    monkeypatch.setitem(sys.modules, module, None)
    at = _open(_app(monkeypatch, demo_db), "search")
    said = " ".join(i.value for i in at.info)
    assert "Semantic search is not installed" in said and module in said and "kgtoolkit[search]" in said
    assert not [b for b in at.button if b.key == "search_build"]


@pytest.mark.search_extra
def test_search_page_says_when_the_graph_is_not_indexed(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    at = _open(_app(monkeypatch, demo_db, read_only=True), "search")
    said = " ".join(i.value for i in at.info)
    assert "not indexed yet" in said
    build = [b for b in at.button if b.key == "search_build"]
    assert build and all(b.disabled for b in build)  # read-only: no index build here


@pytest.mark.search_extra
def test_search_page_finds_words_before_the_graph_is_indexed(monkeypatch: pytest.MonkeyPatch, demo_db: Path) -> None:
    """No index yet: the page still finds words through the database's full-text index (lexical mode only),
    with each hit's breakdown when asked."""
    at = _open(
        _app(monkeypatch, demo_db, read_only=True, search_query="Redis", search_kind="facts", search_explain=True),
        "search",
    )
    assert [c.options for c in at.get("segmented_control") if c.key == "search_mode"] == [["lexical"]]
    text = plain(" ".join(m.value for m in at.markdown))
    assert "Redis" in text
    why = [c.value for c in at.caption if c.value.startswith("Why: lexical")]
    assert why and all("vector" not in w for w in why)


@pytest.mark.search_extra
def test_search_page_finds_with_graph_context(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kgtoolkit import search

    db = tmp_path / "demo.sqlite3"
    build_demo(db).close()
    with kgtoolkit.open(db) as kg:
        search.index(kg)
    at = _open(_app(monkeypatch, db, search_query="which queue does my api use?", search_kind="facts"), "search")
    text = plain(" ".join(m.value for m in at.markdown))
    assert "uses_queue" in text and "SQLite" in text and "Redis" in text
    assert "current" in text and "history" in text
    at.session_state["search_mode"] = "vector"
    at.session_state["search_explain"] = True
    at.run()
    assert not at.exception and not at.error
    why = [c.value for c in at.caption if c.value.startswith("Why: ")]
    assert why and all(w.startswith("Why: vector") and "lexical" not in w for w in why)


def test_graph_data_matches_the_store(demo_db: Path) -> None:
    with kgtoolkit.open(demo_db, read_only=True) as kg:
        every = frames.facts(kg)
        for day in (
            "2025-01-06",
            "2025-09-15",
            "2026-10-12",
            "2026-10-13",
            "2030-01-01",
            "2026-10",
            "2026-10-12T09:00:00Z",
        ):
            assert frames.valid_at(every, day)["id"].to_list() == frames.facts(kg, as_of=day)["id"].to_list()
        view = graphview.build(every, center="dana_whitfield", hops=1)
        assert all(not n.id.startswith("dana@") for n in view.nodes)  # value facts are not nodes
        dana = next(n for n in view.nodes if n.id == "dana_whitfield")
        assert (
            "email: dana@acme.example" in dana.title and ("role", "VP Engineering", "2025-01-06", None) in dana.values
        )
        ended = [e for e in graphview.build(every, center="my_api").edges if not e.current]
        assert ended and all(e.dashes and e.color == graphview.ENDED_EDGE for e in ended)


def test_rendered_graph_is_offline(demo_db: Path) -> None:
    with kgtoolkit.open(demo_db, read_only=True) as kg:
        page = graphview.render_html(graphview.build(frames.facts(kg), center="my_api"))
    lowered = page.lower()
    assert "new vis.network" in lowered and "mynetwork" in lowered
    for host in ("jsdelivr", "cdnjs", "unpkg", "googleapis", '<link rel="stylesheet" href="http'):
        assert host not in lowered
    assert '<script src="http' not in lowered


@pytest.fixture(scope="module")
def team_db(postgres, demo_db: Path) -> str:
    """The demo graph copied into a PostgreSQL schema: the dashboard of a team."""
    from kgtoolkit.store import copy_graph

    url = postgres.new_schema()
    with kgtoolkit.open(demo_db, read_only=True) as source, kgtoolkit.open(url) as target:
        copy_graph(source, target)
    return url


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("read_only", [False, True])
def test_every_page_runs_on_a_postgres_graph(
    monkeypatch: pytest.MonkeyPatch, team_db: str, page: str, read_only: bool
) -> None:
    at = _open(_app(monkeypatch, team_db, entity="my_api", read_only=read_only), page)
    assert "***" in plain(" ".join(c.value for c in at.caption if c.value.startswith(FOOTER)))  # no password shown


def test_a_read_only_postgres_dashboard_uses_a_read_only_session(team_db: str) -> None:
    from kgtoolkit.dashboard import kgdash

    kg = kgdash.open_graph.__wrapped__(team_db, True)  # what the dashboard opens in --read-only mode
    try:
        with kg.engine.read() as cur:
            assert cur.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
        with pytest.raises(kgtoolkit.ReadOnly):
            kg.add("my_api", "uses_queue", "Kafka")
    finally:
        kg.close()


# ---------------------------------------------------------------------- the Clean up page (contract §14)


def planted(kg: kgtoolkit.KnowledgeGraph) -> None:
    """A small graph with duplicates planted: other spellings of entities, and a predicate's synonym."""
    kg.add("billing", "uses_db", "Postgres", valid_from="2024-01-01")
    kg.add("billing", "owned_by", "payments team")
    kg.add("api", "uses_database", "PostgreSQL", valid_from="2025-02-01")
    kg.add("Alice", "works_at", "Univ. of Melbourne")
    kg.add("Bob", "works_at", "University of Melbourne")
    kg.add("Carol", "works_at", "IBM")
    kg.add("Dan", "works_at", "International Business Machines")


@pytest.fixture
def planted_db(new_db) -> Path | str:
    db = new_db("planted")
    with kgtoolkit.open(db) as kg:
        planted(kg)
    return db


def _pairs(at: AppTest) -> list[frozenset[str]]:
    return [frozenset((p.a_name, p.b_name)) for p in at.session_state["cleanup_candidates"]]


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


NO_EMBEDDINGS = {"embeddings": False}
MELBOURNE = frozenset(("Univ. of Melbourne", "University of Melbourne"))
POSTGRES = frozenset(("Postgres", "PostgreSQL"))
IBM = frozenset(("IBM", "International Business Machines"))


def test_the_cleanup_page_lists_the_librarys_candidates_with_their_reasons(
    monkeypatch: pytest.MonkeyPatch, planted_db: Path | str
) -> None:
    at = _open(_app(monkeypatch, planted_db), "cleanup")
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        want = kg.duplicates(**NO_EMBEDDINGS)
        preds = kg.duplicates(kind="predicates", **NO_EMBEDDINGS)
    assert tuple(at.session_state["cleanup_candidates"]) == want.items and {MELBOURNE, POSTGRES, IBM} <= set(_pairs(at))
    said = plain(" ".join(c.value for c in at.caption))
    assert all(reason in said for pair in want for reason in pair.reasons)  # each pair says why
    assert [m.value for m in at.metric if m.label == "Candidates"] == [f"{want.total:,}"]
    buttons = {b.key: b for b in at.button}
    for pair in want:
        key = f"entities|{pair.a}|{pair.b}"
        assert buttons[f"cleanup_merge_{key}"].label == "Merge" and not buttons[f"cleanup_merge_{key}"].disabled
        assert buttons[f"cleanup_not_same_{key}"].label == "Not the same"
    assert any("`alias` refuses a name that is an entity already" in c.value for c in at.caption)  # says which call
    at.segmented_control(key="cleanup_kind").set_value("predicates").run()
    _ok(at)
    assert tuple(at.session_state["cleanup_candidates"]) == preds.items
    assert frozenset(("uses_db", "uses_database")) in _pairs(at)
    assert {b.label for b in at.button if b.key.startswith("cleanup_alias_")} == {"Make alias"}
    assert not [b for b in at.button if b.key.startswith("cleanup_merge_")]


def _confirm(at: AppTest, key: str) -> None:
    """Merge / Make alias a pair: the first click asks, Confirm does it."""
    at.button(key=f"cleanup_{key}").click().run()
    _ok(at)
    at.button(key=f"cleanup_confirm_{key.split('_', 1)[1]}").click().run()


def test_merge_asks_first_and_only_confirm_merges(monkeypatch: pytest.MonkeyPatch, planted_db: Path | str) -> None:
    at = _open(_app(monkeypatch, planted_db), "cleanup")
    key = "entities|postgres|postgresql"
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        before = dump(kg)
    assert not [b for b in at.button if b.key.startswith("cleanup_confirm_")] and not at.warning
    at.button(key=f"cleanup_merge_{key}").click().run()
    _ok(at)
    assert [w.value for w in at.warning] == [
        "Merge **Postgres** into **PostgreSQL**? **PostgreSQL** is kept; the 1 fact of **Postgres** move to it, and "
        "`Postgres` becomes an alias of it. The dashboard cannot undo a merge."
    ]
    assert {b.key for b in at.button if b.key.startswith(("cleanup_confirm_", "cleanup_cancel_"))} == {
        f"cleanup_confirm_{key}",
        f"cleanup_cancel_{key}",
    }
    assert at.button(key=f"cleanup_confirm_{key}").label == "Confirm merge" and not at.success
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert dump(kg) == before  # the first click changed nothing
    assert POSTGRES in _pairs(at)
    # the kept side chosen after asking: the question says so, and Confirm merges that way
    at.radio(key=f"cleanup_keep_{key}").set_value("postgres").run()
    assert "**Postgres** is kept" in at.warning[0].value
    at.button(key=f"cleanup_cancel_{key}").click().run()
    _ok(at)
    assert not at.warning and not [b for b in at.button if b.key.startswith("cleanup_confirm_")]
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert dump(kg) == before and POSTGRES in _pairs(at)  # Cancel changed nothing
    _confirm(at, f"merge_{key}")
    _ok(at)
    assert at.success[0].value.startswith("Merged **PostgreSQL** into **Postgres**") and not at.warning
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert kg.resolve("PostgreSQL") == "postgres"


def test_merge_moves_the_facts_to_the_entity_kept(monkeypatch: pytest.MonkeyPatch, planted_db: Path | str) -> None:
    at = _open(_app(monkeypatch, planted_db), "cleanup")
    # Postgres and PostgreSQL have one fact each: the longer name is kept unless another is chosen
    assert at.radio(key="cleanup_keep_entities|postgres|postgresql").value == "postgresql"
    _confirm(at, "merge_entities|postgres|postgresql")
    _ok(at)
    assert at.success[0].value == (
        "Merged **Postgres** into **PostgreSQL**: 1 fact moved; `Postgres` is an alias of it now."
    )
    assert POSTGRES not in _pairs(at) and {MELBOURNE, IBM} <= set(_pairs(at))  # the list is read again
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert kg.resolve("Postgres") == "postgresql"
        assert {(f.subject, f.object) for f in kg.query("PostgreSQL", direction="incoming")} == {
            ("billing", "postgresql"),
            ("api", "postgresql"),
        }
    # the other side kept: International Business Machines folds into IBM
    at.radio(key="cleanup_keep_entities|ibm|international_business_machines").set_value("ibm").run()
    _confirm(at, "merge_entities|ibm|international_business_machines")
    _ok(at)
    assert "into **IBM**" in at.success[0].value and IBM not in _pairs(at)
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert kg.resolve("International Business Machines") == "ibm"
        assert [f.subject for f in kg.query("IBM", direction="incoming")] == ["carol", "dan"]


def test_make_alias_folds_one_predicate_into_the_other(monkeypatch: pytest.MonkeyPatch, planted_db: Path | str) -> None:
    at = _open(_app(monkeypatch, planted_db, cleanup_kind="predicates"), "cleanup")
    key = "predicates|uses_database|uses_db"
    assert at.radio(key=f"cleanup_keep_{key}").value == "uses_database"
    at.button(key=f"cleanup_alias_{key}").click().run()
    assert [w.value for w in at.warning] == [
        "Fold `uses_db` into `uses_database`? `uses_database` is kept; the 1 fact of `uses_db` fold into it, and "
        "`uses_db` becomes a predicate alias of it. The dashboard cannot undo this."
    ]
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert "uses_db" in {p.id for p in kg.predicates()}  # asked, not done
    at.button(key=f"cleanup_confirm_{key}").click().run()
    _ok(at)
    assert at.success[0].value == ("Folded 1 fact of `uses_db` into `uses_database`; `uses_db` is an alias of it now.")
    assert frozenset(("uses_db", "uses_database")) not in _pairs(at)
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert kg.resolve_predicate("uses_db") == "uses_database"
        assert [f.predicate for f in kg.timeline("billing", predicates="uses_database")] == ["uses_database"]
        assert "uses_db" not in {p.id for p in kg.predicates()}


def test_not_the_same_is_remembered_and_never_listed_again(
    monkeypatch: pytest.MonkeyPatch, planted_db: Path | str
) -> None:
    at = _open(_app(monkeypatch, planted_db), "cleanup")
    at.button(key="cleanup_not_same_entities|univ._of_melbourne|university_of_melbourne").click().run()
    _ok(at)
    assert at.success[0].value == (
        f"Marked **{md_text('Univ. of Melbourne')}** and **University of Melbourne** as not the same: they are never "
        "suggested again."
    )
    assert MELBOURNE not in _pairs(at) and POSTGRES in _pairs(at)
    at.segmented_control(key="cleanup_kind").set_value("predicates").run()
    pair = at.session_state["cleanup_candidates"][0]
    at.button(key=f"cleanup_not_same_predicates|{pair.a}|{pair.b}").click().run()
    _ok(at)
    assert frozenset((pair.a_name, pair.b_name)) not in _pairs(at)
    with kgtoolkit.open(planted_db, read_only=True) as kg:
        assert MELBOURNE not in {frozenset((c.a_name, c.b_name)) for c in kg.duplicates(**NO_EMBEDDINGS)}
        assert (pair.a, pair.b) not in {(c.a, c.b) for c in kg.duplicates(kind="predicates", **NO_EMBEDDINGS)}
        assert [(r["kind"], r["a"], r["b"]) for r in dump(kg)["not_duplicates"]] == [
            ("entities", "univ._of_melbourne", "university_of_melbourne"),
            ("predicates", pair.a, pair.b),
        ]
        assert kg.entity("Univ. of Melbourne").id != kg.entity("University of Melbourne").id  # nothing merged
    again = _open(_app(monkeypatch, planted_db), "cleanup")  # a new session: still not listed
    assert MELBOURNE not in _pairs(again)


def test_an_action_that_fails_shows_the_librarys_error(monkeypatch: pytest.MonkeyPatch, planted_db: Path | str) -> None:
    at = _open(_app(monkeypatch, planted_db), "cleanup")
    at.button(key="cleanup_merge_entities|postgres|postgresql").click().run()  # asked
    with kgtoolkit.open(planted_db) as kg:  # meanwhile, someone else merges the pair
        kg.merge("Postgres", "PostgreSQL")
        with pytest.raises(kgtoolkit.KGError) as raised:
            kg.merge("postgres", "postgresql")  # what the stale button asks for: the pair's ids
    at.button(key="cleanup_confirm_entities|postgres|postgresql").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_text(f"[{raised.value.code}] {raised.value.message}")]
    assert POSTGRES not in _pairs(at) and MELBOURNE in _pairs(at)  # the list is the graph's as it is now


def test_a_read_only_graph_lists_the_pairs_with_the_buttons_disabled(
    monkeypatch: pytest.MonkeyPatch, planted_db: Path | str
) -> None:
    at = _open(_app(monkeypatch, planted_db, read_only=True), "cleanup")
    assert {MELBOURNE, POSTGRES, IBM} <= set(_pairs(at))
    actions = [b for b in at.button if b.key.startswith("cleanup_")]
    assert len(actions) == 2 * len(_pairs(at)) and all(b.disabled for b in actions)
    assert all(r.disabled for r in at.radio)
    assert all(b.help == "Disabled: the dashboard runs read\\-only \\(\\-\\-read\\-only\\)." for b in actions)
    assert any("Read-only: the dashboard runs read" in plain(i.value) for i in at.info)


def test_the_reason_a_graph_takes_no_writes(tmp_path: Path) -> None:
    from kgtoolkit.dashboard import data, kgdash

    db = tmp_path / "g.sqlite3"
    with kgtoolkit.open(db) as kg:
        planted(kg)
        assert kgdash.write_refusal(kgdash.Ctx(kg, str(db), False)) is None
        assert kgdash.write_refusal(kgdash.Ctx(kg, str(db), True)) == "the dashboard runs read-only (--read-only)"
    with kgtoolkit.open(db, read_only=True) as kg:
        assert kgdash.write_refusal(kgdash.Ctx(kg, str(db), False)) == "the graph is open read-only"
        with pytest.raises(kgtoolkit.InvalidRequest):  # an action of the other kind: refused, nothing written
            data.clean_up(kg, "entities", "alias", "postgres", "postgresql")


def test_a_long_list_is_paged_and_filtered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    db = tmp_path / "many.sqlite3"
    towns = [
        f"{x}{y}ton"
        for x in ("Bal", "Cor", "Dun", "Fal", "Gar", "Hol", "Kel", "Mor")
        for y in ("by", "ford", "ley", "mere", "wick", "stow", "ham")
    ]
    with kgtoolkit.open(db) as kg:
        for i, town in enumerate(towns):  # 56 universities, each also written abbreviated
            kg.add(f"person {i}", "studied_at", f"University of {town}")
            kg.add(f"person {i}", "works_at", f"Univ. of {town}")
        want = kg.duplicates(**NO_EMBEDDINGS)
    assert want.total >= len(towns)
    at = _open(_app(monkeypatch, db), "cleanup")

    def drawn() -> int:
        return len([b for b in at.button if b.key.startswith("cleanup_merge_")])

    assert len(at.session_state["cleanup_candidates"]) == want.total and drawn() == 25
    pages = -(-want.total // 25)
    assert at.number_input(key="cleanup_page").max == pages
    at.number_input(key="cleanup_page").set_value(pages).run()
    _ok(at)
    assert drawn() == want.total - 25 * (pages - 1)
    shown = [b.key.split("|", 1)[1] for b in at.button if b.key.startswith("cleanup_merge_")]
    assert shown == [f"{p.a}|{p.b}" for p in want.items[25 * (pages - 1) :]]
    at.selectbox(key="cleanup_per_page").set_value(100).run()
    assert drawn() == min(100, want.total) and at.number_input(key="cleanup_page").value == 1
    at.text_input(key="cleanup_filter").set_value("morfordton").run()
    _ok(at)
    assert frozenset(("University of Morfordton", "Univ. of Morfordton")) in _pairs(at)
    assert all(any("morfordton" in name.casefold() for name in pair) for pair in _pairs(at))
    assert drawn() == len(_pairs(at)) == len([p for p in want if "Morfordton" in p.a_name + p.b_name])
    at.text_input(key="cleanup_filter").set_value("no such town").run()
    assert _pairs(at) == [] and any("match the filter" in s.value for s in at.success)
    at.text_input(key="cleanup_filter").set_value("").run()
    at.slider(key="cleanup_min_score").set_value(1.0).run()
    _ok(at)
    assert len(_pairs(at)) == kgtoolkit.open(db, read_only=True).duplicates(min_score=1.0, **NO_EMBEDDINGS).total


def test_the_cleanup_page_on_a_graph_of_real_events(monkeypatch: pytest.MonkeyPatch, past_db: Path) -> None:
    """ICEWS14's actors and event types (or made-up ones like them): the page lists what the library finds."""
    at = _open(_app(monkeypatch, past_db), "cleanup")
    with kgtoolkit.open(past_db, read_only=True) as kg:
        for kind in ("entities", "predicates"):
            want = kg.duplicates(kind=kind, **NO_EMBEDDINGS)
            if kind == "predicates":
                at.segmented_control(key="cleanup_kind").set_value(kind).run()
                _ok(at)
            assert tuple(at.session_state["cleanup_candidates"]) == want.items
            assert len([b for b in at.button if b.key.startswith("cleanup_not_same_")]) == min(25, want.total)


@pytest.mark.parametrize(
    ("params", "said", "entity"),
    [
        ({"as_of": "31/12/2024"}, "is not a date (write it YYYY-MM-DD", "my_api"),
        ({"as_of": "2026-13-01", "span": "week"}, "span “week” is not one of day, month, year, range", "my_api"),
        ({"entity": "my_apii"}, "does not have: “my_apii”. Did you mean: my_api?", None),
        ({"entity": "My API"}, None, "my_api"),  # a name typed into the link resolves like one typed in the page
    ],
)
def test_a_mistyped_link_says_what_it_could_not_show(
    monkeypatch: pytest.MonkeyPatch, demo_db: Path, params: dict[str, str], said: str | None, entity: str | None
) -> None:
    at = _app(monkeypatch, demo_db, **({} if "entity" in params else {"entity": "my_api"}))
    for key, value in params.items():
        at.query_params[key] = value
    _open(at, "graph")
    warnings = [w.value.replace("\\", "") for w in at.warning]  # as read: without Markdown escapes
    if said is None:
        assert not any("link" in w for w in warnings), warnings
    else:
        assert any(said in w for w in warnings), warnings
    chosen = at.session_state.get("entity")
    assert chosen == entity if entity else chosen != "my_apii"
    at.run()  # said once: the next run of the page is quiet
    assert not any("The link" in w.value for w in at.warning)


def test_a_long_history_lists_its_last_ended_facts_and_says_how_many_more(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A group of 30 ended facts and two current ones lists the two and its last 20 ended (issue 43), and says how
    many more there are, on the engine's page and on the whole table's (a text filter)."""
    db = tmp_path / "long.sqlite3"
    with kgtoolkit.open(db) as kg:
        for i in range(30):
            kg.add("svc", "owned_by", f"team {i % 3}", valid_from=f"{1990 + i}-01-01", valid_to=f"{1990 + i}-06-01")
        kg.add("svc", "owned_by", "team a", valid_from="2024-01-01")
        kg.add("svc", "owned_by", "team b", valid_from="2025-01-01")
    at = _open(_app(monkeypatch, db), "conflicts")
    assert any("10 more ended facts" in c.value for c in at.caption), [c.value for c in at.caption]
    at.text_input(key="conflicts_filter").set_value("owned").run()
    assert not at.exception and any("10 more ended facts" in c.value for c in at.caption)


def test_the_entity_page_of_an_event_graph_shows_what_is_likely_next(
    monkeypatch: pytest.MonkeyPatch, past_db: Path
) -> None:
    """The forecast's likely objects of the entity's busiest kinds of event (issue #49), as the library answers."""
    from kgtoolkit.dashboard.likely import likely_next

    with kgtoolkit.open(past_db, read_only=True) as kg:
        busiest = frames.facts(kg)["subject"].value_counts(sort=True)["subject"][0]
        want = likely_next(kg, busiest)
    assert want.height
    at = _open(_app(monkeypatch, past_db, entity=busiest), "entity")
    assert any(e.label.startswith("Likely next") for e in at.expander)
    shown = at.dataframe[-1].value
    assert shown["object"].tolist() == want["object"].to_list()

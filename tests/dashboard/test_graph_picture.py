"""The graph picture's data, free of a browser: the time view's periods and what each shows (twin of the frame
path: ``frames.valid_at`` of each period), places that stay put, colours by community where types say nothing,
labels, the notebook view and the animation. Both engines (the ``kg`` fixture)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import KnowledgeGraph, frames
from kgtoolkit.dashboard import graphview
from kgtoolkit.dashboard._text import plain
from kgtoolkit.dashboard.picture import style
from kgtoolkit.dashboard.picture.timeview import periods, time_view
from kgtoolkit.dashboard.timegraph import time_graph, window_days


def _history(kg: KnowledgeGraph) -> None:
    """Two clusters over 2014: meetings (events) in one, terms of office (states) in the other, and a stray node."""
    for month in range(1, 13):
        day = f"2014-{month:02d}-10"
        kg.add(f"person{month % 4}", "met", f"person{(month + 1) % 4}", valid_from=day, valid_to=day)
    kg.add("office_a", "held_by", "mayor_1", valid_from="2014-01-01", valid_to="2014-05-31")
    kg.add("office_a", "held_by", "mayor_2", valid_from="2014-06-01")
    kg.add("office_b", "held_by", "mayor_2", valid_from="2014-03-01", valid_to="2014-09-30")
    kg.add("office_a", "part_of", "city", valid_from="2014-01-01")
    kg.add("loner", "email", "loner@example.org", valid_from="2014-01-01")


def test_each_period_shows_what_frames_say_is_valid_in_it(kg: KnowledgeGraph) -> None:
    _history(kg)
    shown = time_graph(kg, every="1mo")
    tv = shown.time
    assert tv.every == "1mo" and tv.periods[0] == "2014-01" and tv.periods[-1] == "2014-12"
    assert tv.measure == "facts valid and events" and len(tv.activity) == len(tv.periods)
    facts = frames.facts(kg)
    owner = {i: e.id for e in tv.view.edges for i in e.ids}
    for i, first in enumerate(tv.starts):
        last = (tv.starts[i + 1] - dt.timedelta(days=1)) if i + 1 < len(tv.starts) else dt.date(2014, 12, 31)
        valid = frames.valid_at(facts, f"{first.isoformat()}/{last.isoformat()}")
        edges = {owner[f] for f in valid["id"].to_list() if f in owner}
        nodes, drawn = tv.visible(i, i)
        assert drawn == edges, tv.periods[i]  # the page's rule agrees with frames.valid_at, period by period
        linked = {e.source for e in tv.view.edges if e.id in drawn} | {e.target for e in tv.view.edges if e.id in drawn}
        assert linked <= nodes
    assert "mayor_1" in tv.visible(0, 0)[0] and "mayor_1" not in tv.visible(8, 8)[0]
    assert tv.visible(0, len(tv.periods) - 1)[1] == {e.id for e in tv.view.edges}


def test_one_layout_for_every_date_and_the_window_follows_the_day(kg: KnowledgeGraph) -> None:
    _history(kg)
    march = time_graph(kg, every="1mo", at="2014-03-15")
    june = time_graph(kg, every="1mo", at="2014-06-02")
    assert (march.time.start, june.time.start) == (2, 5) and march.time.width == june.time.width == 1
    assert graphview.layout(march.time.view) == graphview.layout(june.time.view)
    whole = time_graph(kg, every="1mo")
    assert (whole.time.start, whole.time.width) == (0, 12)
    spring = march.time.at(dt.date(2014, 3, 1), dt.date(2014, 5, 31))
    assert (spring.start, spring.width) == (2, 3)
    assert window_days("2014") == (dt.date(2014, 1, 1), dt.date(2014, 12, 31))
    assert window_days("2014-02-01/2014-03-05") == (dt.date(2014, 2, 1), dt.date(2014, 3, 5))


def test_the_page_the_notebook_and_the_animation(kg: KnowledgeGraph, tmp_path: Path) -> None:
    _history(kg)
    shown = time_graph(kg, every="1mo", at="2014-03-15")
    page = shown.html()
    assert "kgTime" in page and '"start": 2' in page and "jsdelivr" not in page and "<script src=" not in page
    assert shown._repr_html_().startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in shown._repr_html_()
    assert shown.save(tmp_path / "g.html").read_text(encoding="utf-8") == page
    svg = shown.save_svg(tmp_path / "g.svg").read_text(encoding="utf-8")
    root = ET.fromstring(svg)  # well-formed: a report embeds it as it is
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert set(shown.time.periods) <= set(texts)
    assert len(list(root.iter("{http://www.w3.org/2000/svg}animate"))) >= len(shown.time.view.nodes)


def test_unknown_types_are_coloured_by_community_with_a_legend(kg: KnowledgeGraph) -> None:
    for i in range(5):  # two triangles-plus joined by one edge, every entity of type unknown
        kg.add(f"a{i}", "links", f"a{(i + 1) % 5}")
        kg.add(f"b{i}", "links", f"b{(i + 1) % 5}")
        kg.add(f"a{i}", "links", f"a{(i + 2) % 5}")
        kg.add(f"b{i}", "links", f"b{(i + 2) % 5}")
    kg.add("a0", "links", "b0")
    view = graphview.build(frames.facts(kg))
    assert view.grouping == "community"
    color = {n.id: n.color for n in view.nodes}
    assert len({color[f"a{i}"] for i in range(5)}) == 1 and color["a1"] != color["b1"]
    assert [name for name, _ in view.legend] == sorted(name for name, _ in view.legend) or len(view.legend) == 2
    assert all(name.startswith("around ") for name, _ in view.legend)
    kind = {
        c: pl.when(pl.col(c.replace("_type", "")).str.starts_with("a"))
        .then(pl.lit("person"))
        .otherwise(pl.lit("company"))
        for c in ("subject_type", "object_type")
    }
    typed = graphview.build(frames.facts(kg).with_columns(**kind))
    assert typed.grouping == "type" and {n for n, _ in typed.legend} == {
        "person",
        "company",
    }  # types that say something


def test_the_layout_gathers_loose_nodes_below_and_keeps_nodes_apart(kg: KnowledgeGraph) -> None:
    for i in range(12):
        kg.add("hub", "links", f"n{i}")
    kg.add("x", "links", "y")
    view = graphview.build(frames.facts(kg), max_edges=12)  # the edge cap leaves the oldest edge's end unlinked
    where = graphview.layout(view)
    assert view.isolated == ["n0"]
    linked = [where[n] for n in view.node_ids if n not in view.isolated]
    assert min(where[n][1] for n in view.isolated) > max(y for _, y in linked)
    size = {n.id: n.size for n in view.nodes}
    ids = sorted(where)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            (ax, ay), (bx, by) = where[a], where[b]
            assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= size[a] + size[b], (a, b)


def test_labels_go_to_the_most_connected() -> None:
    nodes = [(f"n{i}", i) for i in range(50)]
    chosen = style.labelled(nodes)
    assert chosen == {f"n{i}" for i in range(30, 50)}
    assert "n0" in style.labelled(nodes, "n0")


@settings(max_examples=40, deadline=None)
@given(
    st.dates(dt.date(1, 1, 1), dt.date(9000, 1, 1)),
    st.integers(0, 40_000),
    st.sampled_from([None, "1d", "1w", "1mo", "1y", "10y"]),
)
def test_periods_cover_the_range_in_order(first: dt.date, days: int, every: str | None) -> None:
    last = min(first + dt.timedelta(days=days), dt.date(9999, 1, 1))
    length, starts = periods(first, last, every)
    assert starts == sorted(set(starts)) and starts[0] <= first
    assert len(starts) <= 400
    if every is None:
        assert len(starts) <= 120 or length == "10y"
    if len(starts) < 400:
        assert starts[-1] <= last


def test_facts_outside_the_range_clip_to_its_ends() -> None:
    view = graphview.GraphView((), (), None, 1, 10, 0, 0, 0, 0, (), 0)
    tv = time_view(
        view,
        pl.DataFrame(schema={"id": pl.Int64, "start": pl.Datetime("us", "UTC"), "end": pl.Datetime("us", "UTC")}),
        first=dt.date(2014, 1, 1),
        last=dt.date(2014, 3, 1),
        every="1mo",
    )
    assert tv.periods == ("2014-01", "2014-02", "2014-03") and tv.activity == (0, 0, 0)


# ---------------------------------------------------------------------- the pages (Streamlit's AppTest)


def test_the_paths_page_names_predicates_by_their_labels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from test_dashboard import _app, _open

    db = tmp_path / "paths.sqlite3"
    with kgtoolkit.open(db) as kg:
        kg.add("Ann", "Works At", "Acme")  # the predicate's id is works_at, its label "Works At"
        kg.add("Acme", "Based In", "Oslo")
    at = _open(_app(monkeypatch, db, entity="ann", paths_target="oslo", all_time=True), "paths")
    steps = [plain(m.value) for m in at.markdown if "→" in m.value]
    assert any("—Works At→" in s and "—Based In→" in s for s in steps), steps
    assert not any("works_at" in s or "based_in" in s for s in steps)


def test_the_graph_page_draws_through_time_and_follows_the_date(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from test_dashboard import _app, _open

    db = tmp_path / "history.sqlite3"
    with kgtoolkit.open(db) as kg:
        _history(kg)
    at = _open(_app(monkeypatch, db, as_of=dt.date(2014, 3, 15)), "graph")
    tv = at.session_state["graph_time_view"]
    assert tv.periods[0] <= "2014-03-10" <= tv.periods[-1] and len(tv.view.nodes) >= 8
    assert at.session_state["graph_view"].nodes  # the date's own view, for the facts table
    at.toggle(key="graph_time").set_value(False).run()
    assert not at.exception and "graph_view" in at.session_state

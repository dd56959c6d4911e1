"""The library work behind the dashboard's pages: the dry-run import (the Import page's preview) and the
entity ranking (every entity list), on both backends. The pages only call these."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import InvalidRequest, InvalidRows, KnowledgeGraph, analysis, frames, io

ROWS = (
    "subject,predicate,object,valid_from,valid_to,subject_type\n"
    "my_api,uses_cache,Memcached,2026-11-02,,\n"
    "my_api,uses_queue,Redis,2026-03-02,,\n"  # already in the graph
    "Ada Brooks,works_at,Acme,19##,,\n"  # line 4: a bad date
    'checkout_api,depends_on,"search, billing",2026-01-01,,\n'  # line 5: a packed list
    "Ada Brooks,member_of,payments_team,2026-11-20,2026-11-01,\n"  # line 6: ends before it starts
    "billing,runs_on,k8s,2026-01-01,,service\n"
)  # line 7: a type this graph lacks


def where(kg: KnowledgeGraph) -> Path | str:
    return kg.location.url if kg.location.url is not None else kg.location.path


@pytest.fixture
def upload(tmp_path: Path) -> Path:
    path = tmp_path / "facts.csv"
    path.write_text(ROWS, encoding="utf-8")
    return path


@pytest.fixture
def graph(new_db: Callable[[str], Path | str]) -> Iterator[KnowledgeGraph]:
    kg = kgtoolkit.open(new_db("graph"))
    kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    yield kg
    kg.close()


def _problems(report: kgtoolkit.ImportReport) -> list[tuple[int, str, str]]:
    return sorted((r["line"], r["field"], r["code"]) for r in report.rejects)


def test_a_dry_run_reports_what_the_import_would_and_writes_nothing(
    graph: KnowledgeGraph, upload: Path, dump: Callable[[Path | str], list[str]]
) -> None:
    before = dump(where(graph))
    dry = io.import_file(graph, upload, on_error="skip", dry_run=True, comma_guard=True)
    assert dump(where(graph)) == before
    assert (dry.rows, dry.rejected, dry.inserted, dry.duplicates, dry.entities_created) == (6, 4, 0, 0, 0)
    assert _problems(dry) == [
        (4, "valid_from", "invalid_date"),
        (5, "object", "comma_list"),
        (6, "valid_to", "interval_order"),
        (7, "subject_type", "unknown_type"),
    ]

    real = io.import_file(graph, upload, on_error="skip", comma_guard=True)
    assert (real.rows, real.rejected, real.rejects) == (dry.rows, dry.rejected, dry.rejects)
    assert (real.inserted, real.duplicates) == (1, 1)  # only a real import looks the rows up in the graph


def test_a_dry_run_follows_the_graphs_settings_and_the_options(graph: KnowledgeGraph, upload: Path) -> None:
    graph.configure(types=["service"])
    checked = io.import_file(graph, upload, on_error="skip", dry_run=True)  # the comma guard is off for a file
    assert _problems(checked) == [(4, "valid_from", "invalid_date"), (6, "valid_to", "interval_order")]
    assert any("1 name(s) or value(s) hold a comma ('search, billing')" in w for w in checked.warnings)
    guarded = io.import_file(graph, upload, on_error="skip", dry_run=True, comma_guard=True)
    assert 5 in {r["line"] for r in guarded.rejects}


def test_a_dry_run_refuses_like_the_import_and_writes_the_rejects_file(
    graph: KnowledgeGraph, upload: Path, tmp_path: Path
) -> None:
    with pytest.raises(InvalidRows) as refused:
        io.import_file(graph, upload, dry_run=True, rejects=tmp_path / "dry-rejects.csv")
    with pytest.raises(InvalidRows) as real:
        io.import_file(graph, upload, rejects=tmp_path / "rejects.csv")
    assert refused.value.data["rows"] == real.value.data["rows"]
    assert (tmp_path / "dry-rejects.csv").read_text() == (tmp_path / "rejects.csv").read_text()
    assert graph.stats().facts == 1


def test_a_dry_run_works_on_a_read_only_graph(graph: KnowledgeGraph, upload: Path) -> None:
    with kgtoolkit.open(where(graph), read_only=True) as reader:
        assert io.import_file(reader, upload, on_error="skip", dry_run=True, comma_guard=True).rejected == 4
        with pytest.raises(kgtoolkit.ReadOnly):
            io.import_file(reader, upload, on_error="skip")


def test_a_dry_run_of_a_dump_is_refused(graph: KnowledgeGraph, tmp_path: Path) -> None:
    io.export_file(graph, tmp_path / "graph.json")
    with pytest.raises(InvalidRequest) as refused:
        io.import_file(graph, tmp_path / "graph.json", dry_run=True)
    assert refused.value.data["field"] == "dry_run"


def test_the_bulk_import_dry_run_returns_the_bad_rows(graph: KnowledgeGraph, upload: Path) -> None:
    from kgtoolkit.store import import_facts

    report, bad = import_facts(graph, io.read_facts_file(upload), on_error="skip", dry_run=True, comma_guard=True)
    assert bad["line"].unique().sort().to_list() == [4, 5, 6, 7] and report.rejected == 4
    assert graph.stats().facts == 1


# ---------------------------------------------------------------------- the entity ranking


def test_most_connected_counts_both_directions_and_lists_every_entity(kg: KnowledgeGraph) -> None:
    kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
    kg.add("billing", "uses_queue", "SQLite")
    kg.add("billing", "email", "billing@acme.example")
    kg.add("Loop", "related_to", "Loop")  # a fact from an entity to itself: once out, once in
    kg.add("Ada Brooks", "role", "engineer", subject_type="person")  # a value fact: outgoing only
    every = analysis.most_connected(frames.facts(kg), frames.entities(kg))
    assert every.columns == list(analysis.CONNECTED_SCHEMA)
    rows = {r["id"]: (r["facts"], r["outgoing"], r["incoming"]) for r in every.iter_rows(named=True)}
    assert rows == {
        "my_api": (2, 2, 0),
        "sqlite": (2, 0, 2),
        "billing": (2, 2, 0),
        "redis": (1, 0, 1),
        "loop": (2, 1, 1),
        "ada_brooks": (1, 1, 0),
    }
    assert every["id"].to_list() == ["billing", "loop", "my_api", "sqlite", "ada_brooks", "redis"]  # ties by id
    named = dict(zip(every["id"], every["name"]))
    assert named["ada_brooks"] == "Ada Brooks" and named["sqlite"] == "SQLite"
    assert dict(zip(every["id"], every["type"]))["ada_brooks"] == "person"

    from_facts = analysis.most_connected(frames.facts(kg))
    assert from_facts.select("id", "name", "type", "facts").rows() == every.select("id", "name", "type", "facts").rows()
    assert analysis.most_connected(frames.facts(kg), top=2)["id"].to_list() == ["billing", "loop"]


def test_most_connected_keeps_entities_without_facts_and_takes_pandas(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b")
    kg.merge("b", "a")  # a fact from a to itself
    entities = pl.DataFrame({"id": ["a", "lonely"], "name": ["A", "Lonely"], "type": ["person", "unknown"]})
    ranked = analysis.most_connected(frames.facts(kg), entities)
    assert ranked.rows() == [("a", "A", "person", 2, 1, 1), ("lonely", "Lonely", "unknown", 0, 0, 0)]
    as_pandas = analysis.most_connected(frames.facts(kg, backend="pandas"), entities.to_pandas())
    assert as_pandas["id"].tolist() == ["a", "lonely"] and as_pandas["facts"].tolist() == [2, 0]
    empty = analysis.most_connected(frames.facts(kgtoolkit.open(":memory:")))
    assert empty.height == 0 and empty.schema == pl.Schema(analysis.CONNECTED_SCHEMA)


def test_most_connected_refuses_bad_input(kg: KnowledgeGraph) -> None:
    with pytest.raises(InvalidRequest):
        analysis.most_connected(frames.facts(kg), top=-1)
    with pytest.raises(InvalidRequest) as missing:
        analysis.most_connected(frames.facts(kg), pl.DataFrame({"id": ["a"]}))
    assert missing.value.data["field"] == "name"


# ---------------------------------------------------------------------- event graphs and windows (graphview)


def _events(kg: KnowledgeGraph) -> None:
    """ICEWS-like: one day each; Obama criticises China on five days, praises it once, meets Xi once."""
    for day in ("2014-01-03", "2014-02-10", "2014-02-11", "2014-05-01", "2014-11-20"):
        kg.add("Barack Obama", "criticize", "China", valid_from=day, valid_to=day)
    kg.add("Barack Obama", "praise", "China", valid_from="2014-03-01", valid_to="2014-03-01")
    kg.add("Barack Obama", "meet", "Xi Jinping", valid_from="2014-02-10", valid_to="2014-02-10")


def test_a_repeated_fact_is_one_edge_with_its_count_and_span(kg: KnowledgeGraph) -> None:
    from kgtoolkit.dashboard import graphview

    _events(kg)
    facts = frames.facts(kg)
    view = graphview.build(facts, center="barack_obama")
    by_predicate = {e.predicate: e for e in view.edges}
    criticize = by_predicate["criticize"]
    want = facts.filter(pl.col("predicate") == "criticize")["id"].sort().to_list()
    assert criticize.count == 5 and sorted(criticize.ids) == want and criticize.id == max(want)
    assert (criticize.valid_from, criticize.valid_to) == ("2014-01-03", "2014-11-20")
    assert "5 events, 2014-01-03 … 2014-11-20" in criticize.title and criticize.width > by_predicate["praise"].width
    # Events (contract §12) are their own kind: solid, in the event colour, never the grey of an ended edge.
    assert criticize.event and not criticize.dashes and criticize.color == graphview.EVENT_EDGE
    assert "ended" not in criticize.title
    assert by_predicate["praise"].count == 1 and by_predicate["praise"].ids == (by_predicate["praise"].id,)
    assert len(view.edges) == 3 and view.fact_count == 7 and sorted(view.edge_ids) == sorted(facts["id"].to_list())


@pytest.mark.parametrize(
    ("window", "days"),
    [
        ("2014-02", {"2014-02-10", "2014-02-11"}),
        ("2014", None),
        ("2014-02-11/2014-05-01", {"2014-02-11", "2014-03-01", "2014-05-01"}),
        ("2014-02-10", {"2014-02-10"}),
        ("2015/2016", set()),
    ],
)
def test_a_window_keeps_the_facts_that_overlap_it(kg: KnowledgeGraph, window: str, days: set[str] | None) -> None:
    _events(kg)
    facts = frames.facts(kg)
    kept = frames.valid_at(facts, window)
    assert set(kept["valid_from"].to_list()) == (days if days is not None else set(facts["valid_from"].to_list()))
    if "/" not in window:  # a day, a month or a year: the store's own as_of
        assert sorted(kept["id"].to_list()) == sorted(frames.facts(kg, as_of=window)["id"].to_list())
    with pytest.raises(InvalidRequest, match="ends before it starts"):
        frames.valid_at(facts, "2014-05-01/2014-02-01")


# ---------------------------------------------------------------------- the drawing's layout (graphview)


def test_the_layout_places_every_node_apart_the_same_way_each_time(kg: KnowledgeGraph) -> None:
    from kgtoolkit.dashboard import graphview

    for i in range(40):  # a hub with a ring of neighbours, some linked to each other, and a loose pair
        kg.add("hub", "links", f"n{i}")
        if i % 3 == 0:
            kg.add(f"n{i}", "links", f"n{(i + 1) % 40}")
    kg.add("loose_a", "links", "loose_b")
    facts = frames.facts(kg)
    for view in (graphview.build(facts, center="hub"), graphview.build(facts)):
        where = graphview.layout(view)
        assert set(where) == set(view.node_ids) and where == graphview.layout(view)
        size = {n.id: n.size for n in view.nodes}
        ids = sorted(where)
        for i, a in enumerate(ids):  # no two nodes drawn over each other
            for b in ids[i + 1 :]:
                (ax, ay), (bx, by) = where[a], where[b]
                assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= size[a] + size[b], (a, b)
        if view.center:
            assert where["hub"] == (0.0, 0.0)
            far = max((x * x + y * y) ** 0.5 for x, y in where.values())
            assert far < 120 * 10  # a ring around the centre, not scattered
    assert graphview.layout(graphview.build(facts.head(0))) == {}


def test_the_page_draws_at_the_layouts_places_without_physics(kg: KnowledgeGraph) -> None:
    import json
    import re

    from kgtoolkit.dashboard import graphview

    kg.add("my_api", "uses_queue", "Redis")
    kg.add("my_api", "caches_in", "Redis")  # two edges between the same nodes: each bends its own way
    kg.add("Redis", "serves", "my_api")
    kg.add("my_api", "owned_by", "platform_team")
    view = graphview.build(frames.facts(kg), center="my_api")
    page = graphview.render_html(view)
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((.*?)\);\n", page).group(1))
    edges = json.loads(re.search(r"edges = new vis\.DataSet\((.*?)\);\n", page).group(1))
    where = graphview.layout(view)
    assert {n["id"]: (n["x"], n["y"]) for n in nodes} == where
    options = json.loads(re.search(r"var options = (\{.*?\});\n", page, re.DOTALL).group(1))
    assert options["physics"]["enabled"] is False and options["layout"]["improvedLayout"] is False
    bends = {(e["from"], e["to"], e["label"]): e.get("smooth") for e in edges}
    assert bends[("my_api", "platform_team", "owned_by")] is None  # alone: straight
    shared = [bends[k] for k in bends if {"my_api", "redis"} == {k[0], k[1]}]
    assert all(s and s["type"] == "curvedCW" for s in shared)
    assert sorted(s["roundness"] for s in shared) == [0.2, 0.2, 0.4]
    # Only the editing and navigation buttons' images are left out of vis-network's stylesheet.
    assert "div.vis-tooltip" in page and "data:image" not in page and len(page) < 700_000
    assert graphview.render_html(view, physics=True).count('"physics": {"enabled": true') == 1

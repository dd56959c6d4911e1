"""The whole-table read path: here through sqlite3 for small tables, else in the reader process, as two
id ranges on two connections pinned to one snapshot; and its fallbacks.

No test here measures a time (the benchmarks do, in benchmarks/).
"""

from __future__ import annotations

import sqlite3

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import analysis, frames
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts, read_table
from kgtoolkit.store.engine import _sqlite


@pytest.fixture()
def graph(tmp_path):
    kg = kgtoolkit.open(tmp_path / "g.sqlite3")
    import_facts(kg, generate(3_000, seed=5))
    first = next(f for f in kg.timeline() if f.current)
    kg.invalidate(first.subject, first.predicate, first.object, ended="2026-06-30")
    yield kg
    kg.close()


def three_ways(monkeypatch, fn):
    """``fn()`` read here through sqlite3, in the reader process on one connection, and split over two."""
    local = fn()
    monkeypatch.setattr(_sqlite, "SMALL", 0)
    monkeypatch.setattr(_sqlite, "SPLIT_MIN", 10**12)
    single = fn()
    monkeypatch.setattr(_sqlite, "SPLIT_MIN", 10)
    split = fn()
    return local, single, split


@pytest.mark.parametrize(
    "filters",
    [{}, {"as_of": "2025-01-01"}, {"predicate": "works_at"}, {"known_at": "2999-01-01", "current_only": True}],
)
def test_every_read_path_gives_the_same_table(graph, monkeypatch, filters):
    local, single, split = three_ways(monkeypatch, lambda: read_table(graph, "facts", **filters))
    assert split.to_pylist() == single.to_pylist() == local.to_pylist()
    assert split.schema == single.schema == local.schema
    local, single, split = three_ways(monkeypatch, lambda: frames.facts(graph, **filters))
    assert split.equals(single) and single.equals(local)
    assert split["id"].is_sorted()


@pytest.mark.parametrize("table", ["entities", "aliases", "memories"])
def test_other_tables_read_the_same_here_and_in_the_reader(graph, monkeypatch, table):
    graph.alias("the first", graph.entities(limit=1)[0].id)
    graph.remember("a note")
    local = read_table(graph, table)
    monkeypatch.setattr(_sqlite, "SMALL", 0)
    assert read_table(graph, table).to_pylist() == local.to_pylist()


def test_a_running_write_makes_the_read_use_one_connection(graph, monkeypatch):
    monkeypatch.setattr(_sqlite, "SMALL", 0)
    monkeypatch.setattr(_sqlite, "SPLIT_MIN", 10)
    expected = frames.facts(graph)
    writer = sqlite3.connect(str(graph.location.path), isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM facts")  # not committed: readers still see every fact
        assert frames.facts(graph).equals(expected)  # the pin is not free at once: one connection reads
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_read_only_graph_reads_the_same(graph, monkeypatch):
    monkeypatch.setattr(_sqlite, "SMALL", 0)
    monkeypatch.setattr(_sqlite, "SPLIT_MIN", 10)
    expected = frames.facts(graph)
    with kgtoolkit.open(graph.location, read_only=True) as ro:
        assert frames.facts(ro).equals(expected)


def test_conflicts_do_not_depend_on_row_order(graph):
    df = frames.facts(graph)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3)
    multi = graph.config.multi_valued
    assert analysis.conflicts(shuffled, multi_valued=multi, now="2026-01-01").equals(
        analysis.conflicts(df, multi_valued=multi, now="2026-01-01")
    )
    # and the frame groups are the store's groups
    store = graph.conflicts()
    table = analysis.conflicts(df, multi_valued=multi)
    assert [(g.subject, g.predicate) for g in store] == table.select("subject", "predicate").rows()
    assert [[f.id for f in g.facts] for g in store] == table["facts"].to_list()
    assert pl.Series([g.current for g in store]).equals(table["current"], check_names=False)


def test_the_largest_fact_id_is_read_like_any_other(tmp_path, monkeypatch):
    """Another program may write the id 2**63 - 1, the largest a fact can have (a restore refuses ids past 2**53,
    contract §9). Whole-table reads bound ids by ranges, and an exclusive upper bound left that fact out of
    frames.facts (found by hypothesis in tests/contract/test_properties.py). Read here, in the reader process, split over
    two connections."""
    import sqlite3

    with kgtoolkit.open(tmp_path / "g.sqlite3") as kg:
        for i in range(30):
            kg.add(f"s{i}", "uses", f"o{i}")
    with sqlite3.connect(tmp_path / "g.sqlite3") as conn:
        conn.execute("UPDATE facts SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM facts)")
    conn.close()
    with kgtoolkit.open(tmp_path / "g.sqlite3") as kg:
        for ids in three_ways(monkeypatch, lambda: frames.facts(kg)["id"].to_list()):
            assert len(ids) == kg.stats().facts == 30 and ids[-1] == 2**63 - 1


def test_a_big_import_finds_the_same_duplicates_when_the_stored_keys_are_read_beside_it(tmp_path, monkeypatch):
    """An import as big as the graph compares with every stored fact, read in the reader process while the
    import works on its entities: it finds what the read here finds, and writes the same facts."""
    first, second = generate(3_000, seed=5), generate(3_000, seed=6)
    again = pl.concat([first, second, first.head(500)])  # stored, new, and repeated within the file

    def load(name: str) -> tuple[tuple[int, int, int], list[tuple[object, ...]]]:
        with kgtoolkit.open(tmp_path / name) as kg:
            import_facts(kg, first)
            report, _ = import_facts(kg, again)
            stored = frames.facts(kg).select("subject", "predicate", "object", "valid_from", "valid_to").rows()
        return (report.inserted, report.duplicates, report.entities_created), stored

    here = load("here.sqlite3")
    monkeypatch.setattr(_sqlite, "SMALL", 0)
    monkeypatch.setattr(_sqlite, "SPLIT_MIN", 10)
    beside = load("beside.sqlite3")
    assert beside == here
    assert here[0][1] >= 3_500  # the stored facts and the repeated rows were found

"""A big import leaves the full-text index to the first word search (issue 33, contract §15).

Tokenising every fact's text was the largest single cost of a big SQLite load. A load of
``_DEFER_TEXT_INDEX`` facts or more records the range of ids it wrote in ``fact_search_pending``; the first word
search (or ``kg.index_text()``, ``kgtoolkit index``) fills that range in one statement. What the index holds
then is exactly what the per-row triggers would have written, whatever happened in between (a merge that
rewrote facts of the range, later small writes, a second big load). Both engines; "big" is made small here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import kgtoolkit
from conftest import run_sql, schema_step, undo_steps
from kgtoolkit import KnowledgeGraph
from kgtoolkit.cli import app
from kgtoolkit.store import import_facts
from kgtoolkit.store.reads._search import lexical_facts
from kgtoolkit.store.transfer import _load as _bulk

BIG = 20  # "big" at this file's size


@pytest.fixture(autouse=True)
def _small_big(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bulk, "_PAUSE_TEXT_INDEX", 5)
    monkeypatch.setattr(_bulk, "_DEFER_TEXT_INDEX", BIG)


def rows(n: int, *, start: int = 0) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "subject": [f"Station {i % 7}" for i in range(start, start + n)],
            "predicate": ["feeds" if i % 3 else "is_named" for i in range(start, start + n)],
            "object": [f"Reservoir {i}" for i in range(start, start + n)],
            "valid_from": ["2020-01-01"] * n,
        }
    )


def index_rows(db: Path | str) -> list[tuple[int, str]]:
    """What the full-text index holds, as (fact id, text) (SQLite: the text; PostgreSQL: the tsvector as text)."""
    if isinstance(db, str):
        return [(int(i), str(t)) for i, t in run_sql(db, "SELECT fact_id, tsv::text FROM fact_search ORDER BY 1")]
    return [(int(i), str(t)) for i, t in run_sql(db, "SELECT rowid, text FROM fact_search ORDER BY 1")]


def pending(db: Path | str) -> list[tuple[int, int]]:
    return [(int(lo), int(hi)) for lo, hi in run_sql(db, "SELECT lo, hi FROM fact_search_pending ORDER BY lo")]


def one_by_one(db: Path | str, frame: pl.DataFrame) -> list[tuple[int, str]]:
    """The index the per-row triggers write for the same facts added through ``add``."""
    with kgtoolkit.open(db) as kg:
        for r in frame.iter_rows(named=True):
            kg.add(r["subject"], r["predicate"], r["object"], valid_from=r["valid_from"])
    return index_rows(db)


def test_a_big_import_leaves_the_index_to_the_first_word_search(
    kg: KnowledgeGraph, db_path: Path | str, new_db: Callable[[str], Path | str]
) -> None:
    frame = rows(60)
    report, _ = import_facts(kg, frame)
    assert report.inserted == 60
    assert pending(db_path) == [(0, 60)] and index_rows(db_path) == []
    assert any("full-text index" in w for w in report.warnings)  # the moved cost is said

    hits = lexical_facts(kg, ["Reservoir", "41"], 5)  # fills first, then answers
    assert pending(db_path) == []
    assert [fid for fid, _ in hits][:1] == [42]
    assert index_rows(db_path) == one_by_one(new_db("twin"), frame)
    assert kg.index_text() == 0  # nothing left: one small read


def test_a_small_import_still_indexes_at_once(kg: KnowledgeGraph, db_path: Path | str) -> None:
    report, _ = import_facts(kg, rows(BIG - 1))
    assert pending(db_path) == [] and len(index_rows(db_path)) == BIG - 1
    assert not any("full-text index" in w for w in report.warnings)


def test_writes_between_the_import_and_the_fill(
    kg: KnowledgeGraph, db_path: Path | str, new_db: Callable[[str], Path | str]
) -> None:
    """A merge rewrites facts of the pending range (the update trigger indexes them), a later add is indexed by
    its trigger, a second big load adds a second range: the fill leaves exactly the triggers' index."""
    import_facts(kg, rows(30))
    kg.merge("Station 3", "Station 4")
    kg.add("Pump 1", "feeds", "Reservoir 900", valid_from="2021-01-01")
    import_facts(kg, rows(30, start=100))
    assert pending(db_path) == [(0, 30), (31, 61)]
    assert kg.index_text() == 60
    assert pending(db_path) == []

    twin = new_db("twin")
    with kgtoolkit.open(twin) as other:  # the same history, one write at a time: the triggers' index
        for r in rows(30).iter_rows(named=True):
            other.add(r["subject"], r["predicate"], r["object"], valid_from=r["valid_from"])
        other.merge("Station 3", "Station 4")
        other.add("Pump 1", "feeds", "Reservoir 900", valid_from="2021-01-01")
        for r in rows(30, start=100).iter_rows(named=True):
            other.add(r["subject"], r["predicate"], r["object"], valid_from=r["valid_from"])
    assert index_rows(db_path) == index_rows(twin)


def test_a_read_only_graph_with_pending_facts_refuses_word_search(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        import_facts(kg, rows(40))
    with kgtoolkit.open(db_path, read_only=True) as ro:
        assert ro.query("Station 1", direction="outgoing")  # every other read works
        with pytest.raises(kgtoolkit.KGError) as err:
            lexical_facts(ro, ["Reservoir"], 5)
        assert err.value.code == "read_only"
        assert "40 facts loaded in bulk" in err.value.message and "kgtoolkit index" in err.value.message
    assert pending(db_path) == [(0, 40)]  # nothing changed
    with kgtoolkit.open(db_path) as kg:
        assert lexical_facts(kg, ["Reservoir", "7"], 1)


def test_find_on_the_command_line_fills_it(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        import_facts(kg, rows(40))
    runner = CliRunner()
    found = runner.invoke(app, ["--db", str(db_path), "find", "Reservoir 17", "--mode", "lexical", "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)["hits"][0]["fact"]["object"] == "reservoir_17"
    assert pending(db_path) == []


@pytest.mark.sqlite_only
def test_a_graph_of_the_previous_version_gains_the_table(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    with kgtoolkit.open(db) as kg:
        kg.add("Station 1", "feeds", "Reservoir 1")
    step = schema_step("fact_search_pending")
    run_sql(db, *undo_steps(step, "sqlite"), f"PRAGMA user_version = {step}")
    assert not run_sql(db, "SELECT name FROM sqlite_master WHERE name = 'fact_search_pending'")
    with kgtoolkit.open(db) as kg:
        import_facts(kg, rows(40))
        assert kg.index_text() == 39  # one of the 40 rows was the fact already there
        assert [fid for fid, _ in lexical_facts(kg, ["Reservoir", "1"], 1)] == [1]

"""Hybrid search (contract §15): the full-text index kept by the database, fusion of lexical, vector and name
signals, the graph rerank, explain, grouping of repeated facts, and the direction a query states."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit.store import _search as store
from kgtoolkit.store._schema import MIGRATIONS, SCHEMA_VERSION

# ---------------------------------------------------------------------- the full-text index (schema step 6)


def _step() -> int:
    return next(i for i, step in enumerate(MIGRATIONS["sqlite"]) if any("fact_search" in s for s in step))


@pytest.mark.sqlite_only
def test_a_file_of_the_schema_before_the_text_index_is_upgraded_and_its_facts_indexed(tmp_path: Path) -> None:
    path = tmp_path / "before.sqlite3"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS["sqlite"][:_step()]:
        for statement in step:
            conn.execute(statement)
    conn.execute("INSERT INTO entities(id, name, created_at) VALUES ('inc_4821', 'INC-4821', 't'), "
                 "('billing', 'billing', 't')")
    conn.execute("INSERT INTO predicates(id, label) VALUES ('fixed_in', 'fixed in')")
    conn.execute("INSERT INTO facts(subject, predicate, object_value, object_key, from_us, to_us, recorded_at) "
                 "VALUES ('inc_4821', 'fixed_in', 'v2.3.1', 'v2.3.1', 0, 1, 't')")
    conn.execute("INSERT INTO memories(id, text, created_at) VALUES ('m1', 'pylint reports E1102 in billing', 't')")
    conn.execute(f"PRAGMA user_version = {_step()}")
    conn.commit()
    conn.close()
    with kgtoolkit.open(path) as kg:  # opening it migrates it, and indexes what is there
        assert [fid for fid, _ in store.lexical_facts(kg, ["INC-4821"], 5)] == [1]
        assert [fid for fid, _ in store.lexical_facts(kg, ["v2.3.1"], 5)] == [1]
        assert [mid for mid, _ in store.lexical_memories(kg, ["E1102"], 5)] == ["m1"]
        new = kg.add("billing", "uses_queue", "SQLite").fact  # the triggers keep it fresh from now on
        assert [fid for fid, _ in store.lexical_facts(kg, ["sqlite"], 5)] == [new.id]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM fact_search").fetchone()[0] == 2
    finally:
        conn.close()


@pytest.mark.parametrize("word", ["INC-4821", "inc-4821", "v2.3.1", "E1102", "e1102"])
def test_rare_tokens_are_found_as_written(kg: KnowledgeGraph, word: str) -> None:
    """The tokenizer decision: porter unicode61 on SQLite, english on PostgreSQL, a query word searched as the
    phrase of its parts, so codes, versions and incident numbers are found, and their neighbours are not."""
    hit = kg.add("INC-4821", "fixed_in", "v2.3.1").fact
    kg.add("INC-4822", "fixed_in", "v2.3.2")
    kg.add("E1102", "reported_by", "pylint")
    kg.add("E1103", "reported_by", "pylint")
    kg.remember("INC-4821 was fixed in v2.3.1; pylint flagged E1102 there")
    kg.remember("INC-4822 was fixed in v2.3.2; pylint flagged E1103 there")
    found = [fid for fid, _ in store.lexical_facts(kg, [word], 5)]
    expected = {"inc-4821": hit.id, "v2.3.1": hit.id}.get(word.lower())
    if expected is not None:
        assert found == [expected]
    else:
        assert len(found) == 1 and kg.fact(found[0]).subject_name == "E1102"
    memories = [kg.memory(m).text for m, _ in store.lexical_memories(kg, [word], 5)]
    assert memories == ["INC-4821 was fixed in v2.3.1; pylint flagged E1102 there"]


def test_the_text_index_stays_fresh_after_add_invalidate_merge_and_predicate_merge(kg: KnowledgeGraph) -> None:
    first = kg.add("Nimbus", "uses_queue", "Kafka").fact
    assert [f for f, _ in store.lexical_facts(kg, ["kafka"], 5)] == [first.id]
    kg.invalidate("Nimbus", "uses_queue", "Kafka", ended="2026-01-01")
    assert store.lexical_facts(kg, ["kafka"], 5, current_only=True) == []
    assert [f for f, _ in store.lexical_facts(kg, ["kafka"], 5)] == [first.id]  # history stays findable
    kg.add("nimbus_service", "stores_in", "Zookeeper")
    kg.merge("nimbus_service", "Nimbus")  # the fact now reads "Nimbus stores in Zookeeper"
    found = store.lexical_facts(kg, ["nimbus", "zookeeper"], 5)
    assert [kg.fact(f).subject for f, _ in found][:1] == ["nimbus"]
    assert store.lexical_facts(kg, ["service"], 5) == []  # the old name's words left with it
    assert [kg.fact(f).predicate for f, _ in store.lexical_facts(kg, ["stores"], 5)] == ["stores_in"]
    kg.rename_predicate("stores_in", "keeps_data_in")
    assert [kg.fact(f).predicate for f, _ in store.lexical_facts(kg, ["keeps"], 5)] == ["keeps_data_in"]
    assert store.lexical_facts(kg, ["stores"], 5) == []

"""Fact ids are never reused (contract §1), on both backends; a file of schema 1 is upgraded in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import kgtoolkit
from kgtoolkit.io import import_file
from kgtoolkit.store.engine._schema import MIGRATIONS, SCHEMA_VERSION


def test_a_merge_folding_the_newest_row_never_gives_its_id_again(kg: kgtoolkit.KnowledgeGraph) -> None:
    kg.add("a", "uses", "redis")
    kept = kg.add("b", "uses", "redis").fact.id
    folded = kg.add("a_svc", "uses", "redis").fact.id  # the newest row; the merge folds it into a's fact
    assert folded > kept
    assert kg.merge("a_svc", "a").deduplicated == 1
    with pytest.raises(kgtoolkit.NotFound):
        kg.fact(folded)
    given = [kg.add("c", "uses", "redis").fact.id, kg.add("d", "uses", "redis").fact.id]
    assert min(given) > folded and given == sorted(given)  # the model: ids only grow


def test_a_bulk_import_after_a_fold_starts_past_every_id_ever_given(
    kg: kgtoolkit.KnowledgeGraph, tmp_path: Path
) -> None:
    kg.add("x", "uses", "redis")
    folded = kg.add("x_svc", "uses", "redis").fact.id
    kg.merge("x_svc", "x")
    source = tmp_path / "facts.tsv"
    source.write_text(
        "subject\tpredicate\tobject\n" + "".join(f"s{i}\tuses\tpg\n" for i in range(50)), encoding="utf-8"
    )
    import_file(kg, source)
    assert min(f.id for f in kg.by_predicate("uses", "pg")) > folded


@pytest.mark.sqlite_only
def test_a_schema_1_file_is_upgraded_in_place_keeping_every_id(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS["sqlite"][0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO entities(id, name, created_at) VALUES ('a', 'A', 't'), ('b', 'B', 't')")
    for fact_id in (3, 7, 12):
        conn.execute(
            "INSERT INTO facts(id, subject, predicate, object_id, object_key, from_us, to_us, recorded_at) "
            f"VALUES ({fact_id}, 'a', 'knows_{fact_id}', 'b', 'b', 0, 1, 't')"
        )
    conn.commit()
    conn.close()
    with kgtoolkit.open(path) as kg:
        assert sorted(f.id for f in kg.query("a")) == [3, 7, 12]
        assert kg.add("a", "likes", "b").fact.id == 13
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "AUTOINCREMENT" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'facts'").fetchone()[0]
        indexes = {
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'facts' AND sql IS NOT NULL"
            )
        }
        assert indexes == {
            "facts_current",
            "facts_subject",
            "facts_object",
            "facts_predicate",
            "facts_validity",
            "facts_timeline",
            "facts_walk_out",
            "facts_walk_in",
            "facts_ended",
        }
        assert conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'facts'").fetchone()[0] == 13
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()

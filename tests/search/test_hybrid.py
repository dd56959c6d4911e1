"""Hybrid search (contract §15): the full-text index kept by the database, fusion of lexical, vector and name
signals, the graph rerank, explain, grouping of repeated facts, and the direction a query states."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit.store.engine._schema import MIGRATIONS, SCHEMA_VERSION
from kgtoolkit.store.reads import _search as store

# ---------------------------------------------------------------------- the full-text index (schema step 6)


def _step() -> int:
    return next(i for i, step in enumerate(MIGRATIONS["sqlite"]) if any("fact_search" in s for s in step))


@pytest.mark.sqlite_only
def test_a_file_of_the_schema_before_the_text_index_is_upgraded_and_its_facts_indexed(tmp_path: Path) -> None:
    path = tmp_path / "before.sqlite3"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS["sqlite"][: _step()]:
        for statement in step:
            conn.execute(statement)
    conn.execute(
        "INSERT INTO entities(id, name, created_at) VALUES ('inc_4821', 'INC-4821', 't'), ('billing', 'billing', 't')"
    )
    conn.execute("INSERT INTO predicates(id, label) VALUES ('fixed_in', 'fixed in')")
    conn.execute(
        "INSERT INTO facts(subject, predicate, object_value, object_key, from_us, to_us, recorded_at) "
        "VALUES ('inc_4821', 'fixed_in', 'v2.3.1', 'v2.3.1', 0, 1, 't')"
    )
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


# ---------------------------------------------------------------------- find: modes, fusion, explain


def _tickets(kg: KnowledgeGraph) -> dict[str, int]:
    """Four tickets whose numbers differ by one (the embeddings cannot tell them apart; the words can), and a
    fact that only a paraphrase reaches (no word in common with the question)."""
    ids = {}
    for number, person in (("ZQ-88411", "Omar"), ("ZQ-88412", "Priya"), ("ZQ-88413", "Lena"), ("ZQ-88414", "Kai")):
        ids[number] = kg.add(f"ticket {number}", "resolved_by", person).fact.id
    ids["billing"] = kg.add("billing_service", "stores_data_in", "PostgreSQL").fact.id
    kg.add("search_service", "uses_queue", "Kafka")
    kg.add("Dana Whitfield", "works_at", "Acme")
    kg.add("checkout_api", "deployed_on", "Kubernetes")
    return ids


QUESTION = "ZQ-88412 where does the invoicing system keep its records"


def test_lexical_finds_the_rare_token_vector_the_paraphrase_and_hybrid_both_at_the_top(
    kg: KnowledgeGraph, search_model: Any
) -> None:
    from kgtoolkit.search import find

    ids = _tickets(kg)
    lexical = find(kg, QUESTION, k=4, mode="lexical")
    assert [h.fact.id for h in lexical.hits] == [ids["ZQ-88412"]]  # the paraphrase shares no word with it
    vector = find(kg, QUESTION, k=4, mode="vector", model=search_model)
    assert vector.hits[0].fact.id == ids["billing"]
    assert vector.hits[1].fact.id != ids["ZQ-88412"]  # one ticket number looks like another to the model
    hybrid = find(kg, QUESTION, k=4, model=search_model)
    assert {h.fact.id for h in hybrid.hits[:2]} == {ids["ZQ-88412"], ids["billing"]}
    assert hybrid.mode == "hybrid" and lexical.mode == "lexical" and vector.mode == "vector"


def test_explain_gives_each_signals_rank_score_and_contribution(kg: KnowledgeGraph, search_model: Any) -> None:
    from kgtoolkit.search import Explanation, find

    ids = _tickets(kg)
    result = find(kg, QUESTION, k=4, model=search_model, explain=True)
    by_id = {h.fact.id: h for h in result.hits}
    ticket, billing = by_id[ids["ZQ-88412"]].explain, by_id[ids["billing"]].explain
    assert isinstance(ticket, Explanation) and isinstance(billing, Explanation)
    assert ticket.lexical_rank == 1 and ticket.lexical == round(1 / 61, 6) and ticket.lexical_score is not None
    assert billing.lexical_rank is None and billing.lexical == 0.0 and billing.lexical_score is None
    assert billing.vector_rank == 1 and billing.vector == round(1 / 61, 6) and 0 < billing.vector_score <= 1
    for e in (ticket, billing):
        assert e.name == 0.0 and e.name_rank is None and e.graph == 0.0 and e.graph_rank is None  # no name, no rerank
        assert e.total == pytest.approx(e.lexical + e.vector + e.name + e.graph, abs=1e-6)
        assert e.total == by_id[ids["ZQ-88412"] if e is ticket else ids["billing"]].score
    assert ticket.vector_rank is not None and ticket.vector == round(1 / (60 + ticket.vector_rank), 6)
    data = by_id[ids["ZQ-88412"]].to_dict()["explain"]
    assert set(data) == {
        "total",
        "lexical",
        "vector",
        "name",
        "graph",
        "lexical_rank",
        "vector_rank",
        "name_rank",
        "graph_rank",
        "lexical_score",
        "vector_score",
        "hops",
    }
    assert find(kg, QUESTION, k=4, model=search_model).hits[0].explain is None  # only when asked for


def test_lexical_mode_loads_no_model_and_no_vector_index(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "g.sqlite3"
    code = f"""
import sys, kgtoolkit
from kgtoolkit.search import find
kg = kgtoolkit.open({str(path)!r})
kg.add("INC-4821", "fixed_in", "v2.3.1")
kg.remember("postmortem of INC-4821: a full disk")
r = find(kg, "INC-4821", kind="both", mode="lexical", explain=True)
assert [h.kind for h in r.hits] == ["fact", "memory"] or [h.kind for h in r.hits] == ["memory", "fact"], r.hits
assert all(h.explain.lexical_rank == 1 for h in r.hits)
loaded = sorted(m for m in ("torch", "sentence_transformers", "faiss") if m in sys.modules)
assert not loaded, loaded
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.stdout.strip() == "ok", done.stderr
    assert not (tmp_path / "g.sqlite3.search").exists()  # no index folder was made


def test_find_refuses_a_bad_mode_or_rerank(kg: KnowledgeGraph) -> None:
    from kgtoolkit import InvalidRequest
    from kgtoolkit.search import find

    kg.add("a", "b", "c")
    with pytest.raises(InvalidRequest) as err:
        find(kg, "a", mode="fuzzy")  # type: ignore[arg-type]
    assert err.value.data["field"] == "mode" and "hybrid" in err.value.message
    with pytest.raises(InvalidRequest) as err:
        find(kg, "a", mode="lexical", rerank="bm25")
    assert err.value.data["field"] == "rerank"


# ---------------------------------------------------------------------- issue 17: grouping and direction


def _criticism(kg: KnowledgeGraph) -> None:
    for day in range(1, 9):  # the same triple on eight consecutive days
        kg.add("China", "criticize_or_denounce", "Japan", valid_from=f"2014-01-0{day}", valid_to=f"2014-01-0{day}")
    for day in (3, 5, 7):
        kg.add("Japan", "criticize_or_denounce", "China", valid_from=f"2014-02-0{day}", valid_to=f"2014-02-0{day}")
    kg.add("Russia", "criticize_or_denounce", "China", valid_from="2014-03-01", valid_to="2014-03-01")
    kg.add("China", "praise_or_endorse", "Pakistan", valid_from="2014-04-01", valid_to="2014-04-01")


def test_the_same_triple_on_many_days_is_one_hit_with_its_dates(kg: KnowledgeGraph) -> None:
    from kgtoolkit.search import find

    _criticism(kg)
    result = find(kg, "China criticize Japan", k=3, mode="lexical")
    triples = [(h.fact.subject, h.fact.object) for h in result.hits]
    assert len(triples) == len(set(triples)) == 3  # the repeats do not fill the top
    assert set(triples[:2]) == {("china", "japan"), ("japan", "china")}  # the same words: one BM25 score
    first = next(h for h in result.hits if h.fact.subject == "china")
    assert (first.fact.subject, first.fact.object, first.count, first.first, first.last) == (
        "china",
        "japan",
        8,
        "2014-01-01",
        "2014-01-08",
    )
    assert first.fact.valid_from == "2014-01-08"  # the latest occurrence stands for the group
    again = find(kg, "China criticize Japan", k=3, mode="lexical", as_of="2014-01-03")
    assert [(h.count, h.first, h.last) for h in again.hits] == [(1, "2014-01-03", "2014-01-03")]
    assert first.to_dict()["count"] == 8


def test_the_name_signal_respects_the_direction_the_query_states(kg: KnowledgeGraph, search_model: Any) -> None:
    from kgtoolkit.search import find

    _criticism(kg)
    result = find(kg, "who criticised China", k=5, model=search_model, explain=True)
    named = {(h.fact.subject, h.fact.object): h for h in result.hits if h.exact}
    assert set(named) == {("japan", "china"), ("russia", "china")}  # China as object only
    assert result.hits[0].fact.object == "china"
    china_first = next(h for h in result.hits if h.fact.subject == "china")
    assert china_first.explain is not None and china_first.explain.name_rank is None
    asked = find(kg, "what did China criticise", k=5, model=search_model)
    assert {h.fact.subject for h in asked.hits if h.exact} == {"china"}
    bare = find(kg, "China", k=5, model=search_model)  # no direction stated: both sides
    assert {h.fact.subject for h in bare.hits if h.exact} == {"china", "japan", "russia"}


def test_graph_rerank_prefers_facts_near_the_named_entities_and_current_ones(
    kg: KnowledgeGraph, search_model: Any
) -> None:
    from kgtoolkit.search import find

    kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    kg.add("SQLite", "written_in", "C")
    kg.add("other_api", "uses_queue", "RabbitMQ")
    result = find(kg, "which queue does my api use", k=4, model=search_model, rerank="graph", explain=True)
    assert result.rerank == "graph"
    assert result.hits[0].fact.object_name == "SQLite" and result.hits[0].current  # near and current first
    explained = {h.fact.object_name: h.explain for h in result.hits if h.explain is not None}
    hops = {name: e.hops for name, e in explained.items()}
    assert hops["SQLite"] == 0 and hops["Redis"] == 0 and hops.get("C") == 1 and hops.get("RabbitMQ") is None
    for name, weight in (("SQLite", 1.0), ("Redis", 0.5), ("C", 0.5)):  # 1 / (1 + hops), and ½ for history
        e = explained[name]
        fused = e.lexical + e.vector + e.name
        assert e.total == pytest.approx(fused * weight, abs=2e-6) and e.graph == pytest.approx(
            e.total - fused, abs=2e-6
        )
    assert [e.graph_rank for e in (h.explain for h in result.hits) if e is not None] == [1, 2, 3, 4]
    plain = find(kg, "which queue does my api use", k=4, model=search_model)
    assert plain.hits[0].fact.object_name == "Redis"  # without the rerank the history fact ranks first here
    past = find(kg, "which queue does my api use", k=4, model=search_model, rerank="graph", as_of="2026-05-01")
    assert past.hits[0].fact.object_name == "Redis"  # as_of asks about a moment: no preference for current facts


# ---------------------------------------------------------------------- freshness through find, both backends


def test_lexical_find_is_fresh_after_add_invalidate_and_merge(kg: KnowledgeGraph) -> None:
    from kgtoolkit.search import find

    def found(query: str, **kw: Any) -> list[str]:
        return [str(h.fact.object_name) for h in find(kg, query, mode="lexical", **kw).hits]

    assert found("Kafka") == []
    kg.add("nimbus", "uses_queue", "Kafka")
    assert found("Kafka") == ["Kafka"]
    kg.invalidate("nimbus", "uses_queue", "Kafka", ended="2026-01-01")
    assert found("Kafka", current_only=True) == [] and found("Kafka") == ["Kafka"]
    kg.add("Nimbus Legacy", "stores_in", "Zookeeper")
    kg.merge("Nimbus Legacy", "nimbus")
    assert [h.fact.subject for h in find(kg, "Zookeeper", mode="lexical").hits] == ["nimbus"]
    assert found("legacy") == []
    memory = kg.remember("INC-4821: the Zookeeper disk filled up")
    assert [h.memory.id for h in find(kg, "INC-4821", kind="memories", mode="lexical").hits] == [memory.id]


def test_a_bulk_import_is_indexed_in_one_statement_and_the_trigger_is_back(kg: KnowledgeGraph) -> None:
    import polars as pl

    from kgtoolkit.store import import_facts

    kg.add("before", "fixed_in", "v1.0.0")
    n = 1_200  # from 1,000 facts the load pauses the per-row trigger and fills the index after it
    frame = pl.DataFrame(
        {
            "subject": [f"INC-{4800 + i}" for i in range(n)],
            "predicate": ["fixed_in"] * n,
            "object": [f"v2.3.{i}" for i in range(n)],
        }
    )
    report, _ = import_facts(kg, frame)
    assert report.inserted == n
    assert [kg.fact(f).subject_name for f, _ in store.lexical_facts(kg, ["INC-4821"], 5)] == ["INC-4821"]
    assert [kg.fact(f).object_name for f, _ in store.lexical_facts(kg, ["v1.0.0"], 5)] == ["v1.0.0"]
    later = kg.add("after", "fixed_in", "v9.9.9").fact  # the per-row trigger works again
    assert [f for f, _ in store.lexical_facts(kg, ["v9.9.9"], 5)] == [later.id]
    with pytest.raises(kgtoolkit.InvalidRows):  # a refused import leaves the index as it was
        import_facts(
            kg, pl.DataFrame({"subject": ["INC-9999", ""], "predicate": ["fixed_in"] * 2, "object": ["v3", "v4"]})
        )
    assert store.lexical_facts(kg, ["INC-9999"], 5) == []
    assert [f for f, _ in store.lexical_facts(kg, ["v9.9.9"], 5)] == [later.id]


# ---------------------------------------------------------------------- every door


def test_the_cli_and_the_tool_take_mode_rerank_and_explain(db_path: Path | str) -> None:
    import json

    from typer.testing import CliRunner

    from kgtoolkit import run_tool
    from kgtoolkit.cli import app

    with kgtoolkit.open(db_path) as kg:
        for day in range(1, 4):
            kg.add("INC-4821", "Escalated to", "Priya", valid_from=f"2026-01-0{day}", valid_to=f"2026-01-0{day}")
        kg.add("INC-4822", "escalated_to", "Omar")
        answer = run_tool(
            {"action": "find", "query": "INC-4821", "mode": "lexical", "explain": True, "rerank": "graph"}, kg=kg
        )
        assert answer["ok"], answer
        hits = answer["result"]["hits"]
        assert [h["fact"]["subject_name"] for h in hits] == ["INC-4821"] and hits[0]["count"] == 3
        assert hits[0]["explain"]["lexical_rank"] == 1 and answer["result"]["mode"] == "lexical"
        bad = run_tool({"action": "find", "query": "x", "mode": "semantic"}, kg=kg)
        assert not bad["ok"] and bad["error"]["code"] == "invalid_request"
    runner = CliRunner()
    done = runner.invoke(app, ["--db", str(db_path), "find", "INC-4821", "--mode", "lexical", "--explain", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["hits"][0]["explain"]["lexical_rank"] == 1 and data["hits"][0]["first"] == "2026-01-01"
    table = runner.invoke(
        app,
        ["--db", str(db_path), "find", "INC-4821", "--mode", "lexical", "--explain", "--rerank", "graph"],
        env={"COLUMNS": "200"},
    )
    assert table.exit_code == 0, table.output
    assert "×3, 2026-01-01 … 2026-01-03" in table.stdout and "#1" in table.stdout and "INC-4822" not in table.stdout
    assert "INC-4821 → Escalated to → Priya" in table.stdout  # the predicate as first spelt (contract §13)


def _icews(path: Path, limit: int | None = None) -> KnowledgeGraph:
    import polars as pl

    from kgtoolkit.store import import_facts

    source = DATA / "icews14" / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"no {source} (the shared datasets are absent)")
    frame = pl.read_csv(source, separator="\t", infer_schema=False, quote_char=None)
    kg = kgtoolkit.open(path)
    import_facts(kg, frame if limit is None else frame.head(limit), allow_commas=True)
    return kg


@pytest.mark.sqlite_only
def test_on_icews14_repeated_events_are_grouped_and_the_name_signal_takes_the_stated_side(tmp_path: Path) -> None:
    """Issue 17 on the data it came from: the same event on consecutive days filled 3-10 of the top 10, and
    "who criticised China" ranked China criticising others first."""
    from kgtoolkit.search import find
    from kgtoolkit.search._spotting import _named_with_sides

    with _icews(tmp_path / "icews.sqlite3") as kg:
        result = find(kg, "China criticize or denounce Japan", k=10, mode="lexical")
        triples = [(h.fact.subject, h.fact.predicate, h.fact.object) for h in result.hits]
        assert len(triples) == 10 == len(set(triples))
        grouped = [h for h in result.hits if h.count > 1]
        assert grouped and all(h.first is not None and h.last is not None and h.first < h.last for h in grouped)
        for h in grouped:  # the count is every occurrence of the triple
            same = [
                f for f in kg.query(h.fact.subject_name, predicates=[h.fact.predicate]) if f.object == h.fact.object
            ]
            assert h.count == len(same) and h.fact.valid_from == max(f.valid_from or "" for f in same)
        named, sides = _named_with_sides(kg, "who criticised China")
        assert [n.entity for n in named] == ["china"] and sides == {"china": "object"}
        around = store.entity_triples(kg, [("china", sides["china"])])
        assert around and all(kg.fact(fid).object == "china" for fid in around)
        assert len(store.entity_triples(kg, [("china", "either")])) > len(around)

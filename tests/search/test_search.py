"""Semantic search: memories and facts found by meaning, read against the graph.

Every test uses the real bundled model, loaded once per session (``search_model`` in conftest.py),
and runs on both backends (the few checks of SQLite's own files branch on ``kg.backend``). Where the
engines differ: an SQLite graph keeps its index and its embedding cache beside its file
(``<db>.search/``); a PostgreSQL graph keeps the embedding cache in the database (shared by every
process and machine) and its index in a local cache folder named by the graph's identity, rebuilt
from the database's embeddings when missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import KnowledgeGraph, run_tool
from kgtoolkit.cli import app
from kgtoolkit.search import FactHit, MemoryHit, SearchIndex, fact_text, index_folder, named_entities

QUEUE_QUESTION = "which queue does my api use"


class Counting:
    """The session's model, counting the texts it is asked to embed (queries included)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, []

    def encode(self, texts: list[str]) -> Any:
        self.texts.extend(texts)
        return self.inner.encode(texts)

    def reset(self) -> list[str]:
        seen, self.texts = self.texts, []
        return seen


@pytest.fixture
def embedder(search_model: Any) -> Counting:
    return Counting(search_model)


def worked_example_with_memories(kg: KnowledgeGraph) -> dict[str, Any]:
    """contract §10's writes, with the design review behind the Redis fact and the changelog behind SQLite."""
    review = kg.remember("2026-03-02 design review: my_api will use Redis for its job queue", source="design-review")
    switch = kg.remember(
        "2026-10-12: switched my_api's job queue from Redis to SQLite to drop a moving part", source="changelog"
    )
    redis = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02", source_closet=review.id)
    assert kg.add("My API", "uses_queue", "Redis").created is False
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    sqlite = kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12", source_closet=switch.id)
    kg.add("checkout_api", "uses_database", "Postgres", valid_from="2025-01-06")
    kg.add("Dana Whitfield", "works_at", "Acme", valid_from="2025-01-06")
    return {"review": review, "switch": switch, "redis": redis.fact.id, "sqlite": sqlite.fact.id}


@pytest.fixture
def example(kg: KnowledgeGraph) -> dict[str, Any]:
    return worked_example_with_memories(kg)


def facts_of(result: Any) -> list[FactHit]:
    return [h for h in result.hits if isinstance(h, FactHit)]


# ---------------------------------------------------------------------- the worked example


def test_queue_question_finds_the_queue_facts_with_their_history(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    idx = SearchIndex.open(kg, model=embedder)
    result = idx.find(QUEUE_QUESTION, k=3)
    hits = facts_of(result)
    assert [h.fact.id for h in hits[:2]] == [example["redis"], example["sqlite"]] or {h.fact.id for h in hits[:2]} == {
        example["redis"],
        example["sqlite"],
    }
    by_object = {h.fact.object_name: h for h in hits[:2]}
    redis, sqlite = by_object["Redis"], by_object["SQLite"]
    assert (redis.current, sqlite.current) == (False, True)
    assert [f.object_name for f in redis.replaced_by] == ["SQLite"] and redis.since == "2026-10-12"
    assert [f.object_name for f in redis.now] == ["SQLite"]
    assert "replaced by SQLite since 2026-10-12" in redis.note and redis.note.startswith("history")
    assert sqlite.note == "current since 2026-10-12" and sqlite.replaced_by == ()
    assert redis.evidence is not None and redis.evidence.id == example["review"].id
    assert [n.entity for n in result.named] == ["my_api"] and redis.exact and sqlite.exact
    json.dumps(result.to_dict(), allow_nan=False)  # JSON-ready all the way down
    assert result.to_dict()["hits"][0]["kind"] == "fact"


def test_a_memory_about_redis_reads_as_history(kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting) -> None:
    result = SearchIndex.open(kg, model=embedder).find(QUEUE_QUESTION, k=5, kind="memories")
    memories = {h.memory.id: h for h in result.hits}
    assert set(memories) == {example["review"].id, example["switch"].id}
    review = memories[example["review"].id]
    assert isinstance(review, MemoryHit) and review.status == "history" and not review.inferred
    assert [c.fact.id for c in review.backs] == [example["redis"]]
    assert "ended on 2026-10-12" in review.note and "replaced by SQLite" in review.note
    assert review.note.startswith("history")
    named = {e.entity.id: e for e in review.entities}
    assert set(named) == {"my_api", "redis"}
    assert [f.object_name for f in named["my_api"].facts if f.predicate == "uses_queue"] == ["SQLite"]
    switch = memories[example["switch"].id]
    assert switch.status == "current" and "current since 2026-10-12" in switch.note
    # current_only drops the memory that describes the past
    current = SearchIndex.open(kg, model=embedder).find(QUEUE_QUESTION, k=5, kind="memories", current_only=True)
    assert [h.memory.id for h in current.hits] == [example["switch"].id]


def test_as_of_and_current_only_filter_fact_hits(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    idx = SearchIndex.open(kg, model=embedder)

    def queues(**kw: Any) -> list[str]:
        return [
            h.fact.object_name
            for h in facts_of(idx.find(QUEUE_QUESTION, k=10, **kw))
            if h.fact.predicate == "uses_queue"
        ]

    assert sorted(queues(as_of="2026-10-12")) == ["Redis", "SQLite"]  # both ends count
    assert queues(as_of="2026-10-13") == ["SQLite"]
    assert queues(as_of="2026-05") == ["Redis"]
    assert queues(current_only=True) == ["SQLite"]
    both = idx.find(QUEUE_QUESTION, k=10, kind="both")
    assert {h.kind for h in both.hits} == {"fact", "memory"}
    assert [h.score for h in both.hits if not h.exact] == sorted(
        (h.score for h in both.hits if not h.exact), reverse=True
    )


def test_unlinked_memory_is_read_through_the_names_it_mentions(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    note = kg.remember("Reminder: my_api and Redis were load-tested together in April")
    result = SearchIndex.open(kg, model=embedder).find("load test of the queue", k=5, kind="memories")
    hit = next(h for h in result.hits if h.memory.id == note.id)
    assert hit.backs == () and hit.inferred and hit.status == "history"
    assert [c.fact.object_name for c in hit.mentions] == ["Redis"]


# ---------------------------------------------------------------------- names beat vectors


def test_exact_names_and_aliases_are_a_signal_of_their_own(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    kg.add("Nimbus", "owned_by", "platform_team", valid_from="2026-01-01")
    kg.alias("nb", "Nimbus")
    idx = SearchIndex.open(kg, model=embedder)
    plain = idx.find("which queue does the service use", k=5)
    assert not any(h.exact for h in plain.hits) and plain.named == ()
    named = idx.find("nb which queue does the service use", k=5, explain=True)
    nimbus = next(h for h in facts_of(named) if h.fact.subject == "nimbus")
    assert nimbus.exact and nimbus.explain is not None and nimbus.explain.name_rank == 1  # found by its alias
    assert nimbus not in plain.hits and nimbus.explain.lexical_rank is None  # no word of the query is in it
    assert nimbus.explain.name > 0 and nimbus.score == nimbus.explain.total
    assert [(n.text, n.entity) for n in named.named] == [("nb", "nimbus")]
    # the longest span wins and nothing is guessed: "my api" names my_api, "api" alone names nothing
    assert [n.entity for n in named_entities(kg, "Did My API's queue change?")] == ["my_api"]
    assert named_entities(kg, "my ap queue") == []


# ---------------------------------------------------------------------- keeping in step


def test_only_new_and_changed_texts_are_embedded(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    idx = SearchIndex.open(kg, model=embedder)
    first = idx.sync()
    assert first.state == "missing" and first.facts.total == 4 and first.memories.total == 2
    assert first.embedded == 6 and len(embedder.reset()) == 6
    assert idx.sync().state == "fresh" and embedder.reset() == []

    kg.add("billing_service", "uses_queue", "RabbitMQ", valid_from="2026-01-01")  # new
    report = idx.sync()
    assert (report.state, report.facts.added, report.facts.changed, report.embedded) == ("stale", 1, 0, 1)
    assert embedder.reset() == ["billing service uses queue RabbitMQ"]

    kg.supersede("billing_service", "uses_queue", "RabbitMQ", "SQS", at="2026-06-01")  # ends one, adds one
    report = idx.sync()
    assert (report.facts.added, report.facts.changed, report.facts.removed) == (1, 0, 0)
    assert embedder.reset() == ["billing service uses queue SQS"]

    kg.add("search_service", "uses_queue", "Simple Queue Service", valid_from="2026-07-01")
    idx.sync()
    embedder.reset()
    kg.merge("Simple Queue Service", "SQS")  # the fact's text changes to one already embedded
    report = idx.sync()
    assert (report.facts.added, report.facts.changed, report.facts.removed, report.embedded) == (0, 1, 0, 1)
    assert embedder.reset() == ["search service uses queue SQS"]
    kg.add("Payments", "uses_queue", "SQS")
    kg.merge("Payments", "billing_service")  # merged into a fact that exists: de-duplicated away
    report = idx.sync()
    assert report.facts.removed == 1 and report.embedded == 0 and embedder.reset() == []

    kg.remember("Queue costs went down after the SQS move")
    report = idx.sync()
    assert (report.memories.added, report.embedded) == (1, 1)
    embedder.reset()
    hit = facts_of(idx.find("search service queue", k=1))[0]
    assert hit.fact.object_name == "SQS" and embedder.reset() == ["search service queue"]


def test_embeddings_are_cached_by_text(kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting) -> None:
    SearchIndex.open(kg, model=embedder).sync()
    embedder.reset()
    kg.add("my_api", "uses_queue", "Redis", valid_from="2027-01-01")  # a text embedded before
    report = SearchIndex.open(kg, model=embedder).sync()
    assert report.facts.added == 1 and report.embedded == 0 and report.cached == 1
    rebuilt = SearchIndex.open(kg, model=embedder).sync(rebuild=True)
    assert rebuilt.state == "rebuild" and rebuilt.embedded == 0 and rebuilt.cached == 6  # 7 items, 6 distinct texts
    assert embedder.reset() == []


def test_missing_or_tampered_index_is_detected_and_rebuilt(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting, tmp_path: Path
) -> None:
    idx = SearchIndex.open(kg, model=embedder)
    idx.sync()
    folder = idx.folder
    assert folder is not None and folder.parent == index_folder(kg)
    if kg.backend == "sqlite":  # beside the graph's file
        assert folder.parent == Path(f"{kg.location.path}.search")
    else:  # a local cache, named by the graph's identity (HOME is tmp_path in the tests)
        assert folder.parent == tmp_path / ".cache" / "kgtoolkit" / "search" / kg.identity()
    assert {p.name for p in folder.iterdir()} >= {
        "manifest.json",
        "facts.faiss",
        "facts.keys.npz",
        "memories.faiss",
        "memories.keys.npz",
    }
    assert SearchIndex.open(kg, model=embedder).status().state == "fresh"

    (folder / "facts.faiss").unlink()
    broken = SearchIndex.open(kg, model=embedder)
    assert broken.status().state == "corrupt"
    result = broken.find(QUEUE_QUESTION, k=2)
    assert result.synced is not None and result.synced.state == "corrupt" and result.synced.embedded == 0
    assert {h.fact.object_name for h in result.hits} == {"Redis", "SQLite"}
    assert SearchIndex.open(kg, model=embedder).status().state == "fresh"

    data = bytearray((folder / "facts.faiss").read_bytes())  # same size, flipped bytes: the checksum sees it
    data[-8:] = bytes(8)
    (folder / "facts.faiss").write_bytes(bytes(data))
    assert SearchIndex.open(kg, model=embedder).status().state == "corrupt"

    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["watermark"]["graph"] = "0" * 32  # a manifest that claims to cover another graph
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert SearchIndex.open(kg, model=embedder).status().state in ("corrupt", "stale")

    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()
    missing = SearchIndex.open(kg, model=embedder)
    assert missing.status().state == "missing"
    assert missing.sync().state == "missing" and SearchIndex.open(kg, model=embedder).status().state == "fresh"


def test_a_change_from_another_process_is_seen(
    kg: KnowledgeGraph, db_path: Path | str, example: dict[str, Any], embedder: Counting
) -> None:
    idx = SearchIndex.open(kg, model=embedder)
    idx.find(QUEUE_QUESTION, k=1)
    assert idx.find(QUEUE_QUESTION, k=1).synced is None  # nothing written: no digest, no sync
    code = (
        "import sys, kgtoolkit; kg = kgtoolkit.open(sys.argv[1]); "
        "kg.supersede('my_api', 'uses_queue', 'SQLite', 'Kafka', at='2026-12-01')"
    )
    subprocess.run([sys.executable, "-c", code, str(db_path)], check=True, timeout=60)
    assert SearchIndex.open(kg, model=embedder).status().state == "stale"  # a new reader sees it
    result = idx.find(QUEUE_QUESTION, k=3, current_only=True)  # the open index sees it too
    assert result.synced is not None and result.synced.state == "stale" and result.synced.facts.added == 1
    assert [h.fact.object_name for h in result.hits if h.fact.predicate == "uses_queue"] == ["Kafka"]
    sqlite = next(h for h in facts_of(idx.find(QUEUE_QUESTION, k=3)) if h.fact.object_name == "SQLite")
    assert sqlite.current is False and "replaced by Kafka since 2026-12-01" in sqlite.note


def test_two_graph_objects_share_their_embeddings(
    kg: KnowledgeGraph,
    db_path: Path | str,
    example: dict[str, Any],
    search_model: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two graph objects on one graph, as two processes would be (for PostgreSQL: on two machines, each
    with a local cache folder of its own): a text one of them embedded is not embedded by the other."""
    first, second = Counting(search_model), Counting(search_model)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "machine-a"))
    a = SearchIndex.open(kg, model=first)
    assert a.sync().embedded == 6 and len(first.reset()) == 6
    with kgtoolkit.open(db_path) as other:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "machine-b"))
        b = SearchIndex.open(other, model=second)
        if kg.backend == "postgresql":  # an index of its own, built from the embeddings in the database
            assert b.folder != a.folder
            report = b.sync()
            assert (report.state, report.embedded, report.cached) == ("missing", 0, 6)
        else:  # the one index beside the file
            assert b.folder == a.folder and b.sync().state == "fresh"
        assert second.reset() == []

        # A write through the other object: the first index sees it at its next find and embeds the new text ...
        other.supersede("my_api", "uses_queue", "SQLite", "Kafka", at="2026-12-01")
        result = a.find(QUEUE_QUESTION, k=3, current_only=True)
        assert result.synced is not None and result.synced.facts.added == 1
        assert [h.fact.object_name for h in result.hits if h.fact.predicate == "uses_queue"] == ["Kafka"]
        assert first.reset() == ["my api uses queue Kafka", QUEUE_QUESTION]
        # ... which the other one then takes from the cache: it embeds only its own query
        again = b.find(QUEUE_QUESTION, k=3, current_only=True)
        assert again.synced is not None and (again.synced.facts.added, again.synced.embedded) == (1, 0)
        assert second.reset() == [QUEUE_QUESTION]
        assert [h.fact.id for h in again.hits] == [h.fact.id for h in result.hits]
        b.close()
    a.close()


def test_a_deleted_index_folder_is_rebuilt_from_the_embedding_cache(
    kg: KnowledgeGraph, example: dict[str, Any], embedder: Counting
) -> None:
    """The index folder is a cache: delete it and the next find rebuilds it. For PostgreSQL the embeddings
    are in the database, so nothing is embedded again; SQLite keeps them in that folder too."""
    idx = SearchIndex.open(kg, model=embedder)
    idx.sync()
    idx.close()
    embedder.reset()
    folder = index_folder(kg)
    assert folder is not None and folder.is_dir()
    shutil.rmtree(folder)
    again = SearchIndex.open(kg, model=embedder)
    assert again.status().state == "missing"
    result = again.find(QUEUE_QUESTION, k=2)
    assert result.synced is not None and result.synced.state == "missing"
    assert {h.fact.object_name for h in result.hits} == {"Redis", "SQLite"}
    if kg.backend == "postgresql":
        assert (result.synced.embedded, result.synced.cached) == (0, 6)
        assert embedder.reset() == [QUEUE_QUESTION]
    else:
        assert result.synced.embedded == 6 and len(embedder.reset()) == 7
    assert SearchIndex.open(kg, model=embedder).status().state == "fresh"


def test_a_read_only_graph_is_searched_without_writing_it(
    kg: KnowledgeGraph,
    db_path: Path | str,
    example: dict[str, Any],
    embedder: Counting,
    dump: Callable[[Path | str], list[str]],
) -> None:
    """Read-only is read-only: the vectors stay in memory, never in the database nor in a file (issue 44)."""
    before = dump(db_path)
    with kgtoolkit.open(db_path, read_only=True) as reader:
        result = SearchIndex.open(reader, model=embedder).find(QUEUE_QUESTION, k=2)
        assert {h.fact.object_name for h in result.hits} == {"Redis", "SQLite"}
        assert result.synced is not None and result.synced.embedded == 6
    assert dump(db_path) == before
    folder = index_folder(kg)
    assert folder is None or not folder.exists()  # not even the folder: nothing was kept
    embedder.reset()
    kg.remember("The queue moved again")  # a writable index after it embeds every text, and keeps them
    report = SearchIndex.open(kg, model=embedder).sync()
    assert (report.state, report.embedded) == ("missing", 7)
    assert SearchIndex.open(kg, model=embedder).sync(rebuild=True).embedded == 0  # the writable one's vectors serve


def test_the_approximate_index_above_the_threshold(
    db_path: Path | str, tmp_path: Path, embedder: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtoolkit._demo import build_demo
    from kgtoolkit.search import _faiss
    from kgtoolkit.store import copy_graph

    with build_demo(tmp_path / "demo.sqlite3") as demo:
        kg = kgtoolkit.open(db_path)
        copy_graph(demo, kg)
    exact = SearchIndex.open(kg, model=embedder).find("which database does billing use", k=3)
    monkeypatch.setattr(_faiss, "FLAT_LIMIT", 20)  # where the index builder reads it
    idx = SearchIndex.open(kg, model=embedder)
    report = idx.sync(rebuild=True)
    assert report.facts.index_type == "ivf" and report.memories.index_type == "flat"
    approx = idx.find("which database does billing use", k=3)
    assert [h.fact.id for h in approx.hits] == [h.fact.id for h in exact.hits]
    kg.add("billing_service", "uses_queue", "SQS", valid_from="2026-11-01")  # incremental add into IVF
    assert idx.sync().facts.added == 1
    assert SearchIndex.open(kg, model=embedder).status().index_types["facts"] == "ivf"
    kg.close()


def test_in_memory_graph_and_bad_requests(embedder: Counting) -> None:
    kg = kgtoolkit.open(":memory:")
    worked_example_with_memories(kg)
    idx = SearchIndex.open(kg, model=embedder)
    assert idx.folder is None and idx.find(QUEUE_QUESTION, k=1).hits
    for kwargs, field in (({"k": 0}, "k"), ({"kind": "people"}, "kind"), ({"as_of": "yesterday"}, "as_of")):
        with pytest.raises(kgtoolkit.InvalidRequest) as info:
            idx.find(QUEUE_QUESTION, **kwargs)
        assert info.value.data.get("field") == field or field in info.value.message
    with pytest.raises(kgtoolkit.InvalidRequest):
        idx.find("   ")
    assert fact_text("my_api", "uses_queue", "SQLite") == "my api uses queue SQLite"


# ---------------------------------------------------------------------- doors: tool, CLI, imports


def test_tool_actions_remember_and_find(kg: KnowledgeGraph, search_model: Any) -> None:
    answer = run_tool(
        {
            "action": "remember",
            "text": "2026-03-02 design review: my_api will use Redis for its job queue",
            "source": "design-review",
            "metadata": {"meeting": "arch"},
        },
        kg=kg,
    )
    assert answer["ok"], answer
    memory = answer["result"]["memory"]
    assert memory["id"].startswith("mem_") and memory["metadata"] == {"meeting": "arch"}
    run_tool(
        {
            "action": "add",
            "subject": "my_api",
            "predicate": "uses queue",
            "object": "Redis",
            "valid_from": "2026-03-02",
            "source_closet": memory["id"],
        },
        kg=kg,
    )
    run_tool(
        {
            "action": "supersede",
            "subject": "my_api",
            "predicate": "uses_queue",
            "object": "Redis",
            "new_object": "SQLite",
            "at": "2026-10-12",
        },
        kg=kg,
    )
    found = run_tool(json.dumps({"action": "find", "query": QUEUE_QUESTION, "k": 4, "kind": "both"}), kg=kg)
    assert found["ok"], found
    hits = found["result"]["hits"]
    facts = {h["fact"]["object_name"]: h for h in hits if h["kind"] == "fact"}
    assert facts["Redis"]["current"] is False and facts["SQLite"]["current"] is True
    assert facts["Redis"]["replaced_by"][0]["object_name"] == "SQLite"
    assert next(h for h in hits if h["kind"] == "memory")["status"] == "history"
    assert run_tool({"action": "find", "query": "queue", "kind": "people"}, kg=kg)["error"]["code"] == "invalid_request"
    assert run_tool({"action": "find"}, kg=kg)["error"]["code"] == "invalid_request"
    assert run_tool({"action": "remember", "text": "  "}, kg=kg)["error"]["code"] == "invalid_request"
    assert run_tool({"action": "find", "query": "q", "k": "3"}, kg=kg)["error"]["code"] == "invalid_request"
    schema = kgtoolkit.TOOL_SCHEMA["input_schema"]["properties"]
    assert {"find", "remember"} <= set(schema["action"]["enum"]) and schema["k"]["type"] == "integer"


def test_cli_index_and_find(db_path: Path | str, search_model: Any) -> None:
    with kgtoolkit.open(db_path) as kg:
        worked_example_with_memories(kg)
    runner = CliRunner()
    built = runner.invoke(app, ["--db", str(db_path), "index", "--json"])
    assert built.exit_code == 0, built.output
    assert json.loads(built.stdout)["facts"]["total"] == 4
    again = runner.invoke(app, ["--db", str(db_path), "index", "--json"])
    assert json.loads(again.stdout)["state"] == "fresh"
    found = runner.invoke(app, ["--db", str(db_path), "find", QUEUE_QUESTION, "--k", "2", "--json"])
    assert found.exit_code == 0, found.output
    assert {h["fact"]["object_name"] for h in json.loads(found.stdout)["hits"]} == {"Redis", "SQLite"}
    table = runner.invoke(app, ["--db", str(db_path), "find", QUEUE_QUESTION, "--kind", "both", "--current"])
    assert table.exit_code == 0 and "SQLite" in table.stdout and "design review" not in table.stdout
    bad = runner.invoke(app, ["--db", str(db_path), "find", "x", "--kind", "people"])
    assert bad.exit_code == 1 and "invalid_request" in bad.output
    status = runner.invoke(app, ["--db", str(db_path), "index", "--status"])
    assert status.stdout.startswith("fresh") and "the index holds 4 facts and 2 memories" in status.stdout


def test_cli_index_status_of_a_graph_never_indexed(db_path: Path | str, search_model: Any) -> None:
    # It said "(0 facts, 0 memories …)", which reads as an empty graph.
    with kgtoolkit.open(db_path) as kg:
        worked_example_with_memories(kg)
    status = CliRunner().invoke(app, ["--db", str(db_path), "index", "--status"])
    assert status.exit_code == 0, status.output
    assert status.stdout.startswith("missing") and "nothing indexed yet; `kgtoolkit index` builds it" in status.stdout
    assert "0 facts" not in status.stdout


def test_search_is_imported_lazily(db_path: Path | str, tmp_path: Path) -> None:
    code = """
import sys, json
import kgtoolkit, kgtoolkit.cli, kgtoolkit.search
from typer.testing import CliRunner
from kgtoolkit.cli import app
db = sys.argv[1]
for args in (["add", "a", "b", "c"], ["query", "a"], ["stats"], ["summary"], ["index", "--status"]):
    assert CliRunner().invoke(app, ["--db", db, *args]).exit_code == 0, args
kg = kgtoolkit.open(db)
assert kgtoolkit.run_tool({"action": "remember", "text": "evidence"}, kg=kg)["ok"]
heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers", "faiss") if m in sys.modules)
print(json.dumps(heavy))
"""
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code, str(db_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []

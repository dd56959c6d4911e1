"""Search freshness by a watermark (contract §15, schema step 8): after any write, by this graph object, another
one or raw SQL from another connection, the next ``find`` covers exactly the graph's texts; a write that only
adds texts is caught up by reading the rows above the watermark, one that changes or removes an embedded text
(a merge, an entity renamed, a predicate folded, a memory changed or deleted) by a full comparison.

A stand-in embedder (a hash of the text as its vector) keeps the model out: what is tested is which texts the
index holds, which it embeds, and how it reads the graph.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgtoolkit
from conftest import run_sql, undo_steps
from kgtoolkit import KnowledgeGraph
from kgtoolkit.store.engine._schema import MIGRATIONS
from kgtoolkit.store.reads import _search as store

pytestmark = pytest.mark.search_extra("faiss", "numpy")
_graph_texts = store.graph_texts  # the full read itself (the index's calls of it are counted: ``full_reads``)


class HashEmbedder:
    """A text's vector is a hash of it: equal texts, equal vectors. Counts the texts it embeds."""

    name = "hash-32"
    dim = 32

    def __init__(self) -> None:
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> Any:
        self.texts.extend(texts)
        rows = [
            np.frombuffer(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest(), dtype=np.uint8).astype(
                np.float32
            )
            + 1
            for t in texts
        ]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True) if len(texts) else out

    def reset(self) -> list[str]:
        seen, self.texts = self.texts, []
        return seen


def where(kg: KnowledgeGraph) -> Path | str:
    """The graph's file or URL, for raw SQL from another connection."""
    return kg.location.path if kg.location.path is not None else str(kg.location.url)


def expected(kg: KnowledgeGraph) -> dict[str, dict[Any, bytes]]:
    """What a full rebuild would hold: every text of the graph, by key, as its hash."""
    from kgtoolkit.search._sync import _texts
    from kgtoolkit.search._texts import _text_hash

    texts = _texts(_graph_texts(kg))
    return {kind: {key: _text_hash(text) for key, text in texts[kind].items()} for kind in texts}


def held(index: Any) -> dict[str, dict[Any, bytes]]:
    """What the index holds (its keys' hashes), each FAISS index holding exactly as many vectors."""
    for part in index._parts.values():
        assert part.total == len(part.hashes)
    return {kind: dict(part.hashes) for kind, part in index._parts.items()}


@pytest.fixture
def full_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the full reads of the graph (every text) the index makes."""
    calls: list[int] = []

    def counted(kg: KnowledgeGraph) -> store.GraphTexts:
        calls.append(1)
        return _graph_texts(kg)

    monkeypatch.setattr(store, "graph_texts", counted)
    return calls


def _index(kg: KnowledgeGraph, embedder: HashEmbedder) -> Any:
    from kgtoolkit.search import SearchIndex

    return SearchIndex.open(kg, model=embedder)


def _top(index: Any, text: str, kind: str = "facts") -> Any:
    """The best vector hit of ``kind`` for ``text`` (its own sentence: the hash embedder gives it score 1)."""
    result = index.find(text, k=1, kind=kind, mode="vector")
    return result.hits[0] if result.hits else None


def test_each_kind_of_write_is_seen_by_the_next_find(kg: KnowledgeGraph, full_reads: list[int]) -> None:
    embedder = HashEmbedder()
    kg.add("my_api", "uses_queue", "Redis")
    kg.add("billing", "uses_db", "Postgres")
    kg.remember("billing moved to Postgres in March")
    index = _index(kg, embedder)
    index.sync()
    assert held(index) == expected(kg)
    full_reads.clear()
    embedder.reset()

    new = kg.add("my_api", "uses_cache", "Memcached").fact  # an add: read above the watermark, one text embedded
    hit = _top(index, "my api uses cache Memcached")
    assert hit.fact.id == new.id and held(index) == expected(kg)
    assert embedder.reset() == ["my api uses cache Memcached"] * 2 and full_reads == []  # the text, then the query

    memory = kg.remember("the cache is warmed at deploy time")  # a memory: likewise
    assert _top(index, memory.text, "memories").memory.id == memory.id and held(index) == expected(kg)
    assert embedder.reset() == [memory.text] * 2 and full_reads == []

    kg.invalidate("my_api", "uses_cache", "Memcached")  # no text changed: nothing read in full, nothing embedded
    kg.alias("API", "my_api")
    kg.add_entity("billing", type="project")
    index.find("anything", k=1, mode="vector")
    assert held(index) == expected(kg) and embedder.reset() == ["anything"] and full_reads == []

    kg.merge("billing", "my_api")  # facts move to another subject: a full comparison, only new texts embedded
    assert _top(index, "my api uses db Postgres").fact.subject == "my_api"
    assert held(index) == expected(kg) and len(full_reads) == 1
    assert embedder.reset() == ["my api uses db Postgres"] * 2

    kg.rename_predicate("uses_queue", "queues_on")
    assert _top(index, "my api queues on Redis").fact.predicate == "queues_on"
    assert held(index) == expected(kg) and len(full_reads) == 2

    kg.add("my_api", "uses_queue", "Kafka")  # back to the watermark: no full read
    index.find("anything else", k=1, mode="vector")
    assert held(index) == expected(kg) and len(full_reads) == 2
    index.close()


def test_writes_by_another_graph_object_and_raw_sql_are_seen(kg: KnowledgeGraph, db_path: Path | str) -> None:
    embedder = HashEmbedder()
    kg.add("a", "links", "b")
    first = kg.remember("first note")
    index = _index(kg, embedder)
    index.sync()
    other = kgtoolkit.open(db_path)
    try:
        other.add("a", "links", "c")
        assert _top(index, "a links c") is not None and held(index) == expected(kg)
        other.merge("c", "b")
        index.find("q", k=1, mode="vector")
        assert held(index) == expected(kg)
    finally:
        other.close()
    raw = where(kg)
    statements = [
        "UPDATE entities SET name = 'Alpha' WHERE id = 'a'",  # a rename behind kgtoolkit's back
        "INSERT INTO memories(id, text, created_at) VALUES ('raw1', 'written by another program', 't')",
        f"UPDATE memories SET text = 'first note, edited' WHERE id = '{first.id}'",
        "DELETE FROM memories WHERE id = 'raw1'",
        "INSERT INTO facts(subject, predicate, object_value, object_key, from_us, to_us, recorded_at) "
        "VALUES ('a', 'noted', 'by hand', 'by hand', 0, 1, 't')",
        "DELETE FROM facts WHERE object_value = 'by hand'",
        "INSERT INTO memories(id, text, created_at) VALUES ('raw2', 'a last note', 't')",
    ]
    for statement in statements:
        run_sql(raw, statement)
        index.find("q", k=1, kind="both", mode="vector")
        assert held(index) == expected(kg), statement
    assert _top(index, "Alpha links b").fact.subject_name == "Alpha"
    assert _top(index, "first note, edited", "memories").memory.id == first.id
    index.close()


def test_the_folder_is_written_lazily_and_read_by_another_index(kg: KnowledgeGraph) -> None:
    """One add does not rewrite the index files: another index reading the folder catches up from the watermark
    (its vectors from the embedding cache, nothing embedded again); closing writes what the files lack."""
    kg.add("a", "links", "b")
    index = _index(kg, HashEmbedder())
    index.sync()
    manifest = index.folder / "manifest.json"
    written = manifest.read_text()
    kg.add("a", "links", "c")
    index.find("q", k=1, mode="vector")
    assert manifest.read_text() == written and held(index) == expected(kg)

    embedder = HashEmbedder()
    reader = _index(kg, embedder)
    assert reader.status().state == "stale"
    synced = reader.find("q", k=1, mode="vector").synced
    assert synced is not None and synced.facts.added == 1 and synced.embedded == 0 and synced.cached == 1
    assert held(reader) == expected(kg) and embedder.texts == ["q"]
    reader.close()
    index.close()
    assert json.loads(manifest.read_text())["watermark"] != json.loads(written)["watermark"]
    again = _index(kg, HashEmbedder())
    assert again.status().state == "fresh" and held(again) == expected(kg)
    again.close()


def test_a_folder_of_the_previous_release_loads_and_is_compared_once(kg: KnowledgeGraph, full_reads: list[int]) -> None:
    """A manifest without a watermark (as the release before wrote it: a digest of the texts) still loads: it is
    compared with the graph once, embeds nothing, and records the watermark."""
    kg.add("a", "links", "b")
    kg.remember("a note")
    index = _index(kg, HashEmbedder())
    index.sync()
    index.close()
    path = index.folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.pop("watermark")
    manifest["graph"] = {
        "facts": {"count": 1, "digest": "0" * 32, "max_id": 1},
        "memories": {"count": 1, "digest": "0" * 32},
    }
    path.write_text(json.dumps(manifest))
    embedder = HashEmbedder()
    old = _index(kg, embedder)
    status = old.status()
    assert status.state == "stale" and "watermark" in status.reason and status.facts == 1
    full_reads.clear()
    assert old.find("q", k=1, mode="vector").synced is None  # nothing had changed
    assert embedder.texts == ["q"] and len(full_reads) == 1 and "watermark" in json.loads(path.read_text())
    old.close()
    assert _index(kg, HashEmbedder()).status().state == "fresh"


def test_a_graph_of_the_schema_before_the_watermark_upgrades_in_place(db_path: Path | str) -> None:
    """On both engines: a graph as the previous schema left it gains the generation, its triggers and (PostgreSQL)
    the memories' order on opening; the index then follows writes by the watermark."""
    with kgtoolkit.open(db_path) as kg:
        kg.add("a", "links", "b")
        kg.remember("an old note")
        kg.remember("another old note")
    postgres = str(db_path).startswith("postgresql://")
    kind = "postgresql" if postgres else "sqlite"
    previous = next(i for i, step in enumerate(MIGRATIONS[kind]) if any("search_generation" in s for s in step))
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, kind), version)
    with kgtoolkit.open(db_path) as kg:
        ((graph, generation),) = run_sql(db_path, "SELECT graph, generation FROM search_generation")
        assert len(graph) == 32 and generation == 0
        if postgres:  # the memories there before are ordered too
            assert len({r[0] for r in run_sql(db_path, "SELECT seq FROM memories")}) == 2
        embedder = HashEmbedder()
        index = _index(kg, embedder)
        index.sync()
        kg.remember("a new note")
        kg.add("a", "links", "c")
        index.find("q", k=1, kind="both", mode="vector")
        assert held(index) == expected(kg)
        kg.merge("c", "b")
        assert run_sql(db_path, "SELECT generation FROM search_generation")[0][0] > 0
        index.find("q", k=1, kind="both", mode="vector")
        assert held(index) == expected(kg)
        index.close()


def test_postgresql_rows_committed_late_below_the_watermark_are_seen(db_path: Path | str) -> None:
    """PostgreSQL gives an id when a row is inserted, not when its transaction commits: a fact (or memory) of a
    transaction still open while a later one commits has the lower id, and is seen once it commits."""
    if not str(db_path).startswith("postgresql://"):
        pytest.skip("SQLite commits one writer at a time, in id order")
    import psycopg

    with kgtoolkit.open(db_path) as kg:
        kg.add("a", "links", "b")
        index = _index(kg, HashEmbedder())
        index.sync()
        with psycopg.connect(str(db_path)) as slow:  # a transaction left open
            slow.execute(
                "INSERT INTO facts(subject, predicate, object_value, object_key, from_us, to_us, recorded_at) "
                "VALUES ('a', 'noted', 'late', 'late', 0, 1, 't')"
            )
            slow.execute("INSERT INTO memories(id, text, created_at) VALUES ('late', 'a late note', 't')")
            kg.add("a", "links", "c")  # commits the higher id first
            kg.remember("an early note")
            index.find("q", k=1, kind="both", mode="vector")
            assert held(index) == expected(kg) and index._mark.waiting is not None
            slow.commit()
        assert _top(index, "a noted late") is not None
        assert held(index) == expected(kg) and "late" in held(index)["memories"]
        index.find("q", k=1, kind="both", mode="vector")  # every transaction has ended: the marks settle
        assert index._mark.waiting is None and index._mark.facts == max(held(index)["facts"])
        index.close()


# ---------------------------------------------------------------------- the watermark against a full rebuild

NAMES = ["ann", "bob", "cat", "dan"]
WRITES = st.one_of(
    st.tuples(
        st.just("add"),
        st.sampled_from(NAMES),
        st.sampled_from(["knows", "likes", "owes"]),
        st.sampled_from([*NAMES, "tea", "jazz"]),
    ),
    st.tuples(st.just("remember"), st.sampled_from(["a note", "b note", "c note"])),
    st.tuples(st.just("merge"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("rename_predicate"), st.sampled_from(["knows", "likes"]), st.sampled_from(["likes", "owes"])),
    st.tuples(st.just("invalidate"), st.sampled_from(NAMES), st.sampled_from(["knows", "likes"])),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(["Zed", "Yan"])),
    st.tuples(st.just("forget"), st.sampled_from(["a note", "b note"])),
    st.tuples(st.just("find")),
)


def _apply(kg: KnowledgeGraph, write: tuple[Any, ...]) -> None:
    op, *args = write
    try:
        if op == "add":
            kg.add(*args)
        elif op == "remember":
            kg.remember(args[0])
        elif op == "merge" and args[0] != args[1]:
            kg.merge(*args)
        elif op == "rename_predicate" and args[0] != args[1]:
            kg.rename_predicate(*args)
        elif op == "invalidate":
            for fact in kg.query(args[0], direction="outgoing", predicates=[args[1]], current_only=True)[:1]:
                kg.invalidate(fact.subject, fact.predicate, fact.object)
        elif op == "rename":  # raw SQL from another connection
            run_sql(where(kg), f"UPDATE entities SET name = '{args[1]}' WHERE id = '{args[0]}'")
        elif op == "forget":
            run_sql(where(kg), f"DELETE FROM memories WHERE text = '{args[0]}'")
    except kgtoolkit.KGError:
        pass  # a write the graph refuses (an entity merged away, a predicate not in use) changes nothing


@pytest.fixture
def fresh(new_db: Callable[[str], Path | str]) -> Iterator[Callable[[], KnowledgeGraph]]:
    names = itertools.count()
    opened: list[KnowledgeGraph] = []

    def make() -> KnowledgeGraph:
        opened.append(kgtoolkit.open(new_db(f"example{next(names)}")))
        return opened[-1]

    yield make
    for graph in opened:
        graph.close()


def test_the_watermark_path_matches_a_full_rebuild(backend: str, fresh: Callable[[], KnowledgeGraph]) -> None:
    @settings(
        max_examples=25 if backend == "sqlite" else 6, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(st.lists(WRITES, min_size=1, max_size=12))
    def check(writes: list[tuple[Any, ...]]) -> None:
        kg = fresh()
        kg.add("ann", "knows", "bob")
        index = _index(kg, HashEmbedder())
        index.sync()
        for write in writes:
            _apply(kg, write)
            if write[0] == "find":
                index.find("q", k=3, kind="both", mode="vector")
                assert held(index) == expected(kg)
        index.find("q", k=3, kind="both", mode="vector")
        assert held(index) == expected(kg)
        rebuilt = _index(kg, HashEmbedder())
        rebuilt.sync(rebuild=True)
        assert held(rebuilt) == held(index)
        rebuilt.close()
        index.close()

    check()

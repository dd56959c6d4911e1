"""Regression tests for bugs a review found in search and the dashboard's graph page (on both backends)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kgtoolkit
from kgtoolkit import frames
from kgtoolkit.dashboard import graphview
from kgtoolkit.store.reads import _search as store


def test_a_fact_that_came_and_went_replaced_nothing(kg: kgtoolkit.KnowledgeGraph) -> None:
    redis = kg.add("my_api", "uses_queue", "Redis", valid_from="2020-01-01").fact
    kg.add("my_api", "uses_queue", "Kafka", valid_from="2021-01-01", valid_to="2022-01-01")
    kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
    assert [f.object for f in store.successors(kg, redis.id)] == ["sqlite"]


def test_cdn_names_in_graph_data_survive_the_strip(kg: kgtoolkit.KnowledgeGraph) -> None:
    kg.add("my_api", "hosted_on", "Cloudflare")
    page = graphview.render_html(graphview.build(frames.facts(kg)))
    assert "cloudflare" not in page.lower()  # the page names no CDN host ...
    labels = [bytes(m, "ascii").decode("unicode_escape") for m in re.findall(r'"label": "([^"]*)"', page)]
    assert "Cloudflare" in labels  # ... yet JavaScript reads the entity's name back unchanged


class _HashEmbedder:
    """A tiny deterministic stand-in for the model: the index logic, without torch."""

    name = "hash-16"
    dim = 16

    def encode(self, texts):
        rows = [
            np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8).astype(np.float32) + 1
            for t in texts
        ]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.mark.search_extra("faiss")  # the index, with a stand-in for the model
def test_text_hashes_ending_in_nul_bytes_survive_a_reload(kg: kgtoolkit.KnowledgeGraph) -> None:
    from kgtoolkit import search

    # A fact whose text hash ends in a NUL byte: a fixed-width byte string would drop it on save.
    name = next(
        f"Thing{i}" for i in range(5000) if search._text_hash(search.fact_text("acme", "uses", f"Thing{i}"))[-1] == 0
    )
    kg.add("acme", "uses", name)
    kg.add("acme", "uses", "Other")
    index = search.SearchIndex.open(kg, model=_HashEmbedder())
    index.sync()
    before = dict(index._parts["facts"].hashes)
    index.close()
    reopened = search.SearchIndex.open(kg, model=_HashEmbedder())
    assert reopened.status().state == "fresh"
    assert dict(reopened._parts["facts"].hashes) == before
    assert reopened.sync().embedded == 0  # nothing looks changed
    reopened.close()


def test_an_unwritable_rejects_file_refuses_the_import_before_writing(
    kg: kgtoolkit.KnowledgeGraph, tmp_path: Path
) -> None:
    from kgtoolkit import io

    source = tmp_path / "ok.csv"
    source.write_text("subject,predicate,object\nA,p,B\n")
    try:
        io.import_file(kg, source, rejects=tmp_path / "missing" / "rej.csv")
    except kgtoolkit.InvalidRequest as exc:
        assert exc.data["field"] == "rejects"
    else:  # pragma: no cover
        raise AssertionError("the import should have been refused")
    assert kg.stats().facts == 0


def test_padded_or_blank_confidence_text_is_read_like_add(kg: kgtoolkit.KnowledgeGraph, tmp_path: Path) -> None:
    from kgtoolkit import io

    source = tmp_path / "pad.tsv"
    source.write_text("subject\tpredicate\tobject\tconfidence\nA\tp\tB\t0.9 \nC\tp\tD\t\n")
    report = io.import_file(kg, source)
    assert (report.inserted, report.rejected) == (2, 0)
    assert sorted(f.confidence for f in kg.timeline()) == [0.9, 1.0]


@pytest.mark.search_extra("faiss")  # the index, with a stand-in for the model
def test_closing_the_graph_closes_its_search_indexes(db_path: Path | str, backend: str) -> None:
    from kgtoolkit import search

    with kgtoolkit.open(db_path) as writer:
        writer.add("acme", "uses", "Thing")
    # PostgreSQL keeps the cache in the database; read-only, the vectors go to a local file the index opens.
    kg = kgtoolkit.open(db_path, read_only=backend == "postgresql")
    index = search.open_index(kg, model=_HashEmbedder())
    index.sync()
    kg.close()
    assert kg._kept == {}
    conn = index.cache._conn if backend == "sqlite" else index.cache._local._conn
    try:
        conn.execute("SELECT 1")
    except Exception as exc:  # a closed sqlite3 connection refuses every statement
        assert "closed" in str(exc).lower()
    else:  # pragma: no cover
        raise AssertionError("the search index's cache stayed open after the graph closed")


@pytest.mark.search_extra("faiss")  # the index, with a stand-in for the model
def test_a_shared_embedding_cache_is_not_written_by_a_read_only_graph(
    db_path: Path | str, backend: str, sql: Callable[..., list[Any]]
) -> None:
    """PostgreSQL: a writable graph puts its vectors into the database; a read-only one reads them and keeps its
    own in memory. Read-only writes nothing anywhere (issue 44): SQLite's reader embeds in memory too (opening the
    cache file would make its -wal), and the next writer embeds what no writer had."""
    from kgtoolkit import search

    with kgtoolkit.open(db_path) as kg:
        kg.add("acme", "uses", "Thing")
        assert search.index(kg, model=_HashEmbedder()).embedded == 1
        kg.add("acme", "uses", "Other")
    with kgtoolkit.open(db_path, read_only=True) as reader:
        report = search.index(reader, model=_HashEmbedder(), rebuild=True)
        # PostgreSQL: "Other" is new, "Thing" came from the database's cache; SQLite: both embedded in memory
        assert (report.embedded, report.cached) == ((1, 1) if backend == "postgresql" else (2, 0))
    if backend == "postgresql":
        # one text ("Thing"), kept under the model's name and the composed index's; the reader added none
        assert sql(db_path, "SELECT count(DISTINCT hash) FROM embeddings") == [(1,)]
    with kgtoolkit.open(db_path) as kg:
        assert search.index(kg, model=_HashEmbedder(), rebuild=True).embedded == 1  # "Other": the reader kept none

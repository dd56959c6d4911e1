"""Issue 50, the index build: every fact text through the model (before) beside the composed build (after).

    python benchmarks/bench_search_build.py --json benchmarks/results-search-build.json
    python benchmarks/bench_search_build.py --skip-speed --quality-graph /tmp/.../quality-<key>   # quality only

Both sides run this checkout, the real bundled model on ONNX Runtime, in processes of their own; only
``$KGTOOLKIT_SEARCH_BUILD`` differs (``full``: today's build, every distinct fact text embedded whole;
``composed``: :mod:`kgtoolkit.search._compose`).

* **speed** (``--skip-speed`` to leave out): ICEWS14 and the generated event graph of ``--facts`` facts (as
  ``bench_search_speed.py`` makes them). After: a full ``SearchIndex.sync()`` from an empty cache, end to end:
  seconds, distinct texts per second, CPU seconds (user + system of every thread: steadier than wall on a
  busy machine; texts per CPU second), peak RSS. Before: the same build when ``--full-before`` names the graph;
  otherwise (the default) its rate is the model's on a seeded sample of ``--sample`` distinct texts of the graph (embedding is
  what today's build waits for; the build's own time is left out, which flatters "before").
* **quality** (``--quality-graph``: a folder ``bench_retrieval.py`` cached, with its embedding cache): the
  retrieval evaluation's fact questions (YAGO11k, WIKIDATA12k, ICEWS14; 100 each, the same questions and
  judgements), ways vector, hybrid (``find``'s default) and hybrid + graph. Before: the index of the full vectors
  the cache holds. After: a composed index built on a copy whose cache lost every fact text's vector (each
  entity and predicate is embedded, a sample of texts whole). The rare-token set asks memories, which are
  embedded whole either way: it is left out.

The load average is recorded before and after (8 helpers may share 2 cores: compare ratios of the same run).
Never used as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def say(text: str) -> None:
    print(text, flush=True)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_build(db: str) -> dict[str, Any]:
    import kgtoolkit
    from kgtoolkit.search import SearchIndex
    from kgtoolkit.search._compose import parts_model

    kg = kgtoolkit.open(db)
    load = [round(x, 2) for x in os.getloadavg()]
    with SearchIndex.open(kg) as idx:
        idx.embedder.encode(["load the model before the clock"])
        started, cpu = time.perf_counter(), time.process_time()
        report = idx.sync()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu  # the files written on closing count
    twin = parts_model(idx.embedder)
    kg.close()
    folder = Path(f"{db}.search")
    files = {str(f.relative_to(folder)): f.stat().st_size for f in sorted(folder.rglob("*")) if f.is_file()}
    return {
        "load_at_start": load,
        "load_at_end": [round(x, 2) for x in os.getloadavg()],
        "index_bytes": {"total": sum(files.values()), "files": files},
        "seconds": seconds,
        "embedded": report.embedded,
        "cached": report.cached,
        "texts_per_s": report.embedded / seconds if seconds else None,
        "cpu_seconds": cpu,
        "texts_per_cpu_s": report.embedded / cpu if cpu else None,
        "model_calls": getattr(idx.embedder, "embedded", None),  # texts the model ran (the sample, writes)
        "parts_model_calls": getattr(twin, "embedded", None) if twin is not idx.embedder else None,  # the int8 twin's
        "peak_rss_mb": _peak_mb(),
    }


def worker_embed(sample: str) -> dict[str, Any]:
    from kgtoolkit._embedding import _embedder

    texts = json.loads(Path(sample).read_text())
    model = _embedder(None)
    model.encode(texts[:16])
    started, cpu = time.perf_counter(), time.process_time()
    model.encode(texts)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "texts": len(texts),
        "seconds": seconds,
        "texts_per_s": len(texts) / seconds,
        "cpu_seconds": cpu,
        "texts_per_cpu_s": len(texts) / cpu,
        "peak_rss_mb": _peak_mb(),
    }


def run_worker(args: list[str], mode: str, env: dict[str, str]) -> dict[str, Any]:
    full_env = {**os.environ, **env, "KGTOOLKIT_SEARCH_BUILD": mode, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", *args],
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{run.stderr[-3000:]}")
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def speed(kind: str, work: Path, args: argparse.Namespace, data: Path, env: dict[str, str]) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    import bench_search_speed as bss

    import kgtoolkit

    out: dict[str, Any] = {}
    db = work / f"{kind}.sqlite3"
    kept = args.graphs / f"{kind}.sqlite3" if args.graphs else None
    if kept is not None and kept.exists():
        say(f"{kind}: the graph kept in {kept}")
        shutil.copyfile(kept, db)
        with kgtoolkit.open(db, read_only=True) as kg:
            out["graph"] = {"facts": kg.stats().facts, "kept": str(kept)}
    else:
        say(f"{kind}: building the graph")
        out["graph"] = bss.make_graph(kind, db, args.facts, data)
        if kept is not None:
            shutil.copyfile(db, kept)
    texts = bss.distinct_texts(db)
    out["graph"]["distinct_texts"] = len(texts)
    say(f"  {out['graph']['facts']:,} facts, {len(texts):,} distinct texts")
    copy = work / f"{kind}.after.sqlite3"
    shutil.copyfile(db, copy)
    out["after"] = run_worker(["build", str(copy)], "composed", env)
    say(f"  after (composed): {json.dumps(out['after'])}")
    if kind in args.full_before:
        copy = work / f"{kind}.before.sqlite3"
        shutil.copyfile(db, copy)
        out["before"] = run_worker(["build", str(copy)], "full", env)
    else:
        rng = np.random.default_rng(11)
        sample = [texts[i] for i in rng.choice(len(texts), min(args.sample, len(texts)), replace=False)]
        sample_file = work / f"{kind}.sample.json"
        sample_file.write_text(json.dumps(sample))
        out["before"] = {"model_on_sample": run_worker(["embed", str(sample_file)], "full", env)}
        out["before"]["texts_per_s"] = out["before"]["model_on_sample"]["texts_per_s"]
    say(f"  before (full): {json.dumps(out['before'])}")
    out["ratio_after_vs_before"] = out["after"]["texts_per_s"] / out["before"]["texts_per_s"]
    previous = _bytes_before_issue_50(kind)
    if previous:
        out["index_bytes_before_issue_50"] = previous
        out["ratio_index_bytes_vs_before_issue_50"] = out["after"]["index_bytes"]["total"] / previous["total"]
    cpu_before = out["before"].get("texts_per_cpu_s") or out["before"]["model_on_sample"]["texts_per_cpu_s"]
    out["ratio_cpu_after_vs_before"] = out["after"]["texts_per_cpu_s"] / cpu_before
    return out


def _bytes_before_issue_50(kind: str) -> dict[str, Any] | None:
    """The index files of the release before issue 50 on the same graph (``bench_search_speed.py``'s
    ``build_before``, recorded in ``results-search-speed.json``: the same generator and seed)."""
    recorded = HERE / "results-search-speed.json"
    if not recorded.exists():
        return None
    graph = json.loads(recorded.read_text()).get("graphs", {}).get(kind, {})
    before = graph.get("build_before", {}).get("bytes")
    return None if before is None else {"source": "results-search-speed.json build_before", **before}


def quality(graph: Path, work: Path) -> dict[str, Any]:
    """The retrieval evaluation's fact questions, full index (before) beside the composed one (after)."""
    sys.path.insert(0, str(HERE))
    import bench_retrieval as br

    import kgtoolkit
    from kgtoolkit import frames
    from kgtoolkit._embedding import _embedder
    from kgtoolkit.search import fact_text
    from kgtoolkit.search._texts import _text_hash
    from kgtoolkit.store.reads import _search as store

    br.WAYS = {k: v for k, v in br.WAYS.items() if k != "lexical"}  # lexical: no vectors
    kg = kgtoolkit.open(graph / "graph.sqlite3", read_only=True)
    facts, read = frames.facts(kg), store.graph_texts(kg)
    kg.close()
    files = br.present(br.data_folder(Path(os.environ.get("KGTOOLKIT_SHARED_DATA") or ROOT.parent / "shared/data")))
    questions = {name: br.fact_questions(facts, name, 100) for name in files}
    hashes = sorted({_text_hash(fact_text(s, p, o)) for _, s, p, o in read.facts})
    model = _embedder(None).name
    out: dict[str, Any] = {"distinct_fact_texts": len(hashes)}
    for side, mode in (("before", "full"), ("after", "composed")):
        folder = work / f"quality-{side}"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(graph, folder)
        search = folder / "graph.sqlite3.search"
        for child in search.iterdir():
            if child.is_dir():
                shutil.rmtree(child)  # the index is built again from the cache (and, after, composed)
        if side == "after":
            conn = sqlite3.connect(search / "embeddings.sqlite3")
            conn.executemany("DELETE FROM embeddings WHERE model = ? AND hash = ?", [(model, h) for h in hashes])
            conn.commit()
            conn.close()
        os.environ["KGTOOLKIT_SEARCH_BUILD"] = mode
        from kgtoolkit.search import SearchIndex

        kg = kgtoolkit.open(folder / "graph.sqlite3")
        started = time.perf_counter()
        with SearchIndex.open(kg) as idx:
            built = idx.sync()
        kg.close()
        say(
            f"  {side} ({mode}): index {built.embedded} embedded, {built.cached} cached, "
            f"{time.perf_counter() - started:.1f} s"
        )
        out[side] = {"mode": mode, "index_seconds": time.perf_counter() - started, "embedded": built.embedded}
        out[side]["evaluation"] = br.evaluate(folder / "graph.sqlite3", questions)
        shutil.rmtree(folder, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=224_000)
    parser.add_argument("--sample", type=int, default=2000, help="texts of the model's rate (before)")
    parser.add_argument("--full-before", nargs="*", default=[], help="graphs built in full before (slow)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-icews", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--quality-graph", type=Path, help="a quality-<key> folder of bench_retrieval.py")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--graphs", type=Path, help="a folder keeping the graphs made (<kind>.sqlite3), reused")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        kind, *rest = args.worker
        result = worker_build(rest[0]) if kind == "build" else worker_embed(rest[0])
        print(json.dumps(result))
        return result
    data = Path(os.environ.get("KGTOOLKIT_SHARED_DATA") or ROOT.parent / "shared" / "data")
    results: dict[str, Any] = {
        "machine": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "cpus": os.cpu_count(),
            "load_before": [round(x, 2) for x in os.getloadavg()],
        },
        "speed": {},
    }

    def save() -> None:
        if args.json:
            results["machine"]["load_now"] = [round(x, 2) for x in os.getloadavg()]
            args.json.write_text(json.dumps(results, indent=1, default=str))

    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-search-build-") as tmp:
        work = Path(tmp)
        env = {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        if args.quality_graph:
            say("quality")
            results["quality"] = quality(args.quality_graph, work)
            save()
        if not args.skip_speed:
            kinds = ([] if args.skip_icews else ["icews14"]) + ([] if args.skip_generated else [f"events-{args.facts}"])
            for kind in kinds:
                results["speed"][kind] = speed(kind, work, args, data, env)
                save()
    results["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    save()
    return results


if __name__ == "__main__":
    main()

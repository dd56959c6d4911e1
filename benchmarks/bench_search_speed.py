"""Issue 50, search at the speed of the data: today's path (before) and the new one (after), in the same run.

    python benchmarks/bench_search_speed.py --json benchmarks/results-search-speed.json
    python benchmarks/bench_search_speed.py --facts 224000 --sample 2000 --skip-icews   # the generated graph only

One command. "Before" is the code of ``--before`` (a commit, default the one this branch started from), unpacked
with ``git archive`` into a temporary folder and run in subprocesses; "after" is this checkout. Both run on the
same graphs, the same texts and the same queries:

* **graphs**: ICEWS14 (``$KGTOOLKIT_SHARED_DATA`` or ``../shared/data``; skipped when absent) and an event graph of
  ``--facts`` facts (``kgtoolkit.generate``, seed 7, every fact an event: ``valid_to = valid_from``).
* **embedding** (``embed_*``): the same seeded sample of ``--sample`` distinct fact texts embedded by each runtime in
  a process of its own: sentence-transformers on torch (before), ONNX Runtime fp32 and int8 (after): texts/s, the
  process's peak RSS, and the cosine of each vector to torch's (mean, min).
* **index** (``build_*``): a full ``SearchIndex.sync()`` of every fact of the graph in a process of its own, with
  vectors from a hash-seeded random embedder under the real model's name (no model time, so the model's rate comes
  from ``embed_*``): seconds, peak RSS, bytes on disk of the index folder (embedding cache + FAISS + keys).
  ``projected_texts_per_s`` = distinct texts / (texts / model rate + the build's own seconds): what a real first
  build runs at.
* **find**: the CLI ``kgtoolkit find`` as a new process (median of ``--cli-runs`` after one untimed run: warm file
  cache, bytecode cached) and ``SearchIndex.find`` in one process (p50/p95 of wall time and p50 of CPU time over
  ``--queries`` distinct queries, the real model embedding each query), on the index built above (random vectors:
  the timings hardly depend on their values). ``--find-only`` measures this alone (no embedding samples).

The load average is recorded before and after (8 helpers may share 2 cores: timings are noisy; compare the ratios
measured in the same run). Never used as a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BASE_COMMIT = "2ccc747"
QUERIES = [
    "interest rate hike",
    "police arrested protesters",
    "visit to china",
    "which service uses the queue",
    "criticised the government",
    "peace talks",
    "who owns the database",
    "economic aid",
    "military attack",
    "team moved to another manager",
    "sign an agreement",
    "threaten with sanctions",
    "make a statement",
    "host a visit",
    "praise or endorse",
    "express intent to cooperate",
    "reject the proposal",
    "consult with ministers",
    "engage in negotiation",
    "accuse of crime",
]


def say(text: str) -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------- workers (run in a process of their own)


class RandomEmbedder:
    """Unit vectors seeded by the text's hash, under the name ``name`` (the real model's: the CLI then uses it)."""

    def __init__(self, name: str, dim: int = 384) -> None:
        self.name, self.dim = name, dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim)
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_embed(runtime: str, sample: Path, out: Path) -> dict[str, Any]:
    from kgtoolkit._embedding import SentenceEmbedder, default_model_path

    texts = json.loads(sample.read_text())
    if runtime == "torch":
        model: Any = SentenceEmbedder()
    else:
        from kgtoolkit._onnx import OnnxEmbedder

        model = OnnxEmbedder(default_model_path(), int8=runtime == "int8")
    model.encode(texts[:16])  # loaded (and exported, the first time) before the clock starts
    started = time.perf_counter()
    vectors = model.encode(texts)
    seconds = time.perf_counter() - started
    np.save(out, vectors)
    return {"texts": len(texts), "seconds": seconds, "texts_per_s": len(texts) / seconds, "peak_rss_mb": _peak_mb()}


def worker_build(db: str) -> dict[str, Any]:
    import kgtoolkit
    from kgtoolkit._embedding import SentenceEmbedder
    from kgtoolkit.search import SearchIndex

    name = SentenceEmbedder().name
    kg = kgtoolkit.open(db)
    started = time.perf_counter()
    with SearchIndex.open(kg, model=RandomEmbedder(name)) as idx:
        report = idx.sync()
    seconds = time.perf_counter() - started
    kg.close()
    return {"seconds": seconds, "embedded": report.embedded, "facts": report.facts.total, "peak_rss_mb": _peak_mb()}


def worker_find(db: str, queries: list[str]) -> dict[str, Any]:
    import kgtoolkit
    from kgtoolkit.search import find

    kg = kgtoolkit.open(db)
    find(kg, "warm up the model and the index")
    seconds, cpu = [], []
    for q in queries:
        started, started_cpu = time.perf_counter(), time.process_time()
        result = find(kg, q)
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert result.synced is None, "the index was not fresh"
    kg.close()
    ordered = sorted(seconds)
    return {
        "queries": len(seconds),
        "p50_ms": statistics.median(seconds) * 1000,
        "p95_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000,
        "cpu_p50_ms": statistics.median(cpu) * 1000,
        "peak_rss_mb": _peak_mb(),
    }


# ---------------------------------------------------------------------- the driver


def _env(code: Path, env: dict[str, str] | None) -> dict[str, str]:
    """The environment of a child importing ``code``'s kgtoolkit, its bytecode cached as an installed one's is."""
    full = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(code), *sys.path[1:]])}
    full.pop("PYTHONDONTWRITEBYTECODE", None)
    return full


def run_worker(code: Path, args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """This file's worker ``args`` with ``code`` (a checkout's root) first on the path; its JSON answer."""
    full_env = _env(code, env)
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


def folder_bytes(folder: Path) -> dict[str, int]:
    files = {p.name: p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")}
    return {"total": sum(files.values()), **{k: v for k, v in files.items() if v > 1_000_000}}


def cli_find(
    code: Path, db: str, runs: int, env: dict[str, str] | None = None, *, floor: bool = False
) -> dict[str, Any]:
    """``kgtoolkit find`` as a new process, ``runs`` times after one untimed run: wall and CPU seconds (user + system,
    steadier than wall on a busy machine). ``floor``: ``kgtoolkit --help`` instead (the CLI's own start)."""
    full_env = _env(code, env)
    seconds, cpu = [], []
    for i in range(runs + 1):
        command = [sys.executable, "-m", "kgtoolkit", "--db", db, "find", QUERIES[i % len(QUERIES)]]
        if floor:
            command = [sys.executable, "-m", "kgtoolkit", "--help"]
        elif code == ROOT:
            command.append("--wait")  # the index is built: never the lexical answer
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        # cwd outside the checkout: `python -m` puts the working folder first on the path
        run = subprocess.run(command, capture_output=True, text=True, env=full_env, check=False, cwd=Path(db).parent)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run.returncode != 0:
            raise RuntimeError(f"kgtoolkit find failed:\n{run.stderr[-2000:]}")
        if i:
            seconds.append(elapsed)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {
        "runs": len(seconds),
        "median_s": statistics.median(seconds),
        "min_s": min(seconds),
        "cpu_median_s": statistics.median(cpu),
    }


def make_graph(kind: str, path: Path, facts: int, data: Path) -> dict[str, Any]:
    import polars as pl

    import kgtoolkit
    from kgtoolkit.store import import_facts

    if kind == "icews14":
        frame = pl.read_csv(data / "icews14" / "facts.tsv", separator="\t", infer_schema=False, quote_char=None)
    else:
        from kgtoolkit.generate import generate

        frame = generate(facts, seed=7).filter(pl.col("valid_from").is_not_null())
        frame = frame.with_columns(pl.col("valid_from").alias("valid_to"))
    with kgtoolkit.open(path, create=True) as kg:
        report, _ = import_facts(kg, frame, on_error="skip")
        kg.index_text()
        stats = kg.stats()
    return {"rows": frame.height, "facts": stats.facts, "entities": stats.entities, "inserted": report.inserted}


def distinct_texts(path: Path) -> list[str]:
    import kgtoolkit
    from kgtoolkit.search import fact_text
    from kgtoolkit.store.reads import _search as store

    with kgtoolkit.open(path, read_only=True) as kg:
        read = store.graph_texts(kg)
    return sorted({fact_text(s, p, o) for _, s, p, o in read.facts})


def bench_graph(
    kind: str, work: Path, base: Path, args: argparse.Namespace, data: Path, env: dict[str, str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    db = work / f"{kind}.sqlite3"
    say(f"{kind}: building the graph")
    out["graph"] = make_graph(kind, db, args.facts, data)
    if args.find_only:  # the query side alone: each side's index built, then its CLI and Python find
        for side, code in (("before", base), ("after", ROOT)):
            copy = work / f"{kind}.{side}.sqlite3"
            shutil.copyfile(db, copy)
            run_worker(code, ["build", str(copy)], env)
        for side, code in (("before", base), ("after", ROOT)):  # the finds of both sides close together in time
            copy = work / f"{kind}.{side}.sqlite3"
            out[f"cli_find_{side}"] = cli_find(code, str(copy), args.cli_runs, env)
            out[f"cli_find_{side}"]["floor_help"] = cli_find(code, str(copy), args.cli_runs, env, floor=True)
            out[f"find_{side}"] = run_worker(code, ["find", str(copy), json.dumps(QUERIES[: args.queries])], env)
            say(f"  {side}: CLI find {out[f'cli_find_{side}']}; Python find {out[f'find_{side}']}")
        out["ratios"] = {
            "cli_find_after_vs_before": out["cli_find_after"]["median_s"] / out["cli_find_before"]["median_s"],
            "cli_find_cpu_after_vs_before": out["cli_find_after"]["cpu_median_s"]
            / out["cli_find_before"]["cpu_median_s"],
            "find_p50_after_vs_before": out["find_after"]["p50_ms"] / out["find_before"]["p50_ms"],
            "find_cpu_p50_after_vs_before": out["find_after"]["cpu_p50_ms"] / out["find_before"]["cpu_p50_ms"],
        }
        return out
    if args.cli_only:
        for side, code in (("before", base), ("after", ROOT)):
            copy = work / f"{kind}.{side}.sqlite3"
            shutil.copyfile(db, copy)
            run_worker(code, ["build", str(copy)], env)
            out[f"cli_find_{side}"] = cli_find(code, str(copy), args.cli_runs, env)
            out[f"cli_find_{side}"]["floor_help"] = cli_find(code, str(copy), args.cli_runs, env, floor=True)
            say(f"  CLI find {side}: {out[f'cli_find_{side}']}")
        return out
    texts = distinct_texts(db)
    out["graph"]["distinct_texts"] = len(texts)
    say(f"  {out['graph']['facts']:,} facts, {len(texts):,} distinct texts")
    rng = np.random.default_rng(11)
    sample = [texts[i] for i in rng.choice(len(texts), min(args.sample, len(texts)), replace=False)]
    sample_file = work / f"{kind}.sample.json"
    sample_file.write_text(json.dumps(sample))
    vectors: dict[str, np.ndarray] = {}
    for runtime, code in (("torch", base), ("onnx", ROOT), ("int8", ROOT)):
        target = work / f"{kind}.{runtime}.npy"
        result = run_worker(code, ["embed", runtime, str(sample_file), str(target)], env)
        vectors[runtime] = np.load(target)
        out[f"embed_{runtime}"] = result
        say(f"  embed {runtime}: {result['texts_per_s']:.0f} texts/s, peak {result['peak_rss_mb']:.0f} MB")
    for runtime in ("onnx", "int8"):
        cos = (vectors[runtime] * vectors["torch"]).sum(axis=1)
        out[f"embed_{runtime}"].update(cos_to_torch_mean=float(cos.mean()), cos_to_torch_min=float(cos.min()))
    for side, code, rate_key in (("before", base, "embed_torch"), ("after", ROOT, "embed_onnx")):
        copy = work / f"{kind}.{side}.sqlite3"
        shutil.copyfile(db, copy)
        build = run_worker(code, ["build", str(copy)], env)
        build["bytes"] = folder_bytes(Path(f"{copy}.search"))
        model_seconds = len(texts) / out[rate_key]["texts_per_s"]
        build["projected_texts_per_s"] = len(texts) / (model_seconds + build["seconds"])
        build["projected_minutes"] = (model_seconds + build["seconds"]) / 60
        out[f"build_{side}"] = build
        say(
            f"  build {side}: {build['seconds']:.1f} s without the model, {build['bytes']['total'] / 1e6:.0f} MB on "
            f"disk, peak {build['peak_rss_mb']:.0f} MB; projected {build['projected_texts_per_s']:.0f} texts/s"
        )
        out[f"cli_find_{side}"] = cli_find(code, str(copy), args.cli_runs, env)
        floor = cli_find(code, str(copy), args.cli_runs, env, floor=True)
        out[f"cli_find_{side}"]["floor_help"] = floor
        say(
            f"  CLI find {side}: {out[f'cli_find_{side}']['median_s']:.2f} s wall, "
            f"{out[f'cli_find_{side}']['cpu_median_s']:.2f} s CPU (median; `kgtoolkit --help`: {floor['median_s']:.2f} s "
            f"wall, {floor['cpu_median_s']:.2f} s CPU)"
        )
        out[f"find_{side}"] = run_worker(code, ["find", str(copy), json.dumps(QUERIES[: args.queries])], env)
        say(f"  Python find {side}: p50 {out[f'find_{side}']['p50_ms']:.1f} ms")
    out["ratios"] = {
        "embed_onnx_vs_torch": out["embed_onnx"]["texts_per_s"] / out["embed_torch"]["texts_per_s"],
        "embed_int8_vs_torch": out["embed_int8"]["texts_per_s"] / out["embed_torch"]["texts_per_s"],
        "index_bytes_after_vs_before": out["build_after"]["bytes"]["total"] / out["build_before"]["bytes"]["total"],
        "cli_find_after_vs_before": out["cli_find_after"]["median_s"] / out["cli_find_before"]["median_s"],
        "cli_find_cpu_after_vs_before": out["cli_find_after"]["cpu_median_s"] / out["cli_find_before"]["cpu_median_s"],
        "find_p50_after_vs_before": out["find_after"]["p50_ms"] / out["find_before"]["p50_ms"],
    }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=224_000, help="facts of the generated event graph")
    parser.add_argument("--sample", type=int, default=2000, help="distinct texts embedded by each runtime")
    parser.add_argument("--queries", type=int, default=20, help="queries of the Python find")
    parser.add_argument("--cli-runs", type=int, default=5, help="timed CLI runs (after one untimed)")
    parser.add_argument("--before", default=BASE_COMMIT, help="the commit of today's path")
    parser.add_argument("--skip-icews", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--cli-only", action="store_true", help="only the index builds and the CLI find, both sides")
    parser.add_argument(
        "--find-only", action="store_true", help="only the index builds, the CLI find and the Python find, both sides"
    )
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        kind, *rest = args.worker
        if kind == "embed":
            result = worker_embed(rest[0], Path(rest[1]), Path(rest[2]))
        elif kind == "build":
            result = worker_build(rest[0])
        else:
            result = worker_find(rest[0], json.loads(rest[1]))
        print(json.dumps(result))
        return result
    data = Path(os.environ.get("KGTOOLKIT_SHARED_DATA") or ROOT.parent / "shared" / "data")
    results: dict[str, Any] = {
        "machine": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "before": args.before,
            "load_before": [round(x, 2) for x in os.getloadavg()],
        },
        "graphs": {},
    }
    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-search-speed-") as tmp:
        work = Path(tmp)
        base = work / "before"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before, "kgtoolkit"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        env = {
            "KGTOOLKIT_MODEL_CACHE": os.environ.get("KGTOOLKIT_MODEL_CACHE") or str(work / "models"),
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        kinds = ([] if args.skip_icews or not (data / "icews14" / "facts.tsv").is_file() else ["icews14"]) + (
            [] if args.skip_generated else [f"events-{args.facts}"]
        )
        for kind in kinds:
            results["graphs"][kind] = bench_graph(kind, work, base, args, data, env)
            if args.json:  # after each graph: a partial run is not lost
                args.json.write_text(json.dumps(results, indent=1))
    results["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    sys.path.append(str(ROOT))  # after PYTHONPATH: a worker imports the checkout it was given
    main()

"""Multi-hop reads and diff (contract §11) on a generated graph, each beside networkx on the same snapshot.

    python benchmarks/bench_traversal.py                         # 100,000 facts
    KGTOOLKIT_BENCH_FACTS=1000000 python benchmarks/bench_traversal.py
    python benchmarks/bench_traversal.py --facts 250000 --samples 300 --json out.json

The graph is ``kgtoolkit.generate`` (seed 7) imported into a fresh SQLite file. The snapshot is the current
facts between two entities (what ``neighbors`` and ``paths`` walk by default); networkx holds it in memory as
an undirected ``nx.Graph`` built from ``frames.facts`` (its load time is reported: the price of answering in
memory). ``traversal_indexes``: the time to build the walk's and diff's indexes (``facts_walk_out``,
``facts_walk_in``, ``facts_ended``) on the imported graph and the file size with and without them: what they add
to an import. What is timed, each call alone, p50/p95 over ``--samples`` calls:

* ``paths``      ``kg.paths(a, b, max_hops=4)`` (up to 10 paths, shortest first; read from the file each call)
                 between random pairs of entities of the snapshot, and between *connected* pairs (``b`` a
                 random walk of 2 to 4 hops from ``a``), beside networkx's ``shortest_simple_paths`` taking
                 the same up to 10 paths of at most 4 hops, and its bidirectional ``shortest_path`` (one path:
                 the floor of the question).
* ``neighbors``  ``kg.neighbors(e, hops=2)`` (its default page of 100 facts, with the whole reach counted) of
                 entities of median degree, and the same with ``limit=None`` (every fact), beside networkx's
                 ``ego_graph(e, radius=2)``.
* ``diff``       ``kg.diff`` of one month (every change paired and counted; its default page of 100 changes,
                 and every change with ``limit=None``), beside the raw SQL reading the same facts (the facts
                 that began or ended in the month, names joined) on a plain ``sqlite3`` connection.

Times are wall-clock, with the process's CPU time beside them (the machine may be shared); never used as a
test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import networkx as nx
import polars as pl

import kgtoolkit
from kgtoolkit import frames
from kgtoolkit._time import parse_window
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts
from kgtoolkit.store.engine._schema import FACT_INDEXES, FACT_SELECT


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def latencies(calls: list[Callable[[], Any]]) -> dict[str, float]:
    seconds, cpu = [], []
    for call in calls:
        start = time.process_time()
        seconds.append(timed(call)[0])
        cpu.append(time.process_time() - start)
    return {
        "p50_ms": pct(seconds, 0.5) * 1e3,
        "p95_ms": pct(seconds, 0.95) * 1e3,
        "cpu_p50_ms": pct(cpu, 0.5) * 1e3,
        "calls": len(seconds),
    }


def nx_paths(graph: nx.Graph, a: str, b: str, limit: int = 10, max_hops: int = 4) -> list[list[str]]:
    out: list[list[str]] = []
    if a not in graph or b not in graph:
        return out
    try:
        for p in nx.shortest_simple_paths(graph, a, b):
            if len(p) - 1 > max_hops or len(out) == limit:
                break
            out.append(p)
    except nx.NetworkXNoPath:
        pass
    return out


def nx_shortest(graph: nx.Graph, a: str, b: str) -> list[str] | None:
    try:
        path: list[str] = nx.bidirectional_shortest_path(graph, a, b)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None
    return path if len(path) - 1 <= 4 else None


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=int(os.environ.get("KGTOOLKIT_BENCH_FACTS", "100000")))
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--month", default="2025-03")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    result: dict[str, Any] = {
        "facts": args.facts,
        "samples": args.samples,
        "cpu_count": os.cpu_count(),
        "sqlite": sqlite3.sqlite_version,
        "networkx": nx.__version__,
    }

    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-traversal-") as folder:
        path = Path(folder) / "graph.sqlite3"
        frame = generate(args.facts, seed=args.seed)
        kg = kgtoolkit.open(path)
        took, _ = timed(lambda: import_facts(kg, frame))
        result["import_s"] = took
        print(f"imported {args.facts:,} facts in {took:.1f} s", flush=True)
        # What the walk's and diff's indexes cost an import: the time to build them, and the space they take.
        index_sql = [s for s in FACT_INDEXES["sqlite"] if any(n in s for n in ("facts_walk_", "facts_ended"))]
        conn = sqlite3.connect(path)
        size_before = path.stat().st_size
        for statement in index_sql:
            conn.execute(f"DROP INDEX {statement.split(' INDEX ')[1].split()[0]}")
        conn.commit()
        conn.execute("VACUUM")
        size_without = path.stat().st_size
        start = time.perf_counter()
        for statement in index_sql:
            conn.execute(statement)
        conn.commit()
        result["traversal_indexes"] = {
            "build_s": time.perf_counter() - start,
            "file_mb_with": size_before / 1e6,
            "file_mb_without": size_without / 1e6,
        }
        conn.close()

        # The snapshot networkx answers on: the current facts between two entities, held in memory.
        def load() -> nx.Graph:
            f = frames.facts(kg).filter(
                pl.col("current") & ~pl.col("object_is_value") & (pl.col("subject") != pl.col("object"))
            )
            graph = nx.Graph()
            graph.add_edges_from(zip(f["subject"].to_list(), f["object"].to_list(), strict=True))
            return graph

        took, graph = timed(load)
        result["networkx_load_s"] = took
        result["snapshot"] = {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}
        print(
            f"networkx snapshot: {graph.number_of_nodes():,} nodes, {graph.number_of_edges():,} edges, "
            f"loaded in {took:.2f} s",
            flush=True,
        )
        nodes = sorted(graph.nodes)

        random_pairs = [tuple(rng.sample(nodes, 2)) for _ in range(args.samples)]
        connected: list[tuple[str, str]] = []
        while len(connected) < args.samples:
            a = rng.choice(nodes)
            here, seen = a, {a}
            for _ in range(rng.randint(2, 4)):
                options = [n for n in graph.neighbors(here) if n not in seen]
                if not options:
                    break
                here = rng.choice(options)
                seen.add(here)
            if here != a:
                connected.append((a, here))

        # Same answers first: the lengths of the shortest paths agree (kgtoolkit walks facts, networkx edges).
        # A call capped at max_facts (a hub within reach) may miss paths, and says so: counted, not compared.
        capped = 0
        for a, b in connected[:50] + random_pairs[:50]:
            answer = kg.paths(a, b, max_hops=4, limit=1)
            theirs = nx_shortest(graph, a, b)
            if answer.capped:
                capped += 1
                continue
            mine = answer.paths
            assert (len(mine[0]) if mine else None) == (len(theirs) - 1 if theirs else None), (a, b)
        result["checked_pairs_capped"] = capped

        for name, pairs in (("random pairs", random_pairs), ("connected pairs", connected)):
            rows = {
                "kgtoolkit paths": latencies([lambda a=a, b=b: kg.paths(a, b, max_hops=4) for a, b in pairs]),
                "networkx shortest_simple_paths (10, ≤4 hops)": latencies(
                    [lambda a=a, b=b: nx_paths(graph, a, b) for a, b in pairs]
                ),
                "networkx bidirectional_shortest_path": latencies(
                    [lambda a=a, b=b: nx_shortest(graph, a, b) for a, b in pairs]
                ),
            }
            answers = [kg.paths(a, b, max_hops=4, limit=1) for a, b in pairs]
            result[f"paths, {name}"] = {
                "with_a_path": sum(bool(x.paths) for x in answers),
                "capped": sum(x.capped for x in answers),
                **rows,
            }

        degrees = sorted(d for _, d in graph.degree())
        middle = degrees[len(degrees) // 2]
        median_nodes = [n for n, d in graph.degree() if d == middle]
        picks = [rng.choice(median_nodes) for _ in range(args.samples)]
        sizes = [kg.neighbors(e, hops=2).total for e in picks[:50]]
        result["neighbors 2 hops"] = {
            "median_degree": middle,
            "median_facts_within_2_hops": statistics.median(sizes),
            "kgtoolkit neighbors (page of 100)": latencies([lambda e=e: kg.neighbors(e, hops=2) for e in picks]),
            "kgtoolkit neighbors (every fact)": latencies(
                [lambda e=e: kg.neighbors(e, hops=2, limit=None) for e in picks]
            ),
            "networkx ego_graph": latencies([lambda e=e: nx.ego_graph(graph, e, radius=2) for e in picks]),
        }

        month = args.month
        changes = kg.diff(month, month)
        window = parse_window(month)
        raw = sqlite3.connect(path)

        def floor() -> int:
            rows = raw.execute(
                f"{FACT_SELECT} WHERE f.valid_from IS NOT NULL AND f.from_us BETWEEN ? AND ?", (window.lo, window.hi)
            ).fetchall()
            rows += raw.execute(
                f"{FACT_SELECT} WHERE f.valid_to IS NOT NULL AND f.to_us BETWEEN ? AND ?", (window.lo, window.hi)
            ).fetchall()
            return len(rows)

        def median_ms(fn: Callable[[], Any]) -> dict[str, float]:
            runs = latencies([fn] * 5)
            return {"ms": runs["p50_ms"], "cpu_ms": runs["cpu_p50_ms"]}

        result["diff one month"] = {
            "month": month,
            "changes": changes.total,
            "began": changes.began,
            "ended": changes.ended,
            "replaced": changes.replaced,
            "kgtoolkit diff (page of 100)": median_ms(lambda: kg.diff(month, month)),
            "kgtoolkit diff (every change)": median_ms(lambda: kg.diff(month, month, limit=None)),
            "raw SQL floor": median_ms(floor),
        }
        raw.close()
        kg.close()

    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return result


if __name__ == "__main__":
    main()

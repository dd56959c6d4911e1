"""Graph export and snapshot metrics (contract §12) on a generated graph: networkx beside rustworkx.

    python benchmarks/bench_export.py                          # 100,000 facts
    KGTOOLKIT_BENCH_FACTS=1000000 python benchmarks/bench_export.py
    python benchmarks/bench_export.py --facts 250000 --repeat 7 --json out.json

The graph is ``kgtoolkit.generate`` (seed 7) imported into a fresh SQLite file; the exports take its current
facts (the default of ``to_networkx``). What is timed, the median of ``--repeat`` runs:

* ``read``         ``frames.facts(kg, current_only=True)``: the floor every export stands on (the same read).
* ``networkx``     ``frames.to_networkx(kg)``: a ``MultiDiGraph``, one edge per fact with its attributes.
* ``rustworkx``    ``frames.to_rustworkx(kg)``: the same graph as a rustworkx ``PyDiGraph`` (multigraph).
* ``components``   weakly connected components of each loaded graph (networkx's and rustworkx's functions).
* ``snapshots``    ``analysis.snapshots(kg, every="1mo")`` over the generated span (one row per month: nodes,
                   edges, mean degree, weak components), beside the same metrics computed with networkx on each
                   month's ``to_networkx(kg, as_of=…)`` graph (checked equal first).

Both exports are checked to hold the same nodes and edges before anything is timed. Wall-clock; never a test.
"""

from __future__ import annotations

import argparse
import json
import os
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
import rustworkx as rx

import kgtoolkit
from kgtoolkit import analysis, frames
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts


def median_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def nx_metrics(graph: nx.MultiDiGraph) -> tuple[Any, ...]:
    n, m = graph.number_of_nodes(), graph.number_of_edges()
    if not n:
        return (0, 0, None, None, None)
    parts = list(nx.weakly_connected_components(graph))
    return (n, m, round(sum(d for _, d in graph.degree()) / n, 9), len(parts), max(len(p) for p in parts))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=int(os.environ.get("KGTOOLKIT_BENCH_FACTS", "100000")))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "facts": args.facts,
        "repeat": args.repeat,
        "cpu_count": os.cpu_count(),
        "networkx": nx.__version__,
        "rustworkx": rx.__version__,
    }
    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-export-") as folder:
        kg = kgtoolkit.open(Path(folder) / "graph.sqlite3")
        import_facts(kg, generate(args.facts, seed=args.seed))
        nxg, rxg = frames.to_networkx(kg), frames.to_rustworkx(kg)
        assert (nxg.number_of_nodes(), nxg.number_of_edges()) == (rxg.num_nodes(), rxg.num_edges())
        assert set(nxg.edges(keys=True)) == {
            (rxg[a]["id"], rxg[b]["id"], d["id"]) for a, b, d in rxg.weighted_edge_list()
        }
        result["graph"] = {"nodes": nxg.number_of_nodes(), "edges": nxg.number_of_edges()}
        print(
            f"{args.facts:,} facts: the current graph has {nxg.number_of_nodes():,} nodes and "
            f"{nxg.number_of_edges():,} edges",
            flush=True,
        )

        timings: dict[str, float] = {}
        timings["read_s"], _ = median_of(args.repeat, lambda: frames.facts(kg, current_only=True))
        timings["networkx_s"], _ = median_of(args.repeat, lambda: frames.to_networkx(kg))
        timings["rustworkx_s"], _ = median_of(args.repeat, lambda: frames.to_rustworkx(kg))
        timings["networkx_components_s"], nx_parts = median_of(
            args.repeat, lambda: nx.number_weakly_connected_components(nxg)
        )
        timings["rustworkx_components_s"], rx_parts = median_of(
            args.repeat, lambda: len(rx.weakly_connected_components(rxg))
        )
        assert nx_parts == rx_parts
        for name, took in timings.items():
            print(f"  {name:<24} {took * 1000:9.1f} ms", flush=True)
        print(
            f"  rustworkx builds {timings['networkx_s'] / timings['rustworkx_s']:.1f}x faster than networkx; "
            f"the read alone is {timings['read_s'] / timings['rustworkx_s']:.0%} of rustworkx's time",
            flush=True,
        )

        # Snapshot metrics per month, beside networkx on each month's exported graph (same answers first).
        table = analysis.snapshots(kg, every="1mo")
        assert isinstance(table, pl.DataFrame)

        def with_networkx() -> list[tuple[Any, ...]]:
            return [
                nx_metrics(frames.to_networkx(kg, as_of=p.strftime("%Y-%m-%dT%H:%M:%SZ")))
                for p in table["period"].to_list()
            ]

        took_nx, expected = median_of(1, with_networkx)
        got = [(r[1], r[2], None if r[3] is None else round(r[3], 9), r[4], r[5]) for r in table.rows()]
        assert got == expected
        timings["snapshots_s"], _ = median_of(args.repeat, lambda: analysis.snapshots(kg, every="1mo"))
        timings["snapshots_networkx_s"] = took_nx
        result["snapshot_periods"] = table.height
        print(
            f"  snapshots of {table.height} months: {timings['snapshots_s']:.2f} s; with networkx on each "
            f"month's export: {took_nx:.1f} s",
            flush=True,
        )
        result["timings"] = timings
        kg.close()
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()

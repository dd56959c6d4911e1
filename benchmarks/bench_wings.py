"""The store split (issue 46) before and after, in the same rounds: two checkouts, the same benchmarks.

    python benchmarks/bench_wings.py --before /tmp/window-before --after /tmp/window-after
    python benchmarks/bench_wings.py --before B --after A --rounds 3 --facts 100000 --json benchmarks/results-wings.json

Each checkout runs its own ``bench_suite.py`` (``--quick`` at one size, no CLI, no search) and its own
``bench_traversal.py``, in a fresh process with ``PYTHONPATH`` at that checkout: the scripts are the same but
for the names the split moved (``kg.search`` became ``kg.by_predicate``, ``store._schema`` became
``store.engine._schema``). The rounds interleave the two (before, after; then after, before; ...), so both
see the same load. Each figure is the median over the rounds; ``after/before`` is the ratio of the medians.
Point reads and imports also carry their ratio to the plain-SQL floor measured in the same process, and the
walks their CPU time: on a shared machine those move less with the load than wall times do.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The figures kept from ``bench_suite.py``'s JSON at one size: name → how to read it.
SUITE: dict[str, Callable[[dict[str, Any]], float]] = {
    "import into an empty graph (s)": lambda s: s["import"]["import_empty"]["median_s"],
    "import, ratio to the executemany floor": lambda s: s["import"]["import_empty"]["ratio_floor"],
    "re-import, all duplicates (s)": lambda s: s["import"]["import_again"]["median_s"],
    "kg.add one by one, 2,000 facts (s)": lambda s: s["writes"]["kg_add"]["median_s"],
    "query p50 (µs)": lambda s: s["reads"]["query"]["kgtoolkit"]["p50_us"],
    "query p50, ratio to raw SQL": lambda s: s["reads"]["query"]["ratio_p50_raw"],
    "query as_of p50 (µs)": lambda s: s["reads"]["query_as_of"]["kgtoolkit"]["p50_us"],
    "query as_of p50, ratio to raw SQL": lambda s: s["reads"]["query_as_of"]["ratio_p50_raw"],
    "incoming query p50, ratio to raw SQL": lambda s: s["reads"]["incoming"]["ratio_p50_raw"],
    "by predicate and object p50 (µs)": lambda s: s["reads"]["search"]["kgtoolkit"]["p50_us"],
    "by predicate and object p50, ratio to raw SQL": lambda s: s["reads"]["search"]["ratio_p50_raw"],
    "timeline p50, ratio to raw SQL": lambda s: s["reads"]["timeline"]["ratio_p50_raw"],
    "invalidate p50 (µs)": lambda s: s["invalidate"]["kgtoolkit"]["p50_us"],
    "frames.facts CPU (s)": lambda s: s["frames"]["frames_facts"]["cpu_s"],
    "read_table CPU (s)": lambda s: s["frames"]["read_table"]["cpu_s"],
    "kg.conflicts() whole (s)": lambda s: s["frames"]["store_conflicts"]["median_s"],
}

#: The figures kept from ``bench_traversal.py``'s JSON.
TRAVERSAL: dict[str, Callable[[dict[str, Any]], float]] = {
    "paths, random pairs, CPU p50 (ms)": lambda t: t["paths, random pairs"]["kgtoolkit paths"]["cpu_p50_ms"],
    "paths, connected pairs, CPU p50 (ms)": lambda t: t["paths, connected pairs"]["kgtoolkit paths"]["cpu_p50_ms"],
    "neighbors 2 hops (page), CPU p50 (ms)": lambda t: t["neighbors 2 hops"]["kgtoolkit neighbors (page of 100)"][
        "cpu_p50_ms"
    ],
    "neighbors 2 hops (every fact), CPU p50 (ms)": lambda t: t["neighbors 2 hops"]["kgtoolkit neighbors (every fact)"][
        "cpu_p50_ms"
    ],
    "diff one month (every change), CPU (ms)": lambda t: t["diff one month"]["kgtoolkit diff (every change)"]["cpu_ms"],
    "diff, ratio to the raw-SQL floor (CPU)": lambda t: (
        t["diff one month"]["kgtoolkit diff (every change)"]["cpu_ms"] / t["diff one month"]["raw SQL floor"]["cpu_ms"]
    ),
}


def run(checkout: Path, script: str, args: list[str], out: Path) -> tuple[dict[str, Any], float]:
    """One benchmark script of ``checkout``, in a fresh process importing that checkout; its JSON and wall time."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(checkout / "benchmarks" / script), *args, "--json", str(out)],
        cwd=checkout,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return json.loads(out.read_text()), time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the checkout before the split")
    parser.add_argument("--after", type=Path, required=True, help="the checkout after it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=300, help="point reads per figure (bench_suite)")
    parser.add_argument("--walks", type=int, default=60, help="calls per walk figure (bench_traversal)")
    parser.add_argument("--json", type=Path, default=HERE / "results-wings.json")
    args = parser.parse_args(argv)
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    commits = {
        side: subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        for side, path in sides.items()
    }
    suite_args = ["--quick", "--sizes", str(args.facts), "--repeat", "1", "--no-cli", "--no-search"]
    suite_args += ["--samples", str(args.samples), "--check", "50", "--invalidations", "50"]
    walk_args = ["--facts", str(args.facts), "--samples", str(args.walks)]
    figures: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    loads: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="window-wings-") as folder:
        for number in range(args.rounds):
            order = list(sides) if number % 2 == 0 else list(reversed(sides))
            for script, kept, extra in (
                ("bench_suite.py", SUITE, suite_args),
                ("bench_traversal.py", TRAVERSAL, walk_args),
            ):
                for side in order:
                    loads.append(os.getloadavg())
                    result, took = run(sides[side], script, extra, Path(folder) / f"{side}.json")
                    block = result["sizes"][str(args.facts)] if script == "bench_suite.py" else result
                    for name, read in kept.items():
                        figures[side].setdefault(name, []).append(round(read(block), 4))
                    print(f"round {number + 1}: {script} {side} in {took:.0f} s", flush=True)
    rows = {}
    for name in {**SUITE, **TRAVERSAL}:
        before = statistics.median(figures["before"][name])
        after = statistics.median(figures["after"][name])
        rows[name] = {
            "before": before,
            "after": after,
            "after/before": round(after / before, 3) if before else None,
            "runs_before": figures["before"][name],
            "runs_after": figures["after"][name],
        }
    report = {
        "what": "the store split (issue 46): the commit before the wings merge beside main, interleaved rounds",
        "before": commits["before"],
        "after": commits["after"],
        "facts": args.facts,
        "rounds": args.rounds,
        "load_average_1_5_15": {"min": min(loads), "max": max(loads)},
        "cpu_count": os.cpu_count(),
        "figures": rows,
    }
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    width = max(len(n) for n in rows)
    for name, row in rows.items():
        print(f"{name:<{width}}  {row['before']:>10.4g}  {row['after']:>10.4g}  {row['after/before']}")
    return report


if __name__ == "__main__":
    main()

"""What reading renewals costs (issue 43): churn and diff with renewals (the default) against the raw view
(``renewals=False``, the statements of before) on the same graph, in one process, interleaved run by run.

    python benchmarks/bench_scale.py --facts 1000000 --workdir /big --keep --only churn   # builds the graphs once
    python benchmarks/bench_renewals.py --workdir /big --facts 1000000 --repeat 5

It reuses the graphs ``bench_scale.py --keep`` left in ``--workdir`` (SQLite file, PostgreSQL data folder). Each
call is timed alone (the graph open, its first read done), the two views one after the other, ``--repeat`` times;
the medians and their ratio are printed and written to ``benchmarks/results-renewals-<facts>.json``. Wall-clock on a
shared machine, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE), str(HERE.parent / "tests" / "support")]

import kgtoolkit
from kgtoolkit import analysis

MONTH = "2022-06"  # bench_scale's diff month


def calls(kg: kgtoolkit.KnowledgeGraph) -> dict[str, Callable[[bool], int]]:
    return {
        "churn": lambda renewals: int(analysis.churn(kg, every="1mo", renewals=renewals)["renewed"].sum()),
        "diff": lambda renewals: kg.diff(MONTH, MONTH, limit=100, renewals=renewals).total,
    }


def measure(db: str, repeat: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with kgtoolkit.open(db) as kg:
        kg.stats()
        for name, call in calls(kg).items():
            times: dict[bool, list[float]] = {True: [], False: []}
            checks: dict[bool, int] = {}
            for _ in range(repeat):
                for renewals in (False, True):
                    start = time.perf_counter()
                    checks[renewals] = call(renewals)
                    times[renewals].append(time.perf_counter() - start)
            raw, renewed = statistics.median(times[False]), statistics.median(times[True])
            out[name] = {
                "raw_s": raw,
                "renewals_s": renewed,
                "ratio": renewed / raw,
                "runs": {"raw": times[False], "renewals": times[True]},
                "check": {"raw": checks[False], "renewals": checks[True]},
            }
            print(f"  {name}: renewals {renewed:.2f} s, raw view {raw:.2f} s: {renewed / raw:.2f}x", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args()
    result: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "facts": args.facts,
        "repeat": args.repeat,
        "load_before": list(os.getloadavg()),
    }
    if args.backend in ("sqlite", "both"):
        print("sqlite", flush=True)
        result["sqlite"] = measure(str(args.workdir / f"graph-{args.facts}-seed{args.seed}.sqlite3"), args.repeat)
    if args.backend in ("postgresql", "both"):
        from bench_scale import PgServer

        print("postgresql", flush=True)
        server = PgServer(args.workdir / "postgresql")
        try:
            result["postgresql"] = measure(server.url(schema=f"g{args.facts}_s{args.seed}"), args.repeat)
        finally:
            server.stop(remove=False)
    result["load_after"] = list(os.getloadavg())
    (HERE / f"results-renewals-{args.facts}.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""An undated walk on an event graph (contract §11, §12) beside the same walk over a window holding every event.

    python benchmarks/bench_undated_events.py                    # ICEWS14 from the shared data folder
    python benchmarks/bench_undated_events.py --samples 15 --json out.json

ICEWS14 (``facts.tsv``: one day as both bounds, no event configuration) is imported into a fresh SQLite file. By
default a hop is a current fact or an event that has occurred, at any date; the floor is the same question asked with
``during`` over the whole file's year, which walks the same facts through the walk's covering indexes alone (the
undated walk reads each one-day fact's row to tell an event written so from a state ended on its first day). Then
the same graph declared an event graph (``configure(events=True)``): every fact an event by declaration, no row read.
Each line: the median wall-clock and CPU time of ``--samples`` calls, and the ratio to the floor measured in the same
run. Times are never used as a test. Skips when ICEWS14 is absent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

from shared_data import DATA

import kgtoolkit
from kgtoolkit import io

ICEWS14 = DATA / "icews14" / "facts.tsv"
YEAR = ("2014-01-01", "2014-12-31")


def median(call: Callable[[], Any], samples: int) -> tuple[float, float, Any]:
    wall, cpu, result = [], [], None
    for _ in range(samples):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3, result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if not ICEWS14.is_file():
        print(f"ICEWS14 not found at {ICEWS14}; nothing measured")
        return {}
    out: dict[str, Any] = {"samples": args.samples, "facts": 0}
    calls: dict[str, Callable[..., Any]] = {
        "paths Barack Obama - Raúl Castro (4 hops, 10 paths)": lambda kg, **w: kg.paths(
            "Barack Obama", "Raúl Castro", **w
        ),
        "paths Barack Obama - Raúl Castro (1 hop, every path)": lambda kg, **w: kg.paths(
            "Barack Obama", "Raúl Castro", max_hops=1, limit=None, **w
        ),
        "neighbors Raúl Castro (2 hops)": lambda kg, **w: kg.neighbors("Raúl Castro", hops=2, **w),
    }
    with tempfile.TemporaryDirectory() as tmp:
        kg = kgtoolkit.open(Path(tmp) / "icews14.sqlite3")
        out["facts"] = io.import_file(kg, ICEWS14, allow_commas=True).inserted
        for declared in (False, True):
            kg.configure(events=declared)
            for name, call in calls.items():
                floor_ms, floor_cpu, floor = median(lambda: call(kg, during=YEAR), args.samples)
                undated_ms, undated_cpu, undated = median(lambda: call(kg), args.samples)
                same = undated.to_dict()["total"] == floor.to_dict()["total"]
                row = {
                    "undated_ms": round(undated_ms, 1),
                    "undated_cpu_ms": round(undated_cpu, 1),
                    "during_ms": round(floor_ms, 1),
                    "during_cpu_ms": round(floor_cpu, 1),
                    "ratio": round(undated_ms / floor_ms, 2),
                    "same_total": same,
                }
                key = f"{'declared event graph: ' if declared else ''}{name}"
                out[key] = row
                print(f"{key}: {row}")
        kg.close()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()

"""What the kept conflict judgement (issue 43, schema step 14) costs an ``add``: adds timed with the engine's fold of
the judgement registered and with it set aside, alternating in one process on one graph (the floor: the same adds
without it, measured in the same run).

    python benchmarks/bench_conflict_kept.py                       # 100,000 generated facts, SQLite
    python benchmarks/bench_conflict_kept.py --base 20000 --json out.json

Each round adds ``--adds`` facts one by one (97 subjects, so groups grow and are judged again as they do), first
with, then without (the order alternating by round); the medians of the rounds' per-add wall and CPU time are
reported, with their ratios. Without the fold, the facts wait (the reads would judge them live): the difference is
what keeping the judgement exact in the writes costs, its periodic folds included.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import kgtoolkit
from kgtoolkit.generate import add_generated
from kgtoolkit.store.engine import KEPT_WAIT
from kgtoolkit.store.engine import _conflict_schema as kept_schema


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=int, default=100_000, help="generated facts before the adds")
    parser.add_argument("--adds", type=int, default=150, help="adds per round")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--json", type=Path, help="results file")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgkept-"))
    kg = kgtoolkit.open(work / "g.sqlite3", create=True)
    add_generated(kg, args.base, seed=5)
    hook = list(kept_schema._FOLD)
    times: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
    n = 0
    for round_ in range(args.rounds):
        for mode in ("with", "without") if round_ % 2 == 0 else ("without", "with"):
            kept_schema._FOLD[:] = hook if mode == "with" else []
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(args.adds):
                n += 1
                kg.add(f"adder {n % 97}", "works_for", f"firm {n}", valid_from=f"20{10 + n % 15}-01-01")
            times[mode].append(
                ((time.perf_counter() - wall) / args.adds * 1000, (time.process_time() - cpu) / args.adds * 1000)
            )
    kept_schema._FOLD[:] = hook
    out: dict[str, object] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "base": args.base,
        "adds": args.adds,
        "rounds": args.rounds,
        "kept_wait": KEPT_WAIT,
        "load": os.getloadavg(),
    }
    for mode, runs in times.items():
        out[mode] = {"wall_ms": statistics.median(r[0] for r in runs), "cpu_ms": statistics.median(r[1] for r in runs)}
    out["ratio_wall"] = out["with"]["wall_ms"] / out["without"]["wall_ms"]  # type: ignore[index]
    out["ratio_cpu"] = out["with"]["cpu_ms"] / out["without"]["cpu_ms"]  # type: ignore[index]
    kg.close()
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()

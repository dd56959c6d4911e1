"""A page of conflicts reads only its groups (issue 32): ``conflicts(limit=20)`` before and after.

    python benchmarks/bench_conflicts.py                  # 1,000,000 generated facts on SQLite
    python benchmarks/bench_conflicts.py --facts 200000 --json out.json

The graph is ``kgtoolkit.generate`` (seed 7) over 1,400 days ending 700 days after today, so its later facts are
scheduled and planned switches are judged, imported into a fresh SQLite file. Each row is timed in this process
(median of ``--repeat`` runs, after one warm-up):

* ``page``      ``conflicts(limit=20)``: the groups judged, sorted and cut in SQL, the page's facts read.
* ``page_deep`` the same page at an offset past half of the groups.
* ``needing``   ``conflicts_needing_action()``: counted in SQL, no facts read.
* ``before``    the page as the store made it before: every group's facts read and judged in Python, then sorted
                and cut (``whole_read``, the model the twin test ``tests/store/test_conflict_pages.py`` keeps).

Wall-clock on a shared machine, never a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
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

import kgtoolkit
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts


def timed(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm-up
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from test_conflict_pages import whole_read

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=int(os.environ.get("KGTOOLKIT_BENCH_FACTS", 1_000_000)))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=HERE / "results-conflicts.json")
    args = parser.parse_args(argv)
    start_day = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=700)
    result: dict[str, Any] = {
        "facts": args.facts,
        "seed": args.seed,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-conflicts-") as folder:
        kg = kgtoolkit.open(Path(folder) / "graph.sqlite3")
        t0 = time.perf_counter()
        import_facts(kg, generate(args.facts, seed=args.seed, start=start_day, days=1400))
        result["import_s"] = time.perf_counter() - t0
        page = kg.conflicts(limit=20)
        result["groups"] = page.total
        result["needing_action"] = kg.conflicts_needing_action()
        assert list(page.items) == whole_read(kg, None, False, False)[:20]  # the same answer
        result["page_s"] = timed(lambda: kg.conflicts(limit=20), args.repeat)
        deep = page.total // 2 + 1
        result["page_deep_s"] = timed(lambda: kg.conflicts(limit=20, offset=deep), args.repeat)
        result["needing_s"] = timed(kg.conflicts_needing_action, args.repeat)
        result["before_s"] = timed(lambda: whole_read(kg, None, False, False)[:20], args.repeat)
        kg.close()
    print(
        f"{args.facts:,} facts, {result['groups']:,} groups ({result['needing_action']:,} needing action): "
        f"page {result['page_s']:.2f} s, deep page {result['page_deep_s']:.2f} s, "
        f"needing {result['needing_s']:.2f} s, before {result['before_s']:.2f} s"
    )
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()

"""The prompt summary's time, before and after the meaning check (contract §16).

    python benchmarks/bench_summary_speed.py [--json out.json]

Two graphs in temporary SQLite files: the demo graph (kgtoolkit._demo) and the benign check facts of
tests/support/screen_meaning_sets.py (100 short facts, a third of them English sentences the meaning check reads).
For each: the summary's first call in a new process (``cold``: imports, the language detector's and the model's
first load included) and the median of 5 later calls in one process (``warm``). The floor is ``kg.stats()`` on the
same graph in the same process. Run it with another checkout first on ``PYTHONPATH`` to measure the code before.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import screen_meaning_sets as own

import kgtoolkit
from kgtoolkit._demo import build_demo

_COLD = (
    "import time, kgtoolkit; s = time.perf_counter(); kg = kgtoolkit.open({path!r}); kg.summary(); "
    "print(time.perf_counter() - s)"
)


def _graphs(folder: Path) -> dict[str, Path]:
    demo = folder / "demo.sqlite3"
    build_demo(demo).close()
    facts = folder / "facts.sqlite3"
    with kgtoolkit.open(facts) as kg:
        kg.configure(comma_guard=False)
        for _, subject, predicate, obj in own.CHECK_BENIGN:
            kg.add(subject, predicate, obj)
    return {"demo": demo, "check_benign": facts}


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, path in _graphs(Path(folder)).items():
            cold = [
                float(
                    subprocess.run(
                        [sys.executable, "-c", _COLD.format(path=str(path))], capture_output=True, text=True, check=True
                    ).stdout
                )
                for _ in range(3)
            ]
            with kgtoolkit.open(path) as kg:
                kg.summary()
                warm, floor = [], []
                for _ in range(5):
                    start = time.perf_counter()
                    kg.summary(limit=100)
                    warm.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    kg.stats()
                    floor.append(time.perf_counter() - start)
            out[name] = {
                "cold_ms": round(statistics.median(cold) * 1000, 1),
                "warm_ms": round(statistics.median(warm) * 1000, 1),
                "floor_stats_ms": round(statistics.median(floor) * 1000, 1),
            }
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()

"""Aggregates in the engine (issue #32): ``analysis.churn`` and ``analysis.events`` given the graph (SQL) against the
frame path (``frames.facts`` then the analysis) and a plain-SQL floor (the same counts as one GROUP BY per instant
column written directly against the facts table, with no event rule and no period arithmetic beyond the day).
``most_connected`` (``top=50``; the frame path with ``frames.entities``) against one GROUP BY per side fetched
whole, and ``timeline`` of the most connected entity against a plain read of its facts' rows.

Each measure runs in a fresh Python process: wall time (median of ``--runs`` calls in that process) and the process's
peak RSS (``ru_maxrss`` of itself, plus its children's: the SQLite Arrow reader of the frame path). SQLite only; the
graph is ``kgtoolkit.generate`` facts, ``--facts`` of them (1,000,000 by default), a fifth of them declared events.

    python benchmarks/bench_aggregates.py --facts 1000000 --out benchmarks/results-aggregates.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, statistics, sys, time
import kgtoolkit
from kgtoolkit import analysis, frames
path, what, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
kg = kgtoolkit.open(path, read_only=True)
DAY = 86_400_000_000
OPEN = 2**62
FLOOR = {
    "churn": (
        f"SELECT w, d, count(*) FROM (SELECT 0 AS w, from_us / {DAY} AS d FROM facts WHERE from_us <> {-OPEN} "
        f"UNION ALL SELECT 1, to_us / {DAY} FROM facts WHERE to_us <> {OPEN}) x GROUP BY w, d"
    ),
    "events": f"SELECT from_us / {DAY} AS d, count(*) FROM facts WHERE predicate = 'criticize' GROUP BY d",
    "most_connected": (
        "SELECT subject, count(*) FROM facts GROUP BY subject",
        "SELECT object_id, count(*) FROM facts WHERE object_id IS NOT NULL GROUP BY object_id",
    ),
    "timeline": ("SELECT * FROM facts WHERE subject = :e OR object_id = :e",),
}
with kg._read() as cur:  # the timeline's entity: the one most facts name (not timed)
    HUB = cur.execute(
        "SELECT k FROM (SELECT object_id AS k FROM facts WHERE object_id IS NOT NULL) x GROUP BY k "
        "ORDER BY count(*) DESC, k LIMIT 1"
    ).fetchone()[0]
CALLS = {
    "churn": (lambda: analysis.churn(kg, every="1mo"), lambda: analysis.churn(frames.facts(kg), every="1mo")),
    "events": (lambda: analysis.events(kg, every="1mo"), lambda: analysis.events(frames.facts(kg), every="1mo")),
    "most_connected": (
        lambda: analysis.most_connected(kg, top=50),
        lambda: analysis.most_connected(frames.facts(kg), frames.entities(kg), top=50),
    ),
    "timeline": (
        lambda: analysis.timeline(kg, entity=HUB),
        lambda: analysis.timeline(frames.facts(kg), entity=HUB),
    ),
}
def call():
    kind, path_ = what.split(":")
    if path_ in ("sql", "frame"):
        return CALLS[kind][0 if path_ == "sql" else 1]()
    floor = FLOOR[kind]
    with kg._read() as cur:
        return [cur.execute(sql, {"e": HUB}).fetchall() for sql in ((floor,) if isinstance(floor, str) else floor)]
times = []
for _ in range(runs):
    t = time.perf_counter(); call(); times.append(time.perf_counter() - t)
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": statistics.median(times), "rss_mb": own / 1024, "children_mb": children / 1024}))
"""


def build(path: Path, facts: int) -> float:
    import kgtoolkit
    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts

    started = time.perf_counter()
    with kgtoolkit.open(path) as kg:
        kg.configure(event_predicates={"criticize"})
        frame = generate(facts, seed=32, start="2015-01-01", days=3650)
        n = frame.height
        import polars as pl

        # A fifth of the rows become events (declared by predicate), as ICEWS-like data would be.
        frame = frame.with_columns(
            pl.when(pl.int_range(n) % 5 == 0)
            .then(pl.lit("criticize"))
            .otherwise(pl.col("predicate"))
            .alias("predicate")
        )
        import_facts(kg, frame, allow_commas=True, on_error="skip")
    return time.perf_counter() - started


def measure(path: Path, what: str, runs: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A small middle process, so that ru_maxrss is the measured process's own (Linux carries a parent's peak into
    # a child through fork; see bench_speed.py).
    middle = "import subprocess, sys; done = subprocess.run(sys.argv[1:]); sys.exit(done.returncode)"
    done = subprocess.run(
        [sys.executable, "-c", middle, sys.executable, "-c", _CHILD, str(path), what, str(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "graph.sqlite3"
        built = build(path, args.facts)
        print(f"built {args.facts:,} facts in {built:.1f} s", flush=True)
        results: dict[str, Any] = {
            "facts": args.facts,
            "runs": args.runs,
            "engine": "sqlite",
            "every": "1mo",
            "most_connected": "top=50",
            "timeline": "entity=the most connected object",
        }
        for kind in ("churn", "events", "most_connected", "timeline"):
            row = {p: measure(path, f"{kind}:{p}", args.runs) for p in ("floor", "sql", "frame")}
            floor = row["floor"]["seconds"]
            row["sql_to_floor"] = row["sql"]["seconds"] / floor
            row["frame_to_floor"] = row["frame"]["seconds"] / floor
            results[kind] = row
            print(
                f"{kind}: floor {floor:.2f} s, sql {row['sql']['seconds']:.2f} s ({row['sql_to_floor']:.2f}x, "
                f"{row['sql']['rss_mb']:.0f} MB), frame {row['frame']['seconds']:.2f} s "
                f"({row['frame_to_floor']:.2f}x, {row['frame']['rss_mb']:.0f} MB + reader "
                f"{row['frame']['children_mb']:.0f} MB)",
                flush=True,
            )
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()

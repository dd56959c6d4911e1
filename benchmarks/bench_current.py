""" "Current now" at scale (contract §4: current means valid now), each figure beside a floor in the same run.

    python benchmarks/bench_current.py                  # 1,000,000 facts, SQLite and PostgreSQL
    python benchmarks/bench_current.py --quick          # 100,000 facts
    python benchmarks/bench_current.py --no-postgres --json out.json

The graph: generated facts whose intervals start from 2020 to 2028 and end (60% of them) up to three years
later, so that today some are ended, some current with a known end, some open-ended and some scheduled: the
case the old rule (``valid_to IS NULL``) answered wrong. What runs, on each engine:

* ``stats``        ``kg.stats()`` (six counts in one scan, the rule rendered from ``kgtoolkit._validity``) against
                   the floor: the same scan counting the *old* rule (open-ended and started) in plain SQL.
* ``predicates``   ``kg.predicates()`` (counts per predicate, current among them) against a plain
                   ``GROUP BY predicate`` count.
* ``query``        p50 of ``kg.query(name, current_only=True)`` over random entities, against ``kg.query(name)``
                   on the same entities (the filter's own cost).
* ``search``       p50 of ``kg.by_predicate(predicate, current_only=True, limit=100)`` against the unfiltered page.
* ``neighbors``    p50 of ``kg.neighbors(name)`` (the walk's default: current facts) against ``as_of`` today.

Times are wall-clock medians; never used as a test.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import kgtoolkit
from kgtoolkit._time import now_key, today
from kgtoolkit.store import import_facts


def facts(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    pool = max(1_000, n // 6)
    labels = np.char.add("Node ", rng.permutation(pool).astype(str))
    pareto = np.floor(rng.pareto(1.1, n) * (pool / 50)).astype(np.int64) % pool
    predicate = np.char.add("relation_", rng.integers(0, 40, n).astype(str))
    start = np.datetime64("2020-01-01") + rng.integers(0, 9 * 365, n).astype("timedelta64[D]")
    bounded = rng.random(n) < 0.6
    end = start + rng.integers(1, 3 * 365, n).astype("timedelta64[D]")
    return pl.DataFrame(
        {
            "subject": labels[pareto],
            "predicate": predicate,
            "object": labels[rng.integers(0, pool, n)],
            "valid_from": start.astype(str),
            "valid_to": np.where(bounded, end.astype(str), ""),
        }
    )


def timed(fn: Callable[[], Any]) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm
    return statistics.median(timed(fn) for _ in range(repeat))


def p50(fn: Callable[[Any], Any], items: list[Any]) -> float:
    for item in items[:10]:
        fn(item)
    return statistics.median(timed(lambda item=item: fn(item)) for item in items) * 1000


def raw(db: Any) -> Callable[[str], Any]:
    """A plain connection's one-row answer to a SELECT (the floor's side)."""
    if isinstance(db, str):
        import psycopg

        conn = psycopg.connect(db, autocommit=True)
        return lambda sql: conn.execute(sql).fetchone()
    lite = sqlite3.connect(db)
    return lambda sql: lite.execute(sql).fetchone()


def run(db: Any, frame: pl.DataFrame, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with kgtoolkit.open(db) as kg:
        out["import_s"] = round(timed(lambda: import_facts(kg, frame)), 1)
        stats = kg.stats()
        out["counts"] = {
            "facts": stats.facts,
            "current": stats.current,
            "scheduled": stats.scheduled,
            "ended": stats.ended,
        }
        one = raw(db)
        now = now_key()
        old_rule = one(f"SELECT count(*) FILTER (WHERE valid_to IS NULL AND from_us <= {now}) FROM facts")[0]
        out["counts"]["current_by_the_old_rule"] = old_rule
        floor = median_of(
            lambda: one(
                f"SELECT count(*), count(*) FILTER (WHERE valid_to IS NULL AND from_us <= {now}), "
                f"count(*) FILTER (WHERE valid_to IS NOT NULL), count(*) FILTER (WHERE object_id IS NULL), "
                "count(DISTINCT predicate) FROM facts"
            ),
            args.repeat,
        )
        took = median_of(kg.stats, args.repeat)
        out["stats"] = {"s": round(took, 3), "floor_s": round(floor, 3), "ratio": round(took / floor, 2)}
        floor = median_of(
            lambda: one("SELECT count(*) FROM (SELECT predicate, count(*) FROM facts GROUP BY predicate) g"),
            args.repeat,
        )
        took = median_of(kg.predicates, args.repeat)
        out["predicates"] = {"s": round(took, 3), "floor_s": round(floor, 3), "ratio": round(took / floor, 2)}
        rnd = random.Random(args.seed)
        names = rnd.sample(frame["subject"].unique().sort().to_list(), args.samples)
        current = p50(lambda n: kg.query(n, current_only=True), names)
        every = p50(kg.query, names)
        out["query_current_ms"] = {
            "p50": round(current, 2),
            "floor_p50": round(every, 2),
            "ratio": round(current / every, 2),
        }
        predicates = sorted(frame["predicate"].unique().to_list())
        current = p50(lambda p: kg.by_predicate(p, current_only=True, limit=100), predicates * 3)
        every = p50(lambda p: kg.by_predicate(p, limit=100), predicates * 3)
        out["search_current_ms"] = {
            "p50": round(current, 2),
            "floor_p50": round(every, 2),
            "ratio": round(current / every, 2),
        }
        day = today()
        current = p50(lambda n: kg.neighbors(n), names)
        every = p50(lambda n: kg.neighbors(n, as_of=day), names)
        out["neighbors_current_ms"] = {
            "p50": round(current, 2),
            "floor_p50": round(every, 2),
            "ratio": round(current / every, 2),
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--json", type=Path, default=HERE / "results-current.json")
    args = parser.parse_args(argv)
    if args.quick:
        args.facts, args.repeat, args.samples = 100_000, 3, 100
    frame = facts(args.facts, args.seed)
    results: dict[str, Any] = {"facts": args.facts, "date": today()}
    with tempfile.TemporaryDirectory() as work:
        results["sqlite"] = run(Path(work) / "graph.sqlite3", frame, args)
        print(json.dumps({"sqlite": results["sqlite"]}, indent=1), flush=True)
    if not args.no_postgres:
        import postgres_server

        server = postgres_server.start()
        try:
            import psycopg

            with psycopg.connect(server.url, autocommit=True) as conn:
                conn.execute("CREATE DATABASE kg")
            results["postgresql"] = run(server.new_schema(), frame, args)
            print(json.dumps({"postgresql": results["postgresql"]}, indent=1), flush=True)
        finally:
            server.stop()
    args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":
    main()

"""Rollups (issue 47): what keeping the counts costs the writes, and what they save the reads, in one run.

    python benchmarks/bench_rollups.py --writes --adds 2000 --import-facts 1000000 --before /work/main
    python benchmarks/bench_rollups.py --reads --db GRAPH                    # a graph made by bench_scale --keep

**Writes** (``--writes``): each figure is one fresh Python process running either this checkout's kgtoolkit
(rollups folded in every write's transaction) or ``--before`` (a checkout without them: today's code), alternated ``--repeat`` times,
medians and their ratio:

* ``add``       ``kg.add`` one by one (``--adds`` facts of the generator's shape, each its own transaction) into a
                new file graph; with ``--postgres``, ``add_postgresql`` the same into a new schema of a throwaway
                PostgreSQL server (there the server's work is in another process: its wall seconds are the figure);
* ``import``    ``import_facts`` of ``--import-facts`` generated facts (a Parquet file written once) into a new graph;
* ``reimport``  the same file imported again into that graph (nothing new).

Each figure is the process's CPU seconds (SQLite runs in it) and, beside it, its wall seconds.

**Reads** (``--reads``): on one graph (``--db``, SQLite or PostgreSQL), each question answered from the rollups and
by the scan (:func:`kgtoolkit.store.scan_only`) in the same process, alternated ``--repeat`` times: stats,
predicates, monthly churn, monthly events by predicate, ``most_connected(top=50)``; the ratio rollups / scan, and
whether each meets issue 47's targets (≤ 50 ms and ≤ 0.01× the scan). ``--pages`` first times, once each and cold,
the data steps of the dashboard's first views (:func:`pages`: the Churn page's tables, the Graph page's opening view,
its date change to 2024-06-01), where a first view spends its time on the store's side.

The machine's load average is recorded beside the figures (the machine is shared).
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent

_ADD = """
import sys, time, kgtoolkit
from kgtoolkit.generate import generate
frame = generate({n}, seed=3)
rows = frame.select("subject", "predicate", "object", "valid_from", "valid_to").rows()
kg = kgtoolkit.open(sys.argv[1])
kg.add("warm", "up", "graph")
t, w = time.process_time(), time.perf_counter()
for s, p, o, a, b in rows:
    try:
        kg.add(s, p, o, valid_from=a, valid_to=b)
    except kgtoolkit.KGError:
        pass
print(time.process_time() - t, time.perf_counter() - w)
"""

_IMPORT = """
import sys, time, kgtoolkit, polars as pl
from kgtoolkit.store import import_facts
kg = kgtoolkit.open(sys.argv[1])
frame = pl.read_parquet(sys.argv[2])
t, w = time.process_time(), time.perf_counter()
import_facts(kg, frame, on_error="skip")
print(time.process_time() - t, time.perf_counter() - w)
"""


def _run(code: str, path: str, script: str, *args: str) -> tuple[float, float]:
    """One side's figure in a fresh process: its CPU seconds and its wall seconds."""
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=True)
    cpu, wall = out.stdout.strip().splitlines()[-1].split()
    return float(cpu), float(wall)


def _keep(
    times: dict[str, dict[str, list[float]]],
    walls: dict[str, dict[str, list[float]]],
    k: str,
    side: str,
    got: tuple[float, float],
) -> None:
    times[k][side].append(got[0])
    walls[k][side].append(got[1])


def _postgres() -> Any:
    """A throwaway PostgreSQL server (the tests' own, ``tests/support/postgres_server.py``)."""
    sys.path.insert(0, str(HERE / "tests" / "support"))
    import postgres_server
    import psycopg

    server = postgres_server.start()
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE kg")
    return server


def writes(args: argparse.Namespace) -> dict[str, Any]:
    import polars as pl

    from kgtoolkit.generate import generate

    out: dict[str, Any] = {}
    sides = {"after": str(HERE), "before": args.before}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        times: dict[str, dict[str, list[float]]] = {
            k: {"after": [], "before": []} for k in ("add", "import", "reimport")
        }
        walls: dict[str, dict[str, list[float]]] = {k: {"after": [], "before": []} for k in times}
        parquet = Path(tmp) / "facts.parquet"
        if args.import_facts:
            generate(args.import_facts, seed=7).write_parquet(parquet)
        server = _postgres() if args.postgres else None
        if server is not None:
            times["add_postgresql"] = {"after": [], "before": []}
            walls["add_postgresql"] = {"after": [], "before": []}
        for r in range(args.repeat):
            for side, path in sides.items():
                if args.adds:
                    db = str(Path(tmp) / f"add-{side}-{r}.sqlite3")
                    _keep(times, walls, "add", side, _run(side, path, _ADD.format(n=args.adds), db))
                if args.adds and server is not None:
                    add = _ADD.format(n=args.adds)
                    _keep(times, walls, "add_postgresql", side, _run(side, path, add, server.new_schema()))
                if args.import_facts:
                    db = str(Path(tmp) / f"import-{side}-{r}.sqlite3")
                    _keep(times, walls, "import", side, _run(side, path, _IMPORT, db, str(parquet)))
                    _keep(times, walls, "reimport", side, _run(side, path, _IMPORT, db, str(parquet)))
                    os.remove(db)
                print(side, r, {k: v[side][-1:] for k, v in times.items()}, os.getloadavg(), flush=True)
        if server is not None:
            server.stop()
        for k, v in times.items():
            if v["after"]:
                after, before = statistics.median(v["after"]), statistics.median(v["before"])
                w = walls[k]
                wall_after, wall_before = statistics.median(w["after"]), statistics.median(w["before"])
                out[k] = {
                    "after_s": after,
                    "before_s": before,
                    "ratio": after / before,
                    "runs": v,
                    "wall_after_s": wall_after,
                    "wall_before_s": wall_before,
                    "wall_ratio": wall_after / wall_before,
                    "wall_runs": w,
                }
        del pl
    return out


#: Issue 47's targets for a rollup-served read: at most this many milliseconds and this fraction of the scan's time.
TARGET_MS, TARGET_RATIO = 50.0, 0.01
#: The questions those targets are for.
TARGETED = (
    "stats",
    "predicates",
    "churn_1mo",
    "events_1mo_by_predicate",
    "most_connected_50",
    "graph_counts (sidebar)",
)


def pages(kg: Any) -> dict[str, Any]:
    """The data steps of the dashboard's first views (the Churn page's tables, the Graph page's opening view and a
    date change), each timed once, cold, as the pages call them (``kgtoolkit.dashboard.data``): where a first view
    spends its time on the store's side."""
    import datetime as dt

    from kgtoolkit import analysis
    from kgtoolkit.dashboard import data
    from kgtoolkit.store import link_ranking

    out: dict[str, Any] = {}

    def timed(name: str, ask: Any) -> Any:
        t = time.perf_counter()
        answer = ask()
        out[name] = {"ms": (time.perf_counter() - t) * 1000, "load": os.getloadavg()}
        print(name, out[name], flush=True)
        return answer

    today, now = dt.date.today(), dt.datetime.now(dt.UTC)
    labels = timed("labels: predicate_labels", kg.predicate_labels)
    span = timed("churn: churn_span", lambda: data.churn_span(kg))
    first, last = data.opening_window(span, today)
    every = data.PERIODS[data.opening_period((first, last))]
    since, until = first.isoformat(), last.isoformat()
    done = max(min(until, today.isoformat()), since)
    timed("churn: churn_to_date", lambda: analysis.churn_to_date(kg, every=every, since=since, until=until, now=now))
    timed("churn: graph_kind(stats)", lambda: analysis.graph_kind(kg.stats()))
    timed("churn: event_graph", lambda: analysis.event_graph(kg, start=since, end=done))
    timed(
        "churn: churn by predicate", lambda: analysis.churn(kg, every=every, since=since, until=until, by="predicate")
    )
    timed(
        "churn: most_volatile(by=entity, top=10)",
        lambda: analysis.most_volatile(kg, by="entity", top=10, since=since, until=done),
    )
    timed(
        "churn: most_changed(top=10)",
        lambda: analysis.most_changed(kg, top=10, since=since, until=done, multi_valued=kg.config.multi_valued),
    )
    day, _ = timed("graph: opening_day", lambda: data.opening_day(kg, today=today))
    timed("graph: graph_overview(opening day)", lambda: data.graph_overview(kg, day.isoformat(), labels, max_nodes=120))
    timed(
        "graph, date change: link_ranking(2024-06-01, limit=125)",
        lambda: link_ranking(kg, as_of="2024-06-01", limit=125),
    )
    timed(
        "graph, date change: graph_overview(2024-06-01)",
        lambda: data.graph_overview(kg, "2024-06-01", labels, max_nodes=120),
    )
    return out


def reads(args: argparse.Namespace) -> dict[str, Any]:
    import datetime as dt

    import kgtoolkit
    from kgtoolkit import analysis
    from kgtoolkit.store import scan_only

    kg = kgtoolkit.open(args.db, read_only=True)
    questions = {
        "stats": lambda: kg.stats(),
        "predicates": lambda: kg.predicates(),
        "churn_1mo": lambda: analysis.churn(kg, every="1mo"),
        "events_1mo_by_predicate": lambda: analysis.events(kg, every="1mo", by="predicate"),
        "most_connected_50": lambda: analysis.most_connected(kg, top=50),
        # The Churn page's ranking (its window ends today): the walk along the kept counts, not a target of its own.
        "most_volatile(by=entity, top=10) to today": lambda: analysis.most_volatile(
            kg, by="entity", top=10, until=dt.date.today().isoformat()
        ),
    }
    from kgtoolkit.store import graph_counts

    questions["graph_counts (sidebar)"] = lambda: graph_counts(kg)
    out: dict[str, Any] = {"pages": pages(kg)} if args.pages else {}
    for name, ask in questions.items():
        served, scanned = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            a = ask()
            served.append(time.perf_counter() - t)
            with scan_only():
                t = time.perf_counter()
                b = ask()
                scanned.append(time.perf_counter() - t)
        same = a.equals(b) if hasattr(a, "equals") else a == b
        r, s = statistics.median(served), statistics.median(scanned)
        out[name] = {
            "rollups_ms": r * 1000,
            "scan_ms": s * 1000,
            "ratio": r / s,
            "same": same,
            "met": r * 1000 <= TARGET_MS and r / s <= TARGET_RATIO if name in TARGETED else None,
            "load": os.getloadavg(),
        }
        print(name, out[name], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", action="store_true")
    parser.add_argument("--reads", action="store_true")
    parser.add_argument("--pages", action="store_true", help="with --reads: time the dashboard's first-view steps too")
    parser.add_argument("--db")
    parser.add_argument("--adds", type=int, default=2000)
    parser.add_argument("--import-facts", type=int, default=0)
    parser.add_argument("--before", default="/work/main")
    parser.add_argument("--postgres", action="store_true", help="also the adds into a throwaway PostgreSQL server")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json")
    args = parser.parse_args()
    result: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": os.getloadavg()}
    if args.writes:
        result["writes"] = writes(args)
    if args.reads:
        result["db"] = "postgresql" if str(args.db).startswith("postgresql") else "sqlite"
        result["reads"] = reads(args)
    result["load_end"] = os.getloadavg()
    text = json.dumps(result, indent=1, default=str)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")


if __name__ == "__main__":
    main()

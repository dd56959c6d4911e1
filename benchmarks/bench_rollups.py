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

With ``--base N`` (e.g. 100000): the single writes measured where the fold's reads cost what they cost on a real
graph. Each side imports ``N`` generated facts (seed 7, untimed) into a graph of its own, copied fresh for every
round (PostgreSQL: imported again into a new schema); then, timed call by call, ``--ops`` calls of each of
``add`` (new facts of the generator's shape, seed 3), ``add_plain`` (``kg.add("bench-s{i}", "bench_rel",
"bench-o{i}")``: no dates, two new entities; the cheapest add, so the fold's share is largest), ``supersede`` and ``invalidate`` (of current facts of the
base, different ones for each). The figure per operation is the mean per call of a round (µs), the median over
rounds: CPU for SQLite (it runs in the process), wall for PostgreSQL (the server's work is in another process),
the client's CPU beside it.

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
import shutil
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


_BASE = """
import sys, kgtoolkit, polars as pl
from kgtoolkit.store import import_facts
import_facts(kgtoolkit.open(sys.argv[1]), pl.read_parquet(sys.argv[2]), on_error="skip")
"""

_OPS = """
import glob, json, os, sys, time, kgtoolkit, polars as pl
from kgtoolkit.generate import generate
n = {n}
base = pl.read_parquet(sys.argv[2])
current = base.filter(pl.col("valid_to").is_null()).unique(["subject", "predicate"], keep="none", maintain_order=True)
current = current.unique(["subject", "predicate", "object"], keep="none", maintain_order=True)
rows = current.select("subject", "predicate", "object").rows()
ended, replaced = rows[:n], rows[n : 2 * n]
new = generate(n, seed=3).select("subject", "predicate", "object", "valid_from", "valid_to").rows()
kg = kgtoolkit.open(sys.argv[1])
kg.add("warm", "up", "graph")
clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
out = {{}}
postmaster = int(open(sys.argv[4]).readline()) if len(sys.argv) > 4 else 0
def server_cpu():
    # CPU seconds of the PostgreSQL server's processes (its postmaster's children), 0 for SQLite.
    if not postmaster:
        return 0.0
    ticks = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")
def timed(name, calls):
    spent, cpu, done = 0.0, 0.0, 0
    server = -server_cpu()
    for call in calls:
        t, c = clock(), time.process_time()
        try:
            call()
        except kgtoolkit.KGError:
            continue
        spent += clock() - t
        cpu += time.process_time() - c
        done += 1
    server += server_cpu()
    per = 1e6 / max(done, 1)
    out[name] = {{"us": spent * per, "client_cpu_us": cpu * per, "server_cpu_us": server * per,
                  "cpu_us": (cpu + server) * per, "calls": done}}
timed("add", [lambda r=r: kg.add(r[0], r[1], r[2], valid_from=r[3], valid_to=r[4]) for r in new])
timed("add_plain", [lambda i=i: kg.add(f"bench-s{{i}}", "bench_rel", f"bench-o{{i}}") for i in range(n)])
timed("supersede", [lambda r=r: kg.supersede(r[0], r[1], r[2], r[2] + " (next)") for r in replaced])
timed("invalidate", [lambda r=r: kg.invalidate(r[0], r[1], r[2]) for r in ended])
print(json.dumps(out))
"""


def _ops(path: str, db: str, base: str, clock: str, n: int, *server: str) -> dict[str, Any]:
    """One side's single writes into its base graph ``db``, in a fresh process: per operation, µs per call.
    ``server``: the PostgreSQL server's ``postmaster.pid``, whose processes' CPU is counted too."""
    env = {**os.environ, "PYTHONPATH": path}
    script = _OPS.format(n=n)
    argv = [sys.executable, "-c", script, db, base, clock, *server]
    out = subprocess.run(argv, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    got: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


def single_writes(args: argparse.Namespace) -> dict[str, Any]:
    """``add``, ``supersede`` and ``invalidate`` one by one into a base graph of ``--base`` facts, both sides in the
    same rounds, alternated (which side goes first alternates too); SQLite, and PostgreSQL with ``--postgres``."""
    from kgtoolkit.generate import generate

    sides = {"after": str(HERE), "before": args.before}
    engines = ["sqlite", *(["postgresql"] if args.postgres else [])]
    runs: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {
        e: {op: {"after": [], "before": []} for op in ("add", "add_plain", "supersede", "invalidate")} for e in engines
    }
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        parquet = str(Path(tmp) / "base.parquet")
        generate(args.base, seed=7).write_parquet(parquet)
        bases = {}
        for side, path in sides.items():
            bases[side] = str(Path(tmp) / f"base-{side}.sqlite3")
            subprocess.run(
                [sys.executable, "-c", _BASE, bases[side], parquet], env={**os.environ, "PYTHONPATH": path}, check=True
            )
        server = _postgres() if args.postgres else None
        for r in range(args.repeat):
            order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
            for side, path in order:
                db = str(Path(tmp) / f"ops-{side}-{r}.sqlite3")
                shutil.copyfile(bases[side], db)
                for op, got in _ops(path, db, parquet, "cpu", args.ops).items():
                    runs["sqlite"][op][side].append(got)
                for leftover in (db, f"{db}-wal", f"{db}-shm"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
                if server is not None:
                    schema = server.new_schema()
                    env = {**os.environ, "PYTHONPATH": path}
                    subprocess.run([sys.executable, "-c", _BASE, schema, parquet], env=env, check=True)
                    pid = str(server.folder / "data" / "postmaster.pid")
                    for op, got in _ops(path, schema, parquet, "wall", args.ops, pid).items():
                        runs["postgresql"][op][side].append(got)
                print(
                    side,
                    r,
                    {e: {op: round(v[side][-1]["cpu_us"]) for op, v in runs[e].items()} for e in engines},
                    os.getloadavg(),
                    flush=True,
                )
        if server is not None:
            server.stop()
    out: dict[str, Any] = {
        "base_facts": args.base,
        "ops": args.ops,
        "figure": "CPU per call: the process's (SQLite runs in it); PostgreSQL's adds its server processes' CPU",
    }
    for e in engines:
        for op, v in runs[e].items():
            after = statistics.median(x["cpu_us"] for x in v["after"])
            before = statistics.median(x["cpu_us"] for x in v["before"])
            wall_a = statistics.median(x["us"] for x in v["after"])
            wall_b = statistics.median(x["us"] for x in v["before"])
            out[f"{e} {op}"] = {
                "after_us": after,
                "before_us": before,
                "ratio": after / before,
                "clock_after_us": wall_a,
                "clock_before_us": wall_b,
                "runs": v,
            }
            print(e, op, f"{before:.0f} -> {after:.0f} us, {after / before:.2f}x", flush=True)
    return out


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
    parser.add_argument("--base", type=int, default=0, help="with --writes: single writes into a graph of this many")
    parser.add_argument("--ops", type=int, default=300, help="with --base: calls of each single write")
    parser.add_argument("--import-facts", type=int, default=0)
    parser.add_argument("--before", default="/work/main")
    parser.add_argument("--postgres", action="store_true", help="also the adds into a throwaway PostgreSQL server")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json")
    args = parser.parse_args()
    result: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": os.getloadavg()}
    if args.writes and args.base:
        result["single_writes"] = single_writes(args)
    if args.writes and (args.adds or args.import_facts):
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

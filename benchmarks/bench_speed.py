"""The targets of issues 14 (speed) and 33 (bulk load at the engine's speed), each beside its floor measured in
the same run. Where the two issues set different targets, the table gives issue 33's (the later).

    python benchmarks/bench_speed.py                  # 1,000,000 facts, 3 runs each (about 25 min here)
    python benchmarks/bench_speed.py --quick          # 100,000 facts, 2 runs (about 3 min)
    python benchmarks/bench_speed.py --facts 300000 --no-postgres --json out.json --readme

The facts come from a generator that is *not* the project's (:func:`other_facts`, numpy, seeded):
subjects Pareto-skewed over a pool of ``facts / 6`` entities (a few hubs, a long tail), 40 predicates
(4 of them value predicates of the default settings: their objects are text), objects uniform over the
pool, starts over ~5.5 years and 60% of the facts ended (an end 1-400 days after the start). It is
written once to a TSV (``subject, predicate, object, valid_from, valid_to``). What runs:

* ``import``        the whole process ``kgtoolkit --db new.sqlite3 import facts.tsv --json`` against the floor:
                    plain ``sqlite3`` of the TSV's rows (read with ``csv`` before the clock) into a minimal
                    five-column text table with as many indexes as kgtoolkit's facts table (9), in one
                    transaction: ``executemany``, then the indexes built (the faster of the two orders at
                    this size; see bench_import.py), WAL and ``synchronous=NORMAL`` as kgtoolkit's. Target ≥ 0.5×
                    (issue 33; issue 14 asked 0.6×).
* ``import_pg``     the same process into a fresh PostgreSQL schema (a throwaway server, tests/support/postgres_server.py)
                    against a plain ``COPY`` of the same rows into the same minimal table, indexes built after,
                    one transaction. Target ≥ 0.5×. Beside the wall clock: the client's CPU seconds and the
                    server's (its processes' CPU from /proc, counted while each load ran).
* ``reimport``      the same command again on the graph that holds the file (every row a duplicate). ≥ 300,000/s.
* ``frames``        ``frames.facts(kg)`` (names and types resolved) against an ADBC read (adbc-driver-sqlite) of a
                    plain table holding the same rows as text in another file. Target ≤ 1× the floor (issue 33; issue 14
                    also asked ≤ 0.6 s, shown beside it).
* ``query``/``search``  p50 of ``kg.query(name)`` and ``kg.by_predicate(predicate, object)`` against the raw indexed SQL
                    returning the same rows (bench_suite.point_reads). Target ≤ 1.5×.
* ``freshness``     with the real model (when semantic search is installed), on the first ``--search-facts``
                    rows of the file: the median ``find`` on an unchanged graph, and the ``find`` right after one
                    ``kg.add``; target: ≤ 50 ms more. Embedding a million facts with the CPU model takes longer
                    than this run, so it is measured at a smaller size. At the full size: the freshness check a
                    ``find`` after one ``add`` runs (``store.texts_since``: the database's watermark, and the one
                    fact above it), beside the whole-graph digest the release before computed after every write
                    (:func:`old_digest`, kept here as that release's SQL).
* ``dashboard``     ``bench_dashboard.py`` (Streamlit + Playwright with Debian's Chromium) on 100,000 facts of the
                    project's generator: warm first drawing of the Graph page (≤ 2 s), as a repeat view (a new
                    tab of a browser that opened the page before) and as a first view (a new browser profile,
                    which downloads and compiles Streamlit's front end), and a date change (≤ 1 s);
                    beside it, in the same run, a bare Streamlit page showing only the same picture (the floor:
                    Streamlit's front end and the drawing on this machine now), and the data work behind the
                    page without a browser (frames, labels, as_of filter, graphview.build, render_html).
* ``memory``        peak RSS of a child process running the import (``resource.getrusage`` of a small middle
                    process's children), and of one running ``frames.facts`` (its own and its reader process's
                    ``VmHWM``: a big SQLite read uses a reader process). Targets ≤ 1.5 GB and ≤ 1 GB. Each is the
                    process's own peak: on Linux ``ru_maxrss`` carries a parent's peak into a child through fork
                    and exec, so neither is read from a direct child of this (large) process.

Times are wall-clock medians of ``--repeat`` runs; the load average is printed and stored beside them
(the machine is shared). Never used as a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import csv
import functools
import gc
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import numpy as np
import polars as pl
from readme_block import write_block

import kgtoolkit
from kgtoolkit import frames
from kgtoolkit.store.engine._schema import FACT_INDEXES

README = HERE / "README.md"
COLUMNS = ("subject", "predicate", "object", "valid_from", "valid_to")
VALUE_PREDICATES = ("role", "title", "note", "email")  # value predicates of the default settings
# As many indexes as kgtoolkit's facts table, on the minimal table's columns.
FLOOR_INDEXES = (
    "CREATE INDEX t_spo ON t(subject, predicate, object)",
    "CREATE INDEX t_spf ON t(subject, predicate, valid_from)",
    "CREATE INDEX t_op ON t(object, predicate)",
    "CREATE INDEX t_po ON t(predicate, object)",
    "CREATE INDEX t_ft ON t(valid_from, valid_to)",
    "CREATE INDEX t_f ON t(valid_from)",
    "CREATE INDEX t_sot ON t(subject, object, valid_to)",
    "CREATE INDEX t_ost ON t(object, subject, valid_to)",
    "CREATE INDEX t_t ON t(valid_to)",
)
assert len(FLOOR_INDEXES) == len(FACT_INDEXES["sqlite"])
MB = 1024 * 1024


# ---------------------------------------------------------------------- helpers


def say(text: str) -> None:
    print(text, flush=True)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def med(values: list[float]) -> float:
    return statistics.median(values)


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(f"{path}.search", ignore_errors=True)
    return path


def kgtoolkit_exe() -> str:
    script = Path(sys.executable).with_name("kgtoolkit")
    return str(script) if script.exists() else shutil.which("kgtoolkit") or "kgtoolkit"


def env() -> dict[str, str]:
    """The children import the kgtoolkit this file sits beside (a worktree), not another checkout."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}


# ---------------------------------------------------------------------- the other generator


def other_facts(n: int, seed: int) -> pl.DataFrame:
    """``n`` facts that the project's generator did not make (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    pool = max(1_000, n // 6)
    words = np.array(["Node", "Unit", "Site", "Team", "Item", "Part", "Group", "Host"])
    labels = np.char.add(np.char.add(words[rng.integers(0, len(words), pool)], " "), rng.permutation(pool).astype(str))
    rank = rng.permutation(pool)  # hubs anywhere in the pool
    pareto = np.floor(rng.pareto(1.1, n) * (pool / 50)).astype(np.int64)  # Lomax: hubs, then a long tail
    subjects = labels[rank[pareto % pool]]
    names = [f"Relation {k:02d}" for k in range(40 - len(VALUE_PREDICATES))] + list(VALUE_PREDICATES)
    weights = 1.0 / np.arange(1, 41) ** 0.6
    predicate = rng.choice(40, size=n, p=weights / weights.sum())
    objects = labels[rng.integers(0, pool, n)]
    is_value = predicate >= 40 - len(VALUE_PREDICATES)
    texts = np.char.add("value text ", rng.integers(0, 5_000, n).astype(str))
    objects = np.where(is_value, texts, objects)
    start = np.datetime64("2020-01-01") + rng.integers(0, 2_000, n).astype("timedelta64[D]")
    ended = rng.random(n) < 0.6
    end = start + rng.integers(1, 401, n).astype("timedelta64[D]")
    return pl.DataFrame(
        {
            "subject": subjects,
            "predicate": np.array(names)[predicate],
            "object": objects,
            "valid_from": start.astype(str),
            "valid_to": np.where(ended, end.astype(str), ""),
        }
    )


def tsv_rows(path: Path) -> list[tuple[str, ...]]:
    with path.open(newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        return [tuple(r) for r in reader]


# ---------------------------------------------------------------------- floors


def sqlite_floor(path: Path, rows: list[tuple[str, ...]]) -> tuple[float, float]:
    """Seconds and CPU seconds of the plain load."""
    conn = sqlite3.connect(fresh(path), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(
            "CREATE TABLE t(subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL, "
            "valid_from TEXT, valid_to TEXT)"
        )

        def run() -> None:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)
            for statement in FLOOR_INDEXES:
                conn.execute(statement)
            conn.execute("COMMIT")

        cpu = time.process_time()
        seconds, _ = timed(run)
        cpu = time.process_time() - cpu
    finally:
        conn.close()
    return seconds, cpu


def postgres_floor(url: str, rows: list[tuple[str, ...]]) -> tuple[float, float]:
    """Seconds and the client's CPU seconds of the plain load."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE t(subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL, "
            "valid_from TEXT, valid_to TEXT)"
        )
        start, cpu = time.perf_counter(), time.process_time()
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy("COPY t (subject, predicate, object, valid_from, valid_to) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            for statement in FLOOR_INDEXES:
                cur.execute(statement)
        return time.perf_counter() - start, time.process_time() - cpu


def server_cpu(server: Any) -> float | None:
    """CPU seconds the throwaway server has used so far: the postmaster, its live processes and those that
    ended (a connection's backend); from /proc, so None elsewhere than on Linux."""
    try:
        postmaster = int((server.folder / "data" / "postmaster.pid").read_text().split()[0])
        ticks = 0
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue  # ended meanwhile
                if int(proc.name) == postmaster:
                    ticks += sum(int(x) for x in fields[11:15])  # its own and its waited-for children's
                elif int(fields[1]) == postmaster:
                    ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def on_server(server: Any, fn: Callable[[], Any]) -> tuple[Any, float | None]:
    """``fn()`` and the server's CPU seconds meanwhile (a backend's are counted once it has ended)."""
    before = server_cpu(server)
    out = fn()
    time.sleep(0.5)  # the backend of a finished client exits and is waited for by the postmaster
    after = server_cpu(server)
    return out, None if before is None or after is None else after - before


# ---------------------------------------------------------------------- children


_PEAK = textwrap.dedent("""
    import resource, subprocess, sys, time
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stdout[-2000:] + done.stderr[-2000:])
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(took, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
""")

# Each peak is the process's own. On Linux ru_maxrss is inherited through fork and exec: a direct child of this
# (large) process reports this one's peak if it is higher than its own (frames.facts did: 1,183 MB for its own
# 664 MB). The import is run from a small middle process (its children's ru_maxrss is their own); frames.facts
# reads its own VmHWM and its reader process's.
_FRAMES_PEAK = textwrap.dedent("""
    import resource, sys, time
    import kgtoolkit
    from kgtoolkit import frames
    def peak_kb(pid="self"):
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    kg = kgtoolkit.open(sys.argv[1], read_only=True)
    start = time.perf_counter()
    n = frames.facts(kg).height
    took = time.perf_counter() - start
    from kgtoolkit.store.engine._arrow_read import _READER
    reader = _READER._proc.pid if _READER._proc is not None else None
    children = peak_kb(reader) if reader is not None else 0
    print(took, peak_kb(), children, n)
    _READER.stop()
""")


def cli_import(db: str, tsv: Path) -> tuple[float, int, float]:
    """The whole ``kgtoolkit import`` process: seconds, its peak RSS (bytes) and its CPU seconds (user + system,
    the process and its reader process: less moved by other jobs on the machine than the wall clock)."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, kgtoolkit_exe(), "--db", db, "import", str(tsv), "--json"],
        capture_output=True,
        text=True,
        env=env(),
    )
    if done.returncode:
        raise SystemExit(f"kgtoolkit import failed: {done.stderr[-3000:]}")
    took, peak, cpu = done.stdout.split()
    return float(took), int(peak) * 1024, float(cpu)


def frames_child(db: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _FRAMES_PEAK, str(db)], capture_output=True, text=True, env=env())
    if done.returncode:
        raise SystemExit(f"frames child failed: {done.stderr[-3000:]}")
    took, own, children, rows = done.stdout.split()
    return {
        "seconds": float(took),
        "rss_self_mb": int(own) / 1024,
        "rss_children_mb": int(children) / 1024,
        "rows": int(rows),
    }


# ---------------------------------------------------------------------- parts


def bench_import(args: argparse.Namespace, work: Path, tsv: Path, rows: list[tuple[str, ...]]) -> dict[str, Any]:
    n = len(rows)
    ours, again, peaks, floors, cpus, again_cpus, floor_cpus = [], [], [], [], [], [], []
    db = work / "graph.sqlite3"
    for i in range(args.repeat):
        took, peak, cpu = cli_import(str(fresh(db)), tsv)
        ours.append(took)
        peaks.append(peak)
        cpus.append(cpu)
        took, _, cpu = cli_import(str(db), tsv)
        again.append(took)
        again_cpus.append(cpu)
        took, cpu = sqlite_floor(work / "floor.sqlite3", rows)
        floors.append(took)
        floor_cpus.append(cpu)
        say(
            f"  run {i + 1}: import {ours[-1]:.2f} s (CPU {cpus[-1]:.1f} s, peak {peak / MB:.0f} MB), again "
            f"{again[-1]:.2f} s (CPU {again_cpus[-1]:.1f} s), floor {floors[-1]:.2f} s (CPU {floor_cpus[-1]:.1f} s); "
            f"load {load()}"
        )
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT count(*) FROM facts").fetchone()[0]
    out = {
        "import": {
            "seconds": med(ours),
            "runs": ours,
            "rate": n / med(ours),
            "floor_seconds": med(floors),
            "floor_runs": floors,
            "floor_rate": n / med(floors),
            "ratio": med(floors) / med(ours),
            "cpu_seconds": med(cpus),
            "floor_cpu_seconds": med(floor_cpus),
            "cpu_ratio": med(floor_cpus) / med(cpus),
            "stored_facts": stored,
        },
        "reimport": {
            "seconds": med(again),
            "runs": again,
            "rate": n / med(again),
            "cpu_seconds": med(again_cpus),
            "cpu_rate": n / med(again_cpus),
        },
        "import_peak_mb": max(peaks) / MB,
    }
    return out


def bench_import_pg(args: argparse.Namespace, tsv: Path, rows: list[tuple[str, ...]]) -> dict[str, Any]:
    import postgres_server
    import psycopg

    server = postgres_server.start()
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        ours, again, floors, cpus, again_cpus, floor_cpus = [], [], [], [], [], []
        for i in range(args.repeat):
            url = server.new_schema("bench")
            for seconds, cpu_pairs in ((ours, cpus), (again, again_cpus)):  # the import, then the same again
                (took, _, cpu), served = on_server(server, functools.partial(cli_import, url, tsv))
                seconds.append(took)
                cpu_pairs.append((cpu, served))
            (took, cpu), served = on_server(server, functools.partial(postgres_floor, server.new_schema("bench"), rows))
            floors.append(took)
            floor_cpus.append((cpu, served))

            def shown(pair: tuple[float, float | None]) -> str:
                return f"CPU {pair[0]:.1f} s" + ("" if pair[1] is None else f" + server {pair[1]:.1f} s")

            say(
                f"  run {i + 1}: import {ours[-1]:.2f} s ({shown(cpus[-1])}), again {again[-1]:.2f} s "
                f"({shown(again_cpus[-1])}), COPY floor {floors[-1]:.2f} s ({shown(floor_cpus[-1])}); load {load()}"
            )
    finally:
        server.stop()
    n = len(rows)
    out = {
        "seconds": med(ours),
        "runs": ours,
        "rate": n / med(ours),
        "floor_seconds": med(floors),
        "floor_runs": floors,
        "floor_rate": n / med(floors),
        "ratio": med(floors) / med(ours),
        "reimport_seconds": med(again),
        "reimport_rate": n / med(again),
        "cpu_seconds": med([c for c, _ in cpus]),
        "floor_cpu_seconds": med([c for c, _ in floor_cpus]),
        "reimport_cpu_seconds": med([c for c, _ in again_cpus]),
    }
    if all(s is not None for _, s in cpus + again_cpus + floor_cpus):  # the client's CPU and the server's
        both = {
            name: med([c + (s or 0.0) for c, s in pairs])
            for name, pairs in (("ours", cpus), ("again", again_cpus), ("floor", floor_cpus))
        }
        out.update(
            server_cpu_seconds=med([s or 0.0 for _, s in cpus]),
            floor_server_cpu_seconds=med([s or 0.0 for _, s in floor_cpus]),
            reimport_server_cpu_seconds=med([s or 0.0 for _, s in again_cpus]),
            cpu_ratio=both["floor"] / both["ours"],
            reimport_cpu_rate=n / both["again"],
        )
    return out


def bench_frames(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    import adbc_driver_sqlite.dbapi as adbc

    db = work / "graph.sqlite3"
    plain = fresh(work / "plain.sqlite3")
    with kgtoolkit.open(db, read_only=True) as kg:
        facts = frames.facts(kg)
        text = facts.select(
            [pl.col(c).cast(pl.String) if facts.schema[c] != pl.Int64 else pl.col(c) for c in facts.columns]
        )
        with adbc.connect(str(plain)) as conn, conn.cursor() as cur:
            cur.adbc_ingest("plain", text.to_arrow(), mode="create")
            conn.commit()
        del facts, text

        def floor() -> int:
            with adbc.connect(str(plain)) as conn, conn.cursor() as cur:
                cur.execute("SELECT * FROM plain")
                return pl.from_arrow(cur.fetch_arrow_table()).height

        ours, base = [], []
        for _ in range(args.repeat):
            ours.append(timed(lambda: frames.facts(kg).height)[0])
            base.append(timed(floor)[0])
    child = frames_child(db)
    say(
        f"  frames.facts {med(ours):.2f} s, ADBC of the plain table {med(base):.2f} s; child: "
        f"{child['seconds']:.2f} s, peak {child['rss_self_mb']:.0f} MB (+ reader {child['rss_children_mb']:.0f} MB)"
    )
    return {
        "seconds": med(ours),
        "runs": ours,
        "floor_seconds": med(base),
        "floor_runs": base,
        "ratio": med(ours) / med(base),
        "child": child,
    }


def bench_reads(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    import bench_suite as bs

    db = work / "graph.sqlite3"
    with kgtoolkit.open(db) as kg:
        found = bs.point_reads(kg, None, db, None, args.samples, args.repeat, random.Random(args.seed))
    return {k: found[k] for k in ("query", "search")}


def old_digest(kg: kgtoolkit.KnowledgeGraph) -> dict[str, Any]:
    """The freshness check of the release before the watermark (its ``store.graph_digest``): a blake2b of every
    fact's and memory's text line, in one snapshot, run by every ``find`` after a write."""
    import hashlib

    d = kg.engine.dialect
    tab = d.char(9)
    out: dict[str, Any] = {}
    with kg.engine.read() as cur:
        for kind, line, source, order in (
            (
                "facts",
                f"f.id || {tab} || s.name || {tab} || f.predicate || {tab} || COALESCE(o.name, f.object_value)",
                "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id",
                "f.id",
            ),
            ("memories", f"id || {tab} || text", "memories", "id"),
        ):
            count = cur.execute(f"SELECT count(*) FROM {source.split()[0]}").fetchone()[0]
            (blob,) = cur.execute(d.ordered_concat(line, d.char(10), source, order)).fetchone()
            out[kind] = (
                count,
                hashlib.blake2b((blob or "").encode("utf-8", "surrogatepass"), digest_size=16).hexdigest(),
            )
    return out


def cpu_timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_freshness(args: argparse.Namespace, work: Path, tsv: Path) -> dict[str, Any]:
    import dataclasses

    from kgtoolkit.store.reads import _search as store

    out: dict[str, Any] = {}
    with kgtoolkit.open(work / "graph.sqlite3", read_only=True) as kg:
        runs = [cpu_timed(lambda: old_digest(kg)) for _ in range(args.repeat)]
        out["digest_full_seconds"] = med([w for w, _ in runs])
        out["digest_full_cpu_seconds"] = med([c for _, c in runs])
        say(
            f"  the release before's whole-graph digest: {out['digest_full_seconds'] * 1000:.0f} ms "
            f"(CPU {out['digest_full_cpu_seconds'] * 1000:.0f} ms)"
        )
        with kg.engine.read() as cur:
            top = store._marks(cur, kg, None)
        assert top is not None
        one_back = dataclasses.replace(top, facts=top.facts - 1)  # as an index is after one add: one fact above it
        found = store.texts_since(kg, one_back)
        assert found is not None and len(found.facts) == 1
        runs = [cpu_timed(lambda: store.texts_since(kg, one_back)) for _ in range(max(20, args.repeat))]
        out["watermark_check_ms"] = med([w for w, _ in runs]) * 1000
        out["watermark_check_cpu_ms"] = med([c for _, c in runs]) * 1000
        say(
            f"  the watermark check after one add (store.texts_since): {out['watermark_check_ms']:.2f} ms "
            f"(CPU {out['watermark_check_cpu_ms']:.2f} ms)"
        )
    try:
        from kgtoolkit._embedding import SentenceEmbedder
        from kgtoolkit.search import find, index

        SentenceEmbedder().encode(["warm"])
    except Exception as exc:
        out["skipped"] = f"semantic search unavailable: {exc}"
        return out
    small = work / "search.tsv"
    with tsv.open() as src, small.open("w") as dst:
        for i, line in enumerate(src):
            if i > args.search_facts:
                break
            dst.write(line)
    db = fresh(work / "search.sqlite3")
    cli_import(str(db), small)
    queries = [
        "which node relates to unit 12",
        "team members of group 7",
        "value text 42",
        "host of site 3",
        "relation 05 of item 9",
    ]
    with kgtoolkit.open(db) as kg:
        took, _ = timed(lambda: index(kg))
        out["index_seconds"] = took
        say(f"  indexed {args.search_facts:,} facts with the model in {took:.1f} s")
        for q in queries:
            find(kg, q, k=10)
        unchanged, after = [], []
        for r in range(max(5, args.repeat)):
            for q in queries:
                unchanged.append(cpu_timed(lambda: find(kg, q, k=10)))
            kg.add(f"Fresh node {r}", "Relation 01", f"Unit {r}", valid_from="2026-01-01")
            after.append(cpu_timed(lambda: find(kg, queries[r % len(queries)], k=10)))
    out.update(
        {
            "facts": args.search_facts,
            "unchanged_ms": med([w for w, _ in unchanged]) * 1000,
            "after_add_ms": med([w for w, _ in after]) * 1000,
            "unchanged_cpu_ms": med([c for _, c in unchanged]) * 1000,
            "after_add_cpu_ms": med([c for _, c in after]) * 1000,
        }
    )
    out["extra_ms"] = out["after_add_ms"] - out["unchanged_ms"]
    out["extra_cpu_ms"] = out["after_add_cpu_ms"] - out["unchanged_cpu_ms"]
    say(
        f"  find {out['unchanged_ms']:.0f} ms unchanged, {out['after_add_ms']:.0f} ms after one add "
        f"(+{out['extra_ms']:.0f} ms; CPU {out['unchanged_cpu_ms']:.0f} → {out['after_add_cpu_ms']:.0f} ms) "
        f"at {args.search_facts:,} facts"
    )
    return out


def bench_dashboard(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from kgtoolkit.dashboard import data, graphview
    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts

    n = args.dashboard_facts
    db = fresh(work / "dashboard.sqlite3")
    with kgtoolkit.open(db) as kg:
        kg.configure(types=kg.config.types | {"service", "team", "database", "queue"})
        import_facts(kg, generate(n, seed=args.seed))
    out: dict[str, Any] = {"facts": n}

    def data_work() -> int:  # what the Graph page computes before it draws (kgdash: facts_frame .. graph_html)
        with kgtoolkit.open(db, read_only=True) as kg:
            facts = frames.facts(kg)
            facts = data.labelled(facts, kg.predicate_labels(), alias="predicate_label")
            view = graphview.build(frames.valid_at(facts, None), center=None, hops=1, max_nodes=120)
            return len(graphview.render_html(view, height=640))

    work_runs = [timed(data_work)[0] for _ in range(args.repeat)]
    out["data_work_seconds"] = med(work_runs)
    say(f"  data behind the Graph page (no browser): {med(work_runs):.2f} s")
    if args.no_browser:
        out["browser"] = "skipped (--no-browser)"
        return out
    result = work / "dashboard.json"
    done = subprocess.run(
        [
            sys.executable,
            str(HERE / "bench_dashboard.py"),
            "--facts",
            str(n),
            "--repeat",
            str(args.repeat),
            "--seed",
            str(args.seed),
            "--json",
            str(result),
        ],
        capture_output=True,
        text=True,
        env=env(),
    )
    if done.returncode or not result.exists():
        out["browser"] = f"failed: {(done.stderr or done.stdout)[-600:]}"
        say(f"  bench_dashboard.py failed: {out['browser']}")
        return out
    out["browser"] = json.loads(result.read_text())
    b = out["browser"]
    say(
        f"  browser: cold {b['cold_first_draw_s']:.2f} s, warm first view {b['warm_first_draw_s']:.2f} s, repeat view "
        f"{b['repeat_view_s']:.2f} s, date change {b['date_change_redraw_s']:.2f} s; bare page with the same picture "
        f"{b['floor_first_draw_s']:.2f} s, repeat view {b['floor_repeat_view_s']:.2f} s"
    )
    return out


# ---------------------------------------------------------------------- report


def targets(r: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(target, figure, floor, ratio, met) rows."""
    rows: list[tuple[str, str, str, str, str]] = []

    def met(ok: bool | None) -> str:
        return "n/a" if ok is None else "**met**" if ok else "missed"

    n = r["facts"]
    imp = r["sqlite"]["import"]
    rows.append(
        (
            f"import {n:,} facts, whole CLI process (SQLite) ≥ 0.5× floor",
            f"{imp['seconds']:.1f} s ({imp['rate']:,.0f}/s)",
            f"executemany + 9 indexes {imp['floor_seconds']:.1f} s ({imp['floor_rate']:,.0f}/s)",
            f"{imp['ratio']:.2f}× (CPU time: {imp['cpu_ratio']:.2f}×)",
            met(imp["ratio"] >= 0.5),
        )
    )
    pg = r.get("postgres")
    if isinstance(pg, dict) and "ratio" in pg:
        rows.append(
            (
                f"import {n:,} facts, whole CLI process (PostgreSQL) ≥ 0.5× floor",
                f"{pg['seconds']:.1f} s ({pg['rate']:,.0f}/s)",
                f"COPY + 9 indexes {pg['floor_seconds']:.1f} s ({pg['floor_rate']:,.0f}/s)",
                f"{pg['ratio']:.2f}×"
                + (f" (CPU time, client and server: {pg['cpu_ratio']:.2f}×)" if "cpu_ratio" in pg else ""),
                met(pg["ratio"] >= 0.5),
            )
        )
    else:
        rows.append(("import (PostgreSQL) ≥ 0.5× COPY", str(pg), "—", "—", "n/a"))
    again = r["sqlite"]["reimport"]
    rows.append(
        (
            "re-import, all duplicates (SQLite) ≥ 300,000/s",
            f"{again['seconds']:.1f} s ({again['rate']:,.0f}/s)",
            "300,000/s",
            f"{again['rate'] / 300_000:.2f}× the target rate (CPU time: {again['cpu_rate']:,.0f}/s)",
            met(again["rate"] >= 300_000),
        )
    )
    if isinstance(pg, dict) and "reimport_rate" in pg:
        rows.append(
            (
                "re-import, all duplicates (PostgreSQL) ≥ 300,000/s",
                f"{pg['reimport_seconds']:.1f} s ({pg['reimport_rate']:,.0f}/s)",
                "300,000/s",
                f"{pg['reimport_rate'] / 300_000:.2f}× the target rate"
                + (
                    f" (CPU time, client and server: {pg['reimport_cpu_rate']:,.0f}/s)"
                    if "reimport_cpu_rate" in pg
                    else ""
                ),
                met(pg["reimport_rate"] >= 300_000),
            )
        )
    fr = r.get("frames")
    if fr is None:
        rows.append(("frames.facts ≤ 1× ADBC", "not run", "—", "—", "n/a"))
    else:
        rows.append(
            (
                f"frames.facts at {n:,} ≤ 1× ADBC of a plain text table",
                f"{fr['seconds']:.2f} s",
                f"ADBC read {fr['floor_seconds']:.2f} s",
                f"{fr['ratio']:.2f}×",
                met(fr["ratio"] <= 1.0) + ("" if fr["seconds"] <= 0.6 else " (issue 14's 0.6 s: missed)"),
            )
        )
    for key, label in (
        ("query", "query p50 ≤ 1.5× raw SQL"),
        ("search", "search by predicate+object p50 ≤ 1.5× raw SQL"),
    ):
        if "reads" not in r:
            rows.append((label, "not run", "—", "—", "n/a"))
            continue
        q = r["reads"][key]
        rows.append(
            (
                label,
                f"{q['kgtoolkit']['p50_us']:.0f} µs",
                f"raw SQL {q['raw_sql']['p50_us']:.0f} µs",
                f"{q['ratio_p50_raw']:.2f}×",
                met(q["ratio_p50_raw"] <= 1.5),
            )
        )
    fresh_ = r.get("freshness", {"skipped": "not run"})
    if "extra_ms" in fresh_:
        rows.append(
            (
                f"search freshness: find after one add ≤ +50 ms (at {fresh_['facts']:,} facts, not {n:,})",
                f"{fresh_['after_add_ms']:.0f} ms",
                f"unchanged find {fresh_['unchanged_ms']:.0f} ms",
                f"+{fresh_['extra_ms']:.0f} ms"
                + (f" (CPU +{fresh_['extra_cpu_ms']:.0f} ms)" if "extra_cpu_ms" in fresh_ else ""),
                met(fresh_["extra_ms"] <= 50),
            )
        )
    else:
        rows.append(("search freshness ≤ +50 ms", fresh_.get("skipped", "?"), "—", "—", "n/a"))
    if "watermark_check_ms" in fresh_:
        rows.append(
            (
                f"freshness check a find after one add runs (watermark), at {n:,} ≤ 50 ms",
                f"{fresh_['watermark_check_ms']:.1f} ms",
                f"the release before's whole-graph digest {fresh_['digest_full_seconds'] * 1000:,.0f} ms",
                f"{fresh_['watermark_check_ms'] / 50:.2f}× the budget",
                met(fresh_["watermark_check_ms"] <= 50),
            )
        )
    d = r.get("dashboard", {"facts": 0, "data_work_seconds": float("nan"), "browser": "not run"})
    b = d.get("browser")
    if isinstance(b, dict):
        if "repeat_view_s" in b:
            rows.append(
                (
                    f"dashboard Graph page, warm first drawing at {d['facts']:,} ≤ 2 s: a repeat view (warm server, "
                    "browser cache warm, new tab)",
                    f"{b['repeat_view_s']:.2f} s",
                    f"bare Streamlit page with the same picture {b['floor_repeat_view_s']:.2f} s",
                    f"{b['repeat_view_s'] / 2:.2f}× the target ({b['repeat_view_s'] / b['floor_repeat_view_s']:.2f}× "
                    "the bare page)",
                    met(b["repeat_view_s"] <= 2),
                )
            )
        rows.append(
            (
                f"dashboard Graph page, warm first drawing at {d['facts']:,} ≤ 2 s: a first view (warm server, "
                "new browser profile)",
                f"{b['warm_first_draw_s']:.2f} s",
                (
                    f"bare Streamlit page with the same picture {b['floor_first_draw_s']:.2f} s; "
                    if "floor_first_draw_s" in b
                    else ""
                )
                + f"cold {b['cold_first_draw_s']:.2f} s; data work {d['data_work_seconds']:.2f} s",
                f"{b['warm_first_draw_s'] / 2:.2f}× the target"
                + (
                    f" ({b['warm_first_draw_s'] / b['floor_first_draw_s']:.2f}× the bare page)"
                    if b.get("floor_first_draw_s")
                    else ""
                ),
                met(b["warm_first_draw_s"] <= 2),
            )
        )
        rows.append(
            (
                "dashboard date change to redraw ≤ 1 s",
                f"{b['date_change_redraw_s']:.2f} s",
                "—",
                f"{b['date_change_redraw_s']:.2f}× the target",
                met(b["date_change_redraw_s"] <= 1),
            )
        )
    else:
        rows.append(
            (
                f"dashboard Graph page at {d['facts']:,} ≤ 2 s",
                f"data work {d['data_work_seconds']:.2f} s",
                str(b),
                "—",
                "n/a",
            )
        )
    peak = r["sqlite"]["import_peak_mb"]
    rows.append(
        (
            f"peak RSS of importing {n:,} facts ≤ 1.5 GB",
            f"{peak:,.0f} MB",
            "1,536 MB",
            f"{peak / 1536:.2f}×",
            met(peak <= 1536),
        )
    )
    if fr is None:
        return rows
    child = fr["child"]
    total = child["rss_self_mb"] + child["rss_children_mb"]
    rows.append(
        (
            f"peak RSS of frames.facts at {n:,} ≤ 1 GB",
            f"{child['rss_self_mb']:,.0f} MB (+ reader process {child['rss_children_mb']:,.0f} MB)",
            "1,024 MB",
            f"{total / 1024:.2f}× (both)",
            met(total <= 1024),
        )
    )
    return rows


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"Run {r['when']}: {r['facts']:,} facts of the other generator (seed {r['seed']}), median of "
        f"{r['repeat']} runs; load average {r['load_before']} before, {r['load_after']} after "
        f"(2 shared cores). `{r['command']}`.",
        "",
        "| target | kgtoolkit | floor (same run) | ratio | |",
        "|---|---:|---|---:|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in r["targets"]]
    return "\n".join(lines)


def write_readme(text: str) -> None:
    write_block(README, "bench_speed", text, heading="Speed (issue 14)")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 facts, 2 runs, smaller search and dashboard")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=1000, help="random entities per latency")
    parser.add_argument("--search-facts", type=int, default=10_000, help="graph size of the freshness measurement")
    parser.add_argument("--dashboard-facts", type=int, default=100_000)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-browser", action="store_true", help="skip the Playwright dashboard timing")
    parser.add_argument(
        "--only", help="comma-separated parts to run after the import: frames,reads,freshness,dashboard"
    )
    parser.add_argument("--json", type=Path, help="results file (default benchmarks/results-speed[-quick].json)")
    parser.add_argument("--readme", action="store_true", help="rewrite the table in benchmarks/README.md")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.facts = min(args.facts, 100_000)
        args.repeat = min(args.repeat, 2)
        args.samples = min(args.samples, 300)
        args.search_facts = min(args.search_facts, 1_000)
        args.dashboard_facts = min(args.dashboard_facts, 20_000)
    args.repeat = max(1, args.repeat)
    parts = set((args.only or "frames,reads,freshness,dashboard").split(","))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kgspeed-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "facts": args.facts,
        "seed": args.seed,
        "repeat": args.repeat,
        "load_before": load(),
        "command": "python benchmarks/bench_speed.py " + " ".join(argv or sys.argv[1:]),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
    }
    try:
        tsv = work / "facts.tsv"
        took, frame = timed(lambda: other_facts(args.facts, args.seed))
        frame.write_csv(tsv, separator="\t", quote_style="never")
        rows = tsv_rows(tsv)
        say(
            f"{args.facts:,} facts generated in {took:.1f} s ({frame['subject'].n_unique():,} subjects, "
            f"{(frame['valid_to'] != '').mean():.0%} ended); load {load()}"
        )
        del frame
        say("import (SQLite):")
        results["sqlite"] = bench_import(args, work, tsv, rows)
        if not args.no_postgres:
            say("import (PostgreSQL):")
            try:
                results["postgres"] = bench_import_pg(args, tsv, rows)
            except Exception as exc:
                results["postgres"] = f"not measured: {exc}"
        else:
            results["postgres"] = "not measured (--no-postgres)"
        del rows
        if "frames" in parts:
            say("frames:")
            results["frames"] = bench_frames(args, work)
        if "reads" in parts:
            say("reads:")
            results["reads"] = bench_reads(args, work)
        if "freshness" in parts:
            say("search freshness:")
            results["freshness"] = bench_freshness(args, work, tsv)
        if "dashboard" in parts:
            say("dashboard:")
            results["dashboard"] = bench_dashboard(args, work)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    results["load_after"] = load()
    path = args.json or HERE / ("results-speed-quick.json" if args.quick else "results-speed.json")
    try:
        results["targets"] = targets(results)
    except KeyError as exc:  # a part skipped with --only
        say(f"(no target table: part {exc} not run)")
    path.write_text(json.dumps(results, indent=1, default=str) + "\n")
    if "targets" in results:
        text = markdown(results)
        say("\n" + text)
        if args.readme:
            write_readme(text)
    return results


if __name__ == "__main__":
    main()

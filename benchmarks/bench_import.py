"""Bulk import and whole-graph reads, against plain-SQLite floors, on a generated graph.

    python benchmarks/bench_import.py                     # 1,000,000 facts, 3 runs each
    python benchmarks/bench_import.py --quick             # 100,000 facts
    python benchmarks/bench_import.py --facts 250000 --repeat 5 --json out.json

What runs (medians of ``--repeat`` runs, all in this one process unless said otherwise):

* ``import_empty``     ``import_facts`` of the generated frame into an empty graph file.
* ``import_again``     the same frame into the graph that already holds it (every row a duplicate).
* ``floor_indexed``    the floor: plain ``sqlite3`` inserting the *already normalised* rows that
                       ``import_empty`` wrote (read back from its file beforehand, as lists of tuples) into a new
                       file whose schema ``kgtoolkit.open`` created: one transaction, one ``executemany`` for the
                       entities and one for the facts, the facts indexes kept and maintained row by row.
* ``floor_rebuilt``    the same, but dropping the facts indexes first and recreating them before the commit (what
                       ``import_facts`` does on an empty graph). The faster of the two floors is the baseline.
                       Both use the file's WAL mode and ``synchronous=NORMAL``, as a kgtoolkit connection does.
* ``import_small``     ``import_facts`` of ``--small`` (1,000) other generated facts into a copy of the full graph,
                       against ``add_loop``: ``kg.add`` of the same facts one by one (each its own transaction).
* ``frames_facts``     ``frames.facts(kg)``: the whole graph as polars (names and types joined, times typed).
* ``read_database``    ``polars.read_database`` on a plain ``sqlite3`` connection of one SELECT joining the
                       same columns (its baseline).
* ``read_table``       ``read_table(kg, "facts")`` (ADBC into Arrow) vs ``read_database`` of the same SELECT.
* ``cli_import``       the whole process ``kgtoolkit --db new.sqlite3 import facts.tsv --json`` (startup, reading
                       the TSV, import), when the CLI has an ``import`` command that works.

Times are wall-clock (``time.perf_counter``); the generated frame and the floors' rows are built
before the clock starts. Never used as a test: no assertion depends on a time.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import kgtoolkit
from kgtoolkit import frames
from kgtoolkit.store import import_facts, read_table
from kgtoolkit.store.engine._schema import FACT_INDEXES

_INDEXES = FACT_INDEXES["sqlite"]
from kgtoolkit.generate import generate, write_generated

FACT_COLUMNS = (
    "subject, predicate, object_id, object_value, object_key, valid_from, valid_to, from_us, to_us, "
    "confidence, source, source_closet, recorded_at, invalidated_at, ended_by"
)
ENTITY_COLUMNS = "id, name, type, properties, created_at"
JOINED = """SELECT f.id, f.subject, s.name AS subject_name, s.type AS subject_type, f.predicate,
    COALESCE(f.object_id, f.object_value) AS object, COALESCE(o.name, f.object_value) AS object_name,
    o.type AS object_type, f.object_id IS NULL AS object_is_value, f.valid_from, f.valid_to, f.from_us, f.to_us,
    f.valid_to IS NULL AS current, f.confidence, f.source, f.source_closet, f.recorded_at, f.invalidated_at, f.ended_by
FROM facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id ORDER BY f.id"""
RAW = (
    "SELECT f.id, f.subject, f.predicate, f.object_id, f.object_value, f.object_key, f.valid_from, f.valid_to, "
    "f.from_us, f.to_us, f.confidence, f.source, f.source_closet, f.recorded_at, f.invalidated_at, f.ended_by "
    "FROM facts f WHERE 1 ORDER BY f.id"
)  # the statement read_table(kg, "facts") runs
INTS = {"id", "from_us", "to_us"}
BOOLS = {"object_is_value", "current"}


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or "unknown"
    import adbc_driver_sqlite
    import numpy

    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "polars": pl.__version__,
        "numpy": numpy.__version__,
        "adbc_driver_sqlite": getattr(adbc_driver_sqlite, "__version__", "?"),
        "kgtoolkit": kgtoolkit.__version__,
        "platform": platform.platform(),
    }


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def schema_overrides(sql: str) -> dict[str, Any]:
    """Column types for read_database: it infers from the first rows, and early NULLs break that."""
    names = [part.strip().split(" AS ")[-1].split(".")[-1] for part in _select_list(sql)]
    return {
        n: pl.Int64 if n in INTS else pl.Boolean if n in BOOLS else pl.Float64 if n == "confidence" else pl.String
        for n in names
    }


def _select_list(sql: str) -> list[str]:
    body = sql.split("SELECT", 1)[1].split("FROM facts", 1)[0]
    parts, depth, current = [], 0, ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [" ".join(p.split()) for p in parts]


def floor_rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    """The rows import_facts wrote, as plain tuples: what the floors insert."""
    conn = sqlite3.connect(path)
    try:
        entities = conn.execute(f"SELECT {ENTITY_COLUMNS} FROM entities ORDER BY rowid").fetchall()
        facts = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts ORDER BY id").fetchall()
    finally:
        conn.close()
    return entities, facts


def floor_insert(path: Path, entities: list[tuple], facts: list[tuple], *, rebuild: bool) -> float:
    """Plain sqlite3: schema by kgtoolkit.open, then one transaction of two executemany calls."""
    kgtoolkit.open(fresh(path), create=True).close()  # the same schema, WAL mode (persistent)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = NORMAL")  # as kgtoolkit's connections
        placeholders = ", ".join("?" * len(FACT_COLUMNS.split(",")))

        def run() -> None:
            conn.execute("BEGIN IMMEDIATE")
            if rebuild:
                for statement in _INDEXES:
                    conn.execute(f"DROP INDEX {statement.split(' INDEX ')[1].split()[0]}")
            conn.executemany(f"INSERT INTO entities({ENTITY_COLUMNS}) VALUES (?, ?, ?, ?, ?)", entities)
            conn.executemany(f"INSERT INTO facts({FACT_COLUMNS}) VALUES ({placeholders})", facts)
            if rebuild:
                for statement in _INDEXES:
                    conn.execute(statement)
            conn.execute("COMMIT")

        seconds, _ = timed(run)
        assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] == len(facts)
    finally:
        conn.close()
    return seconds


def cli_available() -> tuple[str | None, str]:
    """The kgtoolkit script and whether it has an import command."""
    script = Path(sys.executable).with_name("kgtoolkit")
    exe = str(script) if script.exists() else shutil.which("kgtoolkit")
    if exe is None:
        return None, "no kgtoolkit script on PATH"
    helped = subprocess.run([exe, "--help"], capture_output=True, text=True)
    if " import " not in helped.stdout:
        return None, "`kgtoolkit --help` lists no import command"
    return exe, ""


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 facts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--workdir", type=Path, help="where the graph files go (default: a temporary folder)")
    parser.add_argument("--small", type=int, default=1_000, help="facts of the small import into the big graph")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process CLI measurement")
    args = parser.parse_args(argv)
    n = 100_000 if args.quick else args.facts
    repeat = max(1, args.repeat)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kgbench-"))
    work.mkdir(parents=True, exist_ok=True)
    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, SQLite {info['sqlite']}, "
        f"polars {info['polars']}"
    )
    print(f"{n:,} facts, {repeat} run(s) each, files in {work}", flush=True)

    results: dict[str, dict[str, Any]] = {}

    def record(name: str, runs: list[float], rows: int, baseline: str | None = None, note: str = "") -> None:
        median = statistics.median(runs)
        results[name] = {
            "runs_s": [round(r, 4) for r in runs],
            "median_s": round(median, 4),
            "facts_per_s": round(rows / median) if median else None,
            "rows": rows,
            "baseline": baseline,
            "note": note,
        }
        print(f"  {name:<18} {median:9.3f} s  {rows / median:>12,.0f} facts/s  {note}", flush=True)

    seconds, frame = timed(lambda: generate(n, seed=args.seed))
    record("generate", [seconds], n, note="(the generator, not an import)")

    graph = work / "graph.sqlite3"
    runs = []
    for _ in range(repeat):
        kg = kgtoolkit.open(fresh(graph))
        try:
            seconds, (report, _) = timed(lambda: import_facts(kg, frame))
        finally:
            kg.close()
        assert report.inserted == n and report.rejected == 0, report
        runs.append(seconds)
    record("import_empty", runs, n, "floor", note=f"{report.entities_created:,} entities created")

    runs = []
    with kgtoolkit.open(graph) as kg:
        for _ in range(repeat):
            seconds, (report, _) = timed(lambda: import_facts(kg, frame))
            assert report.inserted == 0 and report.duplicates == n, report
            runs.append(seconds)
    record("import_again", runs, n, "floor", note="every row a duplicate")

    entities, fact_rows = floor_rows(graph)
    target = work / "floor.sqlite3"
    for rebuild, name, note in (
        (False, "floor_indexed", "indexes maintained while inserting"),
        (True, "floor_rebuilt", "indexes dropped, rebuilt before commit"),
    ):
        record(name, [floor_insert(target, entities, fact_rows, rebuild=rebuild) for _ in range(repeat)], n, note=note)
    floor = min(("floor_indexed", "floor_rebuilt"), key=lambda k: results[k]["median_s"])
    del entities, fact_rows
    fresh(target)

    # A small import into the big graph, against adding the same facts one by one with kg.add.
    small = generate(args.small, seed=args.seed + 1)
    copy = work / "small.sqlite3"
    for name, note in (
        ("import_small", f"{args.small:,} facts into the {n:,}-fact graph"),
        ("add_loop", f"kg.add of the same {args.small:,} facts, one by one"),
    ):
        runs = []
        for _ in range(repeat):
            shutil.copyfile(graph, fresh(copy))
            with kgtoolkit.open(copy) as kg:
                if name == "import_small":
                    seconds, _ = timed(lambda: import_facts(kg, small))
                else:
                    seconds, _ = timed(
                        lambda: [
                            kg.add(s, p, o, valid_from=f, valid_to=t, source=src)
                            for s, p, o, f, t, src in small.iter_rows()
                        ]
                    )
            runs.append(seconds)
        record(name, runs, args.small, "add_loop" if name == "import_small" else None, note=note)
    fresh(copy)

    plain = sqlite3.connect(f"file:{graph}?mode=ro", uri=True)
    try:
        with kgtoolkit.open(graph, read_only=True) as kg:
            runs = []
            for _ in range(repeat):
                seconds, df = timed(lambda: frames.facts(kg))
                runs.append(seconds)
            assert df.height == n
            record("frames_facts", runs, n, "read_database")
            runs = []
            for _ in range(repeat):
                seconds, table = timed(lambda: read_table(kg, "facts"))
                runs.append(seconds)
            assert table.num_rows == n
            record("read_table", runs, n, "read_database_raw", note="ADBC into Arrow, facts table only")
        for name, sql, note in (
            ("read_database", JOINED, "plain sqlite3, one joined SELECT"),
            ("read_database_raw", RAW, "plain sqlite3, read_table's SELECT"),
        ):
            overrides = schema_overrides(sql)
            runs = []
            for _ in range(repeat):
                seconds, df = timed(
                    lambda: pl.read_database(sql, plain, schema_overrides=overrides, infer_schema_length=None)
                )
                runs.append(seconds)
            assert df.height == n
            record(name, runs, n, note=note)
    finally:
        plain.close()

    cli_note = ""
    if not args.no_cli:
        exe, cli_note = cli_available()
        if exe is not None:
            source = work / "facts.tsv"
            write_generated(source, n, seed=args.seed)
            runs = []
            for _ in range(repeat):
                cmd = [exe, "--db", str(fresh(work / "cli.sqlite3")), "import", str(source), "--json"]
                seconds, done = timed(lambda: subprocess.run(cmd, capture_output=True, text=True))
                if done.returncode != 0:
                    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                    cli_note = f"`kgtoolkit import` failed (exit {done.returncode}): {tail[0]}"
                    break
                runs.append(seconds)
            if runs:
                record("cli_import", runs, n, "floor", note="whole process: startup, TSV read, import")
            fresh(work / "cli.sqlite3")
            source.unlink(missing_ok=True)
        if cli_note:
            print(f"  cli_import         skipped: {cli_note}")

    print(f"\nratios (ours / baseline; baseline floor = {floor}):")
    for name, row in results.items():
        base = floor if row["baseline"] == "floor" else row["baseline"]
        if base:
            row["baseline"] = base
            row["ratio"] = round(row["median_s"] / results[base]["median_s"], 2)
            print(f"  {name:<18} {row['ratio']:6.2f}x {base}")

    out = {
        "facts": n,
        "repeat": repeat,
        "seed": args.seed,
        "machine": info,
        "floor": floor,
        "results": results,
        "cli_skipped": cli_note or None,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        print(f"results written to {args.json}")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return out


if __name__ == "__main__":
    main()

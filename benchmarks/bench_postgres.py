"""kgtoolkit on PostgreSQL, each figure beside its floor measured in the same run.

    python benchmarks/bench_postgres.py                 # 1,000,000 facts, 3 runs each
    python benchmarks/bench_postgres.py --quick         # 100,000 facts, 2 runs
    python benchmarks/bench_postgres.py --facts 250000 --json out.json

A throwaway server is started from the system's binaries (tests/support/postgres_server.py: fsync off, on
127.0.0.1) unless ``--url`` names one; each graph is a fresh schema. What runs:

* ``import``        ``import_facts`` of the generated frame into an empty graph, against the floor: a plain
                    ``COPY`` (psycopg, one transaction) of the *finished* rows that import wrote (entities and
                    facts, read back beforehand) into another empty graph's tables, with the same indexes and
                    foreign keys. Target: import ≥ 0.5× the floor's rate.
* ``import_again``  the same frame into the graph that holds it (every row a duplicate).
* ``query``         p50/p95 of ``kg.query(name)`` over random entities, against the raw indexed SELECT returning
                    the same rows (names joined, the entity id known) on a plain psycopg connection. Target: ≤ 2×.
* ``frames``        ``frames.facts(kg)`` (names and types joined, times typed) against an ADBC read of the facts
                    table alone. Target: ≤ 1.5×.
* ``writers``       facts/s of 1 and of 8 processes adding distinct facts one by one (each ``add`` its own
                    transaction) into one graph: the team case.

Times are wall-clock medians; never used as a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import polars as pl
import psycopg

import kgtoolkit
from kgtoolkit import frames
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts, read_table
from kgtoolkit.store.engine._schema import FACT_COLUMNS, FACT_FROM, FACT_READ


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def new_schema(base: str) -> str:
    import secrets

    name = f"b{secrets.token_hex(5)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{name}"


def copy_floor(url: str, entities: pl.DataFrame, facts: pl.DataFrame) -> float:
    kgtoolkit.open(url).close()  # the schema, as kgtoolkit makes it
    with psycopg.connect(url, autocommit=True) as conn:
        start = time.perf_counter()
        with conn.transaction(), conn.cursor() as cur:
            for table, frame in (("entities", entities), ("facts", facts)):
                with cur.copy(f"COPY {table} ({', '.join(frame.columns)}) FROM STDIN") as copy:
                    for row in frame.iter_rows():
                        copy.write_row(row)
        return time.perf_counter() - start


_WRITER = textwrap.dedent("""
    import sys, time, kgtoolkit
    url, worker, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with kgtoolkit.open(url, timeout=120) as kg:
        kg.stats()
        start = time.perf_counter()
        for i in range(n):
            kg.add(f"service {worker}-{i % 50}", "calls", f"endpoint {i}", valid_from="2026-01-01")
        print(time.perf_counter() - start)
""")


def writers(base: str, processes: int, each: int) -> float:
    url = new_schema(base)
    kgtoolkit.open(url).close()
    start = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, url, str(w), str(each)], stdout=subprocess.PIPE, text=True)
        for w in range(processes)
    ]
    for proc in procs:
        proc.communicate()
    return processes * each / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 facts, 2 runs")
    parser.add_argument("--facts", type=int)
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--url", help="a PostgreSQL database to use (default: a throwaway server)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    n = args.facts or (100_000 if args.quick else 1_000_000)
    repeat = args.repeat or (2 if args.quick else 3)
    server = None
    if args.url is None:
        import postgres_server

        server = postgres_server.start()
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        base = server.url_for("bench")
    else:
        base = args.url
    out: dict[str, Any] = {"facts": n, "repeat": repeat}
    try:
        frame = generate(n, seed=7)
        imports, agains, floors = [], [], []
        for _ in range(repeat):
            url = new_schema(base)
            with kgtoolkit.open(url) as kg:
                took, _report = timed(lambda: import_facts(kg, frame))
                imports.append(took)
                agains.append(timed(lambda: import_facts(kg, frame))[0])
                entities = pl.from_arrow(read_table(kg, "entities"))
                facts = pl.from_arrow(read_table(kg, "facts")).select(list(FACT_COLUMNS[1:]))
            floors.append(copy_floor(new_schema(base), entities, facts))
        out["import"] = {
            "seconds": statistics.median(imports),
            "rate": n / statistics.median(imports),
            "floor_seconds": statistics.median(floors),
            "floor_rate": n / statistics.median(floors),
            "ratio": statistics.median(floors) / statistics.median(imports),
        }
        out["import_again"] = {"seconds": statistics.median(agains), "rate": n / statistics.median(agains)}

        with kgtoolkit.open(url) as kg, psycopg.connect(url, autocommit=True) as raw:
            names = [e.id for e in kg.entities(limit=args.samples, offset=1000)]
            sql = (
                f"SELECT {FACT_READ} FROM {FACT_FROM} WHERE f.subject = %(e)s UNION ALL SELECT {FACT_READ} FROM "
                f"{FACT_FROM} WHERE f.object_id = %(e)s AND f.subject <> %(e)s"
            )
            ours_p50, raw_p50 = [], []
            for _ in range(repeat):
                ours, theirs = [], []
                for name in names:
                    ours.append(timed(lambda: kg.query(name))[0])
                    theirs.append(timed(lambda: raw.execute(sql, {"e": name}).fetchall())[0])
                ours_p50.append(statistics.median(ours))
                raw_p50.append(statistics.median(theirs))
            out["query"] = {
                "p50_us": statistics.median(ours_p50) * 1e6,
                "raw_p50_us": statistics.median(raw_p50) * 1e6,
                "ratio": statistics.median(ours_p50) / statistics.median(raw_p50),
            }

            import adbc_driver_manager
            import adbc_driver_postgresql
            import pyarrow as pa

            def adbc_read() -> pa.Table:
                database = adbc_driver_postgresql.connect(url)
                conn = adbc_driver_manager.AdbcConnection(database)
                stmt = adbc_driver_manager.AdbcStatement(conn)
                stmt.set_sql_query("SELECT * FROM facts")
                handle, _ = stmt.execute_query()
                table = pa.RecordBatchReader._import_from_c(handle.address).read_all()
                stmt.close()
                conn.close()
                database.close()
                return table

            frame_times = [timed(lambda: frames.facts(kg))[0] for _ in range(repeat)]
            adbc_times = [timed(adbc_read)[0] for _ in range(repeat)]
            out["frames"] = {
                "seconds": statistics.median(frame_times),
                "adbc_seconds": statistics.median(adbc_times),
                "ratio": statistics.median(frame_times) / statistics.median(adbc_times),
            }
        each = 300 if args.quick else 1000
        out["writers"] = {"one": writers(base, 1, each * 2), "eight": writers(base, 8, each)}
    finally:
        if server is not None:
            server.stop()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()

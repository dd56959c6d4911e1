"""Benchmarks at scale (issue 32): 10M facts on SQLite and PostgreSQL, each call beside its floors in the same run.

    python benchmarks/bench_scale.py                                        # 10,000,000 facts, both engines
    python benchmarks/bench_scale.py --facts 100000 --backend both          # the quick check
    python benchmarks/bench_scale.py --facts 30000000 --backend postgresql --workdir /big --keep
    python benchmarks/bench_scale.py --workdir /big --keep --only churn,events --repeat 3 --readme
    python benchmarks/bench_scale.py --facts 3000000 --skew --only conflict_page --workdir /big --keep   # issue 43

The source is ``kgtoolkit.generate`` (``--seed``, over ten years from 2018-01-01, so its last year is still to
come and planned switches are judged), a fifth of the rows turned into events (predicate ``criticize``, declared
an event predicate of the graph, as bench_aggregates.py does), written once to a Parquet file by a child process.
``generate`` builds its whole frame at once (about 0.55 GB of peak RSS per million facts: 0.9 GB at 1M, 2.0 GB at
3M, so about 6 GB at 10M); above ``--chunk-facts`` facts (10M by default) the source is written part by part, each
part ``generate`` of its own seed with its entity names prefixed ``partK ``: disjoint sub-graphs, so a 30M source
needs the memory of one 10M part.

Every figure is one fresh Python process (never this one, whose memory would be inherited through fork), run by a
small middle process that times its wall clock and reads its ``ru_maxrss``; a process that runs a call times the
call alone (after its imports and its connection) and reports its own peak RSS (``VmHWM``) and its reader
process's (a big SQLite read runs ADBC in a reader process). Each row:

* ``import``     the whole ``kgtoolkit --db GRAPH import facts.parquet --json`` process (wall, peak RSS), beside a
                 floor process: on SQLite plain ``sqlite3`` ``executemany`` of the Parquet's rows (read in batches
                 of 100,000) into a six-column text table, then as many indexes as kgtoolkit's facts table (9, as
                 bench_speed.py), one transaction, WAL and ``synchronous=NORMAL``; on PostgreSQL a plain ``COPY``
                 (CSV written by pyarrow per batch) into the same table, indexes built after, one transaction.
* ``churn``      ``analysis.churn(kg, every="1mo")``; floor: one GROUP BY of every start and end on its UTC day
                 (starts of events apart), plain SQL on ``facts``; polars: the same counts per month.
* ``events``     ``analysis.events(kg, every="1mo")``; floor: the events (the event predicate, or a fact of one day)
                 with a start, grouped by day; polars: the same per month.
* ``conflicts``  ``kg.conflicts(limit=20)``; floor: the (subject, predicate) groups of more than one distinct
                 object (multi-valued predicates and events left out), those with two open facts first, counted,
                 cut to 20 and their facts read with names (no planned-switch judgement); polars: the same groups.
* ``conflict_page`` ``kg.conflicts(limit=10)`` (issue 43: each group its current and scheduled facts and its
                 last 20 ended ones), its check the facts the page carries, and (``judge_s``) the judgement alone
                 (``conflicts_needing_action``) timed after it; floor: the ``conflicts`` floor cut to 10 groups (every
                 fact of those read); targets ≤ 2 s and ≤ 300 MB. With ``--skew`` (a fifth of the facts in 30 pairs of
                 Zipf-sized histories, each ending with two open facts: the first page holds the ten largest) it
                 measures a page whatever the data's shape.
* ``diff``       ``kg.diff("2022-06", "2022-06", limit=100)``; floor: the facts that began or ended in the month
                 (an event once, at its start), counted, the first 100 by date read with names (no pairing into
                 replacements); polars: the same.
* ``stats``      ``kg.stats()``; floor: the same counts (entities per type, facts, open, ended, values,
                 predicates, events, aliases, memories) in plain SQL; polars: those the source holds.
* ``stream``     ``frames.stream(kg, batch_size=B)``, every batch read and dropped; floor: an ADBC record-batch
                 read of ``SELECT * FROM facts`` (no names resolved), every batch dropped; polars:
                 ``scan_parquet(...).collect_batches()``.
* ``export``     ``io.export_partitioned(kg, DIR, by="month", batch_size=B)``; floor: the same ADBC read with the
                 month in SQL, written by ``pyarrow.dataset.write_dataset`` as Hive partitions; polars:
                 ``sink_parquet(pl.PartitionBy(DIR, key="month"))`` from the source.

A floor answers the same question without kgtoolkit's rules (current = open end, not "valid now"; no replacements,
no renewals, no planned switches): what the engine's plain grouping costs. (Since issue 43, churn and diff read
renewals: churn looks one index range up per ended state fact, diff pairs them among the facts changed near its
month.) Every floor (and polars) tells events from states by
the contract's rule as a plain user writes it, the event predicate or ``valid_from = valid_to`` (and, in SQL,
``invalidated_at = recorded_at``: written so; the source Parquet's rows are all written whole) (before stop 42
churn, conflicts, diff and stats tested the predicate alone, and diff counted an event's end too).

Targets (issue 32): every analysis call (churn, events, conflicts, diff, stats) ≤ 2× its plain-SQL floor and
≤ 600 MB peak (its process and its reader process together); streaming (``stream``, ``export``) ≤ 600 MB; the
import's row shows issue 33's target (≥ 0.5× the floor's rate, i.e. ≤ 2× its time; issue 14 asked 0.6×) and its
peak RSS beside issue 33's 1.5 GB. Peak RSS on PostgreSQL is the client's: the server's memory is not counted.

``--repeat R`` runs each process R times: the median time and the largest peak are shown. ``--keep`` keeps the
source Parquet and the graphs in ``--workdir`` (the PostgreSQL server's data folder too, stopped cleanly) and a
later run with the same ``--facts``/``--seed`` reuses them instead of importing again (its table shows the import
measured when they were built). Wall-clock on a shared machine, never a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
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
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from bench_speed import FLOOR_INDEXES
from readme_block import write_block

import kgtoolkit
from kgtoolkit._time import OPEN_END, OPEN_START, parse_window

README = HERE / "README.md"
OPERATIONS = ("import", "churn", "events", "conflicts", "conflict_page", "diff", "stats", "stream", "export")
ANALYSES = ("churn", "events", "conflicts", "diff", "stats")
STREAMING = ("stream", "export")
EVENT = "criticize"  # a fifth of the source's rows: an event predicate of the graph
START, DAYS = "2018-01-01", 3650  # ten years, the last one still to come (planned switches)
MONTH = "2022-06"  # the month of the diff
TARGET_RATIO, TARGET_MB = 2.0, 600.0
PAGE_S, PAGE_MB = 2.0, 300.0  # issue 43: a page of 10 conflict groups, whatever the data's shape
SKEW_PAIRS, SKEW_SHARE, SKEW_PREDICATE = 30, 0.2, "skew_holds"  # --skew: a fifth of the facts in 30 histories
IMPORT_RATE = 0.5  # issue 33: import ≥ 0.5× the floor's rate (issue 14 asked 0.6×)
DAY_US = 86_400_000_000
SOURCE_COLUMNS = ("subject", "predicate", "object", "valid_from", "valid_to", "source")
PG_USER = "kgbench"
MB = 1024.0
PAGE = {"conflicts": 20, "conflict_page": 10}  # groups per page


def say(text: str) -> None:
    print(text, flush=True)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def env() -> dict[str, str]:
    """The children import the kgtoolkit this file sits beside (a worktree), not another checkout."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def kgtoolkit_exe() -> str:
    script = Path(sys.executable).with_name("kgtoolkit")
    return str(script) if script.exists() else shutil.which("kgtoolkit") or "kgtoolkit"


# ---------------------------------------------------------------------- the processes

# The middle process: runs one command, and prints its wall time, its ru_maxrss (the largest of its processes:
# Linux carries a parent's peak into a child through fork, so the command is never a direct child of this large
# process) and what it printed (its end).
_MIDDLE = textwrap.dedent("""
    import json, resource, subprocess, sys, time
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stdout[-3000:] + done.stderr[-3000:])
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall": wall, "maxrss_kb": usage.ru_maxrss, "out": done.stdout.strip()[-20000:]}))
""")

# What every measuring child starts with: its arguments (one JSON), a peak reader and the mapped graph's share.
_PRELUDE = textwrap.dedent("""
    import json, sys, time
    def peak_kb(pid="self"):
        try:
            with open(f"/proc/{pid}/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        except (OSError, StopIteration):
            return 0
    def file_kb(path):  # the graph file's pages mapped now (SQLite maps up to 256 MB of it): counted in RSS too
        total, inside = 0, False
        try:
            with open("/proc/self/smaps") as smaps:
                for line in smaps:
                    head = line.split()
                    if head and "-" in head[0] and not head[0].endswith(":"):  # a mapping's first line
                        inside = len(head) >= 6 and head[5] == path
                    elif inside and head[0] == "Rss:":
                        total += int(head[1])
        except OSError:
            return 0
        return total
    a = json.loads(sys.argv[1])
""")

_GENERATE = _PRELUDE + textwrap.dedent("""
    import polars as pl, pyarrow as pa, pyarrow.parquet as pq
    from kgtoolkit.generate import generate
    n, chunk, columns = a["facts"], a["chunk"], a["columns"]
    schema = pa.schema([(c, pa.string()) for c in columns])
    start, done, part, writer = time.perf_counter(), 0, 0, None
    parts = max(1, -(-n // chunk))
    while done < n:
        size = min(chunk, n - done)
        frame = generate(size, seed=a["seed"] + part, start=a["start"], days=a["days"]).select(columns)
        if parts > 1:  # disjoint sub-graphs: each part's entities named apart
            frame = frame.with_columns((f"part{part} " + pl.col(c)).alias(c) for c in ("subject", "object"))
        index = pl.int_range(done, done + size, eager=True)
        frame = frame.with_columns(pl.when(index % 5 == 0).then(pl.lit(a["event"])).otherwise(pl.col("predicate")).alias("predicate"))
        table = frame.to_arrow().cast(schema)
        if writer is None:
            writer = pq.ParquetWriter(a["path"], schema, compression="zstd")
        writer.write_table(table, row_group_size=500_000)
        done, part = done + size, part + 1
        del frame, table, index
    skew = a["skew"]
    if skew:  # a few (subject, predicate) pairs with huge histories (Zipf sizes), each ending with two open facts
        pairs, sizes = skew["pairs"], skew["sizes"]
        rows = sum(sizes)
        pair = pl.Series([k for k, size in enumerate(sizes) for _ in range(size)])
        step = pl.concat([pl.int_range(0, size, eager=True) for size in sizes])
        hour = pl.datetime(2000, 1, 1, time_zone="UTC") + pl.duration(hours=pl.col("step"))
        iso = "%Y-%m-%dT%H:%M:%SZ"
        last = pl.col("step") >= pl.col("size") - 2  # the two last facts of a pair: both open (needs action)
        frame = (
            pl.DataFrame({"pair": pair, "step": step})
            .with_columns(pl.col("pair").replace_strict(list(range(pairs)), sizes).alias("size"))
            .select(
                pl.format("0 skew holder {}", pl.col("pair").cast(pl.String).str.zfill(3)).alias("subject"),
                pl.lit(skew["predicate"]).alias("predicate"),
                pl.format("skew object {}", (pl.col("step") % 7).cast(pl.String)).alias("object"),
                hour.dt.strftime(iso).alias("valid_from"),
                pl.when(last).then(None).otherwise((hour + pl.duration(hours=1)).dt.strftime(iso)).alias("valid_to"),
                pl.lit("skew").alias("source"),
            )
        )
        writer.write_table(frame.select(columns).to_arrow().cast(schema), row_group_size=500_000)
        done += rows
    writer.close()
    print(json.dumps({"s": time.perf_counter() - start, "peak_kb": peak_kb(), "parts": parts, "rows": done}))
""")

# One kgtoolkit call on the graph.
_KGTOOLKIT = _PRELUDE + textwrap.dedent("""
    import kgtoolkit
    from kgtoolkit import analysis, frames, io
    op, batch = a["op"], a["batch"]
    kg = kgtoolkit.open(a["db"], read_only=True)
    start, cpu, extra = time.perf_counter(), time.process_time(), {}
    if op == "churn":
        out = analysis.churn(kg, every="1mo")
        check = int(out["added"].sum() + out["ended"].sum() + out["events"].sum())
    elif op == "events":
        check = int(analysis.events(kg, every="1mo")["events"].sum())
    elif op == "conflicts":
        check = kg.conflicts(limit=20).total
    elif op == "conflict_page":
        page = kg.conflicts(limit=10)
        check = sum(len(g.facts) for g in page.items)
        extra = {"took": time.perf_counter() - start, "cpu": time.process_time() - cpu, "peak": peak_kb()}
        judged = time.perf_counter()  # the count of groups needing action, afterwards
        kg.conflicts_needing_action()
        extra["judge_s"] = time.perf_counter() - judged
        # before (issue 43's last stop): every group judged in SQL at the read, the kept judgement set aside
        from kgtoolkit.store.ops import _conflicts
        _conflicts.kept_page = lambda *args, **kwargs: None
        live, live_cpu = time.perf_counter(), time.process_time()
        whole = kg.conflicts(limit=10)
        extra["live_s"], extra["live_cpu_s"] = time.perf_counter() - live, time.process_time() - live_cpu
        extra["live_peak_kb"] = peak_kb()
        assert (list(whole.items), whole.total) == (list(page.items), page.total), "the same page both ways"
    elif op == "diff":
        check = kg.diff(a["month"], a["month"], limit=100).total
    elif op == "stats":
        check = kg.stats().facts
    elif op == "stream":
        check = sum(b.height for b in frames.stream(kg, batch_size=batch))
    elif op == "export":
        check = io.export_partitioned(kg, a["folder"], by="month", batch_size=batch)
    took, cpu = extra.pop("took", time.perf_counter() - start), extra.pop("cpu", time.process_time() - cpu)
    peak = extra.pop("peak", None) or peak_kb()
    from kgtoolkit.store.engine._arrow_read import _READER
    reader = _READER._proc.pid if _READER._proc is not None else None
    print(json.dumps({"s": took, "cpu_s": cpu, "peak_kb": peak, "reader_kb": peak_kb(reader) if reader else 0, "file_kb": file_kb(a["db"]), "check": check, **extra}))
    _READER.stop()
""")

# The plain-SQL floor of one call, through the plain driver (sqlite3 or psycopg; ADBC for the whole-table reads).
_FLOOR = _PRELUDE + textwrap.dedent("""
    op, engine, batch = a["op"], a["engine"], a["batch"]
    if op in ("stream", "export"):
        if engine == "sqlite":
            import adbc_driver_sqlite.dbapi as adbc
            conn = adbc.connect(a["db"])
        else:
            import adbc_driver_postgresql.dbapi as adbc
            conn = adbc.connect(a["db"])
        cur = conn.cursor()
        if engine == "sqlite":
            cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(batch)})
        start = time.perf_counter()
        if op == "stream":
            cur.execute("SELECT * FROM facts")
            check = sum(b.num_rows for b in cur.fetch_record_batch())
        else:
            import pyarrow.dataset as ds
            cur.execute("SELECT *, COALESCE(substr(valid_from, 1, 7), '__HIVE_DEFAULT_PARTITION__') AS month FROM facts")
            reader = cur.fetch_record_batch()
            ds.write_dataset(reader, a["folder"], format="parquet", partitioning=["month"], partitioning_flavor="hive")
            check = sum(f.count_rows() for f in ds.dataset(a["folder"], format="parquet", partitioning="hive").get_fragments())
        took = time.perf_counter() - start
        cur.close()
        conn.close()
    else:
        if engine == "sqlite":
            import sqlite3
            conn = sqlite3.connect(f"file:{a['db']}?mode=ro", uri=True)
        else:
            import psycopg
            conn = psycopg.connect(a["db"], autocommit=True)
        start = time.perf_counter()
        results = [conn.execute(sql).fetchall() for sql in a["sql"]]
        took = time.perf_counter() - start
        first = results[0]
        if op in ("churn", "events"):
            check = sum(row[-1] for row in first)
        elif op in ("conflicts", "diff"):
            check = first[0][0] if first else 0
        elif op == "conflict_page":
            check = len(first)
        else:
            check = results[1][0][0]
        conn.close()
    print(json.dumps({"s": took, "peak_kb": peak_kb(), "reader_kb": 0, "check": check}))
""")

# The same aggregation with polars on the source Parquet.
_POLARS = _PRELUDE + textwrap.dedent("""
    import polars as pl
    op, batch, event = a["op"], a["batch"], a["event"]
    lf = pl.scan_parquet(a["source"])
    ev = (pl.col("predicate") == event) | (pl.col("valid_from") == pl.col("valid_to")).fill_null(False)  # §12
    def month(column):
        return pl.col(column).str.slice(0, 7)
    start = time.perf_counter()
    if op == "churn":
        parts = pl.collect_all([
            lf.filter(~ev & pl.col("valid_from").is_not_null()).group_by(month("valid_from").alias("m")).agg(pl.len()),
            lf.filter(~ev & pl.col("valid_to").is_not_null()).group_by(month("valid_to").alias("m")).agg(pl.len()),
            lf.filter(ev).group_by(pl.coalesce("valid_from", "valid_to").str.slice(0, 7).alias("m")).agg(pl.len()),
        ])
        check = sum(int(p["len"].sum()) for p in parts)
    elif op == "events":
        out = lf.filter(ev & pl.col("valid_from").is_not_null()).group_by(month("valid_from")).agg(pl.len()).collect()
        check = int(out["len"].sum())
    elif op in ("conflicts", "conflict_page"):
        groups = (
            lf.filter(~pl.col("predicate").is_in(a["multi_valued"]) & ~ev)
            .group_by("subject", "predicate")
            .agg(pl.col("object").n_unique().alias("objects"), pl.col("valid_to").is_null().sum().alias("open"))
            .filter(pl.col("objects") > 1)
            .collect()
        )
        page = groups.sort(pl.col("open") > 1, "subject", "predicate", descending=[True, False, False]).head(a["page"])
        facts = lf.join(page.lazy().select("subject", "predicate"), on=["subject", "predicate"], how="semi").collect()
        check = groups.height if op == "conflicts" else facts.height
    elif op == "diff":
        lo, hi = pl.lit(a["month"] + "-01"), pl.lit(a["month"] + "-31")
        changes = pl.concat([
            lf.filter(pl.col("valid_from").is_between(lo, hi)).with_columns(pl.col("valid_from").alias("at")),
            lf.filter(pl.col("valid_to").is_between(lo, hi) & ~(ev & pl.col("valid_from").is_not_null())).with_columns(
                pl.col("valid_to").alias("at")
            ),
        ])
        total, page = pl.collect_all([changes.select(pl.len()), changes.sort("at", "subject").head(100)])
        check = int(total.item())
    elif op == "stats":
        counts = lf.select(
            pl.len().alias("facts"),
            (pl.col("valid_to").is_null() & ~ev).sum().alias("open"),
            (pl.col("valid_to").is_not_null() & ~ev).sum().alias("ended"),
            pl.col("predicate").is_in(a["value_predicates"]).sum().alias("values"),
            pl.col("predicate").n_unique().alias("predicates"),
            ev.sum().alias("events"),
        )
        entities = pl.concat([
            lf.select(pl.col("subject").alias("e")),
            lf.filter(~pl.col("predicate").is_in(a["value_predicates"])).select(pl.col("object").alias("e")),
        ]).select(pl.col("e").n_unique())
        counts, entities = pl.collect_all([counts, entities])
        check = int(counts.item(0, 0))
    elif op == "stream":
        check = sum(b.height for b in lf.collect_batches(chunk_size=batch))
    elif op == "export":
        lf.with_columns(pl.coalesce(month("valid_from"), pl.lit("__HIVE_DEFAULT_PARTITION__")).alias("month")).sink_parquet(
            pl.PartitionBy(a["folder"], key="month", include_key=False), mkdir=True
        )
        check = pl.scan_parquet(a["folder"] + "/**/*.parquet").select(pl.len()).collect().item()
    took = time.perf_counter() - start
    print(json.dumps({"s": took, "peak_kb": peak_kb(), "reader_kb": 0, "check": check}))
""")

# The import's floor: the source's rows into a plain table with as many indexes, one transaction.
_IMPORT_FLOOR = _PRELUDE + textwrap.dedent("""
    import pyarrow.parquet as pq
    columns, indexes = a["columns"], a["indexes"]
    table = "CREATE TABLE t(" + ", ".join(f"{c} TEXT" + (" NOT NULL" if c in ("subject", "predicate", "object") else "") for c in columns) + ")"
    batches = pq.ParquetFile(a["source"]).iter_batches(batch_size=100_000, columns=columns)
    if a["engine"] == "sqlite":
        import sqlite3
        conn = sqlite3.connect(a["db"], isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(table)
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        insert = f"INSERT INTO t VALUES ({', '.join('?' for _ in columns)})"
        for b in batches:
            conn.executemany(insert, zip(*(b.column(i).to_pylist() for i in range(len(columns)))))
        for statement in indexes:
            conn.execute(statement)
        conn.execute("COMMIT")
        took = time.perf_counter() - start
        rows = conn.execute("SELECT count(*) FROM t").fetchone()[0]
        conn.close()
    else:
        import io as _io
        import psycopg
        import pyarrow as pa
        import pyarrow.csv as pacsv
        options = pacsv.WriteOptions(include_header=False)
        with psycopg.connect(a["db"], autocommit=True) as conn:
            conn.execute(table)
            start = time.perf_counter()
            with conn.transaction(), conn.cursor() as cur:
                with cur.copy(f"COPY t ({', '.join(columns)}) FROM STDIN (FORMAT csv)") as copy:
                    for b in batches:
                        text = _io.BytesIO()
                        pacsv.write_csv(pa.Table.from_batches([b]), text, options)
                        copy.write(text.getvalue())
                for statement in indexes:
                    cur.execute(statement)
            took = time.perf_counter() - start
            rows = conn.execute("SELECT count(*) FROM t").fetchone()[0]
    print(json.dumps({"s": took, "peak_kb": peak_kb(), "rows": rows}))
""")


def run(argv: list[str]) -> dict[str, Any]:
    """``argv`` under the middle process: its wall time, the peak of its processes (kB) and what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", _MIDDLE, *argv], capture_output=True, text=True, env=env(), check=False
    )
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)[:300]} … failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def child(code: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One measuring child (``code`` with ``arguments``): what it printed, with the middle process's wall time."""
    outer = run([sys.executable, "-c", code, json.dumps(arguments)])
    inner: dict[str, Any] = json.loads(outer["out"].splitlines()[-1])
    inner["wall"] = outer["wall"]
    return inner


def empty(path: Path) -> Path:
    """``path`` removed (a file, a folder, a SQLite file's companions)."""
    if path.is_dir():
        shutil.rmtree(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


# ---------------------------------------------------------------------- a PostgreSQL server of our own


class PgServer:
    """A PostgreSQL server whose data folder is ``folder`` (reused when it holds one), started from the system's
    binaries as tests/support/postgres_server.py does (as ``postgres`` through runuser when root; fsync off; 127.0.0.1;
    trust authentication: a benchmark's throwaway cluster)."""

    def __init__(self, folder: Path) -> None:
        import postgres_server  # type: ignore[import-untyped]

        bindir = postgres_server.find_bindir()
        if bindir is None:
            raise FileNotFoundError(postgres_server.INSTALL_HINT)
        self.bindir = bindir
        self.folder = folder
        self.run_as: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                raise FileNotFoundError("running as root and runuser is missing: cannot start PostgreSQL as postgres")
            self.run_as = [runuser, "-u", "postgres", "--"]
        data = folder / "data"
        if not (data / "PG_VERSION").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            if self.run_as:
                shutil.chown(folder, user="postgres")
                for parent in folder.parents:  # the server's user must reach its folder
                    if parent.stat().st_uid == os.geteuid() and not parent.stat().st_mode & 0o001:
                        parent.chmod(parent.stat().st_mode | 0o011)
            folder.chmod(0o700)
            self._pg("initdb", "-D", str(data), "-U", PG_USER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={folder} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50 "
            "-c shared_buffers=256MB -c max_wal_size=4GB"
        )
        self._pg("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "-t", "120", "start")
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'bench'").fetchone():
                conn.execute("CREATE DATABASE bench")

    def _pg(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [*self.run_as, str(self.bindir / program), *args], capture_output=True, text=True, check=False
        )
        if done.returncode:
            raise RuntimeError(f"{program} failed: {done.stderr.strip() or done.stdout.strip()}")

    def url(self, database: str = "bench", schema: str | None = None) -> str:
        base = f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{database}"
        return base if schema is None else f"{base}?options=-csearch_path%3D{schema}"

    def schema(self, name: str, *, fresh: bool) -> str:
        """The URL of schema ``name`` of the ``bench`` database, created (emptied first when ``fresh``)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            if fresh:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
        return self.url(schema=name)

    def has_graph(self, name: str) -> bool:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            found = conn.execute(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = 'facts'", (name,)
            ).fetchone()
        return found is not None

    def drop(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")

    def stop(self, *, remove: bool) -> None:
        """A clean stop (the data folder stays usable), then the folder removed unless kept."""
        self._pg("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        if remove:
            shutil.rmtree(self.folder, ignore_errors=True)


# ---------------------------------------------------------------------- the parts


class Run:
    """One run's settings and files."""

    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.tag = f"{args.facts}-seed{args.seed}" + ("-skew" if args.skew else "")
        self.skew = skew_sizes(args.facts) if args.skew else []
        self.source = work / f"facts-{self.tag}.parquet"
        self.marker = work / f"scale-{self.tag}.json"
        self.built: dict[str, Any] = json.loads(self.marker.read_text()) if self.marker.exists() else {}
        self.out = work / "out"
        lo_hi = parse_window(MONTH, field="month")
        self.month_lo, self.month_hi = lo_hi.lo, lo_hi.hi
        with kgtoolkit.open(":memory:") as kg:
            self.multi_valued = sorted(kg.config.multi_valued)
            self.value_predicates = sorted(kg.config.value_predicates)

    def save(self) -> None:
        self.marker.write_text(json.dumps(self.built, indent=1) + "\n")

    def repeat(self, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``fn`` ``--repeat`` times (fresh processes): the median time, the largest peaks, every run."""
        runs = [fn() for _ in range(self.args.repeat)]
        return {
            "s": statistics.median(r["s"] for r in runs),
            "wall": statistics.median(r["wall"] for r in runs),
            "peak_mb": max(r["peak_kb"] for r in runs) / MB,
            "reader_mb": max(r.get("reader_kb", 0) for r in runs) / MB,
            "file_mb": max(r.get("file_kb", 0) for r in runs) / MB,
            "check": runs[0].get("check"),
            "runs": runs,
        }


def skew_sizes(facts: int) -> list[int]:
    """The history lengths of ``--skew``'s pairs: a fifth of the facts over :data:`SKEW_PAIRS` pairs, Zipf (the
    k-th pair ``1/k`` of the first's), the largest first."""
    weights = [1 / k for k in range(1, SKEW_PAIRS + 1)]
    return [max(3, round(facts * SKEW_SHARE * w / sum(weights))) for w in weights]


def make_source(r: Run) -> dict[str, Any]:
    """The source Parquet, generated once (reused when ``--keep`` left it)."""
    if r.source.exists() and "source" in r.built:
        say(f"source: {r.source.name} reused ({r.source.stat().st_size / 1e6:,.0f} MB)")
        return dict(r.built["source"], reused=True)
    say(f"source: generating {r.args.facts:,} facts …")
    arguments = {
        "facts": r.args.facts - sum(r.skew),
        "seed": r.args.seed,
        "skew": {"pairs": len(r.skew), "sizes": r.skew, "predicate": SKEW_PREDICATE} if r.skew else None,
        "chunk": r.args.chunk_facts,
        "columns": list(SOURCE_COLUMNS),
        "start": START,
        "days": DAYS,
        "event": EVENT,
        "path": str(empty(r.source)),
    }
    made = child(_GENERATE, arguments)
    made["mb"] = r.source.stat().st_size / 1e6
    made["peak_mb"] = made["peak_kb"] / MB
    say(
        f"  {made['rows']:,} facts in {made['parts']} part(s), {made['s']:.1f} s, generator peak RSS "
        f"{made['peak_mb']:,.0f} MB, {made['mb']:,.0f} MB of Parquet; load {load()}"
    )
    r.built = {"source": made}  # new source: any graph built before is stale
    r.save()
    return made


def import_graph(r: Run, engine: str, server: PgServer | None) -> tuple[str, dict[str, Any]]:
    """The graph of ``engine``: built by the ``kgtoolkit import`` process (``--repeat`` times, each into a fresh
    graph) unless a kept one matches; and the import's floor when ``import`` is asked for."""
    name = f"g{r.args.facts}_s{r.args.seed}" + ("_skew" if r.args.skew else "")
    if engine == "sqlite":
        db = str(r.work / f"graph-{r.tag}.sqlite3")
        present = Path(db).exists()
    else:
        assert server is not None
        db = server.url(schema=name)
        present = server.has_graph(name)
    if present and engine in r.built:
        say(f"  graph reused ({engine}, built {r.built[engine]['when']})")
        return db, dict(r.built[engine], reused=True)

    def fresh_graph() -> None:
        if engine == "sqlite":
            empty(Path(db))
        else:
            assert server is not None
            server.schema(name, fresh=True)
        with kgtoolkit.open(db) as kg:
            kg.configure(event_predicates={EVENT})

    def once() -> dict[str, Any]:
        fresh_graph()
        outer = run([kgtoolkit_exe(), "--db", db, "import", str(r.source), "--json"])
        try:
            report = json.loads(outer["out"])
        except ValueError:
            report = {"printed": outer["out"][-2000:]}
        say(f"    import {outer['wall']:.1f} s, peak {outer['maxrss_kb'] / MB:,.0f} MB; load {load()}")
        return {"s": outer["wall"], "wall": outer["wall"], "peak_kb": outer["maxrss_kb"], "check": report}

    runs = [once() for _ in range(r.args.repeat)]
    ours = {
        "s": statistics.median(x["s"] for x in runs),
        "peak_mb": max(x["peak_kb"] for x in runs) / MB,
        "report": runs[-1]["check"],
        "runs": runs,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    with kgtoolkit.open(db, read_only=True) as kg:
        ours["stored_facts"] = kg.stats().facts
    if engine == "sqlite":
        ours["file_mb"] = sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists()) / 1e6
    if "import" in r.args.parts:
        ours["floor"] = import_floor(r, engine, server)
    r.built[engine] = ours
    r.save()
    return db, ours


def import_floor(r: Run, engine: str, server: PgServer | None) -> dict[str, Any]:
    def once() -> dict[str, Any]:
        if engine == "sqlite":
            target = str(empty(r.work / "floor.sqlite3"))
        else:
            assert server is not None
            target = server.schema("import_floor", fresh=True)
        arguments = {
            "engine": engine,
            "db": target,
            "source": str(r.source),
            "columns": list(SOURCE_COLUMNS),
            "indexes": list(FLOOR_INDEXES),
        }
        outer = run([sys.executable, "-c", _IMPORT_FLOOR, json.dumps(arguments)])
        inner = json.loads(outer["out"].splitlines()[-1])
        if engine == "sqlite":
            empty(Path(target))
        else:
            assert server is not None
            server.drop("import_floor")
        say(f"    floor {outer['wall']:.1f} s (its load {inner['s']:.1f} s), peak {outer['maxrss_kb'] / MB:,.0f} MB")
        return {"s": outer["wall"], "load_s": inner["s"], "peak_kb": outer["maxrss_kb"], "rows": inner["rows"]}

    runs = [once() for _ in range(r.args.repeat)]
    return {
        "s": statistics.median(x["s"] for x in runs),
        "load_s": statistics.median(x["load_s"] for x in runs),
        "peak_mb": max(x["peak_kb"] for x in runs) / MB,
        "runs": runs,
    }


def floor_sql(r: Run, op: str) -> list[str]:
    """The plain SQL of ``op``'s floor (the same on both engines)."""
    # The contract's event rule (§12) as a plain user writes it: the declared predicate, or a fact written with one
    # day as both bounds (its end recorded with it).
    events = (
        f"(predicate = '{EVENT}' OR (valid_from IS NOT NULL AND valid_to IS NOT NULL AND valid_from = valid_to "
        "AND invalidated_at = recorded_at))"
    )
    if op == "churn":
        return [
            f"SELECT k, d, count(*) FROM (SELECT CASE WHEN {events} THEN 2 ELSE 0 END AS k, from_us / {DAY_US} AS d "
            f"FROM facts WHERE from_us <> {OPEN_START} UNION ALL SELECT 1, to_us / {DAY_US} FROM facts "
            f"WHERE to_us <> {OPEN_END} AND NOT {events}) x GROUP BY k, d"
        ]
    if op == "events":
        return [
            f"SELECT from_us / {DAY_US} AS d, count(*) FROM facts WHERE {events} AND from_us <> {OPEN_START} GROUP BY d"
        ]
    if op in ("conflicts", "conflict_page"):
        left_out = ", ".join(f"'{p}'" for p in r.multi_valued)
        return [
            "WITH groups AS (SELECT subject, predicate, sum(CASE WHEN valid_to IS NULL THEN 1 ELSE 0 END) AS open "
            f"FROM facts WHERE predicate NOT IN ({left_out}) AND NOT {events} GROUP BY subject, predicate "
            "HAVING count(DISTINCT object_key) > 1), "
            "page AS (SELECT subject, predicate, count(*) OVER () AS total FROM groups "
            f"ORDER BY CASE WHEN open > 1 THEN 1 ELSE 0 END DESC, subject, predicate LIMIT {PAGE[op]}) "
            "SELECT p.total, f.id, s.name, f.predicate, COALESCE(o.name, f.object_value), f.valid_from, f.valid_to "
            "FROM page p JOIN facts f ON f.subject = p.subject AND f.predicate = p.predicate "
            "JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id "
            "ORDER BY f.subject, f.predicate, f.from_us, f.id"
        ]
    if op == "diff":
        lo, hi = r.month_lo, r.month_hi
        return [
            f"WITH c AS (SELECT id, from_us AS at FROM facts WHERE valid_from IS NOT NULL AND from_us BETWEEN {lo} "
            f"AND {hi} UNION ALL SELECT id, to_us FROM facts WHERE valid_to IS NOT NULL AND to_us BETWEEN {lo} AND "
            f"{hi} AND NOT ({events} AND valid_from IS NOT NULL)), "  # an event once, at its start
            "page AS (SELECT id, at, count(*) OVER () AS total FROM c ORDER BY at, id LIMIT 100) "
            "SELECT p.total, p.at, f.id, s.name, f.predicate, COALESCE(o.name, f.object_value), f.valid_from, "
            "f.valid_to FROM page p JOIN facts f ON f.id = p.id JOIN entities s ON s.id = f.subject "
            "LEFT JOIN entities o ON o.id = f.object_id ORDER BY p.at, p.id"
        ]
    if op == "stats":
        return [
            "SELECT type, count(*) FROM entities GROUP BY type ORDER BY type",
            f"SELECT count(*), count(*) FILTER (WHERE valid_to IS NULL AND NOT {events}), "
            f"count(*) FILTER (WHERE valid_to IS NOT NULL AND NOT {events}), "
            f"count(*) FILTER (WHERE object_id IS NULL), count(DISTINCT predicate), count(*) FILTER (WHERE {events}) "
            "FROM facts",
            "SELECT count(*) FROM aliases",
            "SELECT count(*) FROM memories",
        ]
    return []  # stream, export: ADBC reads


def measure(r: Run, engine: str, db: str, op: str) -> dict[str, Any]:
    """``op`` by kgtoolkit, its plain-SQL floor and polars on the source, each in its own processes."""
    folder = r.out / "export"

    def arguments() -> dict[str, Any]:
        empty(folder)
        return {
            "op": op,
            "engine": engine,
            "db": db,
            "batch": r.args.batch_size,
            "month": MONTH,
            "folder": str(folder),
            "source": str(r.source),
            "event": EVENT,
            "multi_valued": r.multi_valued,
            "value_predicates": r.value_predicates,
            "sql": floor_sql(r, op),
            "page": PAGE.get(op, 0),
        }

    row: dict[str, Any] = {
        "kgtoolkit": r.repeat(lambda: child(_KGTOOLKIT, arguments())),
        "floor": r.repeat(lambda: child(_FLOOR, arguments())),
        "polars": r.repeat(lambda: child(_POLARS, arguments())),
    }
    empty(folder)
    ours, floor, pol = row["kgtoolkit"], row["floor"], row["polars"]
    row["ratio"] = ours["s"] / floor["s"] if floor["s"] > 0 else float("inf")
    row["peak_total_mb"] = total = ours["peak_mb"] + ours["reader_mb"]
    row["memory_met"] = total <= TARGET_MB
    row["time_met"] = row["ratio"] <= TARGET_RATIO if op in ANALYSES else None
    if op == "conflict_page":  # issue 43's targets are absolute: 2 s and 300 MB for one page
        row["time_met"], row["memory_met"] = ours["s"] <= PAGE_S, total <= PAGE_MB
    say(
        f"  {op}: kgtoolkit {ours['s']:.2f} s, {ours['peak_mb']:,.0f} MB (+ reader {ours['reader_mb']:,.0f} MB) "
        f"[{ours['check']}]; floor {floor['s']:.2f} s, {floor['peak_mb']:,.0f} MB [{floor['check']}]; polars "
        f"{pol['s']:.2f} s, {pol['peak_mb']:,.0f} MB [{pol['check']}]; {row['ratio']:.2f}× the floor; load {load()}"
    )
    return row


def bench_engine(r: Run, engine: str) -> dict[str, Any]:
    server: PgServer | None = None
    out: dict[str, Any] = {}
    try:
        if engine == "postgresql":
            server = PgServer(r.work / "postgresql")
        say(f"{engine}: import")
        db, out["import"] = import_graph(r, engine, server)
        for op in OPERATIONS[1:]:
            if op in r.args.parts:
                out[op] = measure(r, engine, db, op)
    finally:
        if server is not None:
            server.stop(remove=not r.args.keep)
    return out


# ---------------------------------------------------------------------- the table


def fmt_s(seconds: float) -> str:
    return f"{seconds:,.2f} s" if seconds < 100 else f"{seconds:,.0f} s"


def table(result: dict[str, Any]) -> str:
    lines = [
        f"Run {result['when']}: {result['facts']:,} facts (seed {result['seed']}), `{result['command']}`; "
        f"median of {result['repeat']} process(es) each, the largest peak; load average {result['load_before']} "
        f"before, {result['load_after']} after ({result['cpu_count']} cores, shared).",
        "",
        "| engine | operation | kgtoolkit: time, peak RSS (+ reader process) | floor: time | polars on the Parquet: "
        "time | × floor | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for engine in ("sqlite", "postgresql"):
        rows = result.get(engine)
        if not isinstance(rows, dict):
            continue
        imp = rows["import"]
        floor = imp.get("floor")
        note = " (built earlier)" if imp.get("reused") else ""
        if floor:
            ratio = imp["s"] / floor["s"]
            met = "met" if ratio <= 1 / IMPORT_RATE else "**missed**"
            rss = "met" if imp["peak_mb"] <= 1536 else "**missed**"
            lines.append(
                f"| {engine} | import, whole process{note} | {fmt_s(imp['s'])}, {imp['peak_mb']:,.0f} MB | "
                f"{fmt_s(floor['s'])} | – | {ratio:.2f}× | {met} ≤ {1 / IMPORT_RATE:.0f}×, {rss} ≤ 1.5 GB (issue 33) |"
            )
        else:
            lines.append(
                f"| {engine} | import, whole process{note} | {fmt_s(imp['s'])}, {imp['peak_mb']:,.0f} MB | "
                "not run | – | – | – |"
            )
        for op in OPERATIONS[1:]:
            row = rows.get(op)
            if row is None:
                continue
            ours, fl, pol = row["kgtoolkit"], row["floor"], row["polars"]
            reader = f" (+ {ours['reader_mb']:,.0f} MB)" if ours["reader_mb"] else ""
            if ours.get("file_mb", 0) >= 1:
                reader += f", {ours['file_mb']:,.0f} MB of it the graph file mapped"
            parts = []
            if op == "conflict_page":
                parts.append(("met" if row["time_met"] else "**missed**") + f" ≤ {PAGE_S:.0f} s")
                parts.append(("met" if row["memory_met"] else "**missed**") + f" ≤ {PAGE_MB:.0f} MB")
            else:
                if row["time_met"] is not None:
                    parts.append(("met" if row["time_met"] else "**missed**") + f" ≤ {TARGET_RATIO:.0f}×")
                parts.append(("met" if row["memory_met"] else "**missed**") + f" ≤ {TARGET_MB:.0f} MB")
            lines.append(
                f"| {engine} | {op} | {fmt_s(ours['s'])}, {ours['peak_mb']:,.0f} MB{reader} | {fmt_s(fl['s'])} | "
                f"{fmt_s(pol['s'])} | {row['ratio']:.2f}× | {', '.join(parts)} |"
            )
    return "\n".join(lines)


# ---------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=10_000_000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch-size", type=int, default=100_000, help="of frames.stream and the export")
    parser.add_argument("--chunk-facts", type=int, default=10_000_000, help="largest part generated at once")
    parser.add_argument("--skew", action="store_true", help="a fifth of the facts in 30 huge histories (Zipf)")
    parser.add_argument("--only", help="comma-separated: " + ",".join(OPERATIONS))
    parser.add_argument("--json", type=Path, help="results file (default benchmarks/results-scale-<facts>.json)")
    parser.add_argument("--readme", action="store_true", help="rewrite the table in benchmarks/README.md")
    parser.add_argument("--workdir", type=Path, help="where the source, graphs and outputs go (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the source and graphs for a later run to reuse")
    args = parser.parse_args(argv)
    args.repeat = max(1, args.repeat)
    args.parts = set(OPERATIONS) if args.only is None else {p.strip() for p in args.only.split(",") if p.strip()}
    unknown = args.parts - set(OPERATIONS)
    if unknown:
        parser.error(f"--only: unknown {', '.join(sorted(unknown))} (choose from {', '.join(OPERATIONS)})")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kgscale-"))
    work.mkdir(parents=True, exist_ok=True)
    work = work.resolve()
    if args.workdir is None and args.keep:
        say(f"kept in {work}")
    engines = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    result: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "facts": args.facts,
        "seed": args.seed,
        "repeat": args.repeat,
        "batch_size": args.batch_size,
        "command": "python benchmarks/bench_scale.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "load_before": load(),
        "period": {"start": START, "days": DAYS, "diff_month": MONTH, "event_predicate": EVENT},
    }
    r = Run(args, work)
    try:
        result["source"] = make_source(r)
        for engine in engines:
            try:
                result[engine] = bench_engine(r, engine)
            except (FileNotFoundError, RuntimeError) as exc:
                if engine == "sqlite":
                    raise
                result[engine] = f"not measured: {exc}"
                say(f"{engine}: not measured: {exc}")
    finally:
        if not args.keep:
            for leftover in (r.source, r.marker, r.out, work / f"graph-{r.tag}.sqlite3", work / "floor.sqlite3"):
                empty(leftover)
            if args.workdir is None:
                shutil.rmtree(work, ignore_errors=True)
    result["load_after"] = load()
    text = table(result)
    say("\n" + text)
    path = args.json or HERE / f"results-scale-{args.facts}.json"
    path.write_text(json.dumps(result, indent=1, default=str) + "\n")
    if args.readme:
        write_block(README, "bench_scale", text, heading="At scale (issue 32): `bench_scale.py`")
    return result


if __name__ == "__main__":
    main()

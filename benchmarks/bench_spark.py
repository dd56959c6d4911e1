"""The Spark tier (issue 48) beside polars' streaming engine and DuckDB, on the same month-partitioned Parquet files.

    python benchmarks/bench_spark.py --facts 10000000 --json benchmarks/results-spark-10000000.json
    python benchmarks/bench_spark.py --facts 100000000 --base-folder /tmp/base --json ...
    python benchmarks/bench_spark.py --facts 200000 --base 200000      # a quick look

**The files.** A base graph of ``--base`` facts (``kgtoolkit.generate``, seed 7) is built in a fresh SQLite file and
exported with ``io.export_partitioned(by="month")``: every rule of the store (entity ids, kinds, states, ends)
made it. ``--facts`` facts are ``--facts / --base`` copies of it, written straight to Parquet in batches (no
import of the whole into a graph): copy ``k`` names its entities ``c<k>_<id>`` (``C<k> <name>``; values stay
values), numbers its facts after the previous copy's, and moves every date ``k % 97`` days later (the base ends
before today, so no state changes). The copies share no entity, so the union is the graph the store would export
for them; the 10M files are the first ten copies of the 100M ones.

**The questions**, each engine in a fresh process of its own that starts the engine (``start``: Spark's session,
polars' or DuckDB's import and connection), answers them in turn (each timed) and reports the peak RSS (``VmHWM``)
of every process it ran: the Python process, and for Spark its JVM (``local[2]``) and any Python worker under it.
It also reports the CPU seconds (user + system) of its whole process tree per step, counted by the kernel, not
sampled (:mod:`_proctree`: its own and reaped children's ``getrusage``, each living descendant's ``/proc/PID/stat``
with what that one reaped), and by process at the end (``python``: the driver, from its start; ``jvm``;
``jvm_children``: what runs or ran under the JVM, its Python workers and the launcher that built its command line).
The parent counts the whole run's CPU exactly (``process_cpu_seconds``: ``RUSAGE_CHILDREN`` as a child subreaper, so
the JVM, which outlives its driver by a moment, is counted to its end). On a shared machine, CPU seconds grow with
the work where wall time grows with the load too.
Every question reads the files again (nothing cached). They are ``churn`` (state facts added and ended per month, the raw churn: ``renewals=False``), ``stats``
(the counts of ``KnowledgeGraph.stats``), ``connected`` (the ten most connected entities, ties by id) and
``valid_at`` (the facts valid on 2025-01-01). Spark runs :mod:`kgtoolkit.spark`; polars and DuckDB run the same
rules (the validity rule rendered from :mod:`kgtoolkit._validity` as a polars expression and as SQL). The answers
are compared, engine by engine. Wall-clock on a shared
machine, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from _proctree import descendants, peak_kb, run_counted, subtree_cpu_seconds, tree_cpu_seconds

ENGINES = ("spark", "polars", "duckdb")
QUESTIONS = ("churn", "stats", "connected", "valid_at")
AS_OF = "2025-01-01"
SHIFT_MODULO = 97
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
STATS = ("facts", "current", "ended", "scheduled", "events", "value_facts", "predicates", "entities")


# ---------------------------------------------------------------------- the files


def make_base(work: Path, facts: int) -> Path:
    """Build ``facts`` generated facts through the store and export them by month; the export's folder."""
    from kgtoolkit import io
    from kgtoolkit.generate import build_generated

    kg = build_generated(work / f"base-{facts}.sqlite3", facts, seed=7)
    folder = work / f"base-{facts}"
    io.export_partitioned(kg, folder, by="month", batch_size=500_000)
    kg.close()
    return folder


def replicate(base: Path, folder: Path, copies: int, batch_rows: int = 5_000_000) -> int:
    """Write ``copies`` renamed, shifted copies of the export ``base`` into ``folder`` (month partitions); rows."""
    import polars as pl

    frame = pl.read_parquet(base / "**" / "*.parquet", hive_partitioning=False).sort("id")
    columns = frame.columns
    assert frame["valid_from"].drop_nulls().str.len_chars().eq(10).all(), "the base's bounds are dates"
    assert frame["valid_to"].drop_nulls().str.len_chars().eq(10).all(), "the base's bounds are dates"
    span = int(frame["id"].max() or 0)
    per_batch = max(1, batch_rows // max(frame.height, 1))
    folder.mkdir(parents=True)
    written = 0
    for first in range(0, copies, per_batch):
        batch = pl.concat([_copy(frame, k, span) for k in range(first, min(first + per_batch, copies))])
        month = pl.col("start").dt.strftime("%Y-%m").fill_null(NULL_PARTITION)
        for (name,), part in batch.with_columns(month.alias("_month")).group_by("_month", maintain_order=True):
            target = folder / f"month={name}"
            target.mkdir(exist_ok=True)
            part.select(columns).write_parquet(target / f"part-{first:05d}.parquet")
        written += batch.height
        print(f"  wrote copies {first}..{min(first + per_batch, copies) - 1}: {written:,} facts", flush=True)
    return written


def _copy(frame: Any, k: int, span: int) -> Any:
    """Copy ``k`` of the base: entities renamed ``c<k>_``, ids after copy ``k - 1``'s, dates ``k % 97`` days on."""
    import datetime as dt

    import polars as pl

    days = k % SHIFT_MODULO
    entity = ~pl.col("object_is_value")

    def shifted_text(column: str) -> pl.Expr:
        return (pl.col(column).str.to_date("%Y-%m-%d") + pl.duration(days=days)).dt.strftime("%Y-%m-%d")

    return frame.with_columns(
        pl.col("id") + k * span,
        (pl.lit(f"c{k}_") + pl.col("subject")).alias("subject"),
        (pl.lit(f"C{k} ") + pl.col("subject_name")).alias("subject_name"),
        pl.when(entity).then(pl.lit(f"c{k}_") + pl.col("object")).otherwise(pl.col("object")).alias("object"),
        pl.when(entity)
        .then(pl.lit(f"C{k} ") + pl.col("object_name"))
        .otherwise(pl.col("object_name"))
        .alias("object_name"),
        shifted_text("valid_from").alias("valid_from"),
        shifted_text("valid_to").alias("valid_to"),
        pl.col("start") + dt.timedelta(days=days),
        pl.col("end") + dt.timedelta(days=days),
    )


# ---------------------------------------------------------------------- one engine, one question (a child process)


def child(engine: str, questions: str, folder: str, out: str) -> None:
    """Start one engine, answer the questions in turn, then write the times, the peaks and the answers to ``out``."""
    begin, cpu_begin = time.perf_counter(), tree_cpu_seconds()
    peaks: dict[str, int] = {}
    seconds: dict[str, float] = {}
    cpu: dict[str, float] = {}
    cpu_by_process: dict[str, float] = {}
    answers: dict[str, list[Any]] = {}
    if engine == "spark":
        ask, close = _spark(folder, peaks, cpu_by_process)
    elif engine == "polars":
        import polars  # noqa: F401  (its import is the engine's start)

        from kgtoolkit import _validity

        ask, close = (lambda q: _polars(q, folder)), (lambda: None)
    else:
        import duckdb

        from kgtoolkit import _validity  # noqa: F401  (as polars' start)

        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET threads = 2")
        ask, close = (lambda q: _duckdb(con, q, folder)), con.close
    seconds["start"] = time.perf_counter() - begin
    cpu["start"] = tree_cpu_seconds() - cpu_begin
    for question in questions.split(","):
        t, c = time.perf_counter(), tree_cpu_seconds()
        answers[question] = [list(r) for r in ask(question)]
        seconds[question] = time.perf_counter() - t
        cpu[question] = tree_cpu_seconds() - c
    close()
    seconds["total"] = time.perf_counter() - begin
    cpu["total"] = tree_cpu_seconds() - cpu_begin
    peaks["python"] = peak_kb("self")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_by_process["python"] = usage.ru_utime + usage.ru_stime
    report = {"seconds": seconds, "cpu_seconds": cpu, "cpu_by_process": cpu_by_process, "peaks_kb": peaks}
    Path(out).write_text(json.dumps({**report, "rows": answers}))


def _window() -> tuple[int, int]:
    from kgtoolkit._time import parse_window

    window = parse_window(AS_OF, field="as_of")
    return window.lo, window.hi


def _spark(folder: str, peaks: dict[str, int], cpu: dict[str, float]) -> tuple[Any, Any]:
    """A local[2] session and the questions on it; closing records the JVM's (and workers') peak and CPU, stops it."""
    from pyspark.sql import functions as F

    from kgtoolkit import spark as ks

    session = ks.session("local[2]", shuffle_partitions=16, **{"spark.driver.memory": "2g"})
    session.sparkContext.setLogLevel("ERROR")
    jvm = session.sparkContext._jvm.java.lang.ProcessHandle.current().pid()  # type: ignore[union-attr]
    facts = ks.read_facts(session, folder)

    def ask(question: str) -> list[Any]:
        if question == "churn":
            table = ks.to_polars(ks.churn(facts, every="1mo", renewals=False))
            return (
                table.filter((table["added"] > 0) | (table["ended"] > 0))
                .select(table["period"].dt.strftime("%Y-%m"), "added", "ended")
                .rows()
            )
        if question == "stats":
            return [tuple(ks.stats(facts).select(*STATS).first() or ())]
        if question == "connected":
            return [tuple(r) for r in ks.most_connected(facts, top=10).select("id", "facts").collect()]
        return [(ks.valid_at(facts, AS_OF).select(F.lit(1)).count(),)]

    def close() -> None:
        peaks["jvm"] = peak_kb(jvm)
        peaks["python_workers"] = sum(peak_kb(p) for p in descendants(jvm))
        cpu["jvm"], cpu["jvm_children"] = subtree_cpu_seconds(jvm)
        session.stop()

    return ask, close


def _polars(question: str, folder: str) -> list[Any]:
    import polars as pl

    from kgtoolkit import _validity

    scan = pl.scan_parquet(Path(folder) / "**" / "*.parquet", hive_partitioning=True)
    if question == "churn":
        states = scan.filter(pl.col("kind") != "event")

        def month(c: str) -> pl.Expr:
            return pl.col(c).dt.truncate("1mo").dt.strftime("%Y-%m")

        added = states.filter(pl.col("start").is_not_null()).group_by(month("start").alias("p")).agg(pl.len())
        ended = states.filter(pl.col("end").is_not_null()).group_by(month("end").alias("p")).agg(pl.len())
        table = added.join(ended, on="p", how="full", coalesce=True).fill_null(0).sort("p").collect(engine="streaming")
        return [tuple(r) for r in table.rows()]
    if question == "stats":
        state = pl.col("kind") != "event"
        counts = scan.select(
            pl.len().alias("facts"),
            (state & (pl.col("state") == "current")).sum().alias("current"),
            (state & (pl.col("state") == "ended")).sum().alias("ended"),
            (state & (pl.col("state") == "scheduled")).sum().alias("scheduled"),
            (~state).sum().alias("events"),
            pl.col("object_is_value").sum().alias("value_facts"),
        ).collect(engine="streaming")
        predicates = scan.select(pl.col("predicate").unique()).collect(engine="streaming").height
        named = pl.concat(
            [
                scan.select(pl.col("subject").alias("e")),
                scan.filter(~pl.col("object_is_value")).select(pl.col("object").alias("e")),
            ]
        )
        entities = named.unique().collect(engine="streaming").height
        return [(*(int(v) for v in counts.row(0)), predicates, entities)]
    if question == "connected":
        sides = pl.concat(
            [
                scan.select(pl.col("subject").alias("id")),
                scan.filter(~pl.col("object_is_value")).select(pl.col("object").alias("id")),
            ]
        )
        table = (
            sides.group_by("id")
            .agg(pl.len().alias("facts"))
            .sort(["facts", "id"], descending=[True, False])
            .head(10)
            .collect(engine="streaming")
        )
        return [tuple(r) for r in table.rows()]
    lo, hi = _window()
    rule = _validity.valid_at(*_validity.frame_keys(), pl.lit(lo), pl.lit(hi))
    return [(scan.filter(rule).select(pl.len()).collect(engine="streaming").item(),)]


def _duckdb(con: Any, question: str, folder: str) -> list[Any]:
    from kgtoolkit import _validity
    from kgtoolkit._time import OPEN_END, OPEN_START

    files = f"read_parquet('{folder}/**/*.parquet', hive_partitioning = true)"
    if question == "churn":
        return con.execute(f"""
            WITH s AS (SELECT "start", "end" FROM {files} WHERE kind <> 'event'),
            a AS (SELECT strftime(date_trunc('month', "start"), '%Y-%m') p, count(*) n FROM s
                  WHERE "start" IS NOT NULL GROUP BY 1),
            e AS (SELECT strftime(date_trunc('month', "end"), '%Y-%m') p, count(*) n FROM s
                  WHERE "end" IS NOT NULL GROUP BY 1)
            SELECT coalesce(a.p, e.p), coalesce(a.n, 0), coalesce(e.n, 0) FROM a FULL JOIN e ON a.p = e.p
            ORDER BY 1""").fetchall()
    if question == "stats":
        return con.execute(f"""
            WITH f AS (SELECT * FROM {files})
            SELECT count(*),
                   count(*) FILTER (WHERE kind <> 'event' AND state = 'current'),
                   count(*) FILTER (WHERE kind <> 'event' AND state = 'ended'),
                   count(*) FILTER (WHERE kind <> 'event' AND state = 'scheduled'),
                   count(*) FILTER (WHERE kind = 'event'),
                   count(*) FILTER (WHERE object_is_value),
                   count(DISTINCT predicate),
                   (SELECT count(DISTINCT e) FROM (SELECT subject e FROM f UNION ALL
                                                   SELECT object FROM f WHERE NOT object_is_value))
            FROM f""").fetchall()
    if question == "connected":
        return con.execute(f"""
            WITH f AS (SELECT subject, object, object_is_value FROM {files})
            SELECT id, count(*) n FROM (SELECT subject id FROM f UNION ALL
                                        SELECT object FROM f WHERE NOT object_is_value)
            GROUP BY id ORDER BY n DESC, id LIMIT 10""").fetchall()
    lo, hi = _window()
    start = _validity.Sql(f'coalesce(epoch_us("start"), {OPEN_START})')
    end = _validity.Sql(f'coalesce(epoch_us("end"), {OPEN_END})')
    rule = _validity.valid_at(start, end, _validity.Sql(str(lo)), _validity.Sql(str(hi)))
    return con.execute(f"SELECT count(*) FROM {files} WHERE {rule.text}").fetchall()


# ---------------------------------------------------------------------- the parent


def _run(engine: str, questions: list[str], folder: Path, work: Path) -> dict[str, Any]:
    out = work / f"{engine}.json"
    command = [sys.executable, __file__, "--child", engine, ",".join(questions), str(folder), str(out)]
    wall, cpu = run_counted(command)
    answer: dict[str, Any] = json.loads(out.read_text())
    answer["process_seconds"], answer["process_cpu_seconds"] = wall, cpu
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--base", type=int, default=1_000_000, help="facts of the base graph (--facts: a multiple)")
    parser.add_argument("--base-folder", type=Path, help="an existing export of the base to reuse")
    parser.add_argument("--folder", type=Path, help="existing files to reuse (skips making them)")
    parser.add_argument("--workdir", type=Path, help="where the files go (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the files made")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--questions", default=",".join(QUESTIONS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", nargs=4, metavar=("ENGINE", "QUESTION", "FOLDER", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kgtoolkit-bench-spark-"))
    work.mkdir(parents=True, exist_ok=True)
    folder = args.folder
    made: dict[str, Any] = {}
    if folder is None:
        if args.facts % args.base:
            raise SystemExit(f"--facts {args.facts} is not a multiple of --base {args.base}")
        base = args.base_folder
        if base is None:
            t = time.perf_counter()
            base = make_base(work, args.base)
            made["base_seconds"] = round(time.perf_counter() - t, 1)
        folder = work / f"facts-{args.facts}"
        t = time.perf_counter()
        replicate(base, folder, args.facts // args.base)
        made["write_seconds"] = round(time.perf_counter() - t, 1)
        made["write_peak_mib"] = round(peak_kb("self") / 1024, 1)
    files = list(folder.rglob("*.parquet"))
    results: dict[str, Any] = {
        "facts": args.facts,
        "base": args.base,
        "parquet_bytes": sum(p.stat().st_size for p in files),
        "parquet_files": len(files),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        **made,
        "runs": {},
    }
    questions = args.questions.split(",")
    answers: dict[str, dict[str, Any]] = {q: {} for q in questions}
    for engine in args.engines.split(","):
        runs = [_run(engine, questions, folder, work) for _ in range(args.repeat)]
        peaks = {k: max(r["peaks_kb"].get(k, 0) for r in runs) for k in runs[0]["peaks_kb"]}
        results["runs"][engine] = row = {
            "seconds": {k: round(statistics.median(r["seconds"][k] for r in runs), 2) for k in runs[0]["seconds"]},
            "process_seconds": round(statistics.median(r["process_seconds"] for r in runs), 2),
            "cpu_seconds": {
                k: round(statistics.median(r["cpu_seconds"][k] for r in runs), 2) for k in runs[0]["cpu_seconds"]
            },
            "cpu_by_process": {
                k: round(statistics.median(r["cpu_by_process"][k] for r in runs), 2) for k in runs[0]["cpu_by_process"]
            },
            "process_cpu_seconds": round(statistics.median(r["process_cpu_seconds"] for r in runs), 2),
            "peaks_mib": {k: round(v / 1024, 1) for k, v in peaks.items()},
            "total_peak_mib": round(sum(peaks.values()) / 1024, 1),
            "load_average": os.getloadavg(),
        }
        for question in questions:
            answers[question][engine] = runs[0]["rows"][question]
        print(f"{engine:7} {row['seconds']}  peaks {row['peaks_mib']}", flush=True)
        print(
            f"{'':7} cpu {row['cpu_seconds']}  by process {row['cpu_by_process']}"
            f"  whole tree {row['process_cpu_seconds']} s",
            flush=True,
        )
    results["answers"] = {q: next(iter(a.values())) for q, a in answers.items() if a}
    results["answers_agree"] = {q: all(r == next(iter(a.values())) for r in a.values()) for q, a in answers.items()}
    results["load_average_after"] = os.getloadavg()
    print("answers agree:", results["answers_agree"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    if args.folder is None and not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

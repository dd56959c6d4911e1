"""The Spark tier (issue 48) beside polars' streaming engine and DuckDB, on the same month-partitioned Parquet files.

    python benchmarks/bench_spark.py --facts 10000000 --json benchmarks/results-spark-10000000.json
    python benchmarks/bench_spark.py --facts 200000                 # a quick look

The graph is ``kgtoolkit.generate`` (seed 7) in a fresh SQLite file, exported with ``io.export_partitioned(by=
"month")``. The question: state facts added and ended per month (the raw churn, ``renewals=False``). Each engine
answers it in a fresh process of its own, which reports its wall time and the peak RSS (``VmHWM``) of every process
it ran: the Python process, and for Spark its JVM (``local[2]``) and the Python workers under it. A ``floor`` row
per engine starts it and reads nothing (Spark's session start is most of a small run). The answers are compared:
the three must agree, period for period. One run each by default (``--repeat`` for medians); wall-clock on a
shared machine, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

_CHILD = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path

    def peak_kb(pid):
        try:
            with open(f"/proc/{pid}/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        except OSError:
            return 0

    def descendants(pid):
        out = []
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in children:
                out.append(int(child))
                out.extend(descendants(int(child)))
        return out

    engine, op, folder, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    start = time.perf_counter()
    peaks = {}
    rows = []
    if engine == "spark":
        from kgtoolkit import spark as ks
        session = ks.session("local[2]", shuffle_partitions=8, **{"spark.driver.memory": "2g"})
        session.sparkContext.setLogLevel("ERROR")
        jvm = session.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        if op == "churn":
            facts = ks.read_facts(session, folder)
            table = ks.to_polars(ks.churn(facts, every="1mo", renewals=False))
            rows = table.filter((table["added"] > 0) | (table["ended"] > 0)).select(
                table["period"].dt.strftime("%Y-%m"), "added", "ended").rows()
        seconds = time.perf_counter() - start
        peaks["jvm"] = peak_kb(jvm)
        peaks["python_workers"] = sum(peak_kb(p) for p in descendants(jvm))
        session.stop()
    elif engine == "polars":
        import polars as pl
        if op == "churn":
            scan = pl.scan_parquet(Path(folder) / "**" / "*.parquet", hive_partitioning=True)
            states = scan.filter(pl.col("kind") != "event")
            month = lambda c: pl.col(c).dt.truncate("1mo").dt.strftime("%Y-%m")
            added = states.filter(pl.col("start").is_not_null()).group_by(month("start").alias("p")).agg(
                pl.len().alias("added"))
            ended = states.filter(pl.col("end").is_not_null()).group_by(month("end").alias("p")).agg(
                pl.len().alias("ended"))
            table = added.join(ended, on="p", how="full", coalesce=True).fill_null(0).sort("p").collect(
                engine="streaming")
            rows = [tuple(r) for r in table.rows()]
        seconds = time.perf_counter() - start
    else:
        import duckdb
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        if op == "churn":
            files = f"read_parquet('{folder}/**/*.parquet', hive_partitioning = true)"
            rows = con.execute(f'''
                WITH s AS (SELECT "start", "end" FROM {files} WHERE kind <> 'event'),
                a AS (SELECT strftime(date_trunc('month', "start"), '%Y-%m') p, count(*) n FROM s
                      WHERE "start" IS NOT NULL GROUP BY 1),
                e AS (SELECT strftime(date_trunc('month', "end"), '%Y-%m') p, count(*) n FROM s
                      WHERE "end" IS NOT NULL GROUP BY 1)
                SELECT coalesce(a.p, e.p), coalesce(a.n, 0), coalesce(e.n, 0) FROM a FULL JOIN e ON a.p = e.p
                ORDER BY 1''').fetchall()
        seconds = time.perf_counter() - start
    peaks["python"] = peak_kb("self")
    Path(out).write_text(json.dumps({"seconds": seconds, "peaks_kb": peaks, "rows": [list(r) for r in rows]}))
""")


def _run(engine: str, op: str, folder: Path, work: Path) -> dict[str, Any]:
    out = work / f"{engine}-{op}.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", _CHILD, engine, op, str(folder), str(out)], check=True)
    answer: dict[str, Any] = json.loads(out.read_text())
    answer["process_seconds"] = time.perf_counter() - started
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="an existing export to reuse (skips generating)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgtoolkit-bench-spark-"))
    folder = args.folder
    made: dict[str, float] = {}
    if folder is None:
        from kgtoolkit import io
        from kgtoolkit.generate import build_generated

        t = time.perf_counter()
        kg = build_generated(work / "graph.sqlite3", args.facts, seed=7)
        made["generate_seconds"] = time.perf_counter() - t
        folder = work / "export"
        t = time.perf_counter()
        io.export_partitioned(kg, folder, by="month", batch_size=500_000)
        made["export_seconds"] = time.perf_counter() - t
        kg.close()
    size = sum(p.stat().st_size for p in folder.rglob("*.parquet"))
    results: dict[str, Any] = {
        "facts": args.facts,
        "parquet_bytes": size,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        **made,
        "runs": {},
    }
    answers = {}
    for engine in ("spark", "polars", "duckdb"):
        for op in ("floor", "churn"):
            runs = [_run(engine, op, folder, work) for _ in range(args.repeat)]
            seconds = statistics.median(r["seconds"] for r in runs)
            peaks = {k: max(r["peaks_kb"].get(k, 0) for r in runs) for k in runs[0]["peaks_kb"]}
            results["runs"][f"{engine}/{op}"] = {
                "seconds": round(seconds, 3),
                "peaks_mib": {k: round(v / 1024, 1) for k, v in peaks.items()},
                "total_peak_mib": round(sum(peaks.values()) / 1024, 1),
            }
            if op == "churn":
                answers[engine] = runs[0]["rows"]
            print(f"{engine:7} {op:6} {seconds:8.2f} s  peaks {results['runs'][f'{engine}/{op}']['peaks_mib']}")
    results["answers_agree"] = answers["spark"] == answers["polars"] == answers["duckdb"]
    for engine in ("spark", "polars", "duckdb"):
        churn, floor = results["runs"][f"{engine}/churn"], results["runs"][f"{engine}/floor"]
        churn["above_floor_seconds"] = round(churn["seconds"] - floor["seconds"], 3)
    results["load_average_after"] = os.getloadavg()
    print("answers agree:", results["answers_agree"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

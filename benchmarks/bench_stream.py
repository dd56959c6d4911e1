"""Bounded memory (issue #32): ``frames.stream`` and ``io.export_partitioned`` beside ``frames.facts``, on one graph.

    python benchmarks/bench_stream.py                          # 1,000,000 facts on SQLite
    python benchmarks/bench_stream.py --facts 200000 --batch-size 50000 --json out.json

The graph is ``kgtoolkit.generate`` (seed 7) imported into a fresh SQLite file. Each operation then runs in a
fresh Python process of its own, which reports its wall time and its own peak RSS (``VmHWM`` of
``/proc/self/status``; not ``ru_maxrss``, which a child inherits from a larger parent through fork and exec)
and that of its reader process (a big SQLite read runs ADBC in a reader process; its results come back as
Arrow files in shared memory, mapped here):

* ``floor``        the process that opens the graph and imports polars, kgtoolkit and pyarrow, reading nothing:
                   what every row below pays before its first fact.
* ``facts``        ``frames.facts(kg)``: the whole graph as one frame (names resolved), the in-memory way.
* ``stream``       ``frames.stream(kg, batch_size=B)``: every batch read and dropped (the rows counted).
* ``export_file``  ``io.export_file(kg, "facts.parquet")``: one Parquet file, through ``frames.facts``.
* ``partitioned``  ``io.export_partitioned(kg, folder, by="month", batch_size=B)``: the Hive folder, from the stream.

The ratio is each peak over the ``facts`` peak (and the peak above the floor). One run of each by default
(``--repeat`` for medians); wall-clock on a shared machine, never a test: nothing asserts a time or a figure.
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

import kgtoolkit
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts

# One operation in a fresh process: prints its seconds, its own VmHWM and its reader process's (kB), and a count.
_CHILD = textwrap.dedent("""
    import json, shutil, sys, time
    from pathlib import Path
    import polars, pyarrow
    import kgtoolkit
    from kgtoolkit import frames, io

    def peak_kb(pid="self"):
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    db, op, batch, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    kg = kgtoolkit.open(db, read_only=True)
    start = time.perf_counter()
    if op == "floor":
        n = 0
    elif op == "facts":
        n = frames.facts(kg).height
    elif op == "stream":
        n = sum(b.height for b in frames.stream(kg, batch_size=batch))
    elif op == "export_file":
        n = io.export_file(kg, work / "facts.parquet")
    elif op == "partitioned":
        n = io.export_partitioned(kg, work / "by-month", by="month", batch_size=batch)
    took = time.perf_counter() - start
    from kgtoolkit.store.engine._arrow_read import _READER
    reader = _READER._proc.pid if _READER._proc is not None else None
    print(json.dumps({"s": took, "peak_kb": peak_kb(), "reader_kb": peak_kb(reader) if reader else 0, "rows": n}))
    _READER.stop()
""")

OPERATIONS = ("floor", "facts", "stream", "export_file", "partitioned")


def run(db: Path, op: str, batch: int, work: Path) -> dict[str, Any]:
    """One operation in a fresh process (its output folder emptied first)."""
    for leftover in (work / "facts.parquet", work / "by-month"):
        if leftover.is_dir():
            import shutil

            shutil.rmtree(leftover)
        else:
            leftover.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(db), op, str(batch), str(work)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=int(os.environ.get("KGTOOLKIT_BENCH_FACTS", 1_000_000)))
    parser.add_argument("--batch-size", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", type=Path, default=HERE / "results-stream.json")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "facts": args.facts,
        "batch_size": args.batch_size,
        "seed": args.seed,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
        "runs": {},
    }
    with tempfile.TemporaryDirectory(prefix="kgtoolkit-bench-stream-") as folder:
        db = Path(folder) / "graph.sqlite3"
        work = Path(folder) / "out"
        work.mkdir()
        kg = kgtoolkit.open(db)
        start = time.perf_counter()
        import_facts(kg, generate(args.facts, seed=args.seed))
        kg.close()
        result["import_s"] = time.perf_counter() - start
        result["file_mb"] = db.stat().st_size / 1e6
        print(f"imported {args.facts:,} facts in {result['import_s']:.1f} s ({result['file_mb']:.0f} MB)", flush=True)
        for op in OPERATIONS:
            runs = [run(db, op, args.batch_size, work) for _ in range(args.repeat)]
            result["runs"][op] = runs
            if op == "partitioned":
                files = list((work / "by-month").rglob("*.parquet"))
                result["partitioned_files"] = len(files)
                result["partitioned_folders"] = len({f.parent for f in files})
                result["partitioned_mb"] = sum(f.stat().st_size for f in files) / 1e6
            if op == "export_file":
                result["export_file_mb"] = (work / "facts.parquet").stat().st_size / 1e6
    summary: dict[str, Any] = {}
    for op, runs in result["runs"].items():
        summary[op] = {
            "s": statistics.median(r["s"] for r in runs),
            "peak_mb": statistics.median(r["peak_kb"] for r in runs) / 1024,
            "reader_mb": statistics.median(r["reader_kb"] for r in runs) / 1024,
            "rows": runs[0]["rows"],
        }
    facts_peak = summary["facts"]["peak_mb"]
    floor = summary["floor"]["peak_mb"]
    for row in summary.values():
        row["peak_over_facts"] = row["peak_mb"] / facts_peak
        row["above_floor_mb"] = row["peak_mb"] - floor
    result["summary"] = summary
    print(table(result))
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def table(result: dict[str, Any]) -> str:
    """The README's table of one result."""
    lines = [
        f"{result['facts']:,} facts, batches of {result['batch_size']:,}:",
        "",
        "| operation | time (s) | peak RSS (MB) | above the floor (MB) | × `frames.facts` | reader process (MB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for op, row in result["summary"].items():
        lines.append(
            f"| {op} | {row['s']:.2f} | {row['peak_mb']:.0f} | {row['above_floor_mb']:.0f} | "
            f"{row['peak_over_facts']:.2f} | {row['reader_mb']:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()

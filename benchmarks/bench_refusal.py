"""What a refused import costs beside the import itself (issue 43): the comma guard's refusal of a real file.

    python benchmarks/bench_refusal.py                         # ICEWS14 as it is, and 5 copies of it
    python benchmarks/bench_refusal.py --copies 20 --repeat 5 --json results-refusal.json

Each run is its own process (wall time of ``io.import_file`` and the process's peak RSS), into a new SQLite file:

* ``import``   the file imported, the comma guard off (the default since issue 43; ``allow_commas=True`` before);
* ``refusal``  the same file with the guard on (``comma_guard=True``; the default before), which refuses it whole:
               every row is checked, the names with commas are bad rows, nothing is written.

A refusal writes nothing, so it should cost no more than the import (the floor here). The bigger file is the real
one repeated, each copy's names suffixed with its number (``Children (Palestinian Territory, Occupied) #3``), so
every row is a new fact. Run it against another checkout with ``PYTHONPATH=that/checkout`` to compare (an older
one has no ``comma_guard``: its refusal is then the default and its import ``allow_commas=True``). Medians of
``--repeat`` runs; never used as a test.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from shared_data import DATA

_ONE_RUN = r"""
import json, os, resource, sys, tempfile, time, inspect
import kgtoolkit
from kgtoolkit import io
path, mode = sys.argv[1], sys.argv[2]
guard = "comma_guard" in inspect.signature(io.import_file).parameters
options = {"comma_guard": True} if mode == "refusal" and guard else {} if mode == "refusal" else {"allow_commas": True}
kg = kgtoolkit.open(os.path.join(tempfile.mkdtemp(), "graph.sqlite3"))
start = time.perf_counter()
try:
    outcome = f"imported {io.import_file(kg, path, **options).inserted:,}"
except kgtoolkit.KGError as exc:
    outcome = f"refused: {exc.data.get('total', len(exc.data.get('rows', []))):,} problems"
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "outcome": outcome}))
"""


def _copies(source: Path, copies: int, folder: Path) -> Path:
    import polars as pl

    frame = pl.read_csv(source, separator="\t", quote_char=None, infer_schema=False)
    big = pl.concat(
        frame.with_columns(pl.col("subject") + f" #{n}", pl.col("object") + f" #{n}") for n in range(copies)
    )
    target = folder / f"{source.parent.name}-x{copies}.tsv"
    big.write_csv(target, separator="\t", quote_style="never")
    return target


def _run(path: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-P", "-c", _ONE_RUN, str(path), mode], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="icews14")
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    source = DATA / args.dataset / "facts.tsv"
    if not source.is_file():
        sys.exit(f"dataset {args.dataset} not present in {DATA}")
    from kgtoolkit import io

    results: dict[str, Any] = {
        "checkout": os.environ.get("PYTHONPATH", ""),
        "comma_guard_keyword": "comma_guard" in inspect.signature(io.import_file).parameters,
        "files": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        files = [source] + ([_copies(source, args.copies, Path(folder))] if args.copies > 1 else [])
        for path in files:
            row: dict[str, Any] = {}
            for mode in ("import", "refusal"):
                runs = [_run(path, mode) for _ in range(args.repeat)]
                row[mode] = {
                    "seconds": statistics.median(r["seconds"] for r in runs),
                    "peak_mb": statistics.median(r["peak_mb"] for r in runs),
                    "outcome": runs[0]["outcome"],
                }
            row["ratio_seconds"] = row["refusal"]["seconds"] / row["import"]["seconds"]
            row["ratio_peak"] = row["refusal"]["peak_mb"] / row["import"]["peak_mb"]
            results["files"][path.name] = row
            print(
                f"{path.name}: import {row['import']['seconds']:.2f} s, {row['import']['peak_mb']:.0f} MB "
                f"({row['import']['outcome']}); refusal {row['refusal']['seconds']:.2f} s, "
                f"{row['refusal']['peak_mb']:.0f} MB ({row['refusal']['outcome']}); "
                f"refusal/import {row['ratio_seconds']:.2f}x time, {row['ratio_peak']:.2f}x memory"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

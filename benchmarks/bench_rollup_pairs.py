"""The kept pairs (``rollup_pairs``, issue 47): what they cost the writes and what they save the Churn page's
"most changed" ranking, in one run.

    python benchmarks/bench_rollup_pairs.py --writes --before /tmp/base --base-facts 100000 --adds 300 --import-facts 1000000
    python benchmarks/bench_rollup_pairs.py --reads --db GRAPH              # a graph this checkout has opened for writing
    python benchmarks/bench_rollup_pairs.py --reads --postgres-facts 1000000 # the same on a throwaway PostgreSQL server

**Writes** (``--writes``): each figure is one fresh Python process running this checkout's kgtoolkit or ``--before``'s
(a checkout without the kept pairs, e.g. ``git archive <commit> | tar -x -C DIR``), alternated ``--repeat`` times,
medians and their ratio; CPU seconds of the process (SQLite runs in it), wall seconds beside them:

* ``add``       ``--adds`` facts of the generator's shape added one by one (each its own transaction) into a graph of
                ``--base-facts`` imported facts (the import not timed): CPU per ``add``;
* ``import``    ``import_facts`` of ``--import-facts`` generated facts into a new graph;
* ``reimport``  the same file again into that graph (nothing new).

**Reads** (``--reads``): on ``--db``, :func:`kgtoolkit.analysis.most_changed` (``top=10``) as the Churn page asks it
(the window from the first start to today) and for a few other windows, along the kept pairs and by the scan
(:func:`kgtoolkit.store.scan_only`) in the same process, alternated, medians of ``--repeat``; each answer compared.
Then :func:`kgtoolkit.store.link_ranking` (``limit=125``, the Graph page's) for all dates, the graph's whole span
(the page through time) and a day in its middle (a date change: the scan answers), the same way.
``--postgres-facts N``: the same on a throwaway PostgreSQL server (``tests/support/postgres_server.py``) holding
``N`` generated facts (seed 7), imported first.

The machine's load average is recorded beside the figures (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_rollups import _run

HERE = Path(__file__).resolve().parent.parent

_ADD_INTO = """
import sys, time, kgtoolkit, polars as pl
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts
kg = kgtoolkit.open(sys.argv[1])
import_facts(kg, pl.read_parquet(sys.argv[2]), on_error="skip")
rows = generate({n}, seed=3).select("subject", "predicate", "object", "valid_from", "valid_to").rows()
t, w = time.process_time(), time.perf_counter()
for s, p, o, a, b in rows:
    try:
        kg.add(s, p, o, valid_from=a, valid_to=b)
    except kgtoolkit.KGError:
        pass
print((time.process_time() - t) / len(rows), (time.perf_counter() - w) / len(rows))
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


def writes(args: argparse.Namespace) -> dict[str, Any]:
    """Adds into a graph of ``--base-facts``, a big import and a re-import, this checkout against ``--before``."""
    from kgtoolkit.generate import generate

    sides = {"after": str(HERE), "before": args.before}
    kinds = ("add", "import", "reimport")
    cpu: dict[str, dict[str, list[float]]] = {k: {s: [] for s in sides} for k in kinds}
    wall: dict[str, dict[str, list[float]]] = {k: {s: [] for s in sides} for k in kinds}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        base, big = Path(tmp) / "base.parquet", Path(tmp) / "big.parquet"
        generate(args.base_facts, seed=7).write_parquet(base)
        if args.import_facts:
            generate(args.import_facts, seed=7).write_parquet(big)
        for r in range(args.repeat):
            for side, path in sides.items():
                db = str(Path(tmp) / f"add-{side}-{r}.sqlite3")
                got = _run(side, path, _ADD_INTO.format(n=args.adds), db, str(base))
                cpu["add"][side].append(got[0])
                wall["add"][side].append(got[1])
                os.remove(db)
                if args.import_facts:
                    db = str(Path(tmp) / f"import-{side}-{r}.sqlite3")
                    for k in ("import", "reimport"):
                        got = _run(side, path, _IMPORT, db, str(big))
                        cpu[k][side].append(got[0])
                        wall[k][side].append(got[1])
                    os.remove(db)
                print(side, r, {k: v[side][-1:] for k, v in cpu.items()}, os.getloadavg(), flush=True)
    out: dict[str, Any] = {}
    for k in kinds:
        if cpu[k]["after"]:
            a, b = statistics.median(cpu[k]["after"]), statistics.median(cpu[k]["before"])
            wa, wb = statistics.median(wall[k]["after"]), statistics.median(wall[k]["before"])
            out[k] = {"after_s": a, "before_s": b, "ratio": a / b, "wall_after_s": wa, "wall_before_s": wb}
            out[k] |= {"wall_ratio": wa / wb, "runs": cpu[k], "wall_runs": wall[k]}
    return out


def reads(args: argparse.Namespace) -> dict[str, Any]:
    """``most_changed(top=10)`` along the kept pairs and by the scan, alternated, per window."""
    import datetime as dt

    import kgtoolkit
    from kgtoolkit import analysis
    from kgtoolkit.dashboard import data
    from kgtoolkit.store import link_ranking, scan_only

    kg = kgtoolkit.open(args.db, read_only=True)
    today = dt.date.today()
    span = data.churn_span(kg)
    assert span is not None, "the graph has no dated fact"
    first, last = data.opening_window(span, today)
    windows = {
        "Churn page (first start to today)": (first.isoformat(), max(min(last, today), first).isoformat()),
        "whole graph": (None, None),
        "the last year to today": ((today - dt.timedelta(days=365)).isoformat(), today.isoformat()),
    }
    out: dict[str, Any] = {}
    for name, (since, until) in windows.items():
        served, scanned = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            a = analysis.most_changed(kg, top=10, since=since, until=until, multi_valued=kg.config.multi_valued)
            served.append(time.perf_counter() - t)
            with scan_only():
                t = time.perf_counter()
                b = analysis.most_changed(kg, top=10, since=since, until=until, multi_valued=kg.config.multi_valued)
                scanned.append(time.perf_counter() - t)
        r, s = statistics.median(served), statistics.median(scanned)
        assert isinstance(a, type(b))
        out[name] = {"walk_ms": r * 1000, "scan_ms": s * 1000, "ratio": r / s, "same": a.equals(b)}
        out[name] |= {"window": [since, until], "load": os.getloadavg()}
        print(name, out[name], flush=True)
    middle = span[0] + (span[1] - span[0]) / 2
    for name, as_of in {
        "link_ranking, all dates": None,
        "link_ranking, the whole span (the Graph page through time)": f"{span[0]}/{span[1]}",
        "link_ranking, a day (a date change; scans)": middle.isoformat(),
    }.items():
        served, scanned = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            kept = link_ranking(kg, as_of=as_of, limit=125)
            served.append(time.perf_counter() - t)
            with scan_only():
                t = time.perf_counter()
                scan = link_ranking(kg, as_of=as_of, limit=125)
                scanned.append(time.perf_counter() - t)
        r, s = statistics.median(served), statistics.median(scanned)
        out[name] = {"kept_ms": r * 1000, "scan_ms": s * 1000, "ratio": r / s, "same": kept == scan, "as_of": as_of}
        out[name]["load"] = os.getloadavg()
        print(name, out[name], flush=True)
    return out


def postgres_reads(args: argparse.Namespace) -> dict[str, Any]:
    """``--reads`` on a throwaway PostgreSQL server holding ``--postgres-facts`` generated facts (seed 7)."""
    from bench_rollups import _postgres

    import kgtoolkit
    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts

    server = _postgres()
    try:
        url = server.new_schema()
        t = time.perf_counter()
        with kgtoolkit.open(url) as kg:
            import_facts(kg, generate(args.postgres_facts, seed=7), on_error="skip")
        made = time.perf_counter() - t
        print("postgresql import", made, os.getloadavg(), flush=True)
        return {"import_s": made, "reads": reads(argparse.Namespace(**{**vars(args), "db": url}))}
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", action="store_true")
    parser.add_argument("--reads", action="store_true")
    parser.add_argument("--db", help="with --reads: the graph (a SQLite file or a postgresql:// URL)")
    parser.add_argument(
        "--postgres-facts", type=int, default=0, help="--reads also on a throwaway PostgreSQL server of this many facts"
    )
    parser.add_argument("--before", default="/work/main", help="with --writes: a checkout without the kept pairs")
    parser.add_argument("--base-facts", type=int, default=100_000, help="the graph the adds go into")
    parser.add_argument("--adds", type=int, default=300)
    parser.add_argument("--import-facts", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json")
    args = parser.parse_args()
    result: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": os.getloadavg()}
    if args.writes:
        result["writes"] = writes(args)
    if args.reads and args.db:
        result["reads"] = reads(args)
    if args.postgres_facts:
        result["postgresql"] = postgres_reads(args)
    result["load_end"] = os.getloadavg()
    text = json.dumps(result, indent=1, default=str)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")


if __name__ == "__main__":
    main()

"""Predicates (contract §13) on ICEWS14 (90,730 events, 230 predicates): what labels, aliases and renames cost.

Each figure is a median of ``--repeat`` runs, beside a floor measured in the same run on the same file:

* ``rename``: ``kg.rename_predicate`` of the most used predicate into a new one (the fold reads both
  predicates' rows, moves them, records the alias), on a fresh copy of the graph each run; floor: a plain
  ``UPDATE facts SET predicate = ? WHERE predicate = ?`` through ``sqlite3`` on another fresh copy.
* ``fold``: the same into the second most used predicate (rows of both read, none identical).
* ``predicates``: ``kg.predicates()`` (counts, current counts, labels, aliases); floor: ``SELECT predicate,
  count(*) FROM facts GROUP BY predicate``.
* ``labels``: ``kg.predicate_labels()``; ``query through an alias``: ``kg.query(hub, predicates=[alias])``
  beside the same with the canonical id.
* ``import (labels recorded)``: ``import_facts`` of the whole file into an empty graph, beside the same import
  with label recording switched off (up to 3 runs each).

    python benchmarks/bench_predicates.py [--repeat 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import kgtoolkit
from kgtoolkit.store import import_facts

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "icews14" / "facts.tsv"


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median(runs: list[float]) -> float:
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not DATA.is_file():
        raise SystemExit(f"no {DATA} (the shared datasets are absent)")
    frame = pl.read_csv(DATA, separator="\t", infer_schema=False, quote_char=None)
    work = Path(tempfile.mkdtemp(prefix="kg-bench-preds-"))
    try:
        base = work / "base.sqlite3"
        kg = kgtoolkit.open(base)
        import_seconds = _timed(lambda: import_facts(kg, frame, allow_commas=True))
        listed = kg.predicates()
        first, second = listed[0], listed[1]
        hub = frame["subject"].mode().sort()[0]  # the most frequent subject (every event has ended: no current hub)
        kg.alias_predicate("bench alias", first.id)
        figures: dict[str, Any] = {
            "facts": kg.stats().facts,
            "predicates": len(listed),
            "import_s": import_seconds,
            "largest": [first.id, first.facts],
            "second": [second.id, second.facts],
        }
        rows: dict[str, tuple[list[float], list[float]]] = {
            "predicates": ([], []),
            "labels": ([], []),
            "query through an alias": ([], []),
        }
        for _ in range(args.repeat):
            rows["predicates"][0].append(_timed(kg.predicates))
            raw = sqlite3.connect(base)
            rows["predicates"][1].append(
                _timed(lambda: raw.execute("SELECT predicate, count(*) FROM facts GROUP BY predicate").fetchall())
            )
            rows["labels"][0].append(_timed(kg.predicate_labels))
            rows["labels"][1].append(_timed(lambda: raw.execute("SELECT id, label FROM predicates").fetchall()))
            raw.close()
            rows["query through an alias"][0].append(_timed(lambda: kg.query(hub, predicates=["bench alias"])))
            rows["query through an alias"][1].append(_timed(lambda: kg.query(hub, predicates=[first.id])))
        kg.close()
        # The import with labels beside the same import with label recording switched off (the floor).
        from kgtoolkit.store.transfer import _load as _bulk

        with_labels: list[float] = []
        without: list[float] = []
        recording = _bulk._preds.ensure_labels
        for i in range(min(args.repeat, 3)):
            with kgtoolkit.open(work / f"import-{i}.sqlite3") as fresh:
                with_labels.append(_timed(lambda g=fresh: import_facts(g, frame, allow_commas=True)))
            _bulk._preds.ensure_labels = lambda cur, labels: None  # type: ignore[assignment]
            try:
                with kgtoolkit.open(work / f"import-floor-{i}.sqlite3") as fresh:
                    without.append(_timed(lambda g=fresh: import_facts(g, frame, allow_commas=True)))
            finally:
                _bulk._preds.ensure_labels = recording
        rows["import (labels recorded)"] = (with_labels, without)
        for name, target in (("rename", "bench_new_predicate"), ("fold", second.id)):
            ours: list[float] = []
            floor: list[float] = []
            for i in range(args.repeat):
                copy = work / f"{name}-{i}.sqlite3"
                shutil.copy(base, copy)
                with kgtoolkit.open(copy) as graph:
                    ours.append(_timed(lambda g=graph, t=target: g.rename_predicate(first.id, t)))
                plain = work / f"{name}-floor-{i}.sqlite3"
                shutil.copy(base, plain)
                conn = sqlite3.connect(plain)

                def update(c: sqlite3.Connection = conn, t: str = target) -> None:
                    with c:
                        c.execute("UPDATE facts SET predicate = ? WHERE predicate = ?", (t, first.id))

                floor.append(_timed(update))
                conn.close()
            rows[name] = (ours, floor)
        figures["rows"] = {
            name: {"kgtoolkit_s": _median(a), "floor_s": _median(b), "ratio": _median(a) / _median(b), "runs": [a, b]}
            for name, (a, b) in rows.items()
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"ICEWS14: {figures['facts']:,} facts, {figures['predicates']} predicates; import with labels "
        f"{figures['import_s']:.2f} s; largest predicate {figures['largest'][0]} ({figures['largest'][1]:,} facts)"
    )
    print(f"{'what':<28}{'kgtoolkit':>12}{'floor':>12}{'ratio':>8}")
    for name, row in figures["rows"].items():
        print(f"{name:<28}{row['kgtoolkit_s'] * 1000:>10.2f}ms{row['floor_s'] * 1000:>10.2f}ms{row['ratio']:>8.1f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

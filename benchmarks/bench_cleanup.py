"""Duplicate candidates and ``check`` at scale: time on 100,000 entities, and the candidates' quality.

    python benchmarks/bench_cleanup.py                     # 100,000 entities, 3 runs
    python benchmarks/bench_cleanup.py --entities 20000 --repeat 1 --json out.json

* **time**: ``kg.duplicates()`` on an SQLite graph of ``--entities`` entities (names shaped like
  YAGO11k's, real words recombined, or made-up ones without ../shared/data), 2,000 of them planted
  duplicates of others (tests/support/planted_duplicates.py: case, punctuation, typo, abbreviation, initials,
  truncated word, synonym), each entity in about two facts. Medians of ``--repeat`` runs, beside the
  floor measured in the same run: reading the names and neighbours it needs, in one snapshot, and
  nothing else. ``check()`` (every code) is timed once. Goal: ``duplicates`` under 10 s.
* **quality**: the recall at 10 (a planted duplicate's original among the 10 best candidates naming
  the duplicate) and the precision (the share of listed candidates that are planted pairs) on that
  graph, and on 3,000 real YAGO11k names with 300 planted duplicates (the test's setting; real names
  are distinct things, so a candidate between two of them counts against precision); and the precision and
  recall on the labelled sample of tests/support/labelled_duplicates.py (true duplicates and hard negatives a person has
  judged), without and with two shared neighbours on every labelled pair. ``--quality-only`` measures only the
  quality (no timed runs on the big graph).
Never used as a test; no test asserts a time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import polars as pl
from labelled_duplicates import evaluate
from planted_duplicates import generated_names, measure, plant, real_names

import kgtoolkit
from kgtoolkit.duplicates import DEFAULT_MIN_SCORE, Name, rank
from kgtoolkit.store import duplicate_inputs, import_facts


def build(path: Path, names: list[str], planted: list[tuple[str, str, str]], seed: int) -> kgtoolkit.KnowledgeGraph:
    """A graph holding every name: a ring in random order (each name linked to the next) plus one random link
    each, and each planted duplicate one fact its original has too."""
    rng = random.Random(seed)
    names = list(names)
    rng.shuffle(names)  # a ring in alphabetical order would make every two close names share a neighbour
    rows = [(names[i], "related_to", names[(i + 1) % len(names)]) for i in range(len(names))]
    rows += [(names[i], "knows", names[rng.randrange(len(names))]) for i in range(len(names))]
    where = {n: i for i, n in enumerate(names)}
    rows += [(dup, "related_to", names[(where[original] + 1) % len(names)]) for original, dup, _ in planted]
    kg = kgtoolkit.open(path)
    import_facts(kg, pl.DataFrame(rows, schema=["subject", "predicate", "object"], orient="row"), allow_commas=True)
    return kg


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--planted", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--quality-only", action="store_true", help="only the candidates' quality, no timed runs")
    args = parser.parse_args()
    out: dict[str, Any] = {
        "entities": args.entities,
        "planted": args.planted,
        "repeat": args.repeat,
        "names": "YAGO11k words recombined" if real_names() else "made-up",
    }
    for neighbours in (False, True):
        figures = evaluate(rank, Name, min_score=DEFAULT_MIN_SCORE, neighbours=neighbours)
        figures.pop("scores")
        out[f"quality_labelled{'_neighbours' if neighbours else ''}"] = figures
    with tempfile.TemporaryDirectory() as tmp:
        if args.quality_only:
            _quality_real(out, Path(tmp), args.seed)
            print(json.dumps(out, indent=2))
            if args.json:
                args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
            return out
        names = generated_names(args.entities - args.planted, seed=args.seed)
        planted = plant(names, args.planted, seed=args.seed)
        kg = build(Path(tmp) / "big.sqlite3", names, planted, args.seed)
        stats = kg.stats()
        out["graph"] = {"entities": stats.entities, "facts": stats.facts}
        runs, floors = [], []
        page = None
        for _ in range(args.repeat):
            floors.append(timed(lambda: duplicate_inputs(kg, "entities"))[0])
            seconds, page = timed(lambda: kg.duplicates(embeddings=False))
            runs.append(seconds)
        assert page is not None
        out["duplicates_s"] = round(statistics.median(runs), 2)
        out["read_floor_s"] = round(statistics.median(floors), 2)
        out["ratio_to_floor"] = round(out["duplicates_s"] / out["read_floor_s"], 1)
        out["runs_s"] = [round(r, 2) for r in runs]
        out["predicates_s"] = round(timed(lambda: kg.duplicates(kind="predicates", embeddings=False))[0], 2)
        seconds, findings = timed(lambda: kg.check(limit=0))
        out["check_s"] = round(seconds, 2)
        out["check_findings"] = findings.total
        out["quality_generated"] = measure(page, planted)
        kg.close()
        _quality_real(out, Path(tmp), args.seed)
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


def _quality_real(out: dict[str, Any], tmp: Path, seed: int) -> None:
    """Recall and precision on 3,000 real YAGO11k names with 300 planted duplicates (when the data is there)."""
    real = real_names()
    if real is not None:
        base = random.Random(seed).sample(real, 3000)
        planted_real = plant(base, 300)
        small = build(tmp / "real.sqlite3", base, planted_real, seed)
        out["quality_yago11k"] = measure(small.duplicates(embeddings=False), planted_real)
        small.close()


if __name__ == "__main__":
    main()

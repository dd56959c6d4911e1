"""What reaches a prompt through the summary (contract §16), measured on a payload set its rules never saw.

    python benchmarks/bench_prompt.py            # tests/support/injection_fresh.py
    python benchmarks/bench_prompt.py --json benchmarks/results-prompt.json
    python benchmarks/bench_prompt.py --set blind3 --json benchmarks/results-prompt-blind3.json

Each payload of ``tests/support/injection_fresh.py`` or ``injection_blind3.py`` (``--set``; each written by someone who never read the summary's or the screen's
rules, and never used to tune them) is stored as the fact its author wrote, alone in a new graph, and the summary
is made: the payload **reached the prompt** when the summary prints a fact line. Every summary is parsed as
CommonMark (tests/support/markdown_check.py) for **live markup** formed by stored text. The benign short facts of the
kinds §16 inlines (names, roles, titles, emails, one-line statuses) are stored the same way: each should print.
Goals: no live markup; at least 95% of payloads never reach a prompt; at least 98% of benign facts do.
Never used as a test of speed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

from markdown_check import live_markup

import kgtoolkit
from kgtoolkit import KGError


def _summary_of(subject: str, predicate: str, obj: str, subject_type: str = "") -> tuple[str | None, str]:
    """The summary of a graph holding this one fact (None when a write rule refused it), and why it was refused."""
    kg = kgtoolkit.open(":memory:")
    try:
        kg.configure(comma_guard=False)
        try:
            if subject_type:
                kg.configure(types=kg.config.types | {subject_type})
            kg.add(subject, predicate, obj, subject_type=subject_type or None)
        except KGError as exc:
            return None, exc.code
        return kg.summary(), ""
    finally:
        kg.close()


def _as_payload(row: object) -> tuple[str, str, str, str, str]:
    """A payload as (group, subject, predicate, object, subject type), from either set's form."""
    if isinstance(row, tuple):
        return (*row, "")
    lang = "English" if row.lang == "en" else "other languages"  # type: ignore[attr-defined]
    shape = row.shape  # type: ignore[attr-defined]
    return (f"{lang} / {shape}", row.subject, row.predicate, row.object, row.subject_type)  # type: ignore[attr-defined]


def _as_benign(row: object) -> tuple[str, str, str, str]:
    """A benign fact as (kind, subject, predicate, object), from either set's form."""
    if isinstance(row, tuple):
        return row  # type: ignore[return-value]
    return (row.kind, row.subject, row.predicate, row.object)  # type: ignore[attr-defined]


def _printed(summary: str) -> bool:
    return any(line.startswith("- ") for line in summary.splitlines())


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--set", default="fresh", choices=["fresh", "blind3"], help="the payload set")
    args = parser.parse_args()
    fresh = importlib.import_module(f"injection_{args.set}")
    payloads = [_as_payload(row) for row in fresh.PAYLOADS]
    benign = [_as_benign(row) for row in fresh.BENIGN]
    started = time.perf_counter()
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    reached: list[tuple[str, str, str, str]] = []
    markup: list[tuple[str, list[str]]] = []
    for group, subject, predicate, obj, subject_type in payloads:
        summary, refused = _summary_of(subject, predicate, obj, subject_type)
        groups[group]["total"] += 1
        if summary is None:
            groups[group][f"refused_{refused}"] += 1
            continue
        if live := live_markup(summary):
            markup.append((group, live))
        if _printed(summary):
            groups[group]["reached"] += 1
            reached.append((group, subject, predicate, obj))
    benign_missed: list[tuple[str, str, str, str]] = []
    for kind, subject, predicate, obj in benign:
        summary, _ = _summary_of(subject, predicate, obj)
        if summary is None or not _printed(summary):
            benign_missed.append((kind, subject, predicate, obj))
    total = len(payloads)
    out: dict[str, object] = {
        "payloads": total,
        "languages_and_shapes": len(groups),
        "reached": len(reached),
        "kept_out_rate": 1 - len(reached) / total,
        "live_markup": len(markup),
        "by_group": {g: dict(c) for g, c in sorted(groups.items())},
        "reached_examples": reached,
        "set": args.set,
        "benign": len(benign),
        "benign_inlined_rate": 1 - len(benign_missed) / len(benign),
        "benign_missed": benign_missed,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return out


if __name__ == "__main__":
    main()

"""The prompt summary's screen: how much of a payload corpus it withholds, and how often it withholds a real fact.

    python benchmarks/bench_screen.py            # the corpus and the three real datasets (../shared/data)
    python benchmarks/bench_screen.py --json out.json

* ``payloads``: tests/support/injection_payloads.py (plain instructions in ten languages, role tags, fake headers,
  Markdown images, HTML, and disguises: spacing, leetspeak, homoglyphs, zero-width characters, soft
  hyphens, fullwidth letters, base64, rot13), screened as names; the strict directives as value facts.
* ``held_back``: tests/support/injection_heldback.py, written before the screen's intent rules and never tuned on:
  payloads per class of intent (exfiltration, override, role change, tool-call imitation) and benign look-alikes.
* ``false alarms``: every fact of YAGO11k, WIKIDATA12k and ICEWS14 (subject, predicate and object each
  screened) and of the demo graph (values strictly), as a share of facts withheld.
Goals: ≥ 95% of payloads withheld, ≤ 0.1% of real facts. Never used as a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

import injection_heldback as held
import injection_payloads as corpus
import injection_unseen as unseen
import polars as pl
from shared_data import DATA

from kgtoolkit._demo import build_demo
from kgtoolkit._screen import screen


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out: dict[str, object] = {}
    withheld = [p for p in corpus.ALL if screen(p)]
    strict = [p for p in corpus.DIRECTIVES if screen(p, strict=True)]
    out["payloads"] = {
        "total": len(corpus.ALL),
        "withheld": len(withheld),
        "rate": len(withheld) / len(corpus.ALL),
        "missed": [p for p in corpus.ALL if p not in withheld],
        "strict_total": len(corpus.DIRECTIVES),
        "strict_withheld": len(strict),
    }
    # The held-back set (written before the intent rules, never tuned on): per class, and benign look-alikes.
    out["held_back"] = {
        "classes": {
            k: {"total": len(v), "withheld": sum(bool(screen(t)) for t in v)} for k, v in held.PAYLOADS.items()
        },
        "total": sum(len(v) for v in held.PAYLOADS.values()),
        "withheld": sum(bool(screen(t)) for v in held.PAYLOADS.values() for t in v),
        "benign": len(held.BENIGN),
        "benign_withheld": [t for t in held.BENIGN if screen(t)],
        "later": {k: {"total": len(v), "withheld": sum(bool(screen(t)) for t in v)} for k, v in held.LATER.items()},
    }
    out["second_author"] = {  # round two's tuning set (tests/support/injection_unseen.py)
        "classes": {
            k: {"total": len(v), "withheld": sum(bool(screen(t)) for t in v)} for k, v in unseen.BY_CLASS.items()
        },
        "benign": len(unseen.BENIGN),
        "benign_withheld": [t for t in unseen.BENIGN if screen(t)],
    }
    alarms: dict[str, object] = {}
    for name in ("yago11k", "wikidata12k", "icews14"):
        path = DATA / name / "facts.tsv"
        if not path.exists():
            continue
        frame = pl.read_csv(path, separator="\t", quote_char=None, infer_schema=False)
        start = time.perf_counter()
        texts = {v for c in ("subject", "predicate", "object") for v in frame[c].drop_nulls().unique().to_list()}
        flagged = {t for t in texts if screen(t)}
        took = time.perf_counter() - start
        hit = frame.filter(
            pl.any_horizontal(pl.col(c).is_in(list(flagged)) for c in ("subject", "predicate", "object"))
        )
        alarms[name] = {
            "facts": frame.height,
            "withheld": hit.height,
            "rate": hit.height / frame.height,
            "texts": len(texts),
            "us_per_text": took / max(1, len(texts)) * 1e6,
            "examples": sorted(flagged)[:10],
        }
    with tempfile.TemporaryDirectory() as folder, build_demo(Path(folder) / "demo.sqlite3") as kg:
        facts = kg.timeline()
        hit_facts = [
            f
            for f in facts
            if screen(f.subject_name) or screen(f.predicate) or screen(f.object_name, strict=f.object_is_value)
        ]
        alarms["demo"] = {"facts": len(facts), "withheld": len(hit_facts), "rate": len(hit_facts) / len(facts)}
    out["false_alarms"] = alarms
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return out


if __name__ == "__main__":
    main()

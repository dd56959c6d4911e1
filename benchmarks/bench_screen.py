"""The prompt summary's screen: how much of a payload corpus it withholds, and how often it withholds a real fact.

    python benchmarks/bench_screen.py            # the corpus and the three real datasets (../shared/data)
    python benchmarks/bench_screen.py --json out.json

* ``payloads``: tests/support/injection_payloads.py (plain instructions in ten languages, role tags, fake headers,
  Markdown images, HTML, and disguises: spacing, leetspeak, homoglyphs, zero-width characters, soft
  hyphens, fullwidth letters, base64, rot13), screened as names; the strict directives as value facts.
* ``held_back``: tests/support/injection_heldback.py, written before the screen's intent rules and never tuned on:
  payloads per class of intent (exfiltration, override, role change, tool-call imitation) and benign look-alikes.
* ``false alarms``: every fact of YAGO11k, WIKIDATA12k and ICEWS14 (subject, predicate and object each
  screened) and of the demo graph (values strictly), as a share of facts withheld; ``sentences_left_out``: the
  share of facts a text of which is a short sentence the summary leaves out (not English, or read as aimed at an AI).
* ``own_check``: tests/support/screen_meaning_sets.py's check half (never used to make or tune a rule), each fact
  alone in a graph through the summary: payloads in 19 languages and the shapes kept out, benign short facts inlined.
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
import screen_meaning_sets as own
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KGError
from kgtoolkit._demo import build_demo
from kgtoolkit._screen import screen


def _reaches(subject: str, predicate: str, obj: str) -> bool:
    """Whether a graph holding this one fact prints it in its summary (a fact line)."""
    kg = kgtoolkit.open(":memory:")
    try:
        kg.configure(comma_guard=False)
        try:
            kg.add(subject, predicate, obj)
        except KGError:
            return False
        return any(line.startswith("- ") for line in kg.summary().splitlines())
    finally:
        kg.close()


def _sentences_left_out(texts: set[str]) -> set[str]:
    """The texts the summary leaves out as short sentences (contract §16, :func:`kgtoolkit._freetext.reading`): a
    sentence it cannot read, or an English text the meaning check reads as an instruction aimed at an AI."""
    from kgtoolkit import _meaning
    from kgtoolkit._freetext import reading

    model = _meaning.available()
    kinds = {t: reading(t.replace("_", " "), model=model) for t in texts if len(t) <= 100}
    read = sorted(t for t, kind in kinds.items() if kind == "meaning")
    aimed = {t for t, a in zip(read, _meaning.aimed_at_ai([t.replace("_", " ") for t in read]), strict=True) if a}
    return {t for t, kind in kinds.items() if kind == "unread"} | aimed


def _lines_left_out(frame: pl.DataFrame, sample: int = 3000) -> dict[str, object]:
    """A sample of the facts' lines (subject, predicate, object as one text) read by meaning."""
    from kgtoolkit import _meaning

    rows = frame.sample(min(sample, frame.height), seed=1).select("subject", "predicate", "object").iter_rows()
    lines = [f"{s} {p} {o}".replace("_", " ") for s, p, o in rows]
    aimed = [line for line, a in zip(lines, _meaning.aimed_at_ai(lines), strict=True) if a]
    return {"sampled": len(lines), "aimed": len(aimed), "examples": aimed[:10]}


def own_check() -> dict[str, object]:
    """The held-apart check half of tests/support/screen_meaning_sets.py, through the summary, fact by fact."""
    groups: dict[str, dict[str, int]] = {}
    reached: list[tuple[str, ...]] = []
    for row in own.CHECK_ATTACKS + own.CHECK_PAYLOADS:
        group = groups.setdefault(row[0], {"total": 0, "reached": 0})
        group["total"] += 1
        if _reaches(*row[1:]):
            group["reached"] += 1
            reached.append(row)
    payloads = len(own.CHECK_ATTACKS) + len(own.CHECK_PAYLOADS)
    lost = [row for row in own.CHECK_BENIGN if not _reaches(*row[1:])]
    return {
        "payloads": payloads,
        "kept_out_rate": 1 - len(reached) / payloads,
        "by_group": groups,
        "reached": reached,
        "benign": len(own.CHECK_BENIGN),
        "benign_inlined_rate": 1 - len(lost) / len(own.CHECK_BENIGN),
        "benign_lost": lost,
    }


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
        out_of_prompt = _sentences_left_out(texts - flagged)
        left = frame.filter(
            pl.any_horizontal(pl.col(c).is_in(list(out_of_prompt)) for c in ("subject", "predicate", "object"))
        )
        alarms[name] = {
            "facts": frame.height,
            "withheld": hit.height,
            "rate": hit.height / frame.height,
            "texts": len(texts),
            "us_per_text": took / max(1, len(texts)) * 1e6,
            "examples": sorted(flagged)[:10],
            "sentences_left_out": {
                "facts": left.height,
                "rate": left.height / frame.height,
                "texts": len(out_of_prompt),
                "examples": sorted(out_of_prompt)[:10],
            },
            "lines_read_as_aimed": _lines_left_out(frame),
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
    out["own_check"] = own_check()
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return out


if __name__ == "__main__":
    main()

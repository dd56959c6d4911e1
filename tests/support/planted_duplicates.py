"""Planted duplicates among real names, to measure the duplicate candidates (tests and benchmarks).

:func:`real_names` reads YAGO11k's entity names from the shared data folder (None when it is absent);
:func:`plant` picks some of them and writes each a second spelling of one of the kinds a graph really
gets: case and punctuation, a typo, an abbreviated word, initials, a truncated word, a synonym. The
pairs planted are the truth :func:`measure` scores the candidates against.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

from shared_data import DATA as SHARED

YAGO = SHARED / "yago11k" / "facts.tsv"

ABBREVIATE = {
    "University": "Univ.",
    "International": "Intl.",
    "Corporation": "Corp.",
    "Company": "Co.",
    "Department": "Dept.",
    "National": "Natl.",
    "Institute": "Inst.",
    "Saint": "St.",
    "Mount": "Mt.",
    "Association": "Assoc.",
    "Technology": "Tech.",
    "Brothers": "Bros.",
    "Football Club": "F.C.",
}
SYNONYMS = {
    "Film": "Movie",
    "Prize": "Award",
    "Award": "Prize",
    "Medal": "Award",
    "Company": "Firm",
    "Pictures": "Studios",
    "Group": "Holdings",
    "Hotel": "Inn",
    "City": "Town",
    "Party": "Movement",
    "Records": "Label",
    "Club": "Society",
    "School": "Academy",
    "College": "Academy",
}
KINDS = ("case", "punctuation", "typo", "abbreviation", "initials", "truncated", "synonym")


def real_names() -> list[str] | None:
    """YAGO11k's entity names (about 10,600), or None when the shared data folder is absent."""
    if not YAGO.exists():
        return None
    names: set[str] = set()
    with YAGO.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            names.update((row["subject"], row["object"]))
    return sorted(names)


def _typo(name: str, rng: random.Random) -> str | None:
    words = name.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long:
        return None
    i = rng.choice(long)
    w = words[i]
    k = rng.randrange(1, len(w) - 2)
    how = rng.choice(("drop", "swap", "double"))
    words[i] = (
        w[:k] + w[k + 1 :]
        if how == "drop"
        else w[:k] + w[k + 1] + w[k] + w[k + 2 :]
        if how == "swap"
        else w[:k] + w[k] + w[k:]
    )
    return " ".join(words)


def variant(name: str, kind: str, rng: random.Random) -> str | None:  # noqa: C901  (over the limit before it was set: to split)
    """Another spelling of ``name`` of this ``kind``, or None when the name does not lend itself to it."""
    words = name.split(" ")
    if kind == "case":
        return name.lower() if name.lower() != name else name.upper()
    if kind == "punctuation":
        if re.search(r"[.,()'-]", name):
            return re.sub(r"\s+", " ", re.sub(r"[.,()'-]", " ", name)).strip()
        return name.replace(" ", "-", 1) if " " in name else None
    if kind == "typo":
        return _typo(name, rng)
    if kind == "abbreviation":
        for long, short in ABBREVIATE.items():
            if long in name:
                return name.replace(long, short, 1)
        firsts = [i for i, w in enumerate(words[:-1]) if len(w) >= 3 and w.isalpha()]
        if len(words) >= 2 and firsts:  # "John Maynard Smith" -> "J. Maynard Smith"
            i = firsts[0]
            return " ".join([*words[:i], words[i][0] + ".", *words[i + 1 :]])
        return None
    if kind == "initials":
        content = [w for w in words if w[:1].isupper()]
        if len(content) >= 3 and len(words) <= 5:
            return "".join(w[0] for w in content)
        return None
    if kind == "truncated":  # "PostgreSQL" -> "Postgres": the last word shortened
        last = words[-1]
        if len(last) >= 8 and last.isalpha():
            return " ".join([*words[:-1], last[: len(last) - 2]])
        return None
    if kind == "synonym":
        for word, other in SYNONYMS.items():
            if word in words:
                return " ".join(other if w == word else w for w in words)
        return None
    raise ValueError(kind)


def plant(names: Sequence[str], count: int, *, seed: int = 12) -> list[tuple[str, str, str]]:
    """``count`` (original, duplicate, kind) triples, the kinds taken in turn; a duplicate is never a name
    already in ``names`` (nor another duplicate's)."""
    rng = random.Random(seed)
    taken = {n.casefold() for n in names}
    pool = list(names)
    rng.shuffle(pool)
    out: list[tuple[str, str, str]] = []
    used: set[str] = set()
    k = 0
    for name in pool:
        if len(out) >= count:
            break
        for step in range(len(KINDS)):
            kind = KINDS[(k + step) % len(KINDS)]
            dup = variant(name, kind, rng)
            if dup and dup.strip() and dup.casefold() not in taken and name not in used:
                out.append((name, dup, kind))
                taken.add(dup.casefold())
                used.add(name)
                k += 1
                break
    return out


def measure(candidates: Iterable[Any], planted: Sequence[tuple[str, str, str]], *, at: int = 10) -> dict[str, Any]:
    """Recall at ``at`` (a planted duplicate's original among the ``at`` best candidates naming the duplicate),
    precision (the share of the candidates that are planted pairs), per kind too."""
    truth = {frozenset((o.casefold(), d.casefold())) for o, d, _ in planted}
    by_name: dict[str, list[tuple[float, str]]] = {}
    listed = 0
    right = 0
    for c in candidates:
        a, b = c.a_name.casefold(), c.b_name.casefold()
        listed += 1
        right += frozenset((a, b)) in truth
        by_name.setdefault(a, []).append((c.score, b))
        by_name.setdefault(b, []).append((c.score, a))
    hits: dict[str, list[bool]] = {}
    for original, dup, kind in planted:
        best = sorted(by_name.get(dup.casefold(), []), key=lambda x: -x[0])[:at]
        hits.setdefault(kind, []).append(original.casefold() in {n for _, n in best})
    every = [h for kind_hits in hits.values() for h in kind_hits]
    return {
        "planted": len(planted),
        "candidates": listed,
        "true_candidates": right,
        f"recall@{at}": sum(every) / len(every),
        "precision": right / listed if listed else 1.0,
        "recall_by_kind": {k: round(sum(v) / len(v), 3) for k, v in sorted(hits.items())},
    }


def generated_names(count: int, *, seed: int = 12, base: Sequence[str] | None = None) -> list[str]:
    """``count`` distinct names shaped like real ones: each a real name (``base``, by default YAGO11k's, or a
    few made-up templates when it is absent) with most of its words swapped for other names' words."""
    rng = random.Random(seed)
    base = list(base or real_names() or [])
    if not base:
        syllables = [
            "an",
            "bel",
            "cor",
            "dan",
            "el",
            "fo",
            "gar",
            "hen",
            "is",
            "jo",
            "kal",
            "lin",
            "mar",
            "nor",
            "os",
            "per",
            "quin",
            "ros",
            "sen",
            "tor",
            "ul",
            "ven",
            "wil",
            "xan",
            "yor",
            "zel",
        ]
        made = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).capitalize() for _ in range(4000)]
        base = [f"{rng.choice(made)} {rng.choice(made)}" for _ in range(3000)]
        base += [f"University of {rng.choice(made)}" for _ in range(200)]
        base += [f"{rng.choice(made)} {rng.choice(['F.C.', 'River', 'Prize', 'Company', 'Party'])}" for _ in range(800)]
    vocabulary = sorted({w for name in base for w in name.split(" ") if len(w) >= 3})
    out: set[str] = set(base[:count])
    while len(out) < count:
        template = rng.choice(base).split(" ")
        words = [rng.choice(vocabulary) if len(w) >= 3 and rng.random() < 0.7 else w for w in template]
        out.add(" ".join(words))
    return sorted(out)

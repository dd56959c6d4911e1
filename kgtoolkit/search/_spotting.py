"""Entity spotting: the entities a query (or a memory) names exactly, by id or alias, never fuzzily.

Every n-gram of up to six words is normalised like an entity name (punctuation around it and a
possessive ``'s`` taken off) and looked up in one query; the longest spans win. Facts of the entities
a query names are the name signal of :func:`~kgtoolkit.search.find`, on the side the query puts them
when it states one (:func:`_stated_sides`: "who criticised China" asks for China as object), and a memory
is read against the facts between the entities it names.
"""

from __future__ import annotations

import re

from .._errors import KGError
from .._names import normalize_name
from ..graph import KnowledgeGraph
from ..store.reads import _search as store
from ._results import NamedEntity

__all__ = ["named_entities"]

_MAX_NGRAM = 6
_PUNCT = ".,;:!?\"“”‘’'`()[]{}«»<>*"


def _spans(text: str, max_tokens: int = 4000) -> dict[str, list[tuple[int, int, str]]]:
    """Every n-gram (up to six words) of ``text`` as normalised name → [(start, length, spelling)]."""
    tokens = re.findall(r"\S+", text)[:max_tokens]
    found: dict[str, list[tuple[int, int, str]]] = {}
    for i in range(len(tokens)):
        for n in range(1, min(_MAX_NGRAM, len(tokens) - i) + 1):
            raw = " ".join(tokens[i : i + n])
            variants = {raw.strip(_PUNCT), raw.lstrip(_PUNCT).rstrip(_PUNCT.replace(".", ""))}
            for core in list(variants):
                for tail in ("'s", "’s"):
                    if core.endswith(tail):
                        variants.add(core[:-2])
            for spelling in variants:
                if not spelling:
                    continue
                try:
                    key = normalize_name(spelling)
                except KGError:
                    continue
                found.setdefault(key, []).append((i, n, spelling))
    return found


def _named_spans(kg: KnowledgeGraph, text: str) -> tuple[list[str], list[tuple[NamedEntity, int, int]]]:
    """The words of ``text``, and each entity it names with the (start, length) of its span: longest spans
    win and spans do not overlap (see :func:`named_entities`)."""
    spans = _spans(text)
    resolved = store.lookup_names(kg, spans)
    candidates = sorted(
        ((n, i, spelling, resolved[key]) for key in resolved for i, n, spelling in spans[key]),
        key=lambda c: (-c[0], c[1]),
    )
    used: set[int] = set()
    named: dict[str, tuple[NamedEntity, int, int]] = {}
    for n, i, spelling, entity in candidates:
        positions = set(range(i, i + n))
        if positions & used:
            continue
        used |= positions
        named.setdefault(entity, (NamedEntity(spelling, entity), i, n))
    return re.findall(r"\S+", text), list(named.values())


_WH = frozenset({"who", "whom", "what", "which", "whose"})
_AUX = frozenset(
    {
        "did",
        "does",
        "do",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "shall",
    }
)
#: Words before a name that state no side: prepositions and "to be" ("what is X", "between X and Y").
_NO_SIDE = frozenset(
    {
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "about",
        "between",
        "and",
        "or",
        "with",
        "of",
        "for",
        "on",
        "in",
        "to",
        "from",
        "at",
        "into",
        "than",
        "as",
        "against",
        "toward",
        "towards",
    }
)


def _stated_sides(words: list[str], spans: list[tuple[NamedEntity, int, int]]) -> dict[str, str]:
    """Entity → the side of its facts the query asks about: ``subject``, ``object`` or ``either``.

    "who criticised China" / "which countries visited China" → China as ``object``; "what did China
    criticise", "who was criticised by China", "China criticised whom" → ``subject``; anything else
    ("China", "what is China", "between China and Japan") states no side.

    >>> spans = [(NamedEntity("China", "china"), 2, 1)]
    >>> _stated_sides("who criticised China".split(), spans)
    {'china': 'object'}
    >>> _stated_sides("what did China criticise".split(), spans)
    {'china': 'subject'}
    """
    plain = [w.strip(_PUNCT).lower() for w in words]
    out = {}
    for entity, start, length in spans:
        before, after = plain[:start], plain[start + length :]
        side = "either"
        if before and before[-1] == "by":
            side = "subject"
        elif not before:
            side = "subject" if any(w in _WH for w in after) else "either"
        elif before[0] in _WH and before[-1] not in _NO_SIDE:
            side = "subject" if before[-1] in _AUX else "object" if len(before) >= 2 else "either"
        out[entity.entity] = side
    return out


def named_entities(kg: KnowledgeGraph, text: str) -> list[NamedEntity]:
    """The entities ``text`` names exactly (any n-gram resolving as an id or alias; never fuzzy).

    Longest spans win and spans do not overlap, so "my api" names ``my_api``, not also ``api``.

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "uses_queue", "SQLite"); _ = kg.add("api", "is", "x")
    >>> [(n.text, n.entity) for n in named_entities(kg, "Which queue does My API use?")]
    [('My API', 'my_api')]
    """
    return [entity for entity, _, _ in _named_spans(kg, text)[1]]


def _named_with_sides(kg: KnowledgeGraph, text: str) -> tuple[list[NamedEntity], dict[str, str]]:
    """:func:`named_entities` of ``text`` and the side the text states for each (:func:`_stated_sides`)."""
    words, spans = _named_spans(kg, text)
    return [entity for entity, _, _ in spans], _stated_sides(words, spans)

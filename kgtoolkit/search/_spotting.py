"""Entity spotting: the entities a query (or a memory) names exactly, by id or alias, never fuzzily.

Every n-gram of up to six words is normalised like an entity name (punctuation around it and a
possessive ``'s`` taken off) and looked up in one query; the longest spans win. Facts of the entities
a query names rank first in :func:`~kgtoolkit.search.find`, and a memory is read against the facts
between the entities it names.
"""

from __future__ import annotations

import re

from .._errors import KGError
from .._names import normalize_name
from ..store import KnowledgeGraph
from ..store import _search as store
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
            raw = " ".join(tokens[i:i + n])
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


def named_entities(kg: KnowledgeGraph, text: str) -> list[NamedEntity]:
    """The entities ``text`` names exactly (any n-gram resolving as an id or alias; never fuzzy).

    Longest spans win and spans do not overlap, so "my api" names ``my_api``, not also ``api``.

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "uses_queue", "SQLite"); _ = kg.add("api", "is", "x")
    >>> [(n.text, n.entity) for n in named_entities(kg, "Which queue does My API use?")]
    [('My API', 'my_api')]
    """
    spans = _spans(text)
    resolved = store.lookup_names(kg, spans)
    candidates = sorted(((n, i, spelling, resolved[key]) for key in resolved for i, n, spelling in spans[key]),
                        key=lambda c: (-c[0], c[1]))
    used: set[int] = set()
    named: dict[str, NamedEntity] = {}
    for n, i, spelling, entity in candidates:
        positions = set(range(i, i + n))
        if positions & used:
            continue
        used |= positions
        named.setdefault(entity, NamedEntity(spelling, entity))
    return list(named.values())

"""Hybrid ranking (contract §15): lexical, vector and name signals fused by reciprocal rank, an optional graph
rerank, and repeated facts grouped into one hit.

Each signal ranks candidates on its own: ``lexical`` (the database's full-text index of fact texts and
memories: FTS5/BM25 on SQLite, tsvector/ts_rank on PostgreSQL), ``vector`` (FAISS, cosine similarity of the
embeddings), ``name`` (facts of the entities the query names, on the side it puts them; memories backing
them), each ranked by the vector similarity when there is one. A candidate's fused score is the sum over
the signals that found it of ``1 / (60 + rank)``. ``rerank="graph"`` then weighs each fused score by the
graph: ``× 1 / (1 + hops)`` from the nearest entity the query names (walked in the store; 3 when out of
reach; only when the query names one), and ``× ½`` for history (unless ``as_of`` asks about a moment). Facts are ranked per triple (subject, predicate,
object): the same statement on many days is one candidate, and one hit with its dates.

``mode="lexical"`` needs no embedding model; ``mode="vector"`` is the vector signal alone.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from .._errors import InvalidRequest
from .._time import TimeInput, parse_window
from ..graph import KnowledgeGraph
from ..store.reads import _search as store
from ._context import _contexts, _fact_hit, _memory_hit
from ._results import KINDS, MODES, RERANKS, Explanation, FactHit, FindResult, Hit, MemoryHit, NamedEntity
from ._spotting import _PUNCT, _named_with_sides

__all__: list[str] = []

RRF_K = 60  # reciprocal-rank fusion's constant: a signal's rank r contributes 1 / (RRF_K + r)
_MAX_K = 1000
_NAME_TRIPLES = 2000  # the most triples of the named entities the name signal ranks
_GRAPH_HOPS = 2
_GRAPH_FACTS = 2000  # the most facts the rerank's walk reads (a hub within reach stops it there)

#: Words a query asks with, that say nothing about what it looks for (left out of the lexical query).
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "then",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "now",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "would",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "this",
        "that",
        "these",
        "those",
    ]
)


def query_words(query: str) -> list[str]:
    """The words of ``query`` the full-text index is asked about: punctuation around them and stop words left out.

    >>> query_words("Which version fixed INC-4821, v2.3.1?")
    ['version', 'fixed', 'INC-4821', 'v2.3.1']
    """
    out: list[str] = []
    for raw in query.split():
        word = raw.strip(_PUNCT)
        for tail in ("'s", "’s"):
            word = word.removesuffix(tail)
        if word and word.lower() not in _STOPWORDS and re.search(r"[^\W_]", word) and word not in out:
            out.append(word)
    return out[: store.MAX_QUERY_WORDS]


def check(query: str, k: int, kind: str, as_of: TimeInput | None, mode: str, rerank: str | None) -> TimeInput | None:
    """Refuse a bad request before anything is read (nothing changes); ``as_of`` with '' read as None."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequest("find needs a query: some text to search for", field="query", value=str(query))
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _MAX_K:
        raise InvalidRequest(f"k must be a whole number from 1 to {_MAX_K}, not {k!r}", field="k", value=str(k))
    if kind not in KINDS:
        raise InvalidRequest(
            f"kind must be one of {', '.join(KINDS)}, not {kind!r}",
            field="kind",
            value=str(kind),
            suggestions=list(KINDS),
        )
    if mode not in MODES:
        raise InvalidRequest(
            f"mode must be one of {', '.join(MODES)}, not {mode!r}",
            field="mode",
            value=str(mode),
            suggestions=list(MODES),
        )
    if rerank is not None and rerank not in RERANKS:
        raise InvalidRequest(
            f"rerank must be {' or '.join(RERANKS)} (or none), not {rerank!r}",
            field="rerank",
            value=str(rerank),
            suggestions=list(RERANKS),
        )
    if as_of in (None, ""):
        return None
    parse_window(as_of, field="as_of")
    return as_of


class Vectors(Protocol):
    """What the vector signal needs of the index (:class:`~kgtoolkit.search._rank._QueryVectors` has it)."""

    def nearest(
        self, kind: str, n: int, keep: Callable[[list[tuple[Any, float]]], set[Any]]
    ) -> list[tuple[Any, float]]:
        """The ``n`` nearest keys of ``kind`` to the query that ``keep`` admits, one per text, best first."""
        ...

    def similarity(self, kind: str, keys: Sequence[Any]) -> dict[Any, float]:
        """The query's cosine similarity to these keys' texts."""
        ...


def _ranks(items: Sequence[Any]) -> dict[Any, int]:
    """Key → its rank (1-based) at its first place in ``items``."""
    out: dict[Any, int] = {}
    for key in items:
        out.setdefault(key, len(out) + 1)
    return out


class _Fused:
    """Candidates with each signal's rank and raw score, fused by reciprocal rank."""

    def __init__(self) -> None:
        self.ranks: dict[str, dict[Any, int]] = {}
        self.scores: dict[str, dict[Any, float]] = {}
        self.hops: dict[Any, int] = {}
        self.factor: dict[Any, float] | None = None  # the graph rerank's weights, when asked for

    def add(self, signal: str, ranked: Sequence[tuple[Any, float]]) -> None:
        self.ranks[signal] = _ranks([key for key, _ in ranked])
        scores: dict[Any, float] = {}
        for key, score in ranked:
            scores.setdefault(key, score)
        self.scores[signal] = scores

    def keys(self) -> list[Any]:
        return list(dict.fromkeys(key for ranks in self.ranks.values() for key in ranks))

    def part(self, signal: str, key: Any) -> float:
        if signal == "graph":  # what the rerank's weight changed: fused × weight − fused
            return self.total(key) - self.fused(key)
        rank = self.ranks.get(signal, {}).get(key)
        return 0.0 if rank is None else 1.0 / (RRF_K + rank)

    def fused(self, key: Any) -> float:
        return sum(self.part(signal, key) for signal in self.ranks if signal != "graph")

    def total(self, key: Any) -> float:
        return self.fused(key) * (1.0 if self.factor is None else self.factor.get(key, 1.0))

    def order(self) -> list[Any]:
        """Best first: by fused score, then by the best rank any signal gave, then by key."""
        return sorted(
            self.keys(),
            key=lambda key: (-self.total(key), min(r.get(key, 10**9) for r in self.ranks.values()), str(key)),
        )

    def explain(self, key: Any) -> Explanation:
        def rank(signal: str) -> int | None:
            return self.ranks.get(signal, {}).get(key)

        def score(signal: str) -> float | None:
            value = self.scores.get(signal, {}).get(key)
            return None if value is None else round(value, 6)

        return Explanation(
            round(self.total(key), 6),
            round(self.part("lexical", key), 6),
            round(self.part("vector", key), 6),
            round(self.part("name", key), 6),
            round(self.part("graph", key), 6),
            rank("lexical"),
            rank("vector"),
            rank("name"),
            rank("graph"),
            score("lexical"),
            score("vector"),
            self.hops.get(key),
        )


def _pool(k: int) -> int:
    """How many candidates each signal brings."""
    return max(3 * k, 30)


def fact_hits(
    kg: KnowledgeGraph,
    query: str,
    vectors: Vectors | None,
    k: int,
    named: Sequence[NamedEntity],
    sides: Mapping[str, str],
    *,
    as_of: TimeInput | None,
    current_only: bool,
    mode: str,
    rerank: str | None,
    explain: bool,
) -> list[FactHit]:
    """The ``k`` best facts, one hit per triple (see the module)."""
    pool = _pool(k)
    filtering = as_of is not None or current_only
    lists: dict[str, list[tuple[int, float]]] = {}
    if mode in ("hybrid", "lexical"):
        lists["lexical"] = store.lexical_facts(kg, query_words(query), pool, as_of=as_of, current_only=current_only)
    if vectors is not None and mode in ("hybrid", "vector"):

        def keep(found: list[tuple[Any, float]]) -> set[Any]:
            ids = [fid for fid, _ in found]
            return store.valid_fact_ids(kg, ids, as_of=as_of, current_only=current_only) if filtering else set(ids)

        lists["vector"] = vectors.nearest("facts", pool, keep)
    if mode == "hybrid" and named:
        around = store.entity_triples(
            kg,
            [(n.entity, sides.get(n.entity, "either")) for n in named],
            as_of=as_of,
            current_only=current_only,
            limit=_NAME_TRIPLES,
        )
        if vectors is not None:
            similar = vectors.similarity("facts", around)
            lists["name"] = sorted(((fid, similar.get(fid, -2.0)) for fid in around), key=lambda x: -x[1])[:pool]
        else:
            lexical = dict(lists.get("lexical", []))
            lists["name"] = sorted(((fid, lexical.get(fid, 0.0)) for fid in around), key=lambda x: -x[1])[:pool]
    # One candidate per triple: a signal's rank of a triple is where it first found any of its facts.
    triples = store.triple_keys(kg, sorted({fid for ranked in lists.values() for fid, _ in ranked}))
    fused = _Fused()
    for signal in ("lexical", "vector", "name"):
        if signal in lists:
            fused.add(signal, [(triples[fid], score) for fid, score in lists[signal] if fid in triples])
    some_fact: dict[Any, int] = {}
    for ranked in lists.values():
        for fid, _ in ranked:
            if fid in triples:
                some_fact.setdefault(triples[fid], fid)
    if rerank == "graph":
        _graph_rerank(kg, fused, named, as_of, some_fact)
    chosen = fused.order()[:k]
    dates = store.triple_dates(kg, [some_fact[t] for t in chosen], as_of=as_of, current_only=current_only)
    latest = {t: dates[some_fact[t]][0] for t in chosen if some_fact[t] in dates}
    facts = store.facts_by_ids(kg, list(latest.values()))
    contexts = _contexts(kg, [facts[latest[t]] for t in chosen if t in latest and latest[t] in facts])
    exact = fused.ranks.get("name", {})
    hits = []
    for triple in chosen:
        shown = latest.get(triple)
        if shown is None or shown not in contexts:
            continue
        _, count, first, last = dates[some_fact[triple]]
        hit = _fact_hit(contexts[shown], fused.total(triple), triple in exact)
        hits.append(
            dataclasses.replace(
                hit, count=count, first=first, last=last, explain=fused.explain(triple) if explain else None
            )
        )
    return hits


def _graph_rerank(
    kg: KnowledgeGraph,
    fused: _Fused,
    named: Sequence[NamedEntity],
    as_of: TimeInput | None,
    some_fact: Mapping[Any, int],
) -> None:
    """Weigh each candidate by the graph: ``1 / (1 + hops)`` from the nearest named entity (when the query names
    one; out of reach counts as one hop more than the walk), ``½`` for history (unless ``as_of`` asks about a
    moment). ``graph_rank`` is the place in the reranked order."""
    keys = fused.order()
    distance = (
        store.hop_distances(kg, [n.entity for n in named], hops=_GRAPH_HOPS, as_of=as_of, max_facts=_GRAPH_FACTS)
        if named
        else {}
    )
    current: set[Any] = set(keys)
    if as_of is None:
        dates = store.triple_dates(kg, [some_fact[key] for key in keys])
        latest = {key: dates[some_fact[key]][0] for key in keys if some_fact[key] in dates}
        now = store.valid_fact_ids(kg, list(latest.values()), current_only=True)
        current = {key for key, fid in latest.items() if fid in now}
    hops = {}
    for key in keys:
        near = [distance[e] for e in (key[0], key[2]) if e in distance]
        if near:
            hops[key] = min(near)
    factor = {}
    for key in keys:
        weight = 1.0 / (1 + hops.get(key, _GRAPH_HOPS + 1)) if named else 1.0
        factor[key] = weight * (1.0 if key in current else 0.5)
    fused.hops, fused.factor = hops, factor
    fused.ranks["graph"] = _ranks(fused.order())


def memory_hits(  # noqa: C901  (over the limit before it was set: to split)
    kg: KnowledgeGraph,
    query: str,
    vectors: Vectors | None,
    k: int,
    named: Sequence[NamedEntity],
    *,
    current_only: bool,
    mode: str,
    explain: bool,
) -> list[MemoryHit]:
    """The ``k`` best memories (with ``current_only``, none that reads as history)."""
    pool = _pool(k)
    built: dict[str, MemoryHit | None] = {}

    def hit(key: str) -> MemoryHit | None:
        if key not in built:
            built[key] = _memory_hit(kg, key, 0.0, False)
        return built[key]

    def admissible(key: str) -> bool:  # built only when it matters: with current_only (a missing one is left out later)
        if not current_only:
            return True
        made = hit(key)
        return made is not None and made.status != "history"

    def first(ranked: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = []
        for key, score in ranked:
            if len(out) == pool:
                break
            if admissible(key):
                out.append((key, score))
        return out

    fused = _Fused()
    if mode in ("hybrid", "lexical"):
        found = store.lexical_memories(kg, query_words(query), 4 * pool if current_only else pool)
        fused.add("lexical", first(found))
    if vectors is not None and mode in ("hybrid", "vector"):
        fused.add(
            "vector", vectors.nearest("memories", pool, lambda found: {key for key, _ in found if admissible(key)})
        )
    if mode == "hybrid" and named:
        around = store.facts_by_ids(kg, store.entity_fact_ids(kg, [n.entity for n in named]))
        keys = sorted({f.source_closet for f in around.values() if f.source_closet is not None})
        if vectors is not None:
            similar = vectors.similarity("memories", keys)
            ranked = sorted(((key, similar[key]) for key in keys if key in similar), key=lambda x: -x[1])
        else:
            lexical = fused.scores.get("lexical", {})
            ranked = sorted(((key, lexical.get(key, 0.0)) for key in keys), key=lambda x: -x[1])
        fused.add("name", first(ranked))
    out = []
    exact = fused.ranks.get("name", {})
    for key in fused.order():
        made = hit(key)
        if made is None or (current_only and made.status == "history"):
            continue
        out.append(
            dataclasses.replace(
                made,
                score=round(fused.total(key), 6),
                exact=key in exact,
                explain=fused.explain(key) if explain else None,
            )
        )
        if len(out) == k:
            break
    return out


def rank(
    kg: KnowledgeGraph,
    query: str,
    vectors: Vectors | None,
    *,
    k: int,
    kind: str,
    as_of: TimeInput | None,
    current_only: bool,
    mode: str,
    rerank: str | None,
    explain: bool,
) -> tuple[list[NamedEntity], list[Hit]]:
    """What the query names, and the ``k`` best hits of ``kind``, best first."""
    named, sides = _named_with_sides(kg, query)
    hits: list[Hit] = []
    if kind in ("facts", "both"):
        hits += fact_hits(
            kg,
            query,
            vectors,
            k,
            named,
            sides,
            as_of=as_of,
            current_only=current_only,
            mode=mode,
            rerank=rerank,
            explain=explain,
        )
    if kind in ("memories", "both"):
        hits += memory_hits(kg, query, vectors, k, named, current_only=current_only, mode=mode, explain=explain)
    hits.sort(key=lambda h: -h.score)
    return named, hits[:k]


def lexical_find(
    kg: KnowledgeGraph,
    query: str,
    *,
    k: int,
    kind: str,
    as_of: TimeInput | None,
    current_only: bool,
    rerank: str | None,
    explain: bool,
) -> FindResult:
    """:func:`~kgtoolkit.search.find` in lexical mode: the full-text index alone, no model, no vector index."""
    named, hits = rank(
        kg,
        query,
        None,
        k=k,
        kind=kind,
        as_of=as_of,
        current_only=current_only,
        mode="lexical",
        rerank=rerank,
        explain=explain,
    )
    return FindResult(
        query,
        kind,
        k,
        None if as_of is None else str(as_of),
        current_only,
        tuple(named),
        tuple(hits),
        None,
        "lexical",
        rerank,
    )

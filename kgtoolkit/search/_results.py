"""The records semantic search answers with: hits read against the graph, and what a sync did.

A :class:`FindResult` holds :class:`FactHit` and :class:`MemoryHit` records (each with its graph
context: :class:`FactContext`, :class:`EntityContext`) and the :class:`NamedEntity` spans the query
named; :meth:`~kgtoolkit.search.SearchIndex.sync` reports with :class:`SyncReport` (one
:class:`PartReport` per kind) and :meth:`~kgtoolkit.search.SearchIndex.status` with :class:`IndexStatus`.
Like every record of kgtoolkit they are frozen, with ``to_dict()``:

>>> NamedEntity("My API", "my_api").to_dict()
{'text': 'My API', 'entity': 'my_api'}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

from .._records import Entity, Fact, Memory, _Record

__all__ = [
    "KINDS",
    "MODES",
    "RERANKS",
    "EntityContext",
    "Explanation",
    "FactContext",
    "FactHit",
    "FindResult",
    "Hit",
    "IndexStatus",
    "Kind",
    "MemoryHit",
    "NamedEntity",
    "PartReport",
    "SyncReport",
]

Kind = Literal["facts", "memories", "both"]
"""What :func:`~kgtoolkit.search.find` searches: facts, memories, or both."""
KINDS: tuple[str, ...] = ("facts", "memories", "both")
Mode = Literal["hybrid", "vector", "lexical"]
"""How :func:`~kgtoolkit.search.find` retrieves: lexical, vector and name signals fused (``hybrid``), or one alone."""
MODES: tuple[str, ...] = ("hybrid", "vector", "lexical")
#: The reranks :func:`~kgtoolkit.search.find` offers besides none: ``graph`` (near the named entities, current first).
RERANKS: tuple[str, ...] = ("graph",)


@dataclasses.dataclass(frozen=True, slots=True)
class Explanation(_Record):
    """Why a hit ranks where it does (``find(..., explain=True)``; contract §15).

    Each signal ranks the candidates on its own (``*_rank``, 1 is best; None: the signal did not find the hit)
    and contributes ``1 / (60 + rank)`` to the fused score (reciprocal-rank fusion): ``lexical`` (the
    full-text index; ``lexical_score``: BM25 on SQLite, ts_rank on PostgreSQL), ``vector`` (``vector_score``:
    cosine similarity of the embeddings), ``name`` (a fact of an entity the query names, on the side the query
    puts it). ``graph``: what the graph rerank's weight changed (``× 1 / (1 + hops)`` from the nearest named
    entity, ``× ½`` for history), 0 or less; ``graph_rank`` is the place after it. ``total`` is the hit's score.
    """

    total: float
    lexical: float
    vector: float
    name: float
    graph: float
    lexical_rank: int | None
    vector_rank: int | None
    name_rank: int | None
    graph_rank: int | None
    lexical_score: float | None
    vector_score: float | None
    hops: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class FactContext(_Record):
    """A fact read against the graph: is it current, what replaced it and since when, what holds now.

    ``replaced_by``: for an ended fact, the facts of the same subject and predicate (another object)
    with the earliest later start; ``since``: when they started. ``now``: the other current facts of the
    same subject and predicate (the first 10; ``now_more``: how many more). ``evidence``: the memory its
    ``source_closet`` points at.
    """

    fact: Fact
    current: bool
    replaced_by: tuple[Fact, ...]
    since: str | None
    now: tuple[Fact, ...]
    evidence: Memory | None
    note: str
    now_more: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class FactHit(_Record):
    """A fact found by :func:`find`: ``score`` is its fused score (contract §15; higher is better); ``exact``
    when the query names its subject or object (on the side the query states); the rest is its graph context.

    The same triple stated over several intervals (one fact per day, say) is one hit: ``fact`` is its latest
    occurrence, ``count`` how many pass the filters, ``first`` and ``last`` the earliest and latest start.
    ``explain``: the signals behind ``score``, when asked for. ``now`` lists at most 10 other current facts of its
    subject and predicate, ``now_more`` how many more there are.
    """

    kind: str
    score: float
    exact: bool
    fact: Fact
    current: bool
    replaced_by: tuple[Fact, ...]
    since: str | None
    now: tuple[Fact, ...]
    evidence: Memory | None
    note: str
    count: int = 1
    first: str | None = None
    last: str | None = None
    explain: Explanation | None = None
    now_more: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class EntityContext(_Record):
    """An entity a memory names (by exact name or alias) with its current facts (``more``: not shown)."""

    entity: Entity
    facts: tuple[Fact, ...]
    more: int


@dataclasses.dataclass(frozen=True, slots=True)
class MemoryHit(_Record):
    """A memory found by :func:`find`, read against the graph.

    ``backs``: the facts whose ``source_closet`` points at it; ``mentions``: other facts between
    entities it names. ``status``: ``current`` (what it backs still holds), ``history`` (all of it has
    ended: the memory describes the past), ``mixed``, or ``unlinked`` (no fact to check it against).
    ``inferred``: the status comes from ``mentions``, as no fact cites the memory.
    """

    kind: str
    score: float
    exact: bool
    memory: Memory
    status: str
    inferred: bool
    backs: tuple[FactContext, ...]
    mentions: tuple[FactContext, ...]
    entities: tuple[EntityContext, ...]
    note: str
    explain: Explanation | None = None


Hit = FactHit | MemoryHit


@dataclasses.dataclass(frozen=True, slots=True)
class NamedEntity(_Record):
    """A span of the query (or of a memory) that names an entity exactly: ``text`` → ``entity`` id."""

    text: str
    entity: str


@dataclasses.dataclass(frozen=True, slots=True)
class PartReport(_Record):
    """What a sync did to one kind's index (``facts`` or ``memories``)."""

    added: int
    changed: int
    removed: int
    total: int
    index_type: str
    rebuilt: bool


@dataclasses.dataclass(frozen=True, slots=True)
class SyncReport(_Record):
    """What :meth:`SearchIndex.sync` found and did.

    ``state``: what the index was before (``fresh``, ``stale``, ``missing``, ``corrupt``, ``rebuild``
    when asked); ``embedded``: texts the model computed; ``cached``: texts served by the cache.
    """

    state: str
    reason: str
    facts: PartReport
    memories: PartReport
    embedded: int
    cached: int
    seconds: float


@dataclasses.dataclass(frozen=True, slots=True)
class IndexStatus(_Record):
    """Where the index is and whether it covers the graph (``state`` as in :class:`SyncReport`)."""

    state: str
    reason: str
    directory: str | None
    model: str
    facts: int
    memories: int
    index_types: Mapping[str, str]


@dataclasses.dataclass(frozen=True, slots=True)
class FindResult(_Record):
    """The answer of :func:`find`: hits best first, what the query named, and how it was searched."""

    query: str
    kind: str
    k: int
    as_of: str | None
    current_only: bool
    named: tuple[NamedEntity, ...]
    hits: tuple[Hit, ...]
    synced: SyncReport | None
    mode: str = "hybrid"
    rerank: str | None = None
    notice: str | None = None
    """Set when the answer is not what was asked for yet: the semantic index is missing or being built, so the
    answer is lexical (``mode`` says so), and how it will be built."""

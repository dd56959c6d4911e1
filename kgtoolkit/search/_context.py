"""Reading hits against the graph: is a fact current, what replaced it, what does a memory back.

A fact found by meaning is given its context (:func:`_contexts`): whether it is current, the facts
that replaced it and since when, what holds now for its subject and predicate, and the memory its
``source_closet`` points at. A memory (:func:`_memory_hit`) is checked against the facts that cite
it, else the facts between the entities it names, and given the current facts of those entities.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import KGError
from .._records import Fact
from ..graph import KnowledgeGraph
from ..store.reads import _search as store
from ._notes import _fact_note, _memory_note
from ._results import EntityContext, FactContext, FactHit, MemoryHit
from ._spotting import named_entities

__all__: list[str] = []

_ENTITY_FACTS = 10  # current facts shown per entity a memory names
_NOW_FACTS = 10  # other current facts shown per fact hit (its subject and predicate): now_more counts the rest


def _contexts(kg: KnowledgeGraph, facts: Sequence[Fact]) -> dict[int, FactContext]:
    """Each fact read against the graph (see :class:`~kgtoolkit.search.FactContext`), by fact id."""
    closets = sorted({f.source_closet for f in facts if f.source_closet})
    evidence = store.memories_by_ids(kg, closets)
    now_of: dict[tuple[str, str], tuple[list[Fact], int]] = {}
    out = {}
    for fact in facts:
        pair = (fact.subject, fact.predicate)
        if pair not in now_of:  # one more than shown: the fact itself may be among them
            now_of[pair] = store.current_facts(kg, *pair, _NOW_FACTS + 1)
        replaced = () if fact.current or fact.kind == "event" else tuple(store.successors(kg, fact.id))  # §12
        since = replaced[0].valid_from if replaced else None
        found, total = now_of[pair]
        others = [f for f in found if f.id != fact.id]
        now = tuple(others[:_NOW_FACTS])
        more = total - (len(found) - len(others)) - len(now)  # the other current facts not listed
        out[fact.id] = FactContext(
            fact,
            fact.current,
            replaced,
            since,
            now,
            evidence.get(fact.source_closet or ""),
            _fact_note(fact, replaced, since, now, more),
            more,
        )
    return out


def _fact_hit(context: FactContext, score: float, exact: bool) -> FactHit:
    """A fact hit: its score, whether the query named it, and its context."""
    return FactHit(
        "fact",
        round(score, 6),
        exact,
        context.fact,
        context.current,
        context.replaced_by,
        context.since,
        context.now,
        context.evidence,
        context.note,
        now_more=context.now_more,
    )


def _memory_hit(kg: KnowledgeGraph, key: str, score: float, exact: bool) -> MemoryHit | None:
    """The memory ``key`` read against the graph (None when it is gone)."""
    memory = store.memories_by_ids(kg, [key]).get(key)
    if memory is None:
        return None
    cited = store.facts_citing(kg, [key]).get(key, [])
    backs = tuple(_contexts(kg, cited).values())
    named = named_entities(kg, memory.text)
    ids = {n.entity for n in named}
    entities = []
    for n in named[:10]:
        try:
            current = kg.query(n.entity, current_only=True, limit=_ENTITY_FACTS + 1)
            entities.append(
                EntityContext(kg.entity(n.entity), tuple(current[:_ENTITY_FACTS]), max(0, len(current) - _ENTITY_FACTS))
            )
        except KGError:
            continue
    mentions: tuple[FactContext, ...] = ()
    if len(ids) >= 2:
        around = store.facts_by_ids(kg, store.entity_fact_ids(kg, sorted(ids)))
        cited_ids = {f.id for f in cited}
        between = [
            f
            for f in around.values()
            if f.subject in ids and f.object in ids and not f.object_is_value and f.id not in cited_ids
        ]
        mentions = tuple(_contexts(kg, sorted(between, key=lambda f: f.id)[:10]).values())
    basis, inferred = (backs, False) if backs else (mentions, bool(mentions))
    if not basis:
        status = "unlinked"
    elif all(c.current for c in basis):
        status = "current"
    elif not any(c.current for c in basis):
        status = "history"
    else:
        status = "mixed"
    note = _memory_note(status, inferred, basis, entities)
    return MemoryHit("memory", round(score, 6), exact, memory, status, inferred, backs, mentions, tuple(entities), note)

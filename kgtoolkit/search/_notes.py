"""Note text: the one line a hit carries to say how it reads against the graph.

A fact's note says whether it is current (since when, and what else holds now) or history (held
when, replaced by what since when); a memory's note gives its status and the facts it backs or names,
each current or ended and replaced. The CLI prints these notes; the agent tool returns them as ``note``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._records import Fact
from ._results import EntityContext, FactContext

__all__: list[str] = []


def _triple(fact: Fact) -> str:
    obj = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
    return f"{fact.subject_name} → {fact.predicate} → {obj}"


def _names(facts: Sequence[Fact], more: int = 0) -> str:
    return ", ".join(f.object_name for f in facts) + (f" and {more:,} more" if more else "")


def _fact_note(fact: Fact, replaced: Sequence[Fact], since: str | None, now: Sequence[Fact], more: int = 0) -> str:
    """What a fact hit says about the fact: current since when, or held when and replaced by what (``now``: the
    other current facts listed, ``more``: how many others are not).

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    >>> switch = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
    >>> _fact_note(switch.old, [switch.new], switch.new.valid_from, [switch.new])
    'history: held 2026-03-02 … 2026-10-12; replaced by SQLite since 2026-10-12'
    >>> _fact_note(switch.new, [], None, [])
    'current since 2026-10-12'
    >>> planned = kg.add("my_api", "uses_queue", "Kafka", valid_from="2090-01-01").fact
    >>> _fact_note(planned, [], None, [switch.new])
    'planned: from 2090-01-01; current until then for my_api → uses_queue: SQLite'
    """
    if fact.current:
        note = f"current since {fact.valid_from}" if fact.valid_from else "current (start unknown)"
        if fact.valid_to:  # a planned end (contract §4)
            note += f", until {fact.valid_to}"
        if now:
            note += f"; also current for {fact.subject_name} → {fact.predicate}: {_names(now, more)}"
        return note
    if fact.kind == "event":  # contract §12: an event happened (or will); it is never ended nor replaced
        when = fact.valid_from or fact.valid_to or "at an unknown time"
        return f"event: {'scheduled for' if fact.state == 'scheduled' else 'occurred'} {when}"
    if fact.state == "scheduled":
        note = f"planned: from {fact.valid_from}" + (f" until {fact.valid_to}" if fact.valid_to else "")
        if now:
            note += f"; current until then for {fact.subject_name} → {fact.predicate}: {_names(now, more)}"
        return note
    note = f"history: held {fact.valid_from or '?'} … {fact.valid_to}"
    if replaced:
        note += f"; replaced by {_names(replaced)} since {since or '?'}"
    else:
        note += "; nothing replaced it"
    if now and {f.id for f in now} != {f.id for f in replaced}:
        note += f"; now: {_names(now, more)}"
    elif not now and replaced:
        note += f"; {_names(replaced)} has ended too" if len(replaced) == 1 else "; those have ended too"
    return note


def _memory_note(status: str, inferred: bool, basis: Sequence[FactContext], entities: Sequence[EntityContext]) -> str:
    """What a memory hit says: whether the facts it backs (or names) still hold, and what replaced them."""
    if status == "unlinked":
        if not entities:
            return "no fact cites this memory and it names no entity of the graph"
        return "no fact cites this memory; it names " + ", ".join(e.entity.name for e in entities)
    verb = "it names" if inferred else "it backs"
    parts = []
    for context in basis:
        fact = context.fact
        if context.current:
            start = f" since {fact.valid_from}" if fact.valid_from else ""
            until = f" until {fact.valid_to}" if fact.valid_to else ""
            parts.append(f"{_triple(fact)}, current{start}{until}")
        elif fact.kind == "event":  # contract §12
            parts.append(
                f"{_triple(fact)}, an event that occurred {fact.valid_from or fact.valid_to or '(date unknown)'}"
                if fact.state == "occurred"
                else f"{_triple(fact)}, an event scheduled for {fact.valid_from}"
            )
        elif fact.state == "scheduled":
            until = f" until {fact.valid_to}" if fact.valid_to else ""
            parts.append(f"{_triple(fact)}, planned from {fact.valid_from}{until}")
        else:
            text = f"{_triple(fact)}, which ended on {fact.valid_to}"
            if context.replaced_by:
                text += f" and was replaced by {_names(context.replaced_by)} (since {context.since or '?'})"
            parts.append(text)
    return f"{status}: {verb} " + "; ".join(parts)

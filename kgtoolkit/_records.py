"""The immutable records the store returns (contract §1)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ._validity import Clock, key, state

__all__ = [
    "AddResult",
    "Alias",
    "ConflictGroup",
    "Direction",
    "Entity",
    "Fact",
    "FactKind",
    "FactState",
    "GraphConfig",
    "Memory",
    "MergeResult",
    "Stats",
    "SupersedeResult",
]

Direction = Literal["outgoing", "incoming", "both"]
T = TypeVar("T")

#: A fact's state (contract §4, §12): a state fact is ``current`` (started, and no ``valid_to`` or one after now),
#: ``scheduled`` (starting after now) or ``ended`` (its end is at or before now; a date end ``D`` ends it on
#: ``D``); an event is ``occurred`` once it has happened (its start is not after now) and ``scheduled`` before;
#: never ``current`` nor ``ended``.
FactState = Literal["current", "scheduled", "ended", "occurred"]

#: A fact's kind (contract §12): ``event`` (it happened at a time: its predicate or its whole graph is declared
#: an event, or its ``valid_from`` equals its ``valid_to``) or ``state`` (it holds over an interval).
FactKind = Literal["state", "event"]


def fact_state(valid_from: str | None, valid_to: str | None, now: int | None = None, *,
               kind: FactKind = "state") -> FactState:
    """The state of a fact with these bounds (and this ``kind``) at ``now`` (a key; default: the real now), by the
    rules of :mod:`._validity`: current while started and not yet ended (a date end ``D`` ends the fact on ``D``).

    >>> fact_state("2025-01-03", "2031-01-03", now=key("2026-12-05"))
    'current'
    >>> fact_state("2025-01-03", "2031-01-03", now=key("2031-01-03")), fact_state("2031-01-03", None, now=key("2031-01-03"))
    ('ended', 'current')
    """
    clock = Clock.real() if now is None else Clock.at(now)
    return state(key(valid_from), key(valid_to, end=True), clock.now, clock.day_last,  # type: ignore[return-value]
                 event=kind == "event")


def is_event(graph_events: T, declared: T, valid_from: T, valid_to: T) -> T:
    """The event rule (contract §12): a fact is an *event* when its whole graph is declared an event graph
    (``graph_events``), or its predicate is declared an event predicate (``declared``), or its ``valid_from``
    equals its ``valid_to`` as stored (the same day, or the same instant in UTC: it happened then; a partial date
    is stored as its period's first and last day, so ``2014`` … ``2014`` holds for a year). Else a *state* fact.

    Works on plain values (``valid_from``/``valid_to`` texts or None) and on polars expressions alike (a null
    bound compares as not equal; the polars caller fills nulls with false).
    """
    if isinstance(valid_from, str | None):
        same: Any = valid_from is not None and valid_from == valid_to
    else:  # a polars expression
        same = valid_from == valid_to
    return graph_events | declared | same  # type: ignore[operator]


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [_plain(v) for v in items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()  # type: ignore[attr-defined]
    return value


class _Record:
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (mappings copied, nested records converted)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True, slots=True)
class Entity(_Record):
    """A node: ``id`` is the normalised name, ``name`` the first spelling seen."""

    id: str
    name: str
    type: str
    properties: Mapping[str, Any]
    created_at: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "properties", _frozen_mapping(self.properties))


@dataclasses.dataclass(frozen=True, slots=True)
class Fact(_Record):
    """A triple with its validity interval, its ``kind`` and its ``state`` (contract §4, §12).

    ``kind`` is ``event`` when the fact happened at a time rather than held over an interval (its predicate
    or its whole graph is declared an event, or ``valid_from`` equals ``valid_to``), else ``state``.
    A state fact is ``current`` iff it has started (no ``valid_from``, or one at or before now) and has not
    ended (no ``valid_to``, or one after now: a date end ``D`` ends it on ``D``, the day its successor starts);
    one starting after now is ``scheduled``; one whose end has come is ``ended`` (:mod:`._validity`). An event is ``occurred`` once it has started (``scheduled`` before), never current nor ended.
    The state is always relative to the real now (never to a query's ``as_of`` or ``known_at``).

    ``object`` is an entity id, or the text itself for value predicates (``object_is_value``).
    ``direction`` is set by :meth:`KnowledgeGraph.query`: ``outgoing`` when the queried entity is
    the subject, ``incoming`` when it is the object.
    """

    id: int
    subject: str
    subject_name: str
    predicate: str
    object: str
    object_name: str
    object_is_value: bool
    valid_from: str | None
    valid_to: str | None
    confidence: float
    source: str
    source_closet: str | None
    recorded_at: str
    invalidated_at: str | None
    ended_by: str | None
    direction: str | None = None
    kind: FactKind = "state"

    @property
    def state(self) -> FactState:
        """``current``, ``scheduled`` or ``ended`` (an event: ``occurred`` or ``scheduled``), now."""
        return fact_state(self.valid_from, self.valid_to, kind=self.kind)

    @property
    def current(self) -> bool:
        return self.state == "current"

    def to_dict(self) -> dict[str, Any]:
        out = _Record.to_dict(self)
        state = self.state
        out["current"] = state == "current"
        out["state"] = state
        return out

    def __str__(self) -> str:
        span = f"{self.valid_from or '?'} … {self.valid_to or ''}".rstrip()
        return f"{self.subject_name} → {self.predicate} → {self.object_name}  [{span}]"


def _slot_constructor(cls: type[T]) -> Callable[..., T]:
    """A function making a ``cls`` (a frozen dataclass with slots and no ``__post_init__``) from every field, in
    order, positionally: the record ``cls(*fields)`` makes, in a fifth of the time (the store's reads build one
    per row, and a frozen ``__init__`` sets each field through ``object.__setattr__(self, name, value)``).

    It fills a writable twin of ``cls`` (the same bases and slots, so the same memory layout) with plain
    attribute stores, then makes it a ``cls``: Python allows assigning ``__class__`` between such classes,
    and from then on the record is a ``cls`` like any other (frozen, equal, hashed, pickled the same).
    """
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    assert names == cls.__slots__ and not hasattr(cls, "__post_init__")  # type: ignore[attr-defined]
    twin = type(f"_{cls.__name__}Fill", cls.__bases__, {"__slots__": names})
    scope: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    args = ", ".join(f"v{i}" for i in range(len(names)))
    body = "".join(f"    record.{name} = v{i}\n" for i, name in enumerate(names))
    exec(f"def make({args}):\n    record = _new(_twin)\n{body}    record.__class__ = _cls\n    return record\n",
         scope)
    made: Callable[..., T] = scope["make"]
    return made


#: ``Fact(*fields)`` for a read of many rows: every one of the 17 fields, in order, positionally.
make_fact: Callable[..., Fact] = _slot_constructor(Fact)


@dataclasses.dataclass(frozen=True, slots=True)
class Memory(_Record):
    """A stored piece of evidence text that a fact's ``source_closet`` may point at."""

    id: str
    text: str
    source: str | None
    created_at: str
    metadata: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))


@dataclasses.dataclass(frozen=True, slots=True)
class AddResult(_Record):
    """What :meth:`KnowledgeGraph.add` did: the fact, whether it is new, and any warnings."""

    fact: Fact
    created: bool
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class SupersedeResult(_Record):
    """What :meth:`KnowledgeGraph.supersede` did: the fact it ended and the one it added."""

    old: Fact
    new: Fact
    created: bool
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Alias(_Record):
    """Another name for an entity: ``alias`` is the normalised id, ``name`` the spelling given."""

    alias: str
    name: str
    entity: str


@dataclasses.dataclass(frozen=True, slots=True)
class MergeResult(_Record):
    """What :meth:`KnowledgeGraph.merge` did."""

    source: str
    target: Entity
    moved: int
    deduplicated: int
    aliases: tuple[str, ...]
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class ConflictGroup(_Record):
    """A (subject, predicate) pair with more than one distinct object.

    ``current`` and ``scheduled`` count its facts in those states. ``planned_switch`` is the start of its
    first scheduled fact when a started fact of another object runs up to it (an open-ended one, or one
    ending on or after that start): a switch planned for that date. ``switch_overlaps`` when both would be valid at once
    after that start (the other fact is open-ended or ends after the start's day); ``suggestion`` is then the
    agent-tool request that resolves it (a ``supersede`` at that date), when one does.

    ``needs_action`` when more than one of its facts is current, or a planned switch overlaps; closed-out
    history alone is a review item, not a contradiction.
    """

    subject: str
    subject_name: str
    predicate: str
    objects: int
    current: int
    facts: tuple[Fact, ...]
    scheduled: int = 0
    planned_switch: str | None = None
    switch_overlaps: bool = False
    suggestion: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.suggestion is not None:
            object.__setattr__(self, "suggestion", _frozen_mapping(self.suggestion))

    @property
    def needs_action(self) -> bool:
        return self.current > 1 or self.switch_overlaps

    def to_dict(self) -> dict[str, Any]:
        out = _Record.to_dict(self)
        out["needs_action"] = self.needs_action
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class Stats(_Record):
    """Counts over the whole graph: ``current``, ``scheduled`` and ``ended`` state facts by state (contract §4),
    and ``events`` (contract §12: occurred or scheduled); ``facts`` is their sum."""

    entities: int
    entities_by_type: Mapping[str, int]
    facts: int
    current: int
    ended: int
    value_facts: int
    predicates: int
    aliases: int
    memories: int
    scheduled: int = 0
    events: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "entities_by_type", _frozen_mapping(self.entities_by_type))


@dataclasses.dataclass(frozen=True, slots=True)
class GraphConfig(_Record):
    """Per-graph settings, stored in the file itself.

    ``types``: the entity-type vocabulary; ``value_predicates``: predicates whose object is text;
    ``multi_valued``: predicates left out of conflicts; ``comma_guard``: reject comma lists;
    ``max_name_length``: the longest entity name, alias, predicate or type (characters);
    ``max_value_length``: the longest value object, source or memory text (characters);
    ``single_valued``: predicates holding one object at a time (``check`` reports overlaps, contract §14);
    ``events``: every fact of the graph is an event; ``event_predicates``: predicates whose facts are events
    (contract §12).
    """

    types: frozenset[str]
    value_predicates: frozenset[str]
    multi_valued: frozenset[str]
    comma_guard: bool = True
    max_name_length: int = 1_000
    max_value_length: int = 100_000
    single_valued: frozenset[str] = frozenset()
    events: bool = False
    event_predicates: frozenset[str] = frozenset()

"""Every immutable record kgtoolkit answers, in one place (contract §1): frozen, with ``to_dict()``.

The graph's own (entities, facts, aliases, memories, results of writes, conflicts, stats), then by concern:
multi-hop reads and diffs (§11), predicates (§13), bulk work (imports, copies), cleaning up (§14). Search's
hits are :mod:`kgtoolkit.search`'s, the agent tool's parameters its registry's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ._validity import Clock, key, state

__all__ = [
    "AddResult",
    "Alias",
    "Change",
    "ChangeKind",
    "ConflictAxis",
    "ConflictGroup",
    "CopyReport",
    "Diff",
    "DiffBy",
    "Direction",
    "DuplicateCandidate",
    "Entity",
    "Fact",
    "FactKind",
    "FactState",
    "Finding",
    "GraphConfig",
    "ImportReport",
    "Memory",
    "MergeResult",
    "Neighborhood",
    "NotDuplicate",
    "Paths",
    "PredicateAlias",
    "PredicateInfo",
    "PredicateRename",
    "Reached",
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
#: an event, or it was written with its ``valid_from`` equal to its ``valid_to``) or ``state`` (it holds over an
#: interval).
FactKind = Literal["state", "event"]
#: Which side a conflict group is about: its subject (the default), or its object (a one-holder predicate).
ConflictAxis = Literal["subject", "object"]


def fact_state(
    valid_from: str | None, valid_to: str | None, now: int | None = None, *, kind: FactKind = "state"
) -> FactState:
    """The state of a fact with these bounds (and this ``kind``) at ``now`` (a key; default: the real now), by the
    rules of :mod:`._validity`: current while started and not yet ended (a date end ``D`` ends the fact on ``D``).

    >>> fact_state("2025-01-03", "2031-01-03", now=key("2026-12-05"))
    'current'
    >>> fact_state("2025-01-03", "2031-01-03", now=key("2031-01-03")), fact_state("2031-01-03", None, now=key("2031-01-03"))
    ('ended', 'current')
    """
    clock = Clock.real() if now is None else Clock.at(now)
    return state(
        key(valid_from),
        key(valid_to, end=True),
        clock.now,
        clock.day_last,  # type: ignore[return-value]
        event=kind == "event",
    )


def is_event(graph_events: T, declared: T, valid_from: T, valid_to: T, recorded_at: T, invalidated_at: T) -> T:
    """The event rule (contract §12): a fact is an *event* when its whole graph is declared an event graph
    (``graph_events``), or its predicate is declared an event predicate (``declared``), or it was *written* with
    its ``valid_from`` equal to its ``valid_to`` as stored (the same day, or the same instant in UTC: it happened
    then; a partial date is stored as its period's first and last day, so ``2014`` … ``2014`` holds for a year).
    Else a *state* fact.

    Written so: its end was recorded with the fact (``invalidated_at`` equal to ``recorded_at``, as ``add`` and
    import write a fact given both bounds; no ``invalidated_at`` counts the same). A state fact that
    ``invalidate`` or ``supersede`` ended on the day it began has equal bounds too, but its end was recorded
    later: it stays a state fact (a same-day correction is not an occurrence).

    Works on plain values (bounds and transaction times as stored texts, or None), on polars expressions and on
    Spark columns alike (a null bound compares as not equal; the polars and Spark callers fill nulls with false).
    """
    if isinstance(valid_from, str | None):
        same: Any = (
            valid_from is not None
            and valid_from == valid_to
            and (invalidated_at is None or invalidated_at == recorded_at)
        )
    elif hasattr(invalidated_at, "eqNullSafe"):  # Spark columns (kgtoolkit.spark)
        written = invalidated_at.isNull() | invalidated_at.eqNullSafe(recorded_at)  # type: ignore[attr-defined]
        same = (valid_from == valid_to) & written
    else:  # polars expressions
        written = invalidated_at.is_null() | invalidated_at.eq_missing(recorded_at)  # type: ignore[attr-defined]
        same = (valid_from == valid_to) & written
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
    """A node of the graph.

    Attributes
    ----------
    id : str
        The normalised name: the key every door uses.
    name : str
        The first spelling seen.
    type : str
        ``person``, ``company``, ``project``, ``event``, ``unknown``, or a type the graph added.
    properties : Mapping[str, Any]
        Free properties, read-only.
    created_at : str
        When the store wrote it (ISO, UTC).

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("My API", "uses", "Redis", subject_type="project")
    >>> entity = kg.entity("my api")
    >>> entity.id, entity.name, entity.type
    ('my_api', 'My API', 'project')
    """

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

    A state fact is ``current`` when it has started (no ``valid_from``, or one at or before now) and has
    not ended (no ``valid_to``, or one after now). A date end ``D`` ends it on ``D``, the day its successor
    starts. One starting after now is ``scheduled``; one whose end has come is ``ended``. An event is
    ``occurred`` once it has started (``scheduled`` before), never current nor ended. The state is always
    relative to the real now, never to a query's ``as_of`` or ``known_at``.

    Attributes
    ----------
    id : int
        The fact's id, never reused.
    subject, subject_name : str
        The subject's entity id and its display name.
    predicate : str
        The predicate's id.
    object, object_name : str
        The object's entity id and display name; for a value predicate, the text itself.
    object_is_value : bool
        The object is a value (an email, a note), not an entity.
    valid_from, valid_to : str or None
        The interval as stored (a date or an ISO instant); None is unknown or open.
    confidence : float
        From 0 to 1.
    source : str
        Who or what wrote it.
    source_closet : str or None
        The memory (or URL) that backs it.
    recorded_at, invalidated_at : str or None
        When the store wrote the fact and its end (transaction time).
    ended_by : str or None
        Who ended it.
    direction : str or None
        Set by :meth:`KnowledgeGraph.query`: ``outgoing`` when the queried entity is the subject,
        ``incoming`` when it is the object.
    kind : str
        ``event`` when the fact happened at a time rather than held (its predicate or graph is declared an
        event, or it was written with ``valid_from`` equal to ``valid_to``, not ended so by a later
        ``invalidate`` or ``supersede``), else ``state``.
    occurrence : int
        Tells an event's repeats on one day apart: 1, 2, …; a state fact's is 1.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> fact = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02", valid_to="2026-10-12").fact
    >>> fact.predicate, fact.object_name, fact.kind, fact.state
    ('uses_queue', 'Redis', 'state', 'ended')
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
    occurrence: int = 1

    @property
    def state(self) -> FactState:
        """``current``, ``scheduled`` or ``ended`` (an event: ``occurred`` or ``scheduled``), now."""
        return fact_state(self.valid_from, self.valid_to, kind=self.kind)

    @property
    def current(self) -> bool:
        return self.state == "current"

    @property
    def object_key(self) -> str:
        """What makes two objects the same (contract §2): the entity id, or a value's text case-folded."""
        return self.object.casefold() if self.object_is_value else self.object

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
    exec(f"def make({args}):\n    record = _new(_twin)\n{body}    record.__class__ = _cls\n    return record\n", scope)
    made: Callable[..., T] = scope["make"]
    return made


#: ``Fact(*fields)`` for a read of many rows: every one of the 18 fields, in order, positionally.
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
    """What :meth:`KnowledgeGraph.add` did.

    Attributes
    ----------
    fact : Fact
        The fact, new or already there.
    created : bool
        False when an identical fact was already there (nothing changed).
    warnings : tuple[str, ...]
        What the write noticed, e.g. a type kept that differs from the one given.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> kg.add("my_api", "uses", "Redis").created, kg.add("my_api", "uses", "Redis").created
    (True, False)
    """

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
    """A (subject, predicate) pair with more than one distinct object; for a one-holder predicate
    (``config.one_holder``, ``by="object"``), an (object, predicate) pair with more than one subject (holder).

    ``current`` and ``scheduled`` count its facts in those states. ``planned_switch`` is the start of its
    first scheduled fact when a started fact of another object (holder) runs up to it (an open-ended one, or one
    ending on or after that start): a switch planned for that date. ``switch_overlaps`` when both would be valid at
    once after that start (the other fact is open-ended or ends after the start's day); ``suggestion`` is then the
    agent-tool request that resolves it (a ``supersede``, or ``supersede_holder``, at that date), when one does.

    ``needs_action`` when more than one of its facts is current, or a planned switch overlaps; closed-out
    history alone is a review item, not a contradiction. ``by`` says which side the group is about: ``subject``
    (``subject`` and ``subject_name`` set, ``object`` and ``object_name`` None) or ``object`` (the reverse);
    ``objects`` and ``subjects`` count the distinct objects and subjects of all its facts.

    ``facts`` (store order) are its current and scheduled facts and a page of its history (its ended facts, the
    last ended first: ``history_offset`` of them skipped, at most the call's ``history`` kept); ``facts_total`` and
    ``history_total`` count them all, and ``history_more`` those past this page (``to_dict`` has it too).
    """

    subject: str | None
    subject_name: str | None
    predicate: str
    objects: int
    current: int
    facts: tuple[Fact, ...]
    scheduled: int = 0
    planned_switch: str | None = None
    switch_overlaps: bool = False
    suggestion: Mapping[str, Any] | None = None
    by: ConflictAxis = "subject"
    object: str | None = None
    object_name: str | None = None
    subjects: int = 1
    facts_total: int = 0
    history_total: int = 0
    history_offset: int = 0

    def __post_init__(self) -> None:
        if self.suggestion is not None:
            object.__setattr__(self, "suggestion", _frozen_mapping(self.suggestion))
        # a group built from its facts alone (the totals left out) counts what it carries
        object.__setattr__(self, "facts_total", max(self.facts_total, len(self.facts)))
        object.__setattr__(self, "history_total", max(self.history_total, self.history_offset + self.history_shown))

    @property
    def needs_action(self) -> bool:
        return self.current > 1 or self.switch_overlaps

    @property
    def history_shown(self) -> int:
        """How many of ``facts`` are history (ended)."""
        return len(self.facts) - self.current - self.scheduled

    @property
    def history_more(self) -> int:
        """How many ended facts lie past this page of the history (page on with ``history_offset``)."""
        return max(0, self.history_total - self.history_offset - self.history_shown)

    def to_dict(self) -> dict[str, Any]:
        out = _Record.to_dict(self)
        out["needs_action"] = self.needs_action
        out["history_more"] = self.history_more
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
    ``one_holder``: predicates whose object has one subject at a time (a new subject is a replacement, contract §14);
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
    one_holder: frozenset[str] = frozenset()


# ------------------------------------------------------------------ multi-hop reads and diffs (contract §11)
# neighbors answers a Neighborhood, paths and follow answer Paths (each fact's ``direction`` says which way the
# hop went), diff a Diff of Change records.

ChangeKind = Literal["began", "ended", "replaced", "renewed", "occurred"]
DiffBy = Literal["valid", "known"]


@dataclasses.dataclass(frozen=True, slots=True)
class Reached(_Record):
    """An entity a traversal reached, ``hops`` steps from where it started (0: the start itself)."""

    id: str
    name: str
    hops: int


@dataclasses.dataclass(frozen=True, slots=True)
class Neighborhood(_Record):
    """The entities and facts within ``hops`` of ``center``.

    ``facts`` is one page (``offset``, at most the call's ``limit``) of the ``total`` facts found, ordered
    by the hop that reached them, then id; each fact's ``direction`` is the way it was walked
    (``outgoing``: from its subject). ``entities`` are the center and the entities of this page's facts,
    with their distance; ``entity_total`` counts every entity reached. ``capped``: the traversal stopped
    at ``max_facts`` facts read (``visited``), so more may lie within reach; ``note`` says so in words.
    """

    center: str
    hops: int
    entities: tuple[Reached, ...]
    facts: tuple[Fact, ...]
    total: int
    entity_total: int
    offset: int
    visited: int
    capped: bool
    note: str | None = None

    @property
    def count(self) -> int:
        return len(self.facts)

    @property
    def truncated(self) -> bool:
        return self.offset + len(self.facts) < self.total

    @property
    def next_offset(self) -> int | None:
        return self.offset + len(self.facts) if self.truncated else None

    def paging(self) -> dict[str, Any]:
        return {"count": self.count, "total": self.total, "truncated": self.truncated, "next_offset": self.next_offset}

    def to_dict(self) -> dict[str, Any]:
        return {**_Record.to_dict(self), **self.paging()}


@dataclasses.dataclass(frozen=True, slots=True)
class Paths(_Record):
    """Paths from ``start``: to ``target`` (:meth:`~kgtoolkit.KnowledgeGraph.paths`, shortest first) or
    along a chain of predicates (:meth:`~kgtoolkit.KnowledgeGraph.follow`, every branch).

    Each path is a tuple of facts, in walking order; a fact's ``direction`` is ``outgoing`` when the hop
    went from its subject to its object, ``incoming`` the other way. ``paths`` is one page (from
    ``offset``) of the ``total`` paths; ``total`` is ``None`` when the search stopped at the page's end
    with more paths left (``paths`` counts no further than it must). ``ends``: the entities the paths end
    at (for ``follow``, the answer: every entity at the end of the chain, also past the page).
    ``truncated``: more paths exist past this page. ``capped``: the search stopped at its bound of facts
    read (``visited``) or of steps, so paths may be missing; ``note`` says so in words.
    """

    start: str
    target: str | None
    paths: tuple[tuple[Fact, ...], ...]
    ends: tuple[str, ...]
    total: int | None
    offset: int
    truncated: bool
    visited: int
    capped: bool
    note: str | None = None

    @property
    def count(self) -> int:
        return len(self.paths)

    @property
    def next_offset(self) -> int | None:
        return self.offset + len(self.paths) if self.truncated else None

    def paging(self) -> dict[str, Any]:
        return {"count": self.count, "total": self.total, "truncated": self.truncated, "next_offset": self.next_offset}

    def to_dict(self) -> dict[str, Any]:
        return {**_Record.to_dict(self), **self.paging()}


@dataclasses.dataclass(frozen=True, slots=True)
class Change(_Record):
    """One change between two dates: a fact that ``began`` (``new``), one that ``ended`` (``old``), a
    replacement (``replaced``): the same subject and predicate went from ``old``'s object to ``new``'s, a
    renewal (``renewed``): ``new``, the same triple back to back with ``old``, continues it, or an event
    (contract §12) that ``occurred`` (``new``). ``at`` is when: the start, the end, the switch or the renewal
    (``new``'s start) or the event's start; by transaction time (``by="known"``), when the graph recorded it."""

    kind: ChangeKind
    at: str
    subject: str
    predicate: str
    old: Fact | None
    new: Fact | None


@dataclasses.dataclass(frozen=True, slots=True)
class Diff(_Record):
    """What changed from ``start`` to ``end`` (both included): one page of ``changes`` in time order.

    ``by="valid"``: facts whose validity began or ended in the window; ``by="known"``: what the graph
    learned then (facts recorded, ends recorded). ``began``, ``ended``, ``replaced``, ``occurred`` (events,
    contract §12) and ``renewed`` (renewals, contract §11: 0 when asked with ``renewals=False``) count each kind
    among all ``total`` changes (not only this page)."""

    start: str
    end: str
    by: DiffBy
    changes: tuple[Change, ...]
    total: int
    offset: int
    began: int
    ended: int
    replaced: int
    occurred: int = 0
    renewed: int = 0

    @property
    def count(self) -> int:
        return len(self.changes)

    @property
    def truncated(self) -> bool:
        return self.offset + len(self.changes) < self.total

    @property
    def next_offset(self) -> int | None:
        return self.offset + len(self.changes) if self.truncated else None

    def paging(self) -> dict[str, Any]:
        return {"count": self.count, "total": self.total, "truncated": self.truncated, "next_offset": self.next_offset}

    def to_dict(self) -> dict[str, Any]:
        return {**_Record.to_dict(self), **self.paging()}


# ------------------------------------------------------------------ predicates: labels, aliases, renames (contract §13)


@dataclasses.dataclass(frozen=True, slots=True)
class PredicateInfo(_Record):
    """One predicate: its id (the key), its ``label`` (first spelling), its facts (all, and current now),
    and the aliases that name it."""

    id: str
    label: str
    facts: int
    current: int
    aliases: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[Any]:
        """``(id, facts)``, as :meth:`KnowledgeGraph.predicates` answered pairs before it answered records
        (``for predicate, count in kg.predicates()`` still reads)."""
        return iter((self.id, self.facts))


@dataclasses.dataclass(frozen=True, slots=True)
class PredicateAlias(_Record):
    """A predicate alias: ``alias`` names ``predicate`` (both ids)."""

    alias: str
    predicate: str


@dataclasses.dataclass(frozen=True, slots=True)
class PredicateRename(_Record):
    """What :meth:`KnowledgeGraph.rename_predicate` did: ``moved`` facts of ``old`` now under ``new``
    (``deduplicated`` of them folded into identical ones), ``old`` is an alias of ``new`` now, and the
    ``settings`` that named ``old`` name ``new``."""

    old: str
    new: str
    label: str
    moved: int
    deduplicated: int
    aliases: tuple[str, ...]
    settings: tuple[str, ...] = ()


# ---------------------------------------------------------------------- resolving


# ------------------------------------------------------------------ bulk work: imports and copies


@dataclasses.dataclass(frozen=True, slots=True)
class ImportReport(_Record):
    """What an import did. ``rejects``: one dict per problem (``line``, ``field``, ``value``, ``code``, ``reason``)."""

    rows: int
    inserted: int
    duplicates: int
    rejected: int
    entities_created: int
    types_upgraded: int
    rejects: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------- reads


@dataclasses.dataclass(frozen=True, slots=True)
class CopyReport(_Record):
    """What :func:`copy_graph` did: rows written per table, and whether it merged (new ids) or copied."""

    source: str
    target: str
    merged: bool
    facts: int
    entities: int
    aliases: int
    memories: int
    settings: int
    duplicates: int = 0
    warnings: tuple[str, ...] = ()


# ------------------------------------------------------------------ cleaning up (contract §14): duplicate candidates, pairs marked not the same, findings


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


@dataclasses.dataclass(frozen=True, slots=True)
class Finding(_Record):
    """One finding of ``check``: its stable ``code``, a ``message`` saying what to do, and what it is about:
    ``facts`` (ids), ``entities`` (ids), ``predicate`` (when one is concerned)."""

    code: str
    message: str
    facts: tuple[int, ...] = ()
    entities: tuple[str, ...] = ()
    predicate: str | None = None

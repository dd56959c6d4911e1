"""The records of multi-hop reads and of diffs (contract §11): neighbourhoods, paths, changes.

:meth:`KnowledgeGraph.neighbors` answers a :class:`Neighborhood`, :meth:`~KnowledgeGraph.paths` and
:meth:`~KnowledgeGraph.follow` answer :class:`Paths` (each path a tuple of :class:`~kgtoolkit.Fact`,
each fact's ``direction`` saying which way the hop went), :meth:`~KnowledgeGraph.diff` a :class:`Diff`
of :class:`Change` records. Every one is frozen, with ``to_dict()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from ._records import Fact, _Record

__all__ = ["DEFAULT_MAX_FACTS", "MAX_HOPS", "Change", "ChangeKind", "Diff", "DiffBy", "Neighborhood", "Paths",
           "Reached"]

#: How many facts one traversal reads at most, unless told otherwise (``max_facts``).
DEFAULT_MAX_FACTS = 10_000
#: The most hops a traversal takes (``hops``, ``max_hops``) and the longest chain ``follow`` follows.
MAX_HOPS = 4

ChangeKind = Literal["began", "ended", "replaced", "occurred"]
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
    replacement (``replaced``): the same subject and predicate went from ``old``'s object to ``new``'s, or an
    event (contract §12) that ``occurred`` (``new``). ``at`` is when: the start, the end, the switch
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
    learned then (facts recorded, ends recorded). ``began``, ``ended``, ``replaced`` and ``occurred`` (events,
    contract §12) count each kind among all ``total`` changes (not only this page)."""

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

"""The reads of :class:`~kgtoolkit.store.GraphStore`: each opens one read and calls one operation of ``ops/``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from .._limits import DEFAULT_HISTORY, DEFAULT_MAX_FACTS
from .._page import Page
from .._records import (
    Alias,
    ConflictGroup,
    Diff,
    DiffBy,
    Direction,
    Entity,
    Fact,
    Memory,
    Neighborhood,
    Paths,
    PredicateAlias,
    PredicateInfo,
    Stats,
)
from .._time import TimeInput
from .._validity import Clock
from .._window import ReadWindow
from .engine import Backend, gc_paused
from .ops import _conflicts, _diff, _entities, _facts, _reads, _timeline, _walks
from .ops import _predicates as _preds

__all__ = ["GraphReads"]

T = TypeVar("T")


class GraphReads:
    """The read methods of a graph; :class:`~kgtoolkit.store.GraphStore` adds the writes, settings and plumbing."""

    _engine: Backend
    _value_guess: dict[str, bool]

    def _read(self) -> Any:
        return self._engine.read()

    def resolve(self, name: str) -> str:
        """The entity id ``name`` names: exact id, then alias; never fuzzy.

        Raises :class:`NotFound` with up to five "Did you mean…?" suggestions.
        """
        return _entities.resolve(self._engine, name)

    def entity(self, name: str) -> Entity:
        """The entity ``name`` resolves to (exact id or alias)."""
        return _entities.entity(self._engine, name)

    def entities(self, *, type: str | None = None, limit: int | None = None, offset: int = 0) -> list[Entity]:
        """Entities ordered by id, optionally of one type."""
        return _entities.entities(self._engine, type=type, limit=limit, offset=offset)

    def fact(self, fact_id: int) -> Fact:
        """The fact with this id."""
        return _facts.fact(self._engine, fact_id)

    def memory(self, memory_id: str) -> Memory:
        """The memory with this id."""
        return _facts.memory(self._engine, memory_id)

    def query(
        self,
        name: str,
        *,
        direction: Direction = "both",
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        current_only: bool = False,
        predicates: str | Collection[str] | None = None,
        other: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[Fact]:
        """Facts around one entity, oldest first, each flagged ``current`` and with its ``direction``.

        Parameters
        ----------
        name : str
            The entity: its id or an alias (exact, never fuzzy).
        direction : {"both", "outgoing", "incoming"}
            ``outgoing``: the entity is the subject; ``incoming``: it is the object.
        as_of : date or datetime, optional
            Keep the facts valid then (a day: every fact touching it).
        known_at : date or datetime, optional
            Answer what the store believed at that moment (a day: at its end).
        current_only : bool
            Keep the current facts alone (an event is never current).
        predicates : str or collection of str, optional
            Keep the facts of those predicates (none or empty: all), through predicate aliases.
        other : str, optional
            Keep the facts whose other side is that entity (resolved like ``name``).
        limit, offset : int, optional
            The page: at most ``limit`` facts from position ``offset``.

        Returns
        -------
        Page of Fact
            The facts, and how many match in all (counted in the same snapshot).

        Raises
        ------
        NotFound
            No such entity, an ``other`` that names none, or a predicate no fact uses (with suggestions).
        InvalidRequest
            A bad ``direction``, ``limit`` or ``offset``.

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = [kg.add("hub", "knows", f"n{i}") for i in range(5)]
        >>> page = kg.query("hub", limit=2, offset=2)
        >>> page.count, page.total, page.next_offset
        (2, 5, 4)
        """
        window = ReadWindow(as_of, known_at, current_only=current_only)
        facts, total = _reads.query(
            self._engine,
            name,
            direction,
            window,
            limit,
            offset,
            counted=_paged(limit, offset),
            predicates=predicates,
            other=other,
        )
        return _page(facts, total, offset)

    def by_predicate(
        self,
        predicate: str,
        object: str | None = None,
        *,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        current_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[Fact]:
        """Facts by relationship type, optionally pointing at one ``object``; oldest first.

        Parameters
        ----------
        predicate : str
            The relationship type (normalised, through its predicate alias).
        object : str, optional
            Keep the facts pointing at it: an entity (id or alias), or a value (compared case-folded).
        as_of, known_at : date or datetime, optional
            The time window, as for :meth:`query`.
        current_only : bool
            Keep the current facts alone.
        limit, offset : int, optional
            The page: at most ``limit`` facts from position ``offset``.

        Returns
        -------
        Page of Fact
            The facts, and how many match in all.

        Raises
        ------
        NotFound
            A predicate no fact uses, or an object that names no entity (with suggestions).

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "uses_queue", "SQLite")
        >>> [f.subject for f in kg.by_predicate("uses queue", "sqlite")]
        ['my_api']
        """
        window = ReadWindow(as_of, known_at, current_only=current_only)
        facts, total = _reads.search(
            self._engine, self._value_guess, predicate, object, window, limit, offset, counted=_paged(limit, offset)
        )
        return _page(facts, total, offset)

    def predicates(self, *, limit: int | None = None, offset: int = 0) -> Page[PredicateInfo]:
        """Every predicate in use, most facts first (then by id).

        Each record holds its ``id``, ``label`` (first spelling), ``facts``, ``current`` and the ``aliases``
        that name it, and still unpacks as an ``(id, facts)`` pair.

        Parameters
        ----------
        limit, offset : int, optional
            The page: at most ``limit`` predicates from position ``offset``.

        Returns
        -------
        Page of PredicateInfo
            The predicates, and how many are in use.

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "Uses Queue", "Redis")
        >>> [(p.id, p.label, p.facts) for p in kg.predicates()]
        [('uses_queue', 'Uses Queue', 1)]
        """
        with self._engine.read(snapshot=True) as cur:
            rows, total = _preds.predicates_page(cur, self._engine.dialect, limit, offset, Clock.real())
        return Page(tuple(rows), total, offset)

    def predicate_labels(self) -> dict[str, str]:
        """Each predicate's display label by id: the first spelling it was written with (``"Arrest, detain, or
        charge with legal action"`` for ``arrest,_detain,_or_charge_with_legal_action``). A predicate of a graph
        made before labels existed is labelled by its id. For tables, charts and summaries; the id stays the key."""
        with self._read() as cur:
            return _preds.labels(cur)

    def resolve_predicate(self, predicate: str) -> str:
        """The canonical predicate id ``predicate`` names: normalised, then through its predicate alias if it is one.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.alias_predicate("uses db", "uses_database")
        >>> kg.resolve_predicate("Uses DB")
        'uses_database'
        """
        with self._read() as cur:
            return _preds.canonical(cur, predicate)

    def predicate_aliases(self) -> list[PredicateAlias]:
        """Every predicate alias (``alias`` → ``predicate``), ordered by the predicate it names, then alias."""
        with self._read() as cur:
            return _preds.predicate_aliases(cur)

    def aliases(self, entity: str | None = None, *, limit: int | None = None, offset: int = 0) -> Page[Alias]:
        """Every alias, or those of one entity, ordered by entity, then alias.

        Parameters
        ----------
        entity : str, optional
            Only this entity's aliases (its id or an alias).
        limit, offset : int, optional
            The page: at most ``limit`` aliases from position ``offset``.

        Returns
        -------
        Page of Alias
            The aliases, and how many there are in all.

        Raises
        ------
        NotFound
            An ``entity`` that names no entity.

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("pg", "is", "database"); _ = kg.alias("postgres", "pg")
        >>> [a.alias for a in kg.aliases("pg")]
        ['postgres']
        """
        rows, total = _entities.aliases(self._engine, entity, limit, offset, counted=_paged(limit, offset))
        return _page(rows, total, offset)

    def timeline(
        self,
        name: str | None = None,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        predicates: str | Collection[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[Fact]:
        """Facts in order of ``valid_from`` (unknown starts last), for one entity or the whole graph.

        Parameters
        ----------
        name : str, optional
            One entity (its id or an alias); none: the whole graph.
        since, until : date or datetime, optional
            Keep the facts whose validity touches that span (both ends count, a partial date covers its
            period, an unknown start or an open end is unbounded).
        predicates : str or collection of str, optional
            Keep the facts of those predicates (none or empty: all).
        limit, offset : int, optional
            The page: at most ``limit`` facts from position ``offset``.

        Returns
        -------
        Page of Fact
            The facts, and how many there are in all.

        Raises
        ------
        NotFound
            No such entity, or a predicate no fact uses (with suggestions).
        IntervalOrder
            ``since`` after ``until``.

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("a", "knows", "b", valid_from="2024-01-01")
        >>> [f.valid_from for f in kg.timeline("a")]
        ['2024-01-01']
        """
        facts, total = _timeline.timeline(
            self._engine,
            name,
            limit,
            offset,
            counted=_paged(limit, offset),
            since=since,
            until=until,
            predicates=predicates,
        )
        return _page(facts, total, offset)

    def conflicts(
        self,
        entity: str | None = None,
        *,
        current_only: bool = False,
        needs_action: bool = False,
        predicates: str | Collection[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
        history: int | None = DEFAULT_HISTORY,
        history_offset: int = 0,
    ) -> Page[ConflictGroup]:
        """Every (subject, predicate) with more than one distinct object, those needing action first.

        A group needs action with more than one current fact, or a planned switch (a scheduled fact,
        contract §4) that would overlap a fact still valid then. Multi-valued predicates and events
        (contract §12) are left out. A one-holder predicate is grouped by (object, predicate) instead
        (``by="object"``; ``entity`` then names the object). The groups are judged, sorted and cut in SQL,
        then the facts of the page's groups alone are read.

        Parameters
        ----------
        entity : str, optional
            Only this entity's groups.
        current_only : bool
            Look at current facts alone.
        needs_action : bool
            Keep only the groups needing action.
        predicates : str or collection of str, optional
            Keep only the groups of those predicates.
        limit, offset : int, optional
            The page of groups (each judged whole).
        history : int or None
            At most this many ended facts per group (the last ended first); None: all of them.
        history_offset : int
            Ended facts skipped per group before ``history`` are kept.

        Returns
        -------
        Page of ConflictGroup
            The groups (each with ``facts_total``, ``history_total``, ``history_more``), and how many
            groups there are in all.

        Raises
        ------
        NotFound
            No such entity, or a predicate no fact uses.

        Examples
        --------
        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("api", "uses_db", "pg"); _ = kg.add("api", "uses_db", "mysql")
        >>> page = kg.conflicts()
        >>> page.total, page[0].needs_action
        (1, True)
        """
        groups, total = _conflicts.conflicts(
            self._engine, entity, current_only, needs_action, predicates, limit, offset, history, history_offset
        )
        return Page(tuple(groups), total, offset)

    def conflicts_needing_action(
        self,
        entity: str | None = None,
        *,
        current_only: bool = False,
        predicates: str | Collection[str] | None = None,
    ) -> int:
        """How many conflict groups need action (more than one current fact, or an overlapping planned switch),
        counted in SQL without reading their facts."""
        return _conflicts.needing_action(self._engine, entity, current_only=current_only, predicates=predicates)

    def top_entities(self, limit: int = 20, *, as_of: TimeInput | None = None) -> list[tuple[Entity, int]]:
        """Entities with the most current facts (valid at ``as_of`` when given), both directions."""
        return _entities.top_entities(self._engine, limit, ReadWindow(as_of, current_only=as_of is None))

    def stats(self) -> Stats:
        """Counts: entities (per type), facts, current, ended, value facts, predicates, aliases, memories, and
        events apart from the state facts (contract §12)."""
        return _reads.stats(self._engine)

    def neighbors(
        self,
        name: str,
        *,
        hops: int = 1,
        direction: Direction = "both",
        predicates: Sequence[str] | None = None,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        during: Sequence[TimeInput] | None = None,
        max_facts: int = DEFAULT_MAX_FACTS,
        limit: int | None = 100,
        offset: int = 0,
    ) -> Neighborhood:
        """The entities and facts within ``hops`` (1 to 4) of ``name``, walked breadth-first in the store.

        Every hop is a fact valid at ``as_of``, overlapping ``during=(start, end)``, or (by default) current, or an
        event that has occurred at any date (contract §11: an event is never current);
        ``known_at`` as the graph believed then; ``predicates`` only these. Facts come ordered by the hop
        that reached them, then id, one page (``limit``/``offset``; ``limit=None`` for all) of the ``total``;
        at most ``max_facts`` facts are read (``capped`` and ``note`` say when that stopped the walk).

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("billing", "owned_by", "payments"); _ = kg.add("payments", "reports_to", "Dana")
        >>> [(r.id, r.hops) for r in kg.neighbors("billing", hops=2).entities]
        [('billing', 0), ('payments', 1), ('dana', 2)]
        """
        window = ReadWindow(as_of, known_at, during)
        return _walks.neighbors(self._engine, name, window, hops, direction, predicates, max_facts, limit, offset)

    def paths(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 4,
        direction: Direction = "both",
        predicates: Sequence[str] | None = None,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        during: Sequence[TimeInput] | None = None,
        time_respecting: bool = False,
        max_facts: int = DEFAULT_MAX_FACTS,
        limit: int | None = 10,
        offset: int = 0,
    ) -> Paths:
        """Paths of at most ``max_hops`` (1 to 4) facts from ``source`` to ``target``, shortest first (then by
        fact ids); one page of at most ``limit`` from ``offset``. Each path is a tuple of facts, each
        ``direction`` the way it was walked.

        The time rule is :meth:`neighbors`'s; ``time_respecting``: each next fact starts no earlier than the
        previous one (an unknown start counts as the earliest). Walked from both ends in the store.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("billing", "owned_by", "payments"); _ = kg.add("payments", "reports_to", "Dana")
        >>> [[f.predicate for f in p] for p in kg.paths("billing", "dana").paths]
        [['owned_by', 'reports_to']]
        """
        window = ReadWindow(as_of, known_at, during)
        return _walks.paths(
            self._engine,
            (source, target),
            window,
            max_hops,
            direction,
            predicates,
            time_respecting,
            max_facts,
            limit,
            offset,
        )

    def follow(
        self,
        start: str,
        predicates: Sequence[str],
        *,
        direction: Direction = "outgoing",
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        during: Sequence[TimeInput] | None = None,
        time_respecting: bool = False,
        max_facts: int = DEFAULT_MAX_FACTS,
        limit: int | None = 100,
        offset: int = 0,
    ) -> Paths:
        """Follow a chain of relationship types from ``start``, every branch: ``follow("billing", ["owned_by",
        "reports_to"]).ends`` is who billing's owners report to. One hop per predicate (1 to 4), the time rule
        of :meth:`neighbors`; ``ends`` lists every entity at the end of the chain, ``paths`` (at most
        ``limit``, from ``offset``) how each was reached.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("billing", "owned_by", "payments"); _ = kg.add("payments", "reports_to", "Dana")
        >>> kg.follow("billing", ["owned by", "reports_to"]).ends
        ('dana',)
        """
        window = ReadWindow(as_of, known_at, during)
        return _walks.follow(
            self._engine, start, predicates, window, direction, time_respecting, max_facts, limit, offset
        )

    def diff(
        self,
        start: TimeInput,
        end: TimeInput,
        *,
        entity: str | None = None,
        predicates: Sequence[str] | None = None,
        by: DiffBy = "valid",
        limit: int | None = 100,
        offset: int = 0,
        renewals: bool = True,
    ) -> Diff:
        """What changed from ``start`` to ``end`` (both included): facts that began, ended, and replacements
        (same subject and predicate, old object → new, at the switch date), in time order, one page
        (``limit``/``offset``; ``limit=None`` for all; the counts cover every change).

        ``by="valid"``: by the facts' validity; ``by="known"``: what the graph learned between two moments
        (transaction time). ``entity``: only facts about it (either end); ``predicates``: only these.
        A renewal (the same triple again, back to back: a term renewed on its last day or the day after) is one
        change, ``renewed``, neither a start nor an end (contract §11); ``renewals=False``: every end and start
        apart (the raw view).

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("api", "uses", "Redis", valid_from="2026-01-05")
        >>> _ = kg.supersede("api", "uses", "Redis", "SQLite", at="2026-03-02")
        >>> [(c.kind, c.at) for c in kg.diff("2026-02", "2026-03").changes]
        [('replaced', '2026-03-02')]
        """
        with self._engine.read() as cur, gc_paused():
            return _diff.diff(
                cur,
                self._engine.dialect,
                start,
                end,
                entity=entity,
                predicates=predicates,
                by=by,
                limit=limit,
                offset=offset,
                renewals=renewals,
            )


def _paged(limit: int | None, offset: int) -> bool:
    """Whether a read must count its matches apart: a page that may not hold them all."""
    return limit is not None or offset != 0


def _page(items: Sequence[T], total: int | None, offset: int) -> Page[T]:
    """The :class:`Page` of ``items``: ``total`` counted, or (a read of every match) how many it holds."""
    return Page(tuple(items), len(items) if total is None else total, offset)

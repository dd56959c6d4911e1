"""The graph's operations, written once over a :class:`~kgtoolkit.store.engine.Backend` (SQLite or PostgreSQL).

:class:`GraphStore` is the store's one object over a database: every operation's SQL, run through the
backend it was given. The public :class:`kgtoolkit.KnowledgeGraph` (``kgtoolkit/graph.py``) is a
``GraphStore`` with the services above the store (duplicates, checks, the summary) added.

>>> store = GraphStore(":memory:")
>>> store.add("my_api", "uses queue", "Redis", valid_from="2026-03-02").created
True
>>> [f.object_name for f in store.query("My API")]
['Redis']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Self, TypeVar

from .._errors import (
    InvalidRequest,
)
from .._limits import DEFAULT_HISTORY, DEFAULT_MAX_FACTS
from .._page import Page
from .._records import (
    AddResult,
    Alias,
    ConflictGroup,
    Diff,
    DiffBy,
    Direction,
    Entity,
    Fact,
    GraphConfig,
    Memory,
    MergeResult,
    Neighborhood,
    Paths,
    PredicateAlias,
    PredicateInfo,
    PredicateRename,
    Stats,
    SupersedeResult,
)
from .._time import TimeInput
from .._validity import Clock
from .engine import (
    Backend,
    Cursor,
    DatabaseName,
    Location,
    connect,
    read_or_blank,
)
from .ops import _conflicts, _entities, _facts, _reads, _settings, _timeline, _walks
from .ops import _predicates as _preds
from .ops._not_same import mark_not_same
from .reads import _queries as q

__all__ = ["GraphStore"]

T = TypeVar("T")


class GraphStore:
    """The operations of a temporal knowledge graph over one :class:`~kgtoolkit.store.engine.Backend`.

    Safe to share between threads of one process; several processes (on several machines, for
    PostgreSQL) may write one graph at once, with the same guarantees on both engines: every write
    is one transaction, whole or absent; never two identical current facts; ``supersede`` and
    ``merge`` atomic. ``location`` says where the graph is (``location.path``: its SQLite file, None for PostgreSQL).
    """

    def __init__(
        self,
        db: DatabaseName | None = None,
        *,
        read_only: bool = False,
        timeout: float = 30.0,
        backend: Backend | None = None,
        create: bool = False,
    ) -> None:
        if backend is not None and db is not None:
            raise InvalidRequest(
                "give either db or backend, not both: a backend already knows its database", field="backend"
            )
        if create and read_only:
            raise InvalidRequest("a graph opened read_only cannot be created; give one or the other", field="create")
        self._engine = backend if backend is not None else connect(db, read_only=read_only, timeout=timeout)
        if create:
            self._engine.create()
        self.location: Location = self._engine.location
        self._kept: dict[str, Any] = {}
        #: Whether each predicate (normalised, as given) was a value predicate when last searched: the guess
        #: :meth:`_search_found` checks against the settings its statement reads.
        self._value_guess = _reads._Guesses()

    # ------------------------------------------------------------------ plumbing

    @property
    def read_only(self) -> bool:
        return self._engine.read_only

    @property
    def read_only_reason(self) -> str | None:
        """Why a graph opened for writing is read-only anyway (a folder or file this user cannot write)."""
        return self._engine.read_only_reason

    @property
    def engine(self) -> Backend:
        """The backend this graph runs on: the one seam through which the store's wings reach the database.

        Returns
        -------
        Backend
            Its transactions (``read``, ``write``), ``dialect``, Arrow reads and bulk loads.

        Examples
        --------
        >>> GraphStore(":memory:").engine.kind
        'sqlite'
        """
        return self._engine

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.kind

    def data_version(self) -> tuple[Any, ...]:
        """Changes whenever the graph's data may have changed, by this process or another (for caches)."""
        return self._engine.data_version()

    def identity(self) -> str:
        """A stable name of the graph's database (its file, or the PostgreSQL graph's id), for caches kept outside it."""
        return self._engine.identity()

    def keep(self, key: str, make: Callable[[], T], *, replace: bool = False) -> T:
        """An object that lives as long as this graph (the search index): made by ``make`` on first use, then
        kept under ``key``, and closed (its ``close()``) when the graph closes."""
        with self._engine.lock:
            if replace and key in self._kept:
                self._kept.pop(key).close()
            if key not in self._kept:
                self._kept[key] = make()
            kept: T = self._kept[key]
            return kept

    def close(self) -> None:
        """Close the graph (and what it keeps: the search indexes opened on it); the object is unusable afterwards."""
        with self._engine.lock:
            kept, self._kept = self._kept, {}
            for item in kept.values():
                item.close()
            self._engine.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.location)!r}{', read_only=True' if self.read_only else ''})"

    def _read(self) -> Any:
        return self._engine.read()

    # ------------------------------------------------------------------ settings

    @property
    def config(self) -> GraphConfig:
        """The graph's settings: type vocabulary, value predicates, multi-valued predicates, comma guard (a graph
        not made yet has a new graph's)."""
        with read_or_blank(self._engine) as cur:
            return q.read_config(cur)

    def configure(
        self,
        *,
        types: Collection[str] | None = None,
        value_predicates: Collection[str] | None = None,
        multi_valued: Collection[str] | None = None,
        comma_guard: bool | None = None,
        max_name_length: int | None = None,
        max_value_length: int | None = None,
        single_valued: Collection[str] | None = None,
        events: bool | None = None,
        event_predicates: Collection[str] | None = None,
        one_holder: Collection[str] | None = None,
    ) -> GraphConfig:
        """Replace some settings of this graph (each given set replaces the stored one).

        New value predicates apply to facts written from now on; stored facts keep their kind. Names
        are normalised as entity names are, and one that is not valid Unicode is refused
        (:class:`InvalidName`); removing a type some entity has is refused (:class:`UnknownType`).
        ``max_name_length`` and ``max_value_length`` bound what is written from now on (stored texts stay).
        ``single_valued`` predicates hold one object at a time (``check`` reports overlaps); ``one_holder``
        predicates one subject at a time per object (a new subject for an object is a replacement in ``diff``;
        ``conflicts`` and ``check`` judge them per object); a multi-valued predicate is neither
        (:class:`InvalidRequest`). ``events`` declares every fact of the
        graph an event, ``event_predicates`` the facts of those predicates (contract §12: events are never current,
        ended, replaced nor in conflicts); both apply to stored facts at once, as the rule is read, not stored.

        >>> kg = kgtoolkit.open(":memory:")
        >>> sorted(kg.configure(types=kg.config.types | {"service", "team"}).types)[:3]
        ['company', 'event', 'person']
        """
        return _settings.configure(
            self._engine,
            types=types,
            value_predicates=value_predicates,
            multi_valued=multi_valued,
            comma_guard=comma_guard,
            max_name_length=max_name_length,
            max_value_length=max_value_length,
            single_valued=single_valued,
            events=events,
            event_predicates=event_predicates,
            one_holder=one_holder,
        )

    # ------------------------------------------------------------------ names

    def resolve(self, name: str) -> str:
        """The entity id ``name`` names: exact id, then alias; never fuzzy.

        Raises :class:`NotFound` with up to five "Did you mean…?" suggestions.
        """
        return _entities.resolve(self._engine, name)

    # ------------------------------------------------------------------ entities

    def entity(self, name: str) -> Entity:
        """The entity ``name`` resolves to (exact id or alias)."""
        return _entities.entity(self._engine, name)

    def entities(self, *, type: str | None = None, limit: int | None = None, offset: int = 0) -> list[Entity]:
        """Entities ordered by id, optionally of one type."""
        return _entities.entities(self._engine, type=type, limit=limit, offset=offset)

    def add_entity(self, name: str, *, type: str | None = None, properties: Mapping[str, Any] | None = None) -> Entity:
        """Create the entity ``name`` (or update its type and properties) and return it."""
        return _entities.add_entity(self._engine, name, type=type, properties=properties)

    # ------------------------------------------------------------------ writes

    def add(
        self,
        subject: str,
        predicate: str,
        object: str,
        *,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        confidence: float = 1.0,
        source: str | None = None,
        source_closet: str | None = None,
        subject_type: str | None = None,
        object_type: str | None = None,
        properties: Mapping[str, Any] | None = None,
        occurrence: int | None = None,
    ) -> AddResult:
        """Record ``subject → predicate → object``; missing entities are created.

        If the same fact is already current, it is returned unchanged with ``created=False``.
        A fact may be added already ended (``valid_to``), as history. ``properties`` go to the subject.
        ``occurrence`` (contract §12): which occurrence of an event this is (1, 2, … for the same triple on the
        same day); an identical fact of that occurrence is returned unchanged. Default 1.

        >>> kg = kgtoolkit.open(":memory:")
        >>> kg.add("my_api", "uses queue", "Redis").created, kg.add("My API", "uses_queue", "redis").created
        (True, False)
        """
        return _facts.add(
            self._engine,
            subject,
            predicate,
            object,
            valid_from=valid_from,
            valid_to=valid_to,
            confidence=confidence,
            source=source,
            source_closet=source_closet,
            subject_type=subject_type,
            object_type=object_type,
            properties=properties,
            occurrence=occurrence,
        )

    def invalidate(
        self, subject: str, predicate: str, object: str, *, ended: TimeInput | None = None, ended_by: str | None = None
    ) -> Fact:
        """End the current ``subject → predicate → object`` fact on ``ended`` (default: today, UTC).

        Raises :class:`NotCurrent` (listing its last ended facts, at most :data:`~kgtoolkit._limits.DEFAULT_HISTORY`,
        and ``history_total``) when no such fact is current.
        """
        return _facts.invalidate(self._engine, subject, predicate, object, ended=ended, ended_by=ended_by)

    def supersede(
        self,
        subject: str,
        predicate: str,
        old_object: str,
        new_object: str,
        *,
        at: TimeInput | None = None,
        confidence: float = 1.0,
        source: str | None = None,
        source_closet: str | None = None,
        object_type: str | None = None,
    ) -> SupersedeResult:
        """Atomically end ``subject → predicate → old_object`` at ``at`` and add ``new_object`` from ``at``.

        ``at`` defaults to today (UTC); on that day both facts are valid (both ends count).
        """
        return _facts.supersede(
            self._engine,
            subject,
            predicate,
            old_object,
            new_object,
            at=at,
            confidence=confidence,
            source=source,
            source_closet=source_closet,
            object_type=object_type,
        )

    def supersede_holder(
        self,
        object: str,
        predicate: str,
        old_subject: str,
        new_subject: str,
        *,
        at: TimeInput | None = None,
        confidence: float = 1.0,
        source: str | None = None,
        source_closet: str | None = None,
        subject_type: str | None = None,
    ) -> SupersedeResult:
        """Atomically end ``old_subject → predicate → object`` at ``at`` and add ``new_subject → predicate →
        object`` from ``at``: the object's holder changes (a one-holder predicate, contract §14), as
        :meth:`supersede` changes a subject's object.

        ``at`` defaults to today (UTC); on that day both facts are valid (both ends count). ``subject_type`` is the
        type of ``new_subject`` when it is created.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.configure(one_holder={"holds_office"})
        >>> _ = kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01")
        >>> switch = kg.supersede_holder("Mayor", "holds_office", "Ann", "Ben", at="2024-01-01")
        >>> switch.old.subject, switch.old.valid_to, switch.new.subject, switch.new.valid_from
        ('ann', '2024-01-01', 'ben', '2024-01-01')
        """
        return _facts.supersede_holder(
            self._engine,
            object,
            predicate,
            old_subject,
            new_subject,
            at=at,
            confidence=confidence,
            source=source,
            source_closet=source_closet,
            subject_type=subject_type,
        )

    def alias(self, name: str, entity: str) -> Alias:
        """Register ``name`` as another name of ``entity``.

        Raises :class:`AliasConflict` if ``name`` is already an entity or another entity's alias.
        """
        return _entities.alias(self._engine, name, entity)

    def aliases(self, entity: str | None = None, *, limit: int | None = None, offset: int = 0) -> list[Alias]:
        """Every alias, or those of one entity (ordered by entity, then alias)."""
        return _entities.aliases(self._engine, entity, limit, offset, counted=False)[0]

    def aliases_page(self, entity: str | None = None, *, limit: int | None = None, offset: int = 0) -> Page[Alias]:
        """:meth:`aliases` as one :class:`~kgtoolkit.Page`, with how many aliases there are in all."""
        rows, total = _entities.aliases(self._engine, entity, limit, offset, counted=True)
        return Page(tuple(rows), total or 0, offset)

    def merge(self, source: str, target: str) -> MergeResult:
        """Fold entity ``source`` into ``target``, atomically.

        Every fact of ``source`` (both directions) moves to ``target``; ``source``'s name and aliases
        become aliases of ``target``; its type upgrades an ``unknown`` target; properties merge (target
        wins); identical current facts become one (the earliest start), identical history rows one.
        """
        return _entities.merge(self._engine, source, target)

    def remember(self, text: str, *, source: str | None = None, metadata: Mapping[str, Any] | None = None) -> Memory:
        """Store a piece of evidence; a fact's ``source_closet`` may point at its id."""
        return _facts.remember(self._engine, text, source=source, metadata=metadata)

    def memory(self, memory_id: str) -> Memory:
        """The memory with this id."""
        return _facts.memory(self._engine, memory_id)

    # ------------------------------------------------------------------ reads

    def fact(self, fact_id: int) -> Fact:
        """The fact with this id."""
        return _facts.fact(self._engine, fact_id)

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
    ) -> list[Fact]:
        """Facts around one entity, oldest first, each flagged ``current`` and with its ``direction``.

        ``outgoing``: the entity is the subject; ``incoming``: it is the object (every match, not a
        top k). ``as_of`` keeps facts valid then (a day: every fact touching it); ``known_at`` answers
        what the store believed at that moment (a day: at its end). ``predicates`` (one or several;
        none or empty: all) keeps facts of those predicates; ``other`` keeps facts whose other side
        is that entity (resolved like ``name``: exact, then alias). A predicate no fact uses, or an
        ``other`` that names no entity, is ``not_found`` with suggestions. :meth:`query_page` also
        counts every match.
        """
        return _reads.query(
            self._engine,
            name,
            direction,
            as_of,
            known_at,
            current_only,
            limit,
            offset,
            counted=False,
            predicates=predicates,
            other=other,
        )[0]

    def query_page(
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
        """:meth:`query` as one :class:`~kgtoolkit.Page`: the facts and how many match in all (one snapshot).

        >>> kg = kgtoolkit.open(":memory:"); _ = [kg.add("hub", "knows", f"n{i}") for i in range(5)]
        >>> page = kg.query_page("hub", limit=2, offset=2)
        >>> page.count, page.total, page.next_offset
        (2, 5, 4)
        """
        facts, total = _reads.query(
            self._engine,
            name,
            direction,
            as_of,
            known_at,
            current_only,
            limit,
            offset,
            counted=True,
            predicates=predicates,
            other=other,
        )
        return Page(tuple(facts), total or 0, offset)

    def search(
        self,
        predicate: str,
        object: str | None = None,
        *,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        current_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Fact]:
        """Facts by relationship type, optionally pointing at one ``object``; oldest first.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "uses_queue", "SQLite")
        >>> [f.subject for f in kg.search("uses queue", "sqlite")]
        ['my_api']
        """
        return _reads.search(
            self._engine,
            self._value_guess,
            predicate,
            object,
            as_of,
            known_at,
            current_only,
            limit,
            offset,
            counted=False,
        )[0]

    def search_page(
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
        """:meth:`search` as one :class:`~kgtoolkit.Page`: the facts and how many match in all (one snapshot)."""
        facts, total = _reads.search(
            self._engine,
            self._value_guess,
            predicate,
            object,
            as_of,
            known_at,
            current_only,
            limit,
            offset,
            counted=True,
        )
        return Page(tuple(facts), total or 0, offset)

    def _check_predicates(self, cur: Cursor, preds: list[str]) -> None:
        """``not_found``, with suggestions, for the first of ``preds`` that no fact uses (a filter's typo)."""
        _preds.check_used(cur, self._engine.dialect, preds)

    # ------------------------------------------------------------------ predicates (contract §13)

    def predicates(self, *, limit: int | None = None, offset: int = 0) -> list[PredicateInfo]:
        """Every predicate in use, most facts first (then by id): its ``id``, ``label`` (first spelling),
        ``facts``, ``current`` and the ``aliases`` that name it. A record still unpacks as the
        ``(id, facts)`` pair this method answered before.

        >>> kg = kgtoolkit.open(":memory:"); _ = kg.add("my_api", "Uses Queue", "Redis")
        >>> [(p.id, p.label, p.facts) for p in kg.predicates()]
        [('uses_queue', 'Uses Queue', 1)]
        """
        return list(self.predicates_page(limit=limit, offset=offset))

    def predicates_page(self, *, limit: int | None = None, offset: int = 0) -> Page[PredicateInfo]:
        """:meth:`predicates` as one :class:`~kgtoolkit.Page`, with how many predicates are in use."""
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

    def alias_predicate(self, alias: str, predicate: str) -> PredicateAlias:
        """Register ``alias`` as another name of ``predicate``: from now on every write and read that names
        ``alias`` (add, supersede, invalidate, query and timeline filters, search, import) means ``predicate``.

        ``predicate`` given as an alias means the predicate it names (aliases never chain). Refused: an alias
        equal to the predicate (:class:`InvalidRequest`), one already naming another predicate, and a predicate
        that has facts (:class:`AliasConflict`; fold those with :meth:`rename_predicate`). Registering the same
        alias again changes nothing. Settings naming ``alias`` (value and multi-valued predicates) move to
        ``predicate``.
        """
        return _preds.alias_predicate(self._engine, alias, predicate)

    def predicate_aliases(self) -> list[PredicateAlias]:
        """Every predicate alias (``alias`` → ``predicate``), ordered by the predicate it names, then alias."""
        with self._read() as cur:
            return _preds.predicate_aliases(cur)

    def rename_predicate(self, old: str, new: str) -> PredicateRename:
        """Fold every fact of ``old`` into ``new``, atomically, as :meth:`merge` folds entities.

        The facts keep their ids, intervals and transaction times (history included); identical current
        facts become one (the earliest start) and identical history rows one; the ids of rows folded away
        are never given again. ``old`` becomes an alias of ``new`` (so later writes and reads of ``old``
        mean ``new``), its aliases name ``new``, and the settings naming it name ``new``. ``new`` keeps its
        label, or takes this spelling as its first. ``new`` may be a predicate in use or a new one.
        Refused, changing nothing: ``old`` with no facts (:class:`NotFound`), ``old`` an alias already or the
        same predicate as ``new``, or a value predicate folded into an entity predicate in use or the
        reverse (:class:`InvalidRequest`).
        """
        return _preds.rename_predicate(self._engine, old, new)

    def timeline(
        self,
        name: str | None = None,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        predicates: str | Collection[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Fact]:
        """Facts in order of ``valid_from`` (unknown starts last), for one entity or the whole graph.

        ``since`` and ``until`` keep the facts whose validity touches that span (as ``as_of`` does for
        one date: both ends count, a partial date covers its period, an unknown start or an open end
        is unbounded); ``predicates`` (one or several; none or empty: all) keeps facts of those
        predicates, a predicate no fact uses being ``not_found`` with suggestions.
        """
        return _timeline.timeline(
            self._engine, name, limit, offset, counted=False, since=since, until=until, predicates=predicates
        )[0]

    def timeline_page(
        self,
        name: str | None = None,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        predicates: str | Collection[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Page[Fact]:
        """:meth:`timeline` as one :class:`~kgtoolkit.Page`: the facts and how many there are in all."""
        facts, total = _timeline.timeline(
            self._engine, name, limit, offset, counted=True, since=since, until=until, predicates=predicates
        )
        return Page(tuple(facts), total or 0, offset)

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
    ) -> list[ConflictGroup]:
        """Every (subject, predicate) with more than one distinct object, those needing action first.

        Closed-out history is included (a review list); ``needs_action`` marks groups with more than
        one current fact, or a planned switch (a scheduled fact, contract §4) that would overlap a fact
        still valid then (``planned_switch``, ``suggestion``). Multi-valued predicates
        (``config.multi_valued``) and events (contract §12) are left out. ``current_only`` looks at current facts alone;
        ``needs_action`` keeps only the groups needing action; ``predicates`` (one or several) only the groups of
        those predicates. ``limit`` and ``offset`` page through the groups (each judged whole). A one-holder
        predicate (``config.one_holder``) is grouped by (object, predicate) with more than one subject instead
        (``by="object"``; ``entity`` then names the object), and by subject too only when also single-valued.

        A group carries its current and scheduled facts and a page of its history (its ended facts, the last
        ended first; a group by object: those of its object and predicate): ``history_offset`` of them skipped, at most ``history`` kept (default
        :data:`DEFAULT_HISTORY`; None: all of them), and counts them all (``facts_total``, ``history_total``,
        ``history_more``). The judgement reads every fact it needs, whatever the page of history shows.
        """
        groups, _ = _conflicts.conflicts(
            self._engine, entity, current_only, needs_action, predicates, limit, offset, history, history_offset
        )
        return groups

    def conflicts_page(
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
        """:meth:`conflicts` as one :class:`~kgtoolkit.Page` of groups, with how many groups there are in all.

        The groups are judged, sorted and cut in SQL, then the facts of the page's groups alone are read, each
        group's history cut in SQL too: a page costs one pass over the candidate facts in the database, and holds
        at most ``limit`` groups of their current and scheduled facts and ``history`` ended facts each.
        :meth:`conflicts_needing_action` counts those needing action among them.
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
        return _entities.top_entities(self._engine, limit, as_of=as_of)

    def stats(self) -> Stats:
        """Counts: entities (per type), facts, current, ended, value facts, predicates, aliases, memories, and
        events apart from the state facts (contract §12)."""
        return _reads.stats(self._engine)

    # ------------------------------------------------------------------ cleaning up (contract §14)

    def index_text(self) -> int:
        """Fill the full-text index (contract §15) with the facts a big import left to it; how many fact ids that
        covered (0 when it was complete). The first word search does this by itself; call it (or run
        `kgtoolkit index`) to pay that cost at a time of your choosing. Refused on a read-only graph."""
        return self._engine.index_text()

    def mark_not_same(self, first: str, second: str, *, kind: str = "entities") -> tuple[str, str, str, str, bool, str]:
        """Record that ``first`` and ``second`` are not the same (entities, or predicates): (a, a's name, b, b's name,
        whether it is new, when it was recorded); :meth:`kgtoolkit.KnowledgeGraph.not_duplicates` answers it as a record."""
        return mark_not_same(self._engine, kind, first, second)

    # ------------------------------------------------------------------ traversal and diff (contract §11)

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
        return _walks.neighbors(
            self._engine,
            name,
            hops=hops,
            direction=direction,
            predicates=predicates,
            as_of=as_of,
            known_at=known_at,
            during=during,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
        )

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
        return _walks.paths(
            self._engine,
            source,
            target,
            max_hops=max_hops,
            direction=direction,
            predicates=predicates,
            as_of=as_of,
            known_at=known_at,
            during=during,
            time_respecting=time_respecting,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
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
        return _walks.follow(
            self._engine,
            start,
            predicates,
            direction=direction,
            as_of=as_of,
            known_at=known_at,
            during=during,
            time_respecting=time_respecting,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
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
        return _walks.diff_between(
            self._engine,
            start,
            end,
            entity=entity,
            predicates=predicates,
            by=by,
            limit=limit,
            offset=offset,
            renewals=renewals,
        )


# ---------------------------------------------------------------------- helpers

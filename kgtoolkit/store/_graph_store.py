"""The facade of the store: :class:`GraphStore`, one object over a database.

Each method checks nothing itself: it calls one operation of ``ops/`` over its engine (the operation opens
one transaction, read or write). The writes, settings and plumbing are here; the reads in
:class:`~kgtoolkit.store._graph_reads.GraphReads`. The public :class:`kgtoolkit.KnowledgeGraph`
(``kgtoolkit/graph.py``) is a ``GraphStore`` with the services above the store (duplicates, checks, the
summary) added.

>>> store = GraphStore(":memory:")
>>> store.add("my_api", "uses queue", "Redis", valid_from="2026-03-02").created
True
>>> [f.object_name for f in store.query("My API")]
['Redis']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Self, TypeVar

from .._errors import (
    InvalidRequest,
)
from .._records import (
    AddResult,
    Alias,
    Entity,
    Fact,
    GraphConfig,
    Memory,
    MergeResult,
    PredicateAlias,
    PredicateRename,
    SupersedeResult,
)
from .._time import TimeInput
from ._graph_reads import GraphReads
from .engine import (
    Backend,
    DatabaseName,
    Location,
    connect,
    read_or_blank,
)
from .ops import _entities, _facts, _reads, _settings
from .ops import _predicates as _preds
from .ops._not_same import mark_not_same
from .reads import _queries as q

__all__ = ["GraphStore"]

T = TypeVar("T")


class GraphStore(GraphReads):
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

    # ------------------------------------------------------------------ entities

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

    # ------------------------------------------------------------------ reads

    # ------------------------------------------------------------------ predicates (contract §13)

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


# ---------------------------------------------------------------------- helpers

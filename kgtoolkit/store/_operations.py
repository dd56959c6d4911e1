"""The graph's operations, written once over a :class:`~._backend.Backend` (SQLite or PostgreSQL).

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

import functools
import json
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Self, TypeVar

from .. import _validity as v
from .._checks import MAX_INT64, whole_number
from .._errors import (
    AliasConflict,
    IntervalOrder,
    InvalidName,
    InvalidRequest,
    KGError,
    NotCurrent,
    NotFound,
    UnknownType,
)
from .._limits import DEFAULT_HISTORY, DEFAULT_MAX_FACTS
from .._names import (
    DEFAULT_VALUE_PREDICATES,
    clean_text,
    normalize_name,
    normalize_predicate,
    not_by_subject,
    printable,
)
from .._page import Page
from .._records import (
    AddResult,
    Alias,
    ConflictAxis,
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
from .._time import TimeInput, now_text, now_text_after, parse_window, today
from .._validity import Clock, Sql
from . import _predicates as _preds
from . import _queries as q
from . import _rollups
from . import _traversal as t
from ._backend import Backend, Cursor, Dialect
from ._diff import diff
from ._gc import gc_paused
from ._location import DatabaseName, Location, resolve
from ._not_same import mark_not_same, repoint_not_same
from ._rules import EventRule, Rules, json_object
from ._schema import FACT_FROM, FACT_READ, FACT_SELECT, ORDER
from ._sqlite import read_or_blank

__all__ = ["GraphStore", "connect"]

_DIRECTIONS = ("outgoing", "incoming", "both")
T = TypeVar("T")


def connect(db: DatabaseName | None = None, *, read_only: bool = False, timeout: float = 30.0) -> Backend:
    """The backend of the graph in ``db`` (see :func:`kgtoolkit.store.resolve`), connected: SQLite's or PostgreSQL's.

    What :class:`GraphStore` runs on when it is given no backend; pass one as ``backend=`` to inject another
    (a subclass that instruments or wraps the engine's, as httpx takes a transport).

    >>> backend = connect(":memory:")
    >>> backend.kind, GraphStore(backend=backend).stats().facts
    ('sqlite', 0)
    """
    location = resolve(db)
    if location.kind == "postgresql":
        from ._postgres import PostgresBackend  # psycopg loads only for a PostgreSQL graph

        return PostgresBackend(location, read_only=read_only, timeout=timeout)
    from ._sqlite import SQLiteBackend

    return SQLiteBackend(location, read_only=read_only, timeout=timeout)


class GraphStore:
    """The operations of a temporal knowledge graph over one :class:`~._backend.Backend`.

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
        self._backend = backend if backend is not None else connect(db, read_only=read_only, timeout=timeout)
        if create:
            self._backend.create()
        self.location: Location = self._backend.location
        self._kept: dict[str, Any] = {}
        #: Whether each predicate (normalised, as given) was a value predicate when last searched: the guess
        #: :meth:`_search_found` checks against the settings its statement reads.
        self._value_guess = _Guesses()

    # ------------------------------------------------------------------ plumbing

    @property
    def read_only(self) -> bool:
        return self._backend.read_only

    @property
    def read_only_reason(self) -> str | None:
        """Why a graph opened for writing is read-only anyway (a folder or file this user cannot write)."""
        return self._backend.read_only_reason

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._backend.kind

    def data_version(self) -> tuple[Any, ...]:
        """Changes whenever the graph's data may have changed, by this process or another (for caches)."""
        return self._backend.data_version()

    def identity(self) -> str:
        """A stable name of the graph's database (its file, or the PostgreSQL graph's id), for caches kept outside it."""
        return self._backend.identity()

    def keep(self, key: str, make: Callable[[], T], *, replace: bool = False) -> T:
        """An object that lives as long as this graph (the search index): made by ``make`` on first use, then
        kept under ``key``, and closed (its ``close()``) when the graph closes."""
        with self._backend.lock:
            if replace and key in self._kept:
                self._kept.pop(key).close()
            if key not in self._kept:
                self._kept[key] = make()
            kept: T = self._kept[key]
            return kept

    def close(self) -> None:
        """Close the graph (and what it keeps: the search indexes opened on it); the object is unusable afterwards."""
        with self._backend.lock:
            kept, self._kept = self._kept, {}
            for item in kept.values():
                item.close()
            self._backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.location)!r}{', read_only=True' if self.read_only else ''})"

    def _read(self) -> Any:
        return self._backend.read()

    # ------------------------------------------------------------------ settings

    @property
    def config(self) -> GraphConfig:
        """The graph's settings: type vocabulary, value predicates, multi-valued predicates, comma guard (a graph
        not made yet has a new graph's)."""
        with read_or_blank(self._backend) as cur:
            return q.read_config(cur)

    def configure(  # noqa: C901  (over the limit before it was set: to split)
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
        self._backend.create()  # it writes: a new graph is made first (a refusal may read its settings)
        updates: dict[str, str] = {}
        if types is not None:
            vocabulary = self._setting_names(types, "types", "type")
            vocabulary.add("unknown")
            updates["types"] = json.dumps(sorted(vocabulary))
        if value_predicates is not None:
            updates["value_predicates"] = json.dumps(
                sorted(self._setting_names(value_predicates, "value_predicates", "predicate"))
            )
        if multi_valued is not None:
            updates["multi_valued"] = json.dumps(sorted(self._setting_names(multi_valued, "multi_valued", "predicate")))
        if single_valued is not None:
            updates["single_valued"] = json.dumps(
                sorted(self._setting_names(single_valued, "single_valued", "predicate"))
            )
        if event_predicates is not None:
            updates["event_predicates"] = json.dumps(
                sorted(self._setting_names(event_predicates, "event_predicates", "predicate"))
            )
        if one_holder is not None:
            updates["one_holder"] = json.dumps(sorted(self._setting_names(one_holder, "one_holder", "predicate")))
        for key, flag in (("comma_guard", comma_guard), ("events", events)):
            if flag is not None:
                if not isinstance(flag, bool):
                    raise InvalidRequest(f"{key} must be true or false", field=key, value=str(flag))
                updates[key] = json.dumps(flag)
        for key, value in (("max_name_length", max_name_length), ("max_value_length", max_value_length)):
            if value is not None:
                updates[key] = json.dumps(whole_number(value, field=key, low=1, high=q.LENGTH_SETTINGS[key]))

        def write(cur: Cursor) -> GraphConfig:
            aliases = _preds.read_aliases(cur)
            for key in _preds.PREDICATE_SETTINGS:  # a predicate alias names its predicate here too (contract §13)
                if key in updates and aliases:
                    updates[key] = json.dumps(sorted({aliases.get(p, p) for p in json.loads(updates[key])}))
            if types is not None:
                in_use = {r[0] for r in cur.execute("SELECT DISTINCT type FROM entities")}
                missing = in_use - set(json.loads(updates["types"]))
                if missing:
                    raise UnknownType(
                        f"types {sorted(missing)} are used by entities; keep them in the vocabulary",
                        field="types",
                        value=sorted(missing),
                    )
            before = q.read_config(cur)
            _preds.check_exclusive(before, {key: json.loads(value) for key, value in updates.items()})
            cur.executemany(
                "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                list(updates.items()),
            )
            return q.read_config(cur)

        return self._backend.write(write)

    def _setting_names(self, values: Collection[str], setting: str, field: str) -> set[str]:
        """The normalised names of a setting. One that is not valid Unicode is refused, saying how to remove it
        when it is already stored (older versions accepted such names from the command line)."""
        keys: set[str] = set()
        for name in _strings(values, setting):
            try:
                keys.add(normalize_name(name, field=field))
            except InvalidName as exc:
                if name == printable(name) or name not in getattr(self.config, setting):
                    raise
                option = {
                    "types": "--remove-type",
                    "value_predicates": "--remove-value-predicate",
                    "multi_valued": "--remove-multi-valued",
                    "single_valued": "--remove-single-valued",
                    "one_holder": "--remove-one-holder",
                    "event_predicates": "--remove-event-predicate",
                }[setting]
                raise InvalidName(
                    f"{exc.message}. It is stored in this graph's {setting}: remove it with "
                    f"`kgtoolkit config {option} '{printable(name)}'` (or leave it out of "
                    f"configure({setting}=...))",
                    **exc.data,
                ) from exc
        return keys

    # ------------------------------------------------------------------ names

    def resolve(self, name: str) -> str:
        """The entity id ``name`` names: exact id, then alias; never fuzzy.

        Raises :class:`NotFound` with up to five "Did you mean…?" suggestions.
        """
        with self._read() as cur:
            return q.resolve(cur, self._backend.dialect, name)

    # ------------------------------------------------------------------ entities

    def entity(self, name: str) -> Entity:
        """The entity ``name`` resolves to (exact id or alias)."""
        with self._read() as cur:
            return q.entity(cur, q.resolve(cur, self._backend.dialect, name))

    def entities(self, *, type: str | None = None, limit: int | None = None, offset: int = 0) -> list[Entity]:
        """Entities ordered by id, optionally of one type."""
        with self._read() as cur:
            rows = cur.execute(
                "SELECT id, name, type, properties, created_at FROM entities WHERE CAST(:t AS TEXT) IS NULL OR type = :t "
                "ORDER BY id LIMIT :limit OFFSET :offset",
                {"t": type, **q.page(self._backend.dialect, limit, offset)},
            ).fetchall()
        return [Entity(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def add_entity(self, name: str, *, type: str | None = None, properties: Mapping[str, Any] | None = None) -> Entity:
        """Create the entity ``name`` (or update its type and properties) and return it."""

        def write(cur: Cursor) -> Entity:
            rules = Rules(q.read_config(cur))
            entity_id = q.ensure_entity(cur, rules.name(name, "name"), rules.entity_type(type, "type"), properties, [])
            return q.entity(cur, entity_id)

        return self._backend.write(write)

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

        def write(cur: Cursor) -> AddResult:
            rules = _preds.rules(cur)
            return _add(
                cur,
                rules,
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

        return self._backend.write(write)

    def invalidate(
        self, subject: str, predicate: str, object: str, *, ended: TimeInput | None = None, ended_by: str | None = None
    ) -> Fact:
        """End the current ``subject → predicate → object`` fact on ``ended`` (default: today, UTC).

        Raises :class:`NotCurrent` (listing its last ended facts, at most :data:`~kgtoolkit._limits.DEFAULT_HISTORY`,
        and ``history_total``) when no such fact is current.
        """

        def write(cur: Cursor) -> Fact:
            return self._invalidate(cur, _preds.rules(cur), subject, predicate, object, ended, ended_by)

        return self._backend.write(write)

    def _invalidate(
        self,
        cur: Cursor,
        rules: Rules,
        subject: str,
        predicate: str,
        obj: str,
        ended: TimeInput | None,
        ended_by: str | None,
        *,
        field: str = "ended",
    ) -> Fact:
        d = self._backend.dialect
        pred = rules.predicate(predicate)
        end = rules.end(ended if ended not in (None, "") else today(), field)
        by = rules.text(ended_by, "ended_by") or "agent"
        subject_id = q.resolve(cur, d, subject, field="subject")
        object_key = rules.value(obj).id if rules.is_value(pred) else q.resolve(cur, d, obj, field="object")
        row = cur.execute(
            "SELECT id, from_us, valid_from, recorded_at FROM facts WHERE subject = ? AND predicate = ? "
            "AND object_key = ? AND valid_to IS NULL",
            (subject_id, pred, object_key),
        ).fetchone()
        if row is None:
            # its history, bounded: the last DEFAULT_HISTORY ended (a current fact with a recorded end among them:
            # its end is the latest), listed in store order, and how many there are in all
            same = "FROM facts f WHERE subject = ? AND predicate = ? AND object_key = ?"
            last = cur.execute(
                f"SELECT f.id, f.valid_from IS NULL, f.from_us {same} "
                f"ORDER BY f.to_us DESC, f.from_us DESC, f.id DESC LIMIT {DEFAULT_HISTORY}",
                (subject_id, pred, object_key),
            ).fetchall()
            history = [q.fact(cur, r[0]) for r in sorted(last, key=lambda r: (bool(r[1]), r[2], r[0]))]
            total = int(cur.execute(f"SELECT count(*) {same}", (subject_id, pred, object_key)).fetchone()[0])
            earlier = f" (and {total - len(history):,} earlier)" if total > len(history) else ""
            running = [f for f in history if f.state == "current"]
            if running:  # current, with its end already recorded (contract §4): an end is written once
                raise NotCurrent(
                    f"{subject} → {pred} → {obj} already ends on {running[0].valid_to} (it is current "
                    "until then), so there is no open fact to end; a recorded end is not rewritten. "
                    "Query the entity to see its facts.",
                    field="object",
                    value=obj,
                    history=[f.to_dict() for f in history],
                    history_total=total,
                )
            past = "; ".join(f"{f.valid_from or '?'} … {f.valid_to}" for f in history)
            detail = f" It was true{earlier}: {past}." if history else " No such fact was ever recorded."
            raise NotCurrent(
                f"{subject} → {pred} → {obj} is not current, so there is nothing to end.{detail} "
                "Query the entity to see its current facts.",
                field="object",
                value=obj,
                history=[f.to_dict() for f in history],
                history_total=total,
            )
        fact_id, from_key, valid_from, recorded_at = row
        if end.key < from_key:
            raise IntervalOrder(
                f"{field} {end.text} is before the fact's valid_from {valid_from}; "
                f"give a {field} on or after {valid_from}",
                field=field,
                value=end.text,
            )
        cur.execute(
            "UPDATE facts SET valid_to = ?, to_us = ?, invalidated_at = ?, ended_by = ? WHERE id = ?",
            (end.text, end.key, now_text_after(recorded_at), by, fact_id),  # recorded later than the fact (§12)
        )
        return q.fact(cur, fact_id)

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

        def write(cur: Cursor) -> SupersedeResult:
            rules = _preds.rules(cur)
            pred = rules.predicate(predicate)
            if rules.is_value(pred):
                same = (
                    clean_text(old_object, field="old_object").casefold()
                    == clean_text(new_object, field="new_object").casefold()
                )
            else:
                same = normalize_name(old_object, field="old_object") == normalize_name(new_object, field="new_object")
            if same:
                raise InvalidRequest(
                    "old_object and new_object are the same; nothing to supersede", field="new_object", value=new_object
                )
            written = {"confidence": confidence, "source": source, "source_closet": source_closet}
            return self._switch(
                cur, rules, pred, (subject, old_object), (subject, new_object), at, written, object_type
            )

        return self._backend.write(write)

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

        def write(cur: Cursor) -> SupersedeResult:
            rules = _preds.rules(cur)
            pred = rules.predicate(predicate)
            if normalize_name(old_subject, field="old_subject") == normalize_name(new_subject, field="new_subject"):
                raise InvalidRequest(
                    "old_subject and new_subject are the same; nothing to supersede",
                    field="new_subject",
                    value=new_subject,
                )
            written = {"confidence": confidence, "source": source, "source_closet": source_closet}
            return self._switch(
                cur, rules, pred, (old_subject, object), (new_subject, object), at, written, subject_type=subject_type
            )

        return self._backend.write(write)

    def _switch(
        self,
        cur: Cursor,
        rules: Rules,
        pred: str,
        old: tuple[str, str],
        new: tuple[str, str],
        at: TimeInput | None,
        written: dict[str, Any],
        object_type: str | None = None,
        *,
        subject_type: str | None = None,
    ) -> SupersedeResult:
        """The write of :meth:`supersede` and :meth:`supersede_holder`: end the ``old`` (subject, object) fact at
        ``at`` (today by default) and add the ``new`` one from then, with ``written``'s confidence and sources."""
        moment = at if at not in (None, "") else today()
        ended = self._invalidate(cur, rules, old[0], pred, old[1], moment, written["source"], field="at")
        added = _add(
            cur,
            rules,
            new[0],
            pred,
            new[1],
            valid_from=moment,
            valid_to=None,
            subject_type=subject_type,
            object_type=object_type,
            properties=None,
            **written,
        )
        return SupersedeResult(ended, added.fact, added.created, added.warnings)

    def alias(self, name: str, entity: str) -> Alias:
        """Register ``name`` as another name of ``entity``.

        Raises :class:`AliasConflict` if ``name`` is already an entity or another entity's alias.
        """

        def write(cur: Cursor) -> Alias:
            alias = Rules(q.read_config(cur)).name(name, "name")
            target = q.resolve(cur, self._backend.dialect, entity, field="entity")
            if cur.execute("SELECT 1 FROM entities WHERE id = ?", (alias.id,)).fetchone():
                raise AliasConflict(
                    f"{name!r} is already an entity; to fold it into {target!r} use merge({name!r}, {entity!r})",
                    field="name",
                    value=name,
                )
            row = cur.execute("SELECT entity_id, name FROM aliases WHERE alias = ?", (alias.id,)).fetchone()
            if row and row[0] != target:
                raise AliasConflict(
                    f"{name!r} is already an alias of {row[0]!r}; an alias names one entity",
                    field="name",
                    value=name,
                    entity=row[0],
                )
            if row is None:
                cur.execute(
                    "INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)", (alias.id, alias.display, target)
                )
                return Alias(alias.id, alias.display, target)
            return Alias(alias.id, row[1], target)

        return self._backend.write(write)

    def aliases(self, entity: str | None = None, *, limit: int | None = None, offset: int = 0) -> list[Alias]:
        """Every alias, or those of one entity (ordered by entity, then alias)."""
        return self._aliases(entity, limit, offset, counted=False)[0]

    def aliases_page(self, entity: str | None = None, *, limit: int | None = None, offset: int = 0) -> Page[Alias]:
        """:meth:`aliases` as one :class:`~kgtoolkit.Page`, with how many aliases there are in all."""
        rows, total = self._aliases(entity, limit, offset, counted=True)
        return Page(tuple(rows), total or 0, offset)

    def _aliases(
        self, entity: str | None, limit: int | None, offset: int, *, counted: bool
    ) -> tuple[list[Alias], int | None]:
        total: int | None = None
        with self._read() as cur:
            target = q.resolve(cur, self._backend.dialect, entity, field="entity") if entity is not None else None
            params = {"e": target, **q.page(self._backend.dialect, limit, offset)}
            where = "WHERE CAST(:e AS TEXT) IS NULL OR entity_id = :e"
            rows = cur.execute(
                f"SELECT alias, name, entity_id FROM aliases {where} "
                "ORDER BY entity_id, alias LIMIT :limit OFFSET :offset",
                params,
            ).fetchall()
            if counted:
                total = _count(cur, f"SELECT count(*) FROM aliases {where}", params)
        return [Alias(*r) for r in rows], total

    def merge(self, source: str, target: str) -> MergeResult:
        """Fold entity ``source`` into ``target``, atomically.

        Every fact of ``source`` (both directions) moves to ``target``; ``source``'s name and aliases
        become aliases of ``target``; its type upgrades an ``unknown`` target; properties merge (target
        wins); identical current facts become one (the earliest start), identical history rows one.
        """

        def write(cur: Cursor) -> MergeResult:
            d = self._backend.dialect
            src = q.resolve(cur, d, source, field="source")
            dst = q.resolve(cur, d, target, field="target")
            if src == dst:
                raise InvalidRequest(
                    f"{source!r} and {target!r} are the same entity; nothing to merge", field="target", value=target
                )
            src_entity, dst_entity = q.entity(cur, src), q.entity(cur, dst)
            warnings: list[str] = []
            new_type = q.upgraded_type(dst_entity.type, src_entity.type)
            if src_entity.type not in ("unknown", new_type):
                warnings.append(f"{src!r} was a {src_entity.type}; {dst!r} stays a {dst_entity.type}")
            props = {**src_entity.properties, **dst_entity.properties}
            cur.execute("UPDATE entities SET type = ?, properties = ? WHERE id = ?", (new_type, json.dumps(props), dst))
            moved = cur.execute(
                "SELECT count(*) FROM facts WHERE subject = :s OR object_id = :s", {"s": src}
            ).fetchone()[0]
            deduplicated = _fold_duplicates(cur, src, dst)
            cur.execute("UPDATE facts SET subject = :d WHERE subject = :s", {"s": src, "d": dst})
            cur.execute("UPDATE facts SET object_id = :d, object_key = :d WHERE object_id = :s", {"s": src, "d": dst})
            cur.execute("UPDATE aliases SET entity_id = ? WHERE entity_id = ?", (dst, src))
            repoint_not_same(cur, src, dst)
            cur.execute("DELETE FROM entities WHERE id = ?", (src,))
            cur.execute(
                "INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (src, src_entity.name, dst),
            )
            aliases = tuple(
                r[0]
                for r in cur.execute("SELECT alias FROM aliases WHERE entity_id = ? ORDER BY alias", (dst,)).fetchall()
            )
            return MergeResult(src, q.entity(cur, dst), moved, deduplicated, aliases, tuple(warnings))

        return self._backend.write(write)

    def remember(self, text: str, *, source: str | None = None, metadata: Mapping[str, Any] | None = None) -> Memory:
        """Store a piece of evidence; a fact's ``source_closet`` may point at its id."""
        self._backend.create()  # it writes: a new graph is made first (the rules read its settings)
        rules = Rules(self.config)
        body = (rules.text(text, "text") or "") if isinstance(text, str) else ""
        if not body:
            raise InvalidRequest("a memory needs some text", field="text", value=str(text))
        meta = json_object(metadata, "metadata") or {}
        memory = Memory(f"mem_{uuid.uuid4().hex[:16]}", body, rules.text(source, "source"), now_text(), meta)

        def write(cur: Cursor) -> Memory:
            cur.execute(
                "INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)",
                (memory.id, memory.text, memory.source, memory.created_at, json.dumps(meta)),
            )
            return memory

        return self._backend.write(write)

    def memory(self, memory_id: str) -> Memory:
        """The memory with this id."""
        with self._read() as cur:
            row = cur.execute(
                "SELECT id, text, source, created_at, metadata FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {memory_id!r}", field="memory_id", value=memory_id)
        return Memory(row[0], row[1], row[2], row[3], json.loads(row[4]))

    # ------------------------------------------------------------------ reads

    def fact(self, fact_id: int) -> Fact:
        """The fact with this id."""
        if not isinstance(fact_id, int) or isinstance(fact_id, bool) or not -(2**63) <= fact_id < 2**63:
            raise NotFound(f"no fact with id {fact_id!r}", field="id", value=str(fact_id))
        with self._read() as cur:
            if cur.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is None:
                raise NotFound(f"no fact with id {fact_id!r}", field="id", value=str(fact_id))
            return q.fact(cur, fact_id)

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
        return self._query(
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
        facts, total = self._query(
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

    def _query(
        self,
        name: str,
        direction: Direction,
        as_of: TimeInput | None,
        known_at: TimeInput | None,
        current_only: bool,
        limit: int | None,
        offset: int,
        *,
        counted: bool,
        predicates: str | Collection[str] | None = None,
        other: str | None = None,
    ) -> tuple[list[Fact], int | None]:
        if direction not in _DIRECTIONS:
            raise InvalidRequest(
                f"direction must be one of {', '.join(_DIRECTIONS)}, not {direction!r}",
                field="direction",
                value=str(direction),
            )
        where, params, known = q.time_filter(as_of, known_at, current_only)
        d = self._backend.dialect
        params.update(k=normalize_name(name), **q.page(d, limit, offset))
        paged = limit is not None or offset != 0
        total: int | None = None
        # Counted: the count in the same snapshot (a transaction); else one statement is its own snapshot (the
        # event rule is read in it: EVENT_SETTINGS).
        with self._backend.read(snapshot=counted) as cur:
            if current_only:  # an event is never current (contract §12)
                not_events, event_params = q.not_declared_events(cur, d)
                where += not_events
                params.update(event_params)
            preds = _predicate_list(predicates)
            if other is not None:
                params["o"] = normalize_name(other, field="other")
            sql, count_sql = _query_sql(d, direction, where, other is not None, bool(preds), paged)
            if preds:  # through predicate aliases (contract §13)
                preds = _canonical_list(cur, preds)
                params["preds"] = d.list_param(preds)
            rows = cur.execute(sql, params).fetchall()
            if counted:
                total = int(cur.execute(count_sql, params).fetchone()[0])
            if not rows and not total:
                q.resolve(cur, d, name)  # no such entity: NotFound, with suggestions
                if other is not None:
                    q.resolve(cur, d, other, field="other")
            if preds:
                self._check_predicates(cur, preds)
        if not rows:
            return [], total
        events = q.stored_event_rule(rows[0][19], rows[0][20])
        return q.row_facts(rows, events=events, known_at=known, directions=True), total

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
        return self._search(predicate, object, as_of, known_at, current_only, limit, offset, counted=False)[0]

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
        facts, total = self._search(predicate, object, as_of, known_at, current_only, limit, offset, counted=True)
        return Page(tuple(facts), total or 0, offset)

    def _search(
        self,
        predicate: str,
        object: str | None,
        as_of: TimeInput | None,
        known_at: TimeInput | None,
        current_only: bool,
        limit: int | None,
        offset: int,
        *,
        counted: bool,
    ) -> tuple[list[Fact], int | None]:
        key = normalize_predicate(predicate)  # a bad name is refused before the graph is read
        where, params, known = q.time_filter(as_of, known_at, current_only)
        d = self._backend.dialect
        if object not in (None, "") and not counted and not current_only:
            found = self._search_found(key, object, where, dict(params), known, limit, offset)
            if found:
                return found, None
        total: int | None = None
        with self._read() as cur:
            events = q.event_rule(cur)
            if current_only:  # an event is never current (contract §12)
                not_events, event_params = q.not_declared_events(cur, d)
                where += not_events
                params.update(event_params)
            # Through a predicate alias (contract §13), and one some fact uses (else not_found, with suggestions).
            # Whether a fact uses it is asked only when the answer is empty, or before any other error: a fact found
            # uses it, so a search that finds something costs one statement less.
            pred = _preds.canonical(cur, predicate)
            params.update(p=pred, **q.page(d, limit, offset))
            if object not in (None, ""):
                try:
                    is_value = pred in q.read_config(cur).value_predicates
                    self._value_guess[key] = is_value
                    if is_value:
                        params["o"] = clean_text(object, field="object").casefold()
                    else:
                        params["o"] = q.resolve(cur, d, object, field="object")
                except KGError:
                    _preds.check_used(cur, d, [predicate], field="predicate")
                    raise
                where = " AND f.object_key = :o" + where
            rows = cur.execute(
                f"{FACT_SELECT} WHERE f.predicate = :p{where} {ORDER} LIMIT :limit OFFSET :offset", params
            ).fetchall()
            if not rows:
                _preds.check_used(cur, d, [predicate], field="predicate")
            if counted:
                total = _count(cur, f"SELECT count(*) FROM facts f WHERE f.predicate = :p{where}", params)
        return [q.row_fact(r, events=events, known_at=known) for r in rows], total

    def _search_found(
        self, key: str, obj: str, where: str, params: dict[str, Any], known: str | None, limit: int | None, offset: int
    ) -> list[Fact]:
        """:meth:`search` by predicate and object in one statement, its own snapshot, when it finds something.

        The statement resolves the predicate through its alias and the object's name (for an entity predicate)
        itself, and returns the settings the answer depends on (value predicates, the event rule) as they were in
        its snapshot. Whether the predicate is a value predicate decides the object's key before the statement
        runs, so it is guessed (what the last search of ``key`` found) and checked against the settings the
        statement read: a wrong guess, an answer of no facts, or a name the rules refuse leave it to the full read
        (empty list), which also words the errors.
        """
        guess = self._value_guess.get(key, key in DEFAULT_VALUE_PREDICATES)
        try:
            params["o"] = clean_text(obj, field="object").casefold() if guess else normalize_name(obj, field="object")
        except KGError:
            return []
        d = self._backend.dialect
        params.update(p=key, **q.page(d, limit, offset))
        sql = _search_sql(d, where, guess, limit is not None or offset != 0)
        rows = self._backend.fetch_all(sql, params)
        if not rows:
            return []
        first = rows[0]
        if (first[3] in q.stored_value_predicates(first[16])) != guess:  # f.predicate: the canonical predicate
            self._value_guess[key] = not guess
            return []
        events = q.stored_event_rule(first[17], first[18])
        return q.row_facts(rows, events=events, known_at=known)

    def _check_predicates(self, cur: Cursor, preds: list[str]) -> None:
        """``not_found``, with suggestions, for the first of ``preds`` that no fact uses (a filter's typo)."""
        _preds.check_used(cur, self._backend.dialect, preds)

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
        _rollups.fold(self)  # contract §17: the counts brought up to date first
        with self._backend.read(snapshot=True) as cur:
            rows, total = _preds.predicates_page(cur, self._backend.dialect, limit, offset, Clock.real())
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
        return _preds.alias_predicate(self._backend, alias, predicate)

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
        return _preds.rename_predicate(self._backend, old, new)

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
        return self._timeline(name, limit, offset, counted=False, since=since, until=until, predicates=predicates)[0]

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
        facts, total = self._timeline(
            name, limit, offset, counted=True, since=since, until=until, predicates=predicates
        )
        return Page(tuple(facts), total or 0, offset)

    def _timeline(
        self,
        name: str | None,
        limit: int | None,
        offset: int,
        *,
        counted: bool,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        predicates: str | Collection[str] | None = None,
    ) -> tuple[list[Fact], int | None]:
        d = self._backend.dialect
        total: int | None = None
        params: dict[str, Any] = q.page(d, limit, offset)
        where = ""
        if since not in (None, ""):
            assert since is not None
            params["lo"] = parse_window(since, field="since").lo
            where += " AND f.to_us >= :lo"
        if until not in (None, ""):
            assert until is not None
            params["hi"] = parse_window(until, field="until").hi
            where += " AND f.from_us <= :hi"
        if "lo" in params and "hi" in params and params["lo"] > params["hi"]:
            raise IntervalOrder(
                f"since ({since}) is after until ({until}); give since on or before until",
                field="until",
                value=str(until),
            )
        preds = _predicate_list(predicates)
        if preds:
            where += f" AND f.predicate IN {d.values('preds')}"
        with self._read() as cur:
            if preds:  # through predicate aliases (contract §13)
                preds = _canonical_list(cur, preds)
                params["preds"] = d.list_param(preds)
            if name is not None:
                params["e"] = q.resolve(cur, d, name)
                where = " AND (f.subject = :e OR f.object_id = :e)" + where
            self._check_predicates(cur, preds)
            events = q.event_rule(cur)
            rows = cur.execute(
                f"{FACT_SELECT} WHERE TRUE{where} {ORDER} LIMIT :limit OFFSET :offset", params
            ).fetchall()
            if counted:
                total = _count(cur, f"SELECT count(*) FROM facts f WHERE TRUE{where}", params)
        return [q.row_fact(r, events=events) for r in rows], total

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
        groups, _ = self._conflicts(
            entity, current_only, needs_action, predicates, limit, offset, history, history_offset
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
        groups, total = self._conflicts(
            entity, current_only, needs_action, predicates, limit, offset, history, history_offset
        )
        return Page(tuple(groups), total, offset)

    def _conflicts(
        self,
        entity: str | None,
        current_only: bool,
        needs_action: bool,
        predicates: str | Collection[str] | None,
        limit: int | None,
        offset: int,
        history: int | None,
        history_offset: int,
    ) -> tuple[list[ConflictGroup], int]:
        """The page of conflict groups asked for, and how many groups there are in all.

        The groups are found, counted and judged in SQL (:func:`_judged_conflicts`: whether each needs action, by
        the rule :func:`_conflict_group` applies), sorted and cut there, and counted in the same snapshot; then
        only the facts of the page's groups are read (:func:`_group_facts_sql`: their current and scheduled facts,
        the page of history asked for, and the ended facts the planned-switch judgement may need), and each group
        is built from them by :func:`_conflict_group`.
        """
        d = self._backend.dialect
        page = q.page(d, limit, offset)  # checks limit and offset
        cap = whole_number(history, field="history", high=MAX_INT64, allow_none=True)
        skip = whole_number(history_offset, field="history_offset", high=MAX_INT64)
        preds = _predicate_list(predicates)
        with self._read() as cur:
            judged, params, events = self._conflict_judgement(cur, entity, current_only, preds)
            keep = " WHERE needs = 1" if needs_action else ""
            rows = cur.execute(
                f"{judged} SELECT axis, anchor, predicate, n_objects, n_subjects, n_facts, n_ended, count(*) OVER (), "
                "CASE WHEN axis = 0 THEN (SELECT name FROM entities WHERE id = anchor) END "
                f"FROM judged{keep} ORDER BY needs DESC, anchor, predicate, axis LIMIT :limit OFFSET :offset",
                {**params, **page},
            ).fetchall()
            if rows:
                total = int(rows[0][7])
            else:  # past the last group, or none: count them alone
                total = _count(cur, f"{judged} SELECT count(*) FROM judged{keep}", params) if offset else 0
            found: dict[tuple[int, str, str], list[Fact]] = {(int(r[0]), r[1], r[2]): [] for r in rows}
            # the ids each axis's groups show: a fact in a group by subject and one by object may show in one alone
            shown: tuple[set[int], set[int]] = (set(), set())
            for axis in (0, 1):  # the facts of the page's groups, by axis
                wanted = [(a, p) for x, a, p in found if x == axis]
                if not wanted:
                    continue
                found_params: dict[str, Any] = {
                    **events.params(d),
                    **Clock.real().params(),
                    "ps": d.list_param(sorted({a for a, _ in wanted})),
                    "pp": d.list_param(sorted({p for _, p in wanted})),
                    "skip": skip,
                    "upto": MAX_INT64 if cap is None else min(MAX_INT64, skip + cap),
                }
                facts = cur.execute(_group_facts_sql(d, events, current_only, axis == 1), found_params).fetchall()
                for row in facts:  # the page's anchors and predicates: keep the page's pairs
                    group = found.get((axis, row[-2], row[3]))
                    if group is not None:
                        group.append(q.row_fact(row, events=events))
                        if row[-1]:
                            shown[axis].add(row[0])
        axes: tuple[ConflictAxis, ConflictAxis] = ("subject", "object")
        counts = {(int(r[0]), r[1], r[2]): (r[8], int(r[3]), int(r[4]), int(r[5]), int(r[6])) for r in rows}
        return [
            _conflict_group(a, p, facts, by=axes[x], counts=counts[x, a, p], shown=shown[x], history_offset=skip)
            for (x, a, p), facts in found.items()
        ], total

    def _conflict_judgement(
        self, cur: Cursor, entity: str | None, current_only: bool, preds: list[str] | None = None
    ) -> tuple[str, dict[str, Any], EventRule]:
        """The ``WITH … judged AS (…)`` of the conflict groups (:func:`_judged_conflicts`), its parameters (the
        real now among them) and the graph's event rule; ``preds``: only those predicates (normalised). Groups by
        subject leave out the predicates :func:`~kgtoolkit._names.not_by_subject` names; one-holder predicates are
        grouped by object."""
        d = self._backend.dialect
        config = q.read_config(cur)
        params: dict[str, Any] = {
            "mv": d.list_param(sorted(not_by_subject(config.multi_valued, config.one_holder, config.single_valued))),
            "oh": d.list_param(sorted(config.one_holder)),
            "e": None,
        }
        if entity is not None:
            params["e"] = q.resolve(cur, d, entity, field="entity")
        only = ""
        if preds:  # through predicate aliases (contract §13)
            preds = _canonical_list(cur, preds)
            self._check_predicates(cur, preds)
            params["preds"] = d.list_param(preds)
            only = f" AND {d.in_list('@.predicate', 'preds')}"
        events = q.event_rule(cur)  # an event is never in a conflict (contract §12)
        params.update(events.params(d))
        params.update(Clock.real().params())

        def kept(alias: str, cond: str) -> str:
            cond += f" AND NOT {events.sql(d, alias)}{only.replace('@', alias)}"
            return f"{cond} AND {q.current_sql(alias)}" if current_only else cond

        def where(alias: str) -> str:  # the facts that count by subject, on the facts row ``alias``
            return kept(
                alias,
                f"NOT ({d.in_list(f'{alias}.predicate', 'mv')}) AND (CAST(:e AS TEXT) IS NULL OR {alias}.subject = :e)",
            )

        def holders(alias: str) -> str:  # the facts of one-holder predicates, by object (the entity: the object)
            return kept(
                alias,
                f"{d.in_list(f'{alias}.predicate', 'oh')} AND (CAST(:e AS TEXT) IS NULL OR {alias}.object_id = :e)",
            )

        return _judged_conflicts(where, holders if config.one_holder else None), params, events

    def conflicts_needing_action(
        self,
        entity: str | None = None,
        *,
        current_only: bool = False,
        predicates: str | Collection[str] | None = None,
    ) -> int:
        """How many conflict groups need action (more than one current fact, or an overlapping planned switch),
        counted in SQL without reading their facts."""
        preds = _predicate_list(predicates)
        with self._read() as cur:
            judged, params, _ = self._conflict_judgement(cur, entity, current_only, preds)
            return _count(cur, f"{judged} SELECT count(*) FROM judged WHERE needs = 1", params)

    def top_entities(self, limit: int = 20, *, as_of: TimeInput | None = None) -> list[tuple[Entity, int]]:
        """Entities with the most current facts (valid at ``as_of`` when given), both directions."""
        where, params, _ = q.time_filter(as_of, None, as_of is None)
        params["limit"] = q.page(self._backend.dialect, limit, 0)["limit"]
        with self._read() as cur:
            if as_of is None:  # an event is never current (contract §12)
                not_events, event_params = q.not_declared_events(cur, self._backend.dialect)
                where += not_events
                params.update(event_params)
            rows = cur.execute(
                f"""SELECT e, count(*) AS n FROM (
                        SELECT f.subject AS e FROM facts f WHERE TRUE{where}
                        UNION ALL
                        SELECT f.object_id FROM facts f WHERE f.object_id IS NOT NULL{where}) ends
                    GROUP BY e ORDER BY n DESC, e LIMIT :limit""",
                params,
            ).fetchall()
            return [(q.entity(cur, e), n) for e, n in rows]

    def stats(self) -> Stats:
        """Counts: entities (per type), facts, current, ended, value facts, predicates, aliases, memories, and
        events apart from the state facts (contract §12)."""
        if (rolled := _rollups.stats(self)) is not None:  # contract §17
            return rolled
        d = self._backend.dialect
        with self._read() as cur:
            t = q.table_counts(cur)  # on the tables and indexes; the facts' states below in one scan
            # Events are counted apart (contract §12); the rule checked on every row, its predicates bound one by one.
            event, params = q.event_rule(cur).bound(d)
            keys = (Sql("from_us"), Sql("to_us"), v.NOW, v.NOW_DAY_LAST)  # the states of contract §4
            facts, current, ended, values, events = cur.execute(
                f"SELECT count(*), count(*) FILTER (WHERE {v.current(*keys).text} AND NOT {event}), "
                f"count(*) FILTER (WHERE {v.ended(*keys).text} AND NOT {event}), "
                f"count(*) FILTER (WHERE object_id IS NULL), count(*) FILTER (WHERE {event}) FROM facts f",
                {**Clock.real().params(), **params},
            ).fetchone()
        by_type = dict(t.entities_by_type)
        return Stats(
            sum(by_type.values()),
            by_type,
            facts,
            current,
            ended,
            values,
            len(t.predicates),
            t.aliases,
            t.memories,
            facts - current - ended - events,
            events,
        )

    # ------------------------------------------------------------------ cleaning up (contract §14)

    def index_text(self) -> int:
        """Fill the full-text index (contract §15) with the facts a big import left to it; how many fact ids that
        covered (0 when it was complete). The first word search does this by itself; call it (or run
        `kgtoolkit index`) to pay that cost at a time of your choosing. Refused on a read-only graph."""
        return self._backend.index_text()

    def mark_not_same(self, first: str, second: str, *, kind: str = "entities") -> tuple[str, str, str, str, bool, str]:
        """Record that ``first`` and ``second`` are not the same (entities, or predicates): (a, a's name, b, b's name,
        whether it is new, when it was recorded); :meth:`kgtoolkit.KnowledgeGraph.not_duplicates` answers it as a record."""
        return mark_not_same(self._backend, kind, first, second)

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
        t.check_direction(direction)
        t.check_hops(hops, "hops")
        t.check_max_facts(max_facts)
        d = self._backend.dialect
        q.page(d, limit, offset)
        with self._read() as cur, gc_paused():
            w = t.when(cur, d, as_of, known_at, during)
            preds = t.check_predicates(cur, d, predicates)
            return t.neighbors(
                cur,
                d,
                name,
                hops=hops,
                direction=direction,
                predicates=preds,
                w=w,
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
        t.check_direction(direction)
        t.check_hops(max_hops, "max_hops")
        t.check_max_facts(max_facts)
        d = self._backend.dialect
        q.page(d, limit, offset)
        with self._read() as cur, gc_paused():
            w = t.when(cur, d, as_of, known_at, during)
            preds = t.check_predicates(cur, d, predicates)
            return t.paths(
                cur,
                d,
                source,
                target,
                max_hops=max_hops,
                direction=direction,
                predicates=preds,
                w=w,
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
        t.check_direction(direction)
        if isinstance(predicates, str):
            predicates = [predicates]
        t.check_hops(len(predicates), "predicates (how many)")
        t.check_max_facts(max_facts)
        d = self._backend.dialect
        q.page(d, limit, offset)
        with self._read() as cur:
            w = t.when(cur, d, as_of, known_at, during)
            preds = [p for given in predicates for p in (t.check_predicates(cur, d, [given]) or [])]
            return t.follow(
                cur,
                d,
                start,
                preds,
                direction=direction,
                w=w,
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
        with self._read() as cur, gc_paused():
            return diff(
                cur,
                self._backend.dialect,
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


def _add(
    cur: Cursor,
    rules: Rules,
    subject: str,
    predicate: str,
    obj: str,
    *,
    valid_from: TimeInput | None,
    valid_to: TimeInput | None,
    confidence: float,
    source: str | None,
    source_closet: str | None,
    subject_type: str | None,
    object_type: str | None,
    properties: Mapping[str, Any] | None,
    occurrence: int | None = None,
) -> AddResult:
    """``add`` inside an open write transaction."""
    fact = rules.fact(
        subject,
        predicate,
        obj,
        valid_from=valid_from,
        valid_to=valid_to,
        confidence=confidence,
        source=source,
        source_closet=source_closet,
        subject_type=subject_type,
        object_type=object_type,
        occurrence=occurrence,
    )
    warnings = list(fact.warnings)
    subject_id = q.ensure_entity(cur, fact.subject, fact.subject_type, properties, warnings)
    if fact.is_value:
        object_id, object_value, object_key = None, fact.object.display, fact.object.id
    else:
        object_id = q.ensure_entity(cur, fact.object, fact.object_type, None, warnings)
        object_value, object_key = None, object_id
    if fact.end is None:
        existing = cur.execute(
            "SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? AND valid_to IS NULL",
            (subject_id, fact.predicate, object_key),
        ).fetchone()
    else:
        existing = cur.execute(
            "SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? AND from_us = ? AND to_us = ? "
            "AND occurrence = ?",
            (subject_id, fact.predicate, object_key, fact.from_key, fact.to_key, fact.occurrence),
        ).fetchone()
    if existing:
        return AddResult(q.fact(cur, existing[0]), False, tuple(warnings))
    _preds.ensure_labels(cur, [(fact.predicate, fact.predicate_label)])
    recorded = now_text()
    ended = fact.end is not None
    fact_id = cur.execute(
        """INSERT INTO facts(subject, predicate, object_id, object_value, object_key, valid_from, valid_to,
               from_us, to_us, confidence, source, source_closet, recorded_at, invalidated_at, ended_by, occurrence)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
        (
            subject_id,
            fact.predicate,
            object_id,
            object_value,
            object_key,
            fact.start.text if fact.start else None,
            fact.end.text if fact.end else None,
            fact.from_key,
            fact.to_key,
            fact.confidence,
            fact.source,
            fact.closet,
            recorded,
            recorded if ended else None,
            fact.source if ended else None,
            fact.occurrence,
        ),
    ).fetchone()[0]
    return AddResult(q.fact(cur, fact_id), True, tuple(warnings))


def _judged_conflicts(where: Callable[[str], str], holders: Callable[[str], str] | None = None) -> str:
    """The conflict groups judged in SQL: ``WITH … judged AS (…)`` names each group (``axis`` 0, ``anchor`` the
    subject, and ``predicate``) among the facts ``where(alias)`` keeps, with ``needs`` 1 when it needs action; and,
    given ``holders``, the groups of one-holder predicates (``axis`` 1, ``anchor`` the ``object_key``) among the facts
    ``holders(alias)`` keeps, judged by the same rule with subject and object swapped (:func:`_judged_axis`). Each
    group has its counts: ``n_objects`` and ``n_subjects`` (its distinct objects and subjects: one of them its
    anchor), ``n_facts`` and ``n_ended`` (its facts, its ended facts: its history)."""
    parts = [_judged_axis(where, "s", "subject", "object_key")]
    union = "SELECT 0 AS axis, anchor, predicate, needs, n_other AS n_objects, 1 AS n_subjects, n_facts, n_ended FROM judged_s"
    if holders is not None:
        parts.append(_judged_axis(holders, "o", "object_key", "subject"))
        union += " UNION ALL SELECT 1, anchor, predicate, needs, 1, n_other, n_facts, n_ended FROM judged_o"
    return f"WITH {', '.join(parts)}, judged AS ({union})"


def _judged_axis(where: Callable[[str], str], name: str, anchor: str, other: str) -> str:
    """``groups_<name> AS (…), judged_<name> AS (…)``: the groups of one ``anchor`` and predicate with more than one
    ``other`` (subject and object_key, or the reverse for one-holder predicates), each judged, with its counts
    (``n_other`` distinct ``other``, ``n_facts`` facts, ``n_ended`` ended facts).

    The same rule as :func:`_conflict_group`, on the stored keys (bind :meth:`~kgtoolkit._validity.Clock.params`):
    a group has more than one distinct ``other``; it needs action with more than one current fact, or when its
    first scheduled fact S (in store order: ``from_us``, then ``id``; a scheduled fact has a start) has a started
    fact of another ``other`` running up to it (``to_us`` at or after S's ``from_us``) that overlaps it: open-ended,
    or the first instant of its end after S's start (:func:`kgtoolkit._validity.end_first_instant`: ``to_us``
    itself for a datetime end, the start of the day for a date-only one). One scan groups the facts; S and
    the facts running up to it are then looked up by the ``(subject, predicate, from_us)`` index (by object:
    ``(predicate, object_key)``), for the groups where some started fact (of any ``other``) ends after S's start
    alone (``o_last``, a bound the scan computes).
    """

    def scheduled(alias: str) -> str:
        return v.scheduled(Sql(f"{alias}.from_us"), v.NOW).text

    first = v.end_first_instant(Sql("o.to_us"), Sql("o.valid_to"))
    # S and the facts running up to it are correlated lookups per group (EXISTS), not joins of aggregates: a join
    # of the groups to an aggregate that PostgreSQL's planner estimates at one row ran as a nested loop that
    # recomputed it for every group (quadratic in the groups). ``o_last``, the latest first instant of an end
    # among the group's started facts, rules out in the scan the groups where no fact overlaps S whatever its
    # object (most groups with a scheduled fact: a supersede at a future date ends the old fact on S's start day):
    # at 1M facts the lookups ran for 437 groups instead of 38,931.
    return f"""groups_{name} AS (
            SELECT g.{anchor} AS anchor, g.predicate, sum(CASE WHEN {q.current_sql("g")} THEN 1 ELSE 0 END) AS n_current,
                   count(DISTINCT g.{other}) AS n_other, count(*) AS n_facts,
                   sum(CASE WHEN {_ended("g")} THEN 1 ELSE 0 END) AS n_ended,
                   min(CASE WHEN {scheduled("g")} THEN g.from_us END) AS s_from,
                   max(CASE WHEN NOT {scheduled("g")} THEN {v.end_first_instant(Sql("g.to_us"), Sql("g.valid_to")).text}
                       END) AS o_last
            FROM facts g WHERE {where("g")}
            GROUP BY g.{anchor}, g.predicate HAVING count(DISTINCT g.{other}) > 1),
        judged_{name} AS (
            SELECT g.anchor, g.predicate, g.n_other, g.n_facts, g.n_ended,
                   CASE WHEN g.n_current > 1 THEN 1 WHEN g.o_last > g.s_from THEN CASE WHEN EXISTS (
                       SELECT 1 FROM facts o
                       WHERE o.{anchor} = g.anchor AND o.predicate = g.predicate AND {where("o")}
                           AND NOT {scheduled("o")} AND {(Sql("o.to_us") >= Sql("g.s_from")).text}
                           AND (o.valid_to IS NULL OR {(first > Sql("g.s_from")).text})
                           AND o.{other} <> (SELECT s.{other} FROM facts s WHERE s.{anchor} = g.anchor
                               AND s.predicate = g.predicate AND s.from_us = g.s_from AND {where("s")}
                               ORDER BY s.id LIMIT 1))
                   THEN 1 ELSE 0 END ELSE 0 END AS needs
            FROM groups_{name} g)"""


def _ended(alias: str) -> str:
    """The rule "ended" (contract §4, :func:`kgtoolkit._validity.ended`) on the facts row ``alias``, as SQL (bind
    :meth:`~kgtoolkit._validity.Clock.params`): a conflict group's history."""
    return v.ended(Sql(f"{alias}.from_us"), Sql(f"{alias}.to_us"), v.NOW, v.NOW_DAY_LAST).text


@functools.lru_cache(maxsize=16)
def _group_facts_sql(d: Dialect, events: EventRule, current_only: bool, by_object: bool) -> str:
    """The facts of the conflict groups whose anchors are in ``:ps`` and predicates in ``:pp`` that a page carries
    or judges, in store order, each row ending with its group's anchor and whether the group shows it: its current
    and scheduled facts, its ended facts ranked from the last ended (``to_us``, then ``from_us``, then ``id``,
    descending) after ``:skip`` up to ``:upto``, and (read for the judgement, not shown) the ended facts whose end
    is still to come (a date end today: such a fact may run up to a planned switch starting later today,
    :func:`_conflict_group`). ``by_object``: the groups of one-holder predicates, anchored on the ``object_key``
    (else on the subject), whose first fact in store order is read too (not shown): it names the group's object.
    Each group's history is ranked and cut in SQL (a window per group): never every ended fact into Python."""
    anchor = "object_key" if by_object else "subject"
    where = f"f.{anchor} IN {d.values('ps')} AND f.predicate IN {d.values('pp')} AND NOT {events.sql(d)}"
    if current_only:
        where += f" AND {q.current_sql('f')}"
    ended = _ended("f")
    shown = "(r.old = 0 OR (r.rn > :skip AND r.rn <= :upto))"
    first, named = "", ""
    if by_object:
        first = (
            f", ROW_NUMBER() OVER (PARTITION BY f.{anchor}, f.predicate "
            "ORDER BY f.valid_from IS NULL, f.from_us, f.id) AS first"
        )
        named = " OR r.first = 1"
    return (
        f"WITH ranked AS (SELECT f.id, CASE WHEN {ended} THEN 1 ELSE 0 END AS old, ROW_NUMBER() OVER ("
        f"PARTITION BY f.{anchor}, f.predicate, CASE WHEN {ended} THEN 1 ELSE 0 END "
        f"ORDER BY f.to_us DESC, f.from_us DESC, f.id DESC) AS rn{first} FROM facts f WHERE {where}) "
        f"SELECT {FACT_READ}, f.{anchor}, CASE WHEN {shown} THEN 1 ELSE 0 END FROM {FACT_FROM} "
        f"JOIN ranked r ON r.id = f.id WHERE {shown} OR f.to_us > :now{named} "
        f"ORDER BY f.{anchor}, f.predicate, f.valid_from IS NULL, f.from_us, f.id"
    )


def _conflict_group(
    anchor: str,
    predicate: str,
    facts: list[Fact],
    *,
    by: ConflictAxis = "subject",
    counts: tuple[str | None, int, int, int, int] | None = None,
    shown: Collection[int] | None = None,
    history_offset: int = 0,
) -> ConflictGroup:
    """One conflict group from its facts in store order (contract §5 ``conflicts``), with its planned switch.

    ``by="subject"``: the facts of one subject and predicate, with more than one object; ``by="object"``: of one
    object and a one-holder predicate, with more than one subject (holder), judged by the same rule with the two
    sides swapped. ``facts`` are every fact the judgement needs (every current and scheduled one, and every ended
    one whose end is still to come; by object, its first fact too: it names the object) and those the group shows;
    ``shown`` the ids of those it carries (default: all of them), ``counts`` its subject's name (None by object),
    its distinct objects and subjects, its facts and ended facts in all (default: those of ``facts``),
    ``history_offset`` how many ended facts its page of history skipped.

    The planned switch is at the start of the first scheduled fact S, when a started fact of another
    object (holder) runs up to it: one open-ended, or one whose end is on or after S's start (a current fact ending
    before S starts leaves a gap, no switch). It overlaps when that fact is open-ended or ends after S's start day
    (an end on S's start day is the switch day itself, as after ``supersede`` at a future date: the old fact is
    current until then, contract §4); then ``supersede`` (``supersede_holder``) at S's start resolves it, when
    exactly one such fact is open-ended (:func:`analysis.conflicts` computes the same on a frame).
    """

    def other(f: Fact) -> str:  # the side that varies within the group
        return f.object_key if by == "subject" else f.subject

    states = [f.state for f in facts]
    scheduled = [f for f, state in zip(facts, states, strict=True) if state == "scheduled"]
    switch: str | None = None
    overlaps = False
    suggestion: dict[str, Any] | None = None
    if scheduled:
        new = scheduled[0]
        assert new.valid_from is not None  # a scheduled fact has a start
        start = v.key(new.valid_from)
        running: list[Fact] = []
        for f, state in zip(facts, states, strict=True):
            if other(f) == other(new) or state == "scheduled":
                continue
            if v.key(f.valid_to, end=True) >= start:
                running.append(f)
                # the end's first instant: a date end on S's start day is the switch day, not an overlap
                overlaps = overlaps or v.end_first_instant(v.key(f.valid_to, end=True), f.valid_to) > start
        if running:
            switch = new.valid_from
            open_old = [f for f in running if f.valid_to is None]
            if overlaps and len(open_old) == 1:
                if by == "subject":
                    suggestion = {
                        "action": "supersede",
                        "subject": new.subject_name,
                        "predicate": predicate,
                        "old_object": open_old[0].object_name,
                        "new_object": new.object_name,
                        "at": new.valid_from,
                    }
                else:
                    suggestion = {
                        "action": "supersede_holder",
                        "object": new.object_name,
                        "predicate": predicate,
                        "old_subject": open_old[0].subject_name,
                        "new_subject": new.subject_name,
                        "at": new.valid_from,
                    }
    held = by == "object"
    name, objects, subjects, total, ended = counts or (
        None if held else facts[0].subject_name,
        len({f.object_key for f in facts}),
        len({f.subject for f in facts}),
        len(facts),
        states.count("ended"),
    )
    return ConflictGroup(
        None if held else anchor,
        name,
        predicate,
        objects,
        states.count("current"),
        tuple(facts) if shown is None else tuple(f for f in facts if f.id in shown),
        len(scheduled),
        switch,
        overlaps,
        suggestion,
        by=by,
        object=facts[0].object if held else None,
        object_name=facts[0].object_name if held else None,
        subjects=subjects,
        facts_total=total,
        history_total=ended,
        history_offset=history_offset,
    )


def _count(cur: Cursor, sql: str, params: dict[str, Any]) -> int:
    """The one number a ``SELECT count(*) …`` answers."""
    return int(cur.execute(sql, params).fetchone()[0])


def _fold_duplicates(cur: Cursor, src: str, dst: str) -> int:
    """Before a merge repoints ``src`` to ``dst``: delete the rows that would then be duplicates.

    Identical current facts keep the earliest start; identical history rows (the same occurrence) keep one. Only rows
    touching ``src`` or ``dst`` can collide, since a moved row names ``dst`` where it named ``src``.
    """
    rows = cur.execute(
        "SELECT id, subject, predicate, object_id, object_key, valid_to IS NULL, from_us, to_us, occurrence FROM facts "
        "WHERE subject IN (:s, :d) OR object_id IN (:s, :d) ORDER BY from_us, id",
        {"s": src, "d": dst},
    ).fetchall()
    keep: set[tuple[Any, ...]] = set()
    drop: list[tuple[int]] = []
    for fact_id, subject, predicate, object_id, object_key, current, from_key, to_key, occurrence in rows:
        moved_subject = dst if subject == src else subject
        moved_object = dst if object_id == src else object_key
        # an event's occurrences stay apart (contract §12): its ordinal is part of its identity
        identity = (moved_subject, predicate, moved_object) + ((None,) if current else (from_key, to_key, occurrence))
        if identity in keep:
            drop.append((fact_id,))
        else:
            keep.add(identity)
    if drop:
        cur.executemany("DELETE FROM facts WHERE id = ?", drop)
    return len(drop)


@functools.lru_cache(maxsize=256)
def _query_sql(d: Dialect, direction: str, where: str, other: bool, preds: bool, paged: bool) -> tuple[str, str]:
    """The statements of :meth:`GraphStore.query` (its rows; how many match) for one shape of call: the
    name in ``:k`` resolved inside them, so each is one round trip and one snapshot. ``where``: the time filter's
    conditions; ``other``: facts whose other side is ``:o``; ``preds``: of the predicates in ``:preds``;
    ``paged``: ``LIMIT :limit OFFSET :offset`` (left out when not, which SQLite plans faster)."""
    if preds:
        where += f" AND f.predicate IN {d.values('preds')}"
    named = f"WITH named AS ({q.LOOKUP}) "
    outgoing_other = incoming_other = ""
    if other:
        named = f"WITH named AS ({q.LOOKUP}), other_named AS ({q.lookup_sql('o')}) "
        outgoing_other = " AND f.object_id = (SELECT id FROM other_named)"
        incoming_other = " AND f.subject = (SELECT id FROM other_named)"
    entity = "(SELECT id FROM named)"
    parts, counts = [], []
    if direction in ("outgoing", "both"):
        cond = f"f.subject = {entity}{outgoing_other}{where}"
        parts.append(
            f"SELECT {FACT_READ}, 'outgoing' AS direction, f.valid_from IS NULL AS unknown_start,"
            f" f.from_us AS start_key, {q.EVENT_SETTINGS} FROM {FACT_FROM} WHERE {cond}"
        )
        counts.append(f"(SELECT count(*) FROM facts f WHERE {cond})")
    if direction in ("incoming", "both"):
        self_loop = f" AND f.subject <> {entity}" if direction == "both" else ""
        cond = f"f.object_id = {entity}{self_loop}{incoming_other}{where}"
        parts.append(
            f"SELECT {FACT_READ}, 'incoming' AS direction, f.valid_from IS NULL AS unknown_start,"
            f" f.from_us AS start_key, {q.EVENT_SETTINGS} FROM {FACT_FROM} WHERE {cond}"
        )
        counts.append(f"(SELECT count(*) FROM facts f WHERE {cond})")
    sql = named + " UNION ALL ".join(parts) + " ORDER BY unknown_start, start_key, 1"
    if paged:
        sql += " LIMIT :limit OFFSET :offset"
    return sql, named + "SELECT " + " + ".join(counts)


class _Guesses(dict[str, bool]):
    """A dict of guesses that forgets them all past a bound (guesses are only ever checked, never trusted)."""

    LIMIT = 4096

    def __setitem__(self, key: str, value: bool) -> None:
        if len(self) >= self.LIMIT and key not in self:
            self.clear()
        super().__setitem__(key, value)


@functools.lru_cache(maxsize=256)
def _search_sql(d: Dialect, where: str, value: bool, paged: bool) -> str:
    """The statement of :meth:`GraphStore._search_found`: the facts of predicate ``:p`` (through its alias)
    whose object key is ``:o`` (``value``: the text's key itself; else the entity the name ``:o`` resolves to),
    then the value predicates and event settings (:data:`~._queries.EVENT_SETTINGS`) of the same snapshot."""
    obj = ":o" if value else f"({q.lookup_sql('o')})"
    sql = (
        f"SELECT {FACT_READ}, (SELECT value FROM settings WHERE key = 'value_predicates'), {q.EVENT_SETTINGS} "
        f"FROM {FACT_FROM} WHERE f.predicate = COALESCE((SELECT predicate FROM predicate_aliases WHERE alias = :p), "
        f":p) AND f.object_key = {obj}{where} {ORDER}"
    )
    return sql + " LIMIT :limit OFFSET :offset" if paged else sql


def _canonical_list(cur: Cursor, preds: list[str]) -> list[str]:
    """Normalised predicates through their predicate aliases (contract §13), sorted, each once."""
    aliases = _preds.read_aliases(cur)
    return sorted({aliases.get(p, p) for p in preds})


def _predicate_list(predicates: str | Collection[str] | None) -> list[str]:
    """The normalised predicates of a ``predicates`` filter: one text or several (none or empty: no filter)."""
    if predicates is None:
        return []
    given = [predicates] if isinstance(predicates, str) else _strings(predicates, "predicates")
    return sorted({normalize_name(p, field="predicates") for p in given})


def _strings(values: Any, field: str) -> list[str]:
    if isinstance(values, str) or not all(isinstance(v, str) for v in values):
        raise InvalidRequest(f"{field} must be a list of names", field=field, value=repr(values))
    return list(values)

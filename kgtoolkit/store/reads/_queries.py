"""The queries every part of the store shares: settings, names, entities, the fact row, time filters.

Each takes the cursor of the transaction it runs in (and the backend's :class:`~kgtoolkit.store.engine.Dialect`
where SQL differs), so the graph's operations, the bulk path, the dump and search compose them
inside one transaction.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..._checks import MAX_INT64, whole_number
from ..._errors import NotFound
from ..._names import (
    DEFAULT_MULTI_VALUED,
    DEFAULT_TYPES,
    DEFAULT_VALUE_PREDICATES,
    close_matches,
    nearest,
    normalize_name,
    normalize_predicate,
)
from ..._records import Entity, Fact, GraphConfig, make_fact
from ..._time import OPEN_END, now_text
from ..._validity import NOW, NOW_DAY_LAST, Clock, Sql, current, valid_at
from ..._window import ReadWindow
from ..engine import FACT_SELECT, Cursor, Dialect
from ..ops._rules import EventRule, Name, json_object

__all__ = [
    "EVENT_SETTINGS",
    "LENGTH_SETTINGS",
    "ensure_entity",
    "entity",
    "event_rule",
    "fact",
    "lookup",
    "lookup_sql",
    "not_declared_events",
    "not_found",
    "page",
    "read_config",
    "resolve",
    "row_fact",
    "row_facts",
    "stored_event_rule",
    "stored_value_predicates",
    "time_filter",
]


def read_config(cur: Cursor) -> GraphConfig:
    """The graph's settings (defaults for what was never set)."""
    stored = dict(cur.execute("SELECT key, value FROM settings").fetchall())

    def names(key: str, default: frozenset[str]) -> frozenset[str]:
        return frozenset(json.loads(stored[key])) if key in stored else default

    return GraphConfig(
        types=names("types", DEFAULT_TYPES),
        value_predicates=names("value_predicates", DEFAULT_VALUE_PREDICATES),
        multi_valued=names("multi_valued", DEFAULT_MULTI_VALUED),
        comma_guard=json.loads(stored.get("comma_guard", "true")),
        single_valued=names("single_valued", frozenset()),
        events=json.loads(stored.get("events", "false")),
        event_predicates=names("event_predicates", frozenset()),
        one_holder=names("one_holder", frozenset()),
        **{key: int(json.loads(stored[key])) for key in LENGTH_SETTINGS if key in stored},
    )


#: The settings that bound a text's length, and the largest value each may be set to.
LENGTH_SETTINGS = {"max_name_length": 1_000_000, "max_value_length": 100_000_000}


#: The entity id a normalised name ``:k`` resolves to: exact id, then alias; never fuzzy.
def lookup_sql(param: str = "k") -> str:
    """The SELECT resolving the normalised name in ``:param`` to an entity id (exact id, then alias)."""
    return (
        f"SELECT id FROM entities WHERE id = :{param} UNION ALL "
        f"SELECT entity_id FROM aliases WHERE alias = :{param} LIMIT 1"
    )


LOOKUP = lookup_sql()


def lookup(cur: Cursor, key: str) -> str | None:
    """The entity id a normalised name resolves to: exact id, then alias; never fuzzy."""
    row = cur.execute(LOOKUP, {"k": key}).fetchone()
    return row[0] if row else None


def resolve(cur: Cursor, dialect: Dialect, name: str, *, field: str = "name") -> str:
    """The entity id ``name`` names, or :class:`NotFound` with up to five suggestions."""
    found = lookup(cur, normalize_name(name, field=field))
    if found is None:
        raise not_found(cur, dialect, name, field)
    return found


def not_found(cur: Cursor, dialect: Dialect, name: str, field: str) -> NotFound:
    suggestions = suggest(cur, dialect, normalize_name(name, field=field))
    hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
    return NotFound(
        f"no entity named {name!r} ({field}); names resolve exactly or through an alias, never by "
        f"guessing.{hint} Use the exact name or register an alias with `alias`.",
        field=field,
        value=name,
        suggestions=suggestions,
    )


def suggest(cur: Cursor, dialect: Dialect, key: str, limit: int = 5) -> list[str]:
    """Up to ``limit`` spellings of entities ``key`` may have meant, nearest first: partial matches among entity
    ids and aliases (of the key or of a word of it, most connected first), and for a typo the ids that begin
    as it does and are spelled nearly alike; ordered by how alike their ids are to ``key``."""
    probes = [key] + [t for t in key.replace("-", "_").split("_") if len(t) >= 3 and t != key]
    found: dict[str, str] = {}  # spelling → entity id, in the order found
    d = dialect
    for probe in probes:
        rows = cur.execute(
            f"""SELECT name, entity FROM (
                   SELECT e.name AS name, e.id AS entity FROM entities e
                   WHERE {d.contains("e.id", ":p")} OR (length(e.id) >= 3 AND {d.contains(":p", "e.id")})
                   UNION
                   SELECT a.name, a.entity_id FROM aliases a
                   WHERE {d.contains("a.alias", ":p")} OR (length(a.alias) >= 3 AND {d.contains(":p", "a.alias")})) m
               ORDER BY (SELECT count(*) FROM facts WHERE subject = m.entity)
                      + (SELECT count(*) FROM facts WHERE object_id = m.entity) DESC, name
               LIMIT 20""",
            {"p": probe},
        ).fetchall()
        for spelling, entity_id in rows:
            found.setdefault(str(spelling), str(entity_id))
        if len(found) >= limit:
            break
    if key:  # a typo: the nearest ids that begin as it does (a range of the primary key)
        near = dict(
            cur.execute(
                "SELECT id, name FROM entities WHERE id >= :lo AND id < :hi LIMIT 200000",
                {"lo": key[0], "hi": chr(ord(key[0]) + 1)},
            ).fetchall()
        )
        for spelling in close_matches(key, near, limit=limit):
            found.setdefault(spelling, normalize_name(spelling))
    return nearest(key, found)[:limit]


def entity(cur: Cursor, entity_id: str) -> Entity:
    row = cur.execute(
        "SELECT id, name, type, properties, created_at FROM entities WHERE id = ?", (entity_id,)
    ).fetchone()
    return Entity(row[0], row[1], row[2], json.loads(row[3]), row[4])


def ensure_entity(
    cur: Cursor, name: Name, type_: str | None, properties: Mapping[str, Any] | None, warnings: list[str]
) -> str:
    """The id of the entity ``name`` resolves to, created if missing; its type upgraded from ``unknown``
    (never downgraded: another concrete type only warns) and ``properties`` merged in (these win)."""
    entity_id = lookup(cur, name.id)
    props = json_object(properties, "properties")
    if entity_id is None:
        cur.execute(
            "INSERT INTO entities(id, name, type, properties, created_at) VALUES (?, ?, ?, ?, ?)",
            (name.id, name.display, type_ or "unknown", json.dumps(props or {}), now_text()),
        )
        return name.id
    if type_ or props:
        current_type, stored = cur.execute(
            "SELECT type, properties FROM entities WHERE id = ?", (entity_id,)
        ).fetchone()
        new_type = upgraded_type(current_type, type_)
        if type_ not in (None, "unknown", current_type) and new_type == current_type:
            warnings.append(f"{entity_id!r} is a {current_type}; kept that type (this write said {type_})")
        merged = {**json.loads(stored), **(props or {})}
        cur.execute(
            "UPDATE entities SET type = ?, properties = ? WHERE id = ?", (new_type, json.dumps(merged), entity_id)
        )
    return entity_id


def upgraded_type(current: str, incoming: str | None) -> str:
    """The type rule: ``unknown`` takes a concrete type when one arrives; a concrete type is never replaced."""
    if current == "unknown" and incoming is not None and incoming != "unknown":
        return incoming
    return current


def inside(column: str, lo: int | None, hi: int | None) -> tuple[str, dict[str, int]]:
    """The condition that ``column`` (an instant key, NULL when unknown) is from ``lo`` to ``hi`` (microseconds, both
    included; None: open), and the parameters it binds (``:lo``, ``:hi``)."""
    cond, params = f"{column} IS NOT NULL", {}
    if lo is not None:
        cond, params["lo"] = f"{cond} AND {column} >= :lo", lo
    if hi is not None:
        cond, params["hi"] = f"{cond} AND {column} <= :hi", hi
    return cond, params


#: The predicates in use, one index seek each (a loose index scan: both engines run it on ``facts_predicate``).
_PREDICATES_IN_USE = (
    "WITH RECURSIVE p(x) AS (SELECT min(predicate) FROM facts "
    "UNION ALL SELECT (SELECT min(f.predicate) FROM facts f WHERE f.predicate > p.x) FROM p "
    "WHERE p.x IS NOT NULL) SELECT x FROM p WHERE x IS NOT NULL"
)


def predicates_in_use(cur: Cursor) -> tuple[str, ...]:
    """Every predicate some fact uses, by id (byte order), skipping along the ``facts_predicate`` index from one
    predicate to the next: one seek per predicate, whatever the number of facts."""
    return tuple(sorted(str(r[0]) for r in cur.execute(_PREDICATES_IN_USE).fetchall()))


class TableCounts(NamedTuple):
    """The counts of a graph that need no scan of the facts' rows, shared by ``stats`` and ``graph_counts``."""

    entities_by_type: tuple[tuple[str, int], ...]
    predicates: tuple[str, ...]  # in use (:func:`predicates_in_use`)
    aliases: int
    memories: int


def table_counts(cur: Cursor) -> TableCounts:
    """:class:`TableCounts`: the entities grouped by type, the predicates in use, the aliases and the memories."""
    by_type = tuple(
        (str(t), int(n)) for t, n in cur.execute("SELECT type, count(*) FROM entities GROUP BY type ORDER BY type")
    )
    aliases = int(cur.execute("SELECT count(*) FROM aliases").fetchone()[0])
    memories = int(cur.execute("SELECT count(*) FROM memories").fetchone()[0])
    return TableCounts(by_type, predicates_in_use(cur), aliases, memories)


def event_rule(cur: Cursor) -> EventRule:
    """Which facts of this graph are events (contract §12), from its settings."""
    stored = dict(cur.execute("SELECT key, value FROM settings WHERE key IN ('events', 'event_predicates')").fetchall())
    return stored_event_rule(stored.get("events"), stored.get("event_predicates"))


@functools.lru_cache(maxsize=64)
def stored_value_predicates(value_predicates: str | None) -> frozenset[str]:
    """The value predicates of the stored setting ``value_predicates`` (its JSON text; None: not set), as
    :func:`read_config` reads them."""
    return DEFAULT_VALUE_PREDICATES if value_predicates is None else frozenset(json.loads(value_predicates))


#: Two result columns, each one of the settings the event rule reads (NULL when never set), for a read that
#: takes the rule in its own statement (so in its snapshot) instead of a statement before it: give their values
#: to :func:`stored_event_rule`.
EVENT_SETTINGS = (
    "(SELECT value FROM settings WHERE key = 'events'), (SELECT value FROM settings WHERE key = 'event_predicates')"
)


@functools.lru_cache(maxsize=64)
def stored_event_rule(events: str | None, event_predicates: str | None) -> EventRule:
    """The event rule of the stored settings ``events`` and ``event_predicates`` (their JSON texts; None: not set)."""
    return EventRule(
        bool(json.loads("false" if events is None else events)),
        frozenset(json.loads("[]" if event_predicates is None else event_predicates)),
    )


def fact(cur: Cursor, fact_id: int, events: EventRule | None = None) -> Fact:
    """The fact with this id (``events``: the graph's rule, read when not given)."""
    return row_fact(
        cur.execute(f"{FACT_SELECT} WHERE f.id = ?", (fact_id,)).fetchone(),
        events=event_rule(cur) if events is None else events,
    )


def row_fact(
    row: Sequence[Any], *, events: EventRule, direction: str | None = None, known_at: str | None = None
) -> Fact:
    """A :class:`Fact` from a row of :data:`~._schema.FACT_SELECT` (its end blanked when not known at ``known_at``),
    its kind by the graph's event rule ``events`` (:func:`event_rule`)."""
    return row_facts(((*row[:16], direction),), events=events, known_at=known_at, directions=True)[0]


def row_facts(
    rows: Iterable[Sequence[Any]], *, events: EventRule, known_at: str | None = None, directions: bool = False
) -> list[Fact]:
    """:func:`row_fact` of each row (its first 16 columns; ``directions``: its 17th is the fact's direction), in one
    loop: a read of many rows spends most of its Python here."""
    # events.kind(predicate, valid_from, valid_to, recorded_at, invalidated_at) inline (_records.is_event: the graph or
    # the predicate declared, or the same stored bounds written with the fact): a call per row would cost a tenth of
    # a one-row read.
    graph, declared, make = events.graph, events.predicates, make_fact
    out: list[Fact] = []
    append = out.append
    for r in rows:
        predicate, valid_from, valid_to, invalidated_at, ended_by = r[3], r[7], r[8], r[13], r[14]
        if known_at is not None and invalidated_at is not None and invalidated_at > known_at:
            valid_to = invalidated_at = ended_by = None  # its end was not yet known at known_at
        event = (
            graph
            or (
                valid_from is not None
                and valid_from == valid_to
                and (invalidated_at is None or invalidated_at == r[12])
            )
            or predicate in declared
        )
        append(
            make(
                r[0],
                r[1],
                r[2],
                predicate,
                r[4],
                r[5],
                bool(r[6]),
                valid_from,
                valid_to,
                r[9],
                r[10],
                r[11],
                r[12],
                invalidated_at,
                ended_by,
                r[16] if directions else None,
                "event" if event else "state",
                r[15],
            )
        )
    return out


def interval_keys(*, known: bool = False) -> tuple[Sql, Sql]:
    """The start and end keys of the facts row ``f`` as :mod:`kgtoolkit._validity` operands (``known``: the end as
    known at the ``:known`` parameter; an end recorded later is still open then)."""
    end = f"(CASE WHEN f.invalidated_at > :known THEN {OPEN_END} ELSE f.to_us END)" if known else "f.to_us"
    return Sql("f.from_us"), Sql(end)


def current_sql(alias: str = "f") -> str:
    """The rule "current now" (contract §4, :func:`kgtoolkit._validity.current`) on the facts row ``alias``, as
    SQL (bind :meth:`~kgtoolkit._validity.Clock.params`)."""
    return current(Sql(f"{alias}.from_us"), Sql(f"{alias}.to_us"), NOW, NOW_DAY_LAST).text


def time_filter(window: ReadWindow) -> tuple[str, dict[str, Any], str | None]:
    """SQL conditions (on alias ``f``) and parameters for a read window (:class:`~kgtoolkit._window.ReadWindow`),
    and its ``known_at`` text.

    ``current_only`` keeps the facts current at the real now (contract §4, :func:`kgtoolkit._validity.current`; by
    the ends known at ``known_at``, when given): a scheduled fact is left out, whatever ``as_of`` and ``known_at``
    say. An event (contract §12) is never current: one by its bounds ends on its start day; add
    :func:`not_declared_events` for the rest.
    """
    if window.unfiltered:
        return "", {}, None  # no filter (most calls)
    where, params = "", dict[str, Any]()
    known = window.known
    if known is not None:
        params["known"] = known
        where += " AND f.recorded_at <= :known"
    start, end = interval_keys(known=known is not None)
    if window.valid is not None:
        params["lo"], params["hi"] = window.valid
        where += f" AND {valid_at(start, end, Sql(':lo'), Sql(':hi')).text}"
    if window.current_only:
        params.update(Clock.real().params())
        where += f" AND {current(start, end, NOW, NOW_DAY_LAST).text}"
    return where, params, known


def not_declared_events(cur: Cursor, dialect: Dialect, alias: str = "f") -> tuple[str, dict[str, Any]]:
    """An `` AND …`` condition (and its parameters) leaving out the facts declared events (contract §12), for a
    current-fact test: empty when the graph declares none."""
    rule = event_rule(cur)
    if not rule.declared:
        return "", {}
    return f" AND {rule.not_declared_sql(dialect, alias)}", rule.params(dialect)


def page(dialect: Dialect, limit: int | None, offset: int) -> dict[str, int | None]:
    """``limit``/``offset`` parameters, checked (whole numbers from 0; no limit when None)."""
    if limit is None and offset == 0 and type(offset) is int:
        return {"limit": dialect.no_limit, "offset": 0}  # the defaults
    whole_number(limit, field="limit", high=MAX_INT64, allow_none=True)
    whole_number(offset, field="offset", high=MAX_INT64)
    return {"limit": dialect.no_limit if limit is None else limit, "offset": offset}


def canonical(cur: Cursor, predicate: str) -> str:
    """The canonical id of ``predicate`` (normalised, then through its alias if it is one)."""
    key = normalize_predicate(predicate)
    row = cur.execute("SELECT predicate FROM predicate_aliases WHERE alias = ?", (key,)).fetchone()
    return str(row[0]) if row else key

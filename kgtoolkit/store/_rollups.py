"""Rollups (contract §17): counts the store keeps as facts are written, so analysis runs in time proportional to its
answer, not to the graph (issue 47).

**What is kept** (schema step 12), on both engines, exact for every fact up to a watermark (``rollup_state.upto``;
fact ids are never reused). An insert fires no trigger: a read that uses the rollups, or the end of a bulk load, first
*folds* the facts above the watermark in a few grouped statements (:func:`fold`). Triggers on ``facts`` keep every
change to a fact already counted (supersede, invalidate, merge, a rename, a clean-up's delete) in its transaction;
triggers on ``entities`` keep the types. (Measured before choosing: triggers on every insert made an ``add`` 1.8x
its CPU time, the rollup pages each commit writes; the budget is 1.2x.)

* ``rollup_days`` / ``rollup_months``: per predicate, UTC day (month) and *bounds kind* ``ev`` (1: an event by its
  bounds, :class:`~._rules.EventRule` with no declaration; 0: not): ``starts`` (facts starting that day; an unknown
  start is the day of ``OPEN_START``), ``ends`` (facts ending that day, also in the future; an open end is the day of
  ``OPEN_END``), ``ends_nostart`` (those of them with an unknown start), ``renewed`` (renewals, :mod:`._renewals`,
  whose new fact starts that day) and ``renewed_ends`` (whose old fact ends that day);
* ``rollup_renewals``: the renewals themselves (old id → new id), per triple, recomputed for a triple whenever one of
  its facts changes (a renewal depends only on the facts of its triple);
* ``rollup_predicates``: per predicate, ``facts``, ``bound_events`` (events by their bounds) and ``value_facts``;
* ``rollup_entities``: per entity, ``outgoing`` (facts it is the subject of) and ``incoming`` (whose object it is);
* ``rollup_types``: entities per type.

**No setting is baked in.** Whether a fact is an event also depends on the graph's settings (``events``,
``event_predicates``), but a declaration covers whole predicates, and every rollup is per predicate: a read applies
the declaration per predicate (a declared predicate's rows are all events, and none of its facts renews). So changing
those settings (or ``multi_valued``, which no rollup reads) needs no rebuild: the next read answers under the new
settings, and the tests hold it to the scan's answer after each settings change.

**Current now** (contract §4) is never stored: for state facts, ``current = #{end > now} − #{start > now} −
#{end = today's date end, start ≤ now < end}``; the first two are sums over the days after today (future rows only)
plus the facts starting or ending later today (an index range), the last an index range: so it needs no rewrite as
time passes.

**Bulk loads** (an import) fold their facts at their end, in their own transaction (:func:`paused`).

**Reads** (:func:`stats`, :func:`predicates_page`, :func:`churn_counts`, :func:`event_counts`,
:func:`connected_counts`) answer from the rollups when the question allows (a period of whole days, or months; no
grouping by subject or pair) and say None otherwise, so the caller scans. :func:`source` tells which; inside
:func:`scan_only` every read scans (what the twin tests and benchmarks compare with). :func:`check` compares each
rollup with a scan; :func:`rebuild` makes them again.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._time import DAY_US, OPEN_START
from .._validity import Clock
from ._renewals import pairs_sql
from ._rules import EventRule

if TYPE_CHECKING:
    import polars as pl

    from .._records import PredicateInfo, Stats
    from ._aggregates import ChurnCounts
    from ._backend import Backend, Cursor, Dialect
    from ._operations import GraphStore

__all__ = [
    "ROLLUP_TABLES",
    "RollupCheck",
    "check",
    "churn_counts",
    "connected_counts",
    "event_counts",
    "migration",
    "paused",
    "predicates_page",
    "rebuild",
    "scan_only",
    "source",
    "stats",
]

Kind = Literal["sqlite", "postgresql"]

#: The rollup tables, with their key columns and their count columns.
ROLLUP_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "rollup_days": (("predicate", "day", "ev"), ("starts", "ends", "ends_nostart", "renewed", "renewed_ends")),
    "rollup_months": (("predicate", "month", "ev"), ("starts", "ends", "ends_nostart", "renewed", "renewed_ends")),
    "rollup_predicates": (("predicate",), ("facts", "bound_events", "value_facts")),
    "rollup_entities": (("entity",), ("outgoing", "incoming")),
    "rollup_types": (("type",), ("n",)),
    "rollup_renewals": (("old_id",), ("new_id", "subject", "predicate", "object_key", "e", "s")),
}
_COUNTS = ROLLUP_TABLES["rollup_days"][1]

#: A day beyond every real one (year 1 is day −719,162, year 9999 day 2,932,896): the open keys' days lie further.
_FAR = 10_000_000
#: The month keys of an unknown start and of an open end (a real month is year × 12 + month − 1: 12 to 119,999).
MONTH_OPEN_START, MONTH_OPEN_END = -1, 1_000_000
_MONTH_1970 = 1970 * 12

#: The largest fact id the rollups count (every fact up to it, as it is now; ``rollup_state``): facts are written
#: without a trigger and counted set-wise by the next read or bulk load (:func:`fold`); a change to a fact counted
#: already is kept by the triggers in its own transaction.
UPTO = "(SELECT upto FROM rollup_state)"
_FOLDING = "(SELECT folding FROM rollup_state)"

_SCAN_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("kgtoolkit_rollups_scan_only", default=False)

# ---------------------------------------------------------------------- the keys, in SQL


def day_sql(key: str) -> str:
    """The UTC day (days since 1970-01-01, floored) of the instant key ``key``: the same integers on both engines."""
    # Floored without a remainder (PostgreSQL's driver reads '%' as a parameter mark): both engines' division
    # truncates, so a negative key is first moved down by a day less one.
    return f"((({key}) - CASE WHEN ({key}) < 0 THEN {DAY_US - 1} ELSE 0 END) / {DAY_US})"


def month_sql(day: str, kind: str = "sqlite") -> str:
    """The month number (year × 12 + month − 1, proleptic Gregorian, as polars counts) of the day ``day`` (days since
    1970-01-01), by the engine's own calendar (a trigger runs it on every write); an open key's day gives
    :data:`MONTH_OPEN_START` or :data:`MONTH_OPEN_END`."""
    if kind == "postgresql":
        date = f"(DATE '1970-01-01' + CAST(({day}) AS INTEGER))"
        civil = f"CAST(EXTRACT(YEAR FROM {date}) * 12 + EXTRACT(MONTH FROM {date}) - 1 AS BIGINT)"
    else:
        at = f"({day}) * 86400, 'unixepoch'"
        civil = f"(CAST(strftime('%Y', {at}) AS INTEGER) * 12 + CAST(strftime('%m', {at}) AS INTEGER) - 1)"
    return f"(CASE WHEN ({day}) < -{_FAR} THEN {MONTH_OPEN_START} WHEN ({day}) > {_FAR} THEN {MONTH_OPEN_END} ELSE {civil} END)"


def _bounds_event(alias: str) -> str:
    """1 when the facts row ``alias`` is an event by its bounds (the event rule without declarations), else 0."""
    return f"(CASE WHEN {EventRule()._sql(alias, None)} THEN 1 ELSE 0 END)"


def _upsert(table: str, keys: Sequence[str], counts: Sequence[str], select: str) -> str:
    """``select`` (rows of ``keys`` then ``counts``) added into ``table``: new keys inserted, others summed."""
    cols = ", ".join([*keys, *counts])
    sets = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in counts)
    return (
        f"INSERT INTO {table}({cols}) SELECT * FROM ({select}) u WHERE TRUE "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {sets}"
    )


# ---------------------------------------------------------------------- the triggers' statements


def _row_statements(r: str, sign: int, kind: str) -> list[str]:
    """The statements that add (``sign`` 1) or take away (−1) the facts row ``r`` (``new``/``old``) in every rollup
    but the renewals: four statements (a start and an end summed in one, as one day's when they fall on it)."""
    ev = _bounds_event(r)
    start_day, end_day = day_sql(f"{r}.from_us"), day_sql(f"{r}.to_us")
    nostart = f"{sign} * (CASE WHEN {r}.from_us = {OPEN_START} THEN 1 ELSE 0 END)"
    out = []
    for table, key in (("rollup_days", "day"), ("rollup_months", "month")):
        s_key = start_day if key == "day" else month_sql(start_day, kind)
        e_key = end_day if key == "day" else month_sql(end_day, kind)
        both = (
            f"SELECT {r}.predicate AS p, {s_key} AS k, {sign} AS s, 0 AS e, 0 AS u UNION ALL "
            f"SELECT {r}.predicate, {e_key}, 0, {sign}, {nostart}"
        )
        out.append(
            _upsert(
                table,
                ("predicate", key, "ev"),
                ("starts", "ends", "ends_nostart"),
                f"SELECT p, k, {ev}, sum(s), sum(e), sum(u) FROM ({both}) b GROUP BY p, k",
            )
        )
    out.append(
        _upsert(
            "rollup_predicates",
            ("predicate",),
            ("facts", "bound_events", "value_facts"),
            f"SELECT {r}.predicate AS p, {sign} AS n, {sign} * {ev} AS e, "
            f"{sign} * (CASE WHEN {r}.object_id IS NULL THEN 1 ELSE 0 END) AS v",
        )
    )
    ends = (
        f"SELECT {r}.subject AS k, {sign} AS o, CASE WHEN {r}.object_id = {r}.subject THEN {sign} ELSE 0 END AS i "
        f"UNION ALL SELECT {r}.object_id, 0, {sign} WHERE {r}.object_id IS NOT NULL AND {r}.object_id <> {r}.subject"
    )
    out.append(_upsert("rollup_entities", ("entity",), ("outgoing", "incoming"), ends))
    return out


def _pairs(where_old: str, old_source: str = "facts o") -> str:
    """The renewals (:func:`._renewals.pairs_sql`, events by their bounds only) whose old fact, read from
    ``old_source``, meets ``where_old``, as rows of ``rollup_renewals``."""
    pairs = pairs_sql(old_source, EventRule()._sql("o", None), EventRule()._sql("n", None), where_old)
    return (
        "SELECT p.old_id, p.new_id, p.subject, p.predicate, o2.object_key, p.e, p.s "
        f"FROM ({pairs}) p JOIN facts o2 ON o2.id = p.old_id"
    )


def _triple_statements(r: str) -> list[str]:
    """The renewals of the triple of facts row ``r`` made again (the renewals' own triggers keep the day counts)."""
    same = f"subject = {r}.subject AND predicate = {r}.predicate AND object_key = {r}.object_key"
    where_old = (
        f" AND o.subject = {r}.subject AND o.predicate = {r}.predicate AND o.object_key = {r}.object_key"
        f" AND o.id <= {UPTO} AND n.id <= {UPTO}"
    )
    return [
        f"DELETE FROM rollup_renewals WHERE {same}",
        f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) {_pairs(where_old)}",
    ]


def _renewal_statements(r: str, sign: int, kind: str) -> list[str]:
    """The day and month counts of one renewal row ``r`` added or taken away."""
    out = []
    for table, key in (("rollup_days", "day"), ("rollup_months", "month")):
        s_key, e_key = day_sql(f"{r}.s"), day_sql(f"{r}.e")
        if key == "month":
            s_key, e_key = month_sql(s_key, kind), month_sql(e_key, kind)
        cols = ("predicate", key, "ev")
        out.append(_upsert(table, cols, ("renewed",), f"SELECT {r}.predicate AS p, {s_key} AS k, 0 AS ev, {sign} AS n"))
        out.append(
            _upsert(table, cols, ("renewed_ends",), f"SELECT {r}.predicate AS p, {e_key} AS k, 0 AS ev, {sign} AS n")
        )
    return out


def _type_statements(r: str, sign: int) -> list[str]:
    return [_upsert("rollup_types", ("type",), ("n",), f"SELECT {r}.type AS t, {sign} AS n")]


_FACT_COLUMNS_WATCHED = (
    "subject, predicate, object_id, object_key, valid_from, valid_to, from_us, to_us, recorded_at, invalidated_at"
)


def _sqlite_triggers() -> dict[str, str]:
    """SQLite's triggers, by name."""

    def body(statements: list[str]) -> str:
        return " ".join(f"{s};" for s in statements)

    triple_changed = (
        "old.subject IS NOT new.subject OR old.predicate IS NOT new.predicate OR old.object_key IS NOT new.object_key"
    )
    return {
        "rollup_fact_update": f"CREATE TRIGGER rollup_fact_update AFTER UPDATE OF {_FACT_COLUMNS_WATCHED} ON facts "
        f"WHEN old.id <= {UPTO} BEGIN "
        f"{body(_row_statements('old', -1, 'sqlite') + _row_statements('new', 1, 'sqlite') + _triple_statements('new'))} END",
        # A fact moved to another triple (a merge, a rename) leaves its old triple's renewals to be made again too.
        "rollup_fact_moved": f"CREATE TRIGGER rollup_fact_moved AFTER UPDATE OF subject, predicate, object_key ON facts "
        f"WHEN old.id <= {UPTO} AND ({triple_changed}) BEGIN {body(_triple_statements('old'))} END",
        "rollup_fact_delete": f"CREATE TRIGGER rollup_fact_delete AFTER DELETE ON facts WHEN old.id <= {UPTO} BEGIN "
        f"{body(_row_statements('old', -1, 'sqlite') + _triple_statements('old'))} END",
        "rollup_renewal_insert": "CREATE TRIGGER rollup_renewal_insert AFTER INSERT ON rollup_renewals "
        f"WHEN {_FOLDING} = 0 BEGIN "
        f"{body(_renewal_statements('new', 1, 'sqlite'))} END",
        "rollup_renewal_delete": "CREATE TRIGGER rollup_renewal_delete AFTER DELETE ON rollup_renewals "
        f"WHEN {_FOLDING} = 0 BEGIN "
        f"{body(_renewal_statements('old', -1, 'sqlite'))} END",
        "rollup_entity_insert": "CREATE TRIGGER rollup_entity_insert AFTER INSERT ON entities BEGIN "
        f"{body(_type_statements('new', 1))} END",
        "rollup_entity_update": "CREATE TRIGGER rollup_entity_update AFTER UPDATE OF type ON entities "
        f"WHEN old.type IS NOT new.type BEGIN {body(_type_statements('old', -1) + _type_statements('new', 1))} END",
        "rollup_entity_delete": "CREATE TRIGGER rollup_entity_delete AFTER DELETE ON entities BEGIN "
        f"{body(_type_statements('old', -1))} END",
    }


def _postgres_triggers() -> dict[str, str]:
    """PostgreSQL's trigger functions and triggers, by trigger name (each value: its function, then its trigger)."""

    def body(statements: list[str]) -> str:
        return " ".join(f"{s};" for s in statements)

    triple_changed = (
        "OLD.subject IS DISTINCT FROM NEW.subject OR OLD.predicate IS DISTINCT FROM NEW.predicate "
        "OR OLD.object_key IS DISTINCT FROM NEW.object_key"
    )
    facts_fn = f"""CREATE FUNCTION kgtoolkit_rollup_facts() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF OLD.id > {UPTO} THEN RETURN NULL; END IF;
            {body(_row_statements("OLD", -1, "postgresql"))}
            IF TG_OP = 'UPDATE' THEN {body(_row_statements("NEW", 1, "postgresql") + _triple_statements("NEW"))} END IF;
            IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ({triple_changed})) THEN {body(_triple_statements("OLD"))} END IF;
            RETURN NULL;
        END $body$"""
    renewals_fn = f"""CREATE FUNCTION kgtoolkit_rollup_renewals() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF {_FOLDING} = 1 THEN RETURN NULL; END IF;
            IF TG_OP = 'DELETE' THEN {body(_renewal_statements("OLD", -1, "postgresql"))} ELSE {body(_renewal_statements("NEW", 1, "postgresql"))} END IF;
            RETURN NULL;
        END $body$"""
    types_fn = f"""CREATE FUNCTION kgtoolkit_rollup_types() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF TG_OP <> 'INSERT' THEN {body(_type_statements("OLD", -1))} END IF;
            IF TG_OP <> 'DELETE' THEN {body(_type_statements("NEW", 1))} END IF;
            RETURN NULL;
        END $body$"""
    return {
        "rollup_facts": facts_fn + ";\nCREATE TRIGGER rollup_facts AFTER DELETE OR UPDATE OF "
        f"{_FACT_COLUMNS_WATCHED} ON facts FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_facts()",
        "rollup_renewals": renewals_fn + ";\nCREATE TRIGGER rollup_renewals AFTER INSERT OR DELETE ON rollup_renewals "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_renewals()",
        "rollup_types": types_fn
        + ";\nCREATE TRIGGER rollup_types AFTER INSERT OR DELETE OR UPDATE OF type ON entities "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_types()",
    }


def _tables(kind: Kind) -> list[str]:
    text = 'TEXT COLLATE "C"' if kind == "postgresql" else "TEXT"
    big = "BIGINT" if kind == "postgresql" else "INTEGER"
    rowid = "" if kind == "postgresql" else " WITHOUT ROWID"
    counts = ", ".join(f"{c} {big} NOT NULL DEFAULT 0" for c in _COUNTS)
    return [
        f"CREATE TABLE rollup_days (predicate {text} NOT NULL, day {big} NOT NULL, ev SMALLINT NOT NULL, {counts}, "
        f"PRIMARY KEY (predicate, day, ev)){rowid}",
        "CREATE INDEX rollup_days_day ON rollup_days(day)",
        f"CREATE TABLE rollup_months (predicate {text} NOT NULL, month {big} NOT NULL, ev SMALLINT NOT NULL, {counts}, "
        f"PRIMARY KEY (predicate, month, ev)){rowid}",
        f"CREATE TABLE rollup_predicates (predicate {text} PRIMARY KEY, facts {big} NOT NULL DEFAULT 0, "
        f"bound_events {big} NOT NULL DEFAULT 0, value_facts {big} NOT NULL DEFAULT 0){rowid}",
        f"CREATE TABLE rollup_entities (entity {text} PRIMARY KEY, outgoing {big} NOT NULL DEFAULT 0, "
        f"incoming {big} NOT NULL DEFAULT 0){rowid}",
        "CREATE INDEX rollup_entities_rank ON rollup_entities((outgoing + incoming) DESC, entity)",
        f"CREATE TABLE rollup_types (type {text} PRIMARY KEY, n {big} NOT NULL DEFAULT 0){rowid}",
        f"CREATE TABLE rollup_renewals (old_id {big} PRIMARY KEY, new_id {big} NOT NULL, subject {text} NOT NULL, "
        f"predicate {text} NOT NULL, object_key {text} NOT NULL, e {big} NOT NULL, s {big} NOT NULL)",
        "CREATE INDEX rollup_renewals_triple ON rollup_renewals(subject, predicate, object_key)",
        # ``folding``: 1 while a fold counts the renewals itself, set-wise (their per-row triggers then stand aside).
        f"CREATE TABLE rollup_state (id INTEGER PRIMARY KEY CHECK (id = 1), upto {big} NOT NULL, "
        "folding SMALLINT NOT NULL DEFAULT 0)",
        "INSERT INTO rollup_state(id, upto) VALUES (1, 0)",
    ]


def triggers(kind: Kind) -> dict[str, list[str]]:
    """The statements that make each trigger (PostgreSQL: its function first), by trigger name."""
    made = _sqlite_triggers() if kind == "sqlite" else _postgres_triggers()
    return {name: _split(sql) for name, sql in made.items()}


def _split(sql: str) -> list[str]:
    head, sep, tail = sql.partition(";\nCREATE TRIGGER ")
    return [head, f"CREATE TRIGGER {tail}"] if sep else [head]


# ---------------------------------------------------------------------- filling (set-wise)


def _fill_statements(after: str | None, kind: Kind, *, types: bool = True) -> list[str]:
    """The statements that add the facts with an id above ``after`` (an SQL expression; None: every fact) to the
    rollups in a few grouped statements (their renewals, their triples', made again), with the triggers off. The
    entity types are counted again whole (one GROUP BY of ``entities``)."""
    new = "TRUE" if after is None else f"f.id > {after}"
    ev = _bounds_event("f")
    start_day, end_day = day_sql("f.from_us"), day_sql("f.to_us")
    nostart = f"CASE WHEN f.from_us = {OPEN_START} THEN 1 ELSE 0 END"
    temp = "CREATE TEMP TABLE"
    drop = "DROP TABLE IF EXISTS temp.rollup_delta" if kind == "sqlite" else "DROP TABLE IF EXISTS rollup_delta"
    drop_t = "DROP TABLE IF EXISTS temp.rollup_touched" if kind == "sqlite" else "DROP TABLE IF EXISTS rollup_touched"
    by_day = (
        f"SELECT predicate, day, ev, {', '.join(f'sum({c}) AS {c}' for c in _COUNTS)} FROM ("
        f"SELECT f.predicate AS predicate, {start_day} AS day, {ev} AS ev, 1 AS starts, 0 AS ends, 0 AS ends_nostart, "
        f"0 AS renewed, 0 AS renewed_ends FROM facts f WHERE {new} UNION ALL "
        f"SELECT f.predicate, {end_day}, {ev}, 0, 1, {nostart}, 0, 0 FROM facts f WHERE {new}) x "
        "GROUP BY predicate, day, ev"
    )
    out = [drop, f"{temp} rollup_delta AS {by_day}"]
    # The renewals of every triple a new fact is in, made again: the old ones taken out of the counts, the new put in.
    if after is None:
        out += [
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("s") + ", 0, 0, 0, 0, -1, 0 FROM rollup_renewals",
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("e") + ", 0, 0, 0, 0, 0, -1 FROM rollup_renewals",
            "DELETE FROM rollup_renewals",
            f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) {_pairs('')}",
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("s") + ", 0, 0, 0, 0, 1, 0 FROM rollup_renewals",
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("e") + ", 0, 0, 0, 0, 0, 1 FROM rollup_renewals",
        ]
    else:
        # Driven from the touched triples (an index seek each), never a pass over every fact or renewal.
        def on(a: str) -> str:
            return f"{a}.subject = t.subject AND {a}.predicate = t.predicate AND {a}.object_key = t.object_key"

        in_touched = f"rollup_touched t JOIN rollup_renewals r ON {on('r')}"
        out += [
            drop_t,
            f"{temp} rollup_touched AS SELECT DISTINCT f.subject, f.predicate, f.object_key FROM facts f WHERE {new}",
            f"DROP TABLE IF EXISTS {'temp.' if kind == 'sqlite' else ''}rollup_gone",
            f"{temp} rollup_gone AS SELECT r.* FROM {in_touched}",
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("s") + ", 0, 0, 0, 0, -1, 0 FROM rollup_gone",
            "INSERT INTO rollup_delta SELECT predicate, " + day_sql("e") + ", 0, 0, 0, 0, 0, -1 FROM rollup_gone",
            "DELETE FROM rollup_renewals WHERE old_id IN (SELECT old_id FROM rollup_gone)",
            f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) "
            f"{_pairs('', f'rollup_touched t JOIN facts o ON {on(chr(111))}')}",
            f"INSERT INTO rollup_delta SELECT r.predicate, {day_sql('r.s')}, 0, 0, 0, 0, 1, 0 FROM {in_touched}",
            f"INSERT INTO rollup_delta SELECT r.predicate, {day_sql('r.e')}, 0, 0, 0, 0, 0, 1 FROM {in_touched}",
            "DROP TABLE rollup_gone" if kind == "postgresql" else "DROP TABLE temp.rollup_gone",
            drop_t,
        ]
    sums = ", ".join(f"sum({c}) AS {c}" for c in _COUNTS)
    per_day = f"SELECT predicate, day, ev, {sums} FROM rollup_delta GROUP BY predicate, day, ev"
    out += [
        _upsert("rollup_days", ("predicate", "day", "ev"), _COUNTS, per_day),
        _upsert(
            "rollup_months",
            ("predicate", "month", "ev"),
            _COUNTS,
            f"SELECT predicate, m, ev, {sums} FROM (SELECT predicate, {month_sql('day', kind)} AS m, ev, "
            f"{', '.join(_COUNTS)} FROM ({per_day}) d0) d1 GROUP BY predicate, m, ev",
        ),
        drop,
        _upsert(
            "rollup_predicates",
            ("predicate",),
            ("facts", "bound_events", "value_facts"),
            f"SELECT f.predicate, count(*), sum({ev}), sum(CASE WHEN f.object_id IS NULL THEN 1 ELSE 0 END) "
            f"FROM facts f WHERE {new} GROUP BY f.predicate",
        ),
        _upsert(
            "rollup_entities",
            ("entity",),
            ("outgoing", "incoming"),
            f"SELECT e, sum(o), sum(i) FROM (SELECT f.subject AS e, 1 AS o, 0 AS i FROM facts f WHERE {new} "
            f"UNION ALL SELECT f.object_id, 0, 1 FROM facts f WHERE {new} AND f.object_id IS NOT NULL) x GROUP BY e",
        ),
    ]
    out.insert(0, "UPDATE rollup_state SET folding = 1")
    out.append("UPDATE rollup_state SET upto = (SELECT COALESCE(max(id), 0) FROM facts), folding = 0")
    if types:
        out += [
            "DELETE FROM rollup_types",
            "INSERT INTO rollup_types(type, n) SELECT type, count(*) FROM entities GROUP BY type",
        ]
    return out


def migration(kind: Kind) -> list[str]:
    """Schema step 12: the rollup tables, filled from the facts there are, and their triggers."""
    made = [s for statements in triggers(kind).values() for s in statements]
    return [*_tables(kind), *_fill_statements(None, kind), *made]


def _clear_statements() -> list[str]:
    return [f"DELETE FROM {t}" for t in ROLLUP_TABLES] + ["UPDATE rollup_state SET upto = 0"]


# ---------------------------------------------------------------------- pausing, rebuilding


def _pending(cur: Cursor) -> tuple[int, int]:
    """The largest fact id the rollups count, and the largest there is. Rollups that count no fact count none up to
    any id: a graph emptied and then filled with ids of its own (a copy, a restore) is folded whole."""
    upto, top = cur.execute(
        f"SELECT CASE WHEN EXISTS (SELECT 1 FROM rollup_predicates WHERE facts <> 0) THEN {UPTO} ELSE 0 END, "
        "(SELECT COALESCE(max(id), 0) FROM facts)"
    ).fetchone()
    return int(upto), int(top)


def fold_in(cur: Cursor, kind: str) -> None:
    """In the caller's write transaction: the facts written since the rollups were last brought up to date (ids above
    ``rollup_state.upto``) counted set-wise, the renewals of every triple they are in made again."""
    upto, top = _pending(cur)
    if top > upto:  # nothing counted yet (a first load): every fact, with every renewal found in one pass
        after = str(upto) if upto else None
        for statement in _fill_statements(after, "sqlite" if kind == "sqlite" else "postgresql", types=False):
            cur.execute(statement)


def _covered(cur: Cursor) -> bool:
    """The rollups count every fact this read sees (else a write came between the fold and the read: it scans)."""
    upto, top = _pending(cur)
    return top <= upto


def fold(kg: GraphStore) -> bool:
    """Bring the rollups up to date before a read (one short write when facts were written since: time proportional
    to them); False when they are not and cannot be (a read-only graph), so the read scans."""
    backend = kg._backend
    if backend.missing:  # no graph yet: the scan's answer (of a blank graph, or its error)
        return False
    with kg._read() as cur:
        upto, top = _pending(cur)
    if top <= upto:
        return True
    if backend.read_only:
        return False
    backend.write(lambda cur: fold_in(cur, backend.kind))
    return True


@contextlib.contextmanager
def paused(backend: Backend, cur: Cursor) -> Iterator[None]:
    """Inside a bulk load's transaction: the facts it inserts (no trigger fires on an insert) counted set-wise at its
    end, in a few grouped statements, so the first read after it is quick."""
    yield
    fold_in(cur, backend.kind)


def rebuild_in(cur: Cursor, kind: str) -> None:
    """Every rollup made again from the facts and entities, in the caller's write transaction."""
    k: Kind = "sqlite" if kind == "sqlite" else "postgresql"
    names = triggers(k)
    if k == "sqlite":
        for name in names:
            cur.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        cur.execute("DROP TRIGGER IF EXISTS rollup_facts ON facts")
        cur.execute("DROP TRIGGER IF EXISTS rollup_renewals ON rollup_renewals")
        cur.execute("DROP TRIGGER IF EXISTS rollup_types ON entities")
        for fn in ("kgtoolkit_rollup_facts", "kgtoolkit_rollup_renewals", "kgtoolkit_rollup_types"):
            cur.execute(f"DROP FUNCTION IF EXISTS {fn}()")
    for statement in [*_clear_statements(), *_fill_statements(None, k)]:
        cur.execute(statement)
    for statements in names.values():
        for statement in statements:
            cur.execute(statement)


def rebuild(kg: GraphStore) -> None:
    """Make every rollup again from the facts (what ``kgtoolkit check --rebuild-rollups`` does), in one write."""
    backend = kg._backend
    backend.write(lambda cur: rebuild_in(cur, backend.kind))


# ---------------------------------------------------------------------- checking


@dataclasses.dataclass(frozen=True, slots=True)
class RollupCheck:
    """What :func:`check` found: per rollup table, how many of its keys disagree with a scan (0: exact)."""

    differences: dict[str, int]
    examples: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not any(self.differences.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "differences": dict(self.differences), "examples": list(self.examples)}


def _expected(kind: Kind) -> dict[str, str]:
    """Each rollup table's rows as a scan makes them (zero rows left out), as SELECTs."""
    ev = _bounds_event("f")
    sd, ed = day_sql("f.from_us"), day_sql("f.to_us")
    nostart = f"CASE WHEN f.from_us = {OPEN_START} THEN 1 ELSE 0 END"
    pairs = _pairs(f" AND o.id <= {UPTO} AND n.id <= {UPTO}")
    counted = f"(SELECT * FROM facts WHERE id <= {UPTO}) f"

    def by(period: Callable[[str], str], key: str) -> str:
        return (
            f"SELECT predicate, {key}, ev, {', '.join(f'sum({c}) AS {c}' for c in _COUNTS)} FROM ("
            f"SELECT f.predicate AS predicate, {period(sd)} AS {key}, {ev} AS ev, 1 AS starts, 0 AS ends, "
            f"0 AS ends_nostart, 0 AS renewed, 0 AS renewed_ends FROM {counted} UNION ALL "
            f"SELECT f.predicate, {period(ed)}, {ev}, 0, 1, {nostart}, 0, 0 FROM {counted} UNION ALL "
            f"SELECT r.predicate, {period(day_sql('r.s'))}, 0, 0, 0, 0, 1, 0 FROM ({pairs}) r UNION ALL "
            f"SELECT r.predicate, {period(day_sql('r.e'))}, 0, 0, 0, 0, 0, 1 FROM ({pairs}) r) x "
            f"GROUP BY predicate, {key}, ev"
        )

    return {
        "rollup_days": by(lambda d: d, "day"),
        "rollup_months": by(lambda d: month_sql(d, kind), "month"),
        "rollup_predicates": f"SELECT f.predicate, count(*), sum({ev}), sum(CASE WHEN f.object_id IS NULL THEN 1 ELSE 0 END) "
        f"FROM {counted} GROUP BY f.predicate",
        "rollup_entities": f"SELECT e, sum(o), sum(i) FROM (SELECT f.subject AS e, 1 AS o, 0 AS i FROM {counted} "
        f"UNION ALL SELECT f.object_id, 0, 1 FROM {counted} WHERE f.object_id IS NOT NULL) x GROUP BY e",
        "rollup_types": "SELECT type, count(*) FROM entities GROUP BY type",
        "rollup_renewals": pairs,
    }


def check(kg: GraphStore) -> RollupCheck:
    """Compare every rollup with a scan of the facts (one snapshot): per table, the keys whose counts differ (a row
    of zeros counts as no row)."""
    kind: Kind = "sqlite" if kg._backend.kind == "sqlite" else "postgresql"
    differences: dict[str, int] = {}
    examples: list[str] = []
    fold(kg)  # a read-only graph: compared over the facts they count
    with kg._read() as cur:
        for table, sql in _expected(kind).items():
            keys, counts = ROLLUP_TABLES[table]
            cols = [*keys, *counts]
            stored = {
                tuple(r[: len(keys)]): tuple(_num(v) for v in r[len(keys) :])
                for r in cur.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
            }
            scanned = {
                tuple(r[: len(keys)]): tuple(_num(v) for v in r[len(keys) :]) for r in cur.execute(sql).fetchall()
            }
            if table != "rollup_renewals":
                stored = {k: c for k, c in stored.items() if any(c)}
                scanned = {k: c for k, c in scanned.items() if any(c)}
            wrong = [k for k in stored.keys() | scanned.keys() if stored.get(k) != scanned.get(k)]
            differences[table] = len(wrong)
            for k in sorted(wrong, key=repr)[:3]:
                examples.append(f"{table} {k}: kept {stored.get(k)}, scan {scanned.get(k)}")
    return RollupCheck(differences, tuple(examples))


def _num(v: Any) -> Any:
    return int(v) if v is not None and not isinstance(v, str) else v


# ---------------------------------------------------------------------- reads


@contextlib.contextmanager
def scan_only() -> Iterator[None]:
    """Inside: every read scans the facts instead of reading the rollups (the twin tests' and benchmarks' scan)."""
    token = _SCAN_ONLY.set(True)
    try:
        yield
    finally:
        _SCAN_ONLY.reset(token)


def _day_plan(every: str) -> tuple[str, int, int] | None:
    """How the rollups key a period ``every``: ("months", step months) or ("days", step days, origin day); None when
    a period is not made of whole UTC days (the scan then)."""
    from ._aggregates import period_plan

    plan = period_plan(every)
    if plan is None:
        return None
    if plan.unit == "months":
        return ("months", plan.step, 0)
    if plan.step % DAY_US or plan.origin % DAY_US:
        return None
    return ("days", plan.step // DAY_US, plan.origin // DAY_US)


Question = Literal["stats", "predicates", "churn", "events", "most_connected"]


def source(
    question: Question, *, every: str = "1mo", by: str | None = None, renewals: bool = True, ids: bool = False
) -> Literal["rollups", "scan"]:
    """Which one answers a question: ``"rollups"`` or ``"scan"`` (the explain of issue 47). ``every``/``by``: of
    ``churn`` and ``events``; ``ids``: ``most_connected`` of chosen entities (read from the rollups too)."""
    del renewals, ids
    if _SCAN_ONLY.get():
        return "scan"
    if question in ("churn", "events") and (_day_plan(every) is None or by not in (None, "predicate")):
        return "scan"
    return "rollups"


def _declared(d: Dialect, rule: EventRule, column: str = "predicate") -> tuple[str, dict[str, Any]]:
    """SQL that is 1 when the row's predicate is declared an event (or the graph is), else 0, and its parameters."""
    if rule.graph:
        return "1", {}
    if not rule.predicates:
        return "0", {}
    cond, params = d.in_values(column, "declared", sorted(rule.predicates))
    return f"(CASE WHEN {cond} THEN 1 ELSE 0 END)", params


def _today(clock: Clock) -> tuple[int, int, int, int]:
    """Now, today's UTC day, its first and its last instant keys."""
    params = clock.params()
    now = int(params["now"])
    day = (now - now % DAY_US) // DAY_US
    return now, day, day * DAY_US, day * DAY_US + DAY_US - 1


def _states(
    cur: Cursor, d: Dialect, rule: EventRule, clock: Clock, by_predicate: bool
) -> dict[str | None, tuple[int, int]]:
    """Per predicate (or None: all), the state facts ``(current, ended)`` now, from the rollups (contract §4).

    For state facts: ``current = fe − fs − T`` and ``ended = N − fe + T``, where ``fe`` = #{end > now}, ``fs`` =
    #{start > now}, ``T`` = #{end = today's date end, start ≤ now < end}; ``fe`` and ``fs`` are the rows after today
    plus the facts of today after now (index ranges), ``T`` an index range."""
    _, today, lo, hi = _today(clock)
    declared, params = _declared(d, rule)
    group, grouped = ("predicate", " GROUP BY predicate") if by_predicate else ("''", "")
    event, eparams = rule.bound(d)
    params = {**params, **eparams, **clock.params(), "today": today, "lo": lo, "hi": hi}
    later = cur.execute(
        f"SELECT {group}, sum(ends), sum(starts) FROM rollup_days WHERE day > :today AND ev = 0 AND {declared} = 0"
        f"{grouped}",
        params,
    ).fetchall()
    fgroup = "f.predicate" if by_predicate else "''"
    today_rows = cur.execute(
        f"SELECT g, sum(e), sum(s), sum(t) FROM ("
        f"SELECT {fgroup} AS g, 1 AS e, 0 AS s, CASE WHEN f.to_us = :now_day_last AND f.from_us <= :now THEN 1 ELSE 0 END AS t "
        f"FROM facts f WHERE f.valid_to IS NOT NULL AND f.to_us > :now AND f.to_us <= :hi AND NOT {event} UNION ALL "
        f"SELECT {fgroup}, 0, 1, 0 FROM facts f WHERE f.from_us > :now AND f.from_us <= :hi AND NOT {event}) x GROUP BY g",
        params,
    ).fetchall()
    totals = cur.execute(
        f"SELECT {group}, sum(facts - bound_events) FROM rollup_predicates WHERE {declared} = 0{grouped}", params
    ).fetchall()
    out: dict[str | None, list[int]] = {}
    for g, n in totals:
        out.setdefault(g, [0, 0, 0, 0])[0] += int(n or 0)
    for g, fe, fs in later:
        row = out.setdefault(g, [0, 0, 0, 0])
        row[1] += int(fe or 0)
        row[2] += int(fs or 0)
    for g, fe, fs, t in today_rows:
        row = out.setdefault(g, [0, 0, 0, 0])
        row[1] += int(fe or 0)
        row[2] += int(fs or 0)
        row[3] += int(t or 0)
    return {(g if by_predicate else None): (fe - fs - t, n - fe + t) for g, (n, fe, fs, t) in out.items()}


def stats(kg: GraphStore) -> Stats | None:
    """:meth:`GraphStore.stats` from the rollups; None inside :func:`scan_only`."""
    from .._records import Stats
    from . import _queries as q

    if source("stats") == "scan" or not fold(kg):
        return None
    d = kg._backend.dialect
    with kg._read() as cur:
        if not _covered(cur):
            return None
        rule = q.event_rule(cur)
        declared, params = _declared(d, rule)
        by_type = {str(t): int(n) for t, n in cur.execute("SELECT type, n FROM rollup_types WHERE n > 0 ORDER BY type")}
        facts, values, events, predicates = cur.execute(
            f"SELECT COALESCE(sum(facts), 0), COALESCE(sum(value_facts), 0), "
            f"COALESCE(sum(CASE WHEN {declared} = 1 THEN facts ELSE bound_events END), 0), "
            "count(*) FILTER (WHERE facts > 0) FROM rollup_predicates",
            params,
        ).fetchone()
        current, ended = _states(cur, d, rule, Clock.real(), False).get(None, (0, 0))
        aliases = int(cur.execute("SELECT count(*) FROM aliases").fetchone()[0])
        memories = int(cur.execute("SELECT count(*) FROM memories").fetchone()[0])
    facts, values, events = int(facts), int(values), int(events)
    return Stats(
        sum(by_type.values()),
        by_type,
        facts,
        current,
        ended,
        values,
        int(predicates),
        aliases,
        memories,
        facts - current - ended - events,
        events,
    )


def table_counts(cur: Cursor) -> tuple[Any, int] | None:
    """:func:`._queries.table_counts` and the number of facts from the rollups (what the dashboard's sidebar shows);
    None inside :func:`scan_only`."""
    from . import _queries as q

    if source("stats") == "scan" or not _covered(cur):
        return None
    by_type = tuple(
        (str(t), int(n)) for t, n in cur.execute("SELECT type, n FROM rollup_types WHERE n > 0 ORDER BY type")
    )
    used = cur.execute("SELECT predicate, facts FROM rollup_predicates WHERE facts > 0").fetchall()
    aliases = int(cur.execute("SELECT count(*) FROM aliases").fetchone()[0])
    memories = int(cur.execute("SELECT count(*) FROM memories").fetchone()[0])
    counts = q.TableCounts(by_type, tuple(sorted(str(p) for p, _ in used)), aliases, memories)
    return counts, sum(int(n) for _, n in used)


def predicates_page(
    cur: Cursor, d: Dialect, limit: int | None, offset: int, clock: Clock
) -> tuple[list[PredicateInfo], int] | None:
    """:func:`._predicates.predicates_page` from the rollups; None inside :func:`scan_only`."""
    from .._records import PredicateInfo
    from . import _queries as q

    if source("predicates") == "scan" or not _covered(cur):
        return None
    params = q.page(d, limit, offset)
    rows = cur.execute(
        "SELECT r.predicate, COALESCE(p.label, r.predicate), r.facts, count(*) OVER () FROM rollup_predicates r "
        "LEFT JOIN predicates p ON p.id = r.predicate WHERE r.facts > 0 "
        "ORDER BY r.facts DESC, r.predicate LIMIT :limit OFFSET :offset",
        params,
    ).fetchall()
    total = (
        int(rows[0][3])
        if rows
        else int(cur.execute("SELECT count(*) FROM rollup_predicates WHERE facts > 0").fetchone()[0])
    )
    rule = q.event_rule(cur)
    current = _states(cur, d, rule, clock, True)
    aliases: dict[str, list[str]] = {}
    if rows:
        for alias, target in cur.execute(
            f"SELECT alias, predicate FROM predicate_aliases WHERE predicate IN {d.values('names')} ORDER BY alias",
            {"names": d.list_param([r[0] for r in rows])},
        ).fetchall():
            aliases.setdefault(target, []).append(alias)
    return [
        PredicateInfo(p, label, int(n), current.get(p, (0, 0))[0], tuple(aliases.get(p, ()))) for p, label, n, _ in rows
    ], total


def _period_rows(
    cur: Cursor, d: Dialect, every: str, by_predicate: bool, select: str, where: str, params: dict[str, Any]
) -> list[tuple[Any, ...]] | None:
    """Rows ``(predicate?, p, <select's sums>)`` of the rollups by the period of ``every`` (``p``: microseconds, or a
    month number, as :mod:`._aggregates` keys them; NULL for an open key's row), ``select`` summed over the rows
    meeting ``where``."""
    plan = _day_plan(every)
    if plan is None:
        return None
    unit, step, origin = plan
    if unit == "months":
        table, key = "rollup_months", "month"
        p = f"(CASE WHEN month < 0 OR month >= {MONTH_OPEN_END} THEN NULL ELSE month - {d.modulo(d.modulo(f'month - {_MONTH_1970}', step) + f' + {step}', step)} END)"
    else:
        table, key = "rollup_days", "day"
        shifted = f"day - {origin}"
        p = (
            f"(CASE WHEN day < -{_FAR} OR day > {_FAR} THEN NULL ELSE "
            f"(day - {d.modulo(d.modulo(shifted, step) + f' + {step}', step)}) * {DAY_US} END)"
        )
    del key
    keys = "predicate, " if by_predicate else ""
    return list(
        cur.execute(
            f"SELECT {keys}p, {select} FROM (SELECT x.predicate AS predicate, {p} AS p, x.ev AS ev, "
            f"{', '.join(f'x.{c} AS {c}' for c in _COUNTS)} FROM {table} x WHERE {where}) r "
            f"GROUP BY {keys}p ORDER BY {keys}p",
            params,
        ).fetchall()
    )


def churn_counts(kg: GraphStore, every: str, by: str | None, renewals: bool) -> ChurnCounts | None:
    """:func:`._aggregates.churn_counts` from the rollups, or None when they cannot answer (:func:`source`)."""
    import polars as pl

    from . import _queries as q
    from ._aggregates import ChurnCounts, _frame, _period_column, period_plan

    if source("churn", every=every, by=by) == "scan" or not fold(kg):
        return None
    d = kg._backend.dialect
    with kg._read() as cur:
        if not _covered(cur):
            return None
        rule = q.event_rule(cur)
        declared, params = _declared(d, rule)
        ren = "1" if renewals else "0"
        state = f"(ev = 0 AND {declared} = 0)"
        select = (
            f"CAST(sum(CASE WHEN {state} THEN starts - {ren} * renewed ELSE 0 END) AS BIGINT) AS added, "
            f"CAST(sum(CASE WHEN {state} THEN ends - {ren} * renewed_ends ELSE 0 END) AS BIGINT) AS ended, "
            f"CAST(sum(CASE WHEN {state} THEN {ren} * renewed ELSE 0 END) AS BIGINT) AS renewed, "
            f"CAST(sum(CASE WHEN {state} THEN 0 ELSE starts + ends_nostart END) AS BIGINT) AS events"
        )
        # A row's p is NULL for an open key: an unknown start (its state facts: the baseline) or an open end.
        rows = _period_rows(cur, d, every, by == "predicate", select, "TRUE", params)
        keys = ["predicate"] if by == "predicate" else []
        baseline = cur.execute(
            f"SELECT {'predicate, ' if keys else ''}CAST(sum(starts) AS BIGINT) FROM rollup_days "
            f"WHERE day < -{_FAR} AND ev = 0 AND {declared} = 0{' GROUP BY predicate' if keys else ''}",
            params,
        ).fetchall()
    assert rows is not None
    plan = period_plan(every)
    assert plan is not None
    key_schema: dict[str, pl.DataType] = {k: pl.String() for k in keys}
    sums = ["added", "ended", "renewed", "events"]
    counts = _frame(rows, {**key_schema, "p": pl.Int64(), **{s: pl.Int64() for s in sums}})
    happened = pl.any_horizontal(pl.col(s) != 0 for s in sums)
    counts = counts.filter(pl.col("p").is_not_null() & happened).select(*keys, _period_column(plan), *sums)
    unknown = _frame([tuple(r) for r in baseline if r[-1] is not None], {**key_schema, "_baseline": pl.Int64()})
    if keys:
        unknown = unknown.filter(pl.col("_baseline") != 0)
    elif unknown.height == 0:
        unknown = pl.DataFrame({"_baseline": [0]}, schema={"_baseline": pl.Int64()})
    return ChurnCounts(counts, unknown, None)


def event_counts(kg: GraphStore, every: str, by: str | None) -> pl.DataFrame | None:
    """:func:`._aggregates.event_counts` from the rollups, or None when they cannot answer (:func:`source`)."""
    import polars as pl

    from . import _queries as q
    from ._aggregates import _frame, _period_column, period_plan

    if source("events", every=every, by=by) == "scan" or not fold(kg):
        return None
    d = kg._backend.dialect
    with kg._read() as cur:
        if not _covered(cur):
            return None
        declared, params = _declared(d, q.event_rule(cur))
        select = f"CAST(sum(CASE WHEN ev = 1 OR {declared} = 1 THEN starts ELSE 0 END) AS BIGINT) AS events"
        rows = _period_rows(cur, d, every, by == "predicate", select, "TRUE", params)
    assert rows is not None
    plan = period_plan(every)
    assert plan is not None
    keys = ["predicate"] if by == "predicate" else []
    frame = _frame(rows, {**{k: pl.String() for k in keys}, "p": pl.Int64(), "events": pl.Int64()})
    frame = frame.filter(pl.col("p").is_not_null() & (pl.col("events") != 0))
    return frame.select(*keys, _period_column(plan), "events")


def connected_counts(kg: GraphStore, top: int | None, ids: Sequence[str] | None) -> pl.DataFrame | None:
    """:func:`._rankings.connected_counts` from the rollups (the top entities along the rank index; entities with no
    fact after them, by id); None inside :func:`scan_only`."""
    import polars as pl

    from . import _queries as q

    if source("most_connected") == "scan" or not fold(kg):
        return None
    d = kg._backend.dialect
    limit = q.page(d, top, 0)["limit"]
    schema = {
        "id": pl.String(),
        "name": pl.String(),
        "type": pl.String(),
        "outgoing": pl.Int64(),
        "incoming": pl.Int64(),
    }
    with kg._read() as cur:
        if not _covered(cur):
            return None
        if ids is not None or top is None:
            params: dict[str, Any] = {"limit": limit}
            only = ""
            if ids is not None:
                only = f" WHERE e.id IN {d.values('ids')}"
                params["ids"] = d.list_param(sorted(set(ids)))
            rows = cur.execute(
                "SELECT e.id, e.name, e.type, COALESCE(r.outgoing, 0), COALESCE(r.incoming, 0) FROM entities e "
                f"LEFT JOIN rollup_entities r ON r.entity = e.id{only} "
                "ORDER BY COALESCE(r.outgoing + r.incoming, 0) DESC, e.id LIMIT :limit",
                params,
            ).fetchall()
            return pl.DataFrame(rows, schema=schema, orient="row")
        rows = cur.execute(
            "SELECT r.entity, e.name, e.type, r.outgoing, r.incoming FROM (SELECT entity, outgoing, incoming "
            "FROM rollup_entities WHERE outgoing + incoming > 0 ORDER BY outgoing + incoming DESC, entity "
            "LIMIT :limit) r JOIN entities e ON e.id = r.entity ORDER BY r.outgoing + r.incoming DESC, r.entity",
            {"limit": limit},
        ).fetchall()
        if len(rows) < top:
            rows += cur.execute(
                "SELECT e.id, e.name, e.type, 0, 0 FROM entities e WHERE NOT EXISTS (SELECT 1 FROM rollup_entities r "
                "WHERE r.entity = e.id AND r.outgoing + r.incoming > 0) ORDER BY e.id LIMIT :limit",
                {"limit": top - len(rows)},
            ).fetchall()
    return pl.DataFrame(rows, schema=schema, orient="row")

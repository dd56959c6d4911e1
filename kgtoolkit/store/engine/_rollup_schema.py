"""Rollups' schema (contract §18, issue 47): the tables of counts the store keeps as facts are written, the
triggers that keep them, the set-wise statements that fill them, and schema step 12 made of them.

The counts and the rules they follow are described in ``kgtoolkit/store/ops/_rollups.py`` (folding, rebuilding,
checking) and ``kgtoolkit/store/reads/_rollups.py`` (the reads); docs/rollups.md tells the whole story. Their SQL is
the rules' own: the event rule by its bounds (:func:`kgtoolkit._validity.bounds_event_sql`) and the renewals
(:func:`kgtoolkit._renewals.pairs_sql`), so this engine module stands on the rules alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..._renewals import pairs_sql
from ..._time import DAY_US, OPEN_START
from ..._validity import bounds_event_sql

__all__ = [
    "ROLLUP_COUNTS",
    "ROLLUP_FAR",
    "ROLLUP_MONTH_1970",
    "ROLLUP_MONTH_OPEN_END",
    "ROLLUP_MONTH_OPEN_START",
    "ROLLUP_TABLES",
    "ROLLUP_UPTO",
    "RollupKind",
    "RowSource",
    "rollup_bounds_event",
    "rollup_clear_statements",
    "rollup_count_upserts",
    "rollup_day_sql",
    "rollup_fill_statements",
    "rollup_migration",
    "rollup_month_sql",
    "rollup_pairs_sql",
    "rollup_trigger_drops",
    "rollup_trigger_refresh",
    "rollup_triggers",
    "rollup_triple_join",
]

RollupKind = Literal["sqlite", "postgresql"]

#: The rollup tables, with their key columns and their count columns.
ROLLUP_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "rollup_days": (("predicate", "day", "ev"), ("starts", "ends", "ends_nostart", "renewed", "renewed_ends")),
    "rollup_months": (("predicate", "month", "ev"), ("starts", "ends", "ends_nostart", "renewed", "renewed_ends")),
    "rollup_predicates": (("predicate",), ("facts", "bound_events", "value_facts")),
    "rollup_entities": (("entity",), ("outgoing", "incoming")),
    "rollup_types": (("type",), ("n",)),
    "rollup_renewals": (("old_id",), ("new_id", "subject", "predicate", "object_key", "e", "s")),
}
ROLLUP_COUNTS = ROLLUP_TABLES["rollup_days"][1]

#: A day beyond every real one (year 1 is day −719,162, year 9999 day 2,932,896): the open keys' days lie further.
ROLLUP_FAR = 10_000_000
#: The month keys of an unknown start and of an open end (a real month is year × 12 + month − 1: 12 to 119,999).
ROLLUP_MONTH_OPEN_START, ROLLUP_MONTH_OPEN_END = -1, 1_000_000
ROLLUP_MONTH_1970 = 1970 * 12

#: The largest fact id the rollups count (every fact up to it, as it is now; ``rollup_state``): facts are written
#: without a trigger and counted set-wise by the fold every write transaction ends with (``._rollup_fold``); a change
#: to a fact counted already is kept by the triggers in its own transaction.
ROLLUP_UPTO = "(SELECT upto FROM rollup_state)"
_FOLDING = "(SELECT folding FROM rollup_state)"

# ---------------------------------------------------------------------- the keys, in SQL


def rollup_day_sql(key: str) -> str:
    """The UTC day (days since 1970-01-01, floored) of the instant key ``key``: the same integers on both engines."""
    # Floored without a remainder (PostgreSQL's driver reads '%' as a parameter mark): both engines' division
    # truncates, so a negative key is first moved down by a day less one.
    return f"((({key}) - CASE WHEN ({key}) < 0 THEN {DAY_US - 1} ELSE 0 END) / {DAY_US})"


def rollup_month_sql(day: str, kind: str = "sqlite") -> str:
    """The month number (year × 12 + month − 1, proleptic Gregorian, as polars counts) of the day ``day`` (days since
    1970-01-01), by the engine's own calendar (a trigger runs it on every write); an open key's day gives
    :data:`ROLLUP_MONTH_OPEN_START` or :data:`ROLLUP_MONTH_OPEN_END`."""
    if kind == "postgresql":
        date = f"(DATE '1970-01-01' + CAST(({day}) AS INTEGER))"
        civil = f"CAST(EXTRACT(YEAR FROM {date}) * 12 + EXTRACT(MONTH FROM {date}) - 1 AS BIGINT)"
    else:
        at = f"({day}) * 86400, 'unixepoch'"
        civil = f"(CAST(strftime('%Y', {at}) AS INTEGER) * 12 + CAST(strftime('%m', {at}) AS INTEGER) - 1)"
    return f"(CASE WHEN ({day}) < -{ROLLUP_FAR} THEN {ROLLUP_MONTH_OPEN_START} WHEN ({day}) > {ROLLUP_FAR} THEN {ROLLUP_MONTH_OPEN_END} ELSE {civil} END)"


def rollup_bounds_event(alias: str) -> str:
    """1 when the facts row ``alias`` is an event by its bounds (the event rule without declarations), else 0."""
    return f"(CASE WHEN {bounds_event_sql(alias)} THEN 1 ELSE 0 END)"


def _upsert(table: str, keys: Sequence[str], counts: Sequence[str], select: str) -> str:
    """``select`` (rows of ``keys`` then ``counts``) added into ``table``: new keys inserted, others summed."""
    cols = ", ".join([*keys, *counts])
    sets = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in counts)
    return (
        f"INSERT INTO {table}({cols}) SELECT * FROM ({select}) u WHERE TRUE "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {sets}"
    )


# ---------------------------------------------------------------------- the triggers' statements


#: Facts rows to count: the rows' alias, the sign they are counted with (1 added, −1 taken away), and the clause they
#: are read from (`` FROM … f`` for a set of rows; empty for a trigger's ``old`` or ``new``).
RowSource = tuple[str, int, str]


def rollup_count_upserts(rows: Sequence[RowSource], kind: str) -> list[str]:
    """The facts rows of ``rows`` added to (or taken from) every count but the renewals': one grouped upsert per table
    (days, months, predicates, entities). A key whose counts sum to nothing is not written (a trigger's old and new
    row of an update cancel where they agree), so a change writes only the counts it moves."""
    day_parts: list[str] = []
    month_parts: list[str] = []
    pred_parts: list[str] = []
    ent_parts: list[str] = []
    for r, sign, source in rows:
        ev = rollup_bounds_event(r)
        start_day, end_day = rollup_day_sql(f"{r}.from_us"), rollup_day_sql(f"{r}.to_us")
        nostart = f"CASE WHEN {r}.from_us = {OPEN_START} THEN {sign} ELSE 0 END"
        for parts, s_key, e_key in (
            (day_parts, start_day, end_day),
            (month_parts, rollup_month_sql(start_day, kind), rollup_month_sql(end_day, kind)),
        ):
            parts += [
                f"SELECT {r}.predicate AS p, {s_key} AS k, {ev} AS ev, {sign} AS s, 0 AS e, 0 AS u{source}",
                f"SELECT {r}.predicate, {e_key}, {ev}, 0, {sign}, {nostart}{source}",
            ]
        pred_parts.append(
            f"SELECT {r}.predicate AS p, {sign} AS n, {sign} * {ev} AS e, "
            f"CASE WHEN {r}.object_id IS NULL THEN {sign} ELSE 0 END AS v{source}"
        )
        ent_parts += [
            f"SELECT {r}.subject AS k, {sign} AS o, 0 AS i{source}",
            f"SELECT {r}.object_id, 0, {sign}{source} WHERE {r}.object_id IS NOT NULL",
        ]

    def grouped(parts: list[str], keys: str, sums: Sequence[str]) -> str:
        moved = " OR ".join(f"sum({c}) <> 0" for c in sums)
        return (
            f"SELECT {keys}, {', '.join(f'sum({c})' for c in sums)} FROM ({' UNION ALL '.join(parts)}) x "
            f"GROUP BY {keys} HAVING {moved}"
        )

    day_counts = ("starts", "ends", "ends_nostart")
    return [
        _upsert("rollup_days", ("predicate", "day", "ev"), day_counts, grouped(day_parts, "p, k, ev", ("s", "e", "u"))),
        _upsert(
            "rollup_months", ("predicate", "month", "ev"), day_counts, grouped(month_parts, "p, k, ev", ("s", "e", "u"))
        ),
        _upsert(
            "rollup_predicates",
            ("predicate",),
            ("facts", "bound_events", "value_facts"),
            grouped(pred_parts, "p", ("n", "e", "v")),
        ),
        _upsert("rollup_entities", ("entity",), ("outgoing", "incoming"), grouped(ent_parts, "k", ("o", "i"))),
    ]


def rollup_triple_join(o: str, t: str) -> str:
    """``o`` and ``t`` on one triple. SQLite's planner, without statistics, would look the facts up through
    ``facts_predicate`` (predicate, object_key), a range of thousands of rows for a common object; the key's
    ``|| ''`` leaves it ``facts_subject`` (subject, predicate), a range of a few."""
    return f"{o}.subject = {t}.subject AND {o}.predicate = {t}.predicate AND {o}.object_key || '' = {t}.object_key"


def rollup_pairs_sql(where_old: str, old_source: str = "facts o") -> str:
    """The renewals (:func:`kgtoolkit._renewals.pairs_sql`, events by their bounds only) whose old fact, read from
    ``old_source``, meets ``where_old``, as rows of ``rollup_renewals``."""
    pairs = pairs_sql(old_source, bounds_event_sql("o"), bounds_event_sql("n"), where_old)
    return (
        "SELECT p.old_id, p.new_id, p.subject, p.predicate, o2.object_key, p.e, p.s "
        f"FROM ({pairs}) p JOIN facts o2 ON o2.id = p.old_id"
    )


def _triple_statements(r: str) -> list[str]:
    """The renewals of the triple of facts row ``r`` made again (the renewals' own triggers keep the day counts)."""
    same = f"subject = {r}.subject AND predicate = {r}.predicate AND object_key = {r}.object_key"
    where_old = f" AND {rollup_triple_join('o', r)} AND o.id <= {ROLLUP_UPTO} AND n.id <= {ROLLUP_UPTO}"
    return [
        f"DELETE FROM rollup_renewals WHERE {same}",
        f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) {rollup_pairs_sql(where_old)}",
    ]


def _triple_shared(r: str) -> str:
    """True when another fact has the triple of facts row ``r``: a renewal pairs two facts of one triple, so a triple
    held by one fact alone has none to make again (an index seek, where remaking them is a search of the triple)."""
    return f"EXISTS (SELECT 1 FROM facts x WHERE {rollup_triple_join('x', r)} AND x.id <> {r}.id)"


def _renewal_statements(r: str, sign: int, kind: str) -> list[str]:
    """The day and month counts of one renewal row ``r`` added or taken away."""
    out = []
    for table, key in (("rollup_days", "day"), ("rollup_months", "month")):
        s_key, e_key = rollup_day_sql(f"{r}.s"), rollup_day_sql(f"{r}.e")
        if key == "month":
            s_key, e_key = rollup_month_sql(s_key, kind), rollup_month_sql(e_key, kind)
        cols = ("predicate", key, "ev")
        out.append(_upsert(table, cols, ("renewed",), f"SELECT {r}.predicate AS p, {s_key} AS k, 0 AS ev, {sign} AS n"))
        out.append(
            _upsert(table, cols, ("renewed_ends",), f"SELECT {r}.predicate AS p, {e_key} AS k, 0 AS ev, {sign} AS n")
        )
    return out


def _type_statements(r: str, sign: int) -> list[str]:
    return [_upsert("rollup_types", ("type",), ("n",), f"SELECT {r}.type AS t, {sign} AS n")]


def _types_upsert(rows: str) -> str:
    """The entities per type changed by ``rows`` (a type and a sign each), one row per type, none where they cancel."""
    return _upsert(
        "rollup_types", ("type",), ("n",), f"SELECT type, sum(n) AS n FROM ({rows}) r GROUP BY type HAVING sum(n) <> 0"
    )


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
        f"WHEN old.id <= {ROLLUP_UPTO} BEGIN "
        f"{body(rollup_count_upserts([('old', -1, ''), ('new', 1, '')], 'sqlite'))} END",
        "rollup_fact_update_triple": f"CREATE TRIGGER rollup_fact_update_triple AFTER UPDATE OF {_FACT_COLUMNS_WATCHED} "
        f"ON facts WHEN old.id <= {ROLLUP_UPTO} AND {_triple_shared('new')} BEGIN {body(_triple_statements('new'))} END",
        # A fact moved to another triple (a merge, a rename) leaves its old triple's renewals to be made again too.
        "rollup_fact_moved": f"CREATE TRIGGER rollup_fact_moved AFTER UPDATE OF subject, predicate, object_key ON facts "
        f"WHEN old.id <= {ROLLUP_UPTO} AND ({triple_changed}) AND {_triple_shared('old')} "
        f"BEGIN {body(_triple_statements('old'))} END",
        "rollup_fact_delete": f"CREATE TRIGGER rollup_fact_delete AFTER DELETE ON facts WHEN old.id <= {ROLLUP_UPTO} BEGIN "
        f"{body(rollup_count_upserts([('old', -1, '')], 'sqlite'))} END",
        "rollup_fact_delete_triple": f"CREATE TRIGGER rollup_fact_delete_triple AFTER DELETE ON facts "
        f"WHEN old.id <= {ROLLUP_UPTO} AND {_triple_shared('old')} BEGIN {body(_triple_statements('old'))} END",
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
            IF OLD.id > {ROLLUP_UPTO} THEN RETURN NULL; END IF;
            IF TG_OP = 'UPDATE' THEN {body(rollup_count_upserts([("OLD", -1, ""), ("NEW", 1, "")], "postgresql"))}
            ELSE {body(rollup_count_upserts([("OLD", -1, "")], "postgresql"))} END IF;
            IF TG_OP = 'UPDATE' AND {_triple_shared("NEW")} THEN {body(_triple_statements("NEW"))} END IF;
            IF (TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ({triple_changed}))) AND {_triple_shared("OLD")} THEN
                {body(_triple_statements("OLD"))}
            END IF;
            RETURN NULL;
        END $body$"""
    renewals_fn = f"""CREATE FUNCTION kgtoolkit_rollup_renewals() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF {_FOLDING} = 1 THEN RETURN NULL; END IF;
            IF TG_OP = 'DELETE' THEN {body(_renewal_statements("OLD", -1, "postgresql"))} ELSE {body(_renewal_statements("NEW", 1, "postgresql"))} END IF;
            RETURN NULL;
        END $body$"""
    # Per statement, from its transition tables: a per-row upsert of one type's row made a COPY of many entities
    # quadratic (each update of a row the transaction already updated walks that row's chain of versions).
    types_fn = f"""CREATE FUNCTION kgtoolkit_rollup_types() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF TG_OP = 'INSERT' THEN {body([_types_upsert("SELECT type, 1 AS n FROM new_rows")])}
            ELSIF TG_OP = 'DELETE' THEN {body([_types_upsert("SELECT type, -1 AS n FROM old_rows")])}
            ELSE {body([_types_upsert("SELECT type, -1 AS n FROM old_rows UNION ALL SELECT type, 1 FROM new_rows")])}
            END IF;
            RETURN NULL;
        END $body$"""
    return {
        "rollup_facts": facts_fn + ";\nCREATE TRIGGER rollup_facts AFTER DELETE OR UPDATE OF "
        f"{_FACT_COLUMNS_WATCHED} ON facts FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_facts()",
        "rollup_renewals": renewals_fn + ";\nCREATE TRIGGER rollup_renewals AFTER INSERT OR DELETE ON rollup_renewals "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_renewals()",
        "rollup_types": types_fn
        + ";\nCREATE TRIGGER rollup_types AFTER INSERT ON entities REFERENCING NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_rollup_types()"
        ";\nCREATE TRIGGER rollup_types_delete AFTER DELETE ON entities REFERENCING OLD TABLE AS old_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_rollup_types()"
        ";\nCREATE TRIGGER rollup_types_update AFTER UPDATE ON entities "
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_rollup_types()",
    }


def _tables(kind: RollupKind) -> list[str]:
    text = 'TEXT COLLATE "C"' if kind == "postgresql" else "TEXT"
    big = "BIGINT" if kind == "postgresql" else "INTEGER"
    rowid = "" if kind == "postgresql" else " WITHOUT ROWID"
    counts = ", ".join(f"{c} {big} NOT NULL DEFAULT 0" for c in ROLLUP_COUNTS)
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


def rollup_triggers(kind: RollupKind) -> dict[str, list[str]]:
    """The statements that make each trigger (PostgreSQL: its function first), by trigger name."""
    made = _sqlite_triggers() if kind == "sqlite" else _postgres_triggers()
    return {name: _split(sql) for name, sql in made.items()}


def _split(sql: str) -> list[str]:
    head, *triggers = sql.split(";\nCREATE TRIGGER ")
    return [head, *(f"CREATE TRIGGER {t}" for t in triggers)]


# ---------------------------------------------------------------------- filling (set-wise)


def rollup_fill_statements(after: str | None, kind: RollupKind, *, types: bool = True) -> list[str]:
    """The statements that add the facts with an id above ``after`` (an SQL expression; None: every fact) to the
    rollups in a few grouped statements (their renewals, their triples', made again), with the triggers off. The
    entity types are counted again whole (one GROUP BY of ``entities``)."""
    new = "TRUE" if after is None else f"f.id > {after}"
    ev = rollup_bounds_event("f")
    start_day, end_day = rollup_day_sql("f.from_us"), rollup_day_sql("f.to_us")
    nostart = f"CASE WHEN f.from_us = {OPEN_START} THEN 1 ELSE 0 END"
    temp = "CREATE TEMP TABLE"
    drop = "DROP TABLE IF EXISTS temp.rollup_delta" if kind == "sqlite" else "DROP TABLE IF EXISTS rollup_delta"
    drop_t = "DROP TABLE IF EXISTS temp.rollup_touched" if kind == "sqlite" else "DROP TABLE IF EXISTS rollup_touched"
    by_day = (
        f"SELECT predicate, day, ev, {', '.join(f'sum({c}) AS {c}' for c in ROLLUP_COUNTS)} FROM ("
        f"SELECT f.predicate AS predicate, {start_day} AS day, {ev} AS ev, 1 AS starts, 0 AS ends, 0 AS ends_nostart, "
        f"0 AS renewed, 0 AS renewed_ends FROM facts f WHERE {new} UNION ALL "
        f"SELECT f.predicate, {end_day}, {ev}, 0, 1, {nostart}, 0, 0 FROM facts f WHERE {new}) x "
        "GROUP BY predicate, day, ev"
    )
    out = [drop, f"{temp} rollup_delta AS {by_day}"]
    # The renewals of every triple a new fact is in, made again: the old ones taken out of the counts, the new put in.
    if after is None:
        out += [
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("s")
            + ", 0, 0, 0, 0, -1, 0 FROM rollup_renewals",
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("e")
            + ", 0, 0, 0, 0, 0, -1 FROM rollup_renewals",
            "DELETE FROM rollup_renewals",
            f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) {rollup_pairs_sql('')}",
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("s")
            + ", 0, 0, 0, 0, 1, 0 FROM rollup_renewals",
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("e")
            + ", 0, 0, 0, 0, 0, 1 FROM rollup_renewals",
        ]
    else:
        # Driven from the touched triples (an index seek each), never a pass over every fact or renewal.
        def on(a: str) -> str:
            return f"{a}.subject = t.subject AND {a}.predicate = t.predicate AND {a}.object_key = t.object_key"

        in_touched = f"rollup_touched t JOIN rollup_renewals r ON {on('r')}"
        out += [
            drop_t,
            f"{temp} rollup_touched AS SELECT DISTINCT f.subject, f.predicate, f.object_key FROM facts f WHERE {new}",
            # Keyed, so the join to the facts is a seek per triple whichever side the planner starts from.
            *(
                ["CREATE INDEX temp.rollup_touched_key ON rollup_touched(subject, predicate, object_key)"]
                if kind == "sqlite"
                else ["CREATE INDEX ON rollup_touched(subject, predicate, object_key)", "ANALYZE rollup_touched"]
            ),
            f"DROP TABLE IF EXISTS {'temp.' if kind == 'sqlite' else ''}rollup_gone",
            f"{temp} rollup_gone AS SELECT r.* FROM {in_touched}",
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("s")
            + ", 0, 0, 0, 0, -1, 0 FROM rollup_gone",
            "INSERT INTO rollup_delta SELECT predicate, "
            + rollup_day_sql("e")
            + ", 0, 0, 0, 0, 0, -1 FROM rollup_gone",
            "DELETE FROM rollup_renewals WHERE old_id IN (SELECT old_id FROM rollup_gone)",
            f"INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) "
            f"{rollup_pairs_sql('', f'rollup_touched t JOIN facts o ON {on(chr(111))}')}",
            f"INSERT INTO rollup_delta SELECT r.predicate, {rollup_day_sql('r.s')}, 0, 0, 0, 0, 1, 0 FROM {in_touched}",
            f"INSERT INTO rollup_delta SELECT r.predicate, {rollup_day_sql('r.e')}, 0, 0, 0, 0, 0, 1 FROM {in_touched}",
            "DROP TABLE rollup_gone" if kind == "postgresql" else "DROP TABLE temp.rollup_gone",
            drop_t,
        ]
    sums = ", ".join(f"sum({c}) AS {c}" for c in ROLLUP_COUNTS)
    per_day = f"SELECT predicate, day, ev, {sums} FROM rollup_delta GROUP BY predicate, day, ev"
    out += [
        _upsert("rollup_days", ("predicate", "day", "ev"), ROLLUP_COUNTS, per_day),
        _upsert(
            "rollup_months",
            ("predicate", "month", "ev"),
            ROLLUP_COUNTS,
            f"SELECT predicate, m, ev, {sums} FROM (SELECT predicate, {rollup_month_sql('day', kind)} AS m, ev, "
            f"{', '.join(ROLLUP_COUNTS)} FROM ({per_day}) d0) d1 GROUP BY predicate, m, ev",
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


def rollup_trigger_drops(kind: RollupKind) -> list[str]:
    """The statements that drop every rollup trigger (and PostgreSQL's trigger functions), as any version made them."""
    if kind == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {name}" for name in _sqlite_triggers()]
    return [
        "DROP TRIGGER IF EXISTS rollup_facts ON facts",
        "DROP TRIGGER IF EXISTS rollup_renewals ON rollup_renewals",
        "DROP TRIGGER IF EXISTS rollup_types ON entities",
        "DROP TRIGGER IF EXISTS rollup_types_delete ON entities",
        "DROP TRIGGER IF EXISTS rollup_types_update ON entities",
        *(f"DROP FUNCTION IF EXISTS {fn}()" for fn in _POSTGRES_FUNCTIONS),
    ]


_POSTGRES_FUNCTIONS = ("kgtoolkit_rollup_facts", "kgtoolkit_rollup_renewals", "kgtoolkit_rollup_types")


def rollup_trigger_refresh(kind: RollupKind) -> list[str]:
    """A schema step that makes the rollup triggers again as this version writes them (the counts stay)."""
    made = [s for statements in rollup_triggers(kind).values() for s in statements]
    return [*rollup_trigger_drops(kind), *made]


def rollup_migration(kind: RollupKind) -> list[str]:
    """Schema step 12: the rollup tables, filled from the facts there are, and their triggers."""
    made = [s for statements in rollup_triggers(kind).values() for s in statements]
    return [*_tables(kind), *rollup_fill_statements(None, kind), *made]


def rollup_clear_statements() -> list[str]:
    return [f"DELETE FROM {t}" for t in ROLLUP_TABLES] + ["UPDATE rollup_state SET upto = 0"]

"""The kept conflict judgement's schema and its place in every write (contract §5 and §18, issue 43): schema step 14.

``conflict_kept`` holds every conflict group of the graph (by subject, and by object for one-holder predicates) as
it was last judged, per *mode* (0: every fact counts; 1: current facts alone, ``current_only``), with its counts and
``fresh_until``: the first instant after the judgement at which a fact of the group may change state
(:func:`kgtoolkit._validity.state_changes`), so a read takes a kept row only before it.

What changed since, a read judges live (``kgtoolkit/store/ops/_conflict_kept.py``): the groups of the facts above
``conflict_state.upto`` (an insert fires no trigger), those ``conflict_dirty`` names (triggers mark both groups of a
fact changed or deleted: supersede, invalidate, merge, a rename) and those past their ``fresh_until``.
``conflict_state.config`` is the settings the judgement was made under; a trigger on ``settings`` clears it (a copy,
a restore), and the whole judgement waits for the next write.

Every write transaction of a backend ends, after the rollups' fold, with :func:`fold_conflicts`: when the judgement
was never made, the settings changed, or at least :data:`KEPT_WAIT` facts, marks and past groups wait, the fold the
store registered (``register_conflict_fold``) judges them again in the write; else it leaves them to the reads. So a
write costs one statement here, and a read judges at most that many changed groups live.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..._validity import Clock

__all__ = [
    "CONFLICT_TABLES",
    "KEPT_WAIT",
    "conflict_due",
    "conflict_migration",
    "conflict_triggers",
    "fold_conflicts",
    "register_conflict_fold",
]

Kind = Literal["sqlite", "postgresql"]

#: The kept judgement's tables, emptied by a rebuild.
CONFLICT_TABLES = ("conflict_kept", "conflict_dirty")

#: From this many waiting facts, marked groups and groups past their freshness, a write judges them again; below,
#: the reads judge them live (each a lookup by index).
KEPT_WAIT = 256

_WATCHED = (
    "subject, predicate, object_id, object_key, valid_from, valid_to, from_us, to_us, recorded_at, invalidated_at"
)

_FOLD: list[Callable[[Any, Any], None]] = []


def _tables(kind: Kind) -> list[str]:
    text = 'TEXT COLLATE "C"' if kind == "postgresql" else "TEXT"
    big = "BIGINT" if kind == "postgresql" else "INTEGER"
    rowid = "" if kind == "postgresql" else " WITHOUT ROWID"
    return [
        f"""CREATE TABLE conflict_kept (
            anchor {text} NOT NULL, predicate {text} NOT NULL, axis SMALLINT NOT NULL, mode SMALLINT NOT NULL,
            calm SMALLINT NOT NULL, n_objects {big} NOT NULL, n_subjects {big} NOT NULL, n_facts {big} NOT NULL,
            n_ended {big} NOT NULL, fresh_until {big} NOT NULL,
            PRIMARY KEY (anchor, predicate, axis, mode)){rowid}""",
        # A page in order (needing action first), and the counts, from this index alone.
        "CREATE INDEX conflict_kept_page ON conflict_kept(mode, calm, anchor, predicate, axis, fresh_until)",
        "CREATE INDEX conflict_kept_fresh ON conflict_kept(fresh_until)",
        f"CREATE TABLE conflict_dirty (anchor {text} NOT NULL, predicate {text} NOT NULL, axis SMALLINT NOT NULL, "
        f"PRIMARY KEY (anchor, predicate, axis)){rowid}",
        # ``config``: the settings the judgement was made under (NULL: none; the next write judges every group).
        f"CREATE TABLE conflict_state (id INTEGER PRIMARY KEY CHECK (id = 1), upto {big} NOT NULL, config {text})",
        "INSERT INTO conflict_state(id, upto) VALUES (1, 0)",
    ]


def _marks(row: str, kind: Kind) -> list[str]:
    """The statements that mark the two groups of a fact row (by subject, by object)."""
    head = "INSERT OR IGNORE INTO" if kind == "sqlite" else "INSERT INTO"
    tail = "" if kind == "sqlite" else " ON CONFLICT DO NOTHING"
    return [
        f"{head} conflict_dirty(anchor, predicate, axis) VALUES ({row}.subject, {row}.predicate, 0){tail}",
        f"{head} conflict_dirty(anchor, predicate, axis) VALUES ({row}.object_key, {row}.predicate, 1){tail}",
    ]


def conflict_triggers(kind: Kind) -> list[str]:
    """The triggers that mark the groups of a judged fact that changed or went (an insert marks nothing: the facts
    above ``conflict_state.upto`` are new), and the one that forgets the settings a judgement was made under when the
    settings change."""
    upto = "(SELECT upto FROM conflict_state WHERE id = 1)"
    forget = "UPDATE conflict_state SET config = NULL WHERE config IS NOT NULL"
    if kind == "sqlite":
        both = " ".join(f"{s};" for s in _marks("old", kind) + _marks("new", kind))
        gone = " ".join(f"{s};" for s in _marks("old", kind))
        return [
            f"CREATE TRIGGER conflict_fact_update AFTER UPDATE OF {_WATCHED} ON facts WHEN old.id <= {upto} "
            f"BEGIN {both} END",
            f"CREATE TRIGGER conflict_fact_delete AFTER DELETE ON facts WHEN old.id <= {upto} BEGIN {gone} END",
            *(
                f"CREATE TRIGGER conflict_settings_{op.lower()} AFTER {op} ON settings BEGIN {forget}; END"
                for op in ("INSERT", "UPDATE", "DELETE")
            ),
        ]
    body = " ".join(f"{s};" for s in _marks("OLD", kind))
    new = " ".join(f"{s};" for s in _marks("NEW", kind))
    return [
        f"""CREATE FUNCTION kgtoolkit_conflict_dirty() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF OLD.id > {upto} THEN RETURN NULL; END IF;
            {body}
            IF TG_OP = 'UPDATE' THEN {new} END IF;
            RETURN NULL;
        END $body$""",
        f"CREATE TRIGGER conflict_dirty AFTER DELETE OR UPDATE OF {_WATCHED} ON facts "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_conflict_dirty()",
        f"""CREATE FUNCTION kgtoolkit_conflict_settings() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            {forget};
            RETURN NULL;
        END $body$""",
        "CREATE TRIGGER conflict_settings AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_conflict_settings()",
    ]


def conflict_migration(kind: Kind) -> list[str]:
    """Schema step 14: the kept judgement's tables, empty (the next write judges every group), and its triggers."""
    return [*_tables(kind), *conflict_triggers(kind)]


# ---------------------------------------------------------------------- in every write


def register_conflict_fold(fold: Callable[[Any, Any], None]) -> None:
    """The store's fold of the kept judgement (``fold(backend, cursor)``, in the write's transaction): the engine
    runs it at the end of a write when :func:`conflict_due` says so (it judges by rules the engine does not hold)."""
    _FOLD[:] = [fold]


def conflict_due(cur: Any, clock: Clock | None = None) -> bool:
    """Whether the kept judgement should be made again in this write (one statement): never made or made under
    other settings, fact ids reused, or :data:`KEPT_WAIT` facts, marks and groups past their freshness waiting."""
    row = cur.execute(
        "SELECT s.config IS NULL, s.upto, (SELECT COALESCE(max(id), 0) FROM facts), "
        f"(SELECT count(*) FROM (SELECT 1 FROM conflict_dirty LIMIT {KEPT_WAIT}) d), "
        f"(SELECT count(*) FROM (SELECT 1 FROM conflict_kept WHERE fresh_until <= :now LIMIT {KEPT_WAIT}) k) "
        "FROM conflict_state s WHERE s.id = 1",
        (clock or Clock.real()).params(),
    ).fetchone()
    if row is None:  # a graph of an earlier version, still to migrate
        return False
    unset, upto, top, marked, past = (int(x) for x in row)
    return bool(unset) or top < upto or top - upto + marked + past >= KEPT_WAIT


def fold_conflicts(backend: Any, cur: Any) -> None:
    """At the end of a write transaction: the kept judgement made again when it is due (:func:`conflict_due`)."""
    if _FOLD and conflict_due(cur):
        _FOLD[0](backend, cur)

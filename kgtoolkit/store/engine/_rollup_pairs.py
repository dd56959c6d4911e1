"""The kept facts of each (subject, predicate) pair (contract §18, issue 47): what the most-changed ranking walks.

``rollup_pairs`` holds, per (subject, predicate), ``facts``: the pair's facts that are states by their bounds (not
an event by :func:`kgtoolkit._validity.bounds_event_sql`). A pair's object changes at most once per fact after its
first, so ``facts - 1`` bounds its changes in any window. :func:`kgtoolkit.analysis.most_changed` on the graph walks
the pairs most facts first along ``rollup_pairs_rank`` (``store/reads/_changed_walk.py``), counts each one's changes
exactly from its own facts, and stops when no pair left can reach the last one kept.

It is kept as the other rollups are (``_rollup_schema``, ``_rollup_fold``): the facts a write inserted are counted
by the fold every write transaction ends with (:func:`fold_pairs`: one grouped upsert over the new ids, or one
set-wise pass after a bulk load), and a change to a fact counted already (a merge, a rename, an update of its
bounds, a delete) is kept by a trigger in the same transaction. Declarations (event predicates, multi-valued
predicates) are per predicate, so the walk applies them at read time: no setting is baked in.

Schema step: :func:`pairs_migration` (the table, its rank index, its fill, its triggers).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..._validity import bounds_event_sql
from ._rollup_schema import ROLLUP_UPTO, RollupKind, _upsert

__all__ = [
    "PAIRS_TABLE",
    "fold_pairs",
    "pairs_check",
    "pairs_expected_sql",
    "pairs_migration",
    "pairs_rebuild_statements",
]

PAIRS_TABLE = "rollup_pairs"

#: Up to this many new fact ids, the fold groups them by their id range; above (a bulk load), set-wise.
_FEW = 5_000

#: The columns whose update may move a fact to another pair or change whether it is an event by its bounds.
_WATCHED = "subject, predicate, valid_from, valid_to, from_us, to_us, recorded_at, invalidated_at"


class _Cursor(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def _state(alias: str) -> str:
    """The facts row ``alias`` is a state by its bounds (what ``rollup_pairs`` counts)."""
    return f"NOT {bounds_event_sql(alias)}"


def _add(source: str, where: str) -> str:
    """The pairs of the facts ``f`` of ``source`` meeting ``where`` added to ``rollup_pairs`` (one grouped upsert)."""
    return _upsert(
        PAIRS_TABLE,
        ("subject", "predicate"),
        ("facts",),
        f"SELECT f.subject, f.predicate, count(*) FROM {source} WHERE {where} AND {_state('f')} "
        "GROUP BY f.subject, f.predicate",
    )


def pairs_rebuild_statements() -> list[str]:
    """``rollup_pairs`` made again from every fact (a rebuild, or a fold that counts from nothing)."""
    return [f"DELETE FROM {PAIRS_TABLE}", _add("facts f", "TRUE")]


def fold_pairs(cur: _Cursor, upto: int, top: int) -> None:
    """In the caller's write transaction, before the watermark moves: the facts with an id above ``upto`` up to
    ``top`` added to their pairs (``upto`` 0: nothing is counted yet, so every fact is, from nothing)."""
    if top <= upto:
        return
    if not upto:
        for statement in pairs_rebuild_statements():
            cur.execute(statement)
        return
    if top - upto > _FEW:  # many: a plain pass over the new ids
        cur.execute(_add("facts f", f"f.id > {int(upto)}"))
        return
    # Few: read once by the key's range (a materialised subquery), so no plan walks an index of every fact.
    cur.execute(
        _add(f"(WITH n AS MATERIALIZED (SELECT * FROM facts WHERE id > {int(upto)}) SELECT * FROM n) f", "TRUE")
    )


def _row(r: str, sign: int) -> str:
    """The facts row ``r`` (``old``/``new``) added (``sign`` 1) to its pair or taken away (−1), if a state."""
    return _upsert(
        PAIRS_TABLE,
        ("subject", "predicate"),
        ("facts",),
        f"SELECT {r}.subject AS s, {r}.predicate AS p, {sign} AS n WHERE {_state(r)}",
    )


def _moved(old: str, new: str, distinct: str) -> str:
    """The update moved the fact to another pair or changed whether it is an event by its bounds."""
    return (
        f"({old}.subject {distinct} {new}.subject OR {old}.predicate {distinct} {new}.predicate "
        f"OR ({bounds_event_sql(old)}) {distinct} ({bounds_event_sql(new)}))"
    )


def _triggers(kind: RollupKind) -> list[str]:
    """The triggers that keep ``rollup_pairs`` as facts counted already change (PostgreSQL: its function first)."""
    if kind == "sqlite":
        return [
            f"CREATE TRIGGER rollup_pairs_update AFTER UPDATE OF {_WATCHED} ON facts "
            f"WHEN old.id <= {ROLLUP_UPTO} AND {_moved('old', 'new', 'IS NOT')} "
            f"BEGIN {_row('old', -1)}; {_row('new', 1)}; END",
            f"CREATE TRIGGER rollup_pairs_delete AFTER DELETE ON facts WHEN old.id <= {ROLLUP_UPTO} "
            f"BEGIN {_row('old', -1)}; END",
        ]
    return [
        f"""CREATE FUNCTION kgtoolkit_rollup_pairs() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF OLD.id > {ROLLUP_UPTO} THEN RETURN NULL; END IF;
            IF TG_OP = 'UPDATE' AND NOT {_moved("OLD", "NEW", "IS DISTINCT FROM")} THEN RETURN NULL; END IF;
            {_row("OLD", -1)};
            IF TG_OP = 'UPDATE' THEN {_row("NEW", 1)}; END IF;
            RETURN NULL;
        END $body$""",
        f"CREATE TRIGGER rollup_pairs AFTER DELETE OR UPDATE OF {_WATCHED} ON facts "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_pairs()",
    ]


def pairs_migration(kind: RollupKind) -> list[str]:
    """The schema step of ``rollup_pairs``: the table, its rank index (only pairs of two facts or more can change),
    filled from the facts the rollups count, and its triggers."""
    text = 'TEXT COLLATE "C"' if kind == "postgresql" else "TEXT"
    big = "BIGINT" if kind == "postgresql" else "INTEGER"
    rowid = "" if kind == "postgresql" else " WITHOUT ROWID"
    return [
        f"CREATE TABLE {PAIRS_TABLE} (subject {text} NOT NULL, predicate {text} NOT NULL, "
        f"facts {big} NOT NULL DEFAULT 0, PRIMARY KEY (subject, predicate)){rowid}",
        f"CREATE INDEX rollup_pairs_rank ON {PAIRS_TABLE}(facts DESC, subject, predicate) WHERE facts > 1",
        _add("facts f", f"f.id <= {ROLLUP_UPTO}"),
        *_triggers(kind),
    ]


def pairs_expected_sql() -> str:
    """``rollup_pairs`` as a scan of the facts the rollups count makes it (rows of subject, predicate, facts)."""
    return (
        f"SELECT f.subject, f.predicate, count(*) FROM facts f WHERE f.id <= {ROLLUP_UPTO} AND {_state('f')} "
        "GROUP BY f.subject, f.predicate"
    )


def pairs_check(cur: _Cursor) -> tuple[int, list[str]]:
    """How many pairs ``rollup_pairs`` counts differently from a scan (a row of 0 counts as no row), and up to three
    of them, described."""
    stored = {
        (str(s), str(p)): int(n) for s, p, n in cur.execute(f"SELECT subject, predicate, facts FROM {PAIRS_TABLE}")
    }
    scanned = {(str(s), str(p)): int(n) for s, p, n in cur.execute(pairs_expected_sql())}
    wrong = sorted(k for k in stored.keys() | scanned.keys() if stored.get(k, 0) != scanned.get(k, 0))
    return len(wrong), [f"{PAIRS_TABLE} {k}: kept {stored.get(k)}, scan {scanned.get(k)}" for k in wrong[:3]]

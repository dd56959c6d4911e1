"""The kept facts of each (subject, predicate) pair and each entity's links (contract §18, issue 47): what the
most-changed ranking and the Graph page's ranking walk.

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

``rollup_links`` holds, per entity, ``n``: the ends of relationship facts (an entity object) it is at, as
:func:`kgtoolkit.store.link_ranking` counts them (a fact counts once for its subject and once for its object). The
ranking over a window that most facts overlap reads it along ``rollup_links_rank`` and takes away the few facts
outside the window (``store/reads/_links_walk.py``). Kept alike: the fold adds the new facts, triggers keep a
merge (a fact's subject or object moved) and a delete.

Schema step: :func:`pairs_migration` (both tables, their rank indexes, their fill, their triggers).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..._validity import bounds_event_sql
from ._rollup_schema import ROLLUP_UPTO, RollupKind, _upsert

__all__ = [
    "LINKS_TABLE",
    "PAIRS_TABLE",
    "fold_pairs",
    "pairs_check",
    "pairs_expected_sql",
    "pairs_migration",
    "pairs_rebuild_statements",
]

PAIRS_TABLE, LINKS_TABLE = "rollup_pairs", "rollup_links"

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


def _add_links(source: str, where: str) -> str:
    """The relationship facts ``f`` of ``source`` meeting ``where`` added to their entities' links (one upsert)."""
    ends = (
        f"SELECT f.subject AS e FROM {source} WHERE {where} AND f.object_id IS NOT NULL UNION ALL "
        f"SELECT f.object_id FROM {source} WHERE {where} AND f.object_id IS NOT NULL"
    )
    return _upsert(LINKS_TABLE, ("entity",), ("n",), f"SELECT e, count(*) FROM ({ends}) x GROUP BY e")


def pairs_rebuild_statements() -> list[str]:
    """``rollup_pairs`` and ``rollup_links`` made again from every fact (a rebuild, or a fold from nothing)."""
    return [
        f"DELETE FROM {PAIRS_TABLE}",
        _add("facts f", "TRUE"),
        f"DELETE FROM {LINKS_TABLE}",
        _add_links("facts f", "TRUE"),
    ]


def fold_pairs(cur: _Cursor, upto: int, top: int) -> None:
    """In the caller's write transaction, before the watermark moves: the facts with an id above ``upto`` up to
    ``top`` added to their pairs and their entities' links (``upto`` 0: nothing is counted yet, so every fact is,
    from nothing)."""
    if top <= upto:
        return
    if not upto:
        for statement in pairs_rebuild_statements():
            cur.execute(statement)
        return
    if top - upto > _FEW:  # many: a plain pass over the new ids
        cur.execute(_add("facts f", f"f.id > {int(upto)}"))
        cur.execute(_add_links("facts f", f"f.id > {int(upto)}"))
        return
    # Few: read once by the key's range (a materialised subquery), so no plan walks an index of every fact.
    new = f"(WITH n AS MATERIALIZED (SELECT * FROM facts WHERE id > {int(upto)}) SELECT * FROM n) f"
    cur.execute(_add(new, "TRUE"))
    cur.execute(_add_links(new, "TRUE"))


def _row(r: str, sign: int) -> str:
    """The facts row ``r`` (``old``/``new``) added (``sign`` 1) to its pair or taken away (−1), if a state."""
    return _upsert(
        PAIRS_TABLE,
        ("subject", "predicate"),
        ("facts",),
        f"SELECT {r}.subject AS s, {r}.predicate AS p, {sign} AS n WHERE {_state(r)}",
    )


def _link_row(r: str, sign: int) -> str:
    """The facts row ``r``'s ends added to its entities' links (``sign`` 1) or taken away (−1), if a relationship."""
    ends = (
        f"SELECT {r}.subject AS e, {sign} AS n WHERE {r}.object_id IS NOT NULL UNION ALL "
        f"SELECT {r}.object_id, {sign} WHERE {r}.object_id IS NOT NULL"
    )
    return _upsert(LINKS_TABLE, ("entity",), ("n",), f"SELECT e, sum(n) FROM ({ends}) x GROUP BY e")


def _moved(old: str, new: str, distinct: str) -> str:
    """The update moved the fact to another pair or changed whether it is an event by its bounds."""
    return (
        f"({old}.subject {distinct} {new}.subject OR {old}.predicate {distinct} {new}.predicate "
        f"OR ({bounds_event_sql(old)}) {distinct} ({bounds_event_sql(new)}))"
    )


def _relinked(old: str, new: str, distinct: str) -> str:
    """The update moved one of the fact's ends (a merge)."""
    return f"({old}.subject {distinct} {new}.subject OR {old}.object_id {distinct} {new}.object_id)"


def _triggers(kind: RollupKind) -> list[str]:
    """The triggers that keep ``rollup_pairs`` and ``rollup_links`` as facts counted already change (PostgreSQL: its
    function first)."""
    if kind == "sqlite":
        return [
            f"CREATE TRIGGER rollup_pairs_update AFTER UPDATE OF {_WATCHED} ON facts "
            f"WHEN old.id <= {ROLLUP_UPTO} AND {_moved('old', 'new', 'IS NOT')} "
            f"BEGIN {_row('old', -1)}; {_row('new', 1)}; END",
            "CREATE TRIGGER rollup_links_update AFTER UPDATE OF subject, object_id ON facts "
            f"WHEN old.id <= {ROLLUP_UPTO} AND {_relinked('old', 'new', 'IS NOT')} "
            f"BEGIN {_link_row('old', -1)}; {_link_row('new', 1)}; END",
            f"CREATE TRIGGER rollup_pairs_delete AFTER DELETE ON facts WHEN old.id <= {ROLLUP_UPTO} "
            f"BEGIN {_row('old', -1)}; {_link_row('old', -1)}; END",
        ]
    return [
        f"""CREATE FUNCTION kgtoolkit_rollup_pairs() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF OLD.id > {ROLLUP_UPTO} THEN RETURN NULL; END IF;
            IF TG_OP = 'DELETE' OR {_moved("OLD", "NEW", "IS DISTINCT FROM")} THEN
                {_row("OLD", -1)};
                IF TG_OP = 'UPDATE' THEN {_row("NEW", 1)}; END IF;
            END IF;
            IF TG_OP = 'DELETE' OR {_relinked("OLD", "NEW", "IS DISTINCT FROM")} THEN
                {_link_row("OLD", -1)};
                IF TG_OP = 'UPDATE' THEN {_link_row("NEW", 1)}; END IF;
            END IF;
            RETURN NULL;
        END $body$""",
        f"CREATE TRIGGER rollup_pairs AFTER DELETE OR UPDATE OF {_WATCHED}, object_id ON facts "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_rollup_pairs()",
    ]


def pairs_migration(kind: RollupKind) -> list[str]:
    """The schema step of ``rollup_pairs`` and ``rollup_links``: the tables, their rank indexes (only pairs of two
    facts or more can change; only entities with a link rank), filled from the facts the rollups count, and their
    triggers."""
    text = 'TEXT COLLATE "C"' if kind == "postgresql" else "TEXT"
    big = "BIGINT" if kind == "postgresql" else "INTEGER"
    rowid = "" if kind == "postgresql" else " WITHOUT ROWID"
    return [
        f"CREATE TABLE {PAIRS_TABLE} (subject {text} NOT NULL, predicate {text} NOT NULL, "
        f"facts {big} NOT NULL DEFAULT 0, PRIMARY KEY (subject, predicate)){rowid}",
        f"CREATE INDEX rollup_pairs_rank ON {PAIRS_TABLE}(facts DESC, subject, predicate) WHERE facts > 1",
        f"CREATE TABLE {LINKS_TABLE} (entity {text} PRIMARY KEY, n {big} NOT NULL DEFAULT 0){rowid}",
        f"CREATE INDEX rollup_links_rank ON {LINKS_TABLE}(n DESC, entity) WHERE n > 0",
        _add("facts f", f"f.id <= {ROLLUP_UPTO}"),
        _add_links("facts f", f"f.id <= {ROLLUP_UPTO}"),
        *_triggers(kind),
    ]


def pairs_expected_sql() -> str:
    """``rollup_pairs`` as a scan of the facts the rollups count makes it (rows of subject, predicate, facts)."""
    return (
        f"SELECT f.subject, f.predicate, count(*) FROM facts f WHERE f.id <= {ROLLUP_UPTO} AND {_state('f')} "
        "GROUP BY f.subject, f.predicate"
    )


def _links_expected_sql() -> str:
    ends = (
        f"SELECT f.subject AS e FROM facts f WHERE f.id <= {ROLLUP_UPTO} AND f.object_id IS NOT NULL UNION ALL "
        f"SELECT f.object_id FROM facts f WHERE f.id <= {ROLLUP_UPTO} AND f.object_id IS NOT NULL"
    )
    return f"SELECT e, count(*) FROM ({ends}) x GROUP BY e"


def pairs_check(cur: _Cursor) -> dict[str, tuple[int, list[str]]]:
    """Per table (``rollup_pairs``, ``rollup_links``): how many keys it counts differently from a scan (a row of 0
    counts as no row), and up to three of them, described."""
    out: dict[str, tuple[int, list[str]]] = {}
    for table, kept, scan in (
        (PAIRS_TABLE, f"SELECT subject, predicate, facts FROM {PAIRS_TABLE}", pairs_expected_sql()),
        (LINKS_TABLE, f"SELECT entity, n FROM {LINKS_TABLE}", _links_expected_sql()),
    ):
        stored = {tuple(str(v) for v in r[:-1]): int(r[-1]) for r in cur.execute(kept)}
        scanned = {tuple(str(v) for v in r[:-1]): int(r[-1]) for r in cur.execute(scan)}
        wrong = sorted(k for k in stored.keys() | scanned.keys() if stored.get(k, 0) != scanned.get(k, 0))
        out[table] = len(wrong), [f"{table} {k}: kept {stored.get(k)}, scan {scanned.get(k)}" for k in wrong[:3]]
    return out

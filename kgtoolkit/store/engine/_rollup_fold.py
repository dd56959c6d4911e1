"""The rollups folded in every write transaction (contract §18): the facts a write inserted counted before it commits.

An insert into ``facts`` fires no rollup trigger. Instead, every write transaction of a backend
(:meth:`~kgtoolkit.store.engine.Backend.write`, :meth:`~kgtoolkit.store.engine.Backend.bulk_write`) ends with
:func:`fold_pending`: the facts above the watermark (``rollup_state.upto``) are counted set-wise, and the watermark
moves to the largest id. So after any committed write the rollups count every fact, and no read has to fold.

Two forms, by how many facts wait. A few (an ``add``, a supersede, a small import): a handful of grouped upserts
driven by the primary key's range (:func:`rollup_fold_parts`), and when a new fact shares its triple with another, the
renewals of the touched triples made again through the renewals' own triggers. Many (a bulk load): the set-wise fill of
:func:`~kgtoolkit.store.engine._rollup_schema.rollup_fill_statements`, which groups them once in a temporary table.
"""

from __future__ import annotations

from typing import Any, Protocol

from ._rollup_pairs import fold_pairs
from ._rollup_schema import (
    ROLLUP_UPTO,
    RollupKind,
    rollup_count_upserts,
    rollup_fill_statements,
    rollup_pairs_sql,
    rollup_triple_join,
)


class Cursor(Protocol):
    """What the fold needs of a cursor (the backend's own, which imports this module)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


__all__ = ["FEW", "fold_pending", "pending", "rollup_fold_parts", "rollup_fold_statements"]

#: Up to this many waiting fact ids, the fold runs its lean form (upserts over the id range); above, the fill.
FEW = 5_000


def pending(cur: Cursor) -> tuple[int, int]:
    """The largest fact id the rollups count, and the largest there is. Rollups that count no fact count none up to
    any id: a graph emptied and then filled with ids of its own (a copy, a restore) is folded whole."""
    upto, top = cur.execute(
        f"SELECT CASE WHEN EXISTS (SELECT 1 FROM rollup_predicates WHERE facts <> 0) THEN {ROLLUP_UPTO} ELSE 0 END, "
        "(SELECT COALESCE(max(id), 0) FROM facts)"
    ).fetchone()
    return int(upto), int(top)


def _kind(kind: str) -> RollupKind:
    return "sqlite" if kind == "sqlite" else "postgresql"


#: The new facts (ids above ``:upto``) read once by their key's range, so no plan walks an index of every fact.
_NEW = "(WITH n AS MATERIALIZED (SELECT * FROM facts WHERE id > :upto) SELECT * FROM n) f"


def rollup_fold_parts(kind: RollupKind) -> tuple[list[str], str, list[str]]:
    """The lean fold in three parts: the grouped upserts that count the facts with an id above ``:upto``; a query
    that answers whether one of them shares its triple with another fact; the statements that make the renewals of
    their triples again (the renewals' triggers keep their day and month counts), needed only then: a renewal pairs
    two facts of one triple, so a triple held by one fact alone has none."""
    counts = rollup_count_upserts([("f", 1, f" FROM {_NEW}")], kind)
    shared = f"EXISTS (SELECT 1 FROM {_NEW} JOIN facts x ON {rollup_triple_join('x', 'f')} AND x.id <> f.id)"
    touched = f"SELECT DISTINCT f.subject, f.predicate, f.object_key FROM {_NEW}"
    renewals = [
        f"DELETE FROM rollup_renewals WHERE (subject, predicate, object_key) IN ({touched}) AND {shared}",
        "INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) "
        + rollup_pairs_sql("", f"({touched}) t JOIN facts o ON {rollup_triple_join('o', 't')}")
        + f" WHERE {shared}",
    ]
    return counts, f"SELECT {shared}", renewals


def rollup_fold_statements(kind: RollupKind) -> list[str]:
    """The lean fold as one list of statements: the facts with an id above ``:upto`` (few) added to every rollup in
    grouped upserts, and the renewals of their triples made again when another fact shares one."""
    counts, _, renewals = rollup_fold_parts(kind)
    return counts + renewals


_LEAN: dict[str, tuple[list[str], str, list[str]]] = {}
_BATCH: dict[str, str] = {}


def fold_pending(cur: Cursor, kind: str) -> None:
    """In the caller's write transaction: the facts written since the rollups were last folded (ids above
    ``rollup_state.upto``) counted, the renewals of every triple they are in made again; nothing when none waits."""
    upto, top = pending(cur)
    if top <= upto:
        return
    fold_pairs(cur, upto, top)  # the kept pairs and links (._rollup_pairs), before the watermark moves
    k = _kind(kind)
    if top - upto > FEW or not upto:  # many, or nothing counted yet (a first load): grouped once, set-wise
        for statement in rollup_fill_statements(str(upto) if upto else None, k, types=False):
            cur.execute(statement)
        return
    # PostgreSQL: one round trip to the server, the statements as one batch (the bounds are integers); the renewals'
    # condition is a one-time filter there, so they cost nothing when no triple is shared.
    if k == "postgresql":
        batch = _BATCH.get(k) or _BATCH.setdefault(k, "; ".join(rollup_fold_statements(k)))
        cur.execute(f"UPDATE rollup_state SET upto = {int(top)}; " + batch.replace(":upto", str(int(upto))))
        return
    cur.execute("UPDATE rollup_state SET upto = :top", {"top": top})
    counts, shared, renewals = _LEAN.get(k) or _LEAN.setdefault(k, rollup_fold_parts(k))
    params = {"upto": upto}
    for statement in counts:
        cur.execute(statement, params)
    # SQLite runs the renewals' statement whole even when its condition is false: asked first, they are skipped.
    if cur.execute(shared, params).fetchone()[0]:
        for statement in renewals:
            cur.execute(statement, params)

"""The rollups folded in every write transaction (contract §18): the facts a write inserted counted before it commits.

An insert into ``facts`` fires no rollup trigger. Instead, every write transaction of a backend
(:meth:`~kgtoolkit.store.engine.Backend.write`, :meth:`~kgtoolkit.store.engine.Backend.bulk_write`) ends with
:func:`fold_pending`: the facts above the watermark (``rollup_state.upto``) are counted set-wise, and the watermark
moves to the largest id. So after any committed write the rollups count every fact, and no read has to fold.

Two forms, by how many facts wait. A few (an ``add``, a supersede, a small import): a handful of grouped upserts
driven by the primary key's range (:func:`rollup_fold_statements`), the renewals of the touched triples made again
through the renewals' own triggers. Many (a bulk load): the set-wise fill of
:func:`~kgtoolkit.store.engine._rollup_schema.rollup_fill_statements`, which groups them once in a temporary table.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..._time import OPEN_START
from ._rollup_pairs import fold_pairs
from ._rollup_schema import (
    ROLLUP_UPTO,
    RollupKind,
    _upsert,
    rollup_bounds_event,
    rollup_day_sql,
    rollup_fill_statements,
    rollup_month_sql,
    rollup_pairs_sql,
)


class Cursor(Protocol):
    """What the fold needs of a cursor (the backend's own, which imports this module)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


__all__ = ["FEW", "fold_pending", "pending", "rollup_fold_statements"]

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


def rollup_fold_statements(kind: RollupKind) -> list[str]:
    """The lean fold: the facts with an id above ``:upto`` (few) added to every rollup in grouped upserts, and the
    renewals of their triples made again (the renewals' triggers keep the day and month counts of those)."""
    # The new facts read once by their key's range, so no plan walks an index of every fact to group them.
    src = "(WITH n AS MATERIALIZED (SELECT * FROM facts WHERE id > :upto) SELECT * FROM n) f"
    ev = rollup_bounds_event("f")
    start_day, end_day = rollup_day_sql("f.from_us"), rollup_day_sql("f.to_us")
    nostart = f"CASE WHEN f.from_us = {OPEN_START} THEN 1 ELSE 0 END"
    out = []
    for table, key in (("rollup_days", "day"), ("rollup_months", "month")):
        s_key = start_day if key == "day" else rollup_month_sql(start_day, kind)
        e_key = end_day if key == "day" else rollup_month_sql(end_day, kind)
        both = (
            f"SELECT f.predicate AS p, {s_key} AS k, {ev} AS ev, 1 AS s, 0 AS e, 0 AS u FROM {src} "
            f"UNION ALL SELECT f.predicate, {e_key}, {ev}, 0, 1, {nostart} FROM {src}"
        )
        out.append(
            _upsert(
                table,
                ("predicate", key, "ev"),
                ("starts", "ends", "ends_nostart"),
                f"SELECT p, k, ev, sum(s), sum(e), sum(u) FROM ({both}) b GROUP BY p, k, ev",
            )
        )
    out.append(
        _upsert(
            "rollup_predicates",
            ("predicate",),
            ("facts", "bound_events", "value_facts"),
            f"SELECT f.predicate, count(*), sum({ev}), sum(CASE WHEN f.object_id IS NULL THEN 1 ELSE 0 END) "
            f"FROM {src} GROUP BY f.predicate",
        )
    )
    ends = (
        f"SELECT f.subject AS k, 1 AS o, 0 AS i FROM {src} "
        f"UNION ALL SELECT f.object_id, 0, 1 FROM {src} WHERE f.object_id IS NOT NULL"
    )
    out.append(
        _upsert(
            "rollup_entities",
            ("entity",),
            ("outgoing", "incoming"),
            f"SELECT k, sum(o), sum(i) FROM ({ends}) x GROUP BY k",
        )
    )
    # The renewals of every triple a new fact is in: those of a triple with a single fact are none, so the two
    # statements below read the triple's index and stop.
    touched = f"SELECT DISTINCT f.subject, f.predicate, f.object_key FROM {src}"
    on = "o.subject = t.subject AND o.predicate = t.predicate AND o.object_key = t.object_key"
    out += [
        f"DELETE FROM rollup_renewals WHERE (subject, predicate, object_key) IN ({touched})",
        "INSERT INTO rollup_renewals(old_id, new_id, subject, predicate, object_key, e, s) "
        + rollup_pairs_sql("", f"({touched}) t JOIN facts o ON {on}"),
    ]
    return out


_LEAN: dict[str, list[tuple[str, bool]]] = {}
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
    if k == "postgresql":  # one round trip to the server: the statements as one batch (the bounds are integers)
        batch = _BATCH.get(k) or _BATCH.setdefault(k, "; ".join(rollup_fold_statements(k)))
        cur.execute(f"UPDATE rollup_state SET upto = {int(top)}; " + batch.replace(":upto", str(int(upto))))
        return
    cur.execute("UPDATE rollup_state SET upto = :top", {"top": top})
    lean = _LEAN.get(k) or _LEAN.setdefault(k, [(s, ":upto" in s) for s in rollup_fold_statements(k)])
    params = {"upto": upto}
    for statement, bound in lean:
        if bound:
            cur.execute(statement, params)
        else:
            cur.execute(statement)

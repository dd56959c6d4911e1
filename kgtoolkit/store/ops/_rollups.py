"""Rollups (contract §18): counts the store keeps as facts are written, so analysis runs in time proportional to its
answer, not to the graph (issue 47).

Three modules, one per wing: the tables, triggers and set-wise statements (schema step 12) in
``kgtoolkit/store/engine/_rollup_schema.py``; folding, pausing, rebuilding and checking here; the reads (and
:func:`~kgtoolkit.store.reads._rollups.source`, :func:`~kgtoolkit.store.reads._rollups.scan_only`) in
``kgtoolkit/store/reads/_rollups.py``.

**What is kept** (schema step 12), on both engines, exact for every fact up to a watermark (``rollup_state.upto``;
fact ids are never reused). An insert fires no trigger: every write transaction of a backend ends with a *fold*
(:func:`~kgtoolkit.store.engine.fold_pending`, ``engine/_rollup_fold.py``) that counts the facts above the watermark
before it commits, so after any write the rollups count every fact; a read never folds. Triggers on ``facts`` keep
every change to a fact already counted (supersede, invalidate, merge, a rename, a clean-up's delete) in its
transaction; triggers on ``entities`` keep the types. (Measured before choosing: triggers on every insert made an
``add`` 1.8x its CPU time; the fold's grouped upserts over the id range cost an ``add`` what it did before the
rollups, benchmarks/README.md.)

* ``rollup_days`` / ``rollup_months``: per predicate, UTC day (month) and *bounds kind* ``ev`` (1: an event by its
  bounds, :func:`kgtoolkit._validity.bounds_event_sql`, with no declaration; 0: not): ``starts`` (facts starting
  that day; an unknown start is the day of ``OPEN_START``), ``ends`` (facts ending that day, also in the future; an
  open end is the day of ``OPEN_END``), ``ends_nostart`` (those of them with an unknown start), ``renewed``
  (renewals, :mod:`kgtoolkit._renewals`, whose new fact starts that day) and ``renewed_ends`` (whose old fact ends that day);
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

**Bulk loads** (an import, a restore, a copy) fold their facts at their end, set-wise, in their own transaction.

**Reads** (``reads/_rollups.py``: ``stats``, ``predicates_page``, ``churn_counts``, ``event_counts``,
``connected_counts``) answer from the rollups when the question allows (a period of whole days, or months; no
grouping by subject or pair) and say None otherwise, so the caller scans. ``source`` tells which; inside
``scan_only`` every read scans (what the twin tests and benchmarks compare with). :func:`check` compares each
rollup with a scan; :func:`rebuild` makes them again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..._time import OPEN_START
from ..engine import (
    ROLLUP_COUNTS,
    ROLLUP_TABLES,
    ROLLUP_UPTO,
    RollupKind,
    fold_pending,
    pairs_check,
    pairs_rebuild_statements,
    pending,
    rollup_bounds_event,
    rollup_clear_statements,
    rollup_day_sql,
    rollup_fill_statements,
    rollup_month_sql,
    rollup_pairs_sql,
    rollup_trigger_drops,
    rollup_triggers,
)

if TYPE_CHECKING:
    from ..engine import Backend, Cursor


class _Graph(Protocol):
    """A graph (:class:`~kgtoolkit.store.GraphStore`, :class:`~kgtoolkit.KnowledgeGraph`): its engine is all this
    module reads (the facade is not imported here: it calls this wing)."""

    @property
    def engine(self) -> Backend: ...


__all__ = [
    "RollupCheck",
    "check",
    "covered",
    "fold",
    "fold_engine",
    "fold_in",
    "rebuild",
    "rebuild_in",
]

# ---------------------------------------------------------------------- folding, rebuilding


def fold_in(cur: Cursor, kind: str) -> None:
    """In the caller's write transaction: the facts written since the rollups were last folded counted
    (:func:`~kgtoolkit.store.engine.fold_pending`, what every write transaction of a backend ends with)."""
    fold_pending(cur, kind)


def covered(cur: Cursor) -> bool:
    """The rollups count every fact this read sees. Every write folds before it commits, so only a graph written by
    an earlier kgtoolkit (facts left for a later fold) answers False: its reads scan until a write folds them."""
    upto, top = pending(cur)
    return top <= upto


def fold(kg: _Graph) -> bool:
    """Bring the rollups of graph ``kg`` up to date (:func:`fold_engine`); False when they are not and cannot be."""
    return fold_engine(kg.engine)


def fold_engine(backend: Backend) -> bool:
    """A repair: every write folds in its own transaction, so this has nothing to do unless the graph was written by
    an earlier kgtoolkit that left facts for a later fold (one short write, time proportional to them). False when
    the rollups are not up to date and cannot be (a read-only graph). A read never folds: it scans while facts wait."""
    if backend.missing:  # no graph yet: the scan's answer (of a blank graph, or its error)
        return False
    with backend.read() as cur:
        upto, top = pending(cur)
    if top <= upto:
        return True
    if backend.read_only:
        return False
    backend.write(lambda cur: None)  # the write's own fold counts them
    return True


def rebuild_in(cur: Cursor, kind: str) -> None:
    """Every rollup made again from the facts and entities, in the caller's write transaction."""
    k: RollupKind = "sqlite" if kind == "sqlite" else "postgresql"
    for statement in rollup_trigger_drops(k):
        cur.execute(statement)
    for statement in [*rollup_clear_statements(), *rollup_fill_statements(None, k), *pairs_rebuild_statements()]:
        cur.execute(statement)
    for statements in rollup_triggers(k).values():
        for statement in statements:
            cur.execute(statement)


def rebuild(kg: _Graph) -> None:
    """Make every rollup again from the facts (what ``kgtoolkit check --rebuild-rollups`` does), in one write."""
    backend = kg.engine
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


def _expected(kind: RollupKind) -> dict[str, str]:
    """Each rollup table's rows as a scan makes them (zero rows left out), as SELECTs."""
    ev = rollup_bounds_event("f")
    sd, ed = rollup_day_sql("f.from_us"), rollup_day_sql("f.to_us")
    nostart = f"CASE WHEN f.from_us = {OPEN_START} THEN 1 ELSE 0 END"
    pairs = rollup_pairs_sql(f" AND o.id <= {ROLLUP_UPTO} AND n.id <= {ROLLUP_UPTO}")
    counted = f"(SELECT * FROM facts WHERE id <= {ROLLUP_UPTO}) f"

    def by(period: Callable[[str], str], key: str) -> str:
        return (
            f"SELECT predicate, {key}, ev, {', '.join(f'sum({c}) AS {c}' for c in ROLLUP_COUNTS)} FROM ("
            f"SELECT f.predicate AS predicate, {period(sd)} AS {key}, {ev} AS ev, 1 AS starts, 0 AS ends, "
            f"0 AS ends_nostart, 0 AS renewed, 0 AS renewed_ends FROM {counted} UNION ALL "
            f"SELECT f.predicate, {period(ed)}, {ev}, 0, 1, {nostart}, 0, 0 FROM {counted} UNION ALL "
            f"SELECT r.predicate, {period(rollup_day_sql('r.s'))}, 0, 0, 0, 0, 1, 0 FROM ({pairs}) r UNION ALL "
            f"SELECT r.predicate, {period(rollup_day_sql('r.e'))}, 0, 0, 0, 0, 0, 1 FROM ({pairs}) r) x "
            f"GROUP BY predicate, {key}, ev"
        )

    return {
        "rollup_days": by(lambda d: d, "day"),
        "rollup_months": by(lambda d: rollup_month_sql(d, kind), "month"),
        "rollup_predicates": f"SELECT f.predicate, count(*), sum({ev}), sum(CASE WHEN f.object_id IS NULL THEN 1 ELSE 0 END) "
        f"FROM {counted} GROUP BY f.predicate",
        "rollup_entities": f"SELECT e, sum(o), sum(i) FROM (SELECT f.subject AS e, 1 AS o, 0 AS i FROM {counted} "
        f"UNION ALL SELECT f.object_id, 0, 1 FROM {counted} WHERE f.object_id IS NOT NULL) x GROUP BY e",
        "rollup_types": "SELECT type, count(*) FROM entities GROUP BY type",
        "rollup_renewals": pairs,
    }


def check(kg: _Graph) -> RollupCheck:
    """Compare every rollup with a scan of the facts (one snapshot): per table, the keys whose counts differ (a row
    of zeros counts as no row)."""
    kind: RollupKind = "sqlite" if kg.engine.kind == "sqlite" else "postgresql"
    differences: dict[str, int] = {}
    examples: list[str] = []
    fold(kg)  # a read-only graph: compared over the facts they count
    with kg.engine.read() as cur:
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
        for table, (wrong_keys, described) in pairs_check(cur).items():  # rollup_pairs, rollup_links
            differences[table] = wrong_keys
            examples += described
    return RollupCheck(differences, tuple(examples))


def _num(v: Any) -> Any:
    return int(v) if v is not None and not isinstance(v, str) else v

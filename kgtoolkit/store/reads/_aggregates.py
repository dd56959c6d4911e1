"""Aggregates computed in the engine: what :func:`kgtoolkit.analysis.churn`, :func:`~kgtoolkit.analysis.events` and
:func:`~kgtoolkit.analysis.event_graph` read when given the graph instead of a facts frame (issue #32).

The engine reads and groups the facts; only one row per (group, period) comes back. The SQL is written once for both
engines (integer arithmetic on the stored keys ``from_us``/``to_us``, :mod:`kgtoolkit._time`), and the event rule is
:class:`~._rules.EventRule`'s, so the counts are those of the frame path by construction.

**Periods** are polars truncations (``dt.truncate(every)``) of the UTC instants, computed from the integer keys:

* a fixed duration of one unit (``"1d"``, ``"12h"``, ``"10d"``, ``"90m"``): ``t - pmod(t, step)`` (polars aligns them
  on 1970-01-01);
* weeks (``"1w"``, ``"2w"``): the same on Mondays, counted from Monday 1970-01-05;
* calendar units (``"1mo"``, ``"3mo"``, ``"1q"``, ``"1y"``, ``"10y"``): the day of the instant (``t`` floored to
  its UTC day) grouped first, so the calendar arithmetic runs on one row per day, not per fact; the day becomes
  its month (days-to-civil in integers, proleptic Gregorian as polars), and months are counted in periods from
  1970-01, as polars counts them. The month number comes back and becomes its first instant in polars.

``pmod`` is the non-negative remainder (``((a % b) + b) % b``: both engines' remainder keeps the sign of ``a``;
:meth:`~kgtoolkit.store.engine.Dialect.modulo` spells it per engine). Any
other ``every`` (several units, ``"1mo2d"``, nanoseconds) has no plan here: :func:`period_plan` says None and the
analysis reads the frame instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING, Literal

from ..._renewals import pairs_sql
from ..._time import DAY_US, OPEN_END, OPEN_START
from . import _queries as q
from . import _rollups
from ._period_plan import MONTH_1970 as _MONTH_1970
from ._period_plan import PeriodPlan, period_plan
from ._period_plan import frame as _frame
from ._period_plan import period_column as _period_column

if TYPE_CHECKING:
    import polars as pl

    from .._graph_store import GraphStore
    from ..engine import Dialect

__all__ = ["ChurnCounts", "PeriodPlan", "churn_counts", "event_counts", "event_pairs", "period_plan"]


def _pmod(d: Dialect, a: str, b: int) -> str:
    """The remainder of ``a`` / ``b`` from 0 to ``b`` - 1 (floored: a negative ``a`` too)."""
    return d.modulo(f"{d.modulo(a, b)} + {b}", b)


def _bucket(d: Dialect, plan: PeriodPlan, t: str) -> str:
    """The per-row key of instant ``t``: its period start (fixed), or its UTC day (months)."""
    if plan.unit == "fixed":
        return f"({t} - {_pmod(d, f'{t} - {plan.origin}', plan.step)})"
    return f"(({t} - {_pmod(d, t, DAY_US)}) / {DAY_US})"


def _periods(d: Dialect, plan: PeriodPlan, grouped: str, keys: list[str], sums: list[str]) -> str:
    """Over ``grouped`` (rows of ``keys``, a bucket ``b`` and counts ``sums``): one row per (keys, period ``p``)
    with the counts summed; ``p`` in microseconds (fixed) or a month number (months)."""
    carry = ", ".join([*keys, *sums])
    if plan.unit == "fixed":
        source, period = grouped, "b"
    else:
        # Days to civil dates (H. Hinnant's days_from_civil inverted), on one row per day; z >= 0 from year 0001.
        # Each level kept apart (Dialect.fence): merged, they are one expression repeating every level's terms.
        f = d.fence
        source = (
            f"(SELECT {carry}, (y + CASE WHEN m <= 2 THEN 1 ELSE 0 END) * 12 + m - 1 AS b FROM "
            f"(SELECT {carry}, yoe + era * 400 AS y, CASE WHEN mp < 10 THEN mp + 3 ELSE mp - 9 END AS m FROM "
            f"(SELECT {carry}, era, yoe, (5 * (doe - (365 * yoe + yoe / 4 - yoe / 100)) + 2) / 153 AS mp FROM "
            f"(SELECT {carry}, era, doe, (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365 AS yoe FROM "
            f"(SELECT {carry}, z / 146097 AS era, z - (z / 146097) * 146097 AS doe FROM "
            f"(SELECT {carry}, b + 719468 AS z FROM {grouped} g0{f}) g1{f}) g2{f}) g3{f}) g4{f}) g5)"
        )
        period = f"(b - {_pmod(d, f'b - {_MONTH_1970}', plan.step)})"
    group = ", ".join([*keys, period])
    summed = ", ".join(f"CAST(sum({s}) AS BIGINT) AS {s}" for s in sums)  # PostgreSQL: a sum of bigint is numeric
    return f"SELECT {', '.join([*keys, ''])}{period} AS p, {summed} FROM {source} gp GROUP BY {group}"


@dataclasses.dataclass(frozen=True, slots=True)
class ChurnCounts:
    """What :func:`churn_counts` reads: ``counts`` (group columns, ``period``, ``added``, ``ended``, ``renewed``,
    ``events``: the (group, period) pairs where anything happened), ``unknown_starts`` (group columns, ``_baseline``:
    state facts with an unknown start) and, by subject, ``names`` (``subject``, ``subject_name``)."""

    counts: pl.DataFrame
    unknown_starts: pl.DataFrame
    names: pl.DataFrame | None


def churn_counts(
    kg: GraphStore, every: str, by: Literal["subject", "predicate"] | None, renewals: bool = True
) -> ChurnCounts | None:
    """Per (group, period): state facts started (``added``), ended (``ended``), renewed (``renewed``: a renewal,
    :mod:`._renewals`, counted at its start and neither in ``added`` nor, at its predecessor's end, in ``ended``;
    0 with ``renewals=False``), and events that occurred (at their start, else at their end), as
    :func:`kgtoolkit.analysis.churn` counts them; None when ``every`` has no :func:`period_plan`."""
    import polars as pl

    plan = period_plan(every)
    if plan is None:
        return None
    if (rolled := _rollups.churn_counts(kg.engine, plan, every, by, renewals)) is not None:
        return ChurnCounts(*rolled, None)  # from the rollups (contract §18)
    keys: list[str] = [] if by is None else [by]
    fkeys = "".join(f"f.{k} AS {k}, " for k in keys)
    gkeys = "".join(f"{k}, " for k in keys)
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        rule = q.event_rule(cur)
        event, params = rule.bound(d)  # checked on every row: its predicates bound one by one
        # Two scans, as the floor's: the starts of the state facts and the events (at their start, else at their
        # end) in one, an unknown start in the NULL bucket (its period NULL: the unknown starts); the ends of the
        # state facts in the other. The rule is written once, in the subquery of the rows (not fenced: PostgreSQL
        # then aggregates in its parallel workers).
        ikeys = "".join(f"i.{k} AS {k}, " for k in keys)
        tagged = (
            f"(SELECT {fkeys}f.from_us, f.to_us, CASE WHEN {event} THEN 1 ELSE 0 END AS e FROM {d.scan('facts f')}) i"
        )
        first = (
            f"CASE WHEN i.e = 1 THEN (CASE WHEN i.from_us <> {OPEN_START} THEN i.from_us ELSE i.to_us END) "
            f"WHEN i.from_us <> {OPEN_START} THEN i.from_us END"
        )
        grouped = (
            f"SELECT {ikeys}{_bucket(d, plan, first)} AS b, sum(1 - i.e) AS added, 0 AS ended, 0 AS renewed, "
            f"sum(i.e) AS events FROM {tagged} WHERE i.e = 0 OR i.from_us <> {OPEN_START} OR i.to_us <> {OPEN_END} "
            f"GROUP BY {gkeys}b UNION ALL SELECT {fkeys}{_bucket(d, plan, 'f.to_us')} AS b, 0, count(*), 0, 0 "
            f"FROM {d.scan('facts f')} WHERE NOT {event} AND f.to_us <> {OPEN_END} GROUP BY {gkeys}b"
        )
        renewed = ""
        if renewals:
            # The renewals (one index range per ended fact, ._renewals): each moved from added to renewed at its
            # start, and its predecessor's end taken out of ended. The two scans above stay as they are.
            event_old, old_params = rule.bound(d, "o", "event_old")
            event_new, new_params = rule.bound(d, "n", "event_new")
            params = {**params, **old_params, **new_params}
            renewed = f"WITH r AS MATERIALIZED ({pairs_sql(d.scan('facts o'), event_old, event_new)}) "
            rkeys = "".join(f"r.{k} AS {k}, " for k in keys)
            grouped += (
                f" UNION ALL SELECT {rkeys}{_bucket(d, plan, 'r.s')} AS b, -count(*), 0, count(*), 0 FROM r "
                f"GROUP BY {gkeys}b UNION ALL SELECT {rkeys}{_bucket(d, plan, 'r.e')} AS b, 0, -count(*), 0, 0 "
                f"FROM r GROUP BY {gkeys}b"
            )
        sql = _periods(d, plan, f"({grouped})", keys, ["added", "ended", "renewed", "events"])
        with d.hashed_join(cur) if renewals else contextlib.nullcontext():
            rows = cur.execute(f"{renewed}{sql} ORDER BY {gkeys}p", params).fetchall()
        names = None
        if by == "subject":
            named = cur.execute(
                "SELECT e.id, e.name FROM entities e WHERE EXISTS (SELECT 1 FROM facts f WHERE f.subject = e.id)"
            ).fetchall()
            names = _frame(named, {"subject": pl.String(), "subject_name": pl.String()})
    key_schema: dict[str, pl.DataType] = {k: pl.String() for k in keys}
    sums = ["added", "ended", "renewed", "events"]
    counts = _frame(rows, {**key_schema, "p": pl.Int64(), **{s: pl.Int64() for s in sums}})
    unknown_starts = counts.filter(pl.col("p").is_null()).select(*keys, pl.col("added").alias("_baseline"))
    # A period whose only change was a renewal's old end has nothing left: it is no row, as on the frame path.
    happened = pl.any_horizontal(pl.col(s) != 0 for s in sums)
    counts = counts.filter(pl.col("p").is_not_null() & happened).select(*keys, _period_column(plan), *sums)
    return ChurnCounts(counts, unknown_starts, names)


def event_counts(kg: GraphStore, every: str, by: Literal["predicate", "pair"] | None) -> pl.DataFrame | None:
    """Per (group, period): the events with a known start, counted at their start, as
    :func:`kgtoolkit.analysis.events` counts them (group columns, ``period``, ``events``; by pair, events with a
    value object left out and the names of the pair's entities after ``subject`` and ``object``); None when
    ``every`` has no :func:`period_plan`."""
    import polars as pl

    plan = period_plan(every)
    if plan is None:
        return None
    if (rolled := _rollups.event_counts(kg.engine, plan, every, by)) is not None:  # contract §18
        return rolled
    keys = {None: [], "predicate": ["predicate"], "pair": ["subject", "object_id"]}[by]
    fkeys = "".join(f"f.{k} AS {k}, " for k in keys)
    gkeys = "".join(f"{k}, " for k in keys)
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        event, params = q.event_rule(cur).bound(d)  # checked on every row: its predicates bound one by one
        where = f"{event} AND f.from_us <> {OPEN_START}" + (" AND f.object_id IS NOT NULL" if by == "pair" else "")
        grouped = (
            f"(SELECT {fkeys}{_bucket(d, plan, 'f.from_us')} AS b, count(*) AS events FROM facts f WHERE {where} "
            f"GROUP BY {gkeys}b)"
        )
        sql = _periods(d, plan, grouped, keys, ["events"])
        if by == "pair":
            sql = (
                f"SELECT c.subject, s.name, c.object_id, o.name, c.p, c.events FROM ({sql}) c "
                "LEFT JOIN entities s ON s.id = c.subject LEFT JOIN entities o ON o.id = c.object_id"
            )
        rows = cur.execute(f"{sql} ORDER BY {gkeys}p", params).fetchall()
    names = ["subject", "subject_name", "object", "object_name"] if by == "pair" else keys
    frame = _frame(rows, {**{n: pl.String() for n in names}, "p": pl.Int64(), "events": pl.Int64()})
    return frame.select(*names, _period_column(plan), "events")


def event_pairs(kg: GraphStore, lo: int | None, hi: int | None) -> pl.DataFrame:
    """The events between two entities with a known start from ``lo`` to ``hi`` (microseconds, both included; None:
    open), per (subject, object) pair and predicate: ``subject``, ``subject_name``, ``object``, ``object_name``,
    ``predicate``, ``events``, ``first``, ``last`` (the earliest and latest start, microseconds)."""
    import polars as pl

    d = kg.engine.dialect
    with kg.engine.read() as cur:
        event, params = q.event_rule(cur).bound(d)
        known, bounds = q.inside("f.from_us", lo, hi)
        where = f"{event} AND f.from_us <> {OPEN_START} AND f.object_id IS NOT NULL AND {known}"
        params.update(bounds)
        rows = cur.execute(
            "SELECT c.subject, s.name, c.object_id, o.name, c.predicate, c.n, c.lo, c.hi FROM "
            "(SELECT f.subject AS subject, f.object_id AS object_id, f.predicate AS predicate, count(*) AS n, "
            f"min(f.from_us) AS lo, max(f.from_us) AS hi FROM facts f WHERE {where} "
            "GROUP BY f.subject, f.object_id, f.predicate) c "
            "LEFT JOIN entities s ON s.id = c.subject LEFT JOIN entities o ON o.id = c.object_id",
            params,
        ).fetchall()
    schema: dict[str, pl.DataType] = {
        "subject": pl.String(),
        "subject_name": pl.String(),
        "object": pl.String(),
        "object_name": pl.String(),
        "predicate": pl.String(),
        "events": pl.Int64(),
        "first": pl.Int64(),
        "last": pl.Int64(),
    }
    return _frame(rows, schema)

"""Churn: state facts added and ended per period, the number active, and the volume of events (:func:`churn`)."""

from __future__ import annotations

from typing import Literal, cast

import polars as pl

from .._errors import InvalidRequest
from .._time import OPEN_END, OPEN_START
from .._validity import back_to_back, frame_keys
from ..frames import facts as read_facts
from ..graph import KnowledgeGraph
from ..store import churn_counts
from ._periods import MAX_PERIODS, _at, _check_every, _period_count, _period_start, _too_many_periods
from ._shared import (
    _FIRST,
    _MOMENT,
    Frame,
    Moment,
    _empty,
    _frame,
    _object_key,
    _occurred_at,
    _out,
    _since_until,
    _typed,
)

GroupBy = Literal["subject", "predicate"]


#: :func:`churn` without ``by``; with ``by`` the group column(s) come first (``predicate``, or
#: ``subject`` and ``subject_name``).
CHURN_SCHEMA: dict[str, pl.DataType] = {
    "period": _MOMENT,
    "added": pl.Int64(),
    "ended": pl.Int64(),
    "renewed": pl.Int64(),
    "net": pl.Int64(),
    "active_at_start": pl.Int64(),
    "active_at_end": pl.Int64(),
    "churn_rate": pl.Float64(),
    "events": pl.Int64(),
    "events_change": pl.Int64(),
}


_SUMS = ("added", "ended", "renewed", "events")


def _renewals(states: pl.DataFrame) -> pl.DataFrame:
    """The renewals among state facts (contract §11, the rule of :mod:`kgtoolkit._renewals`): an ended fact
    and a fact of the same triple starting back to back with it (:func:`kgtoolkit._validity.back_to_back`), each
    the other's closest candidate (by the distance from the old end to the new start, then the lower id). One row
    per renewal: the triple's ``subject`` and ``predicate``, the old ``end`` and the new ``start``."""
    start, end = frame_keys()
    facts = states.select(
        "id", "subject", "predicate", "object_is_value", _object_key(), "start", "end", s=start, e=end
    )
    triple = ["subject", "predicate", "object_is_value", "_key"]
    old = facts.filter(pl.col("e") != OPEN_END).select(*triple, "id", "end", "s", "e")
    new = facts.filter(pl.col("s") != OPEN_START).select(*triple, pl.col("id").alias("new_id"), "start", new_s="s")
    candidates = (
        old.join(new, on=triple)
        .filter((pl.col("id") != pl.col("new_id")) & back_to_back(pl.col("s"), pl.col("e"), pl.col("new_s")))
        .with_columns(dist=(pl.col("e") - pl.col("new_s")).abs())
    )
    best_new = candidates.sort("dist", "new_id").unique("id", keep="first", maintain_order=True)
    best_old = candidates.sort("dist", "id").unique("new_id", keep="first", maintain_order=True)
    return best_new.join(best_old.select("id", "new_id"), on=["id", "new_id"]).select(
        "subject", "predicate", "end", "start"
    )


def _events(df: pl.DataFrame, every: str, keys: list[str], renewals: bool) -> pl.DataFrame:
    """Added/ended/renewed counts of state facts, and events, per (keys, period) where anything happened."""
    zero, one = pl.lit(0, pl.Int64), pl.lit(1, pl.Int64)
    states, events = df.filter(pl.col("kind") != "event"), df.filter(pl.col("kind") == "event")

    def counted(frame: pl.DataFrame, at: pl.Expr, **ones: pl.Expr) -> pl.DataFrame:
        return frame.select(*keys, at.dt.truncate(every).alias("period"), *(ones.get(s, zero).alias(s) for s in _SUMS))

    parts = [
        counted(states.filter(pl.col("start").is_not_null()), pl.col("start"), added=one),
        counted(states.filter(pl.col("end").is_not_null()), pl.col("end"), ended=one),
        counted(events.filter(_occurred_at().is_not_null()), _occurred_at(), events=one),
    ]
    if renewals:  # each renewal moved from added to renewed at its start, and its predecessor's end out of ended
        renewed = _renewals(states)
        parts.append(counted(renewed, pl.col("start"), added=-one, renewed=one))
        parts.append(counted(renewed, pl.col("end"), ended=-one))
    return (
        pl.concat(parts)
        .group_by([*keys, "period"])
        .agg(*(pl.col(s).sum() for s in _SUMS))
        .filter(pl.any_horizontal(pl.col(s) != 0 for s in _SUMS))  # a renewal's old end alone: nothing happened
    )


def churn(
    facts: Frame | KnowledgeGraph,
    *,
    every: str = "1mo",
    since: Moment = None,
    until: Moment = None,
    by: GroupBy | None = None,
    renewals: bool = True,
) -> Frame:
    """Count the state facts added and ended per period, the facts active, and the volume of events.

    Per period: ``added`` counts state facts whose start falls in it, ``ended`` those whose end does, and
    ``net`` is added − ended. ``active_at_start`` counts state facts valid just before the period starts;
    ``active_at_end`` is active_at_start + net. ``churn_rate`` is (added + ended) / active_at_start, null
    when nothing was active.

    A **renewal** (the same triple again back to back, contract §11) is one continuing fact: ``renewed``
    counts it at the new fact's start, which is not in ``added``, nor is the old end in ``ended``.
    **Events** (contract §12) are never added nor ended: ``events`` counts those that occurred in the
    period, and ``events_change`` is the difference from the previous period. On an event graph (ICEWS,
    GDELT) these two are the answer. A fact with an **unknown start** is never in ``added``; it counts as
    active since before any period, until its end.

    Parameters
    ----------
    facts
        A facts frame (:func:`kgtoolkit.frames.facts`, polars or pandas) or the graph itself. Given the
        graph, the counts are grouped in the engine (``kgtoolkit.store.churn_counts``) and the answer equals
        this function's on ``frames.facts(kg)``. An ``every`` of several units (``"1h30m"``) reads the
        graph's frame instead.
    every
        The period, a polars duration (``"1w"``, ``"1mo"``, ``"1q"``, ``"1y"``). Periods are
        ``dt.truncate(every)`` of the UTC instants.
    since, until
        Dates or datetimes: the periods holding an instant between them (default: the first and last start
        or end). Facts before ``since`` still count in ``active_at_start``.
    by
        ``"predicate"`` or ``"subject"``: one row set per group, only the periods in which the group changed.
        Without it, every period in the window has a row, zeros included.
    renewals
        False counts every start and end apart (the raw view; ``renewed`` is then 0).

    Returns
    -------
    Frame
        The columns of :data:`CHURN_SCHEMA`, group columns first.

    Raises
    ------
    InvalidRequest
        A window of more than :data:`MAX_PERIODS` periods without ``by`` (``field="every"``; the message
        suggests a longer period), or a bad ``every``. Raised before anything is allocated.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    >>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-05-10")
    >>> churn(frames.facts(kg), since="2026-04", until="2026-05").select(
    ...     pl.col("period").dt.strftime("%Y-%m"), "added", "ended", "active_at_start", "churn_rate").rows()
    [('2026-04', 0, 0, 1, 0.0), ('2026-05', 1, 1, 1, 2.0)]
    """
    if by not in (None, "subject", "predicate"):
        raise InvalidRequest(f"by must be 'subject', 'predicate' or None, not {by!r}", field="by", value=str(by))
    _check_every(every)
    lo, hi = _since_until(since, until)
    keys: list[str] = [] if by is None else [by]
    # Period starts in microseconds since 1970: a "7d" or "10y" period holding 0001-01-01 begins in year 0.
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)

    read = churn_counts(facts, every, by, renewals) if isinstance(facts, KnowledgeGraph) else None
    names: pl.DataFrame | None = None
    if read is not None:  # the graph: counted in the engine, one row per (group, period)
        events, unknowns, names, was_pandas = read.counts, read.unknown_starts, read.names, False
    else:  # a frame (or a graph with an every SQL cannot key: its frame)
        df, was_pandas = _frame(read_facts(facts) if isinstance(facts, KnowledgeGraph) else facts)
        events = _events(df, every, keys, renewals)
        unknown = df.filter(pl.col("start").is_null() & (pl.col("kind") != "event"))
        unknowns = (
            unknown.group_by(keys).agg(pl.len().cast(pl.Int64).alias("_baseline"))
            if keys
            else pl.DataFrame({"_baseline": [unknown.height]}, schema={"_baseline": pl.Int64()})
        )
        if by == "subject":
            names = df.group_by("subject").agg(pl.col("subject_name").first())
    return _out(_finish(events, unknowns, names, by, every, first, last), was_pandas)


def _finish(
    events: pl.DataFrame,
    unknowns: pl.DataFrame,
    names: pl.DataFrame | None,
    by: GroupBy | None,
    every: str,
    first: int | None,
    last: int | None,
) -> pl.DataFrame:
    """The churn table from the counts per (group, period) (``events``: added, ended, renewed, events), the
    state facts of unknown start per group (``unknowns``: ``_baseline``) and a subject's name (``names``), for the
    periods from ``first`` to ``last`` (period starts in microseconds; None: the counts' own). Wherever the counts
    were made (a frame here, the engine, or Spark: :mod:`kgtoolkit.spark`), the table is laid out here."""
    keys: list[str] = [] if by is None else [by]
    schema = {
        **({"subject": pl.String(), "subject_name": pl.String()} if by == "subject" else {}),
        **({"predicate": pl.String()} if by == "predicate" else {}),
        **CHURN_SCHEMA,
    }
    if by is None:
        if events.height == 0 and (first is None or last is None):
            return _empty(schema)
        seen = events["period"].to_physical()
        bounds = [cast(int, b) for b in (seen.min(), seen.max(), first, last) if b is not None]
        lo_us = first if first is not None else min(bounds)
        hi_us = last if last is not None else max(bounds)
        count = _period_count(lo_us, hi_us, every)
        if count > MAX_PERIODS:
            raise _too_many_periods(every, lo_us, hi_us, count)
        # Only the window's periods are laid out; the events before it are what was active at its start.
        earlier = events.filter(pl.col("period") < _at(lo_us))
        unknown_start = int(unknowns["_baseline"].sum())
        active = unknown_start + int(earlier["added"].sum()) - int(earlier["ended"].sum())
        baseline = pl.lit(active, pl.Int64)
        grid = pl.select(
            pl.datetime_range(_at(lo_us), _at(hi_us), interval=every, time_unit="us", time_zone="UTC")
            .dt.truncate(every)
            .unique()
            .sort()
            .alias("period")
        )
        table = (
            grid.join(events, on="period", how="left")
            .with_columns(pl.col(s).fill_null(0) for s in _SUMS)
            .sort("period")
        )
        previous = _at(_period_start(lo_us - 1, every))  # the period just before the window: events_change's base
        before_window = int(earlier.filter(pl.col("period") == previous)["events"].sum())
    else:
        before_window = 0
        table = events.join(unknowns, on=keys, how="left").sort([*keys, "period"])
        baseline = pl.col("_baseline").fill_null(0)

    def before(column: str) -> pl.Expr:  # the sum over the group's earlier periods
        total = pl.col(column).cum_sum()
        return (total.over(keys) if keys else total) - pl.col(column)

    table = table.with_columns(
        (baseline + before("added") - before("ended")).alias("active_at_start"),
        (pl.col("added") - pl.col("ended")).alias("net"),
        (
            pl.col("events")
            - (pl.col("events").shift(1).over(keys) if keys else pl.col("events").shift(1)).fill_null(before_window)
        ).alias("events_change"),
    ).with_columns(
        (pl.col("active_at_start") + pl.col("net")).alias("active_at_end"),
        pl.when(pl.col("active_at_start") > 0)
        .then((pl.col("added") + pl.col("ended")) / pl.col("active_at_start"))
        .alias("churn_rate"),
    )
    if first is not None:
        table = table.filter(pl.col("period") >= _at(first))
    if last is not None:
        table = table.filter(pl.col("period") <= _at(last))
    if names is not None:
        table = table.join(names, on="subject", how="left").sort(["subject", "period"])
    table = table.with_columns(pl.col("period").clip(lower_bound=_FIRST))  # a period begun in year 0
    return _typed(table, schema)

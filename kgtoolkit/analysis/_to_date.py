"""Churn to date: what has happened told from what is scheduled, partial periods marked (:func:`churn_to_date`),
and the bursts of an event volume (:func:`bursts`).

The rules live here once; the churn report and the dashboard's Churn page both read them:

* an end (or a start, or an event) on a day after today is **scheduled**, not ended (added, occurred): contract
  §4 calls a fact current until its end;
* a period is **partial** when the window does not cover it whole: it begins before the window's first instant,
  or ends after its last one (``until``, the data's last start or end, or the end of today, whichever is first);
  a partial period never headlines a change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from itertools import pairwise
from typing import Any, Literal, cast

import polars as pl

from .._errors import InvalidRequest
from ..graph import KnowledgeGraph
from ..store import fact_span
from ._churn import CHURN_SCHEMA, churn
from ._shared import _MOMENT, _UTC, Frame, Moment, _frame, _now, _since_until

__all__ = [
    "BURSTS_SCHEMA",
    "TO_DATE_SCHEMA",
    "bursts",
    "churn_to_date",
    "graph_kind",
    "last_full_change",
    "scheduled_totals",
]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)
_ONE_US = dt.timedelta(microseconds=1)

#: :func:`churn_to_date`: :data:`CHURN_SCHEMA`'s columns, then what is scheduled after today and ``partial``.
TO_DATE_SCHEMA: dict[str, pl.DataType] = {
    **CHURN_SCHEMA,
    "scheduled_added": pl.Int64(),
    "scheduled_ended": pl.Int64(),
    "scheduled_events": pl.Int64(),
    "partial": pl.Boolean(),
}
#: :func:`bursts`: the periods whose volume stands out.
BURSTS_SCHEMA: dict[str, pl.DataType] = {"period": _MOMENT, "events": pl.Int64(), "z": pl.Float64()}

#: :func:`churn` of one source, called with keywords ``every``, ``since``, ``until`` and ``renewals``.
ChurnOf = Callable[..., pl.DataFrame]

_MOVED = (("added", "scheduled_added"), ("ended", "scheduled_ended"), ("events", "scheduled_events"))


def _data_span(facts: Frame | KnowledgeGraph) -> tuple[dt.datetime, dt.datetime] | None:
    """The first known start and the last known start or end (UTC), or None when no fact has a known start."""
    if isinstance(facts, KnowledgeGraph):
        span = fact_span(facts)
        if span is None:
            return None
        return _EPOCH + dt.timedelta(microseconds=span[0]), _EPOCH + dt.timedelta(microseconds=span[1])
    df, _ = _frame(facts)
    first, last_start, last_end = df.select(
        pl.col("start").min().alias("a"), pl.col("start").max().alias("b"), pl.col("end").max().alias("c")
    ).row(0)
    return _span_of(first, last_start, last_end)


def _span_of(
    first: dt.datetime | None, last_start: dt.datetime | None, last_end: dt.datetime | None
) -> tuple[dt.datetime, dt.datetime] | None:
    """The data's span from its first start, last start and last end (None: no known start)."""
    if first is None or last_start is None:
        return None
    return first, max(last_start, last_end) if last_end is not None else last_start


def churn_to_date(
    facts: Frame | KnowledgeGraph,
    *,
    every: str = "1mo",
    since: Moment = None,
    until: Moment = None,
    now: Moment = None,
    renewals: bool = True,
) -> pl.DataFrame:
    """:func:`churn` with what has happened told from what is scheduled, and each period marked full or partial.

    A start, an end or an event on a day after today (``now``'s day, default the current time) has not happened:
    it is moved from ``added`` / ``ended`` / ``events`` to ``scheduled_added`` / ``scheduled_ended`` /
    ``scheduled_events`` (a whole period after today; in the period holding today, what falls after today,
    counted by day with :func:`churn`'s rules, renewals included). ``net`` and ``churn_rate`` are computed again
    from what happened; ``active_at_*`` stay :func:`churn`'s (what the graph holds, plans included).

    ``since`` and ``until`` choose the periods as for :func:`churn`; by default the window ends today when the data
    runs past it (the last start or end otherwise), so a graph of terms of office planned to 2031 is read to date.

    ``partial`` is true for a period the window does not cover whole: it begins before ``since`` (default: the
    data's first start) or ends after the window's last instant, the first of ``until`` (the end of its day),
    the data's last start or end and the end of today. A partial period's count is not comparable with a whole
    one's: never headline its change (:func:`last_full_change`).

    ``facts`` is a facts frame or the graph (counted in the engine, as :func:`churn`). Polars only.
    Columns: :data:`TO_DATE_SCHEMA`.

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ada", "holds", "chair", valid_from="2026-01-05", valid_to="2026-03-10")
    >>> churn_to_date(kg, since="2026-01", until="2026-04", now="2026-03-01").select(
    ...     pl.col("period").dt.strftime("%Y-%m"), "added", "ended", "scheduled_ended", "partial").rows()
    [('2026-01', 1, 0, 0, False), ('2026-02', 0, 0, 0, False), ('2026-03', 0, 0, 1, True), ('2026-04', 0, 0, 0, True)]
    """
    source: pl.DataFrame | KnowledgeGraph = facts if isinstance(facts, KnowledgeGraph) else _frame(facts)[0]
    if not isinstance(facts, (KnowledgeGraph, pl.DataFrame)):
        raise InvalidRequest("churn_to_date takes a polars facts frame or the graph", field="facts")
    return _to_date(
        _churn_of(source), _data_span(source), every=every, since=since, until=until, now=now, renewals=renewals
    )


def _churn_of(source: pl.DataFrame | KnowledgeGraph) -> ChurnOf:
    """:func:`churn` of one source, as :func:`_to_date` calls it."""

    def churn_of(*, every: str, since: Moment, until: Moment, renewals: bool) -> pl.DataFrame:
        return cast(pl.DataFrame, churn(source, every=every, since=since, until=until, renewals=renewals))

    return churn_of


def _to_date(
    churn_of: ChurnOf,
    span: tuple[dt.datetime, dt.datetime] | None,
    *,
    every: str,
    since: Moment,
    until: Moment,
    now: Moment,
    renewals: bool,
) -> pl.DataFrame:
    """:func:`churn_to_date` of any source: ``churn_of`` answers as :func:`churn` (the engine, a frame, Spark) and
    ``span`` is the data's first start and last start or end."""
    moment = _now(now)
    tomorrow = dt.datetime.combine(moment.date() + dt.timedelta(days=1), dt.time(), tzinfo=_UTC)
    if until is None and span is not None and span[1] >= tomorrow:  # the default window ends today
        until = moment.date()
    table = churn_of(every=every, since=since, until=until, renewals=renewals)
    ends = pl.col("period").dt.truncate(every).dt.offset_by(every) - _ONE_US  # each period's last instant
    table = table.with_columns(ends.alias("_end"))
    ahead = pl.col("period") >= tomorrow
    table = table.with_columns(
        *(pl.when(ahead).then(pl.col(c)).otherwise(0).alias(s) for c, s in _MOVED),
    ).with_columns(*(pl.when(ahead).then(0).otherwise(pl.col(c)).alias(c) for c, _ in _MOVED))
    holding = table.filter((pl.col("period") < tomorrow) & (pl.col("_end") >= tomorrow))
    if holding.height:  # the period holding today: what falls after today in it, counted by day
        period_end = holding["_end"][0]
        later = churn_of(every="1d", since=tomorrow, until=period_end, renewals=renewals)
        moved = {c: int(later[c].sum()) for c, _ in _MOVED}
        at = pl.col("period") == holding["period"][0]
        table = table.with_columns(
            *(pl.when(at).then(pl.col(s) + moved[c]).otherwise(pl.col(s)).alias(s) for c, s in _MOVED)
        ).with_columns(*(pl.when(at).then(pl.col(c) - moved[c]).otherwise(pl.col(c)).alias(c) for c, _ in _MOVED))
    lo, hi = _since_until(since, until)
    first = lo if lo is not None else (span[0] if span else None)
    lasts = [t for t in (hi, span[1] if span else None, tomorrow - _ONE_US) if t is not None]
    last = min(lasts)
    partial = pl.col("_end") > last
    if first is not None:
        partial = partial | (pl.col("period").dt.truncate(every) < first)
    table = table.with_columns(
        (pl.col("added") - pl.col("ended")).alias("net"),
        pl.when(pl.col("active_at_start") > 0)
        .then((pl.col("added") + pl.col("ended")) / pl.col("active_at_start"))
        .alias("churn_rate"),
        partial.alias("partial"),
    )
    return table.select([pl.col(n).cast(t) for n, t in TO_DATE_SCHEMA.items()])


def scheduled_totals(facts: Frame | KnowledgeGraph, *, now: Moment = None, renewals: bool = True) -> dict[str, int]:
    """What the graph schedules after today (``now``'s day), whatever a window shows: ``added`` (starts),
    ``ended`` (ends: facts current now, or scheduled, that will end) and ``events``, counted by
    :func:`churn_to_date`'s rule (yearly periods from today to the data's last start or end).

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ada", "holds", "chair", valid_from="2026-01-05", valid_to="2031-03-10")
    >>> scheduled_totals(kg, now="2026-03-01")
    {'added': 0, 'ended': 1, 'events': 0}
    """
    source: pl.DataFrame | KnowledgeGraph = facts if isinstance(facts, KnowledgeGraph) else _frame(facts)[0]
    return _scheduled(_churn_of(source), _data_span(source), now=now, renewals=renewals)


def _scheduled(
    churn_of: ChurnOf, span: tuple[dt.datetime, dt.datetime] | None, *, now: Moment, renewals: bool
) -> dict[str, int]:
    """:func:`scheduled_totals` of any source (``churn_of`` and ``span`` as :func:`_to_date` takes them)."""
    today = _now(now)
    totals = dict.fromkeys(("added", "ended", "events"), 0)
    if span is None or span[1].date() <= today.date():
        return totals
    table = _to_date(churn_of, span, every="1y", since=today.date(), until=span[1], now=today, renewals=renewals)
    for column, scheduled in _MOVED:
        totals[column] = int(table[scheduled].sum())
    return totals


def graph_kind(stats: Any) -> Literal["events", "states", "mixed"]:
    """What a graph records, from its counts (:meth:`KnowledgeGraph.stats`: ``events`` beside the state facts
    ``current``, ``scheduled``, ``ended``): ``"events"`` when every dated fact is an event (an event graph, or one
    whose event predicates hold all its facts), ``"states"`` when none is, ``"mixed"`` otherwise. The pages and the
    churn report show event measures for events, state measures for states, and both for a mixed graph.

    >>> from types import SimpleNamespace as S
    >>> [graph_kind(S(events=e, current=c, scheduled=0, ended=0)) for e, c in ((5, 0), (0, 5), (5, 5), (0, 0))]
    ['events', 'states', 'mixed', 'states']
    """
    states = int(stats.current) + int(stats.scheduled) + int(stats.ended)
    if stats.events and not states:
        return "events"
    return "mixed" if stats.events else "states"


def last_full_change(table: pl.DataFrame, column: str = "events") -> tuple[dt.datetime, int] | None:
    """The last period of ``table`` (:func:`churn_to_date`) that is whole, as is the one before it, and the
    change of ``column`` on that one (``column`` minus the previous period's); None when no two whole periods
    follow each other. A change from a partial period is not a change (contract §12)."""
    rows = table.select("period", column, "partial").rows()
    for (_, before, partial_before), (period, value, partial) in reversed(list(pairwise(rows))):
        if not partial and not partial_before:
            return period, int(value) - int(before)
    return None


def bursts(table: pl.DataFrame, *, threshold: float = 2.0) -> pl.DataFrame:
    """The bursts of an event volume: the whole periods (``partial`` false, when the table has the column) whose
    ``events`` stand ``threshold`` standard deviations or more above the mean of the whole periods (``z``: how
    many), most standing out first. None when the whole periods are fewer than three, all equal, or empty more
    often than not (a median of 0: a sparse volume, where every event would stand out).
    Columns: :data:`BURSTS_SCHEMA`.

    >>> t = pl.DataFrame({"period": [dt.datetime(2014, m, 1, tzinfo=dt.UTC) for m in range(1, 9)],
    ...                   "events": [10, 11, 9, 10, 40, 10, 12, 9]})
    >>> bursts(t).select(pl.col("period").dt.month(), "events").rows()
    [(5, 40)]
    """
    whole = table.filter(~pl.col("partial")) if "partial" in table.columns else table
    empty = pl.DataFrame(schema=BURSTS_SCHEMA)
    if whole.height < 3:
        return empty
    mean, sd, median = whole.select(
        pl.col("events").mean().alias("m"), pl.col("events").std().alias("s"), pl.col("events").median().alias("d")
    ).row(0)
    if not sd or not median:  # a volume empty most of the time has no bursts: every event would be one
        return empty
    found = whole.with_columns(((pl.col("events") - mean) / sd).alias("z")).filter(pl.col("z") >= threshold)
    return found.sort("z", "period", descending=[True, False]).select(
        [pl.col(n).cast(t) for n, t in BURSTS_SCHEMA.items()]
    )

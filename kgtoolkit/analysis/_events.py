"""Event graphs (contract §12): the volume of events per period (:func:`events`), the event graph of a window
(:func:`event_graph`) and how the graph evolved, one snapshot per period (:func:`snapshots`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any, Literal, cast

import polars as pl

from .._errors import InvalidRequest
from ..frames import facts as read_facts
from ..graph import KnowledgeGraph
from ..store import event_counts, event_pairs
from ._periods import MAX_PERIODS, _at, _check_every, _period_count, _period_start, _too_many_periods
from ._shared import (
    _FIRST,
    _MOMENT,
    Frame,
    Moment,
    _empty,
    _frame,
    _moment,
    _out,
    _since_until,
    _typed,
    _window,
)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: What :func:`events` groups by: the predicate, or the (subject, object) pair of entities.
EventsBy = Literal["predicate", "pair"]
#: Which facts make a period's snapshot in :func:`snapshots`: those valid at its first instant, or those
#: overlapping the whole period (an event graph's events of the period).
SnapshotAt = Literal["start", "period"]


#: :func:`events` without ``by``; with ``by`` the group column(s) come first (``predicate``, or
#: ``subject``, ``subject_name``, ``object``, ``object_name``).
EVENTS_SCHEMA: dict[str, pl.DataType] = {"period": _MOMENT, "events": pl.Int64(), "change": pl.Int64()}
#: :func:`event_graph`: one row per (subject, object) pair of entities with events in the window.
EVENT_GRAPH_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(),
    "subject_name": pl.String(),
    "object": pl.String(),
    "object_name": pl.String(),
    "events": pl.Int64(),
    "first": _MOMENT,
    "last": _MOMENT,
    "predicates": pl.List(pl.String()),
}
#: :func:`snapshots`: one row per period; a metric not asked for is null.
SNAPSHOTS_SCHEMA: dict[str, pl.DataType] = {
    "period": _MOMENT,
    "nodes": pl.Int64(),
    "edges": pl.Int64(),
    "mean_degree": pl.Float64(),
    "components": pl.Int64(),
    "largest_component": pl.Int64(),
}


def _polars(facts: Frame) -> tuple[pl.DataFrame, bool]:
    """The input as polars, and whether it was pandas (anything else is left for :func:`_frame` to refuse)."""
    if isinstance(facts, pl.DataFrame):
        return facts, False
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return facts, False
    if isinstance(facts, pd.DataFrame):
        return pl.from_pandas(facts), True
    return facts, False


def _event_rows(facts: Frame) -> tuple[pl.DataFrame, bool]:
    """The events of a facts frame that can be dated: a ``kind`` column saying ``"event"`` when the frame has
    one, else the event rule on its bounds (:func:`._shared._frame`: one day or one instant, written so); a known
    start."""
    raw, was_pandas = _polars(facts)
    df, _ = _frame(raw)
    return df.filter((pl.col("kind") == "event").fill_null(False) & pl.col("start").is_not_null()), was_pandas


def events(
    facts: Frame | KnowledgeGraph,
    *,
    every: str = "1mo",
    by: EventsBy | None = None,
    since: Moment = None,
    until: Moment = None,
) -> Frame:
    """Count the events per period: the volume of an event graph (ICEWS, GDELT) and its change.

    An **event** is a fact whose ``kind`` is ``"event"``; without a ``kind`` column, one whose
    ``valid_from`` equals its ``valid_to``. An event belongs to the period holding its start. Events with an
    unknown start, and state facts, are left out. ``change`` is ``events`` minus the previous period's
    count, so a spike shows as a large positive change.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph, the events are counted in the engine
        (``kgtoolkit.store.event_counts``) and the answer equals this function's on ``frames.facts(kg)``.
    every
        The period, as :func:`churn` reads it.
    by
        ``"predicate"`` counts per predicate; ``"pair"`` per (subject, object) pair of entities, direction
        kept (events with a value object left out). Groups list only the periods in which they had events.
        Without ``by``, every period in the window has a row, zeros included.
    since, until
        The window (default: the first and last event).

    Returns
    -------
    Frame
        The columns of :data:`EVENTS_SCHEMA`, group columns first, sorted by group, then period.

    Raises
    ------
    InvalidRequest
        A window of more than :data:`MAX_PERIODS` periods without ``by``, or a bad ``every`` or ``by``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> for day in ("2014-01-02", "2014-01-20", "2014-03-05"):
    ...     _ = kg.add("China", "criticize", "Japan", valid_from=day, valid_to=day)
    >>> events(frames.facts(kg)).select(pl.col("period").dt.strftime("%Y-%m"), "events", "change").rows()
    [('2014-01', 2, 2), ('2014-02', 0, -2), ('2014-03', 1, 1)]
    """
    if by not in (None, "predicate", "pair"):
        raise InvalidRequest(f"by must be 'predicate', 'pair' or None, not {by!r}", field="by", value=str(by))
    _check_every(every)
    lo, hi = _since_until(since, until)
    keys: list[str] = {None: [], "predicate": ["predicate"], "pair": ["subject", "object"]}[by]
    names = ["subject_name", "object_name"] if by == "pair" else []
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)
    read = event_counts(facts, every, by) if isinstance(facts, KnowledgeGraph) else None
    spelled: pl.DataFrame | None = None
    if read is not None:  # the graph: counted in the engine, one row per (group, period)
        was_pandas, counted = False, read.select(*keys, "period", "events")
        if names:  # the names of a pair's entities, the same on each of its rows
            spelled = read.select(*keys, *names).unique(keys)
    else:  # a frame (or a graph with an every SQL cannot key: its frame)
        df, was_pandas = _event_rows(read_facts(facts) if isinstance(facts, KnowledgeGraph) else facts)
        if by == "pair":
            df = df.filter(~pl.col("object_is_value"))
        counted = (
            df.with_columns(pl.col("start").dt.truncate(every).alias("period"))
            .group_by([*keys, "period"])
            .agg(pl.len().cast(pl.Int64).alias("events"))
        )
        if names:
            spelled = df.sort("id").group_by(keys, maintain_order=True).agg(*(pl.col(n).first() for n in names))
    return _out(_finish(counted, spelled, by, every, first, last), was_pandas)


def _finish(
    counted: pl.DataFrame,
    spelled: pl.DataFrame | None,
    by: EventsBy | None,
    every: str,
    first: int | None,
    last: int | None,
) -> pl.DataFrame:
    """The events table from the counts per (group, period) (``counted``: ``events``) and a pair's names
    (``spelled``), for the periods from ``first`` to ``last`` (period starts in microseconds; None: the counts'
    own). Wherever the counts were made (a frame here, the engine, or Spark: :mod:`kgtoolkit.spark`), the table is
    laid out here."""
    keys: list[str] = {None: [], "predicate": ["predicate"], "pair": ["subject", "object"]}[by]
    schema = {
        **{c: pl.String() for c in (["subject", "subject_name", "object", "object_name"] if by == "pair" else keys)},
        **EVENTS_SCHEMA,
    }
    if counted.height == 0 and (by is not None or first is None or last is None):
        return _empty(schema)
    if by is None:
        seen = counted["period"].to_physical()
        lo_us = first if first is not None else cast(int, seen.min())
        hi_us = last if last is not None else cast(int, seen.max())
        count = _period_count(lo_us, hi_us, every) if hi_us >= lo_us else 0
        if count > MAX_PERIODS:
            raise _too_many_periods(every, lo_us, hi_us, count, table="an events table")
        grid = pl.select(
            pl.datetime_range(_at(lo_us), _at(hi_us), interval=every, time_unit="us", time_zone="UTC")
            .dt.truncate(every)
            .unique()
            .sort()
            .alias("period")
        )
        table = grid.join(counted, on="period", how="left").with_columns(pl.col("events").fill_null(0))
    else:
        table = counted
    # The previous period's count, from every event (a window's first period still compares with the one before).
    previous = counted.select(
        *keys, pl.col("period").dt.offset_by(every).alias("period"), pl.col("events").alias("_previous")
    )
    table = table.join(previous, on=[*keys, "period"], how="left").with_columns(
        (pl.col("events") - pl.col("_previous").fill_null(0)).alias("change")
    )
    if first is not None:
        table = table.filter(pl.col("period") >= _at(first))
    if last is not None:
        table = table.filter(pl.col("period") <= _at(last))
    if spelled is not None:
        table = table.join(spelled, on=keys, how="left")
    table = table.sort([*keys, "period"]).with_columns(pl.col("period").clip(lower_bound=_FIRST))
    return _typed(table, schema)


def event_graph(facts: Frame | KnowledgeGraph, *, start: Moment = None, end: Moment = None) -> Frame:
    """Build the event graph of a window: one edge per (subject, object) pair, aggregating its events.

    The events are those :func:`events` finds, between two entities, the direction kept. Draw it with the
    edge width by ``events``. :func:`kgtoolkit.frames.to_networkx` with ``during=(start, end)`` gives the
    same events one edge each.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph, the events are grouped in the engine
        (``kgtoolkit.store.event_pairs``) and the answer equals this function's on ``frames.facts(kg)``.
    start, end
        Dates or datetimes, both included; a day or a month means all of it (default: every event).

    Returns
    -------
    Frame
        The columns of :data:`EVENT_GRAPH_SCHEMA`: per pair ``events``, ``first`` and ``last`` (starts),
        ``predicates`` (sorted) and the names of its first event. Most events first, then by subject and
        object.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("China", "criticize", "Japan", valid_from="2014-01-02", valid_to="2014-01-02")
    >>> _ = kg.add("China", "consult", "Japan", valid_from="2014-01-09", valid_to="2014-01-09")
    >>> _ = kg.add("Japan", "consult", "China", valid_from="2014-02-01", valid_to="2014-02-01")
    >>> event_graph(frames.facts(kg), start="2014-01", end="2014-01").select(
    ...     "subject", "object", "events", "predicates").rows()
    [('china', 'japan', 2, ['consult', 'criticize'])]
    """
    lo, hi = _moment(start, field="start"), _moment(end, field="end", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"end {end} is before start {start}", field="end", value=str(end))
    pair = ["subject", "object"]
    if isinstance(facts, KnowledgeGraph):  # grouped in the engine: one row per (pair, predicate) comes back
        read = event_pairs(facts, _microseconds(lo), _microseconds(hi))
        table = read.group_by(pair).agg(
            pl.col("subject_name").first(),
            pl.col("object_name").first(),
            pl.col("events").sum(),
            pl.col("first").min().cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
            pl.col("last").max().cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
            pl.col("predicate").sort().alias("predicates"),
        )
        was_pandas = False
    else:
        df, was_pandas = _event_rows(facts)
        df = df.filter(~pl.col("object_is_value") & _window("start", lo, hi)).sort("id")
        table = df.group_by(pair, maintain_order=True).agg(
            pl.col("subject_name").first(),
            pl.col("object_name").first(),
            pl.len().cast(pl.Int64).alias("events"),
            pl.col("start").min().alias("first"),
            pl.col("start").max().alias("last"),
            pl.col("predicate").unique().sort().alias("predicates"),
        )
    table = table.sort(["events", *pair], descending=[True, False, False])
    return _out(_typed(table, EVENT_GRAPH_SCHEMA), was_pandas)


def _microseconds(moment: dt.datetime | None) -> int | None:
    """A UTC datetime as microseconds since 1970 (None stays None)."""
    return None if moment is None else (moment - _EPOCH) // dt.timedelta(microseconds=1)


_METRICS = ("degree", "components")


def snapshots(
    graph: KnowledgeGraph | Frame,
    *,
    every: str = "1mo",
    metrics: Iterable[str] = _METRICS,
    start: Moment = None,
    end: Moment = None,
    at: SnapshotAt = "start",
) -> Frame:
    """Measure how the graph evolved: one row per period, with metrics of the graph valid then.

    A period's snapshot is the graph of the facts between two entities (value facts are not edges) valid
    at the period's first instant: what :func:`kgtoolkit.frames.to_networkx` gives with that ``as_of``. An
    unknown start counts as "since always". Masks are vectorised (numpy); components are counted with
    rustworkx.

    Parameters
    ----------
    graph
        A graph (its facts are read with :func:`kgtoolkit.frames.facts`) or a facts frame.
    every
        The period, as :func:`churn` reads it.
    metrics
        ``"degree"`` gives ``mean_degree`` (2 × edges / nodes, as networkx counts a ``MultiDiGraph``);
        ``"components"`` gives ``components`` (weakly connected) and ``largest_component``. A metric not
        asked for is null.
    start, end
        The first and last period's instants (default: the first and last start or end of a fact).
    at
        ``"start"``: the facts valid at the period's first instant. ``"period"``: the facts overlapping
        any part of it (for an event graph, the period's events).

    Returns
    -------
    Frame
        The columns of :data:`SNAPSHOTS_SCHEMA`: per period ``nodes``, ``edges`` (one per fact) and the
        metrics. An empty snapshot has 0 nodes and null metrics.

    Raises
    ------
    InvalidRequest
        More than :data:`MAX_PERIODS` periods, an unknown metric, or a bad ``every`` or ``at``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("a", "knows", "b", valid_from="2026-01-01")
    >>> _ = kg.add("c", "knows", "d", valid_from="2026-02-10", valid_to="2026-03-20")
    >>> snapshots(kg, start="2026-01", end="2026-04").select(
    ...     pl.col("period").dt.strftime("%Y-%m"), "nodes", "edges", "components").rows()
    [('2026-01', 2, 1, 1), ('2026-02', 2, 1, 1), ('2026-03', 4, 2, 2), ('2026-04', 2, 1, 1)]
    """
    import numpy as np

    _check_every(every)
    if isinstance(metrics, str):
        raise InvalidRequest(
            "metrics must be a collection of metric names, not one string", field="metrics", value=metrics
        )
    asked = list(metrics)
    unknown = [m for m in asked if m not in _METRICS]
    if unknown:
        raise InvalidRequest(
            f"unknown metric {unknown[0]!r}; metrics are {', '.join(_METRICS)}",
            field="metrics",
            value=str(unknown[0]),
            suggestions=list(_METRICS),
        )
    if at not in ("start", "period"):
        raise InvalidRequest(f"at must be 'start' or 'period', not {at!r}", field="at", value=str(at))
    lo, hi = _moment(start, field="start"), _moment(end, field="end", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"end {end} is before start {start}", field="end", value=str(end))
    if isinstance(graph, KnowledgeGraph):
        graph = cast(pl.DataFrame, read_facts(graph))
    df, was_pandas = _frame(graph)
    df = df.filter(~pl.col("object_is_value"))
    instants = pl.concat([df["start"].to_physical(), df["end"].to_physical()]).drop_nulls()
    first = _period_start(lo, every) if lo is not None else None
    last = _period_start(hi, every) if hi is not None else None
    if instants.len():
        first = first if first is not None else _period_start(cast(int, instants.min()), every)
        last = last if last is not None else _period_start(cast(int, instants.max()), every)
    if first is None or last is None or last < first:
        return _out(_empty(SNAPSHOTS_SCHEMA), was_pandas)
    count = _period_count(first, last, every)
    if count > MAX_PERIODS:
        raise _too_many_periods(every, first, last, count, table="a snapshots table", window="start/end")
    grid = pl.select(
        pl.datetime_range(_at(first), _at(last), interval=every, time_unit="us", time_zone="UTC")
        .dt.truncate(every)
        .unique()
        .sort()
        .alias("period")
    )
    bounds = grid.select(
        pl.col("period").to_physical().alias("lo"), (pl.col("period").dt.offset_by(every).to_physical() - 1).alias("hi")
    )
    # Entities as dense integers, each fact an (i, j) pair; an unknown start or an open end as the widest bound.
    ends = pl.concat([df["subject"], df["object"]]).rank("dense").cast(pl.Int64).to_numpy() - 1
    src, dst = ends[: df.height], ends[df.height :]
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    starts = df["start"].to_physical().fill_null(low).to_numpy()
    stops = df["end"].to_physical().fill_null(high).to_numpy()
    entities = int(ends.max()) + 1 if ends.size else 0
    rows: dict[str, list[Any]] = {name: [] for name in SNAPSHOTS_SCHEMA if name != "period"}
    for period_lo, period_hi in bounds.iter_rows():
        mask = (starts <= (period_lo if at == "start" else period_hi)) & (stops >= period_lo)
        a, b = src[mask], dst[mask]
        seen = np.zeros(entities, dtype=bool)
        seen[a] = True
        seen[b] = True
        nodes, edges = int(seen.sum()), int(mask.sum())
        rows["nodes"].append(nodes)
        rows["edges"].append(edges)
        rows["mean_degree"].append(2 * edges / nodes if nodes and "degree" in asked else None)
        components = largest = None
        if nodes and "components" in asked:
            dense = np.cumsum(seen) - 1  # each active entity's number among the snapshot's nodes
            components, largest = _components(dense[a], dense[b], nodes)
        rows["components"].append(components)
        rows["largest_component"].append(largest)
    table = grid.with_columns(
        pl.col("period").clip(lower_bound=_FIRST),
        *(pl.Series(name, values, dtype=SNAPSHOTS_SCHEMA[name]) for name, values in rows.items()),
    )
    return _out(_typed(table, SNAPSHOTS_SCHEMA), was_pandas)


def _components(a: Any, b: Any, nodes: int) -> tuple[int, int]:
    """The number of connected components of the graph of ``nodes`` nodes and edges ``a[i]``–``b[i]``, and the
    size of the largest (rustworkx)."""
    import rustworkx as rx

    g = rx.PyGraph(multigraph=True, node_count_hint=nodes, edge_count_hint=len(a))  # no check for parallel edges
    g.add_nodes_from([None] * nodes)
    g.extend_from_edge_list(list(zip(a.tolist(), b.tolist(), strict=True)))
    parts = rx.connected_components(g)
    return len(parts), max(len(p) for p in parts)

"""Analysis of a graph's history on a facts frame: timelines, Gantt bars, conflicts, churn, connectedness.

Every function takes a frame shaped like :func:`kgtoolkit.frames.facts` (polars; a pandas frame
is converted and the answer converted back), not the graph, so it works on any filtered frame.
No SQL here: the store modules read the data, this module only computes on frames.

Time conventions (the store's, contract §4):

* ``start``/``end`` are UTC datetimes; a null ``start`` is an **unknown start**, which the store
  treats as "valid since before anything" (an ``as_of`` query always matches it); a null ``end``
  is an open (current) fact.
* A date-only ``valid_to`` covers its whole day (``end`` is its last microsecond), so interval
  lengths and Gantt bars close it at the following midnight: ``2026-03-02 … 2026-03-02`` lasts one
  day, a datetime interval lasts exactly ``end - start``.
* Periods (:func:`churn`) are polars truncations (``dt.truncate(every)``) of the UTC instants, the
  windows ``group_by_dynamic`` would use: ``"1mo"`` periods start on the 1st at 00:00 UTC, ``"1w"``
  on Mondays. An end belongs to the period holding its instant, so a fact ending on 2026-10-31 (a
  date) ends in October. A period that begins before 0001-01-01 (``"7d"`` or ``"10y"`` periods
  holding that day) is dated 0001-01-01, the first instant a Python datetime holds.
* The store's bounds reach 0001-01-01 … 9999-12-31; an instant computed past the last one (the
  midnight closing a date-only ``valid_to`` of 9999-12-31, a Gantt bar's end) is clipped to
  9999-12-31 23:59:59.999999, as no later datetime exists in Python.

>>> import kgtoolkit
>>> from kgtoolkit import analysis, frames
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
>>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
>>> analysis.timeline(frames.facts(kg)).select("event", "object", "when").rows()
[('started', 'redis', '2026-03-02'), ('started', 'sqlite', '2026-10-12'), ('ended', 'redis', '2026-10-12')]
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Union, cast

import polars as pl

from ._checks import whole_number
from ._errors import InvalidRequest
from ._names import normalize_name, normalize_predicate
from ._records import is_event
from ._time import TimeInput, instant_key, parse_window
from ._validity import Clock, frame_keys, scheduled, state_expr, valid_at
from .frames import FACTS_SCHEMA

if TYPE_CHECKING:
    import pandas as pd

    from .graph import KnowledgeGraph

__all__ = [
    "CHURN_SCHEMA",
    "CONFLICTS_SCHEMA",
    "CONNECTED_SCHEMA",
    "EVENTS_SCHEMA",
    "EVENT_GRAPH_SCHEMA",
    "GANTT_SCHEMA",
    "MAX_PERIODS",
    "MOST_CHANGED_SCHEMA",
    "SNAPSHOTS_SCHEMA",
    "TIMELINE_SCHEMA",
    "VOLATILE_SCHEMA",
    "churn",
    "conflicts",
    "event_graph",
    "events",
    "gantt",
    "most_changed",
    "most_connected",
    "most_volatile",
    "snapshots",
    "timeline",
]

Frame = Union[pl.DataFrame, "pd.DataFrame"]
GroupBy = Literal["subject", "predicate"]
#: What :func:`events` groups by: the predicate, or the (subject, object) pair of entities.
EventsBy = Literal["predicate", "pair"]
#: Which facts make a period's snapshot in :func:`snapshots`: those valid at its first instant, or those
#: overlapping the whole period (an event graph's events of the period).
SnapshotAt = Literal["start", "period"]
#: What :func:`most_volatile` groups by: an entity on either side of a fact, the subject only, or the predicate.
VolatileBy = Literal["entity", "subject", "predicate"]
Moment = TimeInput | None

_UTC = dt.UTC
_MOMENT = pl.Datetime("us", "UTC")
_SPAN = pl.Duration("us")
_ONE_US = dt.timedelta(microseconds=1)
_FIRST = dt.datetime.min.replace(tzinfo=_UTC)  # the first and last instants a Python datetime holds
_LAST = dt.datetime.max.replace(tzinfo=_UTC)
_DURATION = re.compile(r"(\d+)(ns|us|ms|mo|s|m|h|d|w|q|y)")
_MONTHS = {"mo": 1, "q": 3, "y": 12}  # calendar units, in months
_NANOSECONDS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3_600 * 10**9,
                "d": 86_400 * 10**9, "w": 7 * 86_400 * 10**9}  # fixed units (UTC days are 24 h)
_LONGER = ("1w", "1mo", "3mo", "1y", "10y", "100y", "1000y")  # the periods suggested when there are too many
_REQUIRED = ("id", "subject", "predicate", "object", "start", "end")

#: The most periods :func:`churn` lays out without ``by`` (one row each, zeros included); a window
#: needing more raises :class:`~kgtoolkit.InvalidRequest` (``field="every"``) instead of filling memory.
MAX_PERIODS = 100_000

# The columns of a facts frame (kgtoolkit.frames.FACTS_SCHEMA), kept here so this module does not need the store.
FACT_COLUMNS: dict[str, pl.DataType] = FACTS_SCHEMA  # the columns of frames.facts

#: :func:`timeline`: the event, then every column of the fact, then its length.
TIMELINE_SCHEMA: dict[str, pl.DataType] = {
    "event": pl.String(), "at": _MOMENT, "when": pl.String(), **FACT_COLUMNS, "duration": _SPAN,
}
#: :func:`gantt`: one bar per fact with a known start.
GANTT_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "label": pl.String(), "subject": pl.String(), "predicate": pl.String(), "object": pl.String(),
    "start": _MOMENT, "end": _MOMENT, "open_end": pl.Boolean(), "current": pl.Boolean(), "state": pl.String(),
    "duration": _SPAN,
}
#: :func:`conflicts`: one row per (subject, predicate) group with more than one distinct object.
CONFLICTS_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(), "subject_name": pl.String(), "predicate": pl.String(), "objects": pl.Int64(),
    "object_names": pl.List(pl.String()), "facts": pl.List(pl.Int64()), "current": pl.Int64(),
    "needs_action": pl.Boolean(), "current_objects": pl.List(pl.String()), "overlap_start": _MOMENT,
    "overlap": _SPAN, "open_since": _MOMENT, "open_for": _SPAN, "scheduled": pl.Int64(), "planned_switch": pl.String(),
    "switch_overlaps": pl.Boolean(),
}
#: :func:`churn` without ``by``; with ``by`` the group column(s) come first (``predicate``, or
#: ``subject`` and ``subject_name``).
CHURN_SCHEMA: dict[str, pl.DataType] = {
    "period": _MOMENT, "added": pl.Int64(), "ended": pl.Int64(), "net": pl.Int64(), "active_at_start": pl.Int64(),
    "active_at_end": pl.Int64(), "churn_rate": pl.Float64(), "events": pl.Int64(), "events_change": pl.Int64(),
}
#: :func:`most_volatile` after its key column(s) (``entity`` and ``entity_name``, ``subject`` and
#: ``subject_name``, or ``predicate``).
VOLATILE_SCHEMA: dict[str, pl.DataType] = {
    "changes": pl.Int64(), "added": pl.Int64(), "ended": pl.Int64(), "facts": pl.Int64(), "current": pl.Int64(),
    "events": pl.Int64(),
}
#: :func:`most_changed`.
MOST_CHANGED_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(), "subject_name": pl.String(), "predicate": pl.String(), "changes": pl.Int64(),
    "facts": pl.Int64(), "objects": pl.Int64(), "history": pl.List(pl.String()),
    "current_objects": pl.List(pl.String()), "first_start": _MOMENT, "last_change": _MOMENT,
}
#: :func:`events` without ``by``; with ``by`` the group column(s) come first (``predicate``, or
#: ``subject``, ``subject_name``, ``object``, ``object_name``).
EVENTS_SCHEMA: dict[str, pl.DataType] = {"period": _MOMENT, "events": pl.Int64(), "change": pl.Int64()}
#: :func:`event_graph`: one row per (subject, object) pair of entities with events in the window.
EVENT_GRAPH_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(), "subject_name": pl.String(), "object": pl.String(), "object_name": pl.String(),
    "events": pl.Int64(), "first": _MOMENT, "last": _MOMENT, "predicates": pl.List(pl.String()),
}
#: :func:`snapshots`: one row per period; a metric not asked for is null.
SNAPSHOTS_SCHEMA: dict[str, pl.DataType] = {
    "period": _MOMENT, "nodes": pl.Int64(), "edges": pl.Int64(), "mean_degree": pl.Float64(),
    "components": pl.Int64(), "largest_component": pl.Int64(),
}
#: :func:`most_connected`.
CONNECTED_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(), "name": pl.String(), "type": pl.String(), "facts": pl.Int64(), "outgoing": pl.Int64(),
    "incoming": pl.Int64(),
}


# ---------------------------------------------------------------------- input and output


def _frame(facts: Frame) -> tuple[pl.DataFrame, bool]:
    """The input as a polars frame with every facts column typed (missing optional columns filled)."""
    was_pandas = False
    if not isinstance(facts, pl.DataFrame):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a dependency
            pd = None
        if pd is None or not isinstance(facts, pd.DataFrame):
            raise InvalidRequest(f"facts must be a polars or pandas DataFrame (kgtoolkit.frames.facts), not "
                                 f"{type(facts).__name__}", field="facts")
        facts, was_pandas = pl.from_pandas(facts), True
    missing = [c for c in _REQUIRED if c not in facts.columns]
    if missing:
        raise InvalidRequest(f"the facts frame has no {', '.join(missing)} column; build it with "
                             "kgtoolkit.frames.facts(kg)", field=missing[0])
    df = facts
    for column in ("start", "end", "recorded_at", "invalidated_at"):
        if column not in df.columns:
            continue
        dtype = df.schema[column]
        if isinstance(dtype, pl.Datetime):
            expr = pl.col(column)
            expr = expr.dt.replace_time_zone("UTC") if dtype.time_zone is None else expr.dt.convert_time_zone("UTC")
            df = df.with_columns(expr.dt.cast_time_unit("us"))
        elif dtype != pl.Null:
            raise InvalidRequest(f"column {column!r} must hold datetimes (UTC), not {dtype}", field=column)
    if "kind" not in df.columns:  # the bounds' part of the event rule (contract §12); declarations need the graph
        same = (is_event(pl.lit(False), pl.lit(False), pl.col("valid_from"), pl.col("valid_to")).fill_null(False)
                if "valid_from" in df.columns and "valid_to" in df.columns else pl.lit(False))
        df = df.with_columns(pl.when(same).then(pl.lit("event")).otherwise(pl.lit("state")).alias("kind"))
    state = state_expr(*frame_keys(), pl.col("kind") == "event", Clock.real())  # contract §4, one rule
    defaults: dict[str, pl.Expr] = {
        "subject_name": pl.col("subject"), "object_name": pl.col("object"), "object_is_value": pl.lit(False),
        "current": state == "current", "state": state,
    }
    fill = [defaults.get(name, pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in FACT_COLUMNS.items() if name not in df.columns]
    if fill:
        df = df.with_columns(fill)
    return df.select([pl.col(n).cast(t) for n, t in FACT_COLUMNS.items()]), was_pandas


def _out(frame: pl.DataFrame, was_pandas: bool) -> Any:
    return frame.to_pandas() if was_pandas else frame


def _typed(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return frame.select([pl.col(n).cast(t) for n, t in schema.items()])


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def _moment(value: Moment, *, field: str, end: bool = False) -> dt.datetime | None:
    """A UTC datetime from a time input: a day or month means its first instant (its last when ``end``)."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=_UTC)
    window = parse_window(value, field=field)
    key = window.hi if end else window.lo
    return dt.datetime(1970, 1, 1, tzinfo=_UTC) + dt.timedelta(microseconds=key)


def _since_until(since: Moment, until: Moment) -> tuple[dt.datetime | None, dt.datetime | None]:
    """A window's bounds (``until`` to the end of its period); ``until`` before ``since`` is refused."""
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"until {until} is before since {since}", field="until", value=str(until))
    return lo, hi


def _now(now: Moment) -> dt.datetime:
    return _moment(now, field="now") or dt.datetime.now(_UTC)


def _object_key() -> pl.Expr:
    """What makes two objects the same: the entity id, or the value text case-folded (contract §2)."""
    folded = pl.col("object").map_batches(
        lambda s: pl.Series(s.name, [None if v is None else v.casefold() for v in s.to_list()], dtype=pl.String),
        return_dtype=pl.String)
    return pl.when(pl.col("object_is_value")).then(folded).otherwise(pl.col("object")).alias("_key")


def _closing_end() -> pl.Expr:
    """``end``, with a date-only ``valid_to`` closed at the next midnight (its day counts whole)."""
    date_only = pl.col("valid_to").is_not_null() & ~pl.col("valid_to").str.contains("T", literal=True)
    return pl.when(date_only).then(pl.col("end") + _ONE_US).otherwise(pl.col("end"))


def _sorted_by_start(df: pl.DataFrame) -> pl.DataFrame:
    """Rows by ``start`` (unknown starts last), then ``id``: a sort by id, then a stable sort by start."""
    if not df["id"].is_sorted():
        df = df.sort("id", nulls_last=True)
    return df.sort("start", nulls_last=True, maintain_order=True)


def _filter(df: pl.DataFrame, entity: str | None, predicate: str | None) -> pl.DataFrame:
    if entity is not None:
        key = normalize_name(entity, field="entity")
        df = df.filter((pl.col("subject") == key) | (~pl.col("object_is_value") & (pl.col("object") == key)))
    if predicate is not None:
        df = df.filter(pl.col("predicate") == normalize_predicate(predicate))
    return df


def _predicates(names: Iterable[str]) -> list[str]:
    if isinstance(names, str):
        raise InvalidRequest("multi_valued must be a collection of predicates, not one string", field="multi_valued")
    return sorted({normalize_predicate(n) for n in names})


def _step(every: str) -> tuple[int, int]:
    """One period of a checked ``every`` as (months, nanoseconds); polars lets only one be non-zero."""
    months = nanoseconds = 0
    for number, unit in _DURATION.findall(every):
        if unit in _MONTHS:
            months += int(number) * _MONTHS[unit]
        else:
            nanoseconds += int(number) * _NANOSECONDS[unit]
    return months, nanoseconds


def _check_every(every: str) -> None:
    """A positive polars calendar duration (``1d``, ``1w``, ``1mo``, ``3mo``, ``1q``, ``1y``, ``12h`` …).

    A fixed period is a whole number of microseconds, the resolution of the facts' instants.
    """
    parts = _DURATION.findall(every) if isinstance(every, str) else []
    problem = None
    if not parts or "".join(n + u for n, u in parts) != every or not any(int(n) for n, _ in parts):
        problem = "not a positive duration"
    else:
        try:
            pl.Series([dt.datetime(2000, 1, 1, tzinfo=_UTC)]).dt.truncate(every)
        except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
            problem = str(exc).splitlines()[0]
        else:
            months, nanoseconds = _step(every)
            if not months and nanoseconds % 1_000:
                problem = "not a whole number of microseconds, the resolution of the facts' times"
    if problem:
        raise InvalidRequest(f"every {every!r} is not a usable period ({problem}); use a polars duration such as "
                             "'1d', '1w', '1mo', '3mo' or '1y'", field="every", value=str(every))


# ---------------------------------------------------------------------- timeline and gantt


def timeline(facts: Frame, *, entity: str | None = None, predicate: str | None = None) -> Frame:
    """One row per happening, in time order: ``started`` at a fact's start, ``ended`` at its end; an event
    (``kind``, contract §12) has one row, ``occurred`` at its start.

    Columns (:data:`TIMELINE_SCHEMA`): ``event``, ``at`` (the instant), ``when`` (the bound as
    written, ``valid_from``/``valid_to``), every fact column, and ``duration`` (the interval's
    length; null while open or when the start is unknown). A fact with an **unknown start** still
    has its ``started`` row, with a null ``at``, placed last (as :meth:`KnowledgeGraph.timeline`
    puts unknown starts last). Ties are ordered by fact id, a start before its own end.
    ``entity`` (an entity name, normalised; aliases are not resolved) keeps facts where it is the
    subject or the object; ``predicate`` keeps one predicate.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "works_at", "Acme", valid_from="2024-01-01", valid_to="2024-01-31")
    >>> timeline(frames.facts(kg)).select("event", "when", pl.col("duration").dt.total_days()).rows()
    [('started', '2024-01-01', 31), ('ended', '2024-01-31', 31)]
    """
    df, was_pandas = _frame(facts)
    df = _filter(df, entity, predicate).with_columns((_closing_end() - pl.col("start")).alias("duration"))
    event = pl.col("kind") == "event"
    started = df.select(pl.when(event).then(pl.lit("occurred")).otherwise(pl.lit("started")).alias("event"),
                        pl.col("start").alias("at"), pl.col("valid_from").alias("when"), pl.all(),
                        pl.lit(0).alias("_order"))
    ended = df.filter(pl.col("end").is_not_null() & ~event).select(
        pl.lit("ended").alias("event"), pl.col("end").alias("at"), pl.col("valid_to").alias("when"), pl.all(),
        pl.lit(1).alias("_order"))
    events = pl.concat([started, ended]).sort(["at", "id", "_order"], nulls_last=True)
    return _out(_typed(events, TIMELINE_SCHEMA), was_pandas)


def gantt(
    facts: Frame,
    *,
    now: Moment = None,
    as_of: Moment = None,
    entity: str | None = None,
    predicate: str | None = None,
    label: Literal["fact", "subject", "predicate", "object"] = "fact",
) -> Frame:
    """One bar per fact, ready for a Gantt chart: ``label``, ``start``, ``end``, ``current``, ``state``.

    ``state`` is the fact's state on ``as_of`` by the store's ``as_of`` rule (a day counts whole, both ends
    count): ``current`` (valid then), ``scheduled`` (starts later) or ``ended``, so a chart of a past date
    colours the bars as they stood on it; without ``as_of``, its state at ``now`` (contract §4: a fact ending
    today is ended, its successor starting today current). An event (contract §12) is ``occurred`` once started,
    never current nor ended.

    Open ends are filled with ``now`` (default: the current time, UTC; ``open_end`` marks them, and
    a fact starting after ``now`` gets a zero-length bar); a date-only ``valid_to`` closes at the
    next midnight (9999-12-31 at its last microsecond, the last datetime; ``duration`` still counts
    the whole day). Facts with an unknown start cannot be drawn and are left out. ``label`` is the
    fact (``subject → predicate → object``, display names) or one of its parts. Sorted by start,
    then id. Columns: :data:`GANTT_SCHEMA`.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    >>> gantt(frames.facts(kg), now="2026-10-22").select("label", pl.col("duration").dt.total_days()).rows()
    [('my_api → uses_queue → SQLite', 10)]
    """
    if label not in ("fact", "subject", "predicate", "object"):
        raise InvalidRequest(f"label must be fact, subject, predicate or object, not {label!r}", field="label",
                             value=str(label))
    moment = _now(now)
    start, end = frame_keys()
    event = pl.col("kind") == "event"
    if as_of is None or as_of == "":
        state = state_expr(start, end, event, Clock.at(instant_key(moment)))
    else:
        window = parse_window(as_of, field="as_of")
        lo, hi = pl.lit(window.lo), pl.lit(window.hi)
        state = (pl.when(scheduled(start, hi)).then(pl.lit("scheduled")).when(event).then(pl.lit("occurred"))
                 .when(valid_at(start, end, lo, hi)).then(pl.lit("current")).otherwise(pl.lit("ended")))
    df, was_pandas = _frame(facts)
    df = _filter(df, entity, predicate).filter(pl.col("start").is_not_null())
    text = {
        "fact": pl.concat_str([pl.col("subject_name"), pl.col("predicate"), pl.col("object_name")], separator=" → "),
        "subject": pl.col("subject_name"), "predicate": pl.col("predicate"), "object": pl.col("object_name"),
    }[label]
    bar_end = pl.when(pl.col("end").is_null()).then(pl.max_horizontal(pl.lit(moment).cast(_MOMENT), pl.col("start"))
                                                    ).otherwise(_closing_end())
    bars = df.select(
        "id", text.alias("label"), "subject", "predicate", "object", "start", bar_end.alias("end"),
        pl.col("end").is_null().alias("open_end"), "current",
        state.alias("state"),
    ).with_columns(
        (pl.col("end") - pl.col("start")).alias("duration"),
        pl.col("end").clip(upper_bound=_LAST),  # a valid_to of 9999-12-31 closes past the last datetime
    ).sort(["start", "id"])
    return _out(_typed(bars, GANTT_SCHEMA), was_pandas)


# ---------------------------------------------------------------------- conflicts


def conflicts(facts: Frame, *, multi_valued: Iterable[str] = frozenset(), now: Moment = None) -> Frame:
    """contract §5 conflict groups for the whole frame in one pass, those needing action first.

    A group is a (subject, predicate) with more than one distinct object (value objects compared
    case-insensitively, entity objects by id); predicates in ``multi_valued`` are left out (pass
    ``kg.config.multi_valued`` to match :meth:`KnowledgeGraph.conflicts`, which it then equals
    group for group on an unfiltered frame). Events (``kind``, contract §12) are never in a conflict: another
    event of the same subject and predicate is one more occurrence. Columns (:data:`CONFLICTS_SCHEMA`): ``objects`` (distinct
    count) and ``object_names``, ``facts`` (ids, ordered as the store orders them: by start,
    unknown starts last, then id), ``current`` (count), ``needs_action`` (more than one current
    fact), ``current_objects``, and, for groups with more than one current fact: ``overlap_start`` (the latest
    start among the current facts; unknown starts count as "always"), ``overlap`` (from it to
    ``now``), ``open_since`` (when the second current fact started, null if unknown) and ``open_for``
    (from it to ``now``). Durations are clipped at zero for facts starting after ``now``.
    ``scheduled`` counts the facts in that state (the frame's ``state``, contract §4); ``planned_switch``
    and ``switch_overlaps`` are those of :class:`~kgtoolkit.ConflictGroup` (a planned switch that overlaps
    needs action too).

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("svc", "owned_by", "team_a", valid_from="2026-01-01")
    >>> _ = kg.add("svc", "owned_by", "team_b", valid_from="2026-03-01")
    >>> row = conflicts(frames.facts(kg), now="2026-03-11").row(0, named=True)
    >>> row["needs_action"], row["current_objects"], row["open_for"].days
    (True, ['team_a', 'team_b'], 10)
    """
    moment = _now(now)
    df, was_pandas = _frame(facts)
    df = (df.filter(~pl.col("predicate").is_in(_predicates(multi_valued)) & (pl.col("kind") != "event"))
          .select("subject", "subject_name", "predicate", "object", "object_is_value", "object_name", "id", "current",
                  "start", "state", "end", "valid_from", "valid_to")
          .with_columns(_object_key()))
    if df.height == 0:
        return _out(_empty(CONFLICTS_SCHEMA), was_pandas)
    # The store's order within a group (start, unknown starts last, then id) as two one-key sorts (the second
    # stable): far cheaper than one sort on several keys. group_by keeps each group's rows in frame order.
    df = _sorted_by_start(df).with_columns(pl.struct("subject", "predicate", "_key").is_first_distinct().alias("_first"))
    known = pl.col("current") & pl.col("start").is_not_null()
    groups = (
        df.group_by(["subject", "predicate"])
        .agg(
            pl.col("subject_name").first(),
            pl.col("_first").sum().cast(pl.Int64).alias("objects"),
            pl.col("object_name").filter(pl.col("_first")).alias("object_names"),
            pl.col("id").alias("facts"),
            pl.col("current").sum().cast(pl.Int64).alias("current"),
            pl.col("object_name").filter(pl.col("current")).alias("current_objects"),
            pl.col("start").filter(pl.col("current")).max().alias("overlap_start"),
            # open_since is the second current start with unknown starts first: from these three.
            (pl.col("current") & pl.col("start").is_null()).sum().alias("_unknown"),
            pl.col("start").filter(known).first().alias("_first_known"),
            pl.col("start").filter(known).get(1, null_on_oob=True).alias("_second_known"),
            (pl.col("state") == "scheduled").sum().cast(pl.Int64).alias("scheduled"),
        )
        .filter(pl.col("objects") > 1)
    )
    groups = _planned_switches(df, groups).with_columns(
        ((pl.col("current") > 1) | pl.col("switch_overlaps")).alias("needs_action"))
    now_lit = pl.lit(moment).cast(_MOMENT)

    def since(column: str) -> pl.Expr:
        span = now_lit - pl.col(column)
        return pl.when(span < dt.timedelta(0)).then(pl.lit(dt.timedelta(0))).otherwise(span).cast(_SPAN)

    needs = pl.col("current") > 1  # the overlap columns are about current facts (not a planned switch)
    second = (pl.when(pl.col("_unknown") >= 2).then(None).when(pl.col("_unknown") == 1).then(pl.col("_first_known"))
              .otherwise(pl.col("_second_known")))
    groups = groups.with_columns(
        pl.when(needs).then(pl.col("overlap_start")).alias("overlap_start"),
        pl.when(needs).then(second).alias("open_since"),
    ).with_columns(since("overlap_start").alias("overlap"), since("open_since").alias("open_for"))
    groups = groups.sort(["needs_action", "subject", "predicate"], descending=[True, False, False])
    return _out(_typed(groups, CONFLICTS_SCHEMA), was_pandas)


def _planned_switches(df: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """``planned_switch`` and ``switch_overlaps`` of each group, as the store's ``_conflict_group`` decides them:
    at the first scheduled fact S's start, when a started fact of another object is open-ended (overlapping) or
    ends on or after S's start (overlapping when it ends after S's start day; a date end is its whole day)."""
    scheduled = pl.col("state") == "scheduled"
    firsts = (df.filter(scheduled).group_by(["subject", "predicate"], maintain_order=True)
              .agg(pl.col("start").first().alias("_s_start"), pl.col("valid_from").first().alias("_s_text"),
                   pl.col("_key").first().alias("_s_key"))
              .join(groups.select("subject", "predicate"), on=["subject", "predicate"], how="semi"))
    day = dt.timedelta(days=1) - dt.timedelta(microseconds=1)
    end_lo = pl.when(pl.col("valid_to").str.contains("T")).then(pl.col("end")).otherwise(pl.col("end") - day)
    other = (pl.col("_key") != pl.col("_s_key")) & ~scheduled
    open_end = pl.col("end").is_null()
    flags = (df.join(firsts, on=["subject", "predicate"], how="inner")
             .group_by(["subject", "predicate"])
             .agg((other & (open_end | (pl.col("end") >= pl.col("_s_start")))).any().alias("_running"),
                  (other & (open_end | (end_lo > pl.col("_s_start")))).any().alias("switch_overlaps"),
                  pl.col("_s_text").first())
             .select("subject", "predicate",
                     pl.when(pl.col("_running")).then(pl.col("_s_text")).alias("planned_switch"),
                     pl.col("switch_overlaps") & pl.col("_running")))
    return (groups.join(flags, on=["subject", "predicate"], how="left", maintain_order="left")
            .with_columns(pl.col("switch_overlaps").fill_null(False)))


# ---------------------------------------------------------------------- churn


def _occurred_at() -> pl.Expr:
    """When an event happened (contract §12): its start, or its end when the start is unknown."""
    return pl.coalesce("start", "end")


def _events(df: pl.DataFrame, every: str, keys: list[str]) -> pl.DataFrame:
    """Added/ended counts of state facts, and events, per (keys, period) where anything happened."""
    zero, one = pl.lit(0, pl.Int64), pl.lit(1, pl.Int64)
    states, events = df.filter(pl.col("kind") != "event"), df.filter(pl.col("kind") == "event")
    starts = states.filter(pl.col("start").is_not_null()).select(
        *keys, pl.col("start").dt.truncate(every).alias("period"), one.alias("added"), zero.alias("ended"),
        zero.alias("events"))
    ends = states.filter(pl.col("end").is_not_null()).select(
        *keys, pl.col("end").dt.truncate(every).alias("period"), zero.alias("added"), one.alias("ended"),
        zero.alias("events"))
    occurred = events.filter(_occurred_at().is_not_null()).select(
        *keys, _occurred_at().dt.truncate(every).alias("period"), zero.alias("added"), zero.alias("ended"),
        one.alias("events"))
    return pl.concat([starts, ends, occurred]).group_by([*keys, "period"]).agg(
        pl.col("added").sum(), pl.col("ended").sum(), pl.col("events").sum())


def _at(microseconds: int) -> pl.Expr:
    """A UTC instant given in microseconds since 1970 (polars holds instants before year 1, Python does not)."""
    return pl.lit(microseconds, pl.Int64).cast(_MOMENT)


def _period_start(moment: dt.datetime | int, every: str) -> int:
    """The start of the period holding ``moment`` (a datetime, or microseconds since 1970), in microseconds."""
    series = pl.Series([moment], dtype=pl.Int64 if isinstance(moment, int) else _MOMENT).cast(_MOMENT)
    return int(series.dt.truncate(every).to_physical()[0])


def _period_count(first: int, last: int, every: str) -> int:
    """How many periods of ``every`` from the one starting at ``first`` to the one starting at ``last``.

    Computed from the two bounds, so a window of millions of periods costs nothing to measure.
    """
    months, nanoseconds = _step(every)
    if months:
        def month(at: int) -> pl.Expr:
            return _at(at).dt.year().cast(pl.Int64) * 12 + _at(at).dt.month().cast(pl.Int64)

        lo, hi = pl.select(month(first).alias("lo"), month(last).alias("hi")).row(0)
        return int((hi - lo) // months + 1)
    return (last - first) // (nanoseconds // 1_000) + 1


def _too_many_periods(every: str, first: int, last: int, count: int, *, table: str = "a churn table",
                      window: str = "since/until") -> InvalidRequest:
    """The error for a window of more than :data:`MAX_PERIODS` periods, naming a longer period that fits."""
    fits = [c for c in _LONGER
            if _period_count(_period_start(first, c), _period_start(last, c), c) <= min(MAX_PERIODS, count - 1)]
    end = (_at(last).dt.offset_by(every) - _ONE_US).clip(upper_bound=_LAST)  # the last period's last instant
    lo, hi = pl.select(_at(first).clip(lower_bound=_FIRST).alias("lo"), end.alias("hi")).row(0)
    such = f" (such as {fits[0]!r})" if fits else ""
    return InvalidRequest(
        f"every {every!r} makes {count:,} periods from {lo.date().isoformat()} to {hi.date().isoformat()}, more than "
        f"the {MAX_PERIODS:,} {table} holds; choose a longer every{such} or a shorter window with {window}",
        field="every", value=every, periods=count, max_periods=MAX_PERIODS, suggestions=fits[:1])


def churn(
    facts: Frame,
    *,
    every: str = "1mo",
    since: Moment = None,
    until: Moment = None,
    by: GroupBy | None = None,
) -> Frame:
    """State facts added and ended per period, with the number active at each period's start, and the
    volume of events.

    Per period (``every``: a polars duration, ``"1mo"`` by default; periods are
    ``dt.truncate(every)`` of the UTC instants): ``added`` = state facts whose start falls in it,
    ``ended`` = state facts whose end falls in it, ``net`` = added − ended, ``active_at_start`` = state
    facts valid just before the period starts (started before it, not ended before it),
    ``active_at_end`` = active_at_start + net (= the next period's active_at_start), and
    ``churn_rate`` = (added + ended) / active_at_start, null when nothing was active.

    **Events** (``kind``, contract §12) are never added nor ended: ``events`` counts those that occurred in
    the period (at their start; at their end when the start is unknown) and ``events_change`` = events −
    the previous period's events (without ``by``: the period just before, also before ``since``; with
    ``by``: the group's previous listed period, 0 before its first). On an event graph (ICEWS, GDELT)
    these two are the answer and the state columns stay zero.

    **Unknown starts**: such a fact cannot be placed in a period, so it is never counted in
    ``added``; like the store's ``as_of`` it counts as valid since before any period, so it is in
    ``active_at_start`` until its end (which is counted in ``ended`` as usual).

    ``since``/``until`` (dates or datetimes) choose the periods: every period holding an instant
    from ``since`` to ``until`` (default: the first and last start or end in the frame); counts
    before ``since`` still feed ``active_at_start``. Without ``by`` every period in that span has a
    row (zeros included), and only those periods are laid out: a window of more than
    :data:`MAX_PERIODS` periods (``"1d"`` over a fact from 0001 to 9998, ``"1h"`` over more than
    eleven years) raises :class:`~kgtoolkit.InvalidRequest` (``field="every"``, the number of periods
    in ``data["periods"]``, a longer period in ``suggestions``) before anything is allocated.
    ``by="predicate"`` or ``"subject"`` (one row set per subject entity, with its ``subject_name``)
    gives only the periods in which the group had an event, so it has no such limit.
    Columns: :data:`CHURN_SCHEMA`, group columns first.

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
    df, was_pandas = _frame(facts)
    keys: list[str] = [] if by is None else [by]
    schema = {**({"subject": pl.String(), "subject_name": pl.String()} if by == "subject" else {}),
              **({"predicate": pl.String()} if by == "predicate" else {}), **CHURN_SCHEMA}
    # Period starts in microseconds since 1970: a "7d" or "10y" period holding 0001-01-01 begins in year 0.
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)

    events = _events(df, every, keys)
    if by is None:
        if events.height == 0 and (first is None or last is None):
            return _out(_empty(schema), was_pandas)
        seen = events["period"].to_physical()
        bounds = [cast(int, b) for b in (seen.min(), seen.max(), first, last) if b is not None]
        lo_us = first if first is not None else min(bounds)
        hi_us = last if last is not None else max(bounds)
        count = _period_count(lo_us, hi_us, every)
        if count > MAX_PERIODS:
            raise _too_many_periods(every, lo_us, hi_us, count)
        # Only the window's periods are laid out; the events before it are what was active at its start.
        earlier = events.filter(pl.col("period") < _at(lo_us))
        unknown_start = df.filter(pl.col("start").is_null() & (pl.col("kind") != "event")).height
        active = unknown_start + int(earlier["added"].sum()) - int(earlier["ended"].sum())
        baseline = pl.lit(active, pl.Int64)
        grid = pl.select(pl.datetime_range(_at(lo_us), _at(hi_us), interval=every, time_unit="us", time_zone="UTC")
                         .dt.truncate(every).unique().sort().alias("period"))
        table = grid.join(events, on="period", how="left").with_columns(
            pl.col("added").fill_null(0), pl.col("ended").fill_null(0), pl.col("events").fill_null(0)).sort("period")
        previous = _at(_period_start(lo_us - 1, every))  # the period just before the window: events_change's base
        before_window = int(earlier.filter(pl.col("period") == previous)["events"].sum())
    else:
        before_window = 0
        counts = df.filter(pl.col("start").is_null() & (pl.col("kind") != "event")).group_by(keys).agg(
            pl.len().cast(pl.Int64).alias("_baseline"))
        table = events.join(counts, on=keys, how="left").sort([*keys, "period"])
        baseline = pl.col("_baseline").fill_null(0)

    def before(column: str) -> pl.Expr:  # the sum over the group's earlier periods
        total = pl.col(column).cum_sum()
        return (total.over(keys) if keys else total) - pl.col(column)

    table = table.with_columns(
        (baseline + before("added") - before("ended")).alias("active_at_start"),
        (pl.col("added") - pl.col("ended")).alias("net"),
        (pl.col("events") - (pl.col("events").shift(1).over(keys) if keys else pl.col("events").shift(1))
         .fill_null(before_window)).alias("events_change"),
    ).with_columns(
        (pl.col("active_at_start") + pl.col("net")).alias("active_at_end"),
        pl.when(pl.col("active_at_start") > 0)
        .then((pl.col("added") + pl.col("ended")) / pl.col("active_at_start")).alias("churn_rate"),
    )
    if first is not None:
        table = table.filter(pl.col("period") >= _at(first))
    if last is not None:
        table = table.filter(pl.col("period") <= _at(last))
    if by == "subject":
        names = df.group_by("subject").agg(pl.col("subject_name").first())
        table = table.join(names, on="subject", how="left").sort(["subject", "period"])
    table = table.with_columns(pl.col("period").clip(lower_bound=_FIRST))  # a period begun in year 0
    return _out(_typed(table, schema), was_pandas)


def _window(column: str, lo: dt.datetime | None, hi: dt.datetime | None) -> pl.Expr:
    inside = pl.col(column).is_not_null()
    if lo is not None:
        inside = inside & (pl.col(column) >= pl.lit(lo).cast(_MOMENT))
    if hi is not None:
        inside = inside & (pl.col(column) <= pl.lit(hi).cast(_MOMENT))
    return inside


def most_volatile(
    facts: Frame,
    *,
    by: VolatileBy = "entity",
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
) -> Frame:
    """The entities, subjects or predicates with the most changes, most first.

    ``changes`` = ``added`` (state facts started from ``since`` to ``until``; unknown starts never
    count) + ``ended`` (state facts ended then) + ``events`` (events that occurred then, contract §12: at
    their start, or their end when the start is unknown; each counts once). ``by="entity"`` (the default) counts a fact for each
    entity on either side of it (its subject, and its object unless that is a value or the subject
    itself), so a hub that is mostly an object ("who criticised China") counts its changes too;
    ``by="subject"`` counts the subject side only. ``facts`` and ``current`` count the group's facts
    in the frame whatever the window. Groups without changes are left out; ties go by key.
    ``top=None`` keeps every group. Columns: ``entity, entity_name``, ``subject, subject_name`` or
    ``predicate``, then :data:`VOLATILE_SCHEMA`.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("a", "uses", "x", valid_from="2026-01-01")
    >>> _ = kg.supersede("a", "uses", "x", "y", at="2026-02-01")
    >>> _ = kg.add("b", "uses", "x", valid_from="2026-01-01")
    >>> most_volatile(frames.facts(kg), by="subject").select("subject", "changes").rows()
    [('a', 3), ('b', 1)]
    >>> most_volatile(frames.facts(kg)).select("entity", "changes").rows()
    [('a', 3), ('x', 3), ('b', 1), ('y', 1)]
    """
    if by not in ("entity", "subject", "predicate"):
        raise InvalidRequest(f"by must be 'entity', 'subject' or 'predicate', not {by!r}", field="by",
                             value=str(by))
    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    df, was_pandas = _frame(facts)
    if by == "entity":  # each fact once per entity side: the subject, and an entity object other than it
        sides = ["start", "end", "current", "kind"]
        df = pl.concat([
            df.select(pl.col("subject").alias("entity"), pl.col("subject_name").alias("entity_name"), *sides),
            df.filter(~pl.col("object_is_value") & (pl.col("object") != pl.col("subject")))
              .select(pl.col("object").alias("entity"), pl.col("object_name").alias("entity_name"), *sides),
        ])
    named = by in ("entity", "subject")
    keys = [by, f"{by}_name"] if named else ["predicate"]
    state = pl.col("kind") != "event"
    df = df.with_columns(_occurred_at().alias("_occurred"))
    table = (
        df.group_by(by)
        .agg(
            *([pl.col(f"{by}_name").first()] if named else []),
            (_window("start", lo, hi) & state).sum().cast(pl.Int64).alias("added"),
            (_window("end", lo, hi) & state).sum().cast(pl.Int64).alias("ended"),
            pl.len().cast(pl.Int64).alias("facts"),
            pl.col("current").sum().cast(pl.Int64).alias("current"),
            (_window("_occurred", lo, hi) & ~state).sum().cast(pl.Int64).alias("events"),
        )
        .with_columns((pl.col("added") + pl.col("ended") + pl.col("events")).alias("changes"))
        .filter(pl.col("changes") > 0)
        .sort(["changes", by], descending=[True, False])
    )
    if top is not None:
        table = table.head(top)
    schema = {k: pl.String() for k in keys} | VOLATILE_SCHEMA
    return _out(_typed(table, schema), was_pandas)


def most_changed(
    facts: Frame,
    *,
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
    multi_valued: Iterable[str] = frozenset(),
) -> Frame:
    """The (subject, predicate) pairs whose object changed most often, most first.

    A pair's facts are put in order of start (unknown starts first: they hold "since always"),
    then id; each fact whose object differs from the previous fact's object (values compared
    case-insensitively) is one change, dated by its start. With ``since``/``until`` only changes
    dated in that window count (so changes at an unknown time do not). ``history`` lists the
    objects in that order with repeats in a row collapsed; ``current_objects`` the objects of the
    current facts. Pairs without changes, events (contract §12: the next event replaces nothing) and
    ``multi_valued`` predicates are left out; ties go by
    subject, then predicate. Columns: :data:`MOST_CHANGED_SCHEMA`.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2025-01-01")
    >>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2025-06-01")
    >>> _ = kg.supersede("my_api", "uses_queue", "SQLite", "Redis", at="2026-01-01")
    >>> most_changed(frames.facts(kg)).select("changes", "history", "current_objects").rows()
    [(2, ['Redis', 'SQLite', 'Redis'], ['Redis'])]
    """
    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    df, was_pandas = _frame(facts)
    df = df.filter(~pl.col("predicate").is_in(_predicates(multi_valued)) & (pl.col("kind") != "event")) \
        .with_columns(_object_key())
    if df.height == 0:
        return _out(_empty(MOST_CHANGED_SCHEMA), was_pandas)
    pair = ["subject", "predicate"]
    df = df.sort([*pair, "start", "id"], nulls_last=False).with_columns(
        (pl.col("_key") != pl.col("_key").shift(1)).over(pair).fill_null(False).alias("_changed"),
        (pl.int_range(pl.len()).over(pair) == 0).alias("_first"),
    )
    counted = pl.col("_changed")
    if lo is not None or hi is not None:
        counted = counted & _window("start", lo, hi)
    table = (
        df.group_by(pair, maintain_order=True)
        .agg(
            pl.col("subject_name").first(),
            counted.sum().cast(pl.Int64).alias("changes"),
            pl.len().cast(pl.Int64).alias("facts"),
            pl.col("_key").n_unique().cast(pl.Int64).alias("objects"),
            pl.col("object_name").filter(pl.col("_first") | pl.col("_changed")).alias("history"),
            pl.col("object_name").filter(pl.col("current")).alias("current_objects"),
            pl.col("start").min().alias("first_start"),  # the earliest known start
            pl.col("start").filter(pl.col("_changed")).max().alias("last_change"),
        )
        .filter(pl.col("changes") > 0)
        .sort(["changes", "subject", "predicate"], descending=[True, False, False])
    )
    if top is not None:
        table = table.head(top)
    return _out(_typed(table, MOST_CHANGED_SCHEMA), was_pandas)


# ---------------------------------------------------------------------- connectedness


def most_connected(facts: Frame, entities: Frame | None = None, *, top: int | None = None) -> Frame:
    """Entities by the number of facts that touch them, most first (the dashboard's entity lists).

    ``outgoing`` counts the facts an entity is the subject of (value facts included: an email is a
    fact about its entity), ``incoming`` the facts whose object it is (value objects are not
    entities), and ``facts`` both (a fact from an entity to itself counts once in each). With
    ``entities`` (a frame like :func:`kgtoolkit.frames.entities`: ``id``, ``name``, ``type``) every
    one of them is listed, those without facts with 0, named and typed as it says; without it, the
    entities the facts name, with the names and types of the facts frame (the first fact, by id, that
    names each). Ties go by id; ``top=None`` keeps every entity. Columns: :data:`CONNECTED_SCHEMA`.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> _ = kg.add("billing", "uses_queue", "Redis")
    >>> _ = kg.add("billing", "email", "billing@acme.example")
    >>> _ = kg.add("idle", "note", "no relationships", subject_type="project")
    >>> most_connected(frames.facts(kg), top=3).select("id", "facts", "outgoing", "incoming").rows()
    [('billing', 2, 2, 0), ('redis', 2, 0, 2), ('idle', 1, 1, 0)]
    """
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 0):
        raise InvalidRequest(f"top must be a whole number or None, not {top!r}", field="top", value=str(top))
    df, was_pandas = _frame(facts)
    df = df.sort("id", nulls_last=True)
    links = df.filter(~pl.col("object_is_value"))
    outgoing = df.group_by("subject").agg(pl.len().cast(pl.Int64).alias("outgoing")).rename({"subject": "id"})
    incoming = links.group_by("object").agg(pl.len().cast(pl.Int64).alias("incoming")).rename({"object": "id"})
    if entities is None:
        named = pl.concat([
            df.select(pl.col("id").alias("_fact"), pl.lit(0).alias("_side"), pl.col("subject").alias("id"),
                      pl.col("subject_name").alias("name"), pl.col("subject_type").alias("type")),
            links.select(pl.col("id").alias("_fact"), pl.lit(1).alias("_side"), pl.col("object").alias("id"),
                         pl.col("object_name").alias("name"), pl.col("object_type").alias("type")),
        ])
        listed = (named.sort("_fact", "_side", nulls_last=True).group_by("id", maintain_order=True)
                  .agg(pl.col("name").first(), pl.col("type").first()))
    else:
        if not isinstance(entities, pl.DataFrame):
            entities = pl.from_pandas(entities)
        missing = [c for c in ("id", "name", "type") if c not in entities.columns]
        if missing:
            raise InvalidRequest(f"the entities frame has no {', '.join(missing)} column; build it with "
                                 "kgtoolkit.frames.entities(kg)", field=missing[0])
        listed = entities.select(pl.col("id").cast(pl.String), pl.col("name").cast(pl.String),
                                 pl.col("type").cast(pl.String)).unique("id", keep="first", maintain_order=True)
    table = (
        listed.join(outgoing, on="id", how="left").join(incoming, on="id", how="left")
        .with_columns(pl.col("outgoing").fill_null(0), pl.col("incoming").fill_null(0))
        .with_columns((pl.col("outgoing") + pl.col("incoming")).alias("facts"))
        .sort(["facts", "id"], descending=[True, False])
    )
    if top is not None:
        table = table.head(top)
    return _out(_typed(table, CONNECTED_SCHEMA), was_pandas)


# ---------------------------------------------------------------------- events and snapshots (contract §12)


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
    one, else a fact whose ``valid_from`` equals its ``valid_to`` (one day or one instant); a known start."""
    raw, was_pandas = _polars(facts)
    df, _ = _frame(raw)
    if "kind" in raw.columns:
        flag = (raw.get_column("kind").cast(pl.String) == "event").fill_null(False)
    else:
        flag = df.select((pl.col("valid_from") == pl.col("valid_to")).fill_null(False)).to_series()
    df = df.with_columns(flag.alias("_event")).filter(pl.col("_event") & pl.col("start").is_not_null())
    return df.drop("_event"), was_pandas


def events(
    facts: Frame,
    *,
    every: str = "1mo",
    by: EventsBy | None = None,
    since: Moment = None,
    until: Moment = None,
) -> Frame:
    """How many events happened per period: the volume of an event graph (ICEWS, GDELT) and its change.

    An **event** is a fact of a single day or instant: the frame's ``kind`` column says ``"event"`` when it
    has one, else its ``valid_from`` equals its ``valid_to``. An event belongs to the period holding its
    start (periods as in :func:`churn`: ``dt.truncate(every)``); events with an unknown start cannot be
    dated and are left out, as are state facts. ``events`` counts them; ``change`` is ``events`` minus the
    previous period's count (0 when it had none), so a spike shows as a large positive change.

    Without ``by`` every period from the first to the last event (or from ``since`` to ``until``) has a
    row, zeros included (at most :data:`MAX_PERIODS`, as for :func:`churn`). ``by="predicate"`` counts per
    predicate, ``by="pair"`` per (subject, object) pair of entities, the direction kept ((a, b) and (b, a)
    are two pairs; events with a value object are left out), each with the names of its first event;
    both list only the periods in which the group had events. Columns: :data:`EVENTS_SCHEMA`, group columns
    first; sorted by group, then period.

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
    df, was_pandas = _event_rows(facts)
    keys: list[str] = {None: [], "predicate": ["predicate"], "pair": ["subject", "object"]}[by]
    names = ["subject_name", "object_name"] if by == "pair" else []
    schema = {**{c: pl.String() for c in (["subject", "subject_name", "object", "object_name"] if by == "pair"
                                           else keys)}, **EVENTS_SCHEMA}
    if by == "pair":
        df = df.filter(~pl.col("object_is_value"))
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)
    if df.height == 0 and (by is not None or first is None or last is None):
        return _out(_empty(schema), was_pandas)
    counted = (df.with_columns(pl.col("start").dt.truncate(every).alias("period"))
               .group_by([*keys, "period"]).agg(pl.len().cast(pl.Int64).alias("events")))
    if by is None:
        seen = counted["period"].to_physical()
        lo_us = first if first is not None else cast(int, seen.min())
        hi_us = last if last is not None else cast(int, seen.max())
        count = _period_count(lo_us, hi_us, every) if hi_us >= lo_us else 0
        if count > MAX_PERIODS:
            raise _too_many_periods(every, lo_us, hi_us, count, table="an events table")
        grid = pl.select(pl.datetime_range(_at(lo_us), _at(hi_us), interval=every, time_unit="us", time_zone="UTC")
                         .dt.truncate(every).unique().sort().alias("period"))
        table = grid.join(counted, on="period", how="left").with_columns(pl.col("events").fill_null(0))
    else:
        table = counted
    # The previous period's count, from every event (a window's first period still compares with the one before).
    previous = counted.select(*keys, pl.col("period").dt.offset_by(every).alias("period"),
                              pl.col("events").alias("_previous"))
    table = table.join(previous, on=[*keys, "period"], how="left").with_columns(
        (pl.col("events") - pl.col("_previous").fill_null(0)).alias("change"))
    if first is not None:
        table = table.filter(pl.col("period") >= _at(first))
    if last is not None:
        table = table.filter(pl.col("period") <= _at(last))
    if names:
        spelled = df.sort("id").group_by(keys, maintain_order=True).agg(*(pl.col(n).first() for n in names))
        table = table.join(spelled, on=keys, how="left")
    table = table.sort([*keys, "period"]).with_columns(pl.col("period").clip(lower_bound=_FIRST))
    return _out(_typed(table, schema), was_pandas)


def event_graph(facts: Frame, *, start: Moment = None, end: Moment = None) -> Frame:
    """The event graph of a window: one edge per (subject, object) pair of entities, aggregating its events.

    Events (as :func:`events` finds them) starting from ``start`` to ``end`` (dates or datetimes, both
    included; a day or month means all of it; default: every event) between two entities, grouped by the
    pair, the direction kept: ``events`` (how many), ``first`` and ``last`` (the earliest and latest start),
    ``predicates`` (the distinct predicates, sorted), and the names of the pair's first event. Most events
    first, then by subject and object. Draw it with edge width by ``events``; :func:`kgtoolkit.frames.to_networkx`
    with ``during=(start, end)`` gives the same events one edge each. Columns: :data:`EVENT_GRAPH_SCHEMA`.

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
    df, was_pandas = _event_rows(facts)
    df = df.filter(~pl.col("object_is_value") & _window("start", lo, hi)).sort("id")
    pair = ["subject", "object"]
    table = (
        df.group_by(pair, maintain_order=True)
        .agg(pl.col("subject_name").first(), pl.col("object_name").first(),
             pl.len().cast(pl.Int64).alias("events"), pl.col("start").min().alias("first"),
             pl.col("start").max().alias("last"), pl.col("predicate").unique().sort().alias("predicates"))
        .sort(["events", *pair], descending=[True, False, False])
    )
    return _out(_typed(table, EVENT_GRAPH_SCHEMA), was_pandas)


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
    """How the graph evolved: one row per period with metrics of its snapshot, the graph valid then.

    ``graph`` is a graph (its facts are read with :func:`kgtoolkit.frames.facts`) or a facts frame. The
    snapshot of a period is the graph of the facts between two entities (value facts are not edges) valid
    at the period's first instant (``at="start"``: what :func:`kgtoolkit.frames.to_networkx` gives with
    ``as_of`` that instant; an unknown start counts as "since always"), or, with ``at="period"``, the facts
    overlapping any part of the period (for an event graph: the period's events). Per period: ``nodes`` (the
    entities with a fact in the snapshot) and ``edges`` (its facts, one each: a multigraph); ``"degree"``:
    ``mean_degree`` (2 × edges / nodes, a fact counting at both ends, as networkx's degree of a
    ``MultiDiGraph``); ``"components"``: ``components`` (weakly connected: the direction of facts ignored)
    and ``largest_component`` (its nodes). A metric not asked for is null; an empty snapshot has 0 nodes
    and null metrics.

    Periods are :func:`churn`'s (``every``, at most :data:`MAX_PERIODS`), from the one holding ``start``
    to the one holding ``end`` (default: the first and last start or end of a fact). The masks are
    vectorised (numpy); components are counted with rustworkx. Columns: :data:`SNAPSHOTS_SCHEMA`.

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
        raise InvalidRequest("metrics must be a collection of metric names, not one string", field="metrics",
                             value=metrics)
    asked = list(metrics)
    unknown = [m for m in asked if m not in _METRICS]
    if unknown:
        raise InvalidRequest(f"unknown metric {unknown[0]!r}; metrics are {', '.join(_METRICS)}", field="metrics",
                             value=str(unknown[0]), suggestions=list(_METRICS))
    if at not in ("start", "period"):
        raise InvalidRequest(f"at must be 'start' or 'period', not {at!r}", field="at", value=str(at))
    lo, hi = _moment(start, field="start"), _moment(end, field="end", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"end {end} is before start {start}", field="end", value=str(end))
    from .graph import KnowledgeGraph as Graph

    if isinstance(graph, Graph):
        from .frames import facts as read_facts

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
    grid = pl.select(pl.datetime_range(_at(first), _at(last), interval=every, time_unit="us", time_zone="UTC")
                     .dt.truncate(every).unique().sort().alias("period"))
    bounds = grid.select(pl.col("period").to_physical().alias("lo"),
                         (pl.col("period").dt.offset_by(every).to_physical() - 1).alias("hi"))
    # Entities as dense integers, each fact an (i, j) pair; an unknown start or an open end as the widest bound.
    ends = pl.concat([df["subject"], df["object"]]).rank("dense").cast(pl.Int64).to_numpy() - 1
    src, dst = ends[:df.height], ends[df.height:]
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
    table = grid.with_columns(pl.col("period").clip(lower_bound=_FIRST),
                              *(pl.Series(name, values, dtype=SNAPSHOTS_SCHEMA[name]) for name, values in rows.items()))
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

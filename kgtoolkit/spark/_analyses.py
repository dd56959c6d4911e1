"""The analyses on a Spark facts frame (:func:`kgtoolkit.spark.read_facts`), each answering as its twin in
:mod:`kgtoolkit.analysis` (and the engine) answers, as a Spark DataFrame with the same columns.

Where the work is: the scans, joins and groupings over every fact run on Spark. What comes back to the driver is
what the engine path brings back to Python too: one row per (group, period) for :func:`churn` and :func:`events`,
laid out by the same code (``analysis._churn._finish``, ``analysis._events._finish``), and the light rows of the
facts changed in a :func:`diff`'s window, paired by the store's own pairing (:func:`kgtoolkit.store.diff_pairs`).
The rules are the rules module's, rendered on Spark columns (:func:`kgtoolkit._validity.spark_keys`,
:func:`~kgtoolkit._validity.spark_state`, :func:`~kgtoolkit._validity.back_to_back`, :func:`~kgtoolkit._records.is_event`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import polars as pl

from .._checks import whole_number
from .._errors import InvalidRequest
from .._names import not_by_subject
from .._time import DAY_US, OPEN_END, OPEN_START, TimeInput, parse_window
from .._validity import back_to_back, spark_keys
from .._validity import valid_at as valid_rule
from .._window import span_keys
from ..analysis import (
    CHURN_SCHEMA,
    CONFLICTS_SCHEMA,
    CONNECTED_SCHEMA,
    EVENT_GRAPH_SCHEMA,
    MOST_CHANGED_SCHEMA,
    VOLATILE_SCHEMA,
)
from ..analysis._churn import GroupBy
from ..analysis._churn import _finish as finish_churn
from ..analysis._events import EventsBy
from ..analysis._events import _finish as finish_events
from ..analysis._periods import _check_every, _period_start
from ..analysis._rankings import VolatileBy
from ..analysis._shared import Moment, _moment, _now, _predicates, _since_until
from ..frames import DIFF_SCHEMA
from ..store import NEAR_DAYS, diff_pairs
from ._frames import checked, from_polars, object_key, period, to_polars

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = [
    "STATS_SCHEMA",
    "churn",
    "conflicts",
    "diff",
    "event_graph",
    "events",
    "most_changed",
    "most_connected",
    "most_volatile",
    "stats",
    "valid_at",
]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: :func:`stats`: the counts of :meth:`kgtoolkit.KnowledgeGraph.stats` a facts frame holds, in one row.
STATS_SCHEMA: dict[str, pl.DataType] = {
    "facts": pl.Int64(),
    "current": pl.Int64(),
    "ended": pl.Int64(),
    "scheduled": pl.Int64(),
    "events": pl.Int64(),
    "value_facts": pl.Int64(),
    "predicates": pl.Int64(),
    "entities": pl.Int64(),
}


def _us(moment: dt.datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // dt.timedelta(microseconds=1)


def _at(microseconds: int) -> Column:
    from pyspark.sql import functions as F

    return F.timestamp_micros(F.lit(microseconds))


def _window(column: str, lo: dt.datetime | None, hi: dt.datetime | None) -> Column:
    """The instant in ``column`` is known and from ``lo`` to ``hi`` (both included)."""
    from pyspark.sql import functions as F

    inside = F.col(column).isNotNull()
    if lo is not None:
        inside = inside & (F.col(column) >= _at(_us(lo) or 0))
    if hi is not None:
        inside = inside & (F.col(column) <= _at(_us(hi) or 0))
    return inside


def _occurred_at() -> Column:
    """When an event happened (contract §12): its start, or its end when the start is unknown."""
    from pyspark.sql import functions as F

    return F.coalesce(F.col("start"), F.col("end"))


def _ints(frame: DataFrame, *columns: str) -> list[Column]:
    from pyspark.sql import functions as F

    return [F.col(c).cast("long").alias(c) for c in columns]


# ---------------------------------------------------------------------- valid at, stats


def valid_at(facts: DataFrame, as_of: TimeInput | None) -> DataFrame:
    """The facts valid at ``as_of`` (a day, a month, a year, an instant or ``START/END``; both ends of an interval
    count, an unknown start is "since always"), as :func:`kgtoolkit.frames.valid_at` and the store's ``as_of``."""
    from pyspark.sql import functions as F

    df = checked(facts)
    window = span_keys(as_of)
    if window is None:
        return df
    start, end = spark_keys()
    return df.filter(valid_rule(start, end, F.lit(window[0]), F.lit(window[1])))


def stats(facts: DataFrame) -> DataFrame:
    """The counts of :meth:`kgtoolkit.KnowledgeGraph.stats` the facts hold, in one row (:data:`STATS_SCHEMA`):
    ``facts``; ``current``, ``ended`` and ``scheduled`` state facts (contract §4); ``events`` (contract §12);
    ``value_facts``; ``predicates`` in use; ``entities`` named by a fact (the graph's own count adds the entities no
    fact names, which a facts frame cannot hold)."""
    from pyspark.sql import functions as F

    df = checked(facts)
    state = F.col("kind") != "event"
    counts = df.agg(
        F.count(F.lit(1)).alias("facts"),
        F.count_if(state & (F.col("state") == "current")).alias("current"),
        F.count_if(state & (F.col("state") == "ended")).alias("ended"),
        F.count_if(state & (F.col("state") == "scheduled")).alias("scheduled"),
        F.count_if(~state).alias("events"),
        F.count_if(F.col("object_is_value")).alias("value_facts"),
        F.count_distinct(F.col("predicate")).alias("predicates"),
    )
    named = (
        df.select(F.col("subject").alias("e"))
        .union(df.filter(~F.col("object_is_value")).select(F.col("object").alias("e")))
        .agg(F.count_distinct("e").alias("entities"))
    )
    return counts.crossJoin(named).select(*_ints(counts, *STATS_SCHEMA))


# ---------------------------------------------------------------------- churn


def _renewals(states: DataFrame) -> DataFrame:
    """The renewals among state facts (contract §11): an ended fact and one of the same triple starting back to back
    with it (:func:`kgtoolkit._validity.back_to_back`), each the other's closest candidate (then the lower id), as
    ``analysis._churn._renewals`` and the store's ``_renewals`` choose. One row per renewal: the triple's
    ``subject`` and ``predicate``, the old ``end`` and the new ``start``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    start, end = spark_keys()
    keyed = object_key(states).select(
        "id", "subject", "predicate", "object_is_value", "_key", "start", "end", start.alias("s"), end.alias("e")
    )
    triple = ["subject", "predicate", "object_is_value", "_key"]
    old = keyed.filter(F.col("e") != OPEN_END).select(*triple, "id", "end", "s", "e")
    new = keyed.filter(F.col("s") != OPEN_START).select(
        *triple, F.col("id").alias("new_id"), "start", F.col("s").alias("new_s")
    )
    candidates = (
        old.join(new, triple)
        .filter((F.col("id") != F.col("new_id")) & back_to_back(F.col("s"), F.col("e"), F.col("new_s")))
        .withColumn("dist", F.abs(F.col("e") - F.col("new_s")))
    )
    best_new = F.row_number().over(Window.partitionBy("id").orderBy("dist", "new_id"))
    best_old = F.row_number().over(Window.partitionBy("new_id").orderBy("dist", "id"))
    return (
        candidates.withColumn("_bn", best_new)
        .withColumn("_bo", best_old)
        .filter((F.col("_bn") == 1) & (F.col("_bo") == 1))
        .select("subject", "predicate", "end", "start")
    )


_SUMS = ("added", "ended", "renewed", "events")


def churn(
    facts: DataFrame,
    *,
    every: str = "1mo",
    since: Moment = None,
    until: Moment = None,
    by: GroupBy | None = None,
    renewals: bool = True,
) -> DataFrame:
    """:func:`kgtoolkit.analysis.churn` on Spark: state facts added, ended and renewed per period, the number active,
    and the volume of events (:data:`kgtoolkit.analysis.CHURN_SCHEMA`, group columns first), equal to the engine's
    answer. The counts per (group, period) are made on Spark; the table is laid out from them on the driver by
    the same code as the engine's counts (one row per group and period)."""
    from pyspark.sql import functions as F

    if by not in (None, "subject", "predicate"):
        raise InvalidRequest(f"by must be 'subject', 'predicate' or None, not {by!r}", field="by", value=str(by))
    _check_every(every)
    lo, hi = _since_until(since, until)
    df = checked(facts)
    keys: list[str] = [] if by is None else [by]
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)
    states, occurred = df.filter(F.col("kind") != "event"), df.filter(F.col("kind") == "event")

    def counted(frame: DataFrame, at: Column, **ones: int) -> DataFrame:
        return frame.select(
            *keys, period(at, every).alias("period"), *(F.lit(ones.get(s, 0)).cast("long").alias(s) for s in _SUMS)
        )

    parts = [
        counted(states.filter(F.col("start").isNotNull()), F.col("start"), added=1),
        counted(states.filter(F.col("end").isNotNull()), F.col("end"), ended=1),
        counted(occurred.filter(_occurred_at().isNotNull()), _occurred_at(), events=1),
    ]
    if renewals:  # each renewal moved from added to renewed at its start, and its predecessor's end out of ended
        renewed = _renewals(states)
        parts.append(counted(renewed, F.col("start"), added=-1, renewed=1))
        parts.append(counted(renewed, F.col("end"), ended=-1))
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    grouped = (
        union.groupBy(*keys, "period")
        .agg(*(F.sum(s).cast("long").alias(s) for s in _SUMS))
        .filter(F.greatest(*(F.abs(F.col(s)) for s in _SUMS)) != 0)
    )
    key_types = {k: pl.String() for k in keys}
    counts = to_polars(grouped, {**key_types, "period": CHURN_SCHEMA["period"], **{s: pl.Int64() for s in _SUMS}})
    unknown = states.filter(F.col("start").isNull()).groupBy(*keys).agg(F.count(F.lit(1)).alias("_baseline"))
    unknowns = to_polars(unknown, {**key_types, "_baseline": pl.Int64()})
    if not keys and unknowns.height == 0:
        unknowns = pl.DataFrame({"_baseline": [0]}, schema={"_baseline": pl.Int64()})
    names = None
    if by == "subject":
        names = to_polars(
            df.groupBy("subject").agg(F.min_by("subject_name", "id").alias("subject_name")),
            {"subject": pl.String(), "subject_name": pl.String()},
        )
    table = finish_churn(counts, unknowns, names, by, every, first, last)
    schema = dict(zip(table.columns, table.dtypes, strict=True))
    return from_polars(df.sparkSession, table, schema)


# ---------------------------------------------------------------------- events


def _event_rows(df: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    return df.filter((F.col("kind") == "event") & F.col("start").isNotNull())


def events(
    facts: DataFrame,
    *,
    every: str = "1mo",
    by: EventsBy | None = None,
    since: Moment = None,
    until: Moment = None,
) -> DataFrame:
    """:func:`kgtoolkit.analysis.events` on Spark: how many events happened per period, and the change
    (:data:`kgtoolkit.analysis.EVENTS_SCHEMA`, group columns first). Counted on Spark; laid out on the driver by
    the engine path's code."""
    from pyspark.sql import functions as F

    if by not in (None, "predicate", "pair"):
        raise InvalidRequest(f"by must be 'predicate', 'pair' or None, not {by!r}", field="by", value=str(by))
    _check_every(every)
    lo, hi = _since_until(since, until)
    df = _event_rows(checked(facts))
    keys: list[str] = {None: [], "predicate": ["predicate"], "pair": ["subject", "object"]}[by]
    first = None if lo is None else _period_start(lo, every)
    last = None if hi is None else _period_start(hi, every)
    if by == "pair":
        df = df.filter(~F.col("object_is_value"))
    grouped = (
        df.select(*keys, period(F.col("start"), every).alias("period"))
        .groupBy(*keys, "period")
        .agg(F.count(F.lit(1)).alias("events"))
    )
    key_types = {k: pl.String() for k in keys}
    counted = to_polars(grouped, {**key_types, "period": CHURN_SCHEMA["period"], "events": pl.Int64()})
    spelled = None
    if by == "pair":
        spelled = to_polars(
            df.groupBy(*keys).agg(
                F.min_by("subject_name", "id").alias("subject_name"), F.min_by("object_name", "id").alias("object_name")
            ),
            {**key_types, "subject_name": pl.String(), "object_name": pl.String()},
        )
    table = finish_events(counted, spelled, by, every, first, last)
    schema = dict(zip(table.columns, table.dtypes, strict=True))
    return from_polars(df.sparkSession, table, schema)


def event_graph(facts: DataFrame, *, start: Moment = None, end: Moment = None) -> DataFrame:
    """:func:`kgtoolkit.analysis.event_graph` on Spark: one row per (subject, object) pair of entities with events
    from ``start`` to ``end`` (:data:`kgtoolkit.analysis.EVENT_GRAPH_SCHEMA`), most events first; all on Spark."""
    from pyspark.sql import functions as F

    lo, hi = _moment(start, field="start"), _moment(end, field="end", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"end {end} is before start {start}", field="end", value=str(end))
    df = _event_rows(checked(facts)).filter(~F.col("object_is_value") & _window("start", lo, hi))
    table = df.groupBy("subject", "object").agg(
        F.min_by("subject_name", "id").alias("subject_name"),
        F.min_by("object_name", "id").alias("object_name"),
        F.count(F.lit(1)).alias("events"),
        F.min("start").alias("first"),
        F.max("start").alias("last"),
        F.sort_array(F.collect_set("predicate")).alias("predicates"),
    )
    return _typed(table, EVENT_GRAPH_SCHEMA).orderBy(F.col("events").desc(), "subject", "object")


def _typed(frame: DataFrame, schema: dict[str, pl.DataType]) -> DataFrame:
    from pyspark.sql import functions as F

    from ._frames import spark_type

    return frame.select(*(F.col(n).cast(spark_type(t)).alias(n) for n, t in schema.items()))


# ---------------------------------------------------------------------- rankings


def most_volatile(
    facts: DataFrame,
    *,
    by: VolatileBy = "entity",
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
) -> DataFrame:
    """:func:`kgtoolkit.analysis.most_volatile` on Spark: the entities, subjects or predicates with the most changes
    (added + ended state facts + events in the window), most first; all on Spark."""
    from pyspark.sql import functions as F

    if by not in ("entity", "subject", "predicate"):
        raise InvalidRequest(f"by must be 'entity', 'subject' or 'predicate', not {by!r}", field="by", value=str(by))
    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    df = checked(facts)
    named = by in ("entity", "subject")
    keys = [by, f"{by}_name"] if named else ["predicate"]
    if by == "entity":  # each fact once per entity side: the subject, and an entity object other than it
        sides = ["id", "start", "end", "current", "kind"]
        df = df.select(F.col("subject").alias("entity"), F.col("subject_name").alias("entity_name"), *sides).union(
            df.filter(~F.col("object_is_value") & (F.col("object") != F.col("subject"))).select(
                F.col("object").alias("entity"), F.col("object_name").alias("entity_name"), *sides
            )
        )
    state = F.col("kind") != "event"
    df = df.withColumn("_occurred", _occurred_at())
    table = (
        df.groupBy(by)
        .agg(
            *([F.min_by(f"{by}_name", "id").alias(f"{by}_name")] if named else []),
            F.count_if(_window("start", lo, hi) & state).alias("added"),
            F.count_if(_window("end", lo, hi) & state).alias("ended"),
            F.count(F.lit(1)).alias("facts"),
            F.count_if(F.col("current")).alias("current"),
            F.count_if(_window("_occurred", lo, hi) & ~state).alias("events"),
        )
        .withColumn("changes", F.col("added") + F.col("ended") + F.col("events"))
        .filter(F.col("changes") > 0)
        .orderBy(F.col("changes").desc(), F.col(by))
    )
    if top is not None:
        table = table.limit(top)
    return _typed(table, {k: pl.String() for k in keys} | VOLATILE_SCHEMA)


def most_changed(
    facts: DataFrame,
    *,
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
    multi_valued: Iterable[str] = frozenset(),
) -> DataFrame:
    """:func:`kgtoolkit.analysis.most_changed` on Spark: the (subject, predicate) pairs whose object changed most often
    (:data:`kgtoolkit.analysis.MOST_CHANGED_SCHEMA`), most first, ties by subject then predicate. A pair's state facts
    are ordered by start (unknown starts first), then id; each whose object (its key: values case-folded) differs
    from the previous one's is a change dated by its start. Multi-valued predicates are left out. All on Spark."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    df = checked(facts)
    left_out = _predicates(multi_valued)
    kept = F.col("kind") != "event"
    if left_out:
        kept = kept & ~F.col("predicate").isin(left_out)
    pair = ["subject", "predicate"]
    order = Window.partitionBy(*pair).orderBy(F.col("start").asc_nulls_first(), F.col("id"))
    df = (
        object_key(df.filter(kept))
        .withColumn("_n", F.row_number().over(order))
        .withColumn("_changed", F.coalesce(F.col("_key") != F.lag("_key").over(order), F.lit(False)))
    )
    counted = F.col("_changed")
    if lo is not None or hi is not None:
        counted = counted & _window("start", lo, hi)

    def in_order(keep: Column) -> Column:  # the object names of the rows kept, in the pair's order
        listed = F.collect_list(F.when(keep, F.struct(F.col("_n").alias("n"), F.col("object_name").alias("o"))))
        return F.transform(F.array_sort(listed), lambda x: x["o"])

    table = (
        df.groupBy(*pair)
        .agg(
            F.max(F.when(F.col("_n") == 1, F.col("subject_name"))).alias("subject_name"),
            F.count_if(counted).alias("changes"),
            F.count(F.lit(1)).alias("facts"),
            F.count_distinct("_key").alias("objects"),
            in_order((F.col("_n") == 1) | F.col("_changed")).alias("history"),
            in_order(F.col("current")).alias("current_objects"),
            F.min("start").alias("first_start"),
            F.max(F.when(F.col("_changed"), F.col("start"))).alias("last_change"),
        )
        .filter(F.col("changes") > 0)
        .orderBy(F.col("changes").desc(), "subject", "predicate")
    )
    if top is not None:
        table = table.limit(top)
    return _typed(table, MOST_CHANGED_SCHEMA)


def most_connected(facts: DataFrame, *, top: int | None = None) -> DataFrame:
    """:func:`kgtoolkit.analysis.most_connected` on Spark: the entities the facts name, by the number of facts
    touching them (``outgoing`` as subject, ``incoming`` as an entity object), most first, ties by id; each named
    and typed as the first fact naming it says (by id, its subject before its object)."""
    from pyspark.sql import functions as F

    whole_number(top, field="top", allow_none=True)
    df = checked(facts)
    entity_objects = df.filter(~F.col("object_is_value"))
    sides = df.select(
        F.col("subject").alias("id"),
        F.struct(F.col("id").alias("f"), F.lit(0).alias("s")).alias("_order"),
        F.struct(F.col("subject_name").alias("name"), F.col("subject_type").alias("type")).alias("_named"),
    ).union(
        entity_objects.select(
            F.col("object").alias("id"),
            F.struct(F.col("id").alias("f"), F.lit(1).alias("s")).alias("_order"),
            F.struct(F.col("object_name").alias("name"), F.col("object_type").alias("type")).alias("_named"),
        )
    )
    listed = sides.groupBy("id").agg(F.min_by("_named", "_order").alias("_named"))
    outgoing = df.groupBy(F.col("subject").alias("id")).agg(F.count(F.lit(1)).alias("outgoing"))
    incoming = entity_objects.groupBy(F.col("object").alias("id")).agg(F.count(F.lit(1)).alias("incoming"))
    table = (
        listed.join(outgoing, "id", "left")
        .join(incoming, "id", "left")
        .select(
            "id",
            F.col("_named.name").alias("name"),
            F.col("_named.type").alias("type"),
            F.coalesce("outgoing", F.lit(0)).alias("outgoing"),
            F.coalesce("incoming", F.lit(0)).alias("incoming"),
        )
        .withColumn("facts", F.col("outgoing") + F.col("incoming"))
        .orderBy(F.col("facts").desc(), "id")
    )
    if top is not None:
        table = table.limit(top)
    return _typed(table, CONNECTED_SCHEMA)


# ---------------------------------------------------------------------- conflicts


def conflicts(
    facts: DataFrame,
    *,
    multi_valued: Iterable[str] = frozenset(),
    now: Moment = None,
    one_holder: Iterable[str] = frozenset(),
    single_valued: Iterable[str] = frozenset(),
) -> DataFrame:
    """:func:`kgtoolkit.analysis.conflicts` on Spark: the conflict groups (contract §5) and whether each needs action,
    by the same rule (:data:`kgtoolkit.analysis.CONFLICTS_SCHEMA`), those needing action first. Each group's facts are
    gathered in the store's order (start, unknown starts last, then id) and judged on Spark."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    moment = _now(now)
    df = checked(facts)
    holders = _predicates(one_holder, "one_holder")
    by_subject = not_by_subject(_predicates(multi_valued), holders, _predicates(single_valued, "single_valued"))
    df = object_key(df.filter(F.col("kind") != "event"))
    by_subject_list = sorted(by_subject)
    axis0 = df.filter(~F.col("predicate").isin(by_subject_list) if by_subject_list else F.lit(True)).select(
        "*", F.lit(0).alias("_axis"), F.col("subject").alias("_anchor"), F.col("_key").alias("_other")
    )
    axis1 = df.filter(F.col("predicate").isin(holders) if holders else F.lit(False)).select(
        "*", F.lit(1).alias("_axis"), F.col("_key").alias("_anchor"), F.col("subject").alias("_other")
    )
    group = ["_axis", "_anchor", "predicate"]
    # Each group's facts in the store's order: start (unknown last), then id; the first of each object (key) and of
    # each subject in that order marked.
    o = F.coalesce(F.unix_micros("start"), F.lit(OPEN_END))
    rows = (
        axis0.unionByName(axis1)
        .withColumn("_o", o)
        .withColumn("_first", F.row_number().over(Window.partitionBy(*group, "_key").orderBy("_o", "id")) == 1)
        .withColumn("_first_s", F.row_number().over(Window.partitionBy(*group, "subject").orderBy("_o", "id")) == 1)
    )
    order = F.struct(
        F.col("_o").alias("o"),
        F.col("id").alias("id"),
        F.col("_first").alias("first"),
        F.col("_first_s").alias("first_subject"),
        F.col("subject").alias("subject"),
        F.col("subject_name").alias("subject_name"),
        F.col("object").alias("object"),
        F.col("object_name").alias("object_name"),
        F.col("_key").alias("key"),
        F.col("_other").alias("other"),
        F.col("current").alias("current"),
        F.col("state").alias("state"),
        F.col("start").alias("start"),
        F.col("end").alias("end"),
        F.col("valid_from").alias("valid_from"),
        F.col("valid_to").alias("valid_to"),
    )
    grouped = rows.groupBy(*group).agg(F.sort_array(F.collect_list(order)).alias("f"))

    def firsts(flag: str) -> Column:
        """The facts whose object (``first``) or subject (``first_subject``) is met first in the group's order."""
        return F.filter("f", lambda x: x[flag])

    def names(array: Column, field: str) -> Column:
        return F.transform(array, lambda x: x[field])

    current = F.filter("f", lambda x: x["current"])
    known = F.filter("f", lambda x: x["current"] & x["start"].isNotNull())
    scheduled = F.filter("f", lambda x: x["state"] == "scheduled")
    g = grouped.select(
        *group,
        F.col("f")[0]["subject"].alias("subject"),
        F.col("f")[0]["subject_name"].alias("subject_name"),
        F.col("f")[0]["object"].alias("object"),
        F.col("f")[0]["object_name"].alias("object_name"),
        F.size(firsts("first")).cast("long").alias("objects"),
        names(firsts("first"), "object_name").alias("object_names"),
        F.size(firsts("first_subject")).cast("long").alias("subjects"),
        names(firsts("first_subject"), "subject_name").alias("subject_names"),
        names(F.col("f"), "id").alias("facts"),
        F.size(current).cast("long").alias("current"),
        names(current, "object_name").alias("current_objects"),
        names(current, "subject_name").alias("current_subjects"),
        F.array_max(names(current, "start")).alias("overlap_start"),
        F.size(F.filter(current, lambda x: x["start"].isNull())).alias("_unknown"),
        F.get(names(known, "start"), 0).alias("_first_known"),
        F.get(names(known, "start"), 1).alias("_second_known"),
        F.size(scheduled).cast("long").alias("scheduled"),
        F.get(scheduled, 0).alias("_s"),
        "f",
    ).filter(F.when(F.col("_axis") == 0, F.col("objects")).otherwise(F.col("subjects")) > 1)
    # The planned switch (the store's _conflict_group): at the first scheduled fact's start, when a started fact of
    # another object (another subject, by object) is open-ended or ends on or after it (overlapping when it ends
    # after that start's day; a date end is its whole day).
    day = DAY_US - 1

    def other(x: Column) -> Column:
        return (x["other"] != F.col("_s")["other"]) & (x["state"] != "scheduled")

    def end_lo(x: Column) -> Column:
        return F.when(x["valid_to"].contains("T"), x["end"]).otherwise(
            F.timestamp_micros(F.unix_micros(x["end"]) - day)
        )

    s_start = F.col("_s")["start"]
    running = F.exists("f", lambda x: other(x) & (x["end"].isNull() | (x["end"] >= s_start)))
    overlapping = F.exists("f", lambda x: other(x) & (x["end"].isNull() | (end_lo(x) > s_start)))
    has_s = F.col("_s").isNotNull()
    g = g.select(
        "*",
        F.when(has_s & running, F.col("_s")["valid_from"]).alias("planned_switch"),
        F.coalesce(has_s & running & overlapping, F.lit(False)).alias("switch_overlaps"),
    ).withColumn("needs_action", (F.col("current") > 1) | F.col("switch_overlaps"))
    needs = F.col("current") > 1
    second = (
        F.when(F.col("_unknown") >= 2, F.lit(None))
        .when(F.col("_unknown") == 1, F.col("_first_known"))
        .otherwise(F.col("_second_known"))
    )
    now_us = _us(moment) or 0

    def since(column: str) -> Column:
        span = F.greatest(F.lit(now_us) - F.unix_micros(column), F.lit(0))  # greatest skips a null: kept null below
        return F.when(F.col(column).isNotNull(), F.timestamp_micros(span) - F.timestamp_micros(F.lit(0)))

    g = (
        g.withColumn("overlap_start", F.when(needs, F.col("overlap_start")))
        .withColumn("open_since", F.when(needs, second))
        .withColumn("overlap", since("overlap_start"))
        .withColumn("open_for", since("open_since"))
        .withColumn("by", F.when(F.col("_axis") == 0, F.lit("subject")).otherwise(F.lit("object")))
        .withColumn("subject", F.when(F.col("_axis") == 0, F.col("subject")))
        .withColumn("subject_name", F.when(F.col("_axis") == 0, F.col("subject_name")))
        .withColumn("object", F.when(F.col("_axis") == 1, F.col("object")))
        .withColumn("object_name", F.when(F.col("_axis") == 1, F.col("object_name")))
        .orderBy(F.col("needs_action").desc(), "_anchor", "predicate", "_axis")
    )
    return _typed(g, CONFLICTS_SCHEMA)


# ---------------------------------------------------------------------- diff


def diff(
    facts: DataFrame,
    start: TimeInput,
    end: TimeInput,
    *,
    multi_valued: Iterable[str] = frozenset(),
    one_holder: Iterable[str] = frozenset(),
    single_valued: Iterable[str] = frozenset(),
    renewals: bool = True,
) -> DataFrame:
    """:func:`kgtoolkit.frames.diff` on Spark, by valid time: every change from ``start`` to ``end`` in time order
    (contract §11: ``began``, ``ended``, ``replaced``, ``renewed``, ``occurred``; :data:`kgtoolkit.frames.DIFF_SCHEMA`).
    Pass the graph's ``multi_valued``, ``one_holder`` and ``single_valued`` (``kg.config``) to pair as it pairs.

    The facts changed in the window (and its near days, where renewals are looked for) are found on Spark; their
    light rows come to the driver and are paired by the store's own pairing (:func:`kgtoolkit.store.diff_pairs`:
    each fact at most once, the closest first, a greedy choice with no Spark form), so the answer is the engine's.
    Transaction time (``by="known"``) is not on Spark: a facts frame carries ``recorded_at`` as an instant, not
    the texts the store pairs."""
    from pyspark.sql import functions as F

    from .._errors import IntervalOrder

    df = checked(facts)
    window_start, window_end = parse_window(start, field="from"), parse_window(end, field="to")
    lo, hi = window_start.lo, window_end.hi
    if hi < lo:
        raise IntervalOrder(
            f"to ({window_end.text}) is before from ({window_start.text}); give the earlier date first",
            field="to",
            value=window_end.text,
        )
    first_key, last_key = parse_window("0001").lo, parse_window("9999").hi
    near_lo, near_hi = max(lo - NEAR_DAYS * DAY_US, first_key), min(hi + NEAR_DAYS * DAY_US, last_key)
    s, e = F.unix_micros("start"), F.unix_micros("end")

    def between(key: Column, a: int, b: int) -> Column:
        return F.coalesce(key.between(a, b), F.lit(False))

    began, ended = between(s, lo, hi), between(e, lo, hi)
    near_began, near_ended = (
        (between(s, near_lo, near_hi), between(e, near_lo, near_hi)) if renewals else (began, ended)
    )
    light = (
        df.filter(near_began | near_ended)
        .select(
            "id",
            "subject",
            "predicate",
            "object",
            "object_is_value",
            s.alias("s"),
            e.alias("e"),
            (F.col("kind") == "event").alias("event"),
            began.alias("b"),
            ended.alias("en"),
            near_began.alias("nb"),
            near_ended.alias("ne"),
            "object_name",
            "valid_from",
            "valid_to",
        )
        .collect()
    )
    multi = not_by_subject(
        _predicates(multi_valued), _predicates(one_holder, "one_holder"), _predicates(single_valued, "single_valued")
    )
    _, changes = diff_pairs(
        [tuple(r)[:12] for r in light],
        multi,
        frozenset(_predicates(one_holder, "one_holder")),
        "valid",
        renewals=renewals,
    )
    rows = {r["id"]: r for r in light}
    out: dict[str, list[Any]] = {column: [] for column in DIFF_SCHEMA}
    for _, _, _, kind, old, new, dated, at_start in changes:
        shown = rows[dated]
        out["kind"].append(kind)
        out["at"].append(shown["valid_from"] if at_start else shown["valid_to"])
        out["subject"].append(shown["subject"])
        out["predicate"].append(shown["predicate"])
        for side, fact_id in (("old", old), ("new", new)):
            f = None if fact_id is None else rows[fact_id]
            out[f"{side}_id"].append(None if f is None else f["id"])
            out[f"{side}_subject"].append(None if f is None else f["subject"])
            out[f"{side}_object"].append(None if f is None else f["object"])
            out[f"{side}_object_name"].append(None if f is None else f["object_name"])
            out[f"{side}_valid_from"].append(None if f is None else f["valid_from"])
            out[f"{side}_valid_to"].append(None if f is None else f["valid_to"])
    return from_polars(df.sparkSession, pl.DataFrame(out, schema=DIFF_SCHEMA), DIFF_SCHEMA)

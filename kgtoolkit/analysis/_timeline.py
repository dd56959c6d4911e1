"""Timelines and Gantt bars: :func:`timeline` (one row per start and end) and :func:`gantt` (one bar per fact)."""

from __future__ import annotations

from typing import Literal

import polars as pl

from .._errors import InvalidRequest, NotFound
from .._names import normalize_name, normalize_predicate
from .._time import instant_key, parse_window
from .._validity import Clock, frame_keys, scheduled, state_expr, valid_at
from ..frames import FACTS_SCHEMA
from ..frames import facts as read_facts
from ..graph import KnowledgeGraph
from ._shared import _LAST, _MOMENT, _ONE_US, _SPAN, FACT_COLUMNS, Frame, Moment, _frame, _now, _out, _typed

#: :func:`timeline`: the event, then every column of the fact, then its length.
TIMELINE_SCHEMA: dict[str, pl.DataType] = {
    "event": pl.String(),
    "at": _MOMENT,
    "when": pl.String(),
    **FACT_COLUMNS,
    "duration": _SPAN,
}
#: :func:`gantt`: one bar per fact with a known start.
GANTT_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(),
    "label": pl.String(),
    "subject": pl.String(),
    "predicate": pl.String(),
    "object": pl.String(),
    "start": _MOMENT,
    "end": _MOMENT,
    "open_end": pl.Boolean(),
    "current": pl.Boolean(),
    "state": pl.String(),
    "duration": _SPAN,
}


def _closing_end() -> pl.Expr:
    """``end``, with a date-only ``valid_to`` closed at the next midnight (its day counts whole)."""
    date_only = pl.col("valid_to").is_not_null() & ~pl.col("valid_to").str.contains("T", literal=True)
    return pl.when(date_only).then(pl.col("end") + _ONE_US).otherwise(pl.col("end"))


def _filter(df: pl.DataFrame, entity: str | None, predicate: str | None) -> pl.DataFrame:
    if entity is not None:
        key = normalize_name(entity, field="entity")
        df = df.filter((pl.col("subject") == key) | (~pl.col("object_is_value") & (pl.col("object") == key)))
    if predicate is not None:
        df = df.filter(pl.col("predicate") == normalize_predicate(predicate))
    return df


def _facts_of(facts: Frame | KnowledgeGraph, entity: str | None, predicate: str | None) -> tuple[pl.DataFrame, bool]:
    """The facts a timeline or Gantt chart of ``entity``/``predicate`` draws, as a typed frame (and whether the
    input was pandas). Given the graph, only those facts are read (:func:`kgtoolkit.frames.facts`' filters, in
    SQL), then kept by the frame's rule (ids as given: an alias the store resolves names none of them)."""
    if isinstance(facts, KnowledgeGraph):
        key = None if entity is None else normalize_name(entity, field="entity")
        wanted = None if predicate is None else normalize_predicate(predicate)
        try:
            read = read_facts(facts, entity=key, predicate=wanted)
        except NotFound:  # no entity of that id: no fact names it
            read = pl.DataFrame(schema=FACTS_SCHEMA)
        assert isinstance(read, pl.DataFrame)
        facts = read
    df, was_pandas = _frame(facts)
    return _filter(df, entity, predicate), was_pandas


def timeline(facts: Frame | KnowledgeGraph, *, entity: str | None = None, predicate: str | None = None) -> Frame:
    """List the happenings of the facts in time order: ``started``, ``ended``, or ``occurred`` for an event.

    A fact has a ``started`` row at its start and an ``ended`` row at its end; an event (contract §12) has
    one ``occurred`` row. A fact with an **unknown start** still has its ``started`` row, with a null
    ``at``, placed last (as :meth:`KnowledgeGraph.timeline` does). Ties go by fact id, a start before its
    own end.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph with ``entity`` or ``predicate``, only those
        facts are read (the filters in SQL); the answer equals this function's on ``frames.facts(kg)``.
    entity
        Keep facts with this entity as subject or object (a name, normalised; aliases are not resolved).
    predicate
        Keep facts of this predicate.

    Returns
    -------
    Frame
        The columns of :data:`TIMELINE_SCHEMA`: ``event``, ``at`` (the instant), ``when`` (the bound as
        written), every fact column, and ``duration`` (null while open or when the start is unknown).

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "works_at", "Acme", valid_from="2024-01-01", valid_to="2024-01-31")
    >>> timeline(frames.facts(kg)).select("event", "when", pl.col("duration").dt.total_days()).rows()
    [('started', '2024-01-01', 31), ('ended', '2024-01-31', 31)]
    """
    df, was_pandas = _facts_of(facts, entity, predicate)
    df = df.with_columns((_closing_end() - pl.col("start")).alias("duration"))
    event = pl.col("kind") == "event"
    started = df.select(
        pl.when(event).then(pl.lit("occurred")).otherwise(pl.lit("started")).alias("event"),
        pl.col("start").alias("at"),
        pl.col("valid_from").alias("when"),
        pl.all(),
        pl.lit(0).alias("_order"),
    )
    ended = df.filter(pl.col("end").is_not_null() & ~event).select(
        pl.lit("ended").alias("event"),
        pl.col("end").alias("at"),
        pl.col("valid_to").alias("when"),
        pl.all(),
        pl.lit(1).alias("_order"),
    )
    events = pl.concat([started, ended]).sort(["at", "id", "_order"], nulls_last=True)
    return _out(_typed(events, TIMELINE_SCHEMA), was_pandas)


def gantt(
    facts: Frame | KnowledgeGraph,
    *,
    now: Moment = None,
    as_of: Moment = None,
    entity: str | None = None,
    predicate: str | None = None,
    label: Literal["fact", "subject", "predicate", "object"] = "fact",
) -> Frame:
    """Lay out one bar per fact for a Gantt chart: ``label``, ``start``, ``end``, ``current``, ``state``.

    ``state`` is the fact's state on ``as_of`` by the store's rule (a day counts whole, both ends count):
    ``current``, ``scheduled`` or ``ended``. A chart of a past date colours the bars as they stood then. An
    event (contract §12) is ``occurred`` once started. Open ends are filled with ``now`` (``open_end`` marks
    them). A date-only ``valid_to`` closes at the next midnight. Facts with an unknown start cannot be drawn
    and are left out. Sorted by start, then id.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph with ``entity`` or ``predicate``, only those
        facts are read (the filters in SQL); the answer equals this function's on ``frames.facts(kg)``.
    now
        The moment open bars end at (default: the current time, UTC).
    as_of
        The date the states are judged on (default: their state at ``now``, contract §4).
    entity, predicate
        Keep facts as :func:`timeline` does.
    label
        ``"fact"`` (``subject → predicate → object``, display names) or one of its parts.

    Returns
    -------
    Frame
        The columns of :data:`GANTT_SCHEMA`.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    >>> gantt(frames.facts(kg), now="2026-10-22").select("label", pl.col("duration").dt.total_days()).rows()
    [('my_api → uses_queue → SQLite', 10)]
    """
    if label not in ("fact", "subject", "predicate", "object"):
        raise InvalidRequest(
            f"label must be fact, subject, predicate or object, not {label!r}", field="label", value=str(label)
        )
    moment = _now(now)
    start, end = frame_keys()
    event = pl.col("kind") == "event"
    if as_of is None or as_of == "":
        state = state_expr(start, end, event, Clock.at(instant_key(moment)))
    else:
        window = parse_window(as_of, field="as_of")
        lo, hi = pl.lit(window.lo), pl.lit(window.hi)
        state = (
            pl.when(scheduled(start, hi))
            .then(pl.lit("scheduled"))
            .when(event)
            .then(pl.lit("occurred"))
            .when(valid_at(start, end, lo, hi))
            .then(pl.lit("current"))
            .otherwise(pl.lit("ended"))
        )
    df, was_pandas = _facts_of(facts, entity, predicate)
    df = df.filter(pl.col("start").is_not_null())
    text = {
        "fact": pl.concat_str([pl.col("subject_name"), pl.col("predicate"), pl.col("object_name")], separator=" → "),
        "subject": pl.col("subject_name"),
        "predicate": pl.col("predicate"),
        "object": pl.col("object_name"),
    }[label]
    bar_end = (
        pl.when(pl.col("end").is_null())
        .then(pl.max_horizontal(pl.lit(moment).cast(_MOMENT), pl.col("start")))
        .otherwise(_closing_end())
    )
    bars = (
        df.select(
            "id",
            text.alias("label"),
            "subject",
            "predicate",
            "object",
            "start",
            bar_end.alias("end"),
            pl.col("end").is_null().alias("open_end"),
            "current",
            state.alias("state"),
        )
        .with_columns(
            (pl.col("end") - pl.col("start")).alias("duration"),
            pl.col("end").clip(upper_bound=_LAST),  # a valid_to of 9999-12-31 closes past the last datetime
        )
        .sort(["start", "id"])
    )
    return _out(_typed(bars, GANTT_SCHEMA), was_pandas)

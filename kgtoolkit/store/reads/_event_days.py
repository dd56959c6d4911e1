"""What forecasting reads (issue #49): an event graph's history as counts per (subject, predicate, object, day),
grouped in the engine, so the raw events never leave it one row each.

The day is the UTC day of the event's start (``from_us`` floored to a multiple of :data:`~kgtoolkit._time.DAY_US`,
``pmod`` as :mod:`._aggregates` spells it for both engines), as a day number counted from 1970-01-01. The events are
the graph's by :class:`~._rules.EventRule` (contract §12), with a known start and an entity object (a value object has
no entity to forecast). The answer comes through Arrow, in columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._time import DAY_US, OPEN_START
from . import _queries as q

if TYPE_CHECKING:
    import polars as pl

    from .._graph_store import GraphStore

#: The columns of :func:`event_days`: entity ids, the predicate, the day number and the events that day.
EVENT_DAYS_COLUMNS = ("subject", "predicate", "object", "day", "events")


def event_days(kg: GraphStore, hi: int | None = None) -> pl.DataFrame:
    """The events with a known start up to ``hi`` (microseconds, included; None: all), one row per
    (subject, predicate, object, day) with the number of events that day: a polars frame of
    :data:`EVENT_DAYS_COLUMNS` (entity ids and the predicate as ``Categorical``, ``day`` and ``events`` as
    ``Int64``), grouped in the engine and read through Arrow (no Python row per event)."""
    import polars as pl

    d = kg.engine.dialect
    pmod = d.modulo(f"{d.modulo('f.from_us', DAY_US)} + {DAY_US}", DAY_US)
    with kg.engine.read() as cur:
        event, params = q.event_rule(cur).bound(d)
    known, bounds = q.inside("f.from_us", None, hi)
    params.update(bounds)
    sql = (
        "SELECT g.subject AS subject, g.predicate AS predicate, g.object_id AS object, g.day AS day, "
        "count(*) AS events FROM "
        "(SELECT f.subject AS subject, f.predicate AS predicate, f.object_id AS object_id, "
        f"(f.from_us - {pmod}) / {DAY_US} AS day FROM facts f WHERE {event} AND f.from_us <> {OPEN_START} "
        f"AND f.object_id IS NOT NULL AND {known}) g GROUP BY g.subject, g.predicate, g.object_id, g.day"
    )
    _, (table,) = kg.engine.read_arrow([(sql, params)])
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    if frame.width != len(EVENT_DAYS_COLUMNS):  # an empty answer may come without its columns
        frame = pl.DataFrame(schema=list(EVENT_DAYS_COLUMNS))
    return frame.select(
        pl.col("subject").cast(pl.String).cast(pl.Categorical),
        pl.col("predicate").cast(pl.String).cast(pl.Categorical),
        pl.col("object").cast(pl.String).cast(pl.Categorical),
        pl.col("day").cast(pl.Int64),
        pl.col("events").cast(pl.Int64),
    )

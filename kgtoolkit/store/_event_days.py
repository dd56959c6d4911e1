"""What forecasting reads (issue #49): an event graph's history as counts per (subject, predicate, object, day),
grouped in the engine, so the raw events never leave it one row each.

The day is the UTC day of the event's start (``from_us`` floored to a multiple of :data:`~kgtoolkit._time.DAY_US`,
``pmod`` as :mod:`._aggregates` spells it for both engines), as a day number counted from 1970-01-01. The events are
the graph's by :class:`~._rules.EventRule` (contract §12), with a known start and an entity object (a value object has
no entity to forecast). Rows come back in chunks, so one chunk of Python tuples is held at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._time import DAY_US, OPEN_START
from . import _queries as q

if TYPE_CHECKING:
    import polars as pl

    from ._operations import GraphStore

#: The columns of :func:`event_days`: entity ids, the predicate, the day number and the events that day.
EVENT_DAYS_COLUMNS = ("subject", "predicate", "object", "day", "events")

_CHUNK = 200_000


def event_days(kg: GraphStore, hi: int | None = None) -> Iterator[pl.DataFrame]:
    """The events with a known start up to ``hi`` (microseconds, included; None: all), one row per
    (subject, predicate, object, day) with the number of events that day: polars frames of
    :data:`EVENT_DAYS_COLUMNS` (entity ids and the predicate as ``Categorical``, ``day`` and ``events`` integers),
    at most 200,000 rows each, read in one snapshot. There is always at least one frame (empty when nothing
    matches), so the columns are known."""
    import polars as pl

    d = kg._backend.dialect
    pmod = d.modulo(f"{d.modulo('f.from_us', DAY_US)} + {DAY_US}", DAY_US)
    schema: dict[str, pl.DataType] = {
        "subject": pl.String(),
        "predicate": pl.String(),
        "object": pl.String(),
        "day": pl.Int64(),
        "events": pl.Int64(),
    }
    typed = {"subject": pl.Categorical(), "predicate": pl.Categorical(), "object": pl.Categorical()}
    with kg._read() as cur:
        event, params = q.event_rule(cur).bound(d)
        known, bounds = q.inside("f.from_us", None, hi)
        params.update(bounds)
        cur.execute(
            "SELECT g.subject, g.predicate, g.object_id, g.day, count(*) FROM "
            f"(SELECT f.subject AS subject, f.predicate AS predicate, f.object_id AS object_id, "
            f"(f.from_us - {pmod}) / {DAY_US} AS day FROM facts f WHERE {event} AND f.from_us <> {OPEN_START} "
            f"AND f.object_id IS NOT NULL AND {known}) g GROUP BY g.subject, g.predicate, g.object_id, g.day",
            params,
        )
        empty = True
        while True:
            rows = cur.fetchmany(_CHUNK)
            if not rows:
                break
            empty = False
            yield pl.DataFrame(rows, schema=schema, orient="row").cast(typed)  # type: ignore[arg-type]
    if empty:
        yield pl.DataFrame(schema=schema).cast(typed)  # type: ignore[arg-type]

"""The Entity page's "likely next" (issue #49): for an entity of an event graph, the likely objects of its busiest
predicates on the day after the last event, with the evidence behind each (the recurrency baseline of
:mod:`kgtoolkit.forecast`, its model kept with the graph). Free of Streamlit, so it is tested as data."""

from __future__ import annotations

import polars as pl

import kgtoolkit
from kgtoolkit import forecast

__all__ = ["LIKELY_SCHEMA", "likely_next"]

#: One row per (predicate, likely object).
LIKELY_SCHEMA: dict[str, pl.DataType] = {
    "predicate": pl.String(),
    "events": pl.Int64(),
    "rank": pl.Int64(),
    "object": pl.String(),
    "score": pl.Float64(),
    "times_seen": pl.Int64(),
    "last_seen": pl.String(),
    "share": pl.Float64(),
}


def likely_next(kg: kgtoolkit.KnowledgeGraph, entity_id: str, *, predicates: int = 3, top: int = 5) -> pl.DataFrame:
    """The ``top`` likely objects of each of the entity's ``predicates`` busiest event predicates (as a subject), as
    :data:`LIKELY_SCHEMA` rows; empty for an entity with no events as a subject (a state graph's entities)."""
    model = forecast.latest(kg)
    rows = []
    for predicate, events in model.predicates_of(entity_id, limit=predicates):
        for p in model.predict(entity_id, predicate, top=top):
            rows.append(
                {
                    "predicate": predicate,
                    "events": events,
                    "rank": p.rank,
                    "object": p.object_name,
                    "score": p.score,
                    "times_seen": p.times_seen,
                    "last_seen": p.last_seen,
                    "share": p.share,
                }
            )
    return pl.DataFrame(rows, schema=LIKELY_SCHEMA)

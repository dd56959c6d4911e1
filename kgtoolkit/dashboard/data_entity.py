"""The data behind the Entity page: the entity's facts as its page lists them (:func:`entity_facts`,
:func:`entity_page_facts`), its events (contract §12: an entity of an event graph shows its events, their volume
and the entities it has them with), and its Gantt bars (:func:`timeline`). No Streamlit here;
:mod:`kgtoolkit.dashboard.data` re-exports every name."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Literal

import polars as pl

import kgtoolkit
from kgtoolkit import analysis, frames
from kgtoolkit.dashboard._labels import labelled

__all__ = ["EntityFacts", "Timeline", "entity_facts", "entity_page_facts", "timeline"]


@dataclasses.dataclass(frozen=True, slots=True)
class EntityFacts:
    """The facts of one entity as its page lists them (rows of the dashboard's facts frame).

    ``history``: every fact around it (:func:`kgtoolkit.frames.around`: what :meth:`KnowledgeGraph.query` answers),
    oldest first; ``current``: those current now, by predicate; ``valid``: those valid in the sidebar's window;
    ``cited``: those pointing at evidence (``source_closet``); ``ended``: how many have ended (state facts);
    ``events``: its events (contract §12: they never are current nor ended), the latest first.
    """

    history: pl.DataFrame
    current: pl.DataFrame
    valid: pl.DataFrame
    cited: pl.DataFrame
    ended: int
    events: pl.DataFrame

    @property
    def states(self) -> int:
        """How many of its facts are state facts (not events)."""
        return self.history.height - self.events.height

    @property
    def opening(self) -> Literal["current", "valid", "events", "history"]:
        """The tab to open on: the current facts; when none, its events when it has only events (an entity of an
        event graph); else those of the window (a historical graph); else the history."""
        if self.current.height:
            return "current"
        if self.events.height and not self.states:
            return "events"
        return "valid" if self.valid.height else "history"

    def event_volume(self, every: str = "1mo") -> pl.DataFrame:
        """Its events per period (:func:`kgtoolkit.analysis.events` of its events: ``period`` without a time zone,
        ``events``, ``change``)."""
        volume = analysis.events(self.events, every=every)
        assert isinstance(volume, pl.DataFrame)
        return volume.with_columns(pl.col("period").dt.replace_time_zone(None))

    def partners(self, entity_id: str, top: int = 10) -> pl.DataFrame:
        """The entities it has the most events with, either direction (``entity``, ``name``, ``events``, ``first``,
        ``last``, days as text), most first, then by id; events with a value object are left out."""
        other = pl.when(pl.col("subject") == entity_id).then(pl.col("object")).otherwise(pl.col("subject"))
        name = pl.when(pl.col("subject") == entity_id).then(pl.col("object_name")).otherwise(pl.col("subject_name"))
        rows = self.events.filter(~pl.col("object_is_value")).with_columns(other.alias("entity"), name.alias("name"))
        counted = rows.group_by("entity").agg(
            pl.col("name").first(),
            pl.len().cast(pl.Int64).alias("events"),
            pl.col("start").min().dt.strftime("%Y-%m-%d").alias("first"),
            pl.col("start").max().dt.strftime("%Y-%m-%d").alias("last"),
        )
        return counted.sort(["events", "entity"], descending=[True, False]).head(top)


def entity_facts(facts: pl.DataFrame, entity_id: str, window: str | None) -> EntityFacts:
    """The Entity page's lists for ``entity_id`` from the facts frame, ``window`` the sidebar's (a day, a month, a
    year, ``START/END``, or None for all dates: :func:`kgtoolkit.frames.valid_at`)."""
    history = frames.around(facts, entity_id)
    return EntityFacts(
        history=history.sort("start", "id", nulls_last=True),
        current=history.filter(pl.col("current")).sort("predicate", "start"),
        valid=frames.valid_at(history, window).sort("start", "id", nulls_last=True),
        cited=history.filter(pl.col("source_closet").is_not_null()).sort("start", nulls_last=True),
        ended=history.filter(pl.col("state") == "ended").height,
        events=history.filter(pl.col("kind") == "event").sort("start", "id", descending=True, nulls_last=True),
    )


def entity_page_facts(
    kg: kgtoolkit.KnowledgeGraph, entity_id: str, window: str | None, labels: Mapping[str, str]
) -> EntityFacts:
    """:func:`entity_facts` of the facts naming ``entity_id`` alone, read from the store (:func:`kgtoolkit.frames.stream`
    filtered by the entity in SQL, names looked up by key), each predicate labelled: the same lists as from the
    whole facts frame."""
    found = pl.concat(list(frames.stream(kg, entity=entity_id, batch_size=100_000)))
    assert isinstance(found, pl.DataFrame)
    return entity_facts(labelled(found, labels, alias="predicate_label"), entity_id, window)


@dataclasses.dataclass(frozen=True, slots=True)
class Timeline:
    """The Entity page's Gantt chart: ``bars`` (``row``, ``label``, ``start``, ``end``, ``state``, ``id``; times
    without a time zone, in drawing order), ``total`` intervals of which the latest ``bars.height`` are drawn."""

    bars: pl.DataFrame
    total: int


def timeline(facts: pl.DataFrame, *, as_of: str | None, now: dt.datetime, limit: int = 150) -> Timeline:
    """The bars of ``facts`` (:func:`kgtoolkit.analysis.gantt`, coloured by each fact's state on ``as_of``), the
    latest ``limit`` of them, each row named by its fact and start day."""
    bars = analysis.gantt(facts, now=now, as_of=as_of)
    total = bars.height
    if total > limit:
        bars = bars.sort("start").tail(limit)
    shown = (
        bars.sort("start", "id")
        .with_columns(
            (pl.col("label") + pl.lit("  · ") + pl.col("start").dt.strftime("%Y-%m-%d")).alias("row"),
            pl.col("start").dt.replace_time_zone(None),
            pl.col("end").dt.replace_time_zone(None),
        )
        .select("row", "label", "start", "end", "state", "id")
    )
    return Timeline(shown, total)

"""Where the churn report's numbers come from: a :class:`ReportSource` answers the few analyses the report shows.

:class:`GraphSource` answers them from a graph (its facts frame, through :mod:`kgtoolkit.analysis`);
:class:`kgtoolkit.spark._report.SparkSource` from a Spark facts frame (through :mod:`kgtoolkit.spark`). The report
lays out, ranks to date and renders both the same way (:func:`kgtoolkit.report.write_churn_report`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._records import _Record

if TYPE_CHECKING:
    import polars as pl

    from .analysis._shared import Moment
    from .graph import KnowledgeGraph


@dataclasses.dataclass(frozen=True, slots=True)
class ReportCounts(_Record):
    """The counts the report's headline shows: ``facts`` and those whose ``current`` column is true
    (``current_facts``), the ``entities`` and ``predicates``, and the ``events``, ``current``, ``scheduled`` and
    ``ended`` facts by their state (what :func:`kgtoolkit.analysis.graph_kind` reads)."""

    facts: int
    current_facts: int
    entities: int
    predicates: int
    events: int
    current: int
    scheduled: int
    ended: int


class ReportSource(Protocol):
    """What the churn report reads: each method answers as its twin in :mod:`kgtoolkit.analysis` (polars frames)."""

    location: str

    def counts(self) -> ReportCounts: ...

    def span(self) -> tuple[dt.datetime, dt.datetime] | None: ...

    def labels(self) -> dict[str, str]: ...

    def churn(self, *, every: str, since: Moment, until: Moment, renewals: bool) -> pl.DataFrame: ...

    def most_volatile(
        self, *, by: Literal["entity", "predicate"], top: int | None, since: Moment, until: Moment
    ) -> pl.DataFrame: ...

    def most_changed(self, *, top: int | None, since: Moment, until: Moment) -> pl.DataFrame: ...

    def event_graph(self, *, start: Moment, end: Moment) -> pl.DataFrame: ...

    def conflicts(self, *, now: Moment) -> pl.DataFrame: ...


class GraphSource:
    """The report's numbers from a graph: its facts frame (read once, on first use) through :mod:`kgtoolkit.analysis`,
    with the graph's settings (``multi_valued``, ``one_holder``, ``single_valued``) and predicate labels."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self.location = str(kg.location)
        self._facts: pl.DataFrame | None = None

    @property
    def facts(self) -> pl.DataFrame:
        if self._facts is None:
            from . import frames

            table = _polars(frames.facts(self.kg))
            self._facts = table
        return self._facts

    def counts(self) -> ReportCounts:
        stats = self.kg.stats()
        return ReportCounts(
            facts=self.facts.height,
            current_facts=int(self.facts["current"].sum()),
            entities=stats.entities,
            predicates=stats.predicates,
            events=stats.events,
            current=stats.current,
            scheduled=stats.scheduled,
            ended=stats.ended,
        )

    def span(self) -> tuple[dt.datetime, dt.datetime] | None:
        from .analysis._to_date import _data_span

        return _data_span(self.facts)

    def labels(self) -> dict[str, str]:
        return self.kg.predicate_labels()

    def churn(self, *, every: str, since: Moment, until: Moment, renewals: bool) -> pl.DataFrame:
        from .analysis._to_date import _churn_of

        return _churn_of(self.facts)(every=every, since=since, until=until, renewals=renewals)

    def most_volatile(
        self, *, by: Literal["entity", "predicate"], top: int | None, since: Moment, until: Moment
    ) -> pl.DataFrame:
        from . import analysis

        return _polars(analysis.most_volatile(self.facts, by=by, top=top, since=since, until=until))

    def most_changed(self, *, top: int | None, since: Moment, until: Moment) -> pl.DataFrame:
        from . import analysis

        multi_valued = self.kg.config.multi_valued
        return _polars(analysis.most_changed(self.facts, top=top, since=since, until=until, multi_valued=multi_valued))

    def event_graph(self, *, start: Moment, end: Moment) -> pl.DataFrame:
        from . import analysis

        return _polars(analysis.event_graph(self.facts, start=start, end=end))

    def conflicts(self, *, now: Moment) -> pl.DataFrame:
        from . import analysis

        config = self.kg.config
        return _polars(
            analysis.conflicts(
                self.facts,
                multi_valued=config.multi_valued,
                one_holder=config.one_holder,
                single_valued=config.single_valued,
                now=now,
            )
        )


def _polars(frame: Any) -> pl.DataFrame:
    import polars as pl

    assert isinstance(frame, pl.DataFrame)
    return frame

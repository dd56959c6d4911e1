"""The churn report from a Spark run: :func:`churn_report` asks :mod:`kgtoolkit.spark` what the report shows and
writes the same HTML page and Markdown summary as :func:`kgtoolkit.report.churn_report` writes for a graph."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._records import GraphConfig
from .._report_options import ReportOptions
from .._report_sources import ReportCounts
from .._time import TimeInput
from ..analysis._shared import Moment
from ._analyses import churn, conflicts, event_graph, most_changed, most_volatile, stats
from ._frames import checked, to_polars

if TYPE_CHECKING:
    import polars as pl
    from pyspark.sql import DataFrame

__all__ = ["churn_report"]


class SparkSource:
    """The report's numbers from a Spark facts frame: each analysis runs on Spark and comes back as the polars frame
    its twin in :mod:`kgtoolkit.analysis` gives (the answers are small: one row per period, group or ranked row)."""

    def __init__(self, facts: DataFrame, config: GraphConfig, labels: Mapping[str, str], location: str) -> None:
        self.facts = checked(facts)
        self.config = config
        self._labels = dict(labels)
        self.location = location

    def counts(self) -> ReportCounts:
        from pyspark.sql import functions as F

        row = stats(self.facts).first()
        current = self.facts.agg(F.count_if(F.col("current")).alias("n")).first()
        assert row is not None and current is not None
        return ReportCounts(
            facts=row["facts"],
            current_facts=current["n"],
            entities=row["entities"],
            predicates=row["predicates"],
            events=row["events"],
            current=row["current"],
            scheduled=row["scheduled"],
            ended=row["ended"],
        )

    def span(self) -> tuple[dt.datetime, dt.datetime] | None:
        from pyspark.sql import functions as F

        from ..analysis._to_date import _span_of

        ends = to_polars(self.facts.agg(F.min("start").alias("a"), F.max("start").alias("b"), F.max("end").alias("c")))
        return _span_of(*ends.row(0))

    def labels(self) -> dict[str, str]:
        return self._labels

    def churn(self, *, every: str, since: Moment, until: Moment, renewals: bool) -> pl.DataFrame:
        return to_polars(churn(self.facts, every=every, since=since, until=until, renewals=renewals))

    def most_volatile(
        self, *, by: Literal["entity", "predicate"], top: int | None, since: Moment, until: Moment
    ) -> pl.DataFrame:
        return to_polars(most_volatile(self.facts, by=by, top=top, since=since, until=until))

    def most_changed(self, *, top: int | None, since: Moment, until: Moment) -> pl.DataFrame:
        multi_valued = self.config.multi_valued
        return to_polars(most_changed(self.facts, top=top, since=since, until=until, multi_valued=multi_valued))

    def event_graph(self, *, start: Moment, end: Moment) -> pl.DataFrame:
        return to_polars(event_graph(self.facts, start=start, end=end))

    def conflicts(self, *, now: Moment) -> pl.DataFrame:
        c = self.config
        table = conflicts(
            self.facts, multi_valued=c.multi_valued, one_holder=c.one_holder, single_valued=c.single_valued, now=now
        )
        return to_polars(table)


def churn_report(
    facts: DataFrame,
    *,
    config: GraphConfig | None = None,
    labels: Mapping[str, str] | None = None,
    graph: str = "a Spark facts frame",
    options: ReportOptions | None = None,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    every: str = "1mo",
    out: str | os.PathLike[str] = "report.html",
    top: int = 10,
    now: TimeInput | None = None,
    title: str | None = None,
    renewals: bool = True,
) -> tuple[Path, Path]:
    """Write the churn report of a Spark facts frame: the page and summary :func:`kgtoolkit.report.churn_report`
    writes for the graph the frame was read from.

    Every number is computed on Spark by :mod:`kgtoolkit.spark` (churn, the rankings, the busiest pairs, the
    conflicts, the counts); only the answers (a row per period, group or ranked row) come back to the driver, where
    the report lays them out as it does for a graph. What a facts frame does not hold is passed in: the graph's
    settings (``config``: ``multi_valued``, ``one_holder`` and ``single_valued`` rank and judge as on the graph) and
    its predicate labels. The entity count is of the entities the facts name (a graph's own count adds those no fact
    names).

    Parameters
    ----------
    facts
        A Spark DataFrame of facts (:func:`kgtoolkit.spark.read_facts`).
    config
        The graph's settings (``kg.config``; default: no multi-valued, one-holder or single-valued predicates).
    labels
        The predicates' display labels by id (``kg.predicate_labels()``; default: their ids).
    graph
        The graph's name on the page.
    options
        The options below as one :class:`kgtoolkit.report.ReportOptions` (the value
        :func:`kgtoolkit.report.churn_report` takes); then none of them is given beside it.
    since, until, every, out, top, now, title, renewals
        As :func:`kgtoolkit.report.churn_report` takes them.

    Returns
    -------
    tuple[Path, Path]
        The HTML file and the Markdown file.

    Raises
    ------
    InvalidRequest
        What :func:`kgtoolkit.report.churn_report` refuses; a ``facts`` that is not a Spark facts frame; an
        ``every`` with no Spark form (:func:`kgtoolkit.spark.churn`).

    Examples
    --------
    >>> from kgtoolkit import spark as ks                                           # doctest: +SKIP
    >>> facts = ks.read_facts(ks.session("local[2]"), "export/")                    # doctest: +SKIP
    >>> ks.churn_report(facts, config=kg.config, out="churn.html")                  # doctest: +SKIP
    (PosixPath('churn.html'), PosixPath('churn.md'))
    """
    from ..report import write_churn_report

    mine = dict(since=since, until=until, every=every, out=out, top=top, now=now, title=title, renewals=renewals)
    chosen = ReportOptions.of(options, **mine)
    source = SparkSource(facts, config or GraphConfig(frozenset(), frozenset(), frozenset()), labels or {}, graph)
    return write_churn_report(source, chosen)

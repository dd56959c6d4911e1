"""The data behind the Churn page, asked of the engine (no facts frame): :func:`churn_span` (the slider's days and
the window it opens on: ending today), :func:`churn` (a :class:`Churn`: the tables, labelled, their totals and
chart frames). The page knows what the graph records (:func:`kgtoolkit.analysis.graph_kind`): an event graph gets
event measures (volume, the change of the last whole period, busiest pairs, bursts), a state graph added and ended
to date beside what is scheduled after today, a mixed graph both; partial periods are marked
(:func:`kgtoolkit.analysis.churn_to_date`). No Streamlit here; :mod:`kgtoolkit.dashboard.data` re-exports every
name.

>>> import kgtoolkit
>>> kg = kgtoolkit.open(":memory:")
>>> for day in ("2014-01-02", "2014-01-20", "2014-02-05", "2014-03-01"):
...     _ = kg.add("China", "criticize", "Japan", valid_from=day, valid_to=day)
>>> page = churn(kg, {}, every="1mo", since="2014-01-01", until="2014-03-31", top=5, multi_valued=())
>>> page.kind, page.events, page.volume()["partial"].to_list(), page.pairs_table()["events"].to_list()
('events', 4, [False, False, True], [4])
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any

import polars as pl

import kgtoolkit
from kgtoolkit import analysis
from kgtoolkit.dashboard._labels import labelled
from kgtoolkit.store import fact_span

__all__ = [
    "PERIODS",
    "SLIDER_DAYS",
    "Churn",
    "bar_width",
    "churn",
    "churn_span",
    "opening_period",
    "opening_window",
    "period_label",
]

_EPOCH = dt.datetime(1970, 1, 1)  # the store's instant keys count microseconds from here (UTC)


def churn_span(kg: kgtoolkit.KnowledgeGraph) -> tuple[dt.date, dt.date] | None:
    """The days the Churn page's window slider runs between: the first start, the last start or end (at least a
    day later); None when no fact has a known start. Asked of the engine (:func:`kgtoolkit.store.fact_span`)."""
    span = fact_span(kg)
    if span is None:
        return None
    first, last = (_EPOCH + dt.timedelta(microseconds=us) for us in span)
    return first.date(), max(last.date(), first.date() + dt.timedelta(days=1))  # a slider needs two different ends


def opening_window(span: tuple[dt.date, dt.date], today: dt.date) -> tuple[dt.date, dt.date]:
    """The window the Churn page opens on: the whole span, ending today when the graph plans past it (what
    :func:`kgtoolkit.analysis.churn_to_date` does by default); what is later is scheduled, not ended.

    >>> opening_window((dt.date(1990, 1, 1), dt.date(2031, 6, 30)), dt.date(2026, 12, 7))
    (datetime.date(1990, 1, 1), datetime.date(2026, 12, 7))
    """
    first, last = span
    end = min(last, today)
    return first, end if end > first else last


#: The days a Streamlit slider can hold exactly (it counts microseconds from 1970 in a JavaScript number).
SLIDER_DAYS = (dt.date(1684, 8, 1), dt.date(2255, 6, 1))

#: The period lengths the page offers, by name, shortest first (polars durations).
PERIODS = {"week": "1w", "month": "1mo", "quarter": "1q", "year": "1y"}


def opening_period(window: tuple[dt.date, dt.date], most: int = 600) -> str:
    """The period the page opens on for ``window``: the shortest of :data:`PERIODS` from a month up that cuts it
    into at most ``most`` periods (a year otherwise), so a graph of centuries does not draw 20,000 months.

    >>> opening_period((dt.date(2014, 1, 1), dt.date(2014, 12, 31))), opening_period((dt.date(100, 1, 1), dt.date(2026, 1, 1)))
    ('month', 'year')
    """
    days = (window[1] - window[0]).days + 1
    for name, length in (("month", 30.44), ("quarter", 91.3)):
        if days / length <= most:
            return name
    return "year"


def period_label(moment: dt.datetime, period: str) -> str:
    """A period as the page names it: a year ``2014``, a month or quarter ``2014-04``, a week its Monday.

    >>> [period_label(dt.datetime(2014, 4, 1), p) for p in ("year", "quarter", "week")]
    ['2014', '2014-04', '2014-04-01']
    """
    day = moment.date().isoformat()
    return day[:4] if period == "year" else day[:7] if period in ("month", "quarter") else day


def bar_width(periods: int, width: int = 1100) -> int:
    """A bar's width in pixels for ``periods`` bars across a chart about ``width`` pixels wide: most of a period's
    slot, at least 1 pixel (a chart of time draws its bars at the instants, so it needs telling).

    >>> bar_width(12), bar_width(5_000)
    (64, 1)
    """
    return max(1, int(width / max(periods, 1) * 0.7))


def _naive(frame: pl.DataFrame, *columns: str | pl.Expr) -> pl.DataFrame:
    """``period`` without its time zone (what a chart draws), then ``columns``."""
    return frame.select(pl.col("period").dt.replace_time_zone(None), *columns)


@dataclasses.dataclass(frozen=True, slots=True)
class Churn:
    """The Churn page's tables (:func:`kgtoolkit.analysis.churn_to_date` overall and
    :func:`~kgtoolkit.analysis.churn` per predicate, :func:`~kgtoolkit.analysis.most_volatile` entities,
    :func:`~kgtoolkit.analysis.most_changed` relationships, :func:`~kgtoolkit.analysis.event_graph` pairs,
    :func:`~kgtoolkit.analysis.bursts`), predicates labelled, with ``kind`` (``events``, ``states`` or ``mixed``),
    the totals and the chart frames the page draws."""

    overall: pl.DataFrame
    by_predicate: pl.DataFrame
    volatile: pl.DataFrame
    changed: pl.DataFrame
    pairs: pl.DataFrame
    bursts: pl.DataFrame
    kind: str
    every: str = "1mo"

    def _end(self) -> pl.Expr:
        """Each period's end (the next one's start, without a time zone): a bar spans its period."""
        return pl.col("period").dt.truncate(self.every).dt.offset_by(self.every).dt.replace_time_zone(None).alias("end")

    @property
    def added(self) -> int:
        """State facts started in the window, to date (not those scheduled after today)."""
        return int(self.overall["added"].sum())

    @property
    def ended(self) -> int:
        """State facts ended in the window, to date: an end after today is scheduled, not ended."""
        return int(self.overall["ended"].sum())

    @property
    def scheduled_added(self) -> int:
        """State facts the window shows starting after today."""
        return int(self.overall["scheduled_added"].sum())

    @property
    def scheduled_ended(self) -> int:
        """State facts the window shows ending after today (scheduled to end)."""
        return int(self.overall["scheduled_ended"].sum())

    @property
    def renewed(self) -> int:
        """Renewals (contract §11): the same fact again back to back, neither added nor ended."""
        return int(self.overall["renewed"].sum())

    @property
    def net(self) -> int:
        return int(self.overall["net"].sum())

    @property
    def mean_rate(self) -> float | None:
        """The mean churn rate over the periods that have one (None when none has)."""
        rate = self.overall["churn_rate"].drop_nulls()
        return float(rate.mean()) if rate.len() else None  # type: ignore[arg-type]

    @property
    def events(self) -> int:
        return int(self.overall["events"].sum())

    @property
    def states(self) -> int:
        """State facts added plus ended, to date or scheduled (0 in a graph of events only)."""
        return self.added + self.ended + self.scheduled_added + self.scheduled_ended

    @property
    def partial(self) -> int:
        """How many of the window's periods are partial (the window or the data cover them in part)."""
        return int(self.overall["partial"].sum())

    def busiest(self) -> dict[str, Any]:
        """The period with the most events (the first of equals), as a row (with ``partial``)."""
        return self.overall.sort("events", descending=True, maintain_order=True).row(0, named=True)

    def whole_change(self) -> tuple[dt.datetime, int] | None:
        """The last whole period (the one before it whole too) and its change in events: what the page headlines
        (:func:`kgtoolkit.analysis.last_full_change`); None when no two whole periods follow each other."""
        return analysis.last_full_change(self.overall)

    def volume(self) -> pl.DataFrame:
        """Events per period (``period`` and its ``end``), their change from the period before (null for a partial
        period or one after a partial one), and ``partial``."""
        after = pl.col("partial").shift(1).fill_null(True)
        change = pl.when(pl.col("partial") | after).then(None).otherwise(pl.col("events_change"))
        return _naive(self.overall, self._end(), "events", change.alias("events_change"), "partial")

    def moves(self) -> pl.DataFrame:
        """Added and ended per period, and those scheduled after today, long (``event``, ``facts``), the ends below
        zero."""
        return _naive(
            self.overall,
            self._end(),
            "added",
            (-pl.col("ended")).alias("ended"),
            pl.col("scheduled_added").alias("scheduled to start"),
            (-pl.col("scheduled_ended")).alias("scheduled to end"),
        ).unpivot(index=["period", "end"], variable_name="event", value_name="facts")

    def active(self) -> pl.DataFrame:
        return _naive(self.overall, "active_at_end", "partial")

    def top_predicates(self, top: int = 8) -> pl.DataFrame:
        """The changes (added + ended + events) per period of the ``top`` predicates with the most of them."""
        moves = pl.col("added") + pl.col("ended") + pl.col("events")
        ranked = (
            self.by_predicate.group_by("predicate")
            .agg(moves.sum().alias("n"))
            .sort("n", descending=True)["predicate"]
            .head(top)
            .to_list()
        )
        shown = self.by_predicate.filter(pl.col("predicate").is_in(ranked))
        return _naive(shown, self._end(), "predicate", moves.alias("changes"))

    def volatile_moves(self) -> pl.DataFrame:
        """The most volatile entities' added and ended, long (``entity_name``, ``event``, ``facts``); their events too
        when the graph has any, only those in a graph of events."""
        shown = [*(["added", "ended"] if self.kind != "events" else []), *(["events"] if self.kind != "states" else [])]
        return self.volatile.select("entity_name", *shown).unpivot(
            index="entity_name", variable_name="event", value_name="facts"
        )

    def changed_table(self) -> pl.DataFrame:
        """The most changed relationships as listed: subject, predicate, changes, history and current objects."""
        return self.changed.select(
            "subject_name",
            "predicate",
            "changes",
            pl.col("history").list.join(" → "),
            pl.col("current_objects").list.join(", "),
        ).rename({"subject_name": "subject", "current_objects": "current"})

    def pairs_table(self) -> pl.DataFrame:
        """The busiest pairs as listed: subject, object, events, first and last day, predicates (labelled)."""
        return self.pairs.select(
            pl.col("subject_name").alias("subject"),
            pl.col("object_name").alias("object"),
            "events",
            pl.col("first").dt.strftime("%Y-%m-%d"),
            pl.col("last").dt.strftime("%Y-%m-%d"),
            pl.col("predicates").list.join(", "),
        )

    def bursts_table(self) -> pl.DataFrame:
        """The bursts as listed: period (without a time zone), events, standard deviations above the mean."""
        return _naive(self.bursts, "events", pl.col("z").round(1))


def churn(
    kg: kgtoolkit.KnowledgeGraph,
    labels: Mapping[str, str],
    *,
    every: str,
    since: str,
    until: str,
    top: int,
    multi_valued: Collection[str],
    now: dt.datetime | None = None,
) -> Churn:
    """The Churn page's tables over the graph ``kg`` per ``every`` (``1mo``…) from ``since`` to ``until``, the
    ``top`` entities, relationships and pairs, each predicate as people spell it (``labels``:
    ``kg.predicate_labels()``). What happened is told from what is scheduled after today (``now``, default the
    current time: :func:`kgtoolkit.analysis.churn_to_date`); the rankings count what happened, to the end of today.
    Each is asked of the engine (the analysis given the graph, not a facts frame): no whole frame is read."""
    moment = now or dt.datetime.now(dt.UTC)
    overall = analysis.churn_to_date(kg, every=every, since=since, until=until, now=moment)
    done = min(dt.date.fromisoformat(until), moment.date()).isoformat()  # the rankings: what happened
    done = max(done, since)
    kind = analysis.graph_kind(kg.stats())
    pairs = (
        analysis.event_graph(kg, start=since, end=done).head(top)
        if kind != "states"
        else pl.DataFrame(schema=analysis.EVENT_GRAPH_SCHEMA)
    )
    if labels and pairs.height:
        pairs = pairs.with_columns(pl.col("predicates").list.eval(pl.element().replace(dict(labels))))
    return Churn(
        overall=overall,
        by_predicate=labelled(analysis.churn(kg, every=every, since=since, until=until, by="predicate"), labels),
        volatile=analysis.most_volatile(kg, by="entity", top=top, since=since, until=done),
        changed=labelled(
            analysis.most_changed(kg, top=top, since=since, until=done, multi_valued=multi_valued), labels
        ),
        pairs=pairs,
        bursts=analysis.bursts(overall).head(top) if kind != "states" else pl.DataFrame(schema=analysis.BURSTS_SCHEMA),
        kind=kind,
        every=every,
    )

"""The graph through time, asked of a graph: what the Graph page draws, and the same in a notebook or a file.

>>> import kgtoolkit
>>> from kgtoolkit.dashboard.timegraph import time_graph
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("Ann", "met", "Bob", valid_from="2014-01-03", valid_to="2014-01-03")
>>> _ = kg.add("Bob", "met", "Cy", valid_from="2014-05-09", valid_to="2014-05-09")
>>> shown = time_graph(kg, every="1mo", at="2014-05-20")
>>> shown.time.periods[shown.time.start], sorted(shown.time.visible(shown.time.start, shown.time.start)[0])
('2014-05', ['bob', 'cy'])
>>> "<iframe srcdoc=" in shown._repr_html_()
True

In a notebook, ``time_graph(kg)`` as a cell's last line shows the picture with its histogram, window and play
button; ``.save("graph.html")`` writes the page, ``.save_svg("graph.svg")`` the animation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html as _html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from kgtoolkit.dashboard import data, graphview
from kgtoolkit.dashboard.picture.timeview import TimeView, animation_svg, periods, render_time_html, time_view

if TYPE_CHECKING:
    from kgtoolkit.graph import KnowledgeGraph

__all__ = ["TimeGraph", "hubs_view", "time_graph", "window_days"]

_US = pl.Datetime("us", "UTC")


@dataclasses.dataclass(frozen=True, slots=True)
class TimeGraph:
    """A :class:`TimeView` ready to show: in Jupyter (``_repr_html_``: the page in an iframe, so its script runs in
    every notebook front end), saved as a page (:meth:`save`) or as an animated SVG (:meth:`save_svg`)."""

    time: TimeView
    height: int = 640

    def html(self) -> str:
        """The self-contained page (:func:`render_time_html`)."""
        return render_time_html(self.time, height=self.height, recentre=False)

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{_html.escape(self.html(), quote=True)}" style="width:100%;height:{self.height}px;'
            'border:0" sandbox="allow-scripts"></iframe>'
        )

    def save(self, path: str | Path) -> Path:
        """Write the page to ``path`` (opens in any browser, offline)."""
        target = Path(path)
        target.write_text(self.html(), encoding="utf-8")
        return target

    def svg(self, **options: Any) -> str:
        """The animation (:func:`animation_svg`)."""
        return animation_svg(self.time, **options)

    def save_svg(self, path: str | Path, **options: Any) -> Path:
        """Write the animation to ``path``."""
        target = Path(path)
        target.write_text(self.svg(**options), encoding="utf-8")
        return target


def time_graph(
    kg: KnowledgeGraph,
    *,
    since: dt.date | str | None = None,
    until: dt.date | str | None = None,
    every: str | None = None,
    at: dt.date | str | None = None,
    center: str | None = None,
    hops: int = 1,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    max_nodes: int = 120,
    height: int = 640,
) -> TimeGraph:
    """The graph ``kg`` through time, as the dashboard's Graph page shows it, for a notebook or a file.

    The range runs from ``since`` to ``until`` (default: the years holding the graph's starts,
    ends and events but the first 2% and the last 0.5%, so a few stray dates, a year 100 or 2844, do not squeeze the rest into a corner); the
    ``max_nodes`` most connected entities over it (or ``center``'s neighbourhood of ``hops``) are drawn, each
    period showing those holding a fact in it. Where the most connected share few edges (a graph of stars: hubs
    whose neighbours are not hubs), the hubs are drawn with their neighbours instead (:func:`hubs_view`).
    ``at``: the period shown first (default: the whole range).
    Everything is asked of the engine: the ranking, the facts among the drawn entities, and the activity
    (:func:`kgtoolkit.analysis.churn`). Needs ``pyvis`` to draw (``kgtoolkit[dashboard]``).
    """
    from kgtoolkit import analysis, frames

    span = data.churn_span(kg)
    busy = _busy_years(kg, span) if span and (since is None or until is None) else None
    first = _day(since) or (busy[0] if busy else span[0] if span else dt.date.today())
    last = _day(until) or (busy[1] if busy else span[1] if span else first)
    window = f"{first.isoformat()}/{last.isoformat()}"
    labels = kg.predicate_labels()
    view = data.graph_overview(
        kg, window, labels, center=center, hops=hops, predicates=predicates, types=types, max_nodes=max_nodes
    )
    if center is None and len(view.edges) < len(view.nodes) // 2:
        view = hubs_view(kg, view, window, labels, predicates=predicates, types=types)
    facts = frames.facts_among(kg, view.node_ids, as_of=window) if view.nodes else pl.DataFrame()
    every, _ = periods(first, last, every)
    churn_every = "1y" if every == "10y" else every
    activity = analysis.churn(kg, every=churn_every, since=first.isoformat(), until=last.isoformat())
    assert isinstance(activity, pl.DataFrame)
    tv = time_view(
        view,
        facts if facts.height else pl.DataFrame(schema={"id": pl.Int64, "start": _US, "end": _US}),
        first=first,
        last=last,
        every=every,
        activity=activity,
    )
    return TimeGraph(tv.at(_day(at)) if at is not None else tv.at(None), height)


def _busy_years(kg: KnowledgeGraph, span: tuple[dt.date, dt.date]) -> tuple[dt.date, dt.date] | None:
    """The first day of the year where the graph's first 2% of starts, ends and events fall, and the last day of
    the year where its last 0.5% do (:func:`kgtoolkit.analysis.churn` per year); None when nothing is dated."""
    from kgtoolkit import analysis

    years = analysis.churn(kg, every="1y", since=span[0].isoformat(), until=span[1].isoformat())
    assert isinstance(years, pl.DataFrame)
    weight = years.select(pl.col("period"), (pl.col("added") + pl.col("ended") + pl.col("events")).alias("w"))
    total = int(weight["w"].sum() or 0)
    if total == 0:
        return None
    cum = weight.with_columns(pl.col("w").cum_sum().alias("c"))
    low = cum.filter(pl.col("c") >= total * 0.02)["period"].min()
    high = cum.filter(pl.col("c") >= total * 0.995)["period"].min()
    if not isinstance(low, dt.datetime) or not isinstance(high, dt.datetime):
        return None
    return max(span[0], low.date()), min(span[1], dt.date(high.year, 12, 31))


def hubs_view(
    kg: KnowledgeGraph,
    overview: graphview.GraphView,
    window: str,
    labels: Mapping[str, str],
    *,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    hubs: int = 8,
) -> graphview.GraphView:
    """The ``hubs`` most connected entities of ``overview`` with their nearest neighbours (each its share of the
    node cap, :func:`kgtoolkit.dashboard.data.graph_overview` around it), drawn together: what a graph of stars
    shows instead of hubs with no edge between them. The totals stay the overview's."""
    from kgtoolkit import frames

    top = overview.node_ids[:hubs]
    share = max(2, overview.max_nodes // max(1, len(top)))
    ids: dict[str, None] = {}
    for hub in top:
        around = data.graph_overview(
            kg, window, labels, center=hub, hops=1, predicates=predicates, types=types, max_nodes=share
        )
        ids.update(dict.fromkeys(around.node_ids))
    facts = data.labelled(frames.facts_among(kg, list(ids), as_of=window), labels, alias="predicate_label")
    view = graphview.build(facts, predicates=predicates, types=types, max_nodes=overview.max_nodes)
    return dataclasses.replace(
        view,
        total_nodes=overview.total_nodes,
        total_edges=overview.total_edges,
        omitted_nodes=max(0, overview.total_nodes - len(view.nodes)),
    )


def window_days(window: str | None) -> tuple[dt.date, dt.date] | None:
    """The first and last day of a dashboard window (a day, ``2014-03``, ``2014``, or ``FIRST/LAST``); None for
    all dates.

    >>> window_days("2014-03"), window_days(None)
    ((datetime.date(2014, 3, 1), datetime.date(2014, 3, 31)), None)
    """
    if window is None:
        return None
    if "/" in window:
        a, b = window.split("/", 1)
        return dt.date.fromisoformat(a), dt.date.fromisoformat(b)
    if len(window) == 4:
        return dt.date(int(window), 1, 1), dt.date(int(window), 12, 31)
    if len(window) == 7:
        first = dt.date(int(window[:4]), int(window[5:7]), 1)
        after = dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return first, after - dt.timedelta(days=1)
    day = dt.date.fromisoformat(window)
    return day, day


def _day(value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])

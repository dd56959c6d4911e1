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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from kgtoolkit.dashboard import data
from kgtoolkit.dashboard.picture.timeview import TimeView, animation_svg, periods, render_time_html, time_view

if TYPE_CHECKING:
    from kgtoolkit.graph import KnowledgeGraph

__all__ = ["TimeGraph", "time_graph"]

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

    The range runs from ``since`` to ``until`` (default: the graph's first start to its last start or end); the
    ``max_nodes`` most connected entities over it (or ``center``'s neighbourhood of ``hops``) are drawn, each
    period showing those holding a fact in it; ``at``: the period shown first (default: the whole range).
    Everything is asked of the engine: the ranking, the facts among the drawn entities, and the activity
    (:func:`kgtoolkit.analysis.churn`). Needs ``pyvis`` to draw (``kgtoolkit[dashboard]``).
    """
    from kgtoolkit import analysis, frames

    span = data.churn_span(kg)
    first = _day(since) or (span[0] if span else dt.date.today())
    last = _day(until) or (span[1] if span else first)
    window = f"{first.isoformat()}/{last.isoformat()}"
    labels = kg.predicate_labels()
    view = data.graph_overview(
        kg, window, labels, center=center, hops=hops, predicates=predicates, types=types, max_nodes=max_nodes
    )
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
    return TimeGraph(tv.at(_day(at)), height)


def _day(value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])

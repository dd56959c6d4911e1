"""The picture through time: one layout over a time range's union of nodes, shown period by period.

:func:`time_view` takes a :class:`~kgtoolkit.dashboard.picture.view.GraphView` drawn over a whole time range (the
union of the entities and edges of every period in it) and the facts of its edges, and cuts the range into
periods (a day, week, month, year or decade, at most :data:`MAX_PERIODS`): each edge knows the periods it holds
in, each node those of its edges. :func:`render_time_html` draws it once, at places computed once
(:func:`~kgtoolkit.dashboard.picture.layout.layout` of the union), with an activity histogram (facts valid, or
events, per period) above a draggable window, play/pause and steps: moving the window only shows, fades or hides
(in the page's script, nothing is asked of the server), so nothing moves. The page is self-contained (vis-network
inlined, all data in it): the dashboard shows it in an iframe, a notebook shows
:class:`kgtoolkit.dashboard.timegraph.TimeGraph` the same way,
and :func:`animation_svg` makes an animated SVG a report can embed.

>>> import kgtoolkit
>>> from kgtoolkit.dashboard.timegraph import time_graph
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("Ann", "met", "Bob", valid_from="2014-01-03", valid_to="2014-01-03")
>>> _ = kg.add("Bob", "met", "Cy", valid_from="2014-03-09", valid_to="2014-03-09")
>>> tv = time_graph(kg).time
>>> tv.every, len(tv.periods), tv.periods[0], tv.measure, sum(tv.activity)
('1d', 66, '2014-01-03', 'events', 2)
>>> sorted(tv.visible(0, 0)[0]), sorted(tv.visible(65, 65)[0]), sorted(tv.visible(0, 65)[0])
(['ann', 'bob'], ['bob', 'cy'], ['ann', 'bob', 'cy'])
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html as _html
import json
from collections.abc import Mapping
from typing import Any

import polars as pl

from kgtoolkit.dashboard.picture.layout import layout
from kgtoolkit.dashboard.picture.render import page_of
from kgtoolkit.dashboard.picture.view import GraphView

__all__ = [
    "AUTO_PERIODS",
    "EVERY",
    "MAX_PERIODS",
    "TimeView",
    "animation_svg",
    "follow_html",
    "periods",
    "render_time_html",
    "time_view",
]

#: The period lengths, shortest first (polars durations; ``10y`` is a decade).
EVERY: tuple[str, ...] = ("1d", "1w", "1mo", "1y", "10y")
#: At most this many periods when the length is chosen (a longer range takes the next longer period), and at most
#: this many when it is given (:data:`MAX_PERIODS`).
AUTO_PERIODS = 120
MAX_PERIODS = 400
_US = pl.Datetime("us", "UTC")

Spans = tuple[tuple[int, int], ...]


@dataclasses.dataclass(frozen=True, slots=True)
class TimeView:
    """A picture over a time range, cut into periods.

    ``view``: the union of every period's nodes and edges (drawn once, at one layout); ``every``: the period
    length; ``periods``: each period's label, ``starts``: its first day; ``activity``: per period, the graph's
    ``measure`` ("events", "facts valid", or both) over the whole graph, not only the drawn part; ``edge_spans`` /
    ``node_spans``: the periods (first, last, both included) each edge's facts, and each node's edges, hold in;
    ``start``, ``width``: the window shown first (its first period, how many periods).
    """

    view: GraphView
    every: str
    periods: tuple[str, ...]
    starts: tuple[dt.date, ...]
    activity: tuple[int, ...]
    measure: str
    edge_spans: Mapping[int, Spans]
    node_spans: Mapping[str, Spans]
    start: int = 0
    width: int = 1

    def visible(self, first: int, last: int) -> tuple[set[str], set[int]]:
        """The nodes and edges shown for the window of periods ``first``..``last`` (the page's rule, in Python):
        an edge whose facts hold in one of them, a node with such an edge (or with no edge at all)."""
        edges = {i for i, spans in self.edge_spans.items() if _meets(spans, first, last)}
        nodes = {n for n, spans in self.node_spans.items() if _meets(spans, first, last)}
        return nodes, edges

    def at(self, day: dt.date | None, until: dt.date | None = None) -> TimeView:
        """The same picture opening on the periods holding ``day`` to ``until`` (default: ``day``'s alone; None:
        the whole range)."""
        if day is None or not self.starts:
            return dataclasses.replace(self, start=0, width=max(1, len(self.periods)))
        first = max(0, sum(1 for s in self.starts if s <= day) - 1)
        last = max(first, sum(1 for s in self.starts if s <= (until or day)) - 1)
        return dataclasses.replace(self, start=first, width=last - first + 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "view": self.view.to_dict(),
            "every": self.every,
            "periods": list(self.periods),
            "starts": [s.isoformat() for s in self.starts],
            "activity": list(self.activity),
            "measure": self.measure,
            "edge_spans": {str(k): [list(s) for s in v] for k, v in self.edge_spans.items()},
            "node_spans": {k: [list(s) for s in v] for k, v in self.node_spans.items()},
            "start": self.start,
            "width": self.width,
        }


def _meets(spans: Spans, first: int, last: int) -> bool:
    return any(a <= last and b >= first for a, b in spans)


# ---------------------------------------------------------------------- periods


def _floor(day: dt.date, every: str) -> dt.date:
    if every == "1w":
        return day - dt.timedelta(days=day.weekday())
    if every == "1mo":
        return day.replace(day=1)
    if every == "1y":
        return dt.date(day.year, 1, 1)
    if every == "10y":
        return dt.date(max(1, day.year - day.year % 10), 1, 1)
    return day


def _next(day: dt.date, every: str) -> dt.date:
    if every == "1d":
        return day + dt.timedelta(days=1)
    if every == "1w":
        return day + dt.timedelta(days=7)
    if every == "1mo":
        return dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)
    step = 1 if every == "1y" else 10
    return dt.date(day.year + step, 1, 1) if day.year + step <= 9999 else dt.date.max


def _label(day: dt.date, every: str) -> str:
    if every == "1mo":
        return day.strftime("%Y-%m")
    if every == "1y":
        return f"{day.year:04d}"
    if every == "10y":
        return f"{day.year:04d}s"
    return day.isoformat()


def periods(first: dt.date, last: dt.date, every: str | None = None) -> tuple[str, list[dt.date]]:
    """The period length (``every``, or the shortest of :data:`EVERY` giving at most :data:`AUTO_PERIODS`) and the
    first day of each period from the one holding ``first`` to the one holding ``last`` (at most
    :data:`MAX_PERIODS`).

    >>> every, starts = periods(dt.date(2014, 1, 1), dt.date(2014, 12, 31)); every, len(starts), starts[0]
    ('1w', 53, datetime.date(2013, 12, 30))
    >>> every, starts = periods(dt.date(1850, 5, 1), dt.date(2017, 1, 1)); every, len(starts), starts[0]
    ('10y', 17, datetime.date(1850, 1, 1))
    """
    if last < first:
        first, last = last, first
    starts: list[dt.date] = []
    for length in (every,) if every else EVERY:
        assert length is not None
        starts = [_floor(first, length)]
        while starts[-1] < _floor(last, length) and len(starts) <= MAX_PERIODS:
            starts.append(_next(starts[-1], length))
        if len(starts) <= AUTO_PERIODS or every:
            return length, starts[:MAX_PERIODS]
    return EVERY[-1], starts[:MAX_PERIODS]


def _index(moments: pl.Expr, bounds: pl.Series) -> pl.Expr:
    """The period (index into ``bounds``, the periods' first instants) holding each moment, clipped to the range."""
    return (pl.lit(bounds).search_sorted(moments, side="right").cast(pl.Int64) - 1).clip(0, len(bounds) - 1)


# ---------------------------------------------------------------------- building


def time_view(
    view: GraphView,
    facts: pl.DataFrame,
    *,
    first: dt.date,
    last: dt.date,
    every: str | None = None,
    activity: pl.DataFrame | None = None,
) -> TimeView:
    """Cut the range ``first``..``last`` into periods, and place ``view``'s edges and nodes in them.

    ``facts``: the facts of the view's edges (at least ``id``, ``start``, ``end`` as
    :func:`kgtoolkit.frames.facts` gives them; an unknown start counts from the first period, an open end to the
    last); ``activity``: :func:`kgtoolkit.analysis.churn` of the whole graph per ``every`` (``period``,
    ``events``, ``active_at_end``), read into the histogram: events per period on an event graph, facts valid at
    each period's end on a state graph, both summed on a mixed one.
    """
    every, starts = periods(first, last, every)
    bounds = pl.Series("b", [dt.datetime(s.year, s.month, s.day, tzinfo=dt.UTC) for s in starts], dtype=_US).sort()
    owner = {i: e.id for e in view.edges for i in (e.ids or (e.id,))}
    placed = (
        facts.filter(pl.col("id").is_in(list(owner)))
        .select(
            pl.col("id").replace_strict(owner, return_dtype=pl.Int64).alias("edge"),
            pl.when(pl.col("start").is_null()).then(0).otherwise(_index(pl.col("start"), bounds)).alias("a"),
            pl.when(pl.col("end").is_null()).then(len(starts) - 1).otherwise(_index(pl.col("end"), bounds)).alias("b"),
        )
        .with_columns(pl.max_horizontal("a", "b").alias("b"))
    )
    edge_spans: dict[int, Spans] = {}
    for edge, firsts, lasts in placed.group_by("edge").agg("a", "b").iter_rows():
        edge_spans[int(edge)] = _merged(zip(firsts, lasts, strict=True))
    for e in view.edges:  # an edge whose facts were not given holds throughout (never hidden by mistake)
        edge_spans.setdefault(e.id, ((0, len(starts) - 1),))
    gathered: dict[str, list[tuple[int, int]]] = {n.id: [] for n in view.nodes}
    for e in view.edges:
        for end in (e.source, e.target):
            gathered.setdefault(end, []).extend(edge_spans[e.id])
    node_spans = {n: _merged(s) if s else ((0, len(starts) - 1),) for n, s in gathered.items()}
    counts, measure = _activity(activity, bounds)
    return TimeView(
        view,
        every,
        tuple(_label(s, every) for s in starts),
        tuple(starts),
        counts,
        measure,
        edge_spans,
        node_spans,
        0,
        len(starts),
    )


def _merged(spans: Any) -> Spans:
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in spans):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _activity(churn: pl.DataFrame | None, bounds: pl.Series) -> tuple[tuple[int, ...], str]:
    n = len(bounds)
    if churn is None or churn.height == 0:
        return tuple([0] * n), "facts"
    events = int(churn["events"].sum())
    states = int(churn["active_at_end"].abs().sum())
    measure = "events" if not states else "facts valid" if not events else "facts valid and events"
    # Per period: the events in it, summed; the facts valid at its end (the last of its churn rows).
    per = (
        churn.sort("period")
        .select(_index(pl.col("period").dt.replace_time_zone("UTC"), bounds).alias("p"), "events", "active_at_end")
        .group_by("p", maintain_order=True)
        .agg(pl.col("events").sum(), pl.col("active_at_end").last())
        .select("p", (pl.col("events") if events else pl.lit(0)) + (pl.col("active_at_end") if states else pl.lit(0)))
    )
    found = {int(p): int(v or 0) for p, v in per.iter_rows()}
    counts, held = [], 0
    for i in range(n):  # a state graph's period with no change still holds the facts valid before it
        held = found.get(i, held if states else 0)
        counts.append(held)
    return tuple(counts), measure


# ---------------------------------------------------------------------- the page

_CONTROLS = """
<div id="kg-time" style="font:12px sans-serif;color:#333;padding:4px 8px 0 8px;user-select:none">
  <canvas id="kg-activity" height="64" style="width:100%;height:64px;display:block;cursor:grab"></canvas>
  <div style="display:flex;gap:8px;align-items:center;margin-top:4px">
    <button id="kg-back" title="one period back">&#9664;</button>
    <button id="kg-play" title="play / pause" style="min-width:64px">&#9654; play</button>
    <button id="kg-next" title="one period on">&#9654;</button>
    <span id="kg-period" style="font-weight:600"></span>
    <span id="kg-count" style="color:#666"></span>
    <span style="flex:1"></span>
    <label>others <select id="kg-mode"><option value="fade">faded</option><option value="hide">hidden</option></select></label>
  </div>
</div>
"""

_TIME_SCRIPT = """
<script>
(function () {
  if (typeof network === "undefined") { return; }
  var T = __TIME__;
  var container = document.getElementById("mynetwork");
  var canvas = document.getElementById("kg-activity"), playing = null, mode = "fade";
  var n = T.periods.length, a = T.start, b = Math.min(n - 1, T.start + T.width - 1);
  var FADED = "#E3E3E3";
  function meets(spans, lo, hi) {
    for (var i = 0; i < spans.length; i++) { if (spans[i][0] <= hi && spans[i][1] >= lo) { return true; } }
    return false;
  }
  function show() {
    var t0 = performance.now(), nu = [], eu = [], shown = [];
    nodes.forEach(function (x) {
      var on = meets(x.t || [], a, b);
      if (on) { shown.push(x.id); }
      if (x.on !== on || x.mode !== mode) {
        nu.push({id: x.id, on: on, mode: mode, dim: !on, hidden: !on && mode === "hide",
                 color: on ? x.base : {background: FADED, border: FADED}});
      }
    });
    edges.forEach(function (x) {
      var on = meets(x.t || [], a, b);
      if (x.on !== on || x.mode !== mode) {
        eu.push({id: x.id, on: on, mode: mode, hidden: !on && mode === "hide", color: on ? x.base : {color: FADED, opacity: 0.5}});
      }
    });
    nodes.update(nu); edges.update(eu);
    if (window.kgSizeLabels) { window.kgSizeLabels(true); }
    container.setAttribute("data-period-from", String(a));
    container.setAttribute("data-period-to", String(b));
    container.setAttribute("data-period", T.periods[a] + (b > a ? " … " + T.periods[b] : ""));
    container.setAttribute("data-shown-ids", shown.sort().join("|"));
    document.getElementById("kg-period").textContent = T.periods[a] + (b > a ? " … " + T.periods[b] : "");
    var total = 0; for (var i = a; i <= b; i++) { total += T.activity[i] || 0; }
    if (T.measure !== "events") { total = T.activity[b] || 0; }
    document.getElementById("kg-count").textContent = shown.length + " of " + nodes.length + " entities in the window · "
      + "the whole graph: " + total.toLocaleString() + " " + T.measure + (T.measure === "events" ? " in it" : " at its end");
    bars();
    network.once("afterDrawing", function () { container.setAttribute("data-step-ms", (performance.now() - t0).toFixed(1)); });
    network.redraw();
  }
  function bars() {
    var w = canvas.clientWidth, h = 64, dpr = window.devicePixelRatio || 1;
    canvas.width = w * dpr; canvas.height = h * dpr;
    var g = canvas.getContext("2d"); g.scale(dpr, dpr); g.clearRect(0, 0, w, h);
    var top = Math.max.apply(null, T.activity.concat([1])), bw = w / n;
    g.fillStyle = "rgba(76,120,168,0.12)"; g.fillRect(a * bw, 0, (b - a + 1) * bw, h - 12);
    for (var i = 0; i < n; i++) {
      var v = T.activity[i] || 0, bh = (h - 16) * v / top;
      g.fillStyle = i >= a && i <= b ? "#4C78A8" : "#B9C7D8";
      g.fillRect(i * bw + (bw > 3 ? 0.5 : 0), h - 12 - bh, Math.max(bw - (bw > 3 ? 1 : 0), 0.6), bh);
    }
    g.strokeStyle = "#4C78A8"; g.lineWidth = 2; g.strokeRect(a * bw + 1, 1, (b - a + 1) * bw - 2, h - 14);
    g.fillStyle = "#555"; g.font = "10px sans-serif"; g.textBaseline = "bottom";
    g.fillText(T.periods[0], 2, h); var last = T.periods[n - 1];
    g.fillText(last, w - g.measureText(last).width - 2, h);
    g.fillText(T.measure + " per period", w / 2 - 40, h);
  }
  function set(lo, hi) {
    var width = hi - lo; lo = Math.max(0, Math.min(lo, n - 1 - width)); a = lo; b = lo + width; show();
  }
  function step(by) { if (b + by > n - 1 || a + by < 0) { set(by > 0 ? 0 : n - 1 - (b - a), by > 0 ? b - a : n - 1); } else { set(a + by, b + by); } }
  function play() {
    if (playing) { clearInterval(playing); playing = null; }
    else { playing = setInterval(function () { step(1); }, __STEP_MS__); }
    document.getElementById("kg-play").innerHTML = playing ? "&#10073;&#10073; pause" : "&#9654; play";
    container.setAttribute("data-playing", playing ? "1" : "0");
  }
  var drag = null;
  function at(ev) { var r = canvas.getBoundingClientRect(); return Math.max(0, Math.min(n - 1, Math.floor((ev.clientX - r.left) / r.width * n))); }
  canvas.addEventListener("pointerdown", function (ev) {
    var p = at(ev), edge = Math.max(1, n / 100);
    if (Math.abs(p - a) <= edge && b > a) { drag = {kind: "from"}; }
    else if (Math.abs(p - b) <= edge && b > a) { drag = {kind: "to"}; }
    else if (ev.shiftKey) { drag = {kind: "to"}; b = Math.max(a, p); show(); }
    else if (p >= a && p <= b) { drag = {kind: "move", off: p - a}; }
    else { drag = {kind: "move", off: 0}; set(p, p + b - a); }
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    var p = at(ev);
    if (drag.kind === "from") { a = Math.min(p, b); show(); }
    else if (drag.kind === "to") { b = Math.max(p, a); show(); }
    else if (p - drag.off !== a) { set(p - drag.off, p - drag.off + b - a); }
  });
  canvas.addEventListener("pointerup", function () { drag = null; });
  document.getElementById("kg-play").onclick = play;
  document.getElementById("kg-next").onclick = function () { step(1); };
  document.getElementById("kg-back").onclick = function () { step(-1); };
  document.getElementById("kg-mode").onchange = function (ev) { mode = ev.target.value; show(); };
  nodes.forEach(function (x) { nodes.update({id: x.id, base: x.color}); });
  edges.forEach(function (x) { edges.update({id: x.id, base: x.color}); });
  window.kgTime = {set: set, step: step, play: play, show: show, periods: T.periods};
  show();
})();
</script>
"""


def render_time_html(tv: TimeView, *, height: int = 640, recentre: bool = True, step_ms: int = 900) -> str:
    """A self-contained page drawing ``tv``: the union at one layout, the activity histogram with the window
    (drag it; drag its edges, or shift-click, to widen it), play/pause (a period each ``step_ms``) and steps, and
    the nodes and edges outside the window faded (or hidden). Nothing moves: every period uses the same places.

    >>> import kgtoolkit
    >>> from kgtoolkit.dashboard.timegraph import time_graph
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "met", "Bob", valid_from="2014-01-03", valid_to="2014-01-03")
    >>> page = render_time_html(time_graph(kg).time)
    >>> "kg-activity" in page, "kgTime" in page, "jsdelivr" in page
    (True, True, False)
    """
    data = {
        "periods": list(tv.periods),
        "activity": list(tv.activity),
        "measure": tv.measure,
        "start": tv.start,
        "width": tv.width,
    }
    script = _TIME_SCRIPT.replace("__TIME__", json.dumps(data)).replace("__STEP_MS__", str(int(step_ms)))
    return page_of(
        tv.view,
        height=height - 96,
        recentre=recentre,
        node_data={n: {"t": [list(s) for s in spans]} for n, spans in tv.node_spans.items()},
        edge_data={e: {"t": [list(s) for s in spans]} for e, spans in tv.edge_spans.items()},
        before=_CONTROLS,
        script=script,
        where=layout(tv.view),
    )


_FOLLOW = """<script>
(function () {
  var tries = 0;
  function move() {
    var done = false;
    try {
      window.parent.document.querySelectorAll("iframe").forEach(function (f) {
        try { if (f.contentWindow && f.contentWindow.kgTime) { f.contentWindow.kgTime.set(__FROM__, __TO__); done = true; } }
        catch (err) {}
      });
    } catch (err) { return; }
    if (!done && tries++ < 200) { setTimeout(move, 50); }
  }
  move();
})();
</script>"""


def follow_html(first: int, last: int) -> str:
    """A tiny page that moves the window of the picture drawn beside it (:func:`render_time_html`, in a sibling
    iframe) to the periods ``first``..``last``: the dashboard sends it when the sidebar's date changes, so the
    picture itself is not sent again (nor drawn again: only its window moves)."""
    return _FOLLOW.replace("__FROM__", str(int(first))).replace("__TO__", str(int(last)))


# ---------------------------------------------------------------------- an animation a report can embed


def animation_svg(tv: TimeView, *, width: int = 900, height: int = 600, seconds: float = 0.8, labels: int = 12) -> str:
    """An animated SVG of ``tv``, one period every ``seconds``, looping: every node and edge at its one place,
    shown in the periods it holds in and faded otherwise, the period's label in a corner, the ``labels`` most
    connected nodes named. Self-contained (SMIL animation, no script): a report embeds it as ``<img src>`` or
    inline, and browsers play it.

    >>> import kgtoolkit
    >>> from kgtoolkit.dashboard.timegraph import time_graph
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "met", "Bob", valid_from="2014-01-03", valid_to="2014-01-03")
    >>> svg = animation_svg(time_graph(kg).time); svg.startswith("<svg") and "<animate" in svg
    True
    """
    where = layout(tv.view)
    n = max(1, len(tv.periods))
    xs = [p[0] for p in where.values()] or [0.0]
    ys = [p[1] for p in where.values()] or [0.0]
    pad = 40.0
    span_x, span_y = max(max(xs) - min(xs), 1.0), max(max(ys) - min(ys), 1.0)
    scale = min((width - 2 * pad) / span_x, (height - 2 * pad - 30) / span_y)

    def at(node: str) -> tuple[float, float]:
        x, y = where[node]
        return pad + (x - min(xs)) * scale, pad + 30 + (y - min(ys)) * scale

    total = seconds * n
    times = ";".join(f"{i / n:.5f}" for i in range(n)) + ";1"

    def fade(spans: Spans, dim: float) -> str:
        values = ";".join("1" if _meets(spans, i, i) else f"{dim}" for i in range(n))
        last = "1" if _meets(spans, n - 1, n - 1) else f"{dim}"
        return (
            f'<animate attributeName="opacity" calcMode="discrete" dur="{total:.2f}s" repeatCount="indefinite" '
            f'keyTimes="{times}" values="{values};{last}"/>'
        )

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for e in tv.view.edges:
        if e.source not in where or e.target not in where:
            continue
        (x1, y1), (x2, y2) = at(e.source), at(e.target)
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{_html.escape(e.color)}" '
            f'stroke-width="1.2">{fade(tv.edge_spans.get(e.id, ()), 0.06)}</line>'
        )
    named = {n.id for n in sorted(tv.view.nodes, key=lambda n: (-n.degree, n.id))[:labels]}
    for node in tv.view.nodes:
        x, y = at(node.id)
        r = max(3.0, node.size * scale * 0.6)
        text = (
            f'<text x="{x:.1f}" y="{y + r + 12:.1f}" font-size="12" text-anchor="middle" fill="#222" '
            f'stroke="#fff" stroke-width="3" paint-order="stroke">{_html.escape(node.label[:40])}</text>'
            if node.id in named
            else ""
        )
        out.append(
            f'<g><circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{_html.escape(node.color)}"/>{text}'
            f"{fade(tv.node_spans.get(node.id, ()), 0.12)}</g>"
        )
    for i, label in enumerate(tv.periods):
        values = ";".join("1" if j == i else "0" for j in range(n)) + (";1" if i == n - 1 else ";0")
        out.append(
            f'<text x="{pad:.0f}" y="28" font-size="20" font-weight="600" fill="#333" opacity="0">{_html.escape(label)}'
            f'<animate attributeName="opacity" calcMode="discrete" dur="{total:.2f}s" repeatCount="indefinite" '
            f'keyTimes="{times}" values="{values}"/></text>'
        )
    out.append("</svg>")
    return "\n".join(out)

"""Turning a view into a page: vis-network (through pyvis) inlined, no CDN, the nodes at their computed places."""

from __future__ import annotations

import functools
import html as _html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgtoolkit._errors import require
from kgtoolkit.dashboard.picture import style
from kgtoolkit.dashboard.picture.layout import layout
from kgtoolkit.dashboard.picture.view import GraphView

__all__ = [
    "CDN_HOSTS",
    "EDGE_LABEL_PX",
    "LABELLED_EDGES",
    "NODE_LABEL_PX",
    "escape",
    "page_of",
    "render_html",
    "strip_cdn",
]

#: Hosts that must never appear in a rendered page (it has to work offline).
CDN_HOSTS: tuple[str, ...] = ("jsdelivr", "cdnjs", "unpkg", "googleapis", "cloudflare")
_LABEL_CHARS = 60  # a label drawn on the canvas is cut here (the tooltip holds the whole name)

_CDN_TAG = re.compile(
    r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>"  # external stylesheets
    r"|<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>",  # external scripts
    re.IGNORECASE | re.DOTALL,
)


_CDN_HOST = re.compile("|".join(re.escape(host) for host in CDN_HOSTS), re.IGNORECASE)


def strip_cdn(page: str) -> str:
    """Remove every external ``<link>``/``<script src>`` tag and any remaining CDN host name.

    pyvis's template loads Bootstrap from jsDelivr even with ``cdn_resources="in_line"``; the graph
    does not need it. A host name left in the page can only be inside the graph's data (an entity
    called "Cloudflare"), which sits in JavaScript strings: its last letter becomes a ``\\uXXXX``
    escape, which JavaScript reads back as the same name while the page text names no CDN.
    """
    page = _CDN_TAG.sub("", page)
    return _CDN_HOST.sub(lambda m: m.group(0)[:-1] + f"\\u{ord(m.group(0)[-1]):04x}", page)  # one pass for all


_EXTRA_SCRIPT = """
<script>
(function () {
  if (typeof network === "undefined") { return; }
  var container = document.getElementById("mynetwork");
  // Tooltips as plain text with line breaks, never parsed as HTML: the text travels in "tip" (pyvis
  // would switch to a popup that sets innerHTML if a "title" held "href") and becomes an element's textContent.
  function tip(text) {
    var d = document.createElement("div");
    d.style.whiteSpace = "pre-line"; d.style.maxWidth = "420px"; d.style.fontSize = "12px";
    d.style.overflowWrap = "anywhere"; d.textContent = text; return d;
  }
  var updates = [];
  nodes.forEach(function (n) { if (typeof n.tip === "string") { updates.push({id: n.id, title: tip(n.tip)}); } });
  nodes.update(updates);
  var eupdates = [];
  edges.forEach(function (e) { if (typeof e.tip === "string") { eupdates.push({id: e.id, title: tip(e.tip)}); } });
  edges.update(eupdates);
  // Labels are drawn at a size read on screen, whatever the zoom: the most connected nodes' ("always") always,
  // the others' and the edges' while hovered (and the edges' always when there are few of them).
  var NODE_PX = __NODE_PX__, EDGE_PX = __EDGE_PX__, hoveredNode = null, hoveredEdge = null, lastScale = 0;
  function sizeLabels(force) {
    var s = network.getScale();
    if (!force && Math.abs(s - lastScale) < 1e-6) { return; }
    lastScale = s;
    var nsize = NODE_PX / s, esize = EDGE_PX / s, nu = [], eu = [], taken = [], chosen = {};
    // The always-labelled nodes, most connected first, each kept when its label does not cover one kept before.
    var wanted = nodes.get({filter: function (n) { return n.always && !n.dim && !n.hidden; }});
    wanted.sort(function (p, q) { return p.rank - q.rank; });
    var at = network.getPositions(wanted.map(function (n) { return n.id; }));
    wanted.forEach(function (n) {
      var px = (n.center ? 1.2 : 1) * NODE_PX, w = n.name.length * px * 0.56 + 4, h = px * 1.25;
      var c = network.canvasToDOM(at[n.id]), top = c.y + n.size * s + 2;
      var box = [c.x - w / 2, top, c.x + w / 2, top + h];
      for (var i = 0; i < taken.length; i++) {
        var t = taken[i];
        if (box[0] < t[2] && box[2] > t[0] && box[1] < t[3] && box[3] > t[1]) { return; }
      }
      taken.push(box); chosen[n.id] = true;
    });
    nodes.forEach(function (n) {
      var shown = chosen[n.id] || n.id === hoveredNode;
      if (shown || n.label !== " ") {
        nu.push({id: n.id, label: shown ? n.name : " ", font: {size: (n.center ? 1.2 : 1) * nsize}});
      }
    });
    edges.forEach(function (e) {
      var shown = e.always || e.id === hoveredEdge;
      if (shown || e.label) { eu.push({id: e.id, label: shown ? e.name : "", font: {size: esize}}); }
    });
    nodes.update(nu); edges.update(eu);
    var ids = Object.keys(chosen).sort();
    var px = ids.map(function (id) { return nodes.get(id).font.size * s; });
    container.setAttribute("data-label-px", px.length ? String(Math.min.apply(null, px).toFixed(2)) : "0");
    container.setAttribute("data-labelled", String(px.length));
    container.setAttribute("data-labelled-ids", ids.join("|"));
  }
  window.kgSizeLabels = sizeLabels;
  network.once("afterDrawing", function () { sizeLabels(true); });
  network.on("zoom", function () { sizeLabels(false); });
  network.on("hoverNode", function (p) { hoveredNode = p.node; sizeLabels(true); });
  network.on("blurNode", function () { hoveredNode = null; sizeLabels(true); });
  network.on("hoverEdge", function (p) { hoveredEdge = p.edge; sizeLabels(true); });
  network.on("blurEdge", function () { hoveredEdge = null; sizeLabels(true); });
  // Let tests and tools see what was drawn.
  network.on("afterDrawing", function () {
    container.setAttribute("data-drawn-nodes", String(network.body.data.nodes.length));
    container.setAttribute("data-drawn-edges", String(network.body.data.edges.length));
    container.setAttribute("data-node-ids", nodes.getIds({filter: function (n) { return !n.dim; }}).sort().join("|"));
  });
  function settled() { container.setAttribute("data-stable", "1"); }
  network.once("stabilizationIterationsDone", function () { network.setOptions({physics: {enabled: false}}); settled(); });
  network.once("stabilized", settled);
  if (!network.physics.options.enabled) { settled(); }
  setTimeout(settled, 8000);
  // Double-click a node: recentre the dashboard on it (the app reads ?entity=).
  network.on("doubleClick", function (params) {
    if (!params.nodes || !params.nodes.length || !__RECENTRE__) { return; }
    try {
      var top = window.parent;
      var url = new URL(top.location.href);
      url.searchParams.set("entity", params.nodes[0]);
      top.location.href = url.toString();
    } catch (err) { console.log("recentre needs the dashboard page: " + err); }
  });
})();
</script>
"""
#: On-screen size (pixels) of the labels always drawn, and of edge labels.
NODE_LABEL_PX = 13
EDGE_LABEL_PX = 11
#: Edge labels are always drawn when the picture has at most this many edges (more would cover each other).
LABELLED_EDGES = 40


def render_html(view: GraphView, *, height: int = 640, recentre: bool = True, physics: bool = False) -> str:
    """A self-contained HTML page drawing ``view`` with pyvis / vis-network, inlined, no CDN.

    Needs ``pyvis`` (installed with the dashboard). Names, tooltips and labels are data, never markup:
    labels are drawn on the canvas (cut at 60 characters), and tooltips (sent as ``tip``, not pyvis's
    ``title``) are put in the page as text (``textContent``), so a name holding HTML or a link shows as
    typed and loads nothing.

    Labels read at any size: the :data:`~kgtoolkit.dashboard.picture.style.ALWAYS_LABELLED` most connected
    nodes' (and the centre's) are always drawn, :data:`NODE_LABEL_PX` pixels tall on screen at any zoom; the
    others' while hovered. Edge labels are drawn (:data:`EDGE_LABEL_PX` pixels) when there are at most
    :data:`LABELLED_EDGES` edges, else while hovered.

    The nodes are drawn where :func:`~kgtoolkit.dashboard.picture.layout.layout` puts them, at once;
    ``physics=True`` lets vis-network find the places instead (its simulation runs in the browser before the first
    drawing: seconds for a few hundred nodes). The page inlines vis-network's script and only the part of its
    stylesheet the picture uses (not the editing and navigation buttons' images, 0.2 MB).

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> from kgtoolkit.dashboard.picture.view import build
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("<img src=http://198.51.100.7/x.png onerror=alert(1)>", "links", "[a](http://198.51.100.7)")
    >>> page = render_html(build(frames.facts(kg)))
    >>> "<img src" in page, "innerHTML = nodeData" in page, '"tip": ' in page, '"title": ' in page
    (False, False, True, False)
    """
    return page_of(view, height=height, recentre=recentre, physics=physics)


def page_of(
    view: GraphView,
    *,
    height: int = 640,
    recentre: bool = True,
    physics: bool = False,
    node_data: Mapping[str, Mapping[str, Any]] | None = None,
    edge_data: Mapping[int, Mapping[str, Any]] | None = None,
    before: str = "",
    script: str = "",
    where: Mapping[str, tuple[float, float]] | None = None,
) -> str:
    """:func:`render_html`'s page, with more data on each node (``node_data``, by id) and edge (``edge_data``, by
    id) for ``script`` (run after the picture's own), ``before``: HTML put above the picture, ``where``: the
    places (default :func:`~kgtoolkit.dashboard.picture.layout.layout`'s)."""
    require("pyvis", "dashboard", needed_for="drawing the graph")
    from pyvis.network import Network

    net = Network(height=f"{height - 10}px", width="100%", directed=True, cdn_resources="in_line", bgcolor="#ffffff")
    net.templateEnv = _templates(net.template_dir)  # one compiled template (pyvis compiles it per network)
    if where is None:
        where = {} if physics else layout(view)
    always = style.labelled([(n.id, n.degree) for n in view.nodes], view.center)
    rank = {n.id: i for i, n in enumerate(sorted(view.nodes, key=lambda n: (n.id != view.center, -n.degree, n.id)))}
    crowded = len(view.edges) > LABELLED_EDGES  # thinner edges, so the many do not hide the nodes
    loose = set(view.isolated) if len(view.nodes) > 1 else set()
    for node in view.nodes:
        is_center = view.center is not None and node.id == view.center
        placed = {"x": where[node.id][0], "y": where[node.id][1]} if node.id in where else {}
        net.add_node(
            node.id,
            label=_short(node.label) if node.id in always else " ",
            name=_short(node.label),
            always=node.id in always and node.id not in loose,
            center=is_center,
            rank=rank[node.id],
            tip=node.title,
            color={
                "background": node.color,
                "border": "#1F2937" if is_center else node.color,
                "highlight": {"background": node.color, "border": "#111827"},
            },
            size=min(node.size, 10.0) if node.id in loose else node.size,
            borderWidth=4 if is_center else 1,
            shape="dot",
            font={"size": 16 if is_center else 13, "face": "sans-serif", "strokeWidth": 4, "strokeColor": "#ffffff"},
            **placed,
            **(node_data or {}).get(node.id, {}),
        )
    label_edges = len(view.edges) <= LABELLED_EDGES
    # Without physics an edge is straight, unless another joins the same two nodes: then each bends, its own
    # way (an edge and its reverse bend to opposite sides; more between the same ends, further).
    between: dict[frozenset[str], int] = {}
    for edge in view.edges:
        ends = frozenset((edge.source, edge.target))
        between[ends] = between.get(ends, 0) + 1
    seen: dict[tuple[str, str], int] = {}
    for edge in view.edges:
        bend: dict[str, Any] = {}
        parallel = between[frozenset((edge.source, edge.target))] > 1 and edge.source != edge.target
        if not physics and not crowded and parallel:  # a crowded picture draws them straight: fewer curves
            k = seen.get((edge.source, edge.target), 0)
            seen[(edge.source, edge.target)] = k + 1
            bend = {"smooth": {"enabled": True, "type": "curvedCW", "roundness": round(min(0.2 * (k + 1), 0.8), 2)}}
        net.add_edge(
            edge.source,
            edge.target,
            id=edge.id,
            tip=edge.title,
            label=_short(edge.label or edge.predicate) if label_edges else "",
            name=_short(edge.label or edge.predicate),
            always=label_edges,
            dashes=edge.dashes,
            color={"color": edge.color, "opacity": 0.55} if crowded else edge.color,
            width=1.0 + 0.25 * (edge.width - 1.0)
            if crowded
            else (2.2 if edge.current or edge.event else 1.4) * edge.width,
            font={
                "size": 10,
                "color": "#444444" if edge.current or edge.event else "#888888",
                "strokeWidth": 3,
                "align": "middle",
            },
            **bend,
            **(edge_data or {}).get(edge.id, {}),
        )
    options = {
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False, "keyboard": False},
        "edges": {
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
            "smooth": {"type": "dynamic"} if physics else {"enabled": False},
        },
        "layout": {"improvedLayout": physics, "randomSeed": 7},
        "physics": {
            "enabled": physics,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 110, "avoidOverlap": 0.4},
            "stabilization": {"enabled": True, "iterations": 120, "updateInterval": 50, "fit": True},
        },
    }
    net.set_options(json.dumps(options))
    page = net.generate_html(notebook=False)
    page = re.sub(r"<center>\s*<h1>\s*</h1>\s*</center>", "", page)
    page = page.replace("border: 1px solid lightgray;", "border: 0;")
    whole, trimmed = _stylesheet(net.template_dir)
    if whole:
        page = page.replace(whole, trimmed, 1)
    own = (
        _EXTRA_SCRIPT.replace("__RECENTRE__", "true" if recentre else "false")
        .replace("__NODE_PX__", str(NODE_LABEL_PX))
        .replace("__EDGE_PX__", str(EDGE_LABEL_PX))
    )
    page = page.replace("</body>", own + script + "</body>") if "</body>" in page else page + own + script
    page = page.replace("<head>", "<head><style>body{margin:0;font-family:sans-serif}</style>", 1)
    if before:
        page = page.replace('<div class="card"', before + '<div class="card"', 1)
    library, clean = _script(net.template_dir)
    if library and library in page:  # the inlined vis-network is stripped once per process, not on every page
        head, _, tail = page.partition(library)
        return strip_cdn(head) + clean + strip_cdn(tail)
    return strip_cdn(page)


@functools.cache
def _templates(folder: str) -> Any:
    """pyvis's templates, compiled once per process (pyvis makes an environment, and compiles the page, per network)."""
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(folder))


def _included(folder: str, name: str) -> str | None:
    """The text of the file pyvis's page template includes under ``name`` (e.g. ``vis-network.css``), as jinja
    includes it (without its last newline); None when the template names no such file."""
    template = Path(folder, "template.html")
    named = (
        re.search(r"include '([^']*" + re.escape(name) + ")'", template.read_text(encoding="utf-8"))
        if template.is_file()
        else None
    )
    if named is None or not Path(folder, named.group(1)).is_file():
        return None
    return Path(folder, named.group(1)).read_text(encoding="utf-8").removesuffix("\n")


@functools.cache
def _script(folder: str) -> tuple[str, str]:
    """vis-network's script as pyvis inlines it, and the same through :func:`strip_cdn`; ("", "") when not found."""
    text = _included(folder, "vis-network.min.js")
    return (text, strip_cdn(text)) if text else ("", "")


@functools.cache
def _stylesheet(folder: str) -> tuple[str, str]:
    """vis-network's stylesheet as pyvis inlines it, and the same without the rules that only carry images
    (the editing, navigation and close buttons', which the picture never shows); ("", "") when not found."""
    whole = _included(folder, "vis-network.css")
    if not whole:
        return "", ""
    rules = re.findall(r"[^{}]+\{[^{}]*\}", whole)
    if "".join(rules).strip() != whole.strip():  # not the flat stylesheet this expects: keep it whole
        return "", ""
    return whole, "".join(rule for rule in rules if not re.search(r"url\(\s*[\"']?data:", rule))


def _short(label: str) -> str:
    """A canvas label: a name longer than :data:`_LABEL_CHARS` is cut, with "…" (a very long name would
    otherwise make the drawing zoom out until every node is a dot)."""
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1].rstrip() + "…"


def escape(text: str) -> str:
    """HTML-escape a name for the surrounding page (labels inside the graph are never HTML)."""
    return _html.escape(text)

"""The data behind the dashboard's graph picture: the names of :mod:`kgtoolkit.dashboard.picture`, in one place.

:func:`build` takes a facts frame (:func:`kgtoolkit.frames.facts`) and returns a :class:`GraphView`: the nodes
(entities) and edges (entity-to-entity facts) to draw, with their styles and tooltips, and what a node cap left out.
:func:`layout` places the nodes (the same places for the same view), :func:`render_html` turns a view into a
self-contained page drawn at those places at once, and :func:`time_view` / :func:`render_time_html` draw a
picture through time. No SQL and no Streamlit here: tests check the data, the dashboard draws it.
"""

from __future__ import annotations

from kgtoolkit.dashboard.picture.layout import layout
from kgtoolkit.dashboard.picture.render import CDN_HOSTS, escape, render_html, strip_cdn
from kgtoolkit.dashboard.picture.style import TYPE_COLORS
from kgtoolkit.dashboard.picture.timeview import TimeView, animation_svg, follow_html, render_time_html, time_view
from kgtoolkit.dashboard.picture.view import (
    CURRENT_EDGE,
    ENDED_EDGE,
    EVENT_EDGE,
    GraphEdge,
    GraphNode,
    GraphView,
    build,
    build_ranked,
    highlight,
    opening_day,
)

__all__ = [
    "CDN_HOSTS",
    "CURRENT_EDGE",
    "ENDED_EDGE",
    "EVENT_EDGE",
    "TYPE_COLORS",
    "GraphEdge",
    "GraphNode",
    "GraphView",
    "TimeView",
    "animation_svg",
    "build",
    "build_ranked",
    "escape",
    "follow_html",
    "highlight",
    "layout",
    "opening_day",
    "render_html",
    "render_time_html",
    "strip_cdn",
    "time_view",
]

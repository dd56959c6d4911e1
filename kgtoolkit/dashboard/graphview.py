"""The data behind the dashboard's graph picture: which nodes and edges to draw, and how.

:func:`build` takes a facts frame (:func:`kgtoolkit.frames.facts`) and returns a :class:`GraphView`:
the nodes (entities) and edges (entity-to-entity facts) to draw, with their styles and tooltips,
and what a node cap left out. Value facts (``email``, ``role``…) never become nodes: they are
listed in their subject's tooltip. :func:`layout` places the nodes (in numpy, the same places for the
same view), and :func:`render_html` turns a view into a self-contained pyvis page drawn at those places
at once (vis-network inlined, no CDN reference), so the picture works on a machine with no internet.
No SQL and no Streamlit here: tests check the data, the dashboard draws it.

>>> import kgtoolkit
>>> from kgtoolkit import frames
>>> from kgtoolkit.dashboard import graphview
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
>>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
>>> _ = kg.add("my_api", "url", "https://api.example", valid_from="2026-03-02")
>>> view = graphview.build(frames.facts(kg), center="my_api")
>>> sorted(n.id for n in view.nodes), [(e.target, e.current) for e in view.edges]
(['my_api', 'redis', 'sqlite'], [('redis', False), ('sqlite', True)])
>>> [e.target for e in graphview.build(frames.valid_at(frames.facts(kg), "2026-06-01"), center="my_api").edges]
['redis']
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import html as _html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from kgtoolkit import frames
from kgtoolkit._checks import whole_number
from kgtoolkit._errors import InvalidRequest, require

__all__ = [
    "CDN_HOSTS",
    "EVENT_EDGE",
    "TYPE_COLORS",
    "GraphEdge",
    "GraphNode",
    "GraphView",
    "build",
    "highlight",
    "layout",
    "opening_day",
    "render_html",
    "strip_cdn",
]

#: Hosts that must never appear in a rendered page (it has to work offline).
CDN_HOSTS: tuple[str, ...] = ("jsdelivr", "cdnjs", "unpkg", "googleapis", "cloudflare")
#: Node colours per entity type; other types get a colour from :data:`_PALETTE`.
TYPE_COLORS: dict[str, str] = {
    "person": "#4C78A8",
    "company": "#F58518",
    "project": "#54A24B",
    "event": "#B279A2",
    "unknown": "#9D9D9D",
    "service": "#E45756",
    "team": "#72B7B2",
    "database": "#EECA3B",
    "queue": "#FF9DA6",
}
_PALETTE = ("#9467BD", "#8C564B", "#17BECF", "#BCBD22", "#7F7F7F", "#D62728", "#2CA02C", "#1F77B4")
CURRENT_EDGE = "#3A5F8F"
ENDED_EDGE = "#B5B5B5"
#: An edge whose facts are all events (contract §12): solid, in its own colour, never drawn as ended.
EVENT_EDGE = "#C2570C"
_MOMENT = pl.Datetime("us", "UTC")
_VALUES_SHOWN = 12
_LABEL_CHARS = 60  # a label drawn on the canvas is cut here (the tooltip holds the whole name)


@dataclasses.dataclass(frozen=True, slots=True)
class GraphNode:
    """One entity to draw. ``hop``: distance from the centre (0 = the centre; None in the overview)."""

    id: str
    label: str
    type: str
    hop: int | None
    degree: int  # entity facts touching it in the filtered frame
    hidden_facts: int  # facts to entities the cap left out
    values: tuple[tuple[str, str, str | None, str | None], ...]  # (predicate, value, valid_from, valid_to)
    title: str  # the tooltip text (plain text, one item a line)
    color: str
    size: float


@dataclasses.dataclass(frozen=True, slots=True)
class GraphEdge:
    """One entity-to-entity relationship to draw; ``current`` facts (valid now, contract §4) are solid, ended ones dashed grey,
    events (``event``: every fact of the edge is one, contract §12) solid in :data:`EVENT_EDGE`.

    The facts of one (subject, predicate, object) are one edge (an event graph repeats a triple on
    many days): ``ids`` lists them, ``count`` says how many, ``valid_from``/``valid_to`` span the
    first start to the last end, ``id`` is the latest fact's, and ``width`` grows with the count.
    """

    id: int
    source: str
    target: str
    predicate: str
    valid_from: str | None
    valid_to: str | None
    current: bool
    title: str
    dashes: bool
    color: str
    count: int = 1
    ids: tuple[int, ...] = ()
    width: float = 1.0
    label: str = ""  # the predicate as people spell it (its label), drawn on the edge
    event: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class GraphView:
    """What to draw and what was left out.

    ``total_nodes``/``total_edges``: the entities/facts the neighbourhood (or the whole filtered
    graph, in the overview) holds before the cap; ``omitted_nodes``/``omitted_edges``: how many the
    cap left out; ``omitted_examples``: a few of the left-out entities, most connected first.
    """

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    center: str | None
    hops: int
    max_nodes: int
    total_nodes: int
    total_edges: int
    omitted_nodes: int
    omitted_edges: int
    omitted_examples: tuple[str, ...]
    value_facts: int  # value facts shown in tooltips

    @property
    def node_ids(self) -> list[str]:
        return [n.id for n in self.nodes]

    @property
    def edge_ids(self) -> list[int]:
        """Every fact drawn (an edge of several facts gives all of theirs)."""
        return [i for e in self.edges for i in (e.ids or (e.id,))]

    @property
    def fact_count(self) -> int:
        return sum(e.count for e in self.edges)

    @property
    def current_edges(self) -> int:
        """How many edges hold a fact current now (drawn solid)."""
        return sum(edge.current for edge in self.edges)

    @property
    def event_edges(self) -> int:
        """How many edges hold only events (drawn solid in :data:`EVENT_EDGE`: they occurred, never ended)."""
        return sum(edge.event and not edge.current for edge in self.edges)

    @property
    def legend(self) -> list[tuple[str, str]]:
        """Each entity type drawn and its colour, sorted."""
        return sorted({(n.type, n.color) for n in self.nodes})

    @property
    def names(self) -> dict[str, str]:
        """Each drawn entity's name (its label), by id."""
        return {n.id: n.label for n in self.nodes}

    @property
    def notice(self) -> str | None:
        """A sentence saying what the cap left out, or None when everything is drawn."""
        if not self.omitted_nodes and not self.omitted_edges:
            return None
        name = next((n.label for n in self.nodes if n.id == self.center), self.center)
        scope = f"within {self.hops} hop{'s' if self.hops > 1 else ''} of {name}" if self.center else "in the graph"
        parts = [
            f"Showing {len(self.nodes):,} of {self.total_nodes:,} entities {scope} "
            f"and {self.fact_count:,} of {self.total_edges:,} facts."
        ]
        if self.omitted_nodes:
            rule = "the farthest and least connected" if self.center else "the least connected"
            example = f" (e.g. {', '.join(self.omitted_examples)})" if self.omitted_examples else ""
            parts.append(f"Left out: {self.omitted_nodes:,} entities, {rule}{example}.")
        if self.omitted_edges:
            parts.append(f"{self.omitted_edges:,} facts between drawn entities were left out (oldest ended first).")
        parts.append("Raise the node cap, narrow the filters, or recentre to see them.")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["notice"] = self.notice
        return out


# ---------------------------------------------------------------------- colouring and the opening day


def highlight(view: GraphView, colors: Mapping[int, str], *, width: float = 2.0, dim: str | None = None) -> GraphView:
    """``view`` with the edges holding a fact of ``colors`` (fact id → colour) drawn in that colour and
    ``width`` times wider, solid; ``dim``: the colour of every other edge (context drawn behind).

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> a = kg.add("billing", "owned_by", "payments").fact.id
    >>> _ = kg.add("billing", "uses", "Redis")
    >>> [(e.predicate, e.color) for e in highlight(build(frames.facts(kg)), {a: "#E45756"}, dim="#DDDDDD").edges]
    [('owned_by', '#E45756'), ('uses', '#DDDDDD')]
    """
    edges = []
    for edge in view.edges:
        color = next((colors[i] for i in (edge.ids or (edge.id,)) if i in colors), None)
        if color is not None:
            edges.append(dataclasses.replace(edge, color=color, width=edge.width * width, dashes=False))
        elif dim is not None:
            edges.append(dataclasses.replace(edge, color=dim))
        else:
            edges.append(edge)
    return dataclasses.replace(view, edges=tuple(edges))


def opening_day(facts: pl.DataFrame, *, today: dt.date) -> tuple[dt.date, str | None]:
    """The day a view of ``facts`` should open on, and why when it is not ``today``.

    ``today`` when some fact is valid on it (or the graph is empty); else the last day before it
    that has facts (a historical graph, such as ICEWS14's 2014); else, when every fact starts
    later (only planned facts), the first day that has one.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "visited", "Oslo", valid_from="2014-03-01", valid_to="2014-03-01")
    >>> opening_day(frames.facts(kg), today=dt.date(2026, 12, 3))
    (datetime.date(2014, 3, 1), 'No fact is valid on 2026-12-03; showing 2014-03-01, the last day with facts.')
    """
    if facts.height == 0 or frames.valid_at(facts, today).height:
        return today, None
    before = facts.filter(pl.col("end").is_not_null() & (pl.col("end").dt.date() < today))["end"].max()
    if isinstance(before, dt.datetime):
        day = before.date()
        return day, f"No fact is valid on {today.isoformat()}; showing {day.isoformat()}, the last day with facts."
    after = facts.filter(pl.col("start").is_not_null() & (pl.col("start").dt.date() > today))["start"].min()
    if isinstance(after, dt.datetime):
        day = after.date()
        return day, (
            f"No fact is valid on {today.isoformat()}; showing {day.isoformat()}, the first day with "
            "facts (every fact starts later)."
        )
    return today, None


def _names(values: Iterable[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [str(v) for v in values]


# ---------------------------------------------------------------------- building


def build(
    facts: pl.DataFrame,
    *,
    center: str | None = None,
    hops: int = 1,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    max_nodes: int = 150,
    max_edges: int | None = None,
) -> GraphView:
    """Choose what to draw from a facts frame (already filtered by date, e.g. :func:`kgtoolkit.frames.valid_at`); a
    ``predicate_label`` column, when the frame has one, gives the edges' drawn labels and tooltips.

    ``center`` (an entity id): its neighbourhood of ``hops`` (1–3) hops; without it, the most
    connected entities. ``predicates`` keeps those relationships (value facts are always listed in
    tooltips); ``types`` keeps entities of those types (the centre always stays). At most
    ``max_nodes`` entities are drawn: nearest first, then most connected, then by id; at most
    ``max_edges`` facts (default 4 × ``max_nodes``): current first, then the latest.
    """
    if hops not in (1, 2, 3):
        raise InvalidRequest(f"hops must be 1, 2 or 3, not {hops!r}", field="hops", value=str(hops))
    whole_number(max_nodes, field="max_nodes", low=1)
    edge_cap = 4 * max_nodes if max_edges is None else max_edges
    values, links = _split(facts, predicates, types, center)

    # Degree of every entity over the filtered links (both directions).
    ends = pl.concat([links.select(pl.col("subject").alias("id")), links.select(pl.col("object").alias("id"))])
    degree = ends.group_by("id").agg(pl.len().alias("degree"))
    degree_of = dict(degree.iter_rows())

    hop_of: dict[str, int] = {}
    if center is not None:
        hop_of[center] = 0
        frontier = {center}
        pairs = links.select("subject", "object")
        for hop in range(1, hops + 1):
            if not frontier:
                break
            front = list(frontier)
            out = pairs.filter(pl.col("subject").is_in(front))["object"]
            inc = pairs.filter(pl.col("object").is_in(front))["subject"]
            frontier = set(out.unique().to_list()) | set(inc.unique().to_list())
            frontier -= hop_of.keys()
            for node in frontier:
                hop_of[node] = hop
        candidates = list(hop_of)
        ranked = sorted(candidates, key=lambda n: (hop_of[n], -degree_of.get(n, 0), n))
    else:
        ranked = [r[0] for r in degree.sort(["degree", "id"], descending=[True, False]).iter_rows()]
        if not ranked and values.height:  # a graph of value facts only: its subjects are the nodes
            ranked = sorted(values["subject"].unique().to_list())
    total_nodes = len(ranked)
    kept = ranked[:max_nodes]
    omitted = ranked[max_nodes:]

    scope = (
        links.filter(pl.col("subject").is_in(ranked) & pl.col("object").is_in(ranked)) if center is not None else links
    )
    total_edges = scope.height
    # Neighbours each drawn node has outside the drawing (counted by polars: a hub has thousands).
    hidden: dict[str, int] = {}
    if omitted:
        in_subject, in_object = pl.col("subject").is_in(kept), pl.col("object").is_in(kept)
        hidden = dict(
            scope.filter(in_subject ^ in_object)
            .select(pl.when(in_subject).then(pl.col("subject")).otherwise(pl.col("object")).alias("inside"))
            .group_by("inside")
            .len()
            .iter_rows()
        )

    # Names and types of the drawn nodes and of the left-out examples only (not of every entity in the frame).
    named = [*kept, *omitted[:5]]
    names: dict[str, tuple[str, str]] = {}
    for s, sn, st in (
        facts.filter(pl.col("subject").is_in(named))
        .select("subject", "subject_name", "subject_type")
        .unique("subject", maintain_order=True)
        .iter_rows()
    ):
        names[s] = (sn, st or "unknown")
    for o, on, ot in (
        facts.filter(~pl.col("object_is_value") & pl.col("object").is_in(named))
        .select("object", "object_name", "object_type")
        .unique("object", maintain_order=True)
        .iter_rows()
    ):
        names.setdefault(o, (on, ot or "unknown"))

    return _draw(
        scope,
        values,
        kept,
        omitted[:5],
        len(omitted),
        degree_of,
        hop_of,
        hidden,
        names,
        center=center,
        hops=hops,
        max_nodes=max_nodes,
        total_nodes=total_nodes,
        total_edges=total_edges,
        edge_cap=edge_cap,
    )


def _split(
    facts: pl.DataFrame, predicates: Sequence[str] | None, types: Sequence[str] | None, center: str | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The value facts, and the relationship facts kept by ``predicates`` and ``types`` (the centre always stays)."""
    values = facts.filter(pl.col("object_is_value"))
    links = facts.filter(~pl.col("object_is_value"))
    wanted_predicates = _names(predicates)
    if wanted_predicates:
        links = links.filter(pl.col("predicate").is_in(wanted_predicates))
    wanted_types = _names(types)
    if wanted_types:
        keep = pl.col("subject_type").is_in(wanted_types) | (pl.col("subject") == (center or ""))
        keep_object = pl.col("object_type").is_in(wanted_types) | (pl.col("object") == (center or ""))
        links = links.filter(keep & keep_object)
    return values, links


def build_ranked(
    facts: pl.DataFrame,
    ranked: Sequence[tuple[Any, ...]],
    *,
    total_nodes: int,
    total_edges: int,
    center: str | None = None,
    hops: int = 1,
    hidden: Mapping[str, int] | None = None,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    max_nodes: int = 150,
    max_edges: int | None = None,
) -> GraphView:
    """:func:`build`'s view from what the engine answers instead of the whole graph.

    ``ranked``: the entities in the order the view takes them, at least the first ``max_nodes`` + 5 (id, name,
    type, relationship facts, and with a ``center`` the hop: :func:`kgtoolkit.store.link_ranking` for the overview,
    :func:`kgtoolkit.store.neighbourhood` around a centre); ``total_nodes``/``total_edges``: the entities and
    relationship facts of the whole filtered graph (or neighbourhood); ``facts``: the facts among the first
    ``max_nodes`` (:func:`kgtoolkit.frames.facts_among`, same date window); ``hidden``: around a centre, each drawn
    entity's facts to the left-out ones (the overview counts them from the facts given). The same view as
    :func:`build` of the whole frame; ``predicates`` and ``types`` as there (the ranking and totals must have been
    counted with them)."""
    if hops not in (1, 2, 3):
        raise InvalidRequest(f"hops must be 1, 2 or 3, not {hops!r}", field="hops", value=str(hops))
    whole_number(max_nodes, field="max_nodes", low=1)
    edge_cap = 4 * max_nodes if max_edges is None else max_edges
    values, links = _split(facts, predicates, types, center)
    kept = [str(r[0]) for r in ranked[:max_nodes]]
    left_out = [str(r[0]) for r in ranked[max_nodes : max_nodes + 5]]
    omitted = max(0, total_nodes - len(kept))
    degree_of = {str(r[0]): int(r[3]) for r in ranked[: max_nodes + 5]}
    hop_of = {str(r[0]): int(r[4]) for r in ranked[: max_nodes + 5]} if center is not None else {}
    scope = links.filter(pl.col("subject").is_in(kept) & pl.col("object").is_in(kept))
    if center is not None:
        hidden = dict(hidden or {}) if omitted else {}
    else:
        hidden = {}
        if omitted:  # a drawn entity's facts whose other end is not drawn: its degree less those among the drawn
            ends = pl.concat([scope.select(pl.col("subject").alias("id")), scope.select(pl.col("object").alias("id"))])
            among = dict(ends.group_by("id").len().iter_rows())
            hidden = {n: degree_of[n] - among.get(n, 0) for n in kept if degree_of[n] - among.get(n, 0)}
    names = {str(r[0]): (str(r[1]), str(r[2]) or "unknown") for r in ranked[: max_nodes + 5]}
    return _draw(
        scope,
        values,
        kept,
        left_out,
        omitted,
        degree_of,
        hop_of,
        hidden,
        names,
        center=center,
        hops=hops,
        max_nodes=max_nodes,
        total_nodes=total_nodes,
        total_edges=total_edges,
        edge_cap=edge_cap,
    )


def _draw(
    scope: pl.DataFrame,
    values: pl.DataFrame,
    kept: Sequence[str],
    left_out: Sequence[str],
    omitted: int,
    degree_of: Mapping[str, int],
    hop_of: Mapping[str, int],
    hidden: Mapping[str, int],
    names: Mapping[str, tuple[str, str]],
    *,
    center: str | None,
    hops: int,
    max_nodes: int,
    total_nodes: int,
    total_edges: int,
    edge_cap: int,
) -> GraphView:
    """The view of the chosen entities ``kept``: the edges of ``scope`` among them (at most ``edge_cap`` facts), the
    values of ``values`` in their tooltips, named by ``names``; ``left_out``: a few omitted ones to name."""
    # One edge per (subject, predicate, object): its facts' ids, count, span; the latest fact speaks for it.
    drawn = (
        scope.filter(pl.col("subject").is_in(kept) & pl.col("object").is_in(kept))
        .sort(["start", "id"], nulls_last=False)
        .group_by("subject", "predicate", "object", maintain_order=True)
        .agg(
            pl.all().last(),
            pl.col("id").alias("ids"),
            pl.len().alias("count"),
            pl.col("valid_from").first().alias("first_from"),
            pl.col("current").any().alias("any_current"),
            pl.col("valid_to").is_null().any().alias("open"),
            pl.col("valid_to").sort_by("end", nulls_last=False).last().alias("last_to"),
            (pl.col("kind") == "event").all().alias("all_events")
            if "kind" in scope.columns
            else pl.lit(False).alias("all_events"),
        )
    )
    drawn = drawn.sort(
        [pl.col("any_current"), pl.col("all_events"), pl.col("start"), pl.col("id")],
        descending=[True, True, True, True],
        nulls_last=True,
    )
    edges_left = int(drawn["count"].sum()) - int(drawn.head(edge_cap)["count"].sum())  # facts, not edges
    drawn = drawn.head(edge_cap).sort("id")

    node_values: dict[str, list[tuple[str, str, str | None, str | None]]] = {}
    for s, p, v, vf, vt in (
        values.filter(pl.col("subject").is_in(kept))
        .sort(["subject", "predicate", "start"], nulls_last=False)
        .select("subject", "predicate", "object_name", "valid_from", "valid_to")
        .iter_rows()
    ):
        node_values.setdefault(s, []).append((p, v, vf, vt))

    extra_colors: dict[str, str] = {}
    nodes = []
    top_degree = max([degree_of.get(n, 0) for n in kept] + [1])
    for node in kept:
        name, kind = names.get(node, (node, "unknown"))
        color = TYPE_COLORS.get(kind) or extra_colors.setdefault(kind, _PALETTE[len(extra_colors) % len(_PALETTE)])
        deg = degree_of.get(node, 0)
        vals = tuple(node_values.get(node, ()))
        title = _node_title(name, node, kind, deg, hidden.get(node, 0), vals)
        size = 12 + 22 * math.sqrt(deg / top_degree)
        if center is not None and node == center:
            size = max(size, 30)
        nodes.append(
            GraphNode(node, name, kind, hop_of.get(node), deg, hidden.get(node, 0), vals, title, color, round(size, 1))
        )
    edges = []
    for row in drawn.iter_rows(named=True):
        current, count, event = bool(row["any_current"]), int(row["count"]), bool(row["all_events"])
        last_to = None if row["open"] else row["last_to"]
        first_from = row["first_from"] if count > 1 else row["valid_from"]
        span = f"{first_from or '?'} … {last_to or 'now'}"
        if event:  # events occurred: a count and the first and last dates, never "ended" (contract §12)
            span = f"{first_from or '?'}" + (f" … {last_to or first_from or '?'}" if count > 1 else "")
        times = f"{count:,} {'events' if event else 'facts'}, " if count > 1 else ""
        spelled = row.get("predicate_label") or row["predicate"]
        state = "event" if event else row.get("state") or ("current" if current else "ended")
        title = (
            f"{row['subject_name']} → {spelled} → {row['object_name']}\n{times}{span}\n{state} · source {row['source']}"
        )
        color = CURRENT_EDGE if current else EVENT_EDGE if event else ENDED_EDGE
        edges.append(
            GraphEdge(
                int(row["id"]),
                row["subject"],
                row["object"],
                row["predicate"],
                first_from,
                last_to,
                current,
                title,
                not (current or event),
                color,
                count,
                tuple(int(i) for i in row["ids"]),
                round(1.0 + min(2.0 * math.log2(count), 7.0), 2),
                spelled,
                event,
            )
        )
    examples = tuple(names.get(n, (n, ""))[0] for n in left_out)
    return GraphView(
        tuple(nodes),
        tuple(edges),
        center,
        hops,
        max_nodes,
        total_nodes,
        total_edges,
        omitted,
        edges_left,
        examples,
        sum(len(v) for v in node_values.values()),
    )


def _node_title(
    name: str, node: str, kind: str, degree: int, hidden: int, values: Sequence[tuple[str, str, str | None, str | None]]
) -> str:
    lines = [f"{name}  ({kind})", f"id: {node}", f"{degree} relationship fact{'s' if degree != 1 else ''}"]
    if hidden:
        lines.append(f"+{hidden} fact{'s' if hidden != 1 else ''} to entities not drawn")
    if values:
        lines.append("")
        for predicate, value, start, end in values[:_VALUES_SHOWN]:
            when = f"{start or '?'} … {end}" if end else f"since {start}" if start else "current"
            lines.append(f"{predicate}: {value}  [{when}]")
        if len(values) > _VALUES_SHOWN:
            lines.append(f"… and {len(values) - _VALUES_SHOWN} more value facts")
    return "\n".join(lines)


# ---------------------------------------------------------------------- layout

_GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))


def layout(view: GraphView, *, spacing: float = 120.0, iterations: int | None = None) -> dict[str, tuple[float, float]]:
    """Where to draw each node of ``view``: node id → (x, y) in pixels, the same for the same view.

    A force-directed layout with ForceAtlas2's forces (the solver the page's vis-network simulated:
    every pair of nodes repels, more so between well-connected ones, the ends of an edge attract, a pull
    to the middle keeps loose parts near), computed here in numpy, so the browser draws the picture at
    once instead of simulating it first (1–3 s for a hundred nodes in a browser on a busy machine). It starts from rings around the centre (one ring per hop) or, in the overview, a
    spiral with the most connected entities in the middle; the centre stays at (0, 0); a last pass
    pushes apart nodes that would touch. ``spacing`` is about the length of an edge; ``iterations``
    defaults to 160, fewer above 200 nodes (each costs n², down to 60 at 500 nodes: 0.3 s).

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> _ = kg.add("my_api", "uses_db", "Postgres")
    >>> where = layout(build(frames.facts(kg), center="my_api"))
    >>> where["my_api"], sorted(where) == ["my_api", "postgres", "redis"], where == layout(build(frames.facts(kg), center="my_api"))
    ((0.0, 0.0), True, True)
    """
    import numpy as np

    n = len(view.nodes)
    if n == 0:
        return {}
    if iterations is None:
        iterations = max(60, min(160, 160 * 200 * 200 // (n * n)))
    index = {node.id: i for i, node in enumerate(view.nodes)}
    pairs = sorted(
        {
            (min(index[e.source], index[e.target]), max(index[e.source], index[e.target]))
            for e in view.edges
            if e.source in index and e.target in index and e.source != e.target
        }
    )
    radius = np.array([node.size for node in view.nodes], dtype=float)
    pinned = np.array([view.center is not None and node.id == view.center for node in view.nodes])

    # Start: rings by hop around the centre, or a spiral by rank (the nodes come most connected first).
    pos = np.zeros((n, 2))
    rings: dict[int, int] = {}
    for i, node in enumerate(view.nodes):
        if node.hop is not None:
            if node.hop == 0:
                continue
            k = rings.get(node.hop, 0)
            rings[node.hop] = k + 1
            angle, r = k * _GOLDEN_ANGLE, node.hop * spacing * (1.0 + 0.15 * (k % 3))
        else:
            angle, r = i * _GOLDEN_ANGLE, spacing * 0.55 * math.sqrt(i)
        pos[i] = (r * math.cos(angle), r * math.sin(angle))

    x, y = pos[:, 0].copy(), pos[:, 1].copy()
    free = ~pinned
    a = np.array([p[0] for p in pairs], dtype=np.intp)
    b = np.array([p[1] for p in pairs], dtype=np.intp)
    mass = 1.0 + np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    # ForceAtlas2's forces (what vis-network simulated): pairs repel by the product of their masses (1 + degree)
    # over their distance, an edge pulls by its length, and a pull to the middle by the mass keeps the
    # whole drawing about sqrt(n) spacings across.
    repel = spacing * spacing / 4
    gravity = repel * mass.sum() / (spacing * max(1.0, math.sqrt(n)))
    start_temp = spacing * max(1.0, math.sqrt(n) / 4)
    for step in range(iterations if n > 1 else 0):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        scale = repel * np.outer(mass, mass) / np.maximum(dx * dx + dy * dy, 1.0)
        fx, fy = (dx * scale).sum(axis=1), (dy * scale).sum(axis=1)
        if len(pairs):
            ex, ey = x[a] - x[b], y[a] - y[b]
            fx -= np.bincount(a, ex, n) - np.bincount(b, ex, n)
            fy -= np.bincount(a, ey, n) - np.bincount(b, ey, n)
        centre = gravity * mass / np.sqrt(np.maximum(x * x + y * y, 1.0))
        fx -= x * centre
        fy -= y * centre
        temp = start_temp * (1.0 - step / iterations) + 1.0
        size = np.sqrt(np.maximum(fx * fx + fy * fy, 1e-9))
        step_size = np.minimum(size / mass, temp) / size * free
        x += fx * step_size
        y += fy * step_size

    # Nodes that touch (with room for their labels) are pushed apart, the centre staying put.
    room = radius[:, None] + radius[None, :] + 24.0
    for _ in range(30 if n > 1 else 0):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        dist = np.sqrt(np.maximum(dx * dx + dy * dy, 1e-6))
        overlap = np.maximum(room - dist, 0.0)
        np.fill_diagonal(overlap, 0.0)
        if not overlap.any():
            break
        push = overlap / dist / 2
        x += (dx * push).sum(axis=1) * free
        y += (dy * push).sum(axis=1) * free
    pos = np.column_stack([x, y])
    if pinned.any():
        pos -= pos[pinned][0]
    return {
        node.id: (round(float(px), 1) + 0.0, round(float(py), 1) + 0.0)  # + 0.0: never -0.0
        for node, (px, py) in zip(view.nodes, pos, strict=True)
    }


# ---------------------------------------------------------------------- rendering

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
  var updates = [];
  nodes.forEach(function (n) {
    if (typeof n.tip === "string") {
      var d = document.createElement("div");
      d.style.whiteSpace = "pre-line"; d.style.maxWidth = "420px"; d.style.fontSize = "12px";
      d.style.overflowWrap = "anywhere"; d.textContent = n.tip; updates.push({id: n.id, title: d});
    }
  });
  nodes.update(updates);
  var eupdates = [];
  edges.forEach(function (e) {
    if (typeof e.tip === "string") {
      var d = document.createElement("div");
      d.style.whiteSpace = "pre-line"; d.style.maxWidth = "420px"; d.style.fontSize = "12px";
      d.style.overflowWrap = "anywhere"; d.textContent = e.tip; eupdates.push({id: e.id, title: d});
    }
  });
  edges.update(eupdates);
  // Let tests and tools see what was drawn.
  network.on("afterDrawing", function () {
    container.setAttribute("data-drawn-nodes", String(network.body.data.nodes.length));
    container.setAttribute("data-drawn-edges", String(network.body.data.edges.length));
    container.setAttribute("data-node-ids", network.body.data.nodes.getIds().sort().join("|"));
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


def render_html(view: GraphView, *, height: int = 640, recentre: bool = True, physics: bool = False) -> str:
    """A self-contained HTML page drawing ``view`` with pyvis / vis-network, inlined, no CDN.

    Needs ``pyvis`` (installed with the dashboard). Names, tooltips and labels are data, never markup:
    labels are drawn on the canvas (cut at 60 characters), and tooltips (sent as ``tip``, not pyvis's
    ``title``) are put in the page as text (``textContent``), so a name holding HTML or a link shows as
    typed and loads nothing.

    The nodes are drawn where :func:`layout` puts them, at once; ``physics=True`` lets vis-network
    find the places instead (its simulation runs in the browser before the first drawing: seconds
    for a few hundred nodes). The page inlines vis-network's script and only the part of its
    stylesheet the picture uses (not the editing and navigation buttons' images, 0.2 MB).

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("<img src=http://198.51.100.7/x.png onerror=alert(1)>", "links", "[a](http://198.51.100.7)")
    >>> page = render_html(build(frames.facts(kg)))
    >>> "<img src" in page, "innerHTML = nodeData" in page, '"tip": ' in page, '"title": ' in page
    (False, False, True, False)
    """
    require("pyvis", "dashboard", needed_for="drawing the graph")
    from pyvis.network import Network

    net = Network(height=f"{height - 10}px", width="100%", directed=True, cdn_resources="in_line", bgcolor="#ffffff")
    net.templateEnv = _templates(net.template_dir)  # one compiled template (pyvis compiles it per network)
    where = {} if physics else layout(view)
    for node in view.nodes:
        is_center = view.center is not None and node.id == view.center
        placed = {"x": where[node.id][0], "y": where[node.id][1]} if node.id in where else {}
        net.add_node(
            node.id,
            label=_short(node.label),
            tip=node.title,
            color={
                "background": node.color,
                "border": "#1F2937" if is_center else node.color,
                "highlight": {"background": node.color, "border": "#111827"},
            },
            size=node.size,
            borderWidth=4 if is_center else 1,
            shape="dot",
            font={"size": 16 if is_center else 13, "face": "sans-serif", "strokeWidth": 3, "strokeColor": "#ffffff"},
            **placed,
        )
    label_edges = len(view.edges) <= 60
    # Without physics an edge is straight, unless another joins the same two nodes: then each bends, its own
    # way (an edge and its reverse bend to opposite sides; more between the same ends, further).
    between: dict[frozenset[str], int] = {}
    for edge in view.edges:
        ends = frozenset((edge.source, edge.target))
        between[ends] = between.get(ends, 0) + 1
    seen: dict[tuple[str, str], int] = {}
    for edge in view.edges:
        bend: dict[str, Any] = {}
        if not physics and between[frozenset((edge.source, edge.target))] > 1 and edge.source != edge.target:
            k = seen.get((edge.source, edge.target), 0)
            seen[(edge.source, edge.target)] = k + 1
            bend = {"smooth": {"enabled": True, "type": "curvedCW", "roundness": round(0.2 * (k + 1), 2)}}
        net.add_edge(
            edge.source,
            edge.target,
            id=edge.id,
            tip=edge.title,
            label=_short(edge.label or edge.predicate) if label_edges else "",
            dashes=edge.dashes,
            color=edge.color,
            width=(2.2 if edge.current or edge.event else 1.4) * edge.width,
            font={
                "size": 10,
                "color": "#555555" if edge.current or edge.event else "#9A9A9A",
                "strokeWidth": 3,
                "align": "middle",
            },
            **bend,
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
    script = _EXTRA_SCRIPT.replace("__RECENTRE__", "true" if recentre else "false")
    page = page.replace("</body>", script + "</body>") if "</body>" in page else page + script
    page = page.replace("<head>", "<head><style>body{margin:0;font-family:sans-serif}</style>", 1)
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

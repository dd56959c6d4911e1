"""What the dashboard's graph picture draws: which nodes and edges, and how they look.

:func:`build` takes a facts frame (:func:`kgtoolkit.frames.facts`) and returns a :class:`GraphView`:
the nodes (entities) and edges (entity-to-entity facts) to draw, with their styles and tooltips,
and what a node cap left out. Value facts (``email``, ``role``…) never become nodes: they are
listed in their subject's tooltip. :func:`~kgtoolkit.dashboard.picture.layout.layout` places the nodes, and
:func:`~kgtoolkit.dashboard.picture.render.render_html` turns a view into a self-contained page drawn at those
places at once (vis-network inlined, no CDN reference), so the picture works on a machine with no internet.
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
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from kgtoolkit import frames
from kgtoolkit._checks import whole_number
from kgtoolkit._errors import InvalidRequest
from kgtoolkit.dashboard.picture import style

__all__ = [
    "CURRENT_EDGE",
    "ENDED_EDGE",
    "EVENT_EDGE",
    "GraphEdge",
    "GraphNode",
    "GraphView",
    "build",
    "build_ranked",
    "highlight",
    "opening_day",
]

CURRENT_EDGE = "#3A5F8F"
ENDED_EDGE = "#B5B5B5"
#: An edge whose facts are all events (contract §12): solid, in its own colour, never drawn as ended.
EVENT_EDGE = "#C2570C"
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
    group: str = ""  # what the colour stands for: the type, or the community ("around <its most connected>")


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
    grouping: str = "type"  # what the node colours mean: "type", or "community" where the types say nothing

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
        """Each colour drawn and what it means, by type sorted, or by community, the largest first (nodes with no
        drawn edge last)."""
        if self.grouping != "community":
            return sorted({(n.type, n.color) for n in self.nodes})
        sizes: dict[tuple[str, str], int] = {}
        for n in self.nodes:
            sizes[(n.group, n.color)] = sizes.get((n.group, n.color), 0) + 1
        return sorted(sizes, key=lambda k: (k[1] == style.OTHER_GROUP, -sizes[k], k[0]))

    @property
    def isolated(self) -> list[str]:
        """The drawn nodes with no drawn edge (the layout gathers them apart, below the rest)."""
        linked = {e.source for e in self.edges} | {e.target for e in self.edges}
        return [n.id for n in self.nodes if n.id not in linked]

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
    kinds = {names.get(node, (node, "unknown"))[1] for node in kept}
    grouped = _communities(kept, drawn, degree_of, names) if len(kinds) <= 1 and len(kept) > 2 else None
    nodes = []
    top_degree = max([degree_of.get(n, 0) for n in kept] + [1])
    for node in kept:
        name, kind = names.get(node, (node, "unknown"))
        color, group = style.type_color(kind, extra_colors), kind
        if grouped is not None:
            color, group = grouped[node]
        deg = degree_of.get(node, 0)
        vals = tuple(node_values.get(node, ()))
        title = _node_title(name, node, kind, deg, hidden.get(node, 0), vals)
        size = 12 + 22 * math.sqrt(deg / top_degree)
        if center is not None and node == center:
            size = max(size, 30)
        nodes.append(
            GraphNode(
                node, name, kind, hop_of.get(node), deg, hidden.get(node, 0), vals, title, color, round(size, 1), group
            )
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
        "community" if grouped is not None else "type",
    )


def _communities(
    kept: Sequence[str], drawn: pl.DataFrame, degree: Mapping[str, int], names: Mapping[str, tuple[str, str]]
) -> dict[str, tuple[str, str]] | None:
    """Node → (colour, group name) by community (:func:`~kgtoolkit.dashboard.picture.style.communities`), when the
    drawn edges make more than one group; None otherwise (the type colour stays)."""
    pairs = list(drawn.select("subject", "object").iter_rows())
    found = style.communities(kept, pairs, degree)
    if len({rank for rank, _ in found.values() if rank >= 0}) < 2:
        return None
    out = {}
    for node, (rank, head) in found.items():
        if rank < 0:
            out[node] = (style.OTHER_GROUP, "no drawn link")
        elif rank < len(style.PALETTE):
            out[node] = (style.PALETTE[rank], f"around {names.get(head, (head, ''))[0]}")
        else:
            out[node] = (style.OTHER_GROUP, "other groups")
    return out


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

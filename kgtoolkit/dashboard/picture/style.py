"""How the picture reads: node colours (by type, or by community where types say nothing), which labels are
always drawn, and whether edge labels can be read.

Imports make every entity ``unknown``: one grey for every node says nothing. Then the nodes are coloured by
community (:func:`networkx.community.louvain_communities` over the drawn edges, seeded: the same groups for the
same picture), each group named after its most connected member; the small groups past the palette share one
grey, "other groups".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "ALWAYS_LABELLED",
    "OTHER_GROUP",
    "PALETTE",
    "TYPE_COLORS",
    "communities",
    "labelled",
    "type_color",
]

#: Node colours per entity type; other types get a colour from :data:`PALETTE`.
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
#: Colours for other types, and for communities (distinct hues, none grey).
PALETTE: tuple[str, ...] = (
    "#4C78A8",
    "#F58518",
    "#54A24B",
    "#E45756",
    "#72B7B2",
    "#B279A2",
    "#EECA3B",
    "#9D755D",
    "#FF9DA6",
    "#17BECF",
)
#: The colour of the nodes of the groups past the palette (and of nodes with no drawn edge).
OTHER_GROUP = "#B8B8B8"
#: How many of the most connected nodes always carry their label (every node when there are no more than this).
ALWAYS_LABELLED = 20


def type_color(kind: str, extra: dict[str, str]) -> str:
    """The colour of entity type ``kind``: its own, or the next of :data:`PALETTE` (remembered in ``extra``)."""
    return TYPE_COLORS.get(kind) or extra.setdefault(kind, PALETTE[len(extra) % len(PALETTE)])


def communities(
    nodes: Sequence[str], pairs: Iterable[tuple[str, str]], degree: Mapping[str, int]
) -> dict[str, tuple[int, str]]:
    """Each node's community: node → (rank, the id of its most connected member), rank 0 the largest group.

    Louvain over the undirected drawn edges (seed 7: the same groups for the same picture); nodes with no
    drawn edge get rank -1 (no group).

    >>> groups = communities(["a", "b", "c", "x", "y", "z", "lone"], [("a", "b"), ("b", "c"), ("a", "c"),
    ...     ("x", "y"), ("y", "z"), ("x", "z"), ("c", "x")], {"a": 3, "b": 2, "c": 3, "x": 3, "y": 2, "z": 2})
    >>> groups["a"][1] == groups["b"][1], groups["a"][1] != groups["y"][1], groups["lone"]
    (True, True, (-1, 'lone'))
    """
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((a, b) for a, b in pairs if a != b)
    found = nx.community.louvain_communities(graph, seed=7)
    linked = [sorted(group) for group in found if any(graph.degree(n) for n in group)]
    linked.sort(key=lambda g: (-len(g), -max(degree.get(n, 0) for n in g), min(g)))
    out: dict[str, tuple[int, str]] = {n: (-1, n) for n in nodes}
    for rank, group in enumerate(linked):
        head = min(group, key=lambda n: (-degree.get(n, 0), n))
        for n in group:
            out[n] = (rank, head)
    return out


def labelled(nodes: Sequence[tuple[str, int]], center: str | None = None, *, top: int = ALWAYS_LABELLED) -> set[str]:
    """The nodes whose label is always drawn: the ``top`` most connected (``nodes``: (id, degree)), and the centre.

    >>> sorted(labelled([("a", 1), ("b", 5), ("c", 3)], top=2)), sorted(labelled([("a", 1), ("b", 5)], "a", top=1))
    (['b', 'c'], ['a', 'b'])
    """
    ranked = sorted(nodes, key=lambda item: (-item[1], item[0]))
    chosen = {node for node, _ in ranked[:top]}
    if center is not None:
        chosen.add(center)
    return chosen

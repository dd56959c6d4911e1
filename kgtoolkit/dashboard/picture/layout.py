"""Where each node goes: ForceAtlas2 (networkx) over the drawn edges, nodes kept apart, loose nodes gathered, cached.

The same nodes and edges always get the same places (a seeded start, a cache keyed on the structure), so a
picture that is drawn again, or drawn at another date over the same nodes, does not move.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from kgtoolkit.dashboard.picture.view import GraphView

__all__ = ["Places", "layout", "place"]

#: node id → (x, y) in pixels.
Places = dict[str, tuple[float, float]]
_GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
_LABEL_ROOM = 24.0  # room kept between two nodes for a label


def layout(view: GraphView, *, spacing: float = 120.0, iterations: int | None = None) -> Places:
    """Where to draw each node of ``view``: node id → (x, y) in pixels, the same for the same view.

    ForceAtlas2 (:func:`networkx.forceatlas2_layout`: every pair of nodes repels, more so between well-connected
    ones, the ends of an edge attract, a pull to the middle keeps loose parts near), from a seeded start (rings by
    hop around the centre, or a spiral with the most connected in the middle), scaled so an edge is about
    ``spacing`` long; then nodes that would touch (with room for a label) are pushed apart, the centre stays at
    (0, 0), and the nodes with no drawn edge are gathered in rows below the rest (they say nothing by where they
    are). ``iterations``: ForceAtlas2's (default 150, fewer above 200 nodes). Cached on the nodes, their sizes and
    the edges: the browser draws at once, and the same picture never moves.

    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> from kgtoolkit.dashboard.picture.view import build
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> _ = kg.add("my_api", "uses_db", "Postgres")
    >>> where = layout(build(frames.facts(kg), center="my_api"))
    >>> where["my_api"], sorted(where) == ["my_api", "postgres", "redis"], where == layout(build(frames.facts(kg), center="my_api"))
    ((0.0, 0.0), True, True)
    """
    index = {node.id: i for i, node in enumerate(view.nodes)}
    pairs = tuple(
        sorted(
            {
                (min(index[e.source], index[e.target]), max(index[e.source], index[e.target]))
                for e in view.edges
                if e.source in index and e.target in index and e.source != e.target
            }
        )
    )
    nodes = tuple((n.id, n.size, n.hop) for n in view.nodes)
    center = index.get(view.center) if view.center is not None else None
    return dict(place(nodes, pairs, center, spacing, iterations))


@functools.lru_cache(maxsize=64)
def place(
    nodes: tuple[tuple[str, float, int | None], ...],
    pairs: tuple[tuple[int, int], ...],
    center: int | None,
    spacing: float = 120.0,
    iterations: int | None = None,
) -> tuple[tuple[str, tuple[float, float]], ...]:
    """:func:`layout`'s places for ``nodes`` ((id, radius, hop)) joined by ``pairs`` (index pairs, a < b), with
    ``center`` (an index) at (0, 0): ((id, (x, y)), …). Cached: the same structure is placed once per process."""
    import networkx as nx
    import numpy as np

    n = len(nodes)
    if n == 0:
        return ()
    linked = sorted({i for pair in pairs for i in pair} | ({center} if center is not None else set()))
    loose = [i for i in range(n) if i not in set(linked)]
    radius = np.array([size for _, size, _ in nodes], dtype=float)
    pos = np.zeros((n, 2))
    if linked:
        start = _start(nodes, linked, spacing)
        graph = nx.Graph()
        graph.add_nodes_from(linked)
        graph.add_edges_from(pairs)
        steps = iterations if iterations is not None else max(50, min(150, 150 * 200 * 200 // (n * n)))
        parts = sorted(nx.connected_components(graph), key=lambda c: (-len(c), min(c)))
        boxes = []
        for part in parts:  # each connected part on its own, then the parts packed side by side
            members = sorted(part)
            sub = graph.subgraph(members)
            found = (
                nx.forceatlas2_layout(
                    sub,
                    pos={i: np.array(start[i]) for i in members},
                    max_iter=steps,
                    seed=7,
                    scaling_ratio=2.0,
                    gravity=1.0,
                    strong_gravity=True,
                    node_size={i: float(radius[i]) / spacing for i in members},
                )
                if len(members) > 1
                else {members[0]: np.zeros(2)}
            )
            for i in members:
                pos[i] = found[i]
            lengths = [float(np.hypot(*(pos[a] - pos[b]))) for a, b in sub.edges]
            typical = float(np.median(lengths)) if lengths else 1.0
            idx = np.array(members, dtype=np.intp)
            pos[idx] = (pos[idx] - pos[idx].mean(axis=0)) * (spacing / typical if typical > 1e-9 else 1.0)
            _apart(pos, radius, members, center)
            boxes.append(idx)
        _pack(pos, radius, boxes, spacing)
        if center is not None:
            pos -= pos[center].copy()
    if loose:
        _gather(pos, radius, linked, loose, spacing)
    return tuple(
        (nodes[i][0], (round(float(pos[i, 0]), 1) + 0.0, round(float(pos[i, 1]), 1) + 0.0))  # + 0.0: never -0.0
        for i in range(n)
    )


def _start(
    nodes: Sequence[tuple[str, float, int | None]], linked: Sequence[int], spacing: float
) -> dict[int, tuple[float, float]]:
    """A seeded start, in units of ``spacing``: rings by hop around the centre, or a spiral by rank (the nodes come
    most connected first)."""
    out: dict[int, tuple[float, float]] = {}
    rings: dict[int, int] = {}
    for k, i in enumerate(linked):
        hop = nodes[i][2]
        if hop is not None:
            ring = rings.get(hop, 0)
            rings[hop] = ring + 1
            angle, r = ring * _GOLDEN_ANGLE, hop * (1.0 + 0.15 * (ring % 3))
        else:
            angle, r = k * _GOLDEN_ANGLE, 0.55 * math.sqrt(k)
        out[i] = (r * math.cos(angle), r * math.sin(angle))
    return out


def _apart(pos: Any, radius: Any, linked: Sequence[int], center: int | None) -> None:
    """Push apart the nodes of ``linked`` that would touch (with room for a label), the centre staying put."""
    import numpy as np

    idx = np.array(linked, dtype=np.intp)
    x, y, r = pos[idx, 0].copy(), pos[idx, 1].copy(), radius[idx]
    free = np.array([i != center for i in linked], dtype=float)
    room = r[:, None] + r[None, :] + _LABEL_ROOM
    for _ in range(60 if len(idx) > 1 else 0):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        dist = np.sqrt(np.maximum(dx * dx + dy * dy, 1e-6))
        overlap = np.maximum(room - dist, 0.0)
        np.fill_diagonal(overlap, 0.0)
        if not overlap.any():
            break
        push = overlap / dist / 2
        x += (dx * push).sum(axis=1) * free
        y += (dy * push).sum(axis=1) * free
    pos[idx, 0], pos[idx, 1] = x, y


def _pack(pos: Any, radius: Any, parts: Sequence[Any], spacing: float) -> None:
    """Put the connected ``parts`` (index arrays, largest first) in rows, left to right, a gap of ``spacing``."""
    import numpy as np

    if len(parts) < 2:
        return
    sizes = []
    for idx in parts:
        lo = (pos[idx] - radius[idx, None]).min(axis=0)
        hi = (pos[idx] + radius[idx, None]).max(axis=0)
        sizes.append((lo, hi))
    area = sum(float((hi - lo + spacing).prod()) for lo, hi in sizes)
    row_width = max(float(sizes[0][1][0] - sizes[0][0][0]), 1.6 * math.sqrt(area))
    x = y = row_height = 0.0
    for idx, (lo, hi) in zip(parts, sizes, strict=True):
        w, h = float(hi[0] - lo[0]), float(hi[1] - lo[1])
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height + spacing / 2, 0.0
        pos[idx] += np.array([x - lo[0], y - lo[1]])
        x += w + spacing / 2
        row_height = max(row_height, h)


def _gather(pos: Any, radius: Any, linked: Sequence[int], loose: Sequence[int], spacing: float) -> None:
    """Place the ``loose`` nodes (no drawn edge) in rows below the ``linked`` ones, as wide as the drawing."""
    import numpy as np

    step = 2 * float(radius[list(loose)].max()) + _LABEL_ROOM
    if linked:
        idx = np.array(linked, dtype=np.intp)
        left, right = float(pos[idx, 0].min()), float(pos[idx, 0].max())
        top = float((pos[idx, 1] + radius[idx]).max()) + spacing
    else:
        width = step * math.ceil(math.sqrt(len(loose)))
        left, right, top = -width / 2, width / 2, 0.0
    per_row = max(1, int((right - left) // step) + 1)
    for k, i in enumerate(loose):
        pos[i] = (left + (k % per_row) * step, top + (k // per_row) * step)

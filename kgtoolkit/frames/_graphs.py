"""The graph at a date as a networkx or rustworkx graph (contract §12), and the entities a facts frame names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from .. import _validity
from .._time import TimeInput
from .._validity import Clock, frame_keys
from .._window import ReadWindow
from ..graph import KnowledgeGraph
from ._facts import facts

if TYPE_CHECKING:
    import networkx as nx
    import rustworkx as rx


#: The attributes of each edge of :func:`to_networkx` and :func:`to_rustworkx`: the fact.
EDGE_ATTRIBUTES = ("id", "predicate", "label", "valid_from", "valid_to", "state", "kind", "confidence", "source")


def _snapshot(
    kg: KnowledgeGraph, as_of: TimeInput | None, during: Sequence[TimeInput] | None, predicates: Sequence[str] | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The facts between two entities valid at ``as_of``, overlapping ``during``, or current state facts and
    events that have occurred (the traversal's time rule, contract §11), as (edges, nodes) frames."""
    from .._errors import InvalidRequest, NotFound

    window = ReadWindow(as_of, during=during)  # checked before anything is read
    wanted: list[str] | None = None
    labels = kg.predicate_labels()
    if predicates is not None:
        if isinstance(predicates, str):
            predicates = [predicates]
        wanted = [kg.resolve_predicate(p) for p in predicates]
        missing = [p for p, w in zip(predicates, wanted, strict=True) if w not in labels]
        if missing:
            raise NotFound(
                f"no fact of the graph has the predicate {missing[0]!r}; kgtoolkit predicates lists them",
                field="predicates",
                value=missing[0],
            )
        if not wanted:
            raise InvalidRequest(
                "predicates is empty: name at least one, or leave it out for every predicate", field="predicates"
            )
    if window.during is not None and window.valid is not None:
        lo, hi = window.valid
        frame = facts(kg)
        assert isinstance(frame, pl.DataFrame)
        frame = frame.filter(_validity.valid_at(*frame_keys(), pl.lit(lo), pl.lit(hi)))
    elif window.as_of is not None:
        frame = facts(kg, as_of=window.as_of)
        assert isinstance(frame, pl.DataFrame)
    else:  # a current state fact or an event that has occurred, at any date (the walk's rule)
        frame = facts(kg)
        assert isinstance(frame, pl.DataFrame)
        clock = Clock.real()
        event = pl.col("kind") == "event"
        frame = frame.filter(_validity.walked(*frame_keys(), pl.lit(clock.now), pl.lit(clock.day_last), event))
    frame = frame.filter(~pl.col("object_is_value"))
    if wanted is not None:
        frame = frame.filter(pl.col("predicate").is_in(wanted))
    edges = frame.select(
        "subject",
        "object",
        "id",
        "predicate",
        pl.col("predicate").replace_strict(labels, default=pl.col("predicate"), return_dtype=pl.String).alias("label"),
        "valid_from",
        "valid_to",
        "state",
        "kind",
        "confidence",
        "source",
    )
    return edges, named_entities(frame)


def named_entities(facts: pl.DataFrame) -> pl.DataFrame:
    """List the entities a facts frame names, each once, in the order first named.

    Each entity is named and typed as the first fact naming it says (by fact id, its subject before its
    object). A value object, such as an email, names no entity.

    Parameters
    ----------
    facts
        A frame of :func:`facts`.

    Returns
    -------
    polars.DataFrame
        ``id``, ``name`` and ``type``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team", object_type="company")
    >>> _ = kg.add("Payments Team", "email", "pay@acme.example")
    >>> named_entities(facts(kg)).rows()
    [('billing', 'billing', 'unknown'), ('payments_team', 'Payments Team', 'company')]
    """
    return (
        pl.concat(
            [
                facts.select(
                    pl.col("id").alias("_fact"),
                    pl.lit(0).alias("_side"),
                    pl.col("subject").alias("id"),
                    pl.col("subject_name").alias("name"),
                    pl.col("subject_type").alias("type"),
                ),
                facts.filter(~pl.col("object_is_value")).select(
                    pl.col("id").alias("_fact"),
                    pl.lit(1).alias("_side"),
                    pl.col("object").alias("id"),
                    pl.col("object_name").alias("name"),
                    pl.col("object_type").alias("type"),
                ),
            ]
        )
        .sort("_fact", "_side", nulls_last=True)
        .unique("id", keep="first", maintain_order=True)
        .select("id", "name", "type")
    )


def to_networkx(
    kg: KnowledgeGraph,
    *,
    as_of: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    predicates: Sequence[str] | None = None,
) -> nx.MultiDiGraph:
    """Build the graph at a date, or over a window, as a networkx ``MultiDiGraph``: one edge per fact.

    The facts are those a traversal walks (contract §11). Only facts between two entities are edges (a
    value such as an email is no node). Nodes are entity ids with ``name`` and ``type``. Each edge is keyed
    by the fact's id and carries :data:`EDGE_ATTRIBUTES`. :func:`to_rustworkx` builds the same graph faster.

    Parameters
    ----------
    kg
        The graph.
    as_of
        The facts valid at this date. Default: current state facts and the events that have occurred.
    during
        ``(start, end)``: the facts overlapping this window instead.
    predicates
        Keep facts of these predicates (names or aliases).

    Returns
    -------
    networkx.MultiDiGraph
        Entities as nodes, facts as edges.

    Raises
    ------
    NotFound
        A predicate the graph does not use.
    InvalidRequest
        Both ``as_of`` and ``during``, or a ``during`` that is not two moments.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team"); _ = kg.add("Payments Team", "reports_to", "Dana")
    >>> g = to_networkx(kg)
    >>> sorted(g.nodes(data="name")), [(u, v, d["predicate"]) for u, v, d in g.edges(data=True)]
    ([('billing', 'billing'), ('dana', 'Dana'), ('payments_team', 'Payments Team')], [('billing', 'payments_team', 'owned_by'), ('payments_team', 'dana', 'reports_to')])
    """
    import networkx as nx

    edges, nodes = _snapshot(kg, as_of, during, predicates)
    graph = nx.MultiDiGraph()
    graph.add_nodes_from((i, {"name": n, "type": t}) for i, n, t in nodes.iter_rows())
    attributes = edges.select(EDGE_ATTRIBUTES).to_dicts()
    graph.add_edges_from(
        zip(edges["subject"].to_list(), edges["object"].to_list(), edges["id"].to_list(), attributes, strict=True)
    )
    return graph


def to_rustworkx(
    kg: KnowledgeGraph,
    *,
    as_of: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    predicates: Sequence[str] | None = None,
) -> rx.PyDiGraph:
    """Build the graph of :func:`to_networkx` as a rustworkx ``PyDiGraph`` (a multigraph), several times faster.

    Node payloads are dicts ``{"id", "name", "type"}``; edge payloads are the fact's
    :data:`EDGE_ATTRIBUTES`. ``graph.attrs["index"]`` maps each entity id to its node index.

    Parameters
    ----------
    kg
        The graph.
    as_of, during, predicates
        As :func:`to_networkx` takes them.

    Returns
    -------
    rustworkx.PyDiGraph
        Entities as nodes, facts as edges.

    Raises
    ------
    NotFound
        A predicate the graph does not use.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team"); _ = kg.add("Payments Team", "reports_to", "Dana")
    >>> g = to_rustworkx(kg)
    >>> [(g[a]["name"], d["predicate"], g[b]["name"]) for a, b, d in g.weighted_edge_list()]
    [('billing', 'owned_by', 'Payments Team'), ('Payments Team', 'reports_to', 'Dana')]
    """
    import rustworkx as rx

    edges, nodes = _snapshot(kg, as_of, during, predicates)
    graph = rx.PyDiGraph(multigraph=True)
    indexes = graph.add_nodes_from(nodes.to_dicts())
    index = nodes.select("id", pl.Series("_index", list(indexes), dtype=pl.Int64))
    ends = (
        edges.select("subject", "object")
        .join(index.rename({"id": "subject", "_index": "_from"}), on="subject", how="left", maintain_order="left")
        .join(index.rename({"id": "object", "_index": "_to"}), on="object", how="left", maintain_order="left")
    )
    graph.add_edges_from(
        list(zip(ends["_from"].to_list(), ends["_to"].to_list(), edges.select(EDGE_ATTRIBUTES).to_dicts(), strict=True))
    )
    graph.attrs = {"index": dict(zip(index["id"].to_list(), index["_index"].to_list(), strict=True))}
    return graph

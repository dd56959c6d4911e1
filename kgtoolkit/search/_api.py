"""The functions most callers need: :func:`open_index`, :func:`index` and :func:`find`.

The graph owns the index: :func:`open_index` asks the graph to keep one :class:`SearchIndex` per
model (:meth:`~kgtoolkit.KnowledgeGraph.keep`), so every search on one graph object shares it,
and closing the graph closes it.
"""

from __future__ import annotations

import os
import threading

from .._embedding import Embedder, _embedder
from .._time import TimeInput
from ..graph import KnowledgeGraph
from . import _fusion
from ._index import SearchIndex
from ._results import FindResult, Kind, Mode, SyncReport
from ._sync import Progress

__all__ = ["find", "index", "open_index"]

_OPEN_LOCK = threading.Lock()


def _key(embedder: Embedder) -> str:
    """The name under which the graph keeps the index of this model."""
    return f"search:{embedder.name}"


def open_index(kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None) -> SearchIndex:
    """Open the search index of a graph for a model, once per graph object and model.

    The graph keeps the index and closes it when it closes, so every search on one graph object shares it.

    Parameters
    ----------
    kg
        The graph.
    model
        A sentence-transformers model folder, or an :class:`Embedder`. Default: ``$KGTOOLKIT_SEARCH_MODEL``,
        else the bundled all-MiniLM-L6-v2.

    Returns
    -------
    SearchIndex
        The graph's index for that model.

    Raises
    ------
    MissingDependency
        The search extra is not installed.

    Examples
    --------
    >>> import kgtoolkit
    >>> open_index(kgtoolkit.open(":memory:")).status().state  # doctest: +SKIP
    'missing'
    """
    embedder = _embedder(model)
    with _OPEN_LOCK:
        index: SearchIndex = kg.keep(_key(embedder), lambda: SearchIndex.open(kg, model=embedder))
        if index.embedder is not embedder:  # another object of the same name: a new index for it
            index = kg.keep(_key(embedder), lambda: SearchIndex.open(kg, model=embedder), replace=True)
        return index


def index(
    kg: KnowledgeGraph,
    *,
    model: str | os.PathLike[str] | Embedder | None = None,
    progress: Progress | None = None,
    rebuild: bool = False,
) -> SyncReport:
    """Build or update the search index of a graph (see :meth:`SearchIndex.sync`).

    Only the facts and memories written since the last sync are embedded. :func:`find` does this itself
    first; call it to pay the cost ahead of the first search.

    Parameters
    ----------
    kg
        The graph.
    model
        The model, as :func:`open_index` takes it.
    progress
        Called as ``progress(done, total)`` while texts are embedded.
    rebuild
        Start over (cached embeddings are reused).

    Returns
    -------
    SyncReport
        What was embedded and written, per kind.

    Raises
    ------
    MissingDependency
        The search extra is not installed.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> index(kg).facts.added  # doctest: +SKIP
    1
    """
    return open_index(kg, model=model).sync(progress=progress, rebuild=rebuild)


def find(
    kg: KnowledgeGraph,
    query: str,
    *,
    k: int = 10,
    kind: Kind = "facts",
    as_of: TimeInput | None = None,
    current_only: bool = False,
    mode: Mode = "hybrid",
    rerank: str | None = None,
    explain: bool = False,
    model: str | os.PathLike[str] | Embedder | None = None,
    progress: Progress | None = None,
    wait: bool = True,
) -> FindResult:
    """Search a graph's facts and memories by words, meaning and names, each hit read against the graph.

    The signals are fused by reciprocal rank (contract §15). The index is brought up to date first.
    Each hit says whether its fact is current, what replaced it and since when; a memory's hit names the
    facts it backs.

    Parameters
    ----------
    kg
        The graph.
    query
        The question or words to find.
    k
        How many hits.
    kind
        ``"facts"``, ``"memories"`` or ``"both"``.
    as_of
        Keep facts valid on this date.
    current_only
        Keep current facts, and memories that do not read as history.
    mode
        ``"hybrid"`` (words, meaning and names), ``"vector"`` (meaning alone) or ``"lexical"`` (the
        database's full-text index alone: no model, no vector index).
    rerank
        ``"graph"`` prefers facts near the entities the query names, and current facts over history.
    explain
        Give each hit its signals' ranks and scores (``hit.explain``).
    model
        The model, as :func:`open_index` takes it.
    progress
        Called as ``progress(done, total)`` while the index catches up.
    wait
        Wait for a long first build. False answers lexically at once when the index needs a long build
        (``notice`` says so) and builds it in the background.

    Returns
    -------
    FindResult
        The hits, best first.

    Raises
    ------
    InvalidRequest
        An empty query, or a bad ``k``, ``kind``, ``mode`` or ``rerank``.
    MissingDependency
        A mode that needs the model, without the search extra.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    >>> _ = kg.remember("INC-4821: the queue stalled after the Redis upgrade")
    >>> [hit.kind for hit in find(kg, "INC-4821", kind="both", mode="lexical").hits]
    ['memory']
    """
    if mode == "lexical":
        as_of = _fusion.check(query, k, kind, as_of, mode, rerank)
        return _fusion.lexical_find(
            kg, query, k=k, kind=kind, as_of=as_of, current_only=current_only, rerank=rerank, explain=explain
        )
    return open_index(kg, model=model).find(
        query,
        k=k,
        kind=kind,
        as_of=as_of,
        current_only=current_only,
        progress=progress,
        mode=mode,
        rerank=rerank,
        explain=explain,
        wait=wait,
    )

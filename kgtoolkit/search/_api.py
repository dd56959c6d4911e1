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
    """The :class:`SearchIndex` of ``kg`` for ``model``, opened once per graph object and model
    (the graph keeps it, and closes it when it closes)."""
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
    """Build or update the search index of ``kg`` (see :meth:`SearchIndex.sync`)."""
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
    """Search ``kg`` by words and meaning (see :meth:`SearchIndex.find`; contract §15); the index is kept in
    step first. ``mode="lexical"`` uses the database's full-text index alone: no model, no vector index.
    ``wait=False``: when the index needs a long build, answer lexically now (``notice`` says so) and build it in
    the background."""
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

"""The index object: :class:`SearchIndex`, the FAISS indexes of one graph and one model.

It holds the state (the parts, what they cover, the change token seen last) and the locks, and
puts the other modules together: :mod:`._files` to read and write its folder, :mod:`._sync` to keep
it in step with the graph, :mod:`._rank` to answer a query. A stale index is never searched:
:meth:`SearchIndex.find` brings it up to date first.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._time import TimeInput
from ..store import KnowledgeGraph
from ..store import _search as store
from . import _fusion
from ._faiss import _PARTS, _empty_parts, _Part
from ._files import _UNREADABLE, _has_index, _read_index, _slug, _write_index, index_folder
from ._model import Embedder, _embedder
from ._rank import _QueryVectors, _Ranking
from ._results import FindResult, IndexStatus, Kind, Mode, SyncReport
from ._sync import Progress, _graph_texts, _part_report, _update_parts, _Vectors

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SearchIndex"]


class SearchIndex:
    """The FAISS indexes of one graph and one model, kept in step with the graph.

    Open it with :meth:`open`; :meth:`find` brings it up to date before it searches, so a stale
    index is never used. Safe to share between threads; several processes may use one index folder
    (files are replaced atomically under a lock; a half-written folder reads as corrupt and is rebuilt).
    """

    def __init__(self, kg: KnowledgeGraph, embedder: Embedder, directory: Path | None) -> None:
        self.kg = kg
        self.embedder = embedder
        self.directory = directory  # <db>.search, a cache folder for PostgreSQL, or None (in memory)
        self.folder = directory / _slug(embedder.name) if directory is not None else None
        self._lock = threading.RLock()
        self._parts: dict[str, _Part] = _empty_parts()
        self._covered: dict[str, Any] = {}
        self._dim: int | None = None
        self._state, self._reason = "missing", "no index yet"
        self._token: tuple[int, int] | None = None
        self._queries: dict[str, np.ndarray] = {}
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError:
                self.directory = self.folder = None  # cannot write beside the graph: keep it in memory
        self.cache = store.embedding_cache(kg, self.directory)
        self._load()

    @classmethod
    def open(cls, kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None) -> SearchIndex:
        """The index of ``kg`` for ``model`` (default: the bundled all-MiniLM-L6-v2), loaded from its folder
        when it is there (see :func:`~kgtoolkit.search.index_folder`). Nothing is embedded and no model is
        loaded yet."""
        return cls(kg, _embedder(model), index_folder(kg))

    def close(self) -> None:
        """Close the embedding cache (the graph stays open)."""
        self.cache.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SearchIndex({str(self.kg.location)!r}, model={self.embedder.name!r})"

    # ------------------------------------------------------------------ files

    def _load(self) -> None:
        """Read the folder; any doubt (a missing file, a checksum or count mismatch) means rebuild."""
        if self.folder is None or not _has_index(self.folder):
            self._state, self._reason = "missing", "no index on disk yet"
            return
        try:
            parts, manifest = _read_index(self.folder, self.embedder.name)
        except _UNREADABLE as exc:
            self._parts = _empty_parts()
            self._state, self._reason = "corrupt", f"the index in {self.folder} is unusable ({exc}); rebuilding"
            return
        self._parts, self._covered, self._dim = parts, manifest["graph"], int(manifest["dim"])
        self._state, self._reason = "loaded", "read from disk"

    def _save(self) -> None:
        if self.folder is None:
            return
        _write_index(self.folder, self._parts, model=self.embedder.name, dim=self._dim, covered=self._covered,
                     location=str(self.kg.location))

    # ------------------------------------------------------------------ keeping in step

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embedder.dim)
        return self._dim

    def status(self) -> IndexStatus:
        """Whether the index covers the graph now (``fresh``), needs an update (``stale``), or has to
        be built (``missing``, ``corrupt``). Changes nothing."""
        with self._lock:
            if self._state == "missing":
                self._load()  # another process (kgtoolkit index) may have built it since
            state, reason = self._state, self._reason
            if state == "loaded":
                current = store.graph_digest(self.kg)
                stale = [k for k in _PARTS if current[k] != self._covered.get(k)]
                state = "stale" if stale else "fresh"
                reason = (f"the graph's {' and '.join(stale)} changed since the index was built" if stale
                          else "the index covers every fact and memory")
            return IndexStatus(state, reason, str(self.folder) if self.folder else None, self.embedder.name,
                               len(self._parts["facts"].hashes), len(self._parts["memories"].hashes),
                               {k: p.index_type for k, p in self._parts.items()})

    def _refresh(self, progress: Progress | None = None) -> SyncReport | None:
        """Bring the index up to date if the graph may have changed (cheap when nothing was written)."""
        if self._state == "loaded" and self._token is not None and self._token == store.change_token(self.kg):
            return None
        report = self.sync(progress=progress)
        return None if report.state == "fresh" else report

    def sync(self, *, progress: Progress | None = None, rebuild: bool = False) -> SyncReport:
        """Bring the index in step with the graph: embed only new or changed texts (the cache serves
        texts seen before), drop what left, rebuild what is missing or unreadable, then save.

        ``progress(done, total)`` is called as texts are embedded; ``rebuild`` starts from scratch
        (the cache still serves every text it holds).
        """
        started = time.perf_counter()
        with self._lock:
            if rebuild or self._state in ("missing", "corrupt"):
                state, reason = ("rebuild", "a rebuild was asked for") if rebuild else (self._state, self._reason)
                self._parts, self._covered = _empty_parts(), {}
            else:
                state, reason = "fresh", "the index covers every fact and memory"
            token = store.change_token(self.kg)  # before reading: a write after this is seen next time
            digest = store.graph_digest(self.kg)
            if state == "fresh" and all(digest[k] == self._covered.get(k) for k in _PARTS):
                self._token = token
                return SyncReport("fresh", reason, _part_report(self._parts["facts"], 0, 0, 0, False),
                                  _part_report(self._parts["memories"], 0, 0, 0, False), 0, 0,
                                  time.perf_counter() - started)
            if state == "fresh":
                changed = [k for k in _PARTS if digest[k] != self._covered.get(k)]
                state, reason = "stale", f"the graph's {' and '.join(changed)} changed since the index was built"
            texts, covered = _graph_texts(self.kg)
            vectors = _Vectors(self.embedder, self.cache, self.dim)
            reports, counter = _update_parts(self._parts, texts, vectors, progress)
            self._covered = covered
            self._state, self._reason = "loaded", "in step with the graph"
            self._token = token
            self._save()
            return SyncReport(state, reason, reports["facts"], reports["memories"], counter["embedded"],
                              counter["cached"], time.perf_counter() - started)

    # ------------------------------------------------------------------ searching

    def _query_vector(self, query: str) -> np.ndarray:
        vector = self._queries.get(query)
        if vector is None:
            vector = self.embedder.encode([query])[0]
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = vector
        return vector

    def find(self, query: str, *, k: int = 10, kind: Kind = "facts", as_of: TimeInput | None = None,
             current_only: bool = False, progress: Progress | None = None, mode: Mode = "hybrid",
             rerank: str | None = None, explain: bool = False) -> FindResult:
        """The ``k`` facts and/or memories that best answer ``query``, each read against the graph (contract §15).

        ``kind``: ``facts``, ``memories`` or ``both``. ``as_of`` keeps facts valid on that day (or at
        that moment); ``current_only`` keeps current facts, and memories that do not read as history.
        ``mode``: ``hybrid`` (lexical, vector and name signals fused by reciprocal rank), ``vector`` or
        ``lexical`` alone; ``rerank="graph"`` prefers facts near the entities the query names, and current
        facts; ``explain`` gives each hit its signals. The same triple on many days is one hit with its dates.
        The index is brought up to date first (``progress`` reports any embedding that needs).
        """
        as_of = _fusion.check(query, k, kind, as_of, mode, rerank)
        if mode == "lexical":
            return _fusion.lexical_find(self.kg, query, k=k, kind=kind, as_of=as_of, current_only=current_only,
                                        rerank=rerank, explain=explain)
        with self._lock:
            synced = self._refresh(progress)
            vector = self._query_vector(query)
            ranking = _Ranking(self.kg, self._parts, self.cache, self.embedder.name, self.dim)
            named, hits = _fusion.rank(self.kg, query, _QueryVectors(ranking, vector), k=k, kind=kind, as_of=as_of,
                                       current_only=current_only, mode=mode, rerank=rerank, explain=explain)
        return FindResult(query, kind, k, None if as_of is None else str(as_of), current_only, tuple(named),
                          tuple(hits), synced, mode, rerank)

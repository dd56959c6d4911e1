"""The index object: :class:`SearchIndex`, the FAISS indexes of one graph and one model.

It holds the state (the parts, the watermark of the graph they cover, the change token seen last) and the
locks, and puts the other modules together: :mod:`._files` to read and write its folder, :mod:`._sync` to
keep it in step with the graph, :mod:`._rank` to answer a query. A stale index is never searched:
:meth:`SearchIndex.find` brings it up to date first, reading only what was added since its watermark
(a full comparison when a text already embedded changed). A few texts added are not worth rewriting the
folder for: the files are written after a full comparison, after :data:`SAVE_EVERY` texts added (or a tenth
of the index), by :meth:`SearchIndex.sync`, and on closing; whoever reads a folder that lags behind
catches up the same way, from the embedding cache.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._embedding import Embedder, _embedder
from .._private import private_folder
from .._time import TimeInput
from ..graph import KnowledgeGraph
from ..store.reads import _search as store
from . import _background, _fusion
from ._background import _SAMPLE, BuildEstimate, build_lock, building, start_build
from ._compose import build_mode, index_name
from ._faiss import _PARTS, _empty_parts, _Part
from ._files import _UNREADABLE, _has_index, _read_index, _slug, _write_index, index_folder
from ._rank import _QueryVectors, _Ranking
from ._results import FindResult, IndexStatus, Kind, Mode, SyncReport
from ._sync import Progress, _missing_hashes, _needs_rebuild, _texts, _triples, _update_parts, _Vectors
from ._texts import _text_hash

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SAVE_EVERY", "SearchIndex"]

SAVE_EVERY = 1000
"""Texts added to an index in memory before its files are written again (or a tenth of the index, if more)."""


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
        self.name = index_name(embedder.name, build_mode())  # the model's, or its composed index's
        self.folder = directory / _slug(self.name) if directory is not None else None
        self._lock = threading.RLock()
        self._parts: dict[str, _Part] = _empty_parts()
        self._mark: store.Watermark | None = None  # what the parts cover (None: unknown, a full comparison)
        self._unsaved = 0  # texts added to the parts since the files were written
        self._dim: int | None = None
        self._state, self._reason = "missing", "no index yet"
        self._token: tuple[Any, ...] | None = None
        self._queries: dict[str, np.ndarray] = {}
        # A read-only graph writes nothing anywhere (contract §8): it reads the index files that are there,
        # keeps what it embeds in memory, and never creates the folder, a lock or the embedding cache's file.
        self.writable = not kg.read_only
        if directory is not None and self.writable:
            try:
                private_folder(directory)
            except OSError:
                self.directory = self.folder = None  # cannot write beside the graph: keep it in memory
        self.cache = store.embedding_cache(kg, self.directory if self.writable else None)
        self._load()

    @classmethod
    def open(cls, kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None) -> SearchIndex:
        """The index of ``kg`` for ``model`` (default: the bundled all-MiniLM-L6-v2), loaded from its folder
        when it is there (see :func:`~kgtoolkit.search.index_folder`). Nothing is embedded and no model is
        loaded yet."""
        return cls(kg, _embedder(model), index_folder(kg))

    def close(self) -> None:
        """Write what the files lack, and close the embedding cache (the graph stays open)."""
        with self._lock:
            if self._unsaved:
                self._save()
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
            parts, manifest = _read_index(self.folder, self.name, create=self.writable)
        except _UNREADABLE as exc:
            self._parts = _empty_parts()
            self._state, self._reason = "corrupt", f"the index in {self.folder} is unusable ({exc}); rebuilding"
            return
        self._parts, self._dim = parts, int(manifest["dim"])
        self._mark = store.Watermark.from_json(manifest.get("watermark"))  # none (an older release): a full check
        self._state, self._reason = "loaded", "read from disk"

    def _save(self) -> None:
        if self.folder is None or not self.writable:
            return
        _write_index(
            self.folder,
            self._parts,
            model=self.name,
            dim=self._dim,
            watermark=None if self._mark is None else self._mark.to_json(),
            location=str(self.kg.location),
        )
        self._unsaved = 0

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
                read = None if self._mark is None else store.texts_since(self.kg, self._mark)
                texts = {} if read is None else _texts(read)
                added = [
                    k
                    for k in texts
                    if any(self._parts[k].hashes.get(key) != _text_hash(t) for key, t in texts[k].items())
                ]
                state = "stale" if read is None or added else "fresh"
                reason = (
                    "the index records no watermark of the graph (an earlier release wrote it)"
                    if self._mark is None
                    else "a text the index holds was changed or removed since it was built"
                    if read is None
                    else f"the graph's {' and '.join(added)} changed since the index was built"
                    if added
                    else "the index covers every fact and memory"
                )
            return IndexStatus(
                state,
                reason,
                str(self.folder) if self.folder else None,
                self.embedder.name,
                len(self._parts["facts"].hashes),
                len(self._parts["memories"].hashes),
                {k: p.index_type for k, p in self._parts.items()},
            )

    def _refresh(self, progress: Progress | None = None) -> SyncReport | None:
        """Bring the index up to date if the graph may have changed (cheap when nothing was written)."""
        if self._state == "loaded" and self._token is not None and self._token == store.change_token(self.kg):
            return None
        report = self._sync(progress, rebuild=False, save=False)
        return None if report.state == "fresh" else report

    def sync(self, *, progress: Progress | None = None, rebuild: bool = False) -> SyncReport:
        """Bring the index in step with the graph: embed only new or changed texts (the cache serves
        texts seen before), drop what left, rebuild what is missing or unreadable, then save.

        ``progress(done, total)`` is called as texts are embedded; ``rebuild`` starts from scratch
        (the cache still serves every text it holds).
        """
        return self._sync(progress, rebuild=rebuild, save=True)

    def _read(self) -> store.GraphTexts:
        """What the graph added since the watermark, or every text when only a full comparison can tell (no
        watermark, a text changed or removed since) or a part must be built anew for its new size."""
        if self._state == "loaded" and self._mark is not None:
            read = store.texts_since(self.kg, self._mark)
            if read is not None and not any(
                _needs_rebuild(self._parts[k], len(self._parts[k].hashes) + len(rows))
                for k, rows in (("facts", read.facts), ("memories", read.memories))
            ):
                return read
        return store.graph_texts(self.kg)

    def estimate(self, *, sample: bool = True) -> BuildEstimate:
        """What bringing the index in step will cost: how many texts need a vector (the embedding cache serves the
        rest) and, with ``sample``, about how long, from a sample of them embedded now (and kept in the cache, so
        the build does not embed them again) and how many texts the model will run (fewer when fact texts are
        composed from their parts). Reads the graph's texts; writes no index file."""
        with self._lock:
            if self._state in ("missing", "corrupt"):
                self._load()  # a builder may have written it since
            loaded = self._state == "loaded"
            read = self._read() if loaded else store.graph_texts(self.kg)
            vectors = _Vectors(self.embedder, self.cache, self.dim, self.name, _triples(read))
            texts = _texts(read)
            missing = _missing_hashes(self._parts if loaded else _empty_parts(), texts, vectors)
            if not sample or not missing:
                return BuildEstimate(len(missing), None, 0.0)
            pending = {h: t for kind in _PARTS for t in texts[kind].values() if (h := _text_hash(t)) in missing}
            work = vectors.model_texts(pending)  # fewer than the texts when they are composed from their parts
            picked = dict(itertools.islice(pending.items(), _SAMPLE))
            items = list(picked.items())
            warm = dict(items[: min(8, len(items) // 2)])  # the model's load is not the rate
            vectors.get(warm, None, None)
            timed = {h: t for h, t in picked.items() if h not in warm}
            started = time.perf_counter()
            vectors.get(timed, None, None)
            elapsed = time.perf_counter() - started
            rate = len(timed) / elapsed * len(missing) / max(work, 1) if timed and elapsed > 0 else None
            left = len(missing) - len(picked)
            return BuildEstimate(len(missing), rate, left / rate if rate else 0.0)

    def _pending(self) -> str | None:
        """Why a search that will not wait answers lexically now (None: the vector index can answer): a builder
        holds the folder, or more than :data:`BACKGROUND_TEXTS` texts need the model (a build is then started in
        the background where the folder can be written)."""
        with self._lock:
            if self._state in ("missing", "corrupt"):
                self._load()  # picked up: a builder wrote it
            if building(self.directory):
                return (
                    "the semantic index is being built in the background; this answer is lexical (words and names "
                    f"alone). The next search uses the index once it is written (progress: {self.directory}/build.log)"
                )
            if self._state == "loaded" and self._token is not None and self._token == store.change_token(self.kg):
                return None
            todo = self.estimate(sample=False).texts
            if todo <= _background.BACKGROUND_TEXTS:  # read here each time (tests lower it)
                return None
            source = getattr(self.embedder, "source", None)
            own = source is not None and _embedder(str(source)).name == self.embedder.name  # the builder's model
            if self.writable and self.directory is not None and own and start_build(self.kg, self.directory, source):
                return (
                    f"the semantic index needs {todo:,} texts embedded: it is being built in the background; this "
                    "answer is lexical (words and names alone). The next search uses the index once it is written "
                    f"(progress: {self.directory}/build.log; `kgtoolkit index` waits for it)"
                )
            return (
                f"the semantic index needs {todo:,} texts embedded and cannot be built in the background here "
                "(a graph open read-only, in memory, or a model given as an object); this answer is lexical. "
                "`kgtoolkit index` builds it"
            )

    def _sync(self, progress: Progress | None, *, rebuild: bool, save: bool) -> SyncReport:
        started = time.perf_counter()
        if self.writable and self._state in ("missing", "corrupt") and not rebuild:
            with build_lock(self.directory):  # a builder at work: wait for it, then read what it wrote
                pass
            with self._lock:
                self._load()
        with self._lock:
            if rebuild or self._state in ("missing", "corrupt"):
                state, reason = ("rebuild", "a rebuild was asked for") if rebuild else (self._state, self._reason)
                self._parts, self._mark = _empty_parts(), None
            else:
                state, reason = "fresh", "the index covers every fact and memory"
            token = store.change_token(self.kg)  # before reading: a write after this is seen next time
            read = self._read() if state == "fresh" else store.graph_texts(self.kg)
            vectors = _Vectors(self.embedder, self.cache, self.dim, self.name, _triples(read))
            reports, counter = _update_parts(self._parts, _texts(read), vectors, progress, complete=read.complete)
            changed = [k for k in _PARTS if reports[k].added or reports[k].changed or reports[k].removed]
            if state == "fresh" and changed:
                state, reason = "stale", f"the graph's {' and '.join(changed)} changed since the index was built"
            moved = read.mark != self._mark
            self._mark = read.mark
            self._state, self._reason = "loaded", "in step with the graph"
            self._token = token
            self._unsaved += sum(reports[k].added + reports[k].changed + reports[k].removed for k in _PARTS)
            due = max(SAVE_EVERY, sum(len(p.hashes) for p in self._parts.values()) // 10)
            full = read.complete and (state != "fresh" or moved)  # a full read is worth writing down at once
            if full or (self._unsaved and (save or self._unsaved >= due)):
                self._save()
            return SyncReport(
                state,
                reason,
                reports["facts"],
                reports["memories"],
                counter["embedded"],
                counter["cached"],
                time.perf_counter() - started,
            )

    # ------------------------------------------------------------------ searching

    def _query_vector(self, query: str) -> np.ndarray:
        vector = self._queries.get(query)
        if vector is None:
            vector = self.embedder.encode([query])[0]
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = vector
        return vector

    def find(
        self,
        query: str,
        *,
        k: int = 10,
        kind: Kind = "facts",
        as_of: TimeInput | None = None,
        current_only: bool = False,
        progress: Progress | None = None,
        mode: Mode = "hybrid",
        rerank: str | None = None,
        explain: bool = False,
        wait: bool = True,
    ) -> FindResult:
        """The ``k`` facts and/or memories that best answer ``query``, each read against the graph (contract §15).

        ``kind``: ``facts``, ``memories`` or ``both``. ``as_of`` keeps facts valid on that day (or at
        that moment); ``current_only`` keeps current facts, and memories that do not read as history.
        ``mode``: ``hybrid`` (lexical, vector and name signals fused by reciprocal rank), ``vector`` or
        ``lexical`` alone; ``rerank="graph"`` prefers facts near the entities the query names, and current
        facts; ``explain`` gives each hit its signals. The same triple on many days is one hit with its dates.
        The index is brought up to date first (``progress`` reports any embedding that needs); with
        ``wait=False``, when that needs more than :data:`~kgtoolkit.search.BACKGROUND_TEXTS` texts embedded (or a
        builder is at work), the answer is lexical at once, says why in ``notice``, and the index is built in the
        background (see :mod:`kgtoolkit.search._background`).
        """
        as_of = _fusion.check(query, k, kind, as_of, mode, rerank)
        notice = None if wait or mode == "lexical" else self._pending()
        if mode == "lexical" or notice is not None:
            result = _fusion.lexical_find(
                self.kg, query, k=k, kind=kind, as_of=as_of, current_only=current_only, rerank=rerank, explain=explain
            )
            return result if notice is None else dataclasses.replace(result, notice=notice)
        with self._lock:
            synced = self._refresh(progress)
            vector = self._query_vector(query)
            ranking = _Ranking(self.kg, self._parts)
            named, hits = _fusion.rank(
                self.kg,
                query,
                _QueryVectors(ranking, vector),
                k=k,
                kind=kind,
                as_of=as_of,
                current_only=current_only,
                mode=mode,
                rerank=rerank,
                explain=explain,
            )
        return FindResult(
            query,
            kind,
            k,
            None if as_of is None else str(as_of),
            current_only,
            tuple(named),
            tuple(hits),
            synced,
            mode,
            rerank,
        )

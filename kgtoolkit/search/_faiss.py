"""The FAISS side: one kind's index (:class:`_Part`), how it is built, and how it is searched.

Each kind (facts, memories) has its own index of L2-normalised vectors, searched by inner product
(cosine similarity), each vector kept at half precision (float16: half the bytes, the same ranking to four
decimals of the cosine): an exact scan below :data:`FLAT_LIMIT` vectors (``IndexScalarQuantizer``), an inverted
file from it on (``IndexIVFScalarQuantizer``). A key (a fact id, a memory id) becomes a FAISS id through :func:`_faiss_id`. faiss is
imported only when an index is built, read or written.

A query is one vector: its scan runs on one OpenMP thread (on two busy cores, the hand-offs of two threads cost five
times the CPU of one). An index read from its folder is mapped into memory (:mod:`._files`), and read-only:
:meth:`_Part.own` copies it into the process before any change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._errors import missing_dependency

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FLAT_LIMIT"]

FLAT_LIMIT = 50_000
"""Below this many vectors a kind gets an exact scan; from it on an inverted file
(read from this module each time an index is built)."""
_PARTS = ("facts", "memories")  # the kinds with an index of their own


def _faiss_id(key: int | str) -> int:
    """The FAISS id of a key: a fact id as it is, a memory id by its hash (63 bits).

    >>> _faiss_id(42)
    42
    >>> 0 <= _faiss_id("mem_1") < 2**63
    True
    """
    if isinstance(key, int):
        return key
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") & (2**63 - 1)


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise missing_dependency("faiss", "search", needed_for="semantic search", cause=exc) from exc
    return faiss


def _nprobe(nlist: int) -> int:
    """How many IVF lists a search visits.

    >>> _nprobe(100), _nprobe(16)
    (33, 16)
    """
    return min(nlist, max(16, nlist // 3))  # ~0.93-0.96 recall@10 on short fact sentences (benchmarks/)


def _index_type(n: int) -> str:
    """The kind of index ``n`` vectors get: ``flat`` below :data:`FLAT_LIMIT`, else ``ivf``."""
    return "flat" if n < FLAT_LIMIT else "ivf"


class Rows(Protocol):
    """Vectors by row, made on demand: ``rows[index_array]`` (the training's picks, first) or ``rows[a:b]`` (each
    slice once, in order: rows may be released as they are read) gives a float32 matrix."""

    def __getitem__(self, which: slice | np.ndarray) -> np.ndarray: ...


_ADD = 16_384  # rows added to an index at a time: the whole matrix is never held


def _build_index(vectors: np.ndarray | Rows, ids: np.ndarray, dim: int) -> tuple[Any, str, int]:
    """An exact float16 scan below :data:`FLAT_LIMIT` vectors, else an inverted file of float16 vectors (inner
    product). ``vectors``: a matrix, or rows made on demand (added :data:`_ADD` at a time)."""
    import numpy as np

    faiss = _faiss()
    n = len(ids)
    fp16 = faiss.ScalarQuantizer.QT_fp16
    if _index_type(n) == "flat":
        index = faiss.IndexIDMap2(faiss.IndexScalarQuantizer(dim, fp16, faiss.METRIC_INNER_PRODUCT))
        for start in range(0, n, _ADD):
            index.add_with_ids(np.ascontiguousarray(vectors[start : start + _ADD]), ids[start : start + _ADD])
        return index, "flat", n
    nlist = max(16, int(2 * math.sqrt(n)))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFScalarQuantizer(quantizer, dim, nlist, fp16, faiss.METRIC_INNER_PRODUCT)
    index.own_fields = True
    quantizer.this.disown()
    picked = np.arange(n) if n <= nlist * 40 else np.random.default_rng(0).choice(n, nlist * 40, replace=False)
    index.train(np.ascontiguousarray(vectors[picked]))
    for start in range(0, n, _ADD):
        index.add_with_ids(np.ascontiguousarray(vectors[start : start + _ADD]), ids[start : start + _ADD])
    index.nprobe = _nprobe(nlist)
    return index, "ivf", n


@dataclasses.dataclass
class _Part:
    """One kind's FAISS index and what it holds: key (fact id / memory id) → text hash."""

    hashes: dict[Any, bytes] = dataclasses.field(default_factory=dict)
    index: Any = None
    index_type: str = "flat"
    trained: int = 0
    by_id: dict[int, Any] = dataclasses.field(default_factory=dict)  # FAISS id → key, where they differ
    mapped: bool = False  # the index is the file mapped into memory, read-only: :meth:`own` it before changing it

    def __post_init__(self) -> None:
        self.by_id = {_faiss_id(k): k for k in self.hashes if not isinstance(k, int)}  # a fact id is its own

    def own(self) -> Any:
        """The index, copied into memory first if it is mapped from its file (FAISS aborts the process on a change
        to a mapped index): call it before adding or removing vectors."""
        if self.mapped:
            faiss = _faiss()
            index = faiss.deserialize_index(faiss.serialize_index(self.index))
            if self.index_type == "ivf":
                index.nprobe = self.index.nprobe
            self.index, self.mapped = index, False
        return self.index

    @property
    def total(self) -> int:
        """How many vectors the index holds (0 before it is built)."""
        return self.index.ntotal if self.index is not None else 0

    def search(self, vector: np.ndarray, fetch: int) -> list[tuple[Any, float]]:
        """The ``fetch`` keys nearest ``vector``, with their scores, best first (an IVF index visits
        every list when ``fetch`` covers it all, so nothing is missed)."""
        total = self.total
        if total == 0:
            return []
        fetch = min(fetch, total)
        exhaustive = self.index_type == "ivf" and fetch >= total
        if exhaustive:
            self.index.nprobe = self.index.nlist
        try:
            return self._search(vector, fetch, None)
        finally:
            if exhaustive:
                self.index.nprobe = _nprobe(self.index.nlist)

    def scores(self, vector: np.ndarray, keys: Sequence[Any]) -> dict[Any, float]:
        """The similarity of ``vector`` to each of these keys' vectors (those the index holds), read from the index:
        a scan of only them (an inverted file: every list, each entry checked against them)."""
        import numpy as np

        held = [key for key in keys if key in self.hashes]
        if not held or self.total == 0:
            return {}
        faiss = _faiss()
        chosen = faiss.IDSelectorBatch(np.array([_faiss_id(key) for key in held], dtype=np.int64))
        if self.index_type == "ivf":
            params = faiss.SearchParametersIVF(sel=chosen, nprobe=self.index.nlist)
        else:
            params = faiss.SearchParameters(sel=chosen)
        return dict(self._search(vector, len(held), params))

    def _search(self, vector: np.ndarray, fetch: int, params: Any) -> list[tuple[Any, float]]:
        """(key, score) of the index's ``fetch`` nearest to ``vector``, best first, on one OpenMP thread."""
        faiss = _faiss()
        threads = faiss.omp_get_max_threads()  # this thread's own setting (OpenMP keeps one per thread)
        faiss.omp_set_num_threads(1)  # one query: OpenMP's hand-offs cost more than a second core saves
        try:
            scores, ids = self.index.search(vector.reshape(1, -1), fetch, params=params)
        finally:
            faiss.omp_set_num_threads(threads)
        out = []
        for score, found in zip(scores[0].tolist(), ids[0].tolist()):
            key = self.by_id.get(found, found)
            if found != -1 and key in self.hashes:
                out.append((key, score))
        return out


def _empty_parts() -> dict[str, _Part]:
    """An empty part for each kind (an index not built yet)."""
    return {p: _Part() for p in _PARTS}

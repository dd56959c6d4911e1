"""The vector signal of ranking: the FAISS index's nearest facts and memories, and the similarity of given ones.

:class:`_Ranking` searches the index, fetching more until enough pass the filters (``as_of``,
``current_only``, a memory that reads as history), one key per text (the same triple on many days is
one text); :class:`_QueryVectors` gives :mod:`._fusion` the signal of one query vector. Scores are cosine
similarities.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..graph import KnowledgeGraph
from ._faiss import _Part

if TYPE_CHECKING:
    import numpy as np

__all__: list[str] = []


@dataclasses.dataclass(frozen=True)
class _Ranking:
    """The facts and memories of ``kg`` nearest a query vector, through the index ``parts``."""

    kg: KnowledgeGraph
    parts: Mapping[str, _Part]

    def scores(self, kind: str, vector: np.ndarray, keys: Sequence[Any]) -> dict[Any, float]:
        """Similarity of the query to these keys' vectors, as the index holds them (nothing read from the cache)."""
        return self.parts[kind].scores(vector, keys)

    def filtered(
        self,
        kind: str,
        vector: np.ndarray,
        k: int,
        keep: Callable[[list[tuple[Any, float]]], set[Any]],
        skip: set[Any],
        *,
        distinct: bool = False,
    ) -> list[tuple[Any, float]]:
        """The k best (key, score) that ``keep`` admits: fetch more until k pass or the index is exhausted.
        ``distinct``: one key per text (the first found)."""
        part = self.parts[kind]
        total = part.total
        fetch = max(4 * (k + len(skip)), 32)
        while True:
            found = [(key, s) for key, s in part.search(vector, fetch) if key not in skip]
            allowed = keep(found)
            chosen = [(key, s) for key, s in found if key in allowed]
            if distinct:
                seen: set[bytes] = set()
                unique = []
                for key, s in chosen:
                    h = part.hashes.get(key)
                    if h not in seen:
                        seen.add(h)  # type: ignore[arg-type]
                        unique.append((key, s))
                chosen = unique
            if len(chosen) >= k or fetch >= total:
                return chosen[:k]
            fetch *= 4


@dataclasses.dataclass(frozen=True)
class _QueryVectors:
    """The vector signal of one query (what :class:`._fusion.Vectors` asks for)."""

    ranking: _Ranking
    vector: np.ndarray

    def nearest(
        self, kind: str, n: int, keep: Callable[[list[tuple[Any, float]]], set[Any]]
    ) -> list[tuple[Any, float]]:
        return self.ranking.filtered(kind, self.vector, n, keep, set(), distinct=True)

    def similarity(self, kind: str, keys: Sequence[Any]) -> dict[Any, float]:
        return self.ranking.scores(kind, self.vector, keys)

"""Ranking: which facts and memories answer a query, best first; names beat vectors.

Facts of an entity the query names exactly (id or alias) come first, by their similarity to the
query; the rest of the ``k`` come from the FAISS index, fetching more until enough pass the filters
(``as_of``, ``current_only``, a memory that reads as history). A memory that backs a fact of a named
entity ranks first among memories likewise. Scores are cosine similarities.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from .._time import TimeInput
from ..store import KnowledgeGraph
from ..store import _search as store
from ._context import _contexts, _fact_hit, _memory_hit
from ._faiss import _Part
from ._results import FactHit, Hit, MemoryHit, NamedEntity

if TYPE_CHECKING:
    import numpy as np

__all__: list[str] = []


def _best(hits: list[Hit], k: int) -> tuple[Hit, ...]:
    """The ``k`` best hits: exact-name hits first, then by score."""
    hits.sort(key=lambda h: (not h.exact, -h.score))
    return tuple(hits[:k])


@dataclasses.dataclass(frozen=True)
class _Ranking:
    """The facts and memories of ``kg`` nearest a query vector, through the index ``parts`` and the
    embedding ``cache`` of the model named ``model``."""

    kg: KnowledgeGraph
    parts: Mapping[str, _Part]
    cache: store.EmbeddingCache
    model: str
    dim: int

    def scores(self, kind: str, vector: np.ndarray, keys: Sequence[Any]) -> dict[Any, float]:
        """Exact similarity of the query to these keys' vectors (from the cache)."""
        import numpy as np

        part = self.parts[kind]
        keys = [k for k in keys if k in part.hashes]
        raw = self.cache.get(self.model, [part.hashes[k] for k in keys], self.dim * 4)
        out = {}
        for key in keys:
            blob = raw.get(part.hashes[key])
            if blob is not None:
                out[key] = float(np.frombuffer(blob, dtype=np.float32) @ vector)
        return out

    def filtered(self, kind: str, vector: np.ndarray, k: int, keep: Callable[[list[tuple[Any, float]]], set[Any]],
                 skip: set[Any]) -> list[tuple[Any, float]]:
        """The k best (key, score) that ``keep`` admits: fetch more until k pass or the index is exhausted."""
        part = self.parts[kind]
        total = part.total
        fetch = max(4 * (k + len(skip)), 32)
        while True:
            found = [(key, s) for key, s in part.search(vector, fetch) if key not in skip]
            allowed = keep(found)
            chosen = [(key, s) for key, s in found if key in allowed]
            if len(chosen) >= k or fetch >= total:
                return chosen[:k]
            fetch *= 4

    def fact_hits(self, vector: np.ndarray, k: int, named: Sequence[NamedEntity], as_of: TimeInput | None,
                  current_only: bool) -> list[FactHit]:
        """The ``k`` best facts: those of the named entities first, then the nearest that pass the filters."""
        exact_ids = store.entity_fact_ids(self.kg, [n.entity for n in named], as_of=as_of, current_only=current_only)
        exact = sorted(self.scores("facts", vector, exact_ids).items(), key=lambda x: -x[1])[:k]
        ranked = [(fid, s, True) for fid, s in exact]
        if len(ranked) < k:
            filtering = as_of is not None or current_only

            def keep(found: list[tuple[Any, float]]) -> set[Any]:
                ids = [fid for fid, _ in found]
                return store.valid_fact_ids(self.kg, ids, as_of=as_of, current_only=current_only) if filtering \
                    else set(ids)

            ranked += [(fid, s, False) for fid, s in
                       self.filtered("facts", vector, k - len(ranked), keep, {fid for fid, _ in exact})]
        facts = store.facts_by_ids(self.kg, [fid for fid, _, _ in ranked])
        contexts = _contexts(self.kg, [facts[fid] for fid, _, _ in ranked if fid in facts])
        return [_fact_hit(contexts[fid], s, e) for fid, s, e in ranked if fid in contexts]

    def memory_hits(self, vector: np.ndarray, k: int, named: Sequence[NamedEntity],
                    current_only: bool) -> list[MemoryHit]:
        """The ``k`` best memories: those backing facts of the named entities first, then the nearest
        (with ``current_only``, none that reads as history)."""
        part = self.parts["memories"]
        exact_keys: list[str] = []
        if named:
            around = store.facts_by_ids(self.kg, store.entity_fact_ids(self.kg, [n.entity for n in named]))
            exact_keys = sorted({f.source_closet for f in around.values()
                                 if f.source_closet is not None and f.source_closet in part.hashes})
        built: dict[str, MemoryHit] = {}

        def hit(key: str, score: float, exact: bool) -> MemoryHit | None:
            if key not in built:
                made = _memory_hit(self.kg, key, score, exact)
                if made is None:
                    return None
                built[key] = made
            return built[key]

        def admissible(h: MemoryHit | None) -> TypeGuard[MemoryHit]:
            return h is not None and not (current_only and h.status == "history")

        exact = sorted(self.scores("memories", vector, exact_keys).items(), key=lambda x: -x[1])
        chosen = [h for key, s in exact if admissible(h := hit(key, s, True))][:k]
        if len(chosen) < k:
            def keep(found: list[tuple[Any, float]]) -> set[Any]:
                return {key for key, score in found if admissible(hit(key, score, False))}

            picked = self.filtered("memories", vector, k - len(chosen), keep, {h.memory.id for h in chosen})
            chosen += [built[key] for key, _ in picked]
        return chosen

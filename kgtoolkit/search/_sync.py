"""Keeping the index in step with the graph: embed only what is new or changed, drop what left.

The graph's texts (:func:`_texts` of a read: every fact as a sentence, every memory; or only those added
since the index's watermark) are compared with what each :class:`~kgtoolkit.search._faiss._Part` holds,
by text hash; vectors come from the embedding cache when it has them, else from the model in chunks,
cached at once (:class:`_Vectors`). A part whose index is missing, of the wrong kind for its size, or an
IVF index grown well past what it was trained on, is rebuilt from every text; otherwise its vectors are
removed and added in place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._embedding import Embedder
from .._errors import InvalidRequest
from ..store.reads import _search as store
from . import _compose
from ._codec import pack, unpack_all
from ._compose import Triple
from ._faiss import _PARTS, _build_index, _faiss_id, _index_type, _Part
from ._results import PartReport
from ._texts import _text_hash, fact_text

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Progress"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called as texts are embedded."""
_CHUNK = 256  # texts per embedding call (progress and the cache are updated per chunk)


@dataclasses.dataclass(frozen=True)
class _Vectors:
    """Vectors of texts for one index: from the embedding cache, else computed by the model, or composed.

    ``name``: what the index's vectors are cached under (default the model's name; a composed index has a name of
    its own, :func:`~._compose.index_name`). ``triples``: fact text → its (subject, predicate, object); a batch of
    more than :data:`~._compose.FULL_BELOW` of these texts to embed is composed from its parts (see
    :mod:`._compose`) when ``name`` is not the model's.
    """

    embedder: Embedder
    cache: store.EmbeddingCache
    dim: int
    name: str = ""
    triples: Mapping[str, Triple] = dataclasses.field(default_factory=dict)

    @property
    def own(self) -> str:
        """The name the index's vectors are cached under."""
        return self.name or self.embedder.name

    def uncached(self, hashes: set[bytes]) -> set[bytes]:
        """Those of ``hashes`` the cache does not hold (what the model will have to embed)."""
        if not hashes:
            return hashes
        rest = hashes - set(unpack_all(self.cache, self.own, sorted(hashes), self.dim))
        if rest and self.own != self.embedder.name:
            rest -= set(unpack_all(self.cache, self.embedder.name, sorted(rest), self.dim))
        return rest

    def model_texts(self, by_hash: Mapping[bytes, str]) -> int:
        """How many texts the model will run to give these (uncached) texts vectors: each one, or, for a batch
        that is composed, the sample, the parts not cached yet and the texts that are not facts."""
        facts = [t for t in by_hash.values() if t in self.triples]
        if self.own == self.embedder.name or len(facts) <= _compose.FULL_BELOW:
            return len(by_hash)
        names = {_text_hash(n) for t in facts for n in map(_compose.part_text, self.triples[t])}
        parts = _Vectors(_compose.parts_model(self.embedder), self.cache, self.dim).uncached(names)
        return len(by_hash) - len(facts) + min(len(facts), _compose.FIT) + len(parts)

    def get(
        self, by_hash: Mapping[bytes, str], counter: dict[str, int] | None, step: Callable[[int], None] | None
    ) -> dict[bytes, np.ndarray]:
        """Vectors of these texts: from the cache, else embedded in chunks (and cached at once), or composed.

        ``counter`` counts the texts ``cached`` and ``embedded``; ``step(n)`` is called as texts are done.
        """
        if not by_hash:
            return {}
        found = unpack_all(self.cache, self.own, list(by_hash), self.dim)
        todo = [h for h in by_hash if h not in found]
        if todo and self.own != self.embedder.name:  # the model's own vectors, from a full build or a write
            whole = unpack_all(self.cache, self.embedder.name, todo, self.dim)
            if whole:
                self.cache.put(self.own, [(h, pack(v)) for h, v in whole.items()])
                found.update(whole)
                todo = [h for h in todo if h not in whole]
        if counter is not None:
            counter["cached"] += len(by_hash) - len(todo)
            counter["embedded"] += len(todo)
        composable = {h: self.triples[by_hash[h]] for h in todo if by_hash[h] in self.triples}
        if self.own == self.embedder.name or len(composable) <= _compose.FULL_BELOW:
            composable = {}
        found.update(self._embed({h: by_hash[h] for h in todo if h not in composable}, step))
        if composable:
            found.update(self._compose(composable, by_hash, step))
        return found

    def _embed(self, by_hash: Mapping[bytes, str], step: Callable[[int], None] | None) -> dict[bytes, np.ndarray]:
        """These texts through the model, in chunks, each chunk cached at once (under both names)."""
        import numpy as np

        found: dict[bytes, np.ndarray] = {}
        todo = sorted(by_hash, key=lambda h: len(by_hash[h]))  # similar lengths batch together
        for start in range(0, len(todo), _CHUNK):
            chunk = todo[start : start + _CHUNK]
            matrix = self.embedder.encode([by_hash[h] for h in chunk])
            if matrix.shape != (len(chunk), self.dim):
                raise InvalidRequest(
                    f"the model {self.embedder.name!r} gave vectors of shape {matrix.shape}; "
                    f"this index expects {self.dim} dimensions",
                    field="model",
                )
            matrix = np.ascontiguousarray(matrix, dtype=np.float32)
            rows = [(h, pack(matrix[i])) for i, h in enumerate(chunk)]
            for name in {self.own, self.embedder.name}:
                self.cache.put(name, rows)
            found.update({h: matrix[i] for i, h in enumerate(chunk)})
            if step is not None:
                step(len(chunk))
        return found

    def _compose(
        self, triples: Mapping[bytes, Triple], by_hash: Mapping[bytes, str], step: Callable[[int], None] | None
    ) -> dict[bytes, np.ndarray]:
        """These fact texts composed from their parts (:func:`~._compose.composed_vectors`), cached under ``own``."""
        import numpy as np

        model = _Vectors(self.embedder, self.cache, self.dim)  # the sample: the model's own vectors
        named = _Vectors(_compose.parts_model(self.embedder), self.cache, self.dim)  # the parts: see parts_model
        left = len(triples) - min(len(triples), _compose.FIT)

        def parts(texts: Sequence[str]) -> np.ndarray:
            keyed = {_text_hash(t): t for t in texts}
            done = [0]

            def part_step(n: int) -> None:  # progress in fact texts: the parts' share of those composed
                before = done[0] * left // max(len(texts), 1)
                done[0] += n
                if step is not None:
                    step(done[0] * left // max(len(texts), 1) - before)

            got = named.get(keyed, None, part_step)
            if step is not None:
                step(left - done[0] * left // max(len(texts), 1))  # the parts the cache held
            return np.stack([got[_text_hash(t)] for t in texts])

        def whole(hashes: Sequence[bytes]) -> np.ndarray:
            got = model.get({h: by_hash[h] for h in hashes}, None, step)
            return np.stack([got[h] for h in hashes])

        vectors = _compose.composed_vectors(triples, parts, whole, self.dim)
        items = list(vectors.items())
        for start in range(0, len(items), 4 * _CHUNK):
            self.cache.put(self.own, [(h, pack(v)) for h, v in items[start : start + 4 * _CHUNK]])
        return vectors


@dataclasses.dataclass(frozen=True)
class _Rows:
    """The vectors of ``order`` (text hashes, one per index row, equal hashes side by side), stacked on demand
    (:class:`._faiss.Rows`). A slice is read once, in order (the index adds it; its training picks rows by an index
    array before): the vectors no later row needs are dropped from ``vectors`` as it is read, so the index grows as
    they go and the build never holds both whole."""

    order: list[bytes]
    vectors: dict[bytes, np.ndarray]

    def __getitem__(self, which: slice | np.ndarray) -> np.ndarray:
        import numpy as np

        if not isinstance(which, slice):
            return np.stack([self.vectors[self.order[int(i)]] for i in which]).astype(np.float32, copy=False)
        picked = self.order[which]
        out = np.stack([self.vectors[h] for h in picked]).astype(np.float32, copy=False)
        stop = which.indices(len(self.order))[1]
        later = self.order[stop] if stop < len(self.order) else None
        for h in picked:
            if h != later:
                self.vectors.pop(h, None)
        return out


def _texts(read: store.GraphTexts) -> dict[str, dict[Any, str]]:
    """The texts to embed per kind (key → text) of one read of the graph."""
    return {"facts": {fid: fact_text(s, p, o) for fid, s, p, o in read.facts}, "memories": dict(read.memories)}


def _triples(read: store.GraphTexts) -> dict[str, Triple]:
    """Each fact text of one read of the graph → its (subject, predicate, object) names."""
    return {fact_text(s, p, o): (s, p, o) for _, s, p, o in read.facts}


def _needs_rebuild(part: _Part, n: int) -> bool:
    """Whether a part of ``n`` vectors must be built anew: none yet, of the wrong kind for its size, or an IVF
    index grown well past what it was trained on."""
    want = _index_type(n)
    return part.index is None or part.index_type != want or (want == "ivf" and n > 4 * max(part.trained, 1))


def _part_report(part: _Part, added: int, changed: int, removed: int, rebuilt: bool) -> PartReport:
    return PartReport(added, changed, removed, len(part.hashes), part.index_type, rebuilt)


def _missing_hashes(
    parts: Mapping[str, _Part], texts: Mapping[str, Mapping[Any, str]], vectors: _Vectors
) -> set[bytes]:
    """The hashes of the texts a sync will have to embed (for the progress total)."""
    wanted: set[bytes] = set()
    for kind in _PARTS:
        have = parts[kind].hashes
        for key, text in texts[kind].items():
            h = _text_hash(text)
            if have.get(key) != h:
                wanted.add(h)
    return vectors.uncached(wanted)


def _sync_part(
    part: _Part, texts: Mapping[Any, str], vectors: _Vectors, counter: dict[str, int], step: Callable[[int], None]
) -> tuple[_Part, PartReport]:
    """One kind brought in step with ``texts``: the part (updated in place, or a rebuilt one) and what changed."""
    import numpy as np

    hashes = {key: _text_hash(text) for key, text in texts.items()}
    added = [k for k in hashes if k not in part.hashes]
    changed = [k for k in hashes if k in part.hashes and part.hashes[k] != hashes[k]]
    removed = [k for k in part.hashes if k not in hashes]
    fresh_keys = added + changed
    by_hash = {hashes[k]: texts[k] for k in fresh_keys}
    fresh = vectors.get(by_hash, counter, step)
    rebuild = _needs_rebuild(part, len(hashes))
    if rebuild:
        keys = sorted(hashes, key=hashes.__getitem__)  # by text: a text's rows side by side (see _Rows)
        held = {hashes[k]: texts[k] for k in keys if hashes[k] not in fresh}  # the rest: from the cache, once
        all_vectors = fresh | vectors.get(held, None, step)
        del fresh
        ids = np.array([_faiss_id(k) for k in keys], dtype=np.int64)
        rows = _Rows([hashes[k] for k in keys], all_vectors)  # a chunk at a time, each released once added
        index, index_type, trained = _build_index(rows, ids, vectors.dim)
        del rows, all_vectors
        part = _Part(hashes, index, index_type, trained)
    else:
        gone = removed + changed
        if gone:
            part.own().remove_ids(np.array([_faiss_id(k) for k in gone], dtype=np.int64))
        if fresh_keys:
            matrix = np.stack([fresh[hashes[k]] for k in fresh_keys]).astype(np.float32, copy=False)
            part.own().add_with_ids(matrix, np.array([_faiss_id(k) for k in fresh_keys], dtype=np.int64))
        part.hashes = hashes
        part.by_id = {_faiss_id(k): k for k in hashes}
    return part, _part_report(part, len(added), len(changed), len(removed), rebuild)


def _add_to_part(
    part: _Part, texts: Mapping[Any, str], vectors: _Vectors, counter: dict[str, int], step: Callable[[int], None]
) -> PartReport:
    """Texts added since the index's watermark into ``part``, in place (one whose key the part holds with
    another text replaces it); nothing is removed (a removal moves the graph's generation: a full comparison)."""
    import numpy as np

    fresh = {k: h for k, text in texts.items() if part.hashes.get(k) != (h := _text_hash(text))}
    changed = [k for k in fresh if k in part.hashes]
    found = vectors.get({h: texts[k] for k, h in fresh.items()}, counter, step)
    if changed:
        part.own().remove_ids(np.array([_faiss_id(k) for k in changed], dtype=np.int64))
    if fresh:
        part.own().add_with_ids(
            np.stack([found[h] for h in fresh.values()]).astype(np.float32, copy=False),
            np.array([_faiss_id(k) for k in fresh], dtype=np.int64),
        )
        part.hashes.update(fresh)
        part.by_id.update({_faiss_id(k): k for k in fresh})
    return _part_report(part, len(fresh) - len(changed), len(changed), 0, False)


def _update_parts(
    parts: dict[str, _Part],
    texts: Mapping[str, Mapping[Any, str]],
    vectors: _Vectors,
    progress: Progress | None,
    *,
    complete: bool = True,
) -> tuple[dict[str, PartReport], dict[str, int]]:
    """Bring every part of ``parts`` in step with ``texts`` (in place): a report per kind, and how many
    texts were ``embedded`` and ``cached``. ``progress(done, total)`` counts the texts embedded. ``complete``:
    ``texts`` are every text of the graph (what a part holds beyond them is removed); else only those added
    since the index's watermark (see :func:`_add_to_part`)."""
    counter = {"embedded": 0, "cached": 0}
    missing = len(_missing_hashes(parts, texts, vectors))  # the total alone: the set is not kept
    reports = {}
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], missing)

    if progress is not None:
        progress(0, missing)
    for kind in _PARTS:
        if complete:
            parts[kind], reports[kind] = _sync_part(parts[kind], texts[kind], vectors, counter, step)
        else:
            reports[kind] = _add_to_part(parts[kind], texts[kind], vectors, counter, step)
    return reports, counter

"""Fact vectors composed from their parts: each entity and predicate embedded once, shared by every fact naming it.

A fact is read as ``subject predicate object`` (:func:`~kgtoolkit.search.fact_text`). A graph names far fewer
entities and predicates than it has distinct fact texts (ICEWS14: about 7,300 names for 50,000 texts), so a
large batch of fact texts is not run through the model text by text. Instead (:func:`composed_vectors`):

1. each distinct part (subject, predicate, object name) is embedded once, by the model's int8 twin when the model
   runs on ONNX Runtime (:func:`parts_model`: about 2.5x the texts per CPU second; cached under the twin's own
   name), else by the model itself;
2. a sample of :data:`FIT` fact texts is embedded whole;
3. a linear map is fitted on the sample (ridge regression, from the three parts' vectors, each weighted by the
   square root of its word count, to what the weighted sum misses of the whole text's vector);
4. every other fact's vector is the weighted sum of its parts' vectors plus the map's correction, normalised.

The composed vectors are close to the model's (cosine about 0.96 on the retrieval evaluation's graph) and the
evaluation ranks as well or better with them (benchmarks/results-search-build.json). Batches of at most
:data:`FULL_BELOW` fact texts (a write, a small graph) are embedded whole: they cost little. A text the model
embedded whole is never replaced by a composed vector.

``$KGTOOLKIT_SEARCH_BUILD``: ``composed`` (the default) or ``full`` (every fact text through the model).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .._errors import InvalidRequest

if TYPE_CHECKING:
    import numpy as np

    from .._embedding import Embedder

__all__ = ["BUILD_ENV", "FIT", "FULL_BELOW"]

BUILD_ENV = "KGTOOLKIT_SEARCH_BUILD"
BUILDS = ("composed", "full")
FIT = 2000
"""Fact texts embedded whole to fit the composition's correction."""
FULL_BELOW = 4000
"""A batch of at most this many fact texts to embed is embedded whole (read from this module each time)."""
_RIDGE = 1.0
_SUFFIX = "+composed"

Triple = tuple[str, str, str]


def build_mode() -> str:
    """``composed`` or ``full``, from ``$KGTOOLKIT_SEARCH_BUILD`` (default ``composed``)."""
    mode = os.environ.get(BUILD_ENV, "").strip().lower() or "composed"
    if mode not in BUILDS:
        raise InvalidRequest(f"{BUILD_ENV} must be one of {', '.join(BUILDS)}", field=BUILD_ENV, value=mode)
    return mode


def index_name(model: str, mode: str) -> str:
    """The name an index (its folder, its manifest, its vectors in the embedding cache) goes by.

    >>> index_name("minilm", "full"), index_name("minilm", "composed")
    ('minilm', 'minilm+composed')
    """
    return model if mode == "full" else model + _SUFFIX


_TWINS: dict[tuple[str, str], Embedder] = {}  # (model folder, export cache) → its int8 twin, one per process


def parts_model(model: Embedder) -> Embedder:
    """What embeds the parts: the int8 twin of an fp32 model on ONNX Runtime (the same weights quantised, exported
    once beside the fp32 file; a name of its own), else ``model`` itself. The correction is fitted from the twin's
    part vectors to the model's whole vectors, so what quantisation moves is fitted too (benchmarks/README.md)."""
    from .._onnx import OnnxEmbedder

    if not isinstance(model, OnnxEmbedder) or model.int8:
        return model
    key = (model.source, str(model.cache))
    if key not in _TWINS:
        _TWINS[key] = OnnxEmbedder(model.source, int8=True, max_tokens=model.max_tokens, cache=model.cache)
    return _TWINS[key]


def part_text(name: str) -> str:
    """A part as it is embedded: as :func:`~kgtoolkit.search.fact_text` writes it.

    >>> part_text("uses_queue")
    'uses queue'
    """
    return " ".join(name.replace("_", " ").split())


def _weights(texts: Sequence[str]) -> np.ndarray:
    import numpy as np

    return np.sqrt(np.array([max(1, len(t.split())) for t in texts], dtype=np.float32))


def _normalised(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: np.ndarray = matrix / np.maximum(norms, 1e-12)
    return out


def composed_vectors(
    triples: Mapping[bytes, Triple],
    embed_parts: Callable[[Sequence[str]], np.ndarray],
    embed_whole: Callable[[Sequence[bytes]], np.ndarray],
    dim: int,
) -> dict[bytes, np.ndarray]:
    """Vectors of the fact texts ``triples`` (text hash → subject, predicate, object names), composed.

    ``embed_parts(texts)`` gives the vectors of part texts (rows in order); ``embed_whole(hashes)`` embeds the
    sample's fact texts whole. The sample is the first :data:`FIT` hashes in byte order (the same graph always
    gives the same sample); its facts keep their whole vectors. Composed vectors are float16 (as the cache and the
    index keep them), so a large batch holds half the bytes.
    """
    import numpy as np

    hashes = sorted(triples)
    sample = hashes[:FIT]
    whole = embed_whole(sample)
    names = sorted({part_text(x) for t in triples.values() for x in t})
    row = {x: i for i, x in enumerate(names)}
    parts = np.asarray(embed_parts(names), dtype=np.float32)
    parts *= _weights(names)[:, None]  # in place: no second matrix of every part
    index = np.array([[row[part_text(x)] for x in triples[h]] for h in hashes], dtype=np.int64)

    def features(rows: np.ndarray) -> np.ndarray:
        return np.hstack([parts[rows[:, 0]], parts[rows[:, 1]], parts[rows[:, 2]]])

    def base(rows: np.ndarray) -> np.ndarray:
        return _normalised(parts[rows[:, 0]] + parts[rows[:, 1]] + parts[rows[:, 2]])

    fit = index[: len(sample)]
    x = features(fit)
    gram = x.T @ x + _RIDGE * np.eye(3 * dim, dtype=np.float32)
    correction = np.linalg.solve(gram, x.T @ (whole - base(fit))).astype(np.float32)
    out = {h: whole[i] for i, h in enumerate(sample)}
    step = 4096  # bounded memory: a few MB of features at a time
    for start in range(len(sample), len(hashes), step):
        rows = index[start : start + step]
        vectors = _normalised(base(rows) + features(rows) @ correction).astype(np.float16)  # as cached: half the bytes
        out.update({hashes[start + i]: vectors[i] for i in range(len(rows))})
    return out

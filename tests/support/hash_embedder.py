"""A model for tests of the index itself: each text's vector is seeded by the text's hash (no meaning, no weights).

Two processes give one text the same vector, so a test can write the index in one and read it in another without
loading a real model. A query equal to a fact's text finds that fact at similarity 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    """Unit vectors seeded by each text's hash, under a name of their own; ``embedded`` counts the texts computed."""

    name = "test-hash-embedder"
    dim = 32

    def __init__(self) -> None:
        self.embedded = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[row] = np.random.default_rng(seed).standard_normal(self.dim)
        self.embedded += len(texts)
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed

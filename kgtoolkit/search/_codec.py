"""How a vector is kept in the embedding cache: float16 bytes (half of float32's, the ranking unchanged).

The one home of the cache's vector format: :func:`pack` writes it, :func:`unpack_all` reads it, and also reads the
float32 vectors an earlier release cached (so they are never embedded again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store.reads import _search as store

if TYPE_CHECKING:
    import numpy as np

__all__: list[str] = []


def pack(vector: np.ndarray) -> bytes:
    """``vector`` as the cache keeps it: float16 bytes."""
    import numpy as np

    return np.asarray(vector, dtype=np.float16).tobytes()


def unpack_all(cache: store.EmbeddingCache, model: str, hashes: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
    """The cached vectors of these hashes (float32 arrays); float16 first, then float32 of an earlier release."""
    import numpy as np

    found = {
        h: np.frombuffer(v, dtype=np.float16).astype(np.float32) for h, v in cache.get(model, hashes, dim * 2).items()
    }
    rest = [h for h in hashes if h not in found]
    if rest:
        found.update({h: np.frombuffer(v, dtype=np.float32) for h, v in cache.get(model, rest, dim * 4).items()})
    return found

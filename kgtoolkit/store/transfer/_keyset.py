"""The keys a bulk load has seen, in bounded memory: 128-bit keys (two 64-bit hashes) kept as sorted runs.

A load in batches asks, for each batch, which of its keys it has seen (the graph's facts before the load, then every
batch written) and adds the new ones. A hash table of every key would be rebuilt per batch or kept as Python
objects (hundreds of bytes a key); here each key costs its 16 bytes. Keys are kept in sorted runs, merged like a
binary counter (a run is merged into the one before it once it is at least half its size), so a key is copied
O(log n) times in all and a lookup is a binary search in each of O(log n) runs.

>>> import numpy as np
>>> seen = KeySet()
>>> seen.add(np.array([3, 1], dtype=np.uint64), np.array([30, 10], dtype=np.uint64))
>>> seen.contains(np.array([1, 3, 3], dtype=np.uint64), np.array([10, 31, 30], dtype=np.uint64)).tolist()
[True, False, True]
>>> len(seen)
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Keys = npt.NDArray[np.uint64]

__all__ = ["KeySet"]


class KeySet:
    """A set of 128-bit keys, each given as its two 64-bit halves (``first``, ``second``)."""

    def __init__(self) -> None:
        self._runs: list[tuple[Keys, Keys]] = []  # each sorted by (first, second), biggest first

    def __len__(self) -> int:
        return sum(len(first) for first, _ in self._runs)

    def contains(self, first: Keys, second: Keys) -> npt.NDArray[np.bool_]:
        """Whether each key (``first[i]``, ``second[i]``) is in the set."""
        import numpy as np

        found = np.zeros(len(first), dtype=bool)
        for run_first, run_second in self._runs:
            at = np.searchsorted(run_first, first, side="left")
            inside = at < len(run_first)
            at_safe = np.where(inside, at, 0)
            same_first = inside & (run_first[at_safe] == first)
            found |= same_first & (run_second[at_safe] == second)
            # The rare keys whose first half is shared by several keys of the run: walk those few.
            for i in np.flatnonzero(same_first & ~found):
                j = int(at[i]) + 1
                while j < len(run_first) and run_first[j] == first[i]:
                    if run_second[j] == second[i]:
                        found[i] = True
                        break
                    j += 1
        return found

    def add(self, first: Keys, second: Keys) -> None:
        """Add keys (ones already in the set are kept once per add: callers add only keys not yet seen)."""
        if not len(first):
            return
        self._runs.append(_sorted(first, second))
        while len(self._runs) > 1 and len(self._runs[-1][0]) * 2 >= len(self._runs[-2][0]):
            (a1, a2), (b1, b2) = self._runs[-2], self._runs[-1]
            self._runs[-2:] = [_merged(a1, a2, b1, b2)]


def _sorted(first: Keys, second: Keys) -> tuple[Keys, Keys]:
    import numpy as np

    order = np.lexsort((second, first))
    return first[order], second[order]


def _merged(a1: Keys, a2: Keys, b1: Keys, b2: Keys) -> tuple[Keys, Keys]:
    import numpy as np

    return _sorted(np.concatenate((a1, b1)), np.concatenate((a2, b2)))

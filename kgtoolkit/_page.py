"""One page of a list answer: the items returned, how many match in all, and where the next page starts.

Every list read of the graph (query, search, timeline, conflicts, aliases) has a ``*_page`` twin that
answers a :class:`Page`; the agent tool and the MCP server answer its :meth:`Page.paging` fields beside
the items (contract §7).

>>> page = Page(("a", "b"), total=5, offset=2)
>>> page.count, page.truncated, page.next_offset
(2, True, 4)
>>> Page((), total=5, offset=9).paging()
{'count': 0, 'total': 5, 'truncated': False, 'next_offset': None}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

__all__ = ["Page"]

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """``items`` (in the answer's order) from position ``offset`` of ``total`` matching items.

    ``total`` is counted in the same snapshot as the items were read. ``truncated`` says more items
    exist past this page; ``next_offset`` is where the next page starts (``None`` when nothing more).
    """

    items: tuple[T, ...]
    total: int
    offset: int = 0

    @property
    def count(self) -> int:
        """How many items this page holds."""
        return len(self.items)

    @property
    def truncated(self) -> bool:
        """Whether more matching items exist past this page."""
        return self.offset + len(self.items) < self.total

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, or ``None`` when this page reaches the end."""
        return self.offset + len(self.items) if self.truncated else None

    def paging(self) -> dict[str, Any]:
        """``{"count", "total", "truncated", "next_offset"}``: the paging fields of a JSON answer."""
        return {"count": self.count, "total": self.total, "truncated": self.truncated, "next_offset": self.next_offset}

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

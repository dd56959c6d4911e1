"""One page of a list answer: the items returned, how many match in all, and where the next page starts.

Every list read of the graph (query, by_predicate, timeline, conflicts, aliases, predicates) answers a
:class:`Page`: a sequence of its items (iterable, sized, indexable, equal to a list of the same items) that
also knows how many match in all. The agent tool and the MCP server answer its :meth:`Page.paging` fields
beside the items (contract §7).

>>> page = Page(("a", "b"), total=5, offset=2)
>>> page.count, page.truncated, page.next_offset
(2, True, 4)
>>> Page((), total=5, offset=9).paging()
{'count': 0, 'total': 5, 'truncated': False, 'next_offset': None}
>>> page[0], page == ["a", "b"]
('a', True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Generic, TypeVar, overload

__all__ = ["Page"]

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
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

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.items[index]

    def __eq__(self, other: object) -> bool:
        """A page equals a page of the same items, total and offset, and a list or tuple of the same items."""
        if isinstance(other, Page):
            return (self.items, self.total, self.offset) == (other.items, other.total, other.offset)
        if isinstance(other, list | tuple):
            return list(self.items) == list(other)
        return NotImplemented

    def __add__(self, other: Page[T] | list[T] | tuple[T, ...]) -> list[T]:
        """The items of both, as a list (as two lists add)."""
        return [*self.items, *other]

    def __radd__(self, other: list[T] | tuple[T, ...]) -> list[T]:
        return [*other, *self.items]

    def __hash__(self) -> int:
        return hash((self.items, self.total, self.offset))

"""The read window: when a read looks at the graph, checked once where a door takes it.

A read may look at the facts valid at one moment (``as_of``) or overlapping a span (``during``), as the graph
believed them at a moment (``known_at``, transaction time), and at the current facts alone (``current_only``).
:class:`ReadWindow` holds these together, parsed and checked in one place; the store's operations take it
instead of its parts. :func:`span_keys` reads the wider ``as_of`` of the frames, the dashboard and the
overview reads, where ``START/END`` names a span.

>>> w = ReadWindow(as_of="2026-03", known_at="2026-04-01")
>>> w.valid == (parse_window("2026-03").lo, parse_window("2026-03").hi), w.known
(True, '2026-04-01T23:59:59.999999Z')
>>> ReadWindow(during=("2026-01", "2026-02")).to_dict()["during"]
['2026-01', '2026-02']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ._errors import IntervalOrder, InvalidRequest
from ._time import TimeInput, key_to_text, parse_window

__all__ = ["ReadWindow", "span_keys"]


def _given(value: TimeInput | None) -> TimeInput | None:
    """A time filter's value, blank text read as none given (no filter)."""
    return None if value is None or value == "" else value


def _during(during: Sequence[TimeInput] | None, as_of: TimeInput | None) -> tuple[TimeInput, TimeInput] | None:
    """``during`` as a pair (start, end), checked: two moments, not with ``as_of``."""
    if during is None:
        return None
    if as_of is not None:
        raise InvalidRequest("give as_of or during, not both", field="during", value=str(during))
    if isinstance(during, (str, bytes)) or len(during) != 2:
        raise InvalidRequest("during takes two dates, (start, end)", field="during", value=str(during))
    return during[0], during[1]


@dataclasses.dataclass(frozen=True)
class ReadWindow:
    """When a read looks at the graph: one moment or one span of validity, as believed at one moment.

    Built once where a door takes the loose parameters; every check of them is made here, before anything
    is read. Blank text is no filter.

    Parameters
    ----------
    as_of : date or datetime, optional
        The facts valid then (a day, a month or a year: every fact touching it).
    known_at : date or datetime, optional
        What the graph believed at that moment (a day: at its end). Ends recorded later read as open.
    during : pair of date or datetime, optional
        The facts whose validity overlaps ``[start, end]`` (both included). Not with ``as_of``.
    current_only : bool
        The facts current now alone (by the ends known at ``known_at``, when given).

    Raises
    ------
    InvalidDate
        A moment that is not a date or an instant.
    InvalidRequest
        ``as_of`` and ``during`` both, or a ``during`` that is not two moments.
    IntervalOrder
        A ``during`` that ends before it starts.

    Examples
    --------
    >>> ReadWindow(as_of="2026-03-02").valid is not None, ReadWindow().unfiltered
    (True, True)
    """

    as_of: TimeInput | None = None
    known_at: TimeInput | None = None
    during: Sequence[TimeInput] | None = None
    current_only: bool = False
    #: The first and last instant keys a fact's validity must touch (from ``as_of`` or ``during``); None: any.
    valid: tuple[int, int] | None = dataclasses.field(init=False, default=None, compare=False)
    #: ``known_at`` as transaction-time text (the last instant it names); None: as the graph believes now.
    known: str | None = dataclasses.field(init=False, default=None, compare=False)

    def __post_init__(self) -> None:
        as_of, known_at = _given(self.as_of), _given(self.known_at)
        during = _during(self.during, as_of)
        valid: tuple[int, int] | None = None
        if during is not None:
            lo, hi = parse_window(during[0], field="during").lo, parse_window(during[1], field="during").hi
            if hi < lo:
                raise IntervalOrder(
                    f"during ends ({during[1]}) before it starts ({during[0]})", field="during", value=str(during[1])
                )
            valid = (lo, hi)
        known = None if known_at is None else key_to_text(parse_window(known_at, field="known_at").hi)
        if as_of is not None:
            window = parse_window(as_of, field="as_of")
            valid = (window.lo, window.hi)
        for name, value in (("as_of", as_of), ("known_at", known_at), ("during", during)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "current_only", bool(self.current_only))
        object.__setattr__(self, "valid", valid)
        object.__setattr__(self, "known", known)

    @property
    def unfiltered(self) -> bool:
        """Whether the window keeps every fact: no moment, no span, no ``known_at``, not current only."""
        return self.valid is None and self.known is None and not self.current_only

    @property
    def dated(self) -> bool:
        """Whether the window names a moment or a span of validity (``as_of`` or ``during``)."""
        return self.valid is not None

    def to_dict(self) -> dict[str, Any]:
        """The window as given (blank text as None; moments as text), JSON-ready."""
        return {
            "as_of": None if self.as_of is None else str(self.as_of),
            "known_at": None if self.known_at is None else str(self.known_at),
            "during": None if self.during is None else [str(d) for d in self.during],
            "current_only": self.current_only,
        }


def span_keys(as_of: TimeInput | None) -> tuple[int, int] | None:
    """The first and last instant keys of an ``as_of`` that may name a span: a day, a month, a year, an instant
    or ``START/END`` (both included); None for none (blank text too).

    >>> span_keys("2026-01-01/2026-01-31") == (parse_window("2026-01").lo, parse_window("2026-01").hi)
    True
    """
    if as_of is None or as_of == "":
        return None
    if isinstance(as_of, str) and "/" in as_of:  # an ISO 8601 interval, START/END: facts overlapping it
        start, _, end = as_of.partition("/")
        low, high = parse_window(start, field="as_of").lo, parse_window(end, field="as_of").hi
        if high < low:
            raise InvalidRequest(f"the window {as_of!r} ends before it starts", field="as_of", value=as_of)
        return low, high
    window = parse_window(as_of, field="as_of")
    return window.lo, window.hi

"""Checks of arguments that many functions share, written once, each raising :class:`InvalidRequest`.

>>> whole_number(5, field="top", low=1)
5
>>> whole_number(None, field="limit", allow_none=True) is None
True
>>> whole_number(True, field="top", low=1)
Traceback (most recent call last):
...
kgtoolkit._errors.InvalidRequest: top must be a whole number from 1, not True
>>> whole_number(2**63, field="offset", high=MAX_INT64)
Traceback (most recent call last):
...
kgtoolkit._errors.InvalidRequest: offset must be a whole number from 0 to 2**63 - 1, not 9223372036854775808
"""

from __future__ import annotations

from typing import Literal, overload

from ._errors import InvalidRequest

__all__ = ["MAX_FACT_ID", "MAX_INT64", "whole_number"]

MAX_INT64 = 2**63 - 1
"""The largest whole number either database stores (a signed 64-bit integer)."""

MAX_FACT_ID = 2**53
"""The largest fact id a restore or a copy accepts (contract §9). Every JSON reader holds it exactly (JavaScript
and other readers of numbers as doubles misread larger ones: two facts would share an id), and it leaves
2**63 - 1 - 2**53 ids for the writes that follow (a restored id of 2**63 - 1 left none: every add failed)."""


def _shown(bound: int) -> str:
    return "2**63 - 1" if bound == MAX_INT64 else str(bound)


@overload
def whole_number(
    value: object, *, field: str, low: int = ..., high: int | None = ..., allow_none: Literal[False] = ...
) -> int: ...


@overload
def whole_number(
    value: object, *, field: str, low: int = ..., high: int | None = ..., allow_none: bool
) -> int | None: ...


def whole_number(
    value: object, *, field: str, low: int = 0, high: int | None = None, allow_none: bool = False
) -> int | None:
    """``value`` if it is a whole number from ``low`` (to ``high``, both included), else :class:`InvalidRequest`.

    A ``bool`` is refused (``True`` is an ``int`` to Python, not a count to a person), and so is a
    float even when whole (``2.0``): callers pass counts, and a float there is a mistake upstream.
    ``allow_none`` lets ``None`` through (no limit, no cap). The error names ``field`` and the value.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= low and (high is None or value <= high):
        return value
    span = f"from {_shown(low)}" + (f" to {_shown(high)}" if high is not None else "")
    also = " or None" if allow_none else ""
    raise InvalidRequest(f"{field} must be a whole number {span}{also}, not {value!r}", field=field, value=str(value))

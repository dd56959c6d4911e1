"""The period grammar: an ``every`` such as ``1d``, ``2w``, ``1mo``, ``3mo``, ``1q``, ``1y`` or ``12h``.

One home for what the analyses (polars truncations) and the store (periods keyed in SQL) both read: the
units, which are calendar units counted in months, and what a fixed unit lasts. No I/O.

>>> parts("1y6mo"), step("1y6mo"), step("12h")
([(1, 'y'), (6, 'mo')], (18, 0), (0, 43200000000000))
"""

from __future__ import annotations

import re

__all__ = ["DURATION", "MONTHS", "NANOSECONDS", "parts", "step"]

#: One term of a duration: a number and its unit (``mo`` before ``m``, so ``1mo`` is a month).
DURATION = re.compile(r"(\d+)(ns|us|ms|mo|s|m|h|d|w|q|y)")
#: The calendar units, in months.
MONTHS = {"mo": 1, "q": 3, "y": 12}
#: The fixed units, in nanoseconds (a UTC day is 24 h).
NANOSECONDS = {
    "ns": 1,
    "us": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3_600 * 10**9,
    "d": 86_400 * 10**9,
    "w": 7 * 86_400 * 10**9,
}


def parts(every: str) -> list[tuple[int, str]]:
    """The terms of ``every`` as (number, unit), in order; empty when it has none (not checked whole)."""
    return [(int(n), u) for n, u in DURATION.findall(every)] if isinstance(every, str) else []


def step(every: str) -> tuple[int, int]:
    """One period of ``every`` as (months, nanoseconds); polars lets only one be non-zero."""
    months = nanoseconds = 0
    for number, unit in parts(every):
        if unit in MONTHS:
            months += number * MONTHS[unit]
        else:
            nanoseconds += number * NANOSECONDS[unit]
    return months, nanoseconds

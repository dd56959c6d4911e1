"""Periods of a window: a checked ``every``, period starts and counts, and the error for too many periods.

Periods are polars truncations (``dt.truncate(every)``) of the UTC instants, computed in microseconds since
1970 (polars holds instants before year 1, Python does not). :func:`~kgtoolkit.analysis.churn`,
:func:`~kgtoolkit.analysis.events` and :func:`~kgtoolkit.analysis.snapshots` lay out at most
:data:`MAX_PERIODS` of them.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from .._errors import InvalidRequest
from .._periods import DURATION, step
from ._shared import _FIRST, _LAST, _MOMENT, _ONE_US, _UTC

_LONGER = ("1w", "1mo", "3mo", "1y", "10y", "100y", "1000y")  # the periods suggested when there are too many


#: The most periods :func:`churn` lays out without ``by`` (one row each, zeros included); a window
#: needing more raises :class:`~kgtoolkit.InvalidRequest` (``field="every"``) instead of filling memory.
MAX_PERIODS = 100_000


def _check_every(every: str) -> None:
    """A positive polars calendar duration (``1d``, ``1w``, ``1mo``, ``3mo``, ``1q``, ``1y``, ``12h`` …).

    A fixed period is a whole number of microseconds, the resolution of the facts' instants.
    """
    parts = DURATION.findall(every) if isinstance(every, str) else []
    problem = None
    if not parts or "".join(n + u for n, u in parts) != every or not any(int(n) for n, _ in parts):
        problem = "not a positive duration"
    else:
        try:
            pl.Series([dt.datetime(2000, 1, 1, tzinfo=_UTC)]).dt.truncate(every)
        except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
            problem = str(exc).splitlines()[0]
        else:
            months, nanoseconds = step(every)
            if not months and nanoseconds % 1_000:
                problem = "not a whole number of microseconds, the resolution of the facts' times"
    if problem:
        raise InvalidRequest(
            f"every {every!r} is not a usable period ({problem}); use a polars duration such as "
            "'1d', '1w', '1mo', '3mo' or '1y'",
            field="every",
            value=str(every),
        )


def _at(microseconds: int) -> pl.Expr:
    """A UTC instant given in microseconds since 1970 (polars holds instants before year 1, Python does not)."""
    return pl.lit(microseconds, pl.Int64).cast(_MOMENT)


def _period_start(moment: dt.datetime | int, every: str) -> int:
    """The start of the period holding ``moment`` (a datetime, or microseconds since 1970), in microseconds."""
    series = pl.Series([moment], dtype=pl.Int64 if isinstance(moment, int) else _MOMENT).cast(_MOMENT)
    return int(series.dt.truncate(every).to_physical()[0])


def _period_count(first: int, last: int, every: str) -> int:
    """How many periods of ``every`` from the one starting at ``first`` to the one starting at ``last``.

    Computed from the two bounds, so a window of millions of periods costs nothing to measure.
    """
    months, nanoseconds = step(every)
    if months:

        def month(at: int) -> pl.Expr:
            return _at(at).dt.year().cast(pl.Int64) * 12 + _at(at).dt.month().cast(pl.Int64)

        lo, hi = pl.select(month(first).alias("lo"), month(last).alias("hi")).row(0)
        return int((hi - lo) // months + 1)
    return (last - first) // (nanoseconds // 1_000) + 1


def _too_many_periods(
    every: str, first: int, last: int, count: int, *, table: str = "a churn table", window: str = "since/until"
) -> InvalidRequest:
    """The error for a window of more than :data:`MAX_PERIODS` periods, naming a longer period that fits."""
    fits = [
        c
        for c in _LONGER
        if _period_count(_period_start(first, c), _period_start(last, c), c) <= min(MAX_PERIODS, count - 1)
    ]
    end = (_at(last).dt.offset_by(every) - _ONE_US).clip(upper_bound=_LAST)  # the last period's last instant
    lo, hi = pl.select(_at(first).clip(lower_bound=_FIRST).alias("lo"), end.alias("hi")).row(0)
    such = f" (such as {fits[0]!r})" if fits else ""
    return InvalidRequest(
        f"every {every!r} makes {count:,} periods from {lo.date().isoformat()} to {hi.date().isoformat()}, more than "
        f"the {MAX_PERIODS:,} {table} holds; choose a longer every{such} or a shorter window with {window}",
        field="every",
        value=every,
        periods=count,
        max_periods=MAX_PERIODS,
        suggestions=fits[:1],
    )

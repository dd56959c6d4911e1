"""How a period ``every`` is keyed in SQL (:func:`period_plan`), and the period column made of a key: what the
engine's aggregates (``_aggregates``) and the rollups' reads (``_rollups``, contract §18) share.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

from ..._periods import DURATION, MONTHS, NANOSECONDS
from ..._time import DAY_US

if TYPE_CHECKING:
    import polars as pl

__all__ = ["MONTH_1970", "PeriodPlan", "frame", "period_column", "period_plan"]

_MONDAY = 4  # 1970-01-05, the Monday polars counts weeks from (days since 1970-01-01)
MONTH_1970 = 1970 * 12  # polars counts calendar periods from 1970-01 (a month number is year × 12 + month − 1)


@dataclasses.dataclass(frozen=True, slots=True)
class PeriodPlan:
    """How one ``every`` is keyed in SQL: ``fixed`` (microseconds from ``origin``, a step of ``step``) or
    ``months`` (``step`` months counted from 1970-01)."""

    unit: Literal["fixed", "months"]
    step: int
    origin: int = 0


def period_plan(every: str) -> PeriodPlan | None:
    """The SQL plan for a (checked) ``every`` of one unit, or None when it has none (the frame path then)."""
    match = DURATION.fullmatch(every) if isinstance(every, str) else None
    if match is None or int(match[1]) <= 0 or match[2] == "ns":
        return None
    number, unit = int(match[1]), match[2]
    if unit in MONTHS:
        return PeriodPlan("months", number * MONTHS[unit])
    if unit == "w":
        return PeriodPlan("fixed", number * 7 * DAY_US, _MONDAY * DAY_US)
    return PeriodPlan("fixed", number * NANOSECONDS[unit] // 1_000)


def period_column(plan: PeriodPlan) -> pl.Expr:
    """The period key ``p`` as the period's first instant (UTC datetimes, microseconds)."""
    import polars as pl

    if plan.unit == "fixed":
        return pl.col("p").cast(pl.Datetime("us")).dt.replace_time_zone("UTC").alias("period")
    return pl.datetime(pl.col("p") // 12, pl.col("p") % 12 + 1, 1, time_unit="us", time_zone="UTC").alias("period")


def frame(rows: list[tuple[object, ...]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``rows`` as a frame of ``schema``."""
    import polars as pl

    return pl.DataFrame(rows, schema=schema, orient="row")

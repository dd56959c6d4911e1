"""What every analysis shares: the facts frame in (polars or pandas, typed) and the answer out, time inputs,
windows and the keys facts are compared by.

The time conventions are the package's (:mod:`kgtoolkit.analysis`). No SQL here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union

import polars as pl

from .._errors import InvalidRequest
from .._names import normalize_predicate
from .._records import is_event
from .._time import TimeInput, parse_window
from .._validity import Clock, frame_keys, state_expr
from ..frames import FACTS_SCHEMA

if TYPE_CHECKING:
    import pandas as pd


Frame = Union[pl.DataFrame, "pd.DataFrame"]
Moment = TimeInput | None


_UTC = dt.UTC
_MOMENT = pl.Datetime("us", "UTC")
_SPAN = pl.Duration("us")
_ONE_US = dt.timedelta(microseconds=1)
_FIRST = dt.datetime.min.replace(tzinfo=_UTC)  # the first and last instants a Python datetime holds
_LAST = dt.datetime.max.replace(tzinfo=_UTC)
_REQUIRED = ("id", "subject", "predicate", "object", "start", "end")


# The columns of a facts frame (kgtoolkit.frames.FACTS_SCHEMA), kept here so this module does not need the store.
FACT_COLUMNS: dict[str, pl.DataType] = FACTS_SCHEMA  # the columns of frames.facts


def _frame(facts: Frame) -> tuple[pl.DataFrame, bool]:
    """The input as a polars frame with every facts column typed (missing optional columns filled)."""
    was_pandas = False
    if not isinstance(facts, pl.DataFrame):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a dependency
            pd = None
        if pd is None or not isinstance(facts, pd.DataFrame):
            raise InvalidRequest(
                f"facts must be a polars or pandas DataFrame (kgtoolkit.frames.facts), not {type(facts).__name__}",
                field="facts",
            )
        facts, was_pandas = pl.from_pandas(facts), True
    missing = [c for c in _REQUIRED if c not in facts.columns]
    if missing:
        raise InvalidRequest(
            f"the facts frame has no {', '.join(missing)} column; build it with kgtoolkit.frames.facts(kg)",
            field=missing[0],
        )
    df = facts
    for column in ("start", "end", "recorded_at", "invalidated_at"):
        if column not in df.columns:
            continue
        dtype = df.schema[column]
        if isinstance(dtype, pl.Datetime):
            expr = pl.col(column)
            expr = expr.dt.replace_time_zone("UTC") if dtype.time_zone is None else expr.dt.convert_time_zone("UTC")
            df = df.with_columns(expr.dt.cast_time_unit("us"))
        elif dtype != pl.Null:
            raise InvalidRequest(f"column {column!r} must hold datetimes (UTC), not {dtype}", field=column)
    if "kind" not in df.columns:  # the bounds' part of the event rule (contract §12); declarations need the graph
        moments = [pl.col(c) if c in df.columns else pl.lit(None) for c in ("recorded_at", "invalidated_at")]
        same = (
            is_event(pl.lit(False), pl.lit(False), pl.col("valid_from"), pl.col("valid_to"), *moments).fill_null(False)
            if "valid_from" in df.columns and "valid_to" in df.columns
            else pl.lit(False)
        )
        df = df.with_columns(pl.when(same).then(pl.lit("event")).otherwise(pl.lit("state")).alias("kind"))
    state = state_expr(*frame_keys(), pl.col("kind") == "event", Clock.real())  # contract §4, one rule
    defaults: dict[str, pl.Expr] = {
        "subject_name": pl.col("subject"),
        "object_name": pl.col("object"),
        "object_is_value": pl.lit(False),
        "current": state == "current",
        "state": state,
        "occurrence": pl.lit(1),  # a frame without the column: each fact the first occurrence (contract §12)
    }
    fill = [
        defaults.get(name, pl.lit(None)).cast(dtype).alias(name)
        for name, dtype in FACT_COLUMNS.items()
        if name not in df.columns
    ]
    if fill:
        df = df.with_columns(fill)
    return df.select([pl.col(n).cast(t) for n, t in FACT_COLUMNS.items()]), was_pandas


def _out(frame: pl.DataFrame, was_pandas: bool) -> Any:
    return frame.to_pandas() if was_pandas else frame


def _typed(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return frame.select([pl.col(n).cast(t) for n, t in schema.items()])


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def _moment(value: Moment, *, field: str, end: bool = False) -> dt.datetime | None:
    """A UTC datetime from a time input: a day or month means its first instant (its last when ``end``)."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=_UTC)
    window = parse_window(value, field=field)
    key = window.hi if end else window.lo
    return dt.datetime(1970, 1, 1, tzinfo=_UTC) + dt.timedelta(microseconds=key)


def _since_until(since: Moment, until: Moment) -> tuple[dt.datetime | None, dt.datetime | None]:
    """A window's bounds (``until`` to the end of its period); ``until`` before ``since`` is refused."""
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    if lo is not None and hi is not None and hi < lo:
        raise InvalidRequest(f"until {until} is before since {since}", field="until", value=str(until))
    return lo, hi


def _now(now: Moment) -> dt.datetime:
    return _moment(now, field="now") or dt.datetime.now(_UTC)


def _object_key() -> pl.Expr:
    """What makes two objects the same: the entity id, or the value text case-folded (contract §2)."""
    folded = pl.col("object").map_batches(
        lambda s: pl.Series(s.name, [None if v is None else v.casefold() for v in s.to_list()], dtype=pl.String),
        return_dtype=pl.String,
    )
    return pl.when(pl.col("object_is_value")).then(folded).otherwise(pl.col("object")).alias("_key")


def _predicates(names: Iterable[str], field: str = "multi_valued") -> list[str]:
    if isinstance(names, str):
        raise InvalidRequest(f"{field} must be a collection of predicates, not one string", field=field)
    return sorted({normalize_predicate(n) for n in names})


def _occurred_at() -> pl.Expr:
    """When an event happened (contract §12): its start, or its end when the start is unknown."""
    return pl.coalesce("start", "end")


def _window(column: str, lo: dt.datetime | None, hi: dt.datetime | None) -> pl.Expr:
    inside = pl.col(column).is_not_null()
    if lo is not None:
        inside = inside & (pl.col(column) >= pl.lit(lo).cast(_MOMENT))
    if hi is not None:
        inside = inside & (pl.col(column) <= pl.lit(hi).cast(_MOMENT))
    return inside

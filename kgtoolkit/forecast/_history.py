"""The event history a forecast reads: the graph's events as integer arrays, and day numbers."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import numpy.typing as npt
import polars as pl

from .._time import DAY_US, TimeInput, parse_bound
from ..graph import KnowledgeGraph
from ..store import event_days

_EPOCH = dt.date(1970, 1, 1)

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True, slots=True)
class _Events:
    """The event history as integer arrays, one row per (subject, predicate, object, day): entity and predicate
    codes into ``entity_ids`` / ``predicates``, the day number and the events that day."""

    s: Int32Array
    r: Int32Array
    o: Int32Array
    day: Int32Array
    n: Int32Array
    entity_ids: tuple[str, ...]
    predicates: tuple[str, ...]

    @property
    def origin(self) -> int:
        return int(self.day.min()) if self.day.size else 0

    def select(self, mask: npt.NDArray[np.bool_]) -> tuple[Int32Array, Int32Array, Int32Array, Int32Array, Int32Array]:
        return self.s[mask], self.r[mask], self.o[mask], self.day[mask], self.n[mask]


def _read(kg: KnowledgeGraph, until_day: int | None) -> _Events:
    """The graph's events before ``until_day`` (None: all), encoded."""
    hi = None if until_day is None else until_day * DAY_US - 1
    frame = event_days(kg, hi)
    # Codes without a string per row: the categories' own codes, made dense and ordered by id.
    entity_codes, entity_ids = _dense(pl.concat([frame["subject"], frame["object"]]))
    predicate_codes, predicates = _dense(frame["predicate"])
    n = frame.height
    s, o = entity_codes[:n], entity_codes[n:]
    day = frame["day"].to_numpy().astype(np.int32)
    order = np.lexsort((o, s, predicate_codes, day))
    return _Events(  # 32-bit: a 10M-event history is 200 MB, not 400
        s=s[order],
        r=predicate_codes[order],
        o=o[order],
        day=day[order],
        n=frame["events"].to_numpy().astype(np.int32)[order],
        entity_ids=entity_ids,
        predicates=predicates,
    )


def _dense(values: pl.Series) -> tuple[Int32Array, tuple[str, ...]]:
    """A categorical column as codes 0… in the order of its distinct strings, and those strings."""
    physical = values.to_physical().to_numpy()
    unique, first, inverse = np.unique(physical, return_index=True, return_inverse=True)
    names = values.gather(first).cast(pl.String).to_list()
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    rank = np.empty(unique.size, dtype=np.int32)
    rank[order] = np.arange(unique.size, dtype=np.int32)
    return rank[inverse.reshape(-1)], tuple(names[i] for i in order)


def _day(value: TimeInput, field: str) -> int:
    """The day number (from 1970-01-01) of the first day ``value`` names."""
    return parse_bound(value, field=field).key // DAY_US


def _iso(day: int) -> str:
    return (_EPOCH + dt.timedelta(days=day)).isoformat()

"""The validity rules (contract §4), written once and run on four kinds of operand.

Each rule is a small function over interval keys (microseconds since 1970-01-01 UTC; open ends are
:data:`~._time.OPEN_START` / :data:`~._time.OPEN_END`, see :mod:`._time`). Called on Python ints it answers for
one fact; called on :class:`Sql` operands it renders the SQL condition the store runs on both engines; called on
polars expressions it builds the column :mod:`.frames` and :mod:`.analysis` compute; called on Spark columns
(:func:`spark_keys`, :func:`spark_state`) the column :mod:`kgtoolkit.spark` computes. The store, the frames, the
analysis and the dashboard all ask here, so the answers cannot drift apart (``tests/contract/test_validity.py`` runs the
three against an independent model).

**Current means valid now.** A state fact is *current* when it has started (its start is at or before now) and
has not yet ended: no ``valid_to``, or an end after now. A date-only end ``D`` keys to the last microsecond of
``D`` (both ends of a date count for ``as_of``), but for *now* the day an interval ends belongs to the interval
that starts on it: a fact ending on ``D`` is ended on ``D``, so a supersede chain or back-to-back terms
(``… → 2025-01-03`` then ``2025-01-03 → …``) never have two current facts at once. A datetime end ``T`` ends the
fact at ``T`` (half-open). *Scheduled* starts after now; *ended* has started and is not current.

>>> clock = Clock.at(parse_bound("2026-06-15T12:00:00Z", field="now").key)
>>> def state_of(start: str, end: str | None) -> str:
...     return state(key(start), key(end, end=True), clock.now, clock.day_last)
>>> state_of("2025-01-03", "2031-01-03"), state_of("2026-06-15", None), state_of("2025-01-03", "2026-06-15")
('current', 'current', 'ended')
>>> state_of("2026-06-16", "2030"), state_of("2026-01-01", "2026-06-15T13:00:00Z")
('scheduled', 'current')
>>> print(current(Sql("f.from_us"), Sql("f.to_us"), NOW, NOW_DAY_LAST).text)
((f.from_us <= :now AND f.to_us > :now) AND f.to_us <> :now_day_last)
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, NamedTuple, TypeVar, overload

from ._time import DAY_US, OPEN_END, OPEN_START, now_key, parse_bound

if TYPE_CHECKING:
    import polars as pl
    from pyspark.sql import Column

__all__ = [
    "NOW",
    "NOW_DAY_LAST",
    "Clock",
    "Sql",
    "back_to_back",
    "bounds_event_sql",
    "current",
    "end_first_instant",
    "ended",
    "ended_later_sql",
    "frame_keys",
    "key",
    "occurred",
    "scheduled",
    "spark_keys",
    "spark_state",
    "state",
    "state_changes",
    "state_expr",
    "valid_at",
    "walked",
]

T = TypeVar("T")


class Clock(NamedTuple):
    """The now a state is judged at: ``now`` and the last microsecond of its UTC day (``day_last``)."""

    now: int
    day_last: int

    @classmethod
    def at(cls, now: int) -> Clock:
        """The clock at the key ``now``."""
        return cls(now, now - now % DAY_US + DAY_US - 1)

    @classmethod
    def real(cls) -> Clock:
        """The clock at the real now (UTC)."""
        return cls.at(now_key())

    def params(self) -> dict[str, int]:
        """The SQL parameters :data:`NOW` and :data:`NOW_DAY_LAST` name."""
        return {"now": self.now, "now_day_last": self.day_last}


@dataclasses.dataclass(frozen=True, eq=False, slots=True)
class Sql:
    """An SQL operand: a column, an expression or a parameter (``:name``); operators build conditions."""

    text: str

    def _op(self, op: str, other: object) -> Sql:
        return Sql(f"{self.text} {op} {other.text if isinstance(other, Sql) else int(other)}")  # type: ignore[call-overload]

    def __add__(self, other: int) -> Sql:
        return Sql(f"({self.text} + {int(other)})")

    def __sub__(self, other: int) -> Sql:
        return Sql(f"({self.text} - {int(other)})")

    def __le__(self, other: object) -> Sql:
        return self._op("<=", other)

    def __lt__(self, other: object) -> Sql:
        return self._op("<", other)

    def __ge__(self, other: object) -> Sql:
        return self._op(">=", other)

    def __gt__(self, other: object) -> Sql:
        return self._op(">", other)

    def __eq__(self, other: object) -> Sql:  # type: ignore[override]
        return self._op("=", other)

    def __ne__(self, other: object) -> Sql:  # type: ignore[override]
        return self._op("<>", other)

    def __and__(self, other: Sql) -> Sql:
        return Sql(f"({self.text} AND {other.text})")

    def __or__(self, other: Sql) -> Sql:
        return Sql(f"({self.text} OR {other.text})")


#: The parameters a rendered rule binds (:meth:`Clock.params`).
NOW, NOW_DAY_LAST = Sql(":now"), Sql(":now_day_last")


def current(start: T, end: T, now: T, day_last: T) -> T:
    """Has started and has not ended: ``start <= now < end``, and ``end`` is not today's date end (the day an
    interval ends belongs to the next one)."""
    return (start <= now) & (end > now) & (end != day_last)  # type: ignore[operator]


def scheduled(start: T, now: T) -> T:
    """Starts after now (a state fact or an event)."""
    return start > now  # type: ignore[operator]


def ended(start: T, end: T, now: T, day_last: T) -> T:
    """Has started and is no longer current (its end is at or before now, or is today's date end)."""
    return (start <= now) & ((end <= now) | (end == day_last))  # type: ignore[operator]


def occurred(start: T, now: T, event: T) -> T:
    """An event (``event``: a boolean operand, contract §12) that has occurred: it has started, whatever its end."""
    return (start <= now) & event  # type: ignore[operator]


def walked(start: T, end: T, now: T, day_last: T, event: T) -> T:
    """A hop of a walk without a date (contract §11): a current fact, or an event that has occurred, at any date
    (an event is never current: a walk over current facts alone would find no hop in an event graph)."""
    return current(start, end, now, day_last) | occurred(start, now, event)  # type: ignore[operator]


def valid_at(start: T, end: T, lo: T, hi: T) -> T:
    """Valid at some instant of ``[lo, hi]`` (an ``as_of`` or a period): both ends of the interval count."""
    return (start <= hi) & (end >= lo)  # type: ignore[operator]


def back_to_back(old_start: T, old_end: T, new_start: T) -> T:
    """The new interval continues the old one (of the same triple, contract §11: a **renewal**): it starts on the
    old one's last day or the day after, and not before the old one started. A date end keys to its day's last
    microsecond, so: after ``old_end`` minus a day and at the latest ``old_end`` plus a day (an instant end: within a
    day of it, either side). An open end or an unknown start (keys ±2**62) is never back to back.

    >>> back_to_back(key("2020-01-01"), key("2020-01-02", end=True), key("2020-01-03"))
    True
    >>> back_to_back(key("2020-01-01"), key("2020-01-02", end=True), key("2020-01-04"))
    False
    >>> print(back_to_back(Sql("o.from_us"), Sql("o.to_us"), Sql("n.from_us")).text)
    ((n.from_us > (o.to_us - 86400000000) AND n.from_us <= (o.to_us + 86400000000)) AND n.from_us >= o.from_us)
    """
    return (new_start > old_end - DAY_US) & (new_start <= old_end + DAY_US) & (new_start >= old_start)  # type: ignore[operator]


@overload
def end_first_instant(end: int, valid_to: str | None) -> int: ...
@overload
def end_first_instant(end: Sql, valid_to: Sql) -> Sql: ...
def end_first_instant(end: object, valid_to: object) -> object:
    """The first instant of an end, from its key ``end`` and its stored text ``valid_to``: a date-only end
    (stored ``YYYY-MM-DD``, keyed to its day's last microsecond) begins at the start of its day, an instant end
    (``…T…Z``) at itself; an open end stays open. "Ends after S" by this instant is "ends on a later day than S's
    start" for a date end (the day a fact ends on belongs to the fact starting on it, as for *current*).

    On Python operands it is :func:`key` of the text read as a start; on :class:`Sql` operands (columns) it renders
    the expression the store runs.

    >>> day, instant = "2026-03-02", "2026-03-02T10:00:00Z"
    >>> [end_first_instant(key(t, end=True), t) == key(t) for t in (day, instant)]
    [True, True]
    >>> end_first_instant(OPEN_END, None) == OPEN_END
    True
    >>> print(end_first_instant(Sql("o.to_us"), Sql("o.valid_to")).text)
    CASE WHEN length(o.valid_to) = 10 THEN o.to_us - 86399999999 ELSE o.to_us END
    """
    if isinstance(end, Sql) and isinstance(valid_to, Sql):
        return Sql(f"CASE WHEN length({valid_to.text}) = 10 THEN {end.text} - {DAY_US - 1} ELSE {end.text} END")
    assert isinstance(end, int) and (valid_to is None or isinstance(valid_to, str))
    return end - (DAY_US - 1) if valid_to is not None and len(valid_to) == 10 else end


def state_changes(start: Sql, end: Sql, now: Sql) -> tuple[Sql, Sql]:
    """The next instants after ``now`` at which a fact's state (:func:`current`, :func:`scheduled`, :func:`ended`)
    may change, as SQL (each NULL when none is left): its start, and on its end's side the start of the end's day
    (a date end is today's date end from then) or else the end itself. Between ``now`` and the earlier of the two,
    every rule above gives the fact the same answer.

    >>> print(state_changes(Sql("f.from_us"), Sql("f.to_us"), NOW)[0].text)
    CASE WHEN f.from_us > :now THEN f.from_us END
    """
    day = f"({end.text} - {end.text} % {DAY_US})"
    return (
        Sql(f"CASE WHEN {start.text} > {now.text} THEN {start.text} END"),
        Sql(f"CASE WHEN {day} > {now.text} THEN {day} WHEN {end.text} > {now.text} THEN {end.text} END"),
    )


def state(start: int, end: int, now: int, day_last: int, *, event: bool = False) -> str:
    """The state of one fact with these keys: ``scheduled``, then ``occurred`` for an event, else ``current`` or
    ``ended`` (:data:`~._records.FactState`)."""
    if scheduled(start, now):
        return "scheduled"
    if event:
        return "occurred"
    return "current" if current(start, end, now, day_last) else "ended"


def state_expr(start: pl.Expr, end: pl.Expr, event: pl.Expr, clock: Clock) -> pl.Expr:
    """:func:`state` as a polars expression over key columns (``event``: a boolean expression)."""
    import polars as pl

    now, last = pl.lit(clock.now), pl.lit(clock.day_last)
    return (
        pl.when(scheduled(start, now))
        .then(pl.lit("scheduled"))
        .when(event)
        .then(pl.lit("occurred"))
        .when(current(start, end, now, last))
        .then(pl.lit("current"))
        .otherwise(pl.lit("ended"))
    )


def frame_keys(start: str = "start", end: str = "end") -> tuple[pl.Expr, pl.Expr]:
    """The interval keys of a frame's ``start``/``end`` datetime columns (:func:`kgtoolkit.frames.facts`; null is
    open), for the rules above."""
    import polars as pl

    return (pl.col(start).dt.epoch("us").fill_null(OPEN_START), pl.col(end).dt.epoch("us").fill_null(OPEN_END))


def spark_state(start: Column, end: Column, event: Column, clock: Clock) -> Column:
    """:func:`state` as a Spark column over key columns (``event``: a boolean column), as :func:`state_expr`."""
    from pyspark.sql import functions as F

    now, last = F.lit(clock.now), F.lit(clock.day_last)
    return (
        F.when(scheduled(start, now), F.lit("scheduled"))
        .when(event, F.lit("occurred"))
        .when(current(start, end, now, last), F.lit("current"))
        .otherwise(F.lit("ended"))
    )


def spark_keys(start: str = "start", end: str = "end") -> tuple[Column, Column]:
    """The interval keys of a Spark frame's ``start``/``end`` timestamp columns (null is open), as :func:`frame_keys`."""
    from pyspark.sql import functions as F

    return (
        F.coalesce(F.unix_micros(F.col(start)), F.lit(OPEN_START)),
        F.coalesce(F.unix_micros(F.col(end)), F.lit(OPEN_END)),
    )


@functools.lru_cache(maxsize=65_536)
def key(text: str | None, *, end: bool = False) -> int:
    """The key of a stored bound's text (None: open), as the store keys it (cached: a read repeats its bounds)."""
    if text is None:
        return OPEN_END if end else OPEN_START
    return parse_bound(text, field="valid_to" if end else "valid_from", end=end).key


def ended_later_sql(alias: str = "f") -> str:
    """The SQL condition that the facts row ``alias`` had its end recorded after the fact itself (by
    ``invalidate`` or ``supersede``), not written with it (:func:`~kgtoolkit._records.is_event`)."""
    return f"({alias}.invalidated_at IS NOT NULL AND {alias}.invalidated_at <> {alias}.recorded_at)"


def bounds_event_sql(alias: str = "f") -> str:
    """The SQL condition that the facts row ``alias`` is an event *by its bounds* (:func:`~kgtoolkit._records.is_event`
    with no declaration): what ``kgtoolkit.store.ops._rules.EventRule`` adds the declarations to, and what the
    rollups (contract §18) count apart."""
    # Equal stored bounds are one day or one instant (a partial date is stored as its first and last day), so
    # their keys lie less than a day apart. That integer test comes first: it is never null (an open bound's
    # key is ±2**62) and it spares the text comparisons on almost every row of a scan (at 10M facts, SQLite's
    # stats: 6.6 s → 4.3 s). Then the texts, then that the end was written with the fact (not recorded later).
    return (
        f"({alias}.to_us < {alias}.from_us + {DAY_US} AND {alias}.valid_from = {alias}.valid_to "
        f"AND NOT {ended_later_sql(alias)})"
    )

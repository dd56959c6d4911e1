"""Time rules (contract §4): accepted inputs, partial dates, and sortable interval keys.

Every bound is kept twice: as text (``2026-03-02`` or ``2026-03-02T08:00:00Z``, what users see) and
as an integer key in microseconds since 1970-01-01 UTC, which the store compares. A date-only bound
is a whole day and both ends count, so ``valid_to = 2026-10-12`` keys to the last microsecond of that
day. Open ends key to :data:`OPEN_START` / :data:`OPEN_END`.

>>> parse_bound("2026-10", field="valid_to", end=True).text
'2026-10-31'
>>> parse_bound("2026-03-02T10:00:00+02:00", field="valid_from").text
'2026-03-02T08:00:00Z'
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import NamedTuple

from ._errors import InvalidDate

__all__ = [
    "DAY_US",
    "OPEN_END",
    "OPEN_START",
    "Bound",
    "TimeInput",
    "Window",
    "instant_key",
    "key_to_text",
    "now_key",
    "now_text",
    "now_text_after",
    "parse_bound",
    "parse_transaction_time",
    "parse_window",
    "today",
]

TimeInput = str | dt.date | dt.datetime

OPEN_START = -(2**62)
OPEN_END = 2**62
DAY_US = 86_400_000_000  # a day in the keys' unit (microseconds)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_ONE_US = dt.timedelta(microseconds=1)

# re.ASCII: \d must not match other scripts' digits (٢٠٢٦ is not a YYYY).
_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|z|[+-]\d{2}:?\d{2})", re.ASCII
)
_DATETIME_NO_ZONE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?", re.ASCII)
_ACCEPTED = "YYYY, YYYY-MM, YYYY-MM-DD, or an ISO datetime with Z or an offset (2026-03-02T10:00:00Z)"


class Bound(NamedTuple):
    """One end of an interval: the text shown to users and the key the store compares."""

    text: str
    key: int


class Window(NamedTuple):
    """The instants a time filter covers: ``[lo, hi]`` in keys (a day covers the whole day)."""

    text: str
    lo: int
    hi: int


def _us(moment: dt.datetime) -> int:
    return (moment - _EPOCH) // _ONE_US


def _day_key(year: int, month: int, day: int) -> int:
    return _us(dt.datetime(year, month, day, tzinfo=dt.UTC))


def _fail(field: str, value: object, why: str = "") -> InvalidDate:
    reason = f" ({why})" if why else ""
    return InvalidDate(f"{field} {value!r} is not a date{reason}; use {_ACCEPTED}", field=field, value=str(value))


def _parse(value: TimeInput, field: str) -> tuple[str, int, int]:
    """Text, first and last microsecond key covered by ``value``."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise _fail(field, value.isoformat(), "a datetime needs a time zone")
        moment = value.astimezone(dt.UTC)
        return _datetime_text(moment), _us(moment), _us(moment)
    if isinstance(value, dt.date):
        key = _day_key(value.year, value.month, value.day)
        return value.isoformat(), key, key + DAY_US - 1
    if not isinstance(value, str):
        raise _fail(field, value, f"expected text, got {type(value).__name__}")
    text = value.strip()
    match = _DATE.fullmatch(text)
    if match:
        year_text, month_text, day_text = match.groups()
        year = int(year_text)
        month = int(month_text) if month_text else None
        day = int(day_text) if day_text else None
        if year == 0:
            raise _fail(field, value, "years run from 0001 to 9999")
        try:
            if month is not None and day is not None:
                first = last = dt.date(year, month, day)
            elif month is not None:
                first = dt.date(year, month, 1)
                last = dt.date(year, month, calendar.monthrange(year, month)[1])
            else:
                first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
        except ValueError as exc:
            raise _fail(field, value, str(exc)) from exc
        return (
            text,
            _day_key(first.year, first.month, first.day),
            _day_key(last.year, last.month, last.day) + DAY_US - 1,
        )
    if _DATETIME.fullmatch(text):
        try:
            parsed = dt.datetime.fromisoformat(text.replace("z", "Z"))
            if parsed.year == 0:
                raise ValueError("year 0")
            moment = parsed.astimezone(dt.UTC)
        except (ValueError, OverflowError) as exc:
            raise _fail(field, value, str(exc)) from exc
        return _datetime_text(moment), _us(moment), _us(moment)
    if _DATETIME_NO_ZONE.fullmatch(text):
        raise _fail(field, value, "a datetime needs Z or an offset such as +02:00")
    if text.startswith("-"):
        raise _fail(field, value, "years before 0001 (BC) are not supported")
    raise _fail(field, value)


def _datetime_text(moment: dt.datetime) -> str:
    spec = "microseconds" if moment.microsecond else "seconds"
    return moment.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def parse_bound(value: TimeInput, *, field: str, end: bool = False) -> Bound:
    """Parse a ``valid_from`` (``end=False``) or ``valid_to``/``ended`` bound.

    A partial date is the start of its period as a start and the end of its period as an end; the
    stored text is the full date (``2026-10`` as an end is ``2026-10-31``).
    """
    text, lo, hi = _parse(value, field)
    if "T" not in text and len(text) < 10:
        text = key_to_text(hi if end else lo)[:10]
    return Bound(text, hi if end else lo)


def parse_window(value: TimeInput, *, field: str = "as_of") -> Window:
    """Parse an ``as_of`` / ``known_at`` value into the span of instants it names."""
    text, lo, hi = _parse(value, field)
    return Window(text, lo, hi)


def key_to_text(key: int) -> str:
    """The UTC datetime text (``…Z``, microseconds) of a key; fixed width, so text order is time order."""
    return (_EPOCH + dt.timedelta(microseconds=key)).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def instant_key(moment: dt.datetime) -> int:
    """The interval key of an aware datetime (microseconds since 1970-01-01 UTC)."""
    return _us(moment)


def now_key() -> int:
    """Now, as an interval key (microseconds since 1970-01-01 UTC): what a fact's start is compared to for its
    state (contract §4: a start of today, a date, keys to the day's first microsecond, so it has started)."""
    return _us(dt.datetime.now(dt.UTC))


def now_text() -> str:
    """Now, as transaction-time text (``2026-12-02T12:00:00.123456Z``)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def now_text_after(moment: str) -> str:
    """:func:`now_text`, or the microsecond after ``moment`` (a transaction-time text) when now is ``moment``:
    an end recorded after its fact then reads as recorded later, never as written with it (contract §12).

    >>> now_text_after("2026-12-02T12:00:00.999999Z") > "2026-12-02T12:00:00.999999Z"
    True
    """
    text = now_text()
    if text != moment:
        return text
    later = dt.datetime.fromisoformat(moment[:-1]) + dt.timedelta(microseconds=1)
    return later.isoformat(timespec="microseconds") + "Z"


def parse_transaction_time(value: str, *, field: str, now: str | None = None) -> str:
    """An instant the graph learned something (``recorded_at``, ``invalidated_at``), as the stored text.

    Any ISO 8601 instant with its zone (``Z`` or an offset), converted to UTC with microseconds; an
    instant without a zone, or one after ``now`` (default: the clock), is refused.

    >>> parse_transaction_time("2026-03-02T10:00:00+01:00", field="recorded_at")
    '2026-03-02T09:00:00.000000Z'
    """
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        why = "it names no time zone" if moment is not None else "not an ISO 8601 instant"
        raise InvalidDate(
            f"{field} {value!r} is not a transaction time ({why}); write an instant in UTC such as {now_text()}",
            field=field,
            value=value,
        )
    text = moment.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
    if text > (now or now_text()):
        raise InvalidDate(
            f"{field} {value!r} is in the future; a graph cannot have learned a fact later than now",
            field=field,
            value=value,
        )
    return text


def today() -> str:
    """Today's date in UTC, the default ``ended`` of an invalidation."""
    return dt.datetime.now(dt.UTC).date().isoformat()

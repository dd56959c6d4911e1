"""The plain-Python reading of a stored bound that the analysis models share: an instant in UTC, a date as
its whole day (contract §4). Written apart from kgtoolkit's own time keys, so the models check them."""

from __future__ import annotations

import datetime as dt

UTC = dt.UTC
US = dt.timedelta(microseconds=1)


def start_of(text: str | None) -> dt.datetime | None:
    """A stored valid_from as a UTC datetime (a day starts at midnight); None = unknown."""
    if text is None:
        return None
    if "T" in text:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), UTC)


def end_of(text: str | None) -> dt.datetime | None:
    """A stored valid_to as a UTC datetime (a day ends at its last microsecond); None = open."""
    if text is None:
        return None
    if "T" in text:
        return start_of(text)
    return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), UTC) + dt.timedelta(days=1) - US

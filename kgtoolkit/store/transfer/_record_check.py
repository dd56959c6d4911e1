"""The field checks of a dump's records: one :class:`_Checker` walks the records and collects every failure.

Each check reads one field of a record by the store's rules (text, names, bounds, moments, JSON) and
records a failure in :class:`~kgtoolkit.InvalidRows`'s shape instead of stopping at the first.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeGuard, cast

from ..._checks import MAX_FACT_ID
from ..._errors import InvalidRequest, InvalidRows, KGError
from ..._names import (
    check_data,
    check_text,
    clean_text,
    has_control,
    normalize_name,
    normalize_predicate,
)
from ..._time import Bound, now_text, parse_bound

_MAX_ID = MAX_FACT_ID  # room left above it for the ids later writes give (contract §9)
_TRANSACTION_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN = 200  # characters of a bad non-text value kept in a report


def _unicode(text: str) -> bool:
    """Whether ``text`` can be stored as UTF-8: JSON's ``\\ud800`` escapes can give lone surrogates, which cannot."""
    return text.isascii() or _SURROGATE.search(text) is None


def _blank(text: str) -> bool:
    """Empty or only whitespace, as imports strip it (Unicode White_Space; ``str.strip`` also drops the ASCII
    separators ``\\x1c``-``\\x1f``, which an import keeps, so a text of those is not blank)."""
    return not text.strip() and not any("\x1c" <= ch <= "\x1f" for ch in text)


def _kind(value: Any) -> str:
    """What a JSON value is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _shown(value: Any) -> str | None:
    """A bad value as report text: text as it is, anything else as (at most :data:`_SHOWN` characters of) JSON."""
    if value is None or isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (ValueError, RecursionError):  # a whole number of thousands of digits, deep nesting
            text = f"<{_kind(value)}>"
        text = text if len(text) <= _SHOWN else f"{text[:_SHOWN]}…"
    return None if text is None else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json_problem(value: Any) -> str | None:
    """Why ``value`` is not JSON the graph can store and export again (NaN, a lone surrogate, ...), or None."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        return f"it holds a value that is not JSON ({exc})"
    if not _unicode(text):
        return "it holds text that is not valid Unicode (a lone surrogate)"
    failed = _attempt(lambda v: check_data(value, field=v), "it")  # a control character, in a key or a text
    return failed.reason if isinstance(failed, _Failure) else None


def _is_id(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= _MAX_ID


class _Failure(NamedTuple):
    code: str
    reason: str


def _attempt(fn: Callable[[str], Any], value: str) -> Any:
    """``fn(value)``, or the code and message of the :class:`KGError` it raises."""
    try:
        return fn(value)
    except KGError as exc:
        return _Failure(exc.code, exc.message)


class _Checker:
    """Checks a dump's records by the graph's rules and collects every problem, in :class:`InvalidRows`'s shape.

    :meth:`at` names the record checked next; each check reports on it and returns the value when it
    passes, else ``None``. Predicates and interval bounds are checked once per distinct value.
    """

    def __init__(self) -> None:
        self.problems: list[dict[str, Any]] = []
        self._record = ""
        self._line: int | None = None
        self._predicates: dict[str, Any] = {}
        self._bounds: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        self._moment: str | None = None  # the last transaction time that passed

    def at(self, record: str, row: Any, line: int | None = None) -> bool:
        """Check ``row`` next, as ``record`` (``facts[3]``), ``line`` a fact's id; False if it is not an object."""
        self._record, self._line = record, line
        if isinstance(row, Mapping):
            return True
        self.fail("", row, "invalid_request", f"a record must be an object, not {_kind(row)}")
        return False

    def fail(self, field: str, value: Any, code: str, reason: str) -> None:
        """Record one failure of the current record."""
        self.problems.append(
            {
                "line": self._line,
                "record": self._record,
                "field": field,
                "value": _shown(value),
                "code": code,
                "reason": reason,
            }
        )

    def refusal(self) -> InvalidRows:
        """The error that refuses the whole dump, its message spelling out the first problems."""
        records = len({p["record"] for p in self.problems})
        return InvalidRows.refusing(
            self.problems,
            _describe,
            rows=f"{records:,} record(s) of the dump",
            refused="nothing restored",
            fix="Fix them in the dump and import it again",
        )

    # The checks of one field: ``row[key]``, reported on failure.

    def text(self, row: Mapping[str, Any], key: str, *, optional: bool = False, controls: bool = True) -> str | None:
        """Text (``optional``: or null, which a missing key is too), without a control character (contract §2;
        ``controls=False``: the caller's own rule checks them)."""
        value = row.get(key)
        if type(value) is str and value.isascii() and (not controls or not has_control(value)):  # the common case
            return value
        if value is None and optional:
            return None
        if not isinstance(value, str):
            wanted = "text or null" if optional else "text"
            self.fail(
                key,
                value,
                "invalid_request",
                f"{key} is missing" if key not in row else f"{key} must be {wanted}, not {_kind(value)}",
            )
            return None
        if not _unicode(value):
            self.fail(key, value, "invalid_request", f"{key} is not valid Unicode text (it holds a lone surrogate)")
            return None
        if controls and has_control(value):
            self.fail(key, value, *_attempt(lambda v: check_text(v, field=key, error=InvalidRequest), value))
            return None
        return value

    def label(self, row: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
        """Text that is not blank: a source, ``ended_by``, a memory's id or text."""
        value = self.text(row, key, optional=optional)
        if value is not None and _blank(value):
            self.fail(key, value, "invalid_name", f"{key} is empty; give some text" + (" or null" if optional else ""))
            return None
        return value

    def clean(self, row: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
        """Text as :func:`clean_text` leaves it (trimmed, inner whitespace collapsed): names, value objects."""
        value = self.text(row, key, optional=optional, controls=False)  # clean_text refuses them (invalid_name)
        if value is None:
            return None
        cleaned = _attempt(lambda v: clean_text(v, field=key), value)
        if isinstance(cleaned, _Failure):
            self.fail(key, value, *cleaned)
        elif cleaned != value:
            self.fail(
                key,
                value,
                "invalid_name",
                f"{key} {value!r} is not clean text: the graph keeps {cleaned!r} (trimmed, inner whitespace collapsed)",
            )
        else:
            return value
        return None

    def key_of(self, row: Mapping[str, Any], key: str, name: str | None) -> str | None:
        """An entity id or alias: the normalised ``name`` (:func:`normalize_name`); normalised itself at least,
        when the name is bad."""
        value = self.text(row, key)
        if value is None:
            return None
        if name is not None:
            expected = _attempt(lambda v: normalize_name(v, field="name"), name)
            if not isinstance(expected, _Failure):
                if expected == value:
                    return value
                self.fail(
                    key,
                    value,
                    "invalid_name",
                    f"{key} {value!r} is not its name {name!r} normalised, which is {expected!r}",
                )
                return None
            self.fail("name", name, *expected)
        own = _attempt(lambda v: normalize_name(v, field=key), value)
        if isinstance(own, _Failure):
            self.fail(key, value, *own)
        elif own != value:
            self.fail(key, value, "invalid_name", f"{key} {value!r} is not normalised; normalised it is {own!r}")
        else:
            return value
        return None

    def predicate(self, row: Mapping[str, Any], key: str = "predicate") -> str | None:
        """A predicate (``row[key]``) as :func:`normalize_predicate` leaves it."""
        value = self.text(row, key)
        if value is None:
            return None
        known = self._predicates.get(value)
        if known is None:
            known = self._predicates[value] = _attempt(normalize_predicate, value)
        if isinstance(known, _Failure):
            self.fail(key, value, *known)
        elif known != value:
            self.fail(key, value, "invalid_name", f"{key} {value!r} is not normalised; the graph keeps {known!r}")
        else:
            return value
        return None

    def bound(self, row: Mapping[str, Any], key: str, *, end: bool) -> Bound | None:
        """Null, or an interval bound as the store keeps it (a full date, or a UTC datetime ending in Z)."""
        value = self.text(row, key, optional=True)
        if value is None:
            return None
        seen = self._bounds[end]
        bound = seen.get(value)
        if bound is None:
            bound = seen[value] = _attempt(lambda v: parse_bound(v, field=key, end=end), value)
        if isinstance(bound, _Failure):
            self.fail(key, value, *bound)
        elif bound.text != value:
            self.fail(
                key,
                value,
                "invalid_date",
                f"{key} {value!r} is not a stored bound; the graph keeps it as "
                f"{bound.text!r} (a full date YYYY-MM-DD, or a UTC datetime ending in Z)",
            )
        else:
            return cast(Bound, bound)
        return None

    def moment(self, row: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
        """A transaction time: UTC, ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (:func:`now_text`)."""
        value = self.text(row, key, optional=optional)
        if value is None or value == self._moment:
            return value
        if _TRANSACTION_TIME.fullmatch(value):
            try:
                dt.datetime.fromisoformat(value[:-1])
                self._moment = value  # rows in a row often share one (a bulk import records all its facts at once)
                return value
            except ValueError:
                pass
        self.fail(
            key,
            value,
            "invalid_date",
            f"{key} {value!r} is not a transaction time: the store writes UTC "
            f"times as YYYY-MM-DDTHH:MM:SS.ffffffZ, e.g. {now_text()}",
        )
        return None

    def confidence(self, row: Mapping[str, Any]) -> float | None:
        """The record's confidence, a number from 0 to 1 (else a failure)."""
        value = row.get("confidence")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            self.fail(
                "confidence",
                value,
                "invalid_request",
                "confidence is missing" if "confidence" not in row else "confidence must be a number from 0 to 1",
            )
            return None
        return float(value)

    def occurrence(self, row: Mapping[str, Any]) -> int:
        """A fact's occurrence (contract §12): a whole number from 1; a dump from before it has none (1)."""
        value = row.get("occurrence", 1)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _MAX_ID:
            self.fail("occurrence", value, "invalid_request", "occurrence must be a whole number from 1")
            return 1
        if value > 1 and row.get("valid_to") is None:
            self.fail(
                "occurrence",
                value,
                "invalid_request",
                f"occurrence {value} of a fact without valid_to; only a fact with an end (an event's repeat) "
                "occurs more than once",
            )
        return value

    def json_object(self, row: Mapping[str, Any], key: str) -> str | None:
        """A JSON object, as the text the store keeps."""
        value = row.get(key)
        if not isinstance(value, Mapping):
            self.fail(
                key,
                value,
                "invalid_request",
                f"{key} is missing" if key not in row else f"{key} must be a JSON object, not {_kind(value)}",
            )
            return None
        problem = _json_problem(dict(value)) if value else None
        if problem:
            self.fail(key, value, "invalid_request", f"{key} must hold JSON values only: {problem}")
            return None
        return json.dumps(dict(value))


def _describe(problem: Mapping[str, Any]) -> str:
    """One problem for a message: ``facts[2].predicate (fact id 3) 'Works At': predicate 'Works At' is not ...``."""
    where = f"{problem['record']}.{problem['field']}" if problem["field"] else problem["record"]
    if problem["line"] is not None:
        where += f" (fact id {problem['line']})"
    if problem["value"] is not None:
        where += f" {problem['value']!r}"
    return f"{where}: {problem['reason']}"

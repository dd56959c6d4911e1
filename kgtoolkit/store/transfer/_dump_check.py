"""The dump's validator: every record of a dump checked by the rules the store keeps, every failure collected
(:class:`_Checker`, in :class:`~kgtoolkit.InvalidRows`'s shape), and the checked records turned into table rows
(:func:`_check`) for :func:`~kgtoolkit.store.transfer._dump.restore`. The merge path (``_dump.dump_parts``, its memories)
uses the same field checks.

What :func:`restore` requires of a dump: what the store keeps true of every graph, so a dump
kgtoolkit wrote always passes.

- ``config``: ``types``, ``value_predicates`` and ``multi_valued`` lists of normalised names,
  ``comma_guard`` true or false, any other key a JSON value. It replaces the graph's settings.
- entities: ``id`` unique, and its ``name`` normalised (:func:`normalize_name`); ``name`` clean
  text (:func:`clean_text`: trimmed, inner whitespace collapsed); ``type`` in the dump's
  ``config.types`` (the default vocabulary if it has none); ``properties`` a JSON object;
  ``created_at`` a transaction time.
- facts: ``id`` a unique whole number from 1 to 2**53 (:data:`~kgtoolkit._checks.MAX_FACT_ID`); ``subject`` an entity of the dump;
  ``predicate`` normalised; exactly one of ``object_id`` (an entity of the dump) and
  ``object_value`` (clean text); ``valid_from``/``valid_to`` null or a bound as the store keeps it
  (a full date ``YYYY-MM-DD`` or a UTC datetime ending in ``Z``, as :func:`parse_bound` writes
  it), ``valid_to`` not before ``valid_from``; ``confidence`` a number from 0 to 1; ``source``
  text, ``source_closet`` null or text; ``recorded_at`` a transaction time; ``invalidated_at`` (a
  transaction time) and ``ended_by`` (text) set exactly when ``valid_to`` is; at most one current
  fact (no ``valid_to``) per subject, predicate and object (a value object compared case-folded);
  ``occurrence`` (absent in a dump from before it: 1) a whole number from 1, above 1 only for a fact with a
  ``valid_to`` (an event's repeat, contract §12: an open fact is one occurrence).
- aliases: ``alias`` unique, not an entity's id, and its ``name`` (clean text) normalised;
  ``entity_id`` an entity of the dump.
- not_duplicates: ``kind`` ``entities`` or ``predicates``, ``a`` and ``b`` text with ``a`` < ``b``, the pair
  unique per kind; ``created_at`` a transaction time (an entity pair need not name the dump's entities).
- memories: ``id`` unique text; ``text`` text; ``source`` null or text; ``created_at`` a
  transaction time; ``metadata`` a JSON object.
- predicates: ``id`` a normalised predicate, unique; ``label`` clean text that normalises to ``id``
  (its first spelling). A predicate of the facts without one is labelled by its id.
- predicate_aliases: ``alias`` and ``predicate`` normalised; ``alias`` unique, no predicate of the
  dump's facts, and no alias's ``predicate`` (aliases do not chain).

Text is never empty or only whitespace, is valid Unicode (no lone surrogate, which a JSON
``\\ud800`` escape can give) and holds no control character (contract §2: memories, properties and
metadata, keys included); JSON values hold no NaN or Infinity. A transaction time is UTC
``YYYY-MM-DDTHH:MM:SS.ffffffZ``, as :func:`kgtoolkit._time.now_text` writes it. Not required:
that ``invalidated_at`` follows ``recorded_at`` (a clock set back can break that), that a
``source_closet`` names a memory, that history rows are distinct (the store keeps repeats).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeGuard, cast

from ..._checks import MAX_FACT_ID
from ..._errors import InvalidRequest, InvalidRows, KGError, StoreError
from ..._names import (
    DEFAULT_MULTI_VALUED,
    DEFAULT_TYPES,
    DEFAULT_VALUE_PREDICATES,
    check_data,
    check_text,
    clean_text,
    has_control,
    normalize_name,
    normalize_predicate,
)
from ..._time import OPEN_END, OPEN_START, Bound, now_text, parse_bound
from ..engine import SCHEMA_VERSION
from ..reads import _queries as q

_DEFAULTS: dict[str, Any] = {
    "types": sorted(DEFAULT_TYPES),
    "value_predicates": sorted(DEFAULT_VALUE_PREDICATES),
    "multi_valued": sorted(DEFAULT_MULTI_VALUED),
    "comma_guard": True,
}


_TRANSACTION_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_ID = MAX_FACT_ID  # room left above it for the ids later writes give (contract §9)
_SHOWN = 200  # characters of a bad non-text value kept in a report


def _bad(where: str, message: str) -> InvalidRequest:
    return InvalidRequest(f"not a valid kgtoolkit dump: {where}: {message}", field=where)


def _sections(data: Any) -> dict[str, list[Any]]:
    """The dump's sections (lists; their records are checked by the caller), after checking its header."""
    if not isinstance(data, Mapping) or not isinstance(data.get("kgtoolkit"), Mapping):
        raise InvalidRequest(
            'not a kgtoolkit dump (no "kgtoolkit" header); for one fact per line use JSON Lines (.jsonl)',
            field="format",
        )
    schema = data["kgtoolkit"].get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise _bad("kgtoolkit.schema", f"must be a whole number from 1, not {_shown(schema)}")
    if schema > SCHEMA_VERSION:
        raise StoreError(
            f"the dump has schema version {schema}, newer than this kgtoolkit understands "
            f"({SCHEMA_VERSION}); upgrade kgtoolkit",
            field="schema",
            value=str(schema),
        )
    out: dict[str, list[Any]] = {}
    for name in ("entities", "facts", "aliases", "memories", "predicates", "predicate_aliases", "not_duplicates"):
        rows = data.get(name, [])
        if not isinstance(rows, list):
            raise _bad(name, f"must be a list of objects, not {_kind(rows)}")
        out[name] = rows
    if not isinstance(data.get("config", {}), Mapping):
        raise _bad("config", f"must be an object, not {_kind(data.get('config'))}")
    return out


_TEXT, _OPT = (str,), (str, type(None))


def _field(row: Mapping[str, Any], key: str, kinds: tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(
            "null"
            if k is type(None)
            else {"str": "text", "int": "a whole number", "float": "a number", "dict": "an object"}.get(
                k.__name__, k.__name__
            )
            for k in kinds
        )
        raise _bad(f"{where}.{key}", f"must be {names}, not {_shown(value)}")
    if isinstance(value, str) and not _unicode(value):
        raise _bad(f"{where}.{key}", "is not valid Unicode text (it holds a lone surrogate)")
    return value


def _record(row: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(row, Mapping):
        raise _bad(where, f"must be an object, not {_kind(row)}")
    return row


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


def _check_config(c: _Checker, config: Mapping[str, Any]) -> tuple[list[tuple[str, str]], frozenset[str] | None]:
    """The settings rows ``config`` restores to, and the entity types it allows (None: unknown, its types are bad)."""
    settings: list[tuple[str, str]] = []
    vocabulary: frozenset[str] | None = DEFAULT_TYPES
    c.at("config", config)
    for key, value in config.items():
        if key in ("types", "value_predicates", "multi_valued", "single_valued", "event_predicates", "one_holder"):
            names = _names(c, key, value)
            if names is None:
                vocabulary = None if key == "types" else vocabulary  # the entities' types cannot be judged
                continue
            if key == "types":
                names.add("unknown")  # as configure() keeps it
                vocabulary = frozenset(names)
            value = sorted(names)
        elif key in ("comma_guard", "events"):
            if not isinstance(value, bool):
                c.fail(key, value, "invalid_request", f"{key} must be true or false, not {_kind(value)}")
                continue
        elif key in q.LENGTH_SETTINGS:
            highest = q.LENGTH_SETTINGS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= highest:
                c.fail(
                    key,
                    value,
                    "invalid_request",
                    f"{key} must be a whole number from 1 to {highest:,}, not {_kind(value)}",
                )
                continue
        else:  # a setting this version does not use: kept, if it is JSON
            problem = _json_problem({key: value}) if isinstance(key, str) else f"its name is {_kind(key)}, not text"
            if problem:
                c.fail(str(key), value, "invalid_request", f"the setting {key!r} must be JSON: {problem}")
                continue
        if value != _DEFAULTS.get(key):
            settings.append((key, json.dumps(value)))
    return settings, vocabulary


def _names(c: _Checker, key: str, value: Any) -> set[str] | None:
    """A config list of names (types, predicates), each already normalised; None (reported) if it is not."""
    if not isinstance(value, list):
        c.fail(key, value, "invalid_request", f"{key} must be a list of names, not {_kind(value)}")
        return None
    names: set[str] = set()
    for item in value:
        if not isinstance(item, str) or not _unicode(item):
            c.fail(key, item, "invalid_request", f"{key} must be a list of names; {_kind(item)} is not one")
            continue
        normal = _attempt(lambda v: normalize_name(v, field=key), item)
        if isinstance(normal, _Failure):
            c.fail(key, item, *normal)
        elif normal != item:
            c.fail(key, item, "invalid_name", f"{item!r} in {key} is not normalised; the graph keeps {normal!r}")
        else:
            names.add(item)
    return names if all(isinstance(v, str) and v in names for v in value) else None


def _check_entities(
    c: _Checker, rows: Sequence[Any], vocabulary: frozenset[str] | None
) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    """The entities' rows (id, name, type, properties, created_at), and the position of each id."""
    out: list[tuple[Any, ...]] = []
    ids: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not c.at(f"entities[{i}]", row):
            continue
        name = c.clean(row, "name")
        entity_id = c.key_of(row, "id", name)
        raw_id = row.get("id")
        if isinstance(raw_id, str) and ids.setdefault(raw_id, i) != i:
            c.fail(
                "id",
                raw_id,
                "invalid_request",
                f"id {raw_id!r} is also entities[{ids[raw_id]}]'s; an id names one entity",
            )
        type_ = c.text(row, "type")
        if type_ is not None and vocabulary is not None and type_ not in vocabulary:
            c.fail(
                "type",
                type_,
                "unknown_type",
                f"type {type_!r} is not in the dump's vocabulary (config.types: "
                f"{', '.join(sorted(vocabulary))}); add it there or use one of those",
            )
        out.append((entity_id, name, type_, c.json_object(row, "properties"), c.moment(row, "created_at")))
    return out, ids


_END_FIELDS = {"invalidated_at": "when its end was recorded", "ended_by": "who ended it"}


def _check_facts(c: _Checker, rows: Sequence[Any], entities: Mapping[str, int]) -> list[tuple[Any, ...]]:
    """The facts' rows, in :data:`_INSERT_FACT`'s order (with the derived object_key, from_us and to_us)."""
    out: list[tuple[Any, ...]] = []
    ids: dict[int, int] = {}
    current: dict[tuple[str, str, str], int] = {}  # (subject, predicate, object_key) of a current fact → position
    for i, row in enumerate(rows):
        fact_id = row.get("id") if isinstance(row, Mapping) else None
        line = fact_id if _is_id(fact_id) else None
        if not c.at(f"facts[{i}]", row, line):
            continue
        # Each field on its own, in the dump's order ...
        if line is None:
            c.fail(
                "id",
                fact_id,
                "invalid_request",
                "id is missing"
                if "id" not in row
                else f"id must be a whole number from 1 to 2**53 ({_MAX_ID:,}): a larger id leaves no room for the "
                "ids of later writes, and JSON readers that hold numbers as doubles misread it",
            )
        elif ids.setdefault(line, i) != i:
            c.fail("id", fact_id, "invalid_request", f"id {fact_id} is also facts[{ids[line]}]'s; a fact id is unique")
        subject, predicate = c.text(row, "subject"), c.predicate(row)
        object_id, object_value = c.text(row, "object_id", optional=True), c.clean(row, "object_value", optional=True)
        start, end = c.bound(row, "valid_from", end=False), c.bound(row, "valid_to", end=True)
        fields = (
            c.confidence(row),
            c.label(row, "source"),
            c.label(row, "source_closet", optional=True),
            c.moment(row, "recorded_at"),
            c.moment(row, "invalidated_at", optional=True),
            c.label(row, "ended_by", optional=True),
            c.occurrence(row),
        )
        # ... then together.
        if subject is not None and subject not in entities:
            c.fail("subject", subject, "not_found", f"subject {subject!r} is none of the dump's entities")
        has_id, has_value = row.get("object_id") is not None, row.get("object_value") is not None
        if has_id == has_value:
            c.fail(
                "object_id",
                None,
                "invalid_request",
                f"exactly one of object_id and object_value must be set, not {'both' if has_id else 'neither'}",
            )
        elif object_id is not None and object_id not in entities:
            c.fail("object_id", object_id, "not_found", f"object_id {object_id!r} is none of the dump's entities")
        if start is not None and end is not None and end.key < start.key:
            c.fail(
                "valid_to",
                end.text,
                "interval_order",
                f"valid_to {end.text} is before valid_from {start.text}; an interval cannot end before it starts",
            )
        ended = row.get("valid_to") is not None
        for key, what in _END_FIELDS.items():  # add and invalidate write them with valid_to, and only then
            if ended and row.get(key) is None:
                c.fail(key, None, "invalid_request", f"{key} is missing: an ended fact (with valid_to) records {what}")
            elif not ended and row.get(key) is not None:
                c.fail(
                    key,
                    row[key],
                    "invalid_request",
                    f"{key} is set on an open-ended fact (no valid_to); only a fact with a recorded end has one",
                )
        obj = object_id if object_id is not None else object_value
        object_key = object_value.casefold() if object_id is None and object_value is not None else object_id
        if not ended and subject is not None and predicate is not None and object_key is not None:
            first = current.setdefault((subject, predicate, object_key), i)
            if first != i:
                c.fail(
                    "valid_to",
                    None,
                    "invalid_request",
                    f"facts[{first}] is the same fact ({subject} → "
                    f"{predicate} → {obj}) and current too; a fact is current once: end one of them",
                )
        out.append(
            (
                fact_id,
                subject,
                predicate,
                object_id,
                object_value,
                object_key,
                start.text if start else None,
                end.text if end else None,
                start.key if start else OPEN_START,
                end.key if end else OPEN_END,
                *fields,
            )
        )
    return out


def _check_aliases(c: _Checker, rows: Sequence[Any], entities: Mapping[str, int]) -> list[tuple[Any, ...]]:
    """The aliases' rows (alias, name, entity_id)."""
    out: list[tuple[Any, ...]] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not c.at(f"aliases[{i}]", row):
            continue
        name = c.clean(row, "name")
        alias = c.key_of(row, "alias", name)
        if alias is not None and alias in entities:
            c.fail(
                "alias",
                alias,
                "alias_conflict",
                f"alias {alias!r} is entities[{entities[alias]}]'s id; an alias is another name, not an entity's own",
            )
        elif alias is not None and seen.setdefault(alias, i) != i:
            c.fail(
                "alias",
                alias,
                "alias_conflict",
                f"alias {alias!r} is also aliases[{seen[alias]}]; an alias names one entity",
            )
        entity_id = c.text(row, "entity_id")
        if entity_id is not None and entity_id not in entities:
            c.fail("entity_id", entity_id, "not_found", f"entity_id {entity_id!r} is none of the dump's entities")
        out.append((alias, name, entity_id))
    return out


def _check_predicates(c: _Checker, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The predicates' rows (id, label): ``id`` normalised and unique, ``label`` clean text spelling ``id``."""
    out: list[tuple[Any, ...]] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not c.at(f"predicates[{i}]", row):
            continue
        label = c.clean(row, "label")
        key = c.predicate(row, "id")
        if key is not None and seen.setdefault(key, i) != i:
            c.fail(
                "id", key, "invalid_request", f"id {key!r} is also predicates[{seen[key]}]'s; a predicate has one label"
            )
        if key is not None and label is not None:
            spelled = _attempt(normalize_predicate, label)
            if spelled != key:
                c.fail(
                    "label",
                    label,
                    "invalid_name",
                    f"label {label!r} does not spell the predicate {key!r} (a label "
                    "is a predicate's first spelling: it normalises to its id)",
                )
        out.append((key, label))
    return out


def _check_predicate_aliases(c: _Checker, rows: Sequence[Any], used: set[str]) -> list[tuple[Any, ...]]:
    """The predicate aliases' rows (alias, predicate): both normalised, each alias once, naming a predicate that is
    no alias itself, and no predicate that facts use."""
    out: list[tuple[Any, ...]] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not c.at(f"predicate_aliases[{i}]", row):
            continue
        alias = c.predicate(row, "alias")
        target = c.predicate(row)
        if alias is not None and seen.setdefault(alias, i) != i:
            c.fail(
                "alias",
                alias,
                "alias_conflict",
                f"alias {alias!r} is also predicate_aliases[{seen[alias]}]; an alias names one predicate",
            )
        elif alias is not None and alias in used:
            c.fail(
                "alias",
                alias,
                "alias_conflict",
                f"alias {alias!r} is a predicate the dump's facts use; an alias "
                "is another name, not a predicate in use",
            )
        elif alias is not None and alias == target:
            c.fail("alias", alias, "invalid_request", f"alias {alias!r} names itself")
        out.append((alias, target))
    targets = {r[1] for r in out}
    for i, (alias, _target) in enumerate(out):
        if alias is not None and alias in targets:
            c.at(f"predicate_aliases[{i}]", rows[i])
            c.fail(
                "alias",
                alias,
                "invalid_request",
                f"alias {alias!r} is also named by another alias; aliases name a predicate directly (no chains)",
            )
    return out


def _check_memories(c: _Checker, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The memories' rows (id, text, source, created_at, metadata) that pass; the others are reported."""
    out: list[tuple[Any, ...]] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not c.at(f"memories[{i}]", row):
            continue
        before = len(c.problems)
        memory_id = c.label(row, "id")
        if memory_id is not None and seen.setdefault(memory_id, i) != i:
            c.fail(
                "id",
                memory_id,
                "invalid_request",
                f"id {memory_id!r} is also memories[{seen[memory_id]}]'s; a memory id is unique",
            )
        memory = (
            memory_id,
            c.label(row, "text"),
            c.label(row, "source", optional=True),
            c.moment(row, "created_at"),
            c.json_object(row, "metadata"),
        )
        if len(c.problems) == before:
            out.append(memory)
    return out


class _Checked(NamedTuple):
    settings: list[tuple[str, str]]
    entities: list[tuple[Any, ...]]
    facts: list[tuple[Any, ...]]
    aliases: list[tuple[Any, ...]]
    memories: list[tuple[Any, ...]]
    predicates: list[tuple[Any, ...]]
    predicate_aliases: list[tuple[Any, ...]]
    not_duplicates: list[tuple[Any, ...]]


def _check_not_duplicates(c: _Checker, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The "not the same" pairs' rows (kind, a, b, created_at) that pass; the others are reported."""
    out: list[tuple[Any, ...]] = []
    seen: set[tuple[Any, ...]] = set()
    for i, row in enumerate(rows):
        if not c.at(f"not_duplicates[{i}]", row):
            continue
        before = len(c.problems)
        kind, a, b = row.get("kind"), c.label(row, "a"), c.label(row, "b")
        if kind not in ("entities", "predicates"):
            c.fail("kind", kind, "invalid_request", "kind must be entities or predicates")
        if a is not None and b is not None and not a < b:
            c.fail("b", b, "invalid_request", "a pair is stored in order: a must sort before b")
        if (kind, a, b) in seen:
            c.fail("b", b, "invalid_request", "the same pair is listed twice")
        seen.add((kind, a, b))
        created = c.moment(row, "created_at")
        if len(c.problems) == before:
            out.append((kind, a, b, created))
    return out


def _check(data: Mapping[str, Any]) -> _Checked:
    """Every record of a dump, checked and turned into table rows; :class:`InvalidRows` names every problem."""
    sections = _sections(data)
    c = _Checker()
    settings, vocabulary = _check_config(c, data.get("config", {}))
    entities, entity_ids = _check_entities(c, sections["entities"], vocabulary)
    facts = _check_facts(c, sections["facts"], entity_ids)
    used = {row[2] for row in facts}
    checked = _Checked(
        settings,
        entities,
        facts,
        _check_aliases(c, sections["aliases"], entity_ids),
        _check_memories(c, sections["memories"]),
        _check_predicates(c, sections["predicates"]),
        _check_predicate_aliases(c, sections["predicate_aliases"], used),
        _check_not_duplicates(c, sections["not_duplicates"]),
    )
    if c.problems:
        raise c.refusal()
    return checked

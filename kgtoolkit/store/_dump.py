"""The store's dump half: the whole graph as plain data, restored exactly or merged by the add rules.

:func:`dump` reads
every table in one read transaction; :func:`restore` checks every record of a dump, then writes it
into an **empty** graph with its own ids and transaction times, in one write transaction;
:func:`import_graph` adds facts *and* entity types/properties, aliases and memories by
:meth:`GraphStore.add`'s rules, in one transaction (used to merge a dump into a non-empty graph,
and for other programs' SQLite graphs).

A dump is ``{"kgtoolkit": {"version", "schema"}, "config": {...}, "entities": [...], "facts": [...],
"aliases": [...], "memories": [...], "predicates": [...], "predicate_aliases": [...], "not_duplicates": [...]}``
(the predicates' labels and aliases, contract §13, and the pairs marked not the same, contract §14; each may be
absent: a dump from before them). Facts carry every stored field except the three derived
ones (``object_key``, ``from_us``, ``to_us``), which :func:`restore` recomputes.

What :func:`restore` requires of a dump: what the store keeps true of every graph, so a dump
kgtoolkit wrote always passes.

- ``config``: ``types``, ``value_predicates`` and ``multi_valued`` lists of normalised names,
  ``comma_guard`` true or false, any other key a JSON value. It replaces the graph's settings.
- entities: ``id`` unique, and its ``name`` normalised (:func:`normalize_name`); ``name`` clean
  text (:func:`clean_text`: trimmed, inner whitespace collapsed); ``type`` in the dump's
  ``config.types`` (the default vocabulary if it has none); ``properties`` a JSON object;
  ``created_at`` a transaction time.
- facts: ``id`` a unique whole number from 1 to 2**63 - 1; ``subject`` an entity of the dump;
  ``predicate`` normalised; exactly one of ``object_id`` (an entity of the dump) and
  ``object_value`` (clean text); ``valid_from``/``valid_to`` null or a bound as the store keeps it
  (a full date ``YYYY-MM-DD`` or a UTC datetime ending in ``Z``, as :func:`parse_bound` writes
  it), ``valid_to`` not before ``valid_from``; ``confidence`` a number from 0 to 1; ``source``
  text, ``source_closet`` null or text; ``recorded_at`` a transaction time; ``invalidated_at`` (a
  transaction time) and ``ended_by`` (text) set exactly when ``valid_to`` is; at most one current
  fact (no ``valid_to``) per subject, predicate and object (a value object compared case-folded).
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

Text is never empty or only whitespace, and is valid Unicode (no lone surrogate, which a JSON
``\\ud800`` escape can give); JSON values hold no NaN or Infinity. A transaction time is UTC
``YYYY-MM-DDTHH:MM:SS.ffffffZ``, as :func:`kgtoolkit._time.now_text` writes it. Not required:
that ``invalidated_at`` follows ``recorded_at`` (a clock set back can break that), that a
``source_closet`` names a memory, that history rows are distinct (the store keeps repeats).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeGuard, cast

from .._errors import InvalidRequest, KGError, StoreError
from .._names import (
    DEFAULT_MULTI_VALUED,
    DEFAULT_TYPES,
    DEFAULT_VALUE_PREDICATES,
    clean_text,
    normalize_name,
    normalize_predicate,
)
from .._records import GraphConfig
from .._time import OPEN_END, OPEN_START, Bound, now_text, parse_bound
from . import _queries as q
from ._backend import Cursor
from ._bulk import ImportReport, InvalidRows, import_facts
from ._rules import Rules
from ._schema import FACT_COLUMNS, FACT_INDEXES, NOT_DUPLICATE_COLUMNS, SCHEMA_VERSION

if TYPE_CHECKING:
    import polars as pl

    from ._operations import GraphStore

__all__ = ["DUMP_FACT_FIELDS", "dump", "dump_parts", "dump_predicate_aliases", "import_graph", "is_empty", "restore"]

Progress = Callable[[int, int], None]

DUMP_FACT_FIELDS = ("id", "subject", "predicate", "object_id", "object_value", "valid_from", "valid_to", "confidence",
                    "source", "source_closet", "recorded_at", "invalidated_at", "ended_by")
_ENTITY_FIELDS = ("id", "name", "type", "properties", "created_at")
_ALIAS_FIELDS = ("alias", "name", "entity_id")
_MEMORY_FIELDS = ("id", "text", "source", "created_at", "metadata")
_CHUNK = 50_000
_DEFAULTS: dict[str, Any] = {"types": sorted(DEFAULT_TYPES), "value_predicates": sorted(DEFAULT_VALUE_PREDICATES),
                             "multi_valued": sorted(DEFAULT_MULTI_VALUED), "comma_guard": True}


# ---------------------------------------------------------------------- dump


def dump(kg: GraphStore) -> dict[str, Any]:
    """The whole graph as JSON-ready data, read in one transaction (one consistent snapshot).

    Rows are ordered by their keys, so the same graph always gives the same dump.
    """
    from .._version import __version__

    with kg._backend.read() as cur:
        config = q.read_config(cur)
        stored = dict(cur.execute("SELECT key, value FROM settings ORDER BY key").fetchall())
        settings: dict[str, Any] = {"types": sorted(config.types), "value_predicates": sorted(config.value_predicates),
                                    "multi_valued": sorted(config.multi_valued), "comma_guard": config.comma_guard}
        for key, value in stored.items():
            if key not in settings:
                try:
                    settings[key] = json.loads(value)
                except ValueError:
                    settings[key] = value
        entities = [{"id": i, "name": n, "type": t, "properties": json.loads(p), "created_at": c}
                    for i, n, t, p, c in cur.execute(
                        "SELECT id, name, type, properties, created_at FROM entities ORDER BY id")]
        facts = [dict(zip(DUMP_FACT_FIELDS, row)) for row in cur.execute(
            f"SELECT {', '.join(DUMP_FACT_FIELDS)} FROM facts ORDER BY id")]
        aliases = [dict(zip(_ALIAS_FIELDS, row)) for row in cur.execute(
            "SELECT alias, name, entity_id FROM aliases ORDER BY alias")]
        memories = [{"id": i, "text": t, "source": s, "created_at": c, "metadata": json.loads(m)}
                    for i, t, s, c, m in cur.execute(
                        "SELECT id, text, source, created_at, metadata FROM memories ORDER BY id")]
        predicates = [{"id": i, "label": label} for i, label in cur.execute(
            "SELECT id, label FROM predicates ORDER BY id")]
        predicate_aliases = [{"alias": a, "predicate": p} for a, p in cur.execute(
            "SELECT alias, predicate FROM predicate_aliases ORDER BY alias")]
        not_duplicates = [dict(zip(NOT_DUPLICATE_COLUMNS, row)) for row in cur.execute(
            "SELECT kind, a, b, created_at FROM not_duplicates ORDER BY kind, a, b")]
    return {"kgtoolkit": {"version": __version__, "schema": SCHEMA_VERSION}, "config": settings,
            "entities": entities, "facts": facts, "aliases": aliases, "memories": memories,
            "predicates": predicates, "predicate_aliases": predicate_aliases, "not_duplicates": not_duplicates}


def is_empty(kg: GraphStore) -> bool:
    """True when the graph holds no entity, fact, alias, memory or predicate alias (settings, and the labels of
    predicates no fact uses, do not count)."""
    with kg._backend.read() as cur:
        return _empty(cur)


def _empty(cur: Cursor) -> bool:
    return not cur.execute("SELECT EXISTS(SELECT 1 FROM entities) OR EXISTS(SELECT 1 FROM facts) "
                           "OR EXISTS(SELECT 1 FROM aliases) OR EXISTS(SELECT 1 FROM memories) "
                           "OR EXISTS(SELECT 1 FROM predicate_aliases)").fetchone()[0]


# ---------------------------------------------------------------------- checking a dump

_TRANSACTION_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_ID = 2**63 - 1  # SQLite's largest integer
_SHOWN = 200  # characters of a bad non-text value kept in a report
def _bad(where: str, message: str) -> InvalidRequest:
    return InvalidRequest(f"not a valid kgtoolkit dump: {where}: {message}", field=where)


def _sections(data: Any) -> dict[str, list[Any]]:
    """The dump's sections (lists; their records are checked by the caller), after checking its header."""
    if not isinstance(data, Mapping) or not isinstance(data.get("kgtoolkit"), Mapping):
        raise InvalidRequest("not a kgtoolkit dump (no \"kgtoolkit\" header); for one fact per line use JSON Lines "
                             "(.jsonl)", field="format")
    schema = data["kgtoolkit"].get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise _bad("kgtoolkit.schema", f"must be a whole number from 1, not {_shown(schema)}")
    if schema > SCHEMA_VERSION:
        raise StoreError(f"the dump has schema version {schema}, newer than this kgtoolkit understands "
                         f"({SCHEMA_VERSION}); upgrade kgtoolkit", field="schema", value=str(schema))
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
        names = " or ".join("null" if k is type(None) else {"str": "text", "int": "a whole number", "float": "a number",
                                                             "dict": "an object"}.get(k.__name__, k.__name__) for k in kinds)
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
    return None if _unicode(text) else "it holds text that is not valid Unicode (a lone surrogate)"


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
        self.problems.append({"line": self._line, "record": self._record, "field": field, "value": _shown(value),
                              "code": code, "reason": reason})

    def refusal(self) -> InvalidRows:
        """The error that refuses the whole dump, its message spelling out the first problems."""
        records = len({p["record"] for p in self.problems})
        return InvalidRows.refusing(self.problems, _describe, rows=f"{records:,} record(s) of the dump",
                                    refused="nothing restored", fix="Fix them in the dump and import it again")

    # The checks of one field: ``row[key]``, reported on failure.

    def text(self, row: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
        """Text (``optional``: or null, which a missing key is too)."""
        value = row.get(key)
        if type(value) is str and value.isascii():  # the common case, first
            return value
        if value is None and optional:
            return None
        if not isinstance(value, str):
            wanted = "text or null" if optional else "text"
            self.fail(key, value, "invalid_request",
                      f"{key} is missing" if key not in row else f"{key} must be {wanted}, not {_kind(value)}")
            return None
        if not _unicode(value):
            self.fail(key, value, "invalid_request", f"{key} is not valid Unicode text (it holds a lone surrogate)")
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
        value = self.text(row, key, optional=optional)
        if value is None:
            return None
        cleaned = _attempt(lambda v: clean_text(v, field=key), value)
        if isinstance(cleaned, _Failure):
            self.fail(key, value, *cleaned)
        elif cleaned != value:
            self.fail(key, value, "invalid_name", f"{key} {value!r} is not clean text: the graph keeps {cleaned!r} "
                      "(trimmed, inner whitespace collapsed)")
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
                self.fail(key, value, "invalid_name", f"{key} {value!r} is not its name {name!r} normalised, which "
                          f"is {expected!r}")
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
            self.fail(key, value, "invalid_name", f"{key} {value!r} is not normalised; the graph keeps "
                      f"{known!r}")
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
            self.fail(key, value, "invalid_date", f"{key} {value!r} is not a stored bound; the graph keeps it as "
                      f"{bound.text!r} (a full date YYYY-MM-DD, or a UTC datetime ending in Z)")
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
        self.fail(key, value, "invalid_date", f"{key} {value!r} is not a transaction time: the store writes UTC "
                  f"times as YYYY-MM-DDTHH:MM:SS.ffffffZ, e.g. {now_text()}")
        return None

    def confidence(self, row: Mapping[str, Any]) -> float | None:
        value = row.get("confidence")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            self.fail("confidence", value, "invalid_request", "confidence is missing" if "confidence" not in row
                      else "confidence must be a number from 0 to 1")
            return None
        return float(value)

    def json_object(self, row: Mapping[str, Any], key: str) -> str | None:
        """A JSON object, as the text the store keeps."""
        value = row.get(key)
        if not isinstance(value, Mapping):
            self.fail(key, value, "invalid_request",
                      f"{key} is missing" if key not in row else f"{key} must be a JSON object, not {_kind(value)}")
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
        if key in ("types", "value_predicates", "multi_valued", "single_valued", "event_predicates"):
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
                c.fail(key, value, "invalid_request", f"{key} must be a whole number from 1 to {highest:,}, "
                                                      f"not {_kind(value)}")
                continue
        else:  # a setting this version does not use: kept, if it is JSON
            problem = _json_problem(value) if isinstance(key, str) else f"its name is {_kind(key)}, not text"
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


def _check_entities(c: _Checker, rows: Sequence[Any], vocabulary: frozenset[str] | None
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
            c.fail("id", raw_id, "invalid_request", f"id {raw_id!r} is also entities[{ids[raw_id]}]'s; an id names "
                   "one entity")
        type_ = c.text(row, "type")
        if type_ is not None and vocabulary is not None and type_ not in vocabulary:
            c.fail("type", type_, "unknown_type", f"type {type_!r} is not in the dump's vocabulary (config.types: "
                   f"{', '.join(sorted(vocabulary))}); add it there or use one of those")
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
            c.fail("id", fact_id, "invalid_request",
                   "id is missing" if "id" not in row else "id must be a whole number from 1 to 2**63 - 1")
        elif ids.setdefault(line, i) != i:
            c.fail("id", fact_id, "invalid_request", f"id {fact_id} is also facts[{ids[line]}]'s; a fact id is "
                   "unique")
        subject, predicate = c.text(row, "subject"), c.predicate(row)
        object_id, object_value = c.text(row, "object_id", optional=True), c.clean(row, "object_value", optional=True)
        start, end = c.bound(row, "valid_from", end=False), c.bound(row, "valid_to", end=True)
        fields = (c.confidence(row), c.label(row, "source"), c.label(row, "source_closet", optional=True),
                  c.moment(row, "recorded_at"), c.moment(row, "invalidated_at", optional=True),
                  c.label(row, "ended_by", optional=True))
        # ... then together.
        if subject is not None and subject not in entities:
            c.fail("subject", subject, "not_found", f"subject {subject!r} is none of the dump's entities")
        has_id, has_value = row.get("object_id") is not None, row.get("object_value") is not None
        if has_id == has_value:
            c.fail("object_id", None, "invalid_request", "exactly one of object_id and object_value must be set, "
                   f"not {'both' if has_id else 'neither'}")
        elif object_id is not None and object_id not in entities:
            c.fail("object_id", object_id, "not_found", f"object_id {object_id!r} is none of the dump's entities")
        if start is not None and end is not None and end.key < start.key:
            c.fail("valid_to", end.text, "interval_order", f"valid_to {end.text} is before valid_from {start.text}; "
                   "an interval cannot end before it starts")
        ended = row.get("valid_to") is not None
        for key, what in _END_FIELDS.items():  # add and invalidate write them with valid_to, and only then
            if ended and row.get(key) is None:
                c.fail(key, None, "invalid_request", f"{key} is missing: an ended fact (with valid_to) records {what}")
            elif not ended and row.get(key) is not None:
                c.fail(key, row[key], "invalid_request", f"{key} is set on an open-ended fact (no valid_to); only "
                       "a fact with a recorded end has one")
        obj = object_id if object_id is not None else object_value
        object_key = object_value.casefold() if object_id is None and object_value is not None else object_id
        if not ended and subject is not None and predicate is not None and object_key is not None:
            first = current.setdefault((subject, predicate, object_key), i)
            if first != i:
                c.fail("valid_to", None, "invalid_request", f"facts[{first}] is the same fact ({subject} → "
                       f"{predicate} → {obj}) and current too; a fact is current once: end one of them")
        out.append((fact_id, subject, predicate, object_id, object_value, object_key,
                    start.text if start else None, end.text if end else None,
                    start.key if start else OPEN_START, end.key if end else OPEN_END, *fields))
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
            c.fail("alias", alias, "alias_conflict", f"alias {alias!r} is entities[{entities[alias]}]'s id; an alias "
                   "is another name, not an entity's own")
        elif alias is not None and seen.setdefault(alias, i) != i:
            c.fail("alias", alias, "alias_conflict", f"alias {alias!r} is also aliases[{seen[alias]}]; an alias names "
                   "one entity")
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
            c.fail("id", key, "invalid_request", f"id {key!r} is also predicates[{seen[key]}]'s; a predicate has "
                   "one label")
        if key is not None and label is not None:
            spelled = _attempt(normalize_predicate, label)
            if spelled != key:
                c.fail("label", label, "invalid_name", f"label {label!r} does not spell the predicate {key!r} (a label "
                       "is a predicate's first spelling: it normalises to its id)")
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
            c.fail("alias", alias, "alias_conflict", f"alias {alias!r} is also predicate_aliases[{seen[alias]}]; an "
                   "alias names one predicate")
        elif alias is not None and alias in used:
            c.fail("alias", alias, "alias_conflict", f"alias {alias!r} is a predicate the dump's facts use; an alias "
                   "is another name, not a predicate in use")
        elif alias is not None and alias == target:
            c.fail("alias", alias, "invalid_request", f"alias {alias!r} names itself")
        out.append((alias, target))
    targets = {r[1] for r in out}
    for i, (alias, _target) in enumerate(out):
        if alias is not None and alias in targets:
            c.at(f"predicate_aliases[{i}]", rows[i])
            c.fail("alias", alias, "invalid_request", f"alias {alias!r} is also named by another alias; aliases name "
                   "a predicate directly (no chains)")
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
            c.fail("id", memory_id, "invalid_request", f"id {memory_id!r} is also memories[{seen[memory_id]}]'s; a "
                   "memory id is unique")
        memory = (memory_id, c.label(row, "text"), c.label(row, "source", optional=True), c.moment(row, "created_at"),
                  c.json_object(row, "metadata"))
        if len(c.problems) == before:
            out.append(memory)
    return out


# ---------------------------------------------------------------------- exact restore


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
    checked = _Checked(settings, entities, facts, _check_aliases(c, sections["aliases"], entity_ids),
                       _check_memories(c, sections["memories"]), _check_predicates(c, sections["predicates"]),
                       _check_predicate_aliases(c, sections["predicate_aliases"], used),
                       _check_not_duplicates(c, sections["not_duplicates"]))
    if c.problems:
        raise c.refusal()
    return checked


def restore(kg: GraphStore, data: Mapping[str, Any], *, progress: Progress | None = None) -> ImportReport:
    """Write a :func:`dump` into an empty graph exactly: ids, names, types, properties, transaction times,
    aliases, memories and settings (the dump's settings replace the graph's). One transaction.

    Every record is checked first, by the rules the store keeps (see the module's docstring); if
    any breaks one, nothing is written and :class:`InvalidRows` names each problem: ``record``
    (``facts[3]``, ``config``), ``line`` (a fact's id, as when a dump is merged; None for the other
    records), ``field``, ``value``, ``code`` (as ``add`` would raise it, or ``not_found`` for a
    reference to no entity of the dump, ``alias_conflict``) and ``reason``. Raises
    :class:`InvalidRequest` if the graph is not empty or the dump's header or sections are not a dump's.
    """
    def not_empty() -> InvalidRequest:
        return InvalidRequest(f"{kg.location} is not empty; an exact restore needs an empty graph",
                              field="path", value=str(kg.location))

    if not is_empty(kg):
        raise not_empty()
    checked = _check(data)
    total = len(checked.facts)
    backend = kg._backend
    indexes = FACT_INDEXES[backend.kind]
    with backend.bulk_write() as cur:  # every reference was checked above
        if not _empty(cur):
            raise not_empty()
        try:
            cur.execute("DELETE FROM settings")
            cur.execute("DELETE FROM predicates")  # labels of predicates no fact uses: the dump's replace them
            backend.insert_rows(cur, "settings", ("key", "value"), checked.settings)
            backend.insert_rows(cur, "entities", ("id", "name", "type", "properties", "created_at"), checked.entities)
            rebuild = backend.rebuild_fact_indexes(total, 0)  # building the indexes afterwards is faster
            if rebuild:
                for statement in indexes:
                    cur.execute(f"DROP INDEX IF EXISTS {statement.split(' INDEX ')[1].split()[0]}")
            if progress:
                progress(0, total)
            for start in range(0, total, _CHUNK):
                backend.insert_rows(cur, "facts", FACT_COLUMNS, checked.facts[start:start + _CHUNK])
                if progress:
                    progress(min(start + _CHUNK, total), total)
            if rebuild:
                for statement in indexes:
                    cur.execute(statement)
            backend.insert_rows(cur, "aliases", ("alias", "name", "entity_id"), checked.aliases)
            backend.insert_rows(cur, "memories", ("id", "text", "source", "created_at", "metadata"), checked.memories)
            backend.insert_rows(cur, "predicates", ("id", "label"), checked.predicates)
            # A dump from before labels: each predicate its id as its label, as the schema's migration does.
            cur.execute("INSERT INTO predicates(id, label) SELECT DISTINCT predicate, predicate FROM facts WHERE TRUE "
                        "ON CONFLICT (id) DO NOTHING")
            backend.insert_rows(cur, "predicate_aliases", ("alias", "predicate"), checked.predicate_aliases)
            backend.insert_rows(cur, "not_duplicates", NOT_DUPLICATE_COLUMNS, checked.not_duplicates)
            backend.after_explicit_ids(cur, "facts")
        except StoreError as exc:  # the checks missed a rule: still refused whole
            if type(exc) is not StoreError:  # corrupt, disk_full, locked: the database failed, not the dump
                raise
            raise _bad("dump", f"the graph refused it ({exc.message}); nothing was restored") from exc
    return ImportReport(rows=total, inserted=total, duplicates=0, rejected=0,
                        entities_created=len(checked.entities), types_upgraded=0)


# ---------------------------------------------------------------------- merge by the add rules


def import_graph(
    kg: GraphStore,
    facts: pl.DataFrame,
    *,
    entities: Iterable[Mapping[str, Any]] = (),
    aliases: Iterable[tuple[str, str]] = (),
    memories: Iterable[Mapping[str, Any]] = (),
    predicate_aliases: Iterable[tuple[str, str]] = (),
    on_error: Literal["raise", "skip"] = "raise",
    allow_commas: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
) -> tuple[ImportReport, pl.DataFrame]:
    """:func:`kgtoolkit.store.import_facts` plus entities, aliases and memories, all in one transaction.

    ``entities``: dicts with ``name`` and optional ``type``/``properties``; each is created or updated
    as :meth:`GraphStore.add_entity` would (a type outside the vocabulary is kept ``unknown``,
    with a warning). ``aliases``: (alias, entity name) pairs, registered unless they clash (a
    warning). ``memories``: dicts as in a dump, added unless their id exists; those :func:`restore`
    would refuse are left out (a warning). ``predicate_aliases``: (alias, predicate) pairs, registered
    after the facts are written (a dump's facts are stored under canonical predicates) unless they
    clash (a warning). Facts follow ``import_facts`` exactly (duplicates skipped, bad rows raise or
    are skipped).
    """
    config = kg.config
    pairs = list(predicate_aliases)

    def add_entities(cur: Cursor, warnings: list[str]) -> int:
        return _entities(kg, cur, config, entities, warnings)

    def add_aliases_and_memories(cur: Cursor, warnings: list[str]) -> int:
        _aliases(kg, cur, aliases, warnings)
        _memories(cur, memories, warnings)
        _predicate_aliases(cur, pairs, warnings)
        return 0

    return import_facts(kg, facts, on_error=on_error, allow_commas=allow_commas, source=source, progress=progress,
                        before=add_entities, after=add_aliases_and_memories)


def _entities(kg: GraphStore, cur: Cursor, config: GraphConfig, entities: Iterable[Mapping[str, Any]],
              warnings: list[str]) -> int:
    outside: Counter[str] = Counter()
    bad: list[str] = []
    upgraded = 0
    for entity in entities:
        name = entity.get("name")
        type_ = entity.get("type")
        if not isinstance(name, str):
            bad.append(f"{name!r} (a name must be text)")
            continue
        key: str | None = None
        if isinstance(type_, str) and type_.strip():
            try:
                key = normalize_name(type_, field="type")
            except KGError:
                key = None
            if key not in config.types:
                outside[type_.strip()] += 1
                key = None
        props = entity.get("properties") or None
        try:
            before = None
            if key not in (None, "unknown"):
                row = cur.execute("SELECT type FROM entities WHERE id = ?",
                                  (q.lookup(cur, normalize_name(name, field="name")),)).fetchone()
                before = row[0] if row else None
            q.ensure_entity(cur, Rules(q.read_config(cur)).name(name, "name"), key, props, warnings)
            upgraded += before == "unknown"
        except KGError as exc:
            bad.append(f"{name!r} ({exc.message})")
    if outside:
        listed = ", ".join(f"{t} ({n})" for t, n in sorted(outside.items()))
        warnings.append(f"entity types outside this graph's vocabulary were kept as unknown: {listed}; extend it "
                        "with configure(types=...) and import again to keep them")
    if bad:
        warnings.append(f"{len(bad)} entities were not imported: {'; '.join(bad[:10])}")
    return upgraded


def _aliases(kg: GraphStore, cur: Cursor, aliases: Iterable[tuple[str, str]], warnings: list[str]) -> None:
    problems: list[str] = []
    for alias, entity in aliases:
        try:
            display = " ".join(alias.split())
            key = normalize_name(display, field="alias")
            target = q.lookup(cur, normalize_name(entity, field="entity"))
        except (KGError, AttributeError):
            problems.append(f"{alias!r} → {entity!r} (not a name)")
            continue
        if target is None:
            problems.append(f"{alias!r} → {entity!r} (no such entity)")
            continue
        if key == target:
            continue
        if cur.execute("SELECT 1 FROM entities WHERE id = ?", (key,)).fetchone():
            problems.append(f"{alias!r} → {entity!r} ({key!r} is an entity)")
            continue
        row = cur.execute("SELECT entity_id FROM aliases WHERE alias = ?", (key,)).fetchone()
        if row is None:
            cur.execute("INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)", (key, display, target))
        elif row[0] != target:
            problems.append(f"{alias!r} → {entity!r} (already an alias of {row[0]!r})")
    if problems:
        warnings.append(f"{len(problems)} aliases were not registered: {'; '.join(problems[:10])}")


def _memories(cur: Cursor, memories: Iterable[Any], warnings: list[str]) -> None:
    checker = _Checker()
    rows = _check_memories(checker, list(memories))  # the dump's rules; the records that break them are left out
    if checker.problems:
        bad = len({p["record"] for p in checker.problems})
        warnings.append(f"{bad} memories were not imported: {'; '.join(_describe(p) for p in checker.problems[:10])}")
    differing: list[str] = []
    for row in rows:
        stored = cur.execute("SELECT text FROM memories WHERE id = ?", (row[0],)).fetchone()
        if stored is None:
            cur.execute("INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)", row)
        elif stored[0] != row[1]:
            differing.append(row[0])
    if differing:
        warnings.append(f"{len(differing)} memories were kept as stored; the input has other text under the same "
                        f"id: {', '.join(differing[:10])}")


def dump_parts(data: Mapping[str, Any]) -> tuple[pl.DataFrame, list[dict[str, Any]], list[tuple[str, str]], list[Any]]:
    """A :func:`dump` as :func:`import_graph`'s inputs: facts frame, entities, aliases, memories.

    Merging a dump this way (into a graph that is not empty) follows the add rules: facts get new
    ids and transaction times, identical current facts and identical history rows are skipped, the
    graph's settings stay. A reject's ``line`` is the fact's id in the dump. A record that is not an
    object, or a field of the wrong kind (a number for a name, an id that is not a whole number from
    1 to 2**63 - 1, text that is not valid Unicode), raises :class:`InvalidRequest` naming it;
    memories are checked as :func:`restore` checks them, and those that fail are left out (a warning).
    """
    import polars as pl

    sections = _sections(data)
    labels = _labels(sections["predicates"])
    entity_rows = [_record(e, f"entities[{i}]") for i, e in enumerate(sections["entities"])]
    names = {e["id"]: e["name"] for e in entity_rows
             if isinstance(e.get("id"), str) and isinstance(e.get("name"), str) and _unicode(e["name"])}
    columns: dict[str, list[Any]] = {k: [] for k in ("line", "subject", "predicate", "object", "valid_from", "valid_to",
                                                   "confidence", "source", "source_closet")}
    for i, row in enumerate(sections["facts"]):
        where = f"facts[{i}]"
        fact = _record(row, where)
        fact_id = _field(fact, "id", (int,), where)
        if not _is_id(fact_id):
            raise _bad(f"{where}.id", "must be a whole number from 1 to 2**63 - 1")
        object_id = _field(fact, "object_id", _OPT, where)
        subject = _field(fact, "subject", _TEXT, where)
        columns["line"].append(fact_id)
        columns["subject"].append(names.get(subject) or subject)
        predicate = _field(fact, "predicate", _TEXT, where)
        columns["predicate"].append(labels.get(predicate, predicate))  # its label: the first spelling travels
        columns["object"].append((names.get(object_id) or object_id) if object_id is not None
                                 else _field(fact, "object_value", _TEXT, where))
        columns["valid_from"].append(_field(fact, "valid_from", _OPT, where))
        columns["valid_to"].append(_field(fact, "valid_to", _OPT, where))
        columns["confidence"].append(_float(_field(fact, "confidence", (int, float), where)))
        columns["source"].append(_field(fact, "source", _TEXT, where))
        columns["source_closet"].append(_field(fact, "source_closet", _OPT, where))
    frame = pl.DataFrame({k: pl.Series(k, v, dtype=pl.Int64 if k == "line" else pl.Float64 if k == "confidence"
                                       else pl.String) for k, v in columns.items()})
    entities: list[dict[str, Any]] = []
    for i, e in enumerate(entity_rows):
        where = f"entities[{i}]"
        properties = e.get("properties") or None
        problem = _json_problem(dict(properties)) if isinstance(properties, Mapping) else None
        if problem:
            raise _bad(f"{where}.properties", f"must hold JSON values only: {problem}")
        entities.append({"name": _field(e, "name", _TEXT, where), "type": _field(e, "type", _OPT, where),
                         "properties": properties})
    aliases: list[tuple[str, str]] = []
    for i, row in enumerate(sections["aliases"]):
        where = f"aliases[{i}]"
        a = _record(row, where)
        target = _field(a, "entity_id", _TEXT, where)
        aliases.append((_field(a, "name", _TEXT, where), names.get(target) or target))
    return frame, entities, aliases, list(sections["memories"])


def _labels(rows: Sequence[Any]) -> dict[str, str]:
    """A dump's predicate labels by id, those that spell their id (a merge writes a fact by its label, so the
    label travels as a first spelling; any other is left out: the id stands in)."""
    found: dict[str, str] = {}
    for row in rows:
        if isinstance(row, Mapping) and isinstance(row.get("id"), str) and isinstance(row.get("label"), str):
            spelled = _attempt(normalize_predicate, row["label"])
            if spelled == row["id"] and _unicode(row["label"]):
                found.setdefault(row["id"], row["label"])
    return found


def dump_predicate_aliases(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A :func:`dump`'s predicate aliases as (alias, predicate) pairs, for :func:`import_graph`."""
    pairs: list[tuple[str, str]] = []
    for i, row in enumerate(_sections(data)["predicate_aliases"]):
        where = f"predicate_aliases[{i}]"
        record = _record(row, where)
        pairs.append((_field(record, "alias", _TEXT, where), _field(record, "predicate", _TEXT, where)))
    return pairs


def _predicate_aliases(cur: Cursor, pairs: Iterable[tuple[str, str]], warnings: list[str]) -> None:
    """Register predicate aliases by :meth:`GraphStore.alias_predicate`'s rules; those that clash are warned of."""
    from . import _predicates as _preds

    problems: list[str] = []
    for alias, predicate in pairs:
        try:
            _preds.add_alias(cur, alias, predicate)
        except KGError as exc:
            problems.append(f"{alias!r} → {predicate!r} ({exc.message})")
    if problems:
        warnings.append(f"{len(problems)} predicate aliases were not registered: {'; '.join(problems[:10])}")


def _float(value: float) -> float:
    """``value`` as a float; a whole number too big for one is infinite (so out of any range, and reported)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf

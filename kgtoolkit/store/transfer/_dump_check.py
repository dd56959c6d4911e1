"""The dump's validator: every record of a dump checked by the rules the store keeps, every failure collected
(:class:`~._record_check._Checker`, in :class:`~kgtoolkit.InvalidRows`'s shape), and the checked records turned into table rows
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

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..._errors import InvalidRequest, StoreError
from ..._names import (
    DEFAULT_MULTI_VALUED,
    DEFAULT_TYPES,
    DEFAULT_VALUE_PREDICATES,
    normalize_name,
    normalize_predicate,
)
from ..._time import OPEN_END, OPEN_START
from ..engine import SCHEMA_VERSION
from ..reads import _queries as q
from ._record_check import (
    _MAX_ID,
    _attempt,
    _Checker,
    _Failure,
    _is_id,
    _json_problem,
    _kind,
    _shown,
    _unicode,
)

_DEFAULTS: dict[str, Any] = {
    "types": sorted(DEFAULT_TYPES),
    "value_predicates": sorted(DEFAULT_VALUE_PREDICATES),
    "multi_valued": sorted(DEFAULT_MULTI_VALUED),
    "comma_guard": True,
}


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
    """The field ``key`` of a record, refused unless of one of ``kinds``."""
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

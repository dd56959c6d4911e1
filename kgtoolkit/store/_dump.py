"""The store's dump half: the whole graph as plain data, restored exactly or merged by the add rules.

:func:`dump` reads
every table in one read transaction; :func:`restore` writes a dump into an **empty** graph with its
own ids and transaction times, in one write transaction; :func:`import_graph` adds facts *and* entity
types/properties, aliases and memories by :meth:`KnowledgeGraph.add`'s rules, in one transaction
(used to merge a dump into a non-empty graph, and for other programs' SQLite graphs).

A dump is ``{"kgtoolkit": {"version", "schema"}, "config": {...}, "entities": [...], "facts": [...],
"aliases": [...], "memories": [...]}``. Facts carry every stored field except the three derived
ones (``object_key``, ``from_us``, ``to_us``), which :func:`restore` recomputes (and so checks).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._errors import InvalidRequest, KGError, StoreError
from .._names import DEFAULT_MULTI_VALUED, DEFAULT_TYPES, DEFAULT_VALUE_PREDICATES, normalize_name
from .._records import GraphConfig
from .._time import OPEN_END, OPEN_START, parse_bound
from . import _queries as q
from ._backend import Cursor
from ._bulk import ImportReport, import_facts
from ._rules import Rules
from ._schema import SCHEMA_VERSION

if TYPE_CHECKING:
    import polars as pl

    from ._graph import KnowledgeGraph

__all__ = ["DUMP_FACT_FIELDS", "dump", "dump_parts", "import_graph", "is_empty", "restore"]

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


def dump(kg: KnowledgeGraph) -> dict[str, Any]:
    """The whole graph as JSON-ready data, read in one transaction (one consistent snapshot).

    Rows are ordered by their keys, so the same graph always gives the same dump.
    """
    from .. import __version__

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
    return {"kgtoolkit": {"version": __version__, "schema": SCHEMA_VERSION}, "config": settings,
            "entities": entities, "facts": facts, "aliases": aliases, "memories": memories}


def is_empty(kg: KnowledgeGraph) -> bool:
    """True when the graph holds no entity, fact, alias or memory (settings do not count)."""
    with kg._backend.read() as cur:
        return _empty(cur)


def _empty(cur: Cursor) -> bool:
    return not cur.execute("SELECT EXISTS(SELECT 1 FROM entities) OR EXISTS(SELECT 1 FROM facts) "
                           "OR EXISTS(SELECT 1 FROM aliases) OR EXISTS(SELECT 1 FROM memories)").fetchone()[0]


# ---------------------------------------------------------------------- checking a dump


def _bad(where: str, message: str) -> InvalidRequest:
    return InvalidRequest(f"not a valid kgtoolkit dump: {where}: {message}", field=where)


def _sections(data: Any) -> dict[str, list[Mapping[str, Any]]]:
    """The dump's sections, after checking its header."""
    if not isinstance(data, Mapping) or not isinstance(data.get("kgtoolkit"), Mapping):
        raise InvalidRequest("not a kgtoolkit dump (no \"kgtoolkit\" header); for one fact per line use JSON Lines "
                             "(.jsonl)", field="format")
    schema = data["kgtoolkit"].get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise _bad("kgtoolkit.schema", f"must be a whole number, not {schema!r}")
    if schema > SCHEMA_VERSION:
        raise StoreError(f"the dump has schema version {schema}, newer than this kgtoolkit understands "
                         f"({SCHEMA_VERSION}); upgrade kgtoolkit", field="schema", value=str(schema))
    out: dict[str, list[Mapping[str, Any]]] = {}
    for name in ("entities", "facts", "aliases", "memories"):
        rows = data.get(name, [])
        if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
            raise _bad(name, "must be a list of objects")
        out[name] = rows
    if not isinstance(data.get("config", {}), Mapping):
        raise _bad("config", "must be an object")
    return out


_TEXT, _OPT = (str,), (str, type(None))


def _field(row: Mapping[str, Any], key: str, kinds: tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        names = " or ".join("null" if k is type(None) else {"str": "text", "int": "a whole number", "float": "a number",
                                                             "dict": "an object"}.get(k.__name__, k.__name__) for k in kinds)
        raise _bad(f"{where}.{key}", f"must be {names}, not {value!r}")
    return value


# ---------------------------------------------------------------------- exact restore


def restore(kg: KnowledgeGraph, data: Mapping[str, Any], *, progress: Progress | None = None) -> ImportReport:
    """Write a :func:`dump` into an empty graph exactly: ids, names, types, properties, transaction times,
    aliases, memories and settings (the dump's settings replace the graph's). One transaction.

    Raises :class:`InvalidRequest` if the graph is not empty or the dump is not valid.
    """
    sections = _sections(data)
    config = dict(data.get("config", {}))
    with kg._backend.bulk_write() as cur:
        if not _empty(cur):
            raise InvalidRequest(f"{kg.location} is not empty; an exact restore needs an empty graph",
                                 field="path", value=str(kg.location))
        cur.execute("DELETE FROM settings")
        for key, value in config.items():
            known = _DEFAULTS.get(key)
            if key in ("types", "value_predicates", "multi_valued"):
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise _bad(f"config.{key}", "must be a list of names")
                value = sorted(set(value) | ({"unknown"} if key == "types" else set()))
            elif key == "comma_guard" and not isinstance(value, bool):
                raise _bad("config.comma_guard", "must be true or false")
            if value != known:
                cur.execute("INSERT INTO settings(key, value) VALUES (?, ?)", (key, json.dumps(value)))
        _insert(cur, "entities", sections["entities"], _entity_row,
                "INSERT INTO entities(id, name, type, properties, created_at) VALUES (?, ?, ?, ?, ?)")
        facts = sections["facts"]
        total = len(facts)
        if progress:
            progress(0, total)
        for start in range(0, total, _CHUNK):
            _insert(cur, "facts", facts[start:start + _CHUNK], _fact_row,
                    """INSERT INTO facts(id, subject, predicate, object_id, object_value, object_key, valid_from, valid_to,
                           from_us, to_us, confidence, source, source_closet, recorded_at, invalidated_at, ended_by)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", offset=start)
            if progress:
                progress(min(start + _CHUNK, total), total)
        _insert(cur, "aliases", sections["aliases"], _alias_row,
                "INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)")
        _insert(cur, "memories", sections["memories"], _memory_row,
                "INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)")
        kg._backend.after_explicit_ids(cur, "facts")
    return ImportReport(rows=total, inserted=total, duplicates=0, rejected=0,
                        entities_created=len(sections["entities"]), types_upgraded=0)


def _insert(cur: Cursor, section: str, rows: Sequence[Mapping[str, Any]],
            convert: Callable[[Mapping[str, Any], str], tuple[Any, ...]], sql: str, *, offset: int = 0) -> None:
    for i, row in enumerate(rows, start=offset):
        where = f"{section}[{i}]"
        cur.execute(sql, convert(row, where))


def _entity_row(row: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    props = _field(row, "properties", (dict,), where)
    return (_field(row, "id", _TEXT, where), _field(row, "name", _TEXT, where), _field(row, "type", _TEXT, where),
            json.dumps(props), _field(row, "created_at", _TEXT, where))


def _fact_row(row: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    fact_id = _field(row, "id", (int,), where)
    object_id = _field(row, "object_id", _OPT, where)
    object_value = _field(row, "object_value", _OPT, where)
    if (object_id is None) == (object_value is None):
        raise _bad(where, "exactly one of object_id and object_value must be set")
    try:
        start = parse_bound(row["valid_from"], field="valid_from") if _field(row, "valid_from", _OPT, where) else None
        end = parse_bound(row["valid_to"], field="valid_to", end=True) if _field(row, "valid_to", _OPT, where) else None
    except KGError as exc:
        raise _bad(where, exc.message) from None
    confidence = _field(row, "confidence", (int, float), where)
    return (fact_id, _field(row, "subject", _TEXT, where), _field(row, "predicate", _TEXT, where), object_id,
            object_value, object_id if object_id is not None else object_value.casefold(),
            start.text if start else None, end.text if end else None,
            start.key if start else OPEN_START, end.key if end else OPEN_END, float(confidence),
            _field(row, "source", _TEXT, where), _field(row, "source_closet", _OPT, where),
            _field(row, "recorded_at", _TEXT, where), _field(row, "invalidated_at", _OPT, where),
            _field(row, "ended_by", _OPT, where))


def _alias_row(row: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    return tuple(_field(row, key, _TEXT, where) for key in _ALIAS_FIELDS)


def _memory_row(row: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    meta = _field(row, "metadata", (dict,), where)
    return (_field(row, "id", _TEXT, where), _field(row, "text", _TEXT, where), _field(row, "source", _OPT, where),
            _field(row, "created_at", _TEXT, where), json.dumps(meta))


# ---------------------------------------------------------------------- merge by the add rules


def import_graph(
    kg: KnowledgeGraph,
    facts: pl.DataFrame,
    *,
    entities: Iterable[Mapping[str, Any]] = (),
    aliases: Iterable[tuple[str, str]] = (),
    memories: Iterable[Mapping[str, Any]] = (),
    on_error: Literal["raise", "skip"] = "raise",
    allow_commas: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
) -> tuple[ImportReport, pl.DataFrame]:
    """:func:`kgtoolkit._bulk.import_facts` plus entities, aliases and memories, all in one transaction.

    ``entities``: dicts with ``name`` and optional ``type``/``properties``; each is created or updated
    as :meth:`KnowledgeGraph.add_entity` would (a type outside the vocabulary is kept ``unknown``,
    with a warning). ``aliases``: (alias, entity name) pairs, registered unless they clash (a
    warning). ``memories``: dicts as in a dump, added unless their id exists. Facts follow
    ``import_facts`` exactly (duplicates skipped, bad rows raise or are skipped).
    """
    config = kg.config

    def add_entities(cur: Cursor, warnings: list[str]) -> int:
        return _entities(kg, cur, config, entities, warnings)

    def add_aliases_and_memories(cur: Cursor, warnings: list[str]) -> int:
        _aliases(kg, cur, aliases, warnings)
        _memories(cur, memories, warnings)
        return 0

    return import_facts(kg, facts, on_error=on_error, allow_commas=allow_commas, source=source, progress=progress,
                        before=add_entities, after=add_aliases_and_memories)


def _entities(kg: KnowledgeGraph, cur: Cursor, config: GraphConfig, entities: Iterable[Mapping[str, Any]],
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
            q.ensure_entity(cur, Rules.name(name, "name"), key, props, warnings)
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


def _aliases(kg: KnowledgeGraph, cur: Cursor, aliases: Iterable[tuple[str, str]], warnings: list[str]) -> None:
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


def _memories(cur: Cursor, memories: Iterable[Mapping[str, Any]], warnings: list[str]) -> None:
    differing: list[str] = []
    for i, memory in enumerate(memories):
        row = _memory_row(memory, f"memories[{i}]")
        stored = cur.execute("SELECT text FROM memories WHERE id = ?", (row[0],)).fetchone()
        if stored is None:
            cur.execute("INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)", row)
        elif stored[0] != row[1]:
            differing.append(row[0])
    if differing:
        warnings.append(f"{len(differing)} memories were kept as stored; the input has other text under the same "
                        f"id: {', '.join(differing[:10])}")


def dump_parts(data: Mapping[str, Any]) -> tuple[pl.DataFrame, list[dict[str, Any]], list[tuple[str, str]],
                                                  list[Mapping[str, Any]]]:
    """A :func:`dump` as :func:`import_graph`'s inputs: facts frame, entities, aliases, memories.

    Merging a dump this way (into a graph that is not empty) follows the add rules: facts get new
    ids and transaction times, identical current facts and identical history rows are skipped, the
    graph's settings stay. A reject's ``line`` is the fact's id in the dump.
    """
    import polars as pl

    sections = _sections(data)
    names = {e.get("id"): e.get("name") for e in sections["entities"]}
    columns: dict[str, list[Any]] = {k: [] for k in ("line", "subject", "predicate", "object", "valid_from", "valid_to",
                                                   "confidence", "source", "source_closet")}
    for i, fact in enumerate(sections["facts"]):
        where = f"facts[{i}]"
        object_id = _field(fact, "object_id", _OPT, where)
        subject = _field(fact, "subject", _TEXT, where)
        columns["line"].append(_field(fact, "id", (int,), where))
        columns["subject"].append(names.get(subject) or subject)
        columns["predicate"].append(_field(fact, "predicate", _TEXT, where))
        columns["object"].append((names.get(object_id) or object_id) if object_id is not None
                                 else _field(fact, "object_value", _TEXT, where))
        columns["valid_from"].append(_field(fact, "valid_from", _OPT, where))
        columns["valid_to"].append(_field(fact, "valid_to", _OPT, where))
        columns["confidence"].append(float(_field(fact, "confidence", (int, float), where)))
        columns["source"].append(_field(fact, "source", _TEXT, where))
        columns["source_closet"].append(_field(fact, "source_closet", _OPT, where))
    frame = pl.DataFrame({k: pl.Series(k, v, dtype=pl.Int64 if k == "line" else pl.Float64 if k == "confidence"
                                       else pl.String) for k, v in columns.items()})
    entities = [{"name": _field(e, "name", _TEXT, f"entities[{i}]"), "type": e.get("type"),
                 "properties": e.get("properties") or None} for i, e in enumerate(sections["entities"])]
    aliases: list[tuple[str, str]] = []
    for i, a in enumerate(sections["aliases"]):
        target = _field(a, "entity_id", _TEXT, f"aliases[{i}]")
        aliases.append((_field(a, "name", _TEXT, f"aliases[{i}]"), names.get(target) or target))
    return frame, entities, aliases, list(sections["memories"])

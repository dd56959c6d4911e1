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

What :func:`restore` requires of a dump (what the store keeps true of every graph, so a dump kgtoolkit wrote
always passes) is checked, and listed, in ``_dump_check``, the dump's validator.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..._errors import InvalidRequest, KGError, StoreError
from ..._names import normalize_name, normalize_predicate
from ..._records import GraphConfig
from ..._version import __version__
from ..engine import (
    DUMP_FACT_FIELDS,
    FACT_COLUMNS,
    FACT_INDEXES,
    NOT_DUPLICATE_COLUMNS,
    SCHEMA_VERSION,
    TABLE_COLUMNS,
    Cursor,
)
from ..ops._rules import Rules
from ..reads import _queries as q
from ._dump_check import _OPT, _TEXT, _bad, _check, _check_memories, _field, _record, _sections
from ._load import ImportReport, import_facts
from ._record_check import _attempt, _Checker, _describe, _is_id, _json_problem, _unicode

if TYPE_CHECKING:
    import polars as pl

    from .._graph_store import GraphStore

__all__ = ["DUMP_FACT_FIELDS", "dump", "dump_parts", "dump_predicate_aliases", "import_graph", "is_empty", "restore"]

Progress = Callable[[int, int], None]

_ENTITY_FIELDS, _ALIAS_FIELDS, _MEMORY_FIELDS = (
    TABLE_COLUMNS["entities"],
    TABLE_COLUMNS["aliases"],
    TABLE_COLUMNS["memories"],
)
_CHUNK = 50_000

# ---------------------------------------------------------------------- dump


def dump(kg: GraphStore) -> dict[str, Any]:
    """The whole graph as JSON-ready data, read in one transaction (one consistent snapshot).

    Rows are ordered by their keys, so the same graph always gives the same dump.
    """
    with kg.engine.read() as cur:
        config = q.read_config(cur)
        stored = dict(cur.execute("SELECT key, value FROM settings ORDER BY key").fetchall())
        settings: dict[str, Any] = {
            "types": sorted(config.types),
            "value_predicates": sorted(config.value_predicates),
            "multi_valued": sorted(config.multi_valued),
            "comma_guard": config.comma_guard,
        }
        for key, value in stored.items():
            if key not in settings:
                try:
                    settings[key] = json.loads(value)
                except ValueError:
                    settings[key] = value
        entities = [
            {"id": i, "name": n, "type": t, "properties": json.loads(p), "created_at": c}
            for i, n, t, p, c in cur.execute("SELECT id, name, type, properties, created_at FROM entities ORDER BY id")
        ]
        facts = [
            dict(zip(DUMP_FACT_FIELDS, row))
            for row in cur.execute(f"SELECT {', '.join(DUMP_FACT_FIELDS)} FROM facts ORDER BY id")
        ]
        aliases = [
            dict(zip(_ALIAS_FIELDS, row))
            for row in cur.execute("SELECT alias, name, entity_id FROM aliases ORDER BY alias")
        ]
        memories = [
            {"id": i, "text": t, "source": s, "created_at": c, "metadata": json.loads(m)}
            for i, t, s, c, m in cur.execute("SELECT id, text, source, created_at, metadata FROM memories ORDER BY id")
        ]
        predicates = [
            {"id": i, "label": label} for i, label in cur.execute("SELECT id, label FROM predicates ORDER BY id")
        ]
        predicate_aliases = [
            {"alias": a, "predicate": p}
            for a, p in cur.execute("SELECT alias, predicate FROM predicate_aliases ORDER BY alias")
        ]
        not_duplicates = [
            dict(zip(NOT_DUPLICATE_COLUMNS, row))
            for row in cur.execute("SELECT kind, a, b, created_at FROM not_duplicates ORDER BY kind, a, b")
        ]
    return {
        "kgtoolkit": {"version": __version__, "schema": SCHEMA_VERSION},
        "config": settings,
        "entities": entities,
        "facts": facts,
        "aliases": aliases,
        "memories": memories,
        "predicates": predicates,
        "predicate_aliases": predicate_aliases,
        "not_duplicates": not_duplicates,
    }


def is_empty(kg: GraphStore) -> bool:
    """True when the graph holds no entity, fact, alias, memory or predicate alias (settings, and the labels of
    predicates no fact uses, do not count)."""
    if kg.engine.missing:  # a graph not made yet holds nothing (and a read would say there is none)
        return True
    with kg.engine.read() as cur:
        return _empty(cur)


def _empty(cur: Cursor) -> bool:
    return not cur.execute(
        "SELECT EXISTS(SELECT 1 FROM entities) OR EXISTS(SELECT 1 FROM facts) "
        "OR EXISTS(SELECT 1 FROM aliases) OR EXISTS(SELECT 1 FROM memories) "
        "OR EXISTS(SELECT 1 FROM predicate_aliases)"
    ).fetchone()[0]


# ---------------------------------------------------------------------- exact restore


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
        return InvalidRequest(
            f"{kg.location} is not empty; an exact restore needs an empty graph", field="path", value=str(kg.location)
        )

    if not is_empty(kg):
        raise not_empty()
    checked = _check(data)
    total = len(checked.facts)
    backend = kg.engine
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
                backend.insert_rows(cur, "facts", FACT_COLUMNS, checked.facts[start : start + _CHUNK])
                if progress:
                    progress(min(start + _CHUNK, total), total)
            if rebuild:
                for statement in indexes:
                    cur.execute(statement)
            backend.insert_rows(cur, "aliases", ("alias", "name", "entity_id"), checked.aliases)
            backend.insert_rows(cur, "memories", ("id", "text", "source", "created_at", "metadata"), checked.memories)
            backend.insert_rows(cur, "predicates", ("id", "label"), checked.predicates)
            # A dump from before labels: each predicate its id as its label, as the schema's migration does.
            cur.execute(
                "INSERT INTO predicates(id, label) SELECT DISTINCT predicate, predicate FROM facts WHERE TRUE "
                "ON CONFLICT (id) DO NOTHING"
            )
            backend.insert_rows(cur, "predicate_aliases", ("alias", "predicate"), checked.predicate_aliases)
            backend.insert_rows(cur, "not_duplicates", NOT_DUPLICATE_COLUMNS, checked.not_duplicates)
            backend.after_explicit_ids(cur, "facts")
        except StoreError as exc:  # the checks missed a rule: still refused whole
            if type(exc) is not StoreError:  # corrupt, disk_full, locked: the database failed, not the dump
                raise
            raise _bad("dump", f"the graph refused it ({exc.message}); nothing was restored") from exc
    return ImportReport(
        rows=total, inserted=total, duplicates=0, rejected=0, entities_created=len(checked.entities), types_upgraded=0
    )


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
    comma_guard: bool = False,
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
    kg.engine.create()  # it writes: a new graph is made first
    config = kg.config
    pairs = list(predicate_aliases)

    def add_entities(cur: Cursor, warnings: list[str]) -> int:
        return _entities(kg, cur, config, entities, warnings)

    def add_aliases_and_memories(cur: Cursor, warnings: list[str]) -> int:
        _aliases(kg, cur, aliases, warnings)
        _memories(cur, memories, warnings)
        _predicate_aliases(cur, pairs, warnings)
        return 0

    return import_facts(
        kg,
        facts,
        on_error=on_error,
        allow_commas=allow_commas,
        comma_guard=comma_guard,
        source=source,
        progress=progress,
        before=add_entities,
        after=add_aliases_and_memories,
    )


def _entities(
    kg: GraphStore, cur: Cursor, config: GraphConfig, entities: Iterable[Mapping[str, Any]], warnings: list[str]
) -> int:
    """Write a dump's entities into the open write (types outside the vocabulary warned), how many are new."""
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
                row = cur.execute(
                    "SELECT type FROM entities WHERE id = ?", (q.lookup(cur, normalize_name(name, field="name")),)
                ).fetchone()
                before = row[0] if row else None
            q.ensure_entity(cur, Rules(q.read_config(cur)).name(name, "name"), key, props, warnings)
            upgraded += before == "unknown"
        except KGError as exc:
            bad.append(f"{name!r} ({exc.message})")
    if outside:
        listed = ", ".join(f"{t} ({n})" for t, n in sorted(outside.items()))
        warnings.append(
            f"entity types outside this graph's vocabulary were kept as unknown: {listed}; extend it "
            "with configure(types=...) and import again to keep them"
        )
    if bad:
        warnings.append(f"{len(bad)} entities were not imported: {'; '.join(bad[:10])}")
    return upgraded


def _aliases(kg: GraphStore, cur: Cursor, aliases: Iterable[tuple[str, str]], warnings: list[str]) -> None:
    """Write a dump's aliases into the open write; one the rules refuse is left out and warned."""
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
    """Write a dump's memories into the open write; those the dump's rules refuse are left out and warned."""
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
        warnings.append(
            f"{len(differing)} memories were kept as stored; the input has other text under the same "
            f"id: {', '.join(differing[:10])}"
        )


def dump_parts(data: Mapping[str, Any]) -> tuple[pl.DataFrame, list[dict[str, Any]], list[tuple[str, str]], list[Any]]:
    """A :func:`dump` as :func:`import_graph`'s inputs: facts frame, entities, aliases, memories.

    Merging a dump this way (into a graph that is not empty) follows the add rules: facts get new
    ids and keep their transaction times (as an export's rows do: whether an end was written with its fact
    or recorded later decides an event, contract §12), identical current facts and identical history rows
    are skipped, the graph's settings stay. A reject's ``line`` is the fact's id in the dump. A record that is not an
    object, or a field of the wrong kind (a number for a name, an id that is not a whole number from
    1 to 2**63 - 1, text that is not valid Unicode), raises :class:`InvalidRequest` naming it;
    memories are checked as :func:`restore` checks them, and those that fail are left out (a warning).
    """
    import polars as pl

    sections = _sections(data)
    labels = _labels(sections["predicates"])
    entity_rows = [_record(e, f"entities[{i}]") for i, e in enumerate(sections["entities"])]
    names = {
        e["id"]: e["name"]
        for e in entity_rows
        if isinstance(e.get("id"), str) and isinstance(e.get("name"), str) and _unicode(e["name"])
    }
    columns: dict[str, list[Any]] = {
        k: []
        for k in (
            "line",
            "subject",
            "predicate",
            "object",
            "valid_from",
            "valid_to",
            "confidence",
            "source",
            "source_closet",
            "recorded_at",
            "invalidated_at",
            "occurrence",
        )
    }
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
        columns["object"].append(
            (names.get(object_id) or object_id) if object_id is not None else _field(fact, "object_value", _TEXT, where)
        )
        columns["valid_from"].append(_field(fact, "valid_from", _OPT, where))
        columns["valid_to"].append(_field(fact, "valid_to", _OPT, where))
        columns["confidence"].append(_float(_field(fact, "confidence", (int, float), where)))
        columns["source"].append(_field(fact, "source", _TEXT, where))
        columns["source_closet"].append(_field(fact, "source_closet", _OPT, where))
        # Kept, as an export's are (contract §9): they say whether an end was written with its fact (§12).
        columns["recorded_at"].append(_field(fact, "recorded_at", _OPT, where))
        columns["invalidated_at"].append(_field(fact, "invalidated_at", _OPT, where))
        occurrence = _field(fact, "occurrence", (int, type(None)), where)  # the import checks the rest
        if occurrence is not None and not 1 <= occurrence <= 2**63 - 1:
            raise _bad(f"{where}.occurrence", "must be a whole number from 1")
        columns["occurrence"].append(occurrence)
    frame = pl.DataFrame(
        {
            k: pl.Series(
                k, v, dtype=pl.Int64 if k in ("line", "occurrence") else pl.Float64 if k == "confidence" else pl.String
            )
            for k, v in columns.items()
        }
    )
    entities: list[dict[str, Any]] = []
    for i, e in enumerate(entity_rows):
        where = f"entities[{i}]"
        properties = e.get("properties") or None
        problem = _json_problem(dict(properties)) if isinstance(properties, Mapping) else None
        if problem:
            raise _bad(f"{where}.properties", f"must hold JSON values only: {problem}")
        entities.append(
            {"name": _field(e, "name", _TEXT, where), "type": _field(e, "type", _OPT, where), "properties": properties}
        )
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
    from ..ops import _predicates as _preds

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

"""A reader of other programs' SQLite knowledge graphs that share the ``entities`` / ``triples`` layout.

MemPalace (``~/.mempalace/knowledge_graph.sqlite3``) and Flowly (``~/.flowly/knowledge_graph.sqlite3``)
keep a temporal triple store in SQLite: ``entities(id, name, type, properties, …)`` and
``triples(subject, predicate, object, valid_from, valid_to, confidence, …)`` where ``subject`` and
``object`` are entity ids. This module opens such a file **read-only**, looks at the tables and
columns actually present (``PRAGMA table_info``), reads the ones it recognises, and lists the rest so
the import can report them. It never writes to the file and binds no value into SQL text.

What is recognised (anything else is reported as not recognised):

===========  =================================================================================
triples      ``subject``, ``predicate``, ``object`` (required); ``valid_from``, ``valid_to``,
             ``confidence``, ``source`` (who asserted it), ``source_closet``; MemPalace's
             ``adapter_name`` (a source where ``source`` is empty) and ``source_drawer_id`` /
             ``source_file`` (the evidence pointer where ``source_closet`` is empty). ``id`` and
             transaction times (``extracted_at``, ``created_at``, …) are recognised, not kept.
entities     ``id``, ``name``, ``type``, ``properties``; ``created_at`` recognised, not kept.
aliases      ``alias`` (or ``name``) and ``entity_id`` (or ``entity``, ``canonical_id``).
===========  =================================================================================
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..._errors import InvalidRequest, KGError, NotFound, StoreError
from ..._names import normalize_predicate
from ..engine import sqlite_failure

if TYPE_CHECKING:
    import polars as pl

__all__ = ["SQLITE_MAGIC", "ForeignGraph", "is_kgtoolkit_file", "is_sqlite_file", "read_foreign"]

SQLITE_MAGIC = b"SQLite format 3\x00"

# The triples columns read (by name, case-insensitive), and the columns standing in for two of them.
_TRIPLE_FIELDS = ("subject", "predicate", "object", "valid_from", "valid_to", "confidence", "source", "source_closet")
_TRIPLE_FALLBACKS = {  # used where the main column is absent or empty, in this order
    "source": ("adapter_name",),
    "source_closet": ("source_drawer_id", "source_file"),
}
_TRIPLE_NOT_KEPT = {
    "id": "kgtoolkit numbers its facts itself",
    "extracted_at": "the import's time is recorded as recorded_at",
    "created_at": "the import's time is recorded as recorded_at",
    "recorded_at": "the import's time is recorded as recorded_at",
    "updated_at": "the import's time is recorded as recorded_at",
    "invalidated_at": "the import's time is recorded for ended facts",
}
_ENTITY_FIELDS = ("id", "name", "type", "properties")
_ENTITY_NOT_KEPT = {
    "created_at": "entities get the import's time as created_at",
    "updated_at": "entities get the import's time as created_at",
}
_ALIAS_NAME = ("alias", "name")
_ALIAS_TARGET = ("entity_id", "entity", "canonical_id", "canonical", "target_id", "target")


@dataclasses.dataclass
class ForeignGraph:
    """What :func:`read_foreign` found.

    ``facts``: a frame for :func:`kgtoolkit._bulk.import_facts` (``line`` is the triple's rowid);
    ``entities``: dicts with ``name``, ``type``, ``properties`` (a dict or None); ``aliases``:
    (alias, entity name) pairs; ``warnings``: what was not recognised or not kept.
    """

    program: str
    facts: pl.DataFrame
    entities: list[dict[str, Any]]
    aliases: list[tuple[str, str]]
    warnings: list[str]


def is_sqlite_file(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` starts with SQLite's file header."""
    try:
        with Path(path).open("rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _connect(path: Path) -> sqlite3.Connection:
    """A read-only connection to another program's SQLite file, its failures as kgtoolkit's."""
    if not path.exists():
        raise NotFound(f"no file at {path}", field="path", value=str(path))
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise _failure(exc, path, f"cannot read {path} as an SQLite file: {exc}") from exc
    return conn


def _failure(exc: sqlite3.DatabaseError, path: Path, message: str) -> KGError:
    """A file being read for an import fails: corrupt, locked or full as anywhere (:mod:`._failures`), else
    ``message`` (the file is no SQLite file, or not of a layout kgtoolkit reads)."""
    found = sqlite_failure(exc, path=path, timeout=5.0)
    if isinstance(found, StoreError) and type(found) is not StoreError:
        return found
    return StoreError(message, field="path", value=str(path))


def _ident(name: str) -> str:
    """An identifier read from the file, quoted for SQL (identifiers cannot be parameters)."""
    return '"' + name.replace('"', '""') + '"'


def _tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        )
    ]
    return {name: [r[1] for r in conn.execute(f"PRAGMA table_info({_ident(name)})")] for name in names}


def is_kgtoolkit_file(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is a kgtoolkit graph (its own schema), not another program's file."""
    conn = _connect(Path(path))
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = _tables(conn)
    except sqlite3.DatabaseError as exc:
        raise _failure(exc, Path(path), f"cannot read {path}: {exc}") from exc
    finally:
        conn.close()
    return version >= 1 and {"facts", "entities", "settings"} <= set(tables)


def _pick(columns: Iterable[str], candidates: Iterable[str]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    for candidate in candidates:
        if candidate in lowered:
            return lowered[candidate]
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def _filled(value: str | None) -> str | None:
    """``value`` stripped, or None when it is missing or blank."""
    return value.strip() or None if value is not None else None


def _predicate_or_none(predicate: str | None) -> str | None:
    """:func:`normalize_predicate`, or None for a missing or unusable predicate."""
    if predicate is None:
        return None
    try:
        return normalize_predicate(predicate)
    except KGError:
        return None


@dataclasses.dataclass
class _Findings:
    """What a table reader kept aside for the report."""

    unknown_columns: list[str] = dataclasses.field(default_factory=list)
    not_kept: list[str] = dataclasses.field(default_factory=list)
    fallbacks: list[str] = dataclasses.field(default_factory=list)


def _read_triples(
    conn: sqlite3.Connection, file: Path, table: str, columns: list[str], found: _Findings
) -> dict[str, list[Any]]:
    """The triples as columns (``line`` = rowid), fallback columns already applied; subjects/objects raw."""
    picked = {f: _pick(columns, [f]) for f in _TRIPLE_FIELDS}
    missing = [f for f in ("subject", "predicate", "object") if picked[f] is None]
    if missing:
        raise InvalidRequest(
            f"{file}: table {table!r} has no {', '.join(missing)} column (it has: {', '.join(columns)})",
            field="path",
            value=str(file),
        )
    fallbacks = {f: [c for c in (_pick(columns, [n]) for n in names) if c] for f, names in _TRIPLE_FALLBACKS.items()}
    used = {c for c in picked.values() if c} | {c for cs in fallbacks.values() for c in cs}
    for c in columns:
        if c in used:
            continue
        if c.lower() in _TRIPLE_NOT_KEPT:
            found.not_kept.append(f"{table}.{c} ({_TRIPLE_NOT_KEPT[c.lower()]})")
        else:
            found.unknown_columns.append(f"{table}.{c}")
    found.fallbacks += [f"{table}.{c} is used as {f} where {f} is empty" for f, cs in fallbacks.items() for c in cs]

    spare = [c for f in _TRIPLE_FALLBACKS for c in fallbacks[f]]
    select = ", ".join(_ident(c) if c else "NULL" for c in [picked[f] for f in _TRIPLE_FIELDS] + spare)
    try:
        records = conn.execute(f"SELECT rowid, {select} FROM {_ident(table)} ORDER BY rowid").fetchall()
    except sqlite3.OperationalError:  # a WITHOUT ROWID table: number the rows instead
        records = [(i, *r) for i, r in enumerate(conn.execute(f"SELECT {select} FROM {_ident(table)}"), start=1)]

    n = len(_TRIPLE_FIELDS)
    out: dict[str, list[Any]] = {"line": [], **{f: [] for f in _TRIPLE_FIELDS}}
    for record in records:
        out["line"].append(record[0])
        values = dict(zip(_TRIPLE_FIELDS, record[1 : n + 1]))
        extra = iter(record[n + 1 :])
        for field in _TRIPLE_FALLBACKS:  # the first non-blank of the column and its fallbacks
            for _ in fallbacks[field]:
                candidate = _text(next(extra))
                if _filled(_text(values[field])) is None and _filled(candidate) is not None:
                    values[field] = candidate
        for field in _TRIPLE_FIELDS:
            value = values[field]
            if field == "confidence" and isinstance(value, (int, float)) and not isinstance(value, bool):
                out[field].append(value)
            elif field == "confidence":
                out[field].append(_filled(_text(value)))
            else:
                out[field].append(_text(value))
    return out


def _read_entities(
    conn: sqlite3.Connection, table: str, columns: list[str], found: _Findings
) -> list[tuple[str | None, str | None, str | None, str | None]]:
    """(id, name, type, properties) of each entity row, in rowid order."""
    picked = {f: _pick(columns, [f]) for f in _ENTITY_FIELDS}
    if picked["id"] is None and picked["name"] is None:
        found.unknown_columns += [f"{table}.{c}" for c in columns]
        return []
    for c in columns:
        if c in picked.values():
            continue
        if c.lower() in _ENTITY_NOT_KEPT:
            found.not_kept.append(f"{table}.{c} ({_ENTITY_NOT_KEPT[c.lower()]})")
        else:
            found.unknown_columns.append(f"{table}.{c}")
    select = ", ".join(_ident(c) if c else "NULL" for c in (picked[f] for f in _ENTITY_FIELDS))
    return [
        (_text(a), _text(b), _text(c), _text(d))
        for a, b, c, d in conn.execute(f"SELECT {select} FROM {_ident(table)} ORDER BY rowid")
    ]


def _read_aliases(
    conn: sqlite3.Connection, table: str, columns: list[str], found: _Findings
) -> list[tuple[str | None, str | None]]:
    """(alias, entity id) of each alias row."""
    name, target = _pick(columns, _ALIAS_NAME), _pick(columns, _ALIAS_TARGET)
    if name is None or target is None:
        found.unknown_columns += [f"{table}.{c}" for c in columns]
        return []
    found.unknown_columns += [f"{table}.{c}" for c in columns if c not in (name, target)]
    return [
        (_text(a), _text(e))
        for a, e in conn.execute(f"SELECT {_ident(name)}, {_ident(target)} FROM {_ident(table)} ORDER BY rowid")
    ]


def read_foreign(path: str | os.PathLike[str], *, value_predicates: Iterable[str] = ()) -> ForeignGraph:  # noqa: C901
    """Read another program's ``entities`` / ``triples`` SQLite graph, read-only.

    Subjects and objects (entity ids there) become the entities' names, so kgtoolkit's own name
    rules apply on import. Every entity row is kept, except those only ever used as the object of
    one of ``value_predicates`` (with no type or properties): such objects are text in kgtoolkit.
    """
    import polars as pl

    file = Path(path)
    found = _Findings()
    conn = _connect(file)
    try:
        tables = _tables(conn)
        lower = {t.lower(): t for t in tables}
        triples = lower.get("triples")
        if triples is None:
            raise InvalidRequest(
                f"{file} has no 'triples' table (tables: {', '.join(tables) or 'none'}); kgtoolkit imports SQLite "
                "graphs with the entities/triples layout of MemPalace and Flowly, or its own files",
                field="path",
                value=str(file),
            )
        rows = _read_triples(conn, file, triples, tables[triples], found)
        entities_table, alias_table = lower.get("entities"), lower.get("aliases")
        entity_rows = _read_entities(conn, entities_table, tables[entities_table], found) if entities_table else []
        alias_rows = _read_aliases(conn, alias_table, tables[alias_table], found) if alias_table else []
        known = {triples, entities_table, alias_table}
        unknown_tables = [
            f"{t} ({conn.execute(f'SELECT count(*) FROM {_ident(t)}').fetchone()[0]} rows)"
            for t in tables
            if t not in known
        ]
    except sqlite3.DatabaseError as exc:
        raise _failure(exc, file, f"cannot read {file}: {exc}") from exc
    finally:
        conn.close()

    # Subjects and objects are entity ids there: use the entities' names.
    names: dict[str, str] = {}
    for eid, name, _type, _props in entity_rows:
        key = eid if eid is not None else name
        if key is not None:
            names.setdefault(key, name if name is not None and name.strip() else key)
    for field in ("subject", "object"):
        rows[field] = [names.get(v, v) if v is not None else None for v in rows[field]]
    confidence = rows.pop("confidence")
    facts = pl.DataFrame({k: pl.Series(k, v, dtype=pl.Int64 if k == "line" else pl.String) for k, v in rows.items()})
    if any(isinstance(c, str) for c in confidence):  # text in a REAL column: kept, the import reports it
        facts = facts.with_columns(
            pl.Series("confidence", [None if c is None else str(c) for c in confidence], dtype=pl.String)
        )
    else:
        facts = facts.with_columns(pl.Series("confidence", confidence, dtype=pl.Float64))

    # Entities only ever used as values are left out: they are text objects in kgtoolkit.
    values = {_predicate_or_none(p) for p in value_predicates}
    more_than_value: dict[str, bool] = {}
    for subject, predicate, obj in zip(rows["subject"], rows["predicate"], rows["object"]):
        if subject is not None:
            more_than_value[subject] = True
        if obj is not None:
            more_than_value[obj] = more_than_value.get(obj, False) or _predicate_or_none(predicate) not in values
    entities: list[dict[str, Any]] = []
    bad_properties = value_only = 0
    for eid, name, type_, props in entity_rows:
        display = name if _filled(name) else eid
        if display is None:
            continue
        parsed: Any = None
        if _filled(props) is not None:
            try:
                parsed = json.loads(props)  # type: ignore[arg-type]
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                bad_properties += 1
                parsed = None
        kind = _filled(type_)
        if more_than_value.get(display) is False and kind in (None, "unknown") and not parsed:
            value_only += 1
            continue
        entities.append({"name": display, "type": kind, "properties": parsed or None})
    aliases = [
        (a, names.get(e, e)) for a, e in alias_rows if a is not None and a.strip() and e is not None and e.strip()
    ]

    has = {c.lower() for c in tables[triples]}
    program = (
        "MemPalace"
        if has & {"source_file", "extracted_at", "source_drawer_id", "adapter_name"}
        else "Flowly"
        if "source" in has or alias_table
        else "entities/triples"
    )
    warnings: list[str] = []
    if unknown_tables:
        warnings.append(f"{file.name}: tables not recognised, not imported: {', '.join(unknown_tables)}")
    if found.unknown_columns:
        warnings.append(f"{file.name}: columns not recognised, not imported: {', '.join(found.unknown_columns)}")
    if found.not_kept:
        warnings.append(f"{file.name}: recognised, not kept: {'; '.join(found.not_kept)}")
    warnings.extend(f"{file.name}: {note}" for note in found.fallbacks)
    if bad_properties:
        warnings.append(
            f"{file.name}: {bad_properties} entities have properties that are not a JSON object; "
            "their properties were not imported"
        )
    if value_only:
        warnings.append(
            f"{file.name}: {value_only} entities only held values of value predicates; they are "
            "text objects in kgtoolkit, not entities"
        )
    return ForeignGraph(program, facts, entities, aliases, warnings)

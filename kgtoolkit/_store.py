"""The store: one SQLite file holding entities, facts, aliases, memories and settings.

All SQL of kgtoolkit lives in this module, behind :class:`KnowledgeGraph`'s methods.

>>> kg = open(":memory:")
>>> kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02").created
True
>>> [f.object_name for f in kg.query("My API")]
['Redis']
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional
from urllib.parse import quote

from ._errors import (
    AliasConflict,
    IntervalOrder,
    InvalidName,
    InvalidRequest,
    NotCurrent,
    NotFound,
    ReadOnly,
    StoreError,
    UnknownType,
)
from ._names import (
    DEFAULT_MULTI_VALUED,
    DEFAULT_TYPES,
    DEFAULT_VALUE_PREDICATES,
    check_commas,
    check_unicode,
    clean_text,
    normalize_name,
    normalize_predicate,
    printable,
)
from ._records import (
    AddResult,
    Alias,
    ConflictGroup,
    Direction,
    Entity,
    Fact,
    GraphConfig,
    Memory,
    MergeResult,
    Stats,
    SupersedeResult,
)
from ._time import OPEN_END, OPEN_START, Bound, TimeInput, key_to_text, now_text, parse_bound, parse_window, today

__all__ = ["DEFAULT_PATH", "KnowledgeGraph", "SCHEMA_VERSION", "open", "resolve_path"]

DEFAULT_PATH = Path("~/.kgtoolkit/knowledge_graph.sqlite3")
ENV_VAR = "KGTOOLKIT_DB"

# Each entry migrates the schema from version i to i + 1; PRAGMA user_version holds the version.
_MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE entities (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL DEFAULT 'unknown',
            properties TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            subject TEXT NOT NULL REFERENCES entities(id),
            predicate TEXT NOT NULL,
            object_id TEXT REFERENCES entities(id),
            object_value TEXT,
            object_key TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            from_us INTEGER NOT NULL,
            to_us INTEGER NOT NULL,
            confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0.0 AND 1.0),
            source TEXT NOT NULL DEFAULT 'agent',
            source_closet TEXT,
            recorded_at TEXT NOT NULL,
            invalidated_at TEXT,
            ended_by TEXT,
            CHECK ((object_id IS NULL) <> (object_value IS NULL)),
            CHECK (to_us >= from_us)
        )""",
        # One current fact per (subject, predicate, object): the de-duplication rule, enforced.
        "CREATE UNIQUE INDEX facts_current ON facts(subject, predicate, object_key) WHERE valid_to IS NULL",
        "CREATE INDEX facts_subject ON facts(subject, predicate, from_us)",
        "CREATE INDEX facts_object ON facts(object_id, predicate) WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_predicate ON facts(predicate, object_key)",
        "CREATE INDEX facts_validity ON facts(from_us, to_us)",
        "CREATE INDEX facts_timeline ON facts(valid_from IS NULL, from_us)",
        """CREATE TABLE aliases (
            alias TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE
        )""",
        "CREATE INDEX aliases_entity ON aliases(entity_id)",
        """CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            source TEXT,
            created_at TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}'
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ],
]
SCHEMA_VERSION = len(_MIGRATIONS)

_FACT_COLUMNS = """f.id, f.subject, s.name, f.predicate, COALESCE(f.object_id, f.object_value),
    COALESCE(o.name, f.object_value), f.object_id IS NULL, f.valid_from, f.valid_to, f.confidence,
    f.source, f.source_closet, f.recorded_at, f.invalidated_at, f.ended_by"""
_FACT_FROM = "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id"
_FACT_SELECT = f"SELECT {_FACT_COLUMNS} FROM {_FACT_FROM}"
_ORDER = "ORDER BY f.valid_from IS NULL, f.from_us, f.id"
_DIRECTIONS = ("outgoing", "incoming", "both")


def resolve_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The one rule for which file is the graph: ``path``, else ``$KGTOOLKIT_DB``, else the default.

    The default is ``~/.kgtoolkit/knowledge_graph.sqlite3``. Every door (library, CLI, agent tool,
    prompt summary, dashboard, search index) goes through this function.
    """
    chosen = path if path not in (None, "") else os.environ.get(ENV_VAR) or DEFAULT_PATH
    if str(chosen) == ":memory:":
        return Path(":memory:")
    return Path(chosen).expanduser()


def open(path: str | os.PathLike[str] | None = None, *, read_only: bool = False, timeout: float = 30.0) -> KnowledgeGraph:  # noqa: A001
    """Open (creating on first use) the graph at ``path`` (see :func:`resolve_path`).

    >>> kg = open(":memory:")
    >>> kg.stats().facts
    0
    """
    return KnowledgeGraph(path, read_only=read_only, timeout=timeout)


class KnowledgeGraph:
    """A temporal knowledge graph in one SQLite file.

    Safe to share between threads of one process; several processes may write the same file at
    once (WAL, a busy timeout, and every write in one ``BEGIN IMMEDIATE`` transaction).

    **One SQLite library per process for a graph file.** In this process the file is opened only
    through Python's ``sqlite3``: a second copy of the SQLite library (ADBC's driver bundles one) on
    the same file in the same process can corrupt it, as each copy's POSIX locks are invisible to the
    other. Whole-table reads into Arrow therefore run in a reader process
    (:mod:`kgtoolkit._arrow_read`), and only the reader modules import ADBC's SQLite driver
    (``tests/test_one_sqlite.py`` checks both).

    A graph whose file or folder this user cannot write opens read-only (``read_only_reason`` says
    why): reads work, in SQLite's ``immutable`` mode when the WAL's shared-memory file cannot be made,
    and writes raise :class:`ReadOnly` naming the reason.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False, timeout: float = 30.0) -> None:
        self.path = resolve_path(path)
        self._lock = threading.RLock()
        self._timeout = timeout
        self._immutable = False
        #: Why a graph opened for writing is read-only anyway (a folder or file this user cannot write).
        self.read_only_reason: str | None = None
        memory = str(self.path) == ":memory:"
        try:
            if not memory and not read_only:
                folder = self.path.parent
                if not folder.exists():
                    default_folder = DEFAULT_PATH.expanduser().parent
                    folder.mkdir(parents=True, exist_ok=True, mode=0o700 if folder == default_folder else 0o777)
            missing = read_only and not memory and not self.path.exists()
            if not memory and not read_only:
                self.read_only_reason = _unwritable(self.path)
                missing = bool(self.read_only_reason) and not self.path.exists()
        except OSError as exc:  # a path component is a file, a name too long, no permission, ...
            raise StoreError(f"cannot use {self.path} for a knowledge graph: {exc.strerror or exc}; choose "
                             "another path", field="path", value=str(self.path)) from None
        if missing and self.read_only_reason:
            raise StoreError(f"cannot create a graph at {self.path}: {self.read_only_reason}; choose another path",
                             field="path", value=str(self.path))
        if missing:
            raise NotFound(f"no graph at {self.path}; check the path (a graph file is created by its first write)",
                           field="path", value=str(self.path))
        read_only = read_only or self.read_only_reason is not None
        self.read_only = read_only
        try:
            self._connect()
            if not read_only:
                self._enable_wal()
                self._conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open {self.path} as a knowledge graph: {exc}", field="path",
                             value=str(self.path)) from None

    def _connect(self) -> None:
        """Open the connection and check the schema before anything changes the file.

        Read-only, the file is opened with ``mode=ro``. A graph in WAL mode whose folder cannot be
        written (its ``-shm`` file cannot be created) is then opened ``immutable``, when no ``-wal``
        file holds changes that only a writer could fold in.
        """
        memory = str(self.path) == ":memory:"
        if not self.read_only or memory:
            self._conn = self._sqlite(str(self.path), uri=False)
            self._check_schema()  # refuse a newer or foreign file before WAL (below) changes it
            return
        self._conn = self._sqlite(self._uri(), uri=True)
        try:
            self._check_schema()
        except sqlite3.OperationalError as exc:
            wal = Path(f"{self.path}-wal")
            if "unable to open" not in str(exc) or (wal.exists() and wal.stat().st_size > 0):
                raise
            self._conn.close()
            self._immutable = True
            self._conn = self._sqlite(self._uri(), uri=True)
            self._check_schema()

    def _sqlite(self, target: str, *, uri: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(target, uri=uri, timeout=self._timeout, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _uri(self) -> str:
        # Percent-escape the path: in a URI, '?', '#' and '%' in a folder name would name another file.
        return f"file:{quote(str(self.path))}?mode=ro" + ("&immutable=1" if self._immutable else "")

    @property
    def _reader_uri(self) -> str:
        """The URI the reader process (whole-table reads, :mod:`kgtoolkit._arrow_read`) opens the file with."""
        return f"file:{quote(str(self.path.resolve()))}?mode=ro" + ("&immutable=1" if self._immutable else "")

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        """Close the connection (and any search index opened on this graph); the object is unusable afterwards."""
        with self._lock:
            for index in self.__dict__.pop("_search_indexes", {}).values():
                index.close()
            self._conn.close()

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeGraph({str(self.path)!r}{', read_only=True' if self.read_only else ''})"

    def _enable_wal(self) -> None:
        """Switch to WAL, retrying: on a new file another process's read lock makes this switch fail at once
        with "database is locked" (SQLite does not wait its busy timeout for it)."""
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    def _schema_version(self) -> int:
        """The file's schema version; refuses a newer schema and another program's SQLite file.

        Call it inside a transaction: the version and the table list must come from one snapshot, or a
        process racing another's first-time creation could see the tables before their version.
        """
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this kgtoolkit understands "
                f"({SCHEMA_VERSION}); upgrade kgtoolkit", field="path", value=str(self.path))
        if version == 0:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables:
                raise StoreError(
                    f"{self.path} is an SQLite file of another program (tables: {', '.join(sorted(tables))}); "
                    "open a new file and import it with `kgtoolkit import`", field="path", value=str(self.path))
        return version

    def _check_schema(self) -> int:
        """:meth:`_schema_version` in one read transaction (it writes nothing)."""
        self._conn.execute("BEGIN")
        try:
            return self._schema_version()
        finally:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")

    def _migrate(self) -> None:
        conn = self._conn
        if self._check_schema() == SCHEMA_VERSION:
            return
        if self.read_only:
            raise StoreError(f"{self.path} needs a schema upgrade; open it once without read_only",
                             field="path", value=str(self.path))
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = self._schema_version()  # again under the write lock: another process may have won
            for step in _MIGRATIONS[version:]:
                for statement in step:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _tx(self, *, write: bool) -> Iterator[sqlite3.Cursor]:
        """One transaction: ``BEGIN IMMEDIATE`` for writes (no lock upgrades, so no deadlock)."""
        if write and self.read_only:
            if self.read_only_reason:
                raise ReadOnly(f"{self.path} cannot be changed: {self.read_only_reason}. Reads work; to write, give "
                               "this user write access to the file and its folder, or copy the graph elsewhere",
                               field="path", value=str(self.path))
            raise ReadOnly(f"{self.path} is open read-only; open it without read_only to change it")
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"the graph at {self.path} is busy ({exc}) after waiting "
                                 f"{self._timeout:g} s; retry, or raise the timeout") from None
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                try:
                    cur.execute("COMMIT")
                except sqlite3.OperationalError as exc:
                    cur.execute("ROLLBACK")
                    raise StoreError(f"could not commit to {self.path}: {exc}; nothing was written") from None
            finally:
                cur.close()

    # ------------------------------------------------------------------ settings

    @property
    def config(self) -> GraphConfig:
        """The graph's settings: type vocabulary, value predicates, multi-valued predicates, comma guard."""
        with self._tx(write=False) as cur:
            return self._config(cur)

    def _config(self, cur: sqlite3.Cursor) -> GraphConfig:
        stored = dict(cur.execute("SELECT key, value FROM settings").fetchall())

        def names(key: str, default: frozenset[str]) -> frozenset[str]:
            return frozenset(json.loads(stored[key])) if key in stored else default

        return GraphConfig(
            types=names("types", DEFAULT_TYPES),
            value_predicates=names("value_predicates", DEFAULT_VALUE_PREDICATES),
            multi_valued=names("multi_valued", DEFAULT_MULTI_VALUED),
            comma_guard=json.loads(stored.get("comma_guard", "true")),
        )

    def configure(
        self,
        *,
        types: Sequence[str] | None = None,
        value_predicates: Sequence[str] | None = None,
        multi_valued: Sequence[str] | None = None,
        comma_guard: bool | None = None,
    ) -> GraphConfig:
        """Replace some settings of this graph (each given set replaces the stored one).

        New value predicates apply to facts written from now on; stored facts keep their kind. Names
        are normalised as entity names are, and one that is not valid Unicode is refused
        (:class:`InvalidName`); removing a type some entity has is refused (:class:`UnknownType`).

        >>> kg = open(":memory:")
        >>> sorted(kg.configure(types=kg.config.types | {"service", "team"}).types)[:3]
        ['company', 'event', 'person']
        """
        updates: dict[str, str] = {}
        if types is not None:
            vocabulary = self._setting_names(types, "types", "type")
            vocabulary.add("unknown")
            updates["types"] = json.dumps(sorted(vocabulary))
        if value_predicates is not None:
            updates["value_predicates"] = json.dumps(sorted(self._setting_names(value_predicates, "value_predicates", "predicate")))
        if multi_valued is not None:
            updates["multi_valued"] = json.dumps(sorted(self._setting_names(multi_valued, "multi_valued", "predicate")))
        if comma_guard is not None:
            if not isinstance(comma_guard, bool):
                raise InvalidRequest("comma_guard must be true or false", field="comma_guard", value=str(comma_guard))
            updates["comma_guard"] = json.dumps(comma_guard)
        with self._tx(write=True) as cur:
            if types is not None:
                in_use = {r[0] for r in cur.execute("SELECT DISTINCT type FROM entities")}
                missing = in_use - set(json.loads(updates["types"]))
                if missing:
                    raise UnknownType(
                        f"types {sorted(missing)} are used by entities; keep them in the vocabulary",
                        field="types", value=sorted(missing))
            cur.executemany("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", updates.items())
            return self._config(cur)

    def _setting_names(self, values: Sequence[str], setting: str, field: str) -> set[str]:
        """The normalised names of a setting. One that is not valid Unicode is refused, saying how to remove it
        when it is already stored (older versions accepted such names from the command line)."""
        keys: set[str] = set()
        for name in _strings(values, setting):
            try:
                keys.add(normalize_name(name, field=field))
            except InvalidName as exc:
                if name == printable(name) or name not in getattr(self.config, setting):
                    raise
                option = {"types": "--remove-type", "value_predicates": "--remove-value-predicate",
                          "multi_valued": "--remove-multi-valued"}[setting]
                raise InvalidName(f"{exc.message}. It is stored in this graph's {setting}: remove it with "
                                  f"`kgtoolkit config {option} '{printable(name)}'` (or leave it out of "
                                  f"configure({setting}=...))", **exc.data) from None
        return keys

    # ------------------------------------------------------------------ names

    def resolve(self, name: str) -> str:
        """The entity id ``name`` names: exact id, then alias; never fuzzy.

        Raises :class:`NotFound` with up to five "Did you mean…?" suggestions.
        """
        with self._tx(write=False) as cur:
            return self._resolve(cur, name)

    def _resolve(self, cur: sqlite3.Cursor, name: str, *, field: str = "name") -> str:
        found = self._lookup(cur, normalize_name(name, field=field))
        if found is None:
            raise self._not_found(cur, name, field)
        return found

    @staticmethod
    def _lookup(cur: sqlite3.Cursor, key: str) -> str | None:
        row = cur.execute(
            "SELECT id FROM entities WHERE id = :k UNION ALL SELECT entity_id FROM aliases WHERE alias = :k LIMIT 1",
            {"k": key}).fetchone()
        return row[0] if row else None

    def _not_found(self, cur: sqlite3.Cursor, name: str, field: str) -> NotFound:
        suggestions = self._suggest(cur, normalize_name(name, field=field))
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        return NotFound(
            f"no entity named {name!r} ({field}); names resolve exactly or through an alias, never by "
            f"guessing.{hint} Use the exact name or register an alias with `alias`.",
            field=field, value=name, suggestions=suggestions)

    @staticmethod
    def _suggest(cur: sqlite3.Cursor, key: str, limit: int = 5) -> list[str]:
        """Partial matches of ``key`` among entity ids and aliases, most connected first."""
        probes = [key] + [t for t in key.replace("-", "_").split("_") if len(t) >= 3 and t != key]
        found: list[str] = []
        for probe in probes:
            rows = cur.execute(
                """SELECT name, entity FROM (
                       SELECT e.name AS name, e.id AS entity FROM entities e
                       WHERE instr(e.id, :p) > 0 OR (length(e.id) >= 3 AND instr(:p, e.id) > 0)
                       UNION
                       SELECT a.name, a.entity_id FROM aliases a
                       WHERE instr(a.alias, :p) > 0 OR (length(a.alias) >= 3 AND instr(:p, a.alias) > 0))
                   ORDER BY (SELECT count(*) FROM facts WHERE subject = entity)
                          + (SELECT count(*) FROM facts WHERE object_id = entity) DESC, name
                   LIMIT 20""",
                {"p": probe}).fetchall()
            for spelling, _entity in rows:
                if spelling not in found:
                    found.append(spelling)
            if len(found) >= limit:
                break
        return found[:limit]

    # ------------------------------------------------------------------ entities

    def entity(self, name: str) -> Entity:
        """The entity ``name`` resolves to (exact id or alias)."""
        with self._tx(write=False) as cur:
            return self._entity(cur, self._resolve(cur, name))

    @staticmethod
    def _entity(cur: sqlite3.Cursor, entity_id: str) -> Entity:
        row = cur.execute("SELECT id, name, type, properties, created_at FROM entities WHERE id = ?",
                          (entity_id,)).fetchone()
        return Entity(row[0], row[1], row[2], json.loads(row[3]), row[4])

    def entities(self, *, type: str | None = None, limit: int | None = None, offset: int = 0) -> list[Entity]:  # noqa: A002
        """Entities ordered by id, optionally of one type."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                "SELECT id, name, type, properties, created_at FROM entities WHERE :t IS NULL OR type = :t "
                "ORDER BY id LIMIT :limit OFFSET :offset",
                {"t": type, **_page(limit, offset)}).fetchall()
        return [Entity(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def add_entity(self, name: str, *, type: str | None = None, properties: Mapping[str, Any] | None = None) -> Entity:  # noqa: A002
        """Create the entity ``name`` (or update its type and properties) and return it."""
        with self._tx(write=True) as cur:
            config = self._config(cur)
            warnings: list[str] = []
            entity_id = self._ensure_entity(cur, name, _check_type(type, config, "type"), properties,
                                            config, warnings, field="name")
            return self._entity(cur, entity_id)

    def _ensure_entity(self, cur: sqlite3.Cursor, name: str, type_: str | None, properties: Mapping[str, Any] | None,
                       config: GraphConfig, warnings: list[str], *, field: str) -> str:
        display = clean_text(name, field=field)
        key = normalize_name(display, field=field)
        entity_id = self._lookup(cur, key)
        props = _json_object(properties, "properties")
        if entity_id is None:
            cur.execute("INSERT INTO entities(id, name, type, properties, created_at) VALUES (?, ?, ?, ?, ?)",
                        (key, display, type_ or "unknown", json.dumps(props or {}), now_text()))
            return key
        if type_ or props:
            current_type, stored = cur.execute("SELECT type, properties FROM entities WHERE id = ?",
                                               (entity_id,)).fetchone()
            new_type = current_type
            if type_ and type_ != "unknown" and type_ != current_type:
                if current_type == "unknown":
                    new_type = type_
                else:
                    warnings.append(f"{entity_id!r} is a {current_type}; kept that type (this write said {type_})")
            merged = {**json.loads(stored), **(props or {})}
            cur.execute("UPDATE entities SET type = ?, properties = ? WHERE id = ?",
                        (new_type, json.dumps(merged), entity_id))
        return entity_id

    # ------------------------------------------------------------------ writes

    def add(
        self,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002
        *,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        confidence: float = 1.0,
        source: str | None = None,
        source_closet: str | None = None,
        subject_type: str | None = None,
        object_type: str | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> AddResult:
        """Record ``subject → predicate → object``; missing entities are created.

        If the same fact is already current, it is returned unchanged with ``created=False``.
        A fact may be added already ended (``valid_to``), as history. ``properties`` go to the subject.

        >>> kg = open(":memory:")
        >>> kg.add("my_api", "uses queue", "Redis").created, kg.add("My API", "uses_queue", "redis").created
        (True, False)
        """
        with self._tx(write=True) as cur:
            return self._add(cur, self._config(cur), subject, predicate, object, valid_from=valid_from,
                             valid_to=valid_to, confidence=confidence, source=source, source_closet=source_closet,
                             subject_type=subject_type, object_type=object_type, properties=properties)

    def _add(self, cur: sqlite3.Cursor, config: GraphConfig, subject: str, predicate: str, obj: str, *,
             valid_from: TimeInput | None, valid_to: TimeInput | None, confidence: float, source: str | None,
             source_closet: str | None, subject_type: str | None, object_type: str | None,
             properties: Mapping[str, Any] | None, warnings: list[str] | None = None) -> AddResult:
        warnings = [] if warnings is None else warnings
        pred = normalize_predicate(predicate)
        subject_text = clean_text(subject, field="subject")
        is_value = pred in config.value_predicates
        object_text = clean_text(obj, field="object")
        if config.comma_guard:
            check_commas(subject_text, pred, object_text)
        s_type = _check_type(subject_type, config, "subject_type")
        o_type = _check_type(object_type, config, "object_type")
        start = parse_bound(valid_from, field="valid_from") if valid_from not in (None, "") else None
        end = parse_bound(valid_to, field="valid_to", end=True) if valid_to not in (None, "") else None
        _check_order(start, end, "valid_to")
        conf = _confidence(confidence)
        src = _optional_text(source, "source") or "agent"
        closet = _optional_text(source_closet, "source_closet")
        if is_value and o_type not in (None, "unknown"):
            warnings.append(f"{pred!r} is a value predicate: its object is text, so object_type was ignored")

        subject_id = self._ensure_entity(cur, subject_text, s_type, properties, config, warnings, field="subject")
        if is_value:
            object_id, object_value, object_key = None, object_text, object_text.casefold()
        else:
            object_id = self._ensure_entity(cur, object_text, o_type, None, config, warnings, field="object")
            object_value, object_key = None, object_id

        from_key = start.key if start else OPEN_START
        to_key = end.key if end else OPEN_END
        if end is None:
            existing = cur.execute("SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? "
                                   "AND valid_to IS NULL", (subject_id, pred, object_key)).fetchone()
        else:
            existing = cur.execute("SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? "
                                   "AND from_us = ? AND to_us = ?",
                                   (subject_id, pred, object_key, from_key, to_key)).fetchone()
        if existing:
            return AddResult(self._fact(cur, existing[0]), False, tuple(warnings))
        recorded = now_text()
        fact_id = cur.execute(
            """INSERT INTO facts(subject, predicate, object_id, object_value, object_key, valid_from, valid_to,
                   from_us, to_us, confidence, source, source_closet, recorded_at, invalidated_at, ended_by)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (subject_id, pred, object_id, object_value, object_key, start.text if start else None,
             end.text if end else None, from_key, to_key, conf, src, closet, recorded,
             recorded if end else None, src if end else None)).lastrowid
        return AddResult(self._fact(cur, fact_id), True, tuple(warnings))

    def invalidate(self, subject: str, predicate: str, object: str, *,  # noqa: A002
                   ended: TimeInput | None = None, ended_by: str | None = None) -> Fact:
        """End the current ``subject → predicate → object`` fact on ``ended`` (default: today, UTC).

        Raises :class:`NotCurrent` (listing the historical facts) when no such fact is current.
        """
        with self._tx(write=True) as cur:
            return self._invalidate(cur, self._config(cur), subject, predicate, object, ended, ended_by)

    def _invalidate(self, cur: sqlite3.Cursor, config: GraphConfig, subject: str, predicate: str, obj: str,
                    ended: TimeInput | None, ended_by: str | None, *, field: str = "ended") -> Fact:
        pred = normalize_predicate(predicate)
        end = parse_bound(ended if ended not in (None, "") else today(), field=field, end=True)
        by = _optional_text(ended_by, "ended_by") or "agent"
        subject_id = self._resolve(cur, subject, field="subject")
        if pred in config.value_predicates:
            object_key = clean_text(obj, field="object").casefold()
        else:
            object_key = self._resolve(cur, obj, field="object")
        row = cur.execute("SELECT id, from_us, valid_from FROM facts WHERE subject = ? AND predicate = ? "
                          "AND object_key = ? AND valid_to IS NULL", (subject_id, pred, object_key)).fetchone()
        if row is None:
            history = [self._fact(cur, r[0]) for r in cur.execute(
                f"SELECT f.id FROM facts f WHERE subject = ? AND predicate = ? AND object_key = ? {_ORDER}",
                (subject_id, pred, object_key))]
            past = "; ".join(f"{f.valid_from or '?'} … {f.valid_to}" for f in history)
            detail = f" It was true: {past}." if history else " No such fact was ever recorded."
            raise NotCurrent(f"{subject} → {pred} → {obj} is not current, so there is nothing to end.{detail} "
                             "Query the entity to see its current facts.",
                             field="object", value=obj, history=[f.to_dict() for f in history])
        fact_id, from_key, valid_from = row
        if end.key < from_key:
            raise IntervalOrder(f"{field} {end.text} is before the fact's valid_from {valid_from}; "
                                f"give a {field} on or after {valid_from}", field=field, value=end.text)
        cur.execute("UPDATE facts SET valid_to = ?, to_us = ?, invalidated_at = ?, ended_by = ? WHERE id = ?",
                    (end.text, end.key, now_text(), by, fact_id))
        return self._fact(cur, fact_id)

    def supersede(self, subject: str, predicate: str, old_object: str, new_object: str, *,
                  at: TimeInput | None = None, confidence: float = 1.0, source: str | None = None,
                  source_closet: str | None = None, object_type: str | None = None) -> SupersedeResult:
        """Atomically end ``subject → predicate → old_object`` at ``at`` and add ``new_object`` from ``at``.

        ``at`` defaults to today (UTC); on that day both facts are valid (both ends count).
        """
        with self._tx(write=True) as cur:
            config = self._config(cur)
            pred = normalize_predicate(predicate)
            same = (clean_text(old_object, field="old_object").casefold() == clean_text(new_object, field="new_object").casefold()
                    if pred in config.value_predicates
                    else normalize_name(old_object, field="old_object") == normalize_name(new_object, field="new_object"))
            if same:
                raise InvalidRequest("old_object and new_object are the same; nothing to supersede",
                                     field="new_object", value=new_object)
            moment = at if at not in (None, "") else today()
            old = self._invalidate(cur, config, subject, pred, old_object, moment, source, field="at")
            warnings: list[str] = []
            added = self._add(cur, config, subject, pred, new_object, valid_from=moment, valid_to=None,
                              confidence=confidence, source=source, source_closet=source_closet,
                              subject_type=None, object_type=object_type, properties=None, warnings=warnings)
            return SupersedeResult(old, added.fact, added.created, tuple(warnings))

    def alias(self, name: str, entity: str) -> Alias:
        """Register ``name`` as another name of ``entity``.

        Raises :class:`AliasConflict` if ``name`` is already an entity or another entity's alias.
        """
        with self._tx(write=True) as cur:
            display = clean_text(name, field="name")
            key = normalize_name(display, field="name")
            target = self._resolve(cur, entity, field="entity")
            if cur.execute("SELECT 1 FROM entities WHERE id = ?", (key,)).fetchone():
                raise AliasConflict(
                    f"{name!r} is already an entity; to fold it into {target!r} use merge({name!r}, {entity!r})",
                    field="name", value=name)
            row = cur.execute("SELECT entity_id FROM aliases WHERE alias = ?", (key,)).fetchone()
            if row and row[0] != target:
                raise AliasConflict(f"{name!r} is already an alias of {row[0]!r}; an alias names one entity",
                                    field="name", value=name, entity=row[0])
            if row is None:
                cur.execute("INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)", (key, display, target))
                display = display
            else:
                display = cur.execute("SELECT name FROM aliases WHERE alias = ?", (key,)).fetchone()[0]
            return Alias(key, display, target)

    def aliases(self, entity: str | None = None) -> list[Alias]:
        """Every alias, or those of one entity."""
        with self._tx(write=False) as cur:
            target = self._resolve(cur, entity, field="entity") if entity is not None else None
            rows = cur.execute("SELECT alias, name, entity_id FROM aliases WHERE :e IS NULL OR entity_id = :e "
                               "ORDER BY entity_id, alias", {"e": target}).fetchall()
        return [Alias(*r) for r in rows]

    def merge(self, source: str, target: str) -> MergeResult:
        """Fold entity ``source`` into ``target``, atomically.

        Every fact of ``source`` (both directions) moves to ``target``; ``source``'s name and aliases
        become aliases of ``target``; its type upgrades an ``unknown`` target; properties merge (target
        wins); identical current facts become one (the earliest start), identical history rows one.
        """
        with self._tx(write=True) as cur:
            src = self._resolve(cur, source, field="source")
            dst = self._resolve(cur, target, field="target")
            if src == dst:
                raise InvalidRequest(f"{source!r} and {target!r} are the same entity; nothing to merge",
                                     field="target", value=target)
            src_entity, dst_entity = self._entity(cur, src), self._entity(cur, dst)
            warnings: list[str] = []
            new_type = dst_entity.type
            if src_entity.type != "unknown" and src_entity.type != dst_entity.type:
                if dst_entity.type == "unknown":
                    new_type = src_entity.type
                else:
                    warnings.append(f"{src!r} was a {src_entity.type}; {dst!r} stays a {dst_entity.type}")
            props = {**src_entity.properties, **dst_entity.properties}
            cur.execute("UPDATE entities SET type = ?, properties = ? WHERE id = ?", (new_type, json.dumps(props), dst))

            moved = cur.execute("SELECT count(*) FROM facts WHERE subject = :s OR object_id = :s", {"s": src}).fetchone()[0]
            deduplicated = self._fold_duplicates(cur, src, dst)
            cur.execute("UPDATE facts SET subject = :d WHERE subject = :s", {"s": src, "d": dst})
            cur.execute("UPDATE facts SET object_id = :d, object_key = :d WHERE object_id = :s", {"s": src, "d": dst})
            cur.execute("UPDATE aliases SET entity_id = ? WHERE entity_id = ?", (dst, src))
            cur.execute("DELETE FROM entities WHERE id = ?", (src,))
            cur.execute("INSERT OR IGNORE INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)", (src, src_entity.name, dst))
            aliases = tuple(r[0] for r in cur.execute("SELECT alias FROM aliases WHERE entity_id = ? ORDER BY alias", (dst,)))
            return MergeResult(src, self._entity(cur, dst), moved, deduplicated, aliases, tuple(warnings))

    @staticmethod
    def _fold_duplicates(cur: sqlite3.Cursor, src: str, dst: str) -> int:
        """Before a merge repoints ``src`` to ``dst``: delete the rows that would then be duplicates.

        Identical current facts keep the earliest start; identical history rows keep one. Only rows
        touching ``src`` or ``dst`` can collide, since a moved row names ``dst`` where it named ``src``.
        """
        rows = cur.execute(
            "SELECT id, subject, predicate, object_id, object_key, valid_to IS NULL, from_us, to_us FROM facts "
            "WHERE subject IN (:s, :d) OR object_id IN (:s, :d) ORDER BY from_us, id", {"s": src, "d": dst}).fetchall()
        keep: set[tuple[Any, ...]] = set()
        drop: list[tuple[int]] = []
        for fact_id, subject, predicate, object_id, object_key, current, from_key, to_key in rows:
            moved_subject = dst if subject == src else subject
            moved_object = dst if object_id == src else object_key
            identity = (moved_subject, predicate, moved_object) + ((None,) if current else (from_key, to_key))
            if identity in keep:
                drop.append((fact_id,))
            else:
                keep.add(identity)
        cur.executemany("DELETE FROM facts WHERE id = ?", drop)
        return len(drop)

    def remember(self, text: str, *, source: str | None = None, metadata: Mapping[str, Any] | None = None) -> Memory:
        """Store a piece of evidence; a fact's ``source_closet`` may point at its id."""
        body = check_unicode(text, field="text", error=InvalidRequest).strip() if isinstance(text, str) else ""
        if not body:
            raise InvalidRequest("a memory needs some text", field="text", value=str(text))
        meta = _json_object(metadata, "metadata") or {}
        memory = Memory(f"mem_{uuid.uuid4().hex[:16]}", body, _optional_text(source, "source"), now_text(), meta)
        with self._tx(write=True) as cur:
            cur.execute("INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)",
                        (memory.id, memory.text, memory.source, memory.created_at, json.dumps(meta)))
        return memory

    def memory(self, memory_id: str) -> Memory:
        """The memory with this id."""
        with self._tx(write=False) as cur:
            row = cur.execute("SELECT id, text, source, created_at, metadata FROM memories WHERE id = ?",
                              (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {memory_id!r}", field="memory_id", value=memory_id)
        return Memory(row[0], row[1], row[2], row[3], json.loads(row[4]))

    # ------------------------------------------------------------------ reads

    def fact(self, fact_id: int) -> Fact:
        """The fact with this id."""
        with self._tx(write=False) as cur:
            if (not isinstance(fact_id, int) or not -(2**63) <= fact_id < 2**63  # SQLite's INTEGER range
                    or cur.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is None):
                raise NotFound(f"no fact with id {fact_id!r}", field="id", value=str(fact_id))
            return self._fact(cur, fact_id)

    @staticmethod
    def _fact(cur: sqlite3.Cursor, fact_id: int) -> Fact:
        return _row_fact(cur.execute(f"{_FACT_SELECT} WHERE f.id = ?", (fact_id,)).fetchone())

    def query(
        self,
        name: str,
        *,
        direction: Direction = "both",
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        current_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Fact]:
        """Facts around one entity, oldest first, each flagged ``current`` and with its ``direction``.

        ``outgoing``: the entity is the subject; ``incoming``: it is the object (every match, not a
        top k). ``as_of`` keeps facts valid then (a day: every fact touching it); ``known_at`` answers
        what the store believed at that moment (a day: at its end).
        """
        if direction not in _DIRECTIONS:
            raise InvalidRequest(f"direction must be one of {', '.join(_DIRECTIONS)}, not {direction!r}",
                                 field="direction", value=str(direction))
        where, params, known = _time_filter(as_of, known_at, current_only)
        with self._tx(write=False) as cur:
            entity_id = self._resolve(cur, name)
            params.update(e=entity_id, **_page(limit, offset))
            parts = []
            if direction in ("outgoing", "both"):
                parts.append(f"SELECT {_FACT_COLUMNS}, 'outgoing' AS direction, f.valid_from IS NULL AS unknown_start,"
                             f" f.from_us AS start_key FROM {_FACT_FROM} WHERE f.subject = :e{where}")
            if direction in ("incoming", "both"):
                self_loop = " AND f.subject <> :e" if direction == "both" else ""
                parts.append(f"SELECT {_FACT_COLUMNS}, 'incoming' AS direction, f.valid_from IS NULL AS unknown_start,"
                             f" f.from_us AS start_key FROM {_FACT_FROM} "
                             f"WHERE f.object_id = :e{self_loop}{where}")
            sql = " UNION ALL ".join(parts) + " ORDER BY unknown_start, start_key, 1 LIMIT :limit OFFSET :offset"
            rows = cur.execute(sql, params).fetchall()
        return [_row_fact(r[:15], direction=r[15], known_at=known) for r in rows]

    def search(
        self,
        predicate: str,
        object: str | None = None,  # noqa: A002
        *,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        current_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Fact]:
        """Facts by relationship type, optionally pointing at one ``object``; oldest first.

        >>> kg = open(":memory:"); _ = kg.add("my_api", "uses_queue", "SQLite")
        >>> [f.subject for f in kg.search("uses queue", "sqlite")]
        ['my_api']
        """
        pred = normalize_predicate(predicate)
        where, params, known = _time_filter(as_of, known_at, current_only)
        with self._tx(write=False) as cur:
            if cur.execute("SELECT 1 FROM facts WHERE predicate = ? LIMIT 1", (pred,)).fetchone() is None:
                raise NotFound(self._predicate_miss(cur, pred), field="predicate", value=predicate,
                               suggestions=self._suggest_predicates(cur, pred))
            params.update(p=pred, **_page(limit, offset))
            if object not in (None, ""):
                if pred in self._config(cur).value_predicates:
                    params["o"] = clean_text(object, field="object").casefold()
                else:
                    params["o"] = self._resolve(cur, object, field="object")
                where = " AND f.object_key = :o" + where
            rows = cur.execute(f"{_FACT_SELECT} WHERE f.predicate = :p{where} {_ORDER} LIMIT :limit OFFSET :offset",
                               params).fetchall()
        return [_row_fact(r, known_at=known) for r in rows]

    def _predicate_miss(self, cur: sqlite3.Cursor, pred: str) -> str:
        suggestions = self._suggest_predicates(cur, pred)
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        return f"no fact uses the predicate {pred!r}.{hint} `kgtoolkit stats` counts the predicates in use."

    @staticmethod
    def _suggest_predicates(cur: sqlite3.Cursor, pred: str) -> list[str]:
        probes = [pred] + [t for t in pred.split("_") if len(t) >= 3]
        found: list[str] = []
        for probe in probes:
            for (p,) in cur.execute("SELECT predicate FROM facts WHERE instr(predicate, :p) > 0 OR instr(:p, predicate) > 0 "
                                    "GROUP BY predicate ORDER BY count(*) DESC LIMIT 5", {"p": probe}):
                if p not in found:
                    found.append(p)
        return found[:5]

    def predicates(self) -> list[tuple[str, int]]:
        """Every predicate in use with its fact count, most used first."""
        with self._tx(write=False) as cur:
            return [(p, n) for p, n in cur.execute(
                "SELECT predicate, count(*) AS n FROM facts GROUP BY predicate ORDER BY n DESC, predicate")]

    def timeline(self, name: str | None = None, *, limit: int | None = None, offset: int = 0) -> list[Fact]:
        """Facts in order of ``valid_from`` (unknown starts last), for one entity or the whole graph."""
        with self._tx(write=False) as cur:
            params: dict[str, Any] = _page(limit, offset)
            if name is None:
                rows = cur.execute(f"{_FACT_SELECT} {_ORDER} LIMIT :limit OFFSET :offset", params).fetchall()
            else:
                params["e"] = self._resolve(cur, name)
                rows = cur.execute(f"{_FACT_SELECT} WHERE f.subject = :e OR f.object_id = :e {_ORDER} "
                                   "LIMIT :limit OFFSET :offset", params).fetchall()
        return [_row_fact(r) for r in rows]

    def conflicts(self, entity: str | None = None, *, current_only: bool = False) -> list[ConflictGroup]:
        """Every (subject, predicate) with more than one distinct object, those needing action first.

        Closed-out history is included (a review list); ``needs_action`` marks groups with more than
        one current fact. Multi-valued predicates (``config.multi_valued``) are left out.
        ``current_only`` looks at current facts alone.
        """
        with self._tx(write=False) as cur:
            params: dict[str, Any] = {"mv": json.dumps(sorted(self._config(cur).multi_valued)), "e": None}
            if entity is not None:
                params["e"] = self._resolve(cur, entity, field="entity")
            current = " AND valid_to IS NULL" if current_only else ""
            rows = cur.execute(
                f"""WITH groups AS (
                        SELECT subject, predicate FROM facts
                        WHERE predicate NOT IN (SELECT value FROM json_each(:mv))
                          AND (:e IS NULL OR subject = :e){current}
                        GROUP BY subject, predicate HAVING count(DISTINCT object_key) > 1)
                    {_FACT_SELECT} JOIN groups g ON g.subject = f.subject AND g.predicate = f.predicate
                    WHERE 1{current.replace('valid_to', 'f.valid_to')}
                    ORDER BY f.subject, f.predicate, f.valid_from IS NULL, f.from_us, f.id""",
                params).fetchall()
        groups: dict[tuple[str, str], list[Fact]] = {}
        for row in rows:
            fact = _row_fact(row)
            groups.setdefault((fact.subject, fact.predicate), []).append(fact)
        result = [
            ConflictGroup(s, facts[0].subject_name, p, len({f.object.casefold() if f.object_is_value else f.object for f in facts}),
                          sum(f.current for f in facts), tuple(facts))
            for (s, p), facts in groups.items()
        ]
        result.sort(key=lambda g: (not g.needs_action, g.subject, g.predicate))
        return result

    def top_entities(self, limit: int = 20, *, as_of: TimeInput | None = None) -> list[tuple[Entity, int]]:
        """Entities with the most current facts (valid at ``as_of`` when given), both directions."""
        where, params, _ = _time_filter(as_of, None, as_of is None)
        params["limit"] = _page(limit, 0)["limit"]
        with self._tx(write=False) as cur:
            rows = cur.execute(
                f"""SELECT e, count(*) AS n FROM (
                        SELECT f.subject AS e FROM facts f WHERE 1{where}
                        UNION ALL
                        SELECT f.object_id FROM facts f WHERE f.object_id IS NOT NULL{where})
                    GROUP BY e ORDER BY n DESC, e LIMIT :limit""", params).fetchall()
            return [(self._entity(cur, e), n) for e, n in rows]

    def stats(self) -> Stats:
        """Counts: entities (per type), facts, current, ended, value facts, predicates, aliases, memories."""
        with self._tx(write=False) as cur:
            by_type = dict(cur.execute("SELECT type, count(*) FROM entities GROUP BY type ORDER BY type").fetchall())
            facts, current, values, predicates = cur.execute(
                "SELECT count(*), count(*) FILTER (WHERE valid_to IS NULL), count(*) FILTER (WHERE object_id IS NULL), "
                "count(DISTINCT predicate) FROM facts").fetchone()
            aliases = cur.execute("SELECT count(*) FROM aliases").fetchone()[0]
            memories = cur.execute("SELECT count(*) FROM memories").fetchone()[0]
        return Stats(sum(by_type.values()), by_type, facts, current, facts - current, values, predicates, aliases, memories)

    def summary(self, limit: int = 20, *, style: str = "main", as_of: TimeInput | None = None) -> str:
        """Compact Markdown of the graph for a system prompt (see :func:`kgtoolkit.summary`)."""
        from ._summary import summary

        return summary(self, limit=limit, style=style, as_of=as_of)


# ---------------------------------------------------------------------- helpers


def _row_fact(row: Sequence[Any], *, direction: Optional[str] = None, known_at: Optional[str] = None) -> Fact:
    (fact_id, subject, subject_name, predicate, obj, object_name, is_value, valid_from, valid_to, confidence,
     source, closet, recorded_at, invalidated_at, ended_by) = row
    if known_at is not None and invalidated_at is not None and invalidated_at > known_at:
        valid_to = invalidated_at = ended_by = None  # its end was not yet known at known_at
    return Fact(fact_id, subject, subject_name, predicate, obj, object_name, bool(is_value), valid_from, valid_to,
                confidence, source, closet, recorded_at, invalidated_at, ended_by, direction)


def _time_filter(as_of: TimeInput | None, known_at: TimeInput | None, current_only: bool) -> tuple[str, dict[str, Any], str | None]:
    """SQL conditions (on alias ``f``) and parameters for the as_of / known_at / current_only filters."""
    where, params = "", {}
    known: str | None = None
    end_key, open_test = "f.to_us", "f.valid_to IS NULL"
    if known_at not in (None, ""):
        known = key_to_text(parse_window(known_at, field="known_at").hi)
        params["known"] = known
        where += " AND f.recorded_at <= :known"
        end_key = f"(CASE WHEN f.invalidated_at > :known THEN {OPEN_END} ELSE f.to_us END)"
        open_test = "(f.valid_to IS NULL OR f.invalidated_at > :known)"
    if as_of not in (None, ""):
        window = parse_window(as_of, field="as_of")
        params.update(lo=window.lo, hi=window.hi)
        where += f" AND f.from_us <= :hi AND {end_key} >= :lo"
    if current_only:
        where += f" AND {open_test}"
    return where, params, known


def _unwritable(path: Path) -> str | None:
    """Why this user cannot write the graph at ``path`` (its folder, or the file itself), else None."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only for this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} is read-only for this user (SQLite needs to create files beside the graph)"
    return None


def _page(limit: int | None, offset: int) -> dict[str, int]:
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63):
            raise InvalidRequest(f"{name} must be a whole number from 0 to 2**63 - 1, not {value!r}", field=name,
                                 value=str(value))
    return {"limit": -1 if limit is None else limit, "offset": offset}


def _check_order(start: Bound | None, end: Bound | None, field: str) -> None:
    if start is not None and end is not None and end.key < start.key:
        raise IntervalOrder(f"{field} {end.text} is before valid_from {start.text}; an interval cannot end "
                            "before it starts", field=field, value=end.text)


def _check_type(type_: str | None, config: GraphConfig, field: str) -> str | None:
    if type_ in (None, ""):
        return None
    key = normalize_name(type_, field=field)
    if key not in config.types:
        raise UnknownType(f"{field} {type_!r} is not in this graph's vocabulary ({', '.join(sorted(config.types))}); "
                          "use one of those, or extend it with configure(types=...)",
                          field=field, value=type_, suggestions=sorted(config.types))
    return key


def _confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise InvalidRequest(f"confidence must be a number from 0 to 1, not {value!r}", field="confidence", value=str(value))
    return float(value)


def _optional_text(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRequest(f"{field} must be text, not {type(value).__name__}", field=field, value=repr(value))
    return check_unicode(value, field=field, error=InvalidRequest).strip() or None


def _strings(values: Any, field: str) -> list[str]:
    if isinstance(values, str) or not all(isinstance(v, str) for v in values):
        raise InvalidRequest(f"{field} must be a list of names", field=field, value=repr(values))
    return list(values)


def _json_object(value: Mapping[str, Any] | None, field: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidRequest(f"{field} must be a JSON object (a mapping), not {type(value).__name__}", field=field, value=repr(value))
    try:
        text = json.dumps(dict(value), allow_nan=False, ensure_ascii=False)  # NaN/Infinity are not JSON
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"{field} must hold JSON values only: {exc}", field=field, value=repr(value)) from None
    check_unicode(text, field=field, error=InvalidRequest)  # a key or value that is not valid Unicode
    return json.loads(text)

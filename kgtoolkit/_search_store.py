"""The store's search half: the SQL that semantic search needs, and the embedding cache.

Part of the store (with ``_store.py``, ``_bulk.py`` and ``_dump.py``, the only modules holding SQL).
Reads of the graph go through :class:`KnowledgeGraph`'s read transactions; the graph file's schema is
not changed. The embedding cache is a separate SQLite file beside the graph (``<db>.search/``), so a
graph without search, and every other door, never sees it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ._errors import StoreError
from ._records import Fact, Memory
from ._store import _FACT_SELECT, _ORDER, KnowledgeGraph, _row_fact, _time_filter
from ._time import TimeInput

__all__ = [
    "EmbeddingCache",
    "GraphDigest",
    "change_token",
    "current_facts",
    "entity_fact_ids",
    "fact_rows",
    "facts_by_ids",
    "facts_citing",
    "graph_digest",
    "lookup_names",
    "memories_by_ids",
    "memory_rows",
    "successors",
    "valid_fact_ids",
]

# One line per fact, the same text in the digest and in the rows: id, subject name, predicate, object name.
_FACT_LINE = "f.id || char(9) || s.name || char(9) || f.predicate || char(9) || COALESCE(o.name, f.object_value)"
_FACT_JOIN = "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id"
_MEMORY_LINE = "id || char(9) || text"

GraphDigest = dict[str, dict[str, Any]]


def change_token(kg: KnowledgeGraph) -> tuple[int, int]:
    """Cheap "did anything change?": SQLite's data_version (other connections' commits) and this
    connection's total_changes (its own writes). Equal tokens mean nothing was written in between."""
    with kg._lock:
        version = kg._conn.execute("PRAGMA data_version").fetchone()[0]
        return version, kg._conn.total_changes


def _digest(cur: sqlite3.Cursor, line: str, table: str, order: str) -> dict[str, Any]:
    count, blob = cur.execute(
        f"SELECT count(*), group_concat(line, char(10)) FROM (SELECT {line} AS line FROM {table} ORDER BY {order})"
    ).fetchone()
    text = (blob or "").encode("utf-8", "surrogatepass")
    return {"count": count, "digest": hashlib.blake2b(text, digest_size=16).hexdigest()}


def graph_digest(kg: KnowledgeGraph) -> GraphDigest:
    """What the index must cover, in one read snapshot: per kind, a count and a digest of every
    embedded text with its key (facts: id and names; memories: id and text)."""
    with kg._tx(write=False) as cur:
        facts = _digest(cur, _FACT_LINE, _FACT_JOIN, "f.id")
        facts["max_id"] = cur.execute("SELECT COALESCE(max(id), 0) FROM facts").fetchone()[0]
        memories = _digest(cur, _MEMORY_LINE, "memories", "id")
    return {"facts": facts, "memories": memories}


def fact_rows(kg: KnowledgeGraph) -> tuple[list[tuple[int, str, str, str]], GraphDigest]:
    """Every fact as (id, subject name, predicate, object name), with the digest of the same snapshot."""
    with kg._tx(write=False) as cur:
        rows = cur.execute(f"SELECT f.id, s.name, f.predicate, COALESCE(o.name, f.object_value) FROM {_FACT_JOIN} "
                           "ORDER BY f.id").fetchall()
        facts = _digest(cur, _FACT_LINE, _FACT_JOIN, "f.id")
        facts["max_id"] = rows[-1][0] if rows else 0
    return rows, {"facts": facts}


def memory_rows(kg: KnowledgeGraph) -> tuple[list[tuple[str, str]], GraphDigest]:
    """Every memory as (id, text), with the digest of the same snapshot."""
    with kg._tx(write=False) as cur:
        rows = cur.execute("SELECT id, text FROM memories ORDER BY id").fetchall()
        memories = _digest(cur, _MEMORY_LINE, "memories", "id")
    return rows, {"memories": memories}


def lookup_names(kg: KnowledgeGraph, keys: Iterable[str]) -> dict[str, str]:
    """Normalised names → the entity id each resolves to (exact id, then alias); misses are left out."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    with kg._tx(write=False) as cur:
        rows = cur.execute(
            """SELECT k.value, COALESCE(e.id, a.entity_id) FROM json_each(:keys) k
               LEFT JOIN entities e ON e.id = k.value LEFT JOIN aliases a ON a.alias = k.value
               WHERE e.id IS NOT NULL OR a.entity_id IS NOT NULL""", {"keys": json.dumps(wanted)}).fetchall()
    return dict(rows)


def entity_fact_ids(kg: KnowledgeGraph, entity_ids: Sequence[str], *, as_of: TimeInput | None = None,
                    current_only: bool = False) -> list[int]:
    """Ids of the facts around these entities (either direction), filtered like :meth:`KnowledgeGraph.query`."""
    if not entity_ids:
        return []
    where, params, _ = _time_filter(as_of, None, current_only)
    params["e"] = json.dumps(list(entity_ids))
    with kg._tx(write=False) as cur:
        rows = cur.execute(
            f"""SELECT f.id FROM facts f WHERE (f.subject IN (SELECT value FROM json_each(:e))
                    OR f.object_id IN (SELECT value FROM json_each(:e))){where} ORDER BY f.id""", params).fetchall()
    return [r[0] for r in rows]


def valid_fact_ids(kg: KnowledgeGraph, ids: Sequence[int], *, as_of: TimeInput | None = None,
                   current_only: bool = False) -> set[int]:
    """The subset of ``ids`` that exist and pass the ``as_of`` / ``current_only`` filters."""
    if not ids:
        return set()
    where, params, _ = _time_filter(as_of, None, current_only)
    params["ids"] = json.dumps([int(i) for i in ids])
    with kg._tx(write=False) as cur:
        rows = cur.execute(f"SELECT f.id FROM facts f WHERE f.id IN (SELECT value FROM json_each(:ids)){where}",
                           params).fetchall()
    return {r[0] for r in rows}


def facts_by_ids(kg: KnowledgeGraph, ids: Sequence[int]) -> dict[int, Fact]:
    """The facts with these ids (missing ids are left out)."""
    if not ids:
        return {}
    with kg._tx(write=False) as cur:
        rows = cur.execute(f"{_FACT_SELECT} WHERE f.id IN (SELECT value FROM json_each(:ids))",
                           {"ids": json.dumps([int(i) for i in ids])}).fetchall()
    return {r[0]: _row_fact(r) for r in rows}


def successors(kg: KnowledgeGraph, fact_id: int) -> list[Fact]:
    """The facts that replaced this one for its subject and predicate: another object, starting after
    this fact started and lasting beyond its end; the earliest such start (several when they start
    together). A fact that came and went while this one held replaced nothing."""
    with kg._tx(write=False) as cur:
        rows = cur.execute(
            f"""WITH me AS (SELECT subject, predicate, object_key, from_us, to_us FROM facts WHERE id = :id),
                     nxt AS (SELECT min(g.from_us) AS start FROM facts g, me WHERE g.subject = me.subject
                             AND g.predicate = me.predicate AND g.object_key <> me.object_key
                             AND g.from_us > me.from_us AND g.to_us > me.to_us)
                {_FACT_SELECT}, me, nxt WHERE f.subject = me.subject AND f.predicate = me.predicate
                AND f.object_key <> me.object_key AND f.from_us = nxt.start AND f.to_us > me.to_us {_ORDER}""",
            {"id": fact_id}).fetchall()
    return [_row_fact(r) for r in rows]


def current_facts(kg: KnowledgeGraph, subject: str, predicate: str) -> list[Fact]:
    """The current facts of one (subject id, predicate)."""
    with kg._tx(write=False) as cur:
        rows = cur.execute(f"{_FACT_SELECT} WHERE f.subject = ? AND f.predicate = ? AND f.valid_to IS NULL {_ORDER}",
                           (subject, predicate)).fetchall()
    return [_row_fact(r) for r in rows]


def facts_citing(kg: KnowledgeGraph, memory_ids: Sequence[str]) -> dict[str, list[Fact]]:
    """Memory id → the facts whose ``source_closet`` points at it (the other way of the link)."""
    if not memory_ids:
        return {}
    with kg._tx(write=False) as cur:
        rows = cur.execute(f"{_FACT_SELECT} WHERE f.source_closet IN (SELECT value FROM json_each(:m)) {_ORDER}",
                           {"m": json.dumps(list(memory_ids))}).fetchall()
    cited: dict[str, list[Fact]] = {}
    for row in rows:
        fact = _row_fact(row)
        cited.setdefault(fact.source_closet or "", []).append(fact)
    return cited


def memories_by_ids(kg: KnowledgeGraph, ids: Sequence[str]) -> dict[str, Memory]:
    """The memories with these ids (missing ids are left out)."""
    if not ids:
        return {}
    with kg._tx(write=False) as cur:
        rows = cur.execute("SELECT id, text, source, created_at, metadata FROM memories "
                           "WHERE id IN (SELECT value FROM json_each(:m))", {"m": json.dumps(list(ids))}).fetchall()
    return {r[0]: Memory(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows}


class EmbeddingCache:
    """Embeddings by (model, text hash), in their own SQLite file (``:memory:`` for an in-memory graph).

    A vector whose length does not match the model's dimension is treated as missing (and replaced).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        target = ":memory:" if path is None else str(path)
        try:
            self._conn = self._connect(target)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) or path is None:  # busy: never delete another's cache
                raise StoreError(f"the search cache {path} is busy or unreadable ({exc}); retry") from None
            # Not an SQLite file any more: a cache can always start over.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            self._conn = self._connect(target)

    @staticmethod
    def _connect(target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        if target != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, hash BLOB NOT NULL, "
                     "vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID")
        return conn

    def get(self, model: str, hashes: Sequence[bytes], nbytes: int) -> dict[bytes, bytes]:
        """The cached vectors (raw float32 bytes) of these hashes; wrong-sized ones are left out."""
        found: dict[bytes, bytes] = {}
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for h, vector in self._conn.execute(
                    f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})", [model, *chunk]):
                if len(vector) == nbytes:
                    found[bytes(h)] = bytes(vector)
        return found

    def put(self, model: str, items: Iterable[tuple[bytes, bytes]]) -> None:
        """Store (hash, vector bytes) pairs, in one transaction."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany("INSERT OR REPLACE INTO embeddings(model, hash, vector) VALUES (?, ?, ?)",
                                   [(model, h, v) for h, v in items])
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def count(self, model: str | None = None) -> int:
        """How many vectors are cached (for one model, or all)."""
        return self._conn.execute("SELECT count(*) FROM embeddings WHERE ? IS NULL OR model = ?",
                                  (model, model)).fetchone()[0]

    def close(self) -> None:
        self._conn.close()

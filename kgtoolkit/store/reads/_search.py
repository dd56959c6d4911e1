"""The SQL that semantic search needs, and the embedding cache.

Reads of the graph run in its read transactions; the graph's tables are not changed. The embedding
cache keeps vectors by (model, text hash): for an SQLite graph in its own file beside the graph
(``<db>.search/embeddings.sqlite3``), so a graph without search never sees it; for PostgreSQL in the
database's ``embeddings`` table, so a team embeds each text once.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..._errors import ReadOnly, StoreError
from ..._private import private_file
from ..._records import Fact, Memory
from ..._time import TimeInput
from ..._validity import Clock
from ..._window import ReadWindow
from ..engine import FACT_SELECT, ORDER, sqlite_failure
from ..ops import _traversal as t
from . import _queries as q

if TYPE_CHECKING:
    from .._graph_store import GraphStore

__all__ = [
    "EmbeddingCache",
    "GraphTexts",
    "Watermark",
    "change_token",
    "current_facts",
    "embedding_cache",
    "entity_fact_ids",
    "entity_triples",
    "facts_by_ids",
    "facts_citing",
    "graph_texts",
    "hop_distances",
    "lexical_facts",
    "lexical_memories",
    "lookup_names",
    "memories_by_ids",
    "successors",
    "texts_since",
    "triple_dates",
    "triple_keys",
    "valid_fact_ids",
]

_CURRENT = q.current_sql()  # contract §4 (bind Clock.params)
_FACT_JOIN = "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id"
_FACT_TEXT = f"SELECT f.id, s.name, f.predicate, COALESCE(o.name, f.object_value) FROM {_FACT_JOIN}"


def change_token(kg: GraphStore) -> tuple[Any, ...] | None:
    """Cheap "did anything change?": equal tokens mean nothing was written in between, by any program (SQLite's
    data_version and this connection's changes). None where the engine cannot tell for every writer (PostgreSQL's
    revision moves with kgtoolkit's own writes only): the watermark is then read each time (:func:`texts_since`)."""
    return kg.engine.change_token() if kg.engine.kind == "sqlite" else None


@dataclasses.dataclass(frozen=True)
class Watermark:
    """How far a search index covers the graph, in marks the database keeps itself (schema step 8), so a write by
    any program is seen: facts with an id above ``facts`` are new (ids are never reused), and memories whose
    order (SQLite's rowid, PostgreSQL's ``seq``) is above ``memories``; a write that changes or removes a text
    already embedded moves ``generation``. ``graph`` is the database's own random name. ``memory_id`` is the
    memory at order ``memories``: if another one is there, the order was renumbered (SQLite's VACUUM may).

    ``waiting`` (PostgreSQL): marks read while other transactions ran, which may still commit rows below them
    (an id is taken before its transaction commits): (facts, memories, memory_id, the next transaction id then).
    They hold once every transaction running then has ended; until then the rows above ``facts`` and
    ``memories`` are read again, and compared by text.
    """

    graph: str
    generation: int
    facts: int = 0
    memories: int = 0
    memory_id: str | None = None
    waiting: tuple[int, int, str | None, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Watermark | None:
        """The watermark a manifest holds; None when it holds none, or not one this release reads."""
        try:
            waiting = data["waiting"]
            mark = cls(
                str(data["graph"]),
                int(data["generation"]),
                int(data["facts"]),
                int(data["memories"]),
                None if data["memory_id"] is None else str(data["memory_id"]),
                None
                if waiting is None
                else (
                    int(waiting[0]),
                    int(waiting[1]),
                    None if waiting[2] is None else str(waiting[2]),
                    int(waiting[3]),
                ),
            )
        except (TypeError, KeyError, ValueError, IndexError):
            return None
        return mark


@dataclasses.dataclass(frozen=True)
class GraphTexts:
    """Texts to embed, read in one snapshot with the watermark they bring an index to: every fact as (id, subject
    name, predicate, object name) and every memory as (id, text); or, when ``complete`` is False, only those
    added since the watermark the read started from (and those read again while it waits)."""

    facts: list[tuple[int, str, str, str]]
    memories: list[tuple[str, str]]
    mark: Watermark
    complete: bool


def _marks(cur: Any, kg: GraphStore, since: Watermark | None) -> Watermark | None:
    """The watermark after reading this snapshot, from ``since`` (None: from nothing, a full read); None when
    ``since`` no longer holds (another graph, a text changed or removed, memories renumbered)."""
    d = kg.engine.dialect
    row = cur.execute(
        f"""SELECT g.graph, g.generation, (SELECT COALESCE(max(id), 0) FROM facts), COALESCE(m.o, 0), m.id,
                   (SELECT id FROM memories WHERE {d.memory_order} = :m), {d.snapshot_bounds}
            FROM search_generation g LEFT JOIN (SELECT {d.memory_order} AS o, id FROM memories
                                                ORDER BY {d.memory_order} DESC LIMIT 1) m ON 1 = 1""",
        {"m": since.memories if since is not None else 0},
    ).fetchone()
    if row is None:  # the row was deleted behind kgtoolkit's back: every read is a full one
        return None
    graph, generation, top_fact, top_memory, top_memory_id, at_mark, xmin, xmax = row
    if since is not None and ((since.graph, since.generation) != (graph, generation) or at_mark != since.memory_id):
        return None
    settled = (since.facts, since.memories, since.memory_id) if since is not None else (0, 0, None)
    waiting = since.waiting if since is not None else None
    top = (int(top_fact), int(top_memory), top_memory_id)
    for _ in range(2):  # the marks waiting hold once the oldest transaction still running began after them
        if waiting is None and settled != top:
            waiting = (*top, int(xmax))
        if waiting is not None and int(xmin) >= waiting[3]:
            settled, waiting = waiting[:3], None
    return Watermark(str(graph), int(generation), *settled, waiting)


def graph_texts(kg: GraphStore) -> GraphTexts:
    """Every text to embed, and the watermark of the snapshot they were read in."""
    with kg.engine.read() as cur:
        mark = _marks(cur, kg, None)
        facts = cur.execute(f"{_FACT_TEXT} ORDER BY f.id").fetchall()
        memories = cur.execute("SELECT id, text FROM memories ORDER BY id").fetchall()
    return GraphTexts([tuple(r) for r in facts], [tuple(r) for r in memories], mark or Watermark("", -1), True)


def texts_since(kg: GraphStore, since: Watermark) -> GraphTexts | None:
    """The texts added since ``since`` (a few rows, read by id and order), and the watermark after them; None
    when only a full comparison can tell what changed (:func:`graph_texts`)."""
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        mark = _marks(cur, kg, since)
        if mark is None:
            return None
        facts = cur.execute(f"{_FACT_TEXT} WHERE f.id > ? ORDER BY f.id", (since.facts,)).fetchall()
        memories = cur.execute(
            f"SELECT id, text FROM memories WHERE {d.memory_order} > ? ORDER BY {d.memory_order}", (since.memories,)
        ).fetchall()
    return GraphTexts([tuple(r) for r in facts], [tuple(r) for r in memories], mark, False)


def lookup_names(kg: GraphStore, keys: Iterable[str]) -> dict[str, str]:
    """Normalised names → the entity id each resolves to (exact id, then alias); misses are left out."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"""SELECT k.value, COALESCE(e.id, a.entity_id) FROM {d.values("keys")} k
               LEFT JOIN entities e ON e.id = k.value LEFT JOIN aliases a ON a.alias = k.value
               WHERE e.id IS NOT NULL OR a.entity_id IS NOT NULL""",
            {"keys": d.list_param(wanted)},
        ).fetchall()
    return dict(rows)


def entity_fact_ids(
    kg: GraphStore, entity_ids: Sequence[str], *, as_of: TimeInput | None = None, current_only: bool = False
) -> list[int]:
    """Ids of the facts around these entities (either direction), filtered like :meth:`GraphStore.query`."""
    if not entity_ids:
        return []
    d = kg.engine.dialect
    where, params, _ = q.time_filter(ReadWindow(as_of, current_only=current_only))
    params["e"] = d.list_param(entity_ids)
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"""SELECT f.id FROM facts f WHERE (f.subject IN {d.values("e")}
                    OR f.object_id IN {d.values("e")}){where} ORDER BY f.id""",
            params,
        ).fetchall()
    return [r[0] for r in rows]


def valid_fact_ids(
    kg: GraphStore, ids: Sequence[int], *, as_of: TimeInput | None = None, current_only: bool = False
) -> set[int]:
    """The subset of ``ids`` that exist and pass the ``as_of`` / ``current_only`` filters."""
    if not ids:
        return set()
    d = kg.engine.dialect
    where, params, _ = q.time_filter(ReadWindow(as_of, current_only=current_only))
    params["ids"] = d.list_param([int(i) for i in ids])
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"SELECT f.id FROM facts f WHERE f.id IN {d.values('ids', 'bigint')}{where}", params
        ).fetchall()
    return {r[0] for r in rows}


def facts_by_ids(kg: GraphStore, ids: Sequence[int]) -> dict[int, Fact]:
    """The facts with these ids (missing ids are left out)."""
    if not ids:
        return {}
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"{FACT_SELECT} WHERE f.id IN {d.values('ids', 'bigint')}", {"ids": d.list_param([int(i) for i in ids])}
        ).fetchall()
        events = q.event_rule(cur)
    return {r[0]: q.row_fact(r, events=events) for r in rows}


def successors(kg: GraphStore, fact_id: int) -> list[Fact]:
    """The facts that replaced this one for its subject and predicate: another object, starting after
    this fact started and lasting beyond its end; the earliest such start (several when they start
    together). A fact that came and went while this one held replaced nothing. (``+f.from_us`` keeps SQLite on
    the (subject, predicate) index: on a busy day the (from_us, to_us) index holds thousands of rows.)"""
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"""WITH me AS (SELECT subject, predicate, object_key, from_us, to_us FROM facts WHERE id = :id),
                     nxt AS (SELECT min(g.from_us) AS start FROM facts g, me WHERE g.subject = me.subject
                             AND g.predicate = me.predicate AND g.object_key <> me.object_key
                             AND g.from_us > me.from_us AND g.to_us > me.to_us)
                {FACT_SELECT}, me, nxt WHERE f.subject = me.subject AND f.predicate = me.predicate
                AND f.object_key <> me.object_key AND +f.from_us = nxt.start AND f.to_us > me.to_us {ORDER}""",
            {"id": fact_id},
        ).fetchall()
        events = q.event_rule(cur)
    return [f for f in (q.row_fact(r, events=events) for r in rows) if f.kind == "state"]  # events replace nothing


def current_facts(kg: GraphStore, subject: str, predicate: str, limit: int) -> tuple[list[Fact], int]:
    """The first ``limit`` current facts of one (subject id, predicate) in store order, and how many there are."""
    with kg.engine.read() as cur:
        params = {"s": subject, "p": predicate, "limit": limit, **Clock.real().params()}
        where = f"f.subject = :s AND f.predicate = :p AND {_CURRENT}"
        rows = cur.execute(f"{FACT_SELECT} WHERE {where} {ORDER} LIMIT :limit", params).fetchall()
        total = len(rows)
        if total >= limit:
            total = int(cur.execute(f"SELECT count(*) FROM facts f WHERE {where}", params).fetchone()[0])
        events = q.event_rule(cur)
    return [q.row_fact(r, events=events) for r in rows], total


def facts_citing(kg: GraphStore, memory_ids: Sequence[str]) -> dict[str, list[Fact]]:
    """Memory id → the facts whose ``source_closet`` points at it (the other way of the link)."""
    if not memory_ids:
        return {}
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"{FACT_SELECT} WHERE f.source_closet IN {d.values('m')} {ORDER}", {"m": d.list_param(memory_ids)}
        ).fetchall()
        events = q.event_rule(cur)
    cited: dict[str, list[Fact]] = {}
    for row in rows:
        fact = q.row_fact(row, events=events)
        cited.setdefault(fact.source_closet or "", []).append(fact)
    return cited


def memories_by_ids(kg: GraphStore, ids: Sequence[str]) -> dict[str, Memory]:
    """The memories with these ids (missing ids are left out)."""
    if not ids:
        return {}
    import json

    d = kg.engine.dialect
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"SELECT id, text, source, created_at, metadata FROM memories WHERE id IN {d.values('m')}",
            {"m": d.list_param(ids)},
        ).fetchall()
    return {r[0]: Memory(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows}


# ---------------------------------------------------------------------- the embedding cache


class EmbeddingCache(Protocol):
    """Embeddings by (model, text hash); a vector whose length does not match is treated as missing."""

    def get(self, model: str, hashes: Sequence[bytes], nbytes: int) -> dict[bytes, bytes]: ...

    def put(self, model: str, items: Iterable[tuple[bytes, bytes]]) -> None: ...

    def count(self, model: str | None = None) -> int: ...

    def close(self) -> None: ...


def embedding_cache(kg: GraphStore, folder: Path | None) -> EmbeddingCache:
    """The graph's embedding cache: in the database for PostgreSQL, else an SQLite file in ``folder``
    (in memory when ``folder`` is None)."""
    if kg.engine.kind == "postgresql":
        return _DatabaseCache(kg, folder)
    return FileEmbeddingCache(None if folder is None else folder / "embeddings.sqlite3")


class _DatabaseCache:
    """The cache in the graph's own database (PostgreSQL's ``embeddings`` table).

    A graph open read-only (or a database user who may only read) still searches: the vectors it
    computes go to a local cache file in ``folder`` instead (in memory when None), read after the table.
    """

    def __init__(self, kg: GraphStore, folder: Path | None = None) -> None:
        self._engine = kg.engine
        self._path = None if folder is None else folder / "embeddings.sqlite3"
        self._writable = not kg.read_only
        self._local: FileEmbeddingCache | None = None

    def _fallback(self, *, create: bool) -> FileEmbeddingCache | None:
        if self._local is None and (create or (self._path is not None and self._path.exists())):
            self._local = FileEmbeddingCache(self._path)
        return self._local

    def get(self, model: str, hashes: Sequence[bytes], nbytes: int) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        with self._engine.read() as cur:
            for start in range(0, len(hashes), 5000):
                chunk = list(hashes[start : start + 5000])
                for h, vector in cur.execute(
                    "SELECT hash, vector FROM embeddings WHERE model = ? AND hash = ANY(?)", (model, chunk)
                ).fetchall():
                    if len(vector) == nbytes:
                        found[bytes(h)] = bytes(vector)
        local = self._fallback(create=False)
        missing = [h for h in hashes if h not in found]
        if local is not None and missing:
            found.update(local.get(model, missing, nbytes))
        return found

    def put(self, model: str, items: Iterable[tuple[bytes, bytes]]) -> None:
        rows = [(model, h, v) for h, v in items]

        def write(cur: Any) -> None:
            cur.executemany(
                "INSERT INTO embeddings(model, hash, vector) VALUES (?, ?, ?) "
                "ON CONFLICT (model, hash) DO UPDATE SET vector = excluded.vector",
                rows,
            )

        if self._writable:
            try:
                self._engine.write(write)
                return
            except (ReadOnly, StoreError):  # read-only, or no privilege to write: keep them here
                self._writable = False
        local = self._fallback(create=True)
        assert local is not None
        local.put(model, [(h, v) for _, h, v in rows])

    def count(self, model: str | None = None) -> int:
        with self._engine.read() as cur:
            stored = int(
                cur.execute(
                    "SELECT count(*) FROM embeddings WHERE CAST(? AS TEXT) IS NULL OR model = ?", (model, model)
                ).fetchone()[0]
            )
        local = self._fallback(create=False)
        return stored + (local.count(model) if local is not None else 0)

    def close(self) -> None:
        if self._local is not None:  # the graph owns the connection to the database
            self._local.close()


class FileEmbeddingCache:
    """The cache in its own SQLite file (``None``: in memory). A file that is not SQLite any more is
    started over; a busy one is an error, never deleted."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        target = ":memory:" if path is None else str(path)
        if path is not None and not path.exists():
            private_file(path, exclusive=True)  # 0600, its -wal and -shm too: vectors of the graph's texts
        try:
            self._conn = self._connect(target)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) or path is None:  # busy: never delete another's cache
                raise sqlite_failure(exc, path=path, timeout=30.0, opening=True) from exc
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
        conn.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, hash BLOB NOT NULL, "
            "vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )
        return conn

    def get(self, model: str, hashes: Sequence[bytes], nbytes: int) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for h, vector in self._conn.execute(
                f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})", [model, *chunk]
            ):
                if len(vector) == nbytes:
                    found[bytes(h)] = bytes(vector)
        return found

    def put(self, model: str, items: Iterable[tuple[bytes, bytes]]) -> None:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(
                "INSERT OR REPLACE INTO embeddings(model, hash, vector) VALUES (?, ?, ?)",
                [(model, h, v) for h, v in items],
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def count(self, model: str | None = None) -> int:
        return int(
            self._conn.execute(
                "SELECT count(*) FROM embeddings WHERE ? IS NULL OR model = ?", (model, model)
            ).fetchone()[0]
        )

    def close(self) -> None:
        self._conn.close()


# ---------------------------------------------------------------------- lexical search (contract §15)

#: The most words of a query the full-text index is asked about.
MAX_QUERY_WORDS = 32
#: A word found in more rows than this is common: a query with a rarer word ranks by its rare words alone.
COMMON_ROWS = 1000
#: The most matching rows scored for one query (the newest, when a query has only common words).
SCORED_ROWS = 1000


def _plan(cur: Any, kg: GraphStore, table: str, words: Sequence[str]) -> tuple[list[str], bool]:
    """Which words to ask the full-text index about, and whether all of them must match: the rare ones (in at
    most :data:`COMMON_ROWS` rows, each counted with a bounded read; a word in none is left out) when there are
    any, any of them matching;
    else every word, all of them matching (their intersection is what says something; when no row holds them
    all, any of them). Bounds the rows scored."""
    d = kg.engine.dialect
    rare: list[str] = []
    common: list[str] = []
    for word in words:
        match, params = d.text_match(table, [word])
        params["cap"] = COMMON_ROWS + 1
        (found,) = cur.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {match['from']} WHERE {match['where']} LIMIT :cap) c", params
        ).fetchone()
        if found:  # a word in no row says nothing here
            (rare if found <= COMMON_ROWS else common).append(word)
    return (rare, False) if rare else (common, True)


def _triple_groups(inner: str) -> str:
    """``inner`` (rows of id, score, subject, predicate, object_key; higher scores better) as one row per triple:
    its latest fact's id and its best score, best first (materialised first: SQLite's bm25 cannot run inside
    the aggregate)."""
    return (
        f"WITH m AS MATERIALIZED ({inner}) SELECT max(m.id), max(m.score) FROM m "
        "GROUP BY m.subject, m.predicate, m.object_key ORDER BY 2 DESC, 1 DESC LIMIT :n"
    )


def lexical_facts(
    kg: GraphStore, words: Sequence[str], limit: int, *, as_of: TimeInput | None = None, current_only: bool = False
) -> list[tuple[int, float]]:
    """The facts whose text (subject name, predicate label, object) best matches ``words`` in the graph's
    full-text index (each word as the phrase of its parts; see :func:`_plan` for which words), as (fact id,
    score) best first: one per triple (its latest fact passing the filters), at most ``limit``. At most
    :data:`SCORED_ROWS` matches are scored, the newest. Scores: BM25 (SQLite), ts_rank (PostgreSQL)."""
    words = list(words)[:MAX_QUERY_WORDS]
    if not words or limit <= 0:
        return []
    d = kg.engine.dialect
    where, params, _ = q.time_filter(ReadWindow(as_of, current_only=current_only))
    kg.engine.index_text()
    with kg.engine.read() as cur:
        asked, every = _plan(cur, kg, "fact_search", words)
        rows: list[Any] = []
        if not asked:
            return []
        for all_of in (True, False) if every else (False,):  # no row holds all the common words: any of them
            match, match_params = d.text_match("fact_search", asked, every=all_of)
            hits = (
                f"SELECT {match['key']} AS id, {match['score']} AS score FROM {match['from']} "
                f"WHERE {match['where']} ORDER BY {match['newest']} DESC LIMIT :scored"
            )
            inner = (
                f"SELECT f.id AS id, x.score AS score, f.subject AS subject, f.predicate AS predicate, "
                f"f.object_key AS object_key FROM ({hits}) x JOIN facts f ON f.id = x.id WHERE 1 = 1{where}"
            )
            rows = cur.execute(
                _triple_groups(inner), {**params, **match_params, "n": int(limit), "scored": SCORED_ROWS}
            ).fetchall()
            if rows:
                break
    return [(int(r[0]), float(r[1])) for r in rows]


def lexical_memories(kg: GraphStore, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
    """The memories whose text best matches ``words`` (see :func:`lexical_facts`), as (id, score) best first."""
    words = list(words)[:MAX_QUERY_WORDS]
    if not words or limit <= 0:
        return []
    with kg.engine.read() as cur:
        asked, every = _plan(cur, kg, "memory_search", words)
        rows: list[Any] = []
        for all_of in (True, False) if every else (False,):
            match, params = kg.engine.dialect.text_match("memory_search", asked, every=all_of)
            params.update(n=int(limit), scored=SCORED_ROWS)
            rows = cur.execute(
                f"""WITH m AS MATERIALIZED (SELECT {match["key"]} AS id, {match["score"]} AS score
                                       FROM {match["from"]} WHERE {match["where"]} ORDER BY {match["newest"]} DESC
                                       LIMIT :scored)
                                   SELECT id, score FROM m ORDER BY 2 DESC, 1 LIMIT :n""",
                params,
            ).fetchall()
            if rows:
                break
    return [(str(r[0]), float(r[1])) for r in rows]


def entity_triples(
    kg: GraphStore,
    sides: Sequence[tuple[str, str]],
    *,
    as_of: TimeInput | None = None,
    current_only: bool = False,
    limit: int = 5000,
) -> list[int]:
    """One fact per triple around these (entity id, side) pairs (side ``subject``, ``object`` or ``either``):
    the triple's latest fact passing the filters, most occurrences first (at most ``limit``)."""
    if not sides:
        return []
    where, params, _ = q.time_filter(ReadWindow(as_of, current_only=current_only))
    tests = []
    for i, (entity, side) in enumerate(sides):
        params[f"e{i}"] = entity
        if side in ("subject", "either"):
            tests.append(f"f.subject = :e{i}")
        if side in ("object", "either"):
            tests.append(f"f.object_id = :e{i}")
    params["n"] = int(limit)
    with kg.engine.read(snapshot=False) as cur:
        rows = cur.execute(
            f"""SELECT max(f.id) FROM facts f WHERE ({" OR ".join(tests)}){where}
                GROUP BY f.subject, f.predicate, f.object_key ORDER BY count(*) DESC, 1 DESC LIMIT :n""",
            params,
        ).fetchall()
    return [int(r[0]) for r in rows]


def triple_keys(kg: GraphStore, ids: Sequence[int]) -> dict[int, tuple[str, str, str]]:
    """Fact id → its triple (subject id, predicate, object key): facts with one triple say the same thing."""
    if not ids:
        return {}
    d = kg.engine.dialect
    with kg.engine.read(snapshot=False) as cur:
        rows = cur.execute(
            f"SELECT id, subject, predicate, object_key FROM facts WHERE id IN {d.values('ids', 'bigint')}",
            {"ids": d.list_param([int(i) for i in ids])},
        ).fetchall()
    return {int(r[0]): (r[1], r[2], r[3]) for r in rows}


def triple_dates(
    kg: GraphStore, ids: Sequence[int], *, as_of: TimeInput | None = None, current_only: bool = False
) -> dict[int, tuple[int, int, str | None, str | None]]:
    """For each fact id: the facts of its triple that pass the filters, as (the latest one's id, how many,
    the earliest start, the latest start). A current fact counts as the latest. (``object_key || ''`` keeps
    the planner on the (subject, predicate) index: a popular object's (predicate, object) rows are many.)"""
    if not ids:
        return {}
    d = kg.engine.dialect
    where, params, _ = q.time_filter(ReadWindow(as_of, current_only=current_only))
    params = {**Clock.real().params(), **params, "ids": d.list_param([int(i) for i in ids])}
    with kg.engine.read() as cur:
        rows = cur.execute(
            f"""SELECT me.id, f.id, {_CURRENT}, f.from_us, f.valid_from FROM facts me JOIN facts f
                ON f.subject = me.subject AND f.predicate = me.predicate AND f.object_key || '' = me.object_key
                WHERE me.id IN {d.values("ids", "bigint")}{where}""",
            params,
        ).fetchall()
    seen: dict[int, list[tuple[Any, ...]]] = {}
    for me, fid, current, start, text in rows:
        seen.setdefault(int(me), []).append((bool(current), int(start), int(fid), text))
    out = {}
    for me, group in seen.items():
        latest = max(group)
        starts = sorted((s, t) for _, s, _, t in group if t is not None)
        out[me] = (latest[2], len(group), starts[0][1] if starts else None, starts[-1][1] if starts else None)
    return out


def hop_distances(
    kg: GraphStore, entities: Sequence[str], *, hops: int = 2, as_of: TimeInput | None = None, max_facts: int = 5000
) -> dict[str, int]:
    """Entity id → hops from the nearest of ``entities`` (0 for themselves), walked in the store over the facts
    valid at ``as_of`` (else over every fact, history too), at most ``max_facts`` facts read."""
    distance = {e: 0 for e in entities}
    if not entities:
        return distance
    d = kg.engine.dialect
    frontier, room, window = list(distance), max_facts, ReadWindow(as_of)
    with kg.engine.read() as cur:
        w = t.when(cur, d, window) if window.dated else t.When("", {}, None)
        for hop in range(1, hops + 1):
            steps, _ = t._expand(cur, d, frontier, "both", None, w, room)
            room -= len(steps)
            frontier = []
            for step in steps:
                if step.there not in distance:
                    distance[step.there] = hop
                    frontier.append(step.there)
            if not frontier or room <= 0:
                break
    return distance

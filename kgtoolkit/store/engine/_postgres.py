"""The PostgreSQL backend: one graph per database (or per schema), shared by a team.

psycopg 3 runs the statements, ``COPY`` loads bulk rows, and ADBC's PostgreSQL driver reads whole
tables into Arrow. The schema is created on first use (``kgtoolkit_schema`` holds its version and the
graph's identity) in the connection's current schema (choose one with
``?options=-csearch_path%3Dmy_schema`` in the URL).

Concurrency, with SQLite's guarantees: writes run ``SERIALIZABLE``, so two processes on two machines
cannot both see "no such current fact" and both add it, nor lose an update; a transaction the server
refuses for a concurrent one (serialization failure, deadlock) runs again: first alongside other writers, then
alone, holding kgtoolkit's advisory lock exclusively (as a bulk load always does), so it cannot be
refused again; past :data:`ATTEMPTS` it fails with a clear error. Every other write holds the
lock shared. Reads run ``REPEATABLE READ READ ONLY``: one snapshot.
"""

from __future__ import annotations

import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from ..._errors import KGError, NotFound, ReadOnly, StoreError, missing_dependency, require
from ..._time import now_text
from ._backend import Backend, Cursor, Dialect, Query, T
from ._conflict_schema import fold_conflicts
from ._failures import postgres_connect_failure, postgres_failure
from ._location import Location
from ._migrate import apply_migrations
from ._rollup_fold import fold_pending
from ._schema import FACT_INDEXES, SCHEMA_VERSION

if TYPE_CHECKING:
    import polars as pl
    import psycopg
    import pyarrow as pa

__all__ = ["ATTEMPTS", "OPTIMISTIC", "PostgresBackend"]

#: How many times a write refused for a concurrent one (serialization failure, deadlock) is tried ...
ATTEMPTS = 6
#: ... of which the first ones alongside other writers; the rest alone.
OPTIMISTIC = 3
_LOCK_CLASS = 0x6B67  # "kg": the first key of kgtoolkit's advisory locks; the second is the schema's hash
_KGTOOLKIT_TABLES = (
    "entities",
    "facts",
    "aliases",
    "memories",
    "settings",
    "embeddings",
    "predicates",
    "predicate_aliases",
    "not_duplicates",
    "search_generation",
    "fact_search_pending",
)
_RETRY = ("40001", "40P01")  # serialization_failure, deadlock_detected
_ANALYZE_AFTER = 1000  # rows a bulk load adds to a table before it is analysed
#: A load of more facts than this, and at least as many as the graph holds, builds the facts indexes after it ...
_DEFER_FROM = 10_000
#: ... if it gets the tables to itself within this many seconds (else it updates them row by row).
_DEFER_WAIT = 1.0
#: The memory each index build of such a load may sort in, when the server allows less (kB).
_INDEX_BUILD_KB = 256 * 1024
#: The settings of a statement that reads many rows through indexes and joins them (Dialect.wide_read).
_WIDE_READ = {"work_mem": "64MB", "jit": "off", "enable_nestloop": "off"}
_HASHED_JOIN = {"work_mem": "256MB", "jit": "off", "enable_nestloop": "off", "enable_mergejoin": "off"}
#: The indexes such a load drops and builds again: the facts table's (all but its primary key) and the full-text one.
_DEFERRED_INDEXES = [*(s.split(" INDEX ")[1].split()[0] for s in FACT_INDEXES["postgresql"]), "fact_search_tsv"]


@contextmanager
def _settings(cur: Cursor, settings: dict[str, str]) -> Iterator[None]:
    """``settings`` for the statements inside only: put back after them (not on an error: the transaction is rolled
    back, and its local settings with it)."""
    before = cur.execute("SELECT " + ", ".join(f"current_setting('{name}')" for name in settings)).fetchone()
    cur.execute(_set_local(settings))
    yield
    cur.execute(_set_local(dict(zip(settings, before, strict=True))))


def _set_local(settings: dict[str, str]) -> str:
    """One statement setting these for the rest of the transaction (values from this module, not from a user)."""
    return "SELECT " + ", ".join(f"set_config('{name}', '{value}', TRUE)" for name, value in settings.items())


class PostgresDialect(Dialect):
    name: ClassVar[str] = "postgresql"
    no_limit: ClassVar[int | None] = None
    memory_order: ClassVar[str] = "seq"
    # A subquery with an OFFSET is never pulled up into its parent. Merged, nested subqueries that each use their
    # inner columns several times (the period arithmetic, store/reads/_aggregates.py) become one expression repeating
    # every level's terms, which JIT compiles in every parallel worker before the scan (churn of 10M facts: 99
    # functions, about 11 s per worker, against 6 s of scanning).
    fence: ClassVar[str] = " OFFSET 0"
    # The transactions still running when the snapshot was taken: xmin (the oldest) and xmax (the next to start).
    snapshot_bounds: ClassVar[str] = (
        "CAST(CAST(pg_snapshot_xmin(pg_current_snapshot()) AS TEXT) AS BIGINT), "
        "CAST(CAST(pg_snapshot_xmax(pg_current_snapshot()) AS TEXT) AS BIGINT)"
    )

    def either(self, first: str, second: str) -> str:
        # The two indexes' bitmaps ORed: each heap page read once. (The ids IN a subquery became a hash join with a
        # sequential scan of the whole table.)
        return f"(({first}) OR ({second}))"

    @contextmanager
    def wide_read(self, cur: Cursor) -> Iterator[None]:
        # The server's default work_mem (4 MB) makes a bitmap over a month's changes at 10M facts lossy: its heap
        # scan rechecked 1.2M rows to keep 155,000. JIT compiled 18 functions (50 ms) for a read of well under 1 s.
        # A materialized CTE has no statistics: a join of two of them was planned as a nested loop (a month at 1M
        # facts: 24.9 s); without nested loops, a hash join (0.09 s at 10M). The statements after need nested loops
        # (a page of facts joined to their names), so the settings are put back, not left to the transaction's end.
        # (Not on an error: the transaction is rolled back, and its local settings with it.)
        with _settings(cur, _WIDE_READ):
            yield

    @contextmanager
    def hashed_join(self, cur: Cursor) -> Iterator[None]:
        # Churn's renewals join every ended fact to the facts of its triple. One index range per ended fact (a nested
        # loop) took 3.2-4.6 s at 1M facts on a loaded machine; a parallel hash join of the two sides 2.8 s, once the
        # merge join (chosen without nested loops, its sorts spilling at 64 MB) is off too.
        with _settings(cur, _HASHED_JOIN):
            yield

    def list_param(self, values: Iterable[Any]) -> Any:
        return list(values)

    def values(self, param: str, kind: str = "text") -> str:
        return f"(SELECT unnest(CAST(:{param} AS {kind}[])) AS value)"

    def in_list(self, expr: str, param: str, kind: str = "text") -> str:
        return f"{expr} = ANY(CAST(:{param} AS {kind}[]))"

    def in_values(self, expr: str, param: str, values: Sequence[str]) -> tuple[str, dict[str, Any]]:
        return self.in_list(expr, param), {param: self.list_param(values)}

    def array_agg(self, expr: str) -> str:
        return f"array_agg({expr})"

    def array(self, value: Any) -> list[Any]:
        return list(value) if value is not None else []  # no rows: NULL

    def scan(self, table: str) -> str:
        return table

    def modulo(self, a: str, b: int) -> str:
        return f"mod({a}, {b})"  # '%' would meet the driver's parameter marks

    def contains(self, haystack: str, needle: str) -> str:
        return f"strpos({haystack}, {needle}) > 0"

    def char(self, code: int) -> str:
        return f"chr({code})"

    def ordered_concat(self, expr: str, separator: str, source: str, order: str) -> str:
        return f"SELECT string_agg({expr}, {separator} ORDER BY {order}) FROM {source}"

    def text_match(
        self, table: str, words: Sequence[str], *, every: bool = False
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """PostgreSQL: the table's tsvector against the OR (``every``: AND) of one ``phraseto_tsquery('english',
        word)`` per word, scored by ``ts_rank``."""
        words = [w for w in words if w.strip()]
        query = (" && " if every else " || ").join(
            f"phraseto_tsquery('english', CAST(:w{i} AS TEXT))" for i in range(len(words))
        )
        key = "x.fact_id" if table == "fact_search" else "x.id"
        if not words:
            return {"from": f"{table} x", "key": key, "newest": key, "score": "0.0", "where": "1 = 0"}, {}
        return (
            {
                "from": f"{table} x CROSS JOIN (SELECT {query} AS q) qq",
                "key": key,
                "newest": key,
                "score": "ts_rank(x.tsv, qq.q)",
                "where": "x.tsv @@ qq.q",
            },
            {f"w{i}": w for i, w in enumerate(words)},
        )


_QUOTED = re.compile(r"('(?:[^']|'')*')")
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@lru_cache(maxsize=2048)
def _translate(sql: str, named: bool) -> str:
    """SQLite-style parameters (``?``, ``:name``) as psycopg's (``%s``, ``%(name)s``), outside string literals."""
    parts = _QUOTED.split(sql)
    for i in range(0, len(parts), 2):  # even parts are outside quotes
        text = parts[i].replace("%", "%%")
        parts[i] = _NAMED.sub(r"%(\1)s", text) if named else text.replace("?", "%s")
    return "".join(parts)


@lru_cache(maxsize=512)
def _dollars(sql: str) -> str:
    """``?`` parameters as ``$1, $2, …`` (ADBC's PostgreSQL driver binds by number)."""
    parts = _QUOTED.split(sql)
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"\?", number, parts[i])
    return "".join(parts)


class _Cursor:
    """A psycopg cursor that takes the store's SQL (``?`` and ``:name`` parameters)."""

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self._cur = cur

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        named = isinstance(parameters, dict)
        self._cur.execute(_translate(sql, named), parameters if parameters else None)
        return self

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> _Cursor:
        rows = list(seq_of_parameters)
        if rows:
            self._cur.executemany(_translate(sql, isinstance(rows[0], dict)), rows)
        return self

    def fetchone(self) -> Any:
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cur.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cur.fetchall())

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount

    @property
    def description(self) -> Any:
        return self._cur.description

    @property
    def raw(self) -> psycopg.Cursor[Any]:
        return self._cur


class PostgresBackend(Backend):
    kind: ClassVar[str] = "postgresql"
    dialect: ClassVar[Dialect] = PostgresDialect()
    fact_search_key: ClassVar[str] = "fact_id"

    def __init__(self, location: Location, *, read_only: bool = False, timeout: float = 30.0) -> None:
        super().__init__(location, read_only=read_only, timeout=timeout)
        try:
            import psycopg
        except ImportError as exc:
            raise missing_dependency(
                "psycopg", "postgres", needed_for="a PostgreSQL graph", cause=exc, field="db", value=str(location)
            ) from exc
        self._psycopg = psycopg
        self._conn: psycopg.Connection[Any] | None = None
        self._closed = False  # close() was called: never reconnect
        self._adbc: Any = None
        self._adbc_lock = threading.Lock()
        self._schema_key = 0
        self._graph_id = ""
        self._loaded: dict[str, int] = {}  # rows the running bulk load has copied into each table
        with self.lock:
            self._open()

    # ------------------------------------------------------------------ connecting

    def _connect(self) -> psycopg.Connection[Any]:
        """A new psycopg connection to the graph's database, its failures as kgtoolkit's."""
        pg = self._psycopg
        try:
            conn: psycopg.Connection[Any] = pg.connect(
                self.location.url or "",
                autocommit=True,
                application_name="kgtoolkit",
                connect_timeout=max(1, min(int(self.timeout), 30)),
            )
        except pg.OperationalError as exc:
            raise self._connect_error(exc) from exc
        conn.execute(f"SET lock_timeout = {int(self.timeout * 1000)}")
        if self.read_only:
            conn.execute("SET default_transaction_read_only = on")
        return conn

    def _connect_error(self, exc: Exception) -> StoreError:
        return postgres_connect_failure(exc, where=str(self.location))

    def _open(self) -> None:
        """Connect, then check (and, writing, create or migrate) the schema under an exclusive lock."""
        self._conn = conn = self._connect()
        try:
            with conn.cursor() as cur:
                schema, key = _one(cur, "SELECT current_schema(), hashtext(COALESCE(current_schema(), ''))")
                if schema is None:
                    raise StoreError(
                        f"{self.location} has no schema to create the graph in (the search_path names "
                        "none that exists); create it, or fix options=-csearch_path in the URL",
                        field="db",
                        value=str(self.location),
                    )
                self._schema_key = int(key)
                cur.execute("BEGIN")
                try:
                    if not self.read_only:
                        cur.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, self._schema_key))
                    version = self._version(cur)
                    if version < SCHEMA_VERSION:
                        self._migrate(cur, version)
                    (self._graph_id,) = _one(cur, "SELECT graph_id FROM kgtoolkit_schema")
                    cur.execute("COMMIT")
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
        except KGError:
            conn.close()
            raise
        except self._psycopg.Error as exc:
            conn.close()
            raise self._error(exc) from exc

    def _version(self, cur: psycopg.Cursor[Any]) -> int:
        """The schema version of the graph's database (0: no graph yet)."""
        exists = _one(cur, "SELECT to_regclass('kgtoolkit_schema') IS NOT NULL")[0]
        if not exists:
            taken = [
                r[0]
                for r in cur.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                    "AND table_name = ANY(%s) ORDER BY table_name",
                    (list(_KGTOOLKIT_TABLES),),
                ).fetchall()
            ]
            if taken:
                raise StoreError(
                    f"{self.location} already has tables of another program ({', '.join(taken)}) in its "
                    "schema; give kgtoolkit a schema of its own (?options=-csearch_path%3Dkg in the URL)",
                    field="db",
                    value=str(self.location),
                )
            return 0
        version = int(_one(cur, "SELECT version FROM kgtoolkit_schema")[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.location} has schema version {version}, newer than this kgtoolkit understands "
                f"({SCHEMA_VERSION}); upgrade kgtoolkit",
                field="db",
                value=str(self.location),
            )
        return version

    def _migrate(self, cur: psycopg.Cursor[Any], version: int) -> None:
        """Bring the schema from ``version`` to the current one (a read-only graph is refused instead)."""
        if self.read_only:
            if version == 0:
                raise NotFound(
                    f"no graph in {self.location} yet; a graph is created by its first write (open it "
                    "without read_only)",
                    field="db",
                    value=str(self.location),
                )
            raise StoreError(
                f"{self.location} needs a schema upgrade; open it once without read_only",
                field="db",
                value=str(self.location),
            )
        if version == 0:
            cur.execute(
                "CREATE TABLE kgtoolkit_schema (version INTEGER NOT NULL, graph_id TEXT NOT NULL, "
                "created_at TEXT NOT NULL)"
            )
            cur.execute("CREATE SEQUENCE kgtoolkit_revision")
            cur.execute("INSERT INTO kgtoolkit_schema VALUES (0, %s, %s)", (uuid.uuid4().hex, now_text()))
        apply_migrations(
            cur.execute, self.kind, version, lambda: int(_one(cur, "SELECT COALESCE(max(id), 0) FROM facts")[0])
        )
        cur.execute("UPDATE kgtoolkit_schema SET version = %s", (SCHEMA_VERSION,))

    def _connection(self) -> psycopg.Connection[Any]:
        """The open connection, reconnecting when the last one broke (a restarted server, a dropped link)."""
        if self._closed:
            raise StoreError(
                f"the graph {self.location} is closed; open it again", field="db", value=str(self.location)
            )
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = self._connect()
        return self._conn

    # ------------------------------------------------------------------ errors

    def _error(self, exc: Exception) -> KGError:
        """A psycopg (or ADBC) error as a kgtoolkit error, by its sqlstate (see :mod:`._failures`)."""
        return postgres_failure(
            exc, where=str(self.location), timeout=self.timeout, connection_error=self._psycopg.OperationalError
        )

    # ------------------------------------------------------------------ transactions

    def _refuse_write(self) -> None:
        raise ReadOnly(
            f"{self.location} is open read-only; open it without read_only to change it",
            field="db",
            value=str(self.location),
        )

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Cursor]:
        with self._begun(write=write, bulk=False) as cur:
            yield cur

    @contextmanager
    def statement(self) -> Iterator[Cursor]:
        with self.lock:
            raw = self._connection().cursor()
            try:
                yield _Cursor(raw)
            except self._psycopg.Error as exc:
                raise self._error(exc) from exc
            finally:
                raw.close()

    @contextmanager
    def _begun(self, *, write: bool, bulk: bool) -> Iterator[Cursor]:
        """One transaction on this thread's connection (a write on a read-only graph refused first)."""
        if write and self.read_only:
            self._refuse_write()
        with self.lock:
            conn = self._connection()
            raw = conn.cursor()
            try:
                if not write:
                    raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                elif bulk:
                    raw.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
                    raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, self._schema_key))
                else:
                    raw.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                    raw.execute("SELECT pg_advisory_xact_lock_shared(%s, %s)", (_LOCK_CLASS, self._schema_key))
            except self._psycopg.Error as exc:
                self._rollback(conn)
                raise self._error(exc) from exc
            try:
                yield _Cursor(raw)
            except self._psycopg.Error as exc:
                self._rollback(conn)
                if getattr(exc, "sqlstate", None) in _RETRY or _key_race(exc):
                    raise  # write() runs it again
                raise self._error(exc) from exc
            except BaseException:
                self._rollback(conn)
                raise
            else:
                try:
                    raw.execute("COMMIT")
                except self._psycopg.Error as exc:
                    self._rollback(conn)
                    if getattr(exc, "sqlstate", None) in _RETRY:
                        raise
                    raise self._error(exc) from exc
                if write:
                    self._bump(raw)
            finally:
                raw.close()

    def _rollback(self, conn: psycopg.Connection[Any]) -> None:
        try:
            if not conn.broken:
                conn.execute("ROLLBACK")
        except self._psycopg.Error:
            pass

    def _bump(self, raw: psycopg.Cursor[Any]) -> None:
        """After a commit: move the revision on, so other processes see that something changed."""
        try:
            raw.execute("SELECT nextval('kgtoolkit_revision')")
        except self._psycopg.Error:
            pass  # the write is committed; a reader's digest check still catches it

    def write(self, fn: Callable[[Cursor], T]) -> T:
        """Run ``fn`` in a serializable transaction; when a concurrent one makes the server refuse it, run it
        again, and from the :data:`OPTIMISTIC`-th attempt on alone (the exclusive advisory lock: no other
        writer runs, so nothing can conflict). A long write (a merge) among many short ones thus finishes."""
        for attempt in range(ATTEMPTS):
            try:
                with self._begun(write=True, bulk=attempt >= OPTIMISTIC) as cur:
                    result = fn(cur)
                    fold_pending(cur, self.kind)  # the facts it inserted counted before it commits (contract §18)
                    fold_conflicts(self, cur)  # the kept conflict judgement, when due (contract §18)
                    return result
            except self._psycopg.Error as exc:
                if attempt == ATTEMPTS - 1:
                    raise StoreError(
                        f"the graph at {self.location} was changed by concurrent writes {ATTEMPTS} times "
                        f"while this write ran ({exc.sqlstate}); nothing was written; retry",
                        field="db",
                        value=str(self.location),
                    ) from exc
                time.sleep(min(0.2, 0.002 * 2**attempt) * (0.5 + random.random()))
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def bulk_write(self) -> Iterator[Cursor]:
        """A write transaction holding kgtoolkit's advisory lock exclusively; tables that received many rows
        are analysed before it commits, so the planner knows their new size at once (not when autovacuum
        gets round to it: until then a point query can plan a scan of the whole table)."""
        try:
            with self._begun(write=True, bulk=True) as cur:
                self._loaded = {}
                yield cur
                for table, rows in sorted(self._loaded.items()):
                    if rows >= _ANALYZE_AFTER:
                        cur.execute(f"ANALYZE {table}")
                fold_pending(cur, self.kind)  # the loaded facts counted set-wise, before it commits
                fold_conflicts(self, cur)  # the kept conflict judgement, when due (contract §18)
        except self._psycopg.Error as exc:
            raise self._error(exc) from exc
        finally:
            self._loaded = {}

    # ------------------------------------------------------------------ bulk data

    def _adbc_connection(self) -> Any:
        """The ADBC connection of this thread, opened on first use (refused once the graph is closed)."""
        if self._closed:
            raise StoreError(
                f"the graph {self.location} is closed; open it again", field="db", value=str(self.location)
            )
        if self._adbc is None:
            needed_for = "reading a PostgreSQL graph into Arrow"
            adbc_driver_manager = require("adbc_driver_manager", "postgres", needed_for=needed_for)
            adbc_driver_postgresql = require("adbc_driver_postgresql", "postgres", needed_for=needed_for)

            try:
                database = adbc_driver_postgresql.connect(self.location.url or "")
                self._adbc = (database, adbc_driver_manager.AdbcConnection(database))
            except adbc_driver_manager.Error as exc:
                raise self._connect_error(exc) from exc
        return self._adbc[1]

    def _arrow(self, conn: Any, sql: str, params: dict[str, Any]) -> pa.Table:
        """One query's rows as an Arrow table, through ADBC."""
        import adbc_driver_manager
        import pyarrow as pa

        values: list[Any] = []

        def swap(match: re.Match[str]) -> str:
            values.append(params[match.group(1)])
            return "?"

        parts = _QUOTED.split(sql)
        for i in range(0, len(parts), 2):
            parts[i] = _NAMED.sub(swap, parts[i])
        stmt = adbc_driver_manager.AdbcStatement(conn)
        try:
            stmt.set_sql_query(_dollars("".join(parts)))
            if values:
                stmt.bind(pa.record_batch([pa.array([v]) for v in values], names=[f"p{i}" for i in range(len(values))]))
            handle, _ = stmt.execute_query()
            return pa.RecordBatchReader._import_from_c(handle.address).read_all()
        finally:
            stmt.close()

    def read_arrow(
        self, queries: Sequence[Query], *, split: Query | None = None, cur: Cursor | None = None
    ) -> tuple[list[pa.Table], list[pa.Table]]:
        """The queries' rows as Arrow tables in one snapshot; ``split`` read in id ranges at once."""
        import adbc_driver_manager

        with self._adbc_lock:
            conn = self._adbc_connection()
            try:
                self._arrow(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {})
                try:
                    parts = []
                    if split is not None:  # one part: the bounds as literals (binding any value imports pandas)
                        sql = _NAMED.sub(
                            lambda m: {"_lo": str(1 - 2**63), "_hi": str(2**63 - 1)}.get(m.group(1), m.group(0)),
                            split[0],
                        )
                        parts.append(self._arrow(conn, sql, split[1]))
                    extra = [self._arrow(conn, sql, params) for sql, params in queries]
                finally:
                    self._arrow(conn, "ROLLBACK", {})
            except adbc_driver_manager.Error as exc:
                self._close_adbc()
                if getattr(exc, "sqlstate", None) in ("25006", "55P03", "57014", "53100", "XX001", "XX002"):
                    raise self._error(exc) from exc
                raise StoreError(
                    f"cannot read {self.location} into Arrow: {str(exc).splitlines()[0]}",
                    field="db",
                    value=str(self.location),
                ) from exc
        return parts, extra

    def insert_rows(self, cur: Cursor, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        raw = cur.raw if isinstance(cur, _Cursor) else cur
        count = 0
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
                count += 1
        self._loaded[table] = self._loaded.get(table, 0) + count

    def insert_frame(self, cur: Cursor, table: str, columns: Sequence[str], frame: pl.DataFrame) -> None:
        """One ``COPY`` of the frame written as COPY's text format by polars (no Python object per value)."""
        raw: psycopg.Cursor[Any] = cur.raw if isinstance(cur, _Cursor) else cur  # type: ignore[assignment]
        if raw.connection.info.encoding != "utf-8":  # polars writes UTF-8; psycopg encodes for other databases
            super().insert_frame(cur, table, columns, frame)
            return
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            copy.write(_copy_text(frame))
        self._loaded[table] = self._loaded.get(table, 0) + frame.height

    @contextmanager
    def fact_indexes_deferred(self, cur: Cursor, rows: int, existing: int) -> Iterator[None]:
        """A load of more than :data:`_DEFER_FROM` facts into a graph holding no more than it (a first import, a
        graph that at least doubles) builds the facts indexes, its two foreign keys and the full-text index after
        it: many times faster than updating them row by row, and checked all the same (a unique index, a foreign
        key made again checks every row). That takes ``facts``, ``entities`` and ``fact_search`` exclusively until
        the load commits: readers of the graph wait for the load's writing (not for its reading of the file or
        its checks, which run before). A load that does not get them within :data:`_DEFER_WAIT` seconds (a long
        read is running) keeps the indexes and updates them row by row rather than keep new readers queued
        behind it; so does a user who does not own the tables."""
        again = self._defer(cur) if rows > _DEFER_FROM and rows >= existing else None
        yield
        if again:  # the builds sort in memory up to this much each (the server's default is 64 MB), for this load only
            (kb,) = cur.execute(
                "SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'"
            ).fetchone()
            if kb < _INDEX_BUILD_KB:
                cur.execute("SELECT set_config('maintenance_work_mem', ?, TRUE)", (f"{_INDEX_BUILD_KB}kB",))
        for statement in again or ():
            cur.execute(statement)

    def _defer(self, cur: Cursor) -> list[str] | None:
        """Lock the tables, drop the indexes and foreign keys; the statements that make them again (None: not now)."""
        owner = cur.execute(
            "SELECT bool_and(pg_has_role(current_user, relowner, 'USAGE')) FROM pg_class WHERE oid IN "
            "(CAST('facts' AS regclass), CAST('entities' AS regclass), CAST('fact_search' AS regclass))"
        ).fetchone()[0]
        if not owner:
            return None
        (timeout,) = cur.execute("SELECT current_setting('lock_timeout')").fetchone()
        cur.execute("SAVEPOINT kgtoolkit_defer")
        try:
            cur.execute(f"SET LOCAL lock_timeout = {max(1, int(min(self.timeout, _DEFER_WAIT) * 1000))}")  # 0: forever
            cur.execute("LOCK TABLE facts, entities, fact_search IN ACCESS EXCLUSIVE MODE")
        except self._psycopg.errors.LockNotAvailable:
            cur.execute("ROLLBACK TO SAVEPOINT kgtoolkit_defer")
            cur.execute("RELEASE SAVEPOINT kgtoolkit_defer")
            return None
        cur.execute("RELEASE SAVEPOINT kgtoolkit_defer")
        cur.execute("SELECT set_config('lock_timeout', ?, TRUE)", (timeout,))
        indexes = cur.execute(
            "SELECT 'DROP INDEX ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname), pg_get_indexdef(c.oid) "
            "FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE i.indrelid IN (CAST('facts' AS regclass), CAST('fact_search' AS regclass)) "
            "AND c.relname = ANY(?) ORDER BY c.relname",
            (_DEFERRED_INDEXES,),
        ).fetchall()
        keys = cur.execute(
            "SELECT 'ALTER TABLE facts DROP CONSTRAINT ' || quote_ident(conname), "
            "'ALTER TABLE facts ADD CONSTRAINT ' || quote_ident(conname) || ' ' || pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE conrelid = CAST('facts' AS regclass) AND contype = 'f' ORDER BY conname"
        ).fetchall()
        for drop, _ in [*keys, *indexes]:
            cur.execute(drop)
        return [make for _, make in [*indexes, *keys]]

    @contextmanager
    def text_index_paused(self, cur: Cursor, *, defer: bool = False) -> Iterator[None]:
        """The trigger disabled in the transaction (ALTER TABLE is transactional) and enabled again; a user who
        does not own the table (so may not alter it) keeps the per-row trigger."""
        after, owner = cur.execute(
            "SELECT (SELECT COALESCE(max(id), 0) FROM facts), pg_has_role(current_user, "
            "relowner, 'USAGE') FROM pg_class WHERE oid = CAST('facts' AS regclass)"
        ).fetchone()
        if not owner:
            yield
            return
        cur.execute("ALTER TABLE facts DISABLE TRIGGER fact_search_sync")
        yield
        self._text_index_after(cur, after, defer=defer)
        cur.execute("ALTER TABLE facts ENABLE TRIGGER fact_search_sync")

    def after_explicit_ids(self, cur: Cursor, table: str) -> None:
        cur.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST((SELECT max(id) FROM {table}), 1),"
            f" (SELECT count(*) > 0 FROM {table}))"
        )

    # ------------------------------------------------------------------ what a graph is

    def identity(self) -> str:
        return self._graph_id

    def change_token(self) -> tuple[Any, ...]:
        with self.lock:
            try:
                row = self._connection().execute("SELECT last_value, is_called FROM kgtoolkit_revision").fetchone()
            except self._psycopg.Error as exc:
                raise self._error(exc) from exc
        return tuple(row or ())

    def _close_adbc(self) -> None:
        if self._adbc is not None:
            database, conn = self._adbc
            self._adbc = None
            for handle in (conn, database):
                try:
                    handle.close()
                except Exception:
                    pass

    def close(self) -> None:
        with self.lock:
            self._closed = True
            with self._adbc_lock:
                self._close_adbc()
            if self._conn is not None:
                self._conn.close()


def _copy_text(frame: pl.DataFrame) -> bytes:
    """The frame's rows in COPY's text format: tab-separated, ``\\N`` for NULL, backslash, tab and line breaks
    escaped (only in the text columns that hold one)."""
    import io

    import polars as pl

    columns = []
    for name, dtype in frame.schema.items():
        column = pl.col(name)
        if dtype == pl.String and frame[name].str.contains(r"[\\\t\n\r]").any():
            for char, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
                column = column.str.replace_all(char, escaped, literal=True)
        columns.append(column)
    buffer = io.BytesIO()
    frame.select(columns).write_csv(
        buffer, include_header=False, separator="\t", quote_style="never", null_value="\\N", line_terminator="\n"
    )
    return buffer.getvalue()


def _key_race(exc: Exception) -> bool:
    """A concurrent transaction wrote the same key first: the same new entity, alias or current fact. Every
    write looks for its keys before it inserts them, so a unique violation always means such a race."""
    return getattr(exc, "sqlstate", None) == "23505"


def _one(cur: psycopg.Cursor[Any], sql: str) -> Any:
    """The one row a query of the schema's own tables answers (they always hold it)."""
    row = cur.execute(sql).fetchone()
    if row is None:
        raise StoreError(f"the graph's schema is incomplete: {sql!r} found no row; restore it from a backup")
    return row

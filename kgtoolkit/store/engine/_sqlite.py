"""The SQLite backend: one local file (or memory), through Python's ``sqlite3``.

WAL, a busy timeout, foreign keys, and every write in one ``BEGIN IMMEDIATE`` transaction (no lock
upgrades, so no deadlock): several processes may write one file at once.

**One SQLite library per process for a graph file.** In this process the file is opened only
through ``sqlite3``: a second copy of the SQLite library (ADBC's driver bundles one) on the same
file in the same process can corrupt it, as each copy's POSIX locks are invisible to the other.
Whole-table reads into Arrow therefore run in a reader process (:mod:`._arrow_read`); small ones run
here. ``tests/store/test_one_sqlite.py`` checks that nothing else imports ADBC's SQLite driver.

A graph whose file or folder this user cannot write opens read-only (``read_only_reason`` says why):
reads work, in SQLite's ``immutable`` mode when the WAL's shared-memory file cannot be made, and
writes raise :class:`~kgtoolkit.ReadOnly` naming the reason.

Every ``sqlite3`` error that leaves a connection or transaction becomes a kgtoolkit error through
:mod:`._failures` (corrupt, disk_full, locked, read_only, store_error). A failed transaction is rolled
back only if SQLite has not already done so itself (it does after a full disk or an I/O error), and a
rollback that fails never hides the failure: the connection is opened anew instead.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote

from ..._errors import KGError, NotFound, ReadOnly, StoreError
from ..._private import private_file
from ._arrow_read import HI, LO, read_arrow, warm_reader
from ._backend import Backend, Cursor, Dialect, Query, _in_thread
from ._conflict_schema import fold_conflicts
from ._failures import corrupt_error, is_sqlite_failure, os_failure, refused_reason, sqlite_failure, unwritable
from ._location import DEFAULT_PATH, Location
from ._migrate import apply_migrations
from ._rollup_fold import fold_pending
from ._schema import FACT_INDEXES, SCHEMA_VERSION

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["SQLiteBackend"]

#: Up to about this many rows a whole-table read runs here (cheaper than the reader's round trip).
SMALL = 20_000
#: Facts ids from which the reader process splits a whole-table read over two connections.
SPLIT_MIN = 200_000


#: How much of a graph file reads may map (see :meth:`SQLiteBackend._sqlite`).
_MMAP_BYTES = 256 * 2**20


class SQLiteBackend(Backend):
    kind: ClassVar[str] = "sqlite"
    dialect: ClassVar[Dialect] = Dialect()

    def __init__(self, location: Location, *, read_only: bool = False, timeout: float = 30.0) -> None:
        super().__init__(location, read_only=read_only, timeout=timeout)
        assert location.path is not None
        self.path = location.path
        self._immutable = False
        self._corrupt: KGError | None = None  # what a read found damaged: writes are refused from then on
        self._reopening = False
        #: A file that does not exist yet, opened for writing: reads say there is no graph, and the first write
        #: (or :meth:`create`) makes it. Reads never create a graph (contract §8).
        self._pending = False
        memory = location.memory
        try:
            exists = memory or self.path.exists()
            if exists and not memory and not read_only:
                self.read_only_reason = unwritable(self.path)
        except OSError as exc:  # a name too long, no permission ...
            raise os_failure(exc, path=self.path, doing="use", hint="choose another path") from exc
        if not exists and read_only:
            raise self._no_graph()
        self.read_only = read_only or self.read_only_reason is not None
        if exists:
            self._open_file()
        else:
            self._pending = True

    def _no_graph(self) -> NotFound:
        return NotFound(
            f"no graph at {self.path}; check the path (a graph is created by its first write: add a fact or "
            "import a file there; in Python, open(..., create=True) makes an empty one)",
            field="path",
            value=str(self.path),
        )

    @property
    def missing(self) -> bool:
        return self._pending and not self.path.exists()

    def create(self) -> None:
        """Make the graph's file now, if it does not exist yet (its folder too); reads never do."""
        with self.lock:
            if not self._pending:
                return
            try:
                folder = self.path.parent
                if not folder.exists():
                    default_folder = DEFAULT_PATH.expanduser().parent
                    folder.mkdir(parents=True, exist_ok=True, mode=0o700 if folder == default_folder else 0o777)
                reason = unwritable(self.path)
            except OSError as exc:  # a path component is a file, a name too long, no permission, a full disk ...
                raise os_failure(exc, path=self.path, doing="use", hint="choose another path") from exc
            if reason is not None and not self.path.exists():
                raise StoreError(
                    f"cannot create a graph at {self.path}: {reason}; choose another path",
                    field="path",
                    value=str(self.path),
                )
            self.read_only_reason = reason
            self.read_only = reason is not None
            self._open_file()
            self._pending = False

    def _ready(self) -> None:
        """Before a read: a graph whose file is still missing has none to read, unless another process made it."""
        if self._pending:
            with self.lock:
                if self._pending and not self.path.exists():
                    raise self._no_graph()
                self.create()

    def _open_file(self) -> None:
        """Open (or create, owner-only) the graph's file, its failures as kgtoolkit's."""
        try:
            if not self.read_only and not self.location.memory and not self.path.exists():
                private_file(self.path, exclusive=True)  # 0600, and its -wal and -shm with it (contract §8)
            self._connect()
            if not self.read_only:
                self._enable_wal()
                self.conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except BaseException as exc:
            conn: sqlite3.Connection | None = getattr(self, "conn", None)
            if conn is not None:
                conn.close()
            if is_sqlite_failure(exc):
                raise self._failure(exc, opening=True) from exc  # type: ignore[arg-type]
            raise

    # ------------------------------------------------------------------ failures

    def _failure(self, exc: sqlite3.Error, *, opening: bool = False) -> KGError:
        """The kgtoolkit error for a failure of this graph's database (see :mod:`._failures`)."""
        path = None if self.location.memory else self.path
        failure = sqlite_failure(
            exc,
            path=path,
            timeout=self.timeout,
            opening=opening,
            read_only_reason=lambda: None if path is None else refused_reason(path),
        )
        self._found(failure)
        return failure

    def _found(self, failure: KGError) -> None:
        """Remember a read's finding that the file is damaged: no write goes into it from then on (contract §6)."""
        if failure.code == "corrupt":
            self._corrupt = failure

    def _refuse_corrupt(self) -> None:
        raise corrupt_error(
            self.path, "a read found damaged pages, so no write goes into it: nothing was written"
        ) from self._corrupt

    # ------------------------------------------------------------------ connecting

    def _connect(self) -> None:
        """Open the connection and check the schema before anything changes the file.

        Read-only, the file is opened with ``mode=ro``. A graph in WAL mode whose folder cannot be
        written (its ``-shm`` file cannot be created) is then opened ``immutable``, when no ``-wal``
        file holds changes that only a writer could fold in.
        """
        if not self.read_only or self.location.memory:
            self.conn = self._sqlite(str(self.path), uri=False)
            self._check_schema()  # refuse a newer or foreign file before WAL (below) changes it
            return
        self.conn = self._sqlite(self._uri(self.path), uri=True)
        try:
            self._check_schema()
        except sqlite3.OperationalError as exc:
            wal = Path(f"{self.path}-wal")
            if "unable to open" not in str(exc) or (wal.exists() and wal.stat().st_size > 0):
                raise
            self.conn.close()
            self._immutable = True
            self.conn = self._sqlite(self._uri(self.path), uri=True)
            self._check_schema()

    def _sqlite(self, target: str, *, uri: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(target, uri=uri, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        # Reads map the file instead of copying pages through read(2): a third less time on reads of many rows
        # (diff, walks). Bounded, so a big file is not mapped whole; pages mapped are the OS's page cache.
        conn.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
        return conn

    def _uri(self, path: Path) -> str:
        # Percent-escape the path: in a URI, '?', '#' and '%' in a folder name would name another file.
        return f"file:{quote(str(path))}?mode=ro" + ("&immutable=1" if self._immutable else "")

    def _enable_wal(self) -> None:
        """Switch to WAL, retrying: on a new file another process's read lock makes this switch fail at once
        with "database is locked" (SQLite does not wait its busy timeout for it)."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
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
        version: int = self.conn.execute("PRAGMA user_version").fetchone()[0]
        self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema: a damaged one fails here
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this kgtoolkit understands "
                f"({SCHEMA_VERSION}); upgrade kgtoolkit",
                field="path",
                value=str(self.path),
            )
        if version == 0:
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables:
                raise StoreError(
                    f"{self.path} is an SQLite file of another program (tables: {', '.join(sorted(tables))}); "
                    "open a new file and import it with `kgtoolkit import`",
                    field="path",
                    value=str(self.path),
                )
        return version

    def _check_schema(self) -> int:
        """:meth:`_schema_version` in one read transaction (it writes nothing)."""
        self.conn.execute("BEGIN")
        try:
            return self._schema_version()
        finally:
            self._rollback()

    def _no_graph_yet(self) -> StoreError:
        """Why a file opened read-only cannot be read: empty (no graph yet, contract §8), or of an older schema."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:  # no tables either (_schema_version refused another program's)
            empty = self.path.stat().st_size == 0
            return StoreError(
                f"{self.path} is "
                + ("an empty file (0 bytes)" if empty else "an SQLite database without tables")
                + ": it holds no graph. Check the path; a write to it (not read-only) starts a new graph there",
                field="path",
                value=str(self.path),
                empty=True,
            )
        return StoreError(
            f"{self.path} needs a schema upgrade; open it once without read_only",
            field="path",
            value=str(self.path),
        )

    def _migrate(self) -> None:
        """Bring the file's schema to the current version (a read-only graph is refused instead)."""
        conn = self.conn
        if self._check_schema() == SCHEMA_VERSION:
            return
        if self.read_only:
            raise self._no_graph_yet()
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = self._schema_version()  # again under the write lock: another process may have won
            apply_migrations(
                conn.execute,
                self.kind,
                version,
                lambda: conn.execute("SELECT COALESCE(max(id), 0) FROM facts").fetchone()[0],
            )
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    # ------------------------------------------------------------------ transactions

    def _refuse_write(self) -> None:
        """Raise ``read_only``, saying why and how to write."""
        if self.read_only_reason:
            raise ReadOnly(
                f"{self.path} cannot be changed: {self.read_only_reason}. Reads work; to write, give "
                "this user write access to the file and its folder, or copy the graph elsewhere",
                field="path",
                value=str(self.path),
                reason=self.read_only_reason,
            )
        raise ReadOnly(
            f"{self.path} is open read-only; open it without read_only to change it",
            field="path",
            value=str(self.path),
            reason="opened read-only",
        )

    def _rollback(self) -> None:
        """End the failed transaction, if SQLite has not ended it already (after a full disk or an I/O error
        it rolls back by itself). Never raises: when even the rollback fails, the connection is opened
        anew (SQLite rolls back what it left unfinished), so the failure itself is what the caller reports."""
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            return
        except sqlite3.Error:
            pass
        if self._reopening:
            return
        self._reopening = True
        try:
            self.conn.close()
            self._connect()
            if not self.read_only:
                self.conn.execute("PRAGMA synchronous = NORMAL")
        except (sqlite3.Error, KGError):  # the file is gone or broken: every later use says so
            pass
        finally:
            self._reopening = False

    @contextmanager
    def _translated(self, *, rollback: bool = False) -> Iterator[None]:
        """A failure of the database in the block leaves it as a kgtoolkit error (:mod:`._failures`); with
        ``rollback``, anything raised there first ends the transaction (:meth:`_rollback`)."""
        try:
            yield
        except BaseException as exc:
            if rollback:
                self._rollback()
            if isinstance(exc, sqlite3.Error) and is_sqlite_failure(exc):
                raise self._failure(exc) from exc
            raise

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Cursor]:
        """``BEGIN IMMEDIATE`` for writes (no lock upgrades, so no deadlock); ``BEGIN`` for reads."""
        if write and self.read_only:
            self._refuse_write()
        if write:
            self.create()
            if self.read_only:  # the folder made for it turned out read-only
                self._refuse_write()
            if self._corrupt is not None:
                self._refuse_corrupt()
        else:
            self._ready()
        with self.lock:
            with self._translated():
                cur = self.conn.cursor()
            try:
                with self._translated():
                    cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                with self._translated(rollback=True):
                    yield cur
                    cur.execute("COMMIT")
            finally:
                cur.close()

    def statement(self) -> AbstractContextManager[Cursor]:
        return _Statement(self)

    def fetch_all(self, sql: str, params: Sequence[Any] | dict[str, Any]) -> list[Any]:
        self._ready()
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                if is_sqlite_failure(exc):
                    raise self._failure(exc) from exc
                raise

    def _foreign_keys(self, on: bool) -> None:
        if on:
            with contextlib.suppress(sqlite3.Error):  # a failure that broke the connection is what is reported
                self.conn.execute("PRAGMA foreign_keys = ON")
            return
        with self._translated():
            self.conn.execute("PRAGMA foreign_keys = OFF")

    @contextmanager
    def bulk_write(self) -> Iterator[Cursor]:
        """A write transaction with foreign-key checks off: a bulk load checks every reference itself."""
        if not self.read_only:
            self.create()
        with self.lock:
            self._foreign_keys(False)
            try:
                with self.transaction(write=True) as cur:
                    yield cur
                    fold_pending(cur, self.kind)  # the loaded facts counted set-wise, before it commits
                    fold_conflicts(self, cur)  # the kept conflict judgement, when due (contract §18)
            finally:
                self._foreign_keys(True)

    # ------------------------------------------------------------------ bulk data

    def _local(self, cur: Cursor, table: str) -> bool:
        """Whether to read ``table`` here through sqlite3: an in-memory graph, or a small table."""
        if self.location.memory:
            return True
        # Two subqueries: each is one seek at an end of the table's b-tree. min() and max() in one SELECT are no
        # longer the min/max optimisation: SQLite scans the narrowest covering index whole (at 10M facts, 5 s cold per
        # batch of a stream, and its pages, mapped, in this process's memory).
        lo, hi = cur.execute(f"SELECT (SELECT min(rowid) FROM {table}), (SELECT max(rowid) FROM {table})").fetchone()
        return hi is None or hi - lo + 1 < SMALL

    @property
    def reader_uri(self) -> str:
        """The URI the reader process opens the file with (read-only; immutable when this side is)."""
        return self._uri(self.path.resolve())

    def read_arrow(
        self, queries: Sequence[Query], *, split: Query | None = None, cur: Cursor | None = None
    ) -> tuple[list[pa.Table], list[pa.Table]]:
        """The queries' rows as Arrow tables in one snapshot: here for small tables, else in the reader process."""
        tables = _tables_read(queries, split)
        try:
            if cur is not None:
                return self._read_in(cur, queries, split, tables, in_write=True)
            with self.read() as read_cur:
                if all(self._local(read_cur, t) for t in tables):
                    return self._read_here(read_cur, queries, split)
            return self._read_in(None, queries, split, tables, in_write=False)
        except KGError as exc:  # the reader process's findings count as this graph's
            self._found(exc)
            raise

    def expect_whole_reads(self) -> None:
        if not self.location.memory:
            warm_reader()

    def read_arrow_soon(
        self, queries: Sequence[Query], *, split: Query | None = None, cur: Cursor
    ) -> Callable[[], tuple[list[pa.Table], list[pa.Table]]]:
        tables = _tables_read(queries, split)
        if all(self._local(cur, t) for t in tables):  # read here, now: the thread may not share the connection
            read = self._read_here(cur, queries, split)
            return lambda: read
        return _in_thread(lambda: self._read_in(None, queries, split, tables, in_write=True))

    def _read_in(
        self, cur: Cursor | None, queries: Sequence[Query], split: Query | None, tables: set[str], *, in_write: bool
    ) -> tuple[list[pa.Table], list[pa.Table]]:
        """Read the queries here when the tables are small or a write is open, else in the reader process."""
        if cur is not None and all(self._local(cur, t) for t in tables):
            return self._read_here(cur, queries, split)
        positional = [_positional(sql, params) for sql, params in queries]
        main = None
        if split is not None:
            main = _positional(split[0], {**split[1], "_lo": LO, "_hi": HI})
        return read_arrow(
            self.reader_uri,
            timeout=self.timeout,
            queries=positional,
            split=main,
            split_min=SPLIT_MIN,
            pin=not in_write,
            path=self.path,
        )

    @staticmethod
    def _read_here(cur: Cursor, queries: Sequence[Query], split: Query | None) -> tuple[list[pa.Table], list[pa.Table]]:
        parts = []
        if split is not None:
            parts.append(_rows_arrow(cur, split[0], {**split[1], "_lo": -(2**63), "_hi": 2**63 - 1}))
        return parts, [_rows_arrow(cur, sql, params) for sql, params in queries]

    def insert_rows(self, cur: Cursor, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        marks = ", ".join("?" * len(columns))
        cur.executemany(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({marks})", rows)

    def rebuild_fact_indexes(self, rows: int, existing: int) -> bool:
        return rows > 10_000 and rows >= existing

    @contextmanager
    def text_index_paused(self, cur: Cursor, *, defer: bool = False) -> Iterator[None]:
        """The insert trigger dropped in the transaction and made again (its own SQL, read from the file)."""
        found = cur.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'fact_search_insert'"
        ).fetchone()
        after = cur.execute("SELECT COALESCE(max(id), 0) FROM facts").fetchone()[0]
        if found is not None:
            cur.execute("DROP TRIGGER fact_search_insert")
        yield
        if found is not None:
            self._text_index_after(cur, after, defer=defer)
            cur.execute(found[0])

    @staticmethod
    def fact_indexes() -> list[str]:
        return FACT_INDEXES["sqlite"]

    # ------------------------------------------------------------------ what a graph is

    def identity(self) -> str:
        return str(self.path.resolve()) if not self.location.memory else f":memory:{id(self)}"

    def change_token(self) -> tuple[Any, ...]:
        """SQLite's data_version (other connections' commits) and this connection's total_changes (its own)."""
        if self._pending:
            return 0, 0
        with self.lock, self._translated():
            return self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes

    def data_version(self) -> tuple[Any, ...]:
        """Size and modification time of the file and its WAL: any process's write changes them."""
        if self.location.memory:
            return self.change_token()
        out: list[int] = []
        for suffix in ("", "-wal"):
            try:
                info = os.stat(f"{self.path}{suffix}")
                out += [info.st_mtime_ns, info.st_size]
            except OSError:
                out += [0, 0]
        return tuple(out)

    def close(self) -> None:
        with self.lock:
            if self._pending:  # nothing to close: a closed connection makes every later use fail as a closed graph's
                self._pending = False
                self.conn = sqlite3.connect(":memory:")
            self.conn.close()


@contextmanager
def read_or_blank(backend: Backend) -> Iterator[Cursor]:
    """A read of the graph; for a graph not made yet, a read of a blank graph in memory: what a new graph starts
    with (its settings, for ``config`` and a dry run's checks), read without making anything (contract §8)."""
    if not backend.missing:
        with backend.read() as cur:
            yield cur
        return
    blank = SQLiteBackend(Location("sqlite", path=Path(":memory:")))
    try:
        with blank.read() as cur:
            yield cur
    finally:
        blank.close()


class _Statement:
    """:meth:`SQLiteBackend.statement`: a cursor under the lock, closed after; a failure of the database in the
    block leaves it as a kgtoolkit error (as :meth:`SQLiteBackend._translated`). A class rather than nested
    generator context managers: a point read is one statement of tens of µs, and those cost several."""

    __slots__ = ("_backend", "_cur")

    def __init__(self, backend: SQLiteBackend) -> None:
        self._backend = backend

    def __enter__(self) -> Cursor:
        backend = self._backend
        backend._ready()
        backend.lock.acquire()
        try:
            self._cur = backend.conn.cursor()
        except BaseException as exc:
            backend.lock.release()
            if isinstance(exc, sqlite3.Error) and is_sqlite_failure(exc):
                raise backend._failure(exc) from exc
            raise
        return self._cur

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        backend = self._backend
        try:
            if isinstance(exc, sqlite3.Error) and is_sqlite_failure(exc):
                raise backend._failure(exc) from exc
        finally:
            try:
                self._cur.close()
            finally:
                backend.lock.release()


def _tables(sql: str) -> list[str]:
    """The graph tables a query reads (from its FROM and JOIN clauses)."""
    import re

    return sorted(set(re.findall(r"\b(?:FROM|JOIN)\s+(facts|entities|aliases|memories)\b", sql)))


def _tables_read(queries: Sequence[Query], split: Query | None) -> set[str]:
    """The graph tables a read of ``queries`` and ``split`` reads."""
    return {table for sql, _ in ([split] if split else []) + list(queries) for table in _tables(sql)}


def _rows_arrow(cur: Cursor, sql: str, params: dict[str, Any]) -> pa.Table:
    import pyarrow as pa

    cur.execute(sql, params)
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    return pa.table({name: [r[i] for r in rows] for i, name in enumerate(names)})


def _positional(sql: str, params: dict[str, Any]) -> tuple[str, list[Any]]:
    """Turn ``:name`` parameters into ``?`` (ADBC binds by position), keeping values as parameters."""
    import re

    values: list[Any] = []

    def swap(match: re.Match[str]) -> str:
        values.append(params[match.group(1)])
        return "?"

    return re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", swap, sql), values  # PostgreSQL's names: digits after the first

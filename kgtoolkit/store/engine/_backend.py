"""The seam between the graph and its database engine: one abstract backend, one module per engine.

Everything the two engines share (the operations, their SQL, the rules) is written once, against
:class:`Backend`; a backend holds only what differs::

    GraphStore + ops/ ────────── the operations, their SQL, written once
         │ uses
    Backend (this module) ─────── transactions, whole-table Arrow reads, bulk loads, identity,
         │                         change tokens, error mapping, and the SQL fragments that differ (Dialect)
         ├── SQLiteBackend   (_sqlite.py)    sqlite3; Arrow reads in a reader process (ADBC)
         └── PostgresBackend (_postgres.py)  psycopg 3; COPY for bulk loads; ADBC for Arrow reads

Store code writes SQL in one style: ``?`` or ``:name`` parameters (never both in one statement),
``TRUE``/``FALSE`` for booleans, and a :class:`Dialect` method where the engines differ. A backend
runs that SQL through a :class:`Cursor` (SQLite's own, or a translating wrapper).
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from ..._errors import ReadOnly
from ._conflict_schema import fold_conflicts
from ._location import Location
from ._rollup_fold import fold_pending
from ._schema import FACT_INDEXES, FACT_SEARCH_FILL

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

__all__ = ["Backend", "Cursor", "Dialect", "Query", "T"]

T = TypeVar("T")
Params = Sequence[Any] | dict[str, Any]
#: One read query: SQL (``:name`` parameters) and its parameters.
Query = tuple[str, dict[str, Any]]


class Cursor(Protocol):
    """What store code needs of a cursor (``sqlite3.Cursor`` has it all)."""

    @property
    def rowcount(self) -> int: ...

    @property
    def description(self) -> Any: ...

    def execute(self, sql: str, parameters: Params = ..., /) -> Any: ...

    def executemany(self, sql: str, seq_of_parameters: Iterable[Params], /) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Dialect:
    """SQL fragments that differ between engines (SQLite's spelling here; PostgreSQL overrides)."""

    name: ClassVar[str] = "sqlite"
    #: The LIMIT that means "no limit".
    no_limit: ClassVar[int | None] = -1
    #: The column that orders memories as they were added (schema step 8).
    memory_order: ClassVar[str] = "rowid"
    #: Two integers: the oldest transaction still running when the read's snapshot was taken, and the next one to
    #: start. SQLite commits one writer at a time, in id order: nothing a reader cannot see yet can hold a lower id.
    snapshot_bounds: ClassVar[str] = "0, 0"
    #: What ends a subquery the planner must keep apart, not merge into the query around it (SQLite: nothing).
    fence: ClassVar[str] = ""

    def either(self, first: str, second: str) -> str:
        """The condition that the facts row ``f`` meets ``first`` or ``second``, two conditions each answered by an
        index, in the form the engine reads fastest. SQLite: the ids from both indexes, then the rows in id order (a
        walk of the table in its own order, about half the time of reading them in each index's order)."""
        return f"f.id IN (SELECT f.id FROM facts f WHERE {first} UNION ALL SELECT f.id FROM facts f WHERE {second})"

    @contextmanager
    def wide_read(self, cur: Cursor) -> Iterator[None]:
        """The settings of a statement that reads many rows found through indexes and joins them with each other (a
        diff's changed facts), for the statements inside only: none on SQLite."""
        yield

    @contextmanager
    def hashed_join(self, cur: Cursor) -> Iterator[None]:
        """The settings of a statement that joins the whole facts table with itself (churn's renewals), for the
        statements inside only: none on SQLite, whose plan is one index range per row of one side."""
        yield

    def list_param(self, values: Iterable[Any]) -> Any:
        """A list of values as one parameter, for :meth:`values`."""
        import json

        return json.dumps(list(values))

    def values(self, param: str, kind: str = "text") -> str:
        """A subquery of the values of list parameter ``:param`` (made by :meth:`list_param`)."""
        return f"(SELECT value FROM json_each(:{param}))"

    def in_list(self, expr: str, param: str, kind: str = "text") -> str:
        """The condition that ``expr`` is one of the values of list parameter ``:param``, for a condition evaluated on
        every row of a scan (PostgreSQL: ``= ANY`` of the array, not a hashed subplan per row)."""
        return f"{expr} IN {self.values(param, kind)}"

    def in_values(self, expr: str, param: str, values: Sequence[str]) -> tuple[str, dict[str, Any]]:
        """The condition that the text ``expr`` is one of ``values`` (a few: a setting's predicates), with the
        parameters it binds (named from ``param``). SQLite: each value its own parameter, ``IN (:p_0, …)``, which a
        row is checked against faster than against :meth:`in_list`'s ``json_each`` (a diff of 155,000 changed facts:
        a sixth of its time in two such checks); PostgreSQL: :meth:`in_list` of one array."""
        names = [f"{param}_{i}" for i in range(len(values))]
        return f"{expr} IN ({', '.join(f':{n}' for n in names)})", dict(zip(names, values, strict=True))

    def array_agg(self, expr: str) -> str:
        """An aggregate of ``expr`` over a query's rows as one value, which :meth:`array` reads as a list: many
        light rows come into Python as one value decoded at once, several times faster than row by row (SQLite: a
        JSON array)."""
        return f"json_group_array({expr})"

    def array(self, value: Any) -> list[Any]:
        """The list of a value made by :meth:`array_agg`."""
        import json

        out: list[Any] = json.loads(value)
        return out

    def scan(self, table: str) -> str:
        """``table`` (with its alias) read whole, row by row, for a query that groups or counts every row: SQLite's
        planner (no statistics) otherwise walks an index whose order matches the GROUP BY and looks every row up in
        the table, a random read per fact (churn by predicate at 10M facts: 180 s, against one pass of the table).
        PostgreSQL's planner weighs that itself."""
        return f"{table} NOT INDEXED"

    def modulo(self, a: str, b: int) -> str:
        """The remainder of integers ``a`` / ``b``, with the sign of ``a`` as C (and both engines) divide."""
        return f"(({a}) % {b})"

    def contains(self, haystack: str, needle: str) -> str:
        """True when the text ``needle`` occurs in ``haystack``."""
        return f"instr({haystack}, {needle}) > 0"

    def char(self, code: int) -> str:
        return f"char({code})"

    def ordered_concat(self, expr: str, separator: str, source: str, order: str) -> str:
        """A query of one row: ``expr`` over the rows of ``source`` joined by ``separator`` in ``order``."""
        return f"SELECT group_concat(line, {separator}) FROM (SELECT {expr} AS line FROM {source} ORDER BY {order}) x"

    def text_match(
        self, table: str, words: Sequence[str], *, every: bool = False
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """A full-text match of any of ``words`` (``every``: all of them) in the search table ``table``
        (``fact_search``, ``memory_search``; contract §15), each word as the phrase of its parts ("INC-4821" →
        "inc 4821"): the ``from`` clause, the row's ``key`` (fact or memory id), its ``newest`` order (larger is
        newer), its ``score`` (higher is better) and the ``where`` condition, with their parameters. SQLite:
        FTS5, BM25."""
        import re

        phrases = ['"' + " ".join(parts) + '"' for w in words if (parts := re.findall(r"[^\W_]+", w))]
        key = f"{table}.rowid" if table == "fact_search" else f"{table}.id"
        where = f"{table} MATCH :match" if phrases else "1 = 0"
        return (
            {"from": table, "key": key, "newest": f"{table}.rowid", "score": f"-bm25({table})", "where": where},
            {"match": (" AND " if every else " OR ").join(phrases)},
        )


class Backend(abc.ABC):
    """One graph's database: its connection(s), transactions and what else differs per engine.

    Safe to share between threads (a lock serialises the connection). :meth:`read` and
    :meth:`write` run a function in one transaction; a write is whole or absent.
    """

    kind: ClassVar[str]
    dialect: ClassVar[Dialect]

    def __init__(self, location: Location, *, read_only: bool, timeout: float) -> None:
        self.location = location
        self.read_only = read_only
        #: Why a graph opened for writing is read-only anyway (e.g. a folder this user cannot write).
        self.read_only_reason: str | None = None
        self.timeout = timeout
        self.lock = threading.RLock()

    @property
    def missing(self) -> bool:
        """The graph's database does not exist yet: reads would say so, and the first write makes it."""
        return False

    def create(self) -> None:  # noqa: B027 - a hook with a default
        """Make the graph's database now if it does not exist yet (a write does so by itself; a read never does).

        Nothing to do by default: an engine that makes its graph when it connects (PostgreSQL's schema)."""

    # ------------------------------------------------------------------ transactions

    @abc.abstractmethod
    def transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        """One transaction (a snapshot for reads; the write lock or serializable isolation for writes)."""

    def read(self, *, snapshot: bool = True) -> AbstractContextManager[Cursor]:
        """A read transaction: every query in it sees one snapshot. ``snapshot=False`` for a read of one
        statement (itself atomic): no transaction is begun or ended, which saves round trips to a server."""
        return self.transaction(write=False) if snapshot else self.statement()

    @abc.abstractmethod
    def statement(self) -> AbstractContextManager[Cursor]:
        """A cursor outside any transaction: each statement on it runs on its own, atomically."""

    def fetch_all(self, sql: str, params: Params) -> list[Any]:
        """The rows of one statement run on its own, outside any transaction (a statement is its own snapshot)."""
        with self.statement() as cur:
            return cur.execute(sql, params).fetchall()

    def write(self, fn: Callable[[Cursor], T]) -> T:
        """Run ``fn(cursor)`` in one write transaction and return what it returns.

        A backend whose engine may refuse a transaction for a concurrent one (PostgreSQL's
        serialization failures and deadlocks) runs ``fn`` again, a bounded number of times, so
        ``fn`` must only touch the database and its own locals.
        """
        with self.transaction(write=True) as cur:
            result = fn(cur)
            fold_pending(cur, self.kind)  # the facts it inserted counted before it commits (contract §18)
            fold_conflicts(self, cur)  # the kept conflict judgement, when due (contract §18)
            return result

    @abc.abstractmethod
    def bulk_write(self) -> AbstractContextManager[Cursor]:
        """A write transaction for a bulk load: no other writer runs meanwhile, and none of this engine's
        per-row checks that the load makes itself (SQLite: foreign keys) slow it down."""

    # ------------------------------------------------------------------ bulk data

    @abc.abstractmethod
    def read_arrow(
        self, queries: Sequence[Query], *, split: Query | None = None, cur: Cursor | None = None
    ) -> tuple[list[pa.Table], list[pa.Table]]:
        """Run read queries into Arrow in one snapshot: ``split`` (a facts query whose SQL bounds ``f.id``
        by ``:_lo`` and ``:_hi``, both included) in parts ordered by id, then each of ``queries``. ``cur``: the write
        transaction the read happens in (the read then sees what is committed)."""

    def expect_whole_reads(self) -> None:  # noqa: B027 - a hook with a default
        """A whole-table read (:meth:`read_arrow`) is coming soon: get ready for it meanwhile (SQLite starts its
        reader process). Nothing to do by default."""

    def read_arrow_soon(
        self, queries: Sequence[Query], *, split: Query | None = None, cur: Cursor
    ) -> Callable[[], tuple[list[pa.Table], list[pa.Table]]]:
        """:meth:`read_arrow` in the write transaction of ``cur``, begun now on a worker thread (the read goes over
        a connection of its own), so the caller works on meanwhile; calling the result waits for the tables (and
        raises what the read raised). The caller must not write the tables read until then."""
        return _in_thread(lambda: self.read_arrow(queries, split=split, cur=cur))

    @abc.abstractmethod
    def insert_rows(self, cur: Cursor, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert many rows into ``table`` inside the transaction of ``cur`` (executemany, or COPY)."""

    def insert_frame(self, cur: Cursor, table: str, columns: Sequence[str], frame: pl.DataFrame) -> None:
        """:meth:`insert_rows` of a polars frame whose columns are ``columns``, in that order."""
        self.insert_rows(cur, table, columns, frame.iter_rows())

    def after_explicit_ids(self, cur: Cursor, table: str) -> None:  # noqa: B027 - a hook with a default
        """After rows were inserted with their own ids: make the next generated id follow them.

        Nothing to do by default (SQLite's rowid follows the largest id by itself).
        """

    @abc.abstractmethod
    def text_index_paused(self, cur: Cursor, *, defer: bool = False) -> AbstractContextManager[None]:
        """Inside a bulk load's transaction: the facts inserted meanwhile skip the full-text index's per-row
        trigger and are indexed in one statement at the end (contract §15), or, with ``defer``, recorded as
        pending for :meth:`fill_text_index`; other transactions never see the trigger missing."""

    #: The column of ``fact_search`` holding the fact's id.
    fact_search_key: ClassVar[str] = "rowid"

    def _text_index_after(self, cur: Cursor, after: int, *, defer: bool) -> None:
        """After a load without the trigger: the facts above ``after`` indexed now, or recorded as pending."""
        (upto,) = cur.execute("SELECT COALESCE(max(id), 0) FROM facts").fetchone()
        if upto <= after:
            return
        if defer:
            cur.execute("INSERT INTO fact_search_pending(lo, hi) VALUES (:lo, :hi)", {"lo": after, "hi": upto})
        else:
            self._fill_range(cur, after, upto)

    def _fill_range(self, cur: Cursor, after: int, upto: int) -> None:
        key = self.fact_search_key
        # A fact of the range changed since its load (a merge, a rename) was indexed by the update trigger.
        cur.execute(f"DELETE FROM fact_search WHERE {key} > :after AND {key} <= :upto", {"after": after, "upto": upto})
        cur.execute(FACT_SEARCH_FILL[self.kind], {"after": after, "upto": upto})

    def text_index_pending(self, cur: Cursor) -> int:
        """How many fact ids a bulk load left out of the full-text index (an upper bound: ids never used count)."""
        (n,) = cur.execute("SELECT COALESCE(sum(hi - lo), 0) FROM fact_search_pending").fetchone()
        return int(n)

    def index_text(self) -> int:
        """Index the facts that big loads left out of the full-text index (contract §15), in one write; how many fact
        ids that covered (0, reading one small table, when nothing was pending). A read-only graph with pending
        facts is refused: its word search would miss them."""
        with self.read() as cur:
            pending = self.text_index_pending(cur)
        if not pending:
            return 0
        try:
            return self.write(self.fill_text_index)
        except ReadOnly as exc:
            raise ReadOnly(
                f"{pending:,} facts loaded in bulk are not in the full-text index yet, and this graph is open "
                "read-only: a word search would miss them. Open the graph writable once (`kgtoolkit index`, or any "
                "word search, fills the index)",
                **exc.data,
            ) from exc

    def fill_text_index(self, cur: Cursor) -> int:
        """Inside a write transaction: index the facts bulk loads left pending, in one statement per load;
        how many ids that covered."""
        pending = cur.execute("SELECT lo, hi FROM fact_search_pending ORDER BY lo").fetchall()
        for lo, hi in pending:
            self._fill_range(cur, int(lo), int(hi))
        cur.execute("DELETE FROM fact_search_pending")
        return sum(int(hi) - int(lo) for lo, hi in pending)

    def rebuild_fact_indexes(self, rows: int, existing: int) -> bool:
        """Whether a load of ``rows`` facts into a table of ``existing`` ones should drop and rebuild
        the facts indexes around the load (faster than updating them row by row)."""
        return False

    @contextmanager
    def fact_indexes_deferred(self, cur: Cursor, rows: int, existing: int) -> Iterator[None]:
        """Around a load of ``rows`` facts into a table of ``existing`` ones, inside its transaction: the facts
        indexes dropped before it and built after it when :meth:`rebuild_fact_indexes` says so."""
        statements = FACT_INDEXES[self.kind] if self.rebuild_fact_indexes(rows, existing) else []
        for statement in statements:
            cur.execute(f"DROP INDEX IF EXISTS {statement.split(' INDEX ')[1].split()[0]}")
        yield
        for statement in statements:
            cur.execute(statement)

    # ------------------------------------------------------------------ what a graph is

    @abc.abstractmethod
    def identity(self) -> str:
        """A stable name for this graph's database, for caches kept outside it (the search index)."""

    @abc.abstractmethod
    def change_token(self) -> tuple[Any, ...]:
        """Cheap "did anything change?": equal tokens mean no write committed in between."""

    def data_version(self) -> tuple[Any, ...]:
        """Changes whenever the data may have changed, by this process or any other."""
        return self.change_token()

    @abc.abstractmethod
    def close(self) -> None:
        """Close every connection; the backend is unusable afterwards."""


def _in_thread(work: Callable[[], T]) -> Callable[[], T]:
    """``work`` begun on a thread of its own; the result waits for it and returns what it returned."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgtoolkit-read")
    try:
        return pool.submit(work).result
    finally:
        pool.shutdown(wait=False)

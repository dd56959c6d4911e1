"""The engine wing: what differs per database, and the seam the other wings use.

The backends (``_backend`` the abstract one with its ``Dialect``, ``_sqlite``, ``_postgres``), the schema and
its migrations (``_schema``, run by ``_migrate``; the rollups' tables and triggers, ``_rollup_schema``, and the fold
every write ends with, ``_rollup_fold``; the kept conflict judgement's, ``_conflict_schema``), where a graph is
(``_location``), the SQLite reader process (``_arrow_read``, ``_reader_process``), driver errors as kgtoolkit's
(``_failures``). Only this wing imports a database driver.

The names below are the seam: the other wings of the store import them from this package, never from its
modules, and reach a graph's backend through :attr:`kgtoolkit.store.GraphStore.engine`.
"""

from __future__ import annotations

from ._backend import Backend, Cursor, Dialect, Query
from ._conflict_schema import CONFLICT_TABLES, KEPT_WAIT, conflict_due, register_conflict_fold
from ._connect import connect
from ._failures import os_failure, sqlite_failure
from ._gc import gc_paused
from ._location import DEFAULT_PATH, ENV_VAR, DatabaseName, Location, resolve, resolve_path
from ._migrate import BIG_MIGRATION, migration_progress
from ._rollup_fold import FEW, fold_pending, pending
from ._rollup_pairs import LINKS_TABLE, PAIRS_TABLE, pairs_check, pairs_rebuild_statements
from ._rollup_schema import (
    ROLLUP_COUNTS,
    ROLLUP_FAR,
    ROLLUP_MONTH_1970,
    ROLLUP_MONTH_OPEN_END,
    ROLLUP_MONTH_OPEN_START,
    ROLLUP_TABLES,
    ROLLUP_UPTO,
    RollupKind,
    rollup_bounds_event,
    rollup_clear_statements,
    rollup_day_sql,
    rollup_fill_statements,
    rollup_migration,
    rollup_month_sql,
    rollup_pairs_sql,
    rollup_trigger_drops,
    rollup_triggers,
)
from ._schema import (
    DUMP_FACT_FIELDS,
    FACT_COLUMNS,
    FACT_FRAME_COLUMNS,
    FACT_FROM,
    FACT_INDEXES,
    FACT_READ,
    FACT_SELECT,
    MIGRATIONS,
    NOT_DUPLICATE_COLUMNS,
    ORDER,
    SCHEMA_VERSION,
    TABLE_COLUMNS,
)
from ._sqlite import read_or_blank

__all__ = [
    "BIG_MIGRATION",
    "CONFLICT_TABLES",
    "DEFAULT_PATH",
    "DUMP_FACT_FIELDS",
    "ENV_VAR",
    "FACT_COLUMNS",
    "FACT_FRAME_COLUMNS",
    "FACT_FROM",
    "FACT_INDEXES",
    "FACT_READ",
    "FACT_SELECT",
    "FEW",
    "KEPT_WAIT",
    "LINKS_TABLE",
    "MIGRATIONS",
    "NOT_DUPLICATE_COLUMNS",
    "ORDER",
    "PAIRS_TABLE",
    "ROLLUP_COUNTS",
    "ROLLUP_FAR",
    "ROLLUP_MONTH_1970",
    "ROLLUP_MONTH_OPEN_END",
    "ROLLUP_MONTH_OPEN_START",
    "ROLLUP_TABLES",
    "ROLLUP_UPTO",
    "SCHEMA_VERSION",
    "TABLE_COLUMNS",
    "Backend",
    "Cursor",
    "DatabaseName",
    "Dialect",
    "Location",
    "Query",
    "RollupKind",
    "conflict_due",
    "connect",
    "fold_pending",
    "gc_paused",
    "migration_progress",
    "os_failure",
    "pairs_check",
    "pairs_rebuild_statements",
    "pending",
    "read_or_blank",
    "register_conflict_fold",
    "resolve",
    "resolve_path",
    "rollup_bounds_event",
    "rollup_clear_statements",
    "rollup_day_sql",
    "rollup_fill_statements",
    "rollup_migration",
    "rollup_month_sql",
    "rollup_pairs_sql",
    "rollup_trigger_drops",
    "rollup_triggers",
    "sqlite_failure",
]

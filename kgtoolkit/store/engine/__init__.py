"""The engine wing: what differs per database, and the seam the other wings use.

The backends (``_backend`` the abstract one with its ``Dialect``, ``_sqlite``, ``_postgres``), the schema and
its migrations (``_schema``), where a graph is (``_location``), the SQLite reader process (``_arrow_read``,
``_reader_process``), driver errors as kgtoolkit's (``_failures``). Only this wing imports a database driver.

The names below are the seam: the other wings of the store import them from this package, never from its
modules, and reach a graph's backend through :attr:`kgtoolkit.store.GraphStore.engine`.
"""

from __future__ import annotations

from ._backend import Backend, Cursor, Dialect, Query
from ._connect import connect
from ._failures import os_failure, sqlite_failure
from ._gc import gc_paused
from ._location import DEFAULT_PATH, ENV_VAR, DatabaseName, Location, resolve, resolve_path
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
    "DEFAULT_PATH",
    "DUMP_FACT_FIELDS",
    "ENV_VAR",
    "FACT_COLUMNS",
    "FACT_FRAME_COLUMNS",
    "FACT_FROM",
    "FACT_INDEXES",
    "FACT_READ",
    "FACT_SELECT",
    "MIGRATIONS",
    "NOT_DUPLICATE_COLUMNS",
    "ORDER",
    "SCHEMA_VERSION",
    "TABLE_COLUMNS",
    "Backend",
    "Cursor",
    "DatabaseName",
    "Dialect",
    "Location",
    "Query",
    "connect",
    "gc_paused",
    "os_failure",
    "read_or_blank",
    "resolve",
    "resolve_path",
    "sqlite_failure",
]

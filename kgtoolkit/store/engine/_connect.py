"""Which backend serves a database: SQLite's or PostgreSQL's, connected."""

from __future__ import annotations

from ._backend import Backend
from ._location import DatabaseName, resolve

__all__ = ["connect"]


def connect(db: DatabaseName | None = None, *, read_only: bool = False, timeout: float = 30.0) -> Backend:
    """The backend of the graph in ``db`` (see :func:`kgtoolkit.store.resolve`), connected: SQLite's or PostgreSQL's.

    What :class:`GraphStore` runs on when it is given no backend; pass one as ``backend=`` to inject another
    (a subclass that instruments or wraps the engine's, as httpx takes a transport).

    >>> connect(":memory:").kind
    'sqlite'
    """
    location = resolve(db)
    if location.kind == "postgresql":
        from ._postgres import PostgresBackend  # psycopg loads only for a PostgreSQL graph

        return PostgresBackend(location, read_only=read_only, timeout=timeout)
    from ._sqlite import SQLiteBackend

    return SQLiteBackend(location, read_only=read_only, timeout=timeout)

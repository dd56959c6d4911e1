"""Graphs made once per test process and copied for each test: an empty graph (the ``kg`` fixture's) and the real
datasets (tests/support/real_graphs.py).

Creating a graph runs every migration step: a few dozen statements of DDL, about a quarter of a second on the
PostgreSQL server. A copy of a graph made once is a file copy (SQLite) or ``CREATE DATABASE … TEMPLATE`` (PostgreSQL),
a few times cheaper. A copy is the graph as made, with the names that tell one graph from another drawn afresh: the
search index's random name of the database (``search_generation.graph``) and, on PostgreSQL, the graph's identity
(``kgtoolkit_schema.graph_id``), which ``copy_graph`` compares to refuse copying a graph into itself.

A template database is closed to connections (``ALLOW_CONNECTIONS false``): nothing writes to it after it is made.
"""

from __future__ import annotations

import secrets
import shutil
import sqlite3
import uuid
from pathlib import Path

import postgres_server

import kgtoolkit

__all__ = ["SCHEMA", "EmptyGraphs", "close_template", "copy_database", "copy_file", "drop_database", "url"]

#: The schema of a template database (and of its copies) that holds the graph.
SCHEMA = "graph"


def url(server: postgres_server.Server, database: str) -> str:
    """The URL of the graph in ``database`` (its schema :data:`SCHEMA`)."""
    return f"{server.url_for(database)}?options=-csearch_path%3D{SCHEMA}"


def new_template(server: postgres_server.Server, database: str) -> str:
    """A new database with an empty schema :data:`SCHEMA`, to make a template graph in: its graph's URL."""
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database}")
    with psycopg.connect(server.url_for(database), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
    return url(server, database)


def close_template(server: postgres_server.Server, database: str) -> None:
    """Close a template database: nobody connected to it, and nobody may connect (it is only copied from now on)."""
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {database} WITH ALLOW_CONNECTIONS false")
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        )


def copy_database(server: postgres_server.Server, template: str) -> tuple[str, str]:
    """A new database copied from ``template``, with names of its own: its graph's URL and the database's name."""
    import psycopg

    database = f"c{secrets.token_hex(6)}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database} TEMPLATE {template}")
    with psycopg.connect(url(server, database), autocommit=True) as conn:
        conn.execute("UPDATE kgtoolkit_schema SET graph_id = %s", (uuid.uuid4().hex,))
        conn.execute("UPDATE search_generation SET graph = %s", (uuid.uuid4().hex,))
    return url(server, database), database


def drop_database(server: postgres_server.Server, database: str) -> None:
    """Drop a copy (whoever is still connected to it is put out)."""
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def copy_file(template: Path, target: Path) -> Path:
    """A copy of the closed graph file ``template`` at ``target``, with a random name of its own."""
    for extra in ("-wal", "-shm"):  # closed: its log is checkpointed into the file
        log = Path(f"{template}{extra}")
        assert not log.exists() or log.stat().st_size == 0, log
    shutil.copyfile(template, target)
    conn = sqlite3.connect(target)
    try:
        conn.execute("UPDATE search_generation SET graph = lower(hex(randomblob(16)))")
        conn.commit()
    finally:
        conn.close()
    return target


class EmptyGraphs:
    """An empty graph made once per test process and engine, copied for each test that asks for ``kg``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._file: Path | None = None
        self._database: str | None = None

    def file(self, target: Path) -> Path:
        """A new empty graph file at ``target``."""
        if self._file is None:
            made = self.folder / "empty.sqlite3"
            kgtoolkit.open(made, create=True).close()
            self._file = made
        return copy_file(self._file, target)

    def database(self, server: postgres_server.Server) -> tuple[str, str]:
        """A new database holding an empty graph: its URL, and the database's name (drop it after)."""
        if self._database is None:
            name = "tpl_empty"
            kgtoolkit.open(new_template(server, name), create=True).close()
            close_template(server, name)
            self._database = name
        return copy_database(server, self._database)

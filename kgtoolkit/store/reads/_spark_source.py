"""What Spark's JDBC source needs to read a PostgreSQL graph in parallel (:func:`kgtoolkit.spark.read_facts`): the
JDBC URL and its properties, the tables, the range of fact ids the partitions split, the graph's settings.

The reading itself is Spark's (``spark.read.jdbc`` with ``partitionColumn="id"``); here the graph is opened once,
read-only, for the id range and the settings (the event rule needs ``events`` and ``event_predicates``).
"""

from __future__ import annotations

import dataclasses
from urllib.parse import parse_qs, unquote, urlsplit

from ..._errors import InvalidRequest
from ..._records import GraphConfig
from .._graph_store import GraphStore
from ..engine import FACT_COLUMNS

__all__ = ["FACT_COLUMNS", "JdbcSource", "jdbc_source"]


@dataclasses.dataclass(frozen=True)
class JdbcSource:
    """A PostgreSQL graph as Spark's JDBC source reads it.

    ``url``: ``jdbc:postgresql://host:port/database``; ``properties``: user, password, driver and the schema
    (``currentSchema``); ``ids``: the first and last fact id (None: no facts), the bounds of the partitions;
    ``config``: the graph's settings."""

    url: str
    properties: dict[str, str]
    facts_table: str
    entities_table: str
    ids: tuple[int, int] | None
    config: GraphConfig


def jdbc_source(url: str) -> JdbcSource:
    """The JDBC source of the graph at the PostgreSQL ``url`` (``postgresql://user:password@host:port/database``,
    a schema chosen by ``?options=-csearch_path%3Dname`` as the store reads it)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if not parts.hostname or "host" in query:
        raise InvalidRequest(
            f"Spark reads PostgreSQL over TCP (JDBC): give a URL with a host, postgresql://user@host:5432/db, not "
            f"{_hidden(url)!r} (a Unix socket cannot be reached by JDBC)",
            field="source",
            value=_hidden(url),
        )
    database = unquote(parts.path.lstrip("/")) or (parts.username or "postgres")
    properties = {"driver": "org.postgresql.Driver"}
    if parts.username:
        properties["user"] = unquote(parts.username)
    if parts.password:
        properties["password"] = unquote(parts.password)
    for option in query.get("options", []):
        for word in option.split():
            if word.startswith("-csearch_path="):
                properties["currentSchema"] = word.split("=", 1)[1]
    if "sslmode" in query:
        properties["sslmode"] = query["sslmode"][0]
    jdbc = f"jdbc:postgresql://{parts.hostname}:{parts.port or 5432}/{database}"
    store = GraphStore(url, read_only=True)
    try:
        config = store.config
        low, high = store.engine.fetch_all("SELECT min(id), max(id) FROM facts", {})[0]
    finally:
        store.close()
    ids = None if low is None else (int(low), int(high))
    return JdbcSource(jdbc, properties, "facts", "entities", ids, config)


def _hidden(url: str) -> str:
    """The URL without its password (an error message is shown)."""
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@", 1)
    return url

"""The toolkit's analyses on Apache Spark: past one machine, with the same rules (``pip install 'kgtoolkit[spark]'``).

:func:`read_facts` gives a Spark DataFrame with the columns and types of :func:`kgtoolkit.frames.facts`, from a
month-partitioned Parquet export (``kgtoolkit export DIR --format parquet --partition-by month``) or from a PostgreSQL
graph through Spark's JDBC source, read in parallel ranges of fact ids. The analyses take that frame and return
Spark DataFrames with the columns of their twins in :mod:`kgtoolkit.analysis` (and :mod:`kgtoolkit.frames`), and
the same answer as the engine (SQLite or PostgreSQL) on the same graph: :func:`churn`, :func:`events`,
:func:`event_graph`, :func:`most_changed`, :func:`most_connected`, :func:`most_volatile`, :func:`conflicts`, :func:`diff`,
:func:`valid_at` and :func:`stats`. The rules are not written again here: they are the rules module's
(:mod:`kgtoolkit._validity`, :func:`kgtoolkit._records.is_event`), rendered as Spark columns beside their SQL and
polars renderings. ``docs/spark.md`` is the guide; what has no Spark form is refused with a clear error
(an ``every`` of several units, a session whose time zone is not UTC).

PySpark 4 needs Java 17 (Debian: ``openjdk-17-jre-headless``); reading PostgreSQL needs its JDBC driver on the
class path (Debian: ``libpostgresql-jdbc-java``; :func:`session` adds it). Nothing is downloaded at run time.

>>> from kgtoolkit import spark as ks                                    # doctest: +SKIP
>>> session = ks.session("local[2]")                                    # doctest: +SKIP
>>> facts = ks.read_facts(session, "export/")                           # doctest: +SKIP
>>> ks.churn(facts, every="1mo").show()                                 # doctest: +SKIP
"""

from __future__ import annotations

from ._analyses import (
    STATS_SCHEMA,
    churn,
    conflicts,
    diff,
    event_graph,
    events,
    most_changed,
    most_connected,
    most_volatile,
    stats,
    valid_at,
)
from ._frames import JDBC_DRIVER, facts_schema, read_facts, session, spark_schema, to_polars
from ._report import churn_report

__all__ = [
    "JDBC_DRIVER",
    "STATS_SCHEMA",
    "churn",
    "churn_report",
    "conflicts",
    "diff",
    "event_graph",
    "events",
    "facts_schema",
    "most_changed",
    "most_connected",
    "most_volatile",
    "read_facts",
    "session",
    "spark_schema",
    "stats",
    "to_polars",
    "valid_at",
]

"""The facts as a Spark DataFrame (:func:`read_facts`), the schemas as Spark types, and the columns the analyses
share (the periods, the object's key, the checks of a frame).

No SQL here: a PostgreSQL graph's JDBC source (URL, tables, id range, settings) comes from
:mod:`kgtoolkit.store._spark_source`; the rules come from :mod:`kgtoolkit._validity` and :mod:`kgtoolkit._records`
(their Spark renderings).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._errors import InvalidRequest, NotFound, require
from .._periods import step as _step
from .._records import is_event
from .._time import OPEN_END, OPEN_START
from .._validity import Clock, spark_keys, spark_state
from ..frames import FACTS_SCHEMA

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructType

__all__ = [
    "JDBC_DRIVER",
    "facts_schema",
    "read_facts",
    "session",
    "spark_schema",
    "to_polars",
]

#: Debian's PostgreSQL JDBC driver (``apt-get install libpostgresql-jdbc-java``): Spark's JDBC source loads it from
#: the class path; nothing is downloaded at run time. ``KGTOOLKIT_JDBC_JAR`` names another jar.
JDBC_DRIVER = Path(os.environ.get("KGTOOLKIT_JDBC_JAR") or "/usr/share/java/postgresql.jar")


def _pyspark() -> Any:
    return require("pyspark.sql", "spark", needed_for="kgtoolkit.spark")


def session(
    master: str = "local[2]", *, app_name: str = "kgtoolkit", shuffle_partitions: int | None = None, **conf: str
) -> SparkSession:
    """A Spark session ready for :mod:`kgtoolkit.spark`: its time zone UTC (the periods and dates of the analyses
    are UTC's, contract §4), Debian's PostgreSQL JDBC driver on the class path when installed
    (:data:`JDBC_DRIVER`), the UI off, the workers on this Python (unless ``PYSPARK_PYTHON`` says otherwise), and
    ``conf`` (Spark settings, ``{"spark.executor.memory": "2g"}``; dots as in Spark: pass a dict with ``**``).

    ``master``: ``local[N]`` (N cores of this machine) or a cluster's ``spark://host:7077``."""
    sql = _pyspark()
    builder = (
        sql.SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if JDBC_DRIVER.is_file():
        builder = builder.config("spark.driver.extraClassPath", str(JDBC_DRIVER)).config(
            "spark.executor.extraClassPath", str(JDBC_DRIVER)
        )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the Python workers run this Python (PySpark reads it)
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    for name, value in conf.items():
        builder = builder.config(name, value)
    return builder.getOrCreate()


def spark_type(dtype: pl.DataType) -> DataType:
    """The Spark type of a polars column type of the toolkit's schemas."""
    from pyspark.sql import types as T

    if isinstance(dtype, pl.List):
        inner = dtype.inner
        assert isinstance(inner, pl.DataType)
        return T.ArrayType(spark_type(inner))
    if isinstance(dtype, pl.Datetime):
        return T.TimestampType()
    if isinstance(dtype, pl.Duration):
        return T.DayTimeIntervalType()
    simple: dict[type[pl.DataType], DataType] = {
        pl.Int64: T.LongType(),
        pl.String: T.StringType(),
        pl.Boolean: T.BooleanType(),
        pl.Float64: T.DoubleType(),
    }
    return simple[type(dtype)]


def spark_schema(schema: dict[str, pl.DataType]) -> StructType:
    """A toolkit schema (``frames.FACTS_SCHEMA``, ``analysis.CHURN_SCHEMA`` …) as a Spark ``StructType``."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField(name, spark_type(dtype), True) for name, dtype in schema.items()])


def facts_schema() -> StructType:
    """The columns and types of :func:`read_facts`: :data:`kgtoolkit.frames.FACTS_SCHEMA` as Spark types."""
    return spark_schema(FACTS_SCHEMA)


def read_facts(spark: SparkSession, source: str | os.PathLike[str], *, partitions: int | None = None) -> DataFrame:
    """The facts as a Spark DataFrame with the columns and types of :func:`kgtoolkit.frames.facts`.

    ``source`` is a folder written by ``kgtoolkit export DIR --format parquet --partition-by month`` (or ``year``,
    ``day``: :func:`kgtoolkit.io.export_partitioned`; Spark reads its files in parallel), or a PostgreSQL graph's
    URL (``postgresql://user:password@host:5432/db``; a schema by ``?options=-csearch_path%3Dname``), read through
    Spark's JDBC source in ``partitions`` parallel ranges of fact ids (default: the session's parallelism; needs
    the JDBC driver, :data:`JDBC_DRIVER`, on the class path: :func:`session` puts it there).

    ``state`` and ``current`` are judged now (contract §4), as :func:`kgtoolkit.frames.facts` judges them, by the
    rule of :mod:`kgtoolkit._validity`; ``kind`` is the graph's (an export carries it; from PostgreSQL it is the
    event rule of :func:`kgtoolkit._records.is_event` under the graph's settings).
    """
    _pyspark()
    text = os.fspath(source)
    if text.startswith(("postgresql://", "postgres://")):
        return _from_postgres(spark, text, partitions)
    return _from_parquet(spark, Path(text))


def _from_parquet(spark: SparkSession, folder: Path) -> DataFrame:
    from pyspark.sql import functions as F

    if not folder.is_dir():
        raise NotFound(
            f"no Parquet export at {folder}: write one with `kgtoolkit export {folder} --format parquet "
            "--partition-by month`, or give a postgresql:// URL",
            field="source",
            value=str(folder),
        )
    raw = spark.read.parquet(str(folder))
    missing = [c for c in FACTS_SCHEMA if c not in raw.columns]
    if missing:
        raise InvalidRequest(
            f"{folder} holds no facts export (no {', '.join(missing[:3])} column); write it with `kgtoolkit export "
            f"{folder} --format parquet --partition-by month`",
            field="source",
            value=str(folder),
        )
    start, end = spark_keys()
    state = spark_state(start, end, F.col("kind") == "event", Clock.real())
    return raw.select(
        *(
            (state == "current").alias(c)
            if c == "current"
            else state.alias(c)
            if c == "state"
            else F.col(c).cast(spark_type(t)).alias(c)
            for c, t in FACTS_SCHEMA.items()
        )
    )


def _from_postgres(spark: SparkSession, url: str, partitions: int | None) -> DataFrame:
    from pyspark.sql import functions as F

    from ..store import SPARK_FACT_COLUMNS as FACT_COLUMNS
    from ..store import jdbc_source

    source = jdbc_source(url)
    parts = partitions or spark.sparkContext.defaultParallelism
    if partitions is not None and (isinstance(partitions, bool) or partitions < 1):
        raise InvalidRequest(f"partitions must be a whole number from 1, not {partitions!r}", field="partitions")
    properties = dict(source.properties)
    if source.ids is not None and parts > 1:
        low, high = source.ids
        facts = spark.read.jdbc(
            source.url,
            source.facts_table,
            column="id",
            lowerBound=low,
            upperBound=high + 1,
            numPartitions=min(parts, high - low + 1),
            properties=properties,
        )
    else:
        facts = spark.read.jdbc(source.url, source.facts_table, properties=properties)
    entities = spark.read.jdbc(source.url, source.entities_table, properties=properties).select("id", "name", "type")
    subjects = entities.select(
        F.col("id").alias("subject"), F.col("name").alias("subject_name"), F.col("type").alias("subject_type")
    )
    objects = entities.select(
        F.col("id").alias("object_id"), F.col("name").alias("_object_name"), F.col("type").alias("object_type")
    )
    df = facts.select(*FACT_COLUMNS).join(subjects, "subject", "left").join(objects, "object_id", "left")
    config = source.config
    declared = F.col("predicate").isin(sorted(config.event_predicates)) if config.event_predicates else F.lit(False)
    event = F.coalesce(
        is_event(
            F.lit(config.events),
            declared,
            F.col("valid_from"),
            F.col("valid_to"),
            F.col("recorded_at"),
            F.col("invalidated_at"),
        ),
        F.lit(False),
    )
    state = spark_state(F.col("from_us"), F.col("to_us"), event, Clock.real())  # contract §4, one rule
    columns: dict[str, Column] = {
        "object": F.coalesce("object_id", "object_value"),
        "object_name": F.coalesce("_object_name", "object_value"),
        "object_is_value": F.col("object_id").isNull(),
        "start": F.when(F.col("from_us") != OPEN_START, F.timestamp_micros("from_us")),
        "end": F.when(F.col("to_us") != OPEN_END, F.timestamp_micros("to_us")),
        "current": state == "current",
        "state": state,
        "kind": F.when(event, F.lit("event")).otherwise(F.lit("state")),
        "recorded_at": F.col("recorded_at").try_cast("timestamp"),
        "invalidated_at": F.col("invalidated_at").try_cast("timestamp"),
    }
    return df.select(*(columns.get(c, F.col(c)).cast(spark_type(t)).alias(c) for c, t in FACTS_SCHEMA.items()))


# ---------------------------------------------------------------------- shared by the analyses


def checked(facts: Any) -> DataFrame:
    """A Spark facts frame with every column of :func:`read_facts`, in a session whose time zone is UTC."""
    from pyspark.sql import DataFrame

    if not isinstance(facts, DataFrame):
        raise InvalidRequest(
            f"facts must be a Spark DataFrame (kgtoolkit.spark.read_facts), not {type(facts).__name__}",
            field="facts",
        )
    missing = [c for c in FACTS_SCHEMA if c not in facts.columns]
    if missing:
        raise InvalidRequest(
            f"the facts frame has no {', '.join(missing)} column; read it with kgtoolkit.spark.read_facts",
            field=missing[0],
        )
    zone = facts.sparkSession.conf.get("spark.sql.session.timeZone")
    if zone not in ("UTC", "Etc/UTC", "Z", "+00:00"):
        raise InvalidRequest(
            f"the Spark session's time zone is {zone}, and the analyses' periods and dates are UTC's (contract §4); "
            'set it: spark.conf.set("spark.sql.session.timeZone", "UTC") (kgtoolkit.spark.session does)',
            field="spark.sql.session.timeZone",
            value=str(zone),
        )
    return facts


def period(column: Column, every: str) -> Column:
    """The start of the period of ``every`` holding each instant (``dt.truncate(every)`` in polars): calendar
    periods (``mo``, ``q``, ``y``) counted in months from year 0, fixed ones from 1970-01-01 (weeks from a Monday,
    1970-01-05). An ``every`` of several units (``1d12h``) has no Spark form: refused."""
    from pyspark.sql import functions as F

    if _units(every) > 1:
        raise InvalidRequest(
            f"every {every!r} has several units; on Spark a period has one ('1d', '12h', '1w', '1mo', '3mo', '1y')",
            field="every",
            value=every,
        )
    months, nanoseconds = _step(every)
    if months and 12 % months and months % 12:
        raise InvalidRequest(
            f"every {every!r} is a number of months that divides no year; on Spark a calendar period is 1, 2, 3, 4 "
            "or 6 months or whole years ('1mo', '3mo', '1q', '6mo', '1y', '5y')",
            field="every",
            value=every,
        )
    if months:
        k = F.year(column).cast("long") * 12 + F.month(column).cast("long") - 1
        start = k - F.pmod(k, F.lit(months))
        first_of_1970 = F.make_date(F.lit(1970), F.lit(1), F.lit(1))
        return F.add_months(first_of_1970, (start - 1970 * 12).cast("int")).cast("timestamp")
    step = nanoseconds // 1_000
    offset = 4 * 86_400_000_000 if every.endswith("w") else 0  # polars' weeks begin on Mondays
    us = F.unix_micros(column) - offset
    return F.timestamp_micros(us - F.pmod(us, F.lit(step)) + offset)


def _units(every: str) -> int:
    from .._periods import DURATION as _DURATION

    return len(_DURATION.findall(every))


def object_key(facts: DataFrame) -> DataFrame:
    """``facts`` with ``_key``: what makes two objects the same (contract §2, :attr:`kgtoolkit.Fact.object_key`):
    the entity id, or the value text case-folded (Python's ``str.casefold`` in an Arrow-optimised UDF: Spark's ``lower``
    is not case folding)."""
    from pyspark.sql import functions as F

    folded = _casefold()(F.col("object"))
    return facts.withColumn("_key", F.when(F.col("object_is_value"), folded).otherwise(F.col("object")))


def _casefold() -> Any:
    from pyspark.sql import functions as F

    def fold(value: str | None) -> str | None:  # a local function: shipped to the workers whole, by value
        return None if value is None else value.casefold()

    return F.udf(fold, "string", useArrow=True)


def to_polars(frame: DataFrame, schema: dict[str, pl.DataType] | None = None) -> pl.DataFrame:
    """A Spark DataFrame collected as a polars frame (through Arrow), typed by ``schema`` when given (timestamps
    UTC): to compare a Spark answer with the engine's, or hand it to the churn report."""
    table: pa.Table = frame.toArrow()
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    out = out.with_columns(
        pl.col(c).dt.convert_time_zone("UTC")
        if isinstance(t, pl.Datetime) and t.time_zone
        else pl.col(c).dt.replace_time_zone("UTC")
        for c, t in out.schema.items()
        if isinstance(t, pl.Datetime)
    )
    if schema is not None:
        out = out.select([pl.col(n).cast(t) for n, t in schema.items()])
    return out


def from_polars(spark: SparkSession, frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> DataFrame:
    """A polars frame (an answer laid out on the driver) as a Spark DataFrame typed by ``schema``."""
    table = frame.select([pl.col(n).cast(t) for n, t in schema.items()]).to_arrow()
    return spark.createDataFrame(table, spark_schema(schema))

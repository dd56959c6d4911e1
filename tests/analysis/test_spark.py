"""The Spark tier (issue 48): every analysis of :mod:`kgtoolkit.spark` equals the engine's answer (SQLite and
PostgreSQL) on the same graph, read from the month-partitioned Parquet export and (PostgreSQL) through Spark's JDBC
source; on hand-made graphs, on hypothesis-made ones and on the real sets (ICEWS14, YAGO11k, WIKIDATA12k).

One local Spark session serves every test of a test process (``spark``: two cores, two shuffle partitions, no UI,
the JVM's client compiler only). The standalone cluster's test (a master and two workers started through ``spark-class``) is in
``tests/test_spark_cluster.py``. Everything here skips when PySpark or Java is missing (``kgtoolkit[spark]``).
"""

from __future__ import annotations

import csv
import itertools
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from real_graphs import RealGraph
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KGError, KnowledgeGraph, analysis, frames, io
from kgtoolkit.report import ReportOptions, churn_report

pytest.importorskip("pyspark", reason="kgtoolkit[spark] is not installed")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17 (Debian: openjdk-17-jre-headless)", allow_module_level=True)

from kgtoolkit import spark as ks

pytestmark = pytest.mark.spark

NOW = "2026-03-11"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for the whole test process: small, quiet, UTC. Its JVM compiles with the client
    compiler only and collects with one thread: the tests' jobs are short, and the optimising compiler's threads
    cost more CPU than they win back."""
    session = ks.session(
        "local[2]",
        shuffle_partitions=2,
        **{
            "spark.default.parallelism": "2",
            "spark.driver.memory": "1g",
            "spark.sql.adaptive.enabled": "false",
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


_exports = itertools.count()


def spark_facts(spark: Any, kg: KnowledgeGraph, folder: Path) -> Any:
    """The graph's facts on Spark, through its month-partitioned Parquet export."""
    target = folder / f"export{next(_exports)}"
    io.export_partitioned(kg, target, by="month")
    return ks.read_facts(spark, target)


def same(got: Any, want: pl.DataFrame, *, by: str | None = None) -> None:
    """A Spark answer equals the polars one: the same columns, types and rows (in order, or sorted ``by``)."""
    frame = ks.to_polars(got)
    assert frame.columns == want.columns
    frame = frame.cast(dict(want.schema))  # type: ignore[arg-type]
    if by is not None:
        frame, want = frame.sort(by), want.sort(by)
    assert_frame_equal(frame, want)


def config_of(kg: KnowledgeGraph) -> dict[str, Any]:
    c = kg.config
    return {"multi_valued": c.multi_valued, "one_holder": c.one_holder, "single_valued": c.single_valued}


def connected_of(kg: KnowledgeGraph) -> pl.DataFrame:
    """The engine's most_connected, without the entities no fact names (a facts frame cannot hold them)."""
    table = analysis.most_connected(kg)
    assert isinstance(table, pl.DataFrame)
    return table.filter(pl.col("facts") > 0)


def stats_of(kg: KnowledgeGraph) -> dict[str, int]:
    s = kg.stats()
    return {
        "facts": s.facts,
        "current": s.current,
        "ended": s.ended,
        "scheduled": s.scheduled,
        "events": s.events,
        "value_facts": s.value_facts,
        "predicates": s.predicates,
    }


def check_everything(spark: Any, kg: KnowledgeGraph, facts: Any, window: tuple[str, str], as_of: str) -> None:
    """Every Spark analysis against the engine (or, where the engine has no path, the frame twin it equals)."""
    table = frames.facts(kg)
    assert isinstance(table, pl.DataFrame)
    same(facts, table, by="id")
    for by in (None, "predicate", "subject"):
        same(ks.churn(facts, by=by), analysis.churn(kg, by=by))  # type: ignore[arg-type]
    weekly = {
        "every": "1w",
        "since": window[0],
        "until": window[1],
        "renewals": False,
    }  # a window: YAGO spans 2,000 years
    same(ks.churn(facts, **weekly), analysis.churn(kg, **weekly))
    for by in (None, "predicate", "pair"):
        same(ks.events(facts, by=by), analysis.events(kg, by=by))  # type: ignore[arg-type]
    same(ks.event_graph(facts), analysis.event_graph(kg))
    for by in ("entity", "subject", "predicate"):
        same(ks.most_volatile(facts, by=by, top=None), analysis.most_volatile(kg, by=by, top=None))  # type: ignore[arg-type]
    same(ks.most_connected(facts), connected_of(kg))
    same(ks.conflicts(facts, now=NOW, **config_of(kg)), analysis.conflicts(table, now=NOW, **config_of(kg)))
    same(ks.diff(facts, *window, **config_of(kg)), frames.diff(kg, *window))
    same(ks.valid_at(facts, as_of), frames.facts(kg, as_of=as_of), by="id")
    mv = kg.config.multi_valued
    same(ks.most_changed(facts, top=None, multi_valued=mv), analysis.most_changed(kg, top=None, multi_valued=mv))
    windowed = {"since": window[0], "until": window[1], "multi_valued": mv}
    same(ks.most_changed(facts, top=3, **windowed), analysis.most_changed(kg, top=3, **windowed))
    counted = ks.to_polars(ks.stats(facts)).row(0, named=True)
    assert {k: counted[k] for k in stats_of(kg)} == stats_of(kg)


def worked_graph(kg: KnowledgeGraph) -> None:
    """A graph with a bit of every rule: replacements, a renewal, a one-holder office, values up to case, events
    (by their bounds and declared), scheduled facts and planned switches, unknown starts."""
    kg.configure(value_predicates={"email"}, one_holder={"ceo_of"}, event_predicates={"met"})
    kg.add("api", "uses", "redis", valid_from="2024-01-01")
    kg.supersede("api", "uses", "redis", "sqlite", at="2024-02-01")
    kg.add("ann", "ceo_of", "acme", valid_from="2020-01-01", valid_to="2024-01-31")
    kg.add("bob", "ceo_of", "acme", valid_from="2024-02-01")
    kg.add("cat", "lease", "flat 4", valid_from="2023-01-01", valid_to="2023-12-31")
    kg.add("cat", "lease", "flat 4", valid_from="2024-01-01", valid_to="2024-12-31")  # a renewal
    kg.add("svc", "owned_by", "team_a", valid_from="2026-01-01")
    kg.add("svc", "owned_by", "team_b", valid_from="2026-03-01")  # two current: needs action
    kg.add("web", "owned_by", "team_a", valid_from="2025-01-01")
    kg.add("web", "owned_by", "team_c", valid_from="2031-01-01")  # a planned switch
    kg.add("ann", "email", "Ann@Example.org")
    kg.add("ann", "email", "ann@example.org", valid_from="2024-02-10")  # the same value, up to case
    kg.add("ann", "email", "ann@other.org", valid_from="2024-02-15")
    kg.add("china", "criticize", "japan", valid_from="2024-02-02", valid_to="2024-02-02")  # an event by its bounds
    kg.add("china", "criticize", "japan", valid_from="2024-03-05", valid_to="2024-03-05")
    kg.add("ann", "met", "bob", valid_from="2024-02-20")  # a declared event
    kg.add("dora", "works_at", "acme")  # an unknown start
    kg.invalidate("dora", "works_at", "acme", ended="2024-02-25")


def test_every_analysis_equals_the_engine_on_a_worked_graph(
    spark: Any, kg: KnowledgeGraph, backend: str, tmp_path: Path
) -> None:
    worked_graph(kg)
    facts = spark_facts(spark, kg, tmp_path)
    check_everything(spark, kg, facts, ("2024-01", "2024-02"), "2024-02")
    if backend == "postgresql":  # and read through Spark's JDBC source, in parallel id ranges
        assert kg.location.url is not None
        read = ks.read_facts(spark, kg.location.url, partitions=3)
        check_everything(spark, kg, read, ("2024-01", "2024-02"), "2024-02")


def event_graph_of(kg: KnowledgeGraph) -> None:
    """An event graph: meetings and visits over two months, a busy pair and a burst."""
    kg.configure(events=True)
    for day in range(1, 29):
        kg.add("ann", "meets", "bob", valid_from=f"2024-02-{day:02}", valid_to=f"2024-02-{day:02}")
    for day in (3, 9, 17):
        kg.add("cid", "visits", "dee", valid_from=f"2024-01-{day:02}", valid_to=f"2024-01-{day:02}")
        kg.add("dee", "meets", "ann", valid_from=f"2024-03-{day:02}", valid_to=f"2024-03-{day:02}")


def _stamped(path: Path, names: tuple[str, str]) -> str:
    """A report file with its generation time and its own file name taken out."""
    text = re.sub(r"generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "generated -", path.read_text(encoding="utf-8"))
    return text.replace(names[0], "-").replace(names[1], "-")


@pytest.mark.parametrize("made", [worked_graph, event_graph_of], ids=["states", "events"])
def test_the_churn_report_from_a_spark_run_equals_the_engines(
    spark: Any, kg: KnowledgeGraph, made: Callable[[KnowledgeGraph], None], tmp_path: Path
) -> None:
    made(kg)
    facts = spark_facts(spark, kg, tmp_path)
    engine = churn_report(kg, out=tmp_path / "engine.html", now=NOW, top=5)
    options = ReportOptions(out=tmp_path / "spark.html", now=NOW, top=5)  # the keywords, as one value
    run = ks.churn_report(
        facts, config=kg.config, labels=kg.predicate_labels(), graph=str(kg.location), options=options
    )
    for ours, theirs in zip(engine, run, strict=True):
        assert _stamped(ours, ("engine.html", "engine.md")) == _stamped(theirs, ("spark.html", "spark.md"))
    assert "Headline" in run[1].read_text(encoding="utf-8")


# ---------------------------------------------------------------------- hypothesis-made graphs

DAYS = ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02", "2024-02-15", "2024-02-29", "2024-03-01", None]
SUBJECTS = ["api", "web", "db"]
PREDICATES = ["uses", "owner", "depends_on", "email", "met"]  # depends_on: multi-valued; email: a value
OBJECTS = ["redis", "Redis", "sqlite", "ann", "bob"]

rows = st.lists(
    st.tuples(
        st.sampled_from(SUBJECTS),
        st.sampled_from(PREDICATES),
        st.sampled_from(OBJECTS),
        st.sampled_from(DAYS),
        st.one_of(st.sampled_from(DAYS), st.just("same")),  # "same": an event by its bounds
    ),
    max_size=14,
)
_graphs = itertools.count()


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    facts=rows,
    declared=st.sampled_from([None, "met", "all"]),
    holder=st.booleans(),
    window=st.sampled_from([("2024-01-31", "2024-02-02"), ("2024-02", "2024-02"), ("2023", "2025")]),
    every=st.sampled_from(["1mo", "1w", "1d"]),
    by=st.sampled_from([None, "predicate", "subject"]),
    as_of=st.sampled_from(["2024-02-01", "2024-02", "2024-01-31/2024-02-15"]),
)
def test_every_analysis_equals_the_engine_on_made_graphs(
    spark: Any,
    new_db: Callable[[str], Path | str],
    tmp_path: Path,
    facts: list[tuple[str, str, str, Any, Any]],
    declared: Any,
    holder: bool,
    window: tuple[str, str],
    every: str,
    by: Any,
    as_of: str,
) -> None:
    with kgtoolkit.open(new_db(f"spark{next(_graphs)}")) as kg:
        kg.configure(
            value_predicates={"email"},
            multi_valued={"depends_on"},
            **({"one_holder": {"owner"}} if holder else {}),
            **({"events": True} if declared == "all" else {}),
        )
        if declared == "met":
            kg.configure(event_predicates={"met"})
        for subject, predicate, obj, start, end in facts:
            try:
                kg.add(subject, predicate, obj, valid_from=start, valid_to=start if end == "same" else end)
            except KGError:
                pass  # an end before its start, or the same current fact twice: refused
        table = frames.facts(kg)
        assert isinstance(table, pl.DataFrame)
        df = spark_facts(spark, kg, tmp_path)
        same(df, table, by="id")
        same(ks.churn(df, every=every, by=by), analysis.churn(kg, every=every, by=by))
        same(ks.events(df, every=every), analysis.events(kg, every=every))
        same(ks.most_volatile(df, by="entity", top=None), analysis.most_volatile(kg, by="entity", top=None))
        same(ks.conflicts(df, now=NOW, **config_of(kg)), analysis.conflicts(table, now=NOW, **config_of(kg)))
        same(ks.diff(df, *window, **config_of(kg)), frames.diff(kg, *window))
        same(ks.valid_at(df, as_of), frames.valid_at(table, as_of), by="id")  # the store's as_of where it has one
        mv = kg.config.multi_valued
        same(ks.most_changed(df, top=None, multi_valued=mv), analysis.most_changed(kg, top=None, multi_valued=mv))


# ---------------------------------------------------------------------- the periods


@pytest.mark.parametrize("every", ["1d", "7d", "1w", "2w", "6h", "1mo", "3mo", "1q", "6mo", "1y", "5y"])
def test_a_period_starts_where_polars_truncates(spark: Any, every: str) -> None:
    from kgtoolkit.spark._frames import period

    instants = pl.DataFrame(
        {
            "at": [
                f"{y}-{m:02}-{d:02}T{h:02}:17:00Z"
                for y, m, d, h in itertools.product((1969, 1970, 2014, 2024), (1, 2, 7, 12), (1, 15, 28), (0, 13))
            ]
        }
    ).select(pl.col("at").str.to_datetime(time_zone="UTC", time_unit="us"))
    frame = spark.createDataFrame(instants.to_arrow())
    got = ks.to_polars(frame.select(period(frame["at"], every).alias("at")))
    assert got["at"].to_list() == instants.select(pl.col("at").dt.truncate(every))["at"].to_list()


# ---------------------------------------------------------------------- refusals


def test_what_has_no_spark_form_is_refused_with_a_clear_error(spark: Any, kg: KnowledgeGraph, tmp_path: Path) -> None:
    kg.add("api", "uses", "redis", valid_from="2024-01-01")
    facts = spark_facts(spark, kg, tmp_path)
    with pytest.raises(kgtoolkit.InvalidRequest, match="several units") as several:
        ks.churn(facts, every="1d12h")
    assert several.value.data["field"] == "every"
    with pytest.raises(kgtoolkit.InvalidRequest, match="divides no year"):
        ks.events(facts, every="7mo")
    with pytest.raises(kgtoolkit.InvalidRequest, match="Spark DataFrame"):
        ks.churn(frames.facts(kg))  # type: ignore[arg-type]
    with pytest.raises(kgtoolkit.InvalidRequest, match="no start column"):
        ks.churn(facts.drop("start"))
    with pytest.raises(kgtoolkit.NotFound, match="kgtoolkit export"):
        ks.read_facts(spark, tmp_path / "nowhere")
    with pytest.raises(kgtoolkit.InvalidRequest, match="Unix socket"):
        ks.read_facts(spark, "postgresql:///kg?host=/var/run/postgresql")
    spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
    try:
        with pytest.raises(kgtoolkit.InvalidRequest, match="UTC") as zone:
            ks.events(facts)
        assert zone.value.data["field"] == "spark.sql.session.timeZone"
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


# ---------------------------------------------------------------------- the real sets

REAL = {name: DATA / name / "facts.tsv" for name in ("icews14", "yago11k", "wikidata12k")}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_every_analysis_equals_the_engine_on_the_real_sets(
    spark: Any, name: str, real_graph: Callable[..., RealGraph], backend: str, tmp_path: Path
) -> None:
    path = REAL[name]
    if not path.is_file():
        pytest.skip(f"{name} not found at {path} (the shared data folder is absent)")
    if backend == "postgresql" and name == "wikidata12k":
        pytest.skip("the PostgreSQL twin runs on ICEWS14 and YAGO11k (CI time); SQLite covers WIKIDATA12k")
    with path.open(newline="", encoding="utf-8") as handle:
        first = next(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    # YAGO11k has BC years and reversed intervals: imported with on_error="skip" (once per test process)
    with kgtoolkit.open(real_graph(name, allow_commas=True, on_error="skip").db) as kg:
        facts = spark_facts(spark, kg, tmp_path).cache()
        day = first["valid_from"] or "2014-01-01"
        window = (day[:7], day[:7])
        check_everything(spark, kg, facts, window, day)
        if backend == "postgresql":
            read = ks.read_facts(spark, str(kg.location.url), partitions=4)
            same(read, frames.facts(kg), by="id")  # type: ignore[arg-type]
            same(ks.churn(read), analysis.churn(kg))
            same(ks.events(read, by="predicate"), analysis.events(kg, by="predicate"))

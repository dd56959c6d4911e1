"""frames.stream (frames.facts in batches, in bounded memory) and io.export_partitioned (Hive-partitioned Parquet),
on both engines: the concatenated stream is frames.facts for every filter and batch size, and the partitioned folder
read back by polars, and by DuckDB as it is, is frames.facts with the right partition values.

The graphs: the demo graph, a generated one (big enough that an SQLite read goes through the reader process) and
YAGO11k from the shared data folder (skipped when absent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from cli_run import fails, ok, ok_json
from shared_data import DATA

from kgtoolkit import frames, io
from kgtoolkit._demo import build_demo
from kgtoolkit._errors import InvalidRequest
from kgtoolkit.generate import generate
from kgtoolkit.graph import KnowledgeGraph
from kgtoolkit.store import copy_graph, import_facts

YAGO = DATA / "yago11k" / "facts.tsv"

#: Filters of frames.facts, each a different path through the store's SQL and the shaping after it.
FILTERS: list[dict[str, Any]] = [
    {},
    {"current_only": True},
    {"as_of": "2025-03"},
    {"as_of": "2024-06-30"},
    {"known_at": "2000-01-01"},
    {"current_only": True, "known_at": "2999-01-01"},
]


def _demo(kg: KnowledgeGraph, tmp_path: Path) -> KnowledgeGraph:
    """The demo graph, on the test's engine (built as a file, then copied)."""
    source = build_demo(tmp_path / "demo-source.sqlite3")
    try:
        copy_graph(source, kg)
    finally:
        source.close()
    return kg


def _streamed(kg: KnowledgeGraph, batch_size: int, **filters: Any) -> pl.DataFrame:
    batches = list(frames.stream(kg, batch_size=batch_size, **filters))
    assert batches, "a stream has at least one batch"
    assert all(isinstance(b, pl.DataFrame) and b.height <= batch_size for b in batches)
    assert all(b.height for b in batches) or len(batches) == 1  # an empty batch only when nothing matches
    return pl.concat(batches)


def _same(kg: KnowledgeGraph, batch_size: int, **filters: Any) -> None:
    expected = frames.facts(kg, **filters)
    got = _streamed(kg, batch_size, **filters)
    assert got.schema == expected.schema == pl.Schema(frames.FACTS_SCHEMA)
    assert got.equals(expected), (batch_size, filters)
    assert got["id"].is_sorted() and got["id"].is_unique().all()


# ---------------------------------------------------------------------- frames.stream


@pytest.mark.parametrize("batch_size", [1, 7, 10_000_000])
def test_stream_is_facts_on_the_demo_graph(kg: KnowledgeGraph, tmp_path: Path, batch_size: int) -> None:
    _demo(kg, tmp_path)
    entity = frames.facts(kg)["subject"][0]
    predicate = frames.facts(kg)["predicate"][-1]
    for filters in [*FILTERS, {"entity": entity}, {"predicate": predicate}, {"entity": entity, "as_of": "2025"}]:
        _same(kg, batch_size, **filters)


def test_stream_is_facts_on_a_generated_graph(kg: KnowledgeGraph) -> None:
    import_facts(kg, generate(25_000, seed=11))  # past 20,000 facts an SQLite read goes through the reader process
    predicate = frames.facts(kg)["predicate"].mode()[0]
    for batch_size in (4_096, 25_000, 1_000_000):
        _same(kg, batch_size)
    for filters in [*FILTERS[1:], {"predicate": predicate}]:
        _same(kg, 9_999, **filters)


def test_stream_of_an_empty_graph_is_one_empty_batch(kg: KnowledgeGraph) -> None:
    [batch] = list(frames.stream(kg, batch_size=1))
    assert isinstance(batch, pl.DataFrame)
    assert batch.height == 0 and batch.schema == pl.Schema(frames.FACTS_SCHEMA)
    assert batch.equals(frames.facts(kg))
    kg.add("a", "uses", "b", valid_from="2026-01-01")
    [batch] = list(frames.stream(kg, as_of="1990"))  # nothing matches: the same
    assert batch.height == 0 and batch.schema == pl.Schema(frames.FACTS_SCHEMA)


def test_stream_as_pandas_and_arrow(kg: KnowledgeGraph, tmp_path: Path) -> None:
    import pandas as pd
    import pyarrow as pa

    _demo(kg, tmp_path)
    pandas_batches = list(frames.stream(kg, batch_size=10, backend="pandas"))
    assert all(isinstance(b, pd.DataFrame) for b in pandas_batches)
    expected = frames.facts(kg, backend="pandas")
    assert isinstance(expected, pd.DataFrame)
    pd.testing.assert_frame_equal(pd.concat(pandas_batches, ignore_index=True), expected)
    arrow_batches = list(frames.stream(kg, batch_size=10, backend="arrow"))
    assert all(isinstance(b, pa.Table) for b in arrow_batches)
    got = pl.from_arrow(pa.concat_tables(arrow_batches))
    assert isinstance(got, pl.DataFrame) and got.equals(frames.facts(kg))


def test_stream_refuses_bad_arguments_when_called(kg: KnowledgeGraph) -> None:
    kg.add("a", "uses", "b")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidRequest, match="batch_size"):
            frames.stream(kg, batch_size=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match="backend"):
        frames.stream(kg, backend="spark")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        frames.stream(kg, as_of="not a date")


def test_stream_sees_each_fact_once_while_the_graph_is_written(kg: KnowledgeGraph) -> None:
    for i in range(10):
        kg.add(f"service {i}", "uses", "Redis")
    batches = frames.stream(kg, batch_size=4)
    first = next(batches)
    assert isinstance(first, pl.DataFrame)
    kg.add("late service", "uses", "Redis")  # a new id, past every id read: a later batch has it
    kg.invalidate("service 0", "uses", "Redis")  # already read: not read again
    rest = pl.concat([first, *batches])  # type: ignore[list-item]
    assert rest["id"].is_unique().all() and rest.height == 11
    assert "late_service" in rest["subject"].to_list()


@pytest.mark.slow
def test_stream_is_facts_on_yago(kg: KnowledgeGraph, tmp_path: Path) -> None:
    if not YAGO.exists():
        pytest.skip(f"YAGO11k not found at {YAGO} (the shared data folder is absent)")
    raw = pl.read_csv(YAGO, separator="\t", infer_schema=False, quote_char=None)
    import_facts(kg, raw, on_error="skip", allow_commas=True)
    for batch_size in (3_000, 100_000):
        _same(kg, batch_size)
    _same(kg, 5_000, as_of="1990")
    _same(kg, 5_000, predicate="isAffiliatedTo")
    _exported_equals_facts(kg, tmp_path / "yago", by="year")


# ---------------------------------------------------------------------- io.export_partitioned


def _partition_value(by: str) -> pl.Expr:
    """The value a Hive reader (polars) gives a fact's partition column: typed from the folder names."""
    start = pl.col("start")
    return {"year": start.dt.year().cast(pl.Int64), "month": start.dt.strftime("%Y-%m"), "day": start.dt.date()}[by]


def _exported_equals_facts(kg: KnowledgeGraph, folder: Path, *, by: str, **filters: Any) -> pl.DataFrame:
    count = io.export_partitioned(kg, folder, by=by, batch_size=5_000, **filters)  # type: ignore[arg-type]
    expected = frames.facts(kg, **filters)
    assert isinstance(expected, pl.DataFrame)
    back = pl.scan_parquet(folder, hive_partitioning=True).collect().sort("id")
    assert count == expected.height == back.height
    assert back.columns == [*frames.FACTS_SCHEMA, by]
    assert back.drop(by).equals(expected)
    wanted = expected.select(_partition_value(by).alias(by))[by]
    assert back[by].cast(wanted.dtype).equals(wanted)  # nulls (no start) in the null partition
    for path in folder.rglob("*"):  # Hive folders of part files, and nothing else
        assert path.is_dir() or (path.parent.parent == folder and path.name.startswith("part-"))
        assert path.is_file() or path.name.startswith(f"{by}=")
    return back


@pytest.mark.parametrize("by", ["year", "month", "day"])
def test_partitioned_export_reads_back_as_facts(kg: KnowledgeGraph, tmp_path: Path, by: str) -> None:
    import_facts(kg, generate(12_000, seed=5))
    out = tmp_path / "exports"
    back = _exported_equals_facts(kg, out / "facts", by=by)
    assert back[by].null_count() == back["start"].null_count() > 0
    assert (out / "facts" / f"{by}={io.NULL_PARTITION}").is_dir()
    if by == "month":
        assert (out / "facts" / "month=2024-01" / "part-00000.parquet").is_file()
    assert [p.name for p in out.iterdir()] == ["facts"]  # no temporary folder left beside it


def test_partitioned_export_filters_and_empty_folder(kg: KnowledgeGraph, tmp_path: Path) -> None:
    _demo(kg, tmp_path)
    (tmp_path / "empty").mkdir()
    _exported_equals_facts(kg, tmp_path / "empty", by="month", as_of="2025")  # an empty folder is taken
    _exported_equals_facts(kg, tmp_path / "current" / "deeper", by="day", current_only=True)


def test_partitioned_export_of_nothing_keeps_the_columns(kg: KnowledgeGraph, tmp_path: Path) -> None:
    assert io.export_partitioned(kg, tmp_path / "none") == 0
    assert [p.relative_to(tmp_path / "none").as_posix() for p in (tmp_path / "none").rglob("*.parquet")] == [
        f"month={io.NULL_PARTITION}/part-00000.parquet"
    ]
    back = pl.scan_parquet(tmp_path / "none", hive_partitioning=True).collect()
    assert back.height == 0 and back.drop("month").schema == pl.Schema(frames.FACTS_SCHEMA)


def test_partitioned_export_refuses_and_leaves_nothing_half_done(kg: KnowledgeGraph, tmp_path: Path) -> None:
    import_facts(kg, generate(3_000, seed=2))
    tmp_path = tmp_path / "exports"
    (tmp_path / "full").mkdir(parents=True)
    (tmp_path / "full" / "notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "a_file").write_text("mine", encoding="utf-8")
    for target in ("full", "a_file"):
        with pytest.raises(InvalidRequest, match="new or empty folder"):
            io.export_partitioned(kg, tmp_path / target)
    assert (tmp_path / "full" / "notes.txt").read_text(encoding="utf-8") == "mine"
    with pytest.raises(InvalidRequest, match="year, month or day"):
        io.export_partitioned(kg, tmp_path / "out", by="week")  # type: ignore[arg-type]

    class Interrupted(Exception):
        pass

    def interrupt(done: int, total: int) -> None:  # as Ctrl-C would, after the first batch is written
        if done:
            raise Interrupted

    with pytest.raises(Interrupted):
        io.export_partitioned(kg, tmp_path / "out", batch_size=1_000, progress=interrupt)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "full"]  # no folder, no temporary one


def _duckdb(folder: Path, query: str = "SELECT * FROM facts ORDER BY id") -> Any:
    """``query`` over the folder as DuckDB reads it as it is: every part file, the partition column from the names."""
    import duckdb

    connection = duckdb.connect()
    connection.execute(
        f"CREATE VIEW facts AS SELECT * FROM read_parquet('{folder.as_posix()}/**/*.parquet', hive_partitioning = true)"
    )
    return connection.sql(query)


@pytest.mark.parametrize(("by", "duckdb_type"), [("year", "BIGINT"), ("month", "VARCHAR"), ("day", "DATE")])
def test_duckdb_reads_the_partitioned_folder_as_it_is(
    kg: KnowledgeGraph, tmp_path: Path, by: str, duckdb_type: str
) -> None:
    """The DuckDB line of docs/bulk.md, run: the columns of frames.facts and the partition column (typed by DuckDB from the
    folder names), every fact once, the null partition read as NULL, a filter on the partition column agreeing."""
    import_facts(kg, generate(6_000, seed=8))
    folder = tmp_path / "facts"
    assert io.export_partitioned(kg, folder, by=by, batch_size=2_000) == 6_000  # type: ignore[arg-type]
    expected = frames.facts(kg)
    assert isinstance(expected, pl.DataFrame)
    read = _duckdb(folder)
    assert read.columns == [*frames.FACTS_SCHEMA, by] and read.shape == (6_000, len(frames.FACTS_SCHEMA) + 1)
    assert [str(t) for t in read.types][-1] == duckdb_type
    assert str(read.types[read.columns.index("start")]) == "TIMESTAMP WITH TIME ZONE"
    back = read.pl().with_columns(pl.selectors.datetime().dt.convert_time_zone("UTC"))
    assert back.drop(by).equals(expected)
    wanted = expected.select(_partition_value(by).alias(by))[by]
    assert back[by].equals(wanted, check_names=False) and 0 < back[by].null_count() == expected["start"].null_count()
    # SQL over the partition column: NULL for the facts without a start, and a range filter as polars has it
    assert _duckdb(folder, f"SELECT count(*) FROM facts WHERE {by} IS NULL").fetchall() == [(wanted.null_count(),)]
    middle = wanted.drop_nulls().sort()[wanted.drop_nulls().len() // 2]
    literal = f"'{middle}'" if by != "year" else str(middle)
    [(count,)] = _duckdb(folder, f"SELECT count(*) FROM facts WHERE {by} >= {literal}").fetchall()
    assert count == (wanted >= middle).sum() > 0


def test_duckdb_reads_an_export_of_nothing(kg: KnowledgeGraph, tmp_path: Path) -> None:
    assert io.export_partitioned(kg, tmp_path / "none", by="month") == 0
    read = _duckdb(tmp_path / "none")
    assert read.columns == [*frames.FACTS_SCHEMA, "month"] and read.fetchall() == []


# ---------------------------------------------------------------------- the command


def test_export_partition_by_command(db_path: Path | str, tmp_path: Path) -> None:
    db = ("--db", db_path)
    ok(*db, "add", "api", "uses", "Redis", "--from", "2024-03-02")
    ok(*db, "add", "api", "owned_by", "Platform")
    assert ok_json(*db, "--json", "export", tmp_path / "out", "--partition-by", "month") == {
        "path": str(tmp_path / "out"),
        "rows": 2,
    }
    back = pl.scan_parquet(tmp_path / "out", hive_partitioning=True).collect().sort("id")
    assert back.select("object_name", "month").rows() == [("Redis", "2024-03"), ("Platform", None)]
    assert "2 rows written" in ok(*db, "export", tmp_path / "years", "--partition-by", "year", "--format", "parquet")
    assert "not empty" in fails(*db, "export", tmp_path / "out", "--partition-by", "month", code="invalid_request")
    assert "year, month or day" in fails(
        *db, "export", tmp_path / "w", "--partition-by", "week", code="invalid_request"
    )
    assert "--format parquet" in fails(
        *db, "export", tmp_path / "c", "--partition-by", "month", "--format", "csv", code="invalid_request"
    )
    assert not (tmp_path / "w").exists() and not (tmp_path / "c").exists()

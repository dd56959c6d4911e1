"""The synthetic graph generator: deterministic, exact sizes, skewed, with histories, and valid input."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import InvalidRequest
from kgtoolkit.generate import COLUMNS, ENTITY_TYPES, PREDICATES, add_generated, generate, write_generated
from kgtoolkit.store import import_facts

SIZE = 20_000
MULTI_VALUED = ("depends_on", "member_of")
VALUES = ("email", "role")


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return generate(SIZE, seed=7)


# ---------------------------------------------------------------------- determinism and size


def test_same_seed_same_frame(frame: pl.DataFrame) -> None:
    assert generate(SIZE, seed=7).equals(frame)
    assert generate(SIZE).equals(frame)  # 7 is the default


def test_other_seed_other_frame(frame: pl.DataFrame) -> None:
    other = generate(SIZE, seed=8)
    assert other.height == SIZE
    assert not other.equals(frame)


def test_fingerprint_is_stable() -> None:
    """The same frame on any machine: a change here means a seed no longer reproduces old graphs.

    Update the digest only when changing the generator on purpose (and say so in the changelog).
    """
    text = generate(500, seed=11).write_csv()
    assert hashlib.sha256(text.encode()).hexdigest() == FINGERPRINT


FINGERPRINT = "a6dbc8dcf1b2b06f7a7aa09f4e1a54630704dce8bd8d09b2de2279ab71ba10ed"


@pytest.mark.parametrize("facts", [0, 1, 2, 7, 100, 1_234, 5_000])
def test_exact_size_and_columns(facts: int) -> None:
    result = generate(facts, seed=3)
    assert result.height == facts
    assert result.columns == list(COLUMNS)
    assert all(dtype == pl.String for dtype in result.dtypes)


def test_start_and_days_bound_the_dates() -> None:
    result = generate(3_000, seed=5, start="2020-02-01", days=100)
    dates = pl.concat([result["valid_from"], result["valid_to"]]).drop_nulls()
    assert dates.min() >= "2020-02-01"
    assert dates.max() <= "2020-05-10"  # 100 days: 2020-02-01 … 2020-05-10


@pytest.mark.parametrize(
    "kwargs",
    [
        {"facts": -1},
        {"facts": 10, "seed": -3},
        {"facts": 10, "days": 0},
        {"facts": 10, "start": "2024-13-01"},
        {"facts": 10, "start": "9999-12-01"},
    ],
)
def test_bad_arguments_are_errors(kwargs: dict) -> None:
    with pytest.raises(InvalidRequest):
        generate(**kwargs)


# ---------------------------------------------------------------------- shape of the graph


def test_degrees_are_skewed(frame: pl.DataFrame) -> None:
    """A few hubs hold a large share of the facts; most entities are leaves."""
    endpoints = pl.concat([frame["subject"], frame.filter(~pl.col("predicate").is_in(VALUES))["object"]])
    degrees = endpoints.value_counts(sort=True)["count"]
    top = degrees.head(max(1, len(degrees) // 100)).sum()
    assert top / degrees.sum() > 0.15  # top 1% of entities: over 15% of the endpoints (uniform would be ~1%)
    assert degrees.max() > 50 * degrees.median()


def test_kinds_and_predicates(frame: pl.DataFrame) -> None:
    assert set(frame["predicate"].unique()) == set(PREDICATES)
    values = frame.filter(pl.col("predicate") == "email")["object"]
    assert values.str.contains("@").all()
    assert frame["valid_from"].null_count() > 0  # some starts are unknown
    assert frame["valid_to"].null_count() > SIZE // 3  # plenty is current...
    assert frame["valid_to"].null_count() < SIZE - SIZE // 5  # ... and plenty is history


def test_switches_end_and_start_the_same_day(frame: pl.DataFrame) -> None:
    ended = frame.filter(pl.col("valid_to").is_not_null())
    started = frame.filter(pl.col("valid_from").is_not_null())
    switches = ended.join(
        started,
        left_on=["subject", "predicate", "valid_to"],
        right_on=["subject", "predicate", "valid_from"],
        suffix="_new",
    )
    switches = switches.filter(pl.col("object") != pl.col("object_new"))
    assert switches.height > SIZE // 10
    for kind in ("uses_database", "member_of", "reports_to", "role"):  # migrations, team changes, promotions
        assert switches.filter(pl.col("predicate") == kind).height > 10, kind


def test_reorgs_move_many_on_one_day(frame: pl.DataFrame) -> None:
    moves = frame.filter(pl.col("predicate").is_in(["owned_by", "reports_to"]), pl.col("valid_to").is_not_null())
    per_day = moves["valid_to"].value_counts(sort=True)["count"]
    assert per_day[0] > 20 * per_day.median()


def test_conflicts_present(frame: pl.DataFrame) -> None:
    current = frame.filter(pl.col("valid_to").is_null(), ~pl.col("predicate").is_in(MULTI_VALUED))
    doubled = current.group_by("subject", "predicate").agg(pl.col("object").n_unique().alias("objects"))
    conflicts = doubled.filter(pl.col("objects") > 1).height
    assert 0 < conflicts < SIZE // 50  # a small share


def test_rows_are_valid_input(frame: pl.DataFrame) -> None:
    """What import_facts would refuse or merge never appears: commas, ends before starts, duplicates."""
    assert not frame["subject"].str.contains(",").any()
    assert not frame["object"].str.contains(",").any()
    dated = frame.drop_nulls(["valid_from", "valid_to"])
    assert (dated["valid_to"] >= dated["valid_from"]).all()
    key = [
        pl.col("subject").map_elements(kgtoolkit.normalize_name, return_dtype=pl.String),
        "predicate",
        pl.when(pl.col("predicate").is_in(VALUES))
        .then(pl.col("object").str.to_lowercase())
        .otherwise(pl.col("object").map_elements(kgtoolkit.normalize_name, return_dtype=pl.String)),
    ]
    current = frame.filter(pl.col("valid_to").is_null()).select(key)
    assert not current.is_duplicated().any()
    assert not frame.filter(pl.col("valid_to").is_not_null()).is_duplicated().any()
    assert not (frame["subject"] == frame["object"]).any()


# ---------------------------------------------------------------------- into a graph


def test_imports_with_zero_rejects(frame: pl.DataFrame, kg: kgtoolkit.KnowledgeGraph) -> None:
    report, rejects = import_facts(kg, frame)
    assert rejects.height == 0
    assert (report.rows, report.inserted, report.duplicates, report.rejected) == (SIZE, SIZE, 0, 0)
    names = pl.concat([frame["subject"], frame.filter(~pl.col("predicate").is_in(VALUES))["object"]]).n_unique()
    assert report.entities_created == names  # no two generated names normalise to one id
    stats = kg.stats()
    assert stats.facts == SIZE
    assert stats.current == frame["valid_to"].null_count()
    again, _ = import_facts(kg, frame)
    assert (again.inserted, again.duplicates) == (0, SIZE)


def test_graph_finds_conflicts_needing_action(frame: pl.DataFrame, kg: kgtoolkit.KnowledgeGraph) -> None:
    import_facts(kg, frame)
    groups = kg.conflicts()
    flagged = [g for g in groups if g.needs_action]
    assert flagged
    assert len(groups) > len(flagged)  # closed-out switches are listed too, not flagged
    assert all(g.current > 1 for g in flagged)
    assert not {g.predicate for g in groups} & set(MULTI_VALUED)


def test_types_column_imports_into_an_extended_vocabulary(kg: kgtoolkit.KnowledgeGraph) -> None:
    typed = generate(2_000, seed=4, types=True)
    assert set(typed["subject_type"].drop_nulls()) <= set(ENTITY_TYPES)
    kg.configure(types=kg.config.types | set(ENTITY_TYPES))
    report, _ = import_facts(kg, typed)
    assert report.inserted == 2_000 and not report.warnings
    assert set(kg.stats().entities_by_type) == set(ENTITY_TYPES)


def test_add_generated_adds_typed_entities_once(kg: kgtoolkit.KnowledgeGraph) -> None:
    """The library call behind `kgtoolkit generate --out graph.sqlite3`: the same graph as importing the frame."""
    report = add_generated(kg, 1_500, seed=4)
    assert report.inserted == 1_500 == kg.stats().facts and not report.warnings
    assert set(ENTITY_TYPES) <= kg.config.types and set(kg.stats().entities_by_type) == set(ENTITY_TYPES)
    frame = generate(1_500, seed=4, types=True)
    stored = Counter((f.subject_name, f.predicate, f.object_name, f.valid_from, f.valid_to) for f in kg.timeline())
    assert stored == Counter(frame.select("subject", "predicate", "object", "valid_from", "valid_to").rows())
    assert add_generated(kg, 1_500, seed=4).inserted == 0  # the same seed again changes nothing
    assert kg.stats().facts == 1_500


@pytest.mark.parametrize("kwargs", [{"facts": True}, {"facts": 10, "seed": -1}, {"facts": 10, "days": 0}])
def test_add_generated_checks_its_arguments_before_touching_the_graph(
    kg: kgtoolkit.KnowledgeGraph, kwargs: dict
) -> None:
    before = kg.config
    with pytest.raises(InvalidRequest):
        add_generated(kg, **kwargs)
    assert kg.config == before and kg.stats().facts == 0


# ---------------------------------------------------------------------- files


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".parquet", ".jsonl"])
def test_write_generated_by_suffix(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"facts{suffix}"
    assert write_generated(path, 1_000, seed=9) == 1_000
    expected = generate(1_000, seed=9)
    if suffix == ".parquet":
        back = pl.read_parquet(path)
    elif suffix == ".jsonl":
        back = pl.read_ndjson(path, schema=dict.fromkeys(COLUMNS, pl.String))
    else:
        back = pl.read_csv(path, separator="\t" if suffix == ".tsv" else ",", infer_schema=False)
    assert back.equals(expected)


def test_write_generated_refuses_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match=r"\.tsv, \.csv"):
        write_generated(tmp_path / "facts.xlsx", 10)
    assert not (tmp_path / "facts.xlsx").exists()


def test_the_demo_graph_goes_to_any_graph_name(db_path: Path | str, tmp_path: Path) -> None:
    """build_demo takes a graph name as every door does: a file, or an empty PostgreSQL database (a URL read as a
    path once wrote an SQLite file into a folder named 'postgresql:'); a graph is never built over another."""
    from kgtoolkit._demo import build_demo

    with build_demo(db_path) as kg:
        assert kg.location == kgtoolkit.store.resolve(db_path) and kg.stats().facts > 40
        facts = kg.stats().facts
    assert not (tmp_path / "postgresql:").exists() and not Path("postgresql:").exists()
    if str(db_path).startswith("postgresql"):
        with pytest.raises(InvalidRequest, match="already holds a graph"):
            build_demo(db_path, force=True)  # a shared graph is never replaced, force or not
    else:
        with pytest.raises(InvalidRequest, match="exists; pass --force"):
            build_demo(db_path)
        build_demo(db_path, force=True).close()
    with kgtoolkit.open(db_path) as kg:
        assert kg.stats().facts == facts


def test_a_generated_graph_goes_to_any_graph_name(db_path: Path | str, tmp_path: Path) -> None:
    """build_generated (behind `kgtoolkit generate --out`) takes a graph name as build_demo does: a file, replaced
    only with force, or an empty PostgreSQL database; a graph holding facts is refused and left as it was."""
    from kgtoolkit.generate import build_generated

    with build_generated(db_path, 800, seed=6) as kg:
        assert kg.location == kgtoolkit.store.resolve(db_path)
        assert kg.stats().facts == 800 and set(kg.stats().entities_by_type) == set(ENTITY_TYPES)
        stored = Counter((f.subject_name, f.predicate, f.object_name, f.valid_from, f.valid_to) for f in kg.timeline())
    frame = generate(800, seed=6)
    assert stored == Counter(frame.select("subject", "predicate", "object", "valid_from", "valid_to").rows())
    assert not (tmp_path / "postgresql:").exists() and not Path("postgresql:").exists()
    with pytest.raises(InvalidRequest, match="seed"):
        build_generated(db_path, 10, seed=-1, force=True)  # checked before anything is replaced
    if str(db_path).startswith("postgresql"):
        with pytest.raises(InvalidRequest, match="already holds a graph") as refused:
            build_generated(db_path, 50, force=True)  # a shared graph is never replaced, force or not
        assert refused.value.code == "invalid_request" and refused.value.data["field"] == "out"
    else:
        with pytest.raises(InvalidRequest, match="exists; pass --force"):
            build_generated(db_path, 50)
    with kgtoolkit.open(db_path) as kg:
        assert kg.stats().facts == 800
    if not str(db_path).startswith("postgresql"):
        build_generated(db_path, 50, seed=1, force=True).close()  # a file is replaced whole
        with kgtoolkit.open(db_path) as kg:
            assert kg.stats().facts == 50

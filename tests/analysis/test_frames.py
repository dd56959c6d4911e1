"""The dataframe loaders agree with the store's own reads, on file and in-memory graphs."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph, frames

UTC = dt.UTC


def _story(kg: KnowledgeGraph) -> None:
    kg.configure(types=kg.config.types | {"service"})
    kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02", subject_type="service")
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    kg.add("Alice", "email", "Alice@Example.com", subject_type="person")
    kg.add("Alice", "works_at", "Acme", valid_from="2025-01-01T09:30:00+01:00", object_type="company")
    kg.add("billing", "uses_queue", "Redis")
    kg.alias("the api", "my_api")
    kg.remember("we moved to SQLite", source="changelog", metadata={"ticket": 7})


@pytest.fixture(params=["file", "memory"])
def graph(request: pytest.FixtureRequest, db_path: Path) -> KnowledgeGraph:
    kg = kgtoolkit.open(db_path if request.param == "file" else ":memory:")
    _story(kg)
    yield kg
    kg.close()


def _as_rows(facts: list[kgtoolkit.Fact]) -> set[tuple]:
    return {
        (
            f.id,
            f.subject,
            f.subject_name,
            f.predicate,
            f.object,
            f.object_name,
            f.object_is_value,
            f.valid_from,
            f.valid_to,
            f.current,
            f.source,
            f.ended_by,
        )
        for f in facts
    }


def _frame_rows(frame: pl.DataFrame) -> set[tuple]:
    return set(
        frame.select(
            "id",
            "subject",
            "subject_name",
            "predicate",
            "object",
            "object_name",
            "object_is_value",
            "valid_from",
            "valid_to",
            "current",
            "source",
            "ended_by",
        ).rows()
    )


def test_facts_frame_matches_the_store(graph: KnowledgeGraph) -> None:
    frame = frames.facts(graph)
    assert frame.schema == pl.Schema(frames.FACTS_SCHEMA)
    assert _frame_rows(frame) == _as_rows(graph.timeline())
    redis = frame.filter((pl.col("subject") == "my_api") & (pl.col("object") == "redis")).row(0, named=True)
    assert redis["start"] == dt.datetime(2026, 3, 2, tzinfo=UTC)
    assert redis["end"] == dt.datetime(2026, 10, 12, 23, 59, 59, 999999, tzinfo=UTC)  # date ends are whole days
    assert redis["subject_type"] == "service" and redis["object_type"] == "unknown"
    works = frame.filter(pl.col("predicate") == "works_at").row(0, named=True)
    assert works["start"] == dt.datetime(2025, 1, 1, 8, 30, tzinfo=UTC) and works["end"] is None
    email = frame.filter(pl.col("predicate") == "email").row(0, named=True)
    assert email["object_is_value"] and email["object_type"] is None and email["object_name"] == "Alice@Example.com"


@pytest.mark.parametrize("as_of", ["2026-10-12", "2026-10-13", "2026-03-01", "2026-06-01T12:00:00Z"])
def test_as_of_is_the_same_as_query(graph: KnowledgeGraph, as_of: str) -> None:
    frame = frames.facts(graph, as_of=as_of, entity="my_api")
    assert _frame_rows(frame) == _as_rows(graph.query("my_api", as_of=as_of))


@pytest.mark.parametrize("direction", ["both", "outgoing", "incoming"])
def test_around_is_the_same_as_query(graph: KnowledgeGraph, direction: str) -> None:
    graph.add("Loop", "related_to", "Loop")  # a fact from an entity to itself: outgoing, once
    every = frames.facts(graph)
    for entity in ("my_api", "redis", "alice", "acme", "loop"):
        asked = graph.query(entity, direction=direction)  # type: ignore[arg-type]
        around = frames.around(every, entity, direction=direction)  # type: ignore[arg-type]
        assert around.select("id", "direction").rows() == [(f.id, f.direction) for f in asked]
        assert _frame_rows(around) == _as_rows(asked)


def test_around_counts_a_fact_to_itself_once_and_never_a_value() -> None:
    kg = kgtoolkit.open(":memory:")
    loop = kg.add("Loop", "related_to", "Loop").fact.id
    kg.add("Loop", "email", "loop")  # a value spelled like the entity's id: not an incoming fact
    every = frames.facts(kg)
    assert frames.around(every, "loop").select("id", "direction").rows()[0] == (loop, "outgoing")
    assert frames.around(every, "loop")["direction"].to_list() == [f.direction for f in kg.query("loop")]
    assert (
        frames.around(every, "loop", direction="incoming")["id"].to_list()
        == [f.id for f in kg.query("loop", direction="incoming")]
        == [loop]
    )
    with pytest.raises(kgtoolkit.InvalidRequest):
        frames.around(every, "loop", direction="sideways")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "when",
    [{}, {"as_of": "2026-06-01"}, {"current_only": True}, {"known_at": "2020-01-01"}, {"predicate": "uses_queue"}],
)
def test_an_entity_frame_is_the_whole_frame_filtered(graph: KnowledgeGraph, when: dict[str, object]) -> None:
    """An ``entity`` read looks up the names of its facts' entities alone: the rows, names and types are the whole
    read's rows of that entity (subject, or entity object: a value spelled like its id is not it)."""
    graph.add("Loop", "related_to", "Loop")
    graph.add("Loop", "email", "redis")
    whole = frames.facts(graph, **when)  # type: ignore[arg-type]
    for entity in ("my_api", "redis", "alice", "acme", "loop"):
        mine = (pl.col("subject") == entity) | ((pl.col("object") == entity) & ~pl.col("object_is_value"))
        assert frames.facts(graph, entity=entity, **when).equals(whole.filter(mine))  # type: ignore[arg-type]


def test_filters_push_down(graph: KnowledgeGraph) -> None:
    assert set(frames.facts(graph, predicate="Uses Queue")["subject"]) == {"my_api", "billing"}
    assert set(frames.facts(graph, entity="redis")["subject"]) == {"my_api", "billing"}
    assert set(frames.facts(graph, entity="the api")["object"]) == {"redis", "sqlite"}  # aliases resolve
    assert frames.facts(graph, current_only=True)["current"].all()
    with pytest.raises(kgtoolkit.NotFound):
        frames.facts(graph, entity="nobody")


def test_known_at_blanks_ends_recorded_later(db_path: Path) -> None:
    kg = kgtoolkit.open(db_path)
    kg.add("a", "uses", "b", valid_from="2020")
    before = kg.fact(1).recorded_at
    kg.invalidate("a", "uses", "b", ended="2021")
    then = frames.facts(kg, known_at=before)
    assert then.select("valid_to", "current", "end", "invalidated_at").row(0) == (None, True, None, None)
    now = frames.facts(kg)
    assert now.row(0, named=True)["valid_to"] == "2021-12-31"
    assert frames.facts(kg, known_at="1999-01-01").height == 0
    kg.close()


def test_empty_graph_has_the_full_schema(db_path: Path) -> None:
    kg = kgtoolkit.open(db_path, create=True)
    for loader, schema in (
        (frames.facts, frames.FACTS_SCHEMA),
        (frames.entities, frames.ENTITIES_SCHEMA),
        (frames.aliases, frames.ALIASES_SCHEMA),
        (frames.memories, frames.MEMORIES_SCHEMA),
    ):
        frame = loader(kg)
        assert frame.height == 0 and frame.schema == pl.Schema(schema)
    kg.close()


def test_entities_aliases_memories(graph: KnowledgeGraph) -> None:
    entities = frames.entities(graph)
    assert set(entities["id"]) == {e.id for e in graph.entities()}
    assert entities.filter(pl.col("id") == "my_api")["aliases"].to_list() == [["the_api"]]
    assert frames.entities(graph, type="person")["id"].to_list() == ["alice"]
    assert frames.aliases(graph).rows() == [("the_api", "the api", "my_api")]
    memories = frames.memories(graph)
    assert memories["text"].to_list() == ["we moved to SQLite"]
    assert pl.Series(memories["metadata"]).str.json_decode().to_list() == [{"ticket": 7}]


def test_pandas_backend_has_the_same_data(graph: KnowledgeGraph) -> None:
    polars_frame = frames.facts(graph)
    pandas_frame = frames.facts(graph, backend="pandas")
    assert list(pandas_frame.columns) == polars_frame.columns
    assert sorted(pandas_frame["id"].tolist()) == sorted(polars_frame["id"].to_list())
    assert str(pandas_frame["start"].dtype).startswith("datetime64")
    with pytest.raises(kgtoolkit.InvalidRequest):
        frames.facts(graph, backend="spark")  # type: ignore[arg-type]


def test_to_store_round_trips_a_facts_frame(graph: KnowledgeGraph, tmp_path: Path) -> None:
    copy = kgtoolkit.open(tmp_path / "copy.sqlite3")
    copy.configure(types=graph.config.types)
    report = frames.to_store(copy, frames.facts(graph))
    assert report.inserted == graph.stats().facts and report.rejected == 0
    key = ["subject", "predicate", "object", "valid_from", "valid_to", "subject_type", "object_type"]
    assert frames.facts(copy).select(key).sort(key).equals(frames.facts(graph).select(key).sort(key))
    assert frames.to_store(copy, frames.facts(graph)).inserted == 0  # twice changes nothing
    copy.close()


def test_to_store_takes_pandas_and_refuses_bad_rows_whole(kg: KnowledgeGraph) -> None:
    import pandas as pd

    good = pd.DataFrame({"subject": ["a"], "predicate": ["uses"], "object": ["b"]})
    assert frames.to_store(kg, good).inserted == 1
    bad = pd.DataFrame(
        {"subject": ["c", "d"], "predicate": ["uses", "uses"], "object": ["e", "f"], "valid_from": ["2020", "19##"]}
    )
    with pytest.raises(kgtoolkit.InvalidRows) as err:
        frames.to_store(kg, bad)
    assert err.value.data["rows"] == [
        {
            "line": 2,
            "field": "valid_from",
            "value": "19##",
            "code": "invalid_date",
            "reason": err.value.data["rows"][0]["reason"],
        }
    ]
    assert kg.stats().facts == 1  # nothing of the bad frame was written
    assert frames.to_store(kg, bad, on_error="skip").inserted == 1

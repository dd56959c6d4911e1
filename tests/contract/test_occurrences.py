"""Repeated events are kept and counted (contract §12 "Recording occurrences", §9).

An event that happened twice on the same day is two facts, told apart by their ``occurrence`` (1, 2, …), which is
part of the event's identity: ``add`` names the occurrence it writes, an import numbers an event's repeated rows in
file order (so a re-import finds them all and adds nothing), every event measure counts each occurrence, and the
dump, the exports, ``merge`` and ``rename_predicate`` keep them apart. State facts are unchanged: their duplicates
fold into one fact. On both engines; a slice of ICEWS14 with repeats when the shared data folder is present.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from shared_data import DATA
from typer.testing import CliRunner

import kgtoolkit
from conftest import run_sql, undo_steps
from kgtoolkit import KnowledgeGraph, analysis, frames, io, mcp_server
from kgtoolkit.cli import app
from kgtoolkit.search import find
from kgtoolkit.store import copy_graph, dump, import_facts, restore
from kgtoolkit.store.engine._schema import MIGRATIONS

ICEWS14 = DATA / "icews14" / "facts.tsv"
DAY = "2014-01-02"


def _file(tmp_path: Path, rows: list[tuple[str, ...]], header: tuple[str, ...] | None = None) -> Path:
    path = tmp_path / "events.tsv"
    head = header or ("subject", "predicate", "object", "valid_from", "valid_to")
    path.write_text("\n".join("\t".join(r) for r in [head, *rows]) + "\n", encoding="utf-8")
    return path


def _facts(kg: KnowledgeGraph) -> list[tuple[object, ...]]:
    return (
        frames.facts(kg)  # type: ignore[union-attr]
        .select("id", "subject", "predicate", "object", "valid_from", "valid_to", "kind", "occurrence")
        .sort("id")
        .rows()
    )


# The same event twice on one day, one on another day, and a state row twice (which folds into one fact).
ROWS = [
    ("Police", "Arrest", "Protesters", DAY, DAY),
    ("police", "arrest", "protesters", DAY, DAY),
    ("Police", "Arrest", "Protesters", "2014-01-03", "2014-01-03"),
    ("Police", "guards", "Parliament", "2014-01-01", "2014-06-30"),
    ("Police", "guards", "Parliament", "2014-01-01", "2014-06-30"),
]


def test_an_import_keeps_every_occurrence_and_a_reimport_adds_nothing(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = _file(tmp_path, ROWS)
    report = io.import_file(kg, path)
    assert (report.rows, report.inserted, report.duplicates) == (5, 4, 1)
    stored = _facts(kg)
    assert [(r[4], r[6], r[7]) for r in stored] == [
        (DAY, "event", 1),
        (DAY, "event", 2),
        ("2014-01-03", "event", 1),
        ("2014-01-01", "state", 1),
    ]
    again = io.import_file(kg, path)
    assert (again.inserted, again.duplicates) == (0, 5)
    assert _facts(kg) == stored  # the same facts, the same ids


def test_every_event_measure_counts_each_occurrence(kg: KnowledgeGraph, tmp_path: Path) -> None:
    io.import_file(kg, _file(tmp_path, ROWS))
    stats = kg.stats()
    assert (stats.facts, stats.events, stats.ended) == (4, 3, 1)
    frame = frames.facts(kg)
    for source in (kg, frame):  # the engine and the frame agree
        daily = analysis.events(source, every="1d").filter(pl.col("events") > 0)  # type: ignore[arg-type]
        assert daily["events"].to_list() == [2, 1]
        churn = analysis.churn(source, every="1mo")  # type: ignore[arg-type]
        assert churn["events"].to_list()[0] == 3 and int(churn["events"].sum()) == 3
        edges = analysis.event_graph(source)  # type: ignore[arg-type]
        assert edges["events"].to_list() == [3]
        volatile = analysis.most_volatile(source, by="predicate")  # type: ignore[arg-type]
        assert dict(volatile.select("predicate", "events").rows())["arrest"] == 3
    on_day = kg.diff(DAY, DAY)
    assert on_day.occurred == 2 and [c.new.occurrence for c in on_day.changes if c.new] == [1, 2]
    assert [f.occurrence for f in kg.timeline(since=DAY, until=DAY) if f.kind == "event"] == [1, 2]
    hits = find(kg, "police arrest protesters", mode="lexical", kind="facts")
    assert hits.hits[0].count == 3  # one hit per triple, counting every occurrence


def test_batches_give_the_answer_of_one_frame(new_db: Callable[[str], Path | str]) -> None:
    rows = [("a", "hit", "b", DAY, DAY)] * 3 + [("a", "hit", "c", DAY, DAY)] + [("a", "hit", "b", DAY, DAY)] * 2
    frame = pl.DataFrame(rows, schema=["subject", "predicate", "object", "valid_from", "valid_to"], orient="row")
    answers = []
    for name, given in (("one", frame), ("batches", [frame[:2], frame[2:4], frame[4:]])):
        with kgtoolkit.open(new_db(name)) as kg:
            report, _ = import_facts(kg, given if isinstance(given, pl.DataFrame) else iter(given))
            assert report.inserted == 6
            again, _ = import_facts(kg, iter([frame[:3], frame[3:]]))
            assert again.inserted == 0
            answers.append(_facts(kg))
    assert answers[0] == answers[1]
    assert [r[3] for r in answers[0]] == ["b", "b", "b", "c", "b", "b"]
    assert [r[7] for r in answers[0]] == [1, 2, 3, 1, 4, 5]


def test_a_file_may_say_which_occurrence_a_row_is(kg: KnowledgeGraph, tmp_path: Path) -> None:
    header = ("subject", "predicate", "object", "valid_from", "valid_to", "occurrence")
    good = _file(tmp_path, [("a", "hit", "b", DAY, DAY, "3"), ("a", "hit", "b", DAY, DAY, "")], header)
    assert io.import_file(kg, good).inserted == 2
    assert [r[7] for r in _facts(kg)] == [3, 1]  # a blank cell is numbered in file order
    bad = _file(
        tmp_path,
        [
            ("a", "hit", "c", DAY, DAY, "0"),
            ("a", "hit", "c", DAY, DAY, "two"),
            ("a", "guards", "c", "2014-01-01", "2014-02-01", "2"),  # a state occurs once
            ("a", "guards", "d", "2014-01-01", "", "2"),  # an open fact too
        ],
        header,
    )
    before = _facts(kg)
    with pytest.raises(kgtoolkit.InvalidRows) as refused:
        io.import_file(kg, bad)
    assert [(p["line"], p["field"], p["code"]) for p in refused.value.data["rows"]] == [
        (2, "occurrence", "invalid_request"),
        (3, "occurrence", "invalid_request"),
        (4, "occurrence", "invalid_request"),
        (5, "occurrence", "invalid_request"),
    ]
    assert _facts(kg) == before


def test_add_names_the_occurrence_it_writes(kg: KnowledgeGraph) -> None:
    first = kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
    same = kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
    second = kg.add("A", "hit", "B", valid_from=DAY, valid_to=DAY, occurrence=2)
    again = kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=2)
    assert (first.created, same.created, second.created, again.created) == (True, False, True, False)
    assert same.fact.id == first.fact.id and again.fact.id == second.fact.id != first.fact.id
    assert (first.fact.occurrence, second.fact.occurrence) == (1, 2) and second.fact.to_dict()["occurrence"] == 2
    assert kg.stats().events == 2
    kg.configure(event_predicates=["met"])  # a declared event given its day ends on it: a repeat too
    assert kg.add("a", "met", "c", valid_from=DAY, occurrence=2).fact.valid_to == DAY
    before = _facts(kg)
    for bad in (0, -1, True, "2", 1.5):
        with pytest.raises(kgtoolkit.InvalidRequest) as exc:
            kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=bad)  # type: ignore[arg-type]
        assert exc.value.data["field"] == "occurrence"
    for start, end in (("2014-01-01", "2014-02-01"), ("2014-01-01", None), (None, None)):  # states, open facts
        with pytest.raises(kgtoolkit.InvalidRequest, match="occurs once"):
            kg.add("a", "works_at", "b", valid_from=start, valid_to=end, occurrence=2)
    assert _facts(kg) == before


def test_every_door_takes_the_occurrence(db_path: Path | str) -> None:
    runner = CliRunner()
    base = ["add", "a", "hit", "b", "--from", DAY, "--to", DAY, "--db", str(db_path), "--json"]
    made = runner.invoke(app, [*base, "--occurrence", "2"])
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["fact"]["occurrence"] == 2 and json.loads(made.output)["created"]
    refused = runner.invoke(app, ["add", "a", "works_at", "b", "--occurrence", "2", "--db", str(db_path)])
    assert refused.exit_code == 1 and "occurs once" in refused.output
    with kgtoolkit.open(db_path) as kg:
        request = {"action": "add", "subject": "a", "predicate": "hit", "object": "b"}
        request |= {"valid_from": DAY, "valid_to": DAY, "occurrence": 2}
        answer = kgtoolkit.run_tool(request, kg=kg)
        assert answer["ok"] and answer["result"]["created"] is False and answer["result"]["fact"]["occurrence"] == 2
        third = kgtoolkit.run_tool({**request, "occurrence": 3}, kg=kg)
        assert third["ok"] and third["result"]["created"] and third["result"]["fact"]["occurrence"] == 3
        bad = kgtoolkit.run_tool({**request, "occurrence": 0}, kg=kg)
        assert not bad["ok"] and bad["error"]["field"] == "occurrence"
        assert kgtoolkit.TOOL_SCHEMA["input_schema"]["properties"]["occurrence"]["type"] == "integer"
        assert "occurrence" in mcp_server.tool_specs()["kg_add"]["inputSchema"]["properties"]
        assert kg.stats().events == 2


def test_the_dump_carries_occurrences_and_restore_checks_them(
    kg: KnowledgeGraph, new_db: Callable[[str], Path | str]
) -> None:
    kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
    kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=2)
    kg.add("a", "works_at", "c", valid_from="2014-01-01")
    data = dump(kg)
    assert [f["occurrence"] for f in data["facts"]] == [1, 2, 1]
    with kgtoolkit.open(new_db("copy")) as twin:
        restore(twin, data)
        assert dump(twin) == data and _facts(twin) == _facts(kg)
    older = json.loads(json.dumps(data))  # a dump from before occurrences: every fact the first
    for fact in older["facts"]:
        fact.pop("occurrence")
    older["facts"] = older["facts"][:1] + older["facts"][2:]
    with kgtoolkit.open(new_db("older")) as twin:
        restore(twin, older)
        assert [f.occurrence for f in twin.timeline()] == [1, 1]
    for value, why in ((0, "whole number"), ("2", "whole number"), (True, "whole number")):
        bad = json.loads(json.dumps(data))
        bad["facts"][1]["occurrence"] = value
        with kgtoolkit.open(new_db("bad")) as twin, pytest.raises(kgtoolkit.InvalidRows, match=why):
            restore(twin, bad)
    bad = json.loads(json.dumps(data))
    bad["facts"][2]["occurrence"] = 2  # the open works_at fact: one occurrence
    with kgtoolkit.open(new_db("open")) as twin, pytest.raises(kgtoolkit.InvalidRows, match="without valid_to"):
        restore(twin, bad)
    # Merged into a graph that is not empty: by the add rules, each occurrence kept once.
    with kgtoolkit.open(new_db("merged")) as other:
        other.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
        report = copy_graph(kg, other, merge=True)
        assert report.facts == 2
        assert sorted(f.occurrence for f in other.query("a") if f.predicate == "hit") == [1, 2]


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl", "parquet"])
def test_an_export_imports_back_with_its_occurrences(kg: KnowledgeGraph, tmp_path: Path, suffix: str) -> None:
    kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
    kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=2)
    kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=5)
    path = tmp_path / f"facts.{suffix}"
    io.export_file(kg, path)
    assert io.import_file(kg, path).inserted == 0  # into itself: every occurrence is there
    with kgtoolkit.open(tmp_path / "back.sqlite3") as back:
        assert io.import_file(back, path).inserted == 3
        assert [f.occurrence for f in back.timeline()] == [1, 2, 5]


def test_merge_and_rename_keep_occurrences_apart(kg: KnowledgeGraph) -> None:
    kg.add("police", "arrest", "protesters", valid_from=DAY, valid_to=DAY)
    kg.add("police", "arrest", "protesters", valid_from=DAY, valid_to=DAY, occurrence=2)
    kg.add("cops", "arrest", "protesters", valid_from=DAY, valid_to=DAY)  # the same event as police's first
    merged = kg.merge("cops", "police")
    assert merged.deduplicated == 1
    assert sorted(f.occurrence for f in kg.query("police")) == [1, 2]
    kg.add("police", "detain", "protesters", valid_from=DAY, valid_to=DAY)
    kg.add("police", "detain", "protesters", valid_from=DAY, valid_to=DAY, occurrence=2)
    kg.add("police", "detain", "protesters", valid_from=DAY, valid_to=DAY, occurrence=3)
    renamed = kg.rename_predicate("detain", "arrest")
    assert renamed.deduplicated == 2  # occurrences 1 and 2 are arrest's already; the third is new
    assert sorted(f.occurrence for f in kg.query("police")) == [1, 2, 3]
    assert kg.stats().events == 3


def test_a_graph_of_the_schema_before_gets_the_column_in_place(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY)
        kg.add("a", "works_at", "c", valid_from="2014-01-01")
    postgres = str(db_path).startswith("postgresql://")
    kind = "postgresql" if postgres else "sqlite"
    previous = next(i for i, step in enumerate(MIGRATIONS[kind]) if any("occurrence" in s for s in step))
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, kind), version)
    with kgtoolkit.open(db_path) as kg:
        assert [f.occurrence for f in kg.timeline()] == [1, 1]
        assert kg.add("a", "hit", "b", valid_from=DAY, valid_to=DAY, occurrence=2).created
        assert kg.stats().events == 2


@pytest.mark.slow
def test_a_slice_of_icews14_with_repeats_keeps_every_row(kg: KnowledgeGraph, tmp_path: Path) -> None:
    if not ICEWS14.is_file():
        pytest.skip(f"ICEWS14 not found at {ICEWS14} (the shared data folder is absent)")
    rows = pl.read_csv(ICEWS14, separator="\t", quote_char=None, infer_schema=False, n_rows=3_000)
    # A news feed reports some events more than once: the slice's first 500 rows come again, some of them twice.
    sliced = pl.concat([rows, rows.head(500), rows.head(100)])
    path = tmp_path / "icews-slice.tsv"
    sliced.write_csv(path, separator="\t", quote_style="never")
    report = io.import_file(kg, path, allow_commas=True)
    stats = kg.stats()
    assert report.inserted == stats.facts == stats.events == sliced.height
    assert int(analysis.churn(kg, every="1mo")["events"].sum()) == sliced.height
    ids = frames.facts(kg)["id"].to_list()  # type: ignore[index]
    again = io.import_file(kg, path, allow_commas=True)
    assert again.inserted == 0 and kg.stats().facts == sliced.height
    assert frames.facts(kg)["id"].to_list() == ids  # type: ignore[index]

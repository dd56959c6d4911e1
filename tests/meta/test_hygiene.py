"""Text hygiene at every door (contract §2, issue 44): what a terminal is shown is inert whatever the store holds;
control characters are refused on every write path (properties, metadata, dumps, copies)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit.cli import app
from kgtoolkit.store import is_empty

# An OSC title, a screen clear, a bell, a right-to-left override, a C1 CSI, DEL and a carriage return.
HOSTILE = "Al\x1b]0;owned\x07ice\x1b[2J \u202eevil\x9b31m\x7f\rX"
# What no terminal output may hold: every control character but tab and line feed, and the bidi controls.
LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _cli(db: Path | str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def _tamper(db: Path | str, sql: Callable[..., list[Any]]) -> None:
    """Another writer of the database (a restored old dump, a copy, a script) stores escape sequences."""
    with KnowledgeGraph(db) as kg:
        kg.add("Alice", "works_at", "Acme")
        for i in range(250):
            kg.add("Alice", "knows", f"friend {i}")
        kg.remember("the release note")
    sql(
        db,
        f"UPDATE entities SET name = '{HOSTILE}' WHERE id = 'alice'",
        f"UPDATE predicates SET label = 'works{HOSTILE}' WHERE id = 'works_at'",
        f"UPDATE memories SET text = 'the release note {HOSTILE}'",
    )


@pytest.mark.parametrize(
    "args",
    [
        ("query", "alice", "--limit", "5"),
        ("query", "alice", "--limit", "1000"),  # over 200 rows: the plain table, written without rich
        ("timeline", "--limit", "1000"),
        ("predicates",),
        ("stats",),
        ("aliases",),
        ("query", "alic"),  # an error on stderr whose suggestions hold the name
        ("find", "release", "--mode", "lexical", "--kind", "memories"),
    ],
    ids=lambda a: " ".join(a),
)
def test_the_terminal_is_shown_stored_escape_sequences_inert(
    db_path: Path | str, sql: Callable[..., list[Any]], args: tuple[str, ...]
) -> None:
    _tamper(db_path, sql)
    code, stdout, stderr = _cli(db_path, *args)
    assert code in (0, 1), (code, stdout, stderr)
    assert LIVE.search(stdout) is None and LIVE.search(stderr) is None, (stdout[:2000], stderr[:2000])
    if args[0] in ("query", "find") and code == 0:
        assert "\\x1b]0;owned" in stdout  # shown, escaped: a person sees what is stored (rich drops a bell)


def test_json_output_is_the_stored_text_exactly_and_inert(db_path: Path | str, sql: Callable[..., list[Any]]) -> None:
    _tamper(db_path, sql)
    code, stdout, stderr = _cli(db_path, "--json", "query", "alice", "--limit", "1")
    assert code == 0, stderr
    assert LIVE.search(stdout) is None
    answer = json.loads(stdout)
    assert answer["facts"][0]["subject_name"] == HOSTILE  # the JSON is the same text, its controls escaped


# ---------------------------------------------------------------------- control characters refused on every write

BAD_DATA = [
    {"note": "a\x1b]0;owned\x07"},
    {"k\x1b[2J": "v"},
    {"team": {"lead": ["Bo", "x\u202ey"]}},
    {"nul": "a\x00b"},
    {"c1": "\x9b31m"},
]


@pytest.mark.parametrize("data", BAD_DATA, ids=range(len(BAD_DATA)))
def test_properties_and_metadata_refuse_control_characters_at_every_door(
    kg: KnowledgeGraph, db_path: Path | str, dump: Callable[[Path | str], list[str]], data: dict[str, Any]
) -> None:
    from kgtoolkit import mcp_server, run_tool

    kg.add("Alice", "works_at", "Acme")
    before = dump(db_path)
    with pytest.raises(kgtoolkit.InvalidRequest, match="control character"):
        kg.add_entity("Alice", properties=data)
    with pytest.raises(kgtoolkit.InvalidRequest, match="control character"):
        kg.add("Bob", "knows", "Alice", properties=data)
    with pytest.raises(kgtoolkit.InvalidRequest, match="control character") as caught:
        kg.remember("a note", metadata=data)
    assert caught.value.data["field"].startswith("metadata")
    for answer in (
        run_tool({"action": "add", "subject": "Alice", "properties": data}, kg=kg),
        run_tool({"action": "remember", "text": "a note", "metadata": data}, kg=kg),
        mcp_server.call(
            kg, "kg_add", {"subject": "Carol", "predicate": "knows", "object": "Alice", "properties": data}
        ),
        mcp_server.call(kg, "kg_remember", {"text": "a note", "metadata": data}),
    ):
        assert answer["ok"] is False and answer["error"]["code"] == "invalid_request", answer
    assert dump(db_path) == before
    kg.remember("tabs\tand\nnew lines stay", metadata={"lines": "one\ntwo\tthree"})  # whitespace is no control


def _dump_with(kg: KnowledgeGraph) -> dict[str, Any]:
    from kgtoolkit.store import dump

    kg.add("Alice", "works_at", "Acme")
    kg.add("Alice", "knows", "Bob")
    kg.remember("evidence", metadata={"page": 3})
    return json.loads(json.dumps(dump(kg)))


@pytest.mark.parametrize(
    "edit, record, field",
    [
        (lambda d: d["memories"][0].__setitem__("text", "evidence \x1b]0;owned\x07"), "memories[0]", "text"),
        (lambda d: d["memories"][0].__setitem__("source", "\u202etnega"), "memories[0]", "source"),
        (lambda d: d["memories"][0].__setitem__("metadata", {"k": "\x1b[2J"}), "memories[0]", "metadata"),
        (lambda d: d["memories"][0].__setitem__("metadata", {"\x07": 1}), "memories[0]", "metadata"),
        (lambda d: d["entities"][0].__setitem__("properties", {"a": ["\x9b"]}), "entities[0]", "properties"),
        (lambda d: d["facts"][0].__setitem__("source", "agent\x1b[31m"), "facts[0]", "source"),
        (lambda d: d["facts"][0].__setitem__("ended_by", None), None, None),  # a control: a dump that passes
    ],
)
def test_a_dump_holding_control_characters_is_refused_naming_the_record(
    kg: KnowledgeGraph, new_db: Callable[[str], Path | str], edit: Any, record: str | None, field: str | None
) -> None:
    from kgtoolkit.store import restore

    data = _dump_with(kg)
    edit(data)
    with KnowledgeGraph(new_db("target")) as target:
        if record is None:
            restore(target, data)
            return
        with pytest.raises(kgtoolkit.InvalidRows) as caught:
            restore(target, data)
        assert [(r["record"], r["field"]) for r in caught.value.data["rows"]] == [(record, field)]
        assert "control character" in caught.value.data["rows"][0]["reason"]
        assert is_empty(target)  # nothing written (a new file not even made: contract §8)


def test_a_dump_with_a_fact_id_past_the_bound_is_refused_and_one_at_it_leaves_room(
    kg: KnowledgeGraph, new_db: Callable[[str], Path | str]
) -> None:
    """issue 44: a dump with fact id 2**63 - 1 restored, and every later add failed with a false "disk is full"."""
    from kgtoolkit._checks import MAX_FACT_ID
    from kgtoolkit.store import restore

    data = _dump_with(kg)
    for too_big in (2**63 - 1, MAX_FACT_ID + 1):
        data["facts"][1]["id"] = too_big
        with KnowledgeGraph(new_db("target")) as target:
            with pytest.raises(kgtoolkit.InvalidRows) as caught:
                restore(target, data)
            [row] = caught.value.data["rows"]
            assert (row["record"], row["field"]) == ("facts[1]", "id") and "2**53" in row["reason"]
            assert is_empty(target)
    data["facts"][1]["id"] = MAX_FACT_ID
    with KnowledgeGraph(new_db("target2")) as target:
        restore(target, data)
        added = target.add("Carol", "knows", "Dave").fact
        assert added.id > MAX_FACT_ID


def _source_with(db: Path | str, sql: Callable[..., list[Any]], statement: str) -> None:
    with KnowledgeGraph(db) as kg:
        _dump_with(kg)
    sql(db, statement)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE memories SET text = 'evidence \x1b]0;owned\x07'",
        "UPDATE entities SET name = 'Ali\u202eec' WHERE id = 'alice'",
        "UPDATE entities SET properties = '{\"k\": \"\\u001b[2J\"}' WHERE id = 'alice'",
        "UPDATE memories SET metadata = '{\"\\u0007\": 1}'",
        "UPDATE facts SET source = 'agent\x9b31m' WHERE predicate = 'knows'",
        "UPDATE facts SET id = 9223372036854775806 WHERE predicate = 'knows'",
    ],
)
def test_copy_refuses_a_source_holding_what_a_write_refuses(
    db_path: Path | str, new_db: Callable[[str], Path | str], sql: Callable[..., list[Any]], statement: str
) -> None:
    from kgtoolkit.store import copy_graph

    _source_with(db_path, sql, statement)
    with KnowledgeGraph(db_path) as source, KnowledgeGraph(new_db("target")) as target:
        with pytest.raises(kgtoolkit.InvalidRequest, match=r"2\*\*53|control character"):
            copy_graph(source, target)
        assert is_empty(target)  # nothing written (a new file not even made: contract §8)


def test_copy_takes_text_that_only_looks_like_an_escape(
    db_path: Path | str, new_db: Callable[[str], Path | str]
) -> None:
    from kgtoolkit.store import copy_graph, dump

    with KnowledgeGraph(db_path) as kg:
        kg.add_entity("Alice", properties={"regex": "\\u001b is ESC", "lines": "a\nb\tc"})
        kg.remember("a \\x1b written out", metadata={"path": "C:\\u0007dir"})
    with KnowledgeGraph(db_path) as source, KnowledgeGraph(new_db("target")) as target:
        copy_graph(source, target)
        assert dump(target) == dump(source)


@pytest.mark.parametrize("field", ["source", "source_closet"])
def test_a_bulk_import_refuses_a_source_with_a_control_character(
    kg: KnowledgeGraph, tmp_path: Path, field: str
) -> None:
    from kgtoolkit import io

    path = tmp_path / "bulk.tsv"
    path.write_text(f"subject\tpredicate\tobject\t{field}\nAlice\tknows\tBob\tcrm\x1b[2J\nBob\tknows\tCarol\tcrm\n")
    with pytest.raises(kgtoolkit.InvalidRows) as caught:
        io.import_file(kg, path)
    assert [(r["line"], r["field"]) for r in caught.value.data["rows"]] == [(2, field)]  # the file's line
    assert kg.stats().facts == 0


# ---------------------------------------------------------------------- read-only writes nothing anywhere


def _files(*roots: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``roots``: its size and modification time."""
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns)
        for root in roots
        if root.exists()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("indexed", [False, True], ids=["no index yet", "an index written before"])
def test_search_on_a_read_only_graph_creates_and_writes_no_file(
    db_path: Path | str, tmp_path: Path, search_model: Any, indexed: bool
) -> None:
    """issue 44: `dashboard --read-only` created <db>.search/embeddings.sqlite3 beside the graph. A read-only
    graph reads an index that is there, keeps what it embeds in memory, and creates or writes nothing."""
    from kgtoolkit.search import SearchIndex, index_folder

    with KnowledgeGraph(db_path) as kg:
        kg.add("my_api", "uses_queue", "Redis")
        kg.remember("we moved the job queue to Redis")
        if indexed:
            with SearchIndex.open(kg, model=search_model) as idx:
                idx.sync()
    folders = [tmp_path, Path(tmp_path / ".cache")]  # beside an SQLite file; PostgreSQL's local cache folder
    before = _files(*folders)
    with KnowledgeGraph(db_path, read_only=True) as kg:
        folder = index_folder(kg)
        with SearchIndex.open(kg, model=search_model) as idx:
            hits = idx.find("which queue does my api use", k=3)
            assert hits.hits and idx.sync().embedded == 0  # embedded once, in memory
    # SQLite's own coordination files of the graph (-wal, -shm), which any reader of a WAL file in a writable
    # folder makes, hold no data: left out. Nothing of the search index is made or touched.
    after = {k: v for k, v in _files(*folders).items() if not k.endswith(("sqlite3-wal", "sqlite3-shm"))}
    assert after == {k: v for k, v in before.items() if not k.endswith(("sqlite3-wal", "sqlite3-shm"))}
    assert folder is not None and (folder.exists() == indexed or not isinstance(db_path, Path))


# ---------------------------------------------------------------------- files holding graph data are 0600


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.sqlite_only  # the graph's own files: PostgreSQL keeps them in the server
def test_a_new_graph_file_and_its_wal_and_shm_are_0600(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)  # the usual umask, which left them 0644
    try:
        with KnowledgeGraph(tmp_path / "g.sqlite3") as kg:
            kg.add("Alice", "works_at", "Acme")
            files = [tmp_path / f"g.sqlite3{suffix}" for suffix in ("", "-wal", "-shm")]
            assert {p.name: _mode(p) for p in files if p.exists()} == {p.name: 0o600 for p in files}
    finally:
        os.umask(old)
    assert _mode(tmp_path / "g.sqlite3") == 0o600


def test_dumps_exports_rejects_and_reports_are_0600(kg: KnowledgeGraph, tmp_path: Path) -> None:
    import os

    from kgtoolkit import io, report

    kg.add("Alice", "works_at", "Acme", valid_from="2026-01-01")
    kg.supersede("Alice", "works_at", "Acme", "Initech", at="2026-06-01")
    kg.remember("a private note")
    old = os.umask(0o022)
    try:
        out = tmp_path / "out"
        out.mkdir()
        written = []
        for name in ("dump.json", "facts.csv", "facts.tsv", "facts.jsonl", "facts.parquet"):
            io.export_file(kg, out / name)
            written.append(out / name)
        io.export_partitioned(kg, out / "parts", by="year")
        written += [p for p in (out / "parts").rglob("*") if p.is_file()]
        html, markdown = report.churn_report(kg, out=out / "report.html", every="1mo")
        written += [html, markdown]
        bad = tmp_path / "bad.tsv"
        bad.write_text("subject\tpredicate\tobject\nAlice\tknows\t\n")
        with pytest.raises(kgtoolkit.InvalidRows):
            io.import_file(kg, bad, rejects=out / "rejects.csv")
        written.append(out / "rejects.csv")
    finally:
        os.umask(old)
    assert {str(p.relative_to(out)): _mode(p) for p in written} == {str(p.relative_to(out)): 0o600 for p in written}
    assert _mode(out / "parts") == 0o700


def test_the_search_index_files_are_0600(kg: KnowledgeGraph, search_model: Any) -> None:
    import os

    from kgtoolkit.search import SearchIndex, index_folder

    kg.add("my_api", "uses_queue", "Redis")
    kg.remember("we moved the job queue to Redis")
    old = os.umask(0o022)
    try:
        with SearchIndex.open(kg, model=search_model) as idx:
            idx.sync()
    finally:
        os.umask(old)
    folder = index_folder(kg)
    assert folder is not None
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != ".lock"]
    assert files and {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert _mode(folder) == 0o700

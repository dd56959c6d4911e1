"""Predicates as things of their own (contract §13): labels, aliases, renames; on both backends.

Every door that takes a predicate resolves a predicate alias to its canonical predicate; a rename
folds one predicate's facts into another as a merge folds entities (checked against a plain-Python
model on generated histories); a predicate keeps its first spelling as its label; a file of the
schema before labels upgrades in place; dump, restore and copy carry labels and aliases.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from shared_data import DATA

import kgtoolkit
from conftest import dump_file, run_sql, schema_step, undo_steps
from kgtoolkit import AliasConflict, InvalidRequest, KnowledgeGraph, NotFound
from kgtoolkit.store import copy_graph, dump, import_facts, import_graph, read_table, restore
from kgtoolkit.store.engine._schema import MIGRATIONS, SCHEMA_VERSION
from kgtoolkit.store.ops import _predicates
from kgtoolkit.store.transfer._dump import dump_parts, dump_predicate_aliases

ARREST = "Arrest, detain, or charge with legal action"


def _seed(kg: KnowledgeGraph) -> None:
    kg.add("billing", "Uses Database", "Postgres", valid_from="2024-01-01")
    kg.add("search", "uses_database", "Elastic", valid_from="2024-02-01", valid_to="2024-06-01")


# ---------------------------------------------------------------------- aliases on every door


def test_every_door_resolves_a_predicate_alias(kg: KnowledgeGraph, new_db: Callable[[str], Path | str]) -> None:
    _seed(kg)
    assert kg.alias_predicate("uses db", "uses_database").to_dict() == {
        "alias": "uses_db",
        "predicate": "uses_database",
    }
    added = kg.add("web", "Uses DB", "Postgres", valid_from="2024-03-01")
    assert added.created and added.fact.predicate == "uses_database"
    assert not kg.add("billing", "uses_db", "postgres").created  # the same current fact, through the alias
    new = kg.supersede("web", "uses_db", "Postgres", "SQLite", at="2024-09-01").new
    assert new.predicate == "uses_database"
    assert kg.invalidate("web", "USES  DB", "SQLite", ended="2024-10-01").valid_to == "2024-10-01"
    everything = {f.id for f in kg.timeline()}
    assert {f.predicate for f in kg.timeline()} == {"uses_database"}
    assert {f.id for f in kg.timeline(predicates=["uses_db"])} == everything
    assert [f.id for f in kg.query("web", predicates="uses db")] == [f.id for f in kg.query("web")]
    assert [f.id for f in kg.by_predicate("uses_db", "postgres")] == [
        f.id for f in kg.by_predicate("uses_database", "postgres")
    ]
    assert kg.by_predicate("uses db").total == len(everything)
    assert kg.resolve_predicate("Uses DB") == "uses_database"
    assert read_table(kg, "facts", predicate="uses_db").num_rows == len(everything)
    # a setting given by its alias names the predicate: conflicts leave a multi-valued one out
    kg.add("billing", "uses_db", "Redis")
    assert [g.predicate for g in kg.conflicts("billing")] == ["uses_database"]
    kg.configure(multi_valued=kg.config.multi_valued | {"uses_db"})
    assert "uses_database" in kg.config.multi_valued and kg.conflicts("billing") == []
    # a bulk import: facts spelled by the alias land under the predicate, none twice
    report, _ = import_facts(
        kg,
        pl.DataFrame(
            {"subject": ["billing", "crm"], "predicate": ["uses db", "Uses_DB"], "object": ["Redis", "MySQL"]}
        ),
    )
    assert (report.inserted, report.duplicates) == (1, 1)
    assert {p.id: p.facts for p in kg.predicates()} == {"uses_database": len(everything) + 2}
    assert [a.to_dict() for a in kg.predicate_aliases()] == [{"alias": "uses_db", "predicate": "uses_database"}]


def test_an_alias_that_clashes_is_refused_and_changes_nothing(kg: KnowledgeGraph, db_path: Path | str) -> None:
    _seed(kg)
    kg.add("billing", "owned_by", "Ada")
    kg.alias_predicate("uses_db", "uses_database")
    assert kg.alias_predicate("Uses DB", "uses_database").predicate == "uses_database"  # again: nothing new
    before = dump_file(db_path)
    with pytest.raises(InvalidRequest, match="same predicate"):
        kg.alias_predicate("uses_database", "uses db")  # a cycle: the alias's own predicate
    with pytest.raises(InvalidRequest, match="same predicate"):
        kg.alias_predicate("uses_database", "uses_database")
    with pytest.raises(AliasConflict, match="already an alias") as clash:
        kg.alias_predicate("uses_db", "owned_by")  # an alias names one predicate
    assert clash.value.code == "alias_conflict" and "rename-predicate" in clash.value.message
    with pytest.raises(AliasConflict, match="has 1 fact") as used:
        kg.alias_predicate("owned_by", "uses_database")  # a predicate in use: rename folds it instead
    assert "rename_predicate('owned_by', 'uses_database')" in used.value.message
    with pytest.raises(InvalidRequest):
        kg.alias_predicate("   ", "uses_database")
    assert dump_file(db_path) == before
    # an alias of an alias means the predicate it names: aliases never chain
    assert kg.alias_predicate("db", "uses_db").predicate == "uses_database"
    kg.alias_predicate("stores_in", "keeps_data_in")  # a predicate no fact uses yet
    assert kg.alias_predicate("keeps_data_in", "uses_database").predicate == "uses_database"
    assert {(a.alias, a.predicate) for a in kg.predicate_aliases()} == {
        ("uses_db", "uses_database"),
        ("db", "uses_database"),
        ("keeps_data_in", "uses_database"),
        ("stores_in", "uses_database"),
    }


# ---------------------------------------------------------------------- rename


def _model_fold(rows: list[tuple[int, str, str, str, int, int, bool]], src: str, dst: str) -> set[tuple[Any, ...]]:
    """What a rename leaves, in plain Python: the rows of both predicates oldest first; an identical current
    fact (subject, object) is kept once (the earliest start), an identical history row once."""
    kept: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for fact_id, subject, predicate, obj, start, end, current in sorted(rows, key=lambda r: (r[4], r[0])):
        if predicate not in (src, dst):
            continue
        identity = (subject, obj, None) if current else (subject, obj, start, end)
        kept.setdefault(identity, (fact_id, subject, obj, start, end))
    return set(kept.values())


def _stored(kg: KnowledgeGraph, predicate: str) -> set[tuple[Any, ...]]:
    return {(f.id, f.subject, f.object, f.valid_from, f.valid_to) for f in kg.timeline() if f.predicate == predicate}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_rename_folds_every_fact_with_its_history_as_the_model_says(kg: KnowledgeGraph, seed: int) -> None:
    rng = random.Random(seed)
    kg.configure(multi_valued=["knows", "contacts"])
    for _ in range(40):
        predicate = rng.choice(["knows", "contacts", "Knows", "likes"])
        subject, obj = rng.choice("abc"), rng.choice("xyz")
        start = f"202{rng.randrange(4)}-0{rng.randrange(1, 4)}-01"
        end = rng.choice([None, None, f"2024-0{rng.randrange(1, 9)}-02"])
        kg.add(subject, predicate, obj, valid_from=start, valid_to=end)
    rows = [
        (f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.valid_to is None) for f in kg.timeline()
    ]
    expected = _model_fold(rows, "contacts", "knows")
    model = {(i, s, o, a, b) for i, s, o, a, b in expected}
    assert model <= {(r[0], r[1], r[3], r[4], r[5]) for r in rows}  # ids and intervals kept
    others = _stored(kg, "likes")
    highest = max(r[0] for r in rows)
    result = kg.rename_predicate("Contacts", "knows")
    moved = sum(r[2] == "contacts" for r in rows)
    assert (result.old, result.new, result.moved) == ("contacts", "knows", moved)
    assert result.deduplicated == sum(r[2] in ("contacts", "knows") for r in rows) - len(expected)
    assert result.aliases == ("contacts",) and result.settings == ("multi_valued",)
    assert _stored(kg, "knows") == model
    assert _stored(kg, "likes") == others and _stored(kg, "contacts") == set()
    assert kg.config.multi_valued == frozenset({"knows"})
    # old now resolves as an alias of new, and no id is ever given twice
    later = kg.add("q", "contacts", "r")
    assert later.fact.predicate == "knows" and later.fact.id > highest
    assert kg.by_predicate("contacts").total == len(model) + 1


def test_a_bad_rename_changes_nothing(kg: KnowledgeGraph, db_path: Path | str) -> None:
    _seed(kg)
    kg.add("billing", "email", "ops@example.com")
    kg.alias_predicate("uses_db", "uses_database")
    before = dump_file(db_path)
    with pytest.raises(NotFound, match="no fact uses the predicate 'owns'"):
        kg.rename_predicate("owns", "uses_database")
    with pytest.raises(InvalidRequest, match="already an alias"):
        kg.rename_predicate("uses_db", "stores_in")
    with pytest.raises(InvalidRequest, match="same predicate"):
        kg.rename_predicate("uses_database", "uses db")
    with pytest.raises(InvalidRequest, match="value predicate"):
        kg.rename_predicate("email", "uses_database")
    with pytest.raises(InvalidRequest):
        kg.rename_predicate("uses_database", "")
    assert dump_file(db_path) == before


def test_a_rename_is_atomic_when_the_database_refuses_midway(
    kg: KnowledgeGraph, db_path: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after the rows moved leaves every row where it was (the write is one transaction)."""
    _seed(kg)
    kg.add("billing", "stores_in", "S3", valid_from="2023-01-01")
    before = dump_file(db_path)

    def failing(*args: Any) -> tuple[str, ...]:
        raise kgtoolkit.StoreError("the disk went away")

    monkeypatch.setattr(_predicates, "_move_settings", failing)
    with pytest.raises(kgtoolkit.StoreError, match="went away"):
        kg.rename_predicate("stores_in", "uses_database")
    assert dump_file(db_path) == before


# ---------------------------------------------------------------------- labels


def test_a_predicate_keeps_its_first_spelling_as_its_label(kg: KnowledgeGraph) -> None:
    kg.configure(comma_guard=False)
    kg.add("Police (Australia)", f"  {ARREST}  ", "Women (Australia)", valid_from="2014-01-01")
    kg.add("Police (Kenya)", ARREST.lower(), "Citizen (Kenya)", valid_from="2014-01-02")
    key = "arrest,_detain,_or_charge_with_legal_action"
    assert kg.predicate_labels() == {key: ARREST}
    import_facts(
        kg,
        pl.DataFrame({"subject": ["a", "b"], "predicate": ["Make an  appeal", "make_an_appeal"], "object": ["x", "y"]}),
    )
    assert kg.predicate_labels()["make_an_appeal"] == "Make an appeal"
    kg.alias_predicate("Detains", key)  # an alias's spelling labels nothing
    kg.add("Police (Fiji)", "detains", "Citizen (Fiji)")
    listed = {p.id: p for p in kg.predicates()}
    assert listed[key].to_dict() == {"id": key, "label": ARREST, "facts": 3, "current": 3, "aliases": ["detains"]}
    assert "detains" not in kg.predicate_labels()
    for predicate, count in kg.predicates():  # a record still unpacks as the (id, facts) pair of before
        assert count == listed[predicate].facts
    page = kg.predicates(limit=1, offset=1)
    assert (page.count, page.total, page.items[0].id) == (1, 2, "make_an_appeal")
    # a rename into a new predicate gives it the spelling it was asked for
    assert kg.rename_predicate("make an appeal", "Appeal or request").label == "Appeal or request"
    assert kg.predicate_labels()["appeal_or_request"] == "Appeal or request"


def test_the_listing_counts_as_a_plain_count_of_the_facts_says(kg: KnowledgeGraph) -> None:
    rng = random.Random(5)
    for i in range(60):
        start = rng.choice([None, "2020-01-01", "2999-01-01"])  # unknown, past, scheduled starts
        end = rng.choice([None, None, "2999-12-31"]) if start != "2999-01-01" else None
        kg.add(f"s{i % 7}", rng.choice(["uses", "owns", "knows", "likes"]), f"o{i}", valid_from=start, valid_to=end)
    facts = kg.timeline()
    model = {
        p: (sum(f.predicate == p for f in facts), sum(f.predicate == p and f.state == "current" for f in facts))
        for p in {f.predicate for f in facts}
    }
    listed = kg.predicates()
    assert {p.id: (p.facts, p.current) for p in listed} == model
    assert [p.id for p in listed] == sorted(model, key=lambda p: (-model[p][0], p))
    assert sum(p.current for p in listed) == kg.stats().current
    assert kg.predicates(offset=10).total == len(model) and kg.predicates(offset=10) == []


@pytest.mark.sqlite_only
def test_a_file_of_the_schema_before_labels_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    before = schema_step("predicates")  # the schema of the step before labels
    conn = sqlite3.connect(path)
    for step in MIGRATIONS["sqlite"][:before]:
        for statement in step:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {before}")
    conn.execute("INSERT INTO entities(id, name, created_at) VALUES ('a', 'A', 't'), ('b', 'B', 't')")
    conn.execute(
        "INSERT INTO facts(id, subject, predicate, object_id, object_key, from_us, to_us, recorded_at) "
        "VALUES (4, 'a', 'uses_db', 'b', 'b', 0, 1, 't'), (9, 'a', 'works_at', 'b', 'b', 0, 1, 't')"
    )
    conn.commit()
    conn.close()
    with kgtoolkit.open(path) as kg:
        assert kg.predicate_labels() == {"uses_db": "uses_db", "works_at": "works_at"}
        assert kg.rename_predicate("uses_db", "Uses Database").moved == 1
        assert kg.add("a", "uses db", "c").fact.predicate == "uses_database"
        assert sorted(f.id for f in kg.query("a")) == [4, 9, 10]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT alias, predicate FROM predicate_aliases").fetchall() == [
            ("uses_db", "uses_database")
        ]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_a_graph_of_the_schema_before_labels_upgrades_in_place(db_path: Path | str) -> None:
    """On both engines: a graph as the previous schema left it (no predicate tables, its version one less)
    gains them on opening, each predicate in use labelled by its id, every fact kept."""
    with kgtoolkit.open(db_path) as kg:
        kg.add("a", "Uses DB", "b", valid_from="2024-01-01")
        kg.add("a", "works_at", "c")
    previous = schema_step("predicates")
    postgres = str(db_path).startswith("postgresql://")
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, "postgresql" if postgres else "sqlite"), version)
    with kgtoolkit.open(db_path) as kg:
        assert kg.predicate_labels() == {"uses_db": "uses_db", "works_at": "works_at"}
        assert kg.alias_predicate("db", "uses_db").predicate == "uses_db"
        assert [f.predicate for f in kg.query("a", predicates=["db"])] == ["uses_db"]
    with kgtoolkit.open(db_path, read_only=True) as kg:
        assert kg.stats().facts == 2


# ---------------------------------------------------------------------- dump, restore, copy


def test_dump_restore_and_copy_carry_labels_and_aliases(
    kg: KnowledgeGraph, new_db: Callable[[str], Path | str]
) -> None:
    _seed(kg)
    kg.add("web", "Depends On", "billing")
    kg.alias_predicate("uses db", "uses_database")
    kg.alias_predicate("needs", "depends_on")
    data = dump(kg)
    assert data["predicates"] == [
        {"id": "depends_on", "label": "Depends On"},
        {"id": "uses_database", "label": "Uses Database"},
    ]
    assert data["predicate_aliases"] == [
        {"alias": "needs", "predicate": "depends_on"},
        {"alias": "uses_db", "predicate": "uses_database"},
    ]
    with kgtoolkit.open(new_db("restored")) as back:
        restore(back, data)
        assert dump(back) == data
        assert back.add("crm", "uses db", "MySQL").fact.predicate == "uses_database"
    with kgtoolkit.open(new_db("copied")) as copied:
        copy_graph(kg, copied)
        assert dump(copied) == data
    # merged into a graph that holds another: labels travel as first spellings, aliases are registered
    with kgtoolkit.open(new_db("merged")) as merged:
        merged.add("ops", "owned_by", "Ada")
        frame, entities, aliases, memories = dump_parts(data)
        report, _ = import_graph(
            merged,
            frame,
            entities=entities,
            aliases=aliases,
            memories=memories,
            predicate_aliases=dump_predicate_aliases(data),
        )
        assert report.inserted == 3 and not report.warnings
        assert merged.predicate_labels() == {
            "owned_by": "owned_by",
            "uses_database": "Uses Database",
            "depends_on": "Depends On",
        }
        assert {(a.alias, a.predicate) for a in merged.predicate_aliases()} == {
            ("uses_db", "uses_database"),
            ("needs", "depends_on"),
        }


def test_a_dump_with_bad_labels_or_aliases_is_refused_whole(kg: KnowledgeGraph) -> None:
    _seed(kg)
    data = dump(kg)
    data["predicates"].append({"id": "works_at", "label": "Employs"})
    data["predicate_aliases"] = [
        {"alias": "uses_database", "predicate": "works_at"},
        {"alias": "a", "predicate": "b"},
        {"alias": "b", "predicate": "c"},
    ]
    with kgtoolkit.open(":memory:") as back:
        with pytest.raises(kgtoolkit.InvalidRows) as refused:
            restore(back, data)
        problems = {(p["record"], p["field"]) for p in refused.value.data["rows"]}
        assert problems == {
            ("predicates[1]", "label"),
            ("predicate_aliases[0]", "alias"),
            ("predicate_aliases[2]", "alias"),
        }  # in use; a chain (b is named by a)
        assert back.stats().facts == 0
    old = dump(kg)
    del old["predicates"], old["predicate_aliases"]  # a dump from before labels: each predicate its id
    with kgtoolkit.open(":memory:") as back:
        restore(back, old)
        assert back.predicate_labels() == {"uses_database": "uses_database"}


# ---------------------------------------------------------------------- the tool, MCP and the command line


def test_the_tool_aliases_renames_and_pages_predicates(kg: KnowledgeGraph, db_path: Path | str) -> None:
    _seed(kg)
    kg.add("web", "uses_db", "Postgres")
    kg.add("web", "owned_by", "Ada")

    def tool(**request: Any) -> Any:
        return kgtoolkit.run_tool(request, kg=kg)

    listed = tool(action="predicates", limit=2)["result"]
    assert (listed["count"], listed["total"], listed["truncated"], listed["next_offset"]) == (2, 3, True, 2)
    assert listed["predicates"][0] == {
        "id": "uses_database",
        "label": "Uses Database",
        "facts": 2,
        "current": 1,
        "aliases": [],
    }
    assert [p["id"] for p in tool(action="predicates", offset=2)["result"]["predicates"]] == ["uses_db"]  # ties by id
    renamed = tool(action="rename_predicate", predicate="uses db", new_predicate="uses_database")["result"]
    assert (renamed["old"], renamed["new"], renamed["moved"], renamed["aliases"]) == (
        "uses_db",
        "uses_database",
        1,
        ["uses_db"],
    )
    assert tool(action="alias_predicate", alias="db", predicate="uses_db")["result"] == {
        "alias": "db",
        "predicate": "uses_database",
    }
    assert (
        tool(action="add", subject="crm", predicate="db", object="MySQL")["result"]["fact"]["predicate"]
        == "uses_database"
    )
    assert tool(action="query", name="crm", predicates=["db"])["result"]["total"] == 1
    before = dump_file(db_path)
    refused = tool(action="alias_predicate", alias="owned_by", predicate="uses_database")
    assert not refused["ok"] and refused["error"]["code"] == "alias_conflict"
    missing = tool(action="rename_predicate", predicate="owns", new_predicate="owned_by")
    assert not missing["ok"] and missing["error"]["code"] == "not_found"
    assert not tool(action="rename_predicate", predicate="owned_by")["ok"]  # new_predicate is required
    assert dump_file(db_path) == before


@pytest.mark.sqlite_only
def test_the_mcp_tools_alias_rename_and_list(tmp_path: Path, db_path: Path | str) -> None:
    pytest.importorskip("mcp")
    from mcp_client import ok, run, server

    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as s:
            await ok(s, "kg_add", subject="billing", predicate="Uses Database", object="Postgres")
            await ok(s, "kg_add", subject="web", predicate="uses_db", object="Postgres")
            renamed = await ok(s, "kg_rename_predicate", predicate="uses_db", new_predicate="uses_database")
            alias = await ok(s, "kg_alias_predicate", alias="db", predicate="uses_database")
            listed = await ok(s, "kg_predicates")
            return {"renamed": renamed, "alias": alias, "listed": listed}

    r = run(go())
    assert r["renamed"]["moved"] == 1 and r["alias"] == {"alias": "db", "predicate": "uses_database"}
    assert r["listed"]["predicates"] == [
        {"id": "uses_database", "label": "Uses Database", "facts": 2, "current": 2, "aliases": ["db", "uses_db"]}
    ]


def _cli(db: Path | str, *args: str) -> Any:
    from typer.testing import CliRunner

    from kgtoolkit.cli import app

    return CliRunner().invoke(app, ["--db", str(db), *args])


def test_the_commands_alias_rename_and_list_predicates(kg: KnowledgeGraph, db_path: Path | str) -> None:
    _seed(kg)
    kg.add("web", "uses_db", "Postgres")
    kg.close()
    done = _cli(db_path, "rename-predicate", "uses_db", "Uses Database")
    assert done.exit_code == 0, done.output
    assert "renamed uses_db to uses_database (Uses Database): 1 fact moved, 0 duplicate(s) folded" in done.output
    done = _cli(db_path, "alias-predicate", "db", "uses_database", "--json")
    assert done.exit_code == 0 and json.loads(done.output) == {"alias": "db", "predicate": "uses_database"}
    refused = _cli(db_path, "alias-predicate", "uses_database", "db")
    assert refused.exit_code == 1 and "[invalid_request]" in refused.output
    table = _cli(db_path, "predicates")
    assert table.exit_code == 0, table.output
    assert "predicates (1 predicate)" in table.output
    assert re.search(r"uses_database\s+Uses Database\s+3\s+2\s+db, uses_db", table.output), table.output
    listed = json.loads(_cli(db_path, "predicates", "--json", "--limit", "0").output)
    assert (listed["count"], listed["total"], listed["next_offset"]) == (0, 1, 0)


# ---------------------------------------------------------------------- labels where facts are shown


def test_tables_the_report_and_the_summary_show_labels(kg: KnowledgeGraph, db_path: Path | str, tmp_path: Path) -> None:
    from kgtoolkit.report import churn_report

    kg.configure(comma_guard=False)
    kg.add("Police", ARREST, "Protester", valid_from="2014-01-01", valid_to="2014-01-02")
    kg.add("Police", ARREST.lower(), "Journalist", valid_from="2014-01-03")
    kg.add("Police", ARREST, "Lawyer", valid_from="2014-01-04")
    summary = kg.summary()
    assert f"- {ARREST} → `Journalist` (since 2014-01-03)" in summary and "arrest,_detain" not in summary
    _, markdown = churn_report(kg, out=tmp_path / "report.html", every="1d")
    text = markdown.read_text(encoding="utf-8")
    assert ARREST in text and "arrest,_detain" not in text
    assert ARREST in (tmp_path / "report.html").read_text(encoding="utf-8")
    kg.close()
    for args in (
        ("query", "Police"),
        ("timeline",),
        ("search", "arrest, detain, or charge with legal action"),
        ("conflicts",),
    ):
        shown = _cli(db_path, *args)
        assert shown.exit_code == 0, shown.output
        assert ARREST in shown.output and "arrest,_detain" not in shown.output, (args, shown.output)
    as_json = json.loads(_cli(db_path, "query", "Police", "--json").output)  # JSON keeps the id, the key
    assert {f["predicate"] for f in as_json["facts"]} == {"arrest,_detain,_or_charge_with_legal_action"}


@pytest.mark.sqlite_only
def test_on_icews14_the_predicates_command_shows_the_datas_spelling(tmp_path: Path) -> None:
    source = DATA / "icews14" / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"no {source} (the shared datasets are absent)")
    with source.open(encoding="utf-8") as f:
        head = [next(f) for _ in range(3001)]  # the header and the first 3,000 events
    sample = tmp_path / "icews14.tsv"
    sample.write_text("".join(head), encoding="utf-8")
    spellings = {line.split("\t")[1] for line in head[1:]}
    assert ARREST in spellings
    db = tmp_path / "icews.sqlite3"
    done = _cli(db, "import", str(sample), "--allow-commas")
    assert done.exit_code == 0, done.output
    table = _cli(db, "predicates")
    assert table.exit_code == 0 and ARREST in table.output, table.output
    listed = json.loads(_cli(db, "predicates", "--json", "--limit", "1000").output)
    labels = {p["id"]: p["label"] for p in listed["predicates"]}
    assert labels["arrest,_detain,_or_charge_with_legal_action"] == ARREST
    assert set(labels.values()) == spellings  # every predicate labelled by the data's own spelling
    with kgtoolkit.open(db, read_only=True) as kg:
        assert sum(p["facts"] for p in listed["predicates"]) == kg.stats().facts
        assert listed["total"] == kg.stats().predicates == len(spellings)


def test_traversal_and_diff_read_through_a_predicate_alias(kg: KnowledgeGraph) -> None:
    kg.add("billing", "owned_by", "payments", valid_from="2026-01-01")
    kg.add("payments", "reports_to", "Dana", valid_from="2026-01-01")
    kg.alias_predicate("owner_is", "owned_by")
    chain = [[f.predicate for f in p] for p in kg.paths("billing", "dana", predicates=["owner_is", "reports_to"]).paths]
    assert chain == [["owned_by", "reports_to"]]
    assert kg.follow("billing", ["owner is", "reports_to"]).ends == ("dana",)
    assert [f.predicate for f in kg.neighbors("billing", predicates=["owner_is"]).facts] == ["owned_by"]
    assert [c.predicate for c in kg.diff("2026-01-01", "2026-01-31", predicates=["owner_is"]).changes] == ["owned_by"]
    with pytest.raises(NotFound) as missing:
        kg.paths("billing", "dana", predicates=["owner_iz"])
    assert missing.value.code == "not_found" and missing.value.data["field"] == "predicates"

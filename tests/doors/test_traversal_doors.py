"""Traversal and diff through the agent tool and the MCP server (contract §11): the actions neighbors, path,
follow and diff answer what the library answers, paged as the other list actions, and refuse bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kgtoolkit import KnowledgeGraph, _tool, mcp_server, run_tool


def _org(kg: KnowledgeGraph) -> None:
    kg.add("billing_service", "owned_by", "payments team")
    kg.add("payments team", "reports_to", "Dana")
    kg.add("billing_service", "depends_on", "ledger")
    kg.add("ledger", "owned_by", "platform team", valid_from="2024-01-01")
    kg.add("platform team", "reports_to", "Dana", valid_from="2024-01-01", valid_to="2024-12-31")
    kg.add("api", "uses", "Redis", valid_from="2024-01-05")
    kg.supersede("api", "uses", "Redis", "SQLite", at="2024-03-02")


def ok(kg: KnowledgeGraph, **request: Any) -> dict[str, Any]:
    answer = run_tool(request, kg=kg)
    assert answer["ok"], answer
    json.dumps(answer, allow_nan=False)
    result: dict[str, Any] = answer["result"]
    return result


def error(kg: KnowledgeGraph, **request: Any) -> dict[str, Any]:
    answer = run_tool(request, kg=kg)
    assert answer["ok"] is False, answer
    err: dict[str, Any] = answer["error"]
    return err


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_the_actions_answer_what_the_library_answers(kg: KnowledgeGraph) -> None:
    _org(kg)
    got = ok(kg, action="neighbors", name="billing_service", hops=2)
    assert got == plain(kg.neighbors("billing_service", hops=2, limit=100).to_dict())
    assert {e["id"]: e["hops"] for e in got["entities"]} == {
        "billing_service": 0,
        "payments_team": 1,
        "ledger": 1,
        "dana": 2,
        "platform_team": 2,
    }
    assert (got["count"], got["total"], got["truncated"], got["next_offset"]) == (4, 4, False, None)

    path = ok(kg, action="path", source="billing_service", target="Dana")
    assert [[f["predicate"] for f in p] for p in path["paths"]] == [["owned_by", "reports_to"]]
    assert path == plain(kg.paths("billing_service", "dana", limit=100).to_dict())
    then = ok(kg, action="path", source="billing_service", target="Dana", as_of="2024-06", max_hops=3)
    assert [[f["predicate"] for f in p] for p in then["paths"]] == [
        ["owned_by", "reports_to"],
        ["depends_on", "owned_by", "reports_to"],
    ]
    assert [f["direction"] for f in then["paths"][1]] == ["outgoing"] * 3
    back = ok(kg, action="path", source="Dana", target="ledger", as_of="2024-06", direction="incoming")
    assert [[f["direction"] for f in p] for p in back["paths"]] == [["incoming", "incoming"]]

    chain = ok(kg, action="follow", name="billing_service", predicates=["owned_by", "reports_to"])
    assert chain["ends"] == ["dana"] and chain["count"] == 1 and chain["total"] == 1
    assert chain == plain(kg.follow("billing_service", ["owned_by", "reports_to"]).to_dict())

    changes = ok(kg, action="diff", **{"from": "2024-03", "to": "2024-03"})
    assert [(c["kind"], c["at"], c["old"]["object_name"], c["new"]["object_name"]) for c in changes["changes"]] == [
        ("replaced", "2024-03-02", "Redis", "SQLite")
    ]
    assert changes == plain(kg.diff("2024-03", "2024-03", limit=100).to_dict())
    year = ok(kg, action="diff", name="Dana", predicates=["reports_to"], **{"from": "2024", "to": "2024"})
    assert [(c["kind"], c["subject"]) for c in year["changes"]] == [
        ("began", "platform_team"),
        ("ended", "platform_team"),
    ]
    assert ok(kg, action="diff", by="known", **{"from": "2000", "to": "2999"})["total"] == 7


def test_during_walks_the_facts_overlapping_a_window_through_the_tool_and_mcp(kg: KnowledgeGraph) -> None:
    _org(kg)
    kg.add("ledger", "owned_by", "archive team", valid_from="2023-01-01", valid_to="2023-06-30")
    kg.add("archive team", "reports_to", "Eve", valid_from="2023-03-01", valid_to="2023-04-30")
    window = ["2023-04-01", "2023-05-31"]
    got = ok(kg, action="neighbors", name="ledger", hops=2, during=window)
    assert got == plain(kg.neighbors("ledger", hops=2, during=window, limit=100).to_dict())
    assert {e["id"] for e in got["entities"]} == {
        "ledger",
        "archive_team",
        "eve",
        "billing_service",
        "payments_team",
    }  # the 2024 owner is not in the window
    path = ok(kg, action="path", source="ledger", target="Eve", during=window)
    assert [[f["predicate"] for f in p] for p in path["paths"]] == [["owned_by", "reports_to"]]
    assert path == plain(kg.paths("ledger", "eve", during=window, limit=100).to_dict())
    assert ok(kg, action="path", source="ledger", target="Eve", during=["2023-05", "2023-06"])["paths"] == []
    chain = ok(kg, action="follow", name="ledger", predicates=["owned_by", "reports_to"], during=window)
    assert chain["ends"] == ["eve"]
    assert chain == plain(kg.follow("ledger", ["owned_by", "reports_to"], during=window).to_dict())
    assert ok(kg, action="follow", name="ledger", predicates=["owned_by", "reports_to"])["ends"] == []
    served = mcp_server.call(
        kg, "kg_follow", {"name": "ledger", "predicates": ["owned_by", "reports_to"], "during": window}
    )
    assert served["result"]["ends"] == ["eve"]
    assert mcp_server.call(kg, "kg_path", {"source": "ledger", "target": "Eve", "during": window})["result"] == path
    specs = mcp_server.tool_specs()
    for tool in ("kg_neighbors", "kg_path", "kg_follow"):
        assert specs[tool]["inputSchema"]["properties"]["during"]["type"] == "array"

    before = kg.data_version()
    assert error(kg, action="path", source="ledger", target="Eve", during=["2023-04-01"])["field"] == "during"
    assert error(kg, action="neighbors", name="ledger", during="2023-04-01")["field"] == "during"
    assert (
        error(kg, action="follow", name="ledger", predicates=["owned_by"], during=["2023-06", "2023-01"])["code"]
        == "interval_order"
    )
    both = error(kg, action="neighbors", name="ledger", as_of="2023-04-01", during=window)
    assert (both["code"], both["field"]) == ("invalid_request", "during")
    assert error(kg, action="path", source="ledger", target="Eve", during=["soon", "later"])["code"] == "invalid_date"
    assert mcp_server.call(kg, "kg_neighbors", {"name": "ledger", "during": [1, 2]})["ok"] is False
    assert kg.data_version() == before


def test_pages_concatenate_and_the_doors_defaults_apply(kg: KnowledgeGraph) -> None:
    for i in range(60):
        kg.add("hub", "links", f"leaf{i:02}")
        kg.add(f"leaf{i:02}", "links", "sink")
    whole = kg.neighbors("hub", hops=1).to_dict()["facts"]
    assert len(ok(kg, action="neighbors", name="hub")["facts"]) == 60  # the tool's default: 100
    first = mcp_server.call(kg, "kg_neighbors", {"name": "hub"})["result"]  # the MCP tools': 50
    assert (first["count"], first["total"], first["truncated"], first["next_offset"]) == (50, 60, True, 50)
    rest = mcp_server.call(kg, "kg_neighbors", {"name": "hub", "offset": 50})["result"]
    assert plain(first["facts"] + rest["facts"]) == plain(whole) and rest["next_offset"] is None

    every = kg.paths("hub", "sink", limit=None)
    assert every.total == 60 and len(every.paths) == 60
    seen: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        page = ok(kg, action="path", source="hub", target="sink", limit=25, offset=offset)
        seen += page["paths"]
        offset = page["next_offset"]
    assert seen == plain(every.to_dict()["paths"])
    part = ok(kg, action="path", source="hub", target="sink", limit=25)
    assert part["total"] is None and part["truncated"] and part["next_offset"] == 25  # counted no further than needed
    assert mcp_server.call(kg, "kg_path", {"source": "hub", "target": "sink"})["result"]["count"] == 50
    branches = ok(kg, action="follow", name="hub", predicates=["links", "links"], limit=7, offset=56)
    assert (branches["count"], branches["total"], branches["truncated"], branches["ends"]) == (4, 60, False, ["sink"])


def test_bad_requests_are_refused_with_codes(kg: KnowledgeGraph) -> None:
    _org(kg)
    before = kg.data_version()
    assert error(kg, action="neighbors", name="billing_service", hops=5)["field"] == "hops"
    assert error(kg, action="neighbors", name="billing_service", hops="2")["code"] == "invalid_request"
    missing = error(kg, action="neighbors", name="billing_svc")
    assert missing["code"] == "not_found" and "billing_service" in missing["suggestions"]
    assert error(kg, action="path", source="billing_service")["message"] == "path needs target"
    assert error(kg, action="path", source="billing_service", target="Dana", max_hops=0)["field"] == "max_hops"
    assert error(kg, action="path", source="x", target="Dana", limit=1001)["field"] == "limit"
    assert error(kg, action="follow", name="billing_service", predicates=["owned"])["suggestions"] == ["owned_by"]
    assert error(kg, action="follow", name="billing_service", predicates=[])["code"] == "invalid_request"
    assert error(kg, action="follow", name="billing_service", predicates="owned_by")["field"] == "predicates"
    assert error(kg, action="diff", **{"from": "2024"})["message"] == "diff needs to"
    assert error(kg, action="diff", **{"from": "2025", "to": "2024"})["code"] == "interval_order"
    assert error(kg, action="diff", by="when", **{"from": "2024", "to": "2025"})["field"] == "by"
    assert error(kg, action="diff", depth=2, **{"from": "2024", "to": "2025"})["code"] == "invalid_request"
    assert kg.data_version() == before


def test_the_mcp_tools_declare_the_parameters() -> None:
    specs = mcp_server.tool_specs()
    assert specs["kg_path"]["inputSchema"]["required"] == ["source", "target"]
    assert specs["kg_path"]["inputSchema"]["properties"]["limit"]["default"] == mcp_server.DEFAULT_LIMIT
    assert specs["kg_follow"]["inputSchema"]["required"] == ["name", "predicates"]
    assert specs["kg_diff"]["inputSchema"]["required"] == ["from", "to"]
    assert specs["kg_neighbors"]["inputSchema"]["properties"]["hops"]["maximum"] == 4
    for name in ("neighbors", "path", "follow", "diff"):
        assert _tool.registry()[name].read_only and _tool.registry()[name].paged


@pytest.mark.sqlite_only
def test_kg_path_through_the_stdio_server(db_path: Any, tmp_path: Any) -> None:
    pytest.importorskip("mcp")
    import asyncio
    import sys

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    with KnowledgeGraph(db_path) as kg:
        _org(kg)

    async def ask() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "kgtoolkit", "mcp", "--db", str(db_path)], env={"HOME": str(tmp_path)}
        )
        with open(tmp_path / "server.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("kg_path", {"source": "billing_service", "target": "dana"})
                answer: dict[str, Any] = json.loads(result.content[0].text)
                assert result.structured_content == answer and not result.is_error
                return answer

    answer = asyncio.run(ask())
    assert [[f["object"] for f in p] for p in answer["result"]["paths"]] == [["payments_team", "dana"]]


# ---------------------------------------------------------------------- the command line


def _cli(*args: Any) -> Any:
    import re

    from typer.testing import CliRunner

    from kgtoolkit.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    clean = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
    return result.exit_code, clean.sub("", result.stdout), clean.sub("", result.stderr)


def test_the_commands(db_path: Any) -> None:
    with KnowledgeGraph(db_path) as kg:
        _org(kg)
        expected_paths = plain(kg.paths("billing_service", "dana", as_of="2024-06", max_hops=3).to_dict())
        expected_diff = plain(kg.diff("2024", "2024", entity="api").to_dict())
    code, text, _ = _cli("--db", db_path, "path", "billing_service", "Dana", "--as-of", "2024-06", "--max-hops", "3")
    assert code == 0
    assert "1. billing_service —owned_by→ payments team —reports_to→ Dana" in text
    assert "2. billing_service —depends_on→ ledger —owned_by→ platform team —reports_to→ Dana" in text
    code, text, _ = _cli(
        "path", "billing_service", "Dana", "--as-of", "2024-06", "--max-hops", "3", "--json", "--db", db_path
    )
    assert code == 0 and json.loads(text) == expected_paths
    code, text, _ = _cli("--db", db_path, "path", "Dana", "billing_service", "--direction", "incoming")
    assert "Dana ←reports_to— payments team ←owned_by— billing_service" in text

    code, text, _ = _cli(
        "--db",
        db_path,
        "neighbors",
        "billing_service",
        "--hops",
        "2",
        "--predicate",
        "owned_by",
        "--predicate",
        "reports_to",
    )
    assert code == 0 and "billing_service within 2 hops (2 facts, 3 entities)" in text  # depends_on not walked
    assert "1 hop: payments team\n2 hops: Dana" in text
    code, text, _ = _cli("--db", db_path, "--json", "neighbors", "ledger", "--during", "2023-01-01", "2023-12-31")
    assert code == 0 and [f["object"] for f in json.loads(text)["facts"]] == ["ledger"]  # owned_by starts in 2024

    code, text, _ = _cli("--db", db_path, "follow", "billing_service", "owned by", "reports_to", "--as-of", "2024-06")
    assert code == 0 and text.splitlines()[0] == "billing_service owned_by → reports_to: dana"
    code, text, _ = _cli(
        "--db",
        db_path,
        "follow",
        "billing_service",
        "depends_on",
        "owned_by",
        "reports_to",
        "--as-of",
        "2024-06",
        "--json",
    )
    assert json.loads(text)["ends"] == ["dana"]

    code, text, _ = _cli("--db", db_path, "diff", "--from", "2024", "--to", "2024", "--entity", "api")
    assert code == 0 and "changes 2024 … 2024 (2 changes: 1 began, 0 ended, 1 replaced)" in text
    assert "Redis → SQLite" in text
    code, text, _ = _cli("--db", db_path, "diff", "--from", "2024", "--to", "2024", "--entity", "api", "--json")
    assert json.loads(text) == expected_diff
    code, text, _ = _cli("--db", db_path, "diff", "--from", "2000", "--to", "2999", "--known", "--json")
    assert json.loads(text)["by"] == "known" and json.loads(text)["total"] == 7

    code, _, message = _cli("--db", db_path, "neighbors", "billing_service", "--hops", "5")
    assert code == 1 and "error [invalid_request] hops must be a whole number from 1 to 4" in " ".join(message.split())
    code, _, message = _cli("--db", db_path, "path", "billing_service")
    assert code == 1 and "kgtoolkit where" in message
    code, _, message = _cli("--db", db_path, "follow", "billing_svc", "owned_by")
    assert code == 1 and "[not_found]" in message and "billing_service" in message


def test_a_page_of_paths_says_how_many_in_words(db_path: Any) -> None:
    """Paths' total is null when the search stopped at the page's end (contract §11): the header says how many are
    shown and where the next page starts, never "3 of more paths"."""
    with KnowledgeGraph(db_path) as kg:
        for i in range(6):
            kg.add("a", "p", f"m{i}")
            kg.add(f"m{i}", "q", "b")
    pages = {
        ("--limit", "3"): "paths from a to b (3 paths shown; more exist: --offset 3)",
        ("--limit", "3", "--offset", "3"): "paths from a to b (3 of 6 paths)",
        ("--limit", "10"): "paths from a to b (6 paths)",
        ("--limit", "1"): "paths from a to b (1 path shown; more exist: --offset 1)",
        ("--limit", "0"): "paths from a to b: none shown; some exist: raise --limit",
        ("--offset", "40"): "paths from a to b: none (offset 40 is past them)",
    }
    for options, header in pages.items():
        code, text, _ = _cli("--db", db_path, "path", "a", "b", *options)
        assert code == 0 and text.splitlines()[0] == header, (options, text)
        assert " of more " not in text


def test_the_commands_show_predicates_as_first_spelt_and_events_as_events(db_path: Any) -> None:
    """ICEWS-style labels ("Make a visit"), not ids (make_a_visit), in every traversal table (contract §13);
    an event is an event, not an ended fact (§12)."""
    with KnowledgeGraph(db_path) as kg:
        kg.add("Xi Jinping", "Make a visit", "Japan", valid_from="2014-05-06", valid_to="2014-05-06")
        kg.add("Japan", "Host a visit", "Xi Jinping", valid_from="2014-05-06", valid_to="2014-05-06")
    code, text, _ = _cli("--db", db_path, "path", "Xi Jinping", "Japan", "--as-of", "2014-05-06")
    assert code == 0 and "Xi Jinping —Make a visit→ Japan" in text and "make_a_visit" not in text
    code, text, _ = _cli("--db", db_path, "neighbors", "Japan", "--during", "2014-05-01", "2014-05-31")
    rows = [line.split() for line in text.splitlines() if "visit" in line]
    assert code == 0 and len(rows) == 2 and all(r[-1] == "event" for r in rows) and "Host a visit" in text
    code, text, _ = _cli("--db", db_path, "follow", "Xi Jinping", "make a visit", "--as-of", "2014-05-06")
    assert code == 0 and text.splitlines()[0] == "xi_jinping Make a visit: japan"
    code, text, _ = _cli("--db", db_path, "diff", "--from", "2014-05", "--to", "2014-05")
    assert code == 0 and "2 events occurred" in text and "Make a visit" in text and "host_a_visit" not in text


def test_path_without_entities_still_prints_the_location_and_says_it_moved(db_path: Any) -> None:
    code, where, _ = _cli("--db", db_path, "where")
    assert code == 0 and where.strip() == str(__import__("kgtoolkit").store.resolve(db_path))
    code, text, note = _cli("--db", db_path, "path")
    assert code == 0 and text == where and "moved to `kgtoolkit where`" in note


def test_every_door_walks_the_events_that_occurred_without_a_date(db_path: Any) -> None:
    """An event graph has hops without a date (contract §11, §12): the library, the tool, MCP and the CLI give the
    same answer, and none of them prints `none` for leaders who met."""
    with KnowledgeGraph(db_path) as kg:
        kg.add("Barack Obama", "Make a visit", "Raúl Castro", valid_from="2014-04-11", valid_to="2014-04-11")
        kg.add("Raúl Castro", "Host a visit", "Nicolás Maduro", valid_from="2014-05-02", valid_to="2014-05-02")
        kg.add("Nicolás Maduro", "Criticize", "Barack Obama", valid_from="2090-01-01", valid_to="2090-01-01")
        path = plain(kg.paths("Barack Obama", "Nicolás Maduro", limit=100).to_dict())
        near = plain(kg.neighbors("Raúl Castro", limit=100).to_dict())
        chain = plain(kg.follow("Barack Obama", ["make a visit", "host a visit"]).to_dict())
        assert [[f["predicate"] for f in p] for p in path["paths"]] == [["make_a_visit", "host_a_visit"]]
        assert {f["state"] for f in near["facts"]} == {"occurred"} and near["total"] == 2
        assert chain["ends"] == ["nicolás_maduro"]
        assert ok(kg, action="path", source="Barack Obama", target="Nicolás Maduro") == path
        assert ok(kg, action="neighbors", name="Raúl Castro") == near
        assert ok(kg, action="follow", name="Barack Obama", predicates=["make a visit", "host a visit"]) == chain
        served = mcp_server.call(kg, "kg_path", {"source": "Barack Obama", "target": "Nicolás Maduro"})
        assert served["result"] == path
        assert mcp_server.call(kg, "kg_neighbors", {"name": "Raúl Castro"})["result"] == near
    code, text, _ = _cli("--db", db_path, "path", "Barack Obama", "Nicolás Maduro")
    assert code == 0 and "Barack Obama —Make a visit→ Raúl Castro —Host a visit→ Nicolás Maduro" in text
    code, text, _ = _cli("--db", db_path, "--json", "path", "Barack Obama", "Nicolás Maduro")
    assert json.loads(text) == path
    code, text, _ = _cli("--db", db_path, "--json", "neighbors", "Raúl Castro")
    assert json.loads(text)["facts"] == near["facts"]
    code, text, _ = _cli("--db", db_path, "follow", "Barack Obama", "make a visit", "host a visit")
    assert code == 0 and text.splitlines()[0] == "barack_obama Make a visit → Host a visit: nicolás_maduro"
    code, text, _ = _cli("--db", db_path, "path", "Nicolás Maduro", "Barack Obama", "--direction", "outgoing")
    assert code == 0 and "none" in text  # the criticism has not occurred yet

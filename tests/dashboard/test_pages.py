"""Answers sized for agents: every list action pages (limit, offset) and says count, total, truncated, next_offset.

Through the library (the list reads, each a ``Page``), the JSON tool (``run_tool``) and the MCP dispatcher (``mcp_server.call``),
on a generated hub: 250 facts of one subject, 30 conflict groups, 30 aliases; on both backends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kgtoolkit import KnowledgeGraph, Page, _tool, mcp_server, run_tool
from kgtoolkit.cli import app

HUB = 250
GROUPS = 30
ALIASES = 30


def _fill(kg: KnowledgeGraph) -> None:
    for i in range(HUB):
        kg.add("hub", "knows", f"n{i:03}", valid_from=f"{2000 + i // 12}-{i % 12 + 1:02}-01")
    for i in range(GROUPS):
        kg.add(f"s{i:02}", "works_at", "acme", valid_from="2020")
        kg.add(f"s{i:02}", "works_at", "globex", valid_from="2021")
        if i % 3:  # two of three closed out: only every third group needs action
            kg.invalidate(f"s{i:02}", "works_at", "acme", ended="2021")
    for i in range(ALIASES):
        kg.alias(f"hub alias {i:02}", "hub")


@pytest.fixture
def hub(kg: KnowledgeGraph) -> KnowledgeGraph:
    _fill(kg)
    return kg


# action -> (request parameters, the key of its items, the library's whole list as JSON-ready dicts)
def _cases(kg: KnowledgeGraph) -> dict[str, tuple[dict[str, Any], str, list[Any]]]:
    return {
        "query": ({"name": "hub"}, "facts", [f.to_dict() for f in kg.query("hub")]),
        "search": ({"predicate": "knows"}, "facts", [f.to_dict() for f in kg.by_predicate("knows")]),
        "timeline": ({"name": "hub"}, "facts", [f.to_dict() for f in kg.timeline("hub")]),
        "conflicts": ({}, "groups", [g.to_dict() for g in kg.conflicts()]),
        "aliases": ({"entity": "hub"}, "aliases", [a.to_dict() for a in kg.aliases("hub")]),
    }


LIBRARY = {
    "query": lambda kg, **page: kg.query("hub", **page),
    "search": lambda kg, **page: kg.by_predicate("knows", **page),
    "timeline": lambda kg, **page: kg.timeline("hub", **page),
    "conflicts": lambda kg, **page: kg.conflicts(**page),
    "aliases": lambda kg, **page: kg.aliases("hub", **page),
}
ACTIONS = sorted(LIBRARY)


def _tool_door(kg: KnowledgeGraph, action: str, params: dict[str, Any]) -> dict[str, Any]:
    return run_tool({"action": action, **params}, kg=kg)


def _mcp_door(kg: KnowledgeGraph, action: str, params: dict[str, Any]) -> dict[str, Any]:
    return mcp_server.call(kg, f"kg_{action}", params)


DOORS = {"tool": _tool_door, "mcp": _mcp_door}


def test_the_hub_is_big(hub: KnowledgeGraph) -> None:
    whole = _cases(hub)
    assert len(whole["query"][2]) == HUB and len(whole["conflicts"][2]) == GROUPS
    assert len(whole["aliases"][2]) == ALIASES
    assert [g["needs_action"] for g in whole["conflicts"][2]] == [True] * 10 + [False] * 20  # needing action first


def test_library_pages_concatenate_to_the_whole(hub: KnowledgeGraph) -> None:
    cases = _cases(hub)
    for action in ACTIONS:
        whole = cases[action][2]
        seen: list[Any] = []
        offset: int | None = 0
        while offset is not None:
            page = LIBRARY[action](hub, limit=7, offset=offset)
            assert isinstance(page, Page) and page.total == len(whole) and page.offset == offset
            assert page.count == len(page.items) <= 7
            seen += [item.to_dict() for item in page]
            assert page.truncated == (len(seen) < len(whole))
            offset = page.next_offset
        assert seen == whole, action
        last = LIBRARY[action](hub, limit=7, offset=len(whole) - 1)
        assert (last.count, last.truncated, last.next_offset) == (1, False, None)
        past = LIBRARY[action](hub, limit=7, offset=len(whole) + 5)
        assert (past.count, past.total, past.truncated, past.next_offset) == (0, len(whole), False, None)
        every = LIBRARY[action](hub)  # no limit: everything, nothing more
        assert (every.count, every.total, every.truncated) == (len(whole), len(whole), False)


def test_library_totals_follow_the_filters(hub: KnowledgeGraph) -> None:
    assert hub.query("hub", direction="incoming").total == 0
    assert hub.query("n007", limit=0).paging() == {"count": 0, "total": 1, "truncated": True, "next_offset": 0}
    assert hub.by_predicate("works_at", current_only=True).total == GROUPS + GROUPS // 3
    assert hub.query("hub", as_of="2000").total == 12
    assert hub.conflicts(needs_action=True).total == hub.conflicts_needing_action() == GROUPS // 3
    assert hub.conflicts(current_only=True).total == GROUPS // 3
    assert hub.aliases().total == ALIASES
    assert hub.conflicts(limit=2, offset=1) == hub.conflicts()[1:3]
    assert hub.aliases(limit=3) == hub.aliases()[:3]


@pytest.mark.parametrize("door", sorted(DOORS))
def test_doors_page_through_every_action(hub: KnowledgeGraph, door: str) -> None:
    ask = DOORS[door]
    for action, (params, key, whole) in _cases(hub).items():
        seen: list[Any] = []
        offset: int | None = 0
        while offset is not None:
            answer = ask(hub, action, {**params, "limit": 40, "offset": offset})
            assert answer["ok"], answer
            result = answer["result"]
            assert result["count"] == len(result[key]) <= 40 and result["total"] == len(whole)
            seen += result[key]
            assert result["truncated"] == (len(seen) < len(whole))
            assert result["next_offset"] == (len(seen) if result["truncated"] else None)
            offset = result["next_offset"]
        assert seen == whole, (door, action)
        past = ask(hub, action, {**params, "offset": len(whole)})["result"]
        assert (past["count"], past["total"], past["truncated"], past["next_offset"]) == (0, len(whole), False, None)
        assert past[key] == []
        json.dumps(past)  # JSON-ready


@pytest.mark.parametrize("door", sorted(DOORS))
def test_conflicts_count_those_needing_action(hub: KnowledgeGraph, door: str) -> None:
    result = DOORS[door](hub, "conflicts", {"limit": 4, "offset": 8})["result"]
    assert [g["needs_action"] for g in result["groups"]] == [True, True, False, False]
    assert result["needs_action"] == 2 and result["needs_action_total"] == GROUPS // 3


@pytest.mark.parametrize(("door", "default"), [("tool", _tool.DEFAULT_LIMIT), ("mcp", mcp_server.DEFAULT_LIMIT)])
def test_a_default_limit_applies(hub: KnowledgeGraph, door: str, default: int) -> None:
    assert (_tool.DEFAULT_LIMIT, mcp_server.DEFAULT_LIMIT) == (100, 50)
    result = DOORS[door](hub, "query", {"name": "hub"})["result"]
    assert (result["count"], result["total"], result["truncated"], result["next_offset"]) == (
        default,
        HUB,
        True,
        default,
    )
    assert result["facts"] == [f.to_dict() for f in hub.query("hub", limit=default)]
    for action, (params, _key, whole) in _cases(hub).items():
        result = DOORS[door](hub, action, params)["result"]
        assert result["count"] == min(default, len(whole)) and result["total"] == len(whole), action
    top = DOORS[door](hub, "query", {"name": "hub", "limit": _tool.MAX_LIMIT})["result"]
    assert (top["count"], top["truncated"]) == (HUB, False)


BAD = [
    ("limit", -1),
    ("limit", True),
    ("limit", "5"),
    ("limit", 1.5),
    ("limit", _tool.MAX_LIMIT + 1),
    ("offset", -1),
    ("offset", False),
    ("offset", "x"),
]


@pytest.mark.parametrize("door", sorted(DOORS))
@pytest.mark.parametrize(("field", "value"), BAD)
def test_bad_paging_is_invalid_request(hub: KnowledgeGraph, door: str, field: str, value: Any) -> None:
    for action, (params, _key, _whole) in _cases(hub).items():
        answer = DOORS[door](hub, action, {**params, field: value})
        assert not answer["ok"] and answer["error"]["code"] == "invalid_request", (action, answer)
        assert answer["error"]["field"] == field


def test_library_refuses_bad_paging(hub: KnowledgeGraph) -> None:
    from kgtoolkit import InvalidRequest

    for action in ACTIONS:
        for page in ({"limit": -1}, {"offset": -1}, {"limit": True}):
            with pytest.raises(InvalidRequest):
                LIBRARY[action](hub, **page)


def test_schemas_state_the_defaults() -> None:
    for action in ACTIONS:
        declared = _tool.registry()[action]
        assert declared.paged
        mine = declared.input_schema()["properties"]["limit"]
        assert (mine["default"], mine["maximum"], mine["minimum"]) == (100, _tool.MAX_LIMIT, 0)
        served = mcp_server.tool_specs()[f"kg_{action}"]["inputSchema"]["properties"]
        assert served["limit"]["default"] == 50 and served["offset"]["default"] == 0
    assert (
        "default" not in _tool.registry()["summary"].input_schema()["properties"]["limit"]
        or _tool.registry()["summary"].input_schema()["properties"]["limit"]["default"] == 20
    )
    assert not _tool.registry()["summary"].paged
    assert "100" in _tool.TOOL_SCHEMA["input_schema"]["properties"]["limit"]["description"]


# ---------------------------------------------------------------------- the command line

runner = CliRunner()


def _cli(db: Path | str, *args: Any) -> str:
    result = runner.invoke(app, ["--db", str(db), *map(str, args)])
    assert result.exit_code == 0, result.output
    return re.sub(r"\x1b\[[0-9;]*m", "", result.output)


@pytest.fixture
def hub_db(db_path: Path | str) -> Path | str:
    with KnowledgeGraph(db_path) as kg:
        _fill(kg)
    return db_path


def test_cli_headers_say_how_many_of_how_many(hub_db: Path | str) -> None:
    assert "hub (8 of 250 facts)" in _cli(hub_db, "query", "hub", "--limit", "8")
    assert "hub (250 facts)" in _cli(hub_db, "query", "hub")
    assert "knows (5 of 250 facts)" in _cli(hub_db, "search", "knows", "--limit", "5", "--offset", "10")
    assert "timeline of hub (3 of 250 facts)" in _cli(hub_db, "timeline", "hub", "--limit", "3")
    assert "aliases (2 of 30 aliases)" in _cli(hub_db, "aliases", "hub", "--limit", "2")
    assert "past the 250 facts" in _cli(hub_db, "query", "hub", "--offset", "300")


def test_cli_limit_and_offset(hub_db: Path | str) -> None:
    with KnowledgeGraph(hub_db) as kg:
        whole = [f.id for f in kg.query("hub")]
        aliases = [a.alias for a in kg.aliases()]
        groups = [(g.subject, g.predicate) for g in kg.conflicts()]
    for command, key, everything, pick in (
        (("query", "hub"), "facts", whole, lambda r: [f["id"] for f in r]),
        (("timeline", "hub"), "facts", whole, lambda r: [f["id"] for f in r]),
        (("aliases",), "aliases", aliases, lambda r: [a["alias"] for a in r]),
        (("conflicts",), "groups", groups, lambda r: [(g["subject"], g["predicate"]) for g in r]),
    ):
        answer = json.loads(_cli(hub_db, "--json", *command, "--limit", "4", "--offset", "3"))
        assert pick(answer[key]) == everything[3:7], command
        assert (answer["count"], answer["total"], answer["truncated"], answer["next_offset"]) == (
            4,
            len(everything),
            True,
            7,
        )
    search = json.loads(_cli(hub_db, "--json", "search", "knows", "--limit", "4", "--offset", "3"))
    assert [f["id"] for f in search["facts"]] == whole[3:7]


def test_cli_conflicts_compact_table(hub_db: Path | str) -> None:
    text = _cli(hub_db, "conflicts")
    assert "conflicts (30 groups, 10 needing action)" in text
    rows = [line.split() for line in text.splitlines() if re.match(r"s\d\d ", line.strip())]
    assert len(rows) == GROUPS and rows[0][:3] == ["s00", "works_at", "acme,"]
    assert "needs action" in text and text.count("globex") == GROUPS  # one row per group, not a table each
    assert "from" not in text  # no per-fact tables
    few = _cli(hub_db, "conflicts", "--limit", "3")
    assert "conflicts (3 of 30 groups, 10 needing action)" in few and few.count("globex") == 3 * 1
    assert "from" in few  # a table per group when there are only a few
    assert "20 of 30" not in _cli(hub_db, "conflicts", "--limit", "20", "--offset", "20")
    assert "conflicts (10 of 30 groups" in _cli(hub_db, "conflicts", "--limit", "20", "--offset", "20")
    assert "conflicts (10 groups, 10 needing action)" in _cli(hub_db, "conflicts", "--needs-action")

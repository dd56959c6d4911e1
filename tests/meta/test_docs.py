"""The documentation keeps up with the code (in the manner of sqlite-utils' test_docs.py).

Every action of the agent tool's registry must reach every door and the user guide: the MCP tool list,
the tool's JSON schema, docs/agents.md's list of actions and parameters and its list of MCP tools; the
defaults the schemas announce must be the library's. Every CLI command must have its section in the guide
(docs/commands.md, or the topic page that describes it), and every option of a command must be named in
that section (``--db``, ``--json`` and ``--help``, shared by the graph commands, are described once at the
top of docs/commands.md). The generated CLI and API references are checked by tests/meta/test_site.py.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import click
import pytest
import typer.main

import kgtoolkit
from kgtoolkit import _tool, mcp_server
from kgtoolkit.cli import app

DOCS = Path(__file__).resolve().parents[2] / "docs"
GENERATED = {"cli.md", "api.md", "changelog.md"}  # written from the code, or included: not the guide
#: The hand-written pages, one text; a page ends where the next begins, as a heading would end a section.
GUIDE = "\n## \n".join(
    page.read_text(encoding="utf-8") for page in sorted(DOCS.glob("*.md")) if page.name not in GENERATED
)
COMMANDS_PAGE = (DOCS / "commands.md").read_text(encoding="utf-8")
ACTIONS = list(_tool.registry())
COMMANDS: dict[str, click.Command] = typer.main.get_command(app).commands  # type: ignore[attr-defined]
SHARED_OPTIONS = {"--db", "--json", "--help"}


def _section(command: str) -> str:
    """The guide's ``### `kgtoolkit COMMAND …``` section, heading included, up to the next heading."""
    found = re.search(
        rf"^###\s+`kgtoolkit\s+{re.escape(command)}\b[^`]*`\n.*?(?=^#{{2,3}}\s|\Z)", GUIDE, flags=re.M | re.S
    )
    assert found is not None, f"docs/ has no '### `kgtoolkit {command} …`' section"
    return found.group(0)


def _code_words(text: str) -> set[str]:
    """Every identifier written in backticks in ``text`` (a backticked list counts each item)."""
    return {word for span in re.findall(r"`([^`]*)`", text) for word in re.findall(r"[a-z_]+", span)}


# ---------------------------------------------------------------------- the agent tool's actions


def test_the_registry_has_the_contracts_actions() -> None:
    assert {
        "add",
        "query",
        "invalidate",
        "supersede",
        "search",
        "timeline",
        "merge",
        "alias",
        "stats",
        "conflicts",
        "summary",
        "remember",
        "find",
    } <= set(ACTIONS)
    assert tuple(ACTIONS) == _tool.ACTIONS


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_is_an_mcp_tool(action: str) -> None:
    spec = mcp_server.tool_specs().get(f"kg_{action}")
    assert spec is not None, f"the action {action} is missing from the MCP tool list"
    declared = _tool.registry()[action]
    assert spec["description"] == declared.description
    offered = [p for p in declared.params if p.offered]
    assert list(spec["inputSchema"]["properties"]) == [p.name for p in offered]
    assert spec["inputSchema"].get("required", []) == [p.name for p in offered if p.required]
    for name, schema in spec["inputSchema"]["properties"].items():
        assert schema.get("description"), f"kg_{action}'s parameter {name} has no description"


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_is_in_the_tool_schema(action: str) -> None:
    schema = kgtoolkit.TOOL_SCHEMA["input_schema"]
    assert _tool.tool_schema() == kgtoolkit.TOOL_SCHEMA, "TOOL_SCHEMA was built before an action was declared"
    assert action in schema["properties"]["action"]["enum"], f"the action {action} is missing from TOOL_SCHEMA"
    assert action in schema["properties"]["action"]["description"]
    for param in _tool.registry()[action].params:
        assert schema["properties"][param.name]["type"] == param.type, (action, param.name)
        assert schema["properties"][param.name].get("description"), param.name


def test_every_action_and_parameter_is_in_the_guide() -> None:
    section = _section("tool")
    listed = re.search(r"^Actions: `([^`]*)`", section, flags=re.M)
    assert listed is not None, "docs/agents.md's tool section has no 'Actions: `…`' list"
    assert [a.strip() for a in listed.group(1).split(",")] == ACTIONS, "docs/agents.md's actions are not the registry's"
    words = _code_words(section)
    for action, declared in _tool.registry().items():
        missing = [p.name for p in declared.params if p.name not in words]
        assert not missing, f"docs/agents.md's tool section does not name {action}'s parameters {missing}"


def test_every_action_is_in_the_guides_mcp_tools() -> None:
    words = _code_words(_section("mcp"))
    missing = [f"kg_{action}" for action in ACTIONS if f"kg_{action}" not in words]
    assert not missing, f"docs/agents.md's mcp section does not list the tools {missing}"


def _library_call(action: str) -> Any:
    if action == "find":
        from kgtoolkit.search import find

        return find
    if action == "forecast":  # the action asks the graph's kept model (kgtoolkit.forecast.latest)
        from kgtoolkit.forecast import Recurrency

        return Recurrency.predict
    if action == "path":  # KnowledgeGraph.path is the graph's location; the action is KnowledgeGraph.paths
        return kgtoolkit.KnowledgeGraph.paths
    if action == "search":  # the structured filter is KnowledgeGraph.by_predicate (the text search is find)
        return kgtoolkit.KnowledgeGraph.by_predicate
    return getattr(kgtoolkit.KnowledgeGraph, action, None)


@pytest.mark.parametrize("action", ACTIONS)
def test_the_schemas_defaults_are_the_librarys(action: str) -> None:
    declared = [p for p in _tool.registry()[action].params if p.default is not None]
    if not declared:
        return
    call = _library_call(action)
    assert call is not None, f"{action} announces defaults but has no library function of its name to check them"
    parameters = inspect.signature(call).parameters
    for param in declared:
        assert param.name in parameters, f"{action}: {param.name} is not a parameter of {call.__qualname__}"
        assert parameters[param.name].default == param.default, (action, param.name)


# ---------------------------------------------------------------------- the command line


def test_every_command_is_documented() -> None:
    headings = set(re.findall(r"^###\s+`kgtoolkit\s+([a-z][\w-]*)", GUIDE, flags=re.M))
    missing = sorted(set(COMMANDS) - headings)
    assert not missing, f"commands without a '### `kgtoolkit NAME …`' section in docs/: {missing}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_is_documented(command: str) -> None:
    section = _section(command)
    missing = []
    for param in COMMANDS[command].params:
        names = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
        if (
            names
            and not set(names) & SHARED_OPTIONS
            and not any(re.search(rf"{re.escape(n)}\b", section) for n in names)
        ):
            missing.append("/".join(names))
    assert not missing, f"the guide's section on `kgtoolkit {command}` does not mention {missing}"


def test_the_shared_options_are_documented_once() -> None:
    intro = COMMANDS_PAGE[: COMMANDS_PAGE.index("###")]
    assert "--db" in intro and "--json" in intro
    with_db = {name for name, cmd in COMMANDS.items() if any("--db" in p.opts for p in cmd.params)}
    assert {"add", "query", "stats", "tool", "mcp", "path", "dashboard"} <= with_db

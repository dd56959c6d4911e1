"""The MCP server: the graph over the Model Context Protocol (stdio), for every agent that speaks it.

``kgtoolkit mcp [--db PATH|URL]`` serves one tool per action of the JSON agent tool (``kg_add``,
``kg_query``, ``kg_supersede``, …), a ``kg://summary`` resource and a ``kg_summary`` prompt.

One implementation, two doors: every tool call, the resource and the prompt go through
:func:`kgtoolkit._tool.run_tool`, and the tool list, descriptions, input schemas and hints come from
the agent tool's one registry (:func:`kgtoolkit._tool.registry`), so an action declared there appears
here as ``kg_<action>`` without an edit. The graph (an SQLite file, or a ``postgresql://`` URL) is chosen by
:func:`~kgtoolkit.store.resolve` (``--db``, else ``$KGTOOLKIT_DB``, else the default) and opened once
per server; several servers (one per agent) may write the same graph at once (SQLite: WAL, ``BEGIN
IMMEDIATE``, busy timeout; PostgreSQL: serializable transactions, retried on conflicts).

``--print-config CLIENT`` prints the client's configuration: the absolute command and ``--db`` with
the graph's absolute file path, or the PostgreSQL URL exactly as given. A URL's password is part of
it, so the snippet holds the password in plain text (the server needs it to connect); to keep it out
of the client's configuration, give a URL without the password: libpq (psycopg) then takes it from
``~/.pgpass`` or from ``PGPASSWORD`` in the server's environment. The hint printed with the snippet
says so.

Answers have the agent tool's shape. A tool result carries ``{"ok": true, "result": …}`` as JSON
text and as ``structuredContent``; a failure is an MCP tool error (``isError: true``) carrying
``{"ok": false, "error": {"code", "message", "suggestions", …}}`` the same two ways.

The ``mcp`` package (the official SDK, 2.x) is imported only when the server starts, so
``import kgtoolkit`` and ``kgtoolkit mcp --print-config`` work without it.

>>> sorted(tool_specs())[:3]
['kg_add', 'kg_alias', 'kg_alias_predicate']
>>> tool_specs()["kg_query"]["inputSchema"]["required"]
['name']
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from . import _tool
from ._errors import InvalidRequest, KGError, MissingDependency  # MissingDependency lived here: still importable
from .graph import KnowledgeGraph
from .store import resolve

__all__ = ["CLIENTS", "SUMMARY_URI", "build_server", "config_snippet", "serve", "tool_specs"]

SERVER_NAME = "kgtoolkit"
TOOL_PREFIX = "kg_"
SUMMARY_URI = "kg://summary"
STATS_URI = "kg://stats"
PROMPT_NAME = "kg_summary"
MCP_REQUIREMENT = "mcp>=2.3,<3"
DEFAULT_LIMIT = 50
"""How many items a list tool (kg_query, kg_search, kg_timeline, kg_conflicts, kg_aliases, kg_predicates) returns
when the call gives no ``limit``: smaller than the JSON tool's, for an agent's context (at most ``_tool.MAX_LIMIT``)."""

INSTRUCTIONS = (
    "A temporal knowledge graph shared by every agent that works on this project: stable facts "
    "(subject → predicate → object) with the dates they held. Before answering about past decisions, "
    "owners, dependencies or the state of something, check kg_query (or kg_search / kg_timeline). Record "
    "stable facts with kg_add; when one changes, use kg_supersede (old → new at a date) or kg_invalidate "
    "(it simply ended): history is kept, never delete. Names resolve exactly or through aliases, never "
    "fuzzily: a not_found error lists suggestions; use one, or kg_alias to register the other name. "
    "Review contradictions with kg_conflicts. List tools answer one page (default 50 items): total says how "
    "many match; when truncated, call again with offset = next_offset. Errors carry a stable code, a message "
    "and suggestions."
)


def tool_specs() -> dict[str, dict[str, Any]]:
    """``kg_<action>`` → ``{"name", "action", "title", "description", "inputSchema", "annotations"}`` for every
    action of the agent tool's registry, read at call time (so a new action appears without an edit here)."""
    specs: dict[str, dict[str, Any]] = {}
    for act in _tool.registry().values():
        name = TOOL_PREFIX + act.name
        specs[name] = {
            "name": name,
            "action": act.name,
            "title": act.name.replace("_", " ").capitalize() + " (knowledge graph)",
            "description": act.description,
            "inputSchema": act.input_schema(default_limit=DEFAULT_LIMIT),
            "annotations": {
                "readOnlyHint": act.read_only,
                "destructiveHint": act.destructive,
                "idempotentHint": act.read_only or act.idempotent,
                "openWorldHint": False,
            },
        }
    return specs


def call(
    kg: KnowledgeGraph | None, tool: str, arguments: Mapping[str, Any] | None, failure: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Answer one tool call with the agent tool's envelope; never raises.

    ``kg_x`` with ``arguments`` is ``run_tool({"action": "x", **arguments})``: the one dispatcher, with
    this server's :data:`DEFAULT_LIMIT` for the list tools.
    """
    if failure is not None:
        return failure
    specs = tool_specs()
    if tool not in specs:
        names = sorted(specs)
        return _tool.envelope(
            error=InvalidRequest(
                f"unknown tool {tool!r}; use one of: {', '.join(names)}",
                field="name",
                value=str(tool),
                suggestions=names,
            )
        )
    args = dict(arguments or {})
    if "action" in args:
        return _tool.envelope(
            error=InvalidRequest(
                f"{tool} does not take action: the tool name is the action", field="action", value=str(args["action"])
            )
        )
    return _tool.run_tool({"action": specs[tool]["action"], **args}, kg=kg, default_limit=DEFAULT_LIMIT)


# ---------------------------------------------------------------------- server


def _import_sdk() -> Any:
    try:
        from importlib.metadata import version

        import mcp_types
        from mcp.server.lowlevel import Server
    except ImportError as exc:
        raise MissingDependency(
            f"`kgtoolkit mcp` needs the official MCP SDK ({exc}); install it: pip install '{MCP_REQUIREMENT}'"
        ) from exc
    found = version("mcp")
    if int(found.split(".")[0]) < 2:
        raise MissingDependency(
            f"`kgtoolkit mcp` needs mcp 2.x, found {found}; upgrade: pip install -U '{MCP_REQUIREMENT}'"
        )
    return Server, mcp_types


def _open(db: str | os.PathLike[str] | None) -> tuple[KnowledgeGraph | None, dict[str, Any] | None]:
    """The graph (opened once per server), or the error every call answers when it cannot be opened."""
    try:
        return KnowledgeGraph(db), None
    except KGError as exc:
        return None, _tool.envelope(error=exc)


def build_server(kg: KnowledgeGraph | None, failure: dict[str, Any] | None = None) -> Any:  # noqa: C901  (over the limit before it was set: to split)
    """A low-level ``mcp.server.lowlevel.Server`` over ``kg`` (or answering ``failure`` to every call)."""
    import anyio

    Server, types = _import_sdk()
    from mcp.shared.exceptions import MCPError

    async def run(tool: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        # SQLite may wait on another server's write lock: keep the event loop free meanwhile.
        return await anyio.to_thread.run_sync(partial(call, kg, tool, arguments, failure))

    def tool_result(answer: dict[str, Any]) -> Any:
        text, answer = _tool.answer_json(answer)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=answer, is_error=not answer["ok"]
        )

    async def list_tools(ctx: Any, params: Any) -> Any:
        tools = []
        for s in tool_specs().values():
            hints = s["annotations"]
            annotations = types.ToolAnnotations(
                title=s["title"],
                read_only_hint=hints["readOnlyHint"],
                destructive_hint=hints["destructiveHint"],
                idempotent_hint=hints["idempotentHint"],
                open_world_hint=hints["openWorldHint"],
            )
            tools.append(
                types.Tool(
                    name=s["name"],
                    title=s["title"],
                    description=s["description"],
                    input_schema=s["inputSchema"],
                    annotations=annotations,
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        return tool_result(await run(params.name, params.arguments))

    async def summary(arguments: Mapping[str, Any]) -> str:
        answer = await run(TOOL_PREFIX + "summary", arguments)
        if not answer["ok"]:
            raise MCPError(types.INVALID_PARAMS, answer["error"]["message"], answer["error"])
        return str(answer["result"]["markdown"])

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=SUMMARY_URI,
                    name="summary",
                    title="Knowledge graph summary",
                    mime_type="text/markdown",
                    description="The best-connected entities and their current facts (kg_summary), as Markdown.",
                ),
                types.Resource(
                    uri=STATS_URI,
                    name="stats",
                    title="Knowledge graph counts",
                    mime_type="application/json",
                    description="Entities per type, facts, current, ended, predicates, aliases (kg_stats).",
                ),
            ]
        )

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri == SUMMARY_URI:
            text, mime = await summary({}), "text/markdown"
        elif uri == STATS_URI:
            answer = await run(TOOL_PREFIX + "stats", {})
            if not answer["ok"]:
                raise MCPError(types.INTERNAL_ERROR, answer["error"]["message"], answer["error"])
            text, mime = json.dumps(answer["result"], ensure_ascii=False, indent=2), "application/json"
        else:
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown resource {uri!r}; use {SUMMARY_URI} or {STATS_URI}",
                {"uri": uri, "suggestions": [SUMMARY_URI, STATS_URI]},
            )
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    prompt = types.Prompt(
        name=PROMPT_NAME,
        title="Knowledge graph context",
        description="What the shared knowledge graph holds (top entities and their current facts), to start "
        "a task with.",
        arguments=[
            types.PromptArgument(name="limit", description="How many entities (default 20).", required=False),
            types.PromptArgument(name="style", description="main or subagent.", required=False),
            types.PromptArgument(
                name="as_of", description="The facts current on this date (YYYY-MM-DD).", required=False
            ),
        ],
    )

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: Any) -> Any:
        if params.name != PROMPT_NAME:
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown prompt {params.name!r}; use {PROMPT_NAME}",
                {"suggestions": [PROMPT_NAME]},
            )
        args: dict[str, Any] = {k: v for k, v in (params.arguments or {}).items() if v not in (None, "")}
        if isinstance(args.get("limit"), str) and args["limit"].strip().isdigit():
            args["limit"] = int(args["limit"])  # prompt arguments are text; the dispatcher checks the rest
        markdown = await summary(args)
        text = (
            f"{markdown.rstrip()}\n\nThis is the shared knowledge graph (kgtoolkit). Check kg_query before "
            "answering about past decisions; record stable facts with kg_add and close changed ones with "
            "kg_supersede or kg_invalidate.\n"
        )
        return types.GetPromptResult(
            description="Knowledge graph context",
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )

    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("kgtoolkit")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        ours = "0"
    return Server(
        SERVER_NAME,
        version=ours,
        title="kgtoolkit knowledge graph",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def serve(db: str | os.PathLike[str] | None = None) -> None:
    """Serve the graph at ``db`` (see :func:`~kgtoolkit.store.resolve`) over MCP stdio until stdin closes."""
    _import_sdk()  # a clear error before anything else
    import anyio
    from mcp.server.stdio import stdio_server

    kg, failure = _open(db)
    server = build_server(kg, failure)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        if kg is not None:
            kg.close()


# ---------------------------------------------------------------------- client configuration

# client -> (file format, where the snippet goes)
CLIENTS: dict[str, tuple[str, str]] = {
    "claude-code": (
        "mcpServers+type",
        "save as .mcp.json in the project (merge into mcpServers), or run: "
        "claude mcp add --scope user {name} -- {command_line}",
    ),
    "claude-desktop": (
        "mcpServers",
        "merge into claude_desktop_config.json (macOS: ~/Library/Application Support/"
        "Claude/, Windows: %APPDATA%\\Claude\\), then restart Claude Desktop",
    ),
    "cursor": ("mcpServers", "merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (this project)"),
    "vscode": (
        "servers",
        "merge into .vscode/mcp.json (workspace) or the user mcp.json (command palette: MCP: Open User Configuration)",
    ),
    "codex": (
        "toml",
        "append to ~/.codex/config.toml (or .codex/config.toml of a trusted project), or run: "
        "codex mcp add {name} -- {command_line}",
    ),
    "gemini": ("mcpServers", "merge into ~/.gemini/settings.json (or .gemini/settings.json of the project)"),
    "zed": ("context_servers", "merge into Zed's settings.json (zed: open settings)"),
    "windsurf": ("mcpServers", "merge into ~/.codeium/windsurf/mcp_config.json"),
}


def server_command(db: str | os.PathLike[str] | None = None) -> tuple[str, list[str]]:
    """The absolute command and arguments that start this server on the graph ``db`` (resolved now, absolute)."""
    location = resolve(db)
    if location.memory:
        raise InvalidRequest(
            "an MCP client needs a graph that outlives it, not :memory:; pass --db PATH or a postgresql:// URL",
            field="db",
            value=":memory:",
        )
    db_arg = os.path.abspath(location.path) if location.path is not None else (location.url or "")
    script = "kgtoolkit.exe" if sys.platform == "win32" else "kgtoolkit"
    beside = Path(sys.executable).parent / script  # the script of the environment running us
    found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("kgtoolkit")
    if found:
        return os.path.abspath(found), ["mcp", "--db", db_arg]
    return os.path.abspath(sys.executable), ["-m", "kgtoolkit", "mcp", "--db", db_arg]


def _has_password(url: str) -> bool:
    """True if a libpq URL carries a password (``user:password@`` or ``?password=``)."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(url)
        return parts.password is not None or "password" in parse_qs(parts.query)
    except ValueError:  # not a URL urllib understands: say the cautious thing
        return True


def _password_hint(db: str | os.PathLike[str] | None) -> str:
    """For a PostgreSQL graph, where the password comes from (the snippet holds the URL as given)."""
    location = resolve(db)
    if location.kind != "postgresql":
        return ""
    if _has_password(location.url or ""):
        return (
            ". The snippet holds the database password in plain text (the server needs it to connect); to keep "
            "it out, give --db a URL without the password and put the password in ~/.pgpass or in PGPASSWORD "
            "in the server's environment (libpq reads both)"
        )
    return (
        ". The URL holds no password: the server gets it, if the database needs one, from ~/.pgpass or from "
        "PGPASSWORD in the server's environment (libpq reads both)"
    )


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string (ASCII, \" \\ \uXXXX escapes) is a valid TOML basic string


def _toml_key(value: str) -> str:
    return value if value and all(c.isascii() and (c.isalnum() or c in "_-") for c in value) else _toml_string(value)


def config_snippet(
    client: str, db: str | os.PathLike[str] | None = None, *, name: str = SERVER_NAME
) -> tuple[str, str]:
    """``(snippet, hint)``: the configuration that makes ``client`` start this server on ``db``, and where it goes.

    A PostgreSQL URL is passed as given, password included (see the module's docstring); the hint says
    where else the password can come from.

    >>> text, hint = config_snippet("cursor", "/tmp/g.sqlite3")
    >>> json.loads(text)["mcpServers"]["kgtoolkit"]["args"][-2:]
    ['--db', '/tmp/g.sqlite3']
    """
    key = client.strip().lower()
    if key not in CLIENTS:
        raise InvalidRequest(
            f"unknown client {client!r}; use one of: {', '.join(CLIENTS)}",
            field="client",
            value=client,
            suggestions=list(CLIENTS),
        )
    command, args = server_command(db)
    shape, where = CLIENTS[key]
    entry: dict[str, Any] = {"command": command, "args": args}
    if shape == "toml":
        text = (
            f"[mcp_servers.{_toml_key(name)}]\ncommand = {_toml_string(command)}\n"
            f"args = [{', '.join(_toml_string(a) for a in args)}]\n"
        )
    elif shape == "servers":
        text = json.dumps({"servers": {name: {"type": "stdio", **entry}}}, indent=2) + "\n"
    elif shape == "mcpServers+type":
        text = json.dumps({"mcpServers": {name: {"type": "stdio", **entry, "env": {}}}}, indent=2) + "\n"
    elif shape == "context_servers":
        text = json.dumps({"context_servers": {name: {**entry, "env": {}}}}, indent=2) + "\n"
    else:
        text = json.dumps({"mcpServers": {name: {**entry, "env": {}}}}, indent=2) + "\n"
    import shlex

    hint = f"{key}: " + where.format(name=name, command_line=shlex.join([command, *args])) + _password_hint(db)
    return text, hint

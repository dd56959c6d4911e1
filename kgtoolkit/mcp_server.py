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

import contextlib
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from . import _tool
from ._errors import InvalidRequest, KGError, MissingDependency  # MissingDependency lived here: still importable
from ._limits import too_deep
from ._names import printable
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


# ---------------------------------------------------------------------- the wire: every request answered

# The SDK's stdio reader drops a line its parser refuses (a lone surrogate, nesting deeper than its parser
# goes, an integer past Python's 4,300 digits, a malformed envelope): the client would wait forever. Each
# line is read here first; the SDK sees only the lines it parses, and the others are answered here.
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(true|false|null)|([{}\[\]:,]))')
_MAX_ID = 2**63
_WANTED = {("jsonrpc",): "jsonrpc", ("id",): "id", ("method",): "method", ("params", "name"): "name"}


def envelope_of(line: str) -> dict[str, Any]:
    """What can be read of a line's JSON-RPC envelope, whatever else it holds: ``jsonrpc``, ``id``,
    ``method`` and ``params.name``, as far as they are JSON texts or whole numbers (an ``id`` of another
    kind, or not valid Unicode, is left out). Scanned token by token, so any depth and any number reads.

    >>> envelope_of('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "kg_add", "arguments": '
    ...             + "[" * 5000 + "]" * 5000 + "}}")
    {'jsonrpc': '2.0', 'id': 7, 'method': 'tools/call', 'name': 'kg_add'}
    >>> envelope_of("not json")
    {}
    """
    found: dict[str, Any] = {}
    path: list[str | None] = []  # the key of each open object (None: a list, or an object awaiting its key)
    kinds: list[str] = []
    key: str | None = None
    expect_key = False
    pos = 0
    while pos < len(line):
        token = _TOKEN.match(line, pos)
        if token is None or token.end() == pos:
            break
        pos = token.end()
        text, number, _literal, mark = token.groups()
        if mark in ("{", "["):
            path.append(key)
            kinds.append(mark)
            key, expect_key = None, mark == "{"
        elif mark in ("}", "]"):
            if not kinds:
                break
            kinds.pop()
            key = path.pop()
            expect_key = False
        elif mark == ",":
            expect_key = bool(kinds) and kinds[-1] == "{"
            if expect_key:
                key = None
        elif mark == ":":
            expect_key = False
        elif expect_key and text is not None:
            try:
                key = json.loads(text)
            except ValueError:
                key = None
        elif 0 < len(kinds) <= 2 and all(k == "{" for k in kinds) and key is not None and None not in path[1:]:
            name = _WANTED.get((*path[1:], key))  # type: ignore[arg-type]  # None is ruled out just above
            if name is not None:
                found[name] = _scalar(name, text, number)
    return {k: v for k, v in found.items() if v is not None}


def _scalar(name: str, text: str | None, number: str | None) -> Any:
    """A string token's text (valid Unicode), or an ``id``'s whole number (within 64 bits); else None."""
    if text is not None:
        with contextlib.suppress(ValueError):  # UnicodeEncodeError is a ValueError
            value = json.loads(text)
            value.encode("utf-8")
            return value
    elif number is not None and name == "id" and number.lstrip("-").isdigit() and len(number) <= 20:
        return int(number) if abs(int(number)) < _MAX_ID else None
    return None


def _parse_problem(line: str) -> tuple[Any, InvalidRequest | None, bool]:
    """The line's JSON (Python's reading, which admits lone surrogates), or why it has none that can be read;
    and whether the line is JSON at all (nesting or a number past what can be read is JSON still)."""
    if not line.strip():
        return None, InvalidRequest("the line is empty: each line is one JSON-RPC message", field="request"), False
    try:
        return json.loads(line), None, True
    except RecursionError:
        return None, too_deep(), True
    except ValueError as exc:
        if "integer string conversion" in str(exc) or "Exceeds the limit" in str(exc):
            problem = InvalidRequest(
                "the request holds a number of more than 4,300 digits; numbers are counts and limits", field="request"
            )
            return None, problem, True
        return None, InvalidRequest(f"the line is not valid JSON: {printable(str(exc))}", field="request"), False


def _why(exc: Exception) -> str:
    """The first reason a validation error gives, in a line."""
    errors = getattr(exc, "errors", None)
    try:
        first = errors()[0] if callable(errors) else None
    except Exception:  # an error whose errors() itself fails: its text
        first = None
    text = (
        f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        if first and first.get("loc")
        else (first["msg"] if first else str(exc).splitlines()[0])
    )
    return printable(text)


async def answer_line(
    line: str, answer_tool: Any, types: Any
) -> Any | None:  # a JSONRPCResponse or JSONRPCError; None: the SDK reads the line
    """The answer to a line the SDK cannot read (None when it can).

    A ``tools/call`` whose envelope reads (``jsonrpc`` 2.0, an ``id``, ``params.name``) is answered as a tool
    call: what the agent tool says of its arguments (``invalid_request`` for text that is not valid Unicode,
    nesting past 32 levels, a number too long to read). Another line with a readable ``id`` gets a JSON-RPC
    error with that id (-32600 for a malformed envelope, -32602 for unreadable parameters); a line with
    none gets the JSON-RPC parse error with ``id: null`` (-32600 when it is JSON, but not a request).
    """
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # the SDK's reason, when ours has none
        refused = exc
    else:
        if not (isinstance(message, types.JSONRPCNotification) and '"id"' in line):
            return None
        # a request whose id is neither text nor a whole number (an object, null) reads as a notification
        value, _, _ = _parse_problem(line)
        if not (isinstance(value, dict) and "id" in value):
            return None
        reason = "not a JSON-RPC 2.0 request: its id must be a string or a whole number"
        return types.JSONRPCError(
            jsonrpc="2.0", id=None, error=types.ErrorData(code=types.INVALID_REQUEST, message=reason)
        )
    head = envelope_of(line)
    value, problem, is_json = _parse_problem(line)
    rid = head.get("id")
    if rid is None or not is_json:
        code = types.PARSE_ERROR if problem is not None else types.INVALID_REQUEST
        reason = (
            problem.message if problem is not None else "a JSON-RPC 2.0 message is an object with jsonrpc, id, method"
        )
        return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=reason))
    well_formed = head.get("jsonrpc") == "2.0" and isinstance(head.get("method"), str)
    if well_formed and head["method"] == "tools/call" and isinstance(head.get("name"), str):
        arguments = None
        if problem is None:
            params = value.get("params") if isinstance(value, dict) else None
            arguments = params.get("arguments", {}) if isinstance(params, dict) else None
        if problem is not None or isinstance(arguments, dict):
            answer = (
                _tool.envelope(error=problem) if problem is not None else await answer_tool(head["name"], arguments)
            )
            text, answer = _tool.answer_json(answer)
            result = {
                "content": [{"type": "text", "text": text}],
                "structuredContent": answer,
                "isError": not answer["ok"],
            }
            return types.JSONRPCResponse(jsonrpc="2.0", id=rid, result=result)
    reason = problem.message if problem is not None else _why(refused)
    if not well_formed:
        code, reason = types.INVALID_REQUEST, f"not a JSON-RPC 2.0 request ({reason})"
    else:
        code = types.INVALID_PARAMS
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=reason))


class _Lines:
    """stdin for the SDK's stdio transport: the lines it can read; every other line answered here."""

    def __init__(self, answer_tool: Any, types: Any) -> None:
        import anyio

        self.source = anyio.wrap_file(sys.stdin.buffer)
        self.answer_tool, self.types = answer_tool, types
        self.out: Any = None  # the transport's write stream, set once it exists
        self.ready = anyio.Event()

    async def __aiter__(self) -> Any:
        from mcp.shared.message import SessionMessage

        async for raw in self.source:
            # Bytes that are not UTF-8 become lone surrogates, which the dispatcher refuses (invalid_request).
            line = raw.decode("utf-8", "surrogateescape")
            try:
                answer = await answer_line(line, self.answer_tool, self.types)
            except Exception as exc:  # the transport must survive every line
                answer = self.types.JSONRPCError(
                    jsonrpc="2.0",
                    id=None,
                    error=self.types.ErrorData(
                        code=self.types.INTERNAL_ERROR, message=printable(f"{type(exc).__name__}: {exc}")
                    ),
                )
            if answer is None:
                yield line
            else:
                await self.ready.wait()
                await self.out.send(SessionMessage(answer))


def serve(db: str | os.PathLike[str] | None = None) -> None:
    """Serve the graph at ``db`` (see :func:`~kgtoolkit.store.resolve`) over MCP stdio until stdin closes.

    Every request with an id is answered, whatever the line holds (:func:`answer_line`)."""
    _, types = _import_sdk()  # a clear error before anything else
    import anyio
    from mcp.server.stdio import stdio_server

    kg, failure = _open(db)
    server = build_server(kg, failure)

    async def answer_tool(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(partial(call, kg, tool, arguments, failure))

    async def main() -> None:
        lines = _Lines(answer_tool, types)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.out = write_stream
            lines.ready.set()
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

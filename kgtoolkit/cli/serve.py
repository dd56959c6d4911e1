"""The commands that hand the graph to another program: the agent tool on stdin/stdout (``tool``), the MCP
server (``mcp``) and the Streamlit dashboard (``dashboard``).

Each is a door of its own (:func:`kgtoolkit.run_tool`, :mod:`kgtoolkit.mcp_server`, :mod:`kgtoolkit.dashboard`);
these commands only choose the graph and start it. The MCP and dashboard packages are imported when the
command runs, never at ``import kgtoolkit.cli``.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from .._errors import InvalidRequest, KGError, NotFound, StoreError, missing_dependency
from .._tool import TOOL_SCHEMA, answer_json, envelope, registry, run_tool
from ..graph import KnowledgeGraph
from ..store import Location, resolve
from ._common import Call, command
from ._render import emit, err, out

__all__ = ["dashboard", "mcp_", "tool"]


@command(
    "tool",
    json=False,
    help="The agent tool: read one JSON request per line on stdin, write one JSON answer per "
    f"line. Actions: {', '.join(registry())}; --schema prints their parameters.",
)
def tool(
    call: Call,
    schema: Annotated[
        bool,
        typer.Option(
            "--schema", help="Print the tool's JSON schema (every action and parameter) and exit; opens no graph."
        ),
    ] = False,
) -> None:
    """The agent tool: read one JSON request per line on stdin, write one JSON answer per line."""
    if schema:
        emit(TOOL_SCHEMA)
        return
    try:  # opened here: a graph that fails to open is answered as an error envelope on every line
        kg: KnowledgeGraph | None = call.open()
        failure = None
    except KGError as exc:
        kg, failure = None, envelope(error=exc)
    # Bytes in, UTF-8 bytes out, whatever the locale: a line that is not UTF-8 is refused by
    # run_tool like any other bad request, and the next line is still answered.
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    stdout = getattr(sys.stdout, "buffer", None)
    try:
        for line in stdin:  # every line is answered, a blank one too (invalid_request)
            text, _ = answer_json(failure or run_tool(line, kg=kg))
            if stdout is not None:
                stdout.write(text.encode("utf-8") + b"\n")
                stdout.flush()
            else:  # a text-only stream (sys.stdout replaced by the caller)
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
    finally:
        if kg is not None:
            kg.close()


@command("mcp", json=False)
def mcp_(
    call: Call,
    print_config: Annotated[
        str | None,
        typer.Option(
            "--print-config",
            metavar="CLIENT",
            help="Print the config snippet for CLIENT instead of serving: claude-code, claude-desktop, cursor, vscode, codex, gemini, zed or windsurf.",
        ),
    ] = None,
) -> None:
    """Serve the graph over MCP (stdio) to agents: kg_add, kg_query, kg_supersede, … (one file, many agents)."""
    from ..mcp_server import config_snippet, serve  # lazily: the mcp package is imported by `serve` only

    if print_config is None:
        serve(call.db)
        return
    text, hint = config_snippet(print_config, call.db)
    err.print(f"[dim]# {escape(hint)}[/]", highlight=False)
    out.out(text, end="", highlight=False)


def _graph_there(location: Location) -> None:
    """Refuse to serve a graph that does not exist (a mistyped ``--db``), saying how to make one: the dashboard
    shows a graph, it does not make an empty one."""
    hint = (
        "check --db (or $KGTOOLKIT_DB); to start a graph there, write to it first "
        f"(kgtoolkit add … --db {location}, kgtoolkit import FILE --db {location}, or kgtoolkit demo --out {location})"
    )
    if location.path is not None:
        if not location.path.exists():
            raise NotFound(f"no graph at {location}; {hint}", field="db", value=str(location))
        return
    try:  # PostgreSQL: a database or schema with no graph in it yet
        KnowledgeGraph(location, read_only=True).close()
    except NotFound as exc:
        raise NotFound(f"no graph in {location} yet; {hint}", field="db", value=str(location)) from exc
    except StoreError:  # one to upgrade, say: the open below, writable, says what it says
        pass


@command("dashboard", json=False)
def dashboard(
    call: Call,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to serve on.")] = 8501,
    read_only: Annotated[bool, typer.Option("--read-only", help="Disable every change (for sharing).")] = False,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind; loopback unless you mean to share it.")
    ] = "127.0.0.1",
) -> None:
    """Start the Streamlit dashboard on the graph (graph, entity, conflicts, churn, search, import/export)."""
    import importlib.util
    import os

    location = resolve(call.db)
    if location.memory:
        raise InvalidRequest("the dashboard needs a graph that outlives it, not :memory:", field="db", value=":memory:")
    from ..dashboard import SCRIPT as script  # the Streamlit script ships inside the package

    for package in ("streamlit", "pyvis"):
        if importlib.util.find_spec(package) is None:
            raise missing_dependency(package, "dashboard", needed_for="the dashboard")
    if not script.is_file():
        raise InvalidRequest(
            f"the dashboard app is not at {script}; this installation of kgtoolkit is incomplete "
            "(reinstall it: pip install --force-reinstall 'kgtoolkit[dashboard]')",
            field="dashboard",
            value=str(script),
        )
    _graph_there(location)
    KnowledgeGraph(location, read_only=read_only).close()  # fail here, clearly (a file this user cannot open, say)
    target = str(location.path.resolve()) if location.path is not None else (location.url or "")
    env = {**os.environ, "KGTOOLKIT_DB": target, "KGTOOLKIT_DASHBOARD_READ_ONLY": "1" if read_only else "0"}
    # -P (safe path): the working directory is not put on sys.path, so a folder named kgtoolkit beside the
    # user (the parent of a clone, say) never shadows the installed package inside the server.
    argv = [
        sys.executable,
        "-P",
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--global.developmentMode",
        "false",
        "--theme.base",
        "light",
        "--client.toolbarMode",
        "minimal",
    ]
    err.print(
        f"kgtoolkit dashboard on [bold]http://{host}:{port}[/] for {escape(str(location))}"
        f"{' (read-only)' if read_only else ''}; Ctrl-C stops it",
        highlight=False,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)  # the server replaces this process: signals reach it directly

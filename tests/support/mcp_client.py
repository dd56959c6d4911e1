"""Driving the MCP server as agents do in tests: a subprocess over stdio, with the SDK's own client."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@asynccontextmanager
async def server(
    tmp_path: Path, db: Path | str | None, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """``python -m kgtoolkit mcp [--db db]`` as a subprocess, and an initialised client session on it."""
    args = ["-m", "kgtoolkit", "mcp"] + (["--db", str(db)] if db is not None else [])
    params = StdioServerParameters(command=sys.executable, args=args, env={"HOME": str(tmp_path), **(env or {})})
    with open(tmp_path / f"server-{id(params)}.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The agent-tool envelope a tool call answered; its text content and structuredContent must agree."""
    result = await session.call_tool(tool, arguments)
    answer = json.loads(result.content[0].text)
    assert result.structured_content == answer
    assert result.is_error is (not answer["ok"])
    return answer


async def ok(session: ClientSession, tool: str, **arguments: Any) -> Any:
    answer = await call(session, tool, **arguments)
    assert answer["ok"], answer
    return answer["result"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)

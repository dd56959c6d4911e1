"""The MCP server, driven the way agents drive it: a subprocess, over stdio, with the SDK's own client."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp_client import call, ok, run, server

from kgtoolkit import KnowledgeGraph, _tool

BASE_TOOLS = {
    "kg_add",
    "kg_invalidate",
    "kg_supersede",
    "kg_query",
    "kg_search",
    "kg_timeline",
    "kg_merge",
    "kg_alias",
    "kg_stats",
    "kg_conflicts",
    "kg_summary",
}


def test_lists_every_action_as_a_tool_with_schema_and_description(tmp_path: Path, db_path: Path | str) -> None:
    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as session:
            return {t.name: t for t in (await session.list_tools()).tools}

    tools = run(go())
    assert set(tools) == {f"kg_{action}" for action in _tool.ACTIONS}
    assert set(tools) >= BASE_TOOLS
    for action in ("remember", "find"):  # the search tools appear once (and only once) the agent tool has them
        assert (f"kg_{action}" in tools) == (action in _tool.ACTIONS)
    for name, tool in tools.items():
        schema = tool.input_schema
        assert schema["type"] == "object" and "action" not in schema["properties"]
        assert set(schema["properties"]) <= {p.name for p in _tool.registry()[name[3:]].params}
        assert tool.description and len(tool.description) > 40
    assert tools["kg_add"].input_schema["required"] == ["subject"]
    assert {"predicate", "object", "valid_from", "valid_to"} <= set(tools["kg_add"].input_schema["properties"])
    assert set(tools["kg_supersede"].input_schema["required"]) == {"subject", "predicate", "old_object", "new_object"}
    assert tools["kg_query"].input_schema["required"] == ["name"]
    assert tools["kg_query"].input_schema["properties"]["direction"]["enum"] == ["both", "outgoing", "incoming"]
    assert "required" not in tools["kg_stats"].input_schema
    assert "kg_supersede" in tools["kg_add"].description and "kg_invalidate" in tools["kg_add"].description
    assert "before answering" in tools["kg_query"].description
    assert tools["kg_query"].annotations.read_only_hint and not tools["kg_add"].annotations.read_only_hint


def test_worked_example_through_tool_calls(tmp_path: Path, db_path: Path | str) -> None:
    """contract §10, exactly, through the MCP door."""

    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as s:
            out: dict[str, Any] = {}
            out["first"] = await ok(
                s, "kg_add", subject="my_api", predicate="uses queue", object="Redis", valid_from="2026-03-02"
            )
            out["again"] = await ok(s, "kg_add", subject="My API", predicate="uses_queue", object="Redis")
            out["ended"] = await ok(
                s, "kg_invalidate", subject="my_api", predicate="uses_queue", object="Redis", ended="2026-10-12"
            )
            out["sqlite"] = await ok(
                s, "kg_add", subject="my_api", predicate="uses_queue", object="SQLite", valid_from="2026-10-12"
            )
            out["query"] = await ok(s, "kg_query", name="my_api")
            out["day_of_switch"] = await ok(s, "kg_query", name="my_api", as_of="2026-10-12")
            out["day_after"] = await ok(s, "kg_query", name="my_api", as_of="2026-10-13")
            out["incoming"] = await ok(s, "kg_query", name="sqlite", direction="incoming")
            out["conflicts"] = await ok(s, "kg_conflicts")
            return out

    r = run(go())
    assert r["first"]["created"] is True
    assert r["again"]["created"] is False and r["again"]["fact"]["id"] == r["first"]["fact"]["id"]
    assert r["ended"]["fact"]["valid_to"] == "2026-10-12" and r["ended"]["fact"]["current"] is False
    assert r["sqlite"]["created"] is True

    facts = r["query"]["facts"]
    assert r["query"]["count"] == 2
    assert [(f["object_name"], f["valid_from"], f["valid_to"], f["current"]) for f in facts] == [
        ("Redis", "2026-03-02", "2026-10-12", False),
        ("SQLite", "2026-10-12", None, True),
    ]
    assert {f["predicate"] for f in facts} == {"uses_queue"}
    assert sorted(f["object_name"] for f in r["day_of_switch"]["facts"]) == ["Redis", "SQLite"]
    assert [f["object_name"] for f in r["day_after"]["facts"]] == ["SQLite"]
    assert [(f["subject"], f["predicate"], f["object"], f["direction"]) for f in r["incoming"]["facts"]] == [
        ("my_api", "uses_queue", "sqlite", "incoming")
    ]

    conflicts = r["conflicts"]
    assert conflicts["count"] == 1 and conflicts["needs_action"] == 0
    (group,) = conflicts["groups"]
    assert (group["subject"], group["predicate"], group["objects"], group["current"]) == ("my_api", "uses_queue", 2, 1)
    assert not group["needs_action"]

    with KnowledgeGraph(db_path, read_only=True) as kg:  # the tools wrote the file the library reads
        assert [(f.object_name, f.current) for f in kg.query("my_api")] == [("Redis", False), ("SQLite", True)]


def test_errors_are_structured_tool_errors(tmp_path: Path, db_path: Path | str) -> None:
    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as s:
            await ok(s, "kg_add", subject="my_api", predicate="uses_queue", object="SQLite")
            return {
                "date": await call(
                    s, "kg_add", subject="my_api", predicate="uses_queue", object="Kafka", valid_from="19##"
                ),
                "missing": await call(s, "kg_query", name="sqlit"),
                "required": await call(s, "kg_supersede", subject="my_api", predicate="uses_queue", new_object="X"),
                "kind": await call(s, "kg_query", name="my_api", limit="ten"),
                "unknown_tool": await call(s, "kg_drop_everything"),
                "after": await ok(s, "kg_stats"),
                "memory": (
                    await ok(s, "kg_remember", text="We moved the queue to SQLite.", source="standup")
                    if "remember" in _tool.ACTIONS
                    else None
                ),
            }

    r = run(go())
    date = r["date"]["error"]
    assert date["code"] == "invalid_date" and "19##" in date["message"] and date["field"] == "valid_from"
    assert isinstance(date["suggestions"], list)
    missing = r["missing"]["error"]
    assert missing["code"] == "not_found" and "sqlit" in missing["message"]
    assert missing["suggestions"] == ["SQLite"]
    assert r["required"]["error"]["code"] == "invalid_request" and "old_object" in r["required"]["error"]["message"]
    assert r["kind"]["error"]["code"] == "invalid_request" and r["kind"]["error"]["field"] == "limit"
    assert r["unknown_tool"]["error"]["code"] == "invalid_request"
    assert "kg_add" in r["unknown_tool"]["error"]["suggestions"]
    assert r["after"]["facts"] == 1  # nothing half-written by the failed calls
    if r["memory"] is not None:  # kg_remember, once the agent tool has it, through the same door
        assert r["memory"]["memory"]["text"] == "We moved the queue to SQLite."


@pytest.mark.sqlite_only  # only SQLite can hold such text: PostgreSQL refuses text that is not valid UTF-8
def test_text_that_is_not_unicode_does_not_kill_the_server(tmp_path: Path, db_path: Path | str) -> None:
    """A graph written by an older version may hold a lone surrogate (a type added from a Latin-1 terminal);
    an answer carrying it used to kill the server (the SDK cannot serialise it). Now it comes back escaped."""
    import sqlite3

    KnowledgeGraph(db_path, create=True).close()
    with sqlite3.connect(db_path) as conn:  # what `kgtoolkit config --add-type $'caf\xe9'` used to store
        conn.execute(
            "INSERT OR REPLACE INTO settings(key, value) VALUES ('types', ?)",
            (json.dumps(["caf\udce9", "person", "unknown"]),),
        )
    conn.close()

    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as s:
            refused = await asyncio.wait_for(call(s, "kg_add", subject="x", subject_type="nope"), 60)
            return {"refused": refused, "after": await asyncio.wait_for(ok(s, "kg_stats"), 60)}

    r = run(go())
    err = r["refused"]["error"]
    assert err["code"] == "unknown_type" and "caf\\udce9" in err["suggestions"] and "caf\\udce9" in err["message"]
    assert r["after"]["entities"] == 0


def test_a_request_holding_text_that_is_not_unicode_is_refused(db_path: Path | str, dump) -> None:
    """Such text is refused by the dispatcher both doors share, before it reaches either database."""
    from kgtoolkit import mcp_server

    with KnowledgeGraph(db_path, create=True) as kg:
        before = dump(db_path)
        answer = mcp_server.call(kg, "kg_add", {"subject": "caf\udce9", "predicate": "in", "object": "Paris"})
        assert answer["ok"] is False and answer["error"]["code"] == "invalid_request"
        assert answer["error"]["field"] == "subject"
        assert kg.stats().entities == 0 and dump(db_path) == before


def test_summary_resource_and_prompt_show_the_graph_the_tools_write(tmp_path: Path, db_path: Path | str) -> None:
    """No --db: the server, like every door, takes $KGTOOLKIT_DB through resolve_path (contract §8)."""

    async def go() -> dict[str, Any]:
        async with server(tmp_path, None, env={"KGTOOLKIT_DB": str(db_path)}) as s:
            await ok(s, "kg_add", subject="my_api", predicate="uses_queue", object="SQLite", valid_from="2026-10-12")
            await ok(s, "kg_add", subject="Alice", predicate="owns", object="my_api")
            return {
                "resources": [str(res.uri) for res in (await s.list_resources()).resources],
                "resource": (await s.read_resource("kg://summary")).contents[0].text,
                "tool": (await ok(s, "kg_summary"))["markdown"],
                "prompts": [p.name for p in (await s.list_prompts()).prompts],
                "prompt": (await s.get_prompt("kg_summary", {"style": "subagent", "limit": "5"}))
                .messages[0]
                .content.text,
            }

    r = run(go())
    assert "kg://summary" in r["resources"]
    assert r["resource"] == r["tool"]
    assert r["resource"].startswith("# Knowledge Graph") and "SQLite" in r["resource"]
    with KnowledgeGraph(db_path, read_only=True) as kg:
        assert r["resource"] == kg.summary()
        assert r["prompt"].startswith(kg.summary(5, style="subagent").rstrip())
    assert "kg_summary" in r["prompts"] and r["prompt"].startswith("## Known Facts")


def test_two_servers_on_one_file_lose_nothing(tmp_path: Path, db_path: Path | str) -> None:
    per_server = 100

    async def agent(number: int, session: ClientSession) -> list[dict[str, Any]]:
        return await asyncio.gather(
            *(
                call(
                    session,
                    "kg_add",
                    subject=f"agent_{number}",
                    predicate="wrote",
                    object=f"note_{number}_{i}",
                    valid_from="2026-01-01",
                )
                for i in range(per_server)
            )
        )

    async def go() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with server(tmp_path, db_path) as one, server(tmp_path, db_path) as two:
            answers = [a for batch in await asyncio.gather(agent(1, one), agent(2, two)) for a in batch]
            return answers, await ok(one, "kg_stats")

    answers, stats = run(go())
    assert all(a["ok"] and a["result"]["created"] for a in answers), [a for a in answers if not a["ok"]][:3]
    assert len({a["result"]["fact"]["id"] for a in answers}) == 2 * per_server
    assert stats["facts"] == stats["current"] == 2 * per_server
    with KnowledgeGraph(db_path, read_only=True) as kg:
        assert kg.stats().facts == 2 * per_server
        assert len(kg.query("agent_1")) == len(kg.query("agent_2")) == per_server


@pytest.mark.parametrize(
    "client", ["claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini", "zed", "windsurf"]
)
def test_print_config_parses_and_names_the_db(client: str, db_path: Path | str, backend: str, sql) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kgtoolkit", "mcp", "--print-config", client, "--db", str(db_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    if client == "codex":
        entry = tomllib.loads(done.stdout)["mcp_servers"]["kgtoolkit"]
    else:
        top = {"vscode": "servers", "zed": "context_servers"}.get(client, "mcpServers")
        entry = json.loads(done.stdout)[top]["kgtoolkit"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert entry["args"][-2:] == ["--db", str(db_path)] and "mcp" in entry["args"]  # a URL as given, password too
    if backend == "sqlite":
        assert not Path(db_path).exists()  # printing a config opens no graph
        assert "PGPASSWORD" not in done.stderr
    else:
        assert sql(db_path, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()") == [
            (0,)
        ]  # printing a config opens no graph (creates no table)
        assert "password in plain text" in done.stderr and "PGPASSWORD" in done.stderr and ".pgpass" in done.stderr
    assert client in done.stderr  # where to put it goes to stderr, so stdout stays parseable


def test_print_config_for_a_url_without_password(postgres: Any) -> None:
    url = re.sub(r"^(postgresql://[^:/@]+):[^@]*@", r"\1@", postgres.new_schema())
    done = subprocess.run(
        [sys.executable, "-m", "kgtoolkit", "mcp", "--print-config", "cursor", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout)["mcpServers"]["kgtoolkit"]["args"][-2:] == ["--db", url]
    assert "holds no password" in done.stderr and "PGPASSWORD" in done.stderr and ".pgpass" in done.stderr


def test_server_on_a_url_without_password_uses_pgpassword_or_pgpass(tmp_path: Path, postgres: Any) -> None:
    """libpq's own ways to get the password work for the MCP server: PGPASSWORD in its environment, ~/.pgpass."""
    url = postgres.new_schema()
    bare = re.sub(r"^(postgresql://[^:/@]+):[^@]*@", r"\1@", url)
    assert bare != url and postgres.password not in bare

    async def go(env: dict[str, str], obj: str) -> dict[str, Any]:
        async with server(tmp_path, bare, env=env) as s:  # HOME is tmp_path
            return await call(s, "kg_add", subject="my_api", predicate="uses", object=obj)

    assert run(go({"PGPASSWORD": postgres.password}, "SQLite"))["ok"]
    refused = run(go({"PGPASSWORD": "wrong"}, "Redis"))  # a server that cannot connect answers every call so
    assert refused["ok"] is False and refused["error"]["code"] == "store_error", refused
    assert "password" in refused["error"]["message"] and refused["error"]["field"] == "db"
    pgpass = tmp_path / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{postgres.port}:kg:{urlsplit(url).username}:{postgres.password}\n", encoding="utf-8")
    pgpass.chmod(0o600)  # libpq ignores a .pgpass others can read
    assert run(go({}, "Kafka"))["ok"]
    with KnowledgeGraph(url, read_only=True) as kg:
        assert sorted(f.object_name for f in kg.query("my_api")) == ["Kafka", "SQLite"]


def test_print_config_unknown_client(db_path: Path | str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kgtoolkit", "mcp", "--print-config", "notepad", "--db", str(db_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "invalid_request" in done.stderr and "claude-code" in done.stderr


def test_import_kgtoolkit_does_not_import_mcp() -> None:
    code = "import sys, kgtoolkit, kgtoolkit.cli, kgtoolkit.mcp_server; print('mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_actions_added_to_the_agent_tool_become_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """An action declared in the agent tool's registry is a tool, with its schema, hints and dispatch, unedited."""
    from kgtoolkit import mcp_server

    monkeypatch.setattr(
        _tool._registry, "_REGISTRY", dict(_tool._registry._REGISTRY)
    )  # the declaration below is undone after the test

    @_tool.action(
        "echo",
        "Say back the text it was given: a test action, declared here to see it become a tool.",
        _tool.PARAMETERS["text"].but(required=True, description="What to say back."),
        _tool.PARAMETERS["limit"].but(default=3),
        read_only=True,
    )
    def _echo(kg: KnowledgeGraph, params: dict[str, Any]) -> dict[str, Any]:
        return {"text": params["text"][: params.get("limit", 3)]}

    spec = mcp_server.tool_specs()["kg_echo"]
    assert spec["inputSchema"]["required"] == ["text"] and spec["inputSchema"]["additionalProperties"] is False
    assert spec["inputSchema"]["properties"]["text"] == {"type": "string", "description": "What to say back."}
    assert spec["inputSchema"]["properties"]["limit"] == {
        "type": "integer",
        "description": _tool.PARAMETERS["limit"].description,
        "minimum": 0,
        "default": 3,
    }
    assert spec["annotations"]["readOnlyHint"] and spec["description"].startswith("Say back")
    with KnowledgeGraph(":memory:") as kg:
        assert mcp_server.call(kg, "kg_echo", {"text": "hello", "limit": 4}) == {"ok": True, "result": {"text": "hell"}}
        refused = mcp_server.call(kg, "kg_echo", {})
    assert refused["ok"] is False and refused["error"]["message"] == "echo needs text"
    assert "echo" in _tool.tool_schema()["input_schema"]["properties"]["action"]["enum"]
    with pytest.raises(ValueError, match="declared twice"):
        _tool.action("echo", "The same name again, which the registry refuses at import time.")(_echo)
    with pytest.raises(ValueError, match="shared vocabulary"):
        _tool.action(
            "typo", "A parameter of the wrong JSON type, refused when it is declared.", _tool.Param("text", "integer")
        )(_echo)


def _request(rid: int, method: str, params: str) -> bytes:
    return f'{{"jsonrpc": "2.0", "id": {rid}, "method": "{method}", "params": {params}}}'.encode()


def _tool_call(rid: int, arguments: str, tool: str = "kg_add") -> bytes:
    """A tools/call line as bytes: its arguments' text exactly as given (escapes included)."""
    return _request(rid, "tools/call", f'{{"name": "{tool}", "arguments": {arguments}}}')


# (line, the id it is answered with, what the answer is: a tool error code, or a JSON-RPC error code)
HOSTILE_LINES: list[tuple[str, bytes, int | None, str | int]] = [
    ("lone surrogate in an argument", _tool_call(1, '{"subject": "a\\ud800"}'), 1, "invalid_request"),
    ("lone surrogate in a key", _tool_call(2, '{"\\udc00": 1}'), 2, "invalid_request"),
    (
        "bytes that are not UTF-8",
        _tool_call(3, '{"subject": "caf"}').replace(b'caf"', b'caf\xe9"'),
        3,
        "invalid_request",
    ),
    ("nesting of 600 levels", _tool_call(4, '{"subject": ' + "[" * 600 + "]" * 600 + "}"), 4, "invalid_request"),
    (
        "nesting of 50,000 levels",
        _tool_call(5, '{"subject": ' + "[" * 50_000 + "]" * 50_000 + "}"),
        5,
        "invalid_request",
    ),
    ("an integer of 5,000 digits", _tool_call(6, '{"subject": ' + "9" * 5000 + "}"), 6, "invalid_request"),
    ("a surrogate in the tool name", _tool_call(7, "{}", tool="kg_\\ud800"), 7, -32602),
    (
        "a surrogate in a prompt argument",
        _request(8, "prompts/get", '{"name": "kg_summary", "arguments": {"as_of": "\\ud800"}}'),
        8,
        -32602,
    ),
    (
        "deep params of another method",
        _request(9, "resources/read", '{"uri": ' + "[" * 600 + "]" * 600 + "}"),
        9,
        -32602,
    ),
    ("jsonrpc 1.0", b'{"jsonrpc": "1.0", "id": 10, "method": "tools/list"}', 10, -32600),
    ("no method", b'{"jsonrpc": "2.0", "id": 11}', 11, -32600),
    ("params not an object", b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": "\\ud800"}', 12, -32602),
    ("not JSON", b"hello", None, -32700),
    ("a truncated line", b'{"jsonrpc": "2.0", "id": 13, "method": "tools/li', 13, -32700),
    ("whitespace only", b"   \t", None, -32700),
    ("a JSON array", b"[1, 2]", None, -32600),
    ("an id that is an object", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', None, -32600),
    ("an id of 5,000 digits", b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "tools/list"}', None, -32700),
]


class _Wire:
    """The server as a subprocess spoken to line by line, without a client library (which would refuse to send these)."""

    def __init__(self, tmp_path: Path, db: Path | str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kgtoolkit", "mcp", "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(tmp_path / "wire.log", "wb"),  # noqa: SIM115 - the process owns it
        )

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        import selectors

        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout), f"no answer within {timeout} s"
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)


def test_every_request_is_answered_whatever_its_line_holds(tmp_path: Path, db_path: Path | str) -> None:
    """issue 44: the SDK drops a line its parser refuses, and the client waited forever. Each hostile line is
    answered (with its id where one can be read, else id null) and the server keeps serving."""
    wire = _Wire(tmp_path, db_path)
    try:
        wire.send(
            _request(
                0,
                "initialize",
                json.dumps(
                    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
                )
                .encode()
                .decode(),
            )
        )
        assert wire.receive()["id"] == 0
        wire.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        for what, line, rid, expected in HOSTILE_LINES:
            wire.send(line)
            answer = wire.receive()
            assert answer["id"] == rid, (what, answer)
            if isinstance(expected, str):
                envelope = answer["result"]["structuredContent"]
                assert answer["result"]["isError"] is True and envelope["error"]["code"] == expected, (what, answer)
                assert json.loads(answer["result"]["content"][0]["text"]) == envelope
            else:
                assert answer["error"]["code"] == expected and answer["error"]["message"], (what, answer)
            wire.send(_tool_call(1000, '{"subject": "still", "predicate": "serves", "object": "requests"}'))
            after = wire.receive()
            assert after["id"] == 1000 and after["result"]["structuredContent"]["ok"], (what, after)
    finally:
        wire.close()
    with KnowledgeGraph(db_path) as kg:  # nothing the hostile lines held was written
        assert kg.stats().entities == 2 and kg.stats().facts == 1

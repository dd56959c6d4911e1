"""Input hygiene at the one place every door passes through (contract §2): the rules of ``add``.

Control characters and lone surrogates are refused with a clear error, commas of every script count
as commas, and names, predicates and values have a maximum length each graph may change. Each rule is
tried through the library (both backends), the bulk import, the CLI, the agent tool and the MCP
dispatcher; a refused write changes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph, io
from kgtoolkit._names import COMMA_PATTERN

CONTROLS = ["\x00", "\x01", "\x08", "\x0b", "\x1b", "\x7f", "\x85", "\x9b", "\u202e", "\u2066"]
# Each character of the guard's class: ASCII, fullwidth, small, ideographic, Arabic, Armenian, N'Ko, ...
COMMAS = [c for c in COMMA_PATTERN.strip("[]")]


def _refused(kg: KnowledgeGraph, code: str, *args: Any, **kwargs: Any) -> kgtoolkit.KGError:
    with pytest.raises(kgtoolkit.KGError) as caught:
        kg.add(*args, **kwargs)
    assert caught.value.code == code, caught.value
    return caught.value


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_a_control_character_is_refused_in_every_field(kg: KnowledgeGraph, dump, db_path, control: str) -> None:
    kg.add("billing", "uses", "Postgres")
    before = dump(db_path)
    for args in (
        (f"bill{control}ing", "uses", "x"),
        ("billing", f"us{control}es", "x"),
        ("billing", "uses", f"Post{control}gres"),
        ("billing", "note", f"a {control} note"),
    ):
        err = _refused(kg, "invalid_name", *args)
        assert f"U+{ord(control):04X}" in err.message and "control character" in err.message
    with pytest.raises(kgtoolkit.InvalidRequest, match="control character"):
        kg.add("billing", "uses", "x", source=f"import{control}")
    with pytest.raises(kgtoolkit.InvalidRequest, match="control character"):
        kg.remember(f"we moved{control} the queue")
    with pytest.raises(kgtoolkit.InvalidName, match="control character"):
        kg.alias(f"bill{control}", "billing")
    assert dump(db_path) == before


def test_whitespace_controls_are_whitespace_not_refused(kg: KnowledgeGraph) -> None:
    """Tab, line feed and carriage return are spacing: a name collapses them; a memory keeps its lines."""
    added = kg.add("my\tapi", "uses", "Postgres\r\n15")
    assert added.fact.subject == "my_api" and added.fact.object == "postgres_15"
    assert kg.entity("postgres_15").name == "Postgres 15"
    assert kg.remember("line one\nline two\ttabbed").text == "line one\nline two\ttabbed"


@pytest.mark.parametrize("comma", COMMAS, ids=[f"U+{ord(c):04X}" for c in COMMAS])
def test_a_comma_of_any_script_is_a_comma_to_the_guard(kg: KnowledgeGraph, comma: str) -> None:
    _refused(kg, "comma_list", f"Smith{comma} Jones", "works_at", "acme")
    _refused(kg, "comma_list", "acme", "employs", f"Smith{comma} Jones")
    assert kg.add("acme", "address", f"1 Main St{comma} Springfield").fact  # a value predicate may hold one
    kg.configure(comma_guard=False)
    assert kg.add("acme", "employs", f"Smith{comma} Jones").created


def test_the_bulk_import_applies_the_same_rules_row_by_row(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """The twin of the row path: the same rows are refused with the same codes, the good ones kept."""
    kg.configure(max_name_length=40)
    rows = [
        ("ok", "uses", "fine"),
        ("a\x01b", "uses", "y"),
        ("billing", "uses", "p\uff0cq"),
        ("x" * 41, "uses", "z"),
        ("billing", "note", "n" * 100_001),
        ("billing", "uses", "x" * 40),
    ]
    file = tmp_path / "facts.jsonl"
    file.write_text("".join(json.dumps(dict(zip(("subject", "predicate", "object"), r))) + "\n" for r in rows))
    with pytest.raises(kgtoolkit.InvalidRows):
        io.import_file(kg, file, comma_guard=True)  # the comma guard of add, asked for
    assert kg.stats().facts == 0  # whole or absent
    report = io.import_file(kg, file, on_error="skip", comma_guard=True)
    assert report.inserted == 2 and report.rejected == 4
    codes = sorted(r["code"] for r in report.rejects)
    assert codes == ["comma_list", "invalid_name", "invalid_request", "invalid_request"]
    for subject, predicate, obj in rows[1:5]:  # the row path refuses exactly those
        with pytest.raises(kgtoolkit.KGError):
            kg.add(subject, predicate, obj)


def test_lengths_are_bounded_and_each_graph_sets_its_own(kg: KnowledgeGraph, db_path) -> None:
    config = kg.config
    assert (config.max_name_length, config.max_value_length) == (1_000, 100_000)
    assert kg.add("n" * 1_000, "uses", "x").created
    err = _refused(kg, "invalid_request", "n" * 1_001, "uses", "x")
    assert err.data["length"] == 1_001 and err.data["limit"] == 1_000 and len(err.data["value"]) < 100
    assert "--max-name-length" in err.message and "max_name_length" in err.message
    _refused(kg, "invalid_request", "billing", "p" * 1_001, "x")
    _refused(kg, "invalid_request", "billing", "note", "v" * 100_001)
    _refused(kg, "invalid_request", "x" * 10_000_000, "uses", "y")  # the 10 MB name: refused, not stored
    with pytest.raises(kgtoolkit.InvalidRequest, match="max_value_length"):
        kg.remember("m" * 100_001)
    kg.configure(max_name_length=5, max_value_length=20)
    _refused(kg, "invalid_request", "sixsix", "uses", "x")
    assert kg.add("five5", "note", "t" * 20).created
    assert kg.query("n" * 1_000)  # a stored name longer than a new limit stays readable
    kg.close()
    with KnowledgeGraph(db_path) as again:
        assert (again.config.max_name_length, again.config.max_value_length) == (5, 20)


@pytest.mark.parametrize("value", [0, -1, True, "100", 2.5, 10**12])
def test_a_length_setting_is_a_whole_number_in_range(kg: KnowledgeGraph, value: Any) -> None:
    with pytest.raises(kgtoolkit.InvalidRequest, match="whole number") as caught:
        kg.configure(max_name_length=value)
    assert caught.value.data["field"] == "max_name_length"
    assert kg.config.max_name_length == 1_000


def test_a_dump_keeps_the_length_settings_and_refuses_bad_ones(kg: KnowledgeGraph, tmp_path: Path) -> None:
    kg.configure(max_name_length=64)
    kg.add("billing", "uses", "Postgres")
    file = tmp_path / "graph.json"
    io.export_file(kg, file)
    restored = KnowledgeGraph(":memory:")
    io.import_file(restored, file)
    assert restored.config.max_name_length == 64
    data = json.loads(file.read_text())
    data["config"]["max_value_length"] = "lots"
    file.write_text(json.dumps(data))
    with pytest.raises(kgtoolkit.KGError, match="max_value_length must be a whole number"):
        io.import_file(KnowledgeGraph(":memory:"), file)


def test_a_json_lines_file_with_an_unpaired_surrogate_escape_is_refused(kg: KnowledgeGraph, tmp_path: Path) -> None:
    file = tmp_path / "facts.jsonl"
    file.write_text(
        '{"subject": "ok", "predicate": "uses", "object": "fine"}\n'
        '{"subject": "caf\\ud800", "predicate": "uses", "object": "x"}\n'
    )
    with pytest.raises(kgtoolkit.InvalidRequest, match=r"line 2: 'subject' holds an unpaired \\ud800"):
        io.import_file(kg, file)
    assert kg.stats().facts == 0


# ---------------------------------------------------------------------- the other doors


def _cli(db: Path | str, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "kgtoolkit", "--db", str(db), *args], capture_output=True, env=env, timeout=120
    )


def test_the_cli_answers_bad_text_with_one_line_and_no_traceback(db_path, dump) -> None:
    assert _cli(db_path, "add", "billing", "uses", "Postgres").returncode == 0
    before = dump(db_path)
    for args in (
        ("add", "bill\x01ing", "uses", "x"),
        ("add", "billing", "uses", "a\uff0cb"),
        ("add", "n" * 1_001, "uses", "x"),
        ("add", b"caf\xe9", "uses", "x"),  # Latin-1 bytes
        ("config", "--max-name-length", "0"),
    ):
        done = _cli(db_path, *args)
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 1 and "Traceback" not in err, err
        assert err.strip().startswith("error [") and len(err.strip().splitlines()) == 1, err
    assert dump(db_path) == before
    shown = _cli(db_path, "config", "--max-name-length", "80", "--json")
    assert json.loads(shown.stdout)["max_name_length"] == 80


def test_the_agent_tool_and_mcp_refuse_the_same_text(kg: KnowledgeGraph) -> None:
    from kgtoolkit import mcp_server, run_tool

    for subject, code in (
        ("a\x00b", "invalid_name"),
        ("Smith\u3001Jones", "comma_list"),
        ("n" * 1_001, "invalid_request"),
    ):
        answer = run_tool({"action": "add", "subject": subject, "predicate": "knows", "object": "x"}, kg=kg)
        assert answer["ok"] is False and answer["error"]["code"] == code, answer
        served = mcp_server.call(kg, "kg_add", {"subject": subject, "predicate": "knows", "object": "x"})
        assert served["ok"] is False and served["error"]["code"] == code
    assert kg.stats().facts == 0


# ---------------------------------------------------------------------- requests to the agent doors


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"k": value}
    return value


def test_a_request_too_deep_or_too_big_is_invalid_request_not_internal_error(kg: KnowledgeGraph, dump, db_path) -> None:
    from kgtoolkit import mcp_server, run_tool
    from kgtoolkit._limits import MAX_DEPTH, MAX_REQUEST_BYTES

    before = dump(db_path)
    deep_text = '{"action": "add", "subject": ' + "[" * 100_000 + "]" * 100_000 + "}"
    big = {"action": "remember", "text": "x" * (MAX_REQUEST_BYTES + 1)}
    fits = {
        "action": "add",
        "subject": "acme",
        "predicate": "employs",
        "object": "dana",
        "properties": _nested(MAX_DEPTH - 2),
    }
    answers = {
        "deep text": run_tool(deep_text, kg=kg),
        "deep bytes": run_tool(deep_text.encode(), kg=kg),
        "deep mapping": run_tool(
            {"action": "add", "subject": "a", "predicate": "b", "object": "c", "properties": _nested(MAX_DEPTH + 1)},
            kg=kg,
        ),
        "big text": run_tool(json.dumps(big), kg=kg),
        "big mapping": run_tool(big, kg=kg),
        "deep MCP": mcp_server.call(
            kg, "kg_add", {"subject": "a", "predicate": "b", "object": "c", "properties": _nested(5_000)}
        ),
        "big MCP": mcp_server.call(kg, "kg_remember", {"text": "y" * (MAX_REQUEST_BYTES + 1)}),
    }
    for where, answer in answers.items():
        assert answer["ok"] is False and answer["error"]["code"] == "invalid_request", (where, answer)
        assert answer["error"]["field"] == "request" and "limit" in answer["error"], where
    assert dump(db_path) == before
    assert run_tool(fits, kg=kg)["ok"] is True  # properties nested as deep as allowed still fit


def test_the_cli_tool_refuses_a_deep_request_on_stdin(db_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kgtoolkit", "--db", str(db_path), "tool"],
        input=b'{"action": "stats", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        capture_output=True,
        timeout=120,
    )
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["error"]["code"] == "invalid_request", answer
    assert "Traceback" not in done.stderr.decode()


def test_the_mcp_server_over_stdio_refuses_a_deep_request(tmp_path: Path, db_path) -> None:
    pytest.importorskip("mcp")
    import asyncio

    from mcp_client import call, server

    async def go() -> dict[str, Any]:
        async with server(tmp_path, db_path) as session:
            return await asyncio.wait_for(
                call(session, "kg_add", subject="a", predicate="b", object="c", properties=_nested(60)), 60
            )

    answer = asyncio.run(go())
    assert answer["ok"] is False and answer["error"]["code"] == "invalid_request"
    assert "nested more than" in answer["error"]["message"]

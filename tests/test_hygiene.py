"""Text hygiene at every door (contract §2, issue 44): what a terminal is shown is inert whatever the store holds;
control characters are refused on every write path (properties, metadata, dumps, copies)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kgtoolkit import KnowledgeGraph
from kgtoolkit.cli import app

# An OSC title, a screen clear, a bell, a right-to-left override, a C1 CSI, DEL and a carriage return.
HOSTILE = "Al\x1b]0;owned\x07ice\x1b[2J \u202eevil\x9b31m\x7f\rX"
# What no terminal output may hold: every control character but tab and line feed, and the bidi controls.
LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _cli(db: Path | str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def _tamper(db: Path | str, sql: Callable[..., list[Any]]) -> None:
    """Another writer of the database (a restored old dump, a copy, a script) stores escape sequences."""
    with KnowledgeGraph(db) as kg:
        kg.add("Alice", "works_at", "Acme")
        for i in range(250):
            kg.add("Alice", "knows", f"friend {i}")
        kg.remember("the release note")
    sql(
        db,
        f"UPDATE entities SET name = '{HOSTILE}' WHERE id = 'alice'",
        f"UPDATE predicates SET label = 'works{HOSTILE}' WHERE id = 'works_at'",
        f"UPDATE memories SET text = 'the release note {HOSTILE}'",
    )


@pytest.mark.parametrize(
    "args",
    [
        ("query", "alice", "--limit", "5"),
        ("query", "alice", "--limit", "1000"),  # over 200 rows: the plain table, written without rich
        ("timeline", "--limit", "1000"),
        ("predicates",),
        ("stats",),
        ("aliases",),
        ("query", "alic"),  # an error on stderr whose suggestions hold the name
        ("find", "release", "--mode", "lexical", "--kind", "memories"),
    ],
    ids=lambda a: " ".join(a),
)
def test_the_terminal_is_shown_stored_escape_sequences_inert(
    db_path: Path | str, sql: Callable[..., list[Any]], args: tuple[str, ...]
) -> None:
    _tamper(db_path, sql)
    code, stdout, stderr = _cli(db_path, *args)
    assert code in (0, 1), (code, stdout, stderr)
    assert LIVE.search(stdout) is None and LIVE.search(stderr) is None, (stdout[:2000], stderr[:2000])
    if args[0] in ("query", "find") and code == 0:
        assert "\\x1b]0;owned" in stdout  # shown, escaped: a person sees what is stored (rich drops a bell)


def test_json_output_is_the_stored_text_exactly_and_inert(db_path: Path | str, sql: Callable[..., list[Any]]) -> None:
    _tamper(db_path, sql)
    code, stdout, stderr = _cli(db_path, "--json", "query", "alice", "--limit", "1")
    assert code == 0, stderr
    assert LIVE.search(stdout) is None
    answer = json.loads(stdout)
    assert answer["facts"][0]["subject_name"] == HOSTILE  # the JSON is the same text, its controls escaped

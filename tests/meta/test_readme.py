"""The README's examples run and print what the README says they print; the README stays a landing page."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands[:2] == ["make demo", "make test"]


def test_readme_is_a_landing_page() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200, "the reference belongs in docs/"


def test_python_example_runs_as_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _python_blocks()[0]
    assert len(code.strip().splitlines()) <= 5
    printed = re.search(r"# (\[.*\])\s*$", code, re.M).group(1)  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, "README.md", "exec"), {})
    assert ast.literal_eval(buffer.getvalue().strip()) == ast.literal_eval(printed)
    assert (tmp_path / "team.sqlite3").exists()


def test_the_notebook_taste_runs_on_the_sessions_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, taste = _python_blocks()[:2]
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(first, "README.md", "exec"), scope)
        exec(compile(taste, "README.md", "exec"), scope)
    assert {"added", "ended", "renewed", "net"} <= set(scope["monthly"].columns)  # type: ignore[attr-defined]
    assert scope["changes"]["kind"].to_list() == ["replaced"]  # type: ignore[index]
    paths = scope["paths"].paths  # type: ignore[attr-defined]
    assert [[f.predicate for f in p] for p in paths] == [["owned_by", "reports_to"]]
    assert scope["g"].number_of_edges() == 3  # type: ignore[attr-defined]

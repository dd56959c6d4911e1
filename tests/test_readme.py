"""The README's Python example runs and prints what the README says it prints."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands[:2] == ["make demo", "make test"]


def test_python_example_runs_as_documented(tmp_path: Path, monkeypatch) -> None:
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    assert len(code.strip().splitlines()) <= 5
    printed = re.search(r"# (\[.*\])\s*$", code, re.M).group(1)
    monkeypatch.chdir(tmp_path)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, "README.md", "exec"), {})
    assert ast.literal_eval(buffer.getvalue().strip()) == ast.literal_eval(printed)
    assert (tmp_path / "team.sqlite3").exists()

"""The documentation site builds, offline and strict, and its references keep up with the code.

``mkdocs build --strict`` fails on a broken link, a missing page in the nav or a docstring mkdocstrings cannot
read. The CLI reference (docs/cli.md) is what ``scripts/cli_docs.py`` writes from the commands' ``--help``
(in the manner of sqlite-utils' test_docs.py); the API reference (docs/api.md) shows every name in the
``__all__`` of every public module it lists, and lists every public module.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kgtoolkit

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API_MODULES = re.findall(r"^::: (\S+)", (DOCS / "api.md").read_text(encoding="utf-8"), flags=re.M)
#: Public modules documented elsewhere than the API reference, with where.
ELSEWHERE = {
    "kgtoolkit.cli": "a door: every command is in docs/cli.md and docs/commands.md",
    "kgtoolkit.dashboard": "a door: docs/the-dashboard.md",
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once with ``mkdocs build --strict`` into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = _run("-m", "mkdocs", "build", "--strict", "--site-dir", str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_site_builds_strict_and_offline(site: Path) -> None:
    assert (site / "index.html").exists() and (site / "api.html").exists()
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+font: false", config, flags=re.M), "Material would fetch Google fonts"
    assert not re.search(r"^\s+- (social|privacy|optimize)\b", config, flags=re.M), "a plugin that fetches"


def test_the_cli_reference_is_up_to_date() -> None:
    done = _run("scripts/cli_docs.py", "--check")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("module", API_MODULES)
def test_every_public_name_is_in_the_api_reference(site: Path, module: str) -> None:
    ids = set(re.findall(r'id="([^"]+)"', (site / "api.html").read_text(encoding="utf-8")))
    names = importlib.import_module(module).__all__
    missing = [name for name in names if f"{module}.{name}" not in ids]
    assert not missing, f"{module}'s {missing} are not on the API reference page"


def test_every_public_module_is_in_the_api_reference() -> None:
    face = set(kgtoolkit.__all__)
    for info in pkgutil.iter_modules(kgtoolkit.__path__, "kgtoolkit."):
        name = info.name
        if name.rsplit(".", 1)[-1].startswith("_") or name in ELSEWHERE or name in API_MODULES:
            continue
        names = set(getattr(importlib.import_module(name), "__all__", ()))
        assert names and names <= face, f"{name} is public: add its line '::: {name}' to docs/api.md"


def test_getting_started_runs_as_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    code = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "print(" in block)
    printed = re.search(r"# (\[.*\])\s*$", code, re.M)
    assert printed is not None
    monkeypatch.chdir(tmp_path)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, "getting-started.md", "exec"), {})
    assert ast.literal_eval(buffer.getvalue().strip()) == ast.literal_eval(printed.group(1))


def test_the_readmes_links_to_pages_land() -> None:
    links = re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]*)?\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert links, "the README names no page"
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README.md links to pages that do not exist: {missing}"

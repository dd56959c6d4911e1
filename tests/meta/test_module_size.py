"""No module of the package is over 800 lines (issue 46): a module that grows past it is split by concept into a
package, as ``kgtoolkit.frames`` and ``kgtoolkit.forecast`` were. Data-only modules are the exception, each named
here with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kgtoolkit"
LIMIT = 800

#: Modules allowed past the limit: data only (lists and tables, no function or class), with the reason.
DATA_ONLY = {
    "kgtoolkit/_generate_words.py": "the generator's vocabulary: word lists whose order is part of its determinism",
}


def _modules() -> dict[str, Path]:
    return {p.relative_to(ROOT).as_posix(): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_module_is_at_most_800_lines() -> None:
    over = {name: _lines(path) for name, path in _modules().items() if name not in DATA_ONLY}
    over = {name: lines for name, lines in over.items() if lines > LIMIT}
    assert not over, f"modules over {LIMIT} lines (split each by concept into a package): {over}"


def test_the_modules_excepted_exist_and_are_data_only() -> None:
    modules = _modules()
    for name, reason in DATA_ONLY.items():
        assert name in modules, f"{name} is excepted from the size limit but no longer exists: strike it"
        assert reason
        tree = ast.parse(modules[name].read_text(encoding="utf-8"))
        code = [
            type(node).__name__
            for node in tree.body
            if not isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign | ast.Expr)
        ]
        assert not code, f"{name} is excepted as data only but holds {code}: move the code out"

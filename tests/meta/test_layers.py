"""The layer map (docs/layers.md) holds: no import goes up it, drivers only in the engine wing, the store's wings
kept apart, known breaks listed.

Imports are read from the source (``ast``), at module level and inside functions alike, so a circle cannot
hide behind a lazy import. The map itself is the tables of docs/layers.md: one place, read here.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kgtoolkit"
DOC = ROOT / "docs" / "layers.md"


def _rows(heading: str | None) -> list[list[str]]:
    """The body rows of the first table after ``heading`` (or of the first table of the page)."""
    text = DOC.read_text(encoding="utf-8")
    if heading is not None:
        text = text.split(heading, 1)[1]
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # without the header


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


@cache
def layers() -> list[tuple[int, list[str]]]:
    return [(int(row[0]), _names(row[2])) for row in _rows(None)]


def layer_of(module: str) -> int:
    for number, patterns in layers():
        if any(module == p or fnmatch.fnmatchcase(module, p) for p in patterns):
            return number
    raise AssertionError(f"{module} is in no layer of docs/layers.md: add it to the table")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(module: str) -> set[str]:
    """Every module ``module`` imports: absolute names as written, relative ones resolved."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import frames` imports the module frames, not the package
                name = f"{target}.{alias.name}"
                found.add(name if name in modules() else target)
    return found


def _own(name: str) -> str | None:
    """The package module ``name`` is, or lies in (``kgtoolkit.graph.KnowledgeGraph`` → its module)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def upward_edges() -> set[tuple[str, str]]:
    edges = set()
    for module in modules():
        for name in imports(module):
            target = _own(name) if name.startswith("kgtoolkit") else None
            if target and target != module and layer_of(target) > layer_of(module):
                edges.add((module, target))
    return edges


def test_every_module_is_in_one_layer() -> None:
    for module in modules():
        placed = [n for n, patterns in layers() if any(module == p or fnmatch.fnmatchcase(module, p) for p in patterns)]
        assert len(placed) == 1, f"{module} is in layers {placed} of docs/layers.md"


def test_no_import_goes_up_the_map_but_the_known_breaks() -> None:
    known = {(row[0].strip("`"), row[1].strip("`")) for row in _rows("## Known breaks")}
    found = upward_edges()
    new = sorted(found - known)
    gone = sorted(known - found)
    assert not new, "imports that go up the layer map (docs/layers.md): " + ", ".join(f"{a} → {b}" for a, b in new)
    assert not gone, "edges gone: strike them from Known breaks in docs/layers.md: " + ", ".join(
        f"{a} → {b}" for a, b in gone
    )


def test_database_drivers_are_imported_only_in_the_engine_wing() -> None:
    drivers, allowed = _rows("A database driver is imported only in the engine wing")[0]
    names, (prefix,) = _names(drivers), _names(allowed)
    files = {_names(row[0])[0] for row in _rows("Files that are not a graph's database")}
    for module in modules():
        if module == prefix or module.startswith(prefix + ".") or module in files:
            continue
        used = sorted(n for n in imports(module) if n.split(".")[0] in names)
        assert not used, f"{module} imports {used}: SQL and connections live in {prefix} only"


def _wings() -> dict[str, list[str]]:
    return {row[0]: _names(row[1]) for row in _rows("## The store's wings")}


def _wing_of(module: str) -> str | None:
    for wing, patterns in _wings().items():
        if any(module == p or fnmatch.fnmatchcase(module, p) for p in patterns):
            return wing
    return None


def test_every_store_module_is_in_one_wing() -> None:
    for module in modules():
        if module.startswith("kgtoolkit.store."):
            assert _wing_of(module) is not None, f"{module} is in no wing of docs/layers.md"


def test_only_the_engine_wing_touches_the_backend() -> None:
    """Outside the engine wing: the engine's names come from its package, and no source names ``._backend``."""
    engine = "kgtoolkit.store.engine"
    for module, path in modules().items():
        if module == engine or module.startswith(engine + "."):
            continue
        inside = sorted(n for n in imports(module) if n.startswith(engine + ".") and _own(n) != engine)
        assert not inside, f"{module} imports {inside}: import the engine's names from {engine}"
        assert "._backend" not in path.read_text(encoding="utf-8"), f"{module} reaches into ._backend"


def test_the_engine_wing_imports_no_other_wing() -> None:
    for module in modules():
        if _wing_of(module) == "engine":
            others = sorted(
                n for n in imports(module) if n.startswith("kgtoolkit.store") and _wing_of(_own(n) or "") != "engine"
            )
            assert not others, f"{module} imports {others}: the engine wing stands on the rules alone"


def test_the_reader_finds_a_real_edge() -> None:
    """The reader itself: the CLI's serve module imports the store at its top, and the MCP server only inside a
    function (two dots: a relative import from inside the kgtoolkit.cli package)."""
    found = {_own(n) for n in imports("kgtoolkit.cli.serve")}
    assert {"kgtoolkit.store", "kgtoolkit.mcp_server"} <= found
    assert "from ..mcp_server import" not in modules()["kgtoolkit.cli.serve"].read_text().split("\ndef ", 1)[0]


def test_no_import_circle_in_the_package() -> None:
    """No two modules reach each other through imports, lazy ones included (a package's ``__init__`` re-exporting
    its own modules is how a package is built, not a circle: those edges are left out)."""
    import networkx as nx

    g = nx.DiGraph()
    for module in modules():
        for name in imports(module):
            target = _own(name) if name.startswith("kgtoolkit") else None
            if target and target != module and not target.startswith(module + "."):
                g.add_edge(module, target)
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not circles, f"import circles: {circles}"

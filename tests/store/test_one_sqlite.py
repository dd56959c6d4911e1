"""One SQLite library per process for a graph file (kgtoolkit._arrow_read explains why).

A bulk import into a big graph used to fail as "database disk image is malformed": ADBC's bundled
SQLite read the file while Python's sqlite3 held the import's write transaction, in one process.
These tests import at the size that failed, race an import against another process's writes and a
dashboard-style reader, and check that ADBC's SQLite never loads where the graph is open.
"""

from __future__ import annotations

import ast
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kgtoolkit
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts

PACKAGE = Path(kgtoolkit.__file__).parent
pytestmark = pytest.mark.slow


def integrity(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0], conn.execute(
            "SELECT count(*) FROM facts"
        ).fetchone()[0]
    finally:
        conn.close()


def test_500k_facts_into_a_graph_that_is_not_empty(tmp_path: Path) -> None:
    path = tmp_path / "big.sqlite3"
    with kgtoolkit.open(path) as kg:
        kg.add("billing", "owned_by", "payments team")
        report, _ = import_facts(kg, generate(500_000, seed=7))
        assert report.inserted == 500_000
        assert kg.stats().facts == 500_001
    assert integrity(path) == ("ok", 500_001)


_WRITER = """
import sys, kgtoolkit
done = 0
with kgtoolkit.open(sys.argv[1], timeout=120) as kg:
    for i in range(int(sys.argv[2])):
        kg.add(f"writer {i}", "wrote", f"line {i}")
        done += 1
print(done)
"""

_READER = """
import sys, time, kgtoolkit
from pathlib import Path
from kgtoolkit import frames
stop, seen, last = Path(sys.argv[2]), 0, 0
deadline = time.monotonic() + 600  # never outlive a test that died before saying stop
with kgtoolkit.open(sys.argv[1], read_only=True, timeout=120) as kg:
    while (not stop.exists() or seen < 3) and time.monotonic() < deadline:
        rows = frames.facts(kg).height
        assert rows >= last, (rows, last)  # committed facts never disappear
        assert kg.stats().facts >= rows
        last, seen = rows, seen + 1
print(seen, "adbc_driver_sqlite" in sys.modules)
"""


def test_an_import_racing_a_writer_and_a_dashboard_reader(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    stop = tmp_path / "stop"
    with kgtoolkit.open(path) as kg:
        import_facts(kg, generate(30_000, seed=1))  # big enough for the reader process to read it
        before = kg.stats().facts
    frame = generate(500_000, seed=7)
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path), "300"], stdout=subprocess.PIPE, text=True)
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(path), str(stop)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        with kgtoolkit.open(path, timeout=120) as kg:
            report, _ = import_facts(kg, frame)
    finally:
        stop.touch()
        try:
            written, _ = writer.communicate(timeout=300)
            seen, errors = reader.communicate(timeout=300)
        finally:
            for proc in (writer, reader):
                if proc.poll() is None:
                    proc.kill()
    assert writer.returncode == 0 and int(written) == 300
    assert reader.returncode == 0, errors
    reads, adbc_loaded = seen.split()
    assert int(reads) >= 3 and adbc_loaded == "False"
    expected = before + report.inserted + 300
    assert integrity(path) == ("ok", expected)


def test_adbc_sqlite_never_loads_where_a_graph_is_open(tmp_path: Path) -> None:
    """Whole-table reads and a big import run, yet ADBC's SQLite driver is not in this process."""
    code = textwrap.dedent("""
        import sys, json, kgtoolkit
        from kgtoolkit import frames, store as _bulk
        from kgtoolkit.generate import generate
        kg = kgtoolkit.open(sys.argv[1])
        _bulk.import_facts(kg, generate(40_000, seed=3))
        _bulk.import_facts(kg, generate(40_000, seed=4))   # reads what is there during its write
        rows = frames.facts(kg).height, frames.entities(kg).height
        print(json.dumps([rows, "adbc_driver_sqlite" in sys.modules]))
    """)
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "g.sqlite3")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    (facts, entities), loaded = json.loads(done.stdout)
    assert facts > 40_000 and entities > 0
    assert loaded is False


def test_only_the_reader_modules_name_adbcs_sqlite_driver() -> None:
    allowed = {"_arrow_read.py", "_reader_process.py"}
    for module in PACKAGE.rglob("*.py"):
        if any(name.startswith("adbc_driver_sqlite") for name in _imports(module.read_text(encoding="utf-8"))):
            assert module.name in allowed, f"{module} imports adbc_driver_sqlite"
    reader = (PACKAGE / "store" / "engine" / "_reader_process.py").read_text(encoding="utf-8")
    assert "kgtoolkit" not in {n.split(".")[0] for n in _imports(reader)}  # the reader process stands alone


def _imports(source: str) -> set[str]:
    tree = ast.parse(source)
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return names | {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0
    }

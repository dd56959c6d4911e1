"""The error tree (contract §6), and every failure of the lower layers provoked for real.

Nothing is mocked: a graph file whose pages are overwritten with garbage (``corrupt``), a file system
that fills up (a small tmpfs, as root) or a process file size limit (``disk_full``), a read-only
file system or an immutable file (``read_only``), a lock another connection holds (``locked``), and a
package that cannot be imported in a subprocess (``missing_dependency``: ``sys.modules[name] = None``,
the way Python itself says "not installed"). Each goes through the library and, where a person
would meet it, the CLI: one line ``error [code] message``, exit status 1, no traceback. The
PostgreSQL cases run against the throwaway server of ``tests/support/postgres_server.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kgtoolkit
from kgtoolkit import _errors, frames, io
from kgtoolkit._errors import Corrupt, DiskFull, KGError, Locked, MissingDependency, ReadOnly, StoreError

Dump = Any  # the ``dump`` fixture of conftest.py: dump(db) -> every row, as text

REPO = Path(__file__).resolve().parents[2]
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CORRUPT_ADVICE = "restore from a backup, or `kgtoolkit export` what is still readable"


# ---------------------------------------------------------------------- helpers


def run_python(code: str, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter that imports this checkout's kgtoolkit."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def run_cli(*args: str, blocked: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """``python -m kgtoolkit ARGS`` in a subprocess, with the modules ``blocked`` made impossible to import."""
    return run_python(f"""
        import runpy, sys
        for name in {list(blocked)!r}:
            sys.modules[name] = None  # what an uninstalled package looks like to an import
        sys.argv = ["kgtoolkit", *{list(args)!r}]
        runpy.run_module("kgtoolkit", run_name="__main__")
    """)


def assert_cli_error(done: subprocess.CompletedProcess[str], code: str, *needles: str) -> str:
    """The CLI failed cleanly: exit status 1, one line ``error [code] …`` on stderr, no traceback."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"error [{code}] "), done.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def make_graph(path: Path, facts: int = 300) -> None:
    with kgtoolkit.open(path) as kg:
        for i in range(facts):
            kg.add(f"service {i}", "uses", f"store {i}", valid_from="2020-01-01")
    conn = sqlite3.connect(path)  # fold the WAL into the file, so garbage written into the file is what is read
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def garble(path: Path, start: int, length: int) -> None:
    with path.open("r+b") as fh:
        fh.seek(start)
        fh.write(os.urandom(length))


def facts_csv(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        fh.write("subject,predicate,object,valid_from\n")
        for i in range(rows):
            fh.write(f"a subject with a long name {i},predicate_{i % 40},an object with a long name {i},2021-01-01\n")
    return path


@contextlib.contextmanager
def tmpfs(size: str = "2m", **options: Any) -> Iterator[Path]:
    """A small tmpfs of its own, unmounted afterwards (root only; skips with the reason otherwise)."""
    if not ROOT or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (and mount): run the suite as root for the full-disk cases")
    folder = Path(tempfile.mkdtemp(prefix="kgtoolkit-errors-"))
    extra = "".join(f",{k}={v}" for k, v in options.items())
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}{extra}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
        folder.rmdir()


def fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to the last byte."""
    with (folder / "filler").open("wb", buffering=0) as fh:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            with contextlib.suppress(OSError):
                while fh.write(b"\1" * size):
                    pass


# ---------------------------------------------------------------------- the tree


def _exception_classes_in_source() -> dict[str, list[str]]:
    """Every class of the package's source whose bases are exceptions, by file (read, not imported: the
    dashboard's pages are scripts, and the reader process loads ADBC's SQLite)."""
    import ast
    import builtins

    exceptions = {
        name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)
    }
    exceptions |= {name for name, obj in vars(_errors).items() if isinstance(obj, type) and issubclass(obj, KGError)}
    found: dict[str, list[str]] = {}
    for file in sorted((REPO / "kgtoolkit").rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                    for b in node.bases
                }
                if bases & exceptions or any(b.endswith(("Error", "Exception")) for b in bases):
                    found.setdefault(str(file.relative_to(REPO)), []).append(node.name)
    return found


def test_every_exception_class_is_defined_in_errors_and_drawn_in_its_tree() -> None:
    found = _exception_classes_in_source()
    assert list(found) == ["kgtoolkit/_errors.py"], found
    classes = {obj for obj in vars(_errors).values() if isinstance(obj, type) and issubclass(obj, KGError)}
    assert {cls.__name__ for cls in classes} == set(found["kgtoolkit/_errors.py"])
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes)), "every error has a code of its own"
    tree = _errors.__doc__ or ""
    for cls in classes:
        assert f"{cls.__name__} " in tree and f" {cls.code} " in tree, f"{cls.__name__} is missing from the tree"
        assert cls.__name__ in _errors.__all__ and getattr(kgtoolkit, cls.__name__) is cls


def test_new_codes_are_store_errors_and_old_names_still_import() -> None:
    expected = {Corrupt: "corrupt", DiskFull: "disk_full", Locked: "locked", MissingDependency: "missing_dependency"}
    for cls, code in expected.items():
        assert cls.code == code and issubclass(cls, StoreError)
    assert ReadOnly.code == "read_only" and not issubclass(ReadOnly, StoreError)
    assert StoreError.code == "store_error"
    from kgtoolkit.mcp_server import MissingDependency as from_mcp
    from kgtoolkit.store import InvalidRows as from_store
    from kgtoolkit.store.transfer._load import InvalidRows as from_bulk

    assert from_mcp is MissingDependency and from_store is from_bulk is kgtoolkit.InvalidRows
    assert issubclass(kgtoolkit.InvalidRows, kgtoolkit.InvalidRequest) and kgtoolkit.InvalidRows.code == "invalid_rows"


def test_missing_dependency_names_the_extra() -> None:
    error = _errors.missing_dependency("faiss", needed_for="semantic search")
    assert error.data["extra"] == "search" and error.data["install"] == "pip install 'kgtoolkit[search]'"
    assert error.message.endswith("not installed; install it: pip install 'kgtoolkit[search]'")
    broken = ModuleNotFoundError("No module named 'torch'", name="torch")
    error = _errors.missing_dependency("sentence_transformers", cause=broken)
    assert "it needs torch, which is not installed" in error.message and "kgtoolkit[search]" in error.message
    with pytest.raises(MissingDependency) as caught:
        _errors.require(f"kgtoolkit_no_such_module_{secrets.token_hex(3)}", "dashboard", needed_for="the dashboard")
    assert caught.value.data["install"] == "pip install 'kgtoolkit[dashboard]'"


# ---------------------------------------------------------------------- corrupt


@pytest.fixture
def corrupt_graph(tmp_path: Path) -> Path:
    """A graph whose pages but the schema's (every table's data) are overwritten with garbage. The schema spans
    more than the first page since the full-text index (schema step 6): its pages are found with dbstat."""
    path = tmp_path / "graph.sqlite3"
    make_graph(path)
    conn = sqlite3.connect(path)
    try:
        schema = {r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    for number in range(2, path.stat().st_size // page + 1):
        if number not in schema:
            garble(path, (number - 1) * page, page)
    return path


def _assert_corrupt(error: KGError, path: Path) -> None:
    assert isinstance(error, Corrupt) and isinstance(error, StoreError) and error.code == "corrupt"
    assert str(path) in error.message and CORRUPT_ADVICE in error.message
    assert error.data["field"] == "path" and error.data["value"] == str(path)


def test_corrupt_pages_through_the_library(corrupt_graph: Path, tmp_path: Path) -> None:
    csv = facts_csv(tmp_path / "facts.csv", 10)
    with kgtoolkit.open(corrupt_graph) as kg:  # the first page (the schema) is intact: opening works
        for action in (
            lambda: kg.stats(),
            lambda: kg.query("service 1"),
            lambda: kg.add("a", "p", "b"),
            lambda: io.import_file(kg, csv),
            lambda: io.export_file(kg, tmp_path / "out.csv"),
            lambda: frames.facts(kg),
        ):
            with pytest.raises(Corrupt) as caught:
                action()
            _assert_corrupt(caught.value, corrupt_graph)
        answer = kgtoolkit.run_tool({"action": "stats"}, kg=kg)
        assert answer["ok"] is False and answer["error"]["code"] == "corrupt"
    assert not (tmp_path / "out.csv").exists()
    with kgtoolkit.open(tmp_path / "other.sqlite3") as other, pytest.raises(Corrupt) as caught:
        io.import_file(other, corrupt_graph)  # a corrupt graph file as the source of an import
    _assert_corrupt(caught.value, corrupt_graph)


def test_corrupt_first_page_refuses_to_open(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    make_graph(path)
    garble(path, 100, 4096 - 100)  # the header survives; the schema's page does not
    for read_only in (False, True):
        with pytest.raises(Corrupt) as caught:
            kgtoolkit.open(path, read_only=read_only)
        _assert_corrupt(caught.value, path)
        assert isinstance(caught.value.__cause__, sqlite3.DatabaseError)  # the engine's own words, kept


def test_a_damaged_leaf_found_by_the_reader_process(tmp_path: Path) -> None:
    """A whole-table read of a big table runs in the reader process (ADBC): its failure is corrupt too."""
    from kgtoolkit.generate import generate

    path = tmp_path / "graph.sqlite3"
    with kgtoolkit.open(path) as kg:
        kgtoolkit.store.import_facts(kg, generate(30_000, seed=1))
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        leaves = [
            r[0]
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'facts' AND pagetype = 'leaf' ORDER BY pageno"
            )
        ]
    finally:
        conn.close()
    page = leaves[len(leaves) // 2]  # the table's first and last pages stay: its size is still readable here
    garble(path, (page - 1) * 4096, 4096)
    with kgtoolkit.open(path) as kg:
        with pytest.raises(Corrupt) as caught:
            frames.facts(kg)
        _assert_corrupt(caught.value, path)


@pytest.mark.parametrize(
    "args", [("stats",), ("query", "service 1"), ("add", "a", "uses", "b"), ("import", "FACTS"), ("export", "OUT")]
)
def test_corrupt_pages_through_the_cli(corrupt_graph: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    csv = facts_csv(tmp_path / "facts.csv", 10)
    args = tuple(str(csv) if a == "FACTS" else str(tmp_path / "out.json") if a == "OUT" else a for a in args)
    line = assert_cli_error(run_cli("--db", str(corrupt_graph), *args), "corrupt", str(corrupt_graph), CORRUPT_ADVICE)
    assert "malformed" in line
    assert not (tmp_path / "out.json").exists()


# ---------------------------------------------------------------------- disk full


def test_full_disk_during_a_bulk_import_leaves_the_graph_as_it_was(tmp_path: Path, dump: Dump) -> None:
    csv = facts_csv(tmp_path / "facts.csv", 60_000)  # outside the small file system
    with tmpfs("3m") as folder:
        path = folder / "graph.sqlite3"
        make_graph(path, facts=20)
        before = dump(path)
        with kgtoolkit.open(path) as kg:
            with pytest.raises(DiskFull) as caught:
                io.import_file(kg, csv)
            error = caught.value
            assert isinstance(error, StoreError) and error.code == "disk_full"
            assert str(path) in error.message and "nothing was written" in error.message
            assert error.data["value"] == str(path) and "full" in error.data["reason"]
            assert kg.stats().facts == 20  # the same connection goes on working
        assert dump(path) == before  # exactly the old graph
        assert_cli_error(run_cli("--db", str(path), "import", str(csv)), "disk_full", str(path))
        assert dump(path) == before
        with kgtoolkit.open(path) as kg:
            assert kg.add("after", "uses", "room").created  # a small write still fits
            assert kg.stats().facts == 21


def test_full_disk_on_a_small_write_and_an_export(tmp_path: Path, dump: Dump) -> None:
    with tmpfs("3m") as folder:
        path = folder / "graph.sqlite3"
        make_graph(path, facts=5)
        before = dump(path)
        # Opened before the disk fills: SQLite's shared-memory file then has its pages (a memory-mapped file
        # that cannot get a page on a full tmpfs kills the process with SIGBUS, which is not this test).
        with kgtoolkit.open(path) as kg:
            fill(folder)
            with pytest.raises(DiskFull):
                kg.add("one", "more", "fact")
            with pytest.raises(DiskFull) as caught:
                io.export_file(kg, folder / "out.csv")
            assert str(folder / "out.csv") in caught.value.message
            assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("graph.sqlite3")) == ["filler"]
            assert_cli_error(run_cli("--db", str(path), "add", "one", "more", "fact"), "disk_full", str(path))
            assert_cli_error(
                run_cli("--db", str(path), "export", str(folder / "out.json")), "disk_full", str(folder / "out.json")
            )
            assert run_cli("--db", str(path), "stats").returncode == 0  # reads need no room
            assert kg.stats().facts == 5
            (folder / "filler").unlink()
        assert dump(path) == before


def test_file_size_limit_during_a_bulk_import(tmp_path: Path, dump: Dump) -> None:
    """RLIMIT_FSIZE in a subprocess (SIGXFSZ ignored, so a write past it fails with EFBIG): no root needed."""
    path = tmp_path / "graph.sqlite3"
    make_graph(path, facts=20)
    before = dump(path)
    csv = facts_csv(tmp_path / "facts.csv", 60_000)
    done = run_python(f"""
        import json, os, resource, signal
        import kgtoolkit
        from kgtoolkit import io
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        limit = os.path.getsize({str(path)!r}) + 256 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        try:
            with kgtoolkit.open({str(path)!r}) as kg:
                io.import_file(kg, {str(csv)!r})
            print(json.dumps({{"ok": True}}))
        except kgtoolkit.KGError as exc:
            print(json.dumps({{"ok": False, "error": exc.to_dict(), "type": type(exc).__name__}}))
    """)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["ok"] is False and answer["type"] == "DiskFull", answer
    assert answer["error"]["code"] == "disk_full" and "ulimit -f" in answer["error"]["message"]
    assert str(path) in answer["error"]["message"]
    with kgtoolkit.open(path) as kg:
        assert kg.stats().facts == 20
    assert dump(path) == before


# ---------------------------------------------------------------------- read-only


def test_a_read_only_file_system_opens_read_only(tmp_path: Path, dump: Dump) -> None:
    with tmpfs("4m") as folder:
        path = folder / "graph.sqlite3"
        make_graph(path, facts=5)
        before = dump(path)
        remount = subprocess.run(
            ["mount", "-o", "remount,ro", str(folder)], capture_output=True, text=True, check=False
        )
        if remount.returncode != 0:
            pytest.skip(f"cannot remount the tmpfs read-only ({remount.stderr.strip()})")
        with kgtoolkit.open(path) as kg:
            assert kg.read_only and "read-only file system" in (kg.read_only_reason or "")
            assert kg.stats().facts == 5
            with pytest.raises(ReadOnly) as caught:
                kg.add("a", "p", "b")
            assert caught.value.code == "read_only" and "read-only file system" in caught.value.data["reason"]
            assert caught.value.data["value"] == str(path)
        assert_cli_error(
            run_cli("--db", str(path), "add", "a", "p", "b"), "read_only", str(path), "read-only file system"
        )
        subprocess.run(["mount", "-o", "remount,rw", str(folder)], check=True)
        assert dump(path) == before


def test_an_immutable_write_ahead_log_refuses_writes_as_read_only(tmp_path: Path) -> None:
    """The graph file and folder are writable, so the graph opens for writing; SQLite's refusal of the write
    (SQLITE_READONLY: its -wal cannot be written) is read_only naming the file."""
    if not ROOT or shutil.which("chattr") is None:
        pytest.skip("chattr +i needs root (root bypasses file modes, so this is how a file is made read-only)")
    with tmpfs("4m") as folder:
        path = folder / "graph.sqlite3"
        make_graph(path, facts=5)
        holder = kgtoolkit.open(path)  # keeps the -wal and -shm files in place
        holder.add("keep", "the", "wal")
        wal = Path(f"{path}-wal")
        made = subprocess.run(["chattr", "+i", str(wal)], capture_output=True, text=True, check=False)
        if made.returncode != 0:
            holder.close()
            pytest.skip(f"this file system does not take chattr +i ({made.stderr.strip()})")
        try:
            with kgtoolkit.open(path) as kg:
                assert not kg.read_only
                assert kg.stats().facts == 6
                with pytest.raises(ReadOnly) as caught:
                    kg.add("a", "p", "b")
                assert caught.value.code == "read_only" and str(wal) in caught.value.data["reason"]
                assert kg.stats().facts == 6
        finally:
            subprocess.run(["chattr", "-i", str(wal)], check=True)
            holder.close()


# ---------------------------------------------------------------------- locked


def test_a_lock_held_past_the_timeout_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    make_graph(path, facts=5)
    csv = facts_csv(tmp_path / "facts.csv", 10)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
    try:
        with kgtoolkit.open(path, timeout=0.2) as kg:
            assert kg.stats().facts == 5  # WAL: reads go on
            for write in (lambda: kg.add("a", "p", "b"), lambda: io.import_file(kg, csv)):
                with pytest.raises(Locked) as caught:
                    write()
                error = caught.value
                assert isinstance(error, StoreError) and error.code == "locked"
                assert str(path) in error.message and "busy" in error.message and "timeout" in error.message
                assert error.data["timeout"] == 0.2 and error.data["value"] == str(path)
                # the database's own error stays attached, for a debugger or a log (raise … from exc)
                assert isinstance(error.__cause__, sqlite3.OperationalError) and "locked" in str(error.__cause__)
            holder.execute("ROLLBACK")
            assert kg.add("a", "p", "b").created  # and the graph works once the lock is gone
    finally:
        holder.close()


# ---------------------------------------------------------------------- missing dependencies


def _error_in_subprocess(blocked: list[str], body: str) -> dict[str, Any]:
    done = run_python(f"""
        import json, sys
        for name in {blocked!r}:
            sys.modules[name] = None
        import kgtoolkit
        try:
{textwrap.indent(textwrap.dedent(body), " " * 12)}
            print(json.dumps({{"ok": True}}))
        except kgtoolkit.KGError as exc:
            print(json.dumps({{"ok": False, "type": type(exc).__name__, "store_error": isinstance(exc, kgtoolkit.StoreError),
                              "error": exc.to_dict()}}))
    """)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _assert_missing(answer: dict[str, Any], package: str, extra: str) -> None:
    assert answer["ok"] is False and answer["type"] == "MissingDependency" and answer["store_error"], answer
    error = answer["error"]
    assert error["code"] == "missing_dependency" and error["package"] == package and error["extra"] == extra
    assert f"pip install 'kgtoolkit[{extra}]'" in error["message"] and "not installed" in error["message"]


def test_search_without_faiss(tmp_path: Path) -> None:
    answer = _error_in_subprocess(
        ["faiss"],
        f"""
        import numpy as np
        from kgtoolkit import search

        class Tiny:
            name, dim = "tiny", 4

            def encode(self, texts):
                return np.ones((len(texts), 4), dtype="float32") / 2

        kg = kgtoolkit.open({str(tmp_path / "g.sqlite3")!r})
        kg.add("a", "uses", "b")
        search.find(kg, "a", model=Tiny())
    """,
    )
    _assert_missing(answer, "faiss", "search")


def test_search_without_sentence_transformers_through_the_cli(tmp_path: Path) -> None:
    """Without ONNX Runtime, search falls back to sentence-transformers; without either, a clean error."""
    path = tmp_path / "g.sqlite3"
    make_graph(path, facts=3)
    assert_cli_error(
        run_cli("--db", str(path), "find", "service", blocked=("sentence_transformers", "onnxruntime")),
        "missing_dependency",
        "sentence_transformers",
        "pip install 'kgtoolkit[search]'",
    )


def test_search_without_torch_and_no_exported_model_through_the_cli(tmp_path: Path) -> None:
    """The ONNX file is made from the installed weights with torch, once: without torch (and none made yet), a clean
    error naming it."""
    path = tmp_path / "g.sqlite3"
    make_graph(path, facts=3)
    assert_cli_error(
        run_cli("--db", str(path), "find", "service", blocked=("torch",)),
        "missing_dependency",
        "torch",
        "pip install 'kgtoolkit[search]'",
    )


def test_graph_picture_without_pyvis() -> None:
    answer = _error_in_subprocess(
        ["pyvis"],
        """
        import polars as pl
        from kgtoolkit import frames
        from kgtoolkit.dashboard import graphview
        kg = kgtoolkit.open(":memory:")
        kg.add("a", "uses", "b")
        graphview.render_html(graphview.build(frames.facts(kg)))
    """,
    )
    _assert_missing(answer, "pyvis", "dashboard")


def test_postgresql_without_psycopg() -> None:
    url = "postgresql://kg@127.0.0.1:9/kg"  # never reached: psycopg is needed first
    answer = _error_in_subprocess(["psycopg"], f"kgtoolkit.open({url!r})")
    _assert_missing(answer, "psycopg", "postgres")
    assert answer["error"]["field"] == "db"
    assert_cli_error(
        run_cli("--db", url, "stats", blocked=("psycopg",)),
        "missing_dependency",
        "a PostgreSQL graph needs psycopg",
        "pip install 'kgtoolkit[postgres]'",
    )


def test_mcp_without_the_sdk(tmp_path: Path) -> None:
    assert_cli_error(
        run_cli("--db", str(tmp_path / "g.sqlite3"), "mcp", blocked=("mcp", "mcp_types")),
        "missing_dependency",
        "MCP SDK",
    )


# ---------------------------------------------------------------------- PostgreSQL


@pytest.fixture
def pg_graph(postgres: Any) -> Iterator[str]:
    url = postgres.new_schema()
    with kgtoolkit.open(url) as kg:
        for i in range(5):
            kg.add(f"service {i}", "uses", f"store {i}")
    yield url


def _schema(url: str) -> str:
    return url.rsplit("%3D", 1)[1]


def test_postgresql_lock_timeout_is_locked(pg_graph: str) -> None:
    import psycopg

    with kgtoolkit.open(pg_graph, timeout=0.5) as kg, psycopg.connect(pg_graph) as holder:
        holder.execute(f"LOCK TABLE {_schema(pg_graph)}.facts IN ACCESS EXCLUSIVE MODE")  # the transaction stays open
        for action in (lambda: kg.add("a", "p", "b"), lambda: kg.stats()):
            with pytest.raises(Locked) as caught:
                action()
            assert caught.value.code == "locked" and caught.value.data["sqlstate"] == "55P03"
            assert "busy" in caught.value.message and caught.value.data["field"] == "db"
        holder.rollback()
        assert kg.stats().facts == 5


def test_postgresql_read_only_session_is_read_only(pg_graph: str) -> None:
    """A server that makes every transaction read-only (a standby, a read-only role): 25006 is read_only."""
    url = pg_graph + "%20-cdefault_transaction_read_only%3Don"
    with kgtoolkit.open(url) as kg:
        assert not kg.read_only and kg.stats().facts == 5
        with pytest.raises(ReadOnly) as caught:
            kg.add("a", "p", "b")
        assert caught.value.code == "read_only" and caught.value.data["sqlstate"] == "25006"
    assert_cli_error(run_cli("--db", url, "add", "a", "p", "b"), "read_only", "read-only")


def test_postgresql_full_tablespace_is_disk_full(postgres: Any, tmp_path: Path, dump: Dump) -> None:
    """The graph's tables in a tablespace on a small tmpfs: a bulk import that fills it is 53100, disk_full."""
    import psycopg

    if not postgres.run_as:
        pytest.skip("the tablespace's tmpfs needs root (the server then runs as the postgres user)")
    import pwd

    owner = pwd.getpwnam("postgres")
    space = f"kgfull_{secrets.token_hex(4)}"
    csv = facts_csv(tmp_path / "facts.csv", 60_000)
    with tmpfs("3m", uid=owner.pw_uid, gid=owner.pw_gid, mode="0700") as folder:
        with psycopg.connect(postgres.url_for("kg"), autocommit=True) as admin:
            admin.execute(f"CREATE TABLESPACE {space} LOCATION '{folder}'")
        url = postgres.new_schema()
        try:
            url_in_space = f"{url}%20-cdefault_tablespace%3D{space}"
            with kgtoolkit.open(url_in_space) as kg:
                for i in range(5):
                    kg.add(f"service {i}", "uses", f"store {i}")
                before = dump(url)
                with pytest.raises(DiskFull) as caught:
                    io.import_file(kg, csv)
                assert caught.value.code == "disk_full" and caught.value.data["sqlstate"] == "53100"
                assert "out of disk space" in caught.value.message
            with kgtoolkit.open(url) as kg:
                assert kg.stats().facts == 5
            assert dump(url) == before
        finally:
            with psycopg.connect(postgres.url_for("kg"), autocommit=True) as admin:
                admin.execute(f"DROP SCHEMA {_schema(url)} CASCADE")
                admin.execute(f"DROP TABLESPACE {space}")


def test_postgresql_arrow_reads_without_adbc(pg_graph: str) -> None:
    answer = _error_in_subprocess(
        ["adbc_driver_postgresql"],
        f"""
        from kgtoolkit import frames
        frames.facts(kgtoolkit.open({pg_graph!r}))
    """,
    )
    _assert_missing(answer, "adbc_driver_postgresql", "postgres")


@pytest.mark.parametrize("package", ["streamlit", "pyvis"])
def test_the_dashboard_without_its_extra_through_the_cli(tmp_path: Path, package: str) -> None:
    graph = tmp_path / "g.sqlite3"
    make_graph(graph, facts=3)
    line = assert_cli_error(
        run_cli("dashboard", "--db", str(graph), "--port", "1", blocked=(package,)),
        "missing_dependency",
        package,
        "pip install 'kgtoolkit[dashboard]'",
    )
    assert "the dashboard" in line


def test_no_write_goes_into_a_file_a_read_found_damaged(tmp_path: Path) -> None:
    """issue 44: writes succeeded on a file whose reads reported corrupt. Once a read finds damage, every write of
    that graph is refused (corrupt), and the file is left exactly as it was."""
    from kgtoolkit.generate import generate

    path = tmp_path / "graph.sqlite3"
    with kgtoolkit.open(path) as kg:
        kgtoolkit.store.import_facts(kg, generate(30_000, seed=1))
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        leaves = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'facts' AND pagetype = 'leaf'")]
    finally:
        conn.close()
    garble(path, (sorted(leaves)[len(leaves) // 2] - 1) * 4096, 4096)
    with kgtoolkit.open(path) as kg:
        with pytest.raises(Corrupt):
            frames.facts(kg)  # the read that finds the damage (in the reader process)
        before = path.read_bytes()
        for write in (
            lambda: kg.add("brand new", "uses", "something"),
            lambda: kg.remember("a note"),
            lambda: kg.add_entity("another"),
        ):
            with pytest.raises(Corrupt) as caught:
                write()
            _assert_corrupt(caught.value, path)
            assert "nothing was written" in caught.value.message
        answer = kgtoolkit.run_tool({"action": "add", "subject": "x", "predicate": "p", "object": "y"}, kg=kg)
        assert answer["error"]["code"] == "corrupt"
    wal = Path(f"{path}-wal")
    assert path.read_bytes() == before and (not wal.exists() or wal.stat().st_size == 0)


def test_an_empty_file_is_named_as_such_and_a_write_starts_a_graph_in_it(tmp_path: Path) -> None:
    """issue 44: a 0-byte file read as "needs a schema upgrade". Read, it is an empty file holding no graph;
    opened to write, it becomes a new graph (SQLite's own reading of an empty file)."""
    path = tmp_path / "graph.sqlite3"
    path.touch()
    with pytest.raises(StoreError) as caught:
        kgtoolkit.open(path, read_only=True)
    assert caught.value.code == "store_error" and caught.value.data["empty"] is True
    assert "empty file (0 bytes)" in caught.value.message and "upgrade" not in caught.value.message
    assert path.stat().st_size == 0
    with kgtoolkit.open(path) as kg:
        kg.add("a", "p", "b")
    with kgtoolkit.open(path, read_only=True) as kg:
        assert kg.stats().facts == 1

"""A graph in a folder (or on a file system) this user cannot write is still readable, by every door.

As root, permissions do not stop writes, so the folder is made read-only with a read-only bind mount;
as another user, with chmod. Where neither is possible the tests skip, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import ReadOnly, frames
from kgtoolkit import store as _bulk
from kgtoolkit.cli import app
from kgtoolkit.generate import generate
from kgtoolkit.store.engine import _sqlite


@pytest.fixture
def read_only_graph(tmp_path: Path) -> Iterator[Path]:
    """A small graph (closed cleanly: no -wal or -shm left) seen through a folder that cannot be written."""
    source = tmp_path / "src"
    source.mkdir()
    with kgtoolkit.open(source / "g.sqlite3") as kg:
        kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
        _bulk.import_facts(kg, generate(300, seed=2))
    assert not (source / "g.sqlite3-wal").exists()
    if os.geteuid() != 0:
        source.chmod(0o555)
        try:
            yield source / "g.sqlite3"
        finally:
            source.chmod(0o755)
        return
    view = tmp_path / "ro"
    view.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("running as root without `mount`: cannot make a folder read-only")
    bound = subprocess.run(["mount", "--bind", str(source), str(view)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"running as root and cannot bind-mount a read-only folder: {bound.stderr.decode().strip()}")
    try:
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], capture_output=True)
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only: {remount.stderr.decode().strip()}")
        yield view / "g.sqlite3"
    finally:
        subprocess.run(["umount", str(view)], check=False)


def test_reads_work_and_writes_say_why_not(read_only_graph: Path) -> None:
    with kgtoolkit.open(read_only_graph) as kg:  # opened for writing: it falls back to reading
        assert kg.read_only and kg.read_only_reason
        assert [f.object_name for f in kg.query("my_api")] == ["Redis"]
        assert kg.stats().facts == 301
        with pytest.raises(ReadOnly, match="read-only for this user") as caught:
            kg.add("my_api", "uses_queue", "SQLite")
        assert "Reads work" in caught.value.message
    with kgtoolkit.open(read_only_graph, read_only=True) as kg:
        assert kg.stats().facts == 301


def test_whole_table_reads_work_in_the_reader_process(read_only_graph: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with kgtoolkit.open(read_only_graph, read_only=True) as kg:
        here = frames.facts(kg)
        monkeypatch.setattr(_sqlite, "SMALL", 0)
        assert frames.facts(kg).equals(here)
        assert here.height == 301


def test_cli_reads_and_refuses_writes_clearly(read_only_graph: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["--db", str(read_only_graph), "query", "my_api", "--json"])
    assert done.exit_code == 0, done.output
    refused = runner.invoke(app, ["--db", str(read_only_graph), "add", "my_api", "uses_queue", "SQLite"])
    assert refused.exit_code == 1
    assert "[read_only]" in refused.output and "Traceback" not in refused.output


def test_a_new_graph_in_such_a_folder_is_refused_clearly(read_only_graph: Path) -> None:
    new = read_only_graph.with_name("new.sqlite3")
    with kgtoolkit.open(
        new
    ) as kg:  # opening makes nothing: a read says there is no graph, a write that none can be made
        with pytest.raises(kgtoolkit.NotFound, match="no graph at"):
            kg.stats()
        with pytest.raises(kgtoolkit.StoreError, match="cannot create a graph"):
            kg.add("a", "p", "b")
    assert not new.exists()

"""Reads never create a graph (contract §8): a mistyped path is an error naming it, not an empty graph.

Through the library, the CLI and the dashboard's command: a read of a graph file that does not exist is
``not_found`` naming the path and leaves no file behind; the first write (or ``create=True``) makes it.
PostgreSQL keeps making a schema's tables when it is opened for writing; read-only, a schema with no graph
is ``not_found`` on both engines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import io
from kgtoolkit.cli import app
from kgtoolkit.store import copy_graph, dump, restore

runner = CliRunner()


def _missing(tmp_path: Path) -> Path:
    return tmp_path / "typo" / "graph.sqlite3"


@pytest.mark.sqlite_only
def test_reads_of_a_missing_file_name_it_and_make_nothing(tmp_path: Path) -> None:
    path = _missing(tmp_path)
    with kgtoolkit.open(path) as kg:
        assert kg.config.types == kgtoolkit.open(":memory:").config.types  # a new graph's settings, none made
        for read in (
            kg.stats,
            lambda: kg.query("anything"),
            lambda: kg.by_predicate("anything"),
            kg.entities,
            kg.summary,
            kg.check,
            lambda: kg.duplicates(embeddings=False),
            lambda: kg.timeline("anything"),
        ):
            with pytest.raises(kgtoolkit.NotFound) as err:
                read()
            assert err.value.code == "not_found" and str(path) in err.value.message
            assert "created by its first write" in err.value.message and err.value.data["value"] == str(path)
    assert not path.exists() and not path.parent.exists()
    with pytest.raises(kgtoolkit.NotFound, match="no graph at"):
        kgtoolkit.open(path, read_only=True)
    with pytest.raises(kgtoolkit.InvalidRequest):
        kgtoolkit.open(path, read_only=True, create=True)
    assert not path.parent.exists()


@pytest.mark.sqlite_only
def test_a_write_or_create_makes_the_graph(tmp_path: Path) -> None:
    made = tmp_path / "made" / "now.sqlite3"
    with kgtoolkit.open(made, create=True) as kg:
        assert made.is_file() and kg.stats().facts == 0
    path = _missing(tmp_path)
    with kgtoolkit.open(path) as kg:
        with pytest.raises(kgtoolkit.NotFound):
            kg.stats()
        assert kg.add("my_api", "uses_queue", "Redis").created
        assert path.is_file() and kg.stats().facts == 1
    with kgtoolkit.open(path, read_only=True) as kg:
        assert kg.stats().facts == 1


@pytest.mark.sqlite_only
def test_another_process_making_the_file_is_seen(tmp_path: Path) -> None:
    path = _missing(tmp_path)
    with kgtoolkit.open(path) as reader:
        with pytest.raises(kgtoolkit.NotFound):
            reader.stats()
        with kgtoolkit.open(path) as writer:
            writer.add("a", "p", "b")
        assert reader.stats().facts == 1


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "write", ["add", "add_entity", "remember", "configure", "alias_predicate", "import", "restore"]
)
def test_every_first_write_makes_the_graph(tmp_path: Path, write: str) -> None:
    source = kgtoolkit.open(tmp_path / "source.sqlite3", create=True)
    source.add("a", "p", "b")
    data = dump(source)
    table = tmp_path / "facts.csv"
    table.write_text("subject,predicate,object\na,p,b\n")
    path = _missing(tmp_path)
    with kgtoolkit.open(path) as kg:
        {
            "add": lambda: kg.add("a", "p", "b"),
            "add_entity": lambda: kg.add_entity("a"),
            "remember": lambda: kg.remember("a note"),
            "configure": lambda: kg.configure(multi_valued={"p"}),
            "alias_predicate": lambda: kg.alias_predicate("q", "p"),
            "import": lambda: io.import_file(kg, table),
            "restore": lambda: restore(kg, data),
        }[write]()
        assert path.is_file()
        kg.stats()
    source.close()


@pytest.mark.sqlite_only
def test_a_copy_makes_its_target_and_a_missing_source_is_refused(tmp_path: Path) -> None:
    with kgtoolkit.open(tmp_path / "source.sqlite3", create=True) as source:
        source.add("a", "p", "b")
        target_path = tmp_path / "copies" / "target.sqlite3"
        with kgtoolkit.open(target_path) as target:
            copy_graph(source, target)
            assert target.stats().facts == 1
    nowhere = _missing(tmp_path)
    with (
        kgtoolkit.open(nowhere) as missing,
        kgtoolkit.open(tmp_path / "t2.sqlite3") as target,
        pytest.raises(kgtoolkit.NotFound, match="no graph at"),
    ):
        copy_graph(missing, target)
    assert not nowhere.exists()


@pytest.mark.sqlite_only
def test_a_refused_restore_into_a_missing_graph_makes_nothing(tmp_path: Path) -> None:
    path = _missing(tmp_path)
    with kgtoolkit.open(path) as kg, pytest.raises(kgtoolkit.InvalidRequest):
        restore(kg, {"format": "not a dump"})
    assert not path.exists()


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "command",
    [
        ["query", "my_api"],
        ["stats"],
        ["path", "a", "b"],
        ["neighbors", "a"],
        ["timeline", "a"],
        ["export", "out.csv"],
        ["find", "anything"],
        ["duplicates"],
        ["check"],
        ["summary"],
    ],
)
def test_cli_reads_of_a_missing_graph_fail_naming_it(tmp_path: Path, command: list[str]) -> None:
    path = _missing(tmp_path)
    done = runner.invoke(app, [*command, "--db", str(path)])
    assert done.exit_code != 0, done.output
    assert "[not_found]" in done.output and str(path) in done.output and "Traceback" not in done.output
    assert not path.exists() and not path.parent.exists()


@pytest.mark.sqlite_only
def test_cli_writes_make_the_graph(tmp_path: Path) -> None:
    path = _missing(tmp_path)
    done = runner.invoke(app, ["add", "my_api", "uses_queue", "Redis", "--db", str(path)])
    assert done.exit_code == 0, done.output
    assert path.is_file()
    configured = tmp_path / "configured.sqlite3"
    done = runner.invoke(app, ["config", "--add-multi-valued", "uses_queue", "--db", str(configured)])
    assert done.exit_code == 0, done.output
    assert configured.is_file()


@pytest.mark.sqlite_only
def test_the_dashboard_refuses_a_missing_graph(tmp_path: Path) -> None:
    pytest.importorskip("streamlit")
    pytest.importorskip("pyvis")
    path = _missing(tmp_path)
    done = runner.invoke(app, ["dashboard", "--db", str(path), "--port", "1"])
    assert done.exit_code == 1, done.output
    assert "[not_found]" in done.output and f"no graph at {path}" in done.output and "--db" in done.output
    assert "kgtoolkit demo" in done.output
    assert not path.exists() and not path.parent.exists()


def test_read_only_a_graph_never_written_is_not_found_on_both_engines(new_db: Callable[[str], Path | str]) -> None:
    name = new_db("never")
    with pytest.raises(kgtoolkit.NotFound):
        kgtoolkit.open(name, read_only=True)
    with kgtoolkit.open(name) as kg:
        kg.add("a", "p", "b")
    with kgtoolkit.open(name, read_only=True) as kg:
        assert kg.stats().facts == 1


def test_the_dashboard_refuses_a_graph_never_written_on_both_engines(new_db: Callable[[str], Path | str]) -> None:
    pytest.importorskip("streamlit")
    pytest.importorskip("pyvis")
    name = str(new_db("never"))
    done = runner.invoke(app, ["dashboard", "--db", name, "--port", "1"])
    assert done.exit_code == 1 and "[not_found]" in done.output and "no graph" in done.output, done.output
    with pytest.raises(kgtoolkit.NotFound):  # and it made nothing: still no graph to read
        kgtoolkit.open(name, read_only=True)

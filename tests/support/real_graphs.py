"""The real datasets imported once per test process and engine, and handed to each test as a copy of its own.

Importing ICEWS14 (90,730 rows) takes seconds on SQLite and more on PostgreSQL, and a dozen tests read the same
imported graph. :class:`Templates` imports a dataset once per (engine, dataset, import options) into a template:

- SQLite: a closed graph file in the session's temporary folder; a test gets a byte copy of it.
- PostgreSQL: a database of the test worker's throwaway server that nobody may connect to (``ALLOW_CONNECTIONS
  false``); a test gets ``CREATE DATABASE … TEMPLATE`` of it, dropped after the test.

A copy is the test's own (tests/support/graph_copies.py): it may write to it, and the next test still gets the graph
as imported. The import's report (and, for ``on_error="skip"``, its rejects file) comes with the copy, so a test of
the import itself checks the very report of the import that made the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import postgres_server
from graph_copies import close_template, copy_database, copy_file, drop_database, new_template
from shared_data import DATA

import kgtoolkit
from kgtoolkit import ImportReport, io

__all__ = ["RealGraph", "Templates"]


@dataclass(frozen=True)
class RealGraph:
    """A test's own copy of an imported dataset: where it is, and what the import said."""

    db: Path | str
    report: ImportReport
    rejects: Path | None
    """The import's rejects file (``on_error="skip"`` only): read it, never write it."""


@dataclass(frozen=True)
class _Template:
    db: Path | str  # the graph file, or the template database's name
    report: ImportReport
    rejects: Path | None


class Templates:
    """The datasets imported so far in this test process, one template per (engine, dataset, options)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._made: dict[tuple[str, str, tuple[tuple[str, Any], ...]], _Template] = {}

    def source(self, name: str) -> Path:
        """The dataset's file (the caller skips when it is absent)."""
        return DATA / name / "facts.tsv"

    def _template(self, server: postgres_server.Server | None, name: str, options: dict[str, Any]) -> _Template:
        key = ("sqlite" if server is None else "postgresql", name, tuple(sorted(options.items())))
        if key not in self._made:
            self._made[key] = self._import(server, name, options, len(self._made))
        return self._made[key]

    def _import(self, server: postgres_server.Server | None, name: str, options: dict[str, Any], n: int) -> _Template:
        """Import the dataset into a new template graph (once per key)."""
        folder = self.folder / f"{name}-{n}"
        folder.mkdir()
        rejects = folder / "rejects.csv" if options.get("on_error") == "skip" else None
        if server is None:
            db = folder / f"{name}.sqlite3"
            with kgtoolkit.open(db) as kg:
                report = io.import_file(kg, self.source(name), rejects=rejects, **options)
            return _Template(db, report, rejects)
        database = f"tpl_{name}_{n}"
        with kgtoolkit.open(new_template(server, database)) as kg:
            report = io.import_file(kg, self.source(name), rejects=rejects, **options)
        close_template(server, database)
        return _Template(database, report, rejects)

    def copy(
        self, name: str, folder: Path, server: postgres_server.Server | None = None, **options: Any
    ) -> tuple[RealGraph, str | None]:
        """A new copy of the dataset imported with ``options``: on SQLite a file in ``folder``, on PostgreSQL
        (``server`` given) a new database, whose name comes second (the caller drops it)."""
        template = self._template(server, name, options)
        if server is None:
            assert isinstance(template.db, Path)
            return RealGraph(copy_file(template.db, folder / template.db.name), template.report, template.rejects), None
        assert isinstance(template.db, str)
        db, database = copy_database(server, template.db)
        return RealGraph(db, template.report, template.rejects), database

    def drop(self, server: postgres_server.Server, database: str) -> None:
        """Drop a copy made by :meth:`copy`."""
        drop_database(server, database)

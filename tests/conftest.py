"""Shared fixtures: every test gets its own graph file in tmp_path, and never the real ~/.kgtoolkit."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph


def pytest_configure(config: pytest.Config) -> None:
    # Registered here too, so --strict-markers holds whatever pyproject.toml says.
    config.addinivalue_line("markers", "slow: longer tests (multi-process, real datasets)")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test may read or write the user's graph: no KGTOOLKIT_DB, and HOME is the test's tmp_path."""
    monkeypatch.delenv("KGTOOLKIT_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("USERPROFILE", raising=False)
    return tmp_path


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's graph lives (not created yet)."""
    return tmp_path / "graph.sqlite3"


@pytest.fixture
def kg(db_path: Path) -> Iterator[KnowledgeGraph]:
    """A fresh graph on a real SQLite file, closed after the test."""
    graph = kgtoolkit.open(db_path)
    try:
        yield graph
    finally:
        graph.close()


def run_worked_example(kg: KnowledgeGraph) -> dict[str, kgtoolkit.AddResult | kgtoolkit.Fact]:
    """The writes of SPEC §7, returning what each one answered."""
    first = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
    again = kg.add("My API", "uses_queue", "Redis")
    ended = kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    sqlite = kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    return {"first": first, "again": again, "ended": ended, "sqlite": sqlite}


def dump_file(path: Path) -> list[str]:
    """Every row of every table (and the schema) of the file, read through a separate connection."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


@pytest.fixture
def worked_example() -> Callable[[KnowledgeGraph], dict[str, Any]]:
    """``worked_example(kg)`` runs SPEC §7's writes on ``kg``."""
    return run_worked_example


@pytest.fixture
def dump() -> Callable[[Path], list[str]]:
    """``dump(path)``: the whole file as SQL text, to compare before/after a write that must fail."""
    return dump_file


@pytest.fixture(scope="session")
def search_model() -> Any:
    """The bundled sentence-transformers model, loaded once per test session (tests/test_search.py)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("faiss")
    from kgtoolkit.search import SentenceEmbedder

    embedder = SentenceEmbedder()
    embedder.model  # noqa: B018 - load it now, once
    return embedder

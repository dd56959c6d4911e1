"""The graph object above the store (issue #31): ``KnowledgeGraph`` is the store's ``GraphStore`` with the graph
services added, and runs on whatever ``Backend`` it is given (as httpx runs on an injected transport).

An injected backend here is a real engine's, instrumented: it counts the writes (``Backend.write``, one
transaction however often PostgreSQL retries it) and the reads the operations ask for, so the test can say which
calls write, and that the graph it serves is the database's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

import pytest

import kgtoolkit
from kgtoolkit import store
from kgtoolkit.store import Backend, GraphStore
from kgtoolkit.store.engine._backend import Cursor

T = TypeVar("T")


def counting(db: Path | str) -> Backend:
    """The engine's own backend for ``db``, subclassed to count the writes and the reads asked of it."""
    engine = type(store.connect(":memory:")) if not str(db).startswith("postgresql") else _postgres()

    class Counting(engine):  # type: ignore[valid-type, misc]
        reads = writes = 0

        def write(self, fn: Callable[[Cursor], T]) -> T:
            type(self).writes += 1
            return super().write(fn)

        def read(self, *, snapshot: bool = True) -> AbstractContextManager[Cursor]:
            type(self).reads += 1
            return super().read(snapshot=snapshot)

    return Counting(store.resolve(db), read_only=False, timeout=30.0)


def _postgres() -> type[Backend]:
    from kgtoolkit.store.engine._postgres import PostgresBackend

    return PostgresBackend


@pytest.fixture
def injected(db_path: Path | str) -> Iterator[tuple[kgtoolkit.KnowledgeGraph, Backend]]:
    backend = counting(db_path)
    kg = kgtoolkit.open(backend=backend)
    try:
        yield kg, backend
    finally:
        kg.close()


def test_the_graph_runs_on_the_backend_it_is_given(
    injected: tuple[kgtoolkit.KnowledgeGraph, Backend], db_path: Path | str
) -> None:
    kg, backend = injected
    assert kg.location == backend.location and kg.backend == backend.kind
    writes = type(backend).writes  # type: ignore[attr-defined]
    kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
    assert type(backend).writes == writes + 1  # type: ignore[attr-defined]  # one add, one transaction
    reads = type(backend).reads  # type: ignore[attr-defined]
    assert [f.object_name for f in kg.query("My API")] == ["Redis"]
    assert kg.summary().count("Redis") == 1 and kg.check().total == 0
    assert type(backend).writes == writes + 1  # type: ignore[attr-defined]  # reads never write
    assert type(backend).reads > reads  # type: ignore[attr-defined]
    with kgtoolkit.open(db_path) as again:  # the same database, through the engine's plain backend
        assert [f.object_name for f in again.query("my_api")] == ["Redis"]


def test_a_graph_is_given_a_database_or_a_backend_never_both(db_path: Path | str) -> None:
    backend = counting(db_path)
    try:
        with pytest.raises(kgtoolkit.InvalidRequest) as caught:
            kgtoolkit.open(db_path, backend=backend)
        assert caught.value.code == "invalid_request" and "either db or backend" in caught.value.message
        assert type(backend).writes == 0  # type: ignore[attr-defined]  # refused before anything ran
    finally:
        backend.close()


def test_the_graph_object_is_the_stores_with_the_services_added() -> None:
    kg = kgtoolkit.open(":memory:")
    assert isinstance(kg, GraphStore) and type(kg) is kgtoolkit.KnowledgeGraph
    graph_only = {"duplicates", "not_duplicates", "check", "summary"}
    assert graph_only.isdisjoint(vars(GraphStore)) and graph_only <= set(vars(kgtoolkit.KnowledgeGraph))
    kg.add("Dana", "works at", "Acme")
    kg.add("dana", "email", "dana@example.com")
    pair = kg.not_duplicates("Dana", "Acme")
    assert (pair.a_name, pair.b_name, pair.created) == ("Acme", "Dana", True)
    assert kg.not_duplicates("Acme", "Dana").created is False
    assert repr(kg) == "KnowledgeGraph(':memory:')"

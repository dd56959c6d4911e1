"""Running a graph's migrations (``_schema.MIGRATIONS``), with their progress reported when the graph is big.

A graph of an earlier version is migrated when it is first opened for writing. Most steps take no time, but some
make data from every fact (schema step 12 fills the rollups, contract §18): on a big graph that is minutes. Inside
:func:`migration_progress`, such a migration calls ``progress(done, total)`` after each statement (``total``: the
statements of the steps it applies), so a caller can show a bar; the CLI does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from ._schema import MIGRATIONS

__all__ = ["BIG_MIGRATION", "apply_migrations", "migration_progress"]

#: From this many facts (the largest fact id), a migration reports its progress.
BIG_MIGRATION = 100_000

_PROGRESS: ContextVar[tuple[Callable[[int, int], None], int] | None] = ContextVar("migration_progress", default=None)


@contextlib.contextmanager
def migration_progress(progress: Callable[[int, int], None], *, from_facts: int = BIG_MIGRATION) -> Iterator[None]:
    """Report the progress of a migration run meanwhile in this context (a graph opened for writing).

    Parameters
    ----------
    progress
        Called as ``progress(done, total)`` once before the first statement (``done`` 0) and after each one.
    from_facts
        Report only for a graph of at least this many facts (its largest fact id): a small one migrates at once.

    Returns
    -------
    A context manager; the graphs opened inside it report to ``progress``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit.store import migration_progress
    >>> with migration_progress(lambda done, total: None):
    ...     kg = kgtoolkit.open(":memory:")
    """
    token = _PROGRESS.set((progress, from_facts))
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def apply_migrations(execute: Callable[[str], Any], kind: str, version: int, facts: Callable[[], int]) -> None:
    """Run the migrations of engine ``kind`` from ``version`` on, each statement through ``execute``; ``facts``
    tells the graph's size (asked only when a progress callback waits for a big migration)."""
    statements = [s for step in MIGRATIONS[kind][version:] for s in step]
    watching = _PROGRESS.get()
    report = None
    if watching is not None and version > 0 and facts() >= watching[1]:
        report = watching[0]
    if report:
        report(0, len(statements))
    for done, statement in enumerate(statements, 1):
        execute(statement)
        if report:
            report(done, len(statements))

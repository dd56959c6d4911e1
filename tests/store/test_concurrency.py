"""Several processes writing one graph at once: nothing is lost, nothing is half-written, no lock errors.

On both backends: processes on one SQLite file, and processes on one PostgreSQL schema (where
serializable writes that clash are run again).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import kgtoolkit

WORKERS = 4
JOBS = 150  # facts each worker adds about itself
ENDED_EVERY = 3  # every third of them is invalidated
SHARED = 50  # triples every worker adds: exactly one copy of each must survive


def _worker(path: str, worker: int, barrier: Any) -> dict[str, Any]:
    """Runs in a spawned process: open the (maybe not yet created) file and write as fast as possible."""
    report: dict[str, Any] = {"worker": worker, "errors": [], "shared_created": 0, "ops": 0}
    try:
        barrier.wait(timeout=60)
        with kgtoolkit.open(path) as kg:
            me = f"worker {worker}"
            for i in range(JOBS):
                kg.add(me, "handles", f"job {worker}-{i}", valid_from="2026-01-01", source=f"w{worker}")
                report["ops"] += 1
                if i % ENDED_EVERY == 0:
                    kg.invalidate(me, "handles", f"job {worker}-{i}", ended="2026-02-01", ended_by=f"w{worker}")
                    report["ops"] += 1
                result = kg.add("shared", "seen", f"item {(i + worker * 7) % SHARED}")
                report["shared_created"] += result.created
                report["ops"] += 1
                if i % 25 == 0:  # read-your-writes while the others keep writing
                    seen = kg.query(me, direction="outgoing")
                    if len(seen) != i + 1:
                        report["errors"].append(f"after {i + 1} adds, query saw {len(seen)}")
                    report["ops"] += 1
    except BaseException:
        report["errors"].append(traceback.format_exc())
    return report


@pytest.mark.slow
def test_processes_write_one_graph_at_once(db_path: Path | str, backend: str, sql: Callable[..., list[Any]]) -> None:
    path = db_path
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(WORKERS)
        with ctx.Pool(WORKERS) as pool:
            reports = pool.starmap(_worker, [(str(path), w, barrier) for w in range(WORKERS)])

    errors = [e for r in reports for e in r["errors"]]
    assert errors == []  # in particular, no "database is locked"
    assert sum(r["ops"] for r in reports) >= WORKERS * JOBS * 2

    ended_per_worker = len(range(0, JOBS, ENDED_EVERY))
    with kgtoolkit.open(path) as kg:
        stats = kg.stats()
        assert stats.facts == WORKERS * JOBS + SHARED
        assert stats.ended == WORKERS * ended_per_worker
        assert stats.current == WORKERS * (JOBS - ended_per_worker) + SHARED
        assert stats.entities == WORKERS + 1 + WORKERS * JOBS + SHARED  # workers, 'shared', jobs, items
        # Concurrent adds of one triple: exactly one process created it, the others got it back.
        assert sum(r["shared_created"] for r in reports) == SHARED
        assert len(kg.by_predicate("seen")) == SHARED
        for w in range(WORKERS):
            facts = kg.query(f"worker {w}", direction="outgoing")
            assert len(facts) == JOBS
            assert {f.object for f in facts} == {f"job_{w}-{i}" for i in range(JOBS)}
            ended = [f for f in facts if not f.current]
            assert len(ended) == ended_per_worker
            assert all(f.valid_to == "2026-02-01" and f.ended_by == f"w{w}" for f in ended)
            assert all(f.source == f"w{w}" for f in facts)

    if backend == "sqlite":
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        finally:
            conn.close()
    half_written = sql(
        path,
        "SELECT count(*) FROM facts WHERE (valid_to IS NULL) <> (invalidated_at IS NULL) "
        "OR (valid_to IS NULL) <> (ended_by IS NULL) OR recorded_at IS NULL "
        "OR (valid_to IS NOT NULL AND to_us < from_us)",
    )
    assert half_written == [(0,)]
    duplicates = sql(
        path,
        "SELECT count(*) FROM (SELECT 1 FROM facts WHERE valid_to IS NULL "
        "GROUP BY subject, predicate, object_key HAVING count(*) > 1) d",
    )
    assert duplicates == [(0,)]
    dangling = sql(
        path,
        "SELECT count(*) FROM facts f WHERE NOT EXISTS (SELECT 1 FROM entities e "
        "WHERE e.id = f.subject) OR (f.object_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM entities e WHERE e.id = f.object_id))",
    )
    assert dangling == [(0,)]

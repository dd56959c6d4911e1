"""What only a PostgreSQL graph has: a server to reach, a schema to share, and writers on many machines.

Every other test runs on PostgreSQL too (the backend-parametrised fixtures of conftest.py); these
cover the connection's failures, the schema's identity and guards, and the concurrency guarantees
with many processes writing one graph.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import polars as pl
import postgres_server
import pytest
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import NotFound, ReadOnly, StoreError, run_tool
from kgtoolkit.cli import app

pytestmark = pytest.mark.usefixtures("postgres")


@pytest.fixture
def url(postgres: postgres_server.Server) -> str:
    """A fresh, empty schema of the test database, as a graph URL."""
    return postgres.new_schema()


# ---------------------------------------------------------------------- reaching the server


@pytest.fixture
def bad_urls(postgres: postgres_server.Server) -> dict[str, tuple[str, str]]:
    """Each broken URL and what its error must say."""
    return {
        "wrong password": (postgres.url_for("kg", password="not-it"), "refused the user name or password"),
        "missing database": (postgres.url_for("no_such_db"), "database does not exist"),
        "unreachable host": (postgres.url_for("kg", port=1), "cannot be reached"),
    }


@pytest.mark.parametrize("case", ["wrong password", "missing database", "unreachable host"])
def test_a_bad_url_is_a_clear_error_through_every_door(bad_urls: dict[str, tuple[str, str]], case: str) -> None:
    bad, says = bad_urls[case]
    with pytest.raises(StoreError, match=says) as caught:
        kgtoolkit.open(bad)
    assert "not-it" not in caught.value.message  # the password is masked, never printed
    answer = run_tool({"action": "stats"}, db=bad)
    assert answer["ok"] is False and answer["error"]["code"] == "store_error" and says in answer["error"]["message"]
    done = CliRunner().invoke(app, ["--db", bad, "stats"])
    assert done.exit_code == 1 and "[store_error]" in done.output and "Traceback" not in done.output


def test_the_password_never_shows(url: str, postgres: postgres_server.Server) -> None:
    with kgtoolkit.open(url) as kg:
        assert postgres.password not in repr(kg) and postgres.password not in str(kg.location)
        assert "***" in str(kg.location)
    done = CliRunner().invoke(app, ["--db", url, "path"])
    assert done.exit_code == 0 and postgres.password not in done.output and "***" in done.output


# ---------------------------------------------------------------------- the schema


def test_schema_is_created_once_with_a_version_and_an_identity(url: str, sql) -> None:
    with kgtoolkit.open(url) as kg:
        kg.add("billing", "owned_by", "payments team")
        identity = kg.identity()
    with kgtoolkit.open(url) as again:
        assert again.identity() == identity and again.stats().facts == 1
    ((version, graph_id),) = sql(url, "SELECT version, graph_id FROM kgtoolkit_schema")
    assert version == kgtoolkit.store.SCHEMA_VERSION and graph_id == identity


def test_another_programs_tables_are_left_alone(url: str, sql) -> None:
    sql(url, "CREATE TABLE facts (id integer, note text)", "INSERT INTO facts VALUES (1, 'theirs')")
    with pytest.raises(StoreError, match="tables of another program") as caught:
        kgtoolkit.open(url)
    assert "search_path" in caught.value.message
    assert sql(url, "SELECT * FROM facts") == [(1, "theirs")]


def test_a_search_path_without_a_schema_is_refused(postgres: postgres_server.Server) -> None:
    with pytest.raises(StoreError, match="no schema"):
        kgtoolkit.open(f"{postgres.url_for('kg')}?options=-csearch_path%3Dnot_created")


def test_read_only_opens_a_read_only_transaction(url: str, sql) -> None:
    with pytest.raises(NotFound, match="no graph"):
        kgtoolkit.open(url, read_only=True)  # nothing is created by a read-only open
    with kgtoolkit.open(url) as kg:
        kg.add("a", "p", "b")
    with kgtoolkit.open(url, read_only=True) as ro:
        assert ro.stats().facts == 1
        with pytest.raises(ReadOnly):
            ro.add("a", "p", "c")
        # even behind the library's back, the session refuses writes
        with ro.engine.transaction(write=False) as cur:
            assert cur.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
    assert sql(url, "SELECT count(*) FROM facts") == [(1,)]


# ---------------------------------------------------------------------- many writers


_WORKER = textwrap.dedent("""
    import json, random, sys
    import kgtoolkit
    url, worker, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(worker)
    services = [f"svc{i}" for i in range(6)]
    databases = ["Postgres", "MySQL", "Redis", "SQLite"]
    log = {"created": 0, "deduplicated": 0, "supersedes": [], "invalidated": [], "errors": {}}
    with kgtoolkit.open(url, timeout=60) as kg:
        for step in range(rounds):
            op = rng.choice(["add", "add", "invalidate", "supersede", "merge"] if worker >= 6 else
                            ["add", "add", "add", "invalidate", "supersede"])
            s, old, new = rng.choice(services), rng.choice(databases), rng.choice(databases)
            try:
                if op == "add":
                    log["created"] += kg.add(s, "uses_db", old, valid_from="2026-01-01").created
                    # every worker creates the same new entities at about the same moment
                    log["created"] += kg.add(s, "calls", f"endpoint {step}", valid_from="2026-01-01").created
                    kg.add(f"dup {worker} {step}", "uses_db", old)  # an entity for the mergers
                    log["created"] += 1
                elif op == "invalidate":
                    log["invalidated"].append(kg.invalidate(s, "uses_db", old, ended="2026-06-01").id)
                elif op == "supersede" and old != new:
                    result = kg.supersede(s, "uses_db", old, new, at="2026-06-01")
                    log["created"] += result.created
                    if result.created:  # else the new object was current already: that fact is returned
                        log["supersedes"].append([result.old.id, result.new.id])
                elif op == "merge":
                    source = rng.choice([e.id for e in kg.entities() if e.id.startswith("dup")] or ["nothing"])
                    log["deduplicated"] += kg.merge(source, rng.choice(services)).deduplicated
            except kgtoolkit.KGError as exc:  # not current, not found: a race another worker won
                log["errors"][exc.code] = log["errors"].get(exc.code, 0) + 1
                if exc.code == "store_error": log.setdefault("messages", []).append(op + ": " + exc.message)
    print(json.dumps(log))
""")


def test_eight_writer_processes_keep_every_invariant(url: str, sql) -> None:
    with kgtoolkit.open(url) as kg:
        kg.configure(multi_valued=[])
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, url, str(i), "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    logs = []
    for proc in workers:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        logs.append(json.loads(out))
    unexpected = {code for log in logs for code in log["errors"]} - {"not_current", "not_found", "invalid_request"}
    assert not unexpected, [
        m for log in logs for m in log.get("messages", [])
    ]  # no store_error: conflicts were retried, none was lost
    # Never two identical current facts.
    assert (
        sql(
            url,
            "SELECT subject, predicate, object_key FROM facts WHERE valid_to IS NULL "
            "GROUP BY subject, predicate, object_key HAVING count(*) > 1",
        )
        == []
    )
    # No lost write: every fact a worker created is there, but for the duplicates merges folded.
    created = sum(log["created"] for log in logs)
    folded = sum(log["deduplicated"] for log in logs)
    assert sql(url, "SELECT count(*) FROM facts") == [(created - folded,)]
    # Supersede is atomic: each old fact ended where its new one starts.
    with kgtoolkit.open(url) as kg:
        for log in logs:
            for old_id, new_id in log["supersedes"]:
                old = _maybe(kg, old_id)
                new = _maybe(kg, new_id)
                if old is not None:
                    assert old.valid_to is not None
                if old is not None and new is not None:
                    assert new.valid_from == "2026-06-01" and old.subject == new.subject
            for fact_id in log["invalidated"]:
                fact = _maybe(kg, fact_id)
                assert fact is None or fact.valid_to is not None
    # Every reference is whole: no fact names a missing entity.
    assert sql(url, "SELECT count(*) FROM facts f LEFT JOIN entities e ON e.id = f.subject WHERE e.id IS NULL") == [
        (0,)
    ]


def _maybe(kg: kgtoolkit.KnowledgeGraph, fact_id: int) -> kgtoolkit.Fact | None:
    try:
        return kg.fact(fact_id)
    except NotFound:
        return None  # folded by a merge


# ---------------------------------------------------------------------- moving a graph


def test_copy_sqlite_to_postgres_and_back_is_lossless(url: str, tmp_path: Path) -> None:
    from kgtoolkit._demo import build_demo
    from kgtoolkit.store import copy_graph, dump

    with build_demo(tmp_path / "demo.sqlite3") as demo:
        demo.remember("evidence text", metadata={"page": 3})
        with kgtoolkit.open(url) as team:
            report = copy_graph(demo, team)
            assert report.facts == demo.stats().facts and not report.merged
            with kgtoolkit.open(tmp_path / "back.sqlite3") as back:
                copy_graph(team, back)
                assert dump(back) == dump(demo) == dump(team)
                # Ids go on after the copied ones: no id is reused.
                new = team.add("billing", "owned_by", "new team").fact
                assert new.id > max(f.id for f in demo.timeline())


def test_copy_refuses_a_graph_that_is_not_empty(url: str, tmp_path: Path) -> None:
    from kgtoolkit.store import copy_graph

    with kgtoolkit.open(tmp_path / "a.sqlite3") as a, kgtoolkit.open(url) as b:
        a.add("x", "p", "y")
        b.add("other", "p", "z")
        with pytest.raises(kgtoolkit.InvalidRequest, match="already holds a graph"):
            copy_graph(a, b)
        assert b.stats().facts == 1
        merged = copy_graph(a, b, merge=True)
        assert merged.merged and b.stats().facts == 2


# ---------------------------------------------------------------------- a big import into a small graph


def _catalog(url: str, sql) -> list[Any]:
    """The graph's indexes, constraints and triggers, as the catalog says (names without their numbers)."""
    return sql(
        url,
        "SELECT 'index', indexname, regexp_replace(indexdef, ' ON [a-z0-9_]+[.]', ' ON ') FROM pg_indexes "
        "WHERE schemaname = current_schema() UNION ALL SELECT 'constraint', conname, pg_get_constraintdef(oid) "
        "FROM pg_constraint WHERE connamespace = CAST(current_schema() AS regnamespace) UNION ALL "
        "SELECT 'trigger', regexp_replace(tgname, '[0-9]+', 'N'), CAST(tgenabled AS TEXT) FROM pg_trigger "
        "WHERE tgrelid = CAST('facts' AS regclass) ORDER BY 1, 2, 3",
    )


def _rows(n: int, start: int = 0) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "subject": [f"node {i % 7}" for i in range(start, start + n)],
            "predicate": "links_to",
            "object": [f"node {i}" for i in range(start, start + n)],
            "valid_from": "2024-01-01",
            "valid_to": [None if i % 3 else "2024-06-01" for i in range(n)],
        }
    )


def test_a_big_import_into_a_small_graph_builds_its_indexes_after_it(
    url: str, sql, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    import kgtoolkit.store.engine._postgres as pg
    import kgtoolkit.store.transfer._load as bulk
    from kgtoolkit.store import import_facts
    from kgtoolkit.store.reads import _search

    monkeypatch.setattr(pg, "_DEFER_FROM", 10)  # "big" at this test's size
    monkeypatch.setattr(bulk, "_PAUSE_TEXT_INDEX", 10)
    monkeypatch.setattr(bulk, "_CHUNK", 20)
    deferred: list[bool] = []  # for each big load: whether it built the indexes after it
    defer = pg.PostgresBackend._defer

    def spied(self: pg.PostgresBackend, cur: Any) -> list[str] | None:
        again = defer(self, cur)
        deferred.append(again is not None)
        return again

    monkeypatch.setattr(pg.PostgresBackend, "_defer", spied)
    with kgtoolkit.open(url) as kg:
        kg.add("node 1", "links_to", "node 8", valid_from="2024-01-01")  # the file's 9th row
        schema = _catalog(url, sql)

        def interrupt(done: int, total: int) -> None:
            if done > 0:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):  # whole or absent: the dropped indexes come back with the rollback
            import_facts(kg, _rows(60), progress=interrupt)
        assert kg.stats().facts == 1 and _catalog(url, sql) == schema

        report, _ = import_facts(kg, _rows(60))  # into a graph of 1 fact: indexes, keys, text index built after
        assert (report.inserted, report.duplicates) == (59, 1)
        assert _catalog(url, sql) == schema  # the same indexes, constraints and triggers, enabled
        assert import_facts(kg, _rows(60))[0].duplicates == 60  # importing it again changes nothing
        assert [f.object for f in kg.query("node 3", direction="outgoing", current_only=False)] == [
            f"node_{i}" for i in range(3, 60, 7)
        ]
        # The full-text index holds every fact, and finds them.
        assert sql(url, "SELECT count(*) FROM fact_search") == sql(url, "SELECT count(*) FROM facts") == [(60,)]
        (last,) = kg.query("node 59", direction="incoming")
        assert [fid for fid, _ in _search.lexical_facts(kg, ["59"], 5)] == [last.id]
        with pytest.raises(psycopg.errors.ForeignKeyViolation):  # the foreign keys check again
            sql(
                url,
                "INSERT INTO facts(subject, predicate, object_value, object_key, from_us, to_us, recorded_at) "
                "VALUES ('nobody', 'p', 'x', 'x', 0, 0, 'now')",
            )

        # A reader in the middle of a read: the load does not wait for it, nor make new readers queue behind it,
        # but keeps the indexes and updates them row by row.
        with psycopg.connect(url) as reader:  # a transaction: its lock on facts lasts until the rollback
            reader.execute("SELECT count(*) FROM facts").fetchone()
            report, _ = import_facts(kg, _rows(200, start=1000))
            reader.rollback()
        assert report.inserted == 200 and kg.stats().facts == 260 and _catalog(url, sql) == schema
    assert deferred == [True, True, False]  # the interrupted load, the load, the load beside a reader

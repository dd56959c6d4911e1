"""What integer surrogate keys for entities and predicates would save: measured before migrating.

Issue 14 names integer keys as a likely lever ("joins become gathers, indexes shrink"). A migration to them
touches every statement of the store on both engines, so this probe measures first. Beside a kgtoolkit graph
it builds, in the same file, a copy of the facts whose subject, predicate and object are integers (row numbers
of an entity table and a predicate table; a value's de-duplication key stays text), and times the same work on
both, alternately, in one run:

* ``indexes``    building the facts indexes that hold an end or the predicate (the part of an import's index
                 builds that the keys change);
* ``last_hop``   the last hop of ``neighbors(e, hops=2)`` of entities of median degree, read as ``neighbors``
                 reads it (each column as one JSON array, decoded and counted with sets);
* ``frames``     the columns ``frames.facts`` reads, through the reader process (ADBC), and the joins of the
                 subjects' and objects' names and types in polars;
* ``keys``       the duplicate check's read of every fact's keys (what a re-import compares), through the
                 reader process.

    python benchmarks/probe_integer_keys.py --facts 1000000 [--db graph.sqlite3] [--samples 100] [--json F]

``--db``: an existing graph file to probe (a copy is made: the probe adds tables); else a graph of
``kgtoolkit.generate`` (seed 7) is imported. SQLite only (PostgreSQL was not probed). Times are wall-clock
medians; never used as a test.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import polars as pl
import pyarrow as pa

import kgtoolkit
from kgtoolkit._time import OPEN_END, now_key
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts
from kgtoolkit.store.engine._arrow_read import HI, LO, read_arrow, reader_uri
from kgtoolkit.store.engine._schema import FACT_COLUMNS, FACT_INDEXES

#: The integer copy: each end and the predicate as the row number of its entity or predicate.
INT_COPY = [
    "CREATE TABLE probe_entities(k INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, type TEXT NOT NULL)",
    "INSERT INTO probe_entities(id, name, type) SELECT id, name, type FROM entities ORDER BY id",
    "CREATE TABLE probe_predicates(k INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)",
    "INSERT INTO probe_predicates(id) SELECT DISTINCT predicate FROM facts ORDER BY 1",
    # The same columns as facts, in the same order, the same id key.
    """CREATE TABLE probe_facts(id INTEGER PRIMARY KEY, subject INTEGER NOT NULL, predicate INTEGER NOT NULL,
        object_id INTEGER, object_value TEXT, object_key NOT NULL, valid_from TEXT, valid_to TEXT,
        from_us INTEGER NOT NULL, to_us INTEGER NOT NULL, confidence REAL NOT NULL, source TEXT NOT NULL,
        source_closet TEXT, recorded_at TEXT NOT NULL, invalidated_at TEXT, ended_by TEXT)""",
    f"""INSERT INTO probe_facts SELECT f.id, s.k, p.k, o.k, f.object_value,
        CASE WHEN o.k IS NULL THEN f.object_key ELSE o.k END, {", ".join("f." + c for c in FACT_COLUMNS[6:])}
        FROM facts f JOIN probe_entities s ON s.id = f.subject JOIN probe_predicates p ON p.id = f.predicate
        LEFT JOIN probe_entities o ON o.id = f.object_id ORDER BY f.id""",
    # The walk's indexes, which the last hop reads.
    "CREATE INDEX probe_walk_out ON probe_facts(subject, to_us, object_id, from_us, predicate) WHERE object_id IS NOT NULL",
    "CREATE INDEX probe_walk_in ON probe_facts(object_id, to_us, subject, from_us, predicate) WHERE object_id IS NOT NULL",
]
KEYED = ("subject", "predicate", "object_id", "object_key")
FRAMES_READ = (
    "id",
    "subject",
    "predicate",
    "object_id",
    "object_value",
    "valid_from",
    "valid_to",
    "from_us",
    "to_us",
    "confidence",
    "source",
    "source_closet",
    "recorded_at",
    "invalidated_at",
    "ended_by",
)
KEYS_READ = "subject, predicate, object_key, from_us, to_us, valid_to IS NULL"


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def keyed_indexes() -> list[str]:
    """The facts indexes (their latest definitions) that hold an end or the predicate."""
    return [s for s in FACT_INDEXES["sqlite"] if any(k in s.split(" ON facts(", 1)[1] for k in KEYED)]


def index_builds(conn: sqlite3.Connection, table: str) -> float:
    """Seconds to build :func:`keyed_indexes` on ``table``, rolled back."""
    conn.execute("BEGIN")
    try:
        start = time.perf_counter()
        for n, statement in enumerate(keyed_indexes()):
            on = statement.split(" ON facts(", 1)[1]
            conn.execute(f"CREATE {'UNIQUE ' if 'UNIQUE' in statement else ''}INDEX probe_ix{n} ON {table}({on}")
        return time.perf_counter() - start
    finally:
        conn.execute("ROLLBACK")


def last_hop_sql(table: str) -> str:
    around = (
        "SELECT f.id AS id, f.{there} AS there FROM {table} f WHERE f.{here} IN (SELECT value FROM json_each(?)) "
        "AND f.object_id IS NOT NULL AND f.object_id <> f.subject AND f.to_us = ? AND f.from_us <= ?"
    )
    both = " UNION ALL ".join(
        around.format(table=table, here=here, there=there)
        for here, there in (("subject", "object_id"), ("object_id", "subject"))
    )
    return f"SELECT json_group_array(id), json_group_array(there) FROM ({both}) u"


def last_hops(conn: sqlite3.Connection, samples: int) -> dict[str, float]:
    """p50 milliseconds of the last hop of 2-hop walks from entities of median degree (current facts)."""
    degree = conn.execute(
        "SELECT e, count(*) FROM (SELECT subject AS e FROM facts WHERE valid_to IS NULL AND object_id IS NOT NULL "
        "AND object_id <> subject UNION ALL SELECT object_id FROM facts WHERE valid_to IS NULL "
        "AND object_id IS NOT NULL AND object_id <> subject) GROUP BY e"
    ).fetchall()
    middle = sorted(c for _, c in degree)[len(degree) // 2]
    picks = random.Random(7).sample(
        [e for e, c in degree if c == middle], min(samples, sum(c == middle for _, c in degree))
    )
    keys = dict(conn.execute("SELECT id, k FROM probe_entities").fetchall())
    now = now_key()
    text_sql, int_sql = last_hop_sql("facts"), last_hop_sql("probe_facts")
    one = (
        "SELECT CASE WHEN subject = ? THEN object_id ELSE subject END FROM facts WHERE (subject = ? OR object_id = ?) "
        "AND object_id IS NOT NULL AND object_id <> subject AND to_us = ? AND from_us <= ?"
    )

    def hop(sql: str, frontier: list[Any]) -> int:
        ids, ends = (json.loads(v) for v in conn.execute(sql, (json.dumps(frontier), OPEN_END, now) * 2).fetchone())
        return len(set(ids)) + len(set(ends))

    out: dict[str, list[float]] = {"text": [], "integer": []}
    for entity in picks:
        frontier = sorted({r[0] for r in conn.execute(one, (entity, entity, entity, OPEN_END, now))})
        for kind, sql, ends in (("text", text_sql, frontier), ("integer", int_sql, [keys[e] for e in frontier])):
            out[kind].append(median_of(lambda: hop(sql, ends), 3))
    return {k: statistics.median(v) * 1e3 for k, v in out.items()}


def whole_reads(path: Path, repeat: int) -> dict[str, float]:
    """Seconds of the reader process's reads (frames' columns; the duplicate check's keys) and of frames' joins."""
    uri = reader_uri(path, immutable=True)

    def read(sql: str) -> pa.Table:  # in two id ranges read at once, as frames.facts and the re-import read
        parts, _ = read_arrow(uri, timeout=60, split=(f"{sql} WHERE id >= ? AND id < ?", [LO, HI]), split_min=1)
        return pa.concat_tables(parts)

    def read_names(sql: str) -> pa.Table:
        _, (table,) = read_arrow(uri, timeout=60, queries=[(sql, [])])
        return table

    def joined(facts: pa.Table, names: pa.Table) -> pl.DataFrame:
        frame, ents = pl.from_arrow(facts), pl.from_arrow(names)
        assert isinstance(frame, pl.DataFrame) and isinstance(ents, pl.DataFrame)
        subjects = ents.rename({"id": "subject", "name": "subject_name", "type": "subject_type"})
        objects = ents.rename({"id": "object_id", "name": "object_name", "type": "object_type"})
        return frame.join(subjects, on="subject", how="left", maintain_order="left").join(
            objects, on="object_id", how="left", maintain_order="left"
        )

    read_names("SELECT 1")  # the reader process started
    out: dict[str, float] = {}
    for kind, table, entities in (
        ("text", "facts", "SELECT id, name, type FROM entities"),
        ("integer", "probe_facts", "SELECT k AS id, name, type FROM probe_entities"),
    ):
        columns = f"SELECT {', '.join(FRAMES_READ)} FROM {table}"
        out[f"frames_read_{kind}"] = median_of(lambda: read(columns), repeat)
        facts, names = read(columns), read_names(entities)
        out[f"frames_join_{kind}"] = median_of(lambda: joined(facts, names), repeat)
        out[f"keys_read_{kind}"] = median_of(lambda: read(f"SELECT {KEYS_READ} FROM {table}"), repeat)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--db", type=Path, help="an existing graph file to probe (copied first)")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kg-probe-") as tmp:
        path = Path(tmp) / "graph.sqlite3"
        if args.db:
            shutil.copyfile(args.db, path)
        else:
            print(f"importing {args.facts:,} generated facts ...", flush=True)
            with kgtoolkit.open(path) as kg:
                import_facts(kg, generate(args.facts, seed=7))
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            start = time.perf_counter()
            for statement in INT_COPY:
                conn.execute(statement)
            facts = conn.execute("SELECT count(*) FROM facts").fetchone()[0]
            print(f"{facts:,} facts; integer copy made in {time.perf_counter() - start:.1f} s", flush=True)
            builds = {
                kind: statistics.median([index_builds(conn, table) for _ in range(args.repeat)])
                for kind, table in (("text", "facts"), ("integer", "probe_facts"))
            }
            hops = last_hops(conn, args.samples)
        finally:
            conn.close()
        reads = whole_reads(path, args.repeat)
    result = {
        "facts": facts,
        "index_builds_s": builds,
        "indexes": len(keyed_indexes()),
        "last_hop_p50_ms": hops,
        **{k: round(v, 4) for k, v in reads.items()},
    }
    rows = [
        ("build the indexes holding keys", f"{builds['text']:.2f} s", f"{builds['integer']:.2f} s"),
        ("neighbors' last hop, p50", f"{hops['text']:.2f} ms", f"{hops['integer']:.2f} ms"),
        ("frames.facts's read (ADBC)", f"{reads['frames_read_text']:.2f} s", f"{reads['frames_read_integer']:.2f} s"),
        (
            "frames.facts's joins of names",
            f"{reads['frames_join_text']:.2f} s",
            f"{reads['frames_join_integer']:.2f} s",
        ),
        ("re-import's read of every key", f"{reads['keys_read_text']:.2f} s", f"{reads['keys_read_integer']:.2f} s"),
    ]
    print(f"\n{'':34} {'text keys':>12} {'integer keys':>14}")
    for name, text, integer in rows:
        print(f"{name:34} {text:>12} {integer:>14}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()

"""The benchmark suite: kgtoolkit against plain SQLite and against MemPalace, on the same generated facts.

    python benchmarks/bench_suite.py                       # 10k, 100k and 1M facts, 3 runs each (~11 min)
    python benchmarks/bench_suite.py --quick               # 10k and 100k facts, fewer runs (about 1 min)
    python benchmarks/bench_suite.py --sizes 10000,100000 --repeat 5 --json out.json --readme

For each size (facts from ``kgtoolkit.generate``, seed 7), in one process unless said otherwise:

* **import**: ``import_facts`` into an empty graph and again into the full one (every row a duplicate), the
  plain-``executemany`` floors of ``bench_import.py`` on the same rows and schema, and the whole
  ``kgtoolkit import`` process on a TSV of the same facts.
* **writes beside MemPalace**: the same facts (the first ``--mempalace-sample``) through MemPalace's
  ``add_triple`` one by one, through ``kg.add`` one by one, and through ``import_facts`` at once; each into
  an empty file.
* **answers**: before any read is timed, both graphs hold the same facts and answer ``query`` /
  ``query_entity`` (with and without ``as_of``, both directions and incoming), ``timeline`` and, after the
  same ``invalidate`` calls, ``query`` again, for a sample of entities; differences are counted and shown.
  A handful of probes on hand-made facts show where the two tools' rules differ.
* **point reads**: p50/p95 latency (µs) of ``kg.query`` (with and without ``as_of``), incoming queries,
  ``kg.search`` by predicate and object, and ``kg.timeline`` over ``--samples`` random entities, each beside
  the raw indexed SQL returning the same rows (``sqlite3`` on the same file, the entity id known) and,
  where MemPalace has the operation, its call on its own file holding the same facts.
* **invalidate**: p50/p95 of ``kg.invalidate`` and MemPalace's ``invalidate`` on the same current facts.
* **frames**: ``frames.facts`` (the whole graph into polars), ``analysis.conflicts``, monthly
  ``analysis.churn``, beside ``polars.read_database`` of one joined SELECT and the store's own
  ``kg.conflicts()``.
* **search**: the figures of ``bench_search.py`` (run with ``--skip-yago`` unless ``--search-json`` points at
  its output), when semantic search is installed.

MemPalace (``pip install --no-deps mempalace``; not a kgtoolkit dependency) gets the whole graph through
``add_triple`` when the size is at most ``--mempalace-sample``; above that, ``add_triple`` is timed on the
sample and the full MemPalace file is written by :func:`mempalace_bulk`, which inserts exactly the rows
``add_triple`` would (checked against ``add_triple`` on the sample in the same run). Times are wall-clock
medians of ``--repeat`` runs; latencies are per call. Never used as a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import functools
import gc
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_import as bi
import polars as pl
from readme_block import write_block

import kgtoolkit
from kgtoolkit import analysis, frames
from kgtoolkit._errors import KGError
from kgtoolkit.generate import generate, write_generated
from kgtoolkit.store import import_facts, read_table

README = HERE / "README.md"
ENDED = "2026-06-30"  # invalidations end here: after every generated start (2024-01-01 + 730 days)
FACT_COLUMNS = """f.id, f.subject, s.name, f.predicate, COALESCE(f.object_id, f.object_value),
    COALESCE(o.name, f.object_value), f.object_id IS NULL, f.valid_from, f.valid_to, f.confidence,
    f.source, f.source_closet, f.recorded_at, f.invalidated_at, f.ended_by"""
FACT_FROM = "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id"
ORDER = "ORDER BY f.valid_from IS NULL, f.from_us, f.id"
# The raw SQL beside each read: the same rows and columns the store returns, the entity id already known.
RAW = {
    "query": f"""SELECT {FACT_COLUMNS}, f.valid_from IS NULL AS u, f.from_us AS k FROM {FACT_FROM} WHERE f.subject = :e
        UNION ALL SELECT {FACT_COLUMNS}, f.valid_from IS NULL, f.from_us FROM {FACT_FROM}
        WHERE f.object_id = :e AND f.subject <> :e ORDER BY u, k, 1""",
    "query_as_of": f"""SELECT {FACT_COLUMNS}, f.valid_from IS NULL AS u, f.from_us AS k FROM {FACT_FROM}
        WHERE f.subject = :e AND f.from_us <= :hi AND f.to_us >= :lo
        UNION ALL SELECT {FACT_COLUMNS}, f.valid_from IS NULL, f.from_us FROM {FACT_FROM}
        WHERE f.object_id = :e AND f.subject <> :e AND f.from_us <= :hi AND f.to_us >= :lo ORDER BY u, k, 1""",
    "incoming": f"SELECT {FACT_COLUMNS} FROM {FACT_FROM} WHERE f.object_id = :e {ORDER}",
    "search": f"SELECT {FACT_COLUMNS} FROM {FACT_FROM} WHERE f.predicate = :p AND f.object_key = :o {ORDER}",
    "timeline": f"SELECT {FACT_COLUMNS} FROM {FACT_FROM} WHERE f.subject = :e OR f.object_id = :e {ORDER}",
}
READS = (
    ("query", "query by name"),
    ("query_as_of", "query by name, as_of a day"),
    ("incoming", "incoming query"),
    ("search", "search by predicate and object"),
    ("timeline", "timeline of an entity"),
)


# ---------------------------------------------------------------------- small helpers


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


CPU: dict[str, list[float]] = {}  # process CPU seconds (every thread) of the last runs() call


def runs(fn: Callable[[], Any], repeat: int, before: Callable[[], Any] | None = None) -> tuple[list[float], Any]:
    """``repeat`` timed calls of ``fn`` (``before`` runs untimed before each): the seconds and the last result.

    The process CPU time of each call (all threads) goes to ``CPU["last"]``: on a shared machine it moves less
    than the wall clock, and more CPU than wall time means the work ran on both cores.
    """
    seconds, cpu, result = [], [], None
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        took, result = bi.timed(fn)
        cpu.append(time.process_time() - start)
        seconds.append(took)
    CPU["last"] = cpu
    return seconds, result


def row(
    name: str, seconds: list[float], rows: int | None = None, cpu: list[float] | None = None, **extra: Any
) -> dict[str, Any]:
    med = median(seconds)
    out = {"name": name, "runs_s": [round(s, 4) for s in seconds], "median_s": round(med, 4)}
    if cpu:
        out["cpu_s"] = round(median(cpu), 4)
    if rows:
        out["rows"] = rows
        out["per_s"] = round(rows / med) if med else None
    out.update(extra)
    return out


def say(text: str) -> None:
    print(text, flush=True)


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# ---------------------------------------------------------------------- MemPalace


def mempalace() -> Any:
    """MemPalace's KnowledgeGraph class, or None when the package is not installed."""
    try:
        from mempalace.knowledge_graph import KnowledgeGraph
    except ImportError:
        return None
    return KnowledgeGraph


def mempalace_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mempalace")
    except PackageNotFoundError:
        return None


def facts_list(frame: pl.DataFrame) -> list[tuple[str, str, str, str | None, str | None, str]]:
    return list(frame.select("subject", "predicate", "object", "valid_from", "valid_to", "source").iter_rows())


def mempalace_add(path: Path, facts: list[tuple], *, synchronous: str | None = None) -> float:
    """``add_triple`` of every fact, one by one (each its own transaction), into a new file: the seconds."""
    MP = mempalace()
    bi.fresh(path)
    mp = MP(str(path))
    try:
        if synchronous:
            mp._conn().execute(f"PRAGMA synchronous = {synchronous}")
        add = mp.add_triple
        seconds, _ = bi.timed(lambda: [add(s, p, o, valid_from=f, valid_to=t) for s, p, o, f, t, _src in facts])
    finally:
        mp.close()
    return seconds


def mempalace_rows(ident: Callable[[str], str], facts: list[tuple]) -> tuple[dict, list, list]:
    """The rows ``add_triple`` writes for ``facts``, one by one, from its source: entity ids ``lower()``, spaces
    to ``_``, ``'`` removed; an entity row per new id with the first spelling; a triple is skipped when the same
    (subject, predicate, object) is current, whatever the new triple's ``valid_to``. Returns the entities, the
    triples and the facts it skips (ended history of a triple that was current when it came)."""
    from mempalace.ids import make_triple_id

    entities: dict[str, str] = {}
    current: set[tuple[str, str, str]] = set()
    triples, skipped = [], []
    stamp = dt.datetime.now().isoformat()
    for s, p, o, f, t, _src in facts:
        sid, oid, pred = ident(s), ident(o), p.lower().replace(" ", "_")
        entities.setdefault(sid, s)
        entities.setdefault(oid, o)
        key = (sid, pred, oid)
        if key in current:
            skipped.append((s, p, o, f, t))
            continue
        if t is None:
            current.add(key)
        triples.append((make_triple_id(sid, pred, oid, f, f"{stamp}.{len(triples)}"), sid, pred, oid, f, t))
    return entities, triples, skipped


def mempalace_bulk(path: Path, facts: list[tuple]) -> list[tuple]:
    """Write into a new MemPalace file exactly the rows ``add_triple`` would write for ``facts``, in one go;
    returns the facts ``add_triple`` would skip (see :func:`mempalace_rows`)."""
    MP = mempalace()
    bi.fresh(path)
    mp = MP(str(path))
    mp.close()
    entities, triples, skipped = mempalace_rows(mp._entity_id, facts)  # _entity_id does not use the connection
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO entities (id, name) VALUES (?, ?)", entities.items())
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, confidence) "
            "VALUES (?, ?, ?, ?, ?, ?, 1.0)",
            triples,
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    return skipped


def mempalace_content(path: Path) -> tuple[collections.Counter, collections.Counter]:
    conn = sqlite3.connect(path)
    try:
        entities = collections.Counter(conn.execute("SELECT id, name, type FROM entities").fetchall())
        triples = collections.Counter(
            conn.execute("SELECT subject, predicate, object, valid_from, valid_to, confidence FROM triples").fetchall()
        )
    finally:
        conn.close()
    return entities, triples


# ---------------------------------------------------------------------- answers, compared


def ours_set(facts: list) -> collections.Counter:
    return collections.Counter(
        (f.subject_name, f.predicate, f.object_name, f.valid_from, f.valid_to, f.current) for f in facts
    )


def theirs_set(rows: list[dict]) -> collections.Counter:
    return collections.Counter(
        (r["subject"], r["predicate"], r["object"], r["valid_from"], r["valid_to"], r["current"]) for r in rows
    )


def compare(kg: Any, mp: Any, names: list[str], days: list[str], dropped: set[tuple]) -> dict[str, Any]:
    """Both tools' answers for each name: query (both directions), as_of a day, incoming, timeline.

    ``same``: identical answers. ``same_but_dropped``: identical once the facts ``add_triple`` skipped
    (``dropped``: ended history of a triple that was current when it came) are taken out of kgtoolkit's answer.
    """
    checks = {
        "query": (lambda n, d: kg.query(n), lambda n, d: mp.query_entity(n, direction="both")),
        "query_as_of": (lambda n, d: kg.query(n, as_of=d), lambda n, d: mp.query_entity(n, as_of=d, direction="both")),
        "incoming": (
            lambda n, d: kg.query(n, direction="incoming"),
            lambda n, d: mp.query_entity(n, direction="incoming"),
        ),
        "timeline": (lambda n, d: kg.timeline(n), lambda n, d: mp.timeline(n, limit=10**9)),
    }
    out: dict[str, Any] = {}
    for op, (ours, theirs) in checks.items():
        same, explained, rows, examples = 0, 0, 0, []
        for name, day in zip(names, days):
            a, b = ours_set(ours(name, day)), theirs_set(theirs(name, day))
            rows += sum(a.values())
            kept = collections.Counter({k: v for k, v in a.items() if k[:5] not in dropped})
            same += a == b
            explained += kept == b
            if kept != b and len(examples) < 3:
                examples.append(
                    {
                        "name": name,
                        "as_of": day if op == "query_as_of" else None,
                        "only_kgtoolkit": [list(k) for k in (a - b)][:3],
                        "only_mempalace": [list(k) for k in (b - a)][:3],
                    }
                )
        out[op] = {
            "entities": len(names),
            "same": same,
            "same_but_dropped": explained,
            "facts_compared": rows,
            "examples": examples,
        }
    # The order of timeline: both by valid_from, unknown starts last.
    ordered = 0
    for name in names:
        ours_order = [f.valid_from for f in kg.timeline(name)]
        theirs_order = [r["valid_from"] for r in mp.timeline(name, limit=10**9)]
        ordered += ours_order == theirs_order
    out["timeline"]["same_order_of_starts"] = ordered
    return out


def probes() -> list[dict[str, Any]]:
    """Hand-made cases where the two tools' rules may differ: what each answers."""
    MP = mempalace()
    found = []
    with tempfile.TemporaryDirectory(prefix="kgprobe-") as folder:

        def both() -> tuple[Any, Any]:
            kg = kgtoolkit.open(":memory:")
            path = Path(folder) / f"mp{len(found)}.sqlite3"
            bi.fresh(path)
            return kg, MP(str(path))

        def attempt(fn: Callable[[], Any]) -> str:
            try:
                result = fn()
            except (KGError, ValueError) as exc:
                return f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:110]}"
            return result

        def probe(topic: str, what: str, ours: Any, theirs: Any) -> None:
            found.append({"topic": topic, "case": what, "kgtoolkit": ours, "mempalace": theirs, "same": ours == theirs})

        kg, mp = both()
        for spelling in ("My API", "my  api", "My_API", "my api"):
            kg.add(spelling, "uses", "Redis")
            mp.add_triple(spelling, "uses", "Redis")
        probe(
            "names",
            "entities after adding 'My API', 'my  api', 'My_API', 'my api' → uses → Redis",
            kg.stats().entities - 1,
            mp.stats()["entities"] - 1,
        )
        kg, mp = both()
        kg.add("Straße Corp", "uses", "Redis")
        mp.add_triple("Straße Corp", "uses", "Redis")
        probe(
            "names",
            "query 'STRASSE CORP' after adding 'Straße Corp' (case-folding)",
            attempt(lambda: len(kg.query("STRASSE CORP"))),
            len(mp.query_entity("STRASSE CORP")),
        )
        kg, mp = both()
        kg.add("O’Brien Corp", "uses", "Redis")
        mp.add_triple("O’Brien Corp", "uses", "Redis")
        probe(
            "names",
            "query \"O'Brien Corp\" after adding 'O’Brien Corp' (curly apostrophe)",
            attempt(lambda: len(kg.query("O'Brien Corp"))),
            len(mp.query_entity("O'Brien Corp")),
        )
        kg, mp = both()
        kg.add("Alice Martin", "works_at", "Acme")
        mp.add_triple("Alice Martin", "works_at", "Acme")
        probe(
            "names",
            "query 'Martin' (no such entity; one partial match 'alice_martin')",
            attempt(lambda: len(kg.query("Martin"))),
            len(mp.query_entity("Martin")),
        )
        kg, mp = both()
        probe(
            "dates",
            "add with valid_from '2026-03' (a month)",
            attempt(lambda: kg.add("a", "uses", "b", valid_from="2026-03").fact.valid_from),
            attempt(lambda: mp.add_triple("a", "uses", "b", valid_from="2026-03") and "2026-03"),
        )
        kg, mp = both()
        probe(
            "dates",
            "add with valid_from '2026-03-02T10:00:00+02:00'",
            attempt(lambda: kg.add("a", "uses", "b", valid_from="2026-03-02T10:00:00+02:00").fact.valid_from),
            attempt(lambda: mp.add_triple("a", "uses", "b", valid_from="2026-03-02T10:00:00+02:00") and "stored"),
        )
        kg, mp = both()
        for tool in ("kg", "mp"):
            if tool == "kg":
                kg.add("svc", "uses_queue", "Redis", valid_from="2026-03-02")
                kg.invalidate("svc", "uses_queue", "Redis", ended="2026-10-12")
                kg.add("svc", "uses_queue", "SQLite", valid_from="2026-10-12")
            else:
                mp.add_triple("svc", "uses_queue", "Redis", valid_from="2026-03-02")
                mp.invalidate("svc", "uses_queue", "Redis", ended="2026-10-12")
                mp.add_triple("svc", "uses_queue", "SQLite", valid_from="2026-10-12")
        for as_of in ("2026-10-12", "2026-10-12T23:59:59Z", "2026-10-13"):
            probe(
                "as_of",
                f"invalidate Redis 2026-10-12, add SQLite from 2026-10-12; query as_of {as_of}",
                sorted(f.object_name for f in kg.query("svc", as_of=as_of)),
                sorted(r["object"] for r in mp.query_entity("svc", as_of=as_of)),
            )
        kg, mp = both()
        kg.add("svc", "uses_queue", "Redis", valid_from="2026-03-02")
        kg.supersede("svc", "uses_queue", "Redis", "SQLite", at="2026-10-12")
        mp.add_triple("svc", "uses_queue", "Redis", valid_from="2026-03-02")
        mp.supersede("svc", "uses_queue", "Redis", "SQLite", at="2026-10-12")
        probe(
            "as_of",
            "supersede Redis → SQLite at 2026-10-12; query as_of 2026-10-12",
            sorted(f.object_name for f in kg.query("svc", as_of="2026-10-12")),
            sorted(r["object"] for r in mp.query_entity("svc", as_of="2026-10-12")),
        )
        kg, mp = both()
        for subject in ("a", "b"):
            kg.add(subject, "uses", "c")
            mp.add_triple(subject, "uses", "c")
        probe(
            "invalidate",
            "invalidate a → uses → b, never added (a and b exist)",
            attempt(lambda: kg.invalidate("a", "uses", "b", ended="2026-01-01") and "ended"),
            attempt(lambda: mp.invalidate("a", "uses", "b", ended="2026-01-01") or "no error, nothing changed"),
        )
        kg, mp = both()
        for _ in range(2):
            kg.add("a", "used", "b", valid_from="2025-01-01", valid_to="2025-06-30")
            mp.add_triple("a", "used", "b", valid_from="2025-01-01", valid_to="2025-06-30")
        probe("history", "the same ended fact added twice: facts stored", kg.stats().facts, mp.stats()["triples"])
        kg, mp = both()
        kg.add("a", "uses", "b", valid_from="2025-06-01")
        kg.add("a", "uses", "b", valid_from="2024-01-01", valid_to="2024-12-31")
        mp.add_triple("a", "uses", "b", valid_from="2025-06-01")
        mp.add_triple("a", "uses", "b", valid_from="2024-01-01", valid_to="2024-12-31")
        probe(
            "history",
            "a current fact, then the same triple's older ended history: facts stored",
            kg.stats().facts,
            mp.stats()["triples"],
        )
        kg, mp = both()
        kg.add("Ann", "email", "Ann@Example.com")
        mp.add_triple("Ann", "email", "Ann@Example.com")
        probe(
            "values", "add Ann → email → Ann@Example.com: entities created", kg.stats().entities, mp.stats()["entities"]
        )
        kg, mp = both()
        for i in range(120):
            kg.add("hub", "has", f"leaf {i}")
            mp.add_triple("hub", "has", f"leaf {i}")
        probe(
            "timeline",
            "timeline('hub') with 120 facts, no limit given: facts returned",
            len(kg.timeline("hub")),
            len(mp.timeline("hub")),
        )
        kg, mp = both()
        probe(
            "guards",
            "add 'Alice, Bob' → works_at → Acme",
            attempt(lambda: kg.add("Alice, Bob", "works_at", "Acme") and "added"),
            attempt(lambda: mp.add_triple("Alice, Bob", "works_at", "Acme") and "added"),
        )
    return found


# ---------------------------------------------------------------------- point reads


def latencies(calls: dict[str, Callable[[Any], Any]], args: list[Any], passes: int) -> dict[str, dict[str, float]]:
    """p50/p95 (µs) of each call over ``args``, calls interleaved per argument; medians over ``passes``."""
    per: dict[str, list[tuple[float, float]]] = {k: [] for k in calls}
    clock = time.perf_counter_ns
    for _ in range(passes):
        samples: dict[str, list[float]] = {k: [] for k in calls}
        for arg in args:
            for key, fn in calls.items():
                start = clock()
                fn(arg)
                samples[key].append((clock() - start) / 1000)
        for key, values in samples.items():
            per[key].append((pct(values, 0.5), pct(values, 0.95)))
    return {
        k: {"p50_us": round(median(p for p, _ in v), 1), "p95_us": round(median(q for _, q in v), 1)}
        for k, v in per.items()
    }


def point_reads(
    kg: Any, mp: Any, path: Path, frame: pl.DataFrame, samples: int, passes: int, rnd: random.Random
) -> dict[str, Any]:
    from kgtoolkit._names import normalize_name
    from kgtoolkit._time import parse_window

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM entities ORDER BY rowid")]
        objects = [
            r[0]
            for r in conn.execute(
                "SELECT e.name FROM entities e WHERE EXISTS (SELECT 1 FROM facts f WHERE f.object_id = e.id) "
                "ORDER BY e.rowid"
            )
        ]
        # search: (predicate, object) pairs drawn uniformly among the distinct pairs ("what uses_queue Redis?")
        pairs = conn.execute(
            "SELECT predicate, object_key, min(id) FROM facts GROUP BY predicate, object_key"
        ).fetchall()
        searched = []
        for p, key, fact_id in rnd.sample(pairs, min(samples, len(pairs))):
            shown = conn.execute(
                "SELECT COALESCE(o.name, f.object_value) FROM facts f LEFT JOIN entities o "
                "ON o.id = f.object_id WHERE f.id = ?",
                (fact_id,),
            ).fetchone()[0]
            searched.append((p, shown, key))
        del pairs
        day0 = dt.date(2024, 1, 1)
        pick = [rnd.choice(names) for _ in range(samples)]
        days = [(day0 + dt.timedelta(days=rnd.randrange(730))).isoformat() for _ in range(samples)]
        incoming = [rnd.choice(objects) for _ in range(samples)]

        def raw(key: str) -> Callable[[dict], list]:
            sql = RAW[key]
            return lambda params: conn.execute(sql, params).fetchall()

        def window(day: str) -> dict[str, int]:
            w = parse_window(day)
            return {"lo": w.lo, "hi": w.hi}

        cases = {
            "query": (
                [(n, {"e": normalize_name(n)}) for n in pick],
                lambda a: kg.query(a[0]),
                lambda a: raw("query")(a[1]),
                lambda a: mp.query_entity(a[0], direction="both") if mp else None,
            ),
            "query_as_of": (
                [(n, {"e": normalize_name(n), **window(d)}, d) for n, d in zip(pick, days)],
                lambda a: kg.query(a[0], as_of=a[2]),
                lambda a: raw("query_as_of")(a[1]),
                lambda a: mp.query_entity(a[0], as_of=a[2], direction="both") if mp else None,
            ),
            "incoming": (
                [(n, {"e": normalize_name(n)}) for n in incoming],
                lambda a: kg.query(a[0], direction="incoming"),
                lambda a: raw("incoming")(a[1]),
                lambda a: mp.query_entity(a[0], direction="incoming") if mp else None,
            ),
            "search": (
                [((p, o), {"p": p, "o": key}) for p, o, key in searched],
                lambda a: kg.by_predicate(a[0][0], a[0][1]),
                lambda a: raw("search")(a[1]),
                None,
            ),
            "timeline": (
                [(n, {"e": normalize_name(n)}) for n in pick],
                lambda a: kg.timeline(a[0]),
                lambda a: raw("timeline")(a[1]),
                lambda a: mp.timeline(a[0], limit=10**9) if mp else None,
            ),
        }
        out: dict[str, Any] = {}
        for key, label in READS:
            args, ours, base, theirs = cases[key]
            # The same rows: every sampled call returns the facts the raw SQL returns, in the same order.
            mismatched = sum([f.id for f in ours(a)] != [r[0] for r in base(a)] for a in args[:200])
            rows = [len(base(a)) for a in args]
            calls = {"kgtoolkit": ours, "raw_sql": base}
            if theirs is not None and mp is not None:
                calls["mempalace"] = theirs
            latencies(calls, args[: min(200, len(args))], 1)  # warm-up
            lat = latencies(calls, args, passes)
            out[key] = {
                "label": label,
                "calls": len(args),
                "rows_p50": pct(rows, 0.5),
                "rows_max": max(rows),
                "rows_differ_from_raw": mismatched,
                **lat,
                "ratio_p50_raw": round(lat["kgtoolkit"]["p50_us"] / lat["raw_sql"]["p50_us"], 2),
            }
            if "mempalace" in lat:
                out[key]["ratio_p50_mempalace"] = round(lat["kgtoolkit"]["p50_us"] / lat["mempalace"]["p50_us"], 2)
            shown = ", ".join(f"{k} {v['p50_us']:.0f}/{v['p95_us']:.0f}" for k, v in lat.items())
            say(f"  {key:<13} p50/p95 µs: {shown}  (rows p50 {out[key]['rows_p50']}, max {out[key]['rows_max']})")
        return out
    finally:
        conn.close()


# ---------------------------------------------------------------------- one size


def bench_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    rnd = random.Random(n * 31 + args.seed)
    repeat = args.repeat
    res: dict[str, Any] = {"facts": n, "load_before": loadavg()}
    say(f"\n== {n:,} facts ==")
    took, frame = bi.timed(lambda: generate(n, seed=args.seed))
    res["generate_s"] = round(took, 3)

    # ------------------------------------------------------------------ import and floors
    graph = work / f"kg-{n}.sqlite3"
    imp: dict[str, Any] = {}

    def empty_import() -> Any:
        kg = kgtoolkit.open(graph)
        try:
            return import_facts(kg, frame)[0]
        finally:
            kg.close()

    seconds, report = runs(empty_import, repeat, before=lambda: bi.fresh(graph))
    imp["import_empty"] = row("import_facts into an empty graph", seconds, n, entities=report.entities_created)
    with kgtoolkit.open(graph) as kg:
        seconds, again = runs(lambda: import_facts(kg, frame)[0], repeat)
    assert again.inserted == 0 and again.duplicates == n, again
    imp["import_again"] = row("the same facts again (all duplicates)", seconds, n)
    entities, fact_rows = bi.floor_rows(graph)
    target = work / "floor.sqlite3"
    imp["floor_rebuilt"] = row(
        "plain executemany, indexes rebuilt (floor)",
        [bi.floor_insert(target, entities, fact_rows, rebuild=True) for _ in range(repeat)],
        n,
    )
    if n <= args.indexed_floor_max:
        imp["floor_indexed"] = row(
            "plain executemany, indexes kept",
            [bi.floor_insert(target, entities, fact_rows, rebuild=False) for _ in range(repeat)],
            n,
        )
    del entities, fact_rows
    bi.fresh(target)
    if not args.no_cli:
        exe, why = bi.cli_available()
        if exe is None:
            imp["cli_import"] = {"skipped": why}
        else:
            source = work / f"facts-{n}.tsv"
            write_generated(source, n, seed=args.seed)
            cli_db = work / "cli.sqlite3"
            cmd = [exe, "--db", str(cli_db), "import", str(source), "--json"]
            seconds, done = runs(
                lambda: subprocess.run(cmd, capture_output=True, text=True, check=False),
                repeat,
                before=lambda: bi.fresh(cli_db),
            )
            if done.returncode == 0:
                imp["cli_import"] = row("whole `kgtoolkit import` process (TSV)", seconds, n)
            else:
                imp["cli_import"] = {"skipped": f"exit {done.returncode}: {(done.stderr or done.stdout)[-200:]}"}
            bi.fresh(cli_db)
            source.unlink(missing_ok=True)
    floor = imp["floor_rebuilt"]["median_s"]
    for key in ("import_empty", "import_again", "cli_import", "floor_indexed"):
        if "median_s" in imp.get(key, {}):
            imp[key]["ratio_floor"] = round(imp[key]["median_s"] / floor, 2)
            imp[key]["throughput_vs_floor"] = round(floor / imp[key]["median_s"], 2)
    res["import"] = imp
    for key, r in imp.items():
        if "median_s" in r:
            say(f"  {key:<14} {r['median_s']:8.3f} s {r['per_s']:>10,} facts/s  {r['name']}")

    # ------------------------------------------------------------------ writes beside MemPalace
    # head: the first facts into empty files; tail: the last facts into files holding all the others.
    MP = mempalace()
    sample_n = min(n, args.mempalace_sample)
    tail_n = min(args.mempalace_tail, n - sample_n)
    sample = frame.head(sample_n)
    sample_facts = facts_list(sample)
    all_facts = facts_list(frame)
    tail_facts = all_facts[n - tail_n :]
    writes: dict[str, Any] = {"sample": sample_n, "tail": tail_n}
    dropped: set[tuple] = set()
    mp_graph = work / f"mp-{n}.sqlite3"
    add_db = work / "add.sqlite3"
    if MP is not None:
        add_path = work / "mp-add.sqlite3"
        seconds = [mempalace_add(add_path, sample_facts) for _ in range(repeat)]
        writes["mempalace_add_triple"] = row("MemPalace add_triple, one by one, into an empty file", seconds, sample_n)
        seconds = [
            mempalace_add(work / "mp-normal.sqlite3", sample_facts, synchronous="NORMAL")
            for _ in range(max(1, repeat - 1))
        ]
        writes["mempalace_add_triple_normal"] = row("the same with synchronous=NORMAL", seconds, sample_n)
        bi.fresh(work / "mp-normal.sqlite3")
        # The bulk writer must reproduce add_triple's rows exactly.
        mempalace_bulk(work / "mp-check.sqlite3", sample_facts)
        writes["bulk_writer_matches_add_triple"] = mempalace_content(add_path) == mempalace_content(
            work / "mp-check.sqlite3"
        )
        bi.fresh(work / "mp-check.sqlite3")
        ident = functools.partial(MP._entity_id, None)  # lower(), spaces to _, ' removed: uses no state
        skipped = mempalace_rows(ident, all_facts)[2]
        writes["add_triple_skips"] = len(skipped)
        dropped = set(skipped)
        if tail_n == 0:  # the head was the whole graph
            bi.fresh(mp_graph)
            for suffix in ("", "-wal", "-shm"):
                if Path(f"{add_path}{suffix}").exists():
                    shutil.move(f"{add_path}{suffix}", f"{mp_graph}{suffix}")
            writes["mempalace_graph"] = "add_triple, every fact"
            writes["add_triple_whole_s"] = writes["mempalace_add_triple"]["median_s"]
        else:  # the other facts by the bulk writer, then the tail through add_triple (timed once)
            bi.fresh(add_path)
            took, _ = bi.timed(lambda: mempalace_bulk(mp_graph, all_facts[: n - tail_n]))
            mp = MP(str(mp_graph))
            try:
                add = mp.add_triple
                seconds, _ = bi.timed(
                    lambda: [add(s, p, o, valid_from=f, valid_to=t) for s, p, o, f, t, _x in tail_facts]
                )
            finally:
                mp.close()
            writes["mempalace_add_triple_tail"] = row(
                f"MemPalace add_triple, one by one, the last facts into the file "
                f"holding the {n - tail_n:,} others (once)",
                [seconds],
                tail_n,
            )
            writes["mempalace_graph"] = (
                f"bulk writer ({took:.1f} s) for the first {n - tail_n:,} facts, add_triple for the last {tail_n:,}"
            )
            # Each add_triple scans its predicate's triples (the query planner picks idx_triples_predicate for
            # its duplicate check), so the cost per fact grows in proportion to the graph: the whole graph
            # one by one takes about n × the mean of the first and the last per-fact times.
            first, last = writes["mempalace_add_triple"]["per_s"], writes["mempalace_add_triple_tail"]["per_s"]
            writes["add_triple_whole_s"] = round(n * (1 / first + 1 / last) / 2, 1)
            writes["add_triple_whole_estimated"] = True
        writes["add_triple_mean_per_s"] = round(n / writes["add_triple_whole_s"])

    def add_loop(facts: list[tuple]) -> Callable[[], None]:
        def run() -> None:
            kg = kgtoolkit.open(add_db)
            try:
                for s, p, o, f, t, src in facts:
                    kg.add(s, p, o, valid_from=f, valid_to=t, source=src)
            finally:
                kg.close()

        return run

    seconds, _ = runs(add_loop(sample_facts), repeat, before=lambda: bi.fresh(add_db))
    writes["kg_add"] = row("kgtoolkit kg.add, one by one, into an empty file", seconds, sample_n)

    def bulk_sample() -> None:
        kg = kgtoolkit.open(add_db)
        try:
            import_facts(kg, sample)
        finally:
            kg.close()

    seconds, _ = runs(bulk_sample, repeat, before=lambda: bi.fresh(add_db))
    writes["kg_import_sample"] = row("kgtoolkit import_facts of the same facts", seconds, sample_n)
    if tail_n:
        with kgtoolkit.open(bi.fresh(add_db)) as kg:
            import_facts(kg, frame.head(n - tail_n))
        seconds, _ = runs(add_loop(tail_facts), 1)
        writes["kg_add_tail"] = row(
            "kgtoolkit kg.add, one by one, the same last facts into the graph holding the others (once)",
            seconds,
            tail_n,
        )
    bi.fresh(add_db)
    if "mempalace_add_triple" in writes:
        base = writes["mempalace_add_triple"]["per_s"]
        writes["kg_add"]["speedup_vs_add_triple"] = round(writes["kg_add"]["per_s"] / base, 2)
        writes["kg_import_sample"]["speedup_vs_add_triple"] = round(writes["kg_import_sample"]["per_s"] / base, 1)
        if tail_n:
            writes["kg_add_tail"]["speedup_vs_add_triple"] = round(
                writes["kg_add_tail"]["per_s"] / writes["mempalace_add_triple_tail"]["per_s"], 2
            )
        imp["import_empty"]["speedup_vs_add_triple"] = round(
            imp["import_empty"]["per_s"] / writes["add_triple_mean_per_s"], 1
        )
    res["writes"] = writes
    for key, r in writes.items():
        if isinstance(r, dict) and "per_s" in r:
            say(f"  {key:<28} {r['median_s']:8.3f} s {r['per_s']:>10,} facts/s  ({r['rows']:,} facts)")
    if "add_triple_whole_s" in writes:
        say(
            f"  add_triple, the whole graph one by one: {writes['add_triple_whole_s']:,.0f} s "
            f"{'(estimated)' if writes.get('add_triple_whole_estimated') else '(measured)'}; import_facts "
            f"{imp['import_empty']['speedup_vs_add_triple']}× faster"
        )

    # ------------------------------------------------------------------ answers and reads
    kg = kgtoolkit.open(graph)
    mp = MP(str(mp_graph)) if MP is not None else None
    try:
        if mp is not None:
            with sqlite3.connect(graph) as raw:  # the benchmark reads the file behind the library's back
                names = [r[0] for r in raw.execute("SELECT name FROM entities ORDER BY rowid")]
            day0 = dt.date(2024, 1, 1)
            chosen = rnd.sample(names, min(args.check, len(names)))
            days = [(day0 + dt.timedelta(days=rnd.randrange(730))).isoformat() for _ in chosen]
            res["answers"] = compare(kg, mp, chosen, days, dropped)
            for op, c in res["answers"].items():
                say(
                    f"  same answers  {op:<12} {c['same']}/{c['entities']} entities, {c['same_but_dropped']} once "
                    f"add_triple's skipped history is set aside ({c['facts_compared']:,} facts)"
                )
        say("  point reads (interleaved calls, µs):")
        res["reads"] = point_reads(kg, mp, graph, frame, args.samples, repeat, rnd)
    finally:
        kg.close()
        if mp is not None:
            mp.close()

    # ------------------------------------------------------------------ invalidate, on copies
    copy, mp_copy = work / "inv.sqlite3", work / "mp-inv.sqlite3"
    for src, dst in ((graph, copy), (mp_graph, mp_copy)):
        if src.exists():
            bi.fresh(dst)
            shutil.copyfile(src, dst)
    with kgtoolkit.open(copy) as kg:
        with sqlite3.connect(copy) as raw:
            current = raw.execute(
                "SELECT s.name, f.predicate, COALESCE(o.name, f.object_value) FROM facts f JOIN entities s ON s.id = "
                "f.subject LEFT JOIN entities o ON o.id = f.object_id WHERE f.valid_to IS NULL ORDER BY f.id"
            ).fetchall()
        chosen = rnd.sample(current, min(args.invalidations, len(current)))
        mp = MP(str(mp_copy)) if MP is not None else None
        try:
            lat: dict[str, list[float]] = {"kgtoolkit": [], "mempalace": []}
            for s, p, o in chosen:
                start = time.perf_counter_ns()
                kg.invalidate(s, p, o, ended=ENDED)
                lat["kgtoolkit"].append((time.perf_counter_ns() - start) / 1000)
                if mp is not None:
                    start = time.perf_counter_ns()
                    mp.invalidate(s, p, o, ended=ENDED)
                    lat["mempalace"].append((time.perf_counter_ns() - start) / 1000)
            inv = {k: {"p50_us": round(pct(v, 0.5), 1), "p95_us": round(pct(v, 0.95), 1)} for k, v in lat.items() if v}
            inv["calls"] = len(chosen)
            if mp is not None:
                subjects = sorted({s for s, _, _ in chosen})[: args.check]
                after = compare(kg, mp, subjects, [ENDED] * len(subjects), dropped)
                inv["answers_after"] = {
                    op: {k: v for k, v in c.items() if k != "examples"}
                    | ({"examples": c["examples"]} if c["examples"] else {})
                    for op, c in after.items()
                }
                inv["ratio_p50_mempalace"] = round(inv["kgtoolkit"]["p50_us"] / inv["mempalace"]["p50_us"], 4)
            res["invalidate"] = inv
            say(
                "  invalidate p50/p95 µs: "
                + ", ".join(
                    f"{k} {v['p50_us']:.0f}/{v['p95_us']:.0f}"
                    for k, v in inv.items()
                    if isinstance(v, dict) and "p50_us" in v
                )
            )
        finally:
            if mp is not None:
                mp.close()
    bi.fresh(copy)
    bi.fresh(mp_copy)

    # ------------------------------------------------------------------ frames and analysis
    all_facts = tail_facts = sample_facts = frame = sample = None  # free the memory before the frames timings
    gc.collect()
    fr: dict[str, Any] = {}
    quick_runs = max(repeat, 5)  # these take about a second: more runs, a steadier median
    with kgtoolkit.open(graph) as kg:
        seconds, df = runs(lambda: frames.facts(kg), quick_runs)
        assert df.height == n
        fr["frames_facts"] = row("frames.facts: the whole graph into polars", seconds, n, CPU["last"])
        seconds, _ = runs(lambda: read_table(kg, "facts"), quick_runs)
        fr["read_table"] = row("read_table(kg, 'facts'): the facts table as Arrow", seconds, n, CPU["last"])
        multi = kg.config.multi_valued
        seconds, groups = runs(lambda: analysis.conflicts(df, multi_valued=multi), quick_runs)
        fr["conflicts"] = row("analysis.conflicts on that frame", seconds, n, CPU["last"], groups=groups.height)
        seconds, table = runs(lambda: analysis.churn(df, every="1mo"), quick_runs)
        fr["churn"] = row("analysis.churn, monthly", seconds, n, CPU["last"], periods=table.height)
        seconds, store_groups = runs(lambda: kg.conflicts(), 1)
        fr["store_conflicts"] = row(
            "kg.conflicts(): the store's SQL, Fact objects",
            seconds,
            n,
            groups=len(store_groups),
            same_groups=len(store_groups) == groups.height,
        )
    plain = sqlite3.connect(f"file:{graph}?mode=ro", uri=True)
    try:
        overrides = bi.schema_overrides(bi.JOINED)
        seconds, _ = runs(
            lambda: pl.read_database(bi.JOINED, plain, schema_overrides=overrides, infer_schema_length=None),
            1 if n > 100_000 else repeat,
        )
        fr["read_database"] = row("polars.read_database of one joined SELECT", seconds, n)
    finally:
        plain.close()
    fr["frames_facts"]["ratio_read_database"] = round(
        fr["frames_facts"]["median_s"] / fr["read_database"]["median_s"], 2
    )
    fr["conflicts"]["ratio_store"] = round(fr["conflicts"]["median_s"] / fr["store_conflicts"]["median_s"], 2)
    res["frames"] = fr
    for key, r in fr.items():
        say(f"  {key:<16} {r['median_s']:8.3f} s (cpu {r.get('cpu_s', float('nan')):.3f} s)  {r['name']}")
    df = None
    res["load_after"] = loadavg()
    if not args.keep:
        for path in (graph, mp_graph):
            bi.fresh(path)
    gc.collect()
    return res


# ---------------------------------------------------------------------- search


def search_figures(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    if args.search_json:
        try:
            return {"source": str(args.search_json), **json.loads(Path(args.search_json).read_text())}
        except (OSError, ValueError) as exc:
            return {"skipped": f"cannot read {args.search_json}: {exc}"}
    if args.no_search:
        return {"skipped": "not run (--no-search or --quick)"}
    script = HERE / "bench_search.py"
    if not script.exists():
        return {"skipped": "no benchmarks/bench_search.py"}
    out = work / "search.json"
    cmd = [sys.executable, str(script), "--skip-yago", "--json", str(out)]
    say("\n== search (bench_search.py --skip-yago) ==")
    took, done = bi.timed(lambda: subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False))
    if done.returncode != 0 or not out.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"skipped": f"bench_search.py failed (exit {done.returncode}): {tail[0][:200]}"}
    say(done.stdout.strip())
    return {"source": "bench_search.py --skip-yago", "seconds": round(took, 1), **json.loads(out.read_text())}


# ---------------------------------------------------------------------- targets and tables


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured figure and met / missed."""
    sizes = results["sizes"]
    big = sizes[max(sizes, key=int)]
    n = big["facts"]
    imp, fr, reads, writes = big["import"], big["frames"], big["reads"], big["writes"]
    out = []

    def add(target: str, figure: str, met: bool | None, at: int = n) -> None:
        out.append({"target": target, "at": at, "measured": figure, "met": met})

    cli = imp.get("cli_import", {})
    if "median_s" in cli:
        add(
            "import of the whole graph, whole CLI process, ≥ 0.5× the executemany floor's throughput",
            f"{cli['throughput_vs_floor']}× ({cli['per_s']:,} vs {imp['floor_rebuilt']['per_s']:,} facts/s)",
            cli["throughput_vs_floor"] >= 0.5,
        )
    add(
        "re-import of the same facts (all duplicates) ≥ 50,000 facts/s",
        f"{imp['import_again']['per_s']:,} facts/s",
        imp["import_again"]["per_s"] >= 50_000,
    )
    if "speedup_vs_add_triple" in imp["import_empty"]:
        add(
            "bulk import ≥ 50× MemPalace add_triple one by one, the same facts",
            f"{imp['import_empty']['speedup_vs_add_triple']}× ({imp['import_empty']['median_s']:.1f} s vs "
            f"{writes['add_triple_whole_s']:,.0f} s{' estimated' if writes.get('add_triple_whole_estimated') else ''})",
            imp["import_empty"]["speedup_vs_add_triple"] >= 50,
        )
        head_x = writes["kg_add"]["speedup_vs_add_triple"]
        tail_x = writes.get("kg_add_tail", {}).get("speedup_vs_add_triple")
        figure = f"{head_x}× its speed into an empty file"
        if tail_x is not None:
            figure += f", {tail_x}× into the full graph"
        add("single kg.add no slower than add_triple", figure, min(head_x, tail_x or head_x) >= 1.0)
    q = reads["query"]
    add(
        "query p50 ≤ 2× the raw indexed SQL",
        f"{q['ratio_p50_raw']}× ({q['kgtoolkit']['p50_us']:.0f} vs {q['raw_sql']['p50_us']:.0f} µs)",
        q["ratio_p50_raw"] <= 2.0,
    )
    for key, label in (
        ("frames_facts", "the whole graph into polars ≤ 1 s"),
        ("conflicts", "conflicts ≤ 1 s"),
        ("churn", "monthly churn ≤ 1 s"),
    ):
        add(label, f"{fr[key]['median_s']:.2f} s", fr[key]["median_s"] <= 1.0)
    return out


def fmt_rate(r: dict[str, Any]) -> str:
    return f"{r['per_s']:,}" if r.get("per_s") else "—"


def markdown(results: dict[str, Any]) -> str:
    sizes = [results["sizes"][k] for k in sorted(results["sizes"], key=int)]
    m = results["machine"]
    cols = " | ".join(f"{s['facts']:,}" for s in sizes)
    head = f"| | {cols} |\n|---|" + "---:|" * len(sizes)
    lines = [
        f"Machine: {m['cpu']}, {m['cores']} cores; Python {m['python']}, SQLite {m['sqlite']}, polars {m['polars']}, "
        f"MemPalace {results.get('mempalace') or 'not installed'}; {results['when']}. Medians of {results['repeat']} "
        f"runs (latencies: median over runs of each run's percentile). Load average before/after each size: "
        + "; ".join(f"{s['facts']:,}: {s['load_before']} → {s['load_after']}" for s in sizes)
        + ".",
        "",
        "**Import** (facts/s; in brackets: throughput as a multiple of the floor's)",
        "",
        head,
    ]

    def line(label: str, cell: Callable[[dict[str, Any]], str]) -> None:
        values = []
        for s in sizes:
            try:
                values.append(cell(s))
            except (KeyError, TypeError, ZeroDivisionError):
                values.append("—")
        lines.append(f"| {label} | " + " | ".join(values) + " |")

    line(
        "`import_facts` into an empty graph",
        lambda s: f"{fmt_rate(s['import']['import_empty'])} ({s['import']['import_empty']['throughput_vs_floor']}×)",
    )
    line(
        "the same facts again (all duplicates)",
        lambda s: f"{fmt_rate(s['import']['import_again'])} ({s['import']['import_again']['throughput_vs_floor']}×)",
    )
    line(
        "whole `kgtoolkit import` process (TSV)",
        lambda s: f"{fmt_rate(s['import']['cli_import'])} ({s['import']['cli_import']['throughput_vs_floor']}×)",
    )
    line("floor: plain `executemany`, indexes rebuilt", lambda s: fmt_rate(s["import"]["floor_rebuilt"]))
    line("plain `executemany`, indexes kept", lambda s: f"{fmt_rate(s['import']['floor_indexed'])}")
    lines += [
        "",
        (
            "**Writes beside MemPalace** (facts/s; in brackets kgtoolkit's speed as a multiple of MemPalace's "
            "on the same facts)"
        ),
        "",
        head,
    ]
    line("first facts, each tool into an empty file", lambda s: f"{s['writes']['sample']:,}")
    line("　MemPalace `add_triple`, one by one", lambda s: fmt_rate(s["writes"]["mempalace_add_triple"]))
    line(
        "　MemPalace `add_triple`, `synchronous=NORMAL`", lambda s: fmt_rate(s["writes"]["mempalace_add_triple_normal"])
    )
    line(
        "　kgtoolkit `kg.add`, one by one",
        lambda s: f"{fmt_rate(s['writes']['kg_add'])} ({s['writes']['kg_add']['speedup_vs_add_triple']}×)",
    )
    line(
        "　kgtoolkit `import_facts` of the same facts",
        lambda s: (
            f"{fmt_rate(s['writes']['kg_import_sample'])} ({s['writes']['kg_import_sample']['speedup_vs_add_triple']}×)"
        ),
    )
    line(
        "last facts, into the graph holding all the others",
        lambda s: f"{s['writes']['tail']:,}" if s["writes"]["tail"] else "—",
    )
    line("　MemPalace `add_triple`, one by one", lambda s: fmt_rate(s["writes"]["mempalace_add_triple_tail"]))
    line(
        "　kgtoolkit `kg.add`, one by one",
        lambda s: f"{fmt_rate(s['writes']['kg_add_tail'])} ({s['writes']['kg_add_tail']['speedup_vs_add_triple']}×)",
    )
    line(
        "whole graph through `add_triple`, seconds",
        lambda s: (
            f"{s['writes']['add_triple_whole_s']:,.0f}"
            + (" (estimated)" if s["writes"].get("add_triple_whole_estimated") else " (measured)")
        ),
    )
    line(
        "whole graph through `import_facts`, seconds (ratio)",
        lambda s: (
            f"{s['import']['import_empty']['median_s']:,.1f} ({s['import']['import_empty']['speedup_vs_add_triple']}×)"
        ),
    )
    line("MemPalace file of the whole graph, written by", lambda s: s["writes"]["mempalace_graph"])
    lines += [
        "",
        (
            "**Same answers**: sampled entities whose facts are the same set of (subject, predicate, object, "
            "valid_from, valid_to, current) in both tools; in brackets, once the history `add_triple` skipped is "
            "set aside (an ended fact whose triple was already current when it came: MemPalace does not store it)"
        ),
        "",
        head,
    ]
    line("facts `add_triple` skipped (of all the graph's facts)", lambda s: f"{s['writes']['add_triple_skips']:,}")
    for op in ("query", "query_as_of", "incoming", "timeline"):
        line(
            f"`{op}`",
            lambda s, op=op: (
                f"{s['answers'][op]['same']}/{s['answers'][op]['entities']} ({s['answers'][op]['same_but_dropped']})"
            ),
        )
    line(
        "`timeline`, same order of starts",
        lambda s: f"{s['answers']['timeline']['same_order_of_starts']}/{s['answers']['timeline']['entities']}",
    )
    line(
        "`query` after the same invalidations",
        lambda s: (
            f"{s['invalidate']['answers_after']['query']['same']}/"
            f"{s['invalidate']['answers_after']['query']['entities']} "
            f"({s['invalidate']['answers_after']['query']['same_but_dropped']})"
        ),
    )
    lines += ["", "**Point reads**: p50 / p95 µs per call; ratio = kgtoolkit p50 / baseline p50", "", head]
    for key, label in READS:
        line(
            f"{label}: kgtoolkit",
            lambda s, k=key: f"{s['reads'][k]['kgtoolkit']['p50_us']:.0f} / {s['reads'][k]['kgtoolkit']['p95_us']:.0f}",
        )
        line(
            "　raw indexed SQL (ratio)",
            lambda s, k=key: (
                f"{s['reads'][k]['raw_sql']['p50_us']:.0f} / "
                f"{s['reads'][k]['raw_sql']['p95_us']:.0f} ({s['reads'][k]['ratio_p50_raw']}×)"
            ),
        )
        if key != "search":
            line(
                "　MemPalace (ratio)",
                lambda s, k=key: (
                    f"{s['reads'][k]['mempalace']['p50_us']:.0f} / "
                    f"{s['reads'][k]['mempalace']['p95_us']:.0f} ({s['reads'][k]['ratio_p50_mempalace']}×)"
                ),
            )
    line(
        "rows per call, p50 / max (query)",
        lambda s: f"{s['reads']['query']['rows_p50']} / {s['reads']['query']['rows_max']}",
    )
    line(
        "invalidate: kgtoolkit",
        lambda s: f"{s['invalidate']['kgtoolkit']['p50_us']:.0f} / {s['invalidate']['kgtoolkit']['p95_us']:.0f}",
    )
    line(
        "　MemPalace (ratio)",
        lambda s: (
            f"{s['invalidate']['mempalace']['p50_us']:.0f} / "
            f"{s['invalidate']['mempalace']['p95_us']:.0f} "
            f"({s['invalidate']['kgtoolkit']['p50_us'] / s['invalidate']['mempalace']['p50_us']:.3f}×)"
        ),
    )
    lines += [
        "",
        "**Frames and analysis** (seconds, wall clock; in brackets the process CPU seconds, all threads)",
        "",
        head,
    ]
    line(
        "`frames.facts`: the whole graph into polars",
        lambda s: f"{s['frames']['frames_facts']['median_s']:.3f} (cpu {s['frames']['frames_facts']['cpu_s']:.2f})",
    )
    line(
        "　`polars.read_database`, one joined SELECT (ratio)",
        lambda s: (
            f"{s['frames']['read_database']['median_s']:.3f} ({s['frames']['frames_facts']['ratio_read_database']}×)"
        ),
    )
    line(
        "`read_table(kg, 'facts')` (Arrow)",
        lambda s: f"{s['frames']['read_table']['median_s']:.3f} (cpu {s['frames']['read_table']['cpu_s']:.2f})",
    )
    line(
        "`analysis.conflicts`",
        lambda s: f"{s['frames']['conflicts']['median_s']:.3f} (cpu {s['frames']['conflicts']['cpu_s']:.2f})",
    )
    line(
        "　`kg.conflicts()`, the store's SQL (ratio)",
        lambda s: f"{s['frames']['store_conflicts']['median_s']:.3f} ({s['frames']['conflicts']['ratio_store']}×)",
    )
    line(
        "`analysis.churn`, monthly",
        lambda s: f"{s['frames']['churn']['median_s']:.3f} (cpu {s['frames']['churn']['cpu_s']:.2f})",
    )
    search = results.get("search", {})
    lines += ["", "**Search**"]
    if "results" in search:
        r = search["results"]
        lines += ["", "| figure | value |", "|---|---:|"]
        if "sync_100k_rand" in r:
            s = r["sync_100k_rand"]
            lines.append(
                f"| index build, 100,000 generated facts (hash-seeded random embedder, no model) | "
                f"{s['seconds']:.1f} s ({s['facts'] / s['seconds']:,.0f} facts/s, {s['index_type']}) |"
            )
        if "find_100k" in r:
            lines.append(
                f"| `SearchIndex.find` at 100,000 facts, p50 / p95 | {r['find_100k']['p50_ms']:.1f} / "
                f"{r['find_100k']['p95_ms']:.1f} ms |"
            )
        if "query_embed" in r:
            lines.append(f"| query embedding (all-MiniLM-L6-v2), p50 | {r['query_embed']['p50_ms']:.1f} ms |")
        if "yago_build" in r:
            y = r["yago_build"]
            lines.append(f"| index build, YAGO11k with the model | {y['texts_per_s']:,.0f} texts/s |")
        if "yago_find" in r:
            lines.append(
                f"| `find` on YAGO11k, p50 / p95 | {r['yago_find']['p50_ms']:.1f} / {r['yago_find']['p95_ms']:.1f} ms |"
            )
        for key in ("faiss_100k_random", "faiss_100k_realistic"):
            if key in r:
                f = r[key]
                lines.append(
                    f"| FAISS alone, 100k vectors ({key.rsplit('_', 1)[1]}): flat / IVF p50, IVF recall@10 | "
                    f"{f['flat_p50_ms']:.2f} / {f['ivf_p50_ms']:.2f} ms, {f['ivf_recall_at_10']:.3f} |"
                )
        lines.append(f"\n(From {search.get('source')}; `benchmarks/bench_search.py` and its section describe them.)")
    else:
        lines += ["", f"Not measured: {search.get('skipped', 'not run')}."]
    lines += [
        "",
        "**Targets** (measured at the largest size)",
        "",
        "| target | at | measured | |",
        "|---|---:|---|---|",
    ]
    for t in results["targets"]:
        mark = "met" if t["met"] else "**missed**" if t["met"] is False else "—"
        lines.append(f"| {t['target']} | {t['at']:,} | {t['measured']} | {mark} |")
    sem = results.get("probes") or []
    if sem:
        lines += [
            "",
            "**Where the rules differ** (hand-made probes, run by the suite; each tool's answer)",
            "",
            "| topic | case | kgtoolkit | MemPalace |",
            "|---|---|---|---|",
        ]
        for p in sem:
            if not p["same"]:
                lines.append(f"| {p['topic']} | {p['case']} | {p['kgtoolkit']} | {p['mempalace']} |".replace("\n", " "))
        same = [p["case"] for p in sem if p["same"]]
        if same:
            lines += ["", "Same answer in both: " + "; ".join(same) + "."]
    return "\n".join(lines)


def write_readme(text: str) -> None:
    write_block(README, "bench_suite", text)


# ---------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="10,000 and 100,000 facts, fewer runs and samples, no search (< 2 min)"
    )
    parser.add_argument(
        "--sizes", help="comma-separated fact counts (default 10000,100000,1000000; --quick: 10000,100000)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (medians are reported)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=2000, help="random entities per point-read latency")
    parser.add_argument("--check", type=int, default=300, help="entities whose answers are compared")
    parser.add_argument("--invalidations", type=int, default=300, help="facts invalidated in each tool")
    parser.add_argument(
        "--mempalace-sample",
        type=int,
        default=20_000,
        help="facts written through add_triple (all of them when the graph is smaller)",
    )
    parser.add_argument(
        "--mempalace-tail",
        type=int,
        default=1_000,
        help="last facts written through add_triple (and kg.add) into the graph holding the others",
    )
    parser.add_argument(
        "--indexed-floor-max",
        type=int,
        default=100_000,
        help="largest size for the floor that keeps its indexes (slow at 1M: see bench_import.py)",
    )
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process `kgtoolkit import` runs")
    parser.add_argument("--no-search", action="store_true", help="do not run bench_search.py")
    parser.add_argument("--search-json", type=Path, help="read the search figures from bench_search.py's --json output")
    parser.add_argument(
        "--json",
        type=Path,
        help="results file (default benchmarks/results.json; benchmarks/results-quick.json with --quick)",
    )
    parser.add_argument("--readme", action="store_true", help="rewrite the tables in benchmarks/README.md")
    parser.add_argument("--workdir", type=Path, help="where the files go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the graph files in --workdir")
    parser.add_argument(
        "--from-json", type=Path, help="run nothing: print (and with --readme write) the tables of this results file"
    )
    args = parser.parse_args(argv)
    if args.from_json:
        results = json.loads(args.from_json.read_text())
        results["targets"] = targets(results)
        text = markdown(results)
        say(text)
        if args.readme:
            write_readme(text)
        return results
    if args.quick:
        args.sizes = args.sizes or "10000,100000"
        args.repeat = min(args.repeat, 2)
        args.samples = min(args.samples, 500)
        args.check = min(args.check, 100)
        args.invalidations = min(args.invalidations, 100)
        args.mempalace_sample = min(args.mempalace_sample, 2_000)
        args.mempalace_tail = min(args.mempalace_tail, 300)
        args.no_search = args.no_search or args.search_json is None
    sizes = [int(s.replace("_", "")) for s in (args.sizes or "10000,100000,1000000").split(",") if s.strip()]
    args.repeat = max(1, args.repeat)
    json_path = args.json or HERE / ("results-quick.json" if args.quick else "results.json")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kgsuite-"))
    work.mkdir(parents=True, exist_ok=True)
    info = bi.machine()
    started = time.perf_counter()
    say(
        f"machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, SQLite {info['sqlite']}, "
        f"polars {info['polars']}; MemPalace {mempalace_version() or 'not installed'}; load {loadavg()}"
    )
    if mempalace() is None:
        say("MemPalace is not installed (pip install --no-deps mempalace): its rows are skipped")
    results: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": info,
        "repeat": args.repeat,
        "seed": args.seed,
        "mempalace": mempalace_version(),
        "quick": args.quick,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "sizes": {},
    }
    try:
        if mempalace() is not None:
            results["probes"] = probes()
        for n in sizes:
            results["sizes"][str(n)] = bench_size(n, args, work)
        results["search"] = search_figures(args, work)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    results["targets"] = targets(results)
    results["seconds"] = round(time.perf_counter() - started, 1)
    json_path.write_text(json.dumps(results, indent=1, default=str) + "\n")
    text = markdown(results)
    say("\n" + text)
    say(f"\nresults written to {json_path} ({results['seconds']:.0f} s in all)")
    if args.readme:
        write_readme(text)
        say(f"tables written to {README}")
    return results


if __name__ == "__main__":
    main()

"""Rollups (contract §18, issue 47): every answer the rollups serve equals the scan's, on both engines, after any
sequence of writes (every write path of the library, none folding explicitly: each write folds in its own
transaction), after each settings change, and ``check`` finds a rollup edited by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgtoolkit
from conftest import run_sql, schema_step, undo_steps
from kgtoolkit import analysis
from kgtoolkit.store import (
    answer_source,
    check_rollups,
    copy_graph,
    dump,
    graph_counts,
    import_facts,
    migration_progress,
    rebuild_rollups,
    restore,
    scan_only,
)
from kgtoolkit.store.engine import FEW
from kgtoolkit.store.engine._rollup_schema import rollup_trigger_drops, rollup_trigger_refresh
from kgtoolkit.store.engine._schema import MIGRATIONS
from kgtoolkit.store.ops._rollups import covered

NAMES = ("Ada", "Bo", "Cy", "Dee")
PREDICATES = ("works_at", "lives_in", "met", "Criticize")
BOUNDS = (
    (None, None),
    ("2024-01-02", None),
    ("2024-01-02", "2024-03-31"),
    ("2024-04-01", None),
    ("2024-03-31", "2024-03-31"),  # an event by its bounds
    ("2024-03", "2024-03"),
    ("2023", "2024-02-15"),
    (None, "2024-05-01"),  # an unknown start
    ("2031-01-01", None),  # scheduled
    ("2024-06-01", "2032-12-31"),  # ends in the future
    ("2024-02-10T08:30:00Z", "2024-02-10T08:30:00Z"),
)


def answers(kg: kgtoolkit.KnowledgeGraph) -> dict[str, Any]:
    """Every rollup-served answer, as data."""
    out: dict[str, Any] = {"stats": kg.stats(), "predicates": kg.predicates(), "graph_counts": graph_counts(kg)}
    for every in ("1d", "1w", "1mo", "1q", "1y", "10d"):
        for by in (None, "predicate"):
            for renewals in (True, False):
                out[f"churn {every} {by} {renewals}"] = analysis.churn(kg, every=every, by=by, renewals=renewals)
            out[f"events {every} {by}"] = analysis.events(kg, every=every, by=by)
    for top in (1, 3, 50, None):
        out[f"most_connected {top}"] = analysis.most_connected(kg, top=top)
    return out


def assert_folded(kg: kgtoolkit.KnowledgeGraph) -> None:
    """The rollups count every fact: the reads are served by them, with no fold in between."""
    with kg.engine.read() as cur:
        assert covered(cur)


def assert_twins(kg: kgtoolkit.KnowledgeGraph) -> None:
    assert_folded(kg)
    served = answers(kg)
    with scan_only():
        scanned = answers(kg)
    for key, value in served.items():
        if isinstance(value, pl.DataFrame):
            assert value.equals(scanned[key]), (key, value, scanned[key])
        else:
            assert value == scanned[key], key
    found = check_rollups(kg)
    assert found.ok, found.examples


def test_source_says_which() -> None:
    assert answer_source("churn", every="1mo") == "rollups"
    assert answer_source("churn", every="1mo", by="predicate") == "rollups"
    assert answer_source("churn", every="12h") == "scan"
    assert answer_source("churn", every="1mo", by="subject") == "scan"
    assert answer_source("events", every="1w", by="pair") == "scan"
    with scan_only():
        assert answer_source("stats") == "scan"


def _import(kg: kgtoolkit.KnowledgeGraph, a: int, p: int, b: int, bounds: int) -> None:
    frame = pl.DataFrame(
        {
            "subject": [NAMES[(a + i) % 4] for i in range(4)],
            "predicate": [PREDICATES[(p + i) % 4] for i in range(4)],
            "object": [NAMES[(b + i) % 4] for i in range(4)],
            "valid_from": [BOUNDS[(bounds + i) % len(BOUNDS)][0] for i in range(4)],
            "valid_to": [BOUNDS[(bounds + i) % len(BOUNDS)][1] for i in range(4)],
        }
    )
    import_facts(kg, frame, on_error="skip")


def _read(kg: kgtoolkit.KnowledgeGraph) -> None:
    """A read writes nothing and needs no fold."""
    kg.stats()
    analysis.churn(kg, every="1mo")


#: Every write path of the library (and a read), by name: each takes the graph, three small numbers and a bounds index.
WRITES: dict[str, Callable[[kgtoolkit.KnowledgeGraph, int, int, int, int], Any]] = {
    "add": lambda kg, a, p, b, i: kg.add(
        NAMES[a], PREDICATES[p], NAMES[b], valid_from=BOUNDS[i][0], valid_to=BOUNDS[i][1]
    ),
    "value": lambda kg, a, p, b, i: kg.add(
        NAMES[a], "email", f"{NAMES[b]}@x.org", valid_from=BOUNDS[i][0], valid_to=BOUNDS[i][1]
    ),
    "supersede": lambda kg, a, p, b, i: kg.supersede(
        NAMES[a], PREDICATES[p], NAMES[b], NAMES[(b + 1) % 4], at=BOUNDS[i][0] or "2024-07-01"
    ),
    "holder": lambda kg, a, p, b, i: kg.supersede_holder(
        NAMES[b], PREDICATES[p], NAMES[a], NAMES[(a + 1) % 4], at=BOUNDS[i][0] or "2024-07-01"
    ),
    "invalidate": lambda kg, a, p, b, i: kg.invalidate(
        NAMES[a], PREDICATES[p], NAMES[b], ended=BOUNDS[i][1] or BOUNDS[i][0] or "2024-08-01"
    ),
    "merge": lambda kg, a, p, b, i: kg.merge(NAMES[a], NAMES[b]),
    "rename": lambda kg, a, p, b, i: kg.rename_predicate(PREDICATES[p], PREDICATES[(p + 1) % 4]),
    "alias": lambda kg, a, p, b, i: kg.alias_predicate(f"alias_{p}", PREDICATES[p]),
    "import": _import,
    "events": lambda kg, a, p, b, i: kg.configure(event_predicates=[PREDICATES[p]] if b % 2 else []),
    "graph_events": lambda kg, a, p, b, i: kg.configure(events=bool(b % 2)),
    "multi": lambda kg, a, p, b, i: kg.configure(multi_valued=[PREDICATES[p]] if b % 2 else []),
    "values": lambda kg, a, p, b, i: kg.configure(value_predicates=[PREDICATES[p]] if b % 2 else []),
    "entity": lambda kg, a, p, b, i: kg.add_entity(f"E{a}", type=("person", "org", None, "place")[b]),
    "entity_alias": lambda kg, a, p, b, i: kg.alias(f"nick_{a}", NAMES[b]),
    "read": lambda kg, a, p, b, i: _read(kg),
}


def _op(kg: kgtoolkit.KnowledgeGraph, op: tuple[Any, ...]) -> None:
    kind, a, p, b, bounds = op
    try:
        WRITES[kind](kg, a, p, b, bounds)
    except kgtoolkit.KGError:
        pass  # a refused write changes nothing


OPS = st.tuples(
    st.sampled_from(["add"] * 6 + ["read"] * 3 + [k for k in WRITES if k not in ("add", "read")]),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, len(BOUNDS) - 1),
)


def test_twins_after_write_sequences(new_db: Callable[[str], Path | str]) -> None:
    counter = iter(range(10_000))

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(OPS, min_size=1, max_size=12))
    def run(ops: list[tuple[Any, ...]]) -> None:
        kg = kgtoolkit.open(new_db(f"g{next(counter)}"), create=True)
        try:
            for op in ops:
                _op(kg, op)
                assert_folded(kg)
            assert_twins(kg)
        finally:
            kg.close()

    run()


def _story(kg: kgtoolkit.KnowledgeGraph) -> None:
    for i, (start, end) in enumerate(BOUNDS):
        kg.add(NAMES[i % 4], PREDICATES[i % 4], NAMES[(i + 1) % 4], valid_from=start, valid_to=end)
    kg.add("Ada", "works_at", "Bo", valid_from="2024-01-01", valid_to="2024-06-30")
    kg.add("Ada", "works_at", "Bo", valid_from="2024-07-01", valid_to="2024-12-31")  # a renewal
    kg.add("Ada", "works_at", "Bo", valid_from="2025-01-01")  # another


@pytest.mark.parametrize(
    "change",
    [
        {"events": True},
        {"event_predicates": ["works_at"]},
        {"event_predicates": ["met", "lives_in"]},
        {"multi_valued": ["works_at"]},
        {"value_predicates": ["met"]},
    ],
)
def test_each_settings_change(kg: kgtoolkit.KnowledgeGraph, change: dict[str, Any]) -> None:
    _story(kg)
    assert_twins(kg)
    kg.configure(**change)
    assert_twins(kg)  # no rebuild: the reads apply the declarations per predicate
    kg.configure(events=False, event_predicates=[], multi_valued=[])
    assert_twins(kg)


@pytest.mark.parametrize("n", [1_500, FEW + 500])  # the lean fold, and the set-wise fill of many facts
def test_bulk_import_restore_copy(kg: kgtoolkit.KnowledgeGraph, new_db: Callable[[str], Path | str], n: int) -> None:
    _story(kg)
    frame = pl.DataFrame(
        {
            "subject": [f"s{i % 97}" for i in range(n)],
            "predicate": [PREDICATES[i % 4] for i in range(n)],
            "object": [f"o{i % 13}" for i in range(n)],
            "valid_from": [f"20{10 + i % 15}-0{1 + i % 9}-1{i % 10}" for i in range(n)],
            "valid_to": [None if i % 3 else f"20{10 + i % 15}-0{1 + i % 9}-1{i % 10}" for i in range(n)],
        }
    )
    import_facts(kg, frame, on_error="skip")
    assert_folded(kg)
    import_facts(kg, frame, on_error="skip")  # again: nothing new
    kg.add("s1", "works_at", "o1", valid_from="2030-01-01")
    assert_twins(kg)
    restored = kgtoolkit.open(new_db("restored"))
    restore(restored, dump(kg))
    copied = kgtoolkit.open(new_db("copied"))
    copy_graph(kg, copied)
    for other in (restored, copied):
        assert_folded(other)
        assert_twins(other)
        assert other.stats() == kg.stats()
        other.close()


def test_check_finds_an_edit_and_rebuild_mends_it(kg: kgtoolkit.KnowledgeGraph, db_path: Path | str) -> None:
    _story(kg)
    assert check_rollups(kg).ok
    kg.close()
    run_sql(db_path, "UPDATE rollup_days SET starts = starts + 1 WHERE day = (SELECT min(day) FROM rollup_days)")
    run_sql(db_path, "DELETE FROM rollup_entities WHERE entity = 'ada'")
    again = kgtoolkit.open(db_path)
    found = check_rollups(again)
    assert not found.ok
    assert found.differences["rollup_days"] >= 1 and found.differences["rollup_entities"] == 1
    assert found.differences["rollup_predicates"] == 0
    rebuild_rollups(again)
    assert check_rollups(again).ok
    assert_twins(again)
    again.close()


def test_a_graph_of_the_schema_before_gains_its_rollups(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        _story(kg)
        expected = answers(kg)
    postgres = str(db_path).startswith("postgresql://")
    kind = "postgresql" if postgres else "sqlite"
    previous = schema_step("rollup_days")
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, kind), version)
    with kgtoolkit.open(db_path) as kg:  # migrated: the rollups filled from the facts there are
        assert check_rollups(kg).ok
        got = answers(kg)
        for key, value in expected.items():
            assert value.equals(got[key]) if isinstance(value, pl.DataFrame) else value == got[key], key
        kg.add("Ada", "works_at", "Cy", valid_from="2024-02-02")  # and every write keeps them
        assert_twins(kg)


def test_the_upgrade_of_a_big_graph_reports_progress(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        _story(kg)
        expected = answers(kg)
    postgres = str(db_path).startswith("postgresql://")
    previous = schema_step("rollup_days")
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    undo = [*undo_steps(previous, "postgresql" if postgres else "sqlite"), version]
    run_sql(db_path, *undo)
    quiet: list[tuple[int, int]] = []
    with migration_progress(lambda done, total: quiet.append((done, total))):  # a small graph: at once, no report
        kgtoolkit.open(db_path).close()
    assert quiet == []
    run_sql(db_path, *undo)
    calls: list[tuple[int, int]] = []
    with migration_progress(lambda done, total: calls.append((done, total)), from_facts=len(BOUNDS)):
        kg = kgtoolkit.open(db_path)
    try:
        total = calls[0][1]
        assert total > 0 and calls[0] == (0, total) and calls[-1] == (total, total)
        assert [done for done, _ in calls] == list(range(total + 1))
        assert_folded(kg)
        assert check_rollups(kg).ok
        got = answers(kg)
        for key, value in expected.items():
            assert value.equals(got[key]) if isinstance(value, pl.DataFrame) else value == got[key], key
    finally:
        kg.close()


def test_facts_an_earlier_version_left_unfolded(kg: kgtoolkit.KnowledgeGraph, db_path: Path | str) -> None:
    """Facts above the watermark (written by the version that folded later): reads scan, with the same answer, and
    write nothing; the next write folds them."""
    _story(kg)
    kg.close()
    columns = "subject, object_id, object_value, object_key, valid_from, valid_to, from_us, to_us, confidence, "
    columns += "source, source_closet, recorded_at, invalidated_at, ended_by, occurrence"
    run_sql(
        db_path,
        "INSERT INTO predicates(id, label) VALUES ('knows', 'knows')",
        f"INSERT INTO facts(predicate, {columns}) SELECT 'knows', {columns} FROM facts WHERE predicate = 'works_at'",
    )
    again = kgtoolkit.open(db_path)
    try:
        with again.engine.read() as cur:
            assert not covered(cur)
        version = again.data_version()
        served = answers(again)
        with scan_only():
            scanned = answers(again)
        for key, value in served.items():
            assert value.equals(scanned[key]) if isinstance(value, pl.DataFrame) else value == scanned[key], key
        assert again.data_version() == version  # the reads wrote nothing
        assert "knows" in {p.id for p in again.predicates()}
        again.remember("a write of anything folds them")
        assert_twins(again)
    finally:
        again.close()


def test_a_graph_with_the_rollup_triggers_of_an_earlier_version_gains_these(db_path: Path | str) -> None:
    """The schema step that makes the rollup triggers again: a graph of the version before it, whatever rollup
    triggers it had (here none), keeps its rollups exact through every kind of change after its next open."""
    with kgtoolkit.open(db_path, create=True) as kg:
        _story(kg)
    kind = "postgresql" if str(db_path).startswith("postgresql://") else "sqlite"
    step = max(i for i, made in enumerate(MIGRATIONS[kind]) if made == rollup_trigger_refresh(kind))
    version = (
        f"UPDATE kgtoolkit_schema SET version = {step}" if kind == "postgresql" else f"PRAGMA user_version = {step}"
    )
    run_sql(db_path, *undo_steps(step + 1, kind), *rollup_trigger_drops(kind), version)
    with kgtoolkit.open(db_path) as kg:
        kg.add("Eve", "lives_in", "Bo", valid_from="2024-01-05")
        kg.invalidate("Eve", "lives_in", "Bo", ended="2024-03-01")
        kg.add("Eve", "lives_in", "Bo", valid_from="2024-03-02")  # a renewal
        kg.supersede("Eve", "lives_in", "Bo", "Cy", at="2024-09-01")
        kg.merge("Dee", "Cy")
        kg.rename_predicate("met", "knows")
        assert_twins(kg)

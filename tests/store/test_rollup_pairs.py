"""The kept pairs (contract §18, issue 47): ``most_changed`` found along ``rollup_pairs`` equals the scan's answer on
both engines, after any sequence of writes, under each settings change and for any window and ``top``; ``check``
finds a pair edited by hand; a graph of the schema before gains the pairs by migration."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rollups import OPS, _op, _story, assert_folded

import kgtoolkit
from conftest import run_sql, schema_step, undo_steps
from kgtoolkit import analysis
from kgtoolkit.store import check_rollups, import_facts, link_ranking, rebuild_rollups, scan_only
from kgtoolkit.store.reads import _changed_walk, _links_walk, _rankings

#: Windows (since, until) the Churn page and the library ask: open, to today, a few months, the future only.
WINDOWS = (
    (None, None),
    (None, dt.date.today().isoformat()),
    ("2024-02-01", "2024-04-30"),
    ("2010-01-01", "2024-12-31"),
    ("2030-01-01", None),
)


@pytest.fixture(autouse=True)
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of one or two pairs and no budget: the walk reads small graphs in many steps, so its stopping rule
    (ties included) decides every answer here, never its giving up."""
    monkeypatch.setattr(_changed_walk, "_FIRST", 1)
    monkeypatch.setattr(_changed_walk, "_BATCH", 2)
    monkeypatch.setattr(_changed_walk, "BUDGET", 1e9)
    monkeypatch.setattr(_links_walk, "_BATCH", 2)
    monkeypatch.setattr(_links_walk, "BUDGET", 1e9)


def changed(kg: kgtoolkit.KnowledgeGraph, top: int | None, since: str | None, until: str | None) -> pl.DataFrame:
    frame = analysis.most_changed(kg, top=top, since=since, until=until, multi_valued=kg.config.multi_valued)
    assert isinstance(frame, pl.DataFrame)
    return frame


def assert_twins(kg: kgtoolkit.KnowledgeGraph, tops: tuple[int, ...] = (1, 2, 3, 10)) -> None:
    """Every window and ``top``: the walk's ranking equals the scan's; ``check`` finds every pair right."""
    assert_folded(kg)
    for since, until in WINDOWS:
        for top in tops:
            served = changed(kg, top, since, until)
            with scan_only():
                scanned = changed(kg, top, since, until)
            assert served.equals(scanned), (top, since, until, served, scanned)
    for as_of in AS_OF:
        for limit in (1, 2, 5):
            kept = link_ranking(kg, as_of=as_of, limit=limit)
            with scan_only():
                assert kept == link_ranking(kg, as_of=as_of, limit=limit), (as_of, limit)
    found = check_rollups(kg)
    assert found.ok, found.examples


#: The Graph page's windows: all dates, its range through time, a year, a month, a day.
AS_OF = (None, "2019-01-01/2032-12-31", "2000-01-01/2100-12-31", "2024", "2024-03", "2024-03-31", "2021-05-01")


def _walked(kg: kgtoolkit.KnowledgeGraph, top: int) -> list[tuple[str, str]] | None:
    return _changed_walk.walk(kg, kg.config.multi_valued, top, None, None, _rankings.pair_changes)


def _history(kg: kgtoolkit.KnowledgeGraph) -> None:
    """Pairs with 1 to 4 changes, ties among them, a renewal (no change), a value pair and an event."""
    _story(kg)
    for i, subject in enumerate(("Ann", "Ben", "Cat", "Dan", "Eve")):
        objects = ["Acme", "Beta", "Acme", "Core", "Beta"][: 2 + i % 4]
        for j, o in enumerate(objects):
            kg.add(subject, "works_at", o, valid_from=f"202{j}-0{1 + i}-01", valid_to=f"202{j}-1{i % 3}-28")
    kg.add("Ann", "email", "ann@x.org", valid_from="2020-01-01", valid_to="2020-12-31")
    kg.add("Ann", "email", "Ann@X.org", valid_from="2021-01-01")  # the same value: no change
    kg.add("Ann", "email", "ann@y.org", valid_from="2022-01-01")
    kg.add("Ben", "met", "Cat", valid_from="2024-03-03", valid_to="2024-03-03")


def test_the_walk_answers_and_says_so(kg: kgtoolkit.KnowledgeGraph) -> None:
    _history(kg)
    assert _walked(kg, 3) is not None  # served along the kept pairs, not by the scan
    assert _links_walk.rank(kg, None, 3) is not None  # and the ranking of all dates along the kept links
    with scan_only():
        assert _walked(kg, 3) is None
        assert _links_walk.rank(kg, None, 3) is None
    assert_twins(kg)


@pytest.mark.parametrize("budget", [0.0, 0.25])
def test_the_walk_gives_up_to_the_scan(
    kg: kgtoolkit.KnowledgeGraph, monkeypatch: pytest.MonkeyPatch, budget: float
) -> None:
    """Past its budget the walk says None and the scan answers: the same ranking either way."""
    _history(kg)
    monkeypatch.setattr(_changed_walk, "BUDGET", budget)
    monkeypatch.setattr(_changed_walk, "_FIRST", 32)
    monkeypatch.setattr(_changed_walk, "_BATCH", 512)
    if budget == 0.0:
        assert _walked(kg, 3) is None
    assert_twins(kg)


@pytest.mark.parametrize(
    "change",
    [
        {"events": True},
        {"event_predicates": ["works_at"]},
        {"multi_valued": ["works_at"]},
        {"multi_valued": ["email", "lives_in"]},
    ],
)
def test_each_settings_change(kg: kgtoolkit.KnowledgeGraph, change: dict[str, Any]) -> None:
    _history(kg)
    assert_twins(kg)
    kg.configure(**change)
    assert_twins(kg)  # no rebuild: the walk leaves the declared predicates out at read time
    kg.configure(events=False, event_predicates=[], multi_valued=[])
    assert_twins(kg)


def test_twins_after_write_sequences(new_db: Callable[[str], Path | str]) -> None:
    counter = iter(range(10_000))

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(OPS, min_size=1, max_size=14))
    def run(ops: list[tuple[Any, ...]]) -> None:
        kg = kgtoolkit.open(new_db(f"p{next(counter)}"), create=True)
        try:
            _history(kg)
            for op in ops:
                _op(kg, op)
            assert_twins(kg, (1, 3))
        finally:
            kg.close()

    run()


DAYS = (None, "2019-05-01", "2021-01-01", "2021-01-01", "2023-07-15", "2024-03-01", "2031-01-01")
ROWS = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 2), st.integers(0, 3), st.sampled_from(DAYS), st.booleans()),
    min_size=1,
    max_size=40,
)


def test_any_histories_any_top(new_db: Callable[[str], Path | str]) -> None:
    """Random histories (ties, unknown starts, events by their bounds, scheduled facts): the walk's ranking is the
    scan's for every ``top`` and window."""
    counter = iter(range(10_000))

    @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ROWS, st.integers(1, 6))
    def run(rows: list[tuple[int, int, int, str | None, bool]], top: int) -> None:
        kg = kgtoolkit.open(new_db(f"h{next(counter)}"), create=True)
        try:
            frame = pl.DataFrame(
                {
                    "subject": [f"s{a}" for a, _, _, _, _ in rows],
                    "predicate": [("holds", "runs", "likes")[p] for _, p, _, _, _ in rows],
                    "object": [f"o{b}" for _, _, b, _, _ in rows],
                    "valid_from": [day for _, _, _, day, _ in rows],
                    "valid_to": [day if event and day else None for _, _, _, day, event in rows],
                },
                schema={c: pl.String() for c in ("subject", "predicate", "object", "valid_from", "valid_to")},
            )
            import_facts(kg, frame, on_error="skip")
            assert_twins(kg, (top,))
        finally:
            kg.close()

    run()


def test_check_finds_a_pair_edited_and_rebuild_mends_it(kg: kgtoolkit.KnowledgeGraph, db_path: Path | str) -> None:
    _history(kg)
    assert check_rollups(kg).ok
    kg.close()
    run_sql(db_path, "UPDATE rollup_pairs SET facts = facts + 1 WHERE subject = 'ann' AND predicate = 'works_at'")
    again = kgtoolkit.open(db_path)
    try:
        found = check_rollups(again)
        assert not found.ok and found.differences["rollup_pairs"] == 1
        assert any("rollup_pairs" in e for e in found.examples)
        rebuild_rollups(again)
        assert check_rollups(again).ok
    finally:
        again.close()
    run_sql(db_path, "DELETE FROM rollup_links WHERE entity = 'ann'")
    again = kgtoolkit.open(db_path)
    try:
        found = check_rollups(again)
        assert not found.ok and found.differences["rollup_links"] == 1 and found.differences["rollup_pairs"] == 0
        rebuild_rollups(again)
        assert check_rollups(again).ok
        assert_twins(again)
    finally:
        again.close()


def test_a_graph_of_the_schema_before_gains_its_pairs(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        _history(kg)
        expected = {w: changed(kg, 3, *w) for w in WINDOWS}
    postgres = str(db_path).startswith("postgresql://")
    previous = schema_step("rollup_pairs")
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, "postgresql" if postgres else "sqlite"), version)
    with kgtoolkit.open(db_path) as kg:  # migrated: the pairs counted from the facts there are
        assert check_rollups(kg).ok
        assert _walked(kg, 3) is not None
        for window, frame in expected.items():
            assert changed(kg, 3, *window).equals(frame), window
        kg.add("Ann", "works_at", "Core", valid_from="2025-02-02")  # and every write keeps them
        assert_twins(kg)

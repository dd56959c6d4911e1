"""The most volatile entities found along the kept counts (contract §18, issue 47; ``store/reads/_volatile_walk.py``):
``analysis.most_volatile(kg, by="entity", top=…)`` answers exactly what the scan answers (``scan_only``), on both
engines, whatever the graph's skew, the window and ``top``, after writes not yet folded too; the walk runs (and does
not give up) on a graph whose busiest entities hold the most changes; the shared datasets answer the same."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from shared_data import DATA

import kgtoolkit
from kgtoolkit import analysis, io
from kgtoolkit.generate import generate
from kgtoolkit.store import fold_rollups, import_facts, scan_only
from kgtoolkit.store.reads import _rankings, _volatile_walk

_EPOCH = dt.datetime(1970, 1, 1)
WINDOWS: list[tuple[str | None, str | None]] = [
    (None, None),
    (None, "2026-12-07"),
    ("2024-03", "2024-09"),
    ("2024-06-01", "2024-06-01"),
    ("2031", None),
]


def same_as_scan(
    kg: kgtoolkit.KnowledgeGraph, windows: list[tuple[str | None, str | None]], tops: tuple[int, ...]
) -> None:
    for (since, until), top in ((w, t) for w in windows for t in tops):
        served = analysis.most_volatile(kg, by="entity", top=top, since=since, until=until)
        with scan_only():
            scanned = analysis.most_volatile(kg, by="entity", top=top, since=since, until=until)
        assert_frame_equal(served, scanned, check_row_order=True)


def _us(day: str) -> int:
    return (dt.datetime.fromisoformat(day) - _EPOCH) // dt.timedelta(microseconds=1)


def _skewed(n: int, hubs: int, seed: int) -> pl.DataFrame:
    """``n`` facts, most of them at ``hubs`` busy entities (Zipf-like), some events, some open, some scheduled."""
    import random

    rng = random.Random(seed)
    names = [f"hub{i}" for i in range(hubs)] + [f"e{i}" for i in range(40)]
    weights = [1 / (i + 1) for i in range(hubs)] + [0.02] * 40
    rows = []
    for _ in range(n):
        s, o = rng.choices(names, weights)[0], rng.choices(names, weights)[0]
        start = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(0, 3000))
        kind = rng.random()
        end = None if kind < 0.4 else start if kind < 0.6 else start + dt.timedelta(days=rng.randrange(1, 400))
        rows.append(
            (s, rng.choice(("uses", "owns", "met", "Criticize")), o, start.isoformat(), end and end.isoformat())
        )
    return pl.DataFrame(rows, schema=["subject", "predicate", "object", "valid_from", "valid_to"], orient="row")


def test_the_walk_runs_and_equals_the_scan(kg: kgtoolkit.KnowledgeGraph) -> None:
    import_facts(kg, generate(5_000, seed=3))  # the benchmarks' graphs: a few busy services, teams and people
    for top in (1, 3, 5, 10):
        walked = _volatile_walk.walk(kg, None, _us("2026-12-07"), top, _rankings._rows_frame, _rankings.volatile_query)
        assert walked is not None and walked.height == top  # the busiest entities hold the most changes: no scan
        with scan_only():
            assert _volatile_walk.walk(kg, None, None, top, _rankings._rows_frame, _rankings.volatile_query) is None
    same_as_scan(kg, WINDOWS, (1, 3, 10, 60))
    kg.configure(event_predicates=["Criticize"])  # a declaration read per row: the walk's counts follow it
    same_as_scan(kg, WINDOWS, (1, 4))
    kg.add("hub5", "uses", "e1", valid_from="2024-06-01")  # not folded yet: the walk stands aside, the scan answers
    same_as_scan(kg, WINDOWS[:2], (2,))
    fold_rollups(kg)
    same_as_scan(kg, WINDOWS, (2, 7))


_COUNTER = iter(range(10**6))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    n=st.integers(0, 300),
    hubs=st.integers(1, 12),
    seed=st.integers(0, 10_000),
    top=st.integers(1, 25),
    window=st.sampled_from(WINDOWS),
)
def test_any_graph_any_window(
    new_db: Callable[[str], Path | str], n: int, hubs: int, seed: int, top: int, window: tuple[str | None, str | None]
) -> None:
    with kgtoolkit.open(new_db(f"w{next(_COUNTER)}"), create=True) as kg:
        if n:
            import_facts(kg, _skewed(n, hubs, seed), on_error="skip")
            for fact in kg.query("hub0", direction="outgoing", current_only=True, limit=3):
                try:  # a change to a counted fact (its trigger)
                    kg.invalidate(fact.subject, fact.predicate, fact.object, ended="2031-05-05")
                except kgtoolkit.KGError:
                    pass
        same_as_scan(kg, [window], (top,))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["icews14", "yago11k"])
def test_the_shared_datasets_answer_the_same(name: str, db_path: Path | str) -> None:
    source = DATA / name / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"{name} not found at {source} (the shared data folder is absent)")
    with kgtoolkit.open(db_path) as kg:
        io.import_file(kg, source, allow_commas=True, on_error="skip")
        windows = [(None, None), ("2014-03", "2014-05")] if name == "icews14" else [(None, None), ("1990", "2010")]
        same_as_scan(kg, windows, (1, 10, 50))

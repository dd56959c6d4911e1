"""Aggregates in the engine (issue #32): ``analysis.churn``, ``events`` and ``event_graph`` given the graph compute in SQL
(kgtoolkit.store's ``churn_counts``, ``event_counts``, ``event_pairs``) and answer exactly what the frame path answers
on ``frames.facts(kg)``: same columns, dtypes, rows and order, on both engines. Twins on the demo graph, generated
graphs, hypothesis graphs with dates on period edges, and the shared ICEWS14 and YAGO11k when present."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from real_graphs import RealGraph
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KGError, KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts, period_plan

EVERY = ["1d", "3d", "1w", "2w", "12h", "1mo", "2mo", "1q", "1y", "10y"]
WINDOWS: list[tuple[str | None, str | None]] = [(None, None), ("2024-02", "2025-03-04"), ("2025-12-29", None)]


def same_answers(kg: KnowledgeGraph, every: list[str], windows: list[tuple[str | None, str | None]]) -> None:
    """Every SQL answer equals the frame path's on the same graph."""
    facts = frames.facts(kg)
    for each, (since, until) in itertools.product(every, windows):
        for by in (None, "subject", "predicate"):
            assert_frame_equal(
                analysis.churn(kg, every=each, since=since, until=until, by=by),
                analysis.churn(facts, every=each, since=since, until=until, by=by),
            )
        for by2 in (None, "predicate", "pair"):
            assert_frame_equal(
                analysis.events(kg, every=each, since=since, until=until, by=by2),
                analysis.events(facts, every=each, since=since, until=until, by=by2),
            )
    for start, end in windows:
        assert_frame_equal(
            analysis.event_graph(kg, start=start, end=end), analysis.event_graph(facts, start=start, end=end)
        )


def test_every_supported_period_is_keyed_as_polars_truncates() -> None:
    """The SQL keys (the plan's arithmetic, run here in Python) equal ``dt.truncate`` over 0001 … 9999."""
    import random

    rng = random.Random(32)
    day = 86_400_000_000
    lo, hi = -62_135_596_800_000_000, 253_402_300_799_999_999
    moments = [rng.randint(lo, hi) for _ in range(3000)] + [
        rng.randint(-3_000 * day, 25_000 * day) for _ in range(3000)
    ]
    series = pl.Series(moments, dtype=pl.Int64).cast(pl.Datetime("us", "UTC"))
    for every in [*EVERY, "7mo", "3y", "4y", "100y", "90m", "1500ms", "7us", "5w"]:
        plan = period_plan(every)
        assert plan is not None
        truncated = series.dt.truncate(every)
        if plan.unit == "fixed":
            assert [t - (t - plan.origin) % plan.step for t in moments] == truncated.to_physical().to_list(), every
        else:
            months = (truncated.dt.year().cast(pl.Int64) * 12 + truncated.dt.month() - 1).to_list()
            civil = pl.Series(moments).cast(pl.Datetime("us", "UTC"))
            index = (civil.dt.year().cast(pl.Int64) * 12 + civil.dt.month() - 1).to_list()
            assert [i - (i - 1970 * 12) % plan.step for i in index] == months, every
    for other in ("1mo2d", "1d12h", "1h30m", "1000ns", "0d", "mo"):
        assert period_plan(other) is None


def test_the_demo_graph_answers_the_same_in_sql(db_path: Path | str) -> None:
    with build_demo(db_path) as kg:
        same_answers(kg, EVERY, WINDOWS)


def test_generated_graphs_answer_the_same_in_sql(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"criticize"})
    import_facts(kg, generate(3_000, seed=5, start="2023-11-20", days=900), allow_commas=True)
    kg.add("China", "criticize", "Japan", valid_from="2024-02-29", valid_to="2024-02-29")
    kg.add("China", "consult", "Japan", valid_from="2024-12-31T23:30:00-02:00", valid_to="2024-12-31T23:30:00-02:00")
    same_answers(kg, ["1d", "1w", "1mo", "1q", "1y"], WINDOWS)


def test_a_whole_event_graph_answers_the_same_in_sql(kg: KnowledgeGraph) -> None:
    kg.configure(events=True)
    import_facts(kg, generate(800, seed=9, start="2025-12-01", days=120), allow_commas=True)
    same_answers(kg, ["1d", "1w", "1mo"], [(None, None), ("2026-01", "2026-02")])


def test_an_every_without_sql_reads_the_frame(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b", valid_from="2026-01-31", valid_to="2026-02-02")
    kg.add("a", "met", "b", valid_from="2026-02-01", valid_to="2026-02-01")
    for every in ("1h30m", "1d12h"):
        assert_frame_equal(analysis.churn(kg, every=every), analysis.churn(frames.facts(kg), every=every))
        assert_frame_equal(analysis.events(kg, every=every), analysis.events(frames.facts(kg), every=every))


def test_an_empty_graph_answers_the_same_in_sql(kg: KnowledgeGraph) -> None:
    same_answers(kg, ["1mo"], [(None, None), ("2026-01", "2026-03")])


def test_the_sql_path_refuses_what_the_frame_path_refuses(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b", valid_from="0001-01-01", valid_to="9999-12-31")
    for call in (
        lambda g: analysis.churn(g, every="1d"),
        lambda g: analysis.events(g, every="soon"),
        lambda g: analysis.churn(g, by="object"),  # type: ignore[arg-type]
    ):
        with pytest.raises(KGError) as by_sql:
            call(kg)
        with pytest.raises(KGError) as by_frame:
            call(frames.facts(kg))
        assert (by_sql.value.code, by_sql.value.message) == (by_frame.value.code, by_frame.value.message)


# ---------------------------------------------------------------------- hypothesis: dates on period edges

EDGES = [
    None,
    "0001-01-01",
    "2023-12-31",
    "2024-01-01",
    "2024-02-28",
    "2024-02-29",
    "2024-03-01",
    "2025-12-28",  # a Sunday: the week from Monday 2025-12-22
    "2025-12-29",  # a Monday: its week runs into 2026
    "2026-01-04",
    "2026-01-31",
    "2026-01-31T23:30:00-02:00",  # 2026-02-01 01:30 UTC: February
    "2026-02-01T00:30:00+01:00",  # 2026-01-31 23:30 UTC: January
    "2026-03-31T23:59:59.999999Z",
    "2026-04-01T00:00:00Z",
    "2026-06-30",
    "9999-12-31",
]
NAMES = ["China", "Japan", "Iran", "UN"]
PREDICATES = ["criticize", "consult", "works_at", "age"]

rows = st.lists(
    st.tuples(
        st.sampled_from(NAMES),
        st.sampled_from(PREDICATES),
        st.sampled_from([*NAMES, "42"]),
        st.sampled_from(EDGES),
        st.one_of(st.sampled_from(EDGES), st.just("same")),  # "same": an event by its bounds
    ),
    max_size=14,
)
TWINS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_graphs = itertools.count()


@TWINS
@given(
    facts=rows,
    declared=st.sampled_from([None, "criticize", "all"]),
    every=st.sampled_from(["1d", "1w", "1mo", "1q", "1y", "6h"]),
    window=st.sampled_from([(None, None), ("2024-02-29", "2026-01"), ("2026-02", "2026-02")]),
    renewals=st.booleans(),
)
def test_graphs_on_period_edges_answer_the_same_in_sql(
    new_db: Callable[[str], Path | str],
    facts: list[tuple[str, str, str, Any, Any]],
    declared: Any,
    every: str,
    window: Any,
    renewals: bool,
) -> None:
    with kgtoolkit.open(new_db(f"edges{next(_graphs)}")) as kg:
        kg.configure(value_predicates={"age"}, **({"events": True} if declared == "all" else {}))
        if declared == "criticize":
            kg.configure(event_predicates={"criticize"})
        for subject, predicate, obj, start, end in facts:
            try:
                kg.add(subject, predicate, obj, valid_from=start, valid_to=start if end == "same" else end)
            except KGError:
                pass  # an end before its start: refused, as it should be
        if every == "6h" or declared == "all":  # keep the 6-hour grid small: only a window
            window = ("2026-01-31", "2026-02-02")
        since, until = window
        table = frames.facts(kg)
        for by in (None, "subject", "predicate"):
            churn = {"every": every, "since": since, "until": until, "by": by, "renewals": renewals}
            try:
                by_frame = analysis.churn(table, **churn)
            except KGError as exc:  # too many periods: the SQL path says the same
                with pytest.raises(KGError, match=exc.message[:40]):
                    analysis.churn(kg, **churn)
                continue
            assert_frame_equal(analysis.churn(kg, **churn), by_frame)
        for by2 in (None, "predicate", "pair"):
            try:
                by_frame = analysis.events(table, every=every, since=since, until=until, by=by2)
            except KGError as exc:
                with pytest.raises(KGError, match=exc.message[:40]):
                    analysis.events(kg, every=every, since=since, until=until, by=by2)
                continue
            assert_frame_equal(analysis.events(kg, every=every, since=since, until=until, by=by2), by_frame)
        assert_frame_equal(
            analysis.event_graph(kg, start=since, end=until), analysis.event_graph(table, start=since, end=until)
        )


# ---------------------------------------------------------------------- the shared datasets


@pytest.mark.slow
@pytest.mark.parametrize("name", ["icews14", "yago11k", "wikidata12k"])
def test_the_shared_datasets_answer_the_same_in_sql(name: str, real_graph: Callable[..., RealGraph]) -> None:
    source = DATA / name / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"{name} not found at {source} (the shared data folder is absent)")
    with kgtoolkit.open(real_graph(name, allow_commas=True, on_error="skip").db) as kg:
        every = ["1d", "1w", "1mo"] if name == "icews14" else ["1y", "10y"]
        same_answers(kg, every, [(None, None), ("2014-03", "2014-05")])


def test_the_sql_answer_is_polars_for_a_graph(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b", valid_from="2026-01-31", valid_to="2026-03-02")
    assert isinstance(analysis.churn(kg), pl.DataFrame)
    assert analysis.churn(kg).select(pl.col("period").dt.date()).to_series().to_list() == [
        dt.date(2026, 1, 1),
        dt.date(2026, 2, 1),
        dt.date(2026, 3, 1),
    ]

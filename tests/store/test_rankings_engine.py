"""Rankings and spans in the engine (issue #32): ``analysis.most_volatile``, ``most_changed`` and ``most_connected``
given the graph compute in SQL (kgtoolkit.store's ``volatile_counts``, ``changing_pair_facts``, ``connected_counts``;
the volatile and connected rankings cut at ``top`` there, ties by key in byte order)
and answer exactly what the frame path answers on ``frames.facts(kg)`` (and ``frames.entities(kg)``), on both engines;
the dashboard's span and opening day (``kgtoolkit.store.fact_span``, ``nearest_bounds``) equal what it read from the
frame."""

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

import kgtoolkit
from kgtoolkit import InvalidRequest, KGError, KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.dashboard import data, graphview
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts

WINDOWS: list[tuple[str | None, str | None]] = [(None, None), ("2024-02", "2025-03-04"), ("2025-12-29", None)]


def same_rankings(kg: KnowledgeGraph) -> None:
    facts = frames.facts(kg)
    for (since, until), top in itertools.product(WINDOWS, (None, 1, 5)):
        for by in ("entity", "subject", "predicate"):
            assert_frame_equal(
                analysis.most_volatile(kg, by=by, top=top, since=since, until=until),
                analysis.most_volatile(facts, by=by, top=top, since=since, until=until),
            )
        for multi in ((), sorted(kg.config.multi_valued), ["uses_queue", "WorksAt"]):
            assert_frame_equal(
                analysis.most_changed(kg, top=top, since=since, until=until, multi_valued=multi),
                analysis.most_changed(facts, top=top, since=since, until=until, multi_valued=multi),
            )
    same_connections(kg)


def same_connections(kg: KnowledgeGraph) -> None:
    """``most_connected(kg)`` lists every entity of the graph as the frame path does given ``frames.entities(kg)``,
    ties and cut included; the entities with facts are those the facts frame alone ranks."""
    facts, entities = frames.facts(kg), frames.entities(kg)
    for top in (None, 0, 1, 5, 10**6):
        by_sql = analysis.most_connected(kg, top=top)
        assert_frame_equal(by_sql, analysis.most_connected(facts, entities, top=top))
    assert_frame_equal(
        analysis.most_connected(kg).filter(pl.col("facts") > 0), analysis.most_connected(facts), check_row_order=True
    )


def same_dashboard_days(kg: KnowledgeGraph) -> None:
    facts = frames.facts(kg)
    starts = facts["start"].drop_nulls()
    if starts.len():
        first = starts.min().date()  # type: ignore[union-attr]
        latest = max(starts.max(), facts["end"].drop_nulls().max() or starts.max())  # type: ignore[type-var]
        assert data.churn_span(kg) == (first, max(latest.date(), first + dt.timedelta(days=1)))  # type: ignore[union-attr]
    else:
        assert data.churn_span(kg) is None
    for day in [dt.date(2023, 1, 1) + dt.timedelta(days=29 * i) for i in range(50)] + [dt.date.today()]:
        assert data.opening_day(kg, today=day) == graphview.opening_day(facts, today=day)


def test_the_demo_graph_ranks_the_same_in_sql(db_path: Path | str) -> None:
    with build_demo(db_path) as kg:
        same_rankings(kg)
        same_dashboard_days(kg)


def test_generated_graphs_rank_the_same_in_sql(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"criticize"}, multi_valued={"uses"})
    import_facts(kg, generate(3_000, seed=5, start="2023-11-20", days=900), allow_commas=True)
    kg.add("China", "criticize", "Japan", valid_from="2024-02-29", valid_to="2024-02-29")
    kg.add("Acme", "motto", "Fast", valid_from="2024-01-01")
    kg.supersede("Acme", "motto", "Fast", "FAST!", at="2024-06-01")
    kg.add("Acme", "motto", "fast", valid_from="2025-01-01")
    kg.add("Acme", "likes", "Acme", valid_from="2024-03-01")
    for name in ("Zoë", "Zoe", "Émile", "emile", "Åsa", "a", "_x", "Z9"):  # ties by id, in byte order on both engines
        kg.add(name, "knows", "Acme")
    kg.add_entity("Nobody")  # an entity without facts: listed with 0
    same_rankings(kg)
    same_dashboard_days(kg)


def test_answers_read_a_few_rows_at_a_time_rank_the_same(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """``volatile_counts`` and ``changing_pair_facts`` turn their rows into frames ``ROWS_PER_FRAME`` at a time (a
    big graph's answer is never all Python tuples at once): read 7 rows at a time, the answers are the same."""
    from kgtoolkit.store.reads import _rankings

    kg.configure(multi_valued={"uses"})
    import_facts(kg, generate(1_500, seed=11, start="2024-01-01", days=700), allow_commas=True)
    monkeypatch.setattr(_rankings, "ROWS_PER_FRAME", 7)
    same_rankings(kg)


def test_a_whole_event_graph_ranks_the_same_in_sql(kg: KnowledgeGraph) -> None:
    kg.configure(events=True)
    import_facts(kg, generate(800, seed=9, start="2025-12-01", days=120), allow_commas=True)
    same_rankings(kg)
    same_dashboard_days(kg)


def test_an_empty_graph_ranks_the_same_in_sql(kg: KnowledgeGraph) -> None:
    same_rankings(kg)
    same_dashboard_days(kg)


def test_a_graph_of_planned_facts_opens_on_its_first_day(kg: KnowledgeGraph) -> None:
    kg.add("a", "plans", "b", valid_from="2099-05-04")
    same_dashboard_days(kg)
    assert data.opening_day(kg, today=dt.date(2026, 1, 1))[0] == dt.date(2099, 5, 4)


def test_most_connected_on_the_graph_refuses_an_entities_frame(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b")
    with pytest.raises(InvalidRequest) as refused:
        analysis.most_connected(kg, frames.entities(kg))
    assert refused.value.data["field"] == "entities"
    for bad in (-1, True, 1.5):
        with pytest.raises(KGError) as by_sql:
            analysis.most_connected(kg, top=bad)  # type: ignore[arg-type]
        with pytest.raises(KGError) as by_frame:
            analysis.most_connected(frames.facts(kg), top=bad)  # type: ignore[arg-type]
        assert (by_sql.value.code, by_sql.value.message) == (by_frame.value.code, by_frame.value.message)


NAMES = ["Zoë", "Zoe", "zoe_", "Émile", "ÅSA", "a", "b", "Ω"]
_graphs = itertools.count()


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    facts=st.lists(
        st.tuples(
            st.sampled_from(NAMES), st.sampled_from(["knows", "email"]), st.sampled_from([*NAMES, "x@y.example"])
        ),
        max_size=16,
    ),
    idle=st.lists(st.sampled_from(["Idle", "Zz", "Ä"]), max_size=2),
    top=st.sampled_from([None, 0, 1, 3]),
)
def test_graphs_of_ties_connect_the_same_in_sql(
    new_db: Callable[[str], Path | str], facts: list[tuple[str, str, str]], idle: list[str], top: Any
) -> None:
    with kgtoolkit.open(new_db(f"ties{next(_graphs)}")) as kg:
        kg.configure(value_predicates={"email"})
        for subject, predicate, obj in facts:
            kg.add(subject, predicate, obj)
        for name in idle:
            kg.add_entity(name)
        assert_frame_equal(
            analysis.most_connected(kg, top=top),
            analysis.most_connected(frames.facts(kg), frames.entities(kg), top=top),
        )
        for by in ("entity", "subject", "predicate"):  # the volatile ranking is cut in SQL too: ties by key
            assert_frame_equal(
                analysis.most_volatile(kg, by=by, top=top), analysis.most_volatile(frames.facts(kg), by=by, top=top)
            )

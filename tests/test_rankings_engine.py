"""Rankings and spans in the engine (issue #32): ``analysis.most_volatile`` and ``most_changed`` given the graph
compute in SQL (kgtoolkit.store's ``volatile_counts``, ``changing_pair_facts``) and answer exactly what the frame
path answers on ``frames.facts(kg)``, on both engines; the dashboard's span and opening day
(``kgtoolkit.store.fact_span``, ``nearest_bounds``) equal what it read from the frame."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

from polars.testing import assert_frame_equal

from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.dashboard import data, graphview
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts

WINDOWS: list[tuple[str | None, str | None]] = [(None, None), ("2024-02", "2025-03-04"), ("2025-12-29", None)]


def same_rankings(kg: KnowledgeGraph) -> None:
    facts = frames.facts(kg)
    for (since, until), top in itertools.product(WINDOWS, (None, 5)):
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
    same_rankings(kg)
    same_dashboard_days(kg)


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

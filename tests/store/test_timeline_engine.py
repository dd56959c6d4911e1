"""Timelines and Gantt bars of a graph (issue #32): ``analysis.timeline`` and ``analysis.gantt`` given the graph read
only the facts of the entity or predicate asked for (``frames.facts``' filters, in SQL) and answer exactly what the
frame path answers on ``frames.facts(kg)``, on both engines: names as the frame compares them (an entity alias or a
predicate alias names no fact there, so neither does it here), events, unknown starts, date and instant ends."""

from __future__ import annotations

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
from kgtoolkit import KGError, KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo
from kgtoolkit.generate import generate
from kgtoolkit.store import import_facts

NOW = "2026-06-15"


def same_timelines(kg: KnowledgeGraph, entities: list[str | None], predicates: list[str | None]) -> None:
    facts = frames.facts(kg)
    for entity, predicate in itertools.product(entities, predicates):
        assert_frame_equal(
            analysis.timeline(kg, entity=entity, predicate=predicate),
            analysis.timeline(facts, entity=entity, predicate=predicate),
        )
        for as_of, label in ((None, "fact"), ("2025-03", "object")):
            assert_frame_equal(
                analysis.gantt(kg, now=NOW, as_of=as_of, entity=entity, predicate=predicate, label=label),
                analysis.gantt(facts, now=NOW, as_of=as_of, entity=entity, predicate=predicate, label=label),
            )


def test_the_demo_graph_draws_the_same_from_the_graph(db_path: Path | str) -> None:
    with build_demo(db_path) as kg:
        top = analysis.most_connected(kg, top=3)["id"].to_list()
        same_timelines(kg, [None, *top, "nobody at all"], [None, "uses_queue", "never_used"])


def test_generated_graphs_draw_the_same_from_the_graph(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"criticize"}, value_predicates={"email"})
    import_facts(kg, generate(2_000, seed=7, start="2024-01-01", days=700), allow_commas=True)
    kg.add("China", "criticize", "Japan", valid_from="2024-02-29", valid_to="2024-02-29")
    kg.add("China", "criticize", "Japan", valid_from="2024-03-01T23:30:00-02:00", valid_to="2024-03-01T23:30:00-02:00")
    kg.add("China", "trades_with", "Japan", valid_to="2024-05-01")  # an unknown start
    kg.add("China", "trades_with", "China", valid_from="2025-01-01")  # itself
    kg.add("China", "email", "info@china.example", valid_from="2024-01-01T10:00:00Z", valid_to="2025-01-01T10:00:00Z")
    kg.add("Japan", "email", "china", valid_from="2024-01-01")  # a value spelled like an entity's id is no entity
    kg.alias("PRC", "China")  # an entity alias: the frame path compares ids, so "PRC" names no fact
    kg.alias_predicate("trades", "trades_with")
    top = analysis.most_connected(kg, top=2)["id"].to_list()
    same_timelines(kg, [None, "China", "china", "PRC", "Japan", *top], [None, "trades_with", "Trades", "criticize"])


def test_an_empty_graph_draws_the_same_from_the_graph(kg: KnowledgeGraph) -> None:
    same_timelines(kg, [None, "a"], [None, "knows"])


def test_the_graph_path_refuses_what_the_frame_path_refuses(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b")
    for call in (
        lambda g: analysis.timeline(g, entity=""),
        lambda g: analysis.timeline(g, predicate="  "),
        lambda g: analysis.gantt(g, label="colour"),  # type: ignore[arg-type]
        lambda g: analysis.gantt(g, entity="a", as_of="soon"),
    ):
        with pytest.raises(KGError) as by_graph:
            call(kg)
        with pytest.raises(KGError) as by_frame:
            call(frames.facts(kg))
        assert (by_graph.value.code, by_graph.value.message) == (by_frame.value.code, by_frame.value.message)


def test_the_graph_answer_is_polars(kg: KnowledgeGraph) -> None:
    kg.add("a", "knows", "b", valid_from="2026-01-01")
    assert isinstance(analysis.timeline(kg, entity="a"), pl.DataFrame)
    assert analysis.gantt(kg, entity="b", now=NOW)["label"].to_list() == ["a → knows → b"]


EDGES = [None, "2024-02-29", "2024-03-01", "2026-06-15", "2026-06-15T12:00:00Z", "2026-06-16", "9999-12-31"]
NAMES = ["China", "Japan", "UN"]
_graphs = itertools.count()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    facts=st.lists(
        st.tuples(
            st.sampled_from(NAMES),
            st.sampled_from(["criticize", "works_at", "age"]),
            st.sampled_from([*NAMES, "42"]),
            st.sampled_from(EDGES),
            st.one_of(st.sampled_from(EDGES), st.just("same")),
        ),
        max_size=12,
    ),
    entity=st.sampled_from([None, "China", "japan", "un", "Nippon", "42"]),
    predicate=st.sampled_from([None, "criticize", "Works At", "age", "employs"]),
)
def test_graphs_on_day_edges_draw_the_same_from_the_graph(
    new_db: Callable[[str], Path | str], facts: list[tuple[str, str, str, Any, Any]], entity: Any, predicate: Any
) -> None:
    with kgtoolkit.open(new_db(f"timeline{next(_graphs)}")) as kg:
        kg.configure(value_predicates={"age"}, event_predicates={"criticize"})
        for subject, pred, obj, start, end in facts:
            try:
                kg.add(subject, pred, obj, valid_from=start, valid_to=start if end == "same" else end)
            except KGError:
                pass  # an end before its start: refused
        try:
            kg.alias("Nippon", "Japan")  # an alias the frame path does not resolve
        except KGError:
            pass  # no entity Japan in this graph
        same_timelines(kg, [entity], [predicate])


def test_the_graph_path_reads_only_the_facts_asked_for(monkeypatch: pytest.MonkeyPatch, kg: KnowledgeGraph) -> None:
    """Given an entity or a predicate, the store is asked for those facts only (the filter runs in SQL)."""
    from kgtoolkit.analysis import _timeline

    import_facts(kg, generate(500, seed=3, start="2025-01-01", days=300), allow_commas=True)
    kg.add("Ann", "works_at", "Acme", valid_from="2025-02-01")
    read: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        frame = frames.facts(*args, **kwargs)
        read.append(frame.height)
        return frame

    monkeypatch.setattr(_timeline, "read_facts", counted)
    assert analysis.timeline(kg, entity="Ann").height == 1
    analysis.gantt(kg, predicate="works_at", now=NOW)
    whole = frames.facts(kg)
    assert read == [1, whole.filter(pl.col("predicate") == "works_at").height]
    assert read[1] < whole.height

"""The Churn and Entity pages' numbers on an event graph and a state graph equal the library's answers, on both
engines (issue 45): what the pages draw is ``kgtoolkit.dashboard.data``'s, made from ``kgtoolkit.analysis``."""

from __future__ import annotations

import datetime as dt

import polars as pl

from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit.dashboard import data

NOW = dt.datetime(2026, 6, 15, 12, tzinfo=dt.UTC)


def _events(kg: KnowledgeGraph) -> None:
    for day, subject, obj in (
        ("2014-01-02", "China", "Japan"),
        ("2014-01-09", "China", "Japan"),
        ("2014-02-01", "China", "Iran"),
        ("2014-02-03", "Japan", "China"),
        ("2014-03-05", "China", "Japan"),
        ("2014-03-31", "Iran", "China"),
    ):
        kg.add(subject, "criticize", obj, valid_from=day, valid_to=day)


def test_the_churn_page_of_an_event_graph(kg: KnowledgeGraph) -> None:
    _events(kg)
    span = data.churn_span(kg)
    assert span == (dt.date(2014, 1, 2), dt.date(2014, 3, 31))
    since, until = data.opening_window(span, NOW.date())
    page = data.churn(
        kg,
        kg.predicate_labels(),
        every="1mo",
        since=since.isoformat(),
        until=until.isoformat(),
        top=5,
        multi_valued=(),
        now=NOW,
    )
    assert page.kind == "events" and page.states == 0 and page.events == 6
    overall = analysis.churn_to_date(frames.facts(kg), every="1mo", since=since, until=until, now=NOW)
    assert page.overall.equals(overall)  # the engine's answer is the frame's
    assert page.volume()["partial"].to_list() == [True, False, False]  # the data start on the 2nd
    assert page.whole_change() == (dt.datetime(2014, 3, 1, tzinfo=dt.UTC), 0)  # March on February: 2 - 2
    pairs = analysis.event_graph(frames.facts(kg), start=since, end=until)
    assert (
        page.pairs_table().select("subject", "object", "events").rows()
        == [(r["subject_name"], r["object_name"], r["events"]) for r in pairs.iter_rows(named=True)]
        == [("China", "Japan", 3), ("China", "Iran", 1), ("Iran", "China", 1), ("Japan", "China", 1)]
    )
    assert page.volatile_moves()["event"].unique().to_list() == ["events"]


def test_the_churn_page_of_a_state_graph_tells_ended_from_scheduled(kg: KnowledgeGraph) -> None:
    kg.add("Ann", "holds", "Seat 1", valid_from="2025-01-01", valid_to="2026-06-10")
    kg.add("Bob", "holds", "Seat 2", valid_from="2025-03-01", valid_to="2026-06-20")  # after NOW: scheduled
    kg.add("Cy", "holds", "Seat 3", valid_from="2025-05-01", valid_to="2031-01-01")
    span = data.churn_span(kg)
    assert span is not None and data.opening_window(span, NOW.date()) == (dt.date(2025, 1, 1), NOW.date())
    page = data.churn(
        kg,
        kg.predicate_labels(),
        every="1mo",
        since="2025-01-01",
        until="2026-12-31",
        top=5,
        multi_valued=(),
        now=NOW,
    )
    assert page.kind == "states" and page.pairs.height == 0 and page.bursts.height == 0
    assert (page.added, page.ended, page.scheduled_ended) == (3, 1, 1)  # Cy ends in 2031, outside the window
    plain = analysis.churn(kg, every="1mo", since="2025-01-01", until="2026-12-31")
    assert page.ended + page.scheduled_ended == int(plain["ended"].sum())
    moves = page.moves()
    assert int(moves.filter(pl.col("event") == "scheduled to end")["facts"].sum()) == -1


def test_the_entity_page_of_an_entity_of_events(kg: KnowledgeGraph) -> None:
    _events(kg)
    found = data.entity_page_facts(kg, "china", None, kg.predicate_labels())  # its facts read from the store
    assert found.opening == "events" and (found.current.height, found.ended, found.states) == (0, 0, 0)
    assert found.events.height == 6 == len(kg.query("china"))
    assert found.partners("china").select("name", "events").rows() == [("Japan", 4), ("Iran", 2)]
    volume = found.event_volume("1mo")
    assert volume["events"].to_list() == analysis.events(kg, every="1mo")["events"].to_list() == [2, 2, 2]

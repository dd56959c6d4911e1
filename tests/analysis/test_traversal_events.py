"""A walk without a date on an event graph (contract §11, §12): by default a hop is a current fact or an event that
has occurred, at any date, so an event graph has hops without a date; ``as_of`` and ``during`` are unchanged. The
library on both engines, ``frames.to_networkx`` (the same rule in polars), and ICEWS14 (skipped when absent)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KnowledgeGraph, frames, io

ICEWS14 = DATA / "icews14" / "facts.tsv"


def _events(kg: KnowledgeGraph) -> None:
    """Leaders meeting on days, an event still to come, a same-day correction and a current state beside them."""
    kg.add("Obama", "visit", "Castro", valid_from="2014-03-01", valid_to="2014-03-01")
    kg.add("Obama", "visit", "Castro", valid_from="2014-05-02", valid_to="2014-05-02")  # another occurrence
    kg.add("Castro", "meet", "Maduro", valid_from="2014-04-01", valid_to="2014-04-01")
    kg.add("Maduro", "criticize", "Putin", valid_from="2090-04-01", valid_to="2090-04-01")  # not occurred yet
    kg.add("Obama", "advises", "Kerry", valid_from="2014-01-01")  # a current state fact
    kg.add("Kerry", "leads", "Delegation", valid_from="2014-06-01")
    kg.invalidate("Kerry", "leads", "Delegation", ended="2014-06-01")  # ended the day it began: a state, ended


def _ids(paths: kgtoolkit.Paths) -> list[list[str]]:
    return [[f.predicate for f in p] for p in paths.paths]


def test_an_undated_walk_takes_the_events_that_occurred(kg: KnowledgeGraph) -> None:
    _events(kg)
    assert _ids(kg.paths("Obama", "Maduro")) == [["visit", "meet"], ["visit", "meet"]]
    assert _ids(kg.paths("Obama", "Castro", max_hops=1)) == [["visit"], ["visit"]]
    assert kg.paths("Obama", "Putin").paths == ()  # its last hop has not occurred
    assert kg.paths("Obama", "Delegation").paths == ()  # an ended state fact is no hop, whatever its bounds
    near = kg.neighbors("Obama", hops=2, limit=None)
    assert {r.id: r.hops for r in near.entities} == {"obama": 0, "castro": 1, "kerry": 1, "maduro": 2}
    assert {(f.predicate, f.kind, f.state) for f in near.facts} == {
        ("visit", "event", "occurred"),
        ("advises", "state", "current"),
        ("meet", "event", "occurred"),
    }
    assert kg.follow("Obama", ["visit", "meet", "criticize"]).ends == ()
    assert kg.follow("Obama", ["visit", "meet"]).ends == ("maduro",)
    # as_of and during are unchanged: the facts valid on that day, or overlapping that window.
    assert _ids(kg.paths("Obama", "Maduro", as_of="2014-03-01")) == []
    assert _ids(kg.paths("Obama", "Maduro", during=("2014-03", "2014-04"))) == [["visit", "meet"]]
    assert _ids(kg.paths("Obama", "Putin", during=("2014", "2090"))) == [["visit", "meet", "criticize"]] * 2
    # time-respecting: the meeting (April) follows the first visit (March) only.
    respecting = kg.paths("Obama", "Maduro", time_respecting=True)
    assert [[f.valid_from for f in p] for p in respecting.paths] == [["2014-03-01", "2014-04-01"]]


def test_an_event_graph_walks_its_occurrences_and_its_open_ones(kg: KnowledgeGraph) -> None:
    """Declared events: one with a start is walked once it occurred; an open occurrence (no start) has occurred."""
    kg.configure(events=True)
    kg.add("rebels", "attacked", "convoy", valid_from="2014-03-01")
    kg.add("convoy", "escorted", "minister")  # no start: one open occurrence
    kg.add("minister", "visits", "capital", valid_from="2090-01-01")
    assert _ids(kg.paths("rebels", "minister")) == [["attacked", "escorted"]]
    assert kg.paths("rebels", "capital").paths == ()
    assert [f.state for f in kg.neighbors("convoy", limit=None).facts] == ["occurred", "occurred"]


def test_known_at_walks_the_events_the_graph_knew(kg: KnowledgeGraph) -> None:
    kg.add("a", "met", "b", valid_from="2014-03-01", valid_to="2014-03-01")
    before = kg.fact(kg.query("a")[0].id).recorded_at
    kg.add("b", "met", "c", valid_from="2014-03-02", valid_to="2014-03-02")
    assert _ids(kg.paths("a", "c")) == [["met", "met"]]
    assert kg.paths("a", "c", known_at=before).paths == ()
    assert _ids(kg.paths("a", "b", known_at=before)) == [["met"]]


def test_to_networkx_takes_the_walks_facts(kg: KnowledgeGraph) -> None:
    """The frame's rule (polars) is the walk's (SQL): the edges are the facts every one-hop walk takes."""
    _events(kg)
    kg.add("Putin", "email", "putin@example.com")  # a value: no edge
    graph = frames.to_networkx(kg)
    walked = {
        f.id for e in ("obama", "castro", "maduro", "kerry", "putin", "delegation") for f in kg.neighbors(e).facts
    }
    assert {key for _, _, key in graph.edges(keys=True)} == walked
    assert sorted(d["kind"] for _, _, d in graph.edges(data=True)) == ["event", "event", "event", "state"]
    rx = frames.to_rustworkx(kg)
    assert sorted(d["id"] for d in rx.edges()) == sorted(walked)


def _icews_rows(names: set[str]) -> list[list[str]]:
    with ICEWS14.open(encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader)
        return [row for row in reader if row[0] in names or row[2] in names]


@pytest.mark.sqlite_only
def test_an_undated_path_on_icews14_finds_its_links(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """ICEWS14's events of Barack Obama and Raúl Castro (the issue's question): an undated path finds every event
    between them, as a window over the whole year does."""
    if not ICEWS14.is_file():
        pytest.skip(f"ICEWS14 not found at {ICEWS14} (the shared data folder is absent)")
    rows = _icews_rows({"Barack Obama", "Raúl Castro"})
    part = tmp_path / "icews-part.tsv"
    with part.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t")
        writer.writerow(["subject", "predicate", "object", "valid_from", "valid_to"])
        writer.writerows(rows)
    io.import_file(kg, part, allow_commas=True)
    assert kg.config.events is False and kg.stats().events == kg.stats().facts  # events by their bounds alone
    direct = {
        (s, p, o, day) for s, p, o, day, _ in rows if {s, o} == {"Barack Obama", "Raúl Castro"}
    }  # the file's links between them, each once
    one_hop = kg.paths("Barack Obama", "Raúl Castro", max_hops=1, limit=None)
    assert one_hop.total == len(direct) > 0
    assert {(f.subject_name, f.valid_from) for p in one_hop.paths for f in p} == {(s, d) for s, _, _, d in direct}
    undated = kg.paths("Barack Obama", "Raúl Castro", max_hops=2)
    window = kg.paths("Barack Obama", "Raúl Castro", max_hops=2, during=("2014-01-01", "2014-12-31"))
    assert undated.count > 0 and [[f.id for f in p] for p in undated.paths] == [[f.id for f in p] for p in window.paths]
    assert {r.id for r in kg.neighbors("Raúl Castro", limit=None).entities} >= {"barack_obama", "raúl_castro"}

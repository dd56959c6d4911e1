"""kgtoolkit.analysis, checked against plain-Python computations over the store's own records.

Each check rebuilds the expected answer from ``kg.timeline()`` / ``kg.conflicts()`` (Fact records
with their text bounds) with loops and dicts, never with polars, on small hand-made graphs, the
demo graph and YAGO11k (skipped when the shared data folder is absent).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from bounds import end_of, start_of
from plain_model import (
    NOW,
    UTC,
    YAGO,
    approx_rows,
    churn_rows,
    closing,
    records,
    ref_changed,
    ref_churn,
    ref_conflicts,
    ref_volatile,
)

import kgtoolkit
from kgtoolkit import Fact, KnowledgeGraph, analysis, frames
from kgtoolkit._demo import build_demo

# ---------------------------------------------------------------------- graphs


def build_small(path: Path) -> KnowledgeGraph:
    """Date-only and datetime bounds, open ends, unknown starts, value case differences, multi-valued."""
    kg = kgtoolkit.open(path)
    # contract §10: date-only bounds, switched on one day.
    kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12")
    # Datetime bounds (one with an offset), a short interval and an open one.
    kg.add("svc", "deployed_on", "host1", valid_from="2026-01-15T10:00:00Z", valid_to="2026-01-15T12:30:00+02:00")
    kg.add("svc", "deployed_on", "host2", valid_from="2026-01-31T23:59:59Z")
    # Unknown starts: one open, one ended (month end), then a known start: a conflict needing action.
    kg.add("Ann", "works_at", "Acme")
    kg.add("Ann", "works_at", "Globex", valid_to="2025-06")
    kg.add("Ann", "works_at", "Initech", valid_from="2025-07-01")
    # A value predicate whose object only changes case, then a real second current value.
    kg.add("Ann", "role", "Engineer", valid_from="2024-01-01", valid_to="2024-12-31")
    kg.add("Ann", "role", "engineer", valid_from="2025-01-01")
    kg.add("Ann", "role", "Manager", valid_from="2025-03-01")
    # Multi-valued by default: never a conflict.
    kg.add("checkout", "depends_on", "billing", valid_from="2025-01-01")
    kg.add("checkout", "depends_on", "search", valid_from="2025-04-01")
    # Supersede twice, the second time at a datetime, back to the first value in other case.
    kg.add("Bob", "title", "Dev", valid_from="2025-02-10")
    kg.supersede("Bob", "title", "Dev", "Lead", at="2025-05-15")
    kg.supersede("Bob", "title", "Lead", "dev", at="2025-09-01T08:00:00Z")
    # Year-only history, added already ended; and a fact starting in 2090: scheduled, a planned switch (contract §4).
    kg.add("Old Co", "owned_by", "Parent", valid_from="1999", valid_to="2001")
    kg.add("Old Co", "owned_by", "Holding", valid_from="2002")
    kg.add("Old Co", "owned_by", "Future Owner", valid_from="2090-06-01")
    # A planned switch already resolved: supersede at a date in 2090 (the old fact ends on the new one's first day).
    kg.add("Lab", "led_by", "Ada", valid_from="2020-01-01")
    kg.supersede("Lab", "led_by", "Ada", "Grace", at="2090-01-01")
    return kg


@pytest.fixture
def small(tmp_path: Path) -> Iterator[KnowledgeGraph]:
    kg = build_small(tmp_path / "small.sqlite3")
    yield kg
    kg.close()


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[KnowledgeGraph]:
    kg = build_demo(tmp_path / "demo.sqlite3")
    yield kg
    kg.close()


@pytest.fixture(scope="module")
def yago(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    if not YAGO.exists():
        pytest.skip(f"YAGO11k not found at {YAGO} (the shared data folder is absent)")
    from kgtoolkit.store import import_facts

    kg = kgtoolkit.open(tmp_path_factory.mktemp("yago") / "yago.sqlite3")
    raw = pl.read_csv(YAGO, separator="\t", infer_schema=False, quote_char=None)
    report, _ = import_facts(kg, raw, on_error="skip", allow_commas=True)
    assert report.inserted > 20_000
    yield kg
    kg.close()


@pytest.fixture(params=["small", "demo", "yago"])
def graph(request: pytest.FixtureRequest) -> KnowledgeGraph:
    return request.getfixturevalue(request.param)


# ---------------------------------------------------------------------- conflicts


def test_conflicts_agree_with_the_store(graph: KnowledgeGraph) -> None:
    got = analysis.conflicts(frames.facts(graph), multi_valued=graph.config.multi_valued, now=NOW)
    assert got.schema == pl.Schema(analysis.CONFLICTS_SCHEMA)
    assert got.to_dicts() == ref_conflicts(graph, NOW)


def test_conflicts_small_graph_details(small: KnowledgeGraph) -> None:
    got = {
        (r["subject"], r["predicate"]): r
        for r in analysis.conflicts(frames.facts(small), multi_valued=small.config.multi_valued, now=NOW).to_dicts()
    }
    assert set(got) == {
        ("ann", "works_at"),
        ("ann", "role"),
        ("my_api", "uses_queue"),
        ("svc", "deployed_on"),
        ("bob", "title"),
        ("old_co", "owned_by"),
        ("lab", "led_by"),
    }
    works = got[("ann", "works_at")]
    assert works["needs_action"] and works["current_objects"] == ["Initech", "Acme"]  # unknown start last
    assert works["open_since"] == works["overlap_start"] == dt.datetime(2025, 7, 1, tzinfo=UTC)
    role = got[("ann", "role")]  # Engineer/engineer are one object
    assert role["objects"] == 2 and role["object_names"] == ["Engineer", "Manager"] and role["needs_action"]
    bob = got[("bob", "title")]
    assert bob["objects"] == 2 and not bob["needs_action"] and bob["overlap"] is None
    future = got[("old_co", "owned_by")]  # one current fact and one scheduled: a planned switch, overlapping
    assert future["current"] == 1 and future["scheduled"] == 1 and future["current_objects"] == ["Holding"]
    assert future["planned_switch"] == "2090-06-01" and future["switch_overlaps"] and future["needs_action"]
    assert future["overlap"] is None and future["open_since"] is None  # those are about two current facts
    lab = got[("lab", "led_by")]  # superseded at the planned date: a planned switch that needs nothing
    assert lab["planned_switch"] == "2090-01-01" and not lab["switch_overlaps"] and not lab["needs_action"]
    early = analysis.conflicts(frames.facts(small), now="2025-01-01").filter(pl.col("subject") == "ann").to_dicts()
    # The latest current start (2025-07-01) after ``now``: the overlap is clipped to zero.
    assert [(g["predicate"], g["overlap"]) for g in early] == [("role", dt.timedelta(0)), ("works_at", dt.timedelta(0))]
    assert not got[("my_api", "uses_queue")]["needs_action"]
    assert list(got)[:3] == [("ann", "role"), ("ann", "works_at"), ("old_co", "owned_by")]  # needing action first


def test_conflicts_multi_valued_and_filtered_frames(small: KnowledgeGraph) -> None:
    facts = frames.facts(small)
    every = analysis.conflicts(facts, now=NOW)  # nothing declared multi-valued
    assert ("checkout", "depends_on") in set(every.select("subject", "predicate").rows())
    subset = analysis.conflicts(frames.facts(small, predicate="works_at"), multi_valued=small.config.multi_valued)
    assert subset.select("subject", "predicate", "facts").rows() == [
        (g.subject, g.predicate, [f.id for f in g.facts])
        for g in small.conflicts(history=None)
        if g.predicate == "works_at"
    ]
    empty = analysis.conflicts(facts.clear())
    assert empty.height == 0 and empty.schema == pl.Schema(analysis.CONFLICTS_SCHEMA)


def test_conflicts_accept_pandas(demo: KnowledgeGraph) -> None:
    facts = frames.facts(demo)
    got = analysis.conflicts(facts.to_pandas(), multi_valued=demo.config.multi_valued, now=NOW)
    want = analysis.conflicts(facts, multi_valued=demo.config.multi_valued, now=NOW)
    assert type(got).__module__.startswith("pandas")
    assert list(got["subject"]) == want["subject"].to_list()
    assert [list(x) for x in got["facts"]] == want["facts"].to_list()
    assert list(got["needs_action"]) == want["needs_action"].to_list()


# ---------------------------------------------------------------------- timeline and gantt


def ref_timeline(facts: list[Fact]) -> list[tuple[Any, ...]]:
    events = []
    for f in facts:
        start, end = start_of(f.valid_from), end_of(f.valid_to)
        length = None if start is None or end is None else closing(f) - start  # type: ignore[operator]
        events.append(("occurred" if f.kind == "event" else "started", start, f.valid_from, f.id, length, 0))
        if end is not None and f.kind != "event":  # an event occurred: it never ends (contract §12)
            events.append(("ended", end, f.valid_to, f.id, length, 1))
    events.sort(key=lambda e: (e[1] is None, e[1] or NOW, e[3], e[5]))
    return [e[:5] for e in events]


def test_timeline_events(graph: KnowledgeGraph) -> None:
    got = analysis.timeline(frames.facts(graph))
    assert got.schema == pl.Schema(analysis.TIMELINE_SCHEMA)
    assert got.select("event", "at", "when", "id", "duration").rows() == ref_timeline(records(graph))


def test_timeline_small_graph_details(small: KnowledgeGraph) -> None:
    got = analysis.timeline(frames.facts(small))
    unknown = got.filter(pl.col("at").is_null())
    assert unknown["event"].to_list() == ["started", "started"] and got.tail(2)["at"].null_count() == 2
    lengths = dict(got.filter(pl.col("event") == "ended").select("object", "duration").rows())
    assert lengths["redis"] == dt.timedelta(days=225)  # 2026-03-02 … 2026-10-12, both days whole
    assert lengths["host1"] == dt.timedelta(minutes=30)  # datetimes: exact
    assert lengths["parent"] == dt.timedelta(days=365 * 3 + 1)  # 1999 … 2001
    assert lengths["globex"] is None  # unknown start


def test_timeline_filters(small: KnowledgeGraph) -> None:
    facts = frames.facts(small)
    ann = analysis.timeline(facts, entity="ANN")
    assert set(ann["id"]) == {f.id for f in small.timeline("Ann")}
    queue = analysis.timeline(facts, predicate="Uses Queue")
    assert set(queue["object"]) == {"redis", "sqlite"} and queue.height == 3
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.timeline(facts.drop("start"))


def test_gantt(graph: KnowledgeGraph) -> None:
    got = analysis.gantt(frames.facts(graph), now=NOW)
    assert got.schema == pl.Schema(analysis.GANTT_SCHEMA)
    want = []
    for f in records(graph):
        start = start_of(f.valid_from)
        if start is None:
            continue
        end = closing(f) if f.valid_to else max(NOW, start)
        want.append(
            (
                f.id,
                f"{f.subject_name} → {f.predicate} → {f.object_name}",
                start,
                end,
                f.valid_to is None,
                f.current,
                end - start,
            )
        )
    want.sort(key=lambda r: (r[2], r[0]))
    assert got.select("id", "label", "start", "end", "open_end", "current", "duration").rows() == want


@pytest.mark.parametrize("as_of", ["2024-06-15", "2025-01", "2026-10-12", "2026-10-12T12:00:00Z", "1999"])
def test_gantt_states_follow_the_stores_as_of(graph: KnowledgeGraph, as_of: str) -> None:
    # The dashboard's Timeline coloured bars by today's state whatever the sidebar date said.
    bars = analysis.gantt(frames.facts(graph), now=NOW, as_of=as_of)
    valid = set(frames.facts(graph, as_of=as_of)["id"].to_list())
    states = dict(bars.select("id", "state").rows())
    events = {f.id for f in records(graph) if f.kind == "event"}  # occurred, never current (contract §12)
    assert {i for i, s in states.items() if s == "current"} == (valid - events) & set(states)
    later = {i for i, s in states.items() if s == "scheduled"}
    assert later == {
        f.id
        for f in records(graph)
        if f.id in states and f.id not in valid and start_of(f.valid_from) > analysis_moment(as_of)
    }
    assert (
        analysis.gantt(frames.facts(graph), now=NOW)["state"].to_list()
        == analysis.gantt(frames.facts(graph), now=NOW, as_of=NOW)["state"].to_list()
    )


def analysis_moment(as_of: str) -> dt.datetime:
    """The last instant ``as_of`` covers (a day its whole day), as the store reads it."""
    from kgtoolkit._time import parse_window

    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=parse_window(as_of).hi)


def test_gantt_labels_and_filters(small: KnowledgeGraph) -> None:
    got = analysis.gantt(frames.facts(small), now=NOW, entity="my api", label="object")
    assert got.select("label", "open_end").rows() == [("Redis", False), ("SQLite", True)]
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.gantt(frames.facts(small), label="colour")  # type: ignore[arg-type]


# ---------------------------------------------------------------------- churn


@pytest.mark.parametrize("every", ["1mo", "1w", "1y"])
def test_churn_small(small: KnowledgeGraph, every: str) -> None:
    facts, recs = frames.facts(small), records(small)
    got = analysis.churn(facts, every=every)
    assert got.schema == pl.Schema(analysis.CHURN_SCHEMA)
    approx_rows(churn_rows(got), ref_churn(recs, every))
    rows = got.to_dicts()
    assert all(a["active_at_end"] == b["active_at_start"] for a, b in itertools.pairwise(rows))
    for by in ("predicate", "subject"):
        approx_rows(churn_rows(analysis.churn(facts, every=every, by=by), by), ref_churn(recs, every, by=by))  # type: ignore[arg-type]
    # The raw view (contract §11): every start and end apart, as before renewals were read.
    for by in (None, "predicate", "subject"):
        raw = analysis.churn(facts, every=every, by=by, renewals=False)  # type: ignore[arg-type]
        approx_rows(churn_rows(raw, by), ref_churn(recs, every, by=by, renewals=False))


def test_churn_window_and_unknown_starts(small: KnowledgeGraph) -> None:
    facts, recs = frames.facts(small), records(small)
    since, until = dt.datetime(2025, 3, 15, tzinfo=UTC), dt.datetime(2026, 1, 10, tzinfo=UTC)
    got = analysis.churn(facts, since="2025-03-15", until="2026-01-10")
    approx_rows(churn_rows(got), ref_churn(recs, "1mo", since, until))
    assert got["period"][0] == dt.datetime(2025, 3, 1, tzinfo=UTC)
    assert got["period"][-1] == dt.datetime(2026, 1, 1, tzinfo=UTC)
    # Unknown starts are never added, but count as active from the first period until they end.
    unknown = [f for f in recs if f.valid_from is None]
    assert len(unknown) == 2
    raw = analysis.churn(facts, renewals=False)  # every start and end apart (contract §11)
    assert raw["added"].sum() == sum(f.valid_from is not None for f in recs)
    assert raw["ended"].sum() == sum(f.valid_to is not None for f in recs)
    assert raw["renewed"].sum() == 0
    # Ann's role "Engineer" to 2024-12-31, then "engineer" from 2025-01-01: one renewal (a value up to case).
    continuing = analysis.churn(facts)
    assert continuing["renewed"].sum() == 1
    assert continuing["added"].sum() + 1 == raw["added"].sum() and continuing["ended"].sum() + 1 == raw["ended"].sum()
    first = analysis.churn(facts).row(0, named=True)
    assert first["period"] == dt.datetime(1999, 1, 1, tzinfo=UTC) and first["active_at_start"] == 2
    # A window with no events still lists its periods (zeros, with what is active).
    quiet = analysis.churn(
        facts.filter(pl.col("start").is_null() & pl.col("end").is_null()), since="2030-01", until="2030-03"
    )
    assert quiet.select("added", "ended", "active_at_start").rows() == [(0, 0, 1)] * 3


def test_churn_yago(yago: KnowledgeGraph) -> None:
    facts, recs = frames.facts(yago), records(yago)
    since, until = dt.datetime(1900, 1, 1, tzinfo=UTC), dt.datetime(2017, 12, 31, tzinfo=UTC)
    got = analysis.churn(facts, every="1y", since="1900", until="2017")
    approx_rows(churn_rows(got), ref_churn(recs, "1y", since, until))
    monthly = analysis.churn(facts)  # the whole span, dense: every month from year 100 on
    states = [f for f in recs if f.kind == "state"]  # a one-day fact is an event: counted apart (contract §12)
    assert monthly["added"].sum() == sum(f.valid_from is not None for f in states)
    assert monthly["ended"].sum() == sum(f.valid_to is not None for f in states)
    assert monthly["active_at_end"][-1] == sum(f.valid_to is None for f in states)  # scheduled ones too
    assert monthly["events"].sum() == sum(f.kind == "event" and (f.valid_from or f.valid_to) is not None for f in recs)


def test_churn_yago_by_predicate(yago: KnowledgeGraph) -> None:
    facts, recs = frames.facts(yago), records(yago)
    got = analysis.churn(facts, every="1y", by="predicate", since="1950", until="1960")
    want = ref_churn(
        recs, "1y", dt.datetime(1950, 1, 1, tzinfo=UTC), dt.datetime(1960, 12, 31, tzinfo=UTC), by="predicate"
    )
    approx_rows(churn_rows(got, "predicate"), want)


def test_churn_rejects_bad_options(small: KnowledgeGraph) -> None:
    facts = frames.facts(small)
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.churn(facts, every="monthly")
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.churn(facts, by="object")  # type: ignore[arg-type]
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.churn(facts, since="2026-02", until="2026-01")
    with pytest.raises(kgtoolkit.InvalidDate):
        analysis.churn(facts, since="19##")
    with pytest.raises(kgtoolkit.InvalidRequest, match="whole number of microseconds"):
        analysis.churn(facts, every="500ns")  # finer than the facts' instants
    assert analysis.churn(facts.clear()).height == 0


def test_churn_accepts_pandas(small: KnowledgeGraph) -> None:
    facts = frames.facts(small)
    got = analysis.churn(facts.to_pandas(), by="predicate")
    want = analysis.churn(facts, by="predicate")
    assert list(got["added"]) == want["added"].to_list()
    assert list(got["active_at_start"]) == want["active_at_start"].to_list()


def one_fact(valid_from: str | None, valid_to: str | None) -> pl.DataFrame:
    """The facts frame of a graph holding one fact."""
    kg = kgtoolkit.open(":memory:")
    kg.add("Ann", "works_at", "Acme", valid_from=valid_from, valid_to=valid_to)
    facts = frames.facts(kg)
    kg.close()
    return facts


def test_churn_at_the_ends_of_time() -> None:
    # The store's bounds reach 0001-01-01 … 9999-12-31: every period stays a Python datetime.
    yearly = analysis.churn(one_fact("0001-01-01", "9999-12-31"), every="1y")
    assert yearly.height == 9_999
    assert yearly.row(0) == (dt.datetime(1, 1, 1, tzinfo=UTC), 1, 0, 0, 1, 0, 1, None, 0, 0)
    assert yearly.row(-1) == (dt.datetime(9999, 1, 1, tzinfo=UTC), 0, 1, 0, -1, 1, 0, 1.0, 0, 0)
    assert yearly["active_at_start"][1:].to_list() == [1] * 9_998
    # A period holding 0001-01-01 can begin in year 0 ("7d" periods start on Thursdays, "10y" ones
    # in years ending in 0); it is dated 0001-01-01, and the next one starts where it should.
    early = one_fact("0001-01-01", "0001-01-10")
    assert analysis.churn(early, every="7d").rows() == [
        (dt.datetime(1, 1, 1, tzinfo=UTC), 1, 0, 0, 1, 0, 1, None, 0, 0),
        (dt.datetime(1, 1, 4, tzinfo=UTC), 0, 1, 0, -1, 1, 0, 1.0, 0, 0),
    ]
    decades = analysis.churn(early, every="10y", since="0001", until="0020")
    assert decades.select("period", "added", "ended").rows() == [
        (dt.datetime(1, 1, 1, tzinfo=UTC), 1, 1),
        (dt.datetime(10, 1, 1, tzinfo=UTC), 0, 0),
        (dt.datetime(20, 1, 1, tzinfo=UTC), 0, 0),
    ]
    by_predicate = analysis.churn(early, every="10y", by="predicate")
    assert by_predicate.select("predicate", "period", "added", "ended").rows() == [
        ("works_at", dt.datetime(1, 1, 1, tzinfo=UTC), 1, 1)
    ]
    # A date-only valid_to of 9999-12-31 closes at the next midnight, in year 10000: the bar stops
    # at the last datetime, and its duration still counts the whole last day.
    bar = analysis.gantt(one_fact("0001-01-01", "9999-12-31")).row(0, named=True)
    assert bar["end"] == dt.datetime.max.replace(tzinfo=UTC)
    assert bar["duration"] == dt.timedelta(days=(dt.date(9999, 12, 31) - dt.date(1, 1, 1)).days + 1)


def test_churn_caps_the_periods() -> None:
    facts = one_fact("0001-01-01", "9998-12-31")  # two events, 3,651,694 days apart
    days = (dt.date(9998, 12, 31) - dt.date(1, 1, 1)).days + 1
    with pytest.raises(kgtoolkit.InvalidRequest) as caught:
        analysis.churn(facts, every="1d")
    assert caught.value.message == (
        f"every '1d' makes {days:,} periods from 0001-01-01 to 9998-12-31, more than the 100,000 a churn table "
        "holds; choose a longer every (such as '3mo') or a shorter window with since/until"
    )
    assert caught.value.data == {
        "field": "every",
        "value": "1d",
        "periods": days,
        "max_periods": 100_000,
        "suggestions": ["3mo"],
    }
    # Hours over the same span are refused the same way, before anything is allocated.
    with pytest.raises(kgtoolkit.InvalidRequest, match=f"every '1h' makes {24 * days:,} periods") as caught:
        analysis.churn(facts, every="1h")
    assert caught.value.data["field"] == "every" and caught.value.suggestions == ["3mo"]
    with pytest.raises(kgtoolkit.InvalidRequest, match="every '1mo' makes 119,976 periods"):
        analysis.churn(facts, every="1mo")
    assert analysis.churn(facts, every="3mo").height == 9_998 * 4
    # The cap counts the periods of the window asked for, not of the data: a year of days or a
    # month of hours inside the long fact is laid out alone, with the fact active throughout.
    year = analysis.churn(facts, every="1d", since="2026-01-01", until="2026-12-31")
    assert year.height == 365 and year["period"][0] == dt.datetime(2026, 1, 1, tzinfo=UTC)
    assert set(year.select("added", "ended", "active_at_start", "active_at_end").rows()) == {(0, 0, 1, 1)}
    march = analysis.churn(facts, every="1h", since="2026-03", until="2026-03")
    assert march.height == 31 * 24 and march["active_at_start"].unique().to_list() == [1]
    # Per group only the periods with events have rows, so there is no cap.
    assert analysis.churn(facts, every="1h", by="predicate").select("period", "added", "ended").rows() == [
        (dt.datetime(1, 1, 1, tzinfo=UTC), 1, 0),
        (dt.datetime(9998, 12, 31, 23, tzinfo=UTC), 0, 1),
    ]


def test_churn_cap_is_exact() -> None:
    facts = one_fact("2000-01-01", None)
    last = dt.date(2000, 1, 1) + dt.timedelta(days=analysis.MAX_PERIODS - 1)
    assert analysis.churn(facts, every="1d", until=last.isoformat()).height == analysis.MAX_PERIODS
    with pytest.raises(kgtoolkit.InvalidRequest, match=f"{analysis.MAX_PERIODS + 1:,} periods"):
        analysis.churn(facts, every="1d", until=(last + dt.timedelta(days=1)).isoformat())


# ---------------------------------------------------------------------- volatility


@pytest.mark.parametrize("by", ["entity", "subject", "predicate"])
def test_most_volatile(graph: KnowledgeGraph, by: str) -> None:
    facts, recs = frames.facts(graph), records(graph)
    got = analysis.most_volatile(facts, by=by, top=None)  # type: ignore[arg-type]
    keys = [by, f"{by}_name"] if by != "predicate" else ["predicate"]
    assert got.columns == keys + list(analysis.VOLATILE_SCHEMA)
    assert got.rows() == ref_volatile(recs, by)
    assert analysis.most_volatile(facts, by=by, top=3).rows() == ref_volatile(recs, by)[:3]  # type: ignore[arg-type]


def test_most_volatile_window(graph: KnowledgeGraph) -> None:
    lo, hi = dt.datetime(2000, 1, 1, tzinfo=UTC), dt.datetime(2025, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    got = analysis.most_volatile(frames.facts(graph), top=None, since="2000", until="2025")
    assert got.rows() == ref_volatile(records(graph), "entity", lo, hi)
    subjects = analysis.most_volatile(frames.facts(graph), by="subject", top=None, since="2000", until="2025")
    assert subjects.rows() == ref_volatile(records(graph), "subject", lo, hi)


def test_most_volatile_counts_an_entity_that_is_mostly_an_object() -> None:
    """Issue 17: on ICEWS14 a hub is mostly on the object side; counting subjects only left it out."""
    kg = kgtoolkit.open(":memory:")
    for i in range(4):
        kg.add(f"critic {i}", "criticize", "China", valid_from=f"2014-01-0{i + 1}", valid_to=f"2014-01-0{i + 1}")
    kg.add("China", "praise", "critic 0", valid_from="2014-01-05", valid_to="2014-01-05")
    kg.add("China", "praise", "China", valid_from="2014-01-06")  # a self-loop counts once
    top = analysis.most_volatile(frames.facts(kg), top=1).row(0, named=True)
    # The single-day facts are events (contract §12): each occurred once, neither added nor ended.
    assert (top["entity_name"], top["facts"], top["added"], top["ended"], top["events"]) == ("China", 6, 1, 0, 5)
    assert analysis.most_volatile(frames.facts(kg), by="subject", top=1)["subject_name"].to_list() == ["China"]
    assert analysis.most_volatile(frames.facts(kg), by="subject", top=None).filter(pl.col("subject") == "china")[
        "facts"
    ].to_list() == [2]


def test_most_changed(graph: KnowledgeGraph) -> None:
    facts, recs = frames.facts(graph), records(graph)
    mv = graph.config.multi_valued
    got = analysis.most_changed(facts, top=None, multi_valued=mv)
    assert got.schema == pl.Schema(analysis.MOST_CHANGED_SCHEMA)
    cols = [
        "subject",
        "subject_name",
        "predicate",
        "changes",
        "facts",
        "objects",
        "history",
        "current_objects",
        "last_change",
    ]
    assert got.select(cols).rows() == ref_changed(recs, mv)
    assert analysis.most_changed(facts, top=5, multi_valued=mv).select(cols).rows() == ref_changed(recs, mv)[:5]
    lo, hi = dt.datetime(1990, 1, 1, tzinfo=UTC), dt.datetime(2025, 6, 30, 23, 59, 59, 999999, tzinfo=UTC)
    windowed = analysis.most_changed(facts, top=None, multi_valued=mv, since="1990", until="2025-06")
    assert windowed.select(cols).rows() == ref_changed(recs, mv, lo, hi)


def test_most_changed_small_graph(small: KnowledgeGraph) -> None:
    got = {(r["subject"], r["predicate"]): r for r in analysis.most_changed(frames.facts(small), top=None).to_dicts()}
    assert got[("bob", "title")]["history"] == ["Dev", "Lead", "dev"] and got[("bob", "title")]["changes"] == 2
    assert got[("ann", "role")]["changes"] == 1  # Engineer → engineer is no change; → Manager is
    assert ("checkout", "depends_on") in got  # nothing declared multi-valued here
    assert ("checkout", "depends_on") not in {
        (r[0], r[2]) for r in analysis.most_changed(frames.facts(small), multi_valued=["Depends On"]).rows()
    }
    # The unknown-start pair: Acme/Globex both unknown, then Initech: two changes, one of them undated.
    assert got[("ann", "works_at")]["changes"] == 2
    assert analysis.most_changed(frames.facts(small), since="2025").filter(pl.col("predicate") == "works_at")[
        "changes"
    ].to_list() == [1]
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.most_changed(frames.facts(small), multi_valued="depends_on")

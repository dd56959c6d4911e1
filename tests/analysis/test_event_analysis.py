"""Event analysis and graph export (contract §12): analysis.events, event_graph and snapshots, frames.to_networkx
and to_rustworkx, each checked against a plain-Python model built from the store's own records (``kg.timeline()``:
Fact records with their text bounds), with loops and dicts, on generated graphs (hypothesis) and on both engines."""

from __future__ import annotations

import csv
import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import networkx as nx
import pandas as pd
import polars as pl
import pytest
from bounds import end_of, start_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from real_graphs import RealGraph
from shared_data import DATA

import kgtoolkit
from kgtoolkit import Fact, KnowledgeGraph, analysis, frames
from kgtoolkit.generate import generate

UTC = dt.UTC
DAY = dt.timedelta(days=1)
US = dt.timedelta(microseconds=1)
FIRST_DAY = dt.date(2026, 1, 1)


# ---------------------------------------------------------------------- the plain-Python model


def all_facts(kg: KnowledgeGraph) -> list[Fact]:
    return kg.timeline(limit=None)


def is_event(f: Fact) -> bool:
    return f.valid_from is not None and f.valid_from == f.valid_to


def month(moment: dt.datetime) -> dt.date:
    return dt.date(moment.year, moment.month, 1)


def next_month(d: dt.date) -> dt.date:
    return dt.date(d.year + d.month // 12, d.month % 12 + 1, 1)


def period_of(moment: dt.datetime, every: str) -> dt.date:
    return month(moment) if every == "1mo" else moment.date()


def following(d: dt.date, every: str) -> dt.date:
    return next_month(d) if every == "1mo" else d + DAY


def valid(f: Fact, lo: dt.datetime, hi: dt.datetime) -> bool:
    """The store's rule: the fact's interval touches [lo, hi] (an unknown start is "always", an open end "still")."""
    start, end = start_of(f.valid_from), end_of(f.valid_to)
    return (start is None or start <= hi) and (end is None or end >= lo)


def day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    lo = dt.datetime.combine(day, dt.time(), UTC)
    return lo, lo + DAY - US


# ---------------------------------------------------------------------- generated graphs

NAMES = ["China", "Japan", "Iran", "Police", "Citizen", "UN"]
PREDICATES = ["criticize", "consult", "praise", "works_at"]

fact_rows = st.lists(
    st.tuples(
        st.sampled_from(NAMES),
        st.sampled_from(PREDICATES),
        st.sampled_from([*NAMES, "value:42"]),
        st.integers(0, 120),  # first day, from 2026-01-01
        st.one_of(st.just(0), st.just(0), st.integers(1, 60), st.none()),  # 0: an event; None: open
        st.booleans(),  # an unknown start (state facts only)
        st.booleans(),  # an event of one instant (a datetime) instead of a day
    ),
    max_size=30,
)


def build(rows: list[tuple[str, str, str, int, int | None, bool, bool]]) -> KnowledgeGraph:
    kg = kgtoolkit.open(":memory:")
    for subject, predicate, obj, first, length, unknown, instant in rows:
        day = FIRST_DAY + dt.timedelta(days=first)
        if length == 0:
            when = f"{day.isoformat()}T{first % 24:02}:00:00Z" if instant else day.isoformat()
            valid_from, valid_to = when, when
        else:
            valid_from = None if unknown else day.isoformat()
            valid_to = None if length is None else (day + dt.timedelta(days=length)).isoformat()
        target = obj.split(":", 1)[1] if obj.startswith("value:") else obj
        predicate = "age" if obj.startswith("value:") else predicate
        kg.add(subject, predicate, target, valid_from=valid_from, valid_to=valid_to)
    return kg


HYPOTHESIS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------- events


def events_model(facts: list[Fact], every: str, by: str | None) -> list[tuple[Any, ...]]:
    counts: Counter[tuple[Any, ...]] = Counter()
    names: dict[tuple[str, ...], tuple[str, str]] = {}
    for f in sorted(facts, key=lambda f: f.id):
        if not is_event(f) or (by == "pair" and f.object_is_value):
            continue
        moment = start_of(f.valid_from)
        assert moment is not None
        key: tuple[str, ...] = {None: (), "predicate": (f.predicate,), "pair": (f.subject, f.object)}[by]
        counts[(*key, period_of(moment, every))] += 1
        names.setdefault(key, (f.subject_name, f.object_name))
    if by is None:
        if not counts:
            return []
        periods = sorted(p for (p,) in counts)
        grid, at = [], periods[0]
        while at <= periods[-1]:
            grid.append(at)
            at = following(at, every)
        rows: list[tuple[Any, ...]] = []
        previous = 0
        for p in grid:
            rows.append((p, counts[(p,)], counts[(p,)] - previous))
            previous = counts[(p,)]
        return rows
    out = []
    for (*key, p), n in sorted(counts.items()):
        before = [q for q in counts if tuple(q[:-1]) == tuple(key) and following(q[-1], every) == p]
        change = n - (counts[before[0]] if before else 0)
        spelled = names[tuple(key)] if by == "pair" else ()
        row = (key[0], spelled[0], key[1], spelled[1]) if by == "pair" else tuple(key)
        out.append((*row, p, n, change))
    return out


def events_rows(table: pl.DataFrame) -> list[tuple[Any, ...]]:
    return [(*r[:-3], r[-3].date(), r[-2], r[-1]) for r in table.rows()]


@HYPOTHESIS
@given(rows=fact_rows, every=st.sampled_from(["1mo", "1d"]), by=st.sampled_from([None, "predicate", "pair"]))
def test_events_count_what_a_plain_model_counts(rows: Any, every: str, by: Any) -> None:
    with build(rows) as kg:
        table = analysis.events(frames.facts(kg), every=every, by=by)
        assert table.schema == {
            **(
                {"subject": pl.String, "subject_name": pl.String, "object": pl.String, "object_name": pl.String}
                if by == "pair"
                else {}
            ),
            **({"predicate": pl.String} if by == "predicate" else {}),
            **analysis.EVENTS_SCHEMA,
        }
        assert events_rows(table) == events_model(all_facts(kg), every, by)


@HYPOTHESIS
@given(rows=fact_rows, lo=st.integers(0, 150), span=st.integers(0, 60))
def test_the_event_graph_aggregates_a_windows_events_per_pair(rows: Any, lo: int, span: int) -> None:
    first, last = FIRST_DAY + dt.timedelta(days=lo), FIRST_DAY + dt.timedelta(days=lo + span)
    with build(rows) as kg:
        table = analysis.event_graph(frames.facts(kg), start=first.isoformat(), end=last.isoformat())
        groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for f in sorted(all_facts(kg), key=lambda f: f.id):
            moment = start_of(f.valid_from)
            if is_event(f) and not f.object_is_value and moment is not None and first <= moment.date() <= last:
                groups[(f.subject, f.object)].append(f)
        expected = sorted(
            (
                (
                    s,
                    g[0].subject_name,
                    o,
                    g[0].object_name,
                    len(g),
                    min(start_of(f.valid_from) for f in g),  # type: ignore[type-var]
                    max(start_of(f.valid_from) for f in g),
                    sorted({f.predicate for f in g}),
                )  # type: ignore[type-var]
                for (s, o), g in groups.items()
            ),
            key=lambda r: (-r[4], r[0], r[2]),
        )
        assert table.schema == analysis.EVENT_GRAPH_SCHEMA
        assert table.rows() == expected


def test_events_windows_pandas_and_a_kind_column(kg: KnowledgeGraph) -> None:
    for day in ("2014-01-02", "2014-01-20", "2014-03-05", "2014-05-01"):
        kg.add("China", "criticize", "Japan", valid_from=day, valid_to=day)
    kg.add("China", "member_of", "UN", valid_from="2014-01-01")  # a state fact: never an event
    df = frames.facts(kg)
    assert isinstance(df, pl.DataFrame)
    window = analysis.events(df, since="2014-02", until="2014-03")
    assert [(r[0].month, r[1], r[2]) for r in window.rows()] == [(2, 0, -2), (3, 1, 1)]  # February: 2 before it
    assert analysis.events(df, every="1y").rows()[0][1:] == (4, 4)
    as_pandas = analysis.events(df.to_pandas(), by="predicate")
    assert isinstance(as_pandas, pd.DataFrame) and list(as_pandas["events"]) == [2, 1, 1]
    assert isinstance(analysis.event_graph(df.to_pandas()), pd.DataFrame)
    # A kind column (the store's, when it has one) decides what an event is.
    kinds = df.with_columns(
        pl.when(pl.col("predicate") == "member_of").then(pl.lit("event")).otherwise(pl.lit("state")).alias("kind")
    )
    assert analysis.events(kinds, every="1y").rows()[0][1] == 1
    assert analysis.event_graph(kinds).select("subject", "object", "predicates").rows() == [
        ("china", "un", ["member_of"])
    ]
    empty = analysis.events(df.filter(pl.col("predicate") == "member_of"))
    assert empty.height == 0 and empty.schema == analysis.EVENTS_SCHEMA


def test_bad_arguments_are_refused() -> None:
    kg = kgtoolkit.open(":memory:")
    kg.add("a", "knows", "b", valid_from="2026-01-01", valid_to="2026-01-01")
    df = frames.facts(kg)
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.events(df, by="subject")  # type: ignore[arg-type]
    assert exc.value.data["field"] == "by"
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.events(df, every="monthly")
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.events(df, every="1h", since="0001-01-01", until="9999-12-31")
    assert exc.value.data["field"] == "every" and "events table" in exc.value.message
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.event_graph(df, start="2026-02", end="2026-01")
    assert exc.value.data["field"] == "end"
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.snapshots(kg, metrics="degree")
    assert exc.value.data["field"] == "metrics"
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.snapshots(kg, metrics=["pagerank"])
    assert exc.value.suggestions == ["degree", "components"]
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        analysis.snapshots(kg, at="end")  # type: ignore[arg-type]
    assert exc.value.data["field"] == "at"
    with pytest.raises(kgtoolkit.InvalidRequest):
        analysis.events(df.select("id", "subject"))  # not a facts frame
    with pytest.raises(kgtoolkit.InvalidRequest) as exc:
        frames.to_networkx(kg, as_of="2026-01-01", during=("2026-01", "2026-02"))
    assert exc.value.data["field"] == "during"
    with pytest.raises(kgtoolkit.InvalidRequest):
        frames.to_networkx(kg, during=("2026-01",))
    with pytest.raises(kgtoolkit.IntervalOrder):
        frames.to_rustworkx(kg, during=("2026-02", "2026-01"))
    with pytest.raises(kgtoolkit.NotFound) as missing:
        frames.to_networkx(kg, predicates=["likes"])
    assert missing.value.data["value"] == "likes"
    with pytest.raises(kgtoolkit.InvalidRequest):
        frames.to_networkx(kg, predicates=[])


# ---------------------------------------------------------------------- graph export


def expected_graph(kg: KnowledgeGraph, facts: list[Fact]) -> tuple[set[tuple[str, str, int]], dict[str, str]]:
    """The edges (subject, object, fact id) of the facts between entities, and the nodes' names."""
    edges = {(f.subject, f.object, f.id) for f in facts if not f.object_is_value}
    names: dict[str, str] = {}
    for f in sorted(facts, key=lambda f: f.id):
        if not f.object_is_value:
            names.setdefault(f.subject, f.subject_name)
            names.setdefault(f.object, f.object_name)
    return edges, names


def exported(graph: nx.MultiDiGraph) -> tuple[set[tuple[str, str, int]], dict[str, str]]:
    return set(graph.edges(keys=True)), dict(graph.nodes(data="name"))


def rustworkx_exported(graph: Any) -> tuple[set[tuple[str, str, int]], dict[str, str]]:
    edges = {(graph[a]["id"], graph[b]["id"], d["id"]) for a, b, d in graph.weighted_edge_list()}
    assert graph.attrs["index"] == {graph[i]["id"]: i for i in graph.node_indices()}
    return edges, {graph[i]["id"]: graph[i]["name"] for i in graph.node_indices()}


@HYPOTHESIS
@given(rows=fact_rows, day=st.integers(-5, 200), span=st.integers(0, 40))
def test_to_networkx_holds_the_facts_valid_then(rows: Any, day: int, span: int) -> None:
    on = FIRST_DAY + dt.timedelta(days=day)
    with build(rows) as kg:
        facts = all_facts(kg)
        then = [f for f in facts if valid(f, *day_bounds(on))]
        graph = frames.to_networkx(kg, as_of=on.isoformat())
        assert exported(graph) == expected_graph(kg, then)
        assert rustworkx_exported(frames.to_rustworkx(kg, as_of=on.isoformat())) == expected_graph(kg, then)
        last = on + dt.timedelta(days=span)
        overlapping = [f for f in facts if valid(f, day_bounds(on)[0], day_bounds(last)[1])]
        assert exported(frames.to_networkx(kg, during=(on.isoformat(), last.isoformat()))) == expected_graph(
            kg, overlapping
        )
        now = dt.datetime.now(UTC)
        # By default the walk's facts (contract §11): the current ones and the events that have occurred.
        started = [f for f in facts if (start_of(f.valid_from) or now) <= now]
        walked = [f for f in started if f.valid_to is None or is_event(f)]
        assert exported(frames.to_networkx(kg)) == expected_graph(kg, walked)


def test_edges_carry_the_fact_and_nodes_their_entity(kg: KnowledgeGraph) -> None:
    kg.configure(types=kg.config.types | {"service", "team"})
    kg.add(
        "billing",
        "Owned by",
        "Payments Team",
        valid_from="2025-01-01",
        subject_type="service",
        object_type="team",
        source="wiki",
    )
    kg.add("China", "criticize", "Japan", valid_from="2025-02-03", valid_to="2025-02-03")
    kg.add("billing", "email", "billing@example.com")
    graph = frames.to_networkx(kg, during=("2025", "2025"))
    assert graph.nodes["billing"] == {"name": "billing", "type": "service"}
    assert graph.nodes["payments_team"] == {"name": "Payments Team", "type": "team"}
    (owned,) = [f for f in kg.query("billing") if f.predicate == "owned_by"]
    assert graph.edges["billing", "payments_team", owned.id] == {
        "id": owned.id,
        "predicate": "owned_by",
        "label": "Owned by",
        "valid_from": "2025-01-01",
        "valid_to": None,
        "state": "current",
        "kind": "state",
        "confidence": 1.0,
        "source": "wiki",
    }
    (event,) = graph.get_edge_data("china", "japan").values()
    assert (event["kind"], event["state"], event["valid_to"]) == ("event", "occurred", "2025-02-03")
    assert "billing@example.com" not in graph  # a value is no node
    assert set(frames.to_networkx(kg, during=("2025", "2025"), predicates=["owned by"]).edges()) == {
        ("billing", "payments_team")
    }
    rx_graph = frames.to_rustworkx(kg, during=("2025", "2025"))
    payloads = {d["id"]: d for d in rx_graph.edges()}
    assert payloads[owned.id] == graph.edges["billing", "payments_team", owned.id]
    assert rx_graph[rx_graph.attrs["index"]["billing"]] == {"id": "billing", "name": "billing", "type": "service"}


# ---------------------------------------------------------------------- snapshots


def nx_metrics(graph: nx.MultiDiGraph) -> tuple[Any, ...]:
    n, m = graph.number_of_nodes(), graph.number_of_edges()
    if not n:
        return (0, 0, None, None, None)
    parts = list(nx.weakly_connected_components(graph))
    return (n, m, sum(d for _, d in graph.degree()) / n, len(parts), max(len(p) for p in parts))


def snapshot_rows(table: pl.DataFrame) -> list[tuple[Any, ...]]:
    return [(r[0], *r[1:3], None if r[3] is None else round(r[3], 9), *r[4:]) for r in table.rows()]


def rounded(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return (*row[:3], None if row[3] is None else round(row[3], 9), *row[4:])


@pytest.fixture
def generated(kg: KnowledgeGraph) -> KnowledgeGraph:
    frames.to_store(kg, generate(600, seed=3, start="2024-01-01", days=400))
    return kg


def test_snapshots_equal_networkx_on_each_periods_graph(generated: KnowledgeGraph) -> None:
    table = analysis.snapshots(generated, every="1mo", start="2023-12", end="2025-03")
    assert table.schema == analysis.SNAPSHOTS_SCHEMA
    periods = [r[0] for r in table.rows()]
    assert periods[0] == dt.datetime(2023, 12, 1, tzinfo=UTC) and len(periods) == 16
    for row in snapshot_rows(table):
        at = row[0].strftime("%Y-%m-%dT%H:%M:%SZ")
        assert row[1:] == rounded((None, *nx_metrics(frames.to_networkx(generated, as_of=at))))[1:], at
    by_period = analysis.snapshots(generated, every="1mo", start="2024-02", end="2024-05", at="period")
    for row in snapshot_rows(by_period):
        month_text = row[0].strftime("%Y-%m")
        graph = frames.to_networkx(generated, during=(month_text, month_text))
        assert row[1:] == rounded((None, *nx_metrics(graph)))[1:], month_text
    degree_only = analysis.snapshots(generated, metrics=["degree"], start="2024-06", end="2024-06")
    assert degree_only["components"].to_list() == [None] and degree_only["mean_degree"].to_list()[0] > 0
    frame = frames.facts(generated)
    assert isinstance(frame, pl.DataFrame)
    from_frame = analysis.snapshots(frame.to_pandas(), start="2023-12", end="2025-03")
    assert isinstance(from_frame, pd.DataFrame) and list(from_frame["edges"]) == table["edges"].to_list()


@HYPOTHESIS
@given(rows=fact_rows, every=st.sampled_from(["1mo", "1w", "10d"]))
def test_snapshots_match_networkx_on_generated_graphs(rows: Any, every: str) -> None:
    with build(rows) as kg:
        table = analysis.snapshots(kg, every=every)
        facts = [f for f in all_facts(kg) if not f.object_is_value]
        bounds = [b for f in facts for b in (start_of(f.valid_from), end_of(f.valid_to)) if b is not None]
        if not bounds:
            assert table.height == 0
            return
        assert table.height >= 1 and table["period"].min() <= min(bounds)  # type: ignore[operator]
        for row in snapshot_rows(table):
            at = row[0]
            graph = nx.MultiDiGraph()
            for f in facts:
                start, end = start_of(f.valid_from), end_of(f.valid_to)
                if (start is None or start <= at) and (end is None or end >= at):
                    graph.add_edge(f.subject, f.object, key=f.id)
            assert row[1:] == rounded((None, *nx_metrics(graph)))[1:], at


# ---------------------------------------------------------------------- ICEWS14, an event graph

ICEWS14 = DATA / "icews14" / "facts.tsv"


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_on_icews14_the_event_analysis_counts_what_the_file_holds(real_graph: Callable[..., RealGraph]) -> None:
    if not ICEWS14.is_file():
        pytest.skip(f"ICEWS14 not found at {ICEWS14} (the shared data folder is absent)")
    with ICEWS14.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    per_month = Counter(r["valid_from"][:7] for r in rows)
    march = Counter((r["subject"], r["object"]) for r in rows if r["valid_from"].startswith("2014-03"))
    with kgtoolkit.open(real_graph("icews14", allow_commas=True).db) as kg:
        facts = frames.facts(kg)
        monthly = analysis.events(facts)
        assert [(p.strftime("%Y-%m"), n) for p, n, _ in monthly.rows()] == sorted(per_month.items())
        graph = analysis.event_graph(facts, start="2014-03", end="2014-03")
        assert graph["events"].sum() == sum(march.values())
        ((top_pair, top_count),) = march.most_common(1)
        assert graph.select("subject_name", "object_name", "events").row(0) == (*top_pair, top_count)
        exported = frames.to_networkx(kg, during=("2014-03", "2014-03"))
        snapshot = analysis.snapshots(facts, at="period", start="2014-03", end="2014-03").row(0, named=True)
        assert exported.number_of_edges() == snapshot["edges"] == sum(march.values())
        assert exported.number_of_nodes() == snapshot["nodes"] == len({e for pair in march for e in pair})
        assert snapshot["components"] == nx.number_weakly_connected_components(exported)

"""The event rule judges what was written (contract §12): a state fact that ``invalidate`` or ``supersede`` ends on
the day it began keeps its kind; only a fact written with equal bounds (``add`` or an import given both, the event
write rule) is an event by its bounds. Every reading of the rule agrees: the records, the SQL (stats, diff, churn,
conflicts, check), the frames and the analyses on a frame; and every write path keeps what was written (export and
import, the dump's restore and merge, copies)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames, io
from kgtoolkit._records import is_event
from kgtoolkit.store import copy_graph

D = "2026-03-02"


def _chain(kg: KnowledgeGraph) -> None:
    """A same-day supersede chain (api uses A, then B, then C, both switches on D), an add ended by an invalidate
    on the day it began, and two events written with one day as both bounds."""
    kg.configure(single_valued={"uses", "leads"})
    kg.add("api", "uses", "A", valid_from="2026-01-05")
    kg.supersede("api", "uses", "A", "B", at=D)
    kg.supersede("api", "uses", "B", "C", at=D)
    kg.add("team", "leads", "api", valid_from=D)
    kg.invalidate("team", "leads", "api", ended=D)
    kg.add("police", "arrest", "protesters", valid_from=D, valid_to=D)
    kg.add("police", "arrest", "journalists", valid_from=f"{D}T10:00:00Z", valid_to=f"{D}T10:00:00Z")


#: (subject, object) → (kind, state) of the graph :func:`_chain` writes.
CHAIN = {
    ("api", "a"): ("state", "ended"),
    ("api", "b"): ("state", "ended"),
    ("api", "c"): ("state", "current"),
    ("team", "api"): ("state", "ended"),
    ("police", "protesters"): ("event", "occurred"),
    ("police", "journalists"): ("event", "occurred"),
}


def _kinds(kg: KnowledgeGraph) -> dict[tuple[str, str], tuple[str, str]]:
    return {(f.subject, f.object): (f.kind, f.state) for f in kg.timeline()}


def _frame_kinds(frame: pl.DataFrame) -> dict[tuple[str, str], tuple[str, str]]:
    return {(s, o): (k, st) for s, o, k, st in frame.select("subject", "object", "kind", "state").iter_rows()}


def test_a_same_day_supersede_chain_leaves_state_facts(kg: KnowledgeGraph) -> None:
    _chain(kg)
    b = kg.query("api", other="B")[0]
    assert (b.valid_from, b.valid_to) == (D, D) and b.invalidated_at != b.recorded_at  # equal bounds, ended later
    assert (b.kind, b.state, b.to_dict()["kind"]) == ("state", "ended", "state")
    assert kg.fact(b.id).kind == "state"
    assert _kinds(kg) == CHAIN
    facts = frames.facts(kg)
    assert _frame_kinds(facts) == CHAIN  # the polars rendering
    stats = kg.stats()
    assert (stats.events, stats.current, stats.ended) == (2, 1, 3)  # the SQL rendering

    # Diff: two replacements on D and the two events, not "occurred" middles.
    diff = kg.diff(D, D, limit=None)
    assert (diff.replaced, diff.occurred, diff.began, diff.ended) == (2, 2, 1, 1)
    assert [(c.kind, c.old.object if c.old else None, c.new.object if c.new else None) for c in diff.changes] == [
        ("replaced", "a", "b"),
        ("replaced", "b", "c"),
        ("began", None, "api"),  # team leads api: began and ended on D, a state fact
        ("occurred", None, "protesters"),
        ("occurred", None, "journalists"),
        ("ended", "api", None),
    ]
    framed = frames.diff(kg, D, D)
    assert sorted(framed["kind"].to_list()) == sorted(c.kind for c in diff.changes)

    # Churn and events: the engine's answer is the frame's, and counts the two events only.
    for every in ("1mo", "1d"):
        churn = analysis.churn(kg, every=every)
        assert_frame_equal(churn, analysis.churn(facts, every=every))
        assert int(churn["events"].sum()) == 2
        assert int(churn["ended"].sum()) == 3 and int(churn["added"].sum()) == 4
    assert_frame_equal(analysis.events(kg, every="1d"), analysis.events(facts, every="1d"))
    assert int(analysis.events(kg, every="1d")["events"].sum()) == 2
    volatile = analysis.most_volatile(kg)
    assert_frame_equal(volatile, analysis.most_volatile(facts))
    assert volatile.filter(pl.col("entity") == "api").select("events", "ended").row(0) == (0, 3)

    # Conflicts and checks see the chain's state facts (no overlap: each switch day belongs to the next fact).
    assert {f.object for g in kg.conflicts(current_only=False) for f in g.facts} >= {"a", "b", "c"}
    assert [f.code for f in kg.check(codes=["single_valued_overlap", "scheduled_overlap"]).items] == []


def test_the_frame_analyses_read_the_rule_without_a_kind_column(kg: KnowledgeGraph) -> None:
    """A frame without ``kind`` is judged by the rule on its bounds and transaction times."""
    _chain(kg)
    facts = frames.facts(kg)
    bare = facts.drop("kind", "state", "current")
    assert_frame_equal(analysis.churn(bare, every="1d"), analysis.churn(facts, every="1d"))
    assert_frame_equal(analysis.events(bare, every="1d"), analysis.events(facts, every="1d"))
    # Without transaction times, equal bounds are all there is to judge by: every one-day fact is an event.
    undated = bare.drop("recorded_at", "invalidated_at")
    assert int(analysis.events(undated, every="1d")["events"].sum()) == 4


def test_the_rule_is_one_rule_on_values_and_expressions() -> None:
    rows = [
        (D, D, "t1", "t1"),  # written with its end: an event
        (D, D, "t1", "t2"),  # ended later: a state
        (D, D, "t1", None),  # no end recorded at all (a frame without transaction times)
        (D, "2026-03-03", "t1", "t1"),
        (None, None, "t1", None),
    ]
    frame = pl.DataFrame(rows, schema=["vf", "vt", "rec", "inv"], orient="row")
    polars = frame.select(
        is_event(pl.lit(False), pl.lit(False), pl.col("vf"), pl.col("vt"), pl.col("rec"), pl.col("inv")).fill_null(
            False
        )
    ).to_series()
    assert polars.to_list() == [is_event(False, False, *row) for row in rows] == [True, False, True, False, False]


def test_an_event_graph_writes_events_and_its_corrections_too(kg: KnowledgeGraph) -> None:
    """The event write rule ends an occurrence on its start: written so, an event by its bounds, also after the
    graph is undeclared."""
    kg.configure(events=True)
    kg.add("rebels", "attacked", "convoy", valid_from=D)
    kg.configure(events=False)
    assert _kinds(kg) == {("rebels", "convoy"): ("event", "occurred")}
    assert kg.stats().events == 1


def _icews_like(path: Path, *, recorded: bool = False) -> None:
    header = ["subject", "predicate", "object", "valid_from", "valid_to"] + (["recorded_at"] if recorded else [])
    moment = ["2025-06-01T00:00:00Z"] if recorded else []
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t")
        writer.writerow(header)
        writer.writerow(["Police (Australia)", "Arrest, detain, or charge", "Women (Australia)", D, D, *moment])
        writer.writerow(["Caitlin Hayden", "Make an appeal or request", "South Sudan", D, D, *moment])
        writer.writerow(
            ["Caitlin Hayden", "Make an appeal or request", "South Sudan", "2026-03-03", "2026-03-03", *moment]
        )
        writer.writerow(["Barack Obama", "Host a visit", "Raúl Castro", "2026-03-01", "2026-03-05", *moment])


def test_an_import_of_icews_rows_keeps_them_events(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """An ICEWS-like file (one day as both bounds, no event configuration) imports as events, with or without the
    transaction times of another graph (an ended row with a recorded_at and no invalidated_at was written whole)."""
    for recorded in (False, True):
        path = tmp_path / f"icews-{recorded}.tsv"
        _icews_like(path, recorded=recorded)
        with kgtoolkit.open(":memory:") as other:
            assert io.import_file(other, path, allow_commas=True).inserted == 4
            kinds = sorted(f.kind for f in other.timeline())
            assert kinds == ["event", "event", "event", "state"], recorded
            assert other.stats().events == 3
    io.import_file(kg, tmp_path / "icews-True.tsv", allow_commas=True)
    written = kg.query("Caitlin Hayden")[0]
    assert written.recorded_at == written.invalidated_at == "2025-06-01T00:00:00.000000Z"
    assert kg.stats().events == 3


def test_an_export_imports_back_with_its_kinds(
    kg: KnowledgeGraph, tmp_path: Path, new_db: Callable[[str], Path | str]
) -> None:
    """Every way a graph leaves and comes back keeps the kinds: an export of each format imported into a new graph,
    the dump restored and merged, a copy and a copy merged into a graph that has facts."""
    _chain(kg)
    want = _kinds(kg)
    for suffix in ("csv", "tsv", "jsonl", "parquet", "json"):
        path = tmp_path / f"out.{suffix}"
        io.export_file(kg, path)
        with kgtoolkit.open(new_db(suffix)) as back:
            io.import_file(back, path, allow_commas=True)
            assert _kinds(back) == want, suffix
            assert back.stats().events == 2
    with kgtoolkit.open(new_db("merged")) as merged:  # a dump merged into a graph that is not empty
        merged.add("someone", "knows", "else")
        io.import_file(merged, tmp_path / "out.json")
        assert {k: v for k, v in _kinds(merged).items() if k[0] != "someone"} == want
    with kgtoolkit.open(new_db("copy")) as copy:
        copy_graph(kg, copy)
        assert _kinds(copy) == want
    with kgtoolkit.open(new_db("copy-merged")) as copy:
        copy.add("someone", "knows", "else")
        copy_graph(kg, copy, merge=True)
        assert {k: v for k, v in _kinds(copy).items() if k[0] != "someone"} == want


def test_merge_and_rename_keep_the_kinds(kg: KnowledgeGraph) -> None:
    _chain(kg)
    kg.merge("B", "C")  # b's facts move to c: the same-day middle stays a state fact
    kg.rename_predicate("arrest", "detained")
    kinds = sorted((f.object, f.kind) for f in kg.timeline())
    assert kinds == [
        ("a", "state"),
        ("api", "state"),
        ("c", "state"),
        ("c", "state"),
        ("journalists", "event"),
        ("protesters", "event"),
    ]


def test_an_end_recorded_in_the_microsecond_of_its_fact_still_reads_as_later(kg: KnowledgeGraph) -> None:
    """invalidate never records an end at its fact's own moment, however fast it follows the add."""
    for i in range(30):
        kg.add("x", "p", f"o{i}", valid_from=D)
        fact = kg.invalidate("x", "p", f"o{i}", ended=D)
        assert fact.invalidated_at is not None and fact.invalidated_at > fact.recorded_at
        assert fact.kind == "state"


def test_agents_correcting_facts_all_day_make_no_events(db_path: Path | str) -> None:
    """The issue's case: agents superseding each other's facts today (the default switch day), each on its own
    handle at once; every middle fact begins and ends today, and none of them is an event."""
    with kgtoolkit.open(db_path) as kg:
        for agent in range(3):
            kg.add(f"service {agent}", "runs_on", "host 0", valid_from="2026-01-01")

    def agent(number: int) -> None:
        with kgtoolkit.open(db_path) as kg:
            for step in range(12):
                kg.supersede(f"service {number}", "runs_on", f"host {step}", f"host {step + 1}")
                if step % 4 == 0:  # and an event written as one, among the corrections
                    kg.add(
                        f"service {number}",
                        "restarted",
                        "ops",
                        valid_from=f"2026-01-{step + 2:02d}",
                        valid_to=f"2026-01-{step + 2:02d}",
                    )

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(agent, range(3)))
    with kgtoolkit.open(db_path) as kg:
        stats = kg.stats()
        assert (stats.events, stats.current, stats.facts) == (9, 3, 3 * 13 + 9)
        middles = [f for f in kg.timeline() if f.predicate == "runs_on" and f.valid_from == f.valid_to]
        assert len(middles) == 3 * 11 and {(f.kind, f.state) for f in middles} == {("state", "ended")}
        assert frames.facts(kg).filter(pl.col("kind") == "event").height == 9
        assert kg.diff("2000", "2999", limit=None).occurred == 9


# ---------------------------------------------------------------------- against a plain model

_OBJECTS = st.sampled_from("xyz")
_DAY = st.sampled_from(["2014-01-01", "2014-01-02"])
_OPS = st.one_of(
    st.tuples(st.just("add"), _OBJECTS, _DAY, st.one_of(st.none(), _DAY)),
    st.tuples(st.just("invalidate"), _OBJECTS, _DAY, st.none()),
    st.tuples(st.just("supersede"), _OBJECTS, _DAY, _OBJECTS),
)


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(_OPS, max_size=10))
def test_a_fact_is_an_event_by_its_bounds_only_when_written_so(ops: list[tuple[str, str, str, str | None]]) -> None:
    """Whatever adds, invalidates and supersedes write, a fact is an event exactly when the add that wrote it gave
    equal bounds; the records, stats, frames and the analyses of a frame all say so."""
    written: dict[int, str] = {}  # fact id → its kind, by the add that wrote it
    with kgtoolkit.open(":memory:") as kg:
        for op, obj, day, other in ops:
            try:
                if op == "add":
                    end = other if other is None or other >= day else day
                    result = kg.add("s", "p", obj, valid_from=day, valid_to=end)
                    if result.created:
                        written[result.fact.id] = "event" if end == day else "state"
                elif op == "invalidate":
                    kg.invalidate("s", "p", obj, ended=day)
                else:
                    new = kg.supersede("s", "p", obj, str(other), at=day).new
                    written.setdefault(new.id, "state")
            except kgtoolkit.KGError:
                continue  # nothing current to end, an end before the start, the same object: nothing changed
        facts = kg.timeline()
        assert {f.id: f.kind for f in facts} == written
        frame = frames.facts(kg)
        assert dict(zip(frame["id"].to_list(), frame["kind"].to_list(), strict=True)) == written
        events = sum(k == "event" for k in written.values())
        assert kg.stats().events == events
        if written:
            assert int(analysis.events(frame.drop("kind"), every="1d")["events"].sum()) == events
            assert_frame_equal(analysis.churn(kg, every="1d"), analysis.churn(frame, every="1d"))

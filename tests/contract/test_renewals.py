"""Renewals (issue 43, contract §11 and §12): back-to-back intervals of the same triple (one ends the day the next
begins, or the day before) read as one continuing fact in diff, churn and the churn report, on both engines;
``renewals=False`` (CLI ``--no-renewals``) gives the raw view, every end and start apart."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bounds import end_of, start_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from real_graphs import RealGraph
from shared_data import DATA
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import Diff, Fact, KGError, KnowledgeGraph, analysis, frames, run_tool
from kgtoolkit.cli import app
from kgtoolkit.report import churn_report
from kgtoolkit.store.ops._diff import diff as store_diff

DAY = dt.timedelta(days=1)


def terms(kg: KnowledgeGraph) -> None:
    """A terms-of-office graph whose January 2023 holds every kind of change."""
    seat = "holds_seat"
    kg.add("Ann", seat, "District 1", valid_from="2021-01-03", valid_to="2023-01-03")
    kg.add("Ann", seat, "District 1", valid_from="2023-01-03")  # re-elected: the new term starts on the last day
    kg.add("Bob", seat, "District 2", valid_from="2021-01-03", valid_to="2023-01-02")
    kg.add("Bob", seat, "District 2", valid_from="2023-01-03")  # re-elected: the day after
    kg.add("Hal", seat, "District 8", valid_from="2021-01-01", valid_to="2022-12-31")
    kg.add("Hal", seat, "District 8", valid_from="2023-01-01")  # renewed on the window's first day
    kg.add("Cy", seat, "District 3", valid_from="2021-01-03", valid_to="2023-01-02")
    kg.add("Cy", seat, "District 4", valid_from="2023-01-03")  # another seat: a replacement, not a renewal
    kg.add("Di", seat, "District 5", valid_from="2021-01-03", valid_to="2023-01-02")
    kg.add("Di", seat, "District 5", valid_from="2023-01-05")  # two days out of office: an end and a start
    kg.add("Ed", seat, "District 6", valid_from="2023-01-03")  # a new member
    kg.add("Fay", seat, "District 7", valid_from="2019-01-03", valid_to="2023-01-02")  # retired
    kg.add("Ivy", seat, "District 9", valid_from="2021-02-01", valid_to="2023-01-31")
    kg.add("Ivy", seat, "District 9", valid_from="2023-02-01")  # renewed the day after the window


def counts(found: Diff) -> tuple[int, int, int, int, int, int]:
    return found.total, found.began, found.ended, found.replaced, found.renewed, found.occurred


def test_a_renewal_month_counts_renewals_apart(kg: KnowledgeGraph) -> None:
    terms(kg)
    month = kg.diff("2023-01", "2023-01", limit=None)
    assert counts(month) == (8, 2, 2, 1, 3, 0)
    renewed = [c for c in month.changes if c.kind == "renewed"]
    assert [(c.at, c.subject) for c in renewed] == [("2023-01-01", "hal"), ("2023-01-03", "ann"), ("2023-01-03", "bob")]
    for c in renewed:  # old → new of one triple; Hal's old term ended before the window
        assert c.old is not None and c.new is not None and c.at == c.new.valid_from
        assert (c.old.subject, c.old.predicate, c.old.object) == (c.new.subject, c.new.predicate, c.new.object)
    assert {(c.kind, c.subject) for c in month.changes if c.kind in ("began", "ended")} == {
        ("began", "di"),
        ("began", "ed"),
        ("ended", "di"),
        ("ended", "fay"),
    }  # Ivy's end on the 31st is no change: her next term starts the day after
    # The raw view: today's answer, every end and start apart.
    raw = kg.diff("2023-01", "2023-01", limit=None, renewals=False)
    assert counts(raw) == (11, 5, 5, 1, 0, 0)
    assert not [c for c in raw.changes if c.kind == "renewed"]
    # Ivy's renewal is February's change; by transaction time nothing renews here (everything was recorded at once).
    assert counts(kg.diff("2023-02", "2023-02")) == (1, 0, 0, 0, 1, 0)
    assert kg.diff("2000", "2999", by="known").renewed == 0
    # Each door gives the same answer: the frame and the agent tool.
    frame = frames.diff(kg, "2023-01", "2023-01")
    assert frame["kind"].to_list() == [c.kind for c in month.changes]
    assert frames.diff(kg, "2023-01", "2023-01", renewals=False)["kind"].to_list() == [c.kind for c in raw.changes]
    for options, want in (({}, month), ({"renewals": False}, raw)):
        answer = json.loads(
            json.dumps(run_tool(json.dumps({"action": "diff", "from": "2023-01", "to": "2023-01", **options}), kg=kg))
        )
        assert answer["ok"] and answer["result"]["renewed"] == want.renewed and answer["result"]["began"] == want.began


def test_the_cli_shows_renewals_and_the_raw_view(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg:
        terms(kg)
    runner = CliRunner()
    shown = runner.invoke(app, ["--db", str(db_path), "diff", "--from", "2023-01", "--to", "2023-01"])
    assert shown.exit_code == 0, shown.output
    assert "3 renewed" in shown.stdout and "renewed" in shown.stdout.split("\n", 1)[1]
    for flag, (began, renewed) in (([], (2, 3)), (["--no-renewals"], (5, 0))):
        answer = runner.invoke(
            app, ["--db", str(db_path), "--json", "diff", "--from", "2023-01", "--to", "2023-01", *flag]
        )
        assert answer.exit_code == 0, answer.output
        result = json.loads(answer.stdout)
        assert (result["began"], result["renewed"]) == (began, renewed)


def test_churn_counts_renewals_apart_on_both_paths(kg: KnowledgeGraph) -> None:
    terms(kg)
    facts = frames.facts(kg)
    for by, renewals in itertools.product((None, "predicate", "subject"), (True, False)):
        for every in ("1mo", "1d", "1y"):
            assert_frame_equal(
                analysis.churn(kg, every=every, by=by, renewals=renewals),  # type: ignore[arg-type]
                analysis.churn(facts, every=every, by=by, renewals=renewals),  # type: ignore[arg-type]
            )
    monthly = analysis.churn(kg, since="2022-12", until="2023-02")
    columns = ["added", "ended", "renewed", "active_at_start", "active_at_end"]
    # December: Hal's end is continued the next day; January: Ann, Bob and Hal renewed (Cy's new seat is added, his
    # old one ended); February: Ivy renewed. Nobody renewed is ever out of office.
    assert monthly.select(columns).rows() == [(0, 0, 0, 7, 7), (3, 3, 3, 7, 7), (0, 0, 1, 7, 7)]
    assert monthly["churn_rate"].to_list()[1] == pytest.approx(6 / 7)
    raw = analysis.churn(kg, since="2022-12", until="2023-02", renewals=False)
    assert raw.select(columns).rows() == [(0, 1, 0, 7, 6), (6, 6, 0, 6, 6), (1, 0, 0, 6, 7)]


def test_events_never_renew(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"visited"})
    kg.add("Ann", "met", "Bob", valid_from="2023-01-02", valid_to="2023-01-02")  # events by their bounds
    kg.add("Ann", "met", "Bob", valid_from="2023-01-03", valid_to="2023-01-03")
    kg.add("Ann", "visited", "Oslo", valid_from="2023-01-01", valid_to="2023-01-04")  # a declared event predicate
    kg.add("Ann", "visited", "Oslo", valid_from="2023-01-05", valid_to="2023-01-09")
    kg.add("Cy", "holds_seat", "District 3", valid_from="2023-01-05", valid_to="2023-01-05")  # an event …
    kg.add("Cy", "holds_seat", "District 3", valid_from="2023-01-06")  # … then a state: it began
    month = kg.diff("2023-01", "2023-01", limit=None)
    assert counts(month) == (6, 1, 0, 0, 0, 5)
    assert counts(kg.diff("2023-01", "2023-01", renewals=False)) == counts(month)
    for table in (kg, frames.facts(kg)):
        churned = analysis.churn(table, every="1d")
        assert churned["renewed"].sum() == 0 and churned["events"].sum() == 5 and churned["added"].sum() == 1


# ---------------------------------------------------------------------- properties

DAYS = ["2024-01-29", "2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02", "2024-02-03", "2024-02-29", None]
rows = st.lists(
    st.tuples(
        st.sampled_from(["api", "web"]),
        st.sampled_from(["uses", "email", "met"]),  # email: a value; met: an event predicate when declared
        st.sampled_from(["redis", "Redis", "sqlite"]),
        st.sampled_from(DAYS),
        st.one_of(st.sampled_from(DAYS), st.just("same")),
    ),
    max_size=14,
)
PROPERTIES = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_graphs = itertools.count()


def reference(facts: list[Fact]) -> dict[int, int]:
    """Old id → new id of the renewals, from the definition (contract §11): state facts of one triple, the new one
    starting on the old one's last day or the day after (not before the old one started), each the other's
    closest (the distance from the old end to the new start, then the lower id)."""
    triples: dict[tuple[Any, ...], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.kind == "state":
            key = f.object.casefold() if f.object_is_value else f.object
            triples[(f.subject, f.predicate, f.object_is_value, key)].append(f)
    candidates = []
    for members in triples.values():
        for old, new in itertools.permutations(members, 2):
            old_start, old_end, new_start = start_of(old.valid_from), end_of(old.valid_to), start_of(new.valid_from)
            if old_end is None or new_start is None or not old_end - DAY < new_start <= old_end + DAY:
                continue
            if old_start is None or new_start >= old_start:
                candidates.append((abs(old_end - new_start), old.id, new.id))
    best_new = {old: new for _, old, new in sorted(candidates, reverse=True)}  # the closest written last
    best_old = {new: old for _, old, new in sorted(candidates, key=lambda c: (c[0], c[2], c[1]), reverse=True)}
    return {old: new for old, new in best_new.items() if best_old[new] == old}


@PROPERTIES
@given(
    facts=rows,
    declared=st.booleans(),
    window=st.sampled_from([("2024-01-31", "2024-02-01"), ("2024-02", "2024-02"), ("2024-01-30", "2024-02-02")]),
)
def test_renewals_regroup_the_raw_view(
    new_db: Callable[[str], Path | str], facts: list[tuple[str, str, str, Any, Any]], declared: bool, window: Any
) -> None:
    """Each renewal takes one start out of began (and a replacement it made in the raw view) and one end out of ended;
    the engine and the Python pairing agree in both views, and the diff of everything renews what churn renews."""
    with kgtoolkit.open(new_db(f"renewals{next(_graphs)}")) as kg:
        kg.configure(value_predicates={"email"}, **({"event_predicates": {"met"}} if declared else {}))
        for subject, predicate, obj, start, end in facts:
            try:
                kg.add(subject, predicate, obj, valid_from=start, valid_to=start if end == "same" else end)
            except KGError:
                pass  # an end before its start, or the same current fact twice: refused
        views = {}
        for renewals in (True, False):
            with kg._read() as cur:
                found = [
                    store_diff(
                        cur,
                        kg.engine.dialect,
                        *window,
                        entity=None,
                        predicates=None,
                        by="valid",
                        limit=None,
                        offset=0,
                        in_engine=in_engine,
                        renewals=renewals,
                    )
                    for in_engine in (True, False)
                ]
            assert found[0].to_dict() == found[1].to_dict()
            views[renewals] = found[0]
        default, raw = views[True], views[False]
        starts = {c.new.id for c in default.changes if c.kind == "renewed" and c.new is not None}
        # Every fact that started in the window is counted once in each view: began, replaced or renewed.
        assert (
            raw.began + raw.replaced
            == default.began + default.replaced + default.renewed
            == len({c.new.id for c in raw.changes if c.kind in ("began", "replaced") and c.new is not None})
        )
        assert raw.occurred == default.occurred and raw.renewed == 0 and len(starts) == default.renewed
        ends_raw = raw.ended + raw.replaced
        assert default.ended + default.replaced <= ends_raw
        # The renewals are those of the definition, and the diff of everything renews what churn counts.
        pairs = reference(kg.timeline(limit=None))
        everything = kg.diff("0001", "9999", limit=None)
        assert sorted((c.old.id, c.new.id) for c in everything.changes if c.kind == "renewed" and c.old and c.new) == (
            sorted(pairs.items())
        )
        table = frames.facts(kg)
        for source in (kg, table):
            continuing = analysis.churn(source, every="1d")
            plain = analysis.churn(source, every="1d", renewals=False)
            assert continuing["renewed"].sum() == len(pairs) == everything.renewed
            assert continuing["added"].sum() + len(pairs) == plain["added"].sum()
            assert continuing["ended"].sum() + len(pairs) == plain["ended"].sum()
            if continuing.height:  # the same facts are active once everything has happened
                assert continuing["active_at_end"][-1] == plain["active_at_end"][-1]
        for by in ("predicate", "subject"):
            assert_frame_equal(analysis.churn(kg, every="1d", by=by), analysis.churn(table, every="1d", by=by))  # type: ignore[arg-type]


# ---------------------------------------------------------------------- real data

WIKIDATA = DATA / "wikidata12k" / "facts.tsv"


@pytest.mark.slow
def test_wikidata12k_renewals_are_counted_apart(real_graph: Callable[..., RealGraph], tmp_path: Path) -> None:
    """WIKIDATA12k's yearly facts hold renewals (a membership or position 2009 … 2010, again 2011 … 2012; a
    nomination one year, the same the next): churn, diff and the report count them apart. (YAGO11k has none: no
    triple of it starts on or the day after the end of the same triple.)"""
    if not WIKIDATA.is_file():
        pytest.skip(f"WIKIDATA12k not found at {WIKIDATA} (the shared data folder is absent)")
    with kgtoolkit.open(real_graph("wikidata12k", allow_commas=True, on_error="skip").db) as kg:
        pairs = reference(kg.timeline(limit=None))
        assert len(pairs) > 2_000  # 2,451 candidate pairs in the file; each fact renews at most once
        yearly = analysis.churn(kg, every="1y")
        plain = analysis.churn(kg, every="1y", renewals=False)
        assert_frame_equal(yearly, analysis.churn(frames.facts(kg), every="1y"))
        assert yearly["renewed"].sum() == len(pairs)
        assert (
            plain["added"].sum() - yearly["added"].sum() == len(pairs) == plain["ended"].sum() - yearly["ended"].sum()
        )
        window = ("2010", "2010")
        year = kg.diff(*window, limit=0)
        raw = kg.diff(*window, limit=0, renewals=False)
        in_year = sum(1 for new in pairs.values() if kg.fact(new).valid_from.startswith("2010"))  # type: ignore[union-attr]
        assert year.renewed == in_year > 0 and raw.began + raw.replaced == year.began + year.replaced + year.renewed
        _, markdown = churn_report(kg, every="1y", out=tmp_path / "w.html")
        summary = markdown.read_text(encoding="utf-8")
        assert f"- **renewed in the window (back to back: neither added nor ended)**: {len(pairs):,}" in summary
        assert "| renewed |" in summary.replace("| ended | renewed |", "| renewed |")


def test_the_report_and_the_dashboard_show_renewals(kg: KnowledgeGraph, tmp_path: Path) -> None:
    from kgtoolkit.dashboard import data

    terms(kg)
    _, markdown = churn_report(kg, since="2022-12", until="2023-02", out=tmp_path / "terms.html")
    summary = markdown.read_text(encoding="utf-8")
    assert "- **renewed in the window (back to back: neither added nor ended)**: 4" in summary
    assert "- **added in the window**: 3" in summary and "- **ended in the window (to date)**: 3" in summary
    assert "| period | added | ended | renewed | net | active at start | churn rate |" in summary
    assert (
        "| 2023-01 | 3 | 3 | 3 | 0 | 7 | 85.7% |" in summary
        and "| 2023-02 (partial) | 0 | 0 | 1 | 0 | 7 | 0.0% |" in summary
    )  # the data end in it
    _, raw = churn_report(kg, since="2022-12", until="2023-02", out=tmp_path / "raw.html", renewals=False)
    assert "- **added in the window**: 7" in raw.read_text(encoding="utf-8")
    assert "| period | added | ended | net |" in raw.read_text(encoding="utf-8")  # no renewals: no column
    tables = data.churn(
        kg, kg.predicate_labels(), every="1mo", since="2022-12-01", until="2023-02-28", top=5, multi_valued=()
    )
    assert (tables.added, tables.ended, tables.renewed, tables.net) == (3, 3, 4, 0)

"""analysis.churn_to_date and its companions (issue 45): what happened told from what is scheduled after today,
partial periods marked, the change headlined only from whole periods, bursts, what kind of graph it is. Both
engines; the graph (counted in the engine) and its frame give the same answer."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit.report import churn_report

NOW = dt.datetime(2026, 6, 15, 12, tzinfo=dt.UTC)


def _terms(kg: KnowledgeGraph) -> None:
    """Terms of office: some ended, some running to a planned end after NOW, one starting after it."""
    kg.add("Ann", "holds", "Seat 1", valid_from="2020-01-01", valid_to="2024-12-31")
    kg.add("Bob", "holds", "Seat 1", valid_from="2025-01-01", valid_to="2026-06-10")  # ended this month
    kg.add("Cy", "holds", "Seat 2", valid_from="2022-03-01", valid_to="2026-06-20")  # ends this month, after NOW
    kg.add("Di", "holds", "Seat 3", valid_from="2023-05-01", valid_to="2031-01-01")  # ends years later
    kg.add("Ed", "holds", "Seat 1", valid_from="2026-09-01")  # starts later


def test_ends_after_today_are_scheduled_not_ended(kg: KnowledgeGraph) -> None:
    _terms(kg)
    table = analysis.churn_to_date(kg, every="1mo", now=NOW)
    assert_frame_equal(table, analysis.churn_to_date(frames.facts(kg), every="1mo", now=NOW))  # the twin
    assert table["period"].max() == dt.datetime(2026, 6, 1, tzinfo=dt.UTC)  # the default window ends today
    june = table.filter(pl.col("period") == dt.datetime(2026, 6, 1, tzinfo=dt.UTC)).row(0, named=True)
    assert (june["ended"], june["scheduled_ended"], june["partial"]) == (1, 1, True)  # Bob ended, Cy is to end
    ended = [f for f in kg.timeline() if f.valid_to is not None and f.valid_to <= "2026-06-15"]
    assert int(table["ended"].sum()) == len(ended) == 2
    assert int(table["added"].sum()) == 4 and int(table["scheduled_added"].sum()) == 0  # Ed is outside the window
    assert table.filter(pl.col("partial"))["period"].to_list() == [june["period"]]
    assert analysis.scheduled_totals(kg, now=NOW) == {"added": 1, "ended": 2, "events": 0}  # Cy and Di; Ed
    assert analysis.scheduled_totals(frames.facts(kg), now=NOW) == analysis.scheduled_totals(kg, now=NOW)


def test_a_window_past_today_shows_what_is_scheduled(kg: KnowledgeGraph) -> None:
    _terms(kg)
    table = analysis.churn_to_date(kg, every="1y", since="2020", until="2031", now=NOW)
    assert_frame_equal(table, analysis.churn_to_date(frames.facts(kg), every="1y", since="2020", until="2031", now=NOW))
    by_year = {r["period"].year: r for r in table.iter_rows(named=True)}
    assert (by_year[2026]["ended"], by_year[2026]["scheduled_ended"], by_year[2026]["scheduled_added"]) == (1, 1, 1)
    assert (by_year[2031]["ended"], by_year[2031]["scheduled_ended"]) == (0, 1)  # Di: scheduled, not ended
    assert int(table["ended"].sum()) == 2 and int(table["scheduled_ended"].sum()) == 2
    plain = analysis.churn(kg, every="1y", since="2020", until="2031")
    assert (table["ended"] + table["scheduled_ended"]).to_list() == plain["ended"].to_list()  # nothing lost
    assert [p.year for p in table.filter(pl.col("partial"))["period"]] == list(range(2026, 2032))


def test_a_partial_period_never_headlines_a_change(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """Events to the 10th of the last month: that month is partial, so the change is the month before's."""
    for day in ("2014-01-05", "2014-01-20", "2014-02-03", "2014-02-04", "2014-02-05", "2014-03-10"):
        kg.add("China", "criticize", "Japan", valid_from=day, valid_to=day)
    table = analysis.churn_to_date(kg, every="1mo", since="2014-01-01", now=NOW)
    assert table["partial"].to_list() == [False, False, True]  # data to 2014-03-10
    assert table["events_change"][-1] == -2  # what churn says of March …
    assert analysis.last_full_change(table) == (dt.datetime(2014, 2, 1, tzinfo=dt.UTC), 1)  # … is not headlined
    html_path, md_path = churn_report(kg, since="2014-01-01", out=tmp_path / "r.html", now=NOW)
    summary, page = md_path.read_text(encoding="utf-8"), html_path.read_text(encoding="utf-8")
    assert "- **events in 2014-02 vs the period before**: +1" in summary
    assert not re.search(r"(?<![\w/.-])-2\b", summary)  # no change of -2 anywhere (the graph's path may hold "-2")
    assert "| 2014-03 (partial) | 1 | – |" in summary
    # A number column's header is right-aligned over its numbers (it sat over the wrong column, left-aligned).
    assert '<th>period</th><th class="num">events</th><th class="num">change on the period before</th>' in page
    assert '<td>2014-03 (partial)</td><td class="num">1</td><td class="num">–</td>' in page
    for absent in ("added", "ended", "current", "conflicts"):  # an event graph: no state tiles
        assert f'id="stat-{absent}"' not in page


def test_graph_kind_and_bursts() -> None:
    kg = kgtoolkit.open(":memory:")
    assert analysis.graph_kind(kg.stats()) == "states"
    kg.add("a", "met", "b", valid_from="2014-01-02", valid_to="2014-01-02")
    assert analysis.graph_kind(kg.stats()) == "events"
    kg.add("a", "lives_in", "c", valid_from="2014-01-02")
    assert analysis.graph_kind(kg.stats()) == "mixed"
    volume = pl.DataFrame(
        {
            "period": [dt.datetime(2014, m, 1, tzinfo=dt.UTC) for m in range(1, 11)],
            "events": [10, 11, 9, 10, 40, 10, 12, 9, 10, 90],
            "partial": [False] * 9 + [True],
        }
    )
    found = analysis.bursts(volume)
    assert found["events"].to_list() == [40]  # the partial last month is never a burst
    assert analysis.bursts(volume.with_columns(pl.lit(0).alias("events"))).height == 0
    sparse = volume.with_columns(pl.Series("events", [0, 0, 0, 0, 3, 0, 0, 0, 0, 0]))
    assert analysis.bursts(sparse).height == 0  # empty most of the time: no bursts


@pytest.mark.parametrize("name", ["icews14", "yago11k"])
def test_on_real_data(tmp_path: Path, name: str) -> None:
    """ICEWS14 is a graph of events (every month whole, the change of December headlined); YAGO11k of states, read
    to today, the graph and its frame agreeing."""
    source = DATA / name / "facts.tsv"
    if not source.exists():
        pytest.skip(f"{name} not found at {source} (the shared data folder is absent)")
    from kgtoolkit.store import import_facts

    kg = kgtoolkit.open(tmp_path / f"{name}.sqlite3")
    import_facts(
        kg, pl.read_csv(source, separator="\t", infer_schema=False, quote_char=None), on_error="skip", allow_commas=True
    )
    table = analysis.churn_to_date(kg, every="1y")  # today: as kg.stats() counts
    assert_frame_equal(table, analysis.churn_to_date(frames.facts(kg), every="1y"))
    stats = kg.stats()
    if name == "icews14":
        assert analysis.graph_kind(stats) == "events"
        monthly = analysis.churn_to_date(kg, every="1mo", now=NOW)
        assert monthly.height == 12 and not monthly["partial"].any()
        assert analysis.last_full_change(monthly) == (dt.datetime(2014, 12, 1, tzinfo=dt.UTC), -1143)
        assert int(monthly["events"].sum()) == stats.events
    else:
        assert analysis.graph_kind(stats) == "mixed"
        assert table["period"].max().year == dt.datetime.now(dt.UTC).year  # to date, not to the last planned year
        assert int(table["ended"].sum()) == stats.ended
        starts = sum(1 for f in kg.timeline() if f.kind == "state" and f.state == "scheduled")
        assert analysis.scheduled_totals(kg)["added"] == starts
    kg.close()

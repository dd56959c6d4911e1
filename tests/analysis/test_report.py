"""kgtoolkit.report.churn_report: self-contained HTML + Markdown, numbers checked independently."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import polars as pl
import pytest
from shared_data import DATA
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit._demo import build_demo
from kgtoolkit.cli import app
from kgtoolkit.report import churn_report

YAGO = DATA / "yago11k" / "facts.tsv"
EVIL = "<img src=x onerror=alert(1)> | Evil"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TOO_MANY_DAYS = (
    "every '1d' makes 3,651,694 periods from 0001-01-01 to 9998-12-31, more than the 100,000 a churn "
    "table holds; choose a longer every (such as '3mo') or a shorter window with since/until"
)


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[KnowledgeGraph]:
    kg = build_demo(tmp_path / "demo.sqlite3")
    yield kg
    kg.close()


def day(text: str | None, *, end: bool = False) -> dt.datetime | None:
    """A stored bound as a UTC datetime (the graphs here use date-only bounds)."""
    if text is None:
        return None
    moment = dt.datetime.combine(dt.date.fromisoformat(text[:10]), dt.time(), dt.UTC)
    return moment + dt.timedelta(days=1, microseconds=-1) if end else moment


def stat(page: str, name: str) -> str:
    match = re.search(rf'id="stat-{name}"><span class="value">([^<]*)</span>', page)
    assert match, f"no headline number {name}"
    return html.unescape(match.group(1))


def assert_offline(page: str) -> None:
    assert "<script" not in page.lower()
    assert "<link" not in page.lower() and "@import" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//", page, re.I)
    assert all(src.startswith("data:image/png;base64,") for src in re.findall(r'src="([^"]*)"', page))


def top_entity(kg: KnowledgeGraph) -> str:
    """The entity, on either side of its facts, with most starts + ends (ties: smallest id), from the records."""
    changes: Counter[str] = Counter()
    names: dict[str, str] = {}
    for f in kg.timeline():
        sides = [(f.subject, f.subject_name)]
        if not f.object_is_value and f.object != f.subject:
            sides.append((f.object, f.object_name))
        for entity, name in sides:
            changes[entity] += (f.valid_from is not None) + (f.valid_to is not None)
            names[entity] = name
    best = min(changes, key=lambda s: (-changes[s], s))
    return names[best]


def test_report_files_and_headline(demo: KnowledgeGraph, tmp_path: Path) -> None:
    html_path, md_path = churn_report(demo, out=tmp_path / "out" / "churn.html")
    assert html_path == tmp_path / "out" / "churn.html" and md_path == tmp_path / "out" / "churn.md"
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert_offline(page)
    assert page.count("data:image/png;base64,") == 2  # per-period chart, per-predicate chart

    facts = demo.timeline()
    assert stat(page, "facts") == f"{len(facts):,}"
    assert stat(page, "current") == f"{sum(f.current for f in facts):,}"
    added = sum(f.valid_from is not None for f in facts)
    ended = sum(f.valid_to is not None for f in facts)
    assert stat(page, "added") == f"{added:,}" and stat(page, "ended") == f"{ended:,}"
    assert stat(page, "net") == f"{added - ended:+,}"
    needing = [g for g in demo.conflicts() if g.needs_action]
    assert stat(page, "conflicts") == str(len(needing))
    assert stat(page, "entities") == str(len(demo.entities()))
    for label, value in (
        ("facts", len(facts)),
        ("added in the window", added),
        ("ended in the window (to date)", ended),
    ):
        assert f"- **{label}**: {value:,}" in summary

    name = top_entity(demo)
    assert stat(page, "top-entity") == name
    section = summary.split("## Most volatile entities", 1)[1].split("##", 1)[0]
    assert section.strip().splitlines()[2].startswith(f"| {name} |")
    conflicts = summary.split("## Open conflicts needing action", 1)[1]
    for g in needing:
        assert g.subject_name in conflicts


def test_report_window(demo: KnowledgeGraph, tmp_path: Path) -> None:
    html_path, md_path = churn_report(demo, since="2026-01-15", until="2026-06", out=tmp_path / "w.html")
    page = html_path.read_text(encoding="utf-8")
    lo = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)  # whole periods: January … June 2026
    hi = dt.datetime(2026, 7, 1, tzinfo=dt.UTC)
    facts = demo.timeline()
    added = sum(1 for f in facts if (s := day(f.valid_from)) is not None and lo <= s < hi)
    ended = sum(1 for f in facts if (e := day(f.valid_to, end=True)) is not None and lo <= e < hi)
    assert (stat(page, "added"), stat(page, "ended")) == (str(added), str(ended))
    assert "window 2026-01-01 … 2026-06-30" in md_path.read_text(encoding="utf-8")


def test_report_escapes_names(tmp_path: Path) -> None:
    kg = kgtoolkit.open(tmp_path / "evil.sqlite3")
    kg.add(EVIL, "uses", "<b>bold</b>", valid_from="2026-01-01")
    kg.supersede(EVIL, "uses", "<b>bold</b>", "a&b", at="2026-02-01")
    kg.add(EVIL, "uses", "<i>x</i>", valid_from="2026-03-01")  # two current objects: an open conflict
    html_path, md_path = churn_report(kg, out=tmp_path / "evil.html", title="<script>alert(2)</script>")
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert_offline(page)
    for raw in (EVIL, "<b>bold</b>", "<i>x</i>", "<script>"):
        assert raw not in page
    assert html.escape(EVIL) in page and "a&amp;b" in page
    assert stat(page, "top-entity") == EVIL
    assert "\\<img src=x onerror=alert(1)\\> \\| Evil" in summary  # escaped for a Markdown table
    kg.close()


def test_report_empty_graph(tmp_path: Path) -> None:
    kg = kgtoolkit.open(tmp_path / "empty.sqlite3", create=True)
    html_path, md_path = churn_report(kg, out=tmp_path / "empty.html")
    page = html_path.read_text(encoding="utf-8")
    assert_offline(page)
    assert stat(page, "facts") == "0" and "base64" not in page
    assert "no activity" in md_path.read_text(encoding="utf-8")
    with pytest.raises(kgtoolkit.InvalidRequest):
        churn_report(kg, out=tmp_path / "report.md")
    kg.close()


def test_report_yago(tmp_path: Path) -> None:
    if not YAGO.exists():
        pytest.skip(f"YAGO11k not found at {YAGO} (the shared data folder is absent)")
    from kgtoolkit.store import import_facts

    kg = kgtoolkit.open(tmp_path / "yago.sqlite3")
    import_facts(
        kg, pl.read_csv(YAGO, separator="\t", infer_schema=False, quote_char=None), on_error="skip", allow_commas=True
    )
    html_path, md_path = churn_report(kg, every="1y", out=tmp_path / "yago.html")
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert_offline(page)
    facts = kg.timeline()
    assert stat(page, "facts") == f"{len(facts):,}"
    started = [f for f in facts if f.valid_from is not None and f.kind == "state"]
    assert stat(page, "added") == f"{sum(f.state != 'scheduled' for f in started):,}"  # to date: not the planned
    assert stat(page, "scheduled-start") == f"{sum(f.state == 'scheduled' for f in started):,}"
    assert stat(page, "events") == f"{sum(f.kind == 'event' for f in facts):,}"  # one-day facts (contract §12)
    assert stat(page, "conflicts") == f"{sum(g.needs_action for g in kg.conflicts()):,}"
    name = top_entity(kg)
    assert stat(page, "top-entity") == name and f"| {name} |" in summary
    kg.close()


def far_graph(path: Path, *facts: tuple[str, str, str, str, str]) -> KnowledgeGraph:
    kg = kgtoolkit.open(path)
    for subject, predicate, obj, valid_from, valid_to in facts:
        kg.add(subject, predicate, obj, valid_from=valid_from, valid_to=valid_to)
    return kg


@pytest.mark.parametrize(("every", "labels"), [("1y", ("0001", "2026", "9999")), ("10y", ("0001", "2020", "9990"))])
def test_report_at_the_ends_of_time(tmp_path: Path, every: str, labels: tuple[str, str, str]) -> None:
    # Facts from 0001-01-01 and to 9999-12-31 (valid dates): the last period ends in year 10000,
    # past any Python datetime, and a "10y" period holding 0001-01-01 begins in year 0. Their ends are after
    # today: scheduled, not ended; the default window ends today (its period partial).
    kg = far_graph(
        tmp_path / "far.sqlite3",
        ("Ann", "works_at", "Acme", "0001-01-01", "9999-12-31"),
        ("Ann", "lives_in", "Oslo", "2026-03-02", "9999-12-31"),
    )
    now = dt.datetime(2026, 12, 7, tzinfo=dt.UTC)
    first, second, last = labels
    html_path, md_path = churn_report(kg, every=every, out=tmp_path / "now.html", now=now)
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    end = "2026-12-31" if every == "1y" else "2029-12-31"
    assert f"window 0001-01-01 … {end}" in summary
    assert (stat(page, "added"), stat(page, "ended"), stat(page, "net"), stat(page, "scheduled-end")) == (
        "2",
        "0",
        "+2",
        "2",
    )
    assert f"| {second} (partial) |" in summary and f"| {last} " not in summary

    html_path, md_path = churn_report(kg, every=every, until="9999-12-31", out=tmp_path / "far.html", now=now)
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert_offline(page)
    assert page.count("data:image/png;base64,") == 2
    assert "window 0001-01-01 … 9999-12-31" in summary and "window 0001-01-01 … 9999-12-31" in page
    assert (stat(page, "added"), stat(page, "ended"), stat(page, "net")) == ("2", "0", "+2")
    assert stat(page, "top-entity") == "Ann"
    header = "| period | added | ended | net | active at start | churn rate | scheduled to start | scheduled to end |"
    assert header in summary
    begun = " (partial)" if every == "10y" else ""  # a "10y" period holding 0001-01-01 begins before it
    assert f"| {first}{begun} | 1 | 0 | +1 | 0 | – | 0 | 0 |" in summary
    assert f"| {second} (partial) | 1 | 0 | +1 | 1 | 100.0% | 0 | 0 |" in summary
    assert f"| {last} (partial) | 0 | 0 | 0 | 2 | 0.0% | 0 | 2 |" in summary  # after today: scheduled
    kg.close()


def test_report_refuses_too_many_periods(tmp_path: Path) -> None:
    kg = far_graph(tmp_path / "long.sqlite3", ("Ann", "works_at", "Acme", "0001-01-01", "9998-12-31"))
    out = tmp_path / "long.html"
    with pytest.raises(kgtoolkit.InvalidRequest) as caught:
        churn_report(kg, every="1d", until="9998-12-31", out=out)
    assert caught.value.message == TOO_MANY_DAYS and caught.value.data["field"] == "every"
    assert not out.exists() and not out.with_suffix(".md").exists()
    # The suggested period, or a window of the data, gives the report.
    html_path, md_path = churn_report(kg, every="3mo", until="9998-12-31", out=out)
    assert "window 0001-01-01 … 9998-12-31" in md_path.read_text(encoding="utf-8")
    html_path, md_path = churn_report(kg, every="1d", since="2026-01-01", until="2026-12-31", out=out)
    page = html_path.read_text(encoding="utf-8")
    assert "window 2026-01-01 … 2026-12-31" in md_path.read_text(encoding="utf-8")
    assert (stat(page, "added"), stat(page, "ended")) == ("0", "0")
    kg.close()


def test_cli_report_extreme_dates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGTOOLKIT_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    runner = CliRunner()
    far = tmp_path / "far.sqlite3"
    far_graph(far, ("Ann", "works_at", "Acme", "2026-03-02", "9999-12-31")).close()
    result = runner.invoke(app, ["--db", str(far), "report", "--every", "1y", "--out", str(tmp_path / "far.html")])
    assert result.exit_code == 0 and result.exception is None, result.output
    assert "report written to" in " ".join(ANSI.sub("", result.stdout).split())
    assert (tmp_path / "far.html").exists() and (tmp_path / "far.md").exists()

    long = tmp_path / "long.sqlite3"
    far_graph(long, ("Ann", "works_at", "Acme", "0001-01-01", "9998-12-31")).close()
    for every, message in (
        ("1d", TOO_MANY_DAYS),
        ("1h", TOO_MANY_DAYS.replace("'1d' makes 3,651,694", "'1h' makes 87,640,656")),
    ):
        out = tmp_path / f"long-{every}.html"
        result = runner.invoke(
            app, ["--db", str(long), "report", "--every", every, "--until", "9998-12-31", "--out", str(out)]
        )
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert result.stdout == "" and "Traceback" not in result.output
        assert " ".join(ANSI.sub("", result.stderr).split()) == f"error [invalid_request] {message}"
        assert not out.exists()


def test_report_bounds_a_long_history_and_the_markdown_keeps_it_whole(tmp_path: Path) -> None:
    # ICEWS14's most changed (subject, predicate) went through 485 objects: one table cell 15,000 px tall.
    kg = kgtoolkit.open(tmp_path / "long.sqlite3")
    towns = [f"Town{n:02d}" for n in range(20)]
    kg.add("Ann", "lives_in", towns[0], valid_from="2001-01-01")
    for year, (old, new) in enumerate(pairwise(towns), start=2002):
        kg.supersede("Ann", "lives_in", old, new, at=f"{year}-01-01")
    html_path, md_path = churn_report(kg, every="1y", out=tmp_path / "long.html")
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert "Town00 → Town01 → Town02 → … 14 more → Town17 → Town18 → Town19" in page
    assert "the Markdown beside this page lists them whole" in page
    assert " → ".join(towns) in summary and "more →" not in summary
    kg.close()

"""kgtoolkit.report.churn_report: self-contained HTML + Markdown, numbers checked independently."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import kgtoolkit
from kgtoolkit import KnowledgeGraph
from kgtoolkit._demo import build_demo
from kgtoolkit.report import churn_report

SHARED = Path(__file__).resolve().parents[2] / "shared"
YAGO = SHARED / "data" / "yago11k" / "facts.tsv"
EVIL = "<img src=x onerror=alert(1)> | Evil"


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[KnowledgeGraph]:
    kg = build_demo(tmp_path / "demo.sqlite3")
    yield kg
    kg.close()


def day(text: str | None, *, end: bool = False) -> dt.datetime | None:
    """A stored bound as a UTC datetime (the graphs here use date-only bounds)."""
    if text is None:
        return None
    moment = dt.datetime.combine(dt.date.fromisoformat(text[:10]), dt.time(), dt.timezone.utc)
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
    """The subject with most starts + ends (ties: smallest id), from the store's records."""
    changes: Counter[str] = Counter()
    names: dict[str, str] = {}
    for f in kg.timeline():
        changes[f.subject] += (f.valid_from is not None) + (f.valid_to is not None)
        names[f.subject] = f.subject_name
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
    for label, value in (("facts", len(facts)), ("added in the window", added), ("ended in the window", ended)):
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
    lo = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)  # whole periods: January … June 2026
    hi = dt.datetime(2026, 7, 1, tzinfo=dt.timezone.utc)
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
    kg = kgtoolkit.open(tmp_path / "empty.sqlite3")
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
    import_facts(kg, pl.read_csv(YAGO, separator="\t", infer_schema=False, quote_char=None), on_error="skip",
                 allow_commas=True)
    html_path, md_path = churn_report(kg, every="1y", out=tmp_path / "yago.html")
    page, summary = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    assert_offline(page)
    facts = kg.timeline()
    assert stat(page, "facts") == f"{len(facts):,}"
    assert stat(page, "added") == f"{sum(f.valid_from is not None for f in facts):,}"
    assert stat(page, "conflicts") == f"{sum(g.needs_action for g in kg.conflicts()):,}"
    name = top_entity(kg)
    assert stat(page, "top-entity") == name and f"| {name} |" in summary
    kg.close()

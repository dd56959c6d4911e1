"""kgtoolkit.report.ReportOptions: the churn report's options as one checked value, the same at every door."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kgtoolkit import InvalidDate, InvalidRequest, KnowledgeGraph
from kgtoolkit.cli import app
from kgtoolkit.report import ReportOptions, churn_report, write_churn_report

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NOW = "2026-06-15"


def _fill(kg: KnowledgeGraph) -> None:
    kg.add("Ada", "works_at", "Acme", valid_from="2025-01-10", valid_to="2026-02-01")
    kg.add("Ada", "works_at", "Bolt", valid_from="2026-02-01")
    kg.add("Bob", "lives_in", "Paris", valid_from="2025-06-01", valid_to="2026-09-30")


def _unstamped(path: Path) -> str:
    return re.sub(r"generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "generated -", path.read_text(encoding="utf-8"))


def test_options_write_the_files_the_keywords_write(kg: KnowledgeGraph, tmp_path: Path) -> None:
    _fill(kg)
    keywords = churn_report(kg, since="2025-01", every="3mo", out=tmp_path / "a" / "r.html", top=2, now=NOW)
    options = ReportOptions(since="2025-01", every="3mo", out=tmp_path / "b" / "r.html", top=2, now=NOW)
    assert options.out == tmp_path / "b" / "r.html" and options.markdown == tmp_path / "b" / "r.md"
    built = churn_report(kg, options=options)
    assert built == (options.out, options.markdown)
    for ours, theirs in zip(keywords, built, strict=True):
        assert _unstamped(ours) == _unstamped(theirs)
    from kgtoolkit._report_sources import GraphSource

    again = write_churn_report(
        GraphSource(kg), since="2025-01", every="3mo", out=tmp_path / "c" / "r.html", top=2, now=NOW
    )
    assert [_unstamped(p) for p in again] == [_unstamped(p) for p in built]


def test_options_with_a_keyword_beside_them_are_refused(kg: KnowledgeGraph, tmp_path: Path) -> None:
    _fill(kg)
    options = ReportOptions(out=tmp_path / "r.html", top=3)
    with pytest.raises(InvalidRequest) as caught:
        churn_report(kg, options=options, top=5, every="1y")
    assert caught.value.code == "invalid_request" and caught.value.data["field"] == "options"
    assert "give every, top in it, not beside it" in caught.value.message
    with pytest.raises(InvalidRequest, match="not a ReportOptions"):
        churn_report(kg, options={"top": 3})  # type: ignore[arg-type]
    assert list(tmp_path.glob("r.*")) == []
    assert churn_report(kg, options=options, top=10)[0] == tmp_path / "r.html"  # a default beside them is no option


@pytest.mark.parametrize(
    ("fields", "error", "field", "message"),
    [
        ({"out": "r.md"}, InvalidRequest, "out", "out='r.md' is the Markdown name"),
        ({"out": 3}, InvalidRequest, "out", "out=3 is not a file name"),
        ({"top": 0}, InvalidRequest, "top", "top must be a whole number from 1, not 0"),
        ({"top": True}, InvalidRequest, "top", "top must be a whole number from 1, not True"),
        ({"every": "1x"}, InvalidRequest, "every", "every '1x' is not a usable period"),
        ({"since": "2026-05", "until": "2026-01"}, InvalidRequest, "until", "until 2026-01 is before since 2026-05"),
        ({"since": "soon"}, InvalidDate, "since", "since 'soon' is not a date"),
        ({"now": "2026-13"}, InvalidDate, "now", "now '2026-13'"),
        ({"title": 5}, InvalidRequest, "title", "title=5 is not a text"),
        ({"renewals": "no"}, InvalidRequest, "renewals", "renewals='no' is neither True nor False"),
    ],
)
def test_bad_options_are_refused_when_built_and_nothing_is_written(
    kg: KnowledgeGraph, tmp_path: Path, fields: dict[str, Any], error: type[Exception], field: str, message: str
) -> None:
    _fill(kg)
    with pytest.raises(error) as caught:
        ReportOptions(**fields)
    assert caught.value.data["field"] == field and message in caught.value.message  # type: ignore[attr-defined]
    out = {"out": tmp_path / "r.html"} if "out" not in fields else {}
    with pytest.raises(error) as again:
        churn_report(kg, **out, **fields)
    assert again.value.message == caught.value.message  # type: ignore[attr-defined]
    assert list(tmp_path.glob("r.*")) == []


def test_the_cli_builds_them_and_names_its_own_flags(kg: KnowledgeGraph, db_path: Path | str, tmp_path: Path) -> None:
    _fill(kg)
    kg.close()
    runner = CliRunner()
    md = tmp_path / "r.md"
    result = runner.invoke(app, ["--db", str(db_path), "report", "--out", str(md)])
    assert result.exit_code == 1 and result.stdout == "", result.output
    error = " ".join(ANSI.sub("", result.stderr).split())
    assert error.startswith(f"error [invalid_request] --out {md} is the Markdown name"), error
    assert not md.exists() and not md.with_suffix(".html").exists()
    html = tmp_path / "r.html"
    result = runner.invoke(app, ["--db", str(db_path), "--json", "report", "--every", "1y", "--out", str(html)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"html": str(html), "markdown": str(tmp_path / "r.md")}


TIMES = st.one_of(
    st.none(),
    st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31)).map(dt.date.isoformat),
    st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31)),
)


@settings(max_examples=60, deadline=None)
@given(
    since=TIMES,
    every=st.sampled_from(["1d", "1w", "1mo", "3mo", "1q", "1y", "12h"]),
    top=st.integers(1, 1_000),
    title=st.one_of(st.none(), st.text(max_size=20)),
    renewals=st.booleans(),
)
def test_to_dict_is_json_and_builds_the_same_options(
    since: Any, every: str, top: int, title: str | None, renewals: bool
) -> None:
    options = ReportOptions(since=since, every=every, out="x/r.html", top=top, title=title, renewals=renewals)
    plain = json.loads(json.dumps(options.to_dict()))
    assert plain["out"] == "x/r.html" and plain["every"] == every and plain["top"] == top
    rebuilt = ReportOptions(**plain)
    assert rebuilt.to_dict() == options.to_dict()
    assert ReportOptions.of(options) is options and ReportOptions.of(None, **plain) == rebuilt

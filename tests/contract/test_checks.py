"""The shared argument checks (kgtoolkit/_checks.py), and every function that uses them refusing the same values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgtoolkit import InvalidRequest, KnowledgeGraph, analysis, frames
from kgtoolkit._checks import MAX_INT64, whole_number
from kgtoolkit.dashboard import graphview
from kgtoolkit.generate import generate
from kgtoolkit.report import churn_report


@pytest.mark.parametrize("value, low, high", [(0, 0, None), (7, 1, None), (MAX_INT64, 0, MAX_INT64), (3, 3, 3)])
def test_whole_numbers_in_range_pass(value: int, low: int, high: int | None) -> None:
    assert whole_number(value, field="n", low=low, high=high) == value


@pytest.mark.parametrize("value", [True, False, 1.0, 2.5, "3", None, -1, float("nan"), [1]])
def test_anything_else_is_refused_naming_the_field_and_value(value: Any) -> None:
    with pytest.raises(InvalidRequest) as caught:
        whole_number(value, field="top")
    error = caught.value
    assert error.code == "invalid_request" and error.data["field"] == "top" and error.data["value"] == str(value)
    assert error.message == f"top must be a whole number from 0, not {value!r}"


def test_bounds_and_none_in_the_message() -> None:
    with pytest.raises(InvalidRequest) as caught:
        whole_number(2**63, field="offset", high=MAX_INT64)
    assert caught.value.message == f"offset must be a whole number from 0 to 2**63 - 1, not {2**63}"
    with pytest.raises(InvalidRequest) as caught:
        whole_number(0, field="k", low=1, high=1000, allow_none=True)
    assert caught.value.message == "k must be a whole number from 1 to 1000 or None, not 0"
    assert whole_number(None, field="k", allow_none=True) is None


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[KnowledgeGraph]:
    kg = KnowledgeGraph(tmp_path / "g.sqlite3")
    kg.add("a", "uses", "b", valid_from="2026-01-01")
    yield kg
    kg.close()


def _callers(kg: KnowledgeGraph, tmp_path: Path) -> dict[str, Callable[[Any], Any]]:
    facts = frames.facts(kg)
    return {
        "limit": lambda v: kg.query("a", limit=v),
        "offset": lambda v: kg.timeline(offset=v),
        "top": lambda v: analysis.most_volatile(facts, top=v),
        "max_nodes": lambda v: graphview.build(facts, max_nodes=v),
        "facts": lambda v: generate(v),
        "seed": lambda v: generate(10, seed=v),
        "days": lambda v: generate(10, days=v),
        "report top": lambda v: churn_report(kg, top=v, out=tmp_path / "r.html"),
    }


@pytest.mark.parametrize("which", ["limit", "offset", "top", "max_nodes", "facts", "seed", "days", "report top"])
@pytest.mark.parametrize("value", [True, 1.5, -1])
def test_every_user_of_the_check_refuses_bools_floats_and_negatives(
    graph: KnowledgeGraph, tmp_path: Path, which: str, value: Any
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        _callers(graph, tmp_path)[which](value)
    field = which.split()[-1]
    assert caught.value.data["field"] == field and f"{field} must be a whole number from" in caught.value.message
    assert not (tmp_path / "r.html").exists()

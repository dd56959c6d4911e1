"""The read window (issue 46): as_of, known_at, during and current_only checked in one place, the same answer
from every read that takes them, on both engines."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgtoolkit import IntervalOrder, InvalidDate, InvalidRequest, KGError, KnowledgeGraph, frames
from kgtoolkit._time import key_to_text, parse_window
from kgtoolkit._window import ReadWindow, span_keys

DAYS = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31))


def test_an_empty_window_keeps_every_fact() -> None:
    for window in (ReadWindow(), ReadWindow("", ""), ReadWindow(None, None, None, False)):
        assert window.unfiltered and not window.dated
        assert (window.as_of, window.known_at, window.during, window.valid, window.known) == (None,) * 5
    assert not ReadWindow(current_only=True).unfiltered


def test_the_window_holds_its_parts_parsed() -> None:
    window = ReadWindow(as_of="2026-03", known_at=dt.date(2026, 4, 1))
    month = parse_window("2026-03")
    assert window.valid == (month.lo, month.hi) and window.dated
    assert window.known == key_to_text(parse_window("2026-04-01").hi) == "2026-04-01T23:59:59.999999Z"
    during = ReadWindow(during=["2026-01", "2026-02-10"])
    assert during.during == ("2026-01", "2026-02-10")  # a list (the tool's JSON array) is kept as a pair
    assert during.valid == (parse_window("2026-01").lo, parse_window("2026-02-10").hi)
    assert during.to_dict() == {
        "as_of": None,
        "known_at": None,
        "during": ["2026-01", "2026-02-10"],
        "current_only": False,
    }


def test_the_window_is_frozen_and_compared_by_what_was_given() -> None:
    window = ReadWindow(as_of="2026")
    with pytest.raises(dataclasses.FrozenInstanceError):
        window.as_of = "2027"  # type: ignore[misc]
    assert window == ReadWindow(as_of="2026") != ReadWindow(as_of="2026", current_only=True)
    assert hash(window) == hash(ReadWindow(as_of="2026"))


@pytest.mark.parametrize(
    ("arguments", "error", "field"),
    [
        ({"as_of": "2026-13"}, InvalidDate, "as_of"),
        ({"known_at": "yesterday"}, InvalidDate, "known_at"),
        ({"during": ("2026-01", "later")}, InvalidDate, "during"),
        ({"as_of": "2026", "during": ("2026-01", "2026-02")}, InvalidRequest, "during"),
        ({"during": "2026-01"}, InvalidRequest, "during"),
        ({"during": ("2026-01",)}, InvalidRequest, "during"),
        ({"during": ("2026-03", "2026-01")}, IntervalOrder, "during"),
    ],
)
def test_a_bad_window_is_refused_naming_its_part(arguments: dict[str, Any], error: type[KGError], field: str) -> None:
    with pytest.raises(error) as raised:
        ReadWindow(**arguments)
    assert raised.value.data["field"] == field


@given(DAYS, DAYS)
def test_during_covers_from_its_first_day_to_its_last(first: dt.date, last: dt.date) -> None:
    if last < first:
        with pytest.raises(IntervalOrder):
            ReadWindow(during=(first, last))
        return
    window = ReadWindow(during=(first, last))
    assert window.valid == (parse_window(first).lo, parse_window(last).hi)
    assert span_keys(f"{first.isoformat()}/{last.isoformat()}") == window.valid  # the frames' START/END alike


@given(DAYS)
def test_as_of_a_day_is_the_span_of_that_day(day: dt.date) -> None:
    assert ReadWindow(as_of=day).valid == span_keys(day) == span_keys(day.isoformat())


def _error(call: Callable[[], object]) -> tuple[str, str | None, str]:
    """What a call refused with: the error's code, field and message."""
    with pytest.raises(KGError) as raised:
        call()
    return raised.value.code, raised.value.data.get("field"), raised.value.message


@pytest.mark.parametrize(
    "window",
    [
        {"during": ("2026-03", "2026-01")},
        {"as_of": "2026", "during": ("2026-01", "2026-02")},
        {"during": "2026"},
        {"during": ("2026", "never")},
    ],
)
def test_every_read_refuses_a_bad_window_alike(kg: KnowledgeGraph, window: dict[str, Any]) -> None:
    """The walks and the graph export of the frames take the same window and refuse it with the same error, before
    anything is read; nothing changes."""
    kg.add("a", "knows", "b", valid_from="2026-01-05")
    before = kg.data_version()
    expected = _error(lambda: ReadWindow(**window))
    assert _error(lambda: kg.neighbors("a", **window)) == expected
    assert _error(lambda: kg.paths("a", "b", **window)) == expected
    assert _error(lambda: kg.follow("a", ["knows"], **window)) == expected
    assert _error(lambda: frames.to_networkx(kg, **window)) == expected
    assert kg.data_version() == before


def test_the_reads_agree_on_one_window(kg: KnowledgeGraph) -> None:
    """query, by_predicate, the frames and the walks keep the same facts for the same as_of and known_at."""
    kg.add("a", "uses", "x", valid_from="2025-01-01")
    kg.supersede("a", "uses", "x", "y", at="2025-06-01")
    kg.add("a", "knows", "b", valid_from="2025-03-01", valid_to="2025-04-30")
    learned = kg.fact(kg.query("a", predicates="uses", current_only=True)[0].id).recorded_at
    for window in ({"as_of": "2025-03"}, {"as_of": "2025-07-01"}, {"known_at": learned}, {}):
        asked = {f.id for f in kg.query("a", **window)}
        framed = set(frames.facts(kg, **window)["id"].to_list())
        assert asked == framed, window
        uses = {f.id for f in kg.by_predicate("uses", **window)}
        assert uses == {f.id for f in kg.query("a", predicates="uses", **window)}, window
    walked = {f.id for f in kg.neighbors("a", as_of="2025-03").facts}
    assert walked == {f.id for f in kg.query("a", as_of="2025-03")}

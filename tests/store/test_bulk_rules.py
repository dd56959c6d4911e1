"""The bulk import's vectorised name rules are a twin of the rules ``add`` applies (contract §2).

For text of printable ASCII the import normalises names and value texts with polars expressions instead of
one Python call per distinct value (issue 14); wherever those expressions claim a value, they must give what
:meth:`Rules.name` / :meth:`Rules.value` give, and they must never claim a value the rules refuse.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from kgtoolkit import KGError
from kgtoolkit._records import GraphConfig
from kgtoolkit.store.ops._rules import Rules
from kgtoolkit.store.transfer._load_check import _ascii_name

# Printable ASCII, weighted towards what the rules treat specially: spaces, apostrophes, underscores.
TEXT = st.text(alphabet=st.sampled_from([chr(c) for c in range(32, 127)] + [" "] * 8 + ["'", "_"] * 4), max_size=24)


def _rules(limit: int) -> Rules:
    return Rules(
        GraphConfig(
            types=frozenset(),
            value_predicates=frozenset(),
            multi_valued=frozenset(),
            max_name_length=limit,
            max_value_length=limit,
        )
    )


def _check(values: list[str], limit: int, key: Literal["id", "casefold"]) -> None:
    rules = _rules(limit)
    ok, result = _ascii_name(pl.col("v"), limit, key=key)
    got = pl.DataFrame({"v": values}).with_columns(_ok=ok, _result=result)
    for value, claimed, fields in got.iter_rows():
        try:
            name = rules.name(value, "subject") if key == "id" else rules.value(value)
        except KGError:
            assert not claimed, f"the vectorised rule took {value!r}, which the rules refuse"
            continue
        if claimed:
            assert (fields["display"], fields["id"]) == (name.display, name.id), value


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=30), st.sampled_from([3, 12, 1_000]))
def test_vectorised_names_match_the_rules(values: list[str], limit: int) -> None:
    _check(values, limit, "id")


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=30), st.sampled_from([3, 12, 1_000]))
def test_vectorised_value_texts_match_the_rules(values: list[str], limit: int) -> None:
    _check(values, limit, "casefold")


def test_the_edges_the_rules_care_about() -> None:
    edge = ["  Postgres  ", "O'Brien", "a  b", "_", "'", " ", "'_'", "A_ _B", "x" * 13, "Ünïcode", "tab\there"]
    for limit in (12, 1_000):
        _check(edge, limit, "id")
        _check(edge, limit, "casefold")

"""Narrowing an answer: ``query`` by predicate and by the entity on the other side, ``timeline`` by span and predicate.

Each filter is checked against a plain-Python filter of the unfiltered answer (the model), on a seeded
random graph on both backends, through the library, the JSON tool and the CLI; then on an ICEWS14
slice, where a new user first missed them (issue 17). Bad filters are refused and change nothing.
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter

import pytest
from shared_data import DATA
from typer.testing import CliRunner

from kgtoolkit import Fact, IntervalOrder, KnowledgeGraph, NotFound, run_tool
from kgtoolkit.cli import app

PEOPLE = [f"p{i}" for i in range(8)]
PREDICATES = ["knows", "works_with", "met"]


def _random_graph(kg: KnowledgeGraph, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(70):
        s, o = rng.sample(PEOPLE, 2)
        start = f"2020-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        end = None if rng.random() < 0.3 else f"2021-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        kg.add(s, rng.choice(PREDICATES), o, valid_from=start, valid_to=end)


def _other(fact: Fact, entity: str) -> str:
    """The id of the fact's other side, seen from ``entity``."""
    return fact.object if fact.subject == entity else fact.subject


def _ids(facts: object) -> list[int]:
    return [f.id for f in facts]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", [1, 2])
def test_query_filters_match_a_plain_filter_of_the_whole_answer(kg: KnowledgeGraph, seed: int) -> None:
    _random_graph(kg, seed)
    for name in PEOPLE[:4]:
        everything = kg.query(name)
        for preds in (["knows"], ["knows", "met"]):
            want = [f.id for f in everything if f.predicate in preds]
            assert _ids(kg.query(name, predicates=preds)) == want
        for other in PEOPLE[4:]:
            want = [f.id for f in everything if _other(f, name) == other]
            assert _ids(kg.query(name, other=other)) == want
            both = [f.id for f in everything if _other(f, name) == other and f.predicate == "met"]
            page = kg.query(name, other=other, predicates="met", limit=1)
            assert page.total == len(both) and _ids(page) == both[:1]


@pytest.mark.parametrize("seed", [3, 4])
def test_timeline_span_and_predicates_match_a_plain_filter(kg: KnowledgeGraph, seed: int) -> None:
    _random_graph(kg, seed)
    everything = kg.timeline()
    spans = [("2020-06-01", "2020-09-30"), ("2021-03", None), (None, "2020-02"), ("2020", "2021")]
    for since, until in spans:
        lo = None if since is None else {"2021-03": "2021-03-01", "2020": "2020-01-01"}.get(since, since)
        hi = None if until is None else {"2020-02": "2020-02-29", "2021": "2021-12-31"}.get(until, until)
        want = [
            f.id
            for f in everything
            if (lo is None or f.valid_to is None or f.valid_to >= lo)
            and (hi is None or f.valid_from is None or f.valid_from <= hi)
        ]
        assert _ids(kg.timeline(since=since, until=until)) == want, (since, until)
        narrowed = [i for i, f in zip(_ids(everything), everything, strict=True) if i in want and f.predicate == "met"]
        assert _ids(kg.timeline(since=since, until=until, predicates=["met"])) == narrowed
    one = [f.id for f in kg.timeline("p0") if f.predicate == "knows"]
    assert _ids(kg.timeline("p0", predicates="knows")) == one


def test_bad_filters_are_refused_with_what_to_do(kg: KnowledgeGraph) -> None:
    kg.add("ada", "works_at", "acme")
    with pytest.raises(NotFound) as typo:
        kg.query("ada", predicates=["works_a"])
    assert typo.value.data["field"] == "predicates" and "works_at" in typo.value.suggestions
    with pytest.raises(NotFound) as nobody:
        kg.query("ada", other="acmee")
    assert nobody.value.data["field"] == "other"
    with pytest.raises(IntervalOrder):
        kg.timeline(since="2022", until="2021")
    assert kg.stats().facts == 1


def test_the_tool_and_the_cli_take_the_filters(kg: KnowledgeGraph, db_path: str) -> None:
    kg.add("ada", "works_at", "acme", valid_from="2020-01-01")
    kg.add("ada", "knows", "grace", valid_from="2021-01-01")
    kg.add("grace", "works_at", "acme", valid_from="2022-01-01")
    answer = run_tool({"action": "query", "name": "ada", "predicates": ["knows"]}, kg=kg)
    assert answer["ok"] and [f["object"] for f in answer["result"]["facts"]] == ["grace"]
    answer = run_tool({"action": "query", "name": "acme", "other": "grace"}, kg=kg)
    assert answer["ok"] and [f["subject"] for f in answer["result"]["facts"]] == ["grace"]
    answer = run_tool({"action": "timeline", "since": "2021", "until": "2021", "predicates": ["knows"]}, kg=kg)
    assert answer["ok"] and answer["result"]["total"] == 1
    wrong = run_tool({"action": "query", "name": "ada", "predicates": "knows"}, kg=kg)
    assert not wrong["ok"] and wrong["error"]["code"] == "invalid_request"
    out = CliRunner().invoke(
        app, ["--db", db_path, "--json", "timeline", "--until", "2021-06", "--predicate", "works_at"]
    )
    assert out.exit_code == 0, out.output
    assert [f["subject"] for f in json.loads(out.output)["facts"]] == ["ada"]  # grace only joined acme in 2022
    out = CliRunner().invoke(app, ["--db", db_path, "--json", "query", "acme", "--other", "ada"])
    assert out.exit_code == 0, out.output
    assert [f["subject"] for f in json.loads(out.output)["facts"]] == ["ada"]


@pytest.mark.sqlite_only
def test_on_icews14_a_hub_narrows_to_one_partner_and_one_kind_of_event(kg: KnowledgeGraph) -> None:
    source = DATA / "icews14" / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"no {source} (the shared datasets are absent)")
    with source.open(encoding="utf-8", newline="") as f:
        rows = [r for _, r in zip(range(6000), csv.DictReader(f, delimiter="\t"), strict=False)]
    kg.configure(comma_guard=False)  # ICEWS names hold commas: "Children (Palestinian Territory, Occupied)"
    for r in rows:
        kg.add(r["subject"], r["predicate"], r["object"], valid_from=r["valid_from"], valid_to=r["valid_to"])
    hub = kg.entity(Counter(r["subject"] for r in rows).most_common(1)[0][0])
    everything = kg.query(hub.name)
    other = _other(everything[0], hub.id)
    pred = everything[0].predicate
    want = [f.id for f in everything if _other(f, hub.id) == other and f.predicate == pred]
    assert _ids(kg.query(hub.name, other=kg.entity(other).name, predicates=[pred])) == want
    assert 0 < len(want) < len(everything)
    january = [f.id for f in kg.timeline(hub.name) if f.valid_from is not None and f.valid_from <= "2014-01-05"]
    assert _ids(kg.timeline(hub.name, until="2014-01-05")) == january

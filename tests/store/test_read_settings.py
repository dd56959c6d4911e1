"""``query`` and ``search`` read the settings they depend on in their own statement (issue 14): value predicates,
predicate aliases and the event rule changed by another handle, or by this one, show at once (both backends).

Also the two shortcuts of the read path: ``normalize_name``'s ASCII path gives what the full Unicode rule gives,
and ``make_fact`` makes the record ``Fact(...)`` makes.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import InvalidName, NotFound
from kgtoolkit._names import check_text, loose_key, normalize_name
from kgtoolkit._records import Fact, make_fact


def test_search_follows_value_predicates_changed_by_another_handle(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg, kgtoolkit.open(db_path) as other:
        entity_fact = kg.add("api", "owner", "Dana Smith").fact
        assert [f.id for f in kg.by_predicate("owner", "Dana Smith")] == [entity_fact.id]  # by the entity dana_smith
        other.configure(value_predicates=other.config.value_predicates | {"owner"})
        # "owner" is a value predicate now: its object key is the text's ("dana smith"), which no fact has yet
        assert kg.by_predicate("owner", "Dana Smith") == []
        value_fact = other.add("billing", "owner", "Dana Smith").fact
        assert [(f.id, f.object_is_value) for f in kg.by_predicate("owner", "dana SMITH")] == [(value_fact.id, True)]
        other.configure(value_predicates=other.config.value_predicates - {"owner"})
        assert [f.id for f in kg.by_predicate("owner", "dana smith")] == [entity_fact.id]


def test_search_follows_predicate_aliases_added_by_another_handle(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg, kgtoolkit.open(db_path) as other:
        fact = kg.add("api", "uses_queue", "Redis").fact
        with pytest.raises(NotFound):
            kg.by_predicate("queue", "Redis")  # no fact uses "queue"
        other.alias_predicate("queue", "uses_queue")
        assert [f.id for f in kg.by_predicate("Queue", "redis")] == [fact.id]
        assert [f.predicate for f in kg.query("api", predicates=["queue"])] == ["uses_queue"]


def test_reads_follow_the_event_rule_changed_by_another_handle(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path) as kg, kgtoolkit.open(db_path) as other:
        kg.add("dana", "visited", "Berlin", valid_from="2024-05-01")
        assert [f.kind for f in kg.query("dana")] == ["state"]
        assert [f.kind for f in kg.by_predicate("visited", "Berlin")] == ["state"]
        other.configure(event_predicates={"visited"})
        assert [f.kind for f in kg.query("dana")] == ["event"]
        assert [f.kind for f in kg.query("berlin", direction="incoming")] == ["event"]
        assert [f.kind for f in kg.by_predicate("visited", "Berlin")] == ["event"]
        assert [f.state for f in kg.by_predicate("visited", "berlin")] == ["occurred"]
        other.configure(event_predicates=set(), events=True)
        assert [f.kind for f in kg.query("dana").items] == ["event"]
        other.configure(events=False)
        assert [f.kind for f in kg.by_predicate("visited", "Berlin")] == ["state"]


def test_search_answers_and_errors_as_before_around_the_one_statement(kg: kgtoolkit.KnowledgeGraph) -> None:
    kg.add("api", "uses_queue", "Redis", valid_from="2024-01-01")
    kg.add("api", "email", "Ops@Example.com")
    assert [f.object for f in kg.by_predicate("email", "ops@example.COM")] == ["Ops@Example.com"]
    assert kg.by_predicate("uses_queue", "Redis", limit=0) == []
    assert [f.object for f in kg.by_predicate("uses_queue", "Redis", as_of="2024-06")] == ["redis"]
    assert kg.by_predicate("uses_queue", "Redis", as_of="2023") == []
    with pytest.raises(NotFound, match="no entity named 'Kafka'"):
        kg.by_predicate("uses_queue", "Kafka")  # the predicate is used: the object is what is missing
    with pytest.raises(NotFound, match="no fact uses the predicate 'uses_qeue'"):
        kg.by_predicate("uses qeue", "Kafka")  # neither is: the predicate is named first
    with pytest.raises(InvalidName):
        kg.by_predicate("uses_queue", "   ")
    with pytest.raises(NotFound, match="no fact uses the predicate"):
        kg.by_predicate("uses qeue", "   ")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=16) | st.text(alphabet=" _'aAzZ09-\t", max_size=8))
def test_ascii_names_follow_the_unicode_rule(text: str) -> None:
    try:
        expected: str | None = loose_key(check_text(text, field="name"))
        if not expected or expected == "_":
            expected = None
    except InvalidName:
        expected = None
    if expected is None:
        with pytest.raises(InvalidName):
            normalize_name(text)
    else:
        assert normalize_name(text) == expected


def test_make_fact_makes_the_record_fact_makes() -> None:
    fields = (
        7,
        "api",
        "API",
        "uses_queue",
        "redis",
        "Redis",
        False,
        "2024-01-01",
        None,
        1.0,
        "cli",
        None,
        "2024-01-01T00:00:00Z",
        None,
        None,
        "outgoing",
        "state",
        2,  # occurrence
    )
    made, plain = make_fact(*fields), Fact(*fields)
    assert type(made) is Fact and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert made.to_dict() == plain.to_dict() and made.current
    assert pickle.loads(pickle.dumps(made)) == plain and copy.deepcopy(made) == plain
    assert dataclasses.replace(made, kind="event") == dataclasses.replace(plain, kind="event")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.id = 8  # type: ignore[misc]

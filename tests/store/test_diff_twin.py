"""The diff by valid time pairs its changes in the engine (issue 32); its twin is the pairing in Python over every
changed fact (what it did before, and still does by transaction time): the same answer, page and counts, on both
engines."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import postgres_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import Diff, KGError, KnowledgeGraph
from kgtoolkit.store.ops._diff import diff as store_diff

DAYS = ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02", "2024-02-15", "2024-02-29", "2024-03-01", None]
SUBJECTS = ["api", "web", "db"]
PREDICATES = ["uses", "owner", "depends_on", "email", "met"]  # depends_on: multi-valued; email: a value
OBJECTS = ["redis", "Redis", "sqlite", "ann", "bob"]

rows = st.lists(
    st.tuples(
        st.sampled_from(SUBJECTS),
        st.sampled_from(PREDICATES),
        st.sampled_from(OBJECTS),
        st.sampled_from(DAYS),
        st.one_of(st.sampled_from(DAYS), st.just("same")),  # "same": an event by its bounds
    ),
    max_size=16,
)
TWINS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_graphs = itertools.count()


def paired(kg: KnowledgeGraph, start: str, end: str, *, in_engine: bool, **options: Any) -> Diff:
    """The diff paired in the engine, or in Python over every changed fact."""
    with kg._read() as cur:
        return store_diff(cur, kg.engine.dialect, start, end, by="valid", in_engine=in_engine, **options)


@TWINS
@given(
    facts=rows,
    declared=st.sampled_from([None, "met", "all"]),
    window=st.sampled_from([("2024-01-31", "2024-02-02"), ("2024-02", "2024-02"), ("2024", "2024"), ("2023", "2025")]),
    entity=st.sampled_from([None, "api", "redis", "ann"]),
    predicates=st.sampled_from([None, ["uses"], ["uses", "email", "met"]]),
    page=st.sampled_from([(None, 0), (2, 0), (3, 2), (1, 5)]),
    renewals=st.booleans(),
)
def test_diff_paired_in_the_engine_answers_as_paired_in_python(
    new_db: Callable[[str], Path | str],
    facts: list[tuple[str, str, str, Any, Any]],
    declared: Any,
    window: tuple[str, str],
    entity: str | None,
    predicates: list[str] | None,
    page: tuple[int | None, int],
    renewals: bool,
) -> None:
    with kgtoolkit.open(new_db(f"diff{next(_graphs)}")) as kg:
        kg.add("api", "uses", "redis", valid_from="2024-01-01")
        kg.supersede("api", "uses", "redis", "sqlite", at="2024-02-01")  # a replacement (unless all are events)
        kg.configure(value_predicates={"email"}, **({"events": True} if declared == "all" else {}))
        if declared == "met":
            kg.configure(event_predicates={"met"})
        for subject, predicate, obj, start, end in facts:
            try:
                kg.add(subject, predicate, obj, valid_from=start, valid_to=start if end == "same" else end)
            except KGError:
                pass  # an end before its start, or the same current fact twice: refused
        known = {f.predicate for f in kg.timeline(limit=None)}
        if predicates is not None and not set(predicates) <= known:
            predicates = None  # a predicate no fact uses is not_found on both paths
        limit, offset = page
        options: dict[str, Any] = {
            "entity": entity,
            "predicates": predicates,
            "limit": limit,
            "offset": offset,
            "renewals": renewals,
        }
        try:
            want = paired(kg, *window, in_engine=False, **options)
        except KGError as exc:  # an unknown entity: the engine path says the same
            try:
                paired(kg, *window, in_engine=True, **options)
            except KGError as again:
                assert again.code == exc.code
                return
            raise AssertionError(f"the engine path answered where Python raised {exc.code}") from None
        got = paired(kg, *window, in_engine=True, **options)
        assert got.to_dict() == want.to_dict()
        assert kg.diff(*window, **options).to_dict() == want.to_dict()


def test_a_page_past_many_changes_of_one_day_is_whole(kg: KnowledgeGraph) -> None:
    """The engine reads each side of the page in time order only as far as it needs: a first read cut inside one
    day's ties is read again, further, and every page equals Python's over every changed fact."""
    for i in range(150):
        subject, day = f"svc{i:03}", "2024-02-01" if i % 10 else "2024-02-02"
        kg.add(subject, "uses", "redis", valid_from="2024-01-01")
        if i % 3 == 0:
            kg.supersede(subject, "uses", "redis", "sqlite", at=day)  # one change: replaced
        elif i % 3 == 1:
            kg.invalidate(subject, "uses", "redis", ended=day)  # ended
        else:
            kg.add(subject, "owner", "ann", valid_from=day)  # began
    month = {"start": "2024-02", "end": "2024-02", "entity": None, "predicates": None}
    whole = paired(kg, **month, in_engine=False, limit=None, offset=0)
    assert (whole.total, whole.replaced, whole.ended, whole.began) == (150, 50, 50, 50)
    for limit, offset in [(1, 0), (3, 36), (5, 74), (2, 148), (10, 145), (None, 100)]:
        want = paired(kg, **month, in_engine=False, limit=limit, offset=offset)
        assert want.changes == whole.changes[offset : None if limit is None else offset + limit]
        assert paired(kg, **month, in_engine=True, limit=limit, offset=offset).to_dict() == want.to_dict()


def test_postgresql_puts_back_the_settings_of_a_diffs_read(postgres: postgres_server.Server) -> None:
    """PostgreSQL reads a diff's changed facts under settings of its own (a larger work_mem, no JIT, no nested loop):
    they hold for that statement only, so the reads after it (a page of facts with their names) plan as before."""
    show = "SELECT " + ", ".join(f"current_setting('{name}')" for name in ("work_mem", "jit", "enable_nestloop"))
    with kgtoolkit.open(postgres.new_schema()) as kg:
        kg.add("api", "uses", "redis", valid_from="2024-01-01")
        kg.supersede("api", "uses", "redis", "sqlite", at="2024-02-01")
        with kg._read() as cur:
            before = tuple(cur.execute(show).fetchone())
            for in_engine in (True, False):
                got = store_diff(
                    cur,
                    kg.engine.dialect,
                    "2024-02",
                    "2024-02",
                    by="valid",
                    entity=None,
                    predicates=None,
                    limit=None,
                    offset=0,
                    in_engine=in_engine,
                )
                assert got.replaced == 1
                assert tuple(cur.execute(show).fetchone()) == before

"""One holder at a time (issue 43): a predicate declared ``one_holder`` has one subject at a time per object (an
office, a company's CEO), so a new subject for the same object is a replacement, as a new object for the same
subject is for any other predicate: in ``diff`` (engine and Python pairing), ``conflicts`` (store and frames),
``check`` and ``supersede_holder``; the setting is stored, dumped, copied and renamed as the other lists are."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from cli_run import fails, ok, ok_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plain_model import ref_conflicts
from shared_data import DATA

import kgtoolkit
from kgtoolkit import KGError, KnowledgeGraph, analysis, frames, mcp_server, run_tool
from kgtoolkit.store import copy_graph, dump, restore
from kgtoolkit.store.ops._diff import diff as store_diff

YAGO = DATA / "yago11k" / "facts.tsv"
NOW = "2026-06-01"


def mayors(kg: KnowledgeGraph) -> None:
    """Ann was mayor until 2024, Ben after her; Cy moved from treasurer to auditor at the same time."""
    kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01", valid_to="2024-01-01")
    kg.add("Ben", "holds_office", "Mayor", valid_from="2024-01-01")
    kg.add("Cy", "holds_office", "Treasurer", valid_from="2021-01-01", valid_to="2024-02-01")
    kg.add("Cy", "holds_office", "Auditor", valid_from="2024-02-01")


def paired(kg: KnowledgeGraph, start: str, end: str, *, in_engine: bool, **options: Any) -> kgtoolkit.Diff:
    with kg._read() as cur:
        return store_diff(
            cur,
            kg.engine.dialect,
            start,
            end,
            by="valid",
            in_engine=in_engine,
            **{"entity": None, "predicates": None, "limit": None, "offset": 0, **options},
        )


def kinds(found: kgtoolkit.Diff) -> list[tuple[str, str | None, str | None, str | None]]:
    """Each change as (kind, old subject, new subject, the object)."""
    return [
        (
            c.kind,
            c.old.subject if c.old else None,
            c.new.subject if c.new else None,
            (c.new or c.old).object if (c.new or c.old) else None,
        )
        for c in found.changes
    ]


# ---------------------------------------------------------------------- diff


def test_a_change_of_holder_is_replaced_once_declared(kg: KnowledgeGraph) -> None:
    mayors(kg)
    before = kg.diff("2023", "2025")
    assert kinds(before) == [
        ("began", None, "ben", "mayor"),
        ("ended", "ann", None, "mayor"),
        ("replaced", "cy", "cy", "auditor"),  # by subject, as any predicate not multi-valued
    ]
    assert kg.configure(one_holder={"Holds Office"}).one_holder == {"holds_office"}
    after = kg.diff("2023", "2025")
    assert kinds(after) == [
        ("replaced", "ann", "ben", "mayor"),  # the mayor's holder: Ann -> Ben
        ("began", None, "cy", "auditor"),  # one holder only: judged by object, Cy may hold two offices
        ("ended", "cy", None, "treasurer"),
    ]
    assert (after.replaced, after.began, after.ended, after.total) == (1, 1, 1, 3)
    assert after.changes[0].subject == "ben" and after.changes[0].at == "2024-01-01"
    for in_engine in (True, False):
        assert paired(kg, "2023", "2025", in_engine=in_engine).to_dict() == after.to_dict()
    # single-valued too: judged both ways, each fact paired once
    kg.configure(single_valued={"holds_office"})
    both = kg.diff("2023", "2025")
    assert kinds(both) == [("replaced", "ann", "ben", "mayor"), ("replaced", "cy", "cy", "auditor")]
    assert paired(kg, "2023", "2025", in_engine=False).to_dict() == both.to_dict()
    table = frames.diff(kg, "2023", "2025")
    assert table.select("kind", "old_subject", "new_subject", "new_object").row(0) == (
        "replaced",
        "ann",
        "ben",
        "mayor",
    )


def test_the_timing_rule_and_each_fact_paired_once(kg: KnowledgeGraph) -> None:
    kg.configure(one_holder={"ceo_of"})
    kg.add("Ann", "ceo_of", "Acme", valid_from="2020-01-01", valid_to="2022-06-30")
    kg.add("Ben", "ceo_of", "Acme", valid_from="2022-07-01")  # the day after: a handover
    kg.add("Cy", "ceo_of", "Acme", valid_from="2022-07-01", valid_to="2022-12-31")  # a second candidate: not paired
    kg.add("Dee", "ceo_of", "Initech", valid_from="2020-01-01", valid_to="2021-01-01")
    kg.add("Eve", "ceo_of", "Initech", valid_from="2021-03-01")  # a gap of two months: no replacement
    kg.add("Fay", "ceo_of", "Globex", valid_from="2021-01-01", valid_to="2022-01-01")
    kg.add("Gus", "ceo_of", "Globex", valid_from="2020-06-01")  # started before Fay: no replacement
    found = kg.diff("2020-02", "2022-12")
    replaced = [(o, n, obj) for kind, o, n, obj in kinds(found) if kind == "replaced"]
    assert replaced == [("ann", "ben", "acme")]
    assert found.replaced == 1
    for in_engine in (True, False):
        assert paired(kg, "2020-02", "2022-12", in_engine=in_engine).to_dict() == found.to_dict()


def test_a_value_object_pairs_up_to_case_and_events_never_pair(kg: KnowledgeGraph) -> None:
    kg.configure(value_predicates={"handle"}, one_holder={"handle", "met"}, event_predicates={"met"})
    kg.add("Ann", "handle", "@Acme", valid_from="2020-01-01", valid_to="2023-01-01")
    kg.add("Ben", "handle", "@acme", valid_from="2023-01-01")
    kg.add("Ann", "met", "Board", valid_from="2023-01-01")
    kg.add("Ben", "met", "Board", valid_from="2023-01-02")
    found = kg.diff("2022", "2023")
    assert [(c.kind, c.old and c.old.object, c.new and c.new.object) for c in found.changes] == [
        ("replaced", "@Acme", "@acme"),
        ("occurred", None, "board"),
        ("occurred", None, "board"),
    ]
    assert paired(kg, "2022", "2023", in_engine=False).to_dict() == found.to_dict()


DAYS = ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02", "2024-02-29", "2024-03-01", None]
rows = st.lists(
    st.tuples(
        st.sampled_from(["ann", "ben", "cy"]),
        st.sampled_from(["holds", "uses", "email"]),
        st.sampled_from(["mayor", "Mayor", "redis", "ann"]),
        st.sampled_from(DAYS),
        st.sampled_from(DAYS),
    ),
    max_size=14,
)
_graphs = itertools.count()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    facts=rows,
    single=st.booleans(),
    window=st.sampled_from([("2024-01-31", "2024-02-02"), ("2024-02", "2024-02"), ("2023", "2025")]),
    page=st.sampled_from([(None, 0), (2, 1), (1, 3)]),
)
def test_the_engine_pairs_holders_as_python_does(
    new_db: Callable[[str], Path | str],
    facts: list[tuple[str, str, str, Any, Any]],
    single: bool,
    window: tuple[str, str],
    page: tuple[int | None, int],
) -> None:
    with kgtoolkit.open(new_db(f"holders{next(_graphs)}")) as kg:
        kg.configure(
            value_predicates={"email"}, one_holder={"holds", "email"}, single_valued={"holds"} if single else ()
        )
        for subject, predicate, obj, start, end in facts:
            try:
                kg.add(subject, predicate, obj, valid_from=start, valid_to=end)
            except KGError:
                pass  # an end before its start, or the same current fact twice: refused
        limit, offset = page
        want = paired(kg, *window, in_engine=False, limit=limit, offset=offset)
        assert paired(kg, *window, in_engine=True, limit=limit, offset=offset).to_dict() == want.to_dict()
        whole = paired(kg, *window, in_engine=False)
        for c in whole.changes:
            if c.kind == "replaced" and c.old is not None and c.new is not None and c.old.subject != c.new.subject:
                assert c.predicate in ("holds", "email") and c.old.object.casefold() == c.new.object.casefold()


# ---------------------------------------------------------------------- conflicts


def frame_groups(kg: KnowledgeGraph) -> list[dict[str, Any]]:
    config = kg.config
    got = analysis.conflicts(
        frames.facts(kg),
        multi_valued=config.multi_valued,
        one_holder=config.one_holder,
        single_valued=config.single_valued,
        now=NOW,
    )
    assert got.schema == pl.Schema(analysis.CONFLICTS_SCHEMA)
    return got.to_dicts()


def test_conflicts_group_one_holder_predicates_by_object(kg: KnowledgeGraph) -> None:
    kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01")
    kg.add("Ben", "holds_office", "Mayor", valid_from="2022-01-01")  # two current holders
    kg.add("Cy", "holds_office", "Treasurer", valid_from="2021-01-01")
    kg.add("Cy", "holds_office", "Auditor", valid_from="2021-06-01")  # one holder of two offices: fine
    kg.add("Dee", "holds_office", "Clerk", valid_from="2019-01-01", valid_to="2021-01-01")
    kg.add("Eve", "holds_office", "Clerk", valid_from="2021-01-01")  # a handover: history only
    kg.add("Fay", "holds_office", "Judge", valid_from="2020-01-01")
    kg.add("Gus", "holds_office", "Judge", valid_from="2999-01-01")  # a planned handover, Fay still open
    kg.add("svc", "owned_by", "team_a", valid_from="2020-01-01")
    kg.add("svc", "owned_by", "team_b", valid_from="2021-01-01")
    before = kg.conflicts()
    assert [(g.by, g.subject, g.predicate) for g in before] == [
        ("subject", "cy", "holds_office"),
        ("subject", "svc", "owned_by"),
    ]
    kg.configure(one_holder={"holds_office"})
    groups = kg.conflicts()
    assert [(g.by, g.subject or g.object, g.needs_action) for g in groups] == [
        ("object", "judge", True),
        ("object", "mayor", True),
        ("subject", "svc", True),
        ("object", "clerk", False),
    ]
    judge, mayor, _, clerk = groups
    assert (mayor.subject, mayor.subject_name, mayor.object_name, mayor.objects, mayor.subjects) == (
        None,
        None,
        "Mayor",
        1,
        2,
    )
    assert mayor.current == 2 and [f.subject for f in mayor.facts] == ["ann", "ben"]
    assert judge.planned_switch == "2999-01-01" and judge.switch_overlaps and judge.current == 1
    assert dict(judge.suggestion or {}) == {
        "action": "supersede_holder",
        "object": "Judge",
        "predicate": "holds_office",
        "old_subject": "Fay",
        "new_subject": "Gus",
        "at": "2999-01-01",
    }
    assert clerk.to_dict()["by"] == "object" and not clerk.needs_action
    assert frame_groups(kg) == ref_conflicts(kg, frames_now())
    # paging, counting and the entity filter (the object of a one-holder group) in SQL
    assert kg.conflicts_needing_action() == 3
    assert kg.conflicts(limit=2, offset=1).items == tuple(groups[1:3])
    assert kg.conflicts(limit=2, offset=1).total == 4
    assert [g.object for g in kg.conflicts("Mayor")] == ["mayor"] and kg.conflicts("Ann") == []
    current = kg.conflicts(needs_action=True, current_only=True)
    assert [(g.by, g.subject or g.object) for g in current] == [("object", "mayor"), ("subject", "svc")]
    # the suggestion resolves it: the planned handover no longer overlaps
    assert run_tool(judge.suggestion, kg=kg)["ok"] is True
    assert not next(g for g in kg.conflicts() if g.object == "judge").needs_action
    # single-valued too: Cy's two offices are judged by subject as well
    kg.configure(single_valued={"holds_office"})
    assert ("subject", "cy") in [(g.by, g.subject) for g in kg.conflicts()]
    assert frame_groups(kg) == ref_conflicts(kg, frames_now())


def frames_now() -> Any:
    import datetime as dt

    return dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


# ---------------------------------------------------------------------- check


def test_check_flags_two_holders_at_once(kg: KnowledgeGraph) -> None:
    mayors(kg)
    kg.add("Dee", "holds_office", "Treasurer", valid_from="2022-01-01", valid_to="2023-01-01")  # beside Cy
    assert [f.code for f in kg.check(codes=["one_holder_overlap"])] == []
    kg.configure(one_holder={"holds_office"})
    found = list(kg.check(codes=["one_holder_overlap"]))
    assert [(f.entities, f.predicate) for f in found] == [(("cy", "dee"), "holds_office")]
    assert "--remove-one-holder holds_office" in found[0].message  # Ann -> Ben on one day: a handover, no overlap
    answer = run_tool({"action": "check", "codes": ["one_holder_overlap"]}, kg=kg)
    assert [f["code"] for f in answer["result"]["findings"]] == ["one_holder_overlap"]


# ---------------------------------------------------------------------- supersede_holder


def test_supersede_holder_is_atomic(kg: KnowledgeGraph) -> None:
    kg.configure(one_holder={"holds_office"})
    kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01")
    switch = kg.supersede_holder("Mayor", "holds_office", "Ann", "Ben", at="2024-01-01", subject_type="person")
    assert (switch.old.subject, switch.old.valid_to, switch.new.subject, switch.new.valid_from) == (
        "ann",
        "2024-01-01",
        "ben",
        "2024-01-01",
    )
    assert kg.entity("Ben").type == "person"
    assert kinds(kg.diff("2024", "2024")) == [("replaced", "ann", "ben", "mayor")]
    before = dump(kg)
    for args, code in (
        (("Mayor", "holds_office", "Ann", "Cy"), "not_current"),  # Ann no longer holds it
        (("Mayor", "holds_office", "Ben", "ben"), "invalid_request"),  # the same holder
        (("Mayor", "holds_office", "Ben", "Cy", "2023-01-01"), "interval_order"),  # before Ben's start
    ):
        with pytest.raises(KGError) as caught:
            kg.supersede_holder(*args[:4], at=args[4] if len(args) > 4 else None)
        assert caught.value.code == code
    assert dump(kg)["facts"] == before["facts"] and dump(kg)["entities"] == before["entities"]  # nothing written
    # the tool and MCP: the same operation
    answer = run_tool(
        {
            "action": "supersede_holder",
            "object": "Mayor",
            "predicate": "holds_office",
            "old_subject": "Ben",
            "new_subject": "Cy",
            "at": "2025-01-01",
        },
        kg=kg,
    )
    assert answer["ok"] and answer["result"]["new"]["subject"] == "cy"
    answer = mcp_server.call(
        kg,
        "kg_supersede_holder",
        {"object": "Mayor", "predicate": "holds_office", "old_subject": "Cy", "new_subject": "Dee", "at": "2026-01-01"},
    )
    assert answer["ok"] and answer["result"]["old"]["valid_to"] == "2026-01-01"


# ---------------------------------------------------------------------- the setting


def test_the_setting_is_exclusive_with_multi_valued_and_carried(
    kg: KnowledgeGraph, new_db: Callable[[str], Path | str]
) -> None:
    assert kg.config.one_holder == frozenset()
    kg.add("Ann", "holds_office", "Mayor", valid_from="2020-01-01")
    kg.configure(one_holder={"holds_office"})
    multi = kg.config.multi_valued
    with pytest.raises(kgtoolkit.InvalidRequest, match="both multi-valued and one-holder"):
        kg.configure(multi_valued=multi | {"holds_office"})
    with pytest.raises(kgtoolkit.InvalidRequest, match="--remove-one-holder"):
        kg.configure(one_holder={"holds_office", "member_of"})  # member_of is multi-valued by default
    assert kg.config.one_holder == {"holds_office"} and kg.config.multi_valued == multi
    data = dump(kg)
    assert data["config"]["one_holder"] == ["holds_office"]
    restored = kgtoolkit.open(new_db("restored"))
    restore(restored, data)
    copied = kgtoolkit.open(new_db("copied"))
    copy_graph(kg, copied)
    for other in (restored, copied):
        assert other.config.one_holder == {"holds_office"}
        other.close()
    # a rename carries it to the new predicate, and an alias names its predicate in the setting
    renamed = kg.rename_predicate("holds_office", "office_of")
    assert "one_holder" in renamed.settings and kg.config.one_holder == {"office_of"}
    kg.alias_predicate("mayor_of", "office_of")
    assert kg.configure(one_holder={"mayor_of"}).one_holder == {"office_of"}
    # a rename into a multi-valued predicate would put it in both lists: refused, nothing changes
    kg.add("Bo", "member_of", "Club", valid_from="2020-01-01")
    with pytest.raises(kgtoolkit.InvalidRequest, match="both multi-valued and one-holder"):
        kg.rename_predicate("office_of", "member_of")
    assert kg.config.one_holder == {"office_of"} and kg.query("Ann")[0].predicate == "office_of"


def test_config_through_the_cli(db_path: Path | str) -> None:
    ok("--db", db_path, "add", "Ann", "holds_office", "Mayor", "--from", "2020-01-01")
    shown = ok_json("--db", db_path, "--json", "config", "--add-one-holder", "Holds Office")
    assert shown["one_holder"] == ["holds_office"]
    assert "one holder" in ok("--db", db_path, "config") and "holds_office" in ok("--db", db_path, "config")
    message = fails("--db", db_path, "config", "--add-multi-valued", "holds_office", code="invalid_request")
    assert "--remove-one-holder" in message
    switched = ok_json(
        "--db", db_path, "--json", "supersede-holder", "Mayor", "holds_office", "Ann", "Ben", "--at", "2024-01-01"
    )
    assert (switched["old"]["subject"], switched["new"]["subject"]) == ("ann", "ben")
    table = ok("--db", db_path, "diff", "--from", "2024", "--to", "2024")
    assert "replaced" in table and "Ann → Ben" in table
    assert ok_json("--db", db_path, "--json", "config", "--remove-one-holder", "holds_office")["one_holder"] == []
    changes = ok_json("--db", db_path, "--json", "diff", "--from", "2024", "--to", "2024")
    assert (changes["began"], changes["ended"], changes["replaced"]) == (1, 1, 0)


# ---------------------------------------------------------------------- real data


def test_yago_ownership_changes_read_as_replaced_once_declared(kg: KnowledgeGraph) -> None:
    """YAGO11k's ``owns``: a thing has one owner at a time (Lumia Beta Apps passed from Nokia to Microsoft
    Mobile). Undeclared, a change of owner is an end and a start (and an owner who sells one thing and buys
    another reads as a replacement); declared one holder, the changes of owner are the replacements."""
    if not YAGO.exists():
        pytest.skip(f"YAGO11k not found at {YAGO} (the shared data folder is absent)")
    owns = pl.read_csv(YAGO, separator="\t", quote_char=None, infer_schema_length=0).filter(
        pl.col("predicate") == "owns"
    )
    assert owns.height > 500
    for r in owns.iter_rows(named=True):
        try:
            kg.add(r["subject"], "owns", r["object"], valid_from=r["valid_from"], valid_to=r["valid_to"])
        except KGError:
            pass  # a row the graph refuses (a comma list, an end before its start): not this test's concern
    before = kg.diff("1800", "2020", limit=None)
    assert all(c.old.subject == c.new.subject for c in before.changes if c.kind == "replaced" and c.old and c.new)
    kg.configure(one_holder={"owns"})
    after = kg.diff("1800", "2020", limit=None)
    handovers = [c for c in after.changes if c.kind == "replaced"]
    assert len(handovers) >= 20
    for c in handovers:
        assert c.old is not None and c.new is not None
        assert c.old.object == c.new.object and c.old.subject != c.new.subject
    pairs = {(c.old.subject_name, c.new.subject_name, c.new.object_name) for c in handovers if c.old and c.new}
    assert ("Nokia", "Microsoft Mobile", "Lumia Beta Apps") in pairs
    assert paired(kg, "1800", "2020", in_engine=False).to_dict() == after.to_dict()
    assert frame_groups(kg) == ref_conflicts(kg, frames_now())
    assert any(g.by == "object" for g in kg.conflicts())
    json.dumps(after.to_dict())  # the answer is JSON as it is

"""The kept conflict judgement (issue 43, schema step 14): a page of conflicts read from the groups judged at the
last fold, each until the first instant one of its facts may change state, the rest judged live. Twin tests: every
page, count and filter equals the model that reads and judges every group (:func:`whole_read` of
``test_conflict_pages``) on hypothesis graphs, a generated graph and real data (YAGO11k, ICEWS14), after a fold
made now and one made years ago (most groups past their freshness, judged again live), and after writes not yet
folded (every group judged live). Both engines.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import DATA
from test_conflict_pages import BOUNDS, STARTS, assert_pages_agree, bound

import kgtoolkit
from conftest import run_sql, schema_step, undo_steps
from kgtoolkit import KnowledgeGraph
from kgtoolkit._errors import KGError
from kgtoolkit._time import DAY_US
from kgtoolkit._validity import Clock
from kgtoolkit.generate import add_generated
from kgtoolkit.store import check_rollups as check
from kgtoolkit.store import copy_graph, dump, fold_rollups, import_facts, rebuild_rollups, restore
from kgtoolkit.store.engine import KEPT_WAIT
from kgtoolkit.store.ops._conflict_kept import fold_kept, rebuild_kept
from kgtoolkit.store.ops._conflicts import kept_state


def kept(kg: KnowledgeGraph) -> bool:
    """The kept judgement answers this graph's reads, nothing written since waiting for it (groups past their
    freshness may be judged live)."""
    with kg.engine.read() as cur:
        upto = kept_state(cur)
        waiting = cur.execute(
            "SELECT EXISTS (SELECT 1 FROM conflict_dirty) OR (SELECT COALESCE(max(id), 0) FROM facts) > ?", (upto or 0,)
        ).fetchone()[0]
        return upto is not None and not waiting


def fold_at(kg: KnowledgeGraph, clock: Clock) -> None:
    """Every group judged again as at ``clock`` (a fold made then)."""
    engine = kg.engine

    def again(cur: object) -> None:
        rebuild_kept(cur)  # type: ignore[arg-type]
        fold_kept(engine, cur, clock)  # type: ignore[arg-type]

    engine.write(again)


def years_ago(years: int) -> Clock:
    return Clock.at(Clock.real().now - years * 365 * DAY_US)


def entities_of(kg: KnowledgeGraph) -> list[str | None]:
    """No entity, and one subject and one object of a group, when there are."""
    groups = kg.conflicts(limit=None)
    return [
        None,
        *sorted({g.subject for g in groups if g.subject})[:1],
        *sorted({g.object for g in groups if g.object})[:1],
    ]


def assert_kept_agrees(kg: KnowledgeGraph, sizes: tuple[int, ...] = (1, 3), pages: int | None = None) -> None:
    """Every page equals the model: after a fold now, after one long ago, and the check finds the kept rows right."""
    fold_rollups(kg)
    assert kept(kg)
    entities = entities_of(kg)
    assert_pages_agree(kg, entities, sizes, pages)
    assert check(kg).differences["conflict_kept"] == 0
    fold_at(kg, years_ago(3))
    assert kept(kg)
    assert_pages_agree(kg, entities, sizes, pages)
    assert check(kg).differences["conflict_kept"] == 0


facts = st.lists(
    st.tuples(
        st.sampled_from(["s1", "s2", "s3"]),
        st.sampled_from(["p", "q"]),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from([*STARTS, "2024-01-01"]),
        st.sampled_from([*BOUNDS, "2024-06-01", "2025-01-01T10:00:00Z"]),
    ),
    min_size=2,
    max_size=14,
)


@pytest.fixture
def fresh(new_db: Callable[[str], Path | str]) -> Callable[[], KnowledgeGraph]:
    names = itertools.count()
    return lambda: kgtoolkit.open(new_db(f"kept{next(names)}"))


def test_hypothesis_graphs_read_as_judged_whole(backend: str, fresh: Callable[[], KnowledgeGraph]) -> None:
    """Random groups around today and a planned switch, events and one-holder predicates: the kept pages equal the
    whole judgement, folded now and years ago; then a supersede not yet folded (judged live) and folded."""

    @settings(
        max_examples=25 if backend == "sqlite" else 8,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(facts, st.booleans(), st.sampled_from(["", "one_holder", "both"]))
    def run(rows: list[tuple[str, str, str, str | None, str | None]], events_of_q: bool, holder: str) -> None:
        with fresh() as kg:
            if events_of_q:
                kg.configure(event_predicates={"q"})
            if holder:
                kg.configure(one_holder={"p"}, single_valued={"p"} if holder == "both" else set())
            for s, p, o, start, end in rows:
                try:
                    kg.add(s, p, o, valid_from=bound(start), valid_to=bound(end))
                except KGError:
                    pass
            assert_kept_agrees(kg, (1, 2))
            try:
                kg.supersede("s1", "p", "a", "c", at=bound("TOMORROW"))
            except KGError:
                pass  # s1 p a is not current: nothing written
            assert_pages_agree(kg, [None], (2,))  # judged live until the next fold
            fold_rollups(kg)
            assert kept(kg)
            assert_pages_agree(kg, entities_of(kg), (2,))

    run()


def test_generated_graph(kg: KnowledgeGraph) -> None:
    """A generated graph running past today (scheduled facts, planned switches), each door's page the model's."""
    today = dt.datetime.now(dt.UTC).date()
    add_generated(kg, 2000, seed=5, start=(today - dt.timedelta(days=700)).isoformat(), days=1400)
    assert_kept_agrees(kg, (1, 7, 50), pages=8)
    assert kg.conflicts_needing_action() > 0


def test_settings_and_merges_are_judged_again(kg: KnowledgeGraph) -> None:
    """A settings change makes the kept judgement stale (every group judged live until a fold judges them all
    again); a merge moves facts between groups (the triggers mark both); a rebuild makes it again."""
    for s, o, start in (("a", "x", "2020-01-01"), ("a", "y", "2021-01-01"), ("b", "x", "2020-01-01")):
        kg.add(s, "uses", o, valid_from=start)
    kg.add("b2", "uses", "z", valid_from="2022-01-01")
    fold_rollups(kg)
    assert kept(kg)
    assert_pages_agree(kg, [None, "a"], (1,))
    kg.configure(multi_valued={"uses"})
    assert not kept(kg)
    assert kg.conflicts() == []
    fold_rollups(kg)
    assert kept(kg) and kg.conflicts() == []
    kg.configure(multi_valued=set())
    fold_rollups(kg)
    kg.merge("b2", "b")
    assert not kept(kg)
    assert_pages_agree(kg, [None, "b"], (1,))
    fold_rollups(kg)
    assert kept(kg)
    assert [g.subject_name for g in kg.conflicts()] == ["a", "b"]
    assert_pages_agree(kg, [None, "b"], (1,))
    rebuild_rollups(kg)
    assert kept(kg) and check(kg).ok


def read_tsv(name: str) -> pl.DataFrame:
    path = DATA / name / "facts.tsv"
    if not path.exists():
        pytest.skip(f"{name} not found at {path} (the shared data folder is absent)")
    return pl.read_csv(path, separator="\t", quote_char=None, infer_schema_length=0)


@pytest.mark.parametrize("name", ["yago11k", "icews14"])
def test_real_data(kg: KnowledgeGraph, name: str) -> None:
    """YAGO11k (terms of office, ownership) and ten days of ICEWS14 (its events written as week-long states, so a
    subject's overlapping relations with several others make conflict groups): the kept pages and counts equal the
    whole judgement."""
    frame = read_tsv(name)
    if name == "icews14":
        day = pl.col("valid_from").str.to_date()
        frame = frame.filter(pl.col("valid_from") < "2014-01-11").with_columns(
            (day + pl.duration(days=7)).dt.strftime("%Y-%m-%d").alias("valid_to")
        )
    kg.configure(comma_guard=False)
    import_facts(kg, frame, on_error="skip")  # a few rows end before they start: not this test's concern
    fold_rollups(kg)  # what the CLI does after an import
    assert kept(kg)
    assert len(kg.conflicts(limit=None)) > 20
    assert_kept_agrees(kg, (40,), pages=3)


def waiting_ids(kg: KnowledgeGraph) -> int:
    """How many facts wait for the kept judgement (written since a write last judged)."""
    with kg.engine.read() as cur:
        upto, top = cur.execute(
            "SELECT upto, (SELECT COALESCE(max(id), 0) FROM facts) FROM conflict_state WHERE id = 1"
        ).fetchone()
        return int(top) - int(upto)


def test_every_write_path_reads_as_judged_whole(kg: KnowledgeGraph, new_db: Callable[[str], Path | str]) -> None:
    """No fold asked for: after each kind of write (add, supersede, invalidate, merge, aliases and a rename, an import,
    settings of each kind, a copy and a restore) every page equals the whole judgement, the kept rows and the live
    judgement of what changed read together; a write that leaves more than ``KEPT_WAIT`` facts waiting judges them in
    its own transaction."""
    today = dt.datetime.now(dt.UTC).date()
    add_generated(kg, 600, seed=3, start=(today - dt.timedelta(days=400)).isoformat(), days=800)
    assert waiting_ids(kg) < KEPT_WAIT and kept_state_of(kg) is not None  # the import judged in its transaction
    subjects = sorted({g.subject for g in kg.conflicts(limit=None) if g.subject})

    def agree() -> None:
        assert_pages_agree(kg, [None, subjects[0]], (3,), pages=4)

    agree()
    kg.add("s-one", "works_for", "acme", valid_from="2020-01-01")
    kg.add("s-one", "works_for", "globex", valid_from="2021-01-01")
    kg.add("s-one", "works_for", "initech", valid_from=(today + dt.timedelta(days=30)).isoformat())
    agree()
    kg.supersede("s-one", "works_for", "acme", "umbrella", at=today.isoformat())
    kg.invalidate("s-one", "works_for", "globex")
    agree()
    kg.add("s-two", "works_for", "acme", valid_from="2022-01-01")
    kg.merge("s-two", "s-one")
    kg.alias("s-uno", "s-one")
    agree()
    kg.alias_predicate("employed_by", "works_for")
    kg.rename_predicate("works_for", "employer")
    agree()
    for change in (
        {"multi_valued": {"employer"}},
        {"multi_valued": set()},
        {"event_predicates": {"employer"}},
        {"event_predicates": set()},
        {"one_holder": {"employer"}},
        {"one_holder": set()},
        {"events": True},
        {"events": False},
    ):
        kg.configure(**change)
        agree()
    frame = pl.DataFrame(
        {
            "subject": [f"bulk {i % 40}" for i in range(KEPT_WAIT + 50)],
            "predicate": ["located_in"] * (KEPT_WAIT + 50),
            "object": [f"place {i % 7}" for i in range(KEPT_WAIT + 50)],
            "valid_from": [f"20{10 + i % 15}-01-01" for i in range(KEPT_WAIT + 50)],
        }
    )
    import_facts(kg, frame, on_error="skip")
    assert waiting_ids(kg) == 0  # more than KEPT_WAIT: judged in the import's transaction
    agree()
    for name, fill in (("copy", lambda target: copy_graph(kg, target)), ("restore", lambda t: restore(t, dump(kg)))):
        with kgtoolkit.open(new_db(name)) as other:
            fill(other)
            whole = kg.conflicts(limit=None)
            assert other.conflicts(limit=None) == whole
            assert other.conflicts_needing_action() == kg.conflicts_needing_action()
            assert_pages_agree(other, [None], (5,), pages=3)


def kept_state_of(kg: KnowledgeGraph) -> int | None:
    with kg.engine.read() as cur:
        return kept_state(cur)


def test_a_graph_of_the_schema_before_gains_the_judgement(db_path: Path | str) -> None:
    """A graph of schema step 13 migrates (its tables made, empty); its first write judges every group; every page
    then reads as judged whole, before and after that write."""
    today = dt.datetime.now(dt.UTC).date()
    with kgtoolkit.open(db_path) as kg:
        add_generated(kg, 800, seed=11, start=(today - dt.timedelta(days=500)).isoformat(), days=900)
        before = kg.conflicts(limit=None)
    postgres = str(db_path).startswith("postgresql://")
    previous = schema_step("conflict_kept")
    version = f"UPDATE kgtoolkit_schema SET version = {previous}" if postgres else f"PRAGMA user_version = {previous}"
    run_sql(db_path, *undo_steps(previous, "postgresql" if postgres else "sqlite"), version)
    with kgtoolkit.open(db_path) as kg:
        assert kept_state_of(kg) is None  # never judged: reads judge every group
        assert kg.conflicts(limit=None) == before
        kg.add("after migration", "works_for", "acme", valid_from="2020-01-01")
        assert kept_state_of(kg) is not None and waiting_ids(kg) == 0  # the write judged every group
        assert_pages_agree(kg, [None], (4,), pages=3)
        assert check(kg).differences["conflict_kept"] == 0

"""The dashboard's first views asked of the engine (issue #32), each the twin of the whole-frame path it replaced, on
both engines: the Graph page's overview (``data.graph_overview``: the most connected entities ranked in SQL, the
facts among them read alone) is the very ``GraphView`` that ``graphview.build`` makes of the whole frame valid then;
the entity pickers' ranking (``data.entity_ranking``) is ``analysis.most_connected`` of the whole frame; the Entity
page's lists (``data.entity_page_facts``) are ``data.entity_facts`` of the whole frame; the Conflicts page's counts
and each page of groups (``data.conflict_counts``, ``data.conflict_page``) are those of ``data.conflict_table`` of
the whole frame, and so are each group's facts."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, frames
from kgtoolkit.dashboard import data, graphview
from kgtoolkit.generate import generate
from kgtoolkit.store import graph_counts, import_facts, predicates_in_use
from kgtoolkit.store.engine import _sqlite

WINDOWS = [None, "2024-03-15", "2024-06", "2025", "2024-01-01/2024-02-29", "1990-01-01"]


def _whole(kg: KnowledgeGraph, window: str | None) -> pl.DataFrame:
    """The frame the Graph page drew from before: every fact, labelled, kept to the window (kgdash.facts_as_of)."""
    return frames.valid_at(data.labelled(frames.facts(kg), kg.predicate_labels(), alias="predicate_label"), window)


def same_overviews(
    kg: KnowledgeGraph,
    windows: list[str | None],
    caps: tuple[int, ...],
    centres: int = 3,
    hops: tuple[int, ...] = (1, 2),
) -> None:
    """The overview, and the neighbourhoods of a few entities (the most connected, a middling one, the last)."""
    labels = kg.predicate_labels()
    preds = sorted(p.id for p in kg.predicates())
    types = sorted(kg.stats().entities_by_type)
    filters: list[tuple[list[str] | None, list[str] | None]] = [(None, None), (preds[:2], None), (None, types[:1])]
    filters.append((preds[1:3], types[:2]))
    ids = analysis.most_connected(frames.facts(kg), frames.entities(kg))["id"].to_list()
    chosen = [ids[i] for i in sorted({0, len(ids) // 2, len(ids) - 1})][:centres] if ids else []
    centres_hops = [(c, h) for c in chosen for h in hops]
    for window in windows:
        whole = _whole(kg, window)
        for cap, (p, t) in itertools.product(caps, filters):
            want = graphview.build(whole, predicates=p, types=t, max_nodes=cap)
            got = data.graph_overview(kg, window, labels, predicates=p, types=t, max_nodes=cap)
            assert got == want, (window, cap, p, t)
        for center, hop in centres_hops:
            for cap, (p, t) in itertools.product(caps[:3], filters):
                want = graphview.build(whole, center=center, hops=hop, predicates=p, types=t, max_nodes=cap)
                got = data.graph_overview(
                    kg, window, labels, center=center, hops=hop, predicates=p, types=t, max_nodes=cap
                )
                assert got == want, (window, center, hop, cap, p, t)


def same_pickers_and_entity_pages(kg: KnowledgeGraph, windows: list[str | None]) -> None:
    facts = frames.facts(kg)
    ranking = analysis.most_connected(facts, frames.entities(kg))
    assert_frame_equal(data.entity_ranking(kg), ranking)
    assert_frame_equal(data.entity_ranking(kg, limit=7), ranking.head(7))
    some = ranking["id"].to_list()[::5][:6]
    assert_frame_equal(data.entity_ranking(kg, ids=some), ranking.filter(pl.col("id").is_in(some)))
    assert data.entity_ranking(kg, ids=[]).height == 0
    labelled = data.labelled(facts, kg.predicate_labels(), alias="predicate_label")
    for entity, window in itertools.product(ranking["id"].to_list()[:3] + ranking["id"].to_list()[-2:], windows):
        want = data.entity_facts(labelled, entity, window)
        got = data.entity_page_facts(kg, entity, window, kg.predicate_labels())
        for name in ("history", "current", "valid", "cited"):
            assert_frame_equal(getattr(got, name), getattr(want, name))
        assert got.ended == want.ended


_FROM_NOW = ["overlap", "open_for"]


def same_counts(kg: KnowledgeGraph) -> None:
    """The sidebar's counts and the Graph page's predicate list, read on indexes (``graph_counts``,
    ``predicates_in_use``), are those of ``kg.stats()`` and ``kg.predicates()``."""
    stats, counted = kg.stats(), graph_counts(kg)
    assert predicates_in_use(kg) == counted.predicates == tuple(sorted(p.id for p in kg.predicates()))
    assert (counted.entities, dict(counted.entities_by_type), counted.facts, len(counted.predicates)) == (
        stats.entities,
        dict(stats.entities_by_type),
        stats.facts,
        stats.predicates,
    )
    assert (counted.aliases, counted.memories) == (stats.aliases, stats.memories)


def bounded(whole: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """The whole table's rows as a page of the engine lists them (issue 43): each group's facts cut to those
    ``data.listed_facts`` lists (its last ended ones), ``history_more`` the ended facts left out, ``object_names``
    and ``subject_names`` those of the facts listed."""
    listed = [data.listed_facts(data.group_facts(whole, ids)) for ids in rows["facts"].to_list()]
    key = pl.when(pl.col("object_is_value")).then(pl.col("object").str.to_lowercase()).otherwise(pl.col("object"))
    names = [kept.unique(key, keep="first", maintain_order=True)["object_name"].to_list() for kept, _ in listed]
    holders = [
        kept.unique("subject", keep="first", maintain_order=True)["subject_name"].to_list() for kept, _ in listed
    ]
    return rows.with_columns(
        pl.Series("object_names", names, dtype=rows.schema["object_names"]),
        pl.Series("subject_names", holders, dtype=rows.schema["subject_names"]),
        pl.Series("facts", [kept["id"].to_list() for kept, _ in listed], dtype=rows.schema["facts"]),
        pl.Series("history_more", [more for _, more in listed], dtype=pl.Int64),
    )


def same_conflict_pages(kg: KnowledgeGraph, per_page: int) -> None:
    labels = kg.predicate_labels()
    whole = data.labelled(frames.facts(kg), labels, alias="predicate_label")
    config = kg.config
    table = data.conflict_table(
        whole, labels, config.multi_valued, one_holder=config.one_holder, single_valued=config.single_valued
    )
    needing = data.conflict_groups(table, needs_only=True, text="")
    assert data.conflict_counts(kg) == (table.height, needing.height)
    for needs_only in (True, False):
        shown = data.conflict_groups(table, needs_only=needs_only, text="")
        for page in range(1, data.page_count(shown.height, per_page) + 2):  # and one past the last
            found = data.conflict_page(kg, labels, needs_only=needs_only, page=page, per_page=per_page)
            assert found.total == shown.height
            want = bounded(whole, data.page_of(shown, page, per_page))
            assert_frame_equal(found.groups.drop(_FROM_NOW), want.drop(_FROM_NOW))  # durations to now: read apart
            for column in _FROM_NOW:
                assert found.groups[column].is_null().to_list() == want[column].is_null().to_list()
            for ids in found.groups["facts"].to_list():
                assert_frame_equal(data.group_facts(found.facts, ids), data.group_facts(whole, ids))


def test_generated_graphs_draw_and_rank_the_same_from_the_engine(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"criticize"})
    import_facts(kg, generate(2_500, seed=11, start="2023-11-20", days=900), allow_commas=True)
    kg.add("China", "criticize", "Japan", valid_from="2024-02-29", valid_to="2024-02-29")
    kg.add("Acme", "likes", "Acme", valid_from="2024-03-01")  # a fact from an entity to itself
    kg.add("Acme", "email", "a@acme.example", valid_from="2024-01-01")
    kg.alias("Acme Incorporated", "Acme")
    kg.remember("a memory", source="test")
    for i in range(30):  # a history longer than a page lists (issue 43)
        day = dt.date(2023, 12, 1) + dt.timedelta(days=3 * i)
        kg.add(
            "Acme", "owned_by", f"team {i % 3}", valid_from=day.isoformat(), valid_to=str(day + dt.timedelta(days=1))
        )
    kg.add("Acme", "owned_by", "team 1", valid_from="2024-06-01")
    kg.configure(one_holder={"chairs"}, single_valued={"chairs"})  # groups by object too, bounded alike
    for i in range(26):
        day = dt.date(2023, 12, 2) + dt.timedelta(days=4 * i)
        kg.add(
            f"chair {i % 4}", "chairs", "Board", valid_from=day.isoformat(), valid_to=str(day + dt.timedelta(days=2))
        )
    kg.add("Ann", "chairs", "Board", valid_from="2024-05-01")
    kg.add("Ben", "chairs", "Board", valid_from="2024-06-01")
    kg.add("chair 0", "chairs", "Audit", valid_from="2023-01-01", valid_to="2023-06-01")
    same_overviews(kg, WINDOWS, (1, 10, 120, 500), hops=(1, 2, 3))
    same_pickers_and_entity_pages(kg, [None, "2024-06", "2024-01-01/2024-02-29"])
    same_conflict_pages(kg, 7)
    every = data.conflict_page(kg, kg.predicate_labels(), needs_only=True, page=1, per_page=10_000).groups
    board = every.filter(pl.col("by") == "object").row(0, named=True)
    assert (board["object_name"], board["subjects"], board["history_more"]) == ("Board", 6, 6)
    assert board["current_subjects"] == ["Ann", "Ben"] and board["open_since"] is not None
    same_counts(kg)


def test_a_graph_of_value_facts_only_and_an_empty_one_draw_the_same(kg: KnowledgeGraph) -> None:
    same_overviews(kg, [None, "2026-01-01"], (1, 5))
    same_pickers_and_entity_pages(kg, [None])
    same_conflict_pages(kg, 3)
    same_counts(kg)
    for i in range(8):
        kg.add(f"svc{i}", "email", f"svc{i}@acme.example", valid_from="2025-01-01")
        kg.add(f"svc{i}", "url", f"https://svc{i}.example")
    same_overviews(kg, [None, "2025-06-01", "2024-06-01"], (1, 5, 20))
    same_pickers_and_entity_pages(kg, [None, "2025"])
    same_counts(kg)


_names = st.sampled_from(["a", "b", "c", "d", "e", "f", "B", "é", "a b"])
_days = st.sampled_from([None, "2024-01-01", "2024-03-15", "2024-06-30", "2025-01-01"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(_names, st.sampled_from(["uses", "owns", "email"]), _names, _days, _days), min_size=0, max_size=25
    ),
    cap=st.integers(1, 6),
)
def test_any_small_graph_draws_the_same_from_the_engine(
    rows: list[tuple[str, str, str, str | None, str | None]], cap: int
) -> None:
    """Ties in degree cut at the cap, self loops, entities named alike, open and closed intervals: the same view."""
    with kgtoolkit.open(":memory:") as kg:
        kg.configure(value_predicates={"email"})
        for subject, predicate, obj, start, end in rows:
            if start is not None and end is not None and end < start:
                start, end = end, start
            kg.add(subject, predicate, obj, valid_from=start, valid_to=end)
        same_overviews(kg, [None, "2024-03-15", "2024"], (cap,), centres=3, hops=(1, 3))
        same_counts(kg)


def test_the_reader_process_binds_every_listed_parameter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A big SQLite graph is read in the reader process, where ``:name`` parameters become positional: names with
    digits (``:i0``, ``:i1``, … of an id list) were left unbound there ("parameter count mismatch", the Graph page's
    first view at 100,000 facts), while small graphs read in process passed."""
    with kgtoolkit.open(tmp_path / "big.sqlite3") as kg:
        import_facts(kg, generate(400, seed=3, start="2024-01-01", days=200), allow_commas=True)
        labels, here = kg.predicate_labels(), data.graph_overview(kg, None, kg.predicate_labels(), max_nodes=40)
        ids = [i for e in here.edges for i in e.ids]
        monkeypatch.setattr(_sqlite, "SMALL", 0)  # every table read in the reader process
        assert data.graph_overview(kg, None, labels, max_nodes=40) == here
        assert frames.facts_with_ids(kg, ids)["id"].to_list() == sorted(ids)


@pytest.mark.parametrize("bad", [0, -1, True])
def test_a_cap_below_one_is_refused_as_build_refuses_it(kg: KnowledgeGraph, bad: int) -> None:
    with pytest.raises(kgtoolkit.InvalidRequest):
        data.graph_overview(kg, None, {}, max_nodes=bad)

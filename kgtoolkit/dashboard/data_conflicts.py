"""The data behind the Conflicts page: one page of conflict groups asked of the engine (:func:`conflict_page`), or
every group from a facts frame (:func:`conflict_table`), and what a group lists and offers. No Streamlit here;
:mod:`kgtoolkit.dashboard.data` re-exports every name."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal

import polars as pl

import kgtoolkit
from kgtoolkit import analysis, frames
from kgtoolkit.dashboard._labels import labelled

__all__ = [
    "PAGE_HISTORY",
    "ConflictPage",
    "conflict_groups",
    "conflict_page",
    "conflict_table",
    "current_choices",
    "fact_row",
    "group_facts",
    "listed_facts",
]


def conflict_table(
    facts: pl.DataFrame,
    labels: Mapping[str, str],
    multi_valued: Collection[str],
    *,
    one_holder: Collection[str] = (),
    single_valued: Collection[str] = (),
) -> pl.DataFrame:
    """The conflict groups (:func:`kgtoolkit.analysis.conflicts`: pass the graph's ``multi_valued``, ``one_holder`` and
    ``single_valued``; whole groups, every fact of each), those needing action first, each with its
    ``predicate_label`` and ``history_more`` (0: the whole history is listed)."""
    found = analysis.conflicts(facts, multi_valued=multi_valued, one_holder=one_holder, single_valued=single_valued)
    return labelled(found, labels, alias="predicate_label").with_columns(pl.lit(0, pl.Int64).alias("history_more"))


#: How many ended facts a group of the Conflicts page lists (the last ended; contract §5 ``conflicts``).
PAGE_HISTORY = 20


@dataclasses.dataclass(frozen=True, slots=True)
class ConflictPage:
    """One page of conflict groups as the Conflicts page lists them: ``groups`` (rows shaped as those of
    :func:`conflict_table`, the page's alone), ``facts`` (the facts the page's groups carry, labelled), ``total``
    (the groups on every page)."""

    groups: pl.DataFrame
    facts: pl.DataFrame
    total: int


def conflict_page(
    kg: kgtoolkit.KnowledgeGraph,
    labels: Mapping[str, str],
    *,
    needs_only: bool,
    page: int,
    per_page: int,
    history: int = PAGE_HISTORY,
) -> ConflictPage:
    """Page ``page`` (from 1) of the conflict groups (those needing action when ``needs_only``), judged and cut in
    the engine (:meth:`KnowledgeGraph.conflicts`), each with its current and scheduled facts and its last
    ``history`` ended ones; only those facts are read (:func:`kgtoolkit.frames.facts_with_ids`). The rows are the
    groups' records (their judgement and counts, ``history_more`` the ended facts not carried; ``object_names``
    those of the facts carried) beside the overlap columns :func:`kgtoolkit.analysis.conflicts` computes from their
    current facts (all carried)."""
    found = kg.conflicts(needs_action=needs_only, limit=per_page, offset=(page - 1) * per_page, history=history)
    facts = labelled(
        frames.facts_with_ids(kg, [f.id for g in found.items for f in g.facts]), labels, alias="predicate_label"
    )
    schema = analysis.CONFLICTS_SCHEMA
    groups = found.items
    records = pl.DataFrame(
        {
            "subject": [g.subject for g in groups],
            "subject_name": [g.subject_name for g in groups],
            "predicate": [g.predicate for g in groups],
            "objects": [g.objects for g in groups],
            "object_names": [_distinct_names(g.facts, "object") for g in groups],
            "facts": [[f.id for f in g.facts] for g in groups],
            "current": [g.current for g in groups],
            "needs_action": [g.needs_action for g in groups],
            "current_objects": [[f.object_name for f in g.facts if f.state == "current"] for g in groups],
            "scheduled": [g.scheduled for g in groups],
            "planned_switch": [g.planned_switch for g in groups],
            "switch_overlaps": [g.switch_overlaps for g in groups],
            "by": [g.by for g in groups],
            "object": [g.object for g in groups],
            "object_name": [g.object_name for g in groups],
            "subjects": [g.subjects for g in groups],
            "subject_names": [_distinct_names(g.facts, "subject") for g in groups],
            "current_subjects": [[f.subject_name for f in g.facts if f.state == "current"] for g in groups],
            "history_more": [g.history_more for g in groups],
        },
        schema={**{k: schema[k] for k in schema if k not in _OVERLAP}, "history_more": pl.Int64()},
    )
    config = kg.config
    overlap = analysis.conflicts(
        facts, multi_valued=config.multi_valued, one_holder=config.one_holder, single_valued=config.single_valued
    ).select("by", "predicate", _anchor(), *_OVERLAP)
    table = records.with_columns(_anchor()).join(
        overlap, on=["by", "predicate", "_anchor"], how="left", maintain_order="left"
    )
    table = labelled(table.select(*schema, "history_more"), labels, alias="predicate_label")
    return ConflictPage(table.select(*schema, "predicate_label", "history_more"), facts, found.total)


def _distinct_names(facts: Iterable[kgtoolkit.Fact], side: Literal["subject", "object"]) -> list[str]:
    """The names of the distinct objects (or subjects) among ``facts`` (those a group carries), each once, in their
    order (value objects compared case-insensitively, entity objects by id, as :func:`kgtoolkit.analysis.conflicts`
    does)."""
    seen: dict[str, str] = {}
    for f in facts:
        if side == "subject":
            seen.setdefault(f.subject, f.subject_name)
        else:
            seen.setdefault(f.object_key, f.object_name)
    return list(seen.values())


def _anchor() -> pl.Expr:
    """Which group a row of :func:`conflict_table` is, beside ``by`` and ``predicate``: its subject, or (by object)
    its object case-folded (an entity id is case-folded already; a value is compared case-insensitively), whichever
    of the object's spellings the row names."""
    folded = pl.col("object").map_batches(
        lambda s: pl.Series(s.name, [None if v is None else v.casefold() for v in s.to_list()], dtype=pl.String),
        return_dtype=pl.String,
    )
    return pl.when(pl.col("by") == "object").then(folded).otherwise(pl.col("subject")).alias("_anchor")


#: The columns of :data:`kgtoolkit.analysis.CONFLICTS_SCHEMA` about a group's current facts overlapping.
_OVERLAP = ("overlap_start", "overlap", "open_since", "open_for")


def conflict_groups(table: pl.DataFrame, *, needs_only: bool, text: str) -> pl.DataFrame:
    """The groups the page lists: those needing action when ``needs_only``, and those whose subject (its id or
    name; the object of a one-holder group) or predicate contains ``text`` (ignoring case) when it is not blank."""
    shown = table.filter(pl.col("needs_action")) if needs_only else table
    probe = text.strip().casefold()
    if probe:
        shown = shown.filter(
            pl.coalesce("subject", "object").str.contains(probe, literal=True)
            | pl.coalesce("subject_name", "object_name").str.to_lowercase().str.contains(probe, literal=True)
            | pl.col("predicate").str.contains(probe, literal=True)
        )
    return shown


def group_facts(facts: pl.DataFrame, ids: Iterable[int]) -> pl.DataFrame:
    """The facts of a group (by id), oldest first."""
    return facts.filter(pl.col("id").is_in(list(ids))).sort("start", "id", nulls_last=True)


def listed_facts(members: pl.DataFrame, history: int = PAGE_HISTORY) -> tuple[pl.DataFrame, int]:
    """What a group lists of ``members`` (:func:`group_facts`): its facts not ended and its last ``history`` ended
    ones (the latest end first, as ``kg.conflicts`` cuts them), oldest first; and how many ended facts it leaves out."""
    ended = pl.col("state") == "ended"
    last = members.filter(ended).sort("end", "start", "id", descending=True, nulls_last=True).head(history)["id"]
    kept = members.filter(~ended | pl.col("id").is_in(last.implode()))
    return kept, members.height - kept.height


def current_choices(members: pl.DataFrame) -> dict[int, str]:
    """The current facts among ``members``: fact id → its object's name (what a group's form offers to end or replace)."""
    live = members.filter(pl.col("current"))
    return dict(zip(live["id"].to_list(), live["object_name"].to_list(), strict=True))


def fact_row(facts: pl.DataFrame, fact_id: int) -> dict[str, Any]:
    """One fact of the frame, as a row (``subject``, ``predicate``, ``object``…)."""
    return facts.filter(pl.col("id") == fact_id).row(0, named=True)

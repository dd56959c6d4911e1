"""Conflict groups (contract §5) over a whole facts frame in one pass: :func:`conflicts`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

import polars as pl

from .._names import not_by_subject
from ._shared import (
    _MOMENT,
    _SPAN,
    Frame,
    Moment,
    _empty,
    _frame,
    _now,
    _object_key,
    _out,
    _predicates,
    _typed,
)

#: :func:`conflicts`: one row per (subject, predicate) group with more than one distinct object, and per
#: (object, predicate) group of a one-holder predicate with more than one subject (``by``: ``subject`` or ``object``;
#: ``subject``/``subject_name`` are null in an object group, ``object``/``object_name`` in a subject group).
CONFLICTS_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(),
    "subject_name": pl.String(),
    "predicate": pl.String(),
    "objects": pl.Int64(),
    "object_names": pl.List(pl.String()),
    "facts": pl.List(pl.Int64()),
    "current": pl.Int64(),
    "needs_action": pl.Boolean(),
    "current_objects": pl.List(pl.String()),
    "overlap_start": _MOMENT,
    "overlap": _SPAN,
    "open_since": _MOMENT,
    "open_for": _SPAN,
    "scheduled": pl.Int64(),
    "planned_switch": pl.String(),
    "switch_overlaps": pl.Boolean(),
    "by": pl.String(),
    "object": pl.String(),
    "object_name": pl.String(),
    "subjects": pl.Int64(),
    "subject_names": pl.List(pl.String()),
    "current_subjects": pl.List(pl.String()),
}

#: The columns naming a group: its axis (0 by subject, 1 by object), its anchor (the subject, or the object's key)
#: and predicate.
_GROUP = ["_axis", "_anchor", "predicate"]


def _sorted_by_start(df: pl.DataFrame) -> pl.DataFrame:
    """Rows by ``start`` (unknown starts last), then ``id``: a sort by id, then a stable sort by start."""
    if not df["id"].is_sorted():
        df = df.sort("id", nulls_last=True)
    return df.sort("start", nulls_last=True, maintain_order=True)


def conflicts(
    facts: Frame,
    *,
    multi_valued: Iterable[str] = frozenset(),
    now: Moment = None,
    one_holder: Iterable[str] = frozenset(),
    single_valued: Iterable[str] = frozenset(),
) -> Frame:
    """Find the conflict groups of a facts frame (contract §5) in one pass, those needing action first.

    A group is a (subject, predicate) with more than one distinct object. Value objects compare
    case-insensitively, entity objects by id. A one-holder predicate is grouped by (object, predicate)
    with more than one subject instead; its ``subjects`` are the holders. Events (contract §12) are never
    in a conflict. Each group here is whole, every fact of its history listed; the store's
    :meth:`KnowledgeGraph.conflicts` carries a page of it.

    Parameters
    ----------
    facts
        A facts frame (:func:`kgtoolkit.frames.facts`, polars or pandas).
    multi_valued
        Predicates left out. Pass ``kg.config.multi_valued`` (and the next two lists) to match the store.
    now
        The moment durations run to (default: the current time).
    one_holder
        Predicates with one subject at a time per object, grouped by object.
    single_valued
        One-holder predicates grouped by subject too.

    Returns
    -------
    Frame
        The columns of :data:`CONFLICTS_SCHEMA`. ``objects`` and ``object_names``; ``facts`` (ids, by
        start, unknown starts last); ``current`` and ``needs_action`` (more than one current fact);
        ``overlap_start``, ``overlap``, ``open_since`` and ``open_for`` for groups with two current facts
        (durations up to ``now``, clipped at zero); ``scheduled``, ``planned_switch`` and
        ``switch_overlaps`` as :class:`~kgtoolkit.ConflictGroup` has them.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("svc", "owned_by", "team_a", valid_from="2026-01-01")
    >>> _ = kg.add("svc", "owned_by", "team_b", valid_from="2026-03-01")
    >>> row = conflicts(frames.facts(kg), now="2026-03-11").row(0, named=True)
    >>> row["needs_action"], row["current_objects"], row["open_for"].days
    (True, ['team_a', 'team_b'], 10)
    """
    moment = _now(now)
    df, was_pandas = _frame(facts)
    holders = _predicates(one_holder, "one_holder")
    by_subject = not_by_subject(
        _predicates(multi_valued), holders, _predicates(single_valued, "single_valued")
    )  # the store's rule, one home
    df = (
        df.filter(pl.col("kind") != "event")
        .select(
            "subject",
            "subject_name",
            "predicate",
            "object",
            "object_is_value",
            "object_name",
            "id",
            "current",
            "start",
            "state",
            "end",
            "valid_from",
            "valid_to",
        )
        .with_columns(_object_key())
    )
    df = pl.concat(
        [
            df.filter(~pl.col("predicate").is_in(sorted(by_subject))).with_columns(
                pl.lit(0).alias("_axis"), pl.col("subject").alias("_anchor"), pl.col("_key").alias("_other")
            ),
            df.filter(pl.col("predicate").is_in(holders)).with_columns(
                pl.lit(1).alias("_axis"), pl.col("_key").alias("_anchor"), pl.col("subject").alias("_other")
            ),
        ]
    )
    if df.height == 0:
        return _out(_empty(CONFLICTS_SCHEMA), was_pandas)
    # The store's order within a group (start, unknown starts last, then id) as two one-key sorts (the second
    # stable): far cheaper than one sort on several keys. group_by keeps each group's rows in frame order.
    df = _sorted_by_start(df).with_columns(
        pl.struct(*_GROUP, "_key").is_first_distinct().alias("_first"),
        pl.struct(*_GROUP, "subject").is_first_distinct().alias("_first_subject"),
    )
    known = pl.col("current") & pl.col("start").is_not_null()
    groups = (
        df.group_by(_GROUP)
        .agg(
            pl.col("subject").first(),
            pl.col("subject_name").first(),
            pl.col("object").first(),
            pl.col("object_name").first(),
            pl.col("_first").sum().cast(pl.Int64).alias("objects"),
            pl.col("object_name").filter(pl.col("_first")).alias("object_names"),
            pl.col("_first_subject").sum().cast(pl.Int64).alias("subjects"),
            pl.col("subject_name").filter(pl.col("_first_subject")).alias("subject_names"),
            pl.col("id").alias("facts"),
            pl.col("current").sum().cast(pl.Int64).alias("current"),
            pl.col("object_name").filter(pl.col("current")).alias("current_objects"),
            pl.col("subject_name").filter(pl.col("current")).alias("current_subjects"),
            pl.col("start").filter(pl.col("current")).max().alias("overlap_start"),
            # open_since is the second current start with unknown starts first: from these three.
            (pl.col("current") & pl.col("start").is_null()).sum().alias("_unknown"),
            pl.col("start").filter(known).first().alias("_first_known"),
            pl.col("start").filter(known).get(1, null_on_oob=True).alias("_second_known"),
            (pl.col("state") == "scheduled").sum().cast(pl.Int64).alias("scheduled"),
        )
        .filter(pl.when(pl.col("_axis") == 0).then(pl.col("objects")).otherwise(pl.col("subjects")) > 1)
        .with_columns(
            pl.when(pl.col("_axis") == 0).then(pl.lit("subject")).otherwise(pl.lit("object")).alias("by"),
            *(pl.when(pl.col("_axis") == 0).then(pl.col(c)).alias(c) for c in ("subject", "subject_name")),
            *(pl.when(pl.col("_axis") == 1).then(pl.col(c)).alias(c) for c in ("object", "object_name")),
        )
    )
    groups = _planned_switches(df, groups).with_columns(
        ((pl.col("current") > 1) | pl.col("switch_overlaps")).alias("needs_action")
    )
    now_lit = pl.lit(moment).cast(_MOMENT)

    def since(column: str) -> pl.Expr:
        span = now_lit - pl.col(column)
        return pl.when(span < dt.timedelta(0)).then(pl.lit(dt.timedelta(0))).otherwise(span).cast(_SPAN)

    needs = pl.col("current") > 1  # the overlap columns are about current facts (not a planned switch)
    second = (
        pl.when(pl.col("_unknown") >= 2)
        .then(None)
        .when(pl.col("_unknown") == 1)
        .then(pl.col("_first_known"))
        .otherwise(pl.col("_second_known"))
    )
    groups = groups.with_columns(
        pl.when(needs).then(pl.col("overlap_start")).alias("overlap_start"),
        pl.when(needs).then(second).alias("open_since"),
    ).with_columns(since("overlap_start").alias("overlap"), since("open_since").alias("open_for"))
    groups = groups.sort(["needs_action", "_anchor", "predicate", "_axis"], descending=[True, False, False, False])
    return _out(_typed(groups, CONFLICTS_SCHEMA), was_pandas)


def _planned_switches(df: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """``planned_switch`` and ``switch_overlaps`` of each group, as the store's ``_conflict_group`` decides them:
    at the first scheduled fact S's start, when a started fact of another object is open-ended (overlapping) or
    ends on or after S's start (overlapping when it ends after S's start day; a date end is its whole day). In a
    group by object (a one-holder predicate), "another object" is another subject (``_other``)."""
    scheduled = pl.col("state") == "scheduled"
    firsts = (
        df.filter(scheduled)
        .group_by(_GROUP, maintain_order=True)
        .agg(
            pl.col("start").first().alias("_s_start"),
            pl.col("valid_from").first().alias("_s_text"),
            pl.col("_other").first().alias("_s_key"),
        )
        .join(groups.select(_GROUP), on=_GROUP, how="semi")
    )
    day = dt.timedelta(days=1) - dt.timedelta(microseconds=1)
    end_lo = pl.when(pl.col("valid_to").str.contains("T")).then(pl.col("end")).otherwise(pl.col("end") - day)
    other = (pl.col("_other") != pl.col("_s_key")) & ~scheduled
    open_end = pl.col("end").is_null()
    flags = (
        df.join(firsts, on=_GROUP, how="inner")
        .group_by(_GROUP)
        .agg(
            (other & (open_end | (pl.col("end") >= pl.col("_s_start")))).any().alias("_running"),
            (other & (open_end | (end_lo > pl.col("_s_start")))).any().alias("switch_overlaps"),
            pl.col("_s_text").first(),
        )
        .select(
            *_GROUP,
            pl.when(pl.col("_running")).then(pl.col("_s_text")).alias("planned_switch"),
            pl.col("switch_overlaps") & pl.col("_running"),
        )
    )
    return groups.join(flags, on=_GROUP, how="left", maintain_order="left").with_columns(
        pl.col("switch_overlaps").fill_null(False)
    )

"""Rankings, most first: the most volatile entities, subjects or predicates (:func:`most_volatile`), the
(subject, predicate) pairs whose object changed most (:func:`most_changed`) and the best-connected entities
(:func:`most_connected`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Literal

import polars as pl

from .._checks import whole_number
from .._errors import InvalidRequest
from ..frames import named_entities
from ..graph import KnowledgeGraph
from ..store import changing_pair_facts, connected_counts, most_changed_pairs, volatile_counts
from ._shared import (
    _MOMENT,
    Frame,
    Moment,
    _empty,
    _frame,
    _moment,
    _object_key,
    _occurred_at,
    _out,
    _predicates,
    _typed,
    _window,
)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: What :func:`most_volatile` groups by: an entity on either side of a fact, the subject only, or the predicate.
VolatileBy = Literal["entity", "subject", "predicate"]


#: :func:`most_volatile` after its key column(s) (``entity`` and ``entity_name``, ``subject`` and
#: ``subject_name``, or ``predicate``).
VOLATILE_SCHEMA: dict[str, pl.DataType] = {
    "changes": pl.Int64(),
    "added": pl.Int64(),
    "ended": pl.Int64(),
    "facts": pl.Int64(),
    "current": pl.Int64(),
    "events": pl.Int64(),
}
#: :func:`most_changed`.
MOST_CHANGED_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(),
    "subject_name": pl.String(),
    "predicate": pl.String(),
    "changes": pl.Int64(),
    "facts": pl.Int64(),
    "objects": pl.Int64(),
    "history": pl.List(pl.String()),
    "current_objects": pl.List(pl.String()),
    "first_start": _MOMENT,
    "last_change": _MOMENT,
}


#: :func:`most_connected`.
CONNECTED_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(),
    "name": pl.String(),
    "type": pl.String(),
    "facts": pl.Int64(),
    "outgoing": pl.Int64(),
    "incoming": pl.Int64(),
}


def _microseconds(moment: dt.datetime | None) -> int | None:
    """A UTC datetime as microseconds since 1970 (the store's instant keys), None as None."""
    return None if moment is None else (moment - _EPOCH) // dt.timedelta(microseconds=1)


def most_volatile(
    facts: Frame | KnowledgeGraph,
    *,
    by: VolatileBy = "entity",
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
) -> Frame:
    """Rank the entities, subjects or predicates by their changes, most first.

    ``changes`` is ``added`` (state facts started in the window; unknown starts never count) + ``ended``
    (state facts ended then) + ``events`` (events that occurred then, contract §12). ``facts`` and
    ``current`` count the group's facts whatever the window. Groups without changes are left out; ties go
    by key.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph, the counts are grouped in the engine
        (``kgtoolkit.store.volatile_counts``) and the answer equals this function's on ``frames.facts(kg)``.
    by
        ``"entity"`` counts a fact for each entity on either side (its subject, and its object unless a
        value or the subject itself), so a hub that is mostly an object counts too. ``"subject"`` counts the
        subject side only. ``"predicate"`` counts per predicate.
    top
        Keep this many groups (None: all).
    since, until
        The window of the changes (default: all time).

    Returns
    -------
    Frame
        ``entity, entity_name``, ``subject, subject_name`` or ``predicate``, then :data:`VOLATILE_SCHEMA`.

    Raises
    ------
    InvalidRequest
        A bad ``by`` or ``top``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("a", "uses", "x", valid_from="2026-01-01")
    >>> _ = kg.supersede("a", "uses", "x", "y", at="2026-02-01")
    >>> _ = kg.add("b", "uses", "x", valid_from="2026-01-01")
    >>> most_volatile(frames.facts(kg), by="subject").select("subject", "changes").rows()
    [('a', 3), ('b', 1)]
    >>> most_volatile(frames.facts(kg)).select("entity", "changes").rows()
    [('a', 3), ('x', 3), ('b', 1), ('y', 1)]
    """
    if by not in ("entity", "subject", "predicate"):
        raise InvalidRequest(f"by must be 'entity', 'subject' or 'predicate', not {by!r}", field="by", value=str(by))
    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    named = by in ("entity", "subject")
    keys = [by, f"{by}_name"] if named else ["predicate"]
    schema = {k: pl.String() for k in keys} | VOLATILE_SCHEMA
    if isinstance(facts, KnowledgeGraph):  # counted in the engine, ranked here (the engines' collations differ)
        counted = volatile_counts(facts, by, _microseconds(lo), _microseconds(hi), top=top)
        table = counted.with_columns((pl.col("added") + pl.col("ended") + pl.col("events")).alias("changes")).sort(
            ["changes", by], descending=[True, False]
        )
        return _typed(table if top is None else table.head(top), schema)
    df, was_pandas = _frame(facts)
    if by == "entity":  # each fact once per entity side: the subject, and an entity object other than it
        sides = ["start", "end", "current", "kind"]
        df = pl.concat(
            [
                df.select(pl.col("subject").alias("entity"), pl.col("subject_name").alias("entity_name"), *sides),
                df.filter(~pl.col("object_is_value") & (pl.col("object") != pl.col("subject"))).select(
                    pl.col("object").alias("entity"), pl.col("object_name").alias("entity_name"), *sides
                ),
            ]
        )
    state = pl.col("kind") != "event"
    df = df.with_columns(_occurred_at().alias("_occurred"))
    table = (
        df.group_by(by)
        .agg(
            *([pl.col(f"{by}_name").first()] if named else []),
            (_window("start", lo, hi) & state).sum().cast(pl.Int64).alias("added"),
            (_window("end", lo, hi) & state).sum().cast(pl.Int64).alias("ended"),
            pl.len().cast(pl.Int64).alias("facts"),
            pl.col("current").sum().cast(pl.Int64).alias("current"),
            (_window("_occurred", lo, hi) & ~state).sum().cast(pl.Int64).alias("events"),
        )
        .with_columns((pl.col("added") + pl.col("ended") + pl.col("events")).alias("changes"))
        .filter(pl.col("changes") > 0)
        .sort(["changes", by], descending=[True, False])
    )
    if top is not None:
        table = table.head(top)
    return _out(_typed(table, schema), was_pandas)


def most_changed(
    facts: Frame | KnowledgeGraph,
    *,
    top: int | None = 10,
    since: Moment = None,
    until: Moment = None,
    multi_valued: Iterable[str] = frozenset(),
) -> Frame:
    """Rank the (subject, predicate) pairs whose object changed most often, most first.

    A pair's facts are ordered by start (unknown starts first: they hold "since always"), then id. Each
    fact whose object differs from the previous one's (values compared case-insensitively) is one change,
    dated by its start. Pairs without changes, events (contract §12) and multi-valued predicates are left
    out. Ties go by subject, then predicate.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph, the engine ranks the pairs
        (``kgtoolkit.store.most_changed_pairs``) and reads only the kept pairs' facts; the answer equals
        this function's on ``frames.facts(kg)``.
    top
        Keep this many pairs (None: all).
    since, until
        Count only changes dated in this window (so changes at an unknown time do not).
    multi_valued
        Predicates left out (pass ``kg.config.multi_valued``).

    Returns
    -------
    Frame
        The columns of :data:`MOST_CHANGED_SCHEMA`: ``changes``; ``history``, the objects in order with
        repeats in a row collapsed; ``current_objects``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2025-01-01")
    >>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2025-06-01")
    >>> _ = kg.supersede("my_api", "uses_queue", "SQLite", "Redis", at="2026-01-01")
    >>> most_changed(frames.facts(kg)).select("changes", "history", "current_objects").rows()
    [(2, ['Redis', 'SQLite', 'Redis'], ['Redis'])]
    """
    whole_number(top, field="top", allow_none=True)
    lo, hi = _moment(since, field="since"), _moment(until, field="until", end=True)
    if isinstance(facts, KnowledgeGraph):  # only the facts of pairs that can have changed: of the top ones, if cut
        mv = _predicates(multi_valued)
        pairs = None if top is None else most_changed_pairs(facts, mv, top, _microseconds(lo), _microseconds(hi))
        if pairs is not None and not pairs:
            return _out(_empty(MOST_CHANGED_SCHEMA), False)
        facts = changing_pair_facts(facts, mv, pairs=pairs)
    df, was_pandas = _frame(facts)
    df = df.filter(~pl.col("predicate").is_in(_predicates(multi_valued)) & (pl.col("kind") != "event")).with_columns(
        _object_key()
    )
    if df.height == 0:
        return _out(_empty(MOST_CHANGED_SCHEMA), was_pandas)
    pair = ["subject", "predicate"]
    df = df.sort([*pair, "start", "id"], nulls_last=False).with_columns(
        (pl.col("_key") != pl.col("_key").shift(1)).over(pair).fill_null(False).alias("_changed"),
        (pl.int_range(pl.len()).over(pair) == 0).alias("_first"),
    )
    counted = pl.col("_changed")
    if lo is not None or hi is not None:
        counted = counted & _window("start", lo, hi)
    table = (
        df.group_by(pair, maintain_order=True)
        .agg(
            pl.col("subject_name").first(),
            counted.sum().cast(pl.Int64).alias("changes"),
            pl.len().cast(pl.Int64).alias("facts"),
            pl.col("_key").n_unique().cast(pl.Int64).alias("objects"),
            pl.col("object_name").filter(pl.col("_first") | pl.col("_changed")).alias("history"),
            pl.col("object_name").filter(pl.col("current")).alias("current_objects"),
            pl.col("start").min().alias("first_start"),  # the earliest known start
            pl.col("start").filter(pl.col("_changed")).max().alias("last_change"),
        )
        .filter(pl.col("changes") > 0)
        .sort(["changes", "subject", "predicate"], descending=[True, False, False])
    )
    if top is not None:
        table = table.head(top)
    return _out(_typed(table, MOST_CHANGED_SCHEMA), was_pandas)


def most_connected(facts: Frame | KnowledgeGraph, entities: Frame | None = None, *, top: int | None = None) -> Frame:
    """Rank the entities by the number of facts that touch them, most first: the dashboard's entity lists.

    ``outgoing`` counts the facts an entity is the subject of (value facts included). ``incoming`` counts
    the facts whose object it is. ``facts`` counts both; a fact from an entity to itself counts once in
    each. Ties go by id.

    Parameters
    ----------
    facts
        A facts frame or the graph itself. Given the graph, every entity is listed (those without facts
        with 0) and counted in the engine (``kgtoolkit.store.connected_counts``, cut at ``top`` in SQL).
        The answer equals ``most_connected(frames.facts(kg), frames.entities(kg), top=top)``.
    entities
        A frame like :func:`kgtoolkit.frames.entities` (``id``, ``name``, ``type``): every one is listed,
        named and typed as it says. Without it, the entities the facts name, named by their first fact.
        Refused when ``facts`` is the graph.
    top
        Keep this many entities (None: all). ``most_connected(kg, top=50)`` is an entity picker's list.

    Returns
    -------
    Frame
        The columns of :data:`CONNECTED_SCHEMA`.

    Raises
    ------
    InvalidRequest
        ``entities`` given with the graph, or a bad ``top``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import frames
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> _ = kg.add("billing", "uses_queue", "Redis")
    >>> _ = kg.add("billing", "email", "billing@acme.example")
    >>> _ = kg.add("idle", "note", "no relationships", subject_type="project")
    >>> most_connected(frames.facts(kg), top=3).select("id", "facts", "outgoing", "incoming").rows()
    [('billing', 2, 2, 0), ('redis', 2, 0, 2), ('idle', 1, 1, 0)]
    >>> most_connected(kg, top=3).equals(most_connected(frames.facts(kg), frames.entities(kg), top=3))
    True
    """
    whole_number(top, field="top", allow_none=True)
    if isinstance(facts, KnowledgeGraph):  # counted, ranked and cut in the engine
        if entities is not None:
            raise InvalidRequest(
                "given the graph, most_connected lists every entity of it; entities= is for a facts frame",
                field="entities",
            )
        counted = connected_counts(facts, top).with_columns((pl.col("outgoing") + pl.col("incoming")).alias("facts"))
        return _typed(counted, CONNECTED_SCHEMA)
    df, was_pandas = _frame(facts)
    outgoing = df.group_by("subject").agg(pl.len().cast(pl.Int64).alias("outgoing")).rename({"subject": "id"})
    incoming = (
        df.filter(~pl.col("object_is_value"))
        .group_by("object")
        .agg(pl.len().cast(pl.Int64).alias("incoming"))
        .rename({"object": "id"})
    )
    if entities is None:
        listed = named_entities(df)
    else:
        if not isinstance(entities, pl.DataFrame):
            entities = pl.from_pandas(entities)
        missing = [c for c in ("id", "name", "type") if c not in entities.columns]
        if missing:
            raise InvalidRequest(
                f"the entities frame has no {', '.join(missing)} column; build it with kgtoolkit.frames.entities(kg)",
                field=missing[0],
            )
        listed = entities.select(
            pl.col("id").cast(pl.String), pl.col("name").cast(pl.String), pl.col("type").cast(pl.String)
        ).unique("id", keep="first", maintain_order=True)
    table = (
        listed.join(outgoing, on="id", how="left")
        .join(incoming, on="id", how="left")
        .with_columns(pl.col("outgoing").fill_null(0), pl.col("incoming").fill_null(0))
        .with_columns((pl.col("outgoing") + pl.col("incoming")).alias("facts"))
        .sort(["facts", "id"], descending=[True, False])
    )
    if top is not None:
        table = table.head(top)
    return _out(_typed(table, CONNECTED_SCHEMA), was_pandas)

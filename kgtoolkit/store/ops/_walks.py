"""Traversal and diff over the engine: the arguments checked, one read, the walk of :mod:`._traversal` or :mod:`._diff`."""

from __future__ import annotations

from collections.abc import Sequence

from ..._limits import DEFAULT_MAX_FACTS
from ..._records import (
    Diff,
    DiffBy,
    Direction,
    Neighborhood,
    Paths,
)
from ..._time import TimeInput
from ..engine import (
    Backend,
    gc_paused,
)
from ..reads import _queries as q
from . import _traversal as t
from ._diff import diff


def neighbors(
    engine: Backend,
    name: str,
    *,
    hops: int = 1,
    direction: Direction = "both",
    predicates: Sequence[str] | None = None,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    max_facts: int = DEFAULT_MAX_FACTS,
    limit: int | None = 100,
    offset: int = 0,
) -> Neighborhood:
    """The neighbourhood of ``name``, walked in one read."""
    t.check_direction(direction)
    t.check_hops(hops, "hops")
    t.check_max_facts(max_facts)
    d = engine.dialect
    q.page(d, limit, offset)
    with engine.read() as cur, gc_paused():
        w = t.when(cur, d, as_of, known_at, during)
        preds = t.check_predicates(cur, d, predicates)
        return t.neighbors(
            cur,
            d,
            name,
            hops=hops,
            direction=direction,
            predicates=preds,
            w=w,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
        )


def paths(
    engine: Backend,
    source: str,
    target: str,
    *,
    max_hops: int = 4,
    direction: Direction = "both",
    predicates: Sequence[str] | None = None,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    time_respecting: bool = False,
    max_facts: int = DEFAULT_MAX_FACTS,
    limit: int | None = 10,
    offset: int = 0,
) -> Paths:
    """The paths from ``source`` to ``target``, found in one read."""
    t.check_direction(direction)
    t.check_hops(max_hops, "max_hops")
    t.check_max_facts(max_facts)
    d = engine.dialect
    q.page(d, limit, offset)
    with engine.read() as cur, gc_paused():
        w = t.when(cur, d, as_of, known_at, during)
        preds = t.check_predicates(cur, d, predicates)
        return t.paths(
            cur,
            d,
            source,
            target,
            max_hops=max_hops,
            direction=direction,
            predicates=preds,
            w=w,
            time_respecting=time_respecting,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
        )


def follow(
    engine: Backend,
    start: str,
    predicates: Sequence[str],
    *,
    direction: Direction = "outgoing",
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    time_respecting: bool = False,
    max_facts: int = DEFAULT_MAX_FACTS,
    limit: int | None = 100,
    offset: int = 0,
) -> Paths:
    """The paths from ``start`` along ``predicates``, in one read."""
    t.check_direction(direction)
    if isinstance(predicates, str):
        predicates = [predicates]
    t.check_hops(len(predicates), "predicates (how many)")
    t.check_max_facts(max_facts)
    d = engine.dialect
    q.page(d, limit, offset)
    with engine.read() as cur:
        w = t.when(cur, d, as_of, known_at, during)
        preds = [p for given in predicates for p in (t.check_predicates(cur, d, [given]) or [])]
        return t.follow(
            cur,
            d,
            start,
            preds,
            direction=direction,
            w=w,
            time_respecting=time_respecting,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
        )


def diff_between(
    engine: Backend,
    start: TimeInput,
    end: TimeInput,
    *,
    entity: str | None = None,
    predicates: Sequence[str] | None = None,
    by: DiffBy = "valid",
    limit: int | None = 100,
    offset: int = 0,
    renewals: bool = True,
) -> Diff:
    """What changed between ``start`` and ``end``, read in one snapshot."""
    with engine.read() as cur, gc_paused():
        return diff(
            cur,
            engine.dialect,
            start,
            end,
            entity=entity,
            predicates=predicates,
            by=by,
            limit=limit,
            offset=offset,
            renewals=renewals,
        )

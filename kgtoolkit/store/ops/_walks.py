"""Traversal over the engine: the arguments checked, one read, the walk of :mod:`._traversal`."""

from __future__ import annotations

from collections.abc import Sequence

from ..._records import (
    Direction,
    Neighborhood,
    Paths,
)
from ..._window import ReadWindow
from ..engine import (
    Backend,
    Dialect,
    gc_paused,
)
from ..reads import _queries as q
from . import _traversal as t


def _checked(
    engine: Backend, direction: str, hops: int, field: str, max_facts: int, limit: int | None, offset: int
) -> Dialect:
    """The engine's dialect, once a walk's arguments are checked (before anything is read)."""
    t.check_direction(direction)
    t.check_hops(hops, field)
    t.check_max_facts(max_facts)
    q.page(engine.dialect, limit, offset)
    return engine.dialect


def neighbors(
    engine: Backend,
    name: str,
    window: ReadWindow,
    hops: int,
    direction: Direction,
    predicates: Sequence[str] | None,
    max_facts: int,
    limit: int | None,
    offset: int,
) -> Neighborhood:
    """The neighbourhood of ``name`` in ``window``, walked in one read (the defaults are the facade's)."""
    d = _checked(engine, direction, hops, "hops", max_facts, limit, offset)
    with engine.read() as cur, gc_paused():
        w = t.when(cur, d, window)
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
    ends: tuple[str, str],
    window: ReadWindow,
    max_hops: int,
    direction: Direction,
    predicates: Sequence[str] | None,
    time_respecting: bool,
    max_facts: int,
    limit: int | None,
    offset: int,
) -> Paths:
    """The paths between ``ends`` (source, target) in ``window``, found in one read."""
    d = _checked(engine, direction, max_hops, "max_hops", max_facts, limit, offset)
    with engine.read() as cur, gc_paused():
        w = t.when(cur, d, window)
        preds = t.check_predicates(cur, d, predicates)
        return t.paths(
            cur,
            d,
            *ends,
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
    window: ReadWindow,
    direction: Direction,
    time_respecting: bool,
    max_facts: int,
    limit: int | None,
    offset: int,
) -> Paths:
    """The paths from ``start`` along ``predicates`` in ``window``, in one read."""
    if isinstance(predicates, str):
        predicates = [predicates]
    d = _checked(engine, direction, len(predicates), "predicates (how many)", max_facts, limit, offset)
    with engine.read() as cur:
        w = t.when(cur, d, window)
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

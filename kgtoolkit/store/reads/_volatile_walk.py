"""The most volatile entities found along the kept counts (contract §18, issue 47): the Churn page's ranking without a
pass over every fact when a few entities hold the most changes.

An entity's changes in any window (:func:`kgtoolkit.analysis.most_volatile`: state facts started and ended then,
events that occurred then) are at most twice its facts: each fact adds at most a start and an end. The rollups keep
every entity's facts (``rollup_entities``, its rank index ``outgoing + incoming``), so the walk reads the entities
most facts first, a batch at a time, counts each batch's changes exactly from its facts (read through the subject and
object indexes) and stops as soon as the ``top``-th count so far is above twice the facts of the next entity: no
entity not read can then enter the ranking, nor tie with its last row. Once ``top`` entities have changes, the facts
of the entities it may still have to read are known (a range of the rank index), so it gives up at once when they are
too many. The answer is the scan's
(:func:`~._rankings.volatile_counts`), exactly; only the time differs. The walk gives up (None: the caller scans)
when the counts are not up to date, inside :func:`~._rollups.scan_only`, or once it has read more than
:data:`BUDGET` of the graph's fact sides (a window where the busiest entities changed little).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..ops._rollups import covered
from . import _rollups

if TYPE_CHECKING:
    import polars as pl

    from .._graph_store import GraphStore

__all__ = ["BUDGET", "walk"]

#: The share of the graph's fact sides (``sum(outgoing + incoming)``) the walk reads at most before it gives up.
BUDGET = 0.25


def walk(
    kg: GraphStore,
    lo: int | None,
    hi: int | None,
    top: int,
    rows_frame: Callable[..., pl.DataFrame],
    volatile_query: Callable[..., tuple[str, Any]],
) -> pl.DataFrame | None:
    """The ``top`` most volatile entities from ``lo`` to ``hi`` (microseconds, None: open), as
    :func:`~._rankings.volatile_counts` returns them (``by="entity"``: unordered, the ``top`` rows), found along the
    kept counts in one snapshot; None when the walk does not apply or gives up (the caller scans). The caller lends
    its frame maker and its counting query (``rows_frame``, ``volatile_query``), so the two modules import one way."""
    import polars as pl

    if top < 1 or _rollups.source("most_connected") == "scan" or kg.engine.missing:
        return None
    d = kg.engine.dialect
    schema: dict[str, pl.DataType] = {"entity": pl.String(), "entity_name": pl.String()}
    schema |= {c: pl.Int64() for c in ("added", "ended", "facts", "current", "events")}
    with kg.engine.read() as cur:
        if not covered(cur):
            return None
        (total,) = cur.execute("SELECT COALESCE(sum(outgoing + incoming), 0) FROM rollup_entities").fetchone()
        budget, read = int(total) * BUDGET, 0
        found: list[tuple[Any, ...]] = []
        after: tuple[int, str] | None = None
        size = top
        while True:
            batch = _next_entities(cur, after, size)
            if not batch:  # every entity with a fact read: the ranking is whole
                break
            after = batch[-1]
            read += sum(n for n, _ in batch)
            sql, params = volatile_query(cur, d, "entity", lo, hi, ids="walk_ids")
            params["walk_ids"] = d.list_param(sorted(e for _, e in batch))
            found += cur.execute(sql, params).fetchall()
            found.sort(key=lambda r: (-(r[2] + r[3] + r[6]), r[0]))
            del found[top:]
            if len(found) == top:
                last = found[-1][2] + found[-1][3] + found[-1][6]
                if last > 2 * after[0]:
                    break  # the next entity has at most 2 × after[0] changes: below the last row kept
                if _sides_from(cur, last) > budget:
                    return None  # the walk would read past the budget before it could stop
            if read > budget:
                return None
            size *= 2
    return rows_frame(iter(found), schema)


def _next_entities(cur: Any, after: tuple[int, str] | None, size: int) -> list[tuple[int, str]]:
    """The next ``size`` entities by facts (most first, then by id) after ``after`` (facts, id): (facts, id)."""
    rank = "outgoing + incoming"
    where = f"{rank} > 0"
    params: dict[str, Any] = {"size": size}
    if after is not None:
        where += f" AND ({rank} < :n OR ({rank} = :n AND entity > :e))"
        params |= {"n": after[0], "e": after[1]}
    rows = cur.execute(
        f"SELECT {rank}, entity FROM rollup_entities WHERE {where} ORDER BY {rank} DESC, entity LIMIT :size", params
    ).fetchall()
    return [(int(n), str(e)) for n, e in rows]


def _sides_from(cur: Any, changes: int) -> int:
    """The fact sides of the entities that may still have ``changes`` changes or more (2 × facts ≥ ``changes``): what
    the walk reads at most before it stops, read along the rank index."""
    (n,) = cur.execute(
        "SELECT COALESCE(sum(outgoing + incoming), 0) FROM rollup_entities WHERE 2 * (outgoing + incoming) >= :c",
        {"c": changes},
    ).fetchone()
    return int(n)

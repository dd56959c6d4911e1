"""The most changed (subject, predicate) pairs found along the kept pairs (contract §18, issue 47): the Churn page's
"most changed" table without a sort of every state fact.

A pair's object changes at most once per state fact after its first (:func:`kgtoolkit.analysis.most_changed`: a
fact whose object differs from the previous one's), so its changes in any window are at most its state facts
less one. The rollups keep every pair's state facts by their bounds (``rollup_pairs``, ranked by
``rollup_pairs_rank``), so the walk reads the pairs most facts first, a batch at a time, leaving out the predicates
the question leaves out (multi-valued, declared events), counts each batch's changes exactly from the pairs' own
facts (:func:`~._rankings.pair_changes`), and stops as soon as no pair not read can reach the ``top``-th count so far,
nor tie with it and come first by (subject, predicate). The answer is the scan's
(:func:`~._rankings.most_changed_pairs`), exactly; only the time differs. The walk gives up (None: the caller scans)
when the counts are not up to date, inside :func:`~._rollups.scan_only`, or when it would read more than
:data:`BUDGET` of the graph's state facts (a window where the pairs with most facts changed little).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..ops._rollups import covered
from . import _queries as q
from . import _rollups

if TYPE_CHECKING:
    from .._graph_store import GraphStore

__all__ = ["BUDGET", "walk"]

#: The share of the graph's state facts the walk reads at most before it gives up.
BUDGET = 0.25
#: The pairs of the first batch (at least twice ``top``), and the most counted in one statement.
_FIRST, _BATCH = 32, 512

#: A pair as the rank index orders it: (state facts, subject, predicate).
_Pair = tuple[int, str, str]


def walk(
    kg: GraphStore,
    multi_valued: Sequence[str],
    top: int,
    lo: int | None,
    hi: int | None,
    pair_changes: Callable[..., dict[tuple[str, str], int]],
) -> list[tuple[str, str]] | None:
    """The ``top`` pairs with the most changes from ``lo`` to ``hi`` (microseconds, None: open), ranked as
    :func:`~._rankings.most_changed_pairs` ranks them, found along the kept pairs in one snapshot; None when the walk
    does not apply or gives up (the caller scans). The caller lends its counting function (``pair_changes``), so
    the two modules import one way."""
    if top < 1 or _rollups.source("most_changed") == "scan" or kg.engine.missing:
        return None
    d = kg.engine.dialect
    with kg.engine.read() as cur:
        if not covered(cur):
            return None
        rule = q.event_rule(cur)
        if rule.graph:
            return []  # every fact an event: no pair has a state fact
        left_out = sorted(set(multi_valued) | set(rule.predicates))
        (total,) = cur.execute("SELECT COALESCE(sum(facts - bound_events), 0) FROM rollup_predicates").fetchone()
        budget, read, checked = int(total) * BUDGET, 0, -1
        found: list[tuple[int, str, str]] = []  # (changes, subject, predicate), ranked
        after: _Pair | None = None
        size = max(2 * top, _FIRST)
        while True:
            batch = _next_pairs(cur, d, left_out, after, size)
            if not batch:  # every pair that can change read: the ranking is whole
                break
            after = batch[-1]
            read += sum(n for n, _, _ in batch)
            if read > budget:
                return None  # a window where the pairs with most facts changed little: the scan is the shorter
            counted = pair_changes(cur, d, multi_valued, lo, hi, [(s, p) for _, s, p in batch])
            found += [(n, s, p) for (s, p), n in counted.items() if n > 0]
            found.sort(key=lambda r: (-r[0], r[1], r[2]))
            del found[top:]
            if len(found) == top:
                last = found[-1]
                bound = after[0] - 1  # the most changes a pair not read can have
                if bound < last[0] or (bound == last[0] and (after[1], after[2]) >= (last[1], last[2])):
                    break  # a pair not read has fewer changes, or as many and comes after the last row kept
                if last[0] != checked:
                    checked = last[0]
                    if _facts_from(cur, d, left_out, checked + 1) > budget:
                        return None  # the walk would read past the budget before it could stop
            size = min(2 * size, _BATCH)
    return [(s, p) for _, s, p in found]


def _left_out(d: Any, left_out: Sequence[str], params: dict[str, Any]) -> str:
    """`` AND predicate NOT IN (…)`` for the predicates the question leaves out (bound in ``params``), or nothing."""
    if not left_out:
        return ""
    cond, bound = d.in_values("predicate", "left_out", list(left_out))
    params.update(bound)
    return f" AND NOT {cond}"


def _next_pairs(cur: Any, d: Any, left_out: Sequence[str], after: _Pair | None, size: int) -> list[_Pair]:
    """The next ``size`` pairs of two state facts or more, most first (then by subject, predicate), after ``after``."""
    params: dict[str, Any] = {"size": size}
    where = "facts > 1" + _left_out(d, left_out, params)
    if after is not None:
        where += " AND (facts < :n OR (facts = :n AND (subject > :s OR (subject = :s AND predicate > :p))))"
        params |= {"n": after[0], "s": after[1], "p": after[2]}
    rows = cur.execute(
        f"SELECT facts, subject, predicate FROM rollup_pairs WHERE {where} "
        "ORDER BY facts DESC, subject, predicate LIMIT :size",
        params,
    ).fetchall()
    return [(int(n), str(s), str(p)) for n, s, p in rows]


def _facts_from(cur: Any, d: Any, left_out: Sequence[str], facts: int) -> int:
    """The state facts of the pairs that have ``facts`` or more (and two at least): what the walk reads at most
    before it stops, read along the rank index."""
    params: dict[str, Any] = {"f": facts}
    (n,) = cur.execute(  # ``facts > 1`` written out: the rank index holds only those pairs
        f"SELECT COALESCE(sum(facts), 0) FROM rollup_pairs WHERE facts > 1 AND facts >= :f"
        f"{_left_out(d, left_out, params)}",
        params,
    ).fetchone()
    return int(n)

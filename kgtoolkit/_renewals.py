"""Renewals (contract §11 and §12): back-to-back intervals of one triple read as one continuing fact.

An ended state fact (``old``) and a state fact of the same subject, predicate and object (the same kind, the same
``object_key``: the entity's id, or the value case-folded) that starts back to back with it
(:func:`kgtoolkit._validity.back_to_back`: on the old one's last day or the day after) are **candidates**; a
candidate pair is a **renewal** when each is the other's closest candidate (by the distance from the old end to the
new start, then the lower id). So each fact renews, and is renewed, at most once, and whether a pair is a renewal
depends only on the facts within a few days of it: a diff's window and a churn's periods find the same renewals.
Events never renew (contract §12).

:func:`pairs_sql` is the rule in SQL over the whole graph (churn, on both engines); :func:`mutual` the same choice
in Python over candidate pairs (the diff, whose candidates are the facts changed near its window, on both of its
paths); ``kgtoolkit.analysis``'s churn of a frame renders it in polars. The tests hold the three to one answer.
"""

from __future__ import annotations

from ._validity import Sql, back_to_back

__all__ = ["NEAR_DAYS", "mutual", "pairs_sql"]

#: How many days either side of a window a renewal of a change in it is looked for: a candidate starts within a day
#: of its old end, and the closest choice reads the other candidates of both facts (a day further).
NEAR_DAYS = 2


def pairs_sql(old_source: str, event_old: str, event_new: str, where_old: str = "") -> str:
    """The renewals as rows ``(old_id, new_id, subject, predicate, e, s)`` (``e``: the old end's key, ``s``: the new
    start's), the old facts read from ``old_source`` (``facts o``, or a form of it) where ``where_old`` holds too
    (an ``AND …`` condition on ``o``). ``event_old``/``event_new``: the event rule on ``o`` and ``n``.

    Each old fact looks its candidates up through ``facts_subject`` (subject, predicate, start): one short range of
    that index per ended fact; the closest choice is two row numbers over the candidates only."""
    back = back_to_back(Sql("o.from_us"), Sql("o.to_us"), Sql("n.from_us")).text
    return f"""SELECT old_id, new_id, subject, predicate, e, s FROM (
        SELECT k.*, row_number() OVER (PARTITION BY old_id ORDER BY dist, new_id) AS old_rank,
            row_number() OVER (PARTITION BY new_id ORDER BY dist, old_id) AS new_rank
        FROM (SELECT o.id AS old_id, n.id AS new_id, o.subject AS subject, o.predicate AS predicate, o.to_us AS e,
                n.from_us AS s, abs(o.to_us - n.from_us) AS dist
            FROM {old_source} CROSS JOIN facts n
            WHERE o.valid_to IS NOT NULL AND NOT ({event_old}){where_old} AND n.subject = o.subject
                AND n.predicate = o.predicate AND {back} AND n.object_key = o.object_key
                AND (n.object_id IS NULL) = (o.object_id IS NULL) AND n.id <> o.id AND NOT ({event_new})) k) r
        WHERE old_rank = 1 AND new_rank = 1"""


def mutual(candidates: list[tuple[int, int, int]]) -> dict[int, int]:
    """The renewals among candidate pairs ``(distance, old id, new id)``: those where each fact is the other's
    closest candidate (then the lower id), as :func:`pairs_sql` chooses. Answers old id → new id."""
    best_new: dict[int, tuple[int, int]] = {}
    best_old: dict[int, tuple[int, int]] = {}
    for dist, old, new in candidates:
        if (dist, new) < best_new.get(old, (dist + 1, new)):
            best_new[old] = (dist, new)
        if (dist, old) < best_old.get(new, (dist + 1, old)):
            best_old[new] = (dist, old)
    return {old: new for old, (_, new) in best_new.items() if best_old[new][1] == old}

"""Conflict groups: judged, sorted, counted and cut in SQL, then built from the page's facts."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from typing import Any

from ... import _validity as v
from ..._checks import MAX_INT64, whole_number
from ..._names import (
    not_by_subject,
)
from ..._records import (
    ConflictAxis,
    ConflictGroup,
    Fact,
)
from ..._validity import Clock, Sql
from ..engine import (
    FACT_FROM,
    FACT_READ,
    Backend,
    Cursor,
    Dialect,
)
from ..reads import _queries as q
from . import _predicates as _preds
from ._reads import _canonical_list, _count, _predicate_list
from ._rules import EventRule


def _conflict_group(
    anchor: str,
    predicate: str,
    facts: list[Fact],
    *,
    by: ConflictAxis = "subject",
    counts: tuple[str | None, int, int, int, int] | None = None,
    shown: Collection[int] | None = None,
    history_offset: int = 0,
) -> ConflictGroup:
    """One conflict group from its facts in store order (contract §5 ``conflicts``), with its planned switch.

    ``by="subject"``: the facts of one subject and predicate, with more than one object; ``by="object"``: of one
    object and a one-holder predicate, with more than one subject (holder), judged by the same rule with the two
    sides swapped. ``facts`` are every fact the judgement needs (every current and scheduled one, and every ended
    one whose end is still to come; by object, its first fact too: it names the object) and those the group shows;
    ``shown`` the ids of those it carries (default: all of them), ``counts`` its subject's name (None by object),
    its distinct objects and subjects, its facts and ended facts in all (default: those of ``facts``),
    ``history_offset`` how many ended facts its page of history skipped.

    The planned switch is at the start of the first scheduled fact S, when a started fact of another
    object (holder) runs up to it: one open-ended, or one whose end is on or after S's start (a current fact ending
    before S starts leaves a gap, no switch). It overlaps when that fact is open-ended or ends after S's start day
    (an end on S's start day is the switch day itself, as after ``supersede`` at a future date: the old fact is
    current until then, contract §4); then ``supersede`` (``supersede_holder``) at S's start resolves it, when
    exactly one such fact is open-ended (:func:`analysis.conflicts` computes the same on a frame).
    """

    def other(f: Fact) -> str:  # the side that varies within the group
        return f.object_key if by == "subject" else f.subject

    states = [f.state for f in facts]
    scheduled = [f for f, state in zip(facts, states, strict=True) if state == "scheduled"]
    switch: str | None = None
    overlaps = False
    suggestion: dict[str, Any] | None = None
    if scheduled:
        new = scheduled[0]
        assert new.valid_from is not None  # a scheduled fact has a start
        start = v.key(new.valid_from)
        running: list[Fact] = []
        for f, state in zip(facts, states, strict=True):
            if other(f) == other(new) or state == "scheduled":
                continue
            if v.key(f.valid_to, end=True) >= start:
                running.append(f)
                # the end's first instant: a date end on S's start day is the switch day, not an overlap
                overlaps = overlaps or v.end_first_instant(v.key(f.valid_to, end=True), f.valid_to) > start
        if running:
            switch = new.valid_from
            open_old = [f for f in running if f.valid_to is None]
            if overlaps and len(open_old) == 1:
                if by == "subject":
                    suggestion = {
                        "action": "supersede",
                        "subject": new.subject_name,
                        "predicate": predicate,
                        "old_object": open_old[0].object_name,
                        "new_object": new.object_name,
                        "at": new.valid_from,
                    }
                else:
                    suggestion = {
                        "action": "supersede_holder",
                        "object": new.object_name,
                        "predicate": predicate,
                        "old_subject": open_old[0].subject_name,
                        "new_subject": new.subject_name,
                        "at": new.valid_from,
                    }
    held = by == "object"
    name, objects, subjects, total, ended = counts or (
        None if held else facts[0].subject_name,
        len({f.object_key for f in facts}),
        len({f.subject for f in facts}),
        len(facts),
        states.count("ended"),
    )
    return ConflictGroup(
        None if held else anchor,
        name,
        predicate,
        objects,
        states.count("current"),
        tuple(facts) if shown is None else tuple(f for f in facts if f.id in shown),
        len(scheduled),
        switch,
        overlaps,
        suggestion,
        by=by,
        object=facts[0].object if held else None,
        object_name=facts[0].object_name if held else None,
        subjects=subjects,
        facts_total=total,
        history_total=ended,
        history_offset=history_offset,
    )


@functools.lru_cache(maxsize=16)
def _group_facts_sql(d: Dialect, events: EventRule, current_only: bool, by_object: bool) -> str:
    """The facts of the conflict groups whose anchors are in ``:ps`` and predicates in ``:pp`` that a page carries
    or judges, in store order, each row ending with its group's anchor and whether the group shows it: its current
    and scheduled facts, its ended facts ranked from the last ended (``to_us``, then ``from_us``, then ``id``,
    descending) after ``:skip`` up to ``:upto``, and (read for the judgement, not shown) the ended facts whose end
    is still to come (a date end today: such a fact may run up to a planned switch starting later today,
    :func:`_conflict_group`). ``by_object``: the groups of one-holder predicates, anchored on the ``object_key``
    (else on the subject), whose first fact in store order is read too (not shown): it names the group's object.
    Each group's history is ranked and cut in SQL (a window per group): never every ended fact into Python."""
    anchor = "object_key" if by_object else "subject"
    where = f"f.{anchor} IN {d.values('ps')} AND f.predicate IN {d.values('pp')} AND NOT {events.sql(d)}"
    if current_only:
        where += f" AND {q.current_sql('f')}"
    ended = _ended("f")
    shown = "(r.old = 0 OR (r.rn > :skip AND r.rn <= :upto))"
    first, named = "", ""
    if by_object:
        first = (
            f", ROW_NUMBER() OVER (PARTITION BY f.{anchor}, f.predicate "
            "ORDER BY f.valid_from IS NULL, f.from_us, f.id) AS first"
        )
        named = " OR r.first = 1"
    return (
        f"WITH ranked AS (SELECT f.id, CASE WHEN {ended} THEN 1 ELSE 0 END AS old, ROW_NUMBER() OVER ("
        f"PARTITION BY f.{anchor}, f.predicate, CASE WHEN {ended} THEN 1 ELSE 0 END "
        f"ORDER BY f.to_us DESC, f.from_us DESC, f.id DESC) AS rn{first} FROM facts f WHERE {where}) "
        f"SELECT {FACT_READ}, f.{anchor}, CASE WHEN {shown} THEN 1 ELSE 0 END FROM {FACT_FROM} "
        f"JOIN ranked r ON r.id = f.id WHERE {shown} OR f.to_us > :now{named} "
        f"ORDER BY f.{anchor}, f.predicate, f.valid_from IS NULL, f.from_us, f.id"
    )


def _ended(alias: str) -> str:
    """The rule "ended" (contract §4, :func:`kgtoolkit._validity.ended`) on the facts row ``alias``, as SQL (bind
    :meth:`~kgtoolkit._validity.Clock.params`): a conflict group's history."""
    return v.ended(Sql(f"{alias}.from_us"), Sql(f"{alias}.to_us"), v.NOW, v.NOW_DAY_LAST).text


def _judged_axis(where: Callable[[str], str], name: str, anchor: str, other: str) -> str:
    """``groups_<name> AS (…), judged_<name> AS (…)``: the groups of one ``anchor`` and predicate with more than one
    ``other`` (subject and object_key, or the reverse for one-holder predicates), each judged, with its counts
    (``n_other`` distinct ``other``, ``n_facts`` facts, ``n_ended`` ended facts).

    The same rule as :func:`_conflict_group`, on the stored keys (bind :meth:`~kgtoolkit._validity.Clock.params`):
    a group has more than one distinct ``other``; it needs action with more than one current fact, or when its
    first scheduled fact S (in store order: ``from_us``, then ``id``; a scheduled fact has a start) has a started
    fact of another ``other`` running up to it (``to_us`` at or after S's ``from_us``) that overlaps it: open-ended,
    or the first instant of its end after S's start (:func:`kgtoolkit._validity.end_first_instant`: ``to_us``
    itself for a datetime end, the start of the day for a date-only one). One scan groups the facts; S and
    the facts running up to it are then looked up by the ``(subject, predicate, from_us)`` index (by object:
    ``(predicate, object_key)``), for the groups where some started fact (of any ``other``) ends after S's start
    alone (``o_last``, a bound the scan computes).
    """

    def scheduled(alias: str) -> str:
        return v.scheduled(Sql(f"{alias}.from_us"), v.NOW).text

    first = v.end_first_instant(Sql("o.to_us"), Sql("o.valid_to"))
    # S and the facts running up to it are correlated lookups per group (EXISTS), not joins of aggregates: a join
    # of the groups to an aggregate that PostgreSQL's planner estimates at one row ran as a nested loop that
    # recomputed it for every group (quadratic in the groups). ``o_last``, the latest first instant of an end
    # among the group's started facts, rules out in the scan the groups where no fact overlaps S whatever its
    # object (most groups with a scheduled fact: a supersede at a future date ends the old fact on S's start day):
    # at 1M facts the lookups ran for 437 groups instead of 38,931.
    return f"""groups_{name} AS (
            SELECT g.{anchor} AS anchor, g.predicate, sum(CASE WHEN {q.current_sql("g")} THEN 1 ELSE 0 END) AS n_current,
                   count(DISTINCT g.{other}) AS n_other, count(*) AS n_facts,
                   sum(CASE WHEN {_ended("g")} THEN 1 ELSE 0 END) AS n_ended,
                   min(CASE WHEN {scheduled("g")} THEN g.from_us END) AS s_from,
                   max(CASE WHEN NOT {scheduled("g")} THEN {v.end_first_instant(Sql("g.to_us"), Sql("g.valid_to")).text}
                       END) AS o_last
            FROM facts g WHERE {where("g")}
            GROUP BY g.{anchor}, g.predicate HAVING count(DISTINCT g.{other}) > 1),
        judged_{name} AS (
            SELECT g.anchor, g.predicate, g.n_other, g.n_facts, g.n_ended,
                   CASE WHEN g.n_current > 1 THEN 1 WHEN g.o_last > g.s_from THEN CASE WHEN EXISTS (
                       SELECT 1 FROM facts o
                       WHERE o.{anchor} = g.anchor AND o.predicate = g.predicate AND {where("o")}
                           AND NOT {scheduled("o")} AND {(Sql("o.to_us") >= Sql("g.s_from")).text}
                           AND (o.valid_to IS NULL OR {(first > Sql("g.s_from")).text})
                           AND o.{other} <> (SELECT s.{other} FROM facts s WHERE s.{anchor} = g.anchor
                               AND s.predicate = g.predicate AND s.from_us = g.s_from AND {where("s")}
                               ORDER BY s.id LIMIT 1))
                   THEN 1 ELSE 0 END ELSE 0 END AS needs
            FROM groups_{name} g)"""


def _judged_conflicts(where: Callable[[str], str], holders: Callable[[str], str] | None = None) -> str:
    """The conflict groups judged in SQL: ``WITH … judged AS (…)`` names each group (``axis`` 0, ``anchor`` the
    subject, and ``predicate``) among the facts ``where(alias)`` keeps, with ``needs`` 1 when it needs action; and,
    given ``holders``, the groups of one-holder predicates (``axis`` 1, ``anchor`` the ``object_key``) among the facts
    ``holders(alias)`` keeps, judged by the same rule with subject and object swapped (:func:`_judged_axis`). Each
    group has its counts: ``n_objects`` and ``n_subjects`` (its distinct objects and subjects: one of them its
    anchor), ``n_facts`` and ``n_ended`` (its facts, its ended facts: its history)."""
    parts = [_judged_axis(where, "s", "subject", "object_key")]
    union = "SELECT 0 AS axis, anchor, predicate, needs, n_other AS n_objects, 1 AS n_subjects, n_facts, n_ended FROM judged_s"
    if holders is not None:
        parts.append(_judged_axis(holders, "o", "object_key", "subject"))
        union += " UNION ALL SELECT 1, anchor, predicate, needs, 1, n_other, n_facts, n_ended FROM judged_o"
    return f"WITH {', '.join(parts)}, judged AS ({union})"


def conflicts(
    engine: Backend,
    entity: str | None,
    current_only: bool,
    needs_action: bool,
    predicates: str | Collection[str] | None,
    limit: int | None,
    offset: int,
    history: int | None,
    history_offset: int,
) -> tuple[list[ConflictGroup], int]:
    """The page of conflict groups asked for, and how many groups there are in all.

    The groups are found, counted and judged in SQL (:func:`_judged_conflicts`: whether each needs action, by
    the rule :func:`_conflict_group` applies), sorted and cut there, and counted in the same snapshot; then
    only the facts of the page's groups are read (:func:`_group_facts_sql`: their current and scheduled facts,
    the page of history asked for, and the ended facts the planned-switch judgement may need), and each group
    is built from them by :func:`_conflict_group`.
    """
    d = engine.dialect
    page = q.page(d, limit, offset)  # checks limit and offset
    cap = whole_number(history, field="history", high=MAX_INT64, allow_none=True)
    skip = whole_number(history_offset, field="history_offset", high=MAX_INT64)
    preds = _predicate_list(predicates)
    with engine.read() as cur:
        judged, params, events = _judgement(engine, cur, entity, current_only, preds)
        keep = " WHERE needs = 1" if needs_action else ""
        rows = cur.execute(
            f"{judged} SELECT axis, anchor, predicate, n_objects, n_subjects, n_facts, n_ended, count(*) OVER (), "
            "CASE WHEN axis = 0 THEN (SELECT name FROM entities WHERE id = anchor) END "
            f"FROM judged{keep} ORDER BY needs DESC, anchor, predicate, axis LIMIT :limit OFFSET :offset",
            {**params, **page},
        ).fetchall()
        if rows:
            total = int(rows[0][7])
        else:  # past the last group, or none: count them alone
            total = _count(cur, f"{judged} SELECT count(*) FROM judged{keep}", params) if offset else 0
        found: dict[tuple[int, str, str], list[Fact]] = {(int(r[0]), r[1], r[2]): [] for r in rows}
        # the ids each axis's groups show: a fact in a group by subject and one by object may show in one alone
        shown: tuple[set[int], set[int]] = (set(), set())
        for axis in (0, 1):  # the facts of the page's groups, by axis
            wanted = [(a, p) for x, a, p in found if x == axis]
            if not wanted:
                continue
            found_params: dict[str, Any] = {
                **events.params(d),
                **Clock.real().params(),
                "ps": d.list_param(sorted({a for a, _ in wanted})),
                "pp": d.list_param(sorted({p for _, p in wanted})),
                "skip": skip,
                "upto": MAX_INT64 if cap is None else min(MAX_INT64, skip + cap),
            }
            facts = cur.execute(_group_facts_sql(d, events, current_only, axis == 1), found_params).fetchall()
            for row in facts:  # the page's anchors and predicates: keep the page's pairs
                group = found.get((axis, row[-2], row[3]))
                if group is not None:
                    group.append(q.row_fact(row, events=events))
                    if row[-1]:
                        shown[axis].add(row[0])
    axes: tuple[ConflictAxis, ConflictAxis] = ("subject", "object")
    counts = {(int(r[0]), r[1], r[2]): (r[8], int(r[3]), int(r[4]), int(r[5]), int(r[6])) for r in rows}
    return [
        _conflict_group(a, p, facts, by=axes[x], counts=counts[x, a, p], shown=shown[x], history_offset=skip)
        for (x, a, p), facts in found.items()
    ], total


def _judgement(
    engine: Backend, cur: Cursor, entity: str | None, current_only: bool, preds: list[str] | None = None
) -> tuple[str, dict[str, Any], EventRule]:
    """The ``WITH … judged AS (…)`` of the conflict groups (:func:`_judged_conflicts`), its parameters (the
    real now among them) and the graph's event rule; ``preds``: only those predicates (normalised). Groups by
    subject leave out the predicates :func:`~kgtoolkit._names.not_by_subject` names; one-holder predicates are
    grouped by object."""
    d = engine.dialect
    config = q.read_config(cur)
    params: dict[str, Any] = {
        "mv": d.list_param(sorted(not_by_subject(config.multi_valued, config.one_holder, config.single_valued))),
        "oh": d.list_param(sorted(config.one_holder)),
        "e": None,
    }
    if entity is not None:
        params["e"] = q.resolve(cur, d, entity, field="entity")
    only = ""
    if preds:  # through predicate aliases (contract §13)
        preds = _canonical_list(cur, preds)
        _preds.check_used(cur, engine.dialect, preds)
        params["preds"] = d.list_param(preds)
        only = f" AND {d.in_list('@.predicate', 'preds')}"
    events = q.event_rule(cur)  # an event is never in a conflict (contract §12)
    params.update(events.params(d))
    params.update(Clock.real().params())

    def kept(alias: str, cond: str) -> str:
        cond += f" AND NOT {events.sql(d, alias)}{only.replace('@', alias)}"
        return f"{cond} AND {q.current_sql(alias)}" if current_only else cond

    def where(alias: str) -> str:  # the facts that count by subject, on the facts row ``alias``
        return kept(
            alias,
            f"NOT ({d.in_list(f'{alias}.predicate', 'mv')}) AND (CAST(:e AS TEXT) IS NULL OR {alias}.subject = :e)",
        )

    def holders(alias: str) -> str:  # the facts of one-holder predicates, by object (the entity: the object)
        return kept(
            alias,
            f"{d.in_list(f'{alias}.predicate', 'oh')} AND (CAST(:e AS TEXT) IS NULL OR {alias}.object_id = :e)",
        )

    return _judged_conflicts(where, holders if config.one_holder else None), params, events


def needing_action(
    engine: Backend,
    entity: str | None = None,
    *,
    current_only: bool = False,
    predicates: str | Collection[str] | None = None,
) -> int:
    """How many conflict groups need action, counted in SQL."""
    preds = _predicate_list(predicates)
    with engine.read() as cur:
        judged, params, _ = _judgement(engine, cur, entity, current_only, preds)
        return _count(cur, f"{judged} SELECT count(*) FROM judged WHERE needs = 1", params)

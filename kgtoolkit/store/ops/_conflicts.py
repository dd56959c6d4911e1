"""Conflict groups: judged, sorted, counted and cut in SQL, then built from the page's facts."""

from __future__ import annotations

import functools
import json
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

#: A kept group's key against another row ``{t}`` (the kept judgement, issue 43: :mod:`._conflict_kept`).
KEPT_KEY = "k.anchor = {t}.anchor AND k.predicate = {t}.predicate AND k.axis = {t}.axis"


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


def _judged_axis(
    where: Callable[[str], str], name: str, anchor: str, other: str, keys: str | None = None, scan: str = ""
) -> str:
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

    ``keys``: a subquery of the groups to judge (its ``anchor`` and ``predicate``), looked up by index, instead of
    a scan of every fact. Each group also has ``fresh``: the first instant after now at which one of its facts may
    change state (:func:`kgtoolkit._validity.state_changes`; the largest key when none may): its judgement holds
    until then (the kept judgement, :mod:`._conflict_kept`).
    """

    def scheduled(alias: str) -> str:
        return v.scheduled(Sql(f"{alias}.from_us"), v.NOW).text

    first = v.end_first_instant(Sql("o.to_us"), Sql("o.valid_to"))
    next_start, next_end = v.state_changes(Sql("g.from_us"), Sql("g.to_us"), v.NOW)
    source = f"facts g{scan} WHERE {where('g')}"
    if keys is not None:
        # CROSS JOIN: the keys first, each group's facts looked up by index (SQLite keeps this order; a plain join
        # scanned every fact and looked each up among the keys)
        source = (
            f"{keys} k CROSS JOIN facts g WHERE g.{anchor} = k.anchor AND g.predicate = k.predicate AND {where('g')}"
        )
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
                       END) AS o_last,
                   COALESCE(min({next_start.text}), {MAX_INT64}) AS n_start, COALESCE(min({next_end.text}), {MAX_INT64}) AS n_end
            FROM {source}
            GROUP BY g.{anchor}, g.predicate HAVING count(DISTINCT g.{other}) > 1),
        judged_{name} AS (
            SELECT g.anchor, g.predicate, g.n_other, g.n_facts, g.n_ended,
                   CASE WHEN g.n_start < g.n_end THEN g.n_start ELSE g.n_end END AS fresh,
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


def _judged_conflicts(
    where: Callable[[str], str],
    holders: Callable[[str], str] | None = None,
    keys: tuple[str, str] | None = None,
    scan: str = "",
) -> str:
    """The conflict groups judged in SQL: ``WITH … judged AS (…)`` names each group (``axis`` 0, ``anchor`` the
    subject, and ``predicate``) among the facts ``where(alias)`` keeps, with ``needs`` 1 when it needs action; and,
    given ``holders``, the groups of one-holder predicates (``axis`` 1, ``anchor`` the ``object_key``) among the facts
    ``holders(alias)`` keeps, judged by the same rule with subject and object swapped (:func:`_judged_axis`). Each
    group has its counts: ``n_objects`` and ``n_subjects`` (its distinct objects and subjects: one of them its
    anchor), ``n_facts`` and ``n_ended`` (its facts, its ended facts: its history), and ``fresh`` (until when its
    judgement holds). ``keys``: the groups to judge of each axis (:func:`_judged_axis`), not every group."""
    parts = [_judged_axis(where, "s", "subject", "object_key", None if keys is None else keys[0], scan)]
    union = (
        "SELECT 0 AS axis, anchor, predicate, needs, n_other AS n_objects, 1 AS n_subjects, n_facts, n_ended, fresh "
        "FROM judged_s"
    )
    if holders is not None:
        parts.append(_judged_axis(holders, "o", "object_key", "subject", None if keys is None else keys[1], scan))
        union += " UNION ALL SELECT 1, anchor, predicate, needs, 1, n_other, n_facts, n_ended, fresh FROM judged_o"
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
        fast = kept_page(engine, cur, entity, current_only, needs_action, preds, page)
        if fast is not None:  # the kept judgement (issue 43): the page's groups alone
            rows, total = fast
            events = q.event_rule(cur)
        else:
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
    engine: Backend,
    cur: Cursor,
    entity: str | None,
    current_only: bool,
    preds: list[str] | None = None,
    *,
    keys: tuple[str, str] | None = None,
    clock: Clock | None = None,
    scan: bool = False,
) -> tuple[str, dict[str, Any], EventRule]:
    """The ``WITH … judged AS (…)`` of the conflict groups (:func:`_judged_conflicts`), its parameters (the
    real now among them, or ``clock``'s) and the graph's event rule; ``preds``: only those predicates (normalised);
    ``keys``: only those groups. Groups by subject leave out the predicates :func:`~kgtoolkit._names.not_by_subject`
    names; one-holder predicates are grouped by object."""
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
    params.update((clock or Clock.real()).params())

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

    # ``scan``: every group, the facts read in table order and grouped apart (SQLite; in a bulk load's transaction
    # its pages come from the write-ahead log one read each, and the index order read the table in random order)
    table = " NOT INDEXED" if scan and engine.kind == "sqlite" else ""
    return _judged_conflicts(where, holders if config.one_holder else None, keys, table), params, events


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
        fast = kept_count(engine, cur, entity, current_only, preds)
        if fast is not None:
            return fast
        judged, params, _ = _judgement(engine, cur, entity, current_only, preds)
        return _count(cur, f"{judged} SELECT count(*) FROM judged WHERE needs = 1", params)


# ---------------------------------------------------------------------- the kept judgement's reads (issue 43)


def _settings_key(cur: Cursor) -> str:
    """The settings a judgement depends on, as one text: which predicates are grouped by subject and by object, and
    which facts are events."""
    c = q.read_config(cur)
    return json.dumps(
        [
            sorted(not_by_subject(c.multi_valued, c.one_holder, c.single_valued)),
            sorted(c.one_holder),
            c.events,
            sorted(c.event_predicates),
        ]
    )


#: Above this many facts waiting for the kept judgement (a graph written without it), a read judges every group.
LIVE_MAX = 100_000


def kept_state(cur: Cursor) -> int | None:
    """The largest fact id the kept judgement has judged, when a read may use it: made under the graph's settings,
    fact ids not reused, and not too many facts waiting (:data:`LIVE_MAX`); None when the caller judges every group."""
    config, upto, top = cur.execute(
        "SELECT config, upto, (SELECT COALESCE(max(id), 0) FROM facts) FROM conflict_state WHERE id = 1"
    ).fetchone()
    if config is None or config != _settings_key(cur) or int(top) < int(upto) or int(top) - int(upto) > LIVE_MAX:
        return None
    return int(upto)


def _filters(d: Dialect, params: dict[str, Any], alias: str) -> str:
    """The request's entity and predicates, on the kept rows ``alias``."""
    cond = ""
    if params.get("e") is not None:
        cond += f" AND {alias}.anchor = :e"
    if "preds" in params:
        cond += f" AND {d.in_list(f'{alias}.predicate', 'preds')}"
    return cond


#: The groups a read judges live (``live_keys``: axis, anchor, predicate): those of the facts written since the
#: kept judgement (ids above ``:kept_upto``), those marked since, and those past their freshness.
_LIVE_KEYS = (
    "live_new AS MATERIALIZED (SELECT f.subject, f.predicate, f.object_key FROM facts f WHERE f.id > :kept_upto), "
    "live_keys AS (SELECT 0 AS axis, subject AS anchor, predicate FROM live_new "
    "UNION SELECT 1, object_key, predicate FROM live_new "
    "UNION SELECT axis, anchor, predicate FROM conflict_dirty "
    "UNION SELECT axis, anchor, predicate FROM conflict_kept WHERE mode = 0 AND fresh_until <= :now)"
)


def _kept_parts(
    engine: Backend, cur: Cursor, entity: str | None, current_only: bool, needs_action: bool, preds: list[str] | None
) -> tuple[str, str, dict[str, Any]] | None:
    """``WITH live_keys, …, live AS (…)`` (the groups that changed or whose time came, judged live by the rule's own
    SQL, each looked up by index) and the condition on the kept rows ``k`` a read takes (the request's, fresh, not
    judged live), with their parameters; None when the kept judgement cannot answer (:func:`kept_state`)."""
    upto = kept_state(cur)
    if upto is None:
        return None
    keys = tuple(f"(SELECT l.anchor, l.predicate FROM live_keys l WHERE l.axis = {axis})" for axis in (0, 1))
    judged, params, _ = _judgement(engine, cur, entity, current_only, preds, keys=keys)  # type: ignore[arg-type]
    assert judged.startswith("WITH ")
    live = (
        f"WITH {_LIVE_KEYS}, {judged[5:]}, live AS (SELECT axis, anchor, predicate, 1 - needs AS calm, n_objects, "
        f"n_subjects, n_facts, n_ended FROM judged{' WHERE needs = 1' if needs_action else ''})"
    )
    params = {**params, "mode": int(current_only), "kept_upto": upto}
    cond = (
        f"k.mode = :mode{' AND k.calm = 0' if needs_action else ''}{_filters(engine.dialect, params, 'k')} "
        "AND k.fresh_until > :now AND NOT EXISTS (SELECT 1 FROM live_keys l WHERE l.axis = k.axis "
        "AND l.anchor = k.anchor AND l.predicate = k.predicate)"
    )
    return live, cond, params


def kept_page(
    engine: Backend,
    cur: Cursor,
    entity: str | None,
    current_only: bool,
    needs_action: bool,
    preds: list[str] | None,
    page: dict[str, Any],
) -> tuple[list[Any], int] | None:
    """The page's groups from the kept judgement and the live one, in the order of :func:`conflicts` (rows: axis,
    anchor, predicate, objects, subjects, facts, ended, the total, the subject's name), and how many there are in
    all; None when the kept judgement cannot answer (the caller judges every group). The kept rows are read in the
    page index's order, no further than the page."""
    parts = _kept_parts(engine, cur, entity, current_only, needs_action, preds)
    if parts is None:
        return None
    live, cond, params = parts
    d = engine.dialect
    limit, offset = page["limit"], page["offset"]
    params = {**params, **page, "kept_cap": limit if limit == d.no_limit else limit + offset}
    cols = "k.axis, k.anchor, k.predicate, k.calm, k.n_objects, k.n_subjects, k.n_facts, k.n_ended"
    alls = (
        f"{live}, alls AS (SELECT * FROM (SELECT {cols} FROM conflict_kept k WHERE {cond} "
        "ORDER BY k.calm, k.anchor, k.predicate, k.axis LIMIT :kept_cap) x UNION ALL SELECT * FROM live)"
    )
    total = f"(SELECT count(*) FROM conflict_kept k WHERE {cond}) + (SELECT count(*) FROM live)"
    name = "CASE WHEN axis = 0 THEN (SELECT name FROM entities WHERE id = anchor) END"
    rows = cur.execute(
        f"{alls} SELECT axis, anchor, predicate, n_objects, n_subjects, n_facts, n_ended, {total}, {name} "
        "FROM alls ORDER BY calm, anchor, predicate, axis LIMIT :limit OFFSET :offset",
        params,
    ).fetchall()
    if rows:
        return rows, int(rows[0][7])
    return rows, int(cur.execute(f"{live} SELECT {total}", params).fetchone()[0]) if offset else 0


def kept_count(
    engine: Backend, cur: Cursor, entity: str | None, current_only: bool, preds: list[str] | None
) -> int | None:
    """How many groups need action, from the kept judgement and the live one (None when it cannot answer)."""
    parts = _kept_parts(engine, cur, entity, current_only, True, preds)
    if parts is None:
        return None
    live, cond, params = parts
    total = f"(SELECT count(*) FROM conflict_kept k WHERE {cond}) + (SELECT count(*) FROM live)"
    return int(cur.execute(f"{live} SELECT {total}", params).fetchone()[0])

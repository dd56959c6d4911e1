"""What changed between two dates (contract §11): facts that began, facts that ended, and replacements.

By valid time (``by="valid"``), a fact **began** in the window when its ``valid_from`` falls in it and
**ended** when its ``valid_to`` does. By transaction time (``by="known"``), it began when the graph
recorded it and ended when the graph recorded its end (a fact recorded already ended counts once, as
begun). An end and a start of the same subject and predicate with another object are one
**replacement** when the new fact starts while the old one held or on the day after it ended (as
``supersede`` writes them, both on the switch day); each fact pairs at most once, the closest first.
Multi-valued predicates never pair: a new object there is one more, not a replacement. A **one-holder** predicate
(``config.one_holder``: one subject at a time per object, a holder of an office) pairs by object instead: an end
and a start of the same predicate and object with another subject are one replacement (old holder -> new), by the
same rule; it pairs by subject as well only when it is single-valued too (:func:`~kgtoolkit._names.not_by_subject`).

An **event** (contract §12: its predicate or graph is declared one, or ``valid_from`` = ``valid_to``) neither
begins, ends nor is replaced: it **occurred** in the window when its start falls in it (its end, when the start
is unknown); by transaction time, when the graph recorded it. The next event is no replacement of the last.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, NamedTuple

from .._errors import IntervalOrder, InvalidRequest
from .._names import not_by_subject
from .._records import Change, ChangeKind, Diff, DiffBy
from .._time import DAY_US, TimeInput, key_to_text, parse_window
from . import _queries as q
from ._backend import Cursor, Dialect
from ._rules import ended_later_sql
from ._traversal import check_predicates, fetch_facts

__all__ = ["diff"]

_RANK = {"replaced": 0, "ended": 1, "began": 2, "occurred": 3}


def _key(text: str) -> int:
    return parse_window(text, field="at").lo


def diff(
    cur: Cursor,
    d: Dialect,
    start: TimeInput,
    end: TimeInput,
    *,
    entity: str | None,
    predicates: Sequence[str] | None,
    by: DiffBy,
    limit: int | None,
    offset: int,
    in_engine: bool = True,
) -> Diff:
    """The changes from ``start`` to ``end`` (see :meth:`KnowledgeGraph.diff`). By valid time the engine pairs the
    changes; by transaction time (whose keys are texts) Python does, over light rows of every changed fact.
    ``in_engine=False`` pairs in Python by valid time too (the tests compare the two ways on both engines)."""
    if by not in ("valid", "known"):
        raise InvalidRequest(f"by must be valid or known, not {by!r}", field="by", value=str(by))
    window_start = parse_window(start, field="from")
    window_end = parse_window(end, field="to")
    lo, hi = window_start.lo, window_end.hi
    if hi < lo:
        raise IntervalOrder(
            f"to ({window_end.text}) is before from ({window_start.text}); give the earlier date first",
            field="to",
            value=window_end.text,
        )
    paging = q.page(d, limit, offset)
    params: dict[str, Any] = {"lo": lo, "hi": hi, "klo": key_to_text(lo), "khi": key_to_text(hi)}
    where = ""
    if entity not in (None, ""):
        params["e"] = q.resolve(cur, d, entity)
        where += " AND (f.subject = :e OR f.object_id = :e)"
    if predicates is not None:
        params["preds"] = d.list_param(check_predicates(cur, d, predicates) or [])
        where += f" AND f.predicate IN {d.values('preds')}"
    engine = by == "valid" and in_engine
    if by == "valid":
        # In the engine (valid_from IS NULL) = FALSE: the form SQLite's facts_timeline index answers without the rows.
        started = "(f.valid_from IS NULL) = FALSE" if engine else "f.valid_from IS NOT NULL"
        began_sql = f"{started} AND f.from_us BETWEEN :lo AND :hi{where}"
        ended_sql = f"f.valid_to IS NOT NULL AND f.to_us BETWEEN :lo AND :hi{where}"
    else:
        began_sql = f"f.recorded_at BETWEEN :klo AND :khi{where}"
        ended_sql = f"{ended_later_sql('f')} AND f.invalidated_at BETWEEN :klo AND :khi{where}"
    event, event_params = q.event_rule(cur).bound(d)
    params.update(event_params)
    config = q.read_config(cur)
    multi = not_by_subject(config.multi_valued, config.one_holder, config.single_valued)
    holders = config.one_holder
    del paging  # checked above, before any work
    if engine:
        counts, changes = _valid_in_engine(cur, d, params, began_sql, ended_sql, event, multi, holders, limit, offset)
    else:
        counts, changes = _in_python(cur, d, params, began_sql, ended_sql, event, multi, holders, by)
    page = changes[offset:] if limit is None else changes[offset : offset + limit]
    facts = fetch_facts(cur, d, (i for c in page for i in c[4:6] if i is not None), None)

    def date(fact_id: int, at_start: bool) -> str:
        f = facts[fact_id]
        text = (
            (f.valid_from if at_start else f.valid_to)
            if by == "valid"
            else (f.recorded_at if at_start else f.invalidated_at)
        )
        assert text is not None
        return text

    shown = tuple(
        Change(
            kind,
            date(dated, at_start),
            facts[dated].subject,
            facts[dated].predicate,
            None if old is None else facts[old],
            None if new is None else facts[new],
        )
        for _, _, _, kind, old, new, dated, at_start in page
    )
    began, ended, replaced, occurred = counts
    return Diff(
        window_start.text,
        window_end.text,
        by,
        shown,
        began + ended + occurred - replaced,
        offset,
        began - replaced,
        ended - replaced,
        replaced,
        occurred,
    )


#: One change as (key, rank, id, kind, old id, new id, the fact whose date is shown, which of its bounds): sorted by
#: (key, rank, id), which never tie. The facts, and so their subject, predicate and dates as written, are read for
#: one page.
_Entry = tuple[int, int, int, ChangeKind, int | None, int | None, int, bool]
#: The counts of an answer: facts that began and ended (each replacement counted on both sides), replacements and
#: events that occurred.
_Counts = tuple[int, int, int, int]


def _holder_pairs_sql(d: Dialect, holders: frozenset[str]) -> tuple[str, dict[str, Any]]:
    """The engine's candidate replacements of one-holder predicates, a ``UNION ALL`` arm over ``c`` (see
    :func:`_valid_in_engine`): an ended fact and a begun one of the same predicate and object with another subject,
    the new one starting while the old one held or the day after it ended. Empty when no predicate is one holder."""
    if not holders:
        return "", {}
    holder_sql, holder_params = d.in_values("o.predicate", "holders", sorted(holders))
    return (
        f"""
        UNION ALL
        SELECT 1, abs(o.e - n.s), o.id, n.id
        FROM c n CROSS JOIN c o
        WHERE n.okey = o.okey AND n.is_value = o.is_value AND n.predicate = o.predicate AND o.en = 1 AND o.ev = 0
            AND n.b = 1 AND n.ev = 0 AND {holder_sql} AND n.subject <> o.subject AND (o.has_s = 0 OR n.s >= o.s)
            AND n.s <= o.e + :day""",
        holder_params,
    )


def _match(candidates: list[tuple[int, int, int]]) -> dict[int, int]:
    """The replacements among candidate pairs (distance, old id, new id): each fact paired at most once, the
    closest pair first, then the lower ids. Answers old id → new id."""
    candidates.sort()  # (distance, old id, new id) never ties
    pairs: dict[int, int] = {}
    paired_new: set[int] = set()
    for _, old_id, new_id in candidates:
        if old_id in pairs or new_id in paired_new:
            continue
        pairs[old_id] = new_id
        paired_new.add(new_id)
    return pairs


def _flag(condition: str) -> str:
    """A condition as 1 or 0 (a column both engines sum and compare alike)."""
    return f"CASE WHEN {condition} THEN 1 ELSE 0 END"


def _valid_in_engine(
    cur: Cursor,
    d: Dialect,
    params: dict[str, Any],
    began_sql: str,
    ended_sql: str,
    event: str,
    multi: frozenset[str],
    holders: frozenset[str],
    limit: int | None,
    offset: int,
) -> tuple[_Counts, list[_Entry]]:
    """By valid time, paired in the engine: Python sees the counts, the candidate pairs and one page's rows, never
    every changed fact (at 10M facts a month changes 155,000 facts, whose rows alone cost more than the answer).

    The changed facts are read once, found by both time indexes (:meth:`~._backend.Dialect.either`), into ``c``;
    the counts and the candidate pairs (an ended fact and a begun one of the same subject and predicate with another
    object, the new one starting while the old one held or the day after it ended) come from it in one statement:
    the new facts scanned, the ended ones looked up (SQLite: the smaller side, indexed on the fly, an order
    ``CROSS JOIN`` keeps; PostgreSQL: a hash join, :meth:`~._backend.Dialect.wide_read`). Two objects are the same
    when their kind and ``object_key`` are (the entity's id, or the value casefolded: :func:`_same_object`). The
    page is read after, in time order from the same indexes, only as far as it needs. One-holder predicates add the
    pairs by object (:func:`_holder_pairs_sql`)."""
    multi_sql, multi_params = d.in_values("o.predicate", "multi", sorted(multi))
    holder_arm, holder_params = _holder_pairs_sql(d, holders)
    params = {**params, **multi_params, **holder_params, "day": DAY_US}
    with d.wide_read(cur):
        rows = cur.execute(
            f"""WITH c AS MATERIALIZED (
            SELECT f.id AS id, f.subject AS subject, f.predicate AS predicate, f.object_key AS okey,
                {_flag("f.object_id IS NULL")} AS is_value, f.from_us AS s, f.to_us AS e,
                {_flag("f.valid_from IS NOT NULL")} AS has_s, {_flag(began_sql)} AS b, {_flag(ended_sql)} AS en,
                {_flag(event)} AS ev
            FROM facts f WHERE {d.either(began_sql, ended_sql)})
        SELECT 0, count(*) FILTER (WHERE b = 1 AND ev = 0), count(*) FILTER (WHERE en = 1 AND ev = 0),
            count(*) FILTER (WHERE ev = 1 AND (b = 1 OR (en = 1 AND has_s = 0)))
        FROM c
        UNION ALL
        SELECT 1, abs(o.e - n.s), o.id, n.id
        FROM c n CROSS JOIN c o
        WHERE n.subject = o.subject AND n.predicate = o.predicate AND o.en = 1 AND o.ev = 0 AND n.b = 1
            AND n.ev = 0 AND NOT ({multi_sql}) AND o.id <> n.id AND (o.is_value <> n.is_value OR o.okey <> n.okey) AND (o.has_s = 0 OR n.s >= o.s) AND n.s <= o.e + :day{holder_arm}""",
            params,
        ).fetchall()
    (_, began, ended, occurred), *candidates = sorted(rows)
    pairs = _match([(dist, old, new) for _, dist, old, new in candidates])
    paired_new = {new: old for old, new in pairs.items()}
    counts = (int(began), int(ended), len(pairs), int(occurred))
    total = counts[0] + counts[1] + counts[3] - counts[2]
    wanted = total if limit is None else min(total, offset + limit)
    # The page: the changed facts in time order (a fact that began and ended in the window comes twice), each side
    # read in its index's order as far as the page needs and merged here (one statement ordering both sides read
    # every changed row on PostgreSQL: 0.6 s at 10M facts, against 0.05 s). Ties are ordered here.
    sides = (
        f"SELECT f.from_us, f.id, 1, {_flag(event)}, 1 FROM facts f WHERE {began_sql} ORDER BY f.from_us",
        f"SELECT f.to_us, f.id, 0, {_flag(event)}, {_flag('f.valid_from IS NOT NULL')} FROM facts f "
        f"WHERE {ended_sql} ORDER BY f.to_us",
    )
    # Enough for the page and a day's changes (the keys of a day's starts, or of its ends, tie), at first.
    days = max(1, (int(params["hi"]) - int(params["lo"])) // DAY_US + 1)
    size = 2 * wanted + (counts[0] + counts[1] + counts[3]) // days + 64
    while True:
        limited = wanted < total
        reads = [
            cur.execute(f"{side} LIMIT :n", {**params, "n": size}).fetchall()
            if limited
            else cur.execute(side, params).fetchall()
            for side in sides
        ]
        # A side cut at its limit may go on with its last key's rows: the changes are whole below the lowest such key.
        cut = [rows[-1][0] for rows in reads if limited and len(rows) == size]
        whole_below = min(cut) if cut else None
        changes: list[_Entry] = []
        for key, fact_id, is_began, is_event, has_start in heapq.merge(*reads):
            if whole_below is not None and key >= whole_below:
                break
            if is_event:
                if is_began or not has_start:  # at its start; at its end when the start is unknown
                    changes.append(
                        (key, _RANK["occurred"], fact_id, "occurred", None, fact_id, fact_id, bool(is_began))
                    )
            elif is_began:
                old = paired_new.get(fact_id)
                if old is None:
                    changes.append((key, _RANK["began"], fact_id, "began", None, fact_id, fact_id, True))
                else:
                    changes.append((key, _RANK["replaced"], fact_id, "replaced", old, fact_id, fact_id, True))
            elif fact_id not in pairs:
                changes.append((key, _RANK["ended"], fact_id, "ended", fact_id, None, fact_id, False))
        if not cut or len(changes) >= wanted:
            changes.sort()
            return counts, changes
        size *= 4


def _in_python(
    cur: Cursor,
    d: Dialect,
    params: dict[str, Any],
    began_sql: str,
    ended_sql: str,
    event: str,
    multi: frozenset[str],
    holders: frozenset[str],
    by: DiffBy,
) -> tuple[_Counts, list[_Entry]]:
    """Every change, paired in Python over light rows of every changed fact (ids and keys: no names, no joins, no
    text bounds; the facts of the page only are read in full, at the end). By transaction time (whose keys are
    texts), and the twin of :func:`_valid_in_engine` in the tests."""
    # A bound's key is NULL when it is unknown.
    if by == "valid":
        bounds = (
            "CASE WHEN f.valid_from IS NULL THEN NULL ELSE f.from_us END, "
            "CASE WHEN f.valid_to IS NULL THEN NULL ELSE f.to_us END"
        )
    else:
        bounds = "f.recorded_at, f.invalidated_at"
    # Both sides in one read, each changed fact's row once: by transaction time (no index) one scan, not two; by valid
    # time the engine ORs its two indexes (PostgreSQL at 10M facts: 0.9 -> 0.55 s against two reads).
    with d.wide_read(cur):
        rows = cur.execute(
            f"SELECT f.id, f.subject, f.predicate, COALESCE(f.object_id, f.object_value), f.object_id IS NULL, {bounds}, "
            f"{event}, {_flag(began_sql)}, {_flag(ended_sql)} FROM facts f WHERE ({began_sql}) OR ({ended_sql})",
            params,
        ).fetchall()
    if by == "known":
        rows = [
            (i, s, p, o, v, _key(start), None if end is None else _key(end), *rest)
            for i, s, p, o, v, start, end, *rest in rows
        ]
    began = [_Row._make(r[:8]) for r in rows if r[8]]
    ended = [_Row._make(r[:8]) for r in rows if r[9]]
    # Events occurred (at their start; at their end when the start is unknown): never began, ended or replaced.
    occurred = {f.id: f for f in began if f.event}
    if by == "valid":
        occurred.update((f.id, f) for f in ended if f.event and f.start is None)
    began = [f for f in began if not f.event]
    ended = [f for f in ended if not f.event]

    candidates, new_rows = _candidates(began, ended, multi)
    if holders:  # one-holder predicates: pairs by object too
        holder_candidates, holder_rows = _holder_candidates(began, ended, holders)
        candidates += holder_candidates
        new_rows.update(holder_rows)
    pairs = _match(candidates)
    paired_new = set(pairs.values())
    changes: list[_Entry] = []
    for old_id, new_id in pairs.items():
        new = new_rows[new_id]
        assert new.start is not None
        changes.append((new.start, _RANK["replaced"], new_id, "replaced", old_id, new_id, new_id, True))
    for f in ended:
        if f.id not in pairs:
            assert f.end is not None
            changes.append((f.end, _RANK["ended"], f.id, "ended", f.id, None, f.id, False))
    for f in began:
        if f.id not in paired_new:
            assert f.start is not None
            changes.append((f.start, _RANK["began"], f.id, "began", None, f.id, f.id, True))
    for f in occurred.values():
        at_start = f.start is not None
        key = f.start if f.start is not None else f.end
        assert key is not None
        changes.append((key, _RANK["occurred"], f.id, "occurred", None, f.id, f.id, at_start))
    changes.sort()  # (key, rank, id) never ties
    return (len(began), len(ended), len(pairs), len(occurred)), changes


def _candidates(
    began: list[_Row], ended: list[_Row], multi: frozenset[str]
) -> tuple[list[tuple[int, int, int]], dict[int, _Row]]:
    """The candidate replacements among light rows: (distance, old id, new id), and the new facts' rows by id."""
    by_pair: dict[tuple[str, str], list[_Row]] = {}
    for f in began:
        if f.predicate not in multi:
            by_pair.setdefault((f.subject, f.predicate), []).append(f)
    candidates: list[tuple[int, int, int]] = []
    new_rows: dict[int, _Row] = {}
    for old in ended:
        if old.predicate in multi:
            continue
        old_start, old_end = old.start, old.end
        assert old_end is not None
        for new in by_pair.get((old.subject, old.predicate), ()):
            if new.id == old.id or _same_object(new, old):
                continue
            new_start = new.start
            assert new_start is not None
            if (old_start is None or new_start >= old_start) and new_start <= old_end + DAY_US:
                candidates.append((abs(old_end - new_start), old.id, new.id))
                new_rows[new.id] = new
    return candidates, new_rows


def _holder_candidates(
    began: list[_Row], ended: list[_Row], holders: frozenset[str]
) -> tuple[list[tuple[int, int, int]], dict[int, _Row]]:
    """The candidate replacements of one-holder predicates among light rows: an ended and a begun fact of the same
    predicate and object (:func:`_object_key`) with another subject, by the rule of :func:`_candidates`."""
    by_object: dict[tuple[str, bool, str], list[_Row]] = {}
    for f in began:
        if f.predicate in holders:
            by_object.setdefault((f.predicate, f.object_is_value, _object_key(f)), []).append(f)
    candidates: list[tuple[int, int, int]] = []
    new_rows: dict[int, _Row] = {}
    for old in ended:
        if old.predicate not in holders:
            continue
        assert old.end is not None
        for new in by_object.get((old.predicate, old.object_is_value, _object_key(old)), ()):
            assert new.start is not None
            if (
                new.subject != old.subject
                and (old.start is None or new.start >= old.start)
                and new.start <= old.end + DAY_US
            ):
                candidates.append((abs(old.end - new.start), old.id, new.id))
                new_rows[new.id] = new
    return candidates, new_rows


def _object_key(f: _Row) -> str:
    """The object as the store keys it: the entity's id, or the value up to case."""
    return f.object.casefold() if f.object_is_value else f.object


class _Row(NamedTuple):
    """What pairing reads of a fact: its keys, the keys of its start and end by the diff's time (None when
    unknown), and whether it is an event."""

    id: int
    subject: str
    predicate: str
    object: str
    object_is_value: bool
    start: int | None
    end: int | None
    event: bool


def _same_object(a: _Row, b: _Row) -> bool:
    """The same entity, or the same value up to case."""
    if a.object_is_value != b.object_is_value:
        return False
    return a.object.casefold() == b.object.casefold() if a.object_is_value else a.object == b.object

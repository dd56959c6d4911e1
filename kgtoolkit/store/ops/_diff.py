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

A **renewal** (``renewed``, paired before replacements): a fact that began back to back with an ended fact of the
same subject, predicate and object (on its last day or the day after: :func:`kgtoolkit._validity.back_to_back`) is
one continuing fact, not an end and a start (terms of office, leases renewed); which pairs renew is
:mod:`._renewals`' rule. It is one change at the new fact's start, counted in ``renewed`` and neither in ``began``
nor ``ended``; the old fact's end, in the window or not, is no change. ``renewals=False`` gives the raw view.

An **event** (contract §12: its predicate or graph is declared one, or ``valid_from`` = ``valid_to``) neither
begins, ends nor is replaced: it **occurred** in the window when its start falls in it (its end, when the start
is unknown); by transaction time, when the graph recorded it. The next event is no replacement of the last.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..._errors import IntervalOrder, InvalidRequest
from ..._names import not_by_subject
from ..._records import Change, ChangeKind, Diff, DiffBy
from ..._renewals import NEAR_DAYS, mutual
from ..._time import DAY_US, OPEN_START, TimeInput, key_to_text, parse_window
from ..._validity import Sql, back_to_back, ended_later_sql
from ..engine import Cursor, Dialect
from ..reads import _queries as q
from ._traversal import check_predicates, fetch_facts

__all__ = ["diff", "pair_rows"]

_RANK = {"renewed": 0, "replaced": 1, "ended": 2, "began": 3, "occurred": 4}
#: The keys of the first and last instants of the years 0001 and 9999, where a window's near days stop.
_FIRST_KEY, _LAST_KEY = parse_window("0001").lo, parse_window("9999").hi


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
    renewals: bool = True,
) -> Diff:
    """The changes from ``start`` to ``end`` (see :meth:`KnowledgeGraph.diff`). By valid time the engine pairs the
    changes; by transaction time (whose keys are texts) Python does, over light rows of every changed fact.
    ``in_engine=False`` pairs in Python by valid time too (the tests compare the two ways on both engines).
    ``renewals=False``: no renewals (the raw view, every end and start apart)."""
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
    # The near days: a renewal of a change in the window is looked for that far either side (._renewals).
    near_lo, near_hi = max(lo - NEAR_DAYS * DAY_US, _FIRST_KEY), min(hi + NEAR_DAYS * DAY_US, _LAST_KEY)
    params: dict[str, Any] = {
        "lo": lo,
        "hi": hi,
        "klo": key_to_text(lo),
        "khi": key_to_text(hi),
        "nlo": near_lo,
        "nhi": near_hi,
        "knlo": key_to_text(near_lo),
        "knhi": key_to_text(near_hi),
    }
    if entity not in (None, ""):
        params["e"] = q.resolve(cur, d, entity)
    if predicates is not None:
        params["preds"] = d.list_param(check_predicates(cur, d, predicates) or [])

    def where(alias: str) -> str:
        """``entity`` and ``predicates`` on the facts row ``alias``, as ``AND …`` (the renewals read them on the old
        facts: a renewal's two facts share their subject, predicate and object)."""
        text = f" AND ({alias}.subject = :e OR {alias}.object_id = :e)" if "e" in params else ""
        return text + (f" AND {alias}.predicate IN {d.values('preds')}" if "preds" in params else "")

    engine = by == "valid" and in_engine

    def sides(near: bool) -> tuple[str, str]:
        """The conditions that a fact began, and ended, in the window (``near``: with its near days)."""
        if by == "valid":
            lo_hi = ":nlo AND :nhi" if near else ":lo AND :hi"
            # In the engine (valid_from IS NULL) = FALSE: the form SQLite's facts_timeline index answers from the index.
            started = "(f.valid_from IS NULL) = FALSE" if engine else "f.valid_from IS NOT NULL"
            return (
                f"{started} AND f.from_us BETWEEN {lo_hi}{where('f')}",
                f"f.valid_to IS NOT NULL AND f.to_us BETWEEN {lo_hi}{where('f')}",
            )
        lo_hi = ":knlo AND :knhi" if near else ":klo AND :khi"
        return (
            f"f.recorded_at BETWEEN {lo_hi}{where('f')}",
            f"{ended_later_sql('f')} AND f.invalidated_at BETWEEN {lo_hi}{where('f')}",
        )

    began_sql, ended_sql = sides(near=False)
    rule = q.event_rule(cur)
    event, event_params = rule.bound(d)
    params.update(event_params)
    config = q.read_config(cur)
    multi = not_by_subject(config.multi_valued, config.one_holder, config.single_valued)
    holders = config.one_holder
    del paging  # checked above, before any work
    near_sides = sides(near=True) if renewals else None
    if engine:
        counts, changes = _valid_in_engine(
            cur, d, params, began_sql, ended_sql, near_sides, event, multi, holders, limit, offset
        )
    else:
        counts, changes = _in_python(cur, d, params, began_sql, ended_sql, near_sides, event, multi, holders, by)
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
    began, ended, replaced, occurred, renewed_count = counts
    return Diff(
        window_start.text,
        window_end.text,
        by,
        shown,
        began + ended + occurred - replaced + renewed_count,
        offset,
        began - replaced,
        ended - replaced,
        replaced,
        occurred,
        renewed_count,
    )


#: One change as (key, rank, id, kind, old id, new id, the fact whose date is shown, which of its bounds): sorted by
#: (key, rank, id), which never tie. The facts, and so their subject, predicate and dates as written, are read for
#: one page.
_Entry = tuple[int, int, int, ChangeKind, int | None, int | None, int, bool]
#: The counts of an answer: facts that began and ended (each replacement counted on both sides, renewals on
#: neither), replacements, events that occurred and renewals.
_Counts = tuple[int, int, int, int, int]


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
        SELECT 1, abs(o.e - n.s), o.id, n.id, o.en, n.b
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
    near_sides: tuple[str, str] | None,
    event: str,
    multi: frozenset[str],
    holders: frozenset[str],
    limit: int | None,
    offset: int,
) -> tuple[_Counts, list[_Entry]]:
    """By valid time, paired in the engine: Python sees the counts, the candidate pairs and one page's rows, never
    every changed fact (at 10M facts a month changes 155,000 facts, whose rows alone cost more than the answer).

    The changed facts are read once, found by both time indexes (:meth:`~kgtoolkit.store.engine.Dialect.either`), into ``c``;
    the counts and the candidate pairs (an ended fact and a begun one of the same subject and predicate with another
    object, the new one starting while the old one held or the day after it ended) come from it in one statement:
    the new facts scanned, the ended ones looked up (SQLite: the smaller side, indexed on the fly, an order
    ``CROSS JOIN`` keeps; PostgreSQL: a hash join, :meth:`~kgtoolkit.store.engine.Dialect.wide_read`). Two objects are the same
    when their kind and ``object_key`` are (the entity's id, or the value casefolded: :func:`_same_object`). The
    page is read after, in time order from the same indexes, only as far as it needs. One-holder predicates add the
    pairs by object (:func:`_holder_pairs_sql`).

    With ``near_sides`` (the conditions over the window and its near days, :mod:`._renewals`), ``c`` holds the facts
    of the near days too, and the same join gives the candidate renewals (the same object, back to back), chosen in
    Python by :func:`._renewals.mutual` as the Python pairing chooses them: a new fact starting in the window is a
    renewal, an old one ending in it no change; neither pairs as a replacement."""
    multi_sql, multi_params = d.in_values("o.predicate", "multi", sorted(multi))
    holder_arm, holder_params = _holder_pairs_sql(d, holders)
    params = {**params, **multi_params, **holder_params, "day": DAY_US}
    near_began, near_ended = near_sides if near_sides is not None else (began_sql, ended_sql)
    same = "o.is_value = n.is_value AND o.okey = n.okey"
    replaces = (
        f"o.en = 1 AND n.b = 1 AND NOT ({multi_sql}) AND NOT ({same}) AND (o.has_s = 0 OR n.s >= o.s) "
        "AND n.s <= o.e + :day"
    )
    back = back_to_back(Sql("o.s"), Sql("o.e"), Sql("n.s")).text
    renewal = f" OR (o.nen = 1 AND n.nb = 1 AND {same} AND {back})" if near_sides is not None else ""
    with d.wide_read(cur):
        rows = cur.execute(
            f"""WITH c AS MATERIALIZED (
            SELECT f.id AS id, f.subject AS subject, f.predicate AS predicate, f.object_key AS okey,
                {_flag("f.object_id IS NULL")} AS is_value, f.from_us AS s, f.to_us AS e,
                {_flag("f.valid_from IS NOT NULL")} AS has_s, {_flag(began_sql)} AS b, {_flag(ended_sql)} AS en,
                {_flag(near_began)} AS nb, {_flag(near_ended)} AS nen, {_flag(event)} AS ev
            FROM facts f WHERE {d.either(near_began, near_ended)})
        SELECT 0, count(*) FILTER (WHERE b = 1 AND ev = 0), count(*) FILTER (WHERE en = 1 AND ev = 0),
            count(*) FILTER (WHERE ev = 1 AND (b = 1 OR (en = 1 AND has_s = 0))), 0, 0
        FROM c
        UNION ALL
        SELECT CASE WHEN {same} THEN 2 ELSE 1 END, abs(o.e - n.s), o.id, n.id, o.en, n.b
        FROM c n CROSS JOIN c o
        WHERE n.subject = o.subject AND n.predicate = o.predicate AND o.ev = 0 AND n.ev = 0 AND o.id <> n.id
            AND (({replaces}){renewal}){holder_arm}""",
            params,
        ).fetchall()
    (_, began, ended, occurred, _, _), *candidates = sorted(rows)
    # Renewals first (._renewals): among every candidate near the window; those of the window counted here.
    renewals = mutual([(dist, old, new) for kind, dist, old, new, _, _ in candidates if kind == 2])
    in_window = {(old, new): (bool(old_in), bool(new_in)) for kind, _, old, new, old_in, new_in in candidates}
    renew_new = {new: old for old, new in renewals.items() if in_window[old, new][1]}  # shown: renewed
    renew_old = {old for old, new in renewals.items() if in_window[old, new][0]}  # no change here
    lo, hi = int(params["lo"]), int(params["hi"])
    pairs = _match(
        [
            (dist, old, new)
            for kind, dist, old, new, _, _ in candidates
            if kind == 1 and old not in renew_old and new not in renew_new
        ]
    )
    paired_new = {new: old for old, new in pairs.items()}
    counts = (int(began) - len(renew_new), int(ended) - len(renew_old), len(pairs), int(occurred), len(renew_new))
    total = counts[0] + counts[1] + counts[3] - counts[2] + counts[4]
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
    days = max(1, (hi - lo) // DAY_US + 1)
    size = 2 * wanted + (int(began) + int(ended) + counts[3]) // days + 64
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
                renews = renew_new.get(fact_id)
                old = paired_new.get(fact_id)
                if renews is not None:
                    changes.append((key, _RANK["renewed"], fact_id, "renewed", renews, fact_id, fact_id, True))
                elif old is None:
                    changes.append((key, _RANK["began"], fact_id, "began", None, fact_id, fact_id, True))
                else:
                    changes.append((key, _RANK["replaced"], fact_id, "replaced", old, fact_id, fact_id, True))
            elif fact_id not in pairs and fact_id not in renew_old:
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
    near_sides: tuple[str, str] | None,
    event: str,
    multi: frozenset[str],
    holders: frozenset[str],
    by: DiffBy,
) -> tuple[_Counts, list[_Entry]]:
    """Every change, paired in Python over light rows of every changed fact (ids and keys: no names, no joins, no
    text bounds; the facts of the page only are read in full, at the end). By transaction time (whose keys are
    texts), and the twin of :func:`_valid_in_engine` in the tests. ``near_sides`` (the conditions of
    ``began_sql``/``ended_sql`` over the window and its near days; None: no renewals) reads the facts the renewals
    are chosen among too."""
    # A bound's key is NULL when it is unknown.
    if by == "valid":
        bounds = (
            "CASE WHEN f.valid_from IS NULL THEN NULL ELSE f.from_us END, "
            "CASE WHEN f.valid_to IS NULL THEN NULL ELSE f.to_us END"
        )
    else:
        bounds = "f.recorded_at, f.invalidated_at"
    near_began, near_ended = near_sides if near_sides is not None else (began_sql, ended_sql)
    # Both sides in one read, each changed fact's row once: by transaction time (no index) one scan, not two; by valid
    # time the engine ORs its two indexes (PostgreSQL at 10M facts: 0.9 -> 0.55 s against two reads).
    with d.wide_read(cur):
        rows = cur.execute(
            f"SELECT f.id, f.subject, f.predicate, COALESCE(f.object_id, f.object_value), f.object_id IS NULL, {bounds}, "
            f"{event}, {_flag(began_sql)}, {_flag(ended_sql)}, {_flag(near_began)}, {_flag(near_ended)} "
            f"FROM facts f WHERE ({near_began}) OR ({near_ended})",
            params,
        ).fetchall()
    if by == "known":
        rows = [
            (i, s, p, o, v, _key(start), None if end is None else _key(end), *rest)
            for i, s, p, o, v, start, end, *rest in rows
        ]
    return pair_rows(rows, multi, holders, by, renewals=near_sides is not None)


def pair_rows(
    rows: Sequence[Sequence[Any]], multi: frozenset[str], holders: frozenset[str], by: DiffBy, *, renewals: bool
) -> tuple[_Counts, list[_Entry]]:
    """The changes among light rows of every fact changed in the window or its near days (``id, subject, predicate,
    object, object is a value, start key, end key`` (None: unknown)``, event, began, ended, began near, ended
    near``), paired: the counts and every change in time order. The store reads the rows with SQL; Spark
    (:mod:`kgtoolkit.spark`) with its columns; the pairing is this one."""
    began = [_Row._make(r[:8]) for r in rows if r[8]]
    ended = [_Row._make(r[:8]) for r in rows if r[9]]
    # Events occurred (at their start; at their end when the start is unknown): never began, ended or replaced.
    occurred = {f.id: f for f in began if f.event}
    if by == "valid":
        occurred.update((f.id, f) for f in ended if f.event and f.start is None)
    began = [f for f in began if not f.event]
    ended = [f for f in ended if not f.event]

    # Renewals first (._renewals' rule over the facts near the window): shown at the new fact's start when it is in
    # the window; the old fact's end in the window is no change. Neither pairs as a replacement.
    renew_new: dict[int, int] = {}
    renew_old: set[int] = set()
    if renewals:
        states = [(_Row._make(r[:8]), r[10], r[11]) for r in rows if not r[7]]
        chosen = mutual(_renewal_candidates([f for f, b, _ in states if b], [f for f, _, e in states if e]))
        began_ids, ended_ids = {f.id for f in began}, {f.id for f in ended}
        renew_new = {new: old for old, new in chosen.items() if new in began_ids}
        renew_old = {old for old in chosen if old in ended_ids}
    changes: list[_Entry] = []
    for f in began:
        if f.id in renew_new:
            assert f.start is not None
            changes.append((f.start, _RANK["renewed"], f.id, "renewed", renew_new[f.id], f.id, f.id, True))
    began = [f for f in began if f.id not in renew_new]
    ended = [f for f in ended if f.id not in renew_old]

    candidates, new_rows = _candidates(began, ended, multi)
    if holders:  # one-holder predicates: pairs by object too
        holder_candidates, holder_rows = _holder_candidates(began, ended, holders)
        candidates += holder_candidates
        new_rows.update(holder_rows)
    pairs = _match(candidates)
    paired_new = set(pairs.values())
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
    return (len(began), len(ended), len(pairs), len(occurred), len(renew_new)), changes


def _renewal_candidates(began: list[_Row], ended: list[_Row]) -> list[tuple[int, int, int]]:
    """The candidate renewals among light rows of state facts (:mod:`._renewals`): (distance, old id, new id), an
    ended fact and a begun one of the same triple starting back to back with it."""
    by_triple: dict[tuple[str, str, bool, str], list[_Row]] = {}
    for f in began:
        by_triple.setdefault(_triple(f), []).append(f)
    candidates: list[tuple[int, int, int]] = []
    for old in ended:
        assert old.end is not None
        old_start = OPEN_START if old.start is None else old.start
        for new in by_triple.get(_triple(old), ()):
            assert new.start is not None
            if new.id != old.id and back_to_back(old_start, old.end, new.start):
                candidates.append((abs(old.end - new.start), old.id, new.id))
    return candidates


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


def _triple(f: _Row) -> tuple[str, str, bool, str]:
    """What makes two facts the same triple: subject, predicate and object (:func:`_same_object`)."""
    return f.subject, f.predicate, f.object_is_value, _object_key(f)


def _same_object(a: _Row, b: _Row) -> bool:
    """The same entity, or the same value up to case."""
    return a.object_is_value == b.object_is_value and _object_key(a) == _object_key(b)

"""What changed between two dates (contract §11): facts that began, facts that ended, and replacements.

By valid time (``by="valid"``), a fact **began** in the window when its ``valid_from`` falls in it and
**ended** when its ``valid_to`` does. By transaction time (``by="known"``), it began when the graph
recorded it and ended when the graph recorded its end (a fact recorded already ended counts once, as
begun). An end and a start of the same subject and predicate with another object are one
**replacement** when the new fact starts while the old one held or on the day after it ended (as
``supersede`` writes them, both on the switch day); each fact pairs at most once, the closest first.
Multi-valued predicates never pair: a new object there is one more, not a replacement.

An **event** (contract §12: its predicate or graph is declared one, or ``valid_from`` = ``valid_to``) neither
begins, ends nor is replaced: it **occurred** in the window when its start falls in it (its end, when the start
is unknown); by transaction time, when the graph recorded it. The next event is no replacement of the last.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .._errors import IntervalOrder, InvalidRequest
from .._records import Change, ChangeKind, Diff, DiffBy
from .._time import TimeInput, key_to_text, parse_window
from . import _queries as q
from ._backend import Cursor, Dialect
from ._traversal import check_predicates, fetch_facts

__all__ = ["diff"]

_DAY_US = 86_400_000_000
_RANK = {"replaced": 0, "ended": 1, "began": 2, "occurred": 3}


def _key(text: str) -> int:
    return parse_window(text, field="at").lo


def diff(  # noqa: C901  (over the limit before it was set: to split)
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
) -> Diff:
    """The changes from ``start`` to ``end`` (see :meth:`KnowledgeGraph.diff`)."""
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
    if by == "valid":
        began_sql = f"f.valid_from IS NOT NULL AND f.from_us BETWEEN :lo AND :hi{where}"
        ended_sql = f"f.valid_to IS NOT NULL AND f.to_us BETWEEN :lo AND :hi{where}"
    else:
        began_sql = f"f.recorded_at BETWEEN :klo AND :khi{where}"
        ended_sql = (
            f"f.invalidated_at IS NOT NULL AND f.invalidated_at <> f.recorded_at AND f.invalidated_at "
            f"BETWEEN :klo AND :khi{where}"
        )
    events = q.event_rule(cur)
    params.update(events.params(d))
    event = events.sql(d)
    # Light rows while pairing: ids and keys only, no names, no joins, no text bounds (the facts of the page only
    # are read in full, at the end, and the dates shown are theirs). A bound's key is NULL when it is unknown.
    if by == "valid":
        bounds = (
            "CASE WHEN f.valid_from IS NULL THEN NULL ELSE f.from_us END, "
            "CASE WHEN f.valid_to IS NULL THEN NULL ELSE f.to_us END"
        )
    else:
        bounds = "f.recorded_at, f.invalidated_at"
    columns = (
        f"f.id, f.subject, f.predicate, COALESCE(f.object_id, f.object_value), f.object_id IS NULL, {bounds}, {event}"
    )

    def read(condition: str) -> list[_Row]:
        rows = cur.execute(f"SELECT {columns} FROM facts f WHERE {condition}", params)
        if by == "valid":
            return list(map(_Row._make, rows))
        return [
            _Row(i, s, p, o, v, _key(start), None if end is None else _key(end), e)
            for i, s, p, o, v, start, end, e in rows
        ]

    began, ended = read(began_sql), read(ended_sql)
    multi = q.read_config(cur).multi_valued
    # Events occurred (at their start; at their end when the start is unknown): never began, ended or replaced.
    occurred = {f.id: f for f in began if f.event}
    if by == "valid":
        occurred.update((f.id, f) for f in ended if f.event and f.start is None)
    began = [f for f in began if not f.event]
    ended = [f for f in ended if not f.event]

    # Candidate replacements: (distance, old id, new id), the closest pair first.
    by_pair: dict[tuple[str, str], list[_Row]] = {}
    for f in began:
        if f.predicate not in multi:
            by_pair.setdefault((f.subject, f.predicate), []).append(f)
    candidates: list[tuple[int, int, int, _Row]] = []
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
            if (old_start is None or new_start >= old_start) and new_start <= old_end + _DAY_US:
                candidates.append((abs(old_end - new_start), old.id, new.id, new))
    candidates.sort()  # (distance, old id, new id) never ties: the rows are never compared
    paired_old: set[int] = set()
    paired_new: set[int] = set()
    # Each change as (key, rank, id, kind, subject, predicate, old id, new id, the fact whose date is shown, which
    # of its bounds): the facts, and so the dates as written, are read for one page.
    changes: list[tuple[int, int, int, ChangeKind, str, str, int | None, int | None, int, bool]] = []
    for _, old_id, new_id, new in candidates:
        if old_id in paired_old or new_id in paired_new:
            continue
        paired_old.add(old_id)
        paired_new.add(new_id)
        assert new.start is not None
        changes.append(
            (new.start, _RANK["replaced"], new_id, "replaced", new.subject, new.predicate, old_id, new_id, new_id, True)
        )
    for f in ended:
        if f.id not in paired_old:
            assert f.end is not None
            changes.append((f.end, _RANK["ended"], f.id, "ended", f.subject, f.predicate, f.id, None, f.id, False))
    for f in began:
        if f.id not in paired_new:
            assert f.start is not None
            changes.append((f.start, _RANK["began"], f.id, "began", f.subject, f.predicate, None, f.id, f.id, True))
    for f in occurred.values():
        at_start = f.start is not None
        key = f.start if f.start is not None else f.end
        assert key is not None
        changes.append((key, _RANK["occurred"], f.id, "occurred", f.subject, f.predicate, None, f.id, f.id, at_start))
    changes.sort()  # (key, rank, id) never ties
    del paging  # checked above, before any work
    page = changes[offset:] if limit is None else changes[offset : offset + limit]
    facts = fetch_facts(cur, d, (i for c in page for i in c[6:8] if i is not None), None)

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
            subject,
            predicate,
            None if old is None else facts[old],
            None if new is None else facts[new],
        )
        for _, _, _, kind, subject, predicate, old, new, dated, at_start in page
    )
    replaced = len(paired_new)
    return Diff(
        window_start.text,
        window_end.text,
        by,
        shown,
        len(changes),
        offset,
        len(began) - replaced,
        len(ended) - replaced,
        replaced,
        len(occurred),
    )


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

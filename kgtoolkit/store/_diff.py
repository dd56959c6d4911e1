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
from typing import Any

from .._errors import IntervalOrder, InvalidRequest
from .._records import Fact
from .._time import TimeInput, key_to_text, parse_window
from .._traversal import Change, Diff, DiffBy
from . import _queries as q
from ._backend import Cursor, Dialect
from ._schema import FACT_FROM, FACT_READ

__all__ = ["diff"]

_DAY_US = 86_400_000_000
_RANK = {"replaced": 0, "ended": 1, "began": 2, "occurred": 3}


def _key(text: str) -> int:
    return parse_window(text, field="at").lo


def diff(cur: Cursor, d: Dialect, start: TimeInput, end: TimeInput, *, entity: str | None,
         predicates: Sequence[str] | None, by: DiffBy, limit: int | None, offset: int) -> Diff:
    """The changes from ``start`` to ``end`` (see :meth:`KnowledgeGraph.diff`)."""
    if by not in ("valid", "known"):
        raise InvalidRequest(f"by must be valid or known, not {by!r}", field="by", value=str(by))
    window_start = parse_window(start, field="from")
    window_end = parse_window(end, field="to")
    lo, hi = window_start.lo, window_end.hi
    if hi < lo:
        raise IntervalOrder(f"to ({window_end.text}) is before from ({window_start.text}); give the earlier date "
                            "first", field="to", value=window_end.text)
    paging = q.page(d, limit, offset)
    params: dict[str, Any] = {"lo": lo, "hi": hi, "klo": key_to_text(lo), "khi": key_to_text(hi)}
    where = ""
    if entity not in (None, ""):
        params["e"] = q.resolve(cur, d, entity)
        where += " AND (f.subject = :e OR f.object_id = :e)"
    if predicates is not None:
        from ._traversal import check_predicates

        params["preds"] = d.list_param(check_predicates(cur, d, predicates) or [])
        where += f" AND f.predicate IN {d.values('preds')}"
    if by == "valid":
        began_sql = f"f.valid_from IS NOT NULL AND f.from_us BETWEEN :lo AND :hi{where}"
        ended_sql = f"f.valid_to IS NOT NULL AND f.to_us BETWEEN :lo AND :hi{where}"
    else:
        began_sql = f"f.recorded_at BETWEEN :klo AND :khi{where}"
        ended_sql = (f"f.invalidated_at IS NOT NULL AND f.invalidated_at <> f.recorded_at AND f.invalidated_at "
                     f"BETWEEN :klo AND :khi{where}")
    keys: dict[int, tuple[int, int]] = {}  # the interval keys of each fact read (valid time, never re-parsed)

    def read(condition: str) -> list[Fact]:
        rows = cur.execute(f"SELECT {FACT_READ}, f.from_us, f.to_us FROM {FACT_FROM} WHERE {condition}",
                           params).fetchall()
        for r in rows:
            keys[int(r[0])] = (int(r[-2]), int(r[-1]))
        return [q.row_fact(r[:-2], events=events) for r in rows]

    events = q.event_rule(cur)
    began, ended = read(began_sql), read(ended_sql)
    multi = q.read_config(cur).multi_valued
    # Events occurred (at their start; at their end when the start is unknown): never began, ended or replaced.
    occurred = {f.id: f for f in began if f.kind == "event"}
    if by == "valid":
        occurred.update((f.id, f) for f in ended if f.kind == "event" and f.valid_from is None)
    began = [f for f in began if f.kind == "state"]
    ended = [f for f in ended if f.kind == "state"]

    def start_of(f: Fact) -> tuple[str, int]:
        text = f.valid_from if by == "valid" else f.recorded_at
        assert text is not None
        return text, (_key(text) if by == "known" else keys[f.id][0])

    def end_of(f: Fact) -> tuple[str, int]:
        text = f.valid_to if by == "valid" else f.invalidated_at
        assert text is not None
        return text, keys[f.id][1] if by == "valid" else _key(text)

    # Candidate replacements: (distance, old id, new id), the closest pair first.
    by_pair: dict[tuple[str, str], list[Fact]] = {}
    for f in began:
        if f.predicate not in multi:
            by_pair.setdefault((f.subject, f.predicate), []).append(f)
    candidates: list[tuple[int, int, int, Fact, Fact]] = []
    for old in ended:
        if old.predicate in multi:
            continue
        old_start = start_of(old)[1] if (old.valid_from if by == "valid" else old.recorded_at) else None
        old_end = end_of(old)[1]
        for new in by_pair.get((old.subject, old.predicate), ()):
            if new.id == old.id or _object(new) == _object(old):
                continue
            new_start = start_of(new)[1]
            if (old_start is None or new_start >= old_start) and new_start <= old_end + _DAY_US:
                candidates.append((abs(old_end - new_start), old.id, new.id, old, new))
    candidates.sort(key=lambda c: c[:3])
    paired_old: set[int] = set()
    paired_new: set[int] = set()
    changes: list[tuple[int, int, int, Change]] = []
    for _, old_id, new_id, old, new in candidates:
        if old_id in paired_old or new_id in paired_new:
            continue
        paired_old.add(old_id)
        paired_new.add(new_id)
        text, key = start_of(new)
        changes.append((key, _RANK["replaced"], new_id, Change("replaced", text, new.subject, new.predicate, old, new)))
    for f in ended:
        if f.id not in paired_old:
            text, key = end_of(f)
            changes.append((key, _RANK["ended"], f.id, Change("ended", text, f.subject, f.predicate, f, None)))
    for f in began:
        if f.id not in paired_new:
            text, key = start_of(f)
            changes.append((key, _RANK["began"], f.id, Change("began", text, f.subject, f.predicate, None, f)))
    for f in occurred.values():
        text, key = start_of(f) if f.valid_from is not None or by == "known" else end_of(f)
        changes.append((key, _RANK["occurred"], f.id, Change("occurred", text, f.subject, f.predicate, None, f)))
    changes.sort(key=lambda c: c[:3])
    kinds = [c[3].kind for c in changes]
    del paging  # checked above, before any work
    shown = tuple(c[3] for c in (changes[offset:] if limit is None else changes[offset:offset + limit]))
    return Diff(window_start.text, window_end.text, by, shown, len(changes), offset, kinds.count("began"),
                kinds.count("ended"), kinds.count("replaced"), kinds.count("occurred"))


def _object(f: Fact) -> str:
    return f.object.casefold() if f.object_is_value else f.object

"""Writing facts: add, invalidate, supersede (by object or by holder), and memories; reading one fact."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from ..._errors import (
    IntervalOrder,
    InvalidRequest,
    NotCurrent,
    NotFound,
)
from ..._limits import DEFAULT_HISTORY
from ..._names import (
    clean_text,
    normalize_name,
)
from ..._records import (
    AddResult,
    Fact,
    Memory,
    SupersedeResult,
)
from ..._time import TimeInput, now_text, now_text_after, today
from ..engine import (
    Backend,
    Cursor,
)
from ..reads import _queries as q
from . import _predicates as _preds
from ._rules import Rules, json_object
from ._settings import read_config


def _add(
    cur: Cursor,
    rules: Rules,
    subject: str,
    predicate: str,
    obj: str,
    *,
    valid_from: TimeInput | None,
    valid_to: TimeInput | None,
    confidence: float,
    source: str | None,
    source_closet: str | None,
    subject_type: str | None,
    object_type: str | None,
    properties: Mapping[str, Any] | None,
    occurrence: int | None = None,
) -> AddResult:
    """``add`` inside an open write transaction."""
    fact = rules.fact(
        subject,
        predicate,
        obj,
        valid_from=valid_from,
        valid_to=valid_to,
        confidence=confidence,
        source=source,
        source_closet=source_closet,
        subject_type=subject_type,
        object_type=object_type,
        occurrence=occurrence,
    )
    warnings = list(fact.warnings)
    subject_id = q.ensure_entity(cur, fact.subject, fact.subject_type, properties, warnings)
    if fact.is_value:
        object_id, object_value, object_key = None, fact.object.display, fact.object.id
    else:
        object_id = q.ensure_entity(cur, fact.object, fact.object_type, None, warnings)
        object_value, object_key = None, object_id
    if fact.end is None:
        existing = cur.execute(
            "SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? AND valid_to IS NULL",
            (subject_id, fact.predicate, object_key),
        ).fetchone()
    else:
        existing = cur.execute(
            "SELECT id FROM facts WHERE subject = ? AND predicate = ? AND object_key = ? AND from_us = ? AND to_us = ? "
            "AND occurrence = ?",
            (subject_id, fact.predicate, object_key, fact.from_key, fact.to_key, fact.occurrence),
        ).fetchone()
    if existing:
        return AddResult(q.fact(cur, existing[0]), False, tuple(warnings))
    _preds.ensure_labels(cur, [(fact.predicate, fact.predicate_label)])
    recorded = now_text()
    ended = fact.end is not None
    fact_id = cur.execute(
        """INSERT INTO facts(subject, predicate, object_id, object_value, object_key, valid_from, valid_to,
               from_us, to_us, confidence, source, source_closet, recorded_at, invalidated_at, ended_by, occurrence)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
        (
            subject_id,
            fact.predicate,
            object_id,
            object_value,
            object_key,
            fact.start.text if fact.start else None,
            fact.end.text if fact.end else None,
            fact.from_key,
            fact.to_key,
            fact.confidence,
            fact.source,
            fact.closet,
            recorded,
            recorded if ended else None,
            fact.source if ended else None,
            fact.occurrence,
        ),
    ).fetchone()[0]
    return AddResult(q.fact(cur, fact_id), True, tuple(warnings))


def add(
    engine: Backend,
    subject: str,
    predicate: str,
    object: str,
    *,
    valid_from: TimeInput | None = None,
    valid_to: TimeInput | None = None,
    confidence: float = 1.0,
    source: str | None = None,
    source_closet: str | None = None,
    subject_type: str | None = None,
    object_type: str | None = None,
    properties: Mapping[str, Any] | None = None,
    occurrence: int | None = None,
) -> AddResult:
    """Record one fact in one write, through the graph's rules."""

    def write(cur: Cursor) -> AddResult:
        rules = _preds.rules(cur)
        return _add(
            cur,
            rules,
            subject,
            predicate,
            object,
            valid_from=valid_from,
            valid_to=valid_to,
            confidence=confidence,
            source=source,
            source_closet=source_closet,
            subject_type=subject_type,
            object_type=object_type,
            properties=properties,
            occurrence=occurrence,
        )

    return engine.write(write)


def invalidate(
    engine: Backend,
    subject: str,
    predicate: str,
    object: str,
    *,
    ended: TimeInput | None = None,
    ended_by: str | None = None,
) -> Fact:
    """End the current fact in one write."""

    def write(cur: Cursor) -> Fact:
        return invalidate_in(engine, cur, _preds.rules(cur), subject, predicate, object, ended, ended_by)

    return engine.write(write)


def invalidate_in(
    engine: Backend,
    cur: Cursor,
    rules: Rules,
    subject: str,
    predicate: str,
    obj: str,
    ended: TimeInput | None,
    ended_by: str | None,
    *,
    field: str = "ended",
) -> Fact:
    """End the current fact in the open write ``cur`` (``NotCurrent`` with its history when none is)."""
    d = engine.dialect
    pred = rules.predicate(predicate)
    end = rules.end(ended if ended not in (None, "") else today(), field)
    by = rules.text(ended_by, "ended_by") or "agent"
    subject_id = q.resolve(cur, d, subject, field="subject")
    object_key = rules.value(obj).id if rules.is_value(pred) else q.resolve(cur, d, obj, field="object")
    row = cur.execute(
        "SELECT id, from_us, valid_from, recorded_at FROM facts WHERE subject = ? AND predicate = ? "
        "AND object_key = ? AND valid_to IS NULL",
        (subject_id, pred, object_key),
    ).fetchone()
    if row is None:
        # its history, bounded: the last DEFAULT_HISTORY ended (a current fact with a recorded end among them:
        # its end is the latest), listed in store order, and how many there are in all
        same = "FROM facts f WHERE subject = ? AND predicate = ? AND object_key = ?"
        last = cur.execute(
            f"SELECT f.id, f.valid_from IS NULL, f.from_us {same} "
            f"ORDER BY f.to_us DESC, f.from_us DESC, f.id DESC LIMIT {DEFAULT_HISTORY}",
            (subject_id, pred, object_key),
        ).fetchall()
        history = [q.fact(cur, r[0]) for r in sorted(last, key=lambda r: (bool(r[1]), r[2], r[0]))]
        total = int(cur.execute(f"SELECT count(*) {same}", (subject_id, pred, object_key)).fetchone()[0])
        earlier = f" (and {total - len(history):,} earlier)" if total > len(history) else ""
        running = [f for f in history if f.state == "current"]
        if running:  # current, with its end already recorded (contract §4): an end is written once
            raise NotCurrent(
                f"{subject} → {pred} → {obj} already ends on {running[0].valid_to} (it is current "
                "until then), so there is no open fact to end; a recorded end is not rewritten. "
                "Query the entity to see its facts.",
                field="object",
                value=obj,
                history=[f.to_dict() for f in history],
                history_total=total,
            )
        past = "; ".join(f"{f.valid_from or '?'} … {f.valid_to}" for f in history)
        detail = f" It was true{earlier}: {past}." if history else " No such fact was ever recorded."
        raise NotCurrent(
            f"{subject} → {pred} → {obj} is not current, so there is nothing to end.{detail} "
            "Query the entity to see its current facts.",
            field="object",
            value=obj,
            history=[f.to_dict() for f in history],
            history_total=total,
        )
    fact_id, from_key, valid_from, recorded_at = row
    if end.key < from_key:
        raise IntervalOrder(
            f"{field} {end.text} is before the fact's valid_from {valid_from}; give a {field} on or after {valid_from}",
            field=field,
            value=end.text,
        )
    cur.execute(
        "UPDATE facts SET valid_to = ?, to_us = ?, invalidated_at = ?, ended_by = ? WHERE id = ?",
        (end.text, end.key, now_text_after(recorded_at), by, fact_id),  # recorded later than the fact (§12)
    )
    return q.fact(cur, fact_id)


def supersede(
    engine: Backend,
    subject: str,
    predicate: str,
    old_object: str,
    new_object: str,
    *,
    at: TimeInput | None = None,
    confidence: float = 1.0,
    source: str | None = None,
    source_closet: str | None = None,
    object_type: str | None = None,
) -> SupersedeResult:
    """End the fact of ``old_object`` and add ``new_object``, in one write."""

    def write(cur: Cursor) -> SupersedeResult:
        rules = _preds.rules(cur)
        pred = rules.predicate(predicate)
        if rules.is_value(pred):
            same = (
                clean_text(old_object, field="old_object").casefold()
                == clean_text(new_object, field="new_object").casefold()
            )
        else:
            same = normalize_name(old_object, field="old_object") == normalize_name(new_object, field="new_object")
        if same:
            raise InvalidRequest(
                "old_object and new_object are the same; nothing to supersede", field="new_object", value=new_object
            )
        written = {"confidence": confidence, "source": source, "source_closet": source_closet}
        return _switch(engine, cur, rules, pred, (subject, old_object), (subject, new_object), at, written, object_type)

    return engine.write(write)


def supersede_holder(
    engine: Backend,
    object: str,
    predicate: str,
    old_subject: str,
    new_subject: str,
    *,
    at: TimeInput | None = None,
    confidence: float = 1.0,
    source: str | None = None,
    source_closet: str | None = None,
    subject_type: str | None = None,
) -> SupersedeResult:
    """End the fact of ``old_subject`` and add ``new_subject``'s, in one write."""

    def write(cur: Cursor) -> SupersedeResult:
        rules = _preds.rules(cur)
        pred = rules.predicate(predicate)
        if normalize_name(old_subject, field="old_subject") == normalize_name(new_subject, field="new_subject"):
            raise InvalidRequest(
                "old_subject and new_subject are the same; nothing to supersede",
                field="new_subject",
                value=new_subject,
            )
        written = {"confidence": confidence, "source": source, "source_closet": source_closet}
        return _switch(
            engine,
            cur,
            rules,
            pred,
            (old_subject, object),
            (new_subject, object),
            at,
            written,
            subject_type=subject_type,
        )

    return engine.write(write)


def _switch(
    engine: Backend,
    cur: Cursor,
    rules: Rules,
    pred: str,
    old: tuple[str, str],
    new: tuple[str, str],
    at: TimeInput | None,
    written: dict[str, Any],
    object_type: str | None = None,
    *,
    subject_type: str | None = None,
) -> SupersedeResult:
    """The write of :meth:`supersede` and :meth:`supersede_holder`: end the ``old`` (subject, object) fact at
    ``at`` (today by default) and add the ``new`` one from then, with ``written``'s confidence and sources."""
    moment = at if at not in (None, "") else today()
    ended = invalidate_in(engine, cur, rules, old[0], pred, old[1], moment, written["source"], field="at")
    added = _add(
        cur,
        rules,
        new[0],
        pred,
        new[1],
        valid_from=moment,
        valid_to=None,
        subject_type=subject_type,
        object_type=object_type,
        properties=None,
        **written,
    )
    return SupersedeResult(ended, added.fact, added.created, added.warnings)


def remember(
    engine: Backend, text: str, *, source: str | None = None, metadata: Mapping[str, Any] | None = None
) -> Memory:
    """Store one memory, its text checked by the graph's rules."""
    engine.create()  # it writes: a new graph is made first (the rules read its settings)
    rules = Rules(read_config(engine))
    body = (rules.text(text, "text") or "") if isinstance(text, str) else ""
    if not body:
        raise InvalidRequest("a memory needs some text", field="text", value=str(text))
    meta = json_object(metadata, "metadata") or {}
    memory = Memory(f"mem_{uuid.uuid4().hex[:16]}", body, rules.text(source, "source"), now_text(), meta)

    def write(cur: Cursor) -> Memory:
        cur.execute(
            "INSERT INTO memories(id, text, source, created_at, metadata) VALUES (?, ?, ?, ?, ?)",
            (memory.id, memory.text, memory.source, memory.created_at, json.dumps(meta)),
        )
        return memory

    return engine.write(write)


def memory(engine: Backend, memory_id: str) -> Memory:
    with engine.read() as cur:
        row = cur.execute(
            "SELECT id, text, source, created_at, metadata FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
    if row is None:
        raise NotFound(f"no memory with id {memory_id!r}", field="memory_id", value=memory_id)
    return Memory(row[0], row[1], row[2], row[3], json.loads(row[4]))


def fact(engine: Backend, fact_id: int) -> Fact:
    if not isinstance(fact_id, int) or isinstance(fact_id, bool) or not -(2**63) <= fact_id < 2**63:
        raise NotFound(f"no fact with id {fact_id!r}", field="id", value=str(fact_id))
    with engine.read() as cur:
        if cur.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is None:
            raise NotFound(f"no fact with id {fact_id!r}", field="id", value=str(fact_id))
        return q.fact(cur, fact_id)

"""A slow twin of :mod:`kgtoolkit.forecast`, in plain Python over fact records, written from the definitions and not
from the fast code: every query walks the whole history and scores every entity one by one.

``events(kg)`` reads the graph's events as records (subject, predicate, object, day); ``ranks(...)`` and
``scores(...)`` apply the recurrency baseline and the protocol (single-step history, time-aware filter, rank = 1 +
strictly higher + half the tied) to them.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import NamedTuple

from kgtoolkit import KnowledgeGraph, frames

EPOCH = dt.date(1970, 1, 1)


class Event(NamedTuple):
    subject: str
    predicate: str
    object: str
    day: int


def events(kg: KnowledgeGraph) -> list[Event]:
    """The graph's events with a start and an entity object, one record per fact."""
    out = []
    for row in frames.facts(kg).iter_rows(named=True):
        if row["kind"] == "event" and row["start"] is not None and not row["object_is_value"]:
            out.append(Event(row["subject"], row["predicate"], row["object"], (row["start"].date() - EPOCH).days))
    return out


def _normaliser(lam: float, days: int) -> float:
    return sum(2.0 ** (-lam * i) for i in range(1, days + 1))


def scores(
    history: list[Event],
    entities: list[str],
    known: str,
    predicate: str,
    inverse: bool,
    day: int,
    lam: float,
    alpha: float,
    origin: int,
) -> dict[str, tuple[float, float, float]]:
    """(ψ, ξ, α·ψ + (1 − α)·ξ) of every entity as the answer of (known, predicate, ?) on ``day`` (``inverse``:
    (?, predicate, known)), from the events before ``day``."""
    past = [e for e in history if e.day < day and e.predicate == predicate]
    norm = _normaliser(lam, day - origin)
    out = {}
    for candidate in entities:
        if inverse:
            days = sorted({e.day for e in past if e.subject == candidate and e.object == known})
            count = sum(1 for e in past if e.subject == candidate)
        else:
            days = sorted({e.day for e in past if e.subject == known and e.object == candidate})
            count = sum(1 for e in past if e.object == candidate)
        raw = 0.0
        for k in days:
            raw += 2.0 ** (lam * (k - day))
        psi = raw / norm if norm > 0 else 0.0
        xi = count / len(past) if past else 0.0
        out[candidate] = (psi, xi, alpha * psi + (1.0 - alpha) * xi)
    return out


class Ranked(NamedTuple):
    subject: str
    predicate: str
    object: str
    day: int
    direction: str
    events: int
    score: float
    rank: float


def ranks(records: list[Event], since: int, lam: float, alpha: float) -> list[Ranked]:
    """Every query of the events from day ``since`` on, with its filtered rank and the answer's score."""
    entities = sorted({e.subject for e in records} | {e.object for e in records})
    origin = min(e.day for e in records)
    asked = Counter(e for e in records if e.day >= since)
    out = []
    for event, n in asked.items():
        for direction in ("object", "subject"):
            inverse = direction == "subject"
            known = event.object if inverse else event.subject
            answer = event.subject if inverse else event.object
            scored = scores(records, entities, known, event.predicate, inverse, event.day, lam, alpha, origin)
            others = {
                (e.subject if inverse else e.object)
                for e in asked
                if e.day == event.day
                and e.predicate == event.predicate
                and (e.object if inverse else e.subject) == known
            } - {answer}
            mine = scored[answer][2]
            higher = sum(1 for c in entities if c != answer and c not in others and scored[c][2] > mine)
            tied = sum(1 for c in entities if c != answer and c not in others and scored[c][2] == mine)
            out.append(Ranked(*event, direction, n, mine, 1 + higher + 0.5 * tied))
    return out

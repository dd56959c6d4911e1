"""The plain Python model the analyses are compared against: churn, renewals, conflicts, volatility."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter, defaultdict
from typing import Any

import polars as pl
import pytest
from bounds import end_of, start_of
from shared_data import DATA

from kgtoolkit import Fact, KnowledgeGraph

UTC = dt.UTC
NOW = dt.datetime(2027, 1, 1, 12, tzinfo=UTC)
US = dt.timedelta(microseconds=1)
YAGO = DATA / "yago11k" / "facts.tsv"


def closing(fact: Fact) -> dt.datetime | None:
    """The end used for lengths: a date-only end closes at the next midnight."""
    end = end_of(fact.valid_to)
    if end is not None and "T" not in fact.valid_to:  # type: ignore[operator]
        end += US
    return end


def key(fact: Fact) -> str:
    return fact.object.casefold() if fact.object_is_value else fact.object


def trunc(moment: dt.datetime, every: str) -> dt.datetime:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if every == "1mo":
        return day.replace(day=1)
    if every == "1y":
        return day.replace(month=1, day=1)
    if every == "1w":
        return day - dt.timedelta(days=day.weekday())
    assert every == "1d"
    return day


def step(moment: dt.datetime, every: str) -> dt.datetime:
    if every == "1mo":
        return moment.replace(year=moment.year + moment.month // 12, month=moment.month % 12 + 1)
    if every == "1y":
        return moment.replace(year=moment.year + 1)
    return moment + dt.timedelta(days=7 if every == "1w" else 1)


def records(kg: KnowledgeGraph) -> list[Fact]:
    return kg.timeline()


def ref_renewals(facts: list[Fact]) -> dict[int, int]:
    """Old id → new id of the renewals (contract §11), from the definition: two state facts of one triple (the
    object's key), the new one starting on the old one's last day or the day after (and not before the old one
    started), each the other's closest (distance from the old end to the new start, then the lower id)."""
    day = dt.timedelta(days=1)
    triples: dict[tuple[Any, ...], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.kind == "state":
            triples[(f.subject, f.predicate, f.object_is_value, key(f))].append(f)
    candidates = []
    for members in triples.values():
        for old, new in itertools.permutations(members, 2):
            old_start, old_end, new_start = start_of(old.valid_from), end_of(old.valid_to), start_of(new.valid_from)
            if old_end is None or new_start is None or not old_end - day < new_start <= old_end + day:
                continue
            if old_start is None or new_start >= old_start:
                candidates.append((abs(old_end - new_start), old.id, new.id))
    best_new: dict[int, tuple[dt.timedelta, int]] = {}
    best_old: dict[int, tuple[dt.timedelta, int]] = {}
    for dist, old_id, new_id in candidates:
        best_new[old_id] = min(best_new.get(old_id, (dist, new_id)), (dist, new_id))
        best_old[new_id] = min(best_old.get(new_id, (dist, old_id)), (dist, old_id))
    return {old_id: new_id for old_id, (_, new_id) in best_new.items() if best_old[new_id][1] == old_id}


def chains(
    members: list[Fact], pairs: dict[int, int], every: str
) -> tuple[list[tuple[dt.datetime | None, dt.datetime | None]], Counter[dt.datetime]]:
    """The spans of the state facts, a chain of renewals (``pairs``: old id → new id) as one, and the renewals
    per period."""
    renewing = set(pairs.values())
    by_id = {f.id: f for f in members}
    spans = []
    renewed: Counter[dt.datetime] = Counter()
    for f in members:
        if f.kind != "state" or f.id in renewing:
            continue
        last = f
        while last.id in pairs:  # a chain of renewals: one span
            last = by_id[pairs[last.id]]
            renewed[trunc(start_of(last.valid_from), every)] += 1  # type: ignore[arg-type]
        spans.append((start_of(f.valid_from), end_of(last.valid_to)))
    return spans, renewed


def ref_churn(
    facts: list[Fact],
    every: str,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    by: str | None = None,
    renewals: bool = True,
) -> list[tuple[Any, ...]]:
    """Rows (group..., period, added, ended, renewed, net, active_at_start, active_at_end, churn_rate), from
    definitions.

    Events (contract §12) are never added nor ended: they are left out of these counts; a period in which
    only events occurred still has its row. A renewal (contract §11) continues its old fact: one span from the
    first start of a chain of renewals to its last end, its later starts counted as renewed."""
    pairs = ref_renewals(facts) if renewals else {}
    groups: dict[Any, list[Fact]] = defaultdict(list)
    for f in facts:
        groups[None if by is None else getattr(f, by)].append(f)
    rows = []
    for group, members in sorted(groups.items(), key=lambda kv: (kv[0] is not None, kv[0] or "")):
        added: Counter[dt.datetime] = Counter()
        ended: Counter[dt.datetime] = Counter()
        spans, renewed = chains(members, pairs, every)
        occurred = {
            trunc(start_of(f.valid_from) or end_of(f.valid_to), every)  # type: ignore[arg-type]
            for f in members
            if f.kind == "event" and (f.valid_from or f.valid_to)
        }
        for start, end in spans:
            if start is not None:
                added[trunc(start, every)] += 1
            if end is not None:
                ended[trunc(end, every)] += 1
        if by is None:
            marks = set(added) | set(ended) | set(renewed) | occurred
            if since is not None:
                marks.add(trunc(since, every))
            if until is not None:
                marks.add(trunc(until, every))
            if not marks:
                continue
            periods, p = [], min(marks)
            while p <= max(marks):
                periods.append(p)
                p = step(p, every)
        else:
            periods = sorted(set(added) | set(ended) | set(renewed) | occurred)
        for p in periods:
            if since is not None and p < trunc(since, every):
                continue
            if until is not None and p > trunc(until, every):
                continue
            active = sum(1 for start, end in spans if (start is None or start < p) and (end is None or end >= p))
            a, e = added[p], ended[p]
            rate = (a + e) / active if active else None
            head = () if by is None else (group,)
            rows.append((*head, p, a, e, renewed[p], a - e, active, active + a - e, rate))
    return rows


def churn_rows(frame: pl.DataFrame, by: str | None = None) -> list[tuple[Any, ...]]:
    cols = ([] if by is None else [by]) + [
        "period",
        "added",
        "ended",
        "renewed",
        "net",
        "active_at_start",
        "active_at_end",
        "churn_rate",
    ]
    return frame.select(cols).rows()


def approx_rows(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g[:-1] == w[:-1]
        assert (g[-1] is None and w[-1] is None) or g[-1] == pytest.approx(w[-1])


def ref_conflicts(kg: KnowledgeGraph, now: dt.datetime) -> list[dict[str, Any]]:
    out = []
    for g in kg.conflicts(history=None):
        current = [f for f in g.facts if f.current]
        starts = [start_of(f.valid_from) for f in current]
        known = [s for s in starts if s is not None]
        ordered = sorted(starts, key=lambda s: (s is not None, s or NOW))
        needs = len(current) > 1
        overlap_start = max(known) if needs and known else None
        open_since = ordered[1] if needs else None
        names: list[str] = []
        seen: set[str] = set()
        for f in g.facts:
            if key(f) not in seen:
                seen.add(key(f))
                names.append(f.object_name)
        out.append(
            {
                "subject": g.subject,
                "subject_name": g.subject_name,
                "predicate": g.predicate,
                "objects": g.objects,
                "object_names": names,
                "facts": [f.id for f in g.facts],
                "current": g.current,
                "needs_action": g.needs_action,
                "current_objects": [f.object_name for f in current],
                "overlap_start": overlap_start,
                "overlap": None if overlap_start is None else max(now - overlap_start, dt.timedelta(0)),
                "open_since": open_since,
                "open_for": None if open_since is None else max(now - open_since, dt.timedelta(0)),
                "scheduled": g.scheduled,
                "planned_switch": g.planned_switch,
                "switch_overlaps": g.switch_overlaps,
                "by": g.by,
                "object": g.object,
                "object_name": g.object_name,
                "subjects": g.subjects,
                "subject_names": list(dict.fromkeys(f.subject_name for f in g.facts)),
                "current_subjects": [f.subject_name for f in current],
            }
        )
    return out


def ref_volatile(
    facts: list[Fact], by: str, lo: dt.datetime | None = None, hi: dt.datetime | None = None
) -> list[tuple[Any, ...]]:
    def inside(moment: dt.datetime | None) -> bool:
        return moment is not None and (lo is None or moment >= lo) and (hi is None or moment <= hi)

    table: dict[str, list[Any]] = {}
    for f in facts:
        if by == "entity":  # every entity side of the fact: the subject, and an entity object other than it
            groups = [(f.subject, f.subject_name)]
            if not f.object_is_value and f.object != f.subject:
                groups.append((f.object, f.object_name))
        else:
            groups = [(getattr(f, by), f.subject_name)]
        for group, name in groups:
            row = table.setdefault(group, [name, 0, 0, 0, 0, 0])
            if f.kind == "event":  # contract §12: an event occurs once, at its start (its end if that is unknown)
                row[5] += inside(start_of(f.valid_from) or end_of(f.valid_to))
            else:
                row[1] += inside(start_of(f.valid_from))
                row[2] += inside(end_of(f.valid_to))
            row[3] += 1
            row[4] += f.current
    rows = [
        ((g, name) if by != "predicate" else (g,)) + (a + e + v, a, e, n, c, v)
        for g, (name, a, e, n, c, v) in table.items()
        if a + e + v
    ]
    return sorted(rows, key=lambda r: (-r[-6], r[0]))


def ref_changed(
    facts: list[Fact],
    multi_valued: frozenset[str] = frozenset(),
    lo: dt.datetime | None = None,
    hi: dt.datetime | None = None,
) -> list[tuple[Any, ...]]:
    pairs: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.predicate not in multi_valued:
            pairs[(f.subject, f.predicate)].append(f)
    rows = []
    for (subject, predicate), members in pairs.items():
        members.sort(key=lambda f: (start_of(f.valid_from) is not None, start_of(f.valid_from) or NOW, f.id))
        changes, history, last = 0, [members[0].object_name], None
        for before, f in itertools.pairwise(members):
            if key(f) != key(before):
                history.append(f.object_name)
                s = start_of(f.valid_from)
                last = s if s is not None and (last is None or s > last) else last
                if (lo is None and hi is None) or (
                    s is not None and (lo is None or s >= lo) and (hi is None or s <= hi)
                ):
                    changes += 1
        if changes:
            rows.append(
                (
                    subject,
                    members[0].subject_name,
                    predicate,
                    changes,
                    len(members),
                    len({key(f) for f in members}),
                    history,
                    [f.object_name for f in members if f.current],
                    last,
                )
            )
    return sorted(rows, key=lambda r: (-r[3], r[0], r[2]))

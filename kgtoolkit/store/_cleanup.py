"""The SQL of cleaning up (contract §14): what duplicates and checks read, and the "not the same" pairs.

The ranking itself is :mod:`kgtoolkit.duplicates` and the checks' judgement :mod:`kgtoolkit.findings`;
this module only reads and writes the database, each read in one snapshot.

``not_duplicates`` holds the pairs a person said are not the same: ``kind`` (``entities`` or
``predicates``), ``a`` < ``b`` (entity ids or canonical predicates, so the order of the two names does
not matter, and a predicate alias means the predicate it names), ``created_at``. A merge repoints its
source's pairs to the target, and a predicate rename its old predicate's pairs to the new one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .._errors import InvalidRequest, NotFound
from .._time import now_text, parse_bound
from . import _queries as q
from ._backend import Backend, Cursor, Dialect
from ._predicates import canonical

__all__ = [
    "NOT_SAME_COLUMNS",
    "DuplicateInputs",
    "check_kind",
    "duplicate_inputs",
    "mark_not_same",
    "repoint_not_same",
    "structural_rows",
]

NOT_SAME_COLUMNS: tuple[str, ...] = ("kind", "a", "b", "created_at")
KINDS = ("entities", "predicates")


def check_kind(kind: Any) -> str:
    if kind not in KINDS:
        raise InvalidRequest(f"kind must be entities or predicates, not {kind!r}", field="kind", value=str(kind),
                             suggestions=list(KINDS))
    return str(kind)


@dataclasses.dataclass(frozen=True, slots=True)
class DuplicateInputs:
    """What the ranking of one kind needs, read in one snapshot: ``names`` (id, name, type), ``neighbours``
    (an id → what it is linked to) and the ``not_same`` pairs."""

    names: list[tuple[str, str, str | None]]
    neighbours: dict[str, set[Any]]
    not_same: list[tuple[str, str]]


def duplicate_inputs(backend: Backend, kind: str) -> DuplicateInputs:
    """The names of ``kind``, their neighbours (entities: the entities they share a fact with; predicates:
    the (subject, object) pairs they join) and the pairs marked not the same."""
    neighbours: dict[str, set[Any]] = {}
    with backend.read() as cur:
        if kind == "entities":
            names = [(r[0], r[1], r[2]) for r in cur.execute("SELECT id, name, type FROM entities ORDER BY id")]
            for s, o in cur.execute("SELECT DISTINCT subject, object_id FROM facts "
                                    "WHERE object_id IS NOT NULL AND subject <> object_id"):
                neighbours.setdefault(s, set()).add(o)
                neighbours.setdefault(o, set()).add(s)
        else:
            names = [(r[0], r[0], None) for r in cur.execute(
                "SELECT predicate FROM facts GROUP BY predicate ORDER BY predicate")]
            for p, s, o in cur.execute("SELECT DISTINCT predicate, subject, object_key FROM facts"):
                neighbours.setdefault(p, set()).add((s, o))
        pairs = [(r[0], r[1]) for r in cur.execute("SELECT a, b FROM not_duplicates WHERE kind = ?", (kind,))]
    return DuplicateInputs(names, neighbours, pairs)


def _predicate(cur: Cursor, name: str, field: str) -> str:
    """The canonical predicate ``name`` names (through its predicate alias, contract §13), one some fact uses."""
    pred = canonical(cur, name)
    if cur.execute("SELECT 1 FROM facts WHERE predicate = ? LIMIT 1", (pred,)).fetchone() is None:
        raise NotFound(f"no fact uses the predicate {pred!r} ({field}); `kgtoolkit stats` counts the predicates in "
                       "use", field=field, value=name)
    return pred


def mark_not_same(backend: Backend, kind: str, first: str, second: str) -> tuple[str, str, str, str, bool, str]:
    """Remember that ``first`` and ``second`` are not the same (idempotent, in either order): (a, a's name, b,
    b's name, whether it was new, when it was recorded)."""
    kind = check_kind(kind)
    dialect: Dialect = backend.dialect

    def write(cur: Cursor) -> tuple[str, str, str, str, bool, str]:
        if kind == "entities":
            x = q.resolve(cur, dialect, first, field="first")
            y = q.resolve(cur, dialect, second, field="second")
            shown = {e: q.entity(cur, e).name for e in (x, y)}
        else:
            x, y = _predicate(cur, first, "first"), _predicate(cur, second, "second")
            shown = {x: x, y: y}
        if x == y:
            raise InvalidRequest(f"{first!r} and {second!r} are one {kind[:-1]} already; there is no pair to mark",
                                 field="second", value=second)
        a, b = min(x, y), max(x, y)
        row = cur.execute("SELECT created_at FROM not_duplicates WHERE kind = ? AND a = ? AND b = ?",
                          (kind, a, b)).fetchone()
        if row is not None:
            return a, shown[a], b, shown[b], False, str(row[0])
        created = now_text()
        cur.execute("INSERT INTO not_duplicates(kind, a, b, created_at) VALUES (?, ?, ?, ?)", (kind, a, b, created))
        return a, shown[a], b, shown[b], True, created

    return backend.write(write)


def repoint_not_same(cur: Cursor, source: str, target: str, kind: str = "entities") -> None:
    """Inside a merge of entity ``source`` into ``target`` (or a rename of predicate ``source`` into ``target``,
    ``kind="predicates"``): its "not the same" pairs become the target's; a pair of the two themselves goes."""
    params = {"k": check_kind(kind), "s": source}
    rows = cur.execute("SELECT a, b, created_at FROM not_duplicates WHERE kind = :k AND (a = :s OR b = :s)",
                       params).fetchall()
    if not rows:
        return
    cur.execute("DELETE FROM not_duplicates WHERE kind = :k AND (a = :s OR b = :s)", params)
    for a, b, created in rows:
        other = b if a == source else a
        if other != target:
            cur.execute("INSERT INTO not_duplicates(kind, a, b, created_at) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING", (kind, min(other, target), max(other, target), created))


@dataclasses.dataclass(frozen=True, slots=True)
class StructuralRows:
    """What the structural checks read, in one snapshot: the facts of single-valued predicates (id, subject,
    predicate, object_key, from_us, end-day start key or None), facts whose closet names no memory
    (id, closet), and entities no fact names (id, name)."""

    single_valued: list[tuple[int, str, str, str, int, int | None, str | None]]
    dangling: list[tuple[int, str]]
    lonely: list[tuple[str, str]]


def structural_rows(backend: Backend, single_valued: list[str]) -> StructuralRows:
    d = backend.dialect
    with backend.read() as cur:
        events = q.event_rule(cur)  # an event never overlaps: it occurred (contract §12)
        rows = cur.execute(
            f"SELECT id, subject, predicate, object_key, from_us, valid_to, valid_from FROM facts f "
            f"WHERE predicate IN {d.values('sv')} AND NOT {events.sql(d)} ORDER BY subject, predicate, from_us, id",
            {"sv": d.list_param(single_valued), **events.params(d)}).fetchall()
        dangling = [(int(r[0]), str(r[1])) for r in cur.execute(
            f"SELECT f.id, f.source_closet FROM facts f WHERE f.source_closet IS NOT NULL "
            f"AND NOT {d.contains('f.source_closet', chr(39) + '://' + chr(39))} "
            "AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = f.source_closet) ORDER BY f.id")]
        lonely = [(str(r[0]), str(r[1])) for r in cur.execute(
            "SELECT e.id, e.name FROM entities e WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.subject = e.id) "
            "AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.object_id = e.id) ORDER BY e.id")]
    facts = []
    for fact_id, subject, predicate, key, from_us, valid_to, valid_from in rows:
        # an end compares as the start of its day: an end on the next fact's start day is a switch (supersede)
        end = None if valid_to is None else parse_bound(valid_to, field="valid_to").key
        facts.append((int(fact_id), str(subject), str(predicate), str(key), int(from_us), end, valid_from))
    return StructuralRows(facts, dangling, lonely)

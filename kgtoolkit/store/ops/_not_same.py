"""The pairs a person said are not the same (contract §14): marked, and carried through merges and renames.

``not_duplicates`` holds them: ``kind`` (``entities`` or ``predicates``), ``a`` < ``b`` (entity ids or canonical
predicates, so the order of the two names does not matter, and a predicate alias means the predicate it names),
``created_at``. A merge repoints its source's pairs to the target, and a predicate rename its old predicate's
pairs to the new one. The duplicate candidates never list a pair marked here.
"""

from __future__ import annotations

from typing import Any

from ..._errors import InvalidRequest, NotFound
from ..._time import now_text
from ..engine import Backend, Cursor, Dialect
from ..reads import _queries as q

__all__ = ["KINDS", "NOT_SAME_COLUMNS", "check_kind", "mark_not_same", "repoint_not_same"]

NOT_SAME_COLUMNS: tuple[str, ...] = ("kind", "a", "b", "created_at")
KINDS = ("entities", "predicates")


def check_kind(kind: Any) -> str:
    if kind not in KINDS:
        raise InvalidRequest(
            f"kind must be entities or predicates, not {kind!r}", field="kind", value=str(kind), suggestions=list(KINDS)
        )
    return str(kind)


def _predicate(cur: Cursor, name: str, field: str) -> str:
    """The canonical predicate ``name`` names (through its predicate alias, contract §13), one some fact uses."""
    pred = q.canonical(cur, name)
    if cur.execute("SELECT 1 FROM facts WHERE predicate = ? LIMIT 1", (pred,)).fetchone() is None:
        raise NotFound(
            f"no fact uses the predicate {pred!r} ({field}); `kgtoolkit stats` counts the predicates in use",
            field=field,
            value=name,
        )
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
            raise InvalidRequest(
                f"{first!r} and {second!r} are one {kind[:-1]} already; there is no pair to mark",
                field="second",
                value=second,
            )
        a, b = min(x, y), max(x, y)
        row = cur.execute(
            "SELECT created_at FROM not_duplicates WHERE kind = ? AND a = ? AND b = ?", (kind, a, b)
        ).fetchone()
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
    rows = cur.execute(
        "SELECT a, b, created_at FROM not_duplicates WHERE kind = :k AND (a = :s OR b = :s)", params
    ).fetchall()
    if not rows:
        return
    cur.execute("DELETE FROM not_duplicates WHERE kind = :k AND (a = :s OR b = :s)", params)
    for a, b, created in rows:
        other = b if a == source else a
        if other != target:
            cur.execute(
                "INSERT INTO not_duplicates(kind, a, b, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (kind, min(other, target), max(other, target), created),
            )

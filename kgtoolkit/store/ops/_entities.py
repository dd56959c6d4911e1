"""Entities and their names: resolve, read, add, alias, merge, and the most connected."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..._errors import (
    AliasConflict,
    InvalidRequest,
)
from ..._records import (
    Alias,
    Entity,
    MergeResult,
)
from ..._window import ReadWindow
from ..engine import (
    Backend,
    Cursor,
)
from ..reads import _queries as q
from ._not_same import repoint_not_same
from ._reads import _count
from ._rules import Rules


def _fold_duplicates(cur: Cursor, src: str, dst: str) -> int:
    """Before a merge repoints ``src`` to ``dst``: delete the rows that would then be duplicates.

    Identical current facts keep the earliest start; identical history rows (the same occurrence) keep one. Only rows
    touching ``src`` or ``dst`` can collide, since a moved row names ``dst`` where it named ``src``.
    """
    rows = cur.execute(
        "SELECT id, subject, predicate, object_id, object_key, valid_to IS NULL, from_us, to_us, occurrence FROM facts "
        "WHERE subject IN (:s, :d) OR object_id IN (:s, :d) ORDER BY from_us, id",
        {"s": src, "d": dst},
    ).fetchall()
    keep: set[tuple[Any, ...]] = set()
    drop: list[tuple[int]] = []
    for fact_id, subject, predicate, object_id, object_key, current, from_key, to_key, occurrence in rows:
        moved_subject = dst if subject == src else subject
        moved_object = dst if object_id == src else object_key
        # an event's occurrences stay apart (contract §12): its ordinal is part of its identity
        identity = (moved_subject, predicate, moved_object) + ((None,) if current else (from_key, to_key, occurrence))
        if identity in keep:
            drop.append((fact_id,))
        else:
            keep.add(identity)
    if drop:
        cur.executemany("DELETE FROM facts WHERE id = ?", drop)
    return len(drop)


def resolve(engine: Backend, name: str) -> str:
    with engine.read() as cur:
        return q.resolve(cur, engine.dialect, name)


def entity(engine: Backend, name: str) -> Entity:
    with engine.read() as cur:
        return q.entity(cur, q.resolve(cur, engine.dialect, name))


def entities(engine: Backend, *, type: str | None = None, limit: int | None = None, offset: int = 0) -> list[Entity]:
    with engine.read() as cur:
        rows = cur.execute(
            "SELECT id, name, type, properties, created_at FROM entities WHERE CAST(:t AS TEXT) IS NULL OR type = :t "
            "ORDER BY id LIMIT :limit OFFSET :offset",
            {"t": type, **q.page(engine.dialect, limit, offset)},
        ).fetchall()
    return [Entity(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]


def add_entity(
    engine: Backend, name: str, *, type: str | None = None, properties: Mapping[str, Any] | None = None
) -> Entity:
    def write(cur: Cursor) -> Entity:
        rules = Rules(q.read_config(cur))
        entity_id = q.ensure_entity(cur, rules.name(name, "name"), rules.entity_type(type, "type"), properties, [])
        return q.entity(cur, entity_id)

    return engine.write(write)


def alias(engine: Backend, name: str, entity: str) -> Alias:
    """Register ``name`` as another name of ``entity``, in one write."""

    def write(cur: Cursor) -> Alias:
        alias = Rules(q.read_config(cur)).name(name, "name")
        target = q.resolve(cur, engine.dialect, entity, field="entity")
        if cur.execute("SELECT 1 FROM entities WHERE id = ?", (alias.id,)).fetchone():
            raise AliasConflict(
                f"{name!r} is already an entity; to fold it into {target!r} use merge({name!r}, {entity!r})",
                field="name",
                value=name,
            )
        row = cur.execute("SELECT entity_id, name FROM aliases WHERE alias = ?", (alias.id,)).fetchone()
        if row and row[0] != target:
            raise AliasConflict(
                f"{name!r} is already an alias of {row[0]!r}; an alias names one entity",
                field="name",
                value=name,
                entity=row[0],
            )
        if row is None:
            cur.execute(
                "INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?)", (alias.id, alias.display, target)
            )
            return Alias(alias.id, alias.display, target)
        return Alias(alias.id, row[1], target)

    return engine.write(write)


def aliases(
    engine: Backend, entity: str | None, limit: int | None, offset: int, *, counted: bool
) -> tuple[list[Alias], int | None]:
    """A page of aliases (of one entity, or all), and their count when ``counted``."""
    total: int | None = None
    with engine.read() as cur:
        target = q.resolve(cur, engine.dialect, entity, field="entity") if entity is not None else None
        params = {"e": target, **q.page(engine.dialect, limit, offset)}
        where = "WHERE CAST(:e AS TEXT) IS NULL OR entity_id = :e"
        rows = cur.execute(
            f"SELECT alias, name, entity_id FROM aliases {where} ORDER BY entity_id, alias LIMIT :limit OFFSET :offset",
            params,
        ).fetchall()
        if counted:
            total = _count(cur, f"SELECT count(*) FROM aliases {where}", params)
    return [Alias(*r) for r in rows], total


def merge(engine: Backend, source: str, target: str) -> MergeResult:
    """Fold entity ``source`` into ``target`` in one write."""

    def write(cur: Cursor) -> MergeResult:
        d = engine.dialect
        src = q.resolve(cur, d, source, field="source")
        dst = q.resolve(cur, d, target, field="target")
        if src == dst:
            raise InvalidRequest(
                f"{source!r} and {target!r} are the same entity; nothing to merge", field="target", value=target
            )
        src_entity, dst_entity = q.entity(cur, src), q.entity(cur, dst)
        warnings: list[str] = []
        new_type = q.upgraded_type(dst_entity.type, src_entity.type)
        if src_entity.type not in ("unknown", new_type):
            warnings.append(f"{src!r} was a {src_entity.type}; {dst!r} stays a {dst_entity.type}")
        props = {**src_entity.properties, **dst_entity.properties}
        cur.execute("UPDATE entities SET type = ?, properties = ? WHERE id = ?", (new_type, json.dumps(props), dst))
        moved = cur.execute("SELECT count(*) FROM facts WHERE subject = :s OR object_id = :s", {"s": src}).fetchone()[0]
        deduplicated = _fold_duplicates(cur, src, dst)
        cur.execute("UPDATE facts SET subject = :d WHERE subject = :s", {"s": src, "d": dst})
        cur.execute("UPDATE facts SET object_id = :d, object_key = :d WHERE object_id = :s", {"s": src, "d": dst})
        cur.execute("UPDATE aliases SET entity_id = ? WHERE entity_id = ?", (dst, src))
        repoint_not_same(cur, src, dst)
        cur.execute("DELETE FROM entities WHERE id = ?", (src,))
        cur.execute(
            "INSERT INTO aliases(alias, name, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (src, src_entity.name, dst),
        )
        aliases = tuple(
            r[0] for r in cur.execute("SELECT alias FROM aliases WHERE entity_id = ? ORDER BY alias", (dst,)).fetchall()
        )
        return MergeResult(src, q.entity(cur, dst), moved, deduplicated, aliases, tuple(warnings))

    return engine.write(write)


def top_entities(engine: Backend, limit: int, window: ReadWindow) -> list[tuple[Entity, int]]:
    """Entities with the most facts in ``window`` (the facade's: current, or valid at its ``as_of``), both
    directions."""
    where, params, _ = q.time_filter(window)
    params["limit"] = q.page(engine.dialect, limit, 0)["limit"]
    with engine.read() as cur:
        if window.current_only:  # an event is never current (contract §12)
            not_events, event_params = q.not_declared_events(cur, engine.dialect)
            where += not_events
            params.update(event_params)
        rows = cur.execute(
            f"""SELECT e, count(*) AS n FROM (
                    SELECT f.subject AS e FROM facts f WHERE TRUE{where}
                    UNION ALL
                    SELECT f.object_id FROM facts f WHERE f.object_id IS NOT NULL{where}) ends
                GROUP BY e ORDER BY n DESC, e LIMIT :limit""",
            params,
        ).fetchall()
        return [(q.entity(cur, e), n) for e, n in rows]

"""What cleaning up reads (contract §14): the inputs of the duplicate candidates and of the checks.

The ranking itself is :mod:`kgtoolkit.duplicates` and the checks' judgement :mod:`kgtoolkit.findings`;
this module only reads the database, each read in one snapshot. The pairs marked not the same are
:mod:`._not_same`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..._time import parse_bound
from . import _queries as q

if TYPE_CHECKING:
    from .._graph_store import GraphStore

__all__ = ["DuplicateInputs", "StructuralRows", "duplicate_inputs", "structural_rows"]


@dataclasses.dataclass(frozen=True, slots=True)
class DuplicateInputs:
    """What the ranking of one kind needs, read in one snapshot: ``names`` (id, name, type), ``neighbours``
    (an id → what it is linked to) and the ``not_same`` pairs."""

    names: list[tuple[str, str, str | None]]
    neighbours: dict[str, set[Any]]
    not_same: list[tuple[str, str]]


def duplicate_inputs(graph: GraphStore, kind: str) -> DuplicateInputs:
    """The names of ``kind``, their neighbours (entities: the entities they share a fact with; predicates:
    the (subject, object) pairs they join) and the pairs marked not the same."""
    backend = graph.engine
    neighbours: dict[str, set[Any]] = {}
    with backend.read() as cur:
        if kind == "entities":
            names = [(r[0], r[1], r[2]) for r in cur.execute("SELECT id, name, type FROM entities ORDER BY id")]
            for s, o in cur.execute(
                "SELECT DISTINCT subject, object_id FROM facts WHERE object_id IS NOT NULL AND subject <> object_id"
            ):
                neighbours.setdefault(s, set()).add(o)
                neighbours.setdefault(o, set()).add(s)
        else:
            names = [
                (r[0], r[0], None)
                for r in cur.execute("SELECT predicate FROM facts GROUP BY predicate ORDER BY predicate")
            ]
            for p, s, o in cur.execute("SELECT DISTINCT predicate, subject, object_key FROM facts"):
                neighbours.setdefault(p, set()).add((s, o))
        pairs = [(r[0], r[1]) for r in cur.execute("SELECT a, b FROM not_duplicates WHERE kind = ?", (kind,))]
    return DuplicateInputs(names, neighbours, pairs)


@dataclasses.dataclass(frozen=True, slots=True)
class StructuralRows:
    """What the structural checks read, in one snapshot: the facts of single-valued predicates (id, subject,
    predicate, object_key, from_us, end-day start key or None), facts whose closet names no memory
    (id, closet), and entities no fact names (id, name); ``one_holder``: the facts of one-holder predicates as
    (id, object_key, predicate, subject, from_us, end-day start key or None, valid_from), by object."""

    single_valued: list[tuple[int, str, str, str, int, int | None, str | None]]
    dangling: list[tuple[int, str]]
    lonely: list[tuple[str, str]]
    one_holder: list[tuple[int, str, str, str, int, int | None, str | None]] = dataclasses.field(default_factory=list)


def structural_rows(graph: GraphStore, single_valued: list[str], one_holder: Sequence[str] = ()) -> StructuralRows:
    """The rows the structural checks read: overlaps of single-valued and one-holder predicates."""
    backend = graph.engine
    d = backend.dialect
    with backend.read() as cur:
        events = q.event_rule(cur)  # an event never overlaps: it occurred (contract §12)
        rows = cur.execute(
            f"SELECT id, subject, predicate, object_key, from_us, valid_to, valid_from FROM facts f "
            f"WHERE predicate IN {d.values('sv')} AND NOT {events.sql(d)} ORDER BY subject, predicate, from_us, id",
            {"sv": d.list_param(single_valued), **events.params(d)},
        ).fetchall()
        holders = cur.execute(  # the facts_predicate index (predicate, object_key)
            f"SELECT id, object_key, predicate, subject, from_us, valid_to, valid_from FROM facts f "
            f"WHERE predicate IN {d.values('oh')} AND NOT {events.sql(d)} ORDER BY object_key, predicate, from_us, id",
            {"oh": d.list_param(list(one_holder)), **events.params(d)},
        ).fetchall()
        dangling = [
            (int(r[0]), str(r[1]))
            for r in cur.execute(
                f"SELECT f.id, f.source_closet FROM facts f WHERE f.source_closet IS NOT NULL "
                f"AND NOT {d.contains('f.source_closet', chr(39) + '://' + chr(39))} "
                "AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = f.source_closet) ORDER BY f.id"
            )
        ]
        lonely = [
            (str(r[0]), str(r[1]))
            for r in cur.execute(
                "SELECT e.id, e.name FROM entities e WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.subject = e.id) "
                "AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.object_id = e.id) ORDER BY e.id"
            )
        ]
    return StructuralRows(_keyed(rows), dangling, lonely, _keyed(holders))


def _keyed(rows: Sequence[Sequence[Any]]) -> list[tuple[int, str, str, str, int, int | None, str | None]]:
    """Rows of facts to compare for overlaps, each with its end's key (None when open)."""
    facts = []
    for fact_id, anchor, predicate, other, from_us, valid_to, valid_from in rows:
        # an end compares as the start of its day: an end on the next fact's start day is a switch (supersede)
        end = None if valid_to is None else parse_bound(valid_to, field="valid_to").key
        facts.append((int(fact_id), str(anchor), str(predicate), str(other), int(from_us), end, valid_from))
    return facts

"""``check``: the graph's temporal and structural findings, each with a stable code (contract §14).

| code | finding |
|---|---|
| ``single_valued_overlap`` | Two state facts of a single-valued predicate (``config.single_valued``) with the same subject and other objects, valid at once. An end on the other's start day is a switch, not an overlap. Scheduled facts are the third code's. |
| ``one_holder_overlap`` | Two state facts of a one-holder predicate (``config.one_holder``) with the same object and other subjects, valid at once: two holders of one office. |
| ``scheduled_overlap`` | A scheduled fact that another object's fact (same subject and predicate, not multi-valued) would outlast: the planned switch of ``conflicts`` that needs action. For a one-holder predicate, another subject's fact of the same object. |
| ``dangling_source_closet`` | A fact whose ``source_closet`` names no memory. A URL (holding ``://``) is not a memory id and is not reported. |
| ``entity_without_facts`` | An entity no fact names, as subject or object. |
| ``duplicate_candidate`` | A pair that ``KnowledgeGraph.duplicates`` lists: entities, then predicates, by names only. |

Findings come in that order of codes, then by subject; ``limit`` and ``offset`` page through them.

>>> from kgtoolkit import open as open_graph
>>> kg = open_graph(":memory:")
>>> _ = kg.configure(single_valued={"works_at"})
>>> _ = kg.add("Ann", "works_at", "Acme", valid_from="2020"); _ = kg.add("Ann", "works_at", "Initech", valid_from="2022")
>>> [f.code for f in kg.check()]
['single_valued_overlap']
"""

from __future__ import annotations

import shlex
from collections.abc import Collection
from typing import Any

from ._checks import whole_number
from ._errors import InvalidRequest
from ._page import Page
from ._records import Finding
from ._time import OPEN_END, now_key
from ._validity import scheduled
from .duplicates import find_duplicates
from .store import GraphStore, structural_rows

__all__ = ["CODES", "Finding", "check"]

#: Every code ``check`` reports, in the order findings come.
CODES: tuple[str, ...] = (
    "single_valued_overlap",
    "one_holder_overlap",
    "scheduled_overlap",
    "dangling_source_closet",
    "entity_without_facts",
    "duplicate_candidate",
)


_Rows = list[tuple[int, str, str, str, int, int | None, str | None]]


def _overlaps(rows: _Rows) -> list[tuple[str, str, int, str, int, str]]:
    """The pairs of rows of one anchor and predicate, other objects, valid at once (scheduled facts left out).

    A row is (id, anchor, predicate, other, start, end, valid_from); a pair is (anchor, predicate, id a,
    other a, id b, other b).
    """
    found = []
    groups: dict[tuple[str, str], list[tuple[int, str, int, int]]] = {}
    now = now_key()
    for fact_id, anchor, predicate, other, start, end, _valid_from in rows:
        if end is None and scheduled(start, now):
            continue  # an open-ended fact starting later: scheduled_overlap's (a planned switch)
        groups.setdefault((anchor, predicate), []).append((fact_id, other, start, OPEN_END if end is None else end))
    for (anchor, predicate), facts in groups.items():
        for i, (id_a, other_a, start_a, end_a) in enumerate(facts):
            for id_b, other_b, start_b, end_b in facts[i + 1 :]:
                if other_a != other_b and start_a < end_b and start_b < end_a:
                    found.append((anchor, predicate, id_a, other_a, id_b, other_b))
    return found


def _single_valued(rows: _Rows) -> list[Finding]:
    """The ``single_valued_overlap`` findings of the single-valued predicates' rows."""
    return [
        Finding(
            "single_valued_overlap",
            f"{subject} has two {predicate} facts valid at once (facts {id_a} and {id_b}), and "
            f"{predicate} is single-valued: end one (invalidate) or replace it at the right date "
            "(supersede); if it may hold several objects, `kgtoolkit config --remove-single-valued "
            f"{predicate}`",
            (id_a, id_b),
            (subject,),
            predicate,
        )
        for subject, predicate, id_a, _, id_b, _ in _overlaps(rows)
    ]


def _one_holder(rows: _Rows) -> list[Finding]:
    """The ``one_holder_overlap`` findings of the one-holder predicates' rows."""
    return [
        Finding(
            "one_holder_overlap",
            f"{obj} has two holders of {predicate} valid at once ({holder_a} in fact {id_a}, {holder_b} in fact "
            f"{id_b}), and {predicate} is one holder: end one (invalidate) or hand it over at the right date "
            "(supersede-holder); if it may have several, `kgtoolkit config --remove-one-holder "
            f"{predicate}`",
            (id_a, id_b),
            (holder_a, holder_b),
            predicate,
        )
        for obj, predicate, id_a, holder_a, id_b, holder_b in _overlaps(rows)
    ]


def check(
    kg: GraphStore, *, codes: Collection[str] | None = None, limit: int | None = None, offset: int = 0
) -> Page[Finding]:
    """List the findings of a graph, in the order of :data:`CODES`, as one page.

    The module's docstring says what each code finds.

    Parameters
    ----------
    kg
        The graph.
    codes
        Only findings of these codes (default: all of :data:`CODES`).
    limit
        At most this many findings (None: all).
    offset
        Skip this many findings first.

    Returns
    -------
    Page[kgtoolkit.Finding]
        One page of findings; ``total`` counts them all.

    Raises
    ------
    InvalidRequest
        An unknown code (a plain string counts as one), or a bad ``limit`` or ``offset``.

    Examples
    --------
    >>> from kgtoolkit import open as open_graph
    >>> kg = open_graph(":memory:")
    >>> _ = kg.add("billing", "owned_by", "payments team")
    >>> _ = kg.add("Billing", "cites", "a note", source_closet="42")
    >>> [f.code for f in check(kg, codes=["dangling_source_closet"])]
    ['dangling_source_closet']
    """

    whole_number(limit, field="limit", high=2**63 - 1, allow_none=True)
    whole_number(offset, field="offset", high=2**63 - 1)
    wanted = set(CODES if codes is None else codes)
    unknown = sorted(wanted - set(CODES))
    if isinstance(codes, str) or unknown:
        raise InvalidRequest(
            f"unknown check code {unknown[0] if unknown else codes!r}; use some of {', '.join(CODES)}",
            field="codes",
            value=str(codes),
            suggestions=list(CODES),
        )
    found: list[Finding] = []
    config = kg.config
    rows = structural_rows(kg, sorted(config.single_valued), sorted(config.one_holder))
    if "single_valued_overlap" in wanted:
        found += _single_valued(rows.single_valued)
    if "one_holder_overlap" in wanted:
        found += _one_holder(rows.one_holder)
    if "scheduled_overlap" in wanted:
        for group in kg.conflicts(needs_action=True):
            if not group.switch_overlaps:
                continue
            ids = tuple(f.id for f in group.facts)
            hint = ""
            if group.suggestion:
                before, after = ("old_subject", "new_subject") if group.by == "object" else ("old_object", "new_object")
                hint = (
                    f" ({group.suggestion['action']} at {group.suggestion['at']}: {group.suggestion[before]} → "
                    f"{group.suggestion[after]})"
                )
            about = group.subject_name if group.by == "subject" else group.object_name
            found.append(
                Finding(
                    "scheduled_overlap",
                    f"{about} → {group.predicate}: a fact scheduled "
                    f"from {group.planned_switch} overlaps one that stays valid after it; end the old one "
                    f"at the switch{hint}",
                    ids,
                    (group.subject,)
                    if group.subject is not None
                    else tuple(dict.fromkeys(f.subject for f in group.facts)),
                    group.predicate,
                )
            )
    if "dangling_source_closet" in wanted:
        for fact_id, closet in rows.dangling:
            found.append(
                Finding(
                    "dangling_source_closet",
                    f"fact {fact_id}'s source_closet {closet!r} names no memory; "
                    "store the evidence with `remember` and point at its id, or fix the pointer",
                    (fact_id,),
                )
            )
    if "entity_without_facts" in wanted:
        for entity_id, name in rows.lonely:
            found.append(
                Finding(
                    "entity_without_facts",
                    f"{name!r} has no facts; add what is known about it, or merge it into the entity it duplicates",
                    (),
                    (entity_id,),
                )
            )
    if "duplicate_candidate" in wanted:
        for kind in ("entities", "predicates"):
            for c in find_duplicates(kg, kind=kind, embeddings=False):
                what = "" if kind == "entities" else " --kind predicates"
                found.append(
                    Finding(
                        "duplicate_candidate",
                        f"{c.a_name!r} and {c.b_name!r} may be one thing "
                        f"({'; '.join(c.reasons)}): merge them, alias one, or mark them not the same "
                        f"(`kgtoolkit not-duplicate {shlex.quote(c.a_name)} {shlex.quote(c.b_name)}{what}`)",
                        (),
                        (c.a, c.b) if kind == "entities" else (),
                        None if kind == "entities" else c.a,
                    )
                )
    stop = None if limit is None else offset + limit
    return Page(tuple(found[offset:stop]), len(found), offset)


def exit_status(page: Page[Any]) -> int:
    """What ``kgtoolkit check`` exits with: 0 when the graph is clean, 1 when there are findings."""
    return 1 if page.total else 0

"""What changed between two dates, as a frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from .._records import DiffBy
from .._time import TimeInput
from ..graph import KnowledgeGraph

if TYPE_CHECKING:
    import pandas as pd

from ._schemas import Backend, _out

#: :func:`diff`: one row per change (contract §11); ``old_*`` empty for ``began``, ``new_*`` for ``ended``. A
#: replaced holder of a one-holder predicate has another ``old_subject`` and ``new_subject`` (``subject`` is the new).
DIFF_SCHEMA: dict[str, pl.DataType] = {
    "kind": pl.String(),
    "at": pl.String(),
    "subject": pl.String(),
    "predicate": pl.String(),
    "old_id": pl.Int64(),
    "old_subject": pl.String(),
    "old_object": pl.String(),
    "old_object_name": pl.String(),
    "old_valid_from": pl.String(),
    "old_valid_to": pl.String(),
    "new_id": pl.Int64(),
    "new_subject": pl.String(),
    "new_object": pl.String(),
    "new_object_name": pl.String(),
    "new_valid_from": pl.String(),
    "new_valid_to": pl.String(),
}


def diff(
    kg: KnowledgeGraph,
    start: TimeInput,
    end: TimeInput,
    *,
    entity: str | None = None,
    predicates: Sequence[str] | None = None,
    by: DiffBy = "valid",
    backend: Backend = "polars",
    renewals: bool = True,
) -> pl.DataFrame | pd.DataFrame:
    """List what changed between two dates as a frame: :meth:`KnowledgeGraph.diff`, in time order.

    Parameters
    ----------
    kg
        The graph.
    start, end
        The window, both included (a day, a month or a year means all of it).
    entity
        Keep changes of facts about this entity (either side).
    predicates
        Keep changes of these predicates.
    by
        ``"valid"`` (what changed in the world) or ``"known"`` (what the graph learned: recorded times).
    backend
        ``"polars"`` or ``"pandas"``.
    renewals
        Show a renewal (contract §11) as one ``renewed`` change. False shows its end and start apart.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        One row per change (:data:`DIFF_SCHEMA`): ``kind`` is ``began``, ``ended``, ``replaced``,
        ``renewed`` or ``occurred``.

    Raises
    ------
    NotFound
        An ``entity`` or predicate the graph does not have.
    InvalidDate
        A date it cannot read.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("api", "uses", "Redis", valid_from="2026-01-05")
    >>> _ = kg.supersede("api", "uses", "Redis", "SQLite", at="2026-03-02")
    >>> diff(kg, "2026-03", "2026-03").select("kind", "at", "old_object_name", "new_object_name").rows()
    [('replaced', '2026-03-02', 'Redis', 'SQLite')]
    """
    changes = kg.diff(start, end, entity=entity, predicates=predicates, by=by, limit=None, renewals=renewals).changes
    rows: dict[str, list[object]] = {column: [] for column in DIFF_SCHEMA}
    for c in changes:
        rows["kind"].append(c.kind)
        rows["at"].append(c.at)
        rows["subject"].append(c.subject)
        rows["predicate"].append(c.predicate)
        for side, fact in (("old", c.old), ("new", c.new)):
            rows[f"{side}_id"].append(None if fact is None else fact.id)
            rows[f"{side}_subject"].append(None if fact is None else fact.subject)
            rows[f"{side}_object"].append(None if fact is None else fact.object)
            rows[f"{side}_object_name"].append(None if fact is None else fact.object_name)
            rows[f"{side}_valid_from"].append(None if fact is None else fact.valid_from)
            rows[f"{side}_valid_to"].append(None if fact is None else fact.valid_to)
    return _out(pl.DataFrame(rows, schema=DIFF_SCHEMA), backend)

"""Facts in order of their start, for one entity or the whole graph, in a span."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..._errors import (
    IntervalOrder,
)
from ..._records import (
    Fact,
)
from ..._time import TimeInput, parse_window
from ..engine import (
    FACT_SELECT,
    ORDER,
    Backend,
)
from ..reads import _queries as q
from . import _predicates as _preds
from ._reads import _canonical_list, _count, _predicate_list


def timeline(
    engine: Backend,
    name: str | None,
    limit: int | None,
    offset: int,
    *,
    counted: bool,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    predicates: str | Collection[str] | None = None,
) -> tuple[list[Fact], int | None]:
    """A page of facts in order of their start, and their count when ``counted``."""
    d = engine.dialect
    total: int | None = None
    params: dict[str, Any] = q.page(d, limit, offset)
    where = ""
    if since not in (None, ""):
        assert since is not None
        params["lo"] = parse_window(since, field="since").lo
        where += " AND f.to_us >= :lo"
    if until not in (None, ""):
        assert until is not None
        params["hi"] = parse_window(until, field="until").hi
        where += " AND f.from_us <= :hi"
    if "lo" in params and "hi" in params and params["lo"] > params["hi"]:
        raise IntervalOrder(
            f"since ({since}) is after until ({until}); give since on or before until",
            field="until",
            value=str(until),
        )
    preds = _predicate_list(predicates)
    if preds:
        where += f" AND f.predicate IN {d.values('preds')}"
    with engine.read() as cur:
        if preds:  # through predicate aliases (contract §13)
            preds = _canonical_list(cur, preds)
            params["preds"] = d.list_param(preds)
        if name is not None:
            params["e"] = q.resolve(cur, d, name)
            where = " AND (f.subject = :e OR f.object_id = :e)" + where
        _preds.check_used(cur, engine.dialect, preds)
        events = q.event_rule(cur)
        rows = cur.execute(f"{FACT_SELECT} WHERE TRUE{where} {ORDER} LIMIT :limit OFFSET :offset", params).fetchall()
        if counted:
            total = _count(cur, f"SELECT count(*) FROM facts f WHERE TRUE{where}", params)
    return [q.row_fact(r, events=events) for r in rows], total

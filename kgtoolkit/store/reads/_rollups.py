"""Rollups' reads (contract §18, issue 47): the answers of ``stats``, ``predicates``, churn, events and
``most_connected`` from the counts the store keeps (``kgtoolkit/store/ops/_rollups.py`` tells what is kept and how
it stays exact; ``kgtoolkit/store/engine/_rollup_schema.py`` holds the tables).

Each read answers from the rollups when the question allows (a period of whole days, or months; no grouping by
subject or pair) and says None otherwise, so the caller scans. :func:`source` tells which; inside :func:`scan_only`
every read scans (what the twin tests and benchmarks compare with).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..._time import DAY_US
from ..._validity import Clock
from ..engine import ROLLUP_COUNTS, ROLLUP_FAR, ROLLUP_MONTH_1970, ROLLUP_MONTH_OPEN_END
from ..ops._rollups import covered
from ._period_plan import PeriodPlan, frame, period_column, period_plan

if TYPE_CHECKING:
    import polars as pl

    from ..._records import PredicateInfo, Stats
    from ..engine import Backend, Cursor, Dialect
    from ..ops._rules import EventRule

__all__ = [
    "churn_counts",
    "connected_counts",
    "event_counts",
    "predicates_page",
    "scan_only",
    "source",
    "stats",
    "table_counts",
]

_SCAN_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("kgtoolkit_rollups_scan_only", default=False)


@contextlib.contextmanager
def scan_only() -> Iterator[None]:
    """Inside: every read scans the facts instead of reading the rollups (the twin tests' and benchmarks' scan)."""
    token = _SCAN_ONLY.set(True)
    try:
        yield
    finally:
        _SCAN_ONLY.reset(token)


def _day_plan(every: str) -> tuple[str, int, int] | None:
    """How the rollups key a period ``every``: ("months", step months) or ("days", step days, origin day); None when
    a period is not made of whole UTC days (the scan then)."""
    plan = period_plan(every)
    if plan is None:
        return None
    if plan.unit == "months":
        return ("months", plan.step, 0)
    if plan.step % DAY_US or plan.origin % DAY_US:
        return None
    return ("days", plan.step // DAY_US, plan.origin // DAY_US)


Question = Literal["stats", "predicates", "churn", "events", "most_connected", "most_changed", "link_ranking"]


def source(
    question: Question, *, every: str = "1mo", by: str | None = None, renewals: bool = True, ids: bool = False
) -> Literal["rollups", "scan"]:
    """Which one answers a question: ``"rollups"`` or ``"scan"`` (the explain of issue 47). ``every``/``by``: of
    ``churn`` and ``events``; ``ids``: ``most_connected`` of chosen entities (read from the rollups too)."""
    del renewals, ids
    if _SCAN_ONLY.get():
        return "scan"
    if question in ("churn", "events") and (_day_plan(every) is None or by not in (None, "predicate")):
        return "scan"
    return "rollups"


def _declared(d: Dialect, rule: EventRule, column: str = "predicate") -> tuple[str, dict[str, Any]]:
    """SQL that is 1 when the row's predicate is declared an event (or the graph is), else 0, and its parameters."""
    if rule.graph:
        return "1", {}
    if not rule.predicates:
        return "0", {}
    cond, params = d.in_values(column, "declared", sorted(rule.predicates))
    return f"(CASE WHEN {cond} THEN 1 ELSE 0 END)", params


def _today(clock: Clock) -> tuple[int, int, int, int]:
    """Now, today's UTC day, its first and its last instant keys."""
    params = clock.params()
    now = int(params["now"])
    day = (now - now % DAY_US) // DAY_US
    return now, day, day * DAY_US, day * DAY_US + DAY_US - 1


def _states(
    cur: Cursor, d: Dialect, rule: EventRule, clock: Clock, by_predicate: bool
) -> dict[str | None, tuple[int, int]]:
    """Per predicate (or None: all), the state facts ``(current, ended)`` now, from the rollups (contract §4).

    For state facts: ``current = fe − fs − T`` and ``ended = N − fe + T``, where ``fe`` = #{end > now}, ``fs`` =
    #{start > now}, ``T`` = #{end = today's date end, start ≤ now < end}; ``fe`` and ``fs`` are the rows after today
    plus the facts of today after now (index ranges), ``T`` an index range."""
    _, today, lo, hi = _today(clock)
    declared, params = _declared(d, rule)
    group, grouped = ("predicate", " GROUP BY predicate") if by_predicate else ("''", "")
    event, eparams = rule.bound(d)
    params = {**params, **eparams, **clock.params(), "today": today, "lo": lo, "hi": hi}
    later = cur.execute(
        f"SELECT {group}, sum(ends), sum(starts) FROM rollup_days WHERE day > :today AND ev = 0 AND {declared} = 0"
        f"{grouped}",
        params,
    ).fetchall()
    fgroup = "f.predicate" if by_predicate else "''"
    today_rows = cur.execute(
        f"SELECT g, sum(e), sum(s), sum(t) FROM ("
        f"SELECT {fgroup} AS g, 1 AS e, 0 AS s, CASE WHEN f.to_us = :now_day_last AND f.from_us <= :now THEN 1 ELSE 0 END AS t "
        f"FROM facts f WHERE f.valid_to IS NOT NULL AND f.to_us > :now AND f.to_us <= :hi AND NOT {event} UNION ALL "
        f"SELECT {fgroup}, 0, 1, 0 FROM facts f WHERE f.from_us > :now AND f.from_us <= :hi AND NOT {event}) x GROUP BY g",
        params,
    ).fetchall()
    totals = cur.execute(
        f"SELECT {group}, sum(facts - bound_events) FROM rollup_predicates WHERE {declared} = 0{grouped}", params
    ).fetchall()
    out: dict[str | None, list[int]] = {}
    for g, n in totals:
        out.setdefault(g, [0, 0, 0, 0])[0] += int(n or 0)
    for g, fe, fs in later:
        row = out.setdefault(g, [0, 0, 0, 0])
        row[1] += int(fe or 0)
        row[2] += int(fs or 0)
    for g, fe, fs, t in today_rows:
        row = out.setdefault(g, [0, 0, 0, 0])
        row[1] += int(fe or 0)
        row[2] += int(fs or 0)
        row[3] += int(t or 0)
    return {(g if by_predicate else None): (fe - fs - t, n - fe + t) for g, (n, fe, fs, t) in out.items()}


def stats(engine: Backend) -> Stats | None:
    """:meth:`GraphStore.stats` from the rollups; None inside :func:`scan_only`."""
    from ..._records import Stats
    from . import _queries as q

    if source("stats") == "scan" or engine.missing:
        return None
    d = engine.dialect
    with engine.read() as cur:
        if not covered(cur):
            return None
        rule = q.event_rule(cur)
        declared, params = _declared(d, rule)
        by_type = {str(t): int(n) for t, n in cur.execute("SELECT type, n FROM rollup_types WHERE n > 0 ORDER BY type")}
        facts, values, events, predicates = cur.execute(
            f"SELECT COALESCE(sum(facts), 0), COALESCE(sum(value_facts), 0), "
            f"COALESCE(sum(CASE WHEN {declared} = 1 THEN facts ELSE bound_events END), 0), "
            "count(*) FILTER (WHERE facts > 0) FROM rollup_predicates",
            params,
        ).fetchone()
        current, ended = _states(cur, d, rule, Clock.real(), False).get(None, (0, 0))
        aliases = int(cur.execute("SELECT count(*) FROM aliases").fetchone()[0])
        memories = int(cur.execute("SELECT count(*) FROM memories").fetchone()[0])
    facts, values, events = int(facts), int(values), int(events)
    return Stats(
        sum(by_type.values()),
        by_type,
        facts,
        current,
        ended,
        values,
        int(predicates),
        aliases,
        memories,
        facts - current - ended - events,
        events,
    )


def table_counts(cur: Cursor) -> tuple[Any, int] | None:
    """:func:`._queries.table_counts` and the number of facts from the rollups (what the dashboard's sidebar shows);
    None inside :func:`scan_only`."""
    from . import _queries as q

    if source("stats") == "scan" or not covered(cur):
        return None
    by_type = tuple(
        (str(t), int(n)) for t, n in cur.execute("SELECT type, n FROM rollup_types WHERE n > 0 ORDER BY type")
    )
    used = cur.execute("SELECT predicate, facts FROM rollup_predicates WHERE facts > 0").fetchall()
    aliases = int(cur.execute("SELECT count(*) FROM aliases").fetchone()[0])
    memories = int(cur.execute("SELECT count(*) FROM memories").fetchone()[0])
    counts = q.TableCounts(by_type, tuple(sorted(str(p) for p, _ in used)), aliases, memories)
    return counts, sum(int(n) for _, n in used)


def predicates_page(
    cur: Cursor, d: Dialect, limit: int | None, offset: int, clock: Clock
) -> tuple[list[PredicateInfo], int] | None:
    """:func:`._predicates.predicates_page` from the rollups; None inside :func:`scan_only`."""
    from ..._records import PredicateInfo
    from . import _queries as q

    if source("predicates") == "scan" or not covered(cur):
        return None
    params = q.page(d, limit, offset)
    rows = cur.execute(
        "SELECT r.predicate, COALESCE(p.label, r.predicate), r.facts, count(*) OVER () FROM rollup_predicates r "
        "LEFT JOIN predicates p ON p.id = r.predicate WHERE r.facts > 0 "
        "ORDER BY r.facts DESC, r.predicate LIMIT :limit OFFSET :offset",
        params,
    ).fetchall()
    total = (
        int(rows[0][3])
        if rows
        else int(cur.execute("SELECT count(*) FROM rollup_predicates WHERE facts > 0").fetchone()[0])
    )
    rule = q.event_rule(cur)
    current = _states(cur, d, rule, clock, True)
    aliases: dict[str, list[str]] = {}
    if rows:
        for alias, target in cur.execute(
            f"SELECT alias, predicate FROM predicate_aliases WHERE predicate IN {d.values('names')} ORDER BY alias",
            {"names": d.list_param([r[0] for r in rows])},
        ).fetchall():
            aliases.setdefault(target, []).append(alias)
    return [
        PredicateInfo(p, label, int(n), current.get(p, (0, 0))[0], tuple(aliases.get(p, ()))) for p, label, n, _ in rows
    ], total


def _period_rows(
    cur: Cursor, d: Dialect, every: str, by_predicate: bool, select: str, where: str, params: dict[str, Any]
) -> list[tuple[Any, ...]] | None:
    """Rows ``(predicate?, p, <select's sums>)`` of the rollups by the period of ``every`` (``p``: microseconds, or a
    month number, as :mod:`._aggregates` keys them; NULL for an open key's row), ``select`` summed over the rows
    meeting ``where``."""
    plan = _day_plan(every)
    if plan is None:
        return None
    unit, step, origin = plan
    if unit == "months":
        table, key = "rollup_months", "month"
        p = f"(CASE WHEN month < 0 OR month >= {ROLLUP_MONTH_OPEN_END} THEN NULL ELSE month - {d.modulo(d.modulo(f'month - {ROLLUP_MONTH_1970}', step) + f' + {step}', step)} END)"
    else:
        table, key = "rollup_days", "day"
        shifted = f"day - {origin}"
        p = (
            f"(CASE WHEN day < -{ROLLUP_FAR} OR day > {ROLLUP_FAR} THEN NULL ELSE "
            f"(day - {d.modulo(d.modulo(shifted, step) + f' + {step}', step)}) * {DAY_US} END)"
        )
    del key
    keys = "predicate, " if by_predicate else ""
    return list(
        cur.execute(
            f"SELECT {keys}p, {select} FROM (SELECT x.predicate AS predicate, {p} AS p, x.ev AS ev, "
            f"{', '.join(f'x.{c} AS {c}' for c in ROLLUP_COUNTS)} FROM {table} x WHERE {where}) r "
            f"GROUP BY {keys}p ORDER BY {keys}p",
            params,
        ).fetchall()
    )


def churn_counts(
    engine: Backend, plan: PeriodPlan, every: str, by: str | None, renewals: bool
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """:func:`._aggregates.churn_counts` from the rollups (its ``counts`` and ``unknown_starts``), or None when they cannot answer (:func:`source`)."""
    import polars as pl

    from . import _queries as q

    if source("churn", every=every, by=by) == "scan" or engine.missing:
        return None
    d = engine.dialect
    with engine.read() as cur:
        if not covered(cur):
            return None
        rule = q.event_rule(cur)
        declared, params = _declared(d, rule)
        ren = "1" if renewals else "0"
        state = f"(ev = 0 AND {declared} = 0)"
        select = (
            f"CAST(sum(CASE WHEN {state} THEN starts - {ren} * renewed ELSE 0 END) AS BIGINT) AS added, "
            f"CAST(sum(CASE WHEN {state} THEN ends - {ren} * renewed_ends ELSE 0 END) AS BIGINT) AS ended, "
            f"CAST(sum(CASE WHEN {state} THEN {ren} * renewed ELSE 0 END) AS BIGINT) AS renewed, "
            f"CAST(sum(CASE WHEN {state} THEN 0 ELSE starts + ends_nostart END) AS BIGINT) AS events"
        )
        # A row's p is NULL for an open key: an unknown start (its state facts: the baseline) or an open end.
        rows = _period_rows(cur, d, every, by == "predicate", select, "TRUE", params)
        keys = ["predicate"] if by == "predicate" else []
        baseline = cur.execute(
            f"SELECT {'predicate, ' if keys else ''}CAST(sum(starts) AS BIGINT) FROM rollup_days "
            f"WHERE day < -{ROLLUP_FAR} AND ev = 0 AND {declared} = 0{' GROUP BY predicate' if keys else ''}",
            params,
        ).fetchall()
    assert rows is not None
    key_schema: dict[str, pl.DataType] = {k: pl.String() for k in keys}
    sums = ["added", "ended", "renewed", "events"]
    counts = frame(rows, {**key_schema, "p": pl.Int64(), **{s: pl.Int64() for s in sums}})
    happened = pl.any_horizontal(pl.col(s) != 0 for s in sums)
    counts = counts.filter(pl.col("p").is_not_null() & happened).select(*keys, period_column(plan), *sums)
    unknown = frame([tuple(r) for r in baseline if r[-1] is not None], {**key_schema, "_baseline": pl.Int64()})
    if keys:
        unknown = unknown.filter(pl.col("_baseline") != 0)
    elif unknown.height == 0:
        unknown = pl.DataFrame({"_baseline": [0]}, schema={"_baseline": pl.Int64()})
    return counts, unknown


def event_counts(engine: Backend, plan: PeriodPlan, every: str, by: str | None) -> pl.DataFrame | None:
    """:func:`._aggregates.event_counts` from the rollups, or None when they cannot answer (:func:`source`)."""
    import polars as pl

    from . import _queries as q

    if source("events", every=every, by=by) == "scan" or engine.missing:
        return None
    d = engine.dialect
    with engine.read() as cur:
        if not covered(cur):
            return None
        declared, params = _declared(d, q.event_rule(cur))
        select = f"CAST(sum(CASE WHEN ev = 1 OR {declared} = 1 THEN starts ELSE 0 END) AS BIGINT) AS events"
        rows = _period_rows(cur, d, every, by == "predicate", select, "TRUE", params)
    assert rows is not None
    keys = ["predicate"] if by == "predicate" else []
    events = frame(rows, {**{k: pl.String() for k in keys}, "p": pl.Int64(), "events": pl.Int64()})
    events = events.filter(pl.col("p").is_not_null() & (pl.col("events") != 0))
    return events.select(*keys, period_column(plan), "events")


def connected_counts(engine: Backend, top: int | None, ids: Sequence[str] | None) -> pl.DataFrame | None:
    """:func:`._rankings.connected_counts` from the rollups (the top entities along the rank index; entities with no
    fact after them, by id); None inside :func:`scan_only`."""
    import polars as pl

    from . import _queries as q

    if source("most_connected") == "scan" or engine.missing:
        return None
    d = engine.dialect
    limit = q.page(d, top, 0)["limit"]
    schema = {
        "id": pl.String(),
        "name": pl.String(),
        "type": pl.String(),
        "outgoing": pl.Int64(),
        "incoming": pl.Int64(),
    }
    with engine.read() as cur:
        if not covered(cur):
            return None
        if ids is not None or top is None:
            params: dict[str, Any] = {"limit": limit}
            only = ""
            if ids is not None:
                only = f" WHERE e.id IN {d.values('ids')}"
                params["ids"] = d.list_param(sorted(set(ids)))
            rows = cur.execute(
                "SELECT e.id, e.name, e.type, COALESCE(r.outgoing, 0), COALESCE(r.incoming, 0) FROM entities e "
                f"LEFT JOIN rollup_entities r ON r.entity = e.id{only} "
                "ORDER BY COALESCE(r.outgoing + r.incoming, 0) DESC, e.id LIMIT :limit",
                params,
            ).fetchall()
            return pl.DataFrame(rows, schema=schema, orient="row")
        rows = cur.execute(
            "SELECT r.entity, e.name, e.type, r.outgoing, r.incoming FROM (SELECT entity, outgoing, incoming "
            "FROM rollup_entities WHERE outgoing + incoming > 0 ORDER BY outgoing + incoming DESC, entity "
            "LIMIT :limit) r JOIN entities e ON e.id = r.entity ORDER BY r.outgoing + r.incoming DESC, r.entity",
            {"limit": limit},
        ).fetchall()
        if len(rows) < top:
            rows += cur.execute(
                "SELECT e.id, e.name, e.type, 0, 0 FROM entities e WHERE NOT EXISTS (SELECT 1 FROM rollup_entities r "
                "WHERE r.entity = e.id AND r.outgoing + r.incoming > 0) ORDER BY e.id LIMIT :limit",
                {"limit": top - len(rows)},
            ).fetchall()
    return pl.DataFrame(rows, schema=schema, orient="row")

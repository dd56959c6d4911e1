"""The field's evaluation protocol: :func:`evaluate` on a train / validation / test split by day, and
:func:`query_ranks`, its ranks query by query."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

import numpy as np
import polars as pl

from .._errors import InvalidRequest
from .._records import _Record
from .._time import TimeInput
from ..graph import KnowledgeGraph
from ._arguments import Variant, _check_grid, _checked
from ._history import FloatArray, IntArray, _day, _iso, _read
from ._model import ALPHAS, DEFAULT_ALPHA, DEFAULT_LAMBDA, LAMBDAS, _lambda_grid, _tune
from ._scores import _metrics, _prepare, _rank, _Window


@dataclasses.dataclass(frozen=True, slots=True)
class PredicateResult(_Record):
    """One predicate's share of a :class:`ForecastReport`: its test ``queries`` (both directions), their MRR and
    Hits@1/3/10 (fractions in 0…1), and the parameters it was scored with (``tuned``: chosen on the validation
    window; false: the defaults, the window never showed it)."""

    predicate: str
    queries: int
    mrr: float
    hits_at_1: float
    hits_at_3: float
    hits_at_10: float
    lam: float
    alpha: float
    tuned: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ForecastReport(_Record):
    """What :func:`evaluate` measured: the test window's MRR and Hits@1/3/10 (fractions in 0…1) over ``queries``
    queries (each test event asked both ways), the split (``train_until``, ``valid_until``, ``test_until``: first
    days left out, ISO dates; the events in each part), the ``entities`` ranked, and the results and chosen
    parameters per predicate, busiest first."""

    variant: str
    mrr: float
    hits_at_1: float
    hits_at_3: float
    hits_at_10: float
    queries: int
    train_until: str
    valid_until: str
    test_until: str | None
    train_events: int
    valid_events: int
    test_events: int
    entities: int
    tuned: bool
    per_predicate: tuple[PredicateResult, ...]


def _params_per_query(
    w: _Window, variant: Variant, lam: dict[int, float], alpha: dict[int, float], n_p: int
) -> tuple[IntArray, FloatArray]:
    """Each query's λ (index into ``w.lambdas``) and α: its predicate's tuned ones, else the defaults."""
    lam_of = np.array([w.lambdas.index(lam.get(p, DEFAULT_LAMBDA)) for p in range(n_p)], dtype=np.int64)
    if variant == "strict":
        alpha_of = np.ones(n_p)
    elif variant == "relaxed":
        alpha_of = np.zeros(n_p)
    else:
        alpha_of = np.array([alpha.get(p, DEFAULT_ALPHA) for p in range(n_p)])
    if n_p == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return lam_of[w.qpred], alpha_of[w.qpred]


def evaluate(
    kg: KnowledgeGraph,
    *,
    train_until: TimeInput,
    valid_until: TimeInput,
    test_until: TimeInput | None = None,
    variant: Variant = "combined",
    tune: bool = True,
    lambdas: Sequence[float] = LAMBDAS,
    alphas: Sequence[float] = ALPHAS,
) -> ForecastReport:
    """Score the recurrency baseline on a graph's events with the protocol of temporal knowledge graph forecasting.

    **The protocol.** The events are split by day: train before ``train_until``, validation from ``train_until``
    up to ``valid_until``, test from ``valid_until`` up to ``test_until`` (not included; None: to the last event).
    Each test event (s, r, o) on day t asks two queries, (s, r, ?, t) with answer o and (?, r, o, t) with answer s.
    *Single-step*: the history of a query on day t is every event before t, validation and earlier test days
    included. *Time-aware filtered ranks*: the other answers of the same query on the same day are left out of
    its candidates, which are every entity of the events read. *Ties*: rank = 1 + the candidates scored strictly
    higher + half of those tied with the answer. The figures are the mean reciprocal rank (MRR) and Hits@1/3/10
    over all queries (fractions in 0…1). λ and α are chosen per predicate on the validation window as the
    module docstring says (``tune=False``: the defaults). No randomness: the same graph gives the same figures.

    Parameters
    ----------
    kg : KnowledgeGraph
        The event graph.
    train_until, valid_until : date or str
        The first day of the validation window and the first day of the test window.
    test_until : date or str, optional
        The first day after the test window (None: every later event is tested).
    variant : {"combined", "strict", "relaxed"}, default "combined"
        Which baseline.
    tune : bool, default True
        Choose λ and α on the validation window (False: the defaults).
    lambdas, alphas : sequence of float
        The grids (default: the paper's).

    Returns
    -------
    ForecastReport
        The test figures, the split and the per-predicate results and parameters.

    Raises
    ------
    InvalidRequest
        Windows out of order, no test events, a bad variant or grid.
    InvalidDate
        A bound that is not a date.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import forecast
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.configure(events=True)
    >>> for day in ("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"):
    ...     _ = kg.add("Ann", "meets", "Bob", valid_from=day, valid_to=day)
    >>> report = forecast.evaluate(kg, train_until="2024-01-03", valid_until="2024-01-04")
    >>> report.queries, report.mrr
    (2, 1.0)
    """
    split = _checked(
        variant=variant,
        lambdas=lambdas,
        alphas=alphas,
        train_until=train_until,
        valid_until=valid_until,
        test_until=test_until,
        required=True,
    )
    variant, lam_grid, alpha_grid, end = split.variant, split.lambdas, split.alphas, split.end
    start, middle = cast(int, split.start), cast(int, split.middle)
    events = _read(kg, end)
    n_p = len(events.predicates)
    lam: dict[int, float] = {}
    alpha: dict[int, float] = {}
    if tune:
        lam, alpha = _tune(events, start, middle, variant, lam_grid, alpha_grid)
    w = _prepare(events, middle, end, _lambda_grid(lam_grid, [DEFAULT_LAMBDA]))
    if w.qh.size == 0:
        raise InvalidRequest(
            f"no events to test from valid_until={_iso(middle)}"
            + (f" to test_until={_iso(end)}" if end is not None else "")
            + ": pass an earlier valid_until=DATE",
            field="valid_until",
            value=str(valid_until),
        )
    lam_index, alpha_q = _params_per_query(w, variant, lam, alpha, n_p)
    rank = _rank(w, lam_index, alpha_q).rank
    mrr, h1, h3, h10 = _metrics(rank, w.qw)
    rows: list[PredicateResult] = []
    for p in np.unique(w.qpred):
        mask = w.qpred == p
        pm = _metrics(rank[mask], w.qw[mask])
        p_lam, p_alpha = float(w.lambdas[lam_index[mask][0]]), float(alpha_q[mask][0])
        tuned = int(p) in lam or (variant == "relaxed" and tune)
        rows.append(PredicateResult(events.predicates[p], int(w.qw[mask].sum()), *pm, p_lam, p_alpha, tuned))
    rows.sort(key=lambda x: (-x.queries, x.predicate))
    day = events.day
    return ForecastReport(
        variant=variant,
        mrr=mrr,
        hits_at_1=h1,
        hits_at_3=h3,
        hits_at_10=h10,
        queries=int(w.qw.sum()),
        train_until=_iso(start),
        valid_until=_iso(middle),
        test_until=None if end is None else _iso(end),
        train_events=int(events.n[day < start].sum()),
        valid_events=int(events.n[(day >= start) & (day < middle)].sum()),
        test_events=int(events.n[day >= middle].sum()),
        entities=len(events.entity_ids),
        tuned=tune,
        per_predicate=tuple(rows),
    )


def query_ranks(
    kg: KnowledgeGraph,
    *,
    since: TimeInput,
    until: TimeInput | None = None,
    lam: float = DEFAULT_LAMBDA,
    alpha: float = DEFAULT_ALPHA,
) -> pl.DataFrame:
    """Every query of the events from ``since`` up to ``until`` (not included) with its filtered rank and score,
    for one λ and α: what :func:`evaluate` averages, to read query by query.

    Parameters
    ----------
    kg : KnowledgeGraph
        The event graph.
    since : date or str
        The first day whose events are asked.
    until : date or str, optional
        The first day after them (None: to the last event).
    lam, alpha : float
        λ (from 0) and α (0 to 1) for every predicate.

    Returns
    -------
    polars.DataFrame
        ``subject``, ``predicate``, ``object``, ``day`` (ISO date), ``direction`` (``object``: (s, r, ?) asked;
        ``subject``: (?, r, o) asked), ``events``, ``score`` (the answer's) and ``rank``, in the order of day,
        direction, predicate, subject and object ids.

    Raises
    ------
    InvalidRequest
        ``lam`` or ``alpha`` out of range, or the window out of order.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import forecast
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.configure(events=True)
    >>> for day in ("2024-01-01", "2024-01-02"):
    ...     _ = kg.add("Ann", "meets", "Bob", valid_from=day, valid_to=day)
    >>> forecast.query_ranks(kg, since="2024-01-02")["rank"].to_list()
    [1.0, 1.0]
    """
    (lam,) = _check_grid([lam], "lam", 0.0, None)
    (alpha,) = _check_grid([alpha], "alpha", 0.0, 1.0)
    start = _day(since, "since")
    end = None if until is None else _day(until, "until")
    if end is not None and end <= start:
        raise InvalidRequest(f"until={_iso(end)} must come after since={_iso(start)}", field="until", value=str(until))
    events = _read(kg, end)
    w = _prepare(events, start, end, (lam,))
    scored = _rank(w, np.zeros(w.qh.size, dtype=np.int64), np.full(w.qh.size, alpha))
    p = max(len(events.predicates), 1)
    forward = w.qrd < p
    ids = np.array(events.entity_ids, dtype=object)
    preds = np.array(events.predicates, dtype=object)
    frame = pl.DataFrame(
        {
            "subject": ids[np.where(forward, w.qh, w.qt)].tolist() if w.qh.size else [],
            "predicate": preds[w.qpred].tolist() if w.qh.size else [],
            "object": ids[np.where(forward, w.qt, w.qh)].tolist() if w.qh.size else [],
            "day": [_iso(int(d)) for d in w.qday],
            "direction": ["object" if f else "subject" for f in forward],
            "events": w.qw,
            "score": scored.score,
            "rank": scored.rank,
        },
        schema={
            "subject": pl.String(),
            "predicate": pl.String(),
            "object": pl.String(),
            "day": pl.String(),
            "direction": pl.String(),
            "events": pl.Int64(),
            "score": pl.Float64(),
            "rank": pl.Float64(),
        },
    )
    return (
        frame.with_columns(pl.col("direction").eq("subject").alias("_d"))
        .sort("day", "_d", "predicate", "subject", "object")
        .drop("_d")
    )

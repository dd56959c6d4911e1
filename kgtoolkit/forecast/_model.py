"""The recurrency model: the paper's grids and defaults, the tuning per predicate, :func:`fit` and
:class:`Recurrency`, and the model :func:`latest` keeps on a graph."""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Literal, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from .._errors import InvalidRequest, NotFound
from .._names import normalize_name
from .._records import _Record
from .._time import DAY_US, TimeInput, parse_bound
from ..graph import KnowledgeGraph
from ..store import event_days

__all__ = [
    "ALPHAS",
    "DEFAULT_ALPHA",
    "DEFAULT_LAMBDA",
    "LAMBDAS",
    "ForecastReport",
    "PredicateResult",
    "Prediction",
    "Recurrency",
    "Variant",
    "evaluate",
    "fit",
    "latest",
    "query_ranks",
]

#: The paper's grid for λ (§5): 0 counts days; 1.0001 lets the most recent day outweigh all earlier ones together.
LAMBDAS: tuple[float, ...] = (0.0, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0001)
#: The paper's grid for α (§5): from the relaxed score alone (0) to the strict score alone (1).
ALPHAS: tuple[float, ...] = (
    0.0,
    0.00001,
    0.0001,
    0.001,
    0.01,
    0.1,
    0.2,
    0.3,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    0.99,
    0.999,
    0.9999,
    0.99999,
    1.0,
)
#: λ for a predicate the validation window never shows, and for a model fitted without one.
DEFAULT_LAMBDA = 0.1
#: α for a predicate the validation window never shows, and for a model fitted without one.
DEFAULT_ALPHA = 0.99

#: Which baseline: ``combined`` (λ, then α tuned), ``strict`` (α = 1, λ tuned) or ``relaxed`` (α = 0).
Variant = Literal["combined", "strict", "relaxed"]
_VARIANTS = ("combined", "strict", "relaxed")
_EPOCH = dt.date(1970, 1, 1)

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]


# ---------------------------------------------------------------------------------------------------- records


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


@dataclasses.dataclass(frozen=True, slots=True)
class Prediction(_Record):
    """One likely object of :meth:`Recurrency.predict`, with its evidence: ``score`` (α·ψ + (1 − α)·ξ), ``strict``
    (ψ_λ) and ``share`` (ξ: the share of the predicate's earlier events with this object), ``times_seen`` (the
    days the subject, predicate and object happened before ``at``) and ``last_seen`` (the latest, ISO date; None
    when never), and the ``lam`` and ``alpha`` used."""

    rank: int
    object: str
    object_name: str
    score: float
    strict: float
    share: float
    times_seen: int
    last_seen: str | None
    lam: float
    alpha: float


# ---------------------------------------------------------------------------------------------------- the history


@dataclasses.dataclass(frozen=True, slots=True)
class _Events:
    """The event history as integer arrays, one row per (subject, predicate, object, day): entity and predicate
    codes into ``entity_ids`` / ``predicates``, the day number and the events that day."""

    s: Int32Array
    r: Int32Array
    o: Int32Array
    day: Int32Array
    n: Int32Array
    entity_ids: tuple[str, ...]
    predicates: tuple[str, ...]

    @property
    def origin(self) -> int:
        return int(self.day.min()) if self.day.size else 0

    def select(self, mask: npt.NDArray[np.bool_]) -> tuple[Int32Array, Int32Array, Int32Array, Int32Array, Int32Array]:
        return self.s[mask], self.r[mask], self.o[mask], self.day[mask], self.n[mask]


def _read(kg: KnowledgeGraph, until_day: int | None) -> _Events:
    """The graph's events before ``until_day`` (None: all), encoded."""
    hi = None if until_day is None else until_day * DAY_US - 1
    frame = event_days(kg, hi)
    # Codes without a string per row: the categories' own codes, made dense and ordered by id.
    entity_codes, entity_ids = _dense(pl.concat([frame["subject"], frame["object"]]))
    predicate_codes, predicates = _dense(frame["predicate"])
    n = frame.height
    s, o = entity_codes[:n], entity_codes[n:]
    day = frame["day"].to_numpy().astype(np.int32)
    order = np.lexsort((o, s, predicate_codes, day))
    return _Events(  # 32-bit: a 10M-event history is 200 MB, not 400
        s=s[order],
        r=predicate_codes[order],
        o=o[order],
        day=day[order],
        n=frame["events"].to_numpy().astype(np.int32)[order],
        entity_ids=entity_ids,
        predicates=predicates,
    )


def _dense(values: pl.Series) -> tuple[Int32Array, tuple[str, ...]]:
    """A categorical column as codes 0… in the order of its distinct strings, and those strings."""
    physical = values.to_physical().to_numpy()
    unique, first, inverse = np.unique(physical, return_index=True, return_inverse=True)
    names = values.gather(first).cast(pl.String).to_list()
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    rank = np.empty(unique.size, dtype=np.int32)
    rank[order] = np.arange(unique.size, dtype=np.int32)
    return rank[inverse.reshape(-1)], tuple(names[i] for i in order)


def _day(value: TimeInput, field: str) -> int:
    """The day number (from 1970-01-01) of the first day ``value`` names."""
    return parse_bound(value, field=field).key // DAY_US


def _iso(day: int) -> str:
    return (_EPOCH + dt.timedelta(days=day)).isoformat()


# ---------------------------------------------------------------------------------------------------- the kernel


def _normaliser(lam: FloatArray, days: IntArray) -> FloatArray:
    """Σ_{i=1..days} 2^(−λ·i): the strict score of a fact seen on each of ``days`` earlier days (0 when none)."""
    days_f = days.astype(np.float64)
    ln2 = np.log(2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = np.exp(-lam * ln2) * np.expm1(-lam * ln2 * days_f) / np.expm1(-lam * ln2)
    return np.where(lam == 0.0, days_f, geometric)


@dataclasses.dataclass(frozen=True, slots=True)
class _Window:
    """One window's queries with everything their ranks need that depends on neither λ nor α.

    Queries: ``qh`` (the known entity), ``qrd`` (predicate, + P for the inverse direction), ``qt`` (the answer),
    ``qday``, ``qw`` (events behind the query), ``qpred``, ``qg`` (its (qrd, qday) group). Special pairs
    ``sp_q``/``sp_e``: per query the candidates seen with (qh, qrd) before, the other answers of the same query
    (``sp_filtered``) and the answer (``sp_tail``), with ``sp_c`` (the candidate's count in its group). History terms:
    ``pre_*`` (the days before the window, as last day and decayed sums per λ in ``lambdas``) and ``win_*`` (each
    earlier day inside the window). The relaxed counts: per group its ``g_rd``, ``g_total`` and ``g_zeros``
    (entities never seen there); sorted integer keys ``rd·width + count`` of the counts before the window
    (``static_key``), and ``g·width + count`` of the entities the window's earlier days changed in a group, before
    (``old_key``) and after (``new_key``): a group's counts are the static run of its rd with those swapped.
    """

    qh: IntArray
    qrd: IntArray
    qt: IntArray
    qday: IntArray
    qw: IntArray
    qpred: IntArray
    qg: IntArray
    q_tail_sp: IntArray
    sp_q: IntArray
    sp_e: IntArray
    sp_c: FloatArray
    sp_filtered: npt.NDArray[np.bool_]
    sp_tail: npt.NDArray[np.bool_]
    pre_sp: IntArray
    pre_of: IntArray
    pre_last: IntArray
    pre_sums: FloatArray
    win_sp: IntArray
    win_day: IntArray
    g_rd: IntArray
    g_total: FloatArray
    g_zeros: IntArray
    width: int
    static_key: IntArray
    old_key: IntArray
    new_key: IntArray
    lambdas: tuple[float, ...]
    origin: int


def _directions(s: Int32Array, r: Int32Array, o: Int32Array, p: int) -> tuple[Int32Array, Int32Array, Int32Array]:
    """Both directions: (s, r, o) and (o, r + p, s)."""
    return np.concatenate([s, o]), np.concatenate([r, r + p]), np.concatenate([o, s])


def _prepare(events: _Events, start: int, end: int | None, lambdas: Sequence[float]) -> _Window:
    p = len(events.predicates)
    n_entities = len(events.entity_ids)
    before = events.day < start
    inside = (events.day >= start) & (True if end is None else events.day < end)
    s0, r0, o0, d0, n0 = events.select(before)
    s1, r1, o1, d1, n1 = events.select(inside)
    h1, rd1, t1 = _directions(s1, r1, o1, p)
    day1, cnt1 = np.concatenate([d1, d1]), np.concatenate([n1, n1])
    queries = pl.DataFrame({"h": h1, "rd": rd1, "t": t1, "day": day1, "w": cnt1}).with_row_index("q")
    groups = queries.select("rd", "day").unique().sort("rd", "day").with_row_index("g")
    queries = queries.join(groups, on=["rd", "day"], maintain_order="left")
    keys = queries.select("q", "h", "rd", "day")
    # Special pairs: the answer, the other answers that day (filtered), the candidates seen before.
    tails = queries.select("q", pl.col("t").alias("e"))
    others = keys.join(queries.select("h", "rd", "day", pl.col("t").alias("e")), on=["h", "rd", "day"]).join(
        tails, on=["q", "e"], how="anti"
    )
    # The history of the (h, rd) the queries ask about, one direction at a time (never the whole doubled history).
    wanted = keys.select("h", "rd").unique()
    history0 = pl.concat(
        [
            pl.DataFrame({"h": s0, "rd": r0, "e": o0, "day": d0}).join(wanted, on=["h", "rd"], how="semi"),
            pl.DataFrame({"h": o0, "rd": r0 + p, "e": s0, "day": d0}).join(wanted, on=["h", "rd"], how="semi"),
        ]
    )
    lam_cols = [
        (2.0 ** (lam * (pl.col("day") - pl.col("last")).cast(pl.Float64))).sum().alias(f"l{i}")
        for i, lam in enumerate(lambdas)
    ]
    pre = (
        history0.with_columns(pl.col("day").max().over("h", "rd", "e").alias("last"))
        .group_by("h", "rd", "e")
        .agg(pl.col("last").first(), *lam_cols)
        .with_row_index("pre")
    )
    pre_pairs = keys.join(pre.select("pre", "h", "rd", "e"), on=["h", "rd"]).select("q", "e", "pre")
    history1 = pl.DataFrame({"h": h1, "rd": rd1, "e": t1, "k": day1})
    win_pairs = keys.join(history1, on=["h", "rd"]).filter(pl.col("k") < pl.col("day")).select("q", "e", "k")
    special = (
        pl.concat(
            [
                tails.with_columns(kind=pl.lit(0, pl.Int8)),
                others.select("q", "e").with_columns(kind=pl.lit(1, pl.Int8)),
                pre_pairs.select("q", "e").with_columns(kind=pl.lit(2, pl.Int8)),
                win_pairs.select("q", "e").with_columns(kind=pl.lit(2, pl.Int8)),
            ]
        )
        .group_by("q", "e")
        .agg((pl.col("kind") == 0).any().alias("tail"), (pl.col("kind") == 1).any().alias("filtered"))
        .sort("q", "e")
        .with_row_index("sp")
    )
    # The relaxed counts of a group (rd, day): those before the window (one sorted run per rd, shared by its days)
    # changed by the window's events before the day (only the entities they name, per group).
    asked = groups.select("rd").unique()
    counts0 = (
        pl.concat(
            [
                pl.DataFrame({"rd": r0, "e": o0, "c": n0}).join(asked, on="rd", how="semi"),
                pl.DataFrame({"rd": r0 + p, "e": s0, "c": n0}).join(asked, on="rd", how="semi"),
            ]
        )
        .group_by("rd", "e")
        .agg(pl.col("c").sum())
        .sort("rd", "c")
    )
    counts1 = pl.DataFrame({"rd": rd1, "e": t1, "k": day1, "c": cnt1}).group_by("rd", "e", "k").agg(pl.col("c").sum())
    changed = (
        groups.join(counts1, on="rd")
        .filter(pl.col("k") < pl.col("day"))
        .group_by("g", "rd", "e")
        .agg(pl.col("c").sum().alias("dc"))
        .join(counts0, on=["rd", "e"], how="left")
        .with_columns(pl.col("c").fill_null(0).alias("c_old"))
        .with_columns((pl.col("c_old") + pl.col("dc")).alias("c_new"))
    )
    totals0 = counts0.group_by("rd").agg(pl.col("c").sum().alias("total0"), pl.len().alias("nnz0"))
    g_info = (
        groups.join(totals0, on="rd", how="left")
        .join(
            changed.group_by("g").agg(pl.col("dc").sum().alias("dtotal"), (pl.col("c_old") == 0).sum().alias("dnnz")),
            on="g",
            how="left",
        )
        .fill_null(0)
        .sort("g")
    )
    special = (
        special.join(queries.select("q", "g", "rd"), on="q", maintain_order="left")
        .join(changed.select("g", "e", "c_new"), on=["g", "e"], how="left", maintain_order="left")
        .join(counts0, on=["rd", "e"], how="left", maintain_order="left")
        .with_columns(pl.coalesce("c_new", "c", 0).alias("c"))
    )
    most = pl.concat([counts0["c"], changed["c_new"]]).max()
    width = (int(cast(int, most)) if most is not None else 0) + 2
    changed = changed.sort("g", "c_old")
    changed_new = changed.select("g", "c_new").sort("g", "c_new")
    sp_index = special.select("q", "e", "sp")
    pre_sp = pre_pairs.join(sp_index, on=["q", "e"], maintain_order="left")
    win_sp = win_pairs.join(sp_index, on=["q", "e"], maintain_order="left")
    tail_sp = special.filter(pl.col("tail")).sort("q")
    q_tail_sp = tail_sp["sp"].to_numpy().astype(np.int64)
    pre = pre.sort("pre")

    def ints(series: pl.Series) -> IntArray:
        return series.to_numpy().astype(np.int64)

    return _Window(
        qh=ints(queries["h"]),
        qrd=ints(queries["rd"]),
        qt=ints(queries["t"]),
        qday=ints(queries["day"]),
        qw=ints(queries["w"]),
        qpred=ints(queries["rd"]) % max(p, 1),
        qg=ints(queries["g"]),
        q_tail_sp=q_tail_sp,
        sp_q=ints(special["q"]),
        sp_e=ints(special["e"]),
        sp_c=special["c"].fill_null(0).to_numpy().astype(np.float64),
        sp_filtered=special["filtered"].to_numpy() & ~special["tail"].to_numpy(),
        sp_tail=special["tail"].to_numpy(),
        pre_sp=ints(pre_sp["sp"]),
        pre_of=ints(pre_sp["pre"]),
        pre_last=ints(pre["last"]),
        pre_sums=pre.select(f"l{i}" for i in range(len(lambdas)))
        .to_numpy()
        .astype(np.float64)
        .reshape(pre.height, len(lambdas)),
        win_sp=ints(win_sp["sp"]),
        win_day=ints(win_sp["k"]),
        g_rd=ints(g_info["rd"]),
        g_total=(g_info["total0"] + g_info["dtotal"]).to_numpy().astype(np.float64),
        g_zeros=n_entities - ints(g_info["nnz0"] + g_info["dnnz"]),
        width=width,
        static_key=ints(counts0["rd"]) * width + ints(counts0["c"]),
        old_key=ints(changed["g"]) * width + ints(changed["c_old"]),
        new_key=ints(changed_new["g"]) * width + ints(changed_new["c_new"]),
        lambdas=tuple(lambdas),
        origin=events.origin,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _Scored:
    rank: FloatArray
    score: FloatArray  # the answer's score, per query


def _share(count: FloatArray, total: FloatArray) -> FloatArray:
    """ξ: a count over its group's total (0 when the group has no history). One formula for every candidate, so
    equal counts give bit-equal scores."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, count / total, 0.0)


def _score(w: _Window, lam_index: IntArray, alpha: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per special pair: (ψ, ξ, α·ψ + (1 − α)·ξ), with each query's λ (an index into ``w.lambdas``) and α."""
    lambdas = np.asarray(w.lambdas, dtype=np.float64)
    n_sp = w.sp_q.size
    q_pre = w.sp_q[w.pre_sp]
    li = lam_index[q_pre]
    lam_pre = lambdas[li]
    pre_terms = w.pre_sums[w.pre_of, li] * np.exp2(lam_pre * (w.pre_last[w.pre_of] - w.qday[q_pre]))
    q_win = w.sp_q[w.win_sp]
    win_terms = np.exp2(lambdas[lam_index[q_win]] * (w.win_day - w.qday[q_win]))
    raw = np.bincount(w.pre_sp, weights=pre_terms, minlength=n_sp) + np.bincount(
        w.win_sp, weights=win_terms, minlength=n_sp
    )
    norm = _normaliser(lambdas[lam_index], w.qday - w.origin)[w.sp_q]
    with np.errstate(divide="ignore", invalid="ignore"):
        psi = np.where(norm > 0, raw / norm, 0.0)
    xi = _share(w.sp_c, w.g_total[w.qg[w.sp_q]])
    a = alpha[w.sp_q]
    return psi, xi, a * psi + (1.0 - a) * xi


def _rank(w: _Window, lam_index: IntArray, alpha: FloatArray) -> _Scored:
    """Every query's filtered rank: 1 + the candidates scored strictly higher + half of those tied with the answer,
    the other answers of the same query on the same day left out. Candidates are all the entities; the relaxed
    counts of those not among a query's special pairs come from its group's histogram, so no query reads every
    entity."""
    n_q = w.qh.size
    _, xi, score = _score(w, lam_index, alpha)
    tau = score[w.q_tail_sp]
    # The candidates outside the special pairs score f(c) = α·0 + (1 − α)·c/total (c: their count, ≥ 1; the
    # zeros apart): f rises with c, so "f(c) > τ" is "c ≥ c_gt" for an integer c_gt found around τ·total/(1 − α)
    # with f itself (bit for bit as a special pair's score), and the counting is on integer keys.
    total = w.g_total[w.qg]
    c_gt = _threshold(alpha, total, tau, w.width, strict=True)
    c_ge = _threshold(alpha, total, tau, w.width, strict=False)

    def at_least(keys: IntArray, base: IntArray, c: IntArray) -> IntArray:
        """Per query: the entries of ``keys`` from ``base + c`` to the end of the run ``base``."""
        end = np.searchsorted(keys, base + w.width, side="left")
        return end - np.searchsorted(keys, base + c, side="left")

    rd_base = w.g_rd[w.qg] * w.width
    g_base = w.qg * w.width
    n_gt = at_least(w.static_key, rd_base, c_gt) - at_least(w.old_key, g_base, c_gt) + at_least(w.new_key, g_base, c_gt)
    n_ge = at_least(w.static_key, rd_base, c_ge) - at_least(w.old_key, g_base, c_ge) + at_least(w.new_key, g_base, c_ge)
    higher = n_gt.astype(np.float64)
    tied = (n_ge - n_gt).astype(np.float64) + np.where(tau == 0.0, w.g_zeros[w.qg], 0)
    # The special pairs: out of the counts (or the zeros) at their relaxed-only score, in at their own score
    # unless they are the answer or another answer of the query.
    sp_tau = tau[w.sp_q]
    a = alpha[w.sp_q]
    seen = w.sp_c > 0
    as_counted = np.where(seen, a * 0.0 + (1.0 - a) * xi, 0.0)
    keep = ~(w.sp_filtered | w.sp_tail)
    higher += np.bincount(w.sp_q, weights=(keep & (score > sp_tau)) - (as_counted > sp_tau) * 1.0, minlength=n_q)
    tied += np.bincount(w.sp_q, weights=(keep & (score == sp_tau)) - (as_counted == sp_tau) * 1.0, minlength=n_q)
    return _Scored(rank=1.0 + higher + 0.5 * tied, score=tau)


def _threshold(alpha: FloatArray, total: FloatArray, tau: FloatArray, width: int, *, strict: bool) -> IntArray:
    """Per query, the least count c ≥ 1 whose relaxed-only score α·0 + (1 − α)·c/total is above ``tau`` (``strict``)
    or at least ``tau``; ``width`` (past every count) when none is. The score rises with c, so the answer is looked
    for in a few counts around τ·total/(1 − α), computed with the score's own formula; the rare query whose answer
    lies outside them is bisected."""

    def passes(i: IntArray | slice, c: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        a = alpha[i][..., None] if c.ndim == 2 else alpha[i]
        t = total[i][..., None] if c.ndim == 2 else total[i]
        bound = tau[i][..., None] if c.ndim == 2 else tau[i]
        f = a * 0.0 + (1.0 - a) * _share(c.astype(np.float64), np.broadcast_to(t, c.shape).astype(np.float64))
        return (f > bound) if strict else (f >= bound)

    one_minus = 1.0 - alpha
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        guess = np.where(one_minus > 0, tau * total / one_minus, np.where(tau <= 0, 0.0, np.inf))
    base = np.floor(np.clip(guess, 0, width)).astype(np.int64)
    cands = np.clip(base[:, None] + np.arange(-3, 5)[None, :], 1, width)
    ok = passes(slice(None), cands) & (cands < width)
    found = ok.any(axis=1)
    out = np.where(found, cands[np.arange(cands.shape[0]), ok.argmax(axis=1)], width)
    # A flat score (α = 1, or no history in the group) is 0 for every count: all pass or none.
    flat = (one_minus <= 0) | (total <= 0)
    out = np.where(flat, np.where((tau < 0.0) if strict else (tau <= 0.0), 1, width), out)
    # Outside the window: the answer is below it (its first count passes and is above 1) or above it (none passes
    # and its last count is below width). Bisect those between the bounds the window gives.
    below = ~flat & found & ok[:, 0] & (cands[:, 0] > 1)
    above = ~flat & ~found & (cands[:, -1] < width - 1)
    for i in np.flatnonzero(below | above):
        lo, hi = (1, int(cands[i, 0])) if below[i] else (int(cands[i, -1]) + 1, width)
        while lo < hi:
            mid = (lo + hi) // 2
            if mid < width and passes(np.array([i]), np.array([mid]))[0]:
                hi = mid
            else:
                lo = mid + 1
        out[i] = lo
    return out


def _metrics(rank: FloatArray, weight: IntArray) -> tuple[float, float, float, float]:
    total = float(weight.sum())
    if total == 0:
        return 0.0, 0.0, 0.0, 0.0
    w = weight.astype(np.float64)
    return (
        float((w / rank).sum() / total),
        float((w * (rank <= 1)).sum() / total),
        float((w * (rank <= 3)).sum() / total),
        float((w * (rank <= 10)).sum() / total),
    )


def _per_predicate_mrr(w: _Window, rank: FloatArray, n_predicates: int) -> FloatArray:
    weights = w.qw.astype(np.float64)
    total = np.bincount(w.qpred, weights=weights, minlength=n_predicates)
    rr = np.bincount(w.qpred, weights=weights / rank, minlength=n_predicates)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, rr / total, -1.0)


# ---------------------------------------------------------------------------------------------------- the model


def _lambda_grid(lambdas: Sequence[float], extra: Sequence[float]) -> tuple[float, ...]:
    return tuple(dict.fromkeys([*lambdas, *extra]))


def _check_grid(values: Sequence[float], name: str, low: float, high: float | None) -> tuple[float, ...]:
    out = tuple(float(v) for v in values)
    if not out or any(not np.isfinite(v) or v < low or (high is not None and v > high) for v in out):
        bound = f"from {low} to {high}" if high is not None else f"from {low}"
        raise InvalidRequest(f"{name} must be a non-empty list of numbers {bound}", field=name, value=str(values))
    return out


def _tune(
    events: _Events,
    start: int,
    end: int,
    variant: Variant,
    lambdas: tuple[float, ...],
    alphas: tuple[float, ...],
) -> tuple[dict[int, float], dict[int, float]]:
    """λ then α per predicate on the window [start, end): each predicate keeps the first value of the grid with its
    best validation MRR (both directions); predicates without validation queries are left out (the defaults)."""
    n_p = len(events.predicates)
    grid = _lambda_grid(lambdas, [DEFAULT_LAMBDA])
    w = _prepare(events, start, end, grid)
    present = np.bincount(w.qpred, minlength=n_p) > 0
    chosen_lam: dict[int, float] = {}
    chosen_alpha: dict[int, float] = {}
    if variant == "relaxed" or not present.any():
        return chosen_lam, chosen_alpha
    ones = np.ones(w.qh.size)
    best = np.full(n_p, -np.inf)
    best_index = np.full(n_p, grid.index(DEFAULT_LAMBDA), dtype=np.int64)
    for i, _ in enumerate(lambdas):
        mrr = _per_predicate_mrr(w, _rank(w, np.full(w.qh.size, i, dtype=np.int64), ones).rank, n_p)
        better = present & (mrr > best)
        best[better], best_index[better] = mrr[better], i
    chosen_lam = {int(p): grid[best_index[p]] for p in np.flatnonzero(present)}
    if variant == "strict":
        return chosen_lam, chosen_alpha
    lam_index = best_index[w.qpred]
    best = np.full(n_p, -np.inf)
    best_alpha = np.full(n_p, DEFAULT_ALPHA)
    for alpha in alphas:
        mrr = _per_predicate_mrr(w, _rank(w, lam_index, np.full(w.qh.size, alpha)).rank, n_p)
        better = present & (mrr > best)
        best[better], best_alpha[better] = mrr[better], alpha
    chosen_alpha = {int(p): float(best_alpha[p]) for p in np.flatnonzero(present)}
    return chosen_lam, chosen_alpha


@dataclasses.dataclass(frozen=True)
class Recurrency:
    """A fitted recurrency baseline: the graph's event history and the λ and α of each predicate.

    Made by :func:`fit`; :meth:`predict` ranks the likely objects of a (subject, predicate) query with their
    evidence, and :meth:`params` says which λ and α a predicate uses.
    """

    variant: str
    lam: dict[str, float]
    alpha: dict[str, float]
    default_lam: float
    default_alpha: float
    _events: _Events = dataclasses.field(repr=False)
    _names: dict[str, str] = dataclasses.field(repr=False)

    def params(self, predicate: str) -> tuple[float, float]:
        """The (λ, α) the model scores ``predicate`` with (the defaults for a predicate it was not tuned on).

        Parameters
        ----------
        predicate : str
            A stored predicate (as :meth:`KnowledgeGraph.predicates` lists them).

        Returns
        -------
        tuple of float
            λ and α.

        Examples
        --------
        >>> import kgtoolkit
        >>> from kgtoolkit import forecast
        >>> kg = kgtoolkit.open(":memory:")
        >>> _ = kg.configure(events=True)
        >>> _ = kg.add("Ann", "meets", "Bob", valid_from="2024-01-01", valid_to="2024-01-01")
        >>> forecast.fit(kg).params("meets")
        (0.1, 0.99)
        """
        if self.variant == "relaxed":
            return self.lam.get(predicate, self.default_lam), 0.0
        alpha = 1.0 if self.variant == "strict" else self.alpha.get(predicate, self.default_alpha)
        return self.lam.get(predicate, self.default_lam), alpha

    def predicates_of(self, subject: str, *, limit: int = 3) -> list[tuple[str, int]]:
        """The predicates ``subject`` has the most events with as a subject, busiest first (ties by name).

        Parameters
        ----------
        subject : str
            An entity id, or a name the graph normalises to one.
        limit : int, default 3
            How many predicates at most.

        Returns
        -------
        list of (str, int)
            Each predicate with the subject's events of it; empty when the subject has none.

        Examples
        --------
        >>> import kgtoolkit
        >>> from kgtoolkit import forecast
        >>> kg = kgtoolkit.open(":memory:")
        >>> _ = kg.configure(events=True)
        >>> _ = kg.add("Ann", "meets", "Bob", valid_from="2024-01-01", valid_to="2024-01-01")
        >>> forecast.fit(kg).predicates_of("Ann")
        [('meets', 1)]
        """
        ev = self._events
        try:
            code = _code(ev.entity_ids, subject, "subject", self._names)
        except NotFound:
            return []
        mine = ev.s == code
        counts = np.bincount(ev.r[mine], weights=ev.n[mine].astype(np.float64), minlength=len(ev.predicates))
        order = np.lexsort((np.arange(counts.size), -counts))
        return [(ev.predicates[p], int(counts[p])) for p in order[:limit] if counts[p] > 0]

    def predict(self, subject: str, predicate: str, *, at: TimeInput | None = None, top: int = 10) -> list[Prediction]:
        """The likely objects of ``subject`` ``predicate`` on day ``at``, best first, with their evidence.

        The history is every event before ``at`` that the model was fitted on. Candidates scored 0 (never seen with
        the predicate) are left out; ties keep the entities' id order, so the answer is deterministic.

        Parameters
        ----------
        subject : str
            The subject: a name or alias the graph resolves.
        predicate : str
            The predicate (any spelling the graph normalises to it).
        at : date or str, optional
            The day to forecast (the first day ``at`` names); default: the day after the last event.
        top : int, default 10
            How many objects, from 1 to 1,000.

        Returns
        -------
        list of Prediction
            At most ``top`` predictions.

        Raises
        ------
        InvalidRequest
            ``top`` out of range, or ``at`` not a date.
        NotFound
            The subject or the predicate has no events in the history.

        Examples
        --------
        >>> import kgtoolkit
        >>> from kgtoolkit import forecast
        >>> kg = kgtoolkit.open(":memory:")
        >>> _ = kg.configure(events=True)
        >>> _ = kg.add("Ann", "meets", "Bob", valid_from="2024-01-01", valid_to="2024-01-01")
        >>> best = forecast.fit(kg).predict("Ann", "meets", at="2024-01-02")[0]
        >>> (best.object_name, best.times_seen, best.last_seen, best.share)
        ('Bob', 1, '2024-01-01', 1.0)
        """
        if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 1000:
            raise InvalidRequest(f"top must be a whole number from 1 to 1000, not {top!r}", field="top", value=str(top))
        ev = self._events
        day = int(ev.day.max()) + 1 if at is None else _day(at, "at")
        s_code = _code(ev.entity_ids, subject, "subject", self._names)
        r_code = _code(ev.predicates, predicate, "predicate", {})
        lam, alpha = self.params(ev.predicates[r_code])
        past = ev.day < day
        of_r = past & (ev.r == r_code)
        total = float(ev.n[of_r].sum())
        counts = np.bincount(ev.o[of_r], weights=ev.n[of_r].astype(np.float64), minlength=len(ev.entity_ids))
        mine = of_r & (ev.s == s_code)
        days_seen = np.bincount(ev.o[mine], minlength=len(ev.entity_ids))
        last = np.full(len(ev.entity_ids), -1, dtype=np.int64)
        np.maximum.at(last, ev.o[mine], ev.day[mine])
        raw = np.bincount(
            ev.o[mine], weights=np.exp2(lam * (ev.day[mine] - day).astype(np.float64)), minlength=len(ev.entity_ids)
        )
        norm = float(_normaliser(np.array([lam]), np.array([day - ev.origin]))[0])
        psi = raw / norm if norm > 0 else raw * 0.0
        xi = _share(counts.astype(np.float64), np.full(counts.size, total))
        score = alpha * psi + (1.0 - alpha) * xi
        order = np.lexsort((np.arange(score.size), -score))
        out: list[Prediction] = []
        for e in order[:top]:
            if score[e] <= 0.0:
                break
            entity_id = ev.entity_ids[e]
            out.append(
                Prediction(
                    rank=len(out) + 1,
                    object=entity_id,
                    object_name=self._names.get(entity_id, entity_id),
                    score=float(score[e]),
                    strict=float(psi[e]),
                    share=float(xi[e]),
                    times_seen=int(days_seen[e]),
                    last_seen=_iso(int(last[e])) if last[e] >= 0 else None,
                    lam=lam,
                    alpha=alpha,
                )
            )
        return out


def _code(known: tuple[str, ...], wanted: str, field: str, names: dict[str, str]) -> int:
    """The code of ``wanted`` (an id, or a name the graph normalises to one) among the ``known`` ids (sorted)."""
    if not isinstance(wanted, str):
        raise InvalidRequest(f"{field} must be text, not {type(wanted).__name__}", field=field, value=str(wanted))
    keys = [wanted, normalize_name(wanted, field=field)]
    keys += [i for i, name in names.items() if name == wanted][:1] if wanted not in names else []
    for key in keys:
        index = bisect.bisect_left(known, key)
        if index < len(known) and known[index] == key:
            return index
    raise NotFound(f"{field} {wanted!r} has no events to forecast from", field=field, value=wanted)


def _check_variant(variant: str) -> Variant:
    if variant not in _VARIANTS:
        raise InvalidRequest(
            f"variant={variant!r} is not one of {', '.join(_VARIANTS)}", field="variant", value=str(variant)
        )
    return cast(Variant, variant)


def _names(kg: KnowledgeGraph) -> dict[str, str]:
    """Entity id → name, read in pages through the graph's public entity list."""
    out: dict[str, str] = {}
    while True:
        page = kg.entities(limit=50_000, offset=len(out))
        out.update((e.id, e.name) for e in page)
        if len(page) < 50_000:
            return out


def fit(
    kg: KnowledgeGraph,
    *,
    train_until: TimeInput | None = None,
    valid_until: TimeInput | None = None,
    variant: Variant = "combined",
    lambdas: Sequence[float] = LAMBDAS,
    alphas: Sequence[float] = ALPHAS,
) -> Recurrency:
    """Fit the recurrency baseline on an event graph.

    Without ``train_until`` the model keeps every event and the stated defaults (:data:`DEFAULT_LAMBDA`,
    :data:`DEFAULT_ALPHA`). With ``train_until`` and ``valid_until``, λ and α are chosen per predicate on the
    validation window [train_until, valid_until) as :func:`evaluate` chooses them, and the model keeps every event
    before ``valid_until``.

    Parameters
    ----------
    kg : KnowledgeGraph
        The graph; its events (contract §12) with a known start and an entity object are the history.
    train_until, valid_until : date or str, optional
        The first day of the validation window and the first day after it (both or neither).
    variant : {"combined", "strict", "relaxed"}, default "combined"
        Which baseline (module docstring).
    lambdas, alphas : sequence of float
        The grids (default: the paper's, :data:`LAMBDAS` and :data:`ALPHAS`).

    Returns
    -------
    Recurrency
        The fitted model.

    Raises
    ------
    InvalidRequest
        A bad variant or grid, only one of ``train_until`` / ``valid_until``, or a window out of order.
    InvalidDate
        A bound that is not a date.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import forecast
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.configure(events=True)
    >>> _ = kg.add("Ann", "meets", "Bob", valid_from="2024-01-01", valid_to="2024-01-01")
    >>> forecast.fit(kg, variant="strict").params("meets")
    (0.1, 1.0)
    """
    variant = _check_variant(variant)
    lam_grid = _check_grid(lambdas, "lambdas", 0.0, None)
    alpha_grid = _check_grid(alphas, "alphas", 0.0, 1.0)
    if (train_until is None) != (valid_until is None):
        raise InvalidRequest("give both train_until and valid_until, or neither", field="valid_until")
    lam: dict[int, float] = {}
    alpha: dict[int, float] = {}
    if train_until is not None and valid_until is not None:
        start, end = _day(train_until, "train_until"), _day(valid_until, "valid_until")
        if end <= start:
            raise InvalidRequest(
                f"valid_until={_iso(end)} must come after train_until={_iso(start)}",
                field="valid_until",
                value=str(valid_until),
            )
        events = _read(kg, end)
        lam, alpha = _tune(events, start, end, variant, lam_grid, alpha_grid)
    else:
        events = _read(kg, None)
    return Recurrency(
        variant=variant,
        lam={events.predicates[p]: v for p, v in lam.items()},
        alpha={events.predicates[p]: v for p, v in alpha.items()},
        default_lam=DEFAULT_LAMBDA,
        default_alpha=DEFAULT_ALPHA,
        _events=events,
        _names=_names(kg),
    )


def _params_per_query(
    w: _Window, variant: Variant, lam: dict[int, float], alpha: dict[int, float], n_p: int
) -> tuple[IntArray, FloatArray]:
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
    variant = _check_variant(variant)
    lam_grid = _check_grid(lambdas, "lambdas", 0.0, None)
    alpha_grid = _check_grid(alphas, "alphas", 0.0, 1.0)
    start, middle = _day(train_until, "train_until"), _day(valid_until, "valid_until")
    end = None if test_until is None else _day(test_until, "test_until")
    if middle <= start:
        raise InvalidRequest(
            f"valid_until={_iso(middle)} must come after train_until={_iso(start)}",
            field="valid_until",
            value=str(valid_until),
        )
    if end is not None and end <= middle:
        raise InvalidRequest(
            f"test_until={_iso(end)} must come after valid_until={_iso(middle)}",
            field="test_until",
            value=str(test_until),
        )
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


class _Kept:
    """The model :func:`latest` keeps on a graph, with the data version it was fitted at."""

    def __init__(self) -> None:
        self.version: tuple[object, ...] | None = None
        self.model: Recurrency | None = None

    def close(self) -> None:
        self.model = None


def latest(kg: KnowledgeGraph) -> Recurrency:
    """The untuned model (the stated defaults) of the graph as it is now: fitted on first use and kept with the
    graph, fitted again when its data has changed. What the agent tool's ``forecast`` action and the dashboard
    ask.

    Parameters
    ----------
    kg : KnowledgeGraph
        The event graph.

    Returns
    -------
    Recurrency
        ``fit(kg)``, or the same model again while the graph is unchanged.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit import forecast
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.configure(events=True)
    >>> _ = kg.add("Ann", "meets", "Bob", valid_from="2024-01-01", valid_to="2024-01-01")
    >>> forecast.latest(kg) is forecast.latest(kg)
    True
    """
    kept = kg.keep("forecast.latest", _Kept)
    version = kg.data_version()
    if kept.model is None or kept.version != version:
        kept.model, kept.version = fit(kg), version
    return kept.model

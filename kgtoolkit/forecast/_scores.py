"""The recurrency kernels: one window's queries prepared once, then scored and ranked for any λ and α."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt
import polars as pl

from ._history import FloatArray, Int32Array, IntArray, _Events


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
    """The :class:`_Window` of the events from ``start`` up to ``end`` (None: to the last) for each λ of ``lambdas``."""
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
    """MRR and Hits@1/3/10 of the ranks, each query weighted by its events (zeros when there are none)."""
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

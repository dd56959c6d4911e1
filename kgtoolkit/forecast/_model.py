"""The recurrency model: the paper's grids and defaults, the tuning per predicate, :func:`fit` and
:class:`Recurrency`, and the model :func:`latest` keeps on a graph."""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence

import numpy as np

from .._errors import InvalidRequest, NotFound
from .._names import normalize_name
from .._records import _Record
from .._time import TimeInput
from ..graph import KnowledgeGraph
from ._arguments import Variant, _checked
from ._history import _day, _Events, _iso, _read
from ._scores import _normaliser, _per_predicate_mrr, _prepare, _rank, _share

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


def _lambda_grid(lambdas: Sequence[float], extra: Sequence[float]) -> tuple[float, ...]:
    return tuple(dict.fromkeys([*lambdas, *extra]))


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
        s_code = _code(ev.entity_ids, subject, "subject", self._names)
        r_code = _code(ev.predicates, predicate, "predicate", {})
        day = int(ev.day.max()) + 1 if at is None else _day(at, "at")
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
    split = _checked(variant=variant, lambdas=lambdas, alphas=alphas, train_until=train_until, valid_until=valid_until)
    variant = split.variant
    lam: dict[int, float] = {}
    alpha: dict[int, float] = {}
    if split.start is not None and split.middle is not None:
        events = _read(kg, split.middle)
        lam, alpha = _tune(events, split.start, split.middle, variant, split.lambdas, split.alphas)
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

"""Forecasting in an event graph: what happens next, scored with the field's own protocol (issue #49).

The model is the recurrency baseline of Gastinger et al., "History repeats itself: A Baseline for Temporal Knowledge
Graph Forecasting" (IJCAI 2024, arXiv 2404.16726), re-implemented from the paper. For a query "(s, r, ?) on day t"
each candidate object o gets

* the **strict recurrency** ψ_λ(s, r, o, t) (paper §4, the strict baseline with its time weighting): the
  recency-weighted count of the earlier days k < t on which (s, r, o) happened, Σ 2^(λ(k − t)), divided by the same
  sum over every day from the graph's first to t − 1 (the score of a fact seen every day), so ψ is in [0, 1]; λ = 0
  counts days, a large λ keeps only the most recent one;
* the **relaxed recurrency** ξ(r, o, t) (paper §4, the relaxed baseline): the share of r's earlier events whose
  object is o;
* the **combination** α·ψ_λ + (1 − α)·ξ (paper §4, the combined baseline).

λ and α are chosen per predicate on a validation window from the paper's grids (:data:`LAMBDAS`, :data:`ALPHAS`; §5,
hyperparameters): λ first with α = 1, then α with that λ; a predicate the validation window never shows keeps the
defaults :data:`DEFAULT_LAMBDA` and :data:`DEFAULT_ALPHA`, as does a model fitted without a validation window. Both
directions are forecast: (s, r, ?, t) and its inverse (?, r, o, t), whose relaxed share counts r's subjects.

:func:`evaluate` runs the protocol of the field on a train / validation / test split by day (its docstring states
it); :func:`fit` gives a :class:`Recurrency` model whose :meth:`Recurrency.predict` ranks the likely objects with
their evidence. The history is read through the engine as counts per (subject, predicate, object, day)
(:func:`kgtoolkit.store.event_days`), and every score and rank is computed on integer arrays (numpy, polars): nothing
here loops over candidates in Python. Nothing here knows about one data set.

>>> import kgtoolkit
>>> from kgtoolkit import forecast
>>> kg = kgtoolkit.open(":memory:")
>>> kg.configure(events=True)  # doctest: +ELLIPSIS
GraphConfig(...)
>>> for day in ("2024-01-01", "2024-01-02", "2024-01-03"):
...     _ = kg.add("Ann", "meets", "Bob", valid_from=day, valid_to=day)
>>> _ = kg.add("Cid", "meets", "Dee", valid_from="2024-01-02", valid_to="2024-01-02")
>>> model = forecast.fit(kg)
>>> [p.object_name for p in model.predict("Ann", "meets", at="2024-01-04", top=2)]
['Bob', 'Dee']
"""

from __future__ import annotations

from ._arguments import Variant
from ._evaluate import ForecastReport, PredicateResult, evaluate, query_ranks
from ._model import ALPHAS, DEFAULT_ALPHA, DEFAULT_LAMBDA, LAMBDAS, Prediction, Recurrency, fit, latest

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

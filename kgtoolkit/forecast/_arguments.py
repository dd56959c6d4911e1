"""The forecast's arguments, checked in one place: the variant, the grids of λ and α, and the split by day that
:func:`~kgtoolkit.forecast.fit` and :func:`~kgtoolkit.forecast.evaluate` take."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, cast

import numpy as np

from .._errors import InvalidRequest
from .._time import TimeInput
from ._history import _day, _iso

#: Which baseline: ``combined`` (λ, then α tuned), ``strict`` (α = 1, λ tuned) or ``relaxed`` (α = 0).
Variant = Literal["combined", "strict", "relaxed"]
_VARIANTS = ("combined", "strict", "relaxed")


def _check_variant(variant: str) -> Variant:
    if variant not in _VARIANTS:
        raise InvalidRequest(
            f"variant={variant!r} is not one of {', '.join(_VARIANTS)}", field="variant", value=str(variant)
        )
    return cast(Variant, variant)


def _check_grid(values: Sequence[float], name: str, low: float, high: float | None) -> tuple[float, ...]:
    out = tuple(float(v) for v in values)
    if not out or any(not np.isfinite(v) or v < low or (high is not None and v > high) for v in out):
        bound = f"from {low} to {high}" if high is not None else f"from {low}"
        raise InvalidRequest(f"{name} must be a non-empty list of numbers {bound}", field=name, value=str(values))
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class _Split:
    """The checked arguments of a fit or an evaluation: the variant, the grids, and the split as day numbers
    (``start``: the first validation day, ``middle``: the first day after it, ``end``: the first day after the
    test window; None where not given)."""

    variant: Variant
    lambdas: tuple[float, ...]
    alphas: tuple[float, ...]
    start: int | None
    middle: int | None
    end: int | None


def _checked(
    *,
    variant: str,
    lambdas: Sequence[float],
    alphas: Sequence[float],
    train_until: TimeInput | None,
    valid_until: TimeInput | None,
    test_until: TimeInput | None = None,
    required: bool = False,
) -> _Split:
    """Check the arguments in their order (variant, grids, both bounds or neither, dates, windows in order);
    ``required``: ``train_until`` and ``valid_until`` must be dates (None is not one)."""
    checked_variant = _check_variant(variant)
    lam_grid = _check_grid(lambdas, "lambdas", 0.0, None)
    alpha_grid = _check_grid(alphas, "alphas", 0.0, 1.0)
    if not required and (train_until is None) != (valid_until is None):
        raise InvalidRequest("give both train_until and valid_until, or neither", field="valid_until")
    start = None if train_until is None and not required else _day(cast(TimeInput, train_until), "train_until")
    middle = None if valid_until is None and not required else _day(cast(TimeInput, valid_until), "valid_until")
    end = None if test_until is None else _day(test_until, "test_until")
    if start is not None and middle is not None and middle <= start:
        raise InvalidRequest(
            f"valid_until={_iso(middle)} must come after train_until={_iso(start)}",
            field="valid_until",
            value=str(valid_until),
        )
    if end is not None and middle is not None and end <= middle:
        raise InvalidRequest(
            f"test_until={_iso(end)} must come after valid_until={_iso(middle)}",
            field="test_until",
            value=str(test_until),
        )
    return _Split(checked_variant, lam_grid, alpha_grid, start, middle, end)

"""Predicates as people spell them on every page (contract §13): the one place a page's frame gets its labels.
No Streamlit here."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

__all__ = ["labelled"]


def labelled(
    frame: pl.DataFrame, labels: Mapping[str, str], *, column: str = "predicate", alias: str | None = None
) -> pl.DataFrame:
    """``frame`` with each predicate id of ``column`` replaced by its label (``kg.predicate_labels()``: its first
    spelling, contract §13), in ``alias`` (default: in place); an id without a label stays as it is.

    >>> labelled(pl.DataFrame({"predicate": ["works_at", "x"]}), {"works_at": "worksAt"})["predicate"].to_list()
    ['worksAt', 'x']
    """
    return frame.with_columns(
        pl.col(column)
        .replace_strict(dict(labels), default=pl.col(column), return_dtype=pl.String)
        .alias(alias or column)
    )

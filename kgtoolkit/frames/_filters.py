"""Filters on a facts frame in memory, by the store's rules: valid at a date, around one entity."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import polars as pl

from .. import _validity
from .._errors import InvalidRequest
from .._time import TimeInput
from .._window import span_keys

if TYPE_CHECKING:
    pass


def valid_at(facts: pl.DataFrame, as_of: TimeInput | None) -> pl.DataFrame:
    """Keep the rows of a facts frame valid at a date, by the store's rule (contract §4), in memory.

    A day keeps every fact whose interval touches it (both ends count); a month or a year does the same
    for its whole span, and ``START/END`` (``2014-01-01/2014-03-31``) for its. A datetime keeps the facts
    valid at that instant. An unknown start is "since always".

    Parameters
    ----------
    facts
        A frame of :func:`facts`.
    as_of
        The date, span or instant (None keeps every row).

    Returns
    -------
    polars.DataFrame
        The rows kept: equal to ``frames.facts(kg, as_of=...)``, without reading the graph again.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit.frames import facts
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses", "Redis", valid_from="2026-01-01", valid_to="2026-03-31")
    >>> valid_at(facts(kg), "2026-03").height, valid_at(facts(kg), "2026-04-01").height
    (1, 0)
    """
    keys = span_keys(as_of)
    if keys is None:
        return facts
    low, high = keys
    return facts.filter(_validity.valid_at(*_validity.frame_keys(), pl.lit(low), pl.lit(high)))


def around(
    facts: pl.DataFrame, entity: str, *, direction: Literal["both", "outgoing", "incoming"] = "both"
) -> pl.DataFrame:
    """Keep the rows of a facts frame around one entity, by the rule of :meth:`KnowledgeGraph.query`.

    The rows come with the same ``direction`` column, in the same order (oldest first, an unknown start
    last), without reading the graph again. With ``both``, a fact from the entity to itself is outgoing
    only, once.

    Parameters
    ----------
    facts
        A frame of :func:`facts`.
    entity
        The entity's id.
    direction
        ``"outgoing"`` (the entity is the subject), ``"incoming"`` (it is the object) or ``"both"``.

    Returns
    -------
    polars.DataFrame
        The facts around the entity, with ``direction``.

    Examples
    --------
    >>> import kgtoolkit
    >>> from kgtoolkit.frames import facts
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    >>> _ = kg.add("billing", "calls", "my_api", valid_from="2026-01-05")
    >>> _ = kg.add("my_api", "url", "https://api.example")
    >>> rows = around(facts(kg), "my_api").select("predicate", "direction").rows()
    >>> rows
    [('calls', 'incoming'), ('uses_queue', 'outgoing'), ('url', 'outgoing')]
    >>> [(f.predicate, f.direction) for f in kg.query("my_api")] == rows
    True
    """
    if direction not in ("both", "outgoing", "incoming"):
        raise InvalidRequest(
            f"direction must be one of both, outgoing, incoming, not {direction!r}",
            field="direction",
            value=str(direction),
        )
    outgoing = pl.col("subject") == entity
    incoming = (pl.col("object") == entity) & ~pl.col("object_is_value")
    keep = {
        "outgoing": outgoing,
        "incoming": incoming & ~outgoing if direction == "both" else incoming,
        "both": outgoing | incoming,
    }[direction]
    side = (
        pl.lit("outgoing")
        if direction == "outgoing"
        else pl.lit("incoming")
        if direction == "incoming"
        else pl.when(outgoing).then(pl.lit("outgoing")).otherwise(pl.lit("incoming"))
    )
    return (
        facts.filter(keep)
        .with_columns(side.alias("direction"))
        .sort("start", "id", nulls_last=True, maintain_order=True)
    )

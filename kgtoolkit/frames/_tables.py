"""The other tables as frames: entities (with their aliases), aliases, memories."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from ..graph import KnowledgeGraph
from ..store import read_table

if TYPE_CHECKING:
    import pandas as pd

from ._schemas import ALIASES_SCHEMA, ENTITIES_SCHEMA, MEMORIES_SCHEMA, Backend, _moment, _out, _table


def entities(
    kg: KnowledgeGraph, *, type: str | None = None, backend: Backend = "polars"
) -> pl.DataFrame | pd.DataFrame:
    """Read every entity, with its aliases.

    Parameters
    ----------
    kg
        The graph.
    type
        Keep entities of this type.
    backend
        ``"polars"`` or ``"pandas"``.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        The columns of :data:`ENTITIES_SCHEMA`. ``properties`` stays JSON text
        (``pl.col("properties").str.json_decode()`` reads it).

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "works_at", "Acme", subject_type="person")
    >>> entities(kg, type="person")["name"].to_list()
    ['Ann']
    """
    frame = _table(read_table(kg, "entities"))
    alias_lists = _table(read_table(kg, "aliases")).group_by("entity_id").agg(pl.col("alias").sort().alias("aliases"))
    frame = frame.join(alias_lists.rename({"entity_id": "id"}), on="id", how="left").with_columns(
        _moment("created_at"), pl.col("aliases").fill_null(pl.lit([], pl.List(pl.String)))
    )
    if type is not None:
        frame = frame.filter(pl.col("type") == type)
    return _out(frame.cast(ENTITIES_SCHEMA).sort("id"), backend)  # type: ignore[arg-type]


def aliases(
    kg: KnowledgeGraph, *, entity: str | None = None, backend: Backend = "polars"
) -> pl.DataFrame | pd.DataFrame:
    """Read every alias, or those of one entity.

    Parameters
    ----------
    kg
        The graph.
    entity
        Keep the aliases of this entity.
    backend
        ``"polars"`` or ``"pandas"``.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        ``alias`` (normalised), ``name`` (as given) and the ``entity`` it names (:data:`ALIASES_SCHEMA`).

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("PostgreSQL", "is_a", "database"); _ = kg.alias("Postgres", "PostgreSQL")
    >>> aliases(kg).select("alias", "entity").rows()
    [('postgres', 'postgresql')]
    """
    frame = _table(read_table(kg, "aliases", entity=entity)).rename({"entity_id": "entity"})
    return _out(frame.cast(ALIASES_SCHEMA), backend)  # type: ignore[arg-type]


def memories(kg: KnowledgeGraph, *, backend: Backend = "polars") -> pl.DataFrame | pd.DataFrame:
    """Read every stored memory.

    Parameters
    ----------
    kg
        The graph.
    backend
        ``"polars"`` or ``"pandas"``.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        The columns of :data:`MEMORIES_SCHEMA`. ``metadata`` stays JSON text.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.remember("2026-03-02 design review: my_api will use Redis")
    >>> memories(kg).height
    1
    """
    frame = _table(read_table(kg, "memories")).with_columns(_moment("created_at"))
    return _out(frame.cast(MEMORIES_SCHEMA), backend)  # type: ignore[arg-type]

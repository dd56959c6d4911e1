"""The frames' column types (:data:`FACTS_SCHEMA` and friends) and the small steps every loader shares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import polars as pl

from .._errors import InvalidRequest
from ..store.engine import FACT_FRAME_COLUMNS

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


Backend = Literal["polars", "pandas"]
#: :func:`stream`'s backends: polars or pandas frames, or Arrow tables.
StreamBackend = Literal["polars", "pandas", "arrow"]


_MOMENT = pl.Datetime("us", "UTC")

#: :func:`facts`: one row per fact.
FACTS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(),
    "subject": pl.String(),
    "subject_name": pl.String(),
    "subject_type": pl.String(),
    "predicate": pl.String(),
    "object": pl.String(),
    "object_name": pl.String(),
    "object_type": pl.String(),
    "object_is_value": pl.Boolean(),
    "valid_from": pl.String(),
    "valid_to": pl.String(),
    "start": _MOMENT,
    "end": _MOMENT,
    "current": pl.Boolean(),
    "state": pl.String(),
    "kind": pl.String(),
    "confidence": pl.Float64(),
    "source": pl.String(),
    "source_closet": pl.String(),
    "recorded_at": _MOMENT,
    "invalidated_at": _MOMENT,
    "ended_by": pl.String(),
    "occurrence": pl.Int64(),
}
#: :func:`entities`: one row per entity, with its aliases.
ENTITIES_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(),
    "name": pl.String(),
    "type": pl.String(),
    "properties": pl.String(),
    "created_at": _MOMENT,
    "aliases": pl.List(pl.String()),
}
#: :func:`aliases`: one row per alias.
ALIASES_SCHEMA: dict[str, pl.DataType] = {"alias": pl.String(), "name": pl.String(), "entity": pl.String()}
#: :func:`memories`: one row per memory.
MEMORIES_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(),
    "text": pl.String(),
    "source": pl.String(),
    "created_at": _MOMENT,
    "metadata": pl.String(),
}


# The facts columns frames.facts reads (object_key is the store's de-duplication key: not shown).
_FACT_READ = FACT_FRAME_COLUMNS


def _moment(column: str) -> pl.Expr:
    return pl.col(column).str.to_datetime("%Y-%m-%dT%H:%M:%S%.fZ", time_unit="us", time_zone="UTC", strict=False)


def _out(frame: pl.DataFrame, backend: Backend) -> pl.DataFrame | pd.DataFrame:
    if backend == "polars":
        return frame
    if backend == "pandas":
        return frame.to_pandas(use_pyarrow_extension_array=False)

    raise InvalidRequest(f"backend must be 'polars' or 'pandas', not {backend!r}", field="backend", value=str(backend))


def _table(table: pa.Table) -> pl.DataFrame:
    """An Arrow table as a polars frame (``pl.from_arrow`` of a table is always a frame)."""
    import polars as pl

    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame

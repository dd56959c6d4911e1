"""The facts as a Hive-partitioned Parquet folder, written from :func:`kgtoolkit.frames.stream` in bounded memory:
:func:`export_partitioned`, for handing a big graph to engines built for more (polars, DuckDB, Spark)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._errors import InvalidRequest
from .._private import FOLDER_MODE, private_file
from .._time import TimeInput
from ..graph import KnowledgeGraph
from ..store import count_facts
from ..store.engine import os_failure
from ._formats import Progress

if TYPE_CHECKING:
    import polars as pl

__all__ = ["NULL_PARTITION", "PARTITIONS", "PartitionBy", "export_partitioned"]

PartitionBy = Literal["year", "month", "day"]
#: Each partitioning: the folder value of a fact's ``start`` (UTC), e.g. ``month=2014-01``.
PARTITIONS: dict[str, str] = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}
#: The folder of the facts without a start (an unknown start): the name Hive, Spark, DuckDB and polars read as null.
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def export_partitioned(
    kg: KnowledgeGraph,
    folder: str | os.PathLike[str],
    *,
    by: PartitionBy = "month",
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    current_only: bool = False,
    predicate: str | None = None,
    entity: str | None = None,
    batch_size: int = 100_000,
    progress: Progress | None = None,
) -> int:
    """Write the facts into a folder of Hive-partitioned Parquet, by the year, month or day of their start.

    The layout is ``folder/month=2014-01/part-00000.parquet``: one file per batch of
    :func:`kgtoolkit.frames.stream` and partition it touches, numbered in fact-id order. Facts without a
    start are in ``month=__HIVE_DEFAULT_PARTITION__`` (:data:`NULL_PARTITION`), which Hive readers read as
    null. The files hold the columns of :func:`kgtoolkit.frames.facts`, the instants as UTC timestamps.
    The partition column is in the folder names only; readers add it (``pl.scan_parquet(folder,
    hive_partitioning=True)``, DuckDB's ``read_parquet``, Spark's ``spark.read.parquet``). An export that
    matches no fact writes one empty file, so the folder still has the columns.

    The export is written into a hidden folder beside ``folder`` and renamed into place at the end: a
    failed or interrupted export leaves nothing that looks complete. Each batch is its own snapshot.

    Parameters
    ----------
    kg
        The graph.
    folder
        A new or empty folder. Nothing is overwritten.
    by
        ``"year"``, ``"month"`` or ``"day"`` of each fact's start (UTC).
    as_of, known_at, current_only, predicate, entity
        Filters, as :func:`kgtoolkit.frames.facts` takes them.
    batch_size
        Facts read at a time: the memory bound.
    progress
        Called as ``progress(done, total)`` while facts are written.

    Returns
    -------
    int
        The number of facts written.

    Raises
    ------
    InvalidRequest
        A ``by`` other than year, month or day; a ``folder`` that is a file or not empty; a bad filter.

    Examples
    --------
    >>> import kgtoolkit, tempfile, pathlib
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses", "Redis", valid_from="2026-03-02")
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "facts"
    >>> export_partitioned(kg, folder, by="month")
    1
    >>> sorted(p.name for p in folder.iterdir())
    ['month=2026-03']
    """
    import polars as pl

    from .. import frames

    if by not in PARTITIONS:
        raise InvalidRequest(
            f"partition by year, month or day (of each fact's start), not {by!r}", field="partition_by", value=str(by)
        )
    target = Path(folder).expanduser()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        what = "a file" if not target.is_dir() else "a folder that is not empty"
        raise InvalidRequest(
            f"{target} is {what}; a partitioned export writes a new folder: give a new or empty folder's path",
            field="folder",
            value=str(target),
        )
    batches = frames.stream(  # the filters are checked here, before anything is written
        kg,
        batch_size=batch_size,
        as_of=as_of,
        known_at=known_at,
        current_only=current_only,
        predicate=predicate,
        entity=entity,
    )
    total = (
        count_facts(kg, as_of=as_of, known_at=known_at, current_only=current_only, predicate=predicate, entity=entity)
        if progress
        else 0
    )
    if progress:
        progress(0, total)
    key = pl.col("start").dt.strftime(PARTITIONS[by]).fill_null(pl.lit(NULL_PARTITION))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    written = 0
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)  # a leftover of a process that had this id and was killed
        tmp.mkdir(mode=FOLDER_MODE)
        for number, batch in enumerate(batches):
            assert isinstance(batch, pl.DataFrame)
            if number == 0 and batch.height == 0:  # nothing matched: one empty file keeps the columns
                _write(batch, tmp / f"{by}={NULL_PARTITION}" / "part-00000.parquet")
            keyed = batch.with_columns(key.alias("_partition"))
            for (value,), part in keyed.partition_by("_partition", as_dict=True, include_key=False).items():
                _write(part, tmp / f"{by}={value}" / f"part-{number:05d}.parquet")
            written += batch.height
            if progress:
                progress(written, max(total, written))
        if target.exists():  # empty, checked above
            target.rmdir()
        os.rename(tmp, target)
    except OSError as exc:  # a full disk is disk_full; any other failure store_error (kgtoolkit.store.engine._failures)
        shutil.rmtree(tmp, ignore_errors=True)
        raise os_failure(exc, path=target, doing="write") from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if progress:
        progress(written, written)
    return written


def _write(frame: pl.DataFrame, path: Path) -> None:
    path.parent.mkdir(exist_ok=True, mode=FOLDER_MODE)
    frame.write_parquet(private_file(path))

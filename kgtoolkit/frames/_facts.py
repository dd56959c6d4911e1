"""Reading the facts as a frame (whole, among a few entities, by id, or streamed in batches) and writing a
frame of facts back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import polars as pl

from .._errors import InvalidRequest
from .._records import is_event
from .._time import OPEN_END, OPEN_START, TimeInput
from .._validity import Clock, state_expr
from .._window import ReadWindow
from ..graph import KnowledgeGraph
from ..store import ImportReport, facts_batches, facts_table, import_facts
from ..store import facts_among as _facts_among
from ..store import facts_with_ids as _facts_with_ids

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

from ._schemas import _FACT_READ, FACTS_SCHEMA, Backend, StreamBackend, _moment, _out, _table


def facts(
    kg: KnowledgeGraph,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
    backend: Backend = "polars",
) -> pl.DataFrame | pd.DataFrame:
    """Read every fact, or those matching the filters, with entity names and types resolved.

    ``start`` and ``end`` are the interval as UTC datetimes (a date-only end is the last microsecond of its
    day; null is open). ``kind`` is ``event`` or ``state`` (contract §12). ``state`` is the fact's state now:
    ``current``, ``scheduled`` or ``ended``, or ``occurred`` for an event (contract §4). ``current`` is true
    for a current fact. ``occurrence`` tells an event's repeats on one day apart (1, 2, …). The filters
    work as in :meth:`KnowledgeGraph.query`, in SQL.

    Parameters
    ----------
    kg
        The graph.
    as_of
        Keep facts valid at this date or instant (contract §4).
    known_at
        Answer as the graph stood at this moment (transaction time).
    predicate
        Keep facts of this predicate (a name or an alias).
    entity
        Keep facts with this entity as subject or object.
    current_only
        Keep current facts only (events are never current).
    backend
        ``"polars"`` or ``"pandas"``.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        One row per fact, the columns of :data:`FACTS_SCHEMA` (the same columns when empty).

    Raises
    ------
    NotFound
        An ``entity`` the graph does not have (an unknown ``predicate`` keeps no fact).
    InvalidDate
        A date it cannot read.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02", valid_to="2026-10-12")
    >>> facts(kg).select("subject", "object_name", "state").rows()
    [('my_api', 'Redis', 'ended')]
    """
    # One snapshot: the facts (in two id ranges read at once when the table is big) and the entities' names.
    window = ReadWindow(as_of, known_at, current_only=current_only)
    parts, (entity_table,) = facts_table(kg, _FACT_READ, window, predicate=predicate, entity=entity, names=True)
    shape = _shaper(kg, current_only)
    joined = _joiner(entity_table)

    def shaped(part: pa.Table) -> pl.DataFrame:
        return shape(joined(part))

    if len(parts) == 1:
        frame = shaped(parts[0])
    else:  # each part on its own thread: polars joins one part on one core
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=len(parts)) as pool:
            frame = pl.concat(list(pool.map(shaped, parts)))
    return _out(frame, backend)


def facts_among(kg: KnowledgeGraph, ids: Sequence[str], *, as_of: TimeInput | None = None) -> pl.DataFrame:
    """Read the facts among a few entities, valid in a window, without reading the rest of the graph.

    The facts kept have a subject among ``ids`` and an object among them or a value. The filter runs in
    SQL and only those entities' names are read. The answer equals ``valid_at(facts(kg), as_of)`` kept to
    those facts.

    Parameters
    ----------
    kg
        The graph.
    ids
        Entity ids.
    as_of
        A day, a month, a year or ``START/END``, as :func:`valid_at` reads it (default: every fact).

    Returns
    -------
    polars.DataFrame
        Rows of :func:`facts`.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses_queue", "Redis")
    >>> _ = kg.add("my_api", "calls", "billing")
    >>> _ = kg.add("my_api", "url", "https://api.example")
    >>> facts_among(kg, ["my_api", "redis"])["predicate"].to_list()
    ['uses_queue', 'url']
    """
    part, names = _facts_among(kg, _FACT_READ, list(ids), as_of=as_of)
    return _shaper(kg, False)(_joiner(names)(part))


def facts_with_ids(kg: KnowledgeGraph, ids: Iterable[int]) -> pl.DataFrame:
    """Read the facts of the given ids alone: a few facts for a table or a picture.

    Parameters
    ----------
    kg
        The graph.
    ids
        Fact ids. An id the graph does not have is left out.

    Returns
    -------
    polars.DataFrame
        Rows of :func:`facts`, by id.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> a = kg.add("my_api", "uses_queue", "Redis").fact.id
    >>> _ = kg.add("my_api", "calls", "billing")
    >>> facts_with_ids(kg, [a, 99])["object_name"].to_list()
    ['Redis']
    """
    part, names = _facts_with_ids(kg, _FACT_READ, list(ids))
    return _shaper(kg, False)(_joiner(names)(part))


def _joiner(entity_table: pa.Table) -> Callable[[pa.Table], pl.DataFrame]:
    """The step from a facts part to the same part with ``subject_name``, ``subject_type``, ``_object_name`` and
    ``object_type``, from ``entity_table`` (``id, name, type``) by left joins keeping the rows' (id) order."""
    names = _table(entity_table).select(
        pl.col("id").cast(pl.String), pl.col("name").cast(pl.String), pl.col("type").cast(pl.String)
    )
    subjects = names.rename({"id": "subject", "name": "subject_name", "type": "subject_type"})
    objects = names.rename({"id": "object_id", "name": "_object_name", "type": "object_type"})

    def joined(part: pa.Table) -> pl.DataFrame:
        return (
            _table(part)
            .join(subjects, on="subject", how="left", maintain_order="left")
            .join(objects, on="object_id", how="left", maintain_order="left")
        )

    return joined


def _shaper(kg: KnowledgeGraph, current_only: bool) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """The step from the stored facts columns (:data:`_FACT_READ`) with the entities' ``subject_name``,
    ``subject_type``, ``_object_name`` and ``object_type`` to a :func:`facts` frame, typed by
    :data:`FACTS_SCHEMA`; the graph's settings and the clock (now) are read once, here."""
    config = kg.config
    event = is_event(
        pl.lit(config.events),
        pl.col("predicate").is_in(sorted(config.event_predicates)),
        pl.col("valid_from"),
        pl.col("valid_to"),
        pl.col("recorded_at"),
        pl.col("invalidated_at"),
    ).fill_null(False)
    kind = pl.when(event).then(pl.lit("event")).otherwise(pl.lit("state"))
    state = state_expr(pl.col("from_us"), pl.col("to_us"), event, Clock.real())  # contract §4, one rule
    events_out = current_only and bool(config.events or config.event_predicates)  # an event is never current (§12)

    def shape(frame: pl.DataFrame) -> pl.DataFrame:
        """One read of stored facts as a :func:`facts` frame: kind, state and times computed, columns typed."""
        frame = frame.select(
            "id",
            "subject",
            "subject_name",
            "subject_type",
            "predicate",
            pl.coalesce("object_id", "object_value").alias("object"),
            pl.coalesce("_object_name", "object_value").alias("object_name"),
            "object_type",
            pl.col("object_id").is_null().alias("object_is_value"),
            "valid_from",
            "valid_to",
            pl.when(pl.col("from_us") != OPEN_START)
            .then(pl.col("from_us"))
            .cast(pl.Datetime("us"))
            .dt.replace_time_zone("UTC")
            .alias("start"),
            pl.when(pl.col("to_us") != OPEN_END)
            .then(pl.col("to_us"))
            .cast(pl.Datetime("us"))
            .dt.replace_time_zone("UTC")
            .alias("end"),
            (state == "current").alias("current"),
            state.alias("state"),
            kind.alias("kind"),
            "confidence",
            "source",
            "source_closet",
            _moment("recorded_at"),
            _moment("invalidated_at"),
            "ended_by",
            "occurrence",
        )
        if events_out:
            frame = frame.filter(pl.col("kind") == "state")
        return frame.cast(FACTS_SCHEMA)  # type: ignore[arg-type]

    return shape


def stream(
    kg: KnowledgeGraph,
    *,
    batch_size: int = 100_000,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
    backend: StreamBackend = "polars",
) -> Iterator[pl.DataFrame | pd.DataFrame | pa.Table]:
    """Read :func:`facts` in batches, in bounded memory: for a graph too big for one frame.

    Each batch has the columns and types of :func:`facts`, the rows in id order, so
    ``pl.concat(list(stream(kg, ...)))`` equals ``facts(kg, ...)``. The store reads one batch of fact ids
    at a time, the filters in SQL, each batch's entity names looked up by key. There is always at least one
    batch: an empty one when nothing matches, so the columns are known.

    **Consistency.** Each batch is its own snapshot, read when the loop asks for it. The filters, and the
    now that ``state`` is judged at, are fixed when :func:`stream` is called. Fact ids are never reused, so
    no fact comes twice. A fact added meanwhile comes in a later batch (on PostgreSQL, one whose transaction
    took its id before a fact already read committed may be missed). For one snapshot of a graph being
    written, read :func:`facts`.

    Parameters
    ----------
    kg
        The graph.
    batch_size
        At most this many facts per batch: the memory bound.
    as_of
        Keep facts valid at this date or instant (contract §4).
    known_at
        Answer as the graph stood at this moment (transaction time).
    predicate
        Keep facts of this predicate (a name or an alias).
    entity
        Keep facts with this entity as subject or object.
    current_only
        Keep current facts only (events are never current).
    backend
        ``"polars"``, ``"pandas"`` or ``"arrow"`` (``pyarrow.Table``).

    Yields
    ------
    polars.DataFrame or pandas.DataFrame or pyarrow.Table
        One batch of facts.

    Raises
    ------
    InvalidRequest
        A ``batch_size`` below 1, or a bad ``backend``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> for name in ("Redis", "SQLite", "Kafka"):
    ...     _ = kg.add("my_api", "uses", name)
    >>> [batch.height for batch in stream(kg, batch_size=2)]
    [2, 1]
    >>> pl.concat(list(stream(kg, batch_size=2))).equals(facts(kg))
    True
    """
    if backend not in ("polars", "pandas", "arrow"):
        raise InvalidRequest(
            f"backend must be 'polars', 'pandas' or 'arrow', not {backend!r}", field="backend", value=str(backend)
        )
    window = ReadWindow(as_of, known_at, current_only=current_only)
    batches = facts_batches(kg, _FACT_READ, window, batch_size=batch_size, predicate=predicate, entity=entity)
    shape = _shaper(kg, current_only)

    def frames() -> Iterator[pl.DataFrame | pd.DataFrame | pa.Table]:
        empty = True
        for batch, names in batches:
            frame = shape(_joiner(names)(batch))
            if frame.height:
                empty = False
                yield frame.to_arrow() if backend == "arrow" else _out(frame, backend)
        if empty:
            frame = pl.DataFrame(schema=FACTS_SCHEMA)
            yield frame.to_arrow() if backend == "arrow" else _out(frame, backend)

    return frames()


def to_store(
    kg: KnowledgeGraph,
    frame: pl.DataFrame | pd.DataFrame,
    *,
    on_error: Literal["raise", "skip"] = "raise",
    allow_commas: bool = False,
    comma_guard: bool = False,
    source: str | None = None,
) -> ImportReport:
    """Write a frame of facts into the graph by the rules of :meth:`KnowledgeGraph.add`, in one transaction.

    Facts already current are skipped. Names with commas are taken as written and counted in the
    warnings, as in every bulk import.

    Parameters
    ----------
    kg
        The graph.
    frame
        Facts with ``subject``, ``predicate`` and ``object`` (names, as ``add`` takes them), and optionally
        ``valid_from``, ``valid_to``, ``confidence``, ``source``, ``source_closet``, ``subject_type``,
        ``object_type``. A :func:`facts` frame works: its ``subject_name`` and ``object_name`` are used.
    on_error
        ``"raise"`` refuses the whole frame if a row is bad; ``"skip"`` writes the good rows.
    allow_commas
        The older spelling of the default: no comma guard, nothing counted.
    comma_guard
        Refuse names with commas as packed lists (contract §2).
    source
        The ``source`` of rows that name none.

    Returns
    -------
    ImportReport
        What was inserted, skipped and rejected.

    Raises
    ------
    kgtoolkit.InvalidRows
        A bad row, with ``on_error="raise"``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> to_store(kg, pl.DataFrame({"subject": ["a"], "predicate": ["uses"], "object": ["b"]})).inserted
    1
    """
    df = frame if isinstance(frame, pl.DataFrame) else pl.from_pandas(frame)
    if "subject_name" in df.columns and "object_name" in df.columns:  # a facts() frame: use the spellings
        df = df.drop([c for c in ("subject", "object") if c in df.columns]).rename(
            {"subject_name": "subject", "object_name": "object"}
        )
    report, _ = import_facts(
        kg, df, on_error=on_error, allow_commas=allow_commas, comma_guard=comma_guard, source=source
    )
    return report

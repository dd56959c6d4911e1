"""Reading the facts as a frame (whole, among a few entities, by id, or streamed in batches) and writing a
frame of facts back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import polars as pl

from .. import _validity
from .._errors import InvalidRequest
from .._records import DiffBy, is_event
from .._time import OPEN_END, OPEN_START, TimeInput, parse_window
from .._validity import Clock, frame_keys, state_expr
from ..graph import KnowledgeGraph
from ..store import ImportReport, facts_batches, facts_table, import_facts, read_table
from ..store import facts_among as _facts_among
from ..store import facts_with_ids as _facts_with_ids
from ..store.engine import FACT_FRAME_COLUMNS

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd
    import pyarrow as pa
    import rustworkx as rx

__all__ = [
    "ALIASES_SCHEMA",
    "DIFF_SCHEMA",
    "EDGE_ATTRIBUTES",
    "ENTITIES_SCHEMA",
    "FACTS_SCHEMA",
    "MEMORIES_SCHEMA",
    "aliases",
    "around",
    "diff",
    "entities",
    "facts",
    "facts_among",
    "facts_with_ids",
    "memories",
    "named_entities",
    "stream",
    "to_networkx",
    "to_rustworkx",
    "to_store",
    "valid_at",
]

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
    parts, (entity_table,) = facts_table(
        kg,
        _FACT_READ,
        as_of=as_of,
        known_at=known_at,
        predicate=predicate,
        entity=entity,
        current_only=current_only,
        names=True,
    )
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
    batches = facts_batches(
        kg,
        _FACT_READ,
        batch_size=batch_size,
        as_of=as_of,
        known_at=known_at,
        predicate=predicate,
        entity=entity,
        current_only=current_only,
    )
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
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("my_api", "uses", "Redis", valid_from="2026-01-01", valid_to="2026-03-31")
    >>> valid_at(facts(kg), "2026-03").height, valid_at(facts(kg), "2026-04-01").height
    (1, 0)
    """
    if as_of in (None, ""):
        return facts
    if isinstance(as_of, str) and "/" in as_of:  # an ISO 8601 interval, START/END: facts overlapping it
        start, _, end = as_of.partition("/")
        low, high = parse_window(start, field="as_of").lo, parse_window(end, field="as_of").hi
        if high < low:
            raise InvalidRequest(f"the window {as_of!r} ends before it starts", field="as_of", value=as_of)
    else:
        window = parse_window(as_of, field="as_of")
        low, high = window.lo, window.hi
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


#: :func:`diff`: one row per change (contract §11); ``old_*`` empty for ``began``, ``new_*`` for ``ended``. A
#: replaced holder of a one-holder predicate has another ``old_subject`` and ``new_subject`` (``subject`` is the new).
DIFF_SCHEMA: dict[str, pl.DataType] = {
    "kind": pl.String(),
    "at": pl.String(),
    "subject": pl.String(),
    "predicate": pl.String(),
    "old_id": pl.Int64(),
    "old_subject": pl.String(),
    "old_object": pl.String(),
    "old_object_name": pl.String(),
    "old_valid_from": pl.String(),
    "old_valid_to": pl.String(),
    "new_id": pl.Int64(),
    "new_subject": pl.String(),
    "new_object": pl.String(),
    "new_object_name": pl.String(),
    "new_valid_from": pl.String(),
    "new_valid_to": pl.String(),
}


def diff(
    kg: KnowledgeGraph,
    start: TimeInput,
    end: TimeInput,
    *,
    entity: str | None = None,
    predicates: Sequence[str] | None = None,
    by: DiffBy = "valid",
    backend: Backend = "polars",
    renewals: bool = True,
) -> pl.DataFrame | pd.DataFrame:
    """List what changed between two dates as a frame: :meth:`KnowledgeGraph.diff`, in time order.

    Parameters
    ----------
    kg
        The graph.
    start, end
        The window, both included (a day, a month or a year means all of it).
    entity
        Keep changes of facts about this entity (either side).
    predicates
        Keep changes of these predicates.
    by
        ``"valid"`` (what changed in the world) or ``"known"`` (what the graph learned: recorded times).
    backend
        ``"polars"`` or ``"pandas"``.
    renewals
        Show a renewal (contract §11) as one ``renewed`` change. False shows its end and start apart.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        One row per change (:data:`DIFF_SCHEMA`): ``kind`` is ``began``, ``ended``, ``replaced``,
        ``renewed`` or ``occurred``.

    Raises
    ------
    NotFound
        An ``entity`` or predicate the graph does not have.
    InvalidDate
        A date it cannot read.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("api", "uses", "Redis", valid_from="2026-01-05")
    >>> _ = kg.supersede("api", "uses", "Redis", "SQLite", at="2026-03-02")
    >>> diff(kg, "2026-03", "2026-03").select("kind", "at", "old_object_name", "new_object_name").rows()
    [('replaced', '2026-03-02', 'Redis', 'SQLite')]
    """
    changes = kg.diff(start, end, entity=entity, predicates=predicates, by=by, limit=None, renewals=renewals).changes
    rows: dict[str, list[object]] = {column: [] for column in DIFF_SCHEMA}
    for c in changes:
        rows["kind"].append(c.kind)
        rows["at"].append(c.at)
        rows["subject"].append(c.subject)
        rows["predicate"].append(c.predicate)
        for side, fact in (("old", c.old), ("new", c.new)):
            rows[f"{side}_id"].append(None if fact is None else fact.id)
            rows[f"{side}_subject"].append(None if fact is None else fact.subject)
            rows[f"{side}_object"].append(None if fact is None else fact.object)
            rows[f"{side}_object_name"].append(None if fact is None else fact.object_name)
            rows[f"{side}_valid_from"].append(None if fact is None else fact.valid_from)
            rows[f"{side}_valid_to"].append(None if fact is None else fact.valid_to)
    return _out(pl.DataFrame(rows, schema=DIFF_SCHEMA), backend)


# ---------------------------------------------------------------------- graph export (contract §12)

#: The attributes of each edge of :func:`to_networkx` and :func:`to_rustworkx`: the fact.
EDGE_ATTRIBUTES = ("id", "predicate", "label", "valid_from", "valid_to", "state", "kind", "confidence", "source")


def _snapshot(
    kg: KnowledgeGraph, as_of: TimeInput | None, during: Sequence[TimeInput] | None, predicates: Sequence[str] | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The facts between two entities valid at ``as_of``, overlapping ``during``, or current state facts and
    events that have occurred (the traversal's time rule, contract §11), as (edges, nodes) frames."""
    from .._errors import IntervalOrder, InvalidRequest, NotFound

    if during is not None:
        if as_of not in (None, ""):
            raise InvalidRequest("give as_of or during, not both", field="during", value=str(during))
        if isinstance(during, (str, bytes)) or len(during) != 2:
            raise InvalidRequest("during takes two dates, (start, end)", field="during", value=str(during))
        lo, hi = parse_window(during[0], field="during").lo, parse_window(during[1], field="during").hi
        if hi < lo:
            raise IntervalOrder(
                f"during ends ({during[1]}) before it starts ({during[0]})", field="during", value=str(during[1])
            )
    wanted: list[str] | None = None
    labels = kg.predicate_labels()
    if predicates is not None:
        if isinstance(predicates, str):
            predicates = [predicates]
        wanted = [kg.resolve_predicate(p) for p in predicates]
        missing = [p for p, w in zip(predicates, wanted, strict=True) if w not in labels]
        if missing:
            raise NotFound(
                f"no fact of the graph has the predicate {missing[0]!r}; kgtoolkit predicates lists them",
                field="predicates",
                value=missing[0],
            )
        if not wanted:
            raise InvalidRequest(
                "predicates is empty: name at least one, or leave it out for every predicate", field="predicates"
            )
    if during is not None:
        frame = facts(kg)
        assert isinstance(frame, pl.DataFrame)
        frame = frame.filter(_validity.valid_at(*frame_keys(), pl.lit(lo), pl.lit(hi)))
    elif as_of not in (None, ""):
        frame = facts(kg, as_of=as_of)
        assert isinstance(frame, pl.DataFrame)
    else:  # a current state fact or an event that has occurred, at any date (the walk's rule)
        frame = facts(kg)
        assert isinstance(frame, pl.DataFrame)
        clock = Clock.real()
        event = pl.col("kind") == "event"
        frame = frame.filter(_validity.walked(*frame_keys(), pl.lit(clock.now), pl.lit(clock.day_last), event))
    frame = frame.filter(~pl.col("object_is_value"))
    if wanted is not None:
        frame = frame.filter(pl.col("predicate").is_in(wanted))
    edges = frame.select(
        "subject",
        "object",
        "id",
        "predicate",
        pl.col("predicate").replace_strict(labels, default=pl.col("predicate"), return_dtype=pl.String).alias("label"),
        "valid_from",
        "valid_to",
        "state",
        "kind",
        "confidence",
        "source",
    )
    return edges, named_entities(frame)


def named_entities(facts: pl.DataFrame) -> pl.DataFrame:
    """List the entities a facts frame names, each once, in the order first named.

    Each entity is named and typed as the first fact naming it says (by fact id, its subject before its
    object). A value object, such as an email, names no entity.

    Parameters
    ----------
    facts
        A frame of :func:`facts`.

    Returns
    -------
    polars.DataFrame
        ``id``, ``name`` and ``type``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team", object_type="company")
    >>> _ = kg.add("Payments Team", "email", "pay@acme.example")
    >>> named_entities(facts(kg)).rows()
    [('billing', 'billing', 'unknown'), ('payments_team', 'Payments Team', 'company')]
    """
    return (
        pl.concat(
            [
                facts.select(
                    pl.col("id").alias("_fact"),
                    pl.lit(0).alias("_side"),
                    pl.col("subject").alias("id"),
                    pl.col("subject_name").alias("name"),
                    pl.col("subject_type").alias("type"),
                ),
                facts.filter(~pl.col("object_is_value")).select(
                    pl.col("id").alias("_fact"),
                    pl.lit(1).alias("_side"),
                    pl.col("object").alias("id"),
                    pl.col("object_name").alias("name"),
                    pl.col("object_type").alias("type"),
                ),
            ]
        )
        .sort("_fact", "_side", nulls_last=True)
        .unique("id", keep="first", maintain_order=True)
        .select("id", "name", "type")
    )


def to_networkx(
    kg: KnowledgeGraph,
    *,
    as_of: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    predicates: Sequence[str] | None = None,
) -> nx.MultiDiGraph:
    """Build the graph at a date, or over a window, as a networkx ``MultiDiGraph``: one edge per fact.

    The facts are those a traversal walks (contract §11). Only facts between two entities are edges (a
    value such as an email is no node). Nodes are entity ids with ``name`` and ``type``. Each edge is keyed
    by the fact's id and carries :data:`EDGE_ATTRIBUTES`. :func:`to_rustworkx` builds the same graph faster.

    Parameters
    ----------
    kg
        The graph.
    as_of
        The facts valid at this date. Default: current state facts and the events that have occurred.
    during
        ``(start, end)``: the facts overlapping this window instead.
    predicates
        Keep facts of these predicates (names or aliases).

    Returns
    -------
    networkx.MultiDiGraph
        Entities as nodes, facts as edges.

    Raises
    ------
    NotFound
        A predicate the graph does not use.
    InvalidRequest
        Both ``as_of`` and ``during``, or a ``during`` that is not two moments.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team"); _ = kg.add("Payments Team", "reports_to", "Dana")
    >>> g = to_networkx(kg)
    >>> sorted(g.nodes(data="name")), [(u, v, d["predicate"]) for u, v, d in g.edges(data=True)]
    ([('billing', 'billing'), ('dana', 'Dana'), ('payments_team', 'Payments Team')], [('billing', 'payments_team', 'owned_by'), ('payments_team', 'dana', 'reports_to')])
    """
    import networkx as nx

    edges, nodes = _snapshot(kg, as_of, during, predicates)
    graph = nx.MultiDiGraph()
    graph.add_nodes_from((i, {"name": n, "type": t}) for i, n, t in nodes.iter_rows())
    attributes = edges.select(EDGE_ATTRIBUTES).to_dicts()
    graph.add_edges_from(
        zip(edges["subject"].to_list(), edges["object"].to_list(), edges["id"].to_list(), attributes, strict=True)
    )
    return graph


def to_rustworkx(
    kg: KnowledgeGraph,
    *,
    as_of: TimeInput | None = None,
    during: Sequence[TimeInput] | None = None,
    predicates: Sequence[str] | None = None,
) -> rx.PyDiGraph:
    """Build the graph of :func:`to_networkx` as a rustworkx ``PyDiGraph`` (a multigraph), several times faster.

    Node payloads are dicts ``{"id", "name", "type"}``; edge payloads are the fact's
    :data:`EDGE_ATTRIBUTES`. ``graph.attrs["index"]`` maps each entity id to its node index.

    Parameters
    ----------
    kg
        The graph.
    as_of, during, predicates
        As :func:`to_networkx` takes them.

    Returns
    -------
    rustworkx.PyDiGraph
        Entities as nodes, facts as edges.

    Raises
    ------
    NotFound
        A predicate the graph does not use.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("billing", "owned_by", "Payments Team"); _ = kg.add("Payments Team", "reports_to", "Dana")
    >>> g = to_rustworkx(kg)
    >>> [(g[a]["name"], d["predicate"], g[b]["name"]) for a, b, d in g.weighted_edge_list()]
    [('billing', 'owned_by', 'Payments Team'), ('Payments Team', 'reports_to', 'Dana')]
    """
    import rustworkx as rx

    edges, nodes = _snapshot(kg, as_of, during, predicates)
    graph = rx.PyDiGraph(multigraph=True)
    indexes = graph.add_nodes_from(nodes.to_dicts())
    index = nodes.select("id", pl.Series("_index", list(indexes), dtype=pl.Int64))
    ends = (
        edges.select("subject", "object")
        .join(index.rename({"id": "subject", "_index": "_from"}), on="subject", how="left", maintain_order="left")
        .join(index.rename({"id": "object", "_index": "_to"}), on="object", how="left", maintain_order="left")
    )
    graph.add_edges_from(
        list(zip(ends["_from"].to_list(), ends["_to"].to_list(), edges.select(EDGE_ATTRIBUTES).to_dicts(), strict=True))
    )
    graph.attrs = {"index": dict(zip(index["id"].to_list(), index["_index"].to_list(), strict=True))}
    return graph


def _table(table: pa.Table) -> pl.DataFrame:
    """An Arrow table as a polars frame (``pl.from_arrow`` of a table is always a frame)."""
    import polars as pl

    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame

"""The store's bulk half: whole tables out as Arrow, many facts in at once.

Part of the store (with ``_store.py``, the only modules holding SQL). Whole-table reads go into
Arrow in one read snapshot: small tables here through ``sqlite3``, big ones through ADBC's SQLite
driver in a separate reader process (:mod:`kgtoolkit._arrow_read`: one SQLite library per process
for a graph file). Writes normalise each *distinct* value
once (names, dates, types) and apply them to the whole frame with polars, then insert in one
transaction with ``executemany``. The rules are :meth:`KnowledgeGraph.add`'s, applied to a frame.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from ._errors import InvalidRequest, KGError, UnknownType
from ._names import COMMA_PREDICATES, clean_text, normalize_name, normalize_predicate
from ._records import GraphConfig, _Record
from ._arrow_read import HI, LO, read_arrow
from ._store import _MIGRATIONS, KnowledgeGraph, _time_filter
from ._time import OPEN_END, OPEN_START, TimeInput, now_text, parse_bound

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

__all__ = ["ImportReport", "InvalidRows", "import_facts", "read_table"]

Progress = Callable[[int, int], None]
Hook = Callable[[sqlite3.Cursor, list[str]], int]
Table = Literal["facts", "entities", "aliases", "memories"]

_FACT_COLUMNS = ("id", "subject", "predicate", "object_id", "object_value", "object_key", "valid_from", "valid_to",
                 "from_us", "to_us", "confidence", "source", "source_closet", "recorded_at", "invalidated_at",
                 "ended_by")
_COLUMNS: dict[str, tuple[str, ...]] = {
    "facts": _FACT_COLUMNS,
    "entities": ("id", "name", "type", "properties", "created_at"),
    "aliases": ("alias", "name", "entity_id"),
    "memories": ("id", "text", "source", "created_at", "metadata"),
}
_INDEXES = [s for s in _MIGRATIONS[0] if s.lstrip().upper().startswith("CREATE") and " INDEX " in s.upper()
            and "ON facts" in s]
_INSERT_FACT = ("INSERT INTO facts(subject, predicate, object_id, object_value, object_key, valid_from, valid_to, "
                "from_us, to_us, confidence, source, source_closet, recorded_at, invalidated_at, ended_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_CHUNK = 50_000


class InvalidRows(InvalidRequest):
    """An import refused whole because some rows break the rules.

    ``data["rows"]`` names each problem: ``line``, ``field``, ``value``, ``code`` (the error code
    ``add`` would raise: ``invalid_date``, ``interval_order``, ``comma_list``, ``invalid_name``,
    ``unknown_type``, ``invalid_request``) and ``reason``. A refused dump restore adds ``record``
    (``facts[3]``, ``entities[0]``, ``config``; ``line`` is a fact's id, else None) and the codes
    ``not_found`` (a reference to no entity of the dump) and ``alias_conflict``.
    """

    code = "invalid_rows"


@dataclasses.dataclass(frozen=True, slots=True)
class ImportReport(_Record):
    """What an import did. ``rejects``: one dict per problem (``line``, ``field``, ``value``, ``code``, ``reason``)."""

    rows: int
    inserted: int
    duplicates: int
    rejected: int
    entities_created: int
    types_upgraded: int
    rejects: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------- reads

_SMALL = 20_000  # up to about this many rows a read runs here through sqlite3 (cheaper than the reader's round trip)
_SPLIT_MIN = 200_000  # facts ids from which a whole-table read is split over two connections


def _memory_arrow(cur: sqlite3.Cursor, sql: str, params: dict[str, Any]) -> pa.Table:
    import pyarrow as pa

    cur.execute(sql, params)
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    return pa.table({name: [r[i] for r in rows] for i, name in enumerate(names)})


def _local(kg: KnowledgeGraph, cur: sqlite3.Cursor, table: str, key: str = "rowid") -> bool:
    """Whether to read ``table`` here through sqlite3: an in-memory graph, or a small table."""
    if str(kg.path) == ":memory:":
        return True
    lo, hi = cur.execute(f"SELECT min({key}), max({key}) FROM {table}").fetchone()
    return hi is None or hi - lo + 1 < _SMALL


def _arrow(kg: KnowledgeGraph, sql: str, params: dict[str, Any], table: str) -> pa.Table:
    """Run one read query on ``table`` and return Arrow: here for small tables, else in the reader process."""
    with kg._tx(write=False) as cur:
        if _local(kg, cur, table):
            return _memory_arrow(cur, sql, params)
    return read_arrow(kg._reader_uri, timeout=kg._timeout, queries=[_positional(sql, params)])[1][0]


def _read_facts(kg: KnowledgeGraph, columns: str, where: str, params: dict[str, Any],
                extra: Sequence[str] = ()) -> tuple[list[pa.Table], list[pa.Table]]:
    """The facts matching ``where`` (alias ``f``), in parts ordered by id, and each ``extra`` query: one snapshot.

    A big table is read by the reader process (:mod:`kgtoolkit._arrow_read`), as two id ranges on two
    connections at once (ADBC works without the GIL, so two cores scan it in about half the time)
    that see one snapshot; a small one here, through sqlite3.
    """
    ordered = f"SELECT {columns} FROM facts f WHERE 1{where} ORDER BY f.id"
    with kg._tx(write=False) as cur:
        if _local(kg, cur, "facts", "id"):
            return [_memory_arrow(cur, ordered, params)], [_memory_arrow(cur, sql, {}) for sql in extra]
    ranged = f"SELECT {columns} FROM facts f WHERE f.id >= :_lo AND f.id < :_hi{where} ORDER BY f.id"
    return read_arrow(kg._reader_uri, timeout=kg._timeout, queries=[(sql, ()) for sql in extra],
                      split=_positional(ranged, {**params, "_lo": LO, "_hi": HI}), split_min=_SPLIT_MIN)


def _positional(sql: str, params: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """Turn ``:name`` parameters into ``?`` (ADBC binds by position), keeping values as parameters."""
    import re

    values: list[Any] = []

    def swap(match: re.Match[str]) -> str:
        values.append(params[match.group(1)])
        return "?"

    return re.sub(r"(?<![:\w]):([a-z_]+)\b", swap, sql), tuple(values)


def read_table(
    kg: KnowledgeGraph,
    table: Table,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> pa.Table:
    """One table of the graph as Arrow, filters pushed down into SQL.

    For ``facts``: ``as_of``/``known_at``/``current_only`` as in :meth:`KnowledgeGraph.query`, a
    ``predicate``, and an ``entity`` (facts where it is subject or object). With ``known_at``, ends
    recorded after it are blanked, as the store would have shown them then. For the other tables,
    ``entity`` keeps that entity's rows.
    """
    if table not in _COLUMNS:
        raise InvalidRequest(f"no table {table!r}; choose one of {', '.join(_COLUMNS)}", field="table", value=table)
    if table == "facts":
        import pyarrow as pa

        parts, _ = _facts_table(kg, _COLUMNS["facts"], as_of=as_of, known_at=known_at, predicate=predicate,
                                entity=entity, current_only=current_only)
        return pa.concat_tables(parts)
    columns = ", ".join(f"f.{c}" for c in _COLUMNS[table])
    params: dict[str, Any] = {}
    where = ""
    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    if entity_id is not None:
        params["e"] = entity_id
        where = {"entities": " AND f.id = :e", "aliases": " AND f.entity_id = :e", "memories": " AND 0"}[table]
    key = "id" if table != "aliases" else "alias"
    return _typed(_arrow(kg, f"SELECT {columns} FROM {table} f WHERE 1{where} ORDER BY f.{key}", params, table), table)


def _facts_table(
    kg: KnowledgeGraph,
    columns: Sequence[str],
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
    extra: Sequence[str] = (),
) -> tuple[list[pa.Table], list[pa.Table]]:
    """:func:`read_table` of ``facts`` with a choice of ``columns``, in parts ordered by id (one, or two for a big
    table: see :func:`_read_facts`), and ``extra`` queries from the same snapshot."""
    import pyarrow as pa
    import pyarrow.compute as pc

    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    where, params, known = _time_filter(as_of, known_at, current_only)
    if predicate not in (None, ""):
        params["p"] = normalize_predicate(predicate)
        where += " AND f.predicate = :p"
    if entity_id is not None:
        params["e"] = entity_id
        where += " AND (f.subject = :e OR f.object_id = :e)"
    if known is not None:  # the blanking below needs these
        columns = [*columns, *[c for c in ("valid_to", "to_us", "invalidated_at", "ended_by") if c not in columns]]
    parts, others = _read_facts(kg, ", ".join(f"f.{c}" for c in columns), where, params, extra)
    typed = []
    for part in parts:
        part = _typed(part, "facts", columns)
        if known is not None and part.num_rows:
            later = pc.fill_null(pc.greater(part["invalidated_at"], pa.scalar(known)), False)
            for name, blank in (("valid_to", pa.nulls(1, pa.string())[0]), ("to_us", pa.scalar(OPEN_END)),
                                ("invalidated_at", pa.nulls(1, pa.string())[0]),
                                ("ended_by", pa.nulls(1, pa.string())[0])):
                i = part.schema.get_field_index(name)
                part = part.set_column(i, name, pc.if_else(later, blank, part[name]))
        typed.append(part)
    return typed, others


def _typed(table: pa.Table, name: str, columns: Sequence[str] | None = None) -> pa.Table:
    """Give every column its declared type (ADBC types an all-NULL column as int64)."""
    import pyarrow as pa

    ints = {"id", "from_us", "to_us"} if name == "facts" else set()
    names = list(columns or _COLUMNS[name])
    schema = pa.schema([(c, pa.int64() if c in ints else pa.float64() if c == "confidence" else pa.string())
                        for c in names])
    if table.num_rows == 0:
        return schema.empty_table()
    return pa.table({c: table[c].cast(schema.field(c).type) for c in names}, schema=schema)


# ---------------------------------------------------------------------- writes


@contextmanager
def _bulk_tx(kg: KnowledgeGraph) -> Iterator[sqlite3.Cursor]:
    """A write transaction with foreign-key checks off: the import checks every reference itself."""
    with kg._lock:
        kg._conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with kg._tx(write=True) as cur:
                yield cur
        finally:
            kg._conn.execute("PRAGMA foreign_keys = ON")


def _each_unique(series: pl.Series, fn: Callable[[str], Any]) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    """Apply ``fn`` once per distinct non-null value: the results, and the errors by value."""
    done: dict[str, Any] = {}
    failed: dict[str, str] = {}
    for value in series.drop_nulls().unique().to_list():
        try:
            done[value] = fn(value)
        except KGError as exc:
            failed[value] = (exc.code, exc.message)
    return done, failed


def import_facts(
    kg: KnowledgeGraph,
    frame: pl.DataFrame,
    *,
    on_error: Literal["raise", "skip"] = "raise",
    allow_commas: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
    before: Hook | None = None,
    after: Hook | None = None,
) -> tuple[ImportReport, pl.DataFrame]:
    """Add many facts at once with :meth:`KnowledgeGraph.add`'s rules; whole or nothing.

    ``frame`` has text columns ``subject, predicate, object`` and optionally ``valid_from,
    valid_to, confidence, source, source_closet, subject_type, object_type``, and ``line`` (the
    source line of each row, for the report). Current facts already in the graph (or earlier in the
    frame) and identical history rows are skipped, so importing twice changes nothing.

    ``on_error="raise"`` refuses the whole frame if any row is bad (:class:`InvalidRows` lists
    them); ``"skip"`` imports the good rows and reports the rest. Returns the report and the
    rejected rows (with ``line``, ``field``, ``value``, ``reason``).

    ``before`` and ``after`` run inside the same transaction, before and after the facts are
    written (a dump import adds its entities, aliases and memories there); each appends warnings to
    the list it is given and returns how many entity types it upgraded.
    """
    import polars as pl

    if on_error not in ("raise", "skip"):
        raise InvalidRequest(f"on_error must be 'raise' or 'skip', not {on_error!r}", field="on_error", value=str(on_error))
    missing = [c for c in ("subject", "predicate", "object") if c not in frame.columns]
    if missing:
        raise InvalidRequest(f"the input has no {', '.join(missing)} column (it has: {', '.join(frame.columns)}); "
                             "map the columns with the column options", field=missing[0])
    config = kg.config
    rows = _prepare(frame, config, allow_commas=allow_commas, source=source)
    rejects = _rejects(rows)
    if rejects.height and on_error == "raise":
        listed = rejects.head(20).iter_rows(named=True)
        detail = "; ".join(f"line {r['line']} {r['field']} {r['value']!r}: {r['reason']}" for r in listed)
        more = f" (and {rejects.height - 20} more)" if rejects.height > 20 else ""
        raise InvalidRows(f"{rejects.height} problem(s) in {rejects['line'].n_unique()} row(s), nothing imported: "
                          f"{detail}{more}. Fix them, or import the good rows with on_error='skip'",
                          rows=rejects.to_dicts())
    good = rows.filter(pl.col("_errors").list.len() == 0)
    warnings: list[str] = []
    with _bulk_tx(kg) as cur:
        entities_before = cur.execute("SELECT count(*) FROM entities").fetchone()[0]
        upgraded = before(cur, warnings) if before else 0
        report = _write(kg, cur, good, config, progress=progress)
        upgraded += after(cur, warnings) if after else 0
        created = cur.execute("SELECT count(*) FROM entities").fetchone()[0] - entities_before
    bad_lines = rejects["line"].n_unique() if rejects.height else 0
    return dataclasses.replace(report, rows=frame.height, rejected=bad_lines, rejects=tuple(rejects.to_dicts()),
                               entities_created=created, types_upgraded=report.types_upgraded + upgraded,
                               warnings=tuple(warnings) + report.warnings), rejects


def _prepare(frame: pl.DataFrame, config: GraphConfig, *, allow_commas: bool, source: str | None) -> pl.DataFrame:
    """Normalise a frame of raw rows; each row gets ``_errors``: a list of (field, value, reason)."""
    import polars as pl

    text_columns = ("subject", "predicate", "object", "valid_from", "valid_to", "source", "source_closet",
                    "subject_type", "object_type")
    df = frame.select(
        (pl.col("line").cast(pl.Int64) if "line" in frame.columns else pl.int_range(1, frame.height + 1, dtype=pl.Int64)).alias("line"),
        *[(pl.col(c).cast(pl.String) if c in frame.columns else pl.lit(None, pl.String)).alias(c) for c in text_columns[:3]],
        # Optional fields: blank means absent (an empty CSV cell), not an error.
        *[(pl.col(c).cast(pl.String).str.strip_chars().replace("", None) if c in frame.columns
           else pl.lit(None, pl.String)).alias(c) for c in text_columns[3:]],
        (pl.lit(None) if "confidence" not in frame.columns
         else pl.col("confidence").str.strip_chars().replace("", None) if frame.schema["confidence"] == pl.String
         else pl.col("confidence")).alias("confidence"),  # text: blank means absent, padding is no error
    )
    errors: list[pl.Expr] = []

    def problem(when: pl.Expr, column: str, value: pl.Expr, code: pl.Expr | str, reason: pl.Expr | str) -> None:
        errors.append(pl.when(when).then(pl.struct(
            field=pl.lit(column), value=value, code=pl.lit(code) if isinstance(code, str) else code,
            reason=pl.lit(reason) if isinstance(reason, str) else reason)))

    def failures(column: str, failed: dict[str, tuple[str, str]], *, only: pl.Expr | None = None) -> None:
        if failed:
            code = pl.col(column).replace_strict({v: c for v, (c, _) in failed.items()}, default=None, return_dtype=pl.String)
            reason = pl.col(column).replace_strict({v: m for v, (_, m) in failed.items()}, default=None, return_dtype=pl.String)
            problem(reason.is_not_null() if only is None else only & reason.is_not_null(), column, pl.col(column), code, reason)

    def checked(column: str, fn: Callable[[str], Any], out: str, dtype: Any) -> None:
        nonlocal df
        done, failed = _each_unique(df[column], fn)
        df = df.with_columns(pl.col(column).replace_strict(done, default=None, return_dtype=dtype).alias(out))
        failures(column, failed)

    def required(column: str) -> None:
        blank = pl.col(column).is_null() | (pl.col(column).str.strip_chars() == "")
        problem(blank, column, pl.col(column).fill_null(""), "invalid_name", f"{column} is empty")

    for column in ("subject", "predicate", "object"):
        required(column)
    checked("predicate", normalize_predicate, "_predicate", pl.String)
    checked("subject", lambda v: {"name": clean_text(v, field="subject"), "id": normalize_name(v, field="subject")}, "_subject",
            pl.Struct({"name": pl.String, "id": pl.String}))
    values = pl.col("_predicate").is_in(list(config.value_predicates))
    checked("object", lambda v: clean_text(v, field="object"), "_object_text", pl.String)
    entity_ids, entity_failed = _each_unique(df.filter(~values)["object"], lambda v: normalize_name(v, field="object"))
    df = df.with_columns(_value=values, _object_id=pl.col("object").replace_strict(entity_ids, default=None, return_dtype=pl.String))
    failures("object", entity_failed, only=~pl.col("_value"))
    checked("valid_from", lambda v: parse_bound(v, field="valid_from")._asdict(), "_from",
            pl.Struct({"text": pl.String, "key": pl.Int64}))
    checked("valid_to", lambda v: parse_bound(v, field="valid_to", end=True)._asdict(), "_to",
            pl.Struct({"text": pl.String, "key": pl.Int64}))
    for column in ("subject_type", "object_type"):
        checked(column, lambda v, c=column: _type(v, config, c), f"_{column}", pl.String)

    df = df.with_columns(
        _from_key=pl.col("_from").struct.field("key").fill_null(OPEN_START),
        _to_key=pl.col("_to").struct.field("key").fill_null(OPEN_END),
        _confidence=pl.col("confidence").cast(pl.Float64, strict=False).fill_null(1.0)
        if df["confidence"].dtype != pl.Null else pl.lit(1.0),
    )
    problem(pl.col("_to_key") < pl.col("_from_key"), "valid_to", pl.col("valid_to"), "interval_order",
            pl.format("valid_to {} is before valid_from {}", pl.col("_to").struct.field("text"),
                      pl.col("_from").struct.field("text")))
    bad_confidence = ~pl.col("_confidence").is_between(0.0, 1.0) | (pl.col("confidence").is_not_null()
                                                                    & pl.col("confidence").cast(pl.Float64, strict=False).is_null())
    problem(bad_confidence, "confidence", pl.col("confidence").cast(pl.String), "invalid_request",
            "confidence must be a number from 0 to 1")
    if config.comma_guard and not allow_commas:
        hint = "(a packed list?); import with allow_commas (--allow-commas) if it is a real name"
        problem(pl.col("subject").str.contains(",", literal=True), "subject", pl.col("subject"), "comma_list",
                f"subject contains a comma {hint}")
        problem(pl.col("object").str.contains(",", literal=True) & ~pl.col("_predicate").is_in(list(COMMA_PREDICATES)),
                "object", pl.col("object"), "comma_list", f"object contains a comma {hint}")
    default_source = source or "agent"
    df = df.with_columns(
        _errors=pl.concat_list([e for e in errors]).list.drop_nulls() if errors else pl.lit([]),
        _source=pl.col("source").fill_null(default_source),
        _closet=pl.col("source_closet"),
    )
    # Value objects compare case-insensitively as add does (str.casefold: "Straße" = "STRASSE"), once per value.
    folded, _ = _each_unique(df.filter(pl.col("_value"))["_object_text"], str.casefold)
    return df.with_columns(_object_key=pl.when(pl.col("_value")).then(
        pl.col("_object_text").replace_strict(folded, default=None, return_dtype=pl.String)).otherwise(pl.col("_object_id")))


def _type(value: str, config: GraphConfig, field: str) -> str | None:
    if not value.strip():
        return None
    key = normalize_name(value, field=field)
    if key not in config.types:
        raise UnknownType(f"{field} {value!r} is not in the vocabulary ({', '.join(sorted(config.types))})")
    return key


def _rejects(rows: pl.DataFrame) -> pl.DataFrame:
    import polars as pl

    bad = rows.filter(pl.col("_errors").list.len() > 0).select("line", "_errors").explode("_errors")
    if bad.height == 0:
        return pl.DataFrame(schema={"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String,
                                    "reason": pl.String})
    return bad.unnest("_errors").select("line", "field", pl.col("value").cast(pl.String), "code", "reason").sort("line")


def _write(kg: KnowledgeGraph, cur: sqlite3.Cursor, rows: pl.DataFrame, config: GraphConfig, *,
           progress: Progress | None) -> ImportReport:
    """Resolve names, create entities, drop duplicates and insert, inside the open transaction."""
    import polars as pl

    warnings: list[str] = []
    aliases = dict(cur.execute("SELECT alias, entity_id FROM aliases").fetchall())
    if _small(cur, rows.height, "entities"):  # read only the entities this frame names (primary key)
        named = set(pl.concat([rows["_subject"].struct.field("id"), rows["_object_id"]]).drop_nulls().unique().to_list())
        named |= {aliases[i] for i in named if i in aliases}
        existing = dict(cur.execute("SELECT id, type FROM entities WHERE id IN (SELECT value FROM json_each(?))",
                                    (json.dumps(sorted(named)),)).fetchall())
    else:
        existing = dict(cur.execute("SELECT id, type FROM entities").fetchall())

    def resolve(ids: pl.Expr) -> pl.Expr:  # exact id, then alias, else the id itself (a new entity)
        alias_hits = {a: e for a, e in aliases.items() if a not in existing}
        return ids.replace(alias_hits) if alias_hits else ids

    rows = rows.with_columns(
        _sid=resolve(pl.col("_subject").struct.field("id")),
        _sname=pl.col("_subject").struct.field("name"),
        _oid=pl.when(pl.col("_value")).then(None).otherwise(resolve(pl.col("_object_id"))),
    ).with_columns(_okey=pl.when(pl.col("_value")).then(pl.col("_object_key")).otherwise(pl.col("_oid")))

    # Entities: every id named, with its first spelling and first concrete type.
    named = pl.concat([
        rows.select(pl.col("line"), pl.lit(0).alias("side"), pl.col("_sid").alias("id"), pl.col("_sname").alias("name"),
                    pl.col("_subject_type").alias("type")),
        rows.filter(~pl.col("_value")).select(pl.col("line"), pl.lit(1).alias("side"), pl.col("_oid").alias("id"),
                                              pl.col("_object_text").alias("name"), pl.col("_object_type").alias("type")),
    ]).sort("line", "side")
    firsts = named.group_by("id", maintain_order=True).agg(
        pl.col("name").first(), pl.col("type").filter(pl.col("type") != "unknown").drop_nulls().first().alias("type"),
        pl.col("type").filter(pl.col("type") != "unknown").drop_nulls().unique().alias("types"))
    created_at = now_text()
    new = firsts.filter(~pl.col("id").is_in(list(existing)))
    cur.executemany("INSERT INTO entities(id, name, type, properties, created_at) VALUES (?, ?, ?, '{}', ?)",
                    ((r[0], r[1], r[2] or "unknown", created_at) for r in new.select("id", "name", "type").iter_rows()))
    upgrades = [(t, i) for i, t in firsts.filter(pl.col("id").is_in(list(existing)) & pl.col("type").is_not_null())
                .select("id", "type").iter_rows() if existing[i] == "unknown"]
    cur.executemany("UPDATE entities SET type = ? WHERE id = ?", upgrades)
    for entity_id, first_type, types in firsts.filter(pl.col("types").list.len() > 0).select("id", "type", "types").iter_rows():
        kept = existing.get(entity_id) if existing.get(entity_id, "unknown") != "unknown" else first_type
        clash = set(types) - {kept}
        if clash:
            warnings.append(f"{entity_id!r} kept its type {kept}; the input also said {', '.join(sorted(clash))}")

    # Duplicates: within the frame (the first of each current triple, of each identical ended fact), then
    # against the graph. A mask in row order: no unique/concat/sort round trip.
    rows = rows.with_columns(_current=pl.col("_to").is_null())
    ended = ~pl.col("_current")
    todo = rows.filter(pl.struct("_sid", "_predicate", "_okey", pl.when(ended).then(pl.col("_from_key")).alias("_f"),
                                 pl.when(ended).then(pl.col("_to_key")).alias("_t")).is_first_distinct())
    facts_before = cur.execute("SELECT count(*) FROM facts").fetchone()[0]
    if facts_before and todo.height:  # nothing to compare against in an empty graph
        sql = ("SELECT subject AS _sid, predicate AS _predicate, object_key AS _okey, from_us AS _from_key, "
               "to_us AS _to_key, valid_to IS NULL AS _current FROM facts")
        if todo.height * 20 < facts_before:  # a small import: its subjects' facts only (facts_subject index)
            cur.execute(f"{sql} WHERE subject IN (SELECT value FROM json_each(?))",
                        (json.dumps(todo["_sid"].unique().sort().to_list()),))
            present = pl.DataFrame(cur.fetchall(), orient="row", schema={
                "_sid": pl.String, "_predicate": pl.String, "_okey": pl.String, "_from_key": pl.Int64,
                "_to_key": pl.Int64, "_current": pl.Int64})
        else:
            present = pl.from_arrow(_present(kg, cur, sql))
        present = present.with_columns(pl.col("_current").cast(pl.Boolean))
        stored_ended = ~pl.col("_current")
        present = present.select("_sid", "_predicate", "_okey", "_current",
                                 pl.when(stored_ended).then(pl.col("_from_key")).alias("_f"),
                                 pl.when(stored_ended).then(pl.col("_to_key")).alias("_t"))
        todo = (todo.with_columns(pl.when(ended).then(pl.col("_from_key")).alias("_f"),
                                  pl.when(ended).then(pl.col("_to_key")).alias("_t"))
                .join(present, on=["_sid", "_predicate", "_okey", "_current", "_f", "_t"], how="anti",
                      nulls_equal=True, maintain_order="left")
                .drop("_f", "_t"))

    recorded = now_text()
    insert = todo.select(
        "_sid", "_predicate", "_oid",
        pl.when(pl.col("_value")).then(pl.col("_object_text")).alias("_ovalue"),
        "_okey", pl.col("_from").struct.field("text"), pl.col("_to").struct.field("text").alias("_to_text"),
        "_from_key", "_to_key", "_confidence", "_source", "_closet",
        pl.lit(recorded).alias("_recorded"),
        pl.when(pl.col("_to").is_not_null()).then(pl.lit(recorded)).alias("_invalidated"),
        pl.when(pl.col("_to").is_not_null()).then(pl.col("_source")).alias("_ended_by"),
    )
    total = insert.height
    rebuild = total > 10_000 and total >= facts_before  # building indexes afterwards is faster than as we go
    if rebuild:
        for statement in _INDEXES:
            cur.execute(f"DROP INDEX IF EXISTS {statement.split(' INDEX ')[1].split()[0]}")
    done = 0
    if progress:
        progress(0, total)
    for chunk in insert.iter_slices(_CHUNK):
        cur.executemany(_INSERT_FACT, chunk.iter_rows())
        done += chunk.height
        if progress:
            progress(done, total)
    if rebuild:
        for statement in _INDEXES:
            cur.execute(statement)
    return ImportReport(rows=rows.height, inserted=total, duplicates=rows.height - total, rejected=0,
                        entities_created=new.height, types_upgraded=len(upgrades), warnings=tuple(warnings))


def _small(cur: sqlite3.Cursor, rows: int, table: str) -> bool:
    """Whether ``rows`` is small next to ``table``: then read only the rows the import touches."""
    size = cur.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
    return rows * 20 < size


def _present(kg: KnowledgeGraph, cur: sqlite3.Cursor, sql: str) -> pa.Table:
    """A read of the facts during the import's write transaction, as Arrow.

    A big table is read by the reader process, which sees what is committed: the state the import
    started from, since its facts are not written yet and the write lock keeps every other writer out.
    """
    if _local(kg, cur, "facts", "id"):
        return _memory_arrow(cur, sql, {})
    return read_arrow(kg._reader_uri, timeout=kg._timeout, queries=[(sql, ())], pin=False)[1][0]

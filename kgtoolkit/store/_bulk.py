"""The store's bulk half: whole tables out as Arrow, many facts in at once.

Whole-table reads go into Arrow in one read snapshot through the backend (SQLite: here for small
tables, else in a reader process; PostgreSQL: ADBC). Writes apply the rules of ``add``
(:mod:`._rules`) once per *distinct* value of each column and the cross-field rules as polars
expressions over the whole frame, then load the rows in one transaction (SQLite: ``executemany``;
PostgreSQL: ``COPY``) while no other writer runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._errors import InvalidRequest, InvalidRows, KGError  # InvalidRows lived here: still importable
from .._names import COMMA_PATTERN, COMMA_PREDICATES, control_regex, normalize_predicate
from .._records import GraphConfig, ImportReport, is_event
from .._time import OPEN_END, OPEN_START, TimeInput, now_text, parse_transaction_time
from . import _predicates as _preds
from . import _queries as q
from . import _rollups
from ._backend import Backend, Cursor
from ._keyset import KeySet
from ._rules import COMMA_HINT, Name, Rules, comma_refusals, ends_before_start
from ._schema import FACT_COLUMNS, TABLE_COLUMNS
from ._sqlite import read_or_blank

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

    from ._operations import GraphStore

__all__ = [
    "ImportReport",
    "InvalidRows",
    "count_facts",
    "facts_batches",
    "facts_table",
    "import_facts",
    "read_table",
]

Progress = Callable[[int, int], None]
Hook = Callable[[Cursor, list[str]], int]
Table = Literal["facts", "entities", "aliases", "memories"]

_INSERTED = FACT_COLUMNS[1:]  # every column but the id, which the database assigns
_MALFORMED = "_malformed"  # a row a reader found malformed: the reason (kgtoolkit.io's MALFORMED)
_CHUNK = 50_000
_PAUSE_TEXT_INDEX = 1_000  # facts from which a load fills the full-text index after it, not row by row
#: Facts from which a load leaves the full-text index to the first word search (or ``kgtoolkit index``): filling it
#: is the biggest single cost of a big SQLite load (tokenising every fact's text), and many loads are never
#: searched by words before the next one.
_DEFER_TEXT_INDEX = 100_000


def read_table(
    kg: GraphStore,
    table: Table,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> pa.Table:
    """One table of the graph as Arrow (every stored column), filters pushed down into SQL.

    For ``facts``: ``as_of``/``known_at``/``current_only`` as in :meth:`GraphStore.query`, a
    ``predicate``, and an ``entity`` (facts where it is subject or object). With ``known_at``, ends
    recorded after it are blanked, as the store would have shown them then. For the other tables,
    ``entity`` keeps that entity's rows.
    """
    if table not in TABLE_COLUMNS:
        raise InvalidRequest(
            f"no table {table!r}; choose one of {', '.join(TABLE_COLUMNS)}", field="table", value=table
        )
    if table == "facts":
        import pyarrow as pa

        parts, _ = facts_table(
            kg,
            FACT_COLUMNS,
            as_of=as_of,
            known_at=known_at,
            predicate=predicate,
            entity=entity,
            current_only=current_only,
        )
        return pa.concat_tables(parts)
    columns = ", ".join(f"f.{c}" for c in TABLE_COLUMNS[table])
    params: dict[str, Any] = {}
    where = ""
    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    if entity_id is not None:
        params["e"] = entity_id
        where = {"entities": " AND f.id = :e", "aliases": " AND f.entity_id = :e", "memories": " AND FALSE"}[table]
    key = "id" if table != "aliases" else "alias"
    _, (result,) = kg._backend.read_arrow(
        [(f"SELECT {columns} FROM {table} f WHERE TRUE{where} ORDER BY f.{key}", params)]
    )
    return _typed(result, table)


def facts_table(
    kg: GraphStore,
    columns: Sequence[str],
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
    extra: Sequence[str] = (),
    names: bool = False,
) -> tuple[list[pa.Table], list[pa.Table]]:
    """:func:`read_table` of ``facts`` with a choice of ``columns``, in parts ordered by id (one, or two for a
    big SQLite table read on two connections at once), and ``extra`` queries from the same snapshot. ``names``:
    then (last) the ``id, name, type`` of the entities the facts name: with an ``entity`` filter, those alone
    (looked up by key); else the whole entities table."""
    where, params, known = _facts_filter(kg, as_of, known_at, predicate, entity, current_only)
    if known is not None:  # the blanking below needs these
        columns = [*columns, *[c for c in _BLANKED if c not in columns]]
    selected = ", ".join(f"f.{c}" for c in columns)
    split = (f"SELECT {selected} FROM facts f WHERE f.id >= :_lo AND f.id <= :_hi{where} ORDER BY f.id", params)
    queries: list[tuple[str, dict[str, Any]]] = [(sql, {}) for sql in extra]
    if names and "e" in params:  # one entity's facts: their entities by key, not the whole table
        queries.append(
            (
                "SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN ("
                f"SELECT f.subject FROM facts f WHERE TRUE{where} "
                f"UNION SELECT f.object_id FROM facts f WHERE TRUE{where})",
                params,
            )
        )
    elif names:
        queries.append(("SELECT id, name, type FROM entities", {}))
    parts, others = kg._backend.read_arrow(queries, split=split)
    return [_blank_later(_typed(part, "facts", columns), known) for part in parts], others


#: The columns of a fact's end, blanked in a read ``known_at`` a moment before the end was recorded.
_BLANKED = ("valid_to", "to_us", "invalidated_at", "ended_by")


def _facts_filter(
    kg: GraphStore,
    as_of: TimeInput | None,
    known_at: TimeInput | None,
    predicate: str | None,
    entity: str | None,
    current_only: bool,
) -> tuple[str, dict[str, Any], str | None]:
    """The facts filters as SQL conditions on alias ``f`` (each `` AND …``), their parameters, and the
    ``known_at`` instant whose later ends :func:`_blank_later` blanks (None without ``known_at``)."""
    entity_id = kg.resolve(entity) if entity not in (None, "") else None
    where, params, known = q.time_filter(as_of, known_at, current_only)
    if predicate not in (None, ""):
        assert predicate is not None
        normalize_predicate(predicate)  # a bad name is refused before the graph is read
        params["p"] = kg.resolve_predicate(predicate)  # through a predicate alias (contract §13)
        where += " AND f.predicate = :p"
    if entity_id is not None:
        params["e"] = entity_id
        where += " AND (f.subject = :e OR f.object_id = :e)"
    return where, params, known


def _blank_later(part: pa.Table, known: str | None) -> pa.Table:
    """A facts part as the store showed it at ``known``: the ends recorded after it blanked."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if known is None or not part.num_rows:
        return part
    later = pc.fill_null(pc.greater(part["invalidated_at"], pa.scalar(known)), False)
    for name, blank in (
        ("valid_to", pa.nulls(1, pa.string())[0]),
        ("to_us", pa.scalar(OPEN_END)),
        ("invalidated_at", pa.nulls(1, pa.string())[0]),
        ("ended_by", pa.nulls(1, pa.string())[0]),
    ):
        i = part.schema.get_field_index(name)
        part = part.set_column(i, name, pc.if_else(later, blank, part[name]))
    return part


def count_facts(
    kg: GraphStore,
    *,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> int:
    """How many facts match the filters of :func:`read_table` (one ``count(*)``, for a progress bar's total)."""
    where, params, _ = _facts_filter(kg, as_of, known_at, predicate, entity, current_only)
    rows = kg._backend.fetch_all(f"SELECT count(*) FROM facts f WHERE TRUE{where}", params)
    return int(rows[0][0])


def facts_batches(
    kg: GraphStore,
    columns: Sequence[str],
    *,
    batch_size: int,
    as_of: TimeInput | None = None,
    known_at: TimeInput | None = None,
    predicate: str | None = None,
    entity: str | None = None,
    current_only: bool = False,
) -> Iterator[tuple[pa.Table, pa.Table]]:
    """The facts matching the filters of :func:`read_table`, ``batch_size`` at a time in id order: for each batch,
    an Arrow table of ``columns`` and one of the entities it names (``id, name, type``: the subjects and objects
    of the batch only, looked up by key in sorted order; the entities table is never read whole), both read in
    one snapshot. Memory is bounded by one batch.

    Keyset reads: each batch is ``f.id > last id seen … ORDER BY f.id LIMIT batch_size``, its own snapshot; the
    filters (and the clock of ``current_only``) are fixed when this is called. Fact ids are never reused
    (contract §1), so no fact comes twice; a fact written meanwhile comes if its id is past the batches read (on
    PostgreSQL, a writer still running may commit an id lower than one already read: that fact is missed), and
    one changed meanwhile comes as the batch that reads it sees it.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidRequest(
            f"batch_size must be a whole number from 1, not {batch_size!r}", field="batch_size", value=str(batch_size)
        )
    where, params, known = _facts_filter(kg, as_of, known_at, predicate, entity, current_only)
    if known is not None:
        columns = [*columns, *[c for c in _BLANKED if c not in columns]]
    selected = ", ".join(f"f.{c}" for c in columns)
    batch_sql = f"FROM facts f WHERE f.id > :_after{where} ORDER BY f.id LIMIT :_limit"
    facts_sql = f"SELECT {selected} {batch_sql}"
    # The batch's entities: an IN list the engine sorts, so the lookups walk the entities' key in order.
    names_sql = (
        "SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN ("
        f"SELECT b.subject FROM (SELECT f.subject {batch_sql}) b "
        f"UNION SELECT c.object_id FROM (SELECT f.object_id {batch_sql}) c)"
    )
    backend = kg._backend

    def batches() -> Iterator[tuple[pa.Table, pa.Table]]:  # the filters above are checked now, not at the first batch
        after = -(2**63)
        while True:
            bounds = {**params, "_after": after, "_limit": batch_size}
            _, (batch, names) = backend.read_arrow([(facts_sql, bounds), (names_sql, bounds)])
            batch = _blank_later(_typed(batch, "facts", columns), known)
            if batch.num_rows:
                yield batch, _typed(names, "entities", ("id", "name", "type"))
            if batch.num_rows < batch_size:
                return
            after = batch["id"][-1].as_py()

    return batches()


def _typed(table: pa.Table, name: str, columns: Sequence[str] | None = None) -> pa.Table:
    """Give every column its declared type (a driver may type an all-NULL column otherwise)."""
    import pyarrow as pa

    ints = {"id", "from_us", "to_us", "occurrence"} if name == "facts" else set()
    names = list(columns or TABLE_COLUMNS[name])
    schema = pa.schema(
        [(c, pa.int64() if c in ints else pa.float64() if c == "confidence" else pa.string()) for c in names]
    )
    if table.num_rows == 0:
        return schema.empty_table()
    return pa.table({c: table[c].cast(schema.field(c).type) for c in names}, schema=schema)


# ---------------------------------------------------------------------- writes


def _each_unique(series: pl.Series, fn: Callable[[Any], Any]) -> tuple[dict[Any, Any], dict[Any, tuple[str, str]]]:
    """Apply ``fn`` (a rule) once per distinct non-null value: the results, and the errors by value."""
    done: dict[Any, Any] = {}
    failed: dict[Any, tuple[str, str]] = {}
    for value in series.drop_nulls().unique().to_list():
        try:
            done[value] = fn(value)
        except KGError as exc:
            failed[value] = (exc.code, exc.message)
    return done, failed


#: Text a vectorised name rule may take: printable ASCII only. There, NFKC changes nothing, case-folding is
#: lower-casing, the only whitespace is the space and no character is a control, so the polars expressions of
#: :func:`_ascii_name` give what :meth:`Rules.name` and :meth:`Rules.value` give; every other value (and every
#: value those expressions would refuse) goes through the rule itself, which also words the error.
_PRINTABLE_ASCII = "^[ -~]+$"


def _ascii_name(value: pl.Expr, limit: int, *, key: Literal["id", "casefold"]) -> tuple[pl.Expr, pl.Expr]:
    """(whether the vectorised rule applies, its ``{display, id}`` struct) for a column of distinct texts."""
    import polars as pl

    display = value.str.replace_all(" +", " ").str.strip_chars(" ")  # clean_text: whitespace collapsed, trimmed
    if key == "id":  # normalize_name of the display: case-folded, apostrophes dropped, separators -> "_"
        ident = (
            display.str.to_lowercase()
            .str.replace_all("'", "", literal=True)
            .str.strip_chars(" ")
            .str.replace_all("[ _]+", "_")
        )
        fits = ~ident.is_in(["", "_"])
    else:  # a value's key: the display case-folded
        ident = display.str.to_lowercase()
        fits = pl.lit(True)
    ok = value.str.contains(_PRINTABLE_ASCII) & (display.str.len_chars().is_between(1, limit)) & fits
    return ok, pl.struct(display=display, id=ident)


def import_facts(
    kg: GraphStore,
    frame: pl.DataFrame | Iterable[pl.DataFrame],
    *,
    on_error: Literal["raise", "skip"] = "raise",
    allow_commas: bool = False,
    comma_guard: bool = False,
    source: str | None = None,
    progress: Progress | None = None,
    before: Hook | None = None,
    after: Hook | None = None,
    dry_run: bool = False,
    rows: int | None = None,
) -> tuple[ImportReport, pl.DataFrame]:
    """Add many facts at once with :meth:`GraphStore.add`'s rules; whole or nothing.

    ``frame`` has text columns ``subject, predicate, object`` and optionally ``valid_from,
    valid_to, confidence, source, source_closet, subject_type, object_type, recorded_at, invalidated_at,
    ended_by, occurrence`` (who ended an ended fact, default its ``source``; which occurrence of an event), ``line``
    (the source line of each row, for the report) and ``_malformed`` (why the reader found the row malformed, which
    makes it a bad row). Current facts already in the graph (or earlier in the frame) and identical history rows are
    skipped, so importing twice changes nothing. An event's rows (contract §12) are occurrences: the rows of one
    event (triple and bounds) without an ``occurrence`` are its occurrences 1, 2, … in file order, each stored once,
    so a repeat is kept and a re-import still adds nothing.

    ``frame`` may also be an iterable of such frames (the batches of one big file, in order): they are checked
    and written one at a time in the one transaction, so memory is bounded by a batch, not the file; ``rows``
    (how many rows in all, when known or estimated) sizes the progress bar and the load's choices (indexes built
    after it, the full-text index deferred). Then duplicates are found by a 128-bit hash of
    each fact's key (see :class:`_Load`), the rejected rows come back with their own fields (``…_row`` where a
    name is taken), and with ``on_error="raise"`` every batch is still checked, so the refusal lists every bad row.

    ``on_error="raise"`` refuses the whole frame if any row is bad (:class:`InvalidRows` lists
    them); ``"skip"`` imports the good rows and reports the rest. Returns the report and the
    rejected rows (with ``line``, ``field``, ``value``, ``reason``).

    The comma guard (contract §2) is off for a bulk load, whatever the graph's setting: a curated file's names
    (``Washington, D.C.``) are what they are. The report's warnings count the names (and values) that hold a
    comma, which the guard would have refused. ``comma_guard=True`` turns it on: such rows are bad rows.
    ``allow_commas=True`` (what an export, a copy or a dump brings: names another graph accepted) keeps it off
    and counts nothing.

    ``before`` and ``after`` run inside the same transaction, before and after the facts are
    written (a dump import adds its entities, aliases and memories there); each appends warnings to
    the list it is given and returns how many entity types it upgraded.

    ``dry_run=True`` checks every row by the same rules and the graph's settings, and writes nothing:
    it only reads the settings, so it takes no write lock and works on a read-only graph. Bad rows are
    reported (or, with ``on_error="raise"``, refused) exactly as the import would; ``inserted``,
    ``duplicates``, ``entities_created`` and ``types_upgraded`` are 0, as nothing is looked up in the
    graph's facts (a real import skips the rows already there). ``before`` and ``after`` do not run.
    """
    import polars as pl

    if on_error not in ("raise", "skip"):
        raise InvalidRequest(
            f"on_error must be 'raise' or 'skip', not {on_error!r}", field="on_error", value=str(on_error)
        )
    if not dry_run:
        kg._backend.create()  # an import writes: a new graph is made first (a dry run reads the graph that is there)
    if not isinstance(frame, pl.DataFrame):
        return _import_batches(
            kg,
            iter(frame),
            on_error=on_error,
            guard=comma_guard and not allow_commas,
            count_commas=not allow_commas,
            source=source,
            progress=progress,
            before=before,
            after=after,
            dry_run=dry_run,
            rows=rows,
        )
    _check_columns(frame)
    backend = kg._backend

    def prepared(config: GraphConfig, aliases: dict[str, str]) -> tuple[pl.DataFrame, pl.DataFrame, Rules]:
        rules = Rules(config, comma_guard=comma_guard and not allow_commas, predicate_aliases=aliases)
        rows, rejects = _prepare(frame, rules, source=source)
        if rejects.height and on_error == "raise":
            raise _refused(rejects)
        return rows.filter(pl.col("_ok")), rejects, rules

    # The rules run before the write lock is taken (a bad file never holds up other writers), and again
    # inside it in the rare case that the graph's settings changed meanwhile.
    with read_or_blank(backend) as cur:
        config, aliases = q.read_config(cur), _preds.read_aliases(cur)
        stored_facts = cur.execute("SELECT max(id) FROM facts").fetchone()[0] is not None
    if stored_facts and frame.height >= _PAUSE_TEXT_INDEX and not dry_run:  # it will read the stored keys
        backend.expect_whole_reads()
    good, rejects, rules = prepared(config, aliases)
    commas = _CommaNames() if not rules.comma_guard and not allow_commas else None
    if commas is not None:
        commas.see(good)
    if dry_run:
        return _checked_only(frame.height, rejects, commas), rejects
    with backend.bulk_write() as cur:
        if q.read_config(cur) != config or _preds.read_aliases(cur) != aliases:
            good, rejects, rules = prepared(q.read_config(cur), _preds.read_aliases(cur))
        warnings: list[str] = []
        entities_before = cur.execute("SELECT count(*) FROM entities").fetchone()[0]
        upgraded = before(cur, warnings) if before else 0
        report = _write(backend, cur, good, rules, progress=progress)
        upgraded += after(cur, warnings) if after else 0
        created = cur.execute("SELECT count(*) FROM entities").fetchone()[0] - entities_before
    bad_lines = rejects["line"].n_unique() if rejects.height else 0
    return dataclasses.replace(
        report,
        rows=frame.height,
        rejected=bad_lines,
        rejects=tuple(rejects.to_dicts()),
        entities_created=created,
        types_upgraded=report.types_upgraded + upgraded,
        warnings=tuple(warnings) + report.warnings + (commas.warnings() if commas is not None else ()),
    ), rejects


def _checked_only(rows: int, rejects: pl.DataFrame, commas: _CommaNames | None) -> ImportReport:
    """The report of a dry run: ``rows`` checked, ``rejects`` (line, field, value, code, reason) found, nothing
    written."""
    return ImportReport(
        rows=rows,
        inserted=0,
        duplicates=0,
        rejected=rejects["line"].n_unique() if rejects.height else 0,
        entities_created=0,
        types_upgraded=0,
        rejects=tuple(rejects.to_dicts()),
        warnings=commas.warnings() if commas is not None else (),
    )


@dataclasses.dataclass
class _CommaNames:
    """The names and values with a comma that a load let in with the comma guard off (contract §2), for its
    report: how many distinct ones, and the first few."""

    SHOWN = 3
    names: set[str] = dataclasses.field(default_factory=set)
    first: list[str] = dataclasses.field(default_factory=list)

    def see(self, rows: pl.DataFrame) -> None:
        """Count the names of prepared rows (:func:`_prepare`'s) that the guard would have refused."""
        import polars as pl

        if not rows.height:
            return
        subject = pl.col("_subject").struct.field("display")
        subject_bad, object_bad = comma_refusals(
            subject.str.contains(COMMA_PATTERN),
            pl.col("_object_text").str.contains(COMMA_PATTERN),
            ~pl.col("_predicate").is_in(list(COMMA_PREDICATES)),
        )
        found = pl.concat(
            [
                rows.filter(subject_bad).select(subject.alias("name")),
                rows.filter(object_bad).select(pl.col("_object_text").alias("name")),
            ],
            how="vertical_relaxed",
        )["name"].unique(maintain_order=True)
        for name in found.to_list():
            if name not in self.names:
                self.names.add(name)
                if len(self.first) < self.SHOWN:
                    self.first.append(name)

    def warnings(self) -> tuple[str, ...]:
        if not self.names:
            return ()
        shown = ", ".join(repr(n) for n in self.first) + (", …" if len(self.names) > len(self.first) else "")
        return (
            f"{len(self.names):,} name(s) or value(s) hold a comma ({shown}), imported as written; "
            "comma_guard=True refuses them as packed lists",
        )


def _check_columns(frame: pl.DataFrame) -> None:
    missing = [c for c in ("subject", "predicate", "object") if c not in frame.columns]
    if missing:
        raise InvalidRequest(
            f"the input has no {', '.join(missing)} column (it has: {', '.join(frame.columns)}); "
            "map the columns with the column options",
            field=missing[0],
        )


def _refused(rejects: pl.DataFrame) -> InvalidRows:
    """The refusal of a load: the first :data:`InvalidRows.KEPT` problems in ``data["rows"]``, all of them counted
    (by code, set-wise) and in ``rejected_rows`` (what a rejects file receives)."""
    counts = rejects["code"].value_counts(sort=True)
    exc = InvalidRows.refusing(
        rejects.head(InvalidRows.KEPT).to_dicts(),
        _describe,
        rows=f"{rejects['line'].n_unique():,} row(s)",
        refused="nothing imported",
        fix="Fix them, or import the good rows with on_error='skip'; rejects=FILE writes every bad row to a CSV file",
        counts=dict(counts.iter_rows()),
    )
    exc.rejected_rows = rejects  # type: ignore[attr-defined]
    return exc


def _import_batches(
    kg: GraphStore,
    batches: Iterator[pl.DataFrame],
    *,
    on_error: Literal["raise", "skip"],
    guard: bool,
    count_commas: bool,
    source: str | None,
    progress: Progress | None,
    before: Hook | None,
    after: Hook | None,
    dry_run: bool,
    rows: int | None,
) -> tuple[ImportReport, pl.DataFrame]:
    """:func:`import_facts` of an iterable of frames: each batch checked and written in turn, in one transaction."""

    backend = kg._backend
    check = _Checked(on_error, source, _CommaNames() if count_commas and not guard else None)

    def rules_of(cur: Cursor) -> Rules:
        return Rules(q.read_config(cur), comma_guard=guard, predicate_aliases=_preds.read_aliases(cur))

    if dry_run:
        with read_or_blank(backend) as cur:
            rules = rules_of(cur)
        for batch in batches:
            check(batch, rules)
        found = check.refuse_if_bad()
        report = _checked_only(check.seen, found.select(_REJECT_FIELDS), check.commas)
        return report, found
    inserted = duplicates = upgraded = 0
    estimate = rows if rows is not None else 2 * _CHUNK
    with backend.bulk_write() as cur:
        rules = rules_of(cur)
        warnings: list[str] = []
        entities_before = cur.execute("SELECT count(*) FROM entities").fetchone()[0]
        facts_before = cur.execute("SELECT count(*) FROM facts").fetchone()[0]
        upgraded += before(cur, warnings) if before else 0
        seeds = (secrets.randbits(63), secrets.randbits(63))
        load = _Load(
            aliases=dict(cur.execute("SELECT alias, entity_id FROM aliases").fetchall()),
            known=_entity_types(backend, cur),
            seeds=seeds,
            present=_present_keys(backend, cur, seeds),
        )
        if progress:
            progress(0, estimate)
        with (
            backend.fact_indexes_deferred(cur, estimate, facts_before),
            backend.text_index_paused(cur, defer=estimate >= _DEFER_TEXT_INDEX),
            _rollups.paused(backend, cur) if estimate >= _PAUSE_TEXT_INDEX else contextlib.nullcontext(),
        ):
            for batch in batches:
                good = check(batch, rules)
                if check.bad and on_error == "raise":
                    continue  # nothing more is written: every batch is still checked, for the refusal
                done = _write(backend, cur, good, rules, progress=None, load=load)
                inserted += done.inserted
                duplicates += done.duplicates
                upgraded += done.types_upgraded
                if progress:
                    progress(check.seen, max(check.seen, estimate))
            if progress:  # the estimate (a CSV's, from its size) met the rows there were
                progress(check.seen, check.seen)
            found = check.refuse_if_bad()
            pending = estimate >= _DEFER_TEXT_INDEX
        upgraded += after(cur, warnings) if after else 0
        created = cur.execute("SELECT count(*) FROM entities").fetchone()[0] - entities_before
        if pending and backend.text_index_pending(cur):
            warnings.append(_TEXT_LATER.format(total=inserted))
    for entity_id, (kept, clash) in load.clashes.items():
        if clash - {kept}:  # the types the input gave beside the one kept
            warnings.append(
                f"{entity_id!r} kept its type {kept}; the input also said {', '.join(sorted(clash - {kept}))}"
            )
    report = ImportReport(
        rows=check.seen,
        inserted=inserted,
        duplicates=duplicates,
        rejected=found["line"].n_unique() if found.height else 0,
        entities_created=created,
        types_upgraded=upgraded,
        warnings=tuple(warnings) + (check.commas.warnings() if check.commas is not None else ()),
        rejects=tuple(found.select(_REJECT_FIELDS).to_dicts()),
    )
    return report, found


@dataclasses.dataclass
class _Checked:
    """The rules applied to each batch of a load in turn; the rejects of all of them, with the rows' own fields."""

    on_error: Literal["raise", "skip"]
    source: str | None
    commas: _CommaNames | None = None  # counted with the guard off
    bad: list[pl.DataFrame] = dataclasses.field(default_factory=list)
    seen: int = 0  # rows checked so far

    def __call__(self, batch: pl.DataFrame, rules: Rules) -> pl.DataFrame:
        """The batch's good rows, prepared (none once a row was refused with ``on_error="raise"``)."""
        import polars as pl

        _check_columns(batch)
        if "line" not in batch.columns:  # numbered across the batches, as one frame would be
            batch = batch.with_columns((self.seen + 1 + pl.int_range(pl.len(), dtype=pl.Int64)).alias("line"))
        prepared, rejected = _prepare(batch, rules, source=self.source)
        if rejected.height:
            fields = batch.select(
                "line", *[pl.col(c).cast(pl.String) for c in batch.columns if c not in ("line", _MALFORMED)]
            )
            self.bad.append(rejected.join(fields, on="line", how="left", suffix="_row"))
        self.seen += batch.height
        if self.bad and self.on_error == "raise":
            return prepared.clear()
        good = prepared.filter(pl.col("_ok"))
        if self.commas is not None:
            self.commas.see(good)
        return good

    def refuse_if_bad(self) -> pl.DataFrame:
        """Every rejected row so far; with ``on_error="raise"`` and any, the refusal (the rejects file gets their
        fields from ``rejected_rows``)."""
        import polars as pl

        if not self.bad:
            return _no_rejects()
        found = pl.concat(self.bad, how="diagonal_relaxed")
        if self.on_error == "raise":
            exc = _refused(found.select(_REJECT_FIELDS))
            exc.rejected_rows = found  # type: ignore[attr-defined]
            raise exc
        return found


#: The columns of a rejected row in a report.
_REJECT_FIELDS = ["line", "field", "value", "code", "reason"]
_TEXT_LATER = (
    "the full-text index of these {total:,} facts is filled by the first word search or `kgtoolkit index` "
    "(a few seconds per million facts), not by this import"
)


#: The key of each stored fact (:data:`_KEY`'s columns: ``_f``, ``_t`` null for a current fact), read by the
#: duplicate checks; a condition on ``f`` follows.
_STORED_KEYS = (
    "SELECT f.subject AS _sid, f.predicate AS _predicate, f.object_key AS _okey, f.valid_to IS NULL AS _current, "
    "CASE WHEN f.valid_to IS NOT NULL THEN f.from_us END AS _f, CASE WHEN f.valid_to IS NOT NULL THEN f.to_us END "
    "AS _t, f.occurrence AS _occ FROM facts f WHERE "
)


def _typed_keys(keys: pa.Table | list[tuple[Any, ...]]) -> pl.DataFrame:
    """Stored keys (:data:`_STORED_KEYS`' rows, as Arrow or tuples) as a frame of :data:`_KEY`'s columns and types."""
    import polars as pl

    frame = pl.DataFrame(keys, schema=list(_KEY), orient="row") if isinstance(keys, list) else pl.from_arrow(keys)
    assert isinstance(frame, pl.DataFrame)
    return frame.select(
        pl.col("_sid").cast(pl.String),
        pl.col("_predicate").cast(pl.String),
        pl.col("_okey").cast(pl.String),
        pl.col("_current").cast(pl.Boolean),
        pl.col("_f").cast(pl.Int64),
        pl.col("_t").cast(pl.Int64),
        pl.col("_occ").cast(pl.Int64),
    )


def _present_keys(backend: Backend, cur: Cursor, seeds: tuple[int, int]) -> KeySet:
    """The hashes (:class:`_Load`) of the key of every fact in the graph, read a million ids at a time."""
    import polars as pl
    import pyarrow as pa

    # Two subqueries, each one seek (min and max in one SELECT: SQLite scans a whole index).
    lo, hi = cur.execute("SELECT (SELECT min(id) FROM facts), (SELECT max(id) FROM facts)").fetchone()
    present = KeySet()
    if lo is None:
        return present
    hasher = _Load(aliases={}, known=pl.DataFrame(), seeds=seeds, present=present)
    step = 1_000_000
    for start in range(int(lo), int(hi) + 1, step):
        query = (f"{_STORED_KEYS}f.id >= :lo AND f.id < :hi", {"lo": start, "hi": start + step})
        _, (table,) = backend.read_arrow([query], cur=cur)
        hashed = hasher.hashes(_typed_keys(pa.Table.from_batches(table.to_batches(), schema=table.schema)))
        present.add(hashed["_h1"].to_numpy(), hashed["_h2"].to_numpy())
    return present


def _prepare(frame: pl.DataFrame, rules: Rules, *, source: str | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Apply the rules to a frame of raw rows: the rows, each with ``_ok`` (it breaks no rule), and the problems
    (``line, field, value, code, reason``, by line)."""
    import polars as pl

    text_columns = (
        "subject",
        "predicate",
        "object",
        "valid_from",
        "valid_to",
        "source",
        "source_closet",
        "subject_type",
        "object_type",
        "recorded_at",
        "invalidated_at",
        "ended_by",
        "occurrence",
    )
    df = frame.select(
        (
            pl.col("line").cast(pl.Int64)
            if "line" in frame.columns
            else pl.int_range(1, frame.height + 1, dtype=pl.Int64)
        ).alias("line"),
        *[
            (pl.col(c).cast(pl.String) if c in frame.columns else pl.lit(None, pl.String)).alias(c)
            for c in text_columns[:3]
        ],
        # Optional fields: blank means absent (an empty CSV cell), not an error. A date of spaces is not a
        # date, as for add (its rule trims a date itself).
        *[
            (
                (
                    pl.col(c).cast(pl.String)
                    if c in ("valid_from", "valid_to")
                    else pl.col(c).cast(pl.String).str.strip_chars()
                ).replace("", None)
                if c in frame.columns
                else pl.lit(None, pl.String)
            ).alias(c)
            for c in text_columns[3:]
        ],
        (pl.col("confidence") if "confidence" in frame.columns else pl.lit(None)).alias("confidence"),
        (pl.col(_MALFORMED) if _MALFORMED in frame.columns else pl.lit(None, pl.String)).alias(_MALFORMED),
    )
    # Each problem is a condition and what to report where it holds. They are gathered set-wise at the end, one
    # filter each over the bad rows alone (a list column of structs per row costs seconds per 100,000 rows).
    problems: list[tuple[pl.Expr, pl.Expr]] = []

    def problem(when: pl.Expr, column: str, value: pl.Expr, code: pl.Expr | str, reason: pl.Expr | str) -> None:
        report = pl.struct(
            field=pl.lit(column),
            value=value.cast(pl.String),
            code=pl.lit(code) if isinstance(code, str) else code,
            reason=pl.lit(reason) if isinstance(reason, str) else reason,
        )
        problems.append((when.fill_null(False), report))

    def failures(column: str, failed: dict[Any, tuple[str, str]], *, only: pl.Expr | None = None) -> None:
        if failed:
            keys = pl.col(column)
            code = keys.replace_strict({v: c for v, (c, _) in failed.items()}, default=None, return_dtype=pl.String)
            reason = keys.replace_strict({v: m for v, (_, m) in failed.items()}, default=None, return_dtype=pl.String)
            problem(reason.is_not_null() if only is None else only & reason.is_not_null(), column, keys, code, reason)

    def checked(
        column: str,
        rule: Callable[[Any], Any],
        out: str,
        dtype: Any,
        *,
        only: pl.Expr | None = None,
        fast: Callable[[pl.Expr], tuple[pl.Expr, pl.Expr]] | None = None,
    ) -> None:
        """``out`` = ``rule`` applied once per distinct value of ``column`` (in the rows ``only`` admits); ``fast``
        gives, as polars expressions, where a vectorised twin of the rule applies and what it gives there."""
        nonlocal df
        values = (
            (df[column] if only is None else df.select(pl.col(column).filter(only)).to_series()).drop_nulls().unique()
        )
        old, new = values.clear(), pl.Series(values=[], dtype=dtype)
        if fast is not None and values.len():
            ok, result = fast(pl.col(column))
            keyed = values.to_frame().with_columns(_ok=ok, _result=result)
            old, new = keyed.filter(pl.col("_ok"))[column], keyed.filter(pl.col("_ok"))["_result"]
            values = keyed.filter(~pl.col("_ok"))[column]
        done, failed = _each_unique(values, rule)
        if done:
            old = pl.concat([old, pl.Series(values=list(done), dtype=old.dtype)])
            new = pl.concat([new, pl.Series(values=list(done.values()), dtype=dtype)])
        mapped = pl.col(column).replace_strict(old, new, default=None, return_dtype=dtype)
        df = df.with_columns((mapped if only is None else pl.when(only).then(mapped)).alias(out))
        failures(column, failed, only=only)

    # A row the reader found malformed (a CSV/TSV row with fewer fields than the header: a file cut mid-row).
    problem(pl.col(_MALFORMED).is_not_null(), "fields", pl.lit(""), "invalid_request", pl.col(_MALFORMED))
    for column in ("subject", "predicate", "object"):  # a missing cell; a blank one fails its rule below
        problem(pl.col(column).is_null(), column, pl.lit(""), "invalid_name", f"{column} is empty")
    name = pl.Struct({"display": pl.String, "id": pl.String})
    checked("predicate", rules.predicate, "_predicate", pl.String)
    names = functools.partial(_ascii_name, limit=rules.config.max_name_length, key="id")
    checked("subject", lambda v: _fields(rules.name(v, "subject")), "_subject", name, fast=names)
    df = df.with_columns(_value=pl.col("_predicate").is_in(list(rules.config.value_predicates)))
    checked(
        "object",
        lambda v: _fields(rules.value(v)),
        "_ovalue",
        name,
        only=pl.col("_value"),
        fast=functools.partial(_ascii_name, limit=rules.config.max_value_length, key="casefold"),
    )
    checked("object", lambda v: _fields(rules.name(v, "object")), "_oname", name, only=~pl.col("_value"), fast=names)
    if rules.config.events or rules.config.event_predicates:  # an occurrence given its day ends on it (§12)
        declared = (
            pl.lit(True) if rules.config.events else pl.col("_predicate").is_in(list(rules.config.event_predicates))
        )
        occurrence = pl.col("valid_to").is_null() & pl.col("valid_from").str.strip_chars().ne("") & declared
        df = df.with_columns(valid_to=pl.when(occurrence).then(pl.col("valid_from")).otherwise(pl.col("valid_to")))
    bound = pl.Struct({"text": pl.String, "key": pl.Int64})
    checked("valid_from", lambda v: rules.start(v)._asdict(), "_from", bound)
    checked("valid_to", lambda v: rules.end(v)._asdict(), "_to", bound)
    for column in ("subject_type", "object_type"):
        checked(column, functools.partial(rules.entity_type, field=column), f"_{column}", pl.String)
    checked("confidence", rules.confidence, "_confidence", pl.Float64)
    checked("ended_by", functools.partial(rules.text, field="ended_by"), "_ended_by", pl.String)
    for column in ("source", "source_closet"):  # text hygiene and length, as add checks them (contract §2)
        checked(
            column,
            functools.partial(rules.text, field=column),
            f"_{column}_checked",
            pl.String,
            fast=functools.partial(_plain_text, limit=rules.config.max_value_length),
        )
    # An event's occurrence (contract §12), when the file says which: a whole number from 1.
    df = df.with_columns(_occurrence=pl.col("occurrence").cast(pl.Int64, strict=False))
    problem(
        pl.col("occurrence").is_not_null() & (pl.col("_occurrence").is_null() | (pl.col("_occurrence") < 1)),
        "occurrence",
        pl.col("occurrence"),
        "invalid_request",
        "occurrence must be a whole number from 1 (which occurrence of an event the row is)",
    )
    # Transaction times a file carries (an export of another graph): kept, so known_at answers as there.
    now = now_text()
    for column in ("recorded_at", "invalidated_at"):
        checked(column, functools.partial(parse_transaction_time, field=column, now=now), f"_{column}", pl.String)
    ended_row = pl.col("_to").is_not_null()
    problem(
        ended_row & (pl.col("_invalidated_at") < pl.col("_recorded_at").fill_null(pl.lit(now))),
        "invalidated_at",
        pl.col("invalidated_at"),
        "invalid_date",
        pl.format(
            "invalidated_at {} is before recorded_at {}; a fact's end cannot be learned before the fact",
            pl.col("_invalidated_at"),
            pl.col("_recorded_at").fill_null(pl.lit(now)),
        ),
    )
    # The event rule (contract §12) on the bounds as they will be stored: an event's rows are its occurrences.
    df = df.with_columns(
        _event=is_event(
            pl.lit(rules.config.events),
            pl.col("_predicate").is_in(list(rules.config.event_predicates)),
            pl.col("_from").struct.field("text"),
            pl.col("_to").struct.field("text"),
            pl.col("_recorded_at").fill_null(pl.lit(now)),  # what the import stores when a file gives none
            pl.col("_invalidated_at"),
        ).fill_null(False)
    )
    problem(
        (pl.col("_occurrence") > 1) & ~(pl.col("_event") & ended_row),
        "occurrence",
        pl.col("occurrence"),
        "invalid_request",
        pl.format(
            "occurrence {} of a state fact or an open one: only an event with an end (valid_to) occurs more than once",
            pl.col("_occurrence"),
        ),
    )
    df = df.with_columns(
        _object=pl.when(pl.col("_value")).then(pl.col("_ovalue")).otherwise(pl.col("_oname")),
        _from_key=pl.col("_from").struct.field("key").fill_null(OPEN_START),
        _to_key=pl.col("_to").struct.field("key").fill_null(OPEN_END),
        _confidence=pl.col("_confidence").fill_null(1.0),
    )
    problem(
        ends_before_start(pl.col("_from_key"), pl.col("_to_key")),
        "valid_to",
        pl.col("valid_to"),
        "interval_order",
        pl.format(
            "valid_to {} is before valid_from {}; an interval cannot end before it starts",
            pl.col("_to").struct.field("text"),
            pl.col("_from").struct.field("text"),
        ),
    )
    if rules.comma_guard:
        subject_bad, object_bad = comma_refusals(
            pl.col("subject").str.contains(COMMA_PATTERN),
            pl.col("object").str.contains(COMMA_PATTERN),
            ~pl.col("_predicate").is_in(list(COMMA_PREDICATES)),
        )
        problem(subject_bad, "subject", pl.col("subject"), "comma_list", f"subject contains a comma {COMMA_HINT}")
        problem(object_bad, "object", pl.col("object"), "comma_list", f"object contains a comma {COMMA_HINT}")
    default_source = rules.source(source)
    df = df.with_columns(
        _ok=~pl.any_horizontal(when for when, _ in problems) if problems else pl.lit(True),
        _source=pl.col("source").fill_null(default_source),
        _closet=pl.col("source_closet"),
        _object_text=pl.col("_object").struct.field("display"),
        _object_key=pl.col("_object").struct.field("id"),
        _object_id=pl.when(~pl.col("_value")).then(pl.col("_object").struct.field("id")),
    )
    if df["_ok"].all():
        return df, _no_rejects()
    bad = df.filter(~pl.col("_ok"))
    found = [bad.filter(when).select("line", report.alias("_problem")) for when, report in problems]
    rejects = pl.concat(found).sort("line", maintain_order=True).unnest("_problem")  # a row's problems in rule order
    return df, rejects.select("line", "field", pl.col("value").cast(pl.String), "code", "reason")


def _describe(problem: Mapping[str, Any]) -> str:
    """One bad row for a message: ``line 4 valid_from '20x1': valid_from '20x1' is not a date; ...``."""
    value = str(problem["value"])
    shown = value if len(value) <= 60 else value[:57] + "..."
    return f"line {problem['line']} {problem['field']} {shown!r}: {problem['reason']}"


def _plain_text(column: pl.Expr, *, limit: int) -> tuple[pl.Expr, pl.Expr]:
    """Where :meth:`Rules.text` surely passes a value as it is (at most ``limit`` characters, no control
    character; already trimmed), vectorised."""
    return (column.str.len_chars() <= limit) & ~column.str.contains(control_regex()), column


def _fields(name: Name) -> dict[str, str]:
    return {"display": name.display, "id": name.id}  # dataclasses.asdict is ten times slower


def _no_rejects() -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(
        schema={"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String, "reason": pl.String}
    )


@dataclasses.dataclass
class _Load:
    """What a load in batches carries from one batch to the next (:func:`_write` with ``load``): the aliases, the
    entities known so far (id → type), the type clashes seen, and the keys of the facts that count as present (the
    graph's before the load, then each batch's inserted ones) as two 64-bit hashes with random seeds, so that
    memory stays bounded by the batch (a 128-bit key: two different facts collide with odds under 1e-20 in a
    load of a billion facts, and the seeds are drawn per load, so no input can be made to collide)."""

    aliases: dict[str, str]
    known: pl.DataFrame  # id, type, made (by this load): every entity so far
    seeds: tuple[int, int]
    present: KeySet
    clashes: dict[str, tuple[str, set[str]]] = dataclasses.field(default_factory=dict)
    #: The rows each event (its key's two hashes) had in the batches before, numbered without an ``occurrence``.
    occurrences: pl.DataFrame | None = None

    def numbered(self, hashed: pl.DataFrame, n: pl.Series) -> pl.Series:
        """The numbers ``n`` of a batch's rows to number (``hashed``: their events' two hashes, null elsewhere)
        counted on from the earlier batches' rows of the same event, as one frame would be; the batch's rows then
        count for the batches after."""
        import polars as pl

        counts = hashed.drop_nulls().group_by("_h1", "_h2").agg(pl.len().cast(pl.Int64).alias("_m"))
        if self.occurrences is not None:
            before = hashed.join(self.occurrences, on=["_h1", "_h2"], how="left", maintain_order="left")["_m"]
            n = n + before.fill_null(0)
            counts = pl.concat([self.occurrences, counts]).group_by("_h1", "_h2").agg(pl.col("_m").sum())
        self.occurrences = counts
        return n

    def clash(self, entity_id: str, kept: str, types: set[str], clash: set[str]) -> None:
        """A batch gave ``entity_id`` the concrete ``types`` and it kept ``kept``: remembered when they clash (or
        clashed before), to be said once at the end."""
        if clash or entity_id in self.clashes:
            self.clashes[entity_id] = (kept, self.clashes.get(entity_id, (kept, set()))[1] | types)

    def existing(self, rows: pl.DataFrame) -> dict[str, str]:
        """The type of each known entity a batch names (by id, or by an alias of it)."""
        import polars as pl

        named = pl.concat([rows["_subject"].struct.field("id"), rows["_object_id"]]).drop_nulls().unique()
        targets = [self.aliases[i] for i in named.to_list() if i in self.aliases] if self.aliases else []
        ids = pl.concat([named, pl.Series(targets, dtype=pl.String)])
        return dict(self.known.filter(pl.col("id").is_in(ids.implode())).select("id", "type").iter_rows())

    def made(self, new: pl.DataFrame, upgrades: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """A batch made the entities ``new`` and gave types (``upgrades``: (type, id)): the next batches know them;
        the upgrades that count (a type given to an entity this load made is its first type, not an upgrade)."""
        import polars as pl

        made_here: set[str] = set()
        if upgrades:
            typed = pl.DataFrame(upgrades, schema={"new_type": pl.String, "id": pl.String}, orient="row")
            made_here = set(self.known.filter(pl.col("made") & pl.col("id").is_in(typed["id"].implode()))["id"])
            self.known = (
                self.known.join(typed, on="id", how="left")
                .with_columns(pl.coalesce("new_type", "type").alias("type"))
                .drop("new_type")
            )
        created = new.select("id", pl.col("type").fill_null("unknown"), pl.lit(True).alias("made"))
        self.known = pl.concat([self.known, created], rechunk=False)
        return [(t, i) for t, i in upgrades if i not in made_here]

    def new_facts(self, todo: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``todo`` (a batch, its own duplicates dropped) whose key is not present yet; they become
        present."""
        import polars as pl

        ended = pl.col("_to").is_not_null()
        hashed = self.hashes(
            todo.select(
                "_sid",
                "_predicate",
                "_okey",
                "_current",
                pl.when(ended).then(pl.col("_from_key")).alias("_f"),
                pl.when(ended).then(pl.col("_to_key")).alias("_t"),
                "_occ",
            )
        )
        first, second = hashed["_h1"].to_numpy(), hashed["_h2"].to_numpy()
        seen = self.present.contains(first, second)
        if seen.any():
            keep = ~seen
            todo, first, second = todo.filter(pl.Series(keep)), first[keep], second[keep]
        self.present.add(first, second)
        return todo

    def hashes(self, keys: pl.DataFrame) -> pl.DataFrame:
        """The two hashes of each row of ``keys`` (columns :data:`_KEY` in that order and type)."""
        import polars as pl

        key = pl.struct(*_KEY)
        return keys.select(key.hash(self.seeds[0]).alias("_h1"), key.hash(self.seeds[1]).alias("_h2"))


#: The key a fact is a duplicate by: current facts by triple, ended ones by triple, interval and occurrence (``_f``,
#: ``_t`` null for a current one; ``_occ`` 1 but for an event's repeats, contract §12).
_KEY = ("_sid", "_predicate", "_okey", "_current", "_f", "_t", "_occ")
#: An event whose rows a load numbers 1, 2, … (its occurrences): the triple and the interval.
_EVENT_KEY = ("_sid", "_predicate", "_okey", "_from_key", "_to_key")


def _write(
    backend: Backend,
    cur: Cursor,
    rows: pl.DataFrame,
    rules: Rules,
    *,
    progress: Progress | None,
    load: _Load | None = None,
) -> ImportReport:
    """Resolve names, create entities, drop duplicates and insert, inside the open transaction. With ``load``, one
    batch of a bigger load: the caller holds the index deferrals and reports progress, and what later batches need
    is kept in ``load``."""
    import polars as pl

    warnings: list[str] = []
    aliases = load.aliases if load is not None else dict(cur.execute("SELECT alias, entity_id FROM aliases").fetchall())
    existing = load.existing(rows) if load is not None else _existing_entities(backend, cur, rows, aliases)

    def resolve(ids: pl.Expr) -> pl.Expr:  # exact id, then alias, else the id itself (a new entity)
        alias_hits = {a: e for a, e in aliases.items() if a not in existing}
        return ids.replace(alias_hits) if alias_hits else ids

    rows = rows.with_columns(
        _sid=resolve(pl.col("_subject").struct.field("id")),
        _sname=pl.col("_subject").struct.field("display"),
        _oid=pl.when(pl.col("_value")).then(None).otherwise(resolve(pl.col("_object_id"))),
    ).with_columns(_okey=pl.when(pl.col("_value")).then(pl.col("_object_key")).otherwise(pl.col("_oid")))
    facts_before = cur.execute("SELECT count(*) FROM facts").fetchone()[0] if load is None else 0
    # The facts already stored, read while this process works on the entities (nothing writes facts before).
    stored = _stored_keys(backend, cur, rows, facts_before) if facts_before and rows.height else None

    # Entities: every id named, with its first spelling and first concrete type. A row counts where it names an
    # entity the graph lacks or gives a concrete type (most of a re-import counts nowhere).
    known = pl.Series(list(existing), dtype=pl.String).implode()

    def counting(ids: str, types: str) -> pl.Expr:
        return ~pl.col(ids).is_in(known) | (pl.col(types).is_not_null() & (pl.col(types) != "unknown"))

    named_rows = pl.concat(
        [
            rows.filter(counting("_sid", "_subject_type")).select(
                pl.col("line"),
                pl.lit(0).alias("side"),
                pl.col("_sid").alias("id"),
                pl.col("_sname").alias("name"),
                pl.col("_subject_type").alias("type"),
            ),
            rows.filter(~pl.col("_value") & counting("_oid", "_object_type")).select(
                pl.col("line"),
                pl.lit(1).alias("side"),
                pl.col("_oid").alias("id"),
                pl.col("_object_text").alias("name"),
                pl.col("_object_type").alias("type"),
            ),
        ]
    ).sort("line", "side")
    concrete = pl.col("type").filter(pl.col("type") != "unknown").drop_nulls()
    firsts = named_rows.group_by("id", maintain_order=True).agg(
        pl.col("name").first(), concrete.first().alias("type"), concrete.unique().alias("types")
    )
    created_at = now_text()
    new = firsts.filter(~pl.col("id").is_in(known))
    backend.insert_frame(
        cur,
        "entities",
        ("id", "name", "type", "properties", "created_at"),
        new.select(
            "id",
            "name",
            pl.col("type").fill_null("unknown"),
            pl.lit("{}").alias("properties"),
            pl.lit(created_at).alias("created_at"),
        ),
    )
    upgrades = [
        (q.upgraded_type(existing[i], t), i)
        for i, t in firsts.filter(pl.col("id").is_in(known) & pl.col("type").is_not_null())
        .select("id", "type")
        .iter_rows()
        if existing[i] == "unknown"
    ]
    if upgrades:
        cur.executemany("UPDATE entities SET type = ? WHERE id = ?", upgrades)
    for entity_id, first_type, types in (
        firsts.filter(pl.col("types").list.len() > 0).select("id", "type", "types").iter_rows()
    ):
        kept = q.upgraded_type(existing.get(entity_id, "unknown"), first_type)
        clash = set(types) - {kept}
        if load is not None:  # said once, at the end of the load, with every batch's types
            load.clash(entity_id, kept, set(types), clash)
        elif clash:
            warnings.append(f"{entity_id!r} kept its type {kept}; the input also said {', '.join(sorted(clash))}")
    if load is not None:
        upgrades = load.made(new, upgrades)

    # Duplicates: against the graph, then within the frame (the first of each current triple, of each identical
    # ended fact; a mask in row order, no unique/concat/sort round trip): the two commute, and a re-import has
    # nothing left to compare within. A batch of a load compares with the keys present before it, its own first.
    # An event's rows are its occurrences (contract §12): numbered 1, 2, … in file order (across batches) where the
    # file does not say which, so each is stored once and a re-import finds them all.
    rows = _numbered(rows.with_columns(_current=pl.col("_to").is_null()), load)
    ended = ~pl.col("_current")
    todo = _not_stored(rows, stored()) if stored is not None else rows
    todo = todo.filter(
        pl.struct(
            "_sid",
            "_predicate",
            "_okey",
            pl.when(ended).then(pl.col("_from_key")).alias("_f"),
            pl.when(ended).then(pl.col("_to_key")).alias("_t"),
            "_occ",
        ).is_first_distinct()
    )
    if load is not None and todo.height:  # against the facts present before this batch, by their hashes
        todo = load.new_facts(todo)

    # Labels (contract §13): each predicate's first spelling in the frame, for the predicates that have none yet.
    spellings = rows.group_by("_predicate", maintain_order=True).agg(pl.col("predicate").first())
    _preds.ensure_labels(cur, [(key, rules.predicate_label(raw, key)) for key, raw in spellings.iter_rows()])
    recorded = now_text()
    insert = todo.select(
        "_sid",
        "_predicate",
        "_oid",
        pl.when(pl.col("_value")).then(pl.col("_object_text")).alias("_ovalue"),
        "_okey",
        pl.col("_from").struct.field("text"),
        pl.col("_to").struct.field("text").alias("_to_text"),
        "_from_key",
        "_to_key",
        "_confidence",
        "_source",
        "_closet",
        pl.col("_recorded_at").fill_null(pl.lit(recorded)).alias("_recorded"),
        # An end given without invalidated_at is written with the fact: recorded when it was (contract §12).
        pl.when(pl.col("_to").is_not_null())
        .then(pl.col("_invalidated_at").fill_null(pl.col("_recorded_at").fill_null(pl.lit(recorded))))
        .alias("_invalidated"),
        pl.when(pl.col("_to").is_not_null()).then(pl.coalesce("_ended_by", "_source")).alias("_ended_by"),
        "_occ",
    )
    total = insert.height
    if load is not None:  # the caller holds the deferrals and reports progress
        for chunk in insert.iter_slices(_CHUNK):
            backend.insert_frame(cur, "facts", _INSERTED, chunk)
    else:
        _insert_facts(backend, cur, insert, facts_before, progress)
        if total >= _DEFER_TEXT_INDEX and backend.text_index_pending(cur):
            warnings.append(_TEXT_LATER.format(total=total))
    return ImportReport(
        rows=rows.height,
        inserted=total,
        duplicates=rows.height - total,
        rejected=0,
        entities_created=new.height,
        types_upgraded=len(upgrades),
        warnings=tuple(warnings),
    )


def _numbered(rows: pl.DataFrame, load: _Load | None) -> pl.DataFrame:
    """``rows`` with ``_occ``, each fact's occurrence: the file's for an event's row that gives one, else the event's
    rows numbered 1, 2, … in row order (after the batches before, with ``load``); 1 for every other fact.

    An event's rows are told apart by two 64-bit hashes of its key (as the duplicates are, contract §9): most events
    come once, so only the rows of an event that repeats within the batch are counted one by one."""
    import polars as pl

    repeat = pl.col("_event") & ~pl.col("_current")  # an event with an end: each row is an occurrence
    auto = rows.select((repeat & pl.col("_occurrence").is_null()).alias("_auto")).to_series()
    n = pl.repeat(None, rows.height, dtype=pl.Int64, eager=True).alias("_n")
    if auto.any():
        seeds = load.seeds if load is not None else (secrets.randbits(63), secrets.randbits(63))
        key = pl.struct(*_EVENT_KEY)
        hashed = rows.select(
            pl.when(auto).then(key.hash(seeds[0])).alias("_h1"), pl.when(auto).then(key.hash(seeds[1])).alias("_h2")
        )
        n = rows.select(pl.when(auto).then(pl.lit(1, pl.Int64)).alias("_n")).to_series()  # most events come once
        # The rows whose first hash comes again (a few: the repeats, and the odd 64-bit collision) are counted in row
        # order by both hashes; every other row is its event's only one in the batch.
        again = hashed.select(pl.col("_h1").is_duplicated() & pl.col("_h1").is_not_null()).to_series()
        if again.any():
            where = again.arg_true()
            counted = hashed[where].select(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("_h1", "_h2"))
            n = n.scatter(where, counted.to_series())
        if load is not None:
            n = load.numbered(hashed, n)
    occ = pl.when(repeat).then(pl.coalesce("_occurrence", "_n")).otherwise(pl.lit(1, pl.Int64))
    return rows.with_columns(n.alias("_n")).with_columns(_occ=occ.cast(pl.Int64)).drop("_n")


def _insert_facts(
    backend: Backend, cur: Cursor, insert: pl.DataFrame, facts_before: int, progress: Progress | None
) -> None:
    """Insert the finished rows, in chunks, with progress. A big load into a small graph builds the facts indexes
    after it (see the backends); a big load fills the full-text index in one statement after it, the per-row
    trigger paused (a small one keeps the trigger: cheaper than changing the schema), and a very big one leaves
    that fill to the first word search."""
    total, done = insert.height, 0
    if progress:
        progress(0, total)
    with (
        backend.fact_indexes_deferred(cur, total, facts_before),
        backend.text_index_paused(cur, defer=total >= _DEFER_TEXT_INDEX)
        if total >= _PAUSE_TEXT_INDEX
        else contextlib.nullcontext(),
        _rollups.paused(backend, cur) if total >= _PAUSE_TEXT_INDEX else contextlib.nullcontext(),
    ):
        for chunk in insert.iter_slices(_CHUNK):
            backend.insert_frame(cur, "facts", _INSERTED, chunk)
            done += chunk.height
            if progress:
                progress(done, total)


def _entity_types(backend: Backend, cur: Cursor) -> pl.DataFrame:
    """Every entity of the graph: ``id``, ``type``, ``made`` (False: not made by the load reading this)."""
    import polars as pl
    import pyarrow as pa

    _, (table,) = backend.read_arrow([("SELECT id, type FROM entities", {})], cur=cur)
    known = pl.from_arrow(pa.Table.from_batches(table.to_batches(), schema=table.schema))
    assert isinstance(known, pl.DataFrame)
    return known.select(pl.col("id").cast(pl.String), pl.col("type").cast(pl.String), pl.lit(False).alias("made"))


def _existing_entities(backend: Backend, cur: Cursor, rows: pl.DataFrame, aliases: Mapping[str, str]) -> dict[str, str]:
    """The type of each entity the rows name that the graph holds (all of them, for a big import)."""
    import polars as pl

    d = backend.dialect
    if not _small(cur, rows.height, "entities"):
        return dict(cur.execute("SELECT id, type FROM entities").fetchall())
    named = set(pl.concat([rows["_subject"].struct.field("id"), rows["_object_id"]]).drop_nulls().unique().to_list())
    named |= {aliases[i] for i in named if i in aliases}
    return dict(
        cur.execute(
            f"SELECT id, type FROM entities WHERE id IN {d.values('ids')}", {"ids": d.list_param(sorted(named))}
        ).fetchall()
    )


def _stored_keys(backend: Backend, cur: Cursor, rows: pl.DataFrame, facts_before: int) -> Callable[[], pl.DataFrame]:
    """The keys of the stored facts ``rows`` may repeat (the graph holds ``facts_before``): a small import's
    subjects' facts, read now (the ``facts_subject`` index); for a big one the whole table, read on another
    connection while the caller works on (call the result to wait for it)."""
    d = backend.dialect
    if rows.height * 20 < facts_before:
        subjects = d.list_param(rows["_sid"].unique().sort().to_list())
        present = _typed_keys(cur.execute(f"{_STORED_KEYS}f.subject IN {d.values('s')}", {"s": subjects}).fetchall())
        return lambda: present
    # The whole table, in two id ranges read at once where the backend can (a big SQLite file).
    read = backend.read_arrow_soon([], split=(f"{_STORED_KEYS}f.id >= :_lo AND f.id <= :_hi", {}), cur=cur)

    def whole() -> pl.DataFrame:
        import pyarrow as pa

        return _typed_keys(pa.concat_tables(read()[0]))

    return whole


def _not_stored(todo: pl.DataFrame, present: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``todo`` whose fact is not among the ``present`` ones (:func:`_stored_keys`), compared exactly:
    current facts by triple, ended ones by triple and interval."""
    import polars as pl

    ended = ~pl.col("_current")  # compared by interval (and occurrence) too
    return (
        todo.with_columns(
            pl.when(ended).then(pl.col("_from_key")).alias("_f"), pl.when(ended).then(pl.col("_to_key")).alias("_t")
        )
        .join(present, on=list(_KEY), how="anti", nulls_equal=True, maintain_order="left")
        .drop("_f", "_t")
    )


def _small(cur: Cursor, rows: int, table: str) -> bool:
    """Whether ``rows`` is small next to ``table``: then read only the rows the import touches."""
    size: int = cur.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return rows * 20 < size

"""Many facts in at once, in two stages: check (:mod:`._load_check`), then write.

The check applies the rules of ``add`` (:mod:`kgtoolkit.store.ops._rules`) once per *distinct* value of
each column and the cross-field rules as polars expressions over the whole frame; the write loads the rows
in one transaction (SQLite: ``executemany``; PostgreSQL: ``COPY``) while no other writer runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..._errors import InvalidRequest, InvalidRows  # InvalidRows: importable from here too
from ..._records import GraphConfig, ImportReport
from ..._time import now_text
from ..engine import FACT_COLUMNS, Backend, Cursor, read_or_blank
from ..ops import _predicates as _preds
from ..ops._rules import Rules
from ..reads import _queries as q
from ._keyset import KeySet
from ._load_check import (
    _REJECT_FIELDS,
    _check_columns,
    _Checked,
    _checked_only,
    _CommaNames,
    _prepare,
    _refused,
)

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

    from .._graph_store import GraphStore

__all__ = ["ImportReport", "InvalidRows", "import_facts"]

Progress = Callable[[int, int], None]
Hook = Callable[[Cursor, list[str]], int]

_INSERTED = FACT_COLUMNS[1:]  # every column but the id, which the database assigns
_CHUNK = 50_000
_PAUSE_TEXT_INDEX = 1_000  # facts from which a load fills the full-text index after it, not row by row
#: Facts from which a load leaves the full-text index to the first word search (or ``kgtoolkit index``): filling it
#: is the biggest single cost of a big SQLite load (tokenising every fact's text), and many loads are never
#: searched by words before the next one.
_DEFER_TEXT_INDEX = 100_000


# ---------------------------------------------------------------------- writes


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
        kg.engine.create()  # an import writes: a new graph is made first (a dry run reads the graph that is there)
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
    backend = kg.engine

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

    backend = kg.engine
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

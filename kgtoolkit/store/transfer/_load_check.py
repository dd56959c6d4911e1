"""The check stage of a load: the rules of ``add`` applied to a whole frame at once.

Each rule runs once per distinct value of a column, and the cross-field rules as polars expressions over
the whole frame; every problem becomes a reject row (line, field, value, code, reason).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..._errors import InvalidRequest, InvalidRows, KGError
from ..._names import COMMA_PATTERN, COMMA_PREDICATES, control_regex
from ..._records import ImportReport, is_event
from ..._time import OPEN_END, OPEN_START, now_text, parse_transaction_time
from ..ops._rules import COMMA_HINT, Name, Rules, comma_refusals, ends_before_start

if TYPE_CHECKING:
    import polars as pl


_MALFORMED = "_malformed"  # a row a reader found malformed: the reason (kgtoolkit.io's MALFORMED)
#: Text a vectorised name rule may take: printable ASCII only. There, NFKC changes nothing, case-folding is
#: lower-casing, the only whitespace is the space and no character is a control, so the polars expressions of
#: :func:`_ascii_name` give what :meth:`Rules.name` and :meth:`Rules.value` give; every other value (and every
#: value those expressions would refuse) goes through the rule itself, which also words the error.
_PRINTABLE_ASCII = "^[ -~]+$"
#: The columns of a rejected row in a report.
_REJECT_FIELDS = ["line", "field", "value", "code", "reason"]


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

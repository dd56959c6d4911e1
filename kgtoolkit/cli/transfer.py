"""The commands that move graphs and facts in and out: ``import``, ``export``, ``copy`` (SQLite ⇄ PostgreSQL),
``report`` (a churn page), ``generate`` (a synthetic graph) and ``demo``.

They wrap :mod:`kgtoolkit.io`, :func:`kgtoolkit.store.copy_graph`, :mod:`kgtoolkit.report`,
:mod:`kgtoolkit.generate` and the demo graph; a long run shows a progress bar on stderr (none with ``--json``).
A PostgreSQL ``--out`` must be an empty database: kgtoolkit never replaces a PostgreSQL graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .._errors import InvalidRequest
from ..graph import KnowledgeGraph
from ..store import is_empty, resolve
from ._common import AsOf, Call, Current, command
from ._render import Answer, out, warn

__all__ = ["copy", "demo", "export", "generate", "import_", "report"]


def _mapping(pairs: list[str] | None) -> dict[str | int, str] | None:
    if not pairs:
        return None
    mapping: dict[str | int, str] = {}
    for pair in pairs:
        theirs, sep, ours = pair.partition("=")
        if not sep or not theirs.strip() or not ours.strip():
            raise InvalidRequest(
                f"--map takes THEIR_COLUMN=OUR_COLUMN (e.g. head=subject), not {pair!r}", field="map", value=pair
            )
        mapping[theirs.strip()] = ours.strip()
    return mapping


@command("import")
def import_(
    call: Call,
    file: Annotated[
        Path,
        typer.Argument(
            help="CSV, TSV, JSON Lines, Parquet, a kgtoolkit JSON dump, or another tool's SQLite graph; "
            "compressed ones too (facts.tsv.gz, .bz2, .zst)."
        ),
    ],
    format: Annotated[
        str | None,
        typer.Option("--format", help="csv, tsv, jsonl, parquet, json or sqlite (default: from the suffix)."),
    ] = None,
    columns: Annotated[
        list[str] | None, typer.Option("--map", help="THEIR_COLUMN=OUR_COLUMN, e.g. head=subject (repeatable).")
    ] = None,
    on_error: Annotated[
        str, typer.Option("--on-error", help="raise: import nothing if any row is bad; skip: import the good rows.")
    ] = "raise",
    rejects: Annotated[
        Path | None, typer.Option("--rejects", help="Write the bad rows and their reasons here (CSV).")
    ] = None,
    header: Annotated[
        bool,
        typer.Option(
            "--header/--no-header",
            help="--no-header: CSV/TSV without a header row; columns are 0, 1, 2, … (map them with --map 0=subject).",
        ),
    ] = True,
    delimiter: Annotated[str | None, typer.Option(help="Field separator, when the suffix does not tell.")] = None,
    comma_guard: Annotated[
        bool,
        typer.Option(
            "--comma-guard",
            help="Refuse names with commas as packed lists (the guard of `add`); by default a file's names are "
            "taken as written ('Washington, D.C.') and counted in the warnings.",
        ),
    ] = False,
    allow_commas: Annotated[
        bool, typer.Option("--allow-commas", hidden=True, help="The default now: names with commas are accepted.")
    ] = False,
    source: Annotated[str | None, typer.Option(help="Source of rows that name none (default: agent).")] = None,
) -> Answer:
    """Import facts in bulk, in one transaction, with the rules of `add` (importing twice changes nothing)."""
    from ..io import import_file

    if on_error not in ("raise", "skip"):
        raise InvalidRequest(f"--on-error must be raise or skip, not {on_error!r}", field="on_error", value=on_error)
    location = resolve(call.db)
    new_file = (
        location.path
        if location.kind == "sqlite"
        and not location.memory
        and location.path is not None
        and not location.path.exists()
        else None
    )
    refused = False
    try:  # opened here, not by the runner: a refused import into a new file must leave no empty graph behind
        with (
            call.open() as kg,
            call.progress(
                f"importing {file.name}", before="reading and checking the rows, then writing (after other writers)"
            ) as bar,
        ):
            try:
                report = import_file(
                    kg,
                    file,
                    format=format,
                    columns=_mapping(columns),
                    header=header,
                    delimiter=delimiter,
                    on_error=on_error,  # type: ignore[arg-type]
                    rejects=rejects,
                    allow_commas=allow_commas,
                    comma_guard=comma_guard,
                    source=source,
                    progress=bar,
                )
            except BaseException:
                refused = new_file is not None and is_empty(kg)  # nobody else has written into it meanwhile
                raise
    finally:
        if refused and new_file is not None:
            for leftover in (new_file, Path(f"{new_file}-wal"), Path(f"{new_file}-shm")):
                leftover.unlink(missing_ok=True)

    def show() -> None:
        out.print(
            f"{escape(str(file))}: {report.rows} rows read, [bold]{report.inserted}[/] facts added, "
            f"{report.duplicates} already present, {report.rejected} rejected; "
            f"{report.entities_created} entities created",
            highlight=False,
        )
        if report.rejected and rejects is not None:
            out.print(f"rejected rows and reasons written to {escape(str(rejects))}", highlight=False)
        warn(report.warnings[:20])

    return Answer(report.to_dict, show)


@command("export", read_only=True)
def export(
    kg: KnowledgeGraph,
    call: Call,
    file: Annotated[
        Path,
        typer.Argument(
            help="Where to write: .csv, .tsv, .jsonl, .parquet, or .json for a lossless dump, each compressed "
            "with .gz, .bz2 or .zst after it (facts.csv.gz); a new folder with --partition-by."
        ),
    ],
    format: Annotated[
        str | None, typer.Option("--format", help="csv, tsv, jsonl, parquet or json (default: from the suffix).")
    ] = None,
    as_of: AsOf = None,
    current: Current = False,
    predicate: Annotated[str | None, typer.Option(help="Only facts with this predicate.")] = None,
    entity: Annotated[str | None, typer.Option(help="Only facts about this entity.")] = None,
    escape_formulas: Annotated[
        bool,
        typer.Option(
            "--escape-formulas/--no-escape-formulas",
            help="CSV/TSV: put a ' before text cells beginning with = + - @ (or a tab or CR) so spreadsheets show them as text instead of running them as formulas; `import` takes the ' off again. --no-escape-formulas writes cells as they are, for programs that are not spreadsheets.",
        ),
    ] = True,
    partition_by: Annotated[
        str | None,
        typer.Option(
            "--partition-by",
            help="year, month or day: write FILE as a new folder of Hive-partitioned Parquet by each fact's start (FILE/month=2014-01/part-00000.parquet), in bounded memory; for polars, DuckDB, Spark.",
        ),
    ] = None,
) -> Answer:
    """Export the facts (filtered, or all) to a file; `.json` writes a lossless dump of the whole graph;
    `--partition-by month` a folder of Parquet files by month for engines built for more."""
    from ..io import export_file, export_partitioned

    if partition_by is not None:
        if format not in (None, "parquet"):
            raise InvalidRequest(
                f"--partition-by writes Parquet; --format {format} cannot be partitioned: use --format parquet",
                field="format",
                value=format,
            )
        with call.progress(f"exporting {file.name}") as bar:
            count = export_partitioned(
                kg,
                file,
                by=partition_by,  # type: ignore[arg-type]  # checked by export_partitioned
                as_of=as_of,
                current_only=current,
                predicate=predicate,
                entity=entity,
                progress=bar,
            )
    else:
        with call.progress(f"exporting {file.name}") as bar:
            count = export_file(
                kg,
                file,
                format=format,
                as_of=as_of,
                current_only=current,
                predicate=predicate,
                entity=entity,
                escape_formulas=escape_formulas,
                progress=bar,
            )
    return Answer(
        lambda: {"path": str(file), "rows": count},
        lambda: out.print(f"{count} rows written to {escape(str(file))}", highlight=False),
    )


@command("copy", db=False)
def copy(
    call: Call,
    source: Annotated[str, typer.Argument(help="The graph to copy: a file, sqlite:///file or postgresql://… URL.")],
    target: Annotated[str, typer.Argument(help="Where to copy it (an empty database; created on first use).")],
    merge: Annotated[
        bool,
        typer.Option(
            "--merge",
            help="Merge into a target that holds a graph already, by the rules of add (new ids, duplicates skipped).",
        ),
    ] = False,
) -> Answer:
    """Copy a whole graph between SQLite and PostgreSQL (either way), losslessly: ids, times, aliases, memories, settings."""
    from ..store import copy_graph

    with KnowledgeGraph(source, read_only=True) as src, KnowledgeGraph(target) as dst, call.progress("copying") as bar:
        report = copy_graph(src, dst, merge=merge, progress=bar)

    def show() -> None:
        verb = "merged into" if report.merged else "copied to"
        out.print(
            f"{escape(report.source)} {verb} {escape(report.target)}: {report.facts} facts, {report.entities} "
            f"entities, {report.aliases} aliases, {report.memories} memories"
            + (f", {report.duplicates} already there" if report.merged else ""),
            highlight=False,
        )
        warn(report.warnings[:20])

    return Answer(report.to_dict, show)


@command("report", read_only=True)
def report(
    kg: KnowledgeGraph,
    since: Annotated[str | None, typer.Option(help="First day (default: the first start or end).")] = None,
    until: Annotated[
        str | None,
        typer.Option(help="Last day (default: the last start or end, or today when the graph plans past it)."),
    ] = None,
    every: Annotated[str, typer.Option(help="Period length: 1w, 1mo, 3mo, 1y, … (at most 100,000 periods).")] = "1mo",
    out_path: Annotated[
        Path, typer.Option("--out", help="HTML file to write; the Markdown summary goes beside it.")
    ] = Path("report.html"),
    renewals: Annotated[
        bool,
        typer.Option(
            "--renewals/--no-renewals",
            help="The same fact again back to back (a term renewed) counts as renewed, neither added nor ended "
            "(default); --no-renewals counts its end and its start apart.",
        ),
    ] = True,
) -> Answer:
    """Write a fact-churn report: a self-contained HTML page (charts embedded) and a Markdown summary."""
    from ..report import ReportOptions, churn_report

    options = ReportOptions(since=since, until=until, every=every, out=out_path, renewals=renewals)
    html, markdown = churn_report(kg, options=options)
    return Answer(
        lambda: {"html": str(html), "markdown": str(markdown)},
        lambda: out.print(f"report written to {escape(str(html))} and {escape(str(markdown))}", highlight=False),
    )


@command("generate", db=False)
def generate(
    call: Call,
    facts: Annotated[int, typer.Option("--facts", min=1, help="How many facts.")] = 10_000,
    seed: Annotated[int, typer.Option(min=0, help="Same seed, same graph.")] = 7,
    out_text: Annotated[
        str,
        typer.Option(
            "--out",
            help="A .sqlite3 graph (imported), an empty PostgreSQL database (postgresql://…, imported), or .tsv/.csv/.parquet/.jsonl.",
        ),
    ] = "generated.sqlite3",
    force: Annotated[
        bool, typer.Option("--force", help="Replace the file if it exists (a PostgreSQL graph is never replaced).")
    ] = False,
) -> Answer:
    """Generate a synthetic graph (hubs and leaves, histories, switches, a few conflicts), seeded."""
    from ..generate import build_generated, write_generated

    postgres = out_text.lower().startswith(("postgresql://", "postgres://"))  # read as text: a Path folds its //
    out_path = Path(out_text)
    if postgres or out_path.suffix in (".sqlite3", ".sqlite", ".db"):
        with (
            call.progress("importing") as bar,
            build_generated(out_text, facts, seed=seed, force=force, progress=bar) as kg,
        ):
            rows, where = kg.stats().facts, str(kg.location)
    else:
        if out_path.exists() and not force:
            raise InvalidRequest(f"{out_path} exists; pass --force to replace it", field="out", value=str(out_path))
        rows, where = write_generated(out_path, facts, seed=seed), str(out_path)
    return Answer(
        lambda: {"path": where, "facts": rows, "seed": seed},
        lambda: out.print(f"{rows} facts (seed {seed}) written to {escape(where)}", highlight=False),
    )


@command("demo", db=False, json=False)
def demo(
    out_text: Annotated[
        str,
        typer.Option(
            "--out", help="Where to write the demo graph: a file, or an empty PostgreSQL database (postgresql://…)."
        ),
    ] = "demo.sqlite3",
    force: Annotated[
        bool, typer.Option("--force", help="Replace the file if it exists (a PostgreSQL graph is never replaced).")
    ] = False,
) -> None:
    """Build the demo graph (a small software organisation over two years) and show what it holds."""
    from .._demo import build_demo

    kg = build_demo(out_text, force=force)  # a file, or an empty PostgreSQL database (copied in whole)
    with kg:
        result = kg.stats()
        text = kg.summary(8)
    where = str(kg.location)
    out.print(
        f"demo graph written to [bold]{escape(where)}[/]: {result.entities} entities, {result.facts} facts "
        f"({result.current} current), {result.aliases} aliases",
        highlight=False,
    )
    out.out(text, end="", highlight=False)

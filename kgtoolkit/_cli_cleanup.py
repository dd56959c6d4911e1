"""The CLI's clean-up commands (contract §14): ``duplicates``, ``not-duplicate`` and ``check``.

Registered on :data:`kgtoolkit.cli.app` when :mod:`kgtoolkit.cli` is imported (it imports this module
last); thin layers over :meth:`KnowledgeGraph.duplicates`, :meth:`~KnowledgeGraph.not_duplicates` and
:meth:`~KnowledgeGraph.check`.

``kgtoolkit check`` exits 0 when the graph is clean, 1 when there are findings, and 2 when it could not
check (a usage error, or the graph could not be read), so a script can tell them apart.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from ._errors import KGError
from ._tool import page_result
from .cli import (
    Limit,
    Offset,
    _command,
    _how_many,
    _json_wanted,
    _open_graph,
    _past,
    _print_table,
    app,
    err,
    graph_options,
    out,
)
from .cli import _emit as emit
from .findings import CODES

__all__ = ["check", "duplicates", "not_duplicate"]

Kind = Annotated[str, typer.Option("--kind", help="entities (default) or predicates.")]


@_command("duplicates")
@graph_options()
def duplicates(
    ctx: typer.Context,
    kind: Kind = "entities",
    limit: Limit = None,
    offset: Offset = 0,
    min_score: Annotated[float | None, typer.Option("--min-score", min=0, max=1, help="Leave out pairs scoring below this (0 to 1, default 0.75).")] = None,
    embeddings: Annotated[bool, typer.Option("--embeddings", help="Also compare the names' meaning (needs the search extra).")] = False,
) -> None:
    """Likely duplicates (Postgres / PostgreSQL, uses_db / uses_database), best first, each saying why; never merges."""
    with _open_graph(ctx, read_only=True) as kg:
        page = kg.duplicates(kind=kind, limit=limit, offset=offset, min_score=min_score, embeddings=embeddings)
    if _json_wanted(ctx):
        emit({"candidates": [c.to_dict() for c in page], **page_result(page)})
        return
    if not page.items:
        out.print(f"no duplicate {kind[:-1]} candidates" + _past(page, "candidate"))
        return
    table = Table("score", "a", "b", "why", title=f"duplicate {kind} ({_how_many(page, 'candidate')})",
                  header_style="bold", box=box.SIMPLE_HEAD)
    for c in page:
        table.add_row(f"{c.score:.2f}", escape(c.a_name), escape(c.b_name), escape("; ".join(c.reasons)))
    _print_table(table)
    fold, flag = ("merge", "") if kind == "entities" else ("rename-predicate", " --kind predicates")
    out.print(f"[dim]fold a pair (kgtoolkit {fold} A B: A becomes an alias of B), or: kgtoolkit not-duplicate "
              f"A B{flag}[/]", highlight=False)


@_command("not-duplicate")
@graph_options()
def not_duplicate(
    ctx: typer.Context,
    first: Annotated[str, typer.Argument(help="One name (an entity's name or alias, or a predicate).")],
    second: Annotated[str, typer.Argument(help="The other name.")],
    kind: Kind = "entities",
) -> None:
    """Remember that two names are different things: duplicates and check never list the pair again."""
    with _open_graph(ctx) as kg:
        marked = kg.not_duplicates(first, second, kind=kind)
    if _json_wanted(ctx):
        emit(marked.to_dict())
        return
    what = "marked" if marked.created else "already marked"
    out.print(f"{what} not the same: {escape(marked.a_name)} / {escape(marked.b_name)}", highlight=False)


@app.command("check")
@graph_options()
def check(
    ctx: typer.Context,
    code: Annotated[list[str] | None, typer.Option("--code", help=f"Only findings of this code (repeatable): {', '.join(CODES)}.")] = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """Temporal and structural checks, a stable code per finding; exits 0 clean, 1 with findings, 2 on an error."""
    try:
        with _open_graph(ctx, read_only=True) as kg:
            page = kg.check(codes=code, limit=limit, offset=offset)
    except KGError as exc:
        err.print(f"[bold red]error[/] [red]\\[{exc.code}][/] {escape(exc.message)}", highlight=False)
        raise typer.Exit(2) from exc
    if _json_wanted(ctx):
        emit({"findings": [f.to_dict() for f in page], **page_result(page), "clean": page.total == 0})
    elif not page.total:
        out.print("clean: no findings")
    else:
        table = Table("code", "finding", "facts", title=f"findings ({_how_many(page, 'finding')})",
                      header_style="bold", box=box.SIMPLE_HEAD)
        for f in page:
            table.add_row(f.code, escape(f.message), ", ".join(map(str, f.facts)))
        _print_table(table)
    raise typer.Exit(1 if page.total else 0)

"""The clean-up commands (contract §14): ``duplicates``, ``not-duplicate`` and ``check``.

Thin layers over :meth:`KnowledgeGraph.duplicates`, :meth:`~KnowledgeGraph.not_duplicates` and
:meth:`~KnowledgeGraph.check`. ``kgtoolkit check`` exits 0 when the graph is clean, 1 when there are
findings, and 2 when it could not check (a usage error, or the graph could not be read), so a script can
tell them apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .._tool import page_result
from ..findings import CODES
from ..graph import KnowledgeGraph
from ..store import check_rollups
from ..store import rebuild_rollups as rebuild
from ._common import Call, Limit, Offset, command
from ._render import Answer, how_many, out, past, print_table

__all__ = ["check", "duplicates", "not_duplicate"]

Kind = Annotated[str, typer.Option("--kind", help="entities (default) or predicates.")]


@command("duplicates", read_only=True)
def duplicates(
    kg: KnowledgeGraph,
    kind: Kind = "entities",
    limit: Limit = None,
    offset: Offset = 0,
    min_score: Annotated[
        float | None,
        typer.Option("--min-score", min=0, max=1, help="Leave out pairs scoring below this (0 to 1, default 0.75)."),
    ] = None,
    embeddings: Annotated[
        bool, typer.Option("--embeddings", help="Also compare the names' meaning (needs the search extra).")
    ] = False,
) -> Answer:
    """Likely duplicates (Postgres / PostgreSQL, uses_db / uses_database), best first, each saying why; never merges."""
    page = kg.duplicates(kind=kind, limit=limit, offset=offset, min_score=min_score, embeddings=embeddings)

    def show() -> None:
        if not page.items:
            out.print(f"no duplicate {kind[:-1]} candidates" + past(page, "candidate"))
            return
        table = Table(
            "score",
            "a",
            "b",
            "why",
            title=f"duplicate {kind} ({how_many(page, 'candidate')})",
            header_style="bold",
            box=box.SIMPLE_HEAD,
        )
        for c in page:
            table.add_row(f"{c.score:.2f}", escape(c.a_name), escape(c.b_name), escape("; ".join(c.reasons)))
        print_table(table)
        fold, flag = ("merge", "") if kind == "entities" else ("rename-predicate", " --kind predicates")
        out.print(
            f"[dim]fold a pair (kgtoolkit {fold} A B: A becomes an alias of B), or: kgtoolkit not-duplicate "
            f"A B{flag}[/]",
            highlight=False,
        )

    return Answer(lambda: {"candidates": [c.to_dict() for c in page], **page_result(page)}, show)


@command("not-duplicate")
def not_duplicate(
    kg: KnowledgeGraph,
    first: Annotated[str, typer.Argument(help="One name (an entity's name or alias, or a predicate).")],
    second: Annotated[str, typer.Argument(help="The other name.")],
    kind: Kind = "entities",
) -> Answer:
    """Remember that two names are different things: duplicates and check never list the pair again."""
    marked = kg.not_duplicates(first, second, kind=kind)
    what = "marked" if marked.created else "already marked"
    return Answer(
        marked.to_dict,
        lambda: out.print(f"{what} not the same: {escape(marked.a_name)} / {escape(marked.b_name)}", highlight=False),
    )


def _rollups_only_read(call: Call, params: Mapping[str, Any]) -> bool:
    return not params.get("rebuild_rollups")


@command("check", read_only=_rollups_only_read, failure=2)
def check(
    kg: KnowledgeGraph,
    code: Annotated[
        list[str] | None, typer.Option("--code", help=f"Only findings of this code (repeatable): {', '.join(CODES)}.")
    ] = None,
    limit: Limit = None,
    offset: Offset = 0,
    rollups: Annotated[
        bool, typer.Option("--rollups", help="Compare the kept counts (rollups) with a scan of every fact instead.")
    ] = False,
    rebuild_rollups: Annotated[
        bool, typer.Option("--rebuild-rollups", help="Make the rollups again from the facts, then compare them.")
    ] = False,
) -> Answer:
    """Temporal and structural checks, a stable code per finding; exits 0 clean, 1 with findings, 2 on an error.
    With --rollups (or --rebuild-rollups): the rollups compared with a scan, exit 1 when any differs."""
    if rollups or rebuild_rollups:
        if rebuild_rollups:
            rebuild(kg)
        found = check_rollups(kg)

        def show_rollups() -> None:
            if found.ok:
                out.print(("rebuilt; " if rebuild_rollups else "") + "rollups agree with a scan of the facts")
                return
            for line in found.examples:
                out.print(escape(line), highlight=False)
            out.print("[dim]make them again: kgtoolkit check --rebuild-rollups[/]", highlight=False)

        return Answer(
            lambda: {"rollups": found.to_dict(), "rebuilt": rebuild_rollups}, show_rollups, exit=0 if found.ok else 1
        )
    page = kg.check(codes=code, limit=limit, offset=offset)

    def show() -> None:
        if not page.total:
            out.print("clean: no findings")
            return
        table = Table(
            "code",
            "finding",
            "facts",
            title=f"findings ({how_many(page, 'finding')})",
            header_style="bold",
            box=box.SIMPLE_HEAD,
        )
        for f in page:
            table.add_row(f.code, escape(f.message), ", ".join(map(str, f.facts)))
        print_table(table)

    return Answer(
        lambda: {"findings": [f.to_dict() for f in page], **page_result(page), "clean": page.total == 0},
        show,
        exit=1 if page.total else 0,
    )

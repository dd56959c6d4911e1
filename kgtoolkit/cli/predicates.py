"""The commands of predicates (contract §13): another name for one (``alias-predicate``), fold one into another
(``rename-predicate``), and the list in use with their labels (``predicates``).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .._tool import page_result
from ..graph import KnowledgeGraph
from ._common import Limit, Offset, command
from ._render import Answer, how_many, out, past, plural

__all__ = ["alias_predicate", "predicates", "rename_predicate"]


@command("alias-predicate")
def alias_predicate(
    kg: KnowledgeGraph,
    alias: Annotated[str, typer.Argument(help="The other name, e.g. uses_db.")],
    predicate: Annotated[str, typer.Argument(metavar="CANONICAL", help="The predicate it names, e.g. uses_database.")],
) -> Answer:
    """Register ALIAS as another name of the predicate CANONICAL: writes and reads through it mean CANONICAL."""
    result = kg.alias_predicate(alias, predicate)
    return Answer(
        result.to_dict,
        lambda: out.print(
            f"{escape(result.alias)} now names the predicate [bold]{escape(result.predicate)}[/]", highlight=False
        ),
    )


@command("rename-predicate")
def rename_predicate(
    kg: KnowledgeGraph,
    old: Annotated[str, typer.Argument(help="The predicate whose facts move (it becomes an alias of NEW).")],
    new: Annotated[str, typer.Argument(help="The predicate they fold into (in use, or a new one).")],
) -> Answer:
    """Fold every fact of the predicate OLD into NEW, with its history, atomically (as merge does for entities)."""
    result = kg.rename_predicate(old, new)
    moved = (
        f"renamed [bold]{escape(result.old)}[/] to [bold]{escape(result.new)}[/] ({escape(result.label)}): "
        f"{plural(result.moved, 'fact')} moved, {result.deduplicated:,} duplicate(s) folded; aliases now: "
        f"{escape(', '.join(result.aliases))}"
        + (f"; settings moved: {', '.join(result.settings)}" if result.settings else "")
    )
    return Answer(result.to_dict, lambda: out.print(moved, highlight=False))


@command("predicates", read_only=True)
def predicates(
    kg: KnowledgeGraph,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """List the predicates in use, most facts first: id, label (first spelling), facts, current, aliases."""
    page = kg.predicates(limit=limit, offset=offset)

    def show() -> None:
        if not page.items:
            out.print("no predicates" + past(page, "predicate"))
            return
        table = Table(
            title=f"predicates ({how_many(page, 'predicate')})",
            title_justify="left",
            header_style="bold",
            box=box.SIMPLE_HEAD,
        )
        for column in ("predicate", "label", "facts", "current", "aliases"):
            table.add_column(column, justify="right" if column in ("facts", "current") else "left")
        for row in page:
            table.add_row(
                escape(row.id), escape(row.label), f"{row.facts:,}", f"{row.current:,}", escape(", ".join(row.aliases))
            )
        out.print(table)

    return Answer(lambda: {"predicates": [p.to_dict() for p in page], **page_result(page)}, show)

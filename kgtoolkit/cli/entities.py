"""The commands of entities and their names: ``merge`` two into one, give one another name (``alias``),
list the names (``aliases``); thin layers over :meth:`KnowledgeGraph.merge`, :meth:`~KnowledgeGraph.alias`
and :meth:`~KnowledgeGraph.aliases`.
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
from ._render import Answer, how_many, out, past, print_table, warn

__all__ = ["alias", "aliases", "merge"]


@command("merge")
def merge(
    kg: KnowledgeGraph,
    source: Annotated[str, typer.Argument(help="Duplicate entity to fold away.")],
    target: Annotated[str, typer.Argument(help="Entity to keep.")],
) -> Answer:
    """Merge SOURCE into TARGET: move its facts, keep its names as aliases, de-duplicate."""
    result = kg.merge(source, target)

    def show() -> None:
        out.print(
            f"merged [bold]{escape(result.source)}[/] into [bold]{escape(result.target.id)}[/]: {result.moved} "
            f"fact(s) moved, {result.deduplicated} duplicate(s) folded; aliases now: "
            f"{escape(', '.join(result.aliases))}",
            highlight=False,
        )
        warn(result.warnings)

    return Answer(result.to_dict, show)


@command("alias")
def alias(
    kg: KnowledgeGraph,
    name: Annotated[str, typer.Argument(help="The other name.")],
    entity: Annotated[str, typer.Argument(help="The entity it names.")],
) -> Answer:
    """Register NAME as another name of ENTITY."""
    result = kg.alias(name, entity)
    return Answer(
        result.to_dict,
        lambda: out.print(
            f"{escape(repr(result.name))} ({escape(result.alias)}) now names [bold]{escape(result.entity)}[/]",
            highlight=False,
        ),
    )


@command("aliases", read_only=True)
def aliases(
    kg: KnowledgeGraph,
    entity: Annotated[str | None, typer.Argument(help="Only this entity's aliases.")] = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """List aliases (of one entity, or all)."""
    page = kg.aliases(entity, limit=limit, offset=offset)

    def show() -> None:
        if not page.items:
            out.print("no aliases" + past(page, "alias"))
            return
        table = Table(
            "alias",
            "spelling",
            "entity",
            title=f"aliases ({how_many(page, 'alias')})",
            title_justify="left",
            header_style="bold",
            box=box.SIMPLE_HEAD,
        )
        for row in page:
            table.add_row(escape(row.alias), escape(row.name), escape(row.entity))
        print_table(table)

    return Answer(lambda: {"aliases": [a.to_dict() for a in page], **page_result(page)}, show)

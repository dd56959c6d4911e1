"""The commands about the graph as a whole: its settings (``config``), its counts (``stats``), a Markdown digest
for a prompt (``summary``) and where it lives (``where``).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .._errors import InvalidRequest, UnknownType
from .._names import loose_key, normalize_name, printable
from ..graph import KnowledgeGraph
from ._common import AsOf, Call, command, show_location
from ._render import Answer, out

__all__ = ["config", "stats", "summary", "where"]


@command("config")
def config(
    call: Call,
    add_type: Annotated[list[str] | None, typer.Option("--add-type", help="Add an entity type (repeatable).")] = None,
    remove_type: Annotated[
        list[str] | None, typer.Option("--remove-type", help="Remove an entity type no entity has (repeatable).")
    ] = None,
    add_value_predicate: Annotated[
        list[str] | None, typer.Option("--add-value-predicate", help="Predicate whose object is text.")
    ] = None,
    remove_value_predicate: Annotated[list[str] | None, typer.Option("--remove-value-predicate")] = None,
    add_multi_valued: Annotated[
        list[str] | None, typer.Option("--add-multi-valued", help="Predicate left out of conflicts.")
    ] = None,
    remove_multi_valued: Annotated[list[str] | None, typer.Option("--remove-multi-valued")] = None,
    add_single_valued: Annotated[
        list[str] | None,
        typer.Option("--add-single-valued", help="Predicate holding one object at a time (check reports overlaps)."),
    ] = None,
    remove_single_valued: Annotated[list[str] | None, typer.Option("--remove-single-valued")] = None,
    add_one_holder: Annotated[
        list[str] | None,
        typer.Option(
            "--add-one-holder",
            help="Predicate whose object has one subject at a time (holds_office): a new subject is a replacement.",
        ),
    ] = None,
    remove_one_holder: Annotated[list[str] | None, typer.Option("--remove-one-holder")] = None,
    events: Annotated[
        bool | None, typer.Option("--events/--no-events", help="Every fact of the graph is an event (ICEWS, GDELT).")
    ] = None,
    add_event_predicate: Annotated[
        list[str] | None, typer.Option("--add-event-predicate", help="Predicate whose facts are events (repeatable).")
    ] = None,
    remove_event_predicate: Annotated[list[str] | None, typer.Option("--remove-event-predicate")] = None,
    comma_guard: Annotated[
        bool | None, typer.Option("--comma-guard/--no-comma-guard", help="Reject comma lists in names.")
    ] = None,
    max_name_length: Annotated[
        int | None,
        typer.Option("--max-name-length", help="Longest name, alias or predicate written from now on (characters)."),
    ] = None,
    max_value_length: Annotated[
        int | None, typer.Option("--max-value-length", help="Longest value, source or memory text written from now on.")
    ] = None,
) -> Answer:
    """Show or change the graph's settings: types, value predicates, multi-, single-valued and one-holder predicates, events, comma guard, lengths."""
    changes = any(
        x
        for x in (
            add_type,
            remove_type,
            add_value_predicate,
            remove_value_predicate,
            add_multi_valued,
            remove_multi_valued,
            add_single_valued,
            remove_single_valued,
            add_one_holder,
            remove_one_holder,
            add_event_predicate,
            remove_event_predicate,
        )
    ) or any(x is not None for x in (comma_guard, max_name_length, max_value_length, events))
    with call.open(read_only=not changes, create=changes) as kg:  # opened here: read-only unless a setting changes
        current = kg.config
        if changes:
            current = kg.configure(
                types=_edit_types(current.types, add_type, remove_type),
                value_predicates=_edit(current.value_predicates, add_value_predicate, remove_value_predicate),
                multi_valued=_edit(current.multi_valued, add_multi_valued, remove_multi_valued),
                single_valued=_edit(current.single_valued, add_single_valued, remove_single_valued),
                one_holder=_edit(current.one_holder, add_one_holder, remove_one_holder),
                events=events,
                event_predicates=_edit(current.event_predicates, add_event_predicate, remove_event_predicate),
                comma_guard=comma_guard,
                max_name_length=max_name_length,
                max_value_length=max_value_length,
            )

    def show() -> None:
        table = Table("setting", "value", header_style="bold", box=box.SIMPLE_HEAD)
        table.add_row("types", escape(", ".join(sorted(map(printable, current.types)))))
        table.add_row("value predicates", escape(", ".join(sorted(map(printable, current.value_predicates)))))
        table.add_row("multi-valued", escape(", ".join(sorted(map(printable, current.multi_valued)))))
        table.add_row("single-valued", escape(", ".join(sorted(map(printable, current.single_valued)))))
        table.add_row("one holder", escape(", ".join(sorted(map(printable, current.one_holder)))))
        table.add_row("events", "every fact" if current.events else "off (single-day facts and event predicates only)")
        table.add_row("event predicates", escape(", ".join(sorted(map(printable, current.event_predicates)))))
        table.add_row("comma guard", "on" if current.comma_guard else "off")
        table.add_row("max name length", f"{current.max_name_length:,}")
        table.add_row("max value length", f"{current.max_value_length:,}")
        out.print(table)

    return Answer(current.to_dict, show)


def _names(values: Iterable[str] | None, field: str) -> set[str]:
    return {normalize_name(v, field=field) for v in values or ()}


def _stored(names: AbstractSet[str], values: Iterable[str] | None, field: str) -> set[str]:
    """The names in ``names`` that ``values`` name, normalised ("Home Page" names home_page); a value naming
    none is returned normalised. A name an older version stored that is not valid Unicode is named as it
    was given, or as kgtoolkit prints it ('caf\\udce9')."""
    found: set[str] = set()
    for value in values or ():
        key = loose_key(value)
        found.update({n for n in names if key in (n, printable(n))} or {normalize_name(value, field=field)})
    return found


def _edit(current: frozenset[str], add: list[str] | None, remove: list[str] | None) -> frozenset[str] | None:
    """``current`` with predicates added and removed (removing one that is not there changes nothing)."""
    if not add and not remove:
        return None
    names = current | _names(add, "predicate")
    return names - _stored(names, remove, "predicate")


def _edit_types(current: frozenset[str], add: list[str] | None, remove: list[str] | None) -> frozenset[str] | None:
    """The type vocabulary with types added and removed; a type entities have is refused by configure."""
    if not add and not remove:
        return None
    names = current | _names(add, "type")
    removed = _stored(names, remove, "type")
    if "unknown" in removed:
        raise InvalidRequest(
            "the type unknown cannot be removed: it is the type of every entity given none",
            field="type",
            value="unknown",
        )
    absent = sorted(removed - names)
    if absent:
        known = sorted(map(printable, names))
        raise UnknownType(
            f"type {absent[0]!r} is not in this graph's vocabulary ({', '.join(known)}); there is nothing to remove",
            field="type",
            value=absent[0],
            suggestions=known,
        )
    return names - removed


@command("stats", read_only=True)
def stats(kg: KnowledgeGraph) -> Answer:
    """Counts: entities per type, facts, current, ended, events, value facts, predicates, aliases, memories."""
    result = kg.stats()
    path = kg.location

    def show() -> None:
        table = Table(title=escape(str(path)), title_justify="left", show_header=False, box=box.SIMPLE)
        table.add_column(style="bold")
        table.add_column(justify="right")
        rows = [
            ("entities", result.entities),
            *((f"  {k}", v) for k, v in result.entities_by_type.items()),
            ("facts", result.facts),
            ("current", result.current),
            ("scheduled", result.scheduled),
            ("ended", result.ended),
            ("events", result.events),
            ("value facts", result.value_facts),
            ("predicates", result.predicates),
            ("aliases", result.aliases),
            ("memories", result.memories),
        ]
        for name, value in rows:
            table.add_row(escape(name), str(value))
        out.print(table)

    return Answer(lambda: {"path": str(path), **result.to_dict()}, show)


@command("summary", read_only=True)
def summary(
    kg: KnowledgeGraph,
    limit: Annotated[int, typer.Option(min=1, help="How many entities.")] = 20,
    style: Annotated[str, typer.Option(help="main (# Knowledge Graph) or subagent (## Known Facts).")] = "main",
    as_of: AsOf = None,
) -> Answer:
    """Compact Markdown of the top entities and their current facts, for a system prompt."""
    text = kg.summary(limit, style=style, as_of=as_of)
    return Answer(lambda: {"markdown": text}, lambda: out.out(text, end="", highlight=False))


@command("where", json=False)
def where(call: Call) -> None:
    """Print which graph the other commands use (--db, else $KGTOOLKIT_DB, else the default file)."""
    show_location(call)

"""The ``kgtoolkit`` command: a thin layer over the library, one command per operation.

Tables by default, ``--json`` for programs; errors print their code and message (no traceback)
and exit with status 1.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ._errors import InvalidRequest, KGError, UnknownType, missing_dependency
from ._names import loose_key, normalize_name, printable, printable_data
from ._page import Page
from ._records import ConflictGroup, Fact
from ._tool import (
    TOOL_SCHEMA,
    answer_json,
    conflicts_result,
    envelope,
    facts_result,
    page_result,
    registry,
    run_tool,
)
from .graph import KnowledgeGraph
from .store import Location, is_empty, resolve

__all__ = ["app", "main"]

app = typer.Typer(
    name="kgtoolkit",
    help="A temporal knowledge graph (an SQLite file, or PostgreSQL for a team): facts with the dates they held.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Piped output keeps whole names: a wide page instead of the 80 columns rich assumes off a terminal.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 240)
err = Console(stderr=True, soft_wrap=True, width=None if sys.stderr.isatty() else 240)

F = TypeVar("F", bound=Callable[..., Any])

DbOption = Annotated[str | None, typer.Option("--db", help="The graph: a file path, sqlite:///file, or postgresql://user:password@host/database (default: $KGTOOLKIT_DB, else ~/.kgtoolkit/knowledge_graph.sqlite3).", show_default=False)]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
AsOf = Annotated[str | None, typer.Option("--as-of", help="Only facts valid on this date (YYYY[-MM[-DD]] or ISO datetime).")]
KnownAt = Annotated[str | None, typer.Option("--known-at", help="What the graph believed at this moment (transaction time).")]
Current = Annotated[bool, typer.Option("--current", help="Only facts valid now (started, not yet ended).")]
Limit = Annotated[int | None, typer.Option("--limit", min=0, help="At most this many items (default: all).")]
Offset = Annotated[int, typer.Option("--offset", min=0, help="Skip this many items first.")]
Predicates = Annotated[list[str] | None, typer.Option("--predicate", help="Only facts of this predicate (repeatable).")]
#: More conflict groups than this are printed as one compact table, a row per group.
COMPACT_GROUPS = 10


@app.callback()
def _global(
    ctx: typer.Context,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """A temporal knowledge graph (an SQLite file, or PostgreSQL for a team): facts with the dates they held."""
    ctx.obj = {"db": db, "json": as_json}


def _command(name: str | None = None, *, help: str | None = None) -> Callable[[F], F]:
    """Register a command that turns library errors into a message and exit status 1 (``help``: instead of
    the docstring)."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except KGError as exc:
                _fail(exc)

        app.command(name, help=help)(run)
        return fn

    return decorate


def _fail(exc: KGError) -> None:
    err.print(f"[bold red]error[/] [red]\\[{exc.code}][/] {escape(exc.message)}", highlight=False)
    raise typer.Exit(1)


def graph_options(*, db: bool = True, json: bool = True) -> Callable[[F], F]:
    """Give a command the shared ``--db`` and ``--json`` options, declared here once (``json=False``: only
    ``--db``; ``db=False``: only ``--json``).

    They are added after the command's own parameters and not passed to it: the command reads them from
    its context with :func:`_open_graph` / :func:`_chosen_db` and :func:`_json_wanted`, which also take
    the global ``--db`` / ``--json`` given before the command's name.
    """
    extra: list[inspect.Parameter] = []
    if db:
        extra.append(inspect.Parameter("db", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=DbOption))
    if json:
        extra.append(inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False,
                                       annotation=JsonOption))
    names = {p.name for p in extra}

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        clash = names & set(signature.parameters)
        if clash:
            raise TypeError(f"{fn.__name__} declares {', '.join(sorted(clash))} itself; graph_options adds them")

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            for name in names:
                kwargs.pop(name, None)
            return fn(*args, **kwargs)

        run.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *extra])  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def _chosen_db(ctx: typer.Context) -> str | None:
    """The graph a command names: its own ``--db``, else the global one, else None (the store's rule decides)."""
    own: str | None = ctx.params.get("db")
    if own is not None:
        return own
    chosen: str | None = ctx.obj.get("db") if ctx.obj else None
    return chosen


def _open_graph(ctx: typer.Context, *, read_only: bool = False) -> KnowledgeGraph:
    """The graph of a command with :func:`graph_options`, opened (read-only for commands that only read)."""
    return KnowledgeGraph(_chosen_db(ctx), read_only=read_only)


def _search_graph(ctx: typer.Context) -> KnowledgeGraph:
    """The graph for search: read-only for a file (the index lives beside it); writable for PostgreSQL, whose
    embedding cache is a table of the database, so what one machine embeds serves the whole team."""
    return _open_graph(ctx, read_only=resolve(_chosen_db(ctx)).kind != "postgresql")


def _json_wanted(ctx: typer.Context) -> bool:
    """Whether the command's ``--json`` (or the global one) asks for JSON."""
    return bool(ctx.params.get("as_json")) or bool(ctx.obj and ctx.obj.get("json"))


def _emit(data: Any) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # text an older version stored that is not valid Unicode: printed escaped
        text = json.dumps(printable_data(data), ensure_ascii=False, indent=2)
    out.out(text, highlight=False)


def _span(fact: Fact) -> tuple[str, str]:
    return fact.valid_from or "?", fact.valid_to or ""


def _facts_table(facts: Iterable[Fact], *, title: str | None = None, direction: bool = False,
                 labels: Mapping[str, str] | None = None) -> Table:
    """Facts as a table; the predicate column shows each predicate's label (``labels``, contract §13)."""
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("id", justify="right", style="dim")
    if direction:
        table.add_column("dir")
    for column in ("subject", "predicate", "object", "from", "to"):
        table.add_column(column)
    table.add_column("current")
    for fact in facts:
        start, end = _span(fact)
        row = [str(fact.id)]
        if direction:
            row.append("→" if fact.direction == "outgoing" else "←")
        obj = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
        row += [escape(fact.subject_name), escape(_label(fact.predicate, labels)), escape(obj), start, end]
        row.append("[green]yes[/]" if fact.current else "[yellow]scheduled[/]" if fact.state == "scheduled"
                   else "[magenta]event[/]" if fact.kind == "event" else "[dim]no[/]")  # an event never ends (§12)
        table.add_row(*row, style=None if fact.current else "dim")
    return table


_RICH_ROWS = 200  # above this many rows a table is written as plain aligned text (rich takes ~1.5 ms a row)
_CELL = 60  # the longest cell of such a table; longer ones end in "…" (--json holds them whole)


def _print_table(table: Table) -> None:
    """Print ``table``: with rich when it is small, else as plain aligned columns in one write.

    Rich measures and wraps every cell: 6,083 facts took 9 s against 0.4 s to read them. The plain
    form keeps the columns, the header and the title, without colours or wrapping; a cell longer than
    60 characters is shortened with "…" (``--json`` answers every cell whole).
    """
    if table.row_count <= _RICH_ROWS:
        out.print(table)
        return
    from rich.text import Text

    def cell(markup: object) -> str:
        text = Text.from_markup(str(markup)).plain
        return text if len(text) <= _CELL else text[:_CELL - 1] + "…"

    columns = [[cell(c.header), *(cell(v) for v in c.cells)] for c in table.columns]
    widths = [max(len(v) for v in col) for col in columns]
    right = [c.justify == "right" for c in table.columns]

    def line(i: int) -> str:
        return "  ".join(col[i].rjust(w) if r else col[i].ljust(w)
                         for col, w, r in zip(columns, widths, right, strict=True)).rstrip()

    title = [Text.from_markup(str(table.title)).plain] if table.title else []
    rule = "  ".join("─" * w for w in widths)
    text = "\n".join([*title, line(0), rule, *(line(i) for i in range(1, len(columns[0])))])
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
def _label(predicate: str, labels: Mapping[str, str] | None) -> str:
    """The label a table shows for ``predicate``: its first spelling (contract §13), else its id."""
    return (labels or {}).get(predicate, predicate)


def _plural(n: int, noun: str) -> str:
    """``1 fact``, ``6,083 facts``, ``2 aliases``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}{'es' if noun.endswith('s') else 's'}"


class _Counted(Protocol):
    """A page of an answer: a :class:`Page`, or a record that counts like one (``Neighborhood``, ``Diff``)."""

    @property
    def count(self) -> int: ...

    @property
    def total(self) -> int: ...


def _how_many(page: _Counted, noun: str) -> str:
    """``8 of 6,083 facts`` (``3 facts`` when the page holds them all; ``1 fact``)."""
    return _plural(page.total, noun) if page.count == page.total else f"{page.count:,} of {_plural(page.total, noun)}"


def _past(page: Page[Any], noun: str) -> str:
    """For an empty page of a non-empty answer: `` (offset 300 is past the 250 facts)``."""
    return f" (offset {page.offset:,} is past the {_plural(page.total, noun)})" if page.total else ""


def _show_facts(ctx: typer.Context, page: Page[Fact], payload: dict[str, Any], *, title: str,
                direction: bool = False, labels: Mapping[str, str] | None = None) -> None:
    if _json_wanted(ctx):
        _emit({**facts_result(page, **payload), **page_result(page)})
    elif not page.items:
        out.print(f"{escape(title)}: no facts{_past(page, 'fact')}")
    else:
        _print_table(_facts_table(page, title=f"{escape(title)} ({_how_many(page, 'fact')})", direction=direction,
                                  labels=labels))


def _properties(pairs: list[str] | None) -> dict[str, Any] | None:
    if not pairs:
        return None
    props: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidRequest(f"--property takes KEY=VALUE, not {pair!r}", field="properties", value=pair)
        try:
            props[key.strip()] = json.loads(value)
        except ValueError:
            props[key.strip()] = value
    return props


# ---------------------------------------------------------------------- writes


@_command("add")
@graph_options()
def add(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="Entity the fact is about.")],
    predicate: Annotated[str, typer.Argument(help="Relationship, e.g. uses_queue (or a value predicate such as email).")],
    obj: Annotated[str, typer.Argument(metavar="OBJECT", help="Entity (or text, for value predicates) it points at.")],
    valid_from: Annotated[str | None, typer.Option("--from", "--valid-from", help="When it became true.")] = None,
    valid_to: Annotated[str | None, typer.Option("--to", "--valid-to", help="When it stopped (add history).")] = None,
    confidence: Annotated[float, typer.Option(help="0 to 1.")] = 1.0,
    source: Annotated[str | None, typer.Option(help="Who asserts it (default: agent).")] = None,
    source_closet: Annotated[str | None, typer.Option("--closet", "--source-closet", help="Pointer to the evidence, e.g. a memory id.")] = None,
    subject_type: Annotated[str | None, typer.Option("--subject-type", help="person, company, project, event, … (see `config`).")] = None,
    object_type: Annotated[str | None, typer.Option("--object-type", help="Type of the object entity.")] = None,
    prop: Annotated[list[str] | None, typer.Option("--property", "-p", help="KEY=VALUE property of the subject (repeatable).")] = None,
) -> None:
    """Add a fact (missing entities are created; an identical current fact is returned as is)."""
    with _open_graph(ctx) as kg:
        result = kg.add(subject, predicate, obj, valid_from=valid_from, valid_to=valid_to, confidence=confidence,
                        source=source, source_closet=source_closet, subject_type=subject_type,
                        object_type=object_type, properties=_properties(prop))
        labels = kg.predicate_labels()
    if _json_wanted(ctx):
        _emit(result.to_dict())
        return
    verb = "added" if result.created else "already current, unchanged"
    out.print(_facts_table([result.fact], title=verb, labels=labels))
    for warning in result.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}", highlight=False)


@_command("invalidate")
@graph_options()
def invalidate(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    predicate: Annotated[str, typer.Argument()],
    obj: Annotated[str, typer.Argument(metavar="OBJECT")],
    ended: Annotated[str | None, typer.Option(help="When it stopped being true (default: today, UTC).")] = None,
    ended_by: Annotated[str | None, typer.Option("--ended-by", help="Who ended it (default: agent).")] = None,
) -> None:
    """End a current fact; it stays as history."""
    with _open_graph(ctx) as kg:
        fact = kg.invalidate(subject, predicate, obj, ended=ended, ended_by=ended_by)
        labels = kg.predicate_labels()
    if _json_wanted(ctx):
        _emit({"fact": fact.to_dict()})
    else:
        out.print(_facts_table([fact], title="ended", labels=labels))


@_command("supersede")
@graph_options()
def supersede(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    predicate: Annotated[str, typer.Argument()],
    old_object: Annotated[str, typer.Argument(metavar="OLD")],
    new_object: Annotated[str, typer.Argument(metavar="NEW")],
    at: Annotated[str | None, typer.Option(help="When NEW replaced OLD (default: today, UTC).")] = None,
    source: Annotated[str | None, typer.Option(help="Who asserts it (default: agent).")] = None,
    source_closet: Annotated[str | None, typer.Option("--closet", "--source-closet", help="Pointer to the evidence.")] = None,
    object_type: Annotated[str | None, typer.Option("--object-type", help="Type of NEW.")] = None,
) -> None:
    """Replace OLD with NEW at one moment: end the old fact and add the new one, atomically."""
    with _open_graph(ctx) as kg:
        result = kg.supersede(subject, predicate, old_object, new_object, at=at, source=source,
                              source_closet=source_closet, object_type=object_type)
        labels = kg.predicate_labels()
    if _json_wanted(ctx):
        _emit(result.to_dict())
    else:
        out.print(_facts_table([result.old, result.new], title="superseded", labels=labels))


@_command("merge")
@graph_options()
def merge(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Duplicate entity to fold away.")],
    target: Annotated[str, typer.Argument(help="Entity to keep.")],
) -> None:
    """Merge SOURCE into TARGET: move its facts, keep its names as aliases, de-duplicate."""
    with _open_graph(ctx) as kg:
        result = kg.merge(source, target)
    if _json_wanted(ctx):
        _emit(result.to_dict())
        return
    out.print(f"merged [bold]{escape(result.source)}[/] into [bold]{escape(result.target.id)}[/]: {result.moved} fact(s) "
              f"moved, {result.deduplicated} duplicate(s) folded; aliases now: {escape(', '.join(result.aliases))}",
              highlight=False)
    for warning in result.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}", highlight=False)


@_command("alias")
@graph_options()
def alias(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The other name.")],
    entity: Annotated[str, typer.Argument(help="The entity it names.")],
) -> None:
    """Register NAME as another name of ENTITY."""
    with _open_graph(ctx) as kg:
        result = kg.alias(name, entity)
    if _json_wanted(ctx):
        _emit(result.to_dict())
    else:
        out.print(f"{escape(repr(result.name))} ({escape(result.alias)}) now names [bold]{escape(result.entity)}[/]", highlight=False)


@_command("aliases")
@graph_options()
def aliases(
    ctx: typer.Context,
    entity: Annotated[str | None, typer.Argument(help="Only this entity's aliases.")] = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """List aliases (of one entity, or all)."""
    with _open_graph(ctx, read_only=True) as kg:
        page = kg.aliases_page(entity, limit=limit, offset=offset)
    if _json_wanted(ctx):
        _emit({"aliases": [a.to_dict() for a in page], **page_result(page)})
        return
    if not page.items:
        out.print("no aliases" + _past(page, "alias"))
        return
    table = Table("alias", "spelling", "entity", title=f"aliases ({_how_many(page, 'alias')})", title_justify="left",
                  header_style="bold", box=box.SIMPLE_HEAD)
    for row in page:
        table.add_row(escape(row.alias), escape(row.name), escape(row.entity))
    _print_table(table)


# Predicates (contract §13): aliases, renames, the list with labels.


@_command("alias-predicate")
@graph_options()
def alias_predicate(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="The other name, e.g. uses_db.")],
    predicate: Annotated[str, typer.Argument(metavar="CANONICAL", help="The predicate it names, e.g. uses_database.")],
) -> None:
    """Register ALIAS as another name of the predicate CANONICAL: writes and reads through it mean CANONICAL."""
    with _open_graph(ctx) as kg:
        result = kg.alias_predicate(alias, predicate)
    if _json_wanted(ctx):
        _emit(result.to_dict())
    else:
        out.print(f"{escape(result.alias)} now names the predicate [bold]{escape(result.predicate)}[/]", highlight=False)


@_command("rename-predicate")
@graph_options()
def rename_predicate(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(help="The predicate whose facts move (it becomes an alias of NEW).")],
    new: Annotated[str, typer.Argument(help="The predicate they fold into (in use, or a new one).")],
) -> None:
    """Fold every fact of the predicate OLD into NEW, with its history, atomically (as merge does for entities)."""
    with _open_graph(ctx) as kg:
        result = kg.rename_predicate(old, new)
    if _json_wanted(ctx):
        _emit(result.to_dict())
        return
    out.print(f"renamed [bold]{escape(result.old)}[/] to [bold]{escape(result.new)}[/] ({escape(result.label)}): "
              f"{_plural(result.moved, 'fact')} moved, {result.deduplicated:,} duplicate(s) folded; aliases now: "
              f"{escape(', '.join(result.aliases))}" + (f"; settings moved: {', '.join(result.settings)}"
                                                         if result.settings else ""), highlight=False)


@_command("predicates")
@graph_options()
def predicates(
    ctx: typer.Context,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """List the predicates in use, most facts first: id, label (first spelling), facts, current, aliases."""
    with _open_graph(ctx, read_only=True) as kg:
        page = kg.predicates_page(limit=limit, offset=offset)
    if _json_wanted(ctx):
        _emit({"predicates": [p.to_dict() for p in page], **page_result(page)})
        return
    if not page.items:
        out.print("no predicates" + _past(page, "predicate"))
        return
    table = Table(title=f"predicates ({_how_many(page, 'predicate')})", title_justify="left", header_style="bold",
                  box=box.SIMPLE_HEAD)
    for column in ("predicate", "label", "facts", "current", "aliases"):
        table.add_column(column, justify="right" if column in ("facts", "current") else "left")
    for row in page:
        table.add_row(escape(row.id), escape(row.label), f"{row.facts:,}", f"{row.current:,}",
                      escape(", ".join(row.aliases)))
    out.print(table)


@_command("config")
@graph_options()
def config(
    ctx: typer.Context,
    add_type: Annotated[list[str] | None, typer.Option("--add-type", help="Add an entity type (repeatable).")] = None,
    remove_type: Annotated[list[str] | None, typer.Option("--remove-type", help="Remove an entity type no entity has (repeatable).")] = None,
    add_value_predicate: Annotated[list[str] | None, typer.Option("--add-value-predicate", help="Predicate whose object is text.")] = None,
    remove_value_predicate: Annotated[list[str] | None, typer.Option("--remove-value-predicate")] = None,
    add_multi_valued: Annotated[list[str] | None, typer.Option("--add-multi-valued", help="Predicate left out of conflicts.")] = None,
    remove_multi_valued: Annotated[list[str] | None, typer.Option("--remove-multi-valued")] = None,
    add_single_valued: Annotated[list[str] | None, typer.Option("--add-single-valued", help="Predicate holding one object at a time (check reports overlaps).")] = None,
    remove_single_valued: Annotated[list[str] | None, typer.Option("--remove-single-valued")] = None,
    events: Annotated[bool | None, typer.Option("--events/--no-events", help="Every fact of the graph is an event (ICEWS, GDELT).")] = None,
    add_event_predicate: Annotated[list[str] | None, typer.Option("--add-event-predicate", help="Predicate whose facts are events (repeatable).")] = None,
    remove_event_predicate: Annotated[list[str] | None, typer.Option("--remove-event-predicate")] = None,
    comma_guard: Annotated[bool | None, typer.Option("--comma-guard/--no-comma-guard", help="Reject comma lists in names.")] = None,
    max_name_length: Annotated[int | None, typer.Option("--max-name-length", help="Longest name, alias or predicate written from now on (characters).")] = None,
    max_value_length: Annotated[int | None, typer.Option("--max-value-length", help="Longest value, source or memory text written from now on.")] = None,
) -> None:
    """Show or change the graph's settings: types, value predicates, multi- and single-valued predicates, events, comma guard, lengths."""
    changes = any(x for x in (add_type, remove_type, add_value_predicate, remove_value_predicate, add_multi_valued,
                              remove_multi_valued, add_single_valued, remove_single_valued, add_event_predicate,
                              remove_event_predicate)) or any(x is not None for x in (comma_guard, max_name_length,
                                                                                     max_value_length, events))
    with _open_graph(ctx, read_only=not changes) as kg:
        current = kg.config
        if changes:
            current = kg.configure(
                types=_edit_types(current.types, add_type, remove_type),
                value_predicates=_edit(current.value_predicates, add_value_predicate, remove_value_predicate),
                multi_valued=_edit(current.multi_valued, add_multi_valued, remove_multi_valued),
                single_valued=_edit(current.single_valued, add_single_valued, remove_single_valued),
                events=events,
                event_predicates=_edit(current.event_predicates, add_event_predicate, remove_event_predicate),
                comma_guard=comma_guard,
                max_name_length=max_name_length,
                max_value_length=max_value_length,
            )
    if _json_wanted(ctx):
        _emit(current.to_dict())
        return
    table = Table("setting", "value", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_row("types", escape(", ".join(sorted(map(printable, current.types)))))
    table.add_row("value predicates", escape(", ".join(sorted(map(printable, current.value_predicates)))))
    table.add_row("multi-valued", escape(", ".join(sorted(map(printable, current.multi_valued)))))
    table.add_row("single-valued", escape(", ".join(sorted(map(printable, current.single_valued)))))
    table.add_row("events", "every fact" if current.events else "off (single-day facts and event predicates only)")
    table.add_row("event predicates", escape(", ".join(sorted(map(printable, current.event_predicates)))))
    table.add_row("comma guard", "on" if current.comma_guard else "off")
    table.add_row("max name length", f"{current.max_name_length:,}")
    table.add_row("max value length", f"{current.max_value_length:,}")
    out.print(table)


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
        raise InvalidRequest("the type unknown cannot be removed: it is the type of every entity given none",
                             field="type", value="unknown")
    absent = sorted(removed - names)
    if absent:
        known = sorted(map(printable, names))
        raise UnknownType(f"type {absent[0]!r} is not in this graph's vocabulary ({', '.join(known)}); there is "
                          "nothing to remove", field="type", value=absent[0], suggestions=known)
    return names - removed


# ---------------------------------------------------------------------- reads


@_command("query")
@graph_options()
def query(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Entity (exact name or alias).")],
    direction: Annotated[str, typer.Option(help="outgoing, incoming or both.")] = "both",
    as_of: AsOf = None,
    known_at: KnownAt = None,
    current: Current = False,
    predicate: Predicates = None,
    other: Annotated[str | None, typer.Option("--other", help="Only facts whose other side is this entity.")] = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """Facts around one entity, oldest first, each flagged current and with its direction."""
    with _open_graph(ctx, read_only=True) as kg:
        entity = kg.resolve(name)
        facts = kg.query_page(name, direction=direction, as_of=as_of, known_at=known_at,  # type: ignore[arg-type]
                              current_only=current, predicates=predicate, other=other, limit=limit, offset=offset)
        labels = kg.predicate_labels()
    suffix = f" as of {as_of}" if as_of else ""
    _show_facts(ctx, facts, {"entity": entity}, title=f"{entity}{suffix}", direction=True, labels=labels)


@_command("search")
@graph_options()
def search(
    ctx: typer.Context,
    predicate: Annotated[str, typer.Argument(help="Relationship type.")],
    obj: Annotated[str | None, typer.Argument(metavar="[OBJECT]", help="Only facts pointing at this.")] = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    current: Current = False,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """Facts by relationship type, optionally pointing at one object ("what uses SQLite?")."""
    with _open_graph(ctx, read_only=True) as kg:
        facts = kg.search_page(predicate, obj, as_of=as_of, known_at=known_at, current_only=current, limit=limit,
                               offset=offset)
        labels = kg.predicate_labels()
    _show_facts(ctx, facts, {}, title=" ".join(x for x in (predicate, obj) if x), labels=labels)


@_command("timeline")
@graph_options()
def timeline(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="Entity (default: the whole graph).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only facts valid on or after this date.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only facts valid on or before this date.")] = None,
    predicate: Predicates = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> None:
    """Facts in order of valid_from (unknown starts last)."""
    with _open_graph(ctx, read_only=True) as kg:
        facts = kg.timeline_page(name, since=since, until=until, predicates=predicate, limit=limit, offset=offset)
        labels = kg.predicate_labels()
    _show_facts(ctx, facts, {}, title=f"timeline of {name}" if name else "timeline", labels=labels)


@_command("stats")
@graph_options()
def stats(ctx: typer.Context) -> None:
    """Counts: entities per type, facts, current, ended, events, value facts, predicates, aliases, memories."""
    with _open_graph(ctx, read_only=True) as kg:
        result = kg.stats()
        path = kg.location
    if _json_wanted(ctx):
        _emit({"path": str(path), **result.to_dict()})
        return
    table = Table(title=escape(str(path)), title_justify="left", show_header=False, box=box.SIMPLE)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows = [("entities", result.entities), *((f"  {k}", v) for k, v in result.entities_by_type.items()), ("facts", result.facts),
            ("current", result.current), ("scheduled", result.scheduled), ("ended", result.ended), ("events", result.events), ("value facts", result.value_facts),
            ("predicates", result.predicates), ("aliases", result.aliases), ("memories", result.memories)]
    for label, value in rows:
        table.add_row(escape(label), str(value))
    out.print(table)


@_command("conflicts")
@graph_options()
def conflicts(
    ctx: typer.Context,
    entity: Annotated[str | None, typer.Argument(help="Only this subject's conflicts.")] = None,
    current: Current = False,
    needs_action: Annotated[bool, typer.Option("--needs-action", help="Only groups with more than one current fact.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="At most this many groups (default: all).")] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Skip this many groups first.")] = 0,
) -> None:
    """(subject, predicate) pairs with more than one object; those with several current facts first.

    More than a few groups print as one compact table, a row per group."""
    with _open_graph(ctx, read_only=True) as kg:
        page = kg.conflicts_page(entity, current_only=current, needs_action=needs_action, limit=limit, offset=offset)
        needing = kg.conflicts_needing_action(entity, current_only=current)
        labels = kg.predicate_labels()
    if _json_wanted(ctx):
        _emit({**conflicts_result(page.items), **page_result(page), "needs_action_total": needing})
        return
    if not page.items:
        out.print("no conflicts" + _past(page, "group"))
        return
    heading = f"conflicts ({_how_many(page, 'group')}, {needing:,} needing action)"
    if page.count > COMPACT_GROUPS:
        _print_table(_groups_table(page.items, title=heading, labels=labels))
        return
    out.print(heading, highlight=False)
    for group in page:
        out.print(_facts_table(group.facts, title=_group_title(group, labels), labels=labels))


def _groups_table(groups: Iterable[ConflictGroup], *, title: str, labels: Mapping[str, str] | None = None) -> Table:
    """One row per conflict group: subject, predicate, its objects, how many are current, needs action."""
    table = Table(title=escape(title), title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for column in ("subject", "predicate", "objects", "current", "needs action"):
        table.add_column(column, justify="right" if column == "current" else "left")
    for group in groups:
        objects: list[str] = []
        for fact in group.facts:
            shown = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
            if shown not in objects:
                objects.append(shown)
        table.add_row(escape(group.subject_name), escape(_label(group.predicate, labels)), escape(", ".join(objects)),
                      str(group.current), "[bold red]yes[/]" if group.needs_action else "[dim]no[/]",
                      style=None if group.needs_action else "dim")
    return table


def _group_title(group: ConflictGroup, labels: Mapping[str, str] | None = None) -> str:
    flag = "  [bold red]needs action[/]" if group.needs_action else ""
    if group.planned_switch:
        flag += f"  planned switch at {escape(group.planned_switch)}"
    if group.suggestion:
        flag += f" (supersede at {escape(group.planned_switch or '')})"
    return (f"{escape(group.subject_name)} · {escape(_label(group.predicate, labels))}: {group.objects} objects, "
            f"{group.current} current{flag}")


@_command("summary")
@graph_options()
def summary(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(min=1, help="How many entities.")] = 20,
    style: Annotated[str, typer.Option(help="main (# Knowledge Graph) or subagent (## Known Facts).")] = "main",
    as_of: AsOf = None,
) -> None:
    """Compact Markdown of the top entities and their current facts, for a system prompt."""
    with _open_graph(ctx, read_only=True) as kg:
        text = kg.summary(limit, style=style, as_of=as_of)
    if _json_wanted(ctx):
        _emit({"markdown": text})
    else:
        out.out(text, end="", highlight=False)


@_command("tool", help="The agent tool: read one JSON request per line on stdin, write one JSON answer per line. "
                        f"Actions: {', '.join(registry())}; --schema prints their parameters.")
@graph_options(json=False)
def tool(
    ctx: typer.Context,
    schema: Annotated[bool, typer.Option("--schema", help="Print the tool's JSON schema (every action and parameter) and exit; opens no graph.")] = False,
) -> None:
    """The agent tool: read one JSON request per line on stdin, write one JSON answer per line."""
    if schema:
        _emit(TOOL_SCHEMA)
        return
    try:
        kg: KnowledgeGraph | None = _open_graph(ctx)
        failure = None
    except KGError as exc:
        kg, failure = None, envelope(error=exc)
    # Bytes in, UTF-8 bytes out, whatever the locale: a line that is not UTF-8 is refused by
    # run_tool like any other bad request, and the next line is still answered.
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    stdout = getattr(sys.stdout, "buffer", None)
    try:
        for line in stdin:
            if not line.strip():
                continue
            text, _ = answer_json(failure or run_tool(line, kg=kg))
            if stdout is not None:
                stdout.write(text.encode("utf-8") + b"\n")
                stdout.flush()
            else:  # a text-only stream (sys.stdout replaced by the caller)
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
    finally:
        if kg is not None:
            kg.close()


@contextmanager
def _progress_bar(label: str, *, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, fed by ``callback(done, total)``; nothing when disabled.

    When stderr is not a terminal (a log file, a CI job), a plain line every few seconds instead
    (``embedding: 12,000 of 90,730 (13%)``), so a long run is never silent.
    """
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        yield _progress_lines(label)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _progress_lines(label: str, *, every: float = 5.0) -> Callable[[int, int], None]:
    """``callback(done, total)`` writing a line to stderr every ``every`` seconds, and a last one at the end."""
    since = time.monotonic()
    wrote = False

    def update(done: int, total: int) -> None:
        nonlocal since, wrote
        finished = bool(total) and done >= total
        if time.monotonic() - since < every and not (finished and wrote):
            return
        share = f" ({done / total:.0%})" if total else ""
        sys.stderr.write(f"{label}: {done:,} of {total:,}{share}\n")
        sys.stderr.flush()
        since, wrote = time.monotonic(), not finished

    return update


def _mapping(pairs: list[str] | None) -> dict[str | int, str] | None:
    if not pairs:
        return None
    mapping: dict[str | int, str] = {}
    for pair in pairs:
        theirs, sep, ours = pair.partition("=")
        if not sep or not theirs.strip() or not ours.strip():
            raise InvalidRequest(f"--map takes THEIR_COLUMN=OUR_COLUMN (e.g. head=subject), not {pair!r}",
                                 field="map", value=pair)
        mapping[theirs.strip()] = ours.strip()
    return mapping


@_command("import")
@graph_options()
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="CSV, TSV, JSON Lines, Parquet, a kgtoolkit JSON dump, or another tool's SQLite graph.")],
    format: Annotated[str | None, typer.Option("--format", help="csv, tsv, jsonl, parquet, json or sqlite (default: from the suffix).")] = None,
    map_: Annotated[list[str] | None, typer.Option("--map", help="THEIR_COLUMN=OUR_COLUMN, e.g. head=subject (repeatable).")] = None,
    on_error: Annotated[str, typer.Option("--on-error", help="raise: import nothing if any row is bad; skip: import the good rows.")] = "raise",
    rejects: Annotated[Path | None, typer.Option("--rejects", help="Write the bad rows and their reasons here (CSV).")] = None,
    no_header: Annotated[bool, typer.Option("--no-header", help="CSV/TSV without a header row: columns are 0, 1, 2, … (map them with --map 0=subject).")] = False,
    delimiter: Annotated[str | None, typer.Option(help="Field separator, when the suffix does not tell.")] = None,
    allow_commas: Annotated[bool, typer.Option("--allow-commas", help="Accept commas in names (curated data such as 'Washington, D.C.').")] = False,
    source: Annotated[str | None, typer.Option(help="Source of rows that name none (default: agent).")] = None,
) -> None:
    """Import facts in bulk, in one transaction, with the rules of `add` (importing twice changes nothing)."""
    from .io import import_file

    if on_error not in ("raise", "skip"):
        raise InvalidRequest(f"--on-error must be raise or skip, not {on_error!r}", field="on_error", value=on_error)
    location = resolve(_chosen_db(ctx))
    new_file = location.path if location.kind == "sqlite" and not location.memory and location.path is not None \
        and not location.path.exists() else None
    refused = False
    try:
        with _open_graph(ctx) as kg, _progress_bar(f"importing {file.name}", enabled=not _json_wanted(ctx)) as bar:
            try:
                report = import_file(kg, file, format=format, columns=_mapping(map_), header=not no_header,
                                     delimiter=delimiter, on_error=on_error,  # type: ignore[arg-type]
                                     rejects=rejects, allow_commas=allow_commas, source=source, progress=bar)
            except BaseException:
                refused = new_file is not None and is_empty(kg)  # nobody else has written into it meanwhile
                raise
    finally:
        if refused and new_file is not None:  # a refused import into a new file leaves no empty graph behind
            for leftover in (new_file, Path(f"{new_file}-wal"), Path(f"{new_file}-shm")):
                leftover.unlink(missing_ok=True)
    if _json_wanted(ctx):
        _emit(report.to_dict())
        return
    out.print(f"{escape(str(file))}: {report.rows} rows read, [bold]{report.inserted}[/] facts added, "
              f"{report.duplicates} already present, {report.rejected} rejected; "
              f"{report.entities_created} entities created", highlight=False)
    if report.rejected and rejects is not None:
        out.print(f"rejected rows and reasons written to {escape(str(rejects))}", highlight=False)
    for warning in report.warnings[:20]:
        err.print(f"[yellow]warning[/] {escape(warning)}", highlight=False)


@_command("export")
@graph_options()
def export(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Where to write: .csv, .tsv, .jsonl, .parquet, or .json for a lossless dump.")],
    format: Annotated[str | None, typer.Option("--format", help="csv, tsv, jsonl, parquet or json (default: from the suffix).")] = None,
    as_of: AsOf = None,
    current: Current = False,
    predicate: Annotated[str | None, typer.Option(help="Only facts with this predicate.")] = None,
    entity: Annotated[str | None, typer.Option(help="Only facts about this entity.")] = None,
    escape_formulas: Annotated[bool, typer.Option("--escape-formulas/--no-escape-formulas", help="CSV/TSV: put a ' before text cells beginning with = + - @ (or a tab or CR) so spreadsheets show them as text instead of running them as formulas; `import` takes the ' off again. --no-escape-formulas writes cells as they are, for programs that are not spreadsheets.")] = True,
) -> None:
    """Export the facts (filtered, or all) to a file; `.json` writes a lossless dump of the whole graph."""
    from .io import export_file

    with _open_graph(ctx, read_only=True) as kg, _progress_bar(f"exporting {file.name}", enabled=not _json_wanted(ctx)) as bar:
        count = export_file(kg, file, format=format, as_of=as_of, current_only=current, predicate=predicate,
                            entity=entity, escape_formulas=escape_formulas, progress=bar)
    if _json_wanted(ctx):
        _emit({"path": str(file), "rows": count})
    else:
        out.print(f"{count} rows written to {escape(str(file))}", highlight=False)


@_command("copy")
@graph_options(db=False)
def copy(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="The graph to copy: a file, sqlite:///file or postgresql://… URL.")],
    target: Annotated[str, typer.Argument(help="Where to copy it (an empty database; created on first use).")],
    merge: Annotated[bool, typer.Option("--merge", help="Merge into a target that holds a graph already, by the rules of add (new ids, duplicates skipped).")] = False,
) -> None:
    """Copy a whole graph between SQLite and PostgreSQL (either way), losslessly: ids, times, aliases, memories, settings."""
    from .store import copy_graph

    with KnowledgeGraph(source, read_only=True) as src, KnowledgeGraph(target) as dst, \
            _progress_bar("copying", enabled=not _json_wanted(ctx)) as bar:
        report = copy_graph(src, dst, merge=merge, progress=bar)
    if _json_wanted(ctx):
        _emit(report.to_dict())
        return
    verb = "merged into" if report.merged else "copied to"
    out.print(f"{escape(report.source)} {verb} {escape(report.target)}: {report.facts} facts, {report.entities} entities, "
              f"{report.aliases} aliases, {report.memories} memories"
              + (f", {report.duplicates} already there" if report.merged else ""), highlight=False)
    for warning in report.warnings[:20]:
        err.print(f"[yellow]warning[/] {escape(warning)}", highlight=False)


@_command("report")
@graph_options()
def report(
    ctx: typer.Context,
    since: Annotated[str | None, typer.Option(help="First day (default: the first start or end).")] = None,
    until: Annotated[str | None, typer.Option(help="Last day (default: the last start or end).")] = None,
    every: Annotated[str, typer.Option(help="Period length: 1w, 1mo, 3mo, 1y, … (at most 100,000 periods).")] = "1mo",
    out_path: Annotated[Path, typer.Option("--out", help="HTML file to write; the Markdown summary goes beside it.")] = Path("report.html"),
) -> None:
    """Write a fact-churn report: a self-contained HTML page (charts embedded) and a Markdown summary."""
    from .report import churn_report

    with _open_graph(ctx, read_only=True) as kg:
        html, markdown = churn_report(kg, since=since, until=until, every=every, out=out_path)
    if _json_wanted(ctx):
        _emit({"html": str(html), "markdown": str(markdown)})
    else:
        out.print(f"report written to {escape(str(html))} and {escape(str(markdown))}", highlight=False)


@_command("generate")
@graph_options(db=False)
def generate(
    ctx: typer.Context,
    facts: Annotated[int, typer.Option("--facts", min=1, help="How many facts.")] = 10_000,
    seed: Annotated[int, typer.Option(min=0, help="Same seed, same graph.")] = 7,
    out_text: Annotated[str, typer.Option("--out", help="A .sqlite3 graph (imported), an empty PostgreSQL database (postgresql://…, imported), or .tsv/.csv/.parquet/.jsonl.")] = "generated.sqlite3",
    force: Annotated[bool, typer.Option("--force", help="Replace the file if it exists (a PostgreSQL graph is never replaced).")] = False,
) -> None:
    """Generate a synthetic graph (hubs and leaves, histories, switches, a few conflicts), seeded."""
    from .generate import add_generated, write_generated

    postgres = _postgres_out(out_text)
    out_path = Path(out_text)
    if postgres is None and out_path.exists() and not force:
        raise InvalidRequest(f"{out_path} exists; pass --force to replace it", field="out", value=str(out_path))
    if postgres is not None or out_path.suffix in (".sqlite3", ".sqlite", ".db"):
        if postgres is None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{out_path}{suffix}").unlink(missing_ok=True)
        with KnowledgeGraph(postgres or out_path) as kg, _progress_bar("importing", enabled=not _json_wanted(ctx)) as bar:
            if postgres is not None:
                _refuse_a_graph(kg, "generated graph")
            rows = add_generated(kg, facts, seed=seed, progress=bar).inserted
    else:
        rows = write_generated(out_path, facts, seed=seed)
    where = str(postgres or out_path)
    if _json_wanted(ctx):
        _emit({"path": where, "facts": rows, "seed": seed})
    else:
        out.print(f"{rows} facts (seed {seed}) written to {escape(where)}", highlight=False)


def _postgres_out(text: str) -> Location | None:
    """The PostgreSQL database an ``--out`` names, or None for a file (read as text: a Path would fold its ``//``)."""
    return resolve(text) if text.lower().startswith(("postgresql://", "postgres://")) else None


def _refuse_a_graph(kg: KnowledgeGraph, what: str) -> None:
    """A PostgreSQL ``--out`` must hold no graph yet: a shared graph is never replaced by generated data."""
    if not is_empty(kg):
        raise InvalidRequest(f"{kg.location} already holds a graph; the {what} goes into an empty PostgreSQL "
                             "database or schema (kgtoolkit never replaces a PostgreSQL graph, --force or not)",
                             field="out", value=str(kg.location))


@_command("mcp")
@graph_options(json=False)
def mcp_(
    ctx: typer.Context,
    print_config: Annotated[str | None, typer.Option("--print-config", metavar="CLIENT", help="Print the config snippet for CLIENT instead of serving: claude-code, claude-desktop, cursor, vscode, codex, gemini, zed or windsurf.")] = None,
) -> None:
    """Serve the graph over MCP (stdio) to agents: kg_add, kg_query, kg_supersede, … (one file, many agents)."""
    from .mcp_server import config_snippet, serve  # lazily: the mcp package is imported by `serve` only

    chosen = _chosen_db(ctx)
    if print_config is None:
        serve(chosen)
        return
    text, hint = config_snippet(print_config, chosen)
    err.print(f"[dim]# {escape(hint)}[/]", highlight=False)
    out.out(text, end="", highlight=False)


@_command("dashboard")
@graph_options(json=False)
def dashboard(
    ctx: typer.Context,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to serve on.")] = 8501,
    read_only: Annotated[bool, typer.Option("--read-only", help="Disable every change (for sharing).")] = False,
    host: Annotated[str, typer.Option("--host", help="Address to bind; loopback unless you mean to share it.")] = "127.0.0.1",
) -> None:
    """Start the Streamlit dashboard on the graph (graph, entity, conflicts, churn, search, import/export)."""
    import importlib.util
    import os

    chosen = _chosen_db(ctx)
    location = resolve(chosen)
    if location.memory:
        raise InvalidRequest("the dashboard needs a graph that outlives it, not :memory:", field="db", value=":memory:")
    from .dashboard import SCRIPT as script  # the Streamlit script ships inside the package

    for package in ("streamlit", "pyvis"):
        if importlib.util.find_spec(package) is None:
            raise missing_dependency(package, "dashboard", needed_for="the dashboard")
    if not script.is_file():
        raise InvalidRequest(f"the dashboard app is not at {script}; this installation of kgtoolkit is incomplete "
                             "(reinstall it: pip install --force-reinstall 'kgtoolkit[dashboard]')", field="dashboard",
                             value=str(script))
    if read_only and location.path is not None and not location.path.exists():
        raise InvalidRequest(f"no graph at {location}; read-only mode needs an existing file", field="db",
                             value=str(location))
    KnowledgeGraph(location, read_only=read_only).close()  # fail here, clearly; and create a new graph on first use
    target = str(location.path.resolve()) if location.path is not None else (location.url or "")
    env = {**os.environ, "KGTOOLKIT_DB": target, "KGTOOLKIT_DASHBOARD_READ_ONLY": "1" if read_only else "0"}
    # -P (safe path): the working directory is not put on sys.path, so a folder named kgtoolkit beside the
    # user (the parent of a clone, say) never shadows the installed package inside the server.
    command = [sys.executable, "-P", "-m", "streamlit", "run", str(script), "--server.address", host, "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
               "--server.runOnSave", "false", "--global.developmentMode", "false", "--theme.base", "light",
               "--client.toolbarMode", "minimal"]
    err.print(f"kgtoolkit dashboard on [bold]http://{host}:{port}[/] for {escape(str(location))}"
              f"{' (read-only)' if read_only else ''}; Ctrl-C stops it", highlight=False)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, command, env)  # the server replaces this process: signals reach it directly


ModelOption = Annotated[str | None, typer.Option("--model", help="sentence-transformers model folder (default: $KGTOOLKIT_SEARCH_MODEL, else the bundled all-MiniLM-L6-v2).", show_default=False)]


@_command("index")
@graph_options()
def index_(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Start the index over (cached embeddings are reused).")] = False,
    status: Annotated[bool, typer.Option("--status", help="Only say whether the index is fresh, stale or missing.")] = False,
    model: ModelOption = None,
) -> None:
    """Build or update the semantic search index beside the graph (only new or changed texts are embedded)."""
    from .search import SearchIndex  # lazily: torch and the model load only for search

    with _search_graph(ctx) as kg, SearchIndex.open(kg, model=model) as idx:
        if status:
            state = idx.status()
            if _json_wanted(ctx):
                _emit(state.to_dict())
            else:
                covered = ("nothing indexed yet; `kgtoolkit index` builds it" if state.state == "missing" else
                           f"the index holds {state.facts:,} facts and {state.memories:,} memories")
                out.print(f"{state.state}: {escape(state.reason)} ({covered}; in {escape(str(state.directory))})",
                          highlight=False)
            return
        with _progress_bar("embedding", enabled=not _json_wanted(ctx)) as bar:
            report = idx.sync(progress=bar, rebuild=rebuild)
    if _json_wanted(ctx):
        _emit(report.to_dict())
        return
    verb = "up to date" if report.state == "fresh" else f"{report.state} → updated"
    out.print(f"index {verb} ({escape(report.reason)}): facts {report.facts.total} ({report.facts.index_type}, "
              f"+{report.facts.added} ~{report.facts.changed} -{report.facts.removed}), memories {report.memories.total} "
              f"(+{report.memories.added} -{report.memories.removed}); {report.embedded} texts embedded, "
              f"{report.cached} from the cache, {report.seconds:.1f} s", highlight=False)


@_command("find")
@graph_options()
def find_(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for, in words.")],
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=1000, help="How many hits.")] = 10,
    kind: Annotated[str, typer.Option("--kind", help="facts, memories or both.")] = "facts",
    as_of: AsOf = None,
    current: Annotated[bool, typer.Option("--current", help="Only current facts, and memories that do not read as history.")] = False,
    mode: Annotated[str, typer.Option("--mode", help="hybrid (words, meaning and names fused), vector or lexical (words alone; no model).")] = "hybrid",
    rerank: Annotated[str | None, typer.Option("--rerank", help="graph: prefer facts near the entities the query names, and current facts.", show_default=False)] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each hit's lexical, vector, name and graph contributions.")] = False,
    model: ModelOption = None,
) -> None:
    """Search facts and memories by words and meaning; each hit is read against the graph (current? replaced by what, since when?)."""
    from .search import FactHit, find  # lazily: torch and the model load only for search

    with _search_graph(ctx) as kg, _progress_bar("embedding", enabled=not _json_wanted(ctx)) as bar:
        result = find(kg, query, k=k, kind=kind, as_of=as_of, current_only=current, mode=mode,  # type: ignore[arg-type]
                      rerank=rerank, explain=explain, model=model, progress=bar)
        labels = kg.predicate_labels()
    if _json_wanted(ctx):
        _emit(result.to_dict())
        return
    if not result.hits:
        out.print(f"{escape(query)}: nothing found", highlight=False)
        return
    table = Table(title=f"{escape(query)} ({len(result.hits)} hit{'s' * (len(result.hits) != 1)})", title_justify="left",
                  header_style="bold", box=box.SIMPLE_HEAD)
    columns = ("score", "hit", "graph", *(("lexical", "vector", "name", "graph rank") if explain else ()))
    for column in columns:
        table.add_column(column, justify="left" if column in ("hit", "graph") else "right")
    for hit in result.hits:
        score = f"{hit.score:.4f}" + (" [bold]=[/]" if hit.exact else "")
        signals: tuple[str, ...] = ()
        if hit.explain is not None:
            e = hit.explain
            signals = tuple("–" if r is None else f"#{r}" + (f" {s:.3g}" if s is not None else "")
                            for r, s in ((e.lexical_rank, e.lexical_score), (e.vector_rank, e.vector_score),
                                         (e.name_rank, None), (e.graph_rank, None)))
            if e.hops is not None:
                signals = (*signals[:3], f"{signals[3]} ({e.hops} hop{'s' * (e.hops != 1)})")
        if isinstance(hit, FactHit):
            f = hit.fact  # the predicate as people spell it (contract §13)
            span = f"{f.valid_from or '?'} … {f.valid_to or ''}".rstrip()
            what = escape(f"{f.subject_name} → {_label(f.predicate, labels)} → {f.object_name}  [{span}]")
            if hit.count > 1:
                what += f" [dim](×{hit.count:,}, {escape(hit.first or '?')} … {escape(hit.last or '?')})[/]"
            style = None if hit.current else "dim"
        else:
            text = hit.memory.text if len(hit.memory.text) <= 160 else hit.memory.text[:157] + "…"
            what = f"[italic]{escape(text)}[/] [dim]({escape(hit.memory.id)}{', ' + escape(hit.memory.source) if hit.memory.source else ''})[/]"
            style = "dim" if hit.status == "history" else None
        table.add_row(score, what, escape(hit.note), *signals, style=style)
    out.print(table)
    if result.named:
        err.print("[dim]= names " + ", ".join(escape(n.entity) for n in result.named) + " exactly: its facts are found by "
                  "name too[/]", highlight=False)


@_command("where")
@graph_options(json=False)
def where(ctx: typer.Context) -> None:
    """Print which graph the other commands use (--db, else $KGTOOLKIT_DB, else the default file)."""
    chosen = _chosen_db(ctx)
    out.out(str(resolve(chosen)), highlight=False)


@_command("demo")
def demo(
    ctx: typer.Context,
    out_text: Annotated[str, typer.Option("--out", help="Where to write the demo graph: a file, or an empty PostgreSQL database (postgresql://…).")] = "demo.sqlite3",
    force: Annotated[bool, typer.Option("--force", help="Replace the file if it exists (a PostgreSQL graph is never replaced).")] = False,
) -> None:
    """Build the demo graph (a small software organisation over two years) and show what it holds."""
    from ._demo import build_demo

    postgres = _postgres_out(out_text)
    if postgres is None:
        kg = build_demo(Path(out_text), force=force)
    else:  # built in a scratch file, then copied whole (ids, times, memories) into the empty database
        import tempfile

        from .store import copy_graph

        kg = KnowledgeGraph(postgres)
        try:
            _refuse_a_graph(kg, "demo graph")
            with tempfile.TemporaryDirectory(prefix="kgtoolkit-demo-") as folder, \
                    build_demo(Path(folder) / "demo.sqlite3") as built:
                copy_graph(built, kg)
        except BaseException:
            kg.close()
            raise
    with kg:
        result = kg.stats()
        text = kg.summary(8)
    where = str(postgres) if postgres is not None else str(Path(out_text))
    out.print(f"demo graph written to [bold]{escape(where)}[/]: {result.entities} entities, {result.facts} facts "
              f"({result.current} current), {result.aliases} aliases", highlight=False)
    out.out(text, end="", highlight=False)


# Commands registered on app by their own modules: clean-up (duplicates, not-duplicate, check) and
# multi-hop reads and diffs (neighbors, path, follow, diff).
from . import _cli_cleanup, _cli_traversal  # noqa: E402, F401


def main() -> None:
    """Entry point of the ``kgtoolkit`` script."""
    app()


if __name__ == "__main__":
    main()

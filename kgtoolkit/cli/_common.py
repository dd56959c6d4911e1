"""What every command shares: the Typer app, its global and shared options, and :func:`command`.

:func:`command` is the one runner of the CLI. A command body is the library call and how to draw its
result; the runner does the rest, the same way for every command:

1. it gives the command the shared ``--db`` and ``--json`` options (after the command's own; the global
   ones given before the command's name count too);
2. it opens the graph when the body takes ``kg`` (read-only when the command only reads), passes a
   :class:`Call` when the body takes ``call`` (the chosen graph, whether JSON is wanted, progress bars),
   and closes the graph when the body returns;
3. it renders the body's :class:`~kgtoolkit.cli._render.Answer`: JSON with ``--json``, else its table;
4. a library error prints ``error [code] message`` on stderr and exits with status 1 (``failure``: another); a
   library parameter the message names (``format=NAME``, ``on_error='skip'``, ``header=False``,
   ``columns={'head': 'subject'}``) is named as the command's option instead (``--format NAME``, ``--on-error
   skip``, ``--no-header``, ``--map head=subject``): :func:`for_cli`, for every parameter of the command that
   bears the library's name.

A read-only command whose table is one line::

    @command("facts", read_only=True)
    def facts(kg: KnowledgeGraph) -> Answer:
        result = kg.stats()
        return Answer(result.to_dict, lambda: out.print(f"{result.facts:,} facts"))

A body that must open the graph itself (only after checking its arguments, say) takes ``call`` instead
of ``kg`` and opens it with :meth:`Call.open`; a body that returns None has printed its own output.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.markup import escape
from typer.models import OptionInfo

from .._errors import KGError
from .._tool import registry
from ..graph import KnowledgeGraph
from ..store import migration_progress, resolve
from ._render import Answer, err, for_cli, naming, out

__all__ = [
    "AsOf",
    "Call",
    "Current",
    "DbOption",
    "JsonOption",
    "KnownAt",
    "Limit",
    "Offset",
    "Predicates",
    "Progress",
    "action_help",
    "app",
    "command",
    "for_search",
    "progress_bar",
    "progress_lines",
    "show_location",
]

app = typer.Typer(
    name="kgtoolkit",
    help="A temporal knowledge graph (an SQLite file, or PostgreSQL for a team): facts with the dates they held.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])
Progress = Callable[[int, int], None]
"""A progress callback, ``progress(done, total)``, as the library's long operations take it."""

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="The graph: a file path, sqlite:///file, or postgresql://user:password@host/database (default: $KGTOOLKIT_DB, else ~/.kgtoolkit/knowledge_graph.sqlite3).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="Only facts valid on this date (YYYY[-MM[-DD]] or ISO datetime).")
]
KnownAt = Annotated[
    str | None, typer.Option("--known-at", help="What the graph believed at this moment (transaction time).")
]
Current = Annotated[bool, typer.Option("--current", help="Only facts valid now (started, not yet ended).")]
Limit = Annotated[int | None, typer.Option("--limit", min=0, help="At most this many items (default: all).")]
Offset = Annotated[int, typer.Option("--offset", min=0, help="Skip this many items first.")]
Predicates = Annotated[list[str] | None, typer.Option("--predicate", help="Only facts of this predicate (repeatable).")]


@app.callback()
def _global(
    ctx: typer.Context,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """A temporal knowledge graph (an SQLite file, or PostgreSQL for a team): facts with the dates they held."""
    ctx.obj = {"db": db, "json": as_json}


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    """What a command was asked beyond its own parameters: the graph it names and whether it wants JSON.

    ``db`` is the command's own ``--db``, else the global one, else None (the store's rule decides:
    ``$KGTOOLKIT_DB``, else the default file); ``json`` is its own ``--json`` or the global one.
    """

    db: str | None = None
    json: bool = False

    def open(self, *, read_only: bool = False, create: bool = False) -> KnowledgeGraph:
        """The graph this call names, opened (read-only for what only reads; ``create``: made now if it does not
        exist, for a command that writes after reading)."""
        with upgrade_progress(enabled=not self.json):  # a big graph of an earlier version migrates here
            return KnowledgeGraph(self.db, read_only=read_only, create=create)

    def progress(self, label: str, *, before: str = "starting") -> AbstractContextManager[Progress | None]:
        """A progress bar on stderr for a long operation; none when the answer is JSON. ``before``: what it shows
        until the operation counts (say, while it reads or waits for a lock)."""
        return progress_bar(label, enabled=not self.json, before=before)


ReadOnlyRule = bool | Callable[[Call, Mapping[str, Any]], bool]
"""Whether a command opens its graph read-only: always, never, or as its parameters and graph say."""


def for_search(call: Call, params: Mapping[str, Any]) -> bool:
    """The graph for search: writable, as the first word search after a big import fills the full-text index in the
    database (and, on PostgreSQL, the embedding cache is a table of the database, so what one machine embeds
    serves the whole team); read-only only for a file that does not exist, so a search never makes an empty
    graph (the open then says there is none). A file this user cannot write opens read-only by itself."""
    location = resolve(call.db)
    return (
        location.kind == "sqlite" and not location.memory and location.path is not None and not location.path.exists()
    )


def _shared(db: bool, json: bool) -> list[inspect.Parameter]:
    extra: list[inspect.Parameter] = []
    if db:
        extra.append(inspect.Parameter("db", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=DbOption))
    if json:
        extra.append(inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=JsonOption))
    return extra


_INJECTED = ("kg", "call")  # what the runner passes a body; neither is a command-line parameter


def command(
    name: str,
    *,
    db: bool = True,
    json: bool = True,
    read_only: ReadOnlyRule = False,
    failure: int = 1,
    help: str | None = None,
    on: typer.Typer | None = None,
) -> Callable[[F], F]:
    """Register the decorated body as the command ``name``, run as the module docstring says.

    ``db`` / ``json``: whether the command takes the shared ``--db`` / ``--json``. ``read_only``: how the
    graph is opened for a body that takes ``kg``. ``failure``: the exit status of a library error.
    ``help``: the command's help instead of the body's docstring. ``on``: a group of commands
    (``kgtoolkit forecast evaluate``) instead of the top level. The body's other parameters are the
    command's own, declared with Typer's ``Annotated`` options and arguments.
    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        shared = _shared(db, json)
        clash = {p.name for p in shared} & set(signature.parameters)
        if clash:
            raise TypeError(f"{fn.__name__} declares {', '.join(sorted(clash))} itself; command() adds them")
        wants = {n for n in _INJECTED if n in signature.parameters}
        own = [p for p in signature.parameters.values() if p.name not in _INJECTED]
        flags = _flags(own)
        context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)

        @functools.wraps(fn)
        def run(ctx: typer.Context, **params: Any) -> None:
            own_db, own_json = params.pop("db", None), params.pop("as_json", False)
            given = ctx.obj or {}
            call = Call(own_db if own_db is not None else given.get("db"), bool(own_json) or bool(given.get("json")))
            with naming(flags):  # messages and warnings name this command's options
                try:
                    answer = _answer(fn, call, params, wants, read_only)
                    if answer is not None:
                        answer.render(call.json)
                except KGError as exc:
                    fail(exc, failure, flags)
            if answer is not None and answer.exit:
                raise typer.Exit(answer.exit)

        run.__signature__ = signature.replace(parameters=[context, *own, *shared])  # type: ignore[attr-defined]
        run.__annotations__ = {}  # Typer reads the signature above, whose annotations are already evaluated
        (on or app).command(name, help=help)(run)
        return fn

    return decorate


def _answer(
    fn: Callable[..., Answer | None], call: Call, params: dict[str, Any], wants: set[str], read_only: ReadOnlyRule
) -> Answer | None:
    """Call a command's body with what it asks for: its parameters, the :class:`Call`, the opened graph."""
    if "call" in wants:
        params["call"] = call
    if "kg" not in wants:
        return fn(**params)
    shut = read_only(call, params) if callable(read_only) else read_only
    with call.open(read_only=shut) as kg:
        return fn(kg=kg, **params)


def fail(exc: KGError, status: int = 1, flags: Mapping[str, tuple[str, str | None]] | None = None) -> NoReturn:
    """Print a library error as ``error [code] message`` on stderr and exit with ``status``; the library parameters
    it names are named as the command's options (``flags``, see :func:`~kgtoolkit.cli._render.for_cli`)."""
    message = for_cli(exc.message, flags)
    err.print(f"[bold red]error[/] [red]\\[{exc.code}][/] {escape(message)}", highlight=False)
    raise typer.Exit(status) from exc


def _flags(parameters: list[inspect.Parameter]) -> dict[str, tuple[str, str | None]]:
    """Each option of a command by its parameter's name: (its flag, its "off" flag of a ``--x/--no-x`` pair); an
    option whose flag is not its parameter's name (``out_path`` as ``--out``) is also found by its flag's name, the
    library's parameter it passes on."""
    flags: dict[str, tuple[str, str | None]] = {}
    by_flag: dict[str, tuple[str, str | None]] = {}
    for parameter in parameters:
        info = next((m for m in getattr(parameter.annotation, "__metadata__", ()) if isinstance(m, OptionInfo)), None)
        if info is None:
            continue
        declared = [d for d in (info.default, *(info.param_decls or ())) if isinstance(d, str) and d.startswith("-")]
        on, off = "--" + parameter.name.replace("_", "-"), None
        for decl in declared:
            first, _, second = decl.partition("/")
            if first.strip().startswith("--"):
                on, off = first.strip(), second.strip() or None
        flags[parameter.name] = (on, off)
        by_flag[on.removeprefix("--").replace("-", "_")] = (on, off)
    return by_flag | flags


def show_location(call: Call) -> None:
    """Print the graph a call names (what ``kgtoolkit where`` prints)."""
    out.out(str(resolve(call.db)), highlight=False)


def action_help(action: str, param: str) -> str:
    """The agent tool's description of ``param`` of ``action``: help text declared once, in the registry."""
    declared = registry()[action].param(param)
    if declared is None:
        raise KeyError(f"the agent action {action!r} has no parameter {param!r}")
    return declared.description


@contextmanager
def progress_bar(label: str, *, enabled: bool, before: str = "starting") -> Iterator[Progress | None]:
    """A rich progress bar on stderr, fed by ``callback(done, total)``; nothing when disabled.

    When stderr is not a terminal (a log file, a CI job), a plain line every few seconds instead
    (``embedding: 12,000 of 90,730 (13%)``), so a long run is never silent. The bar counts only what it was told:
    until the first call it shows ``before`` (what the operation does meanwhile: reading, waiting for a lock), and a
    total of 0 is "nothing to do", never "0 of 0".
    """
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        yield progress_lines(label)
        return
    from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    with Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None, count=before)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total or None, count=_count(done, total))

        yield update


@contextmanager
def upgrade_progress(*, enabled: bool) -> Iterator[None]:
    """A progress bar for the schema upgrade of a big graph opened meanwhile (contract §18's rollups are made from
    every fact then); nothing is shown for a graph that needs none, or a small one."""
    with contextlib.ExitStack() as stack:
        shown: list[Progress | None] = []

        def update(done: int, total: int) -> None:
            if not shown:
                shown.append(stack.enter_context(progress_bar("upgrading the graph (steps)", enabled=enabled)))
            if shown[0] is not None:
                shown[0](done, total)

        with migration_progress(update):
            yield


def progress_lines(label: str, *, every: float = 5.0) -> Progress:
    """``callback(done, total)`` writing a line to stderr every ``every`` seconds, and a last one at the end."""
    since = time.monotonic()
    wrote = False

    def update(done: int, total: int) -> None:
        nonlocal since, wrote
        finished = done >= total
        if time.monotonic() - since < every and not (finished and wrote):
            return
        share = f" ({done / total:.0%})" if total else ""
        sys.stderr.write(f"{label}: {_count(done, total)}{share}\n")
        sys.stderr.flush()
        since, wrote = time.monotonic(), not finished

    return update


def _count(done: int, total: int) -> str:
    """What a progress display says of ``progress(done, total)``: ``12,000 of 90,730``, or "nothing to do"."""
    return f"{done:,} of {total:,}" if total else ("nothing to do" if not done else f"{done:,}")

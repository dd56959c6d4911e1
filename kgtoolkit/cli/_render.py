"""How the CLI draws: the two consoles, JSON on stdout, the tables of facts, and the words that count.

Every command module renders through here, so a table of facts, a page header (``8 of 6,083 facts``)
and the JSON a command prints look the same whichever command prints them. Nothing here opens a graph.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment
from rich.table import Table

from .._names import inert, inert_json, printable_data
from .._page import Page
from .._records import Fact
from .._tool import facts_result, page_result

__all__ = [
    "Answer",
    "emit",
    "err",
    "facts_answer",
    "facts_table",
    "how_many",
    "label",
    "out",
    "past",
    "plural",
    "print_table",
    "warn",
]


class _InertConsole(Console):
    """A console whose text never drives the terminal: the one place the CLI's text reaches it (contract §2).

    A graph restored from a dump, copied, or written by another program may hold escape sequences; every
    text segment is made inert (:func:`~kgtoolkit._names.inert`) as it is written, after rich has laid it
    out; rich's own styles and controls are drawn as usual.
    """

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(s if s.control else Segment(inert(s.text), s.style) for s in buffer)


# Piped output keeps whole names: a wide page instead of the 80 columns rich assumes off a terminal.
out = _InertConsole(soft_wrap=True, width=None if sys.stdout.isatty() else 240)
err = _InertConsole(stderr=True, soft_wrap=True, width=None if sys.stderr.isatty() else 240)

RICH_ROWS = 200
"""Above this many rows a table is written as plain aligned text (rich takes ~1.5 ms a row)."""
CELL = 60
"""The longest cell of such a table; longer ones end in "…" (``--json`` holds them whole)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """What a command answers: its JSON (``data()``) and how it shows as a table (``show()``).

    Both are called after the graph is closed, only the one the call asks for: a command reads what both
    need (labels, counts) while the graph is open. ``exit``: the status to exit with once it is shown.
    """

    data: Callable[[], Any]
    show: Callable[[], None]
    exit: int = 0

    def render(self, as_json: bool) -> None:
        """Print the answer: JSON, or the table."""
        if as_json:
            emit(self.data())
        else:
            self.show()


def emit(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout (text an older version stored that is not valid Unicode: escaped)."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(printable_data(data), ensure_ascii=False, indent=2)
    out.out(inert_json(text), highlight=False)


def warn(warnings: Iterable[str]) -> None:
    """Each warning of a result on stderr: ``warning …``, naming the command's options (:func:`for_cli`)."""
    for warning in warnings:
        err.print(f"[yellow]warning[/] {escape(for_cli(warning))}", highlight=False)


# A library parameter named in a message as Python writes it: ``name=`` and its value, if any (a quoted text, a
# dict of texts, True/False, a number or an upper-case placeholder such as FILE); never inside a quoted value
# (``no entity 'limit=5'``).
_KEYWORD = re.compile(
    r"(?<![\w'\"-])([a-z][a-z0-9_]*)=(?:('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\{[^{}]*\}|True\b|False\b|[A-Z][A-Z_]*\b"
    r"|-?\d[\w.]*)|(?=[\s,;:.)]|$))"
)


def for_cli(message: str, flags: Mapping[str, tuple[str, str | None]] | None = None) -> str:
    """``message`` with each library parameter it names (``name=value``) that is one of ``flags`` (a command's
    options by parameter name, see ``kgtoolkit.cli._common._flags``; default: those of the command running, see
    :func:`naming`) written as that option on the command line.

    >>> for_cli("pass format=NAME, or on_error='skip' with header=False", {"format": ("--format", None),
    ...     "on_error": ("--on-error", None), "header": ("--header", "--no-header")})
    'pass --format NAME, or --on-error skip with --no-header'
    >>> for_cli("map them, e.g. columns={'head': 'subject'}", {"columns": ("--map", None)})
    'map them, e.g. --map head=subject'
    >>> for_cli("no entity 'limit=5'", {"limit": ("--limit", None)})
    "no entity 'limit=5'"
    """

    flags = (_FLAGS.get() or {}) if flags is None else flags

    def option(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if name not in flags:
            return match.group(0)
        on, off = flags[name]
        if value is None:
            return on
        if value in ("True", "False"):
            return on if value == "True" else off or f"no {on}"
        if value[0] in "'\"{":
            try:
                parsed = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                return match.group(0)
            if isinstance(parsed, dict):
                return " ".join(f"{on} {shlex.quote(f'{k}={v}')}" for k, v in parsed.items())
            return f"{on} {shlex.quote(str(parsed))}"
        return f"{on} {value}"

    return _KEYWORD.sub(option, message)


_FLAGS: ContextVar[Mapping[str, tuple[str, str | None]] | None] = ContextVar("kgtoolkit_cli_flags", default=None)


@contextmanager
def naming(flags: Mapping[str, tuple[str, str | None]]) -> Iterator[None]:
    """While a command runs: its options, which :func:`for_cli` names in its errors and warnings."""
    token = _FLAGS.set(flags)
    try:
        yield
    finally:
        _FLAGS.reset(token)


def label(predicate: str, labels: Mapping[str, str] | None) -> str:
    """The label a table shows for ``predicate``: its first spelling (contract §13), else its id."""
    return (labels or {}).get(predicate, predicate)


def facts_table(
    facts: Iterable[Fact], *, title: str | None = None, direction: bool = False, labels: Mapping[str, str] | None = None
) -> Table:
    """Facts as a table; the predicate column shows each predicate's label (``labels``, contract §13)."""
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("id", justify="right", style="dim")
    if direction:
        table.add_column("dir")
    for column in ("subject", "predicate", "object", "from", "to"):
        table.add_column(column)
    table.add_column("current")
    for fact in facts:
        row = [str(fact.id)]
        if direction:
            row.append("→" if fact.direction == "outgoing" else "←")
        obj = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
        row += [
            escape(fact.subject_name),
            escape(label(fact.predicate, labels)),
            escape(obj),
            fact.valid_from or "?",
            fact.valid_to or "",
        ]
        row.append(
            "[green]yes[/]"
            if fact.current
            else "[yellow]scheduled[/]"
            if fact.state == "scheduled"
            else "[magenta]event[/]"
            if fact.kind == "event"
            else "[dim]no[/]"
        )  # an event never ends (§12)
        table.add_row(*row, style=None if fact.current else "dim")
    return table


def print_table(table: Table) -> None:
    """Print ``table``: with rich when it is small, else as plain aligned columns in one write.

    Rich measures and wraps every cell: 6,083 facts took 9 s against 0.4 s to read them. The plain
    form keeps the columns, the header and the title, without colours or wrapping; a cell longer than
    60 characters is shortened with "…" (``--json`` answers every cell whole).
    """
    if table.row_count <= RICH_ROWS:
        out.print(table)
        return
    from rich.text import Text

    def cell(markup: object) -> str:
        text = Text.from_markup(str(markup)).plain
        return text if len(text) <= CELL else text[: CELL - 1] + "…"

    columns = [[cell(c.header), *(cell(v) for v in c.cells)] for c in table.columns]
    widths = [max(len(v) for v in col) for col in columns]
    right = [c.justify == "right" for c in table.columns]

    def line(i: int) -> str:
        return "  ".join(
            col[i].rjust(w) if r else col[i].ljust(w) for col, w, r in zip(columns, widths, right, strict=True)
        ).rstrip()

    title = [Text.from_markup(str(table.title)).plain] if table.title else []
    rule = "  ".join("─" * w for w in widths)
    text = "\n".join([*title, line(0), rule, *(line(i) for i in range(1, len(columns[0])))])
    sys.stdout.write(inert(text) + "\n")  # the plain form bypasses the console: inert here too
    sys.stdout.flush()


def plural(n: int, noun: str) -> str:
    """``1 fact``, ``6,083 facts``, ``2 aliases``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}{'es' if noun.endswith('s') else 's'}"


class Counted(Protocol):
    """A page of an answer: a :class:`Page`, or a record that counts like one (``Neighborhood``, ``Diff``)."""

    @property
    def count(self) -> int: ...

    @property
    def total(self) -> int: ...


def how_many(page: Counted, noun: str) -> str:
    """``8 of 6,083 facts`` (``3 facts`` when the page holds them all; ``1 fact``)."""
    return plural(page.total, noun) if page.count == page.total else f"{page.count:,} of {plural(page.total, noun)}"


def past(page: Page[Any], noun: str) -> str:
    """For an empty page of a non-empty answer: `` (offset 300 is past the 250 facts)``."""
    return f" (offset {page.offset:,} is past the {plural(page.total, noun)})" if page.total else ""


def facts_answer(
    page: Page[Fact],
    payload: Mapping[str, Any],
    *,
    title: str,
    direction: bool = False,
    labels: Mapping[str, str] | None = None,
) -> Answer:
    """A page of facts (query, search, timeline): the agent tool's result shape, or a table headed ``title (8 of
    6,083 facts)``."""

    def show() -> None:
        if not page.items:
            out.print(f"{escape(title)}: no facts{past(page, 'fact')}")
        else:
            print_table(
                facts_table(
                    page, title=f"{escape(title)} ({how_many(page, 'fact')})", direction=direction, labels=labels
                )
            )

    return Answer(lambda: {**facts_result(page, **payload), **page_result(page)}, show)

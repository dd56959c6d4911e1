"""The commands of multi-hop reads and diffs (contract §11): ``neighbors``, ``path``, ``follow``, ``diff``.

A thin layer over :meth:`KnowledgeGraph.neighbors`, :meth:`~KnowledgeGraph.paths`,
:meth:`~KnowledgeGraph.follow` and :meth:`~KnowledgeGraph.diff`. ``--json`` prints the library's records;
tables and path pictures (``billing —owned_by→ payments team —reports_to→ Dana``) otherwise. ``kgtoolkit
path`` with no entity does what it did before it named paths: print the graph's location (now ``kgtoolkit
where``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .._errors import InvalidRequest
from .._limits import DEFAULT_MAX_FACTS
from .._names import normalize_predicate
from .._records import Change, Diff, Fact, Neighborhood, Paths
from ..graph import KnowledgeGraph
from ._common import AsOf, Call, KnownAt, Limit, Offset, Predicates, command, show_location
from ._render import Answer, err, facts_table, how_many, out, plural, print_table

__all__ = ["diff", "follow", "neighbors", "path", "picture"]

Direction = Annotated[str, typer.Option("--direction", help="outgoing (subject to object), incoming or both.")]
During = Annotated[
    tuple[str, str] | None,
    typer.Option(
        "--during",
        metavar="START END",
        help="Hops whose validity overlaps this window (instead of --as-of). With neither, a hop is a current fact "
        "or an event that has occurred, at any date (an event is never current).",
        show_default=False,
    ),
]
MaxFacts = Annotated[
    int,
    typer.Option("--max-facts", min=1, help="Read at most this many facts (a hub is capped, and the answer says so)."),
]
TimeRespecting = Annotated[
    bool, typer.Option("--time-respecting", help="Each next fact starts no earlier than the previous one.")
]


def _hop(fact: Fact, labels: Mapping[str, str] | None) -> str:
    """One hop as a picture: ``—owned_by→ payments team`` (``←reports_to— Dana`` walked against it)."""
    said = (labels or {}).get(fact.predicate, fact.predicate)  # as people spell it (contract §13)
    if fact.direction == "incoming":
        return f"←{said}— {fact.subject_name}"
    obj = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
    return f"—{said}→ {obj}"


def picture(path: Sequence[Fact], labels: Mapping[str, str] | None = None) -> str:
    """A path as one line of text: ``billing —owned_by→ payments team —reports_to→ Dana``; ``labels``: each
    predicate's label (:meth:`~kgtoolkit.store.KnowledgeGraph.predicate_labels`), else its id."""
    if not path:
        return ""
    first = path[0]
    start = first.object_name if first.direction == "incoming" else first.subject_name
    return " ".join([start, *(_hop(f, labels) for f in path)])


def _note(record: Neighborhood | Paths) -> None:
    if record.note:
        err.print(f"[yellow]note:[/] {escape(record.note)}", highlight=False)


def paths_shown(found: Paths) -> str:
    """How many paths a page shows, in words: ``3 paths``, ``3 of 10 paths``, or, when the search stopped at the
    page's end without counting the rest (``total`` null, contract §11), ``3 paths shown; more exist: --offset 3``."""
    if found.total is None:
        more = f"; more exist: --offset {found.next_offset:,}" if found.next_offset is not None else ""
        return f"{plural(found.count, 'path')} shown{more}"
    return plural(found.count, "path") if found.total == found.count else f"{found.count:,} of {found.total:,} paths"


def _show_paths(found: Paths, title: str, labels: Mapping[str, str]) -> None:
    if not found.paths:
        if found.total is None and found.truncated:  # --limit 0: none asked for, some there
            out.print(f"{escape(title)}: none shown; some exist: raise --limit", highlight=False)
        else:
            out.print(
                f"{escape(title)}: none" + (f" (offset {found.offset:,} is past them)" if found.total else ""),
                highlight=False,
            )
    else:
        out.print(f"[bold]{escape(title)}[/] ({paths_shown(found)})", highlight=False)
        for number, p in enumerate(found.paths, start=found.offset + 1):
            dates = ", ".join(f"{f.valid_from or '?'}…{f.valid_to or ''}" for f in p)
            dated = any(f.valid_from or f.valid_to for f in p)
            out.print(
                f"{number:>3}. {escape(picture(p, labels))}" + (f"  [dim]{escape(dates)}[/]" if dated else ""),
                highlight=False,
            )
    _note(found)


@command("neighbors", read_only=True)
def neighbors(
    kg: KnowledgeGraph,
    name: Annotated[str, typer.Argument(help="Entity to start from (exact name or alias).")],
    hops: Annotated[int, typer.Option("--hops", help="How many hops, 1 to 4.")] = 1,
    direction: Direction = "both",
    predicate: Predicates = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    during: During = None,
    max_facts: MaxFacts = DEFAULT_MAX_FACTS,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """The entities and facts within a few hops of one entity."""
    found = kg.neighbors(
        name,
        hops=hops,
        direction=direction,  # type: ignore[arg-type]
        predicates=predicate,
        as_of=as_of,
        known_at=known_at,
        during=during,
        max_facts=max_facts,
        limit=limit,
        offset=offset,
    )
    labels = kg.predicate_labels()
    return Answer(found.to_dict, lambda: _show_neighbors(found, hops, labels))


def _show_neighbors(found: Neighborhood, hops: int, labels: Mapping[str, str]) -> None:
    shown = how_many(found, "fact")
    entities = f"{found.entity_total:,} {'entity' if found.entity_total == 1 else 'entities'}"
    title = f"{found.center} within {plural(hops, 'hop')} ({shown}, {entities})"
    if not found.facts:
        out.print(f"{escape(title)}: no facts", highlight=False)
    else:
        print_table(facts_table(found.facts, title=escape(title), direction=True, labels=labels))
        by_hop: dict[int, list[str]] = {}
        for r in found.entities:
            by_hop.setdefault(r.hops, []).append(r.name)
        for h, names in sorted(by_hop.items()):
            if h:
                out.print(f"[dim]{plural(h, 'hop')}:[/] {escape(', '.join(names))}", highlight=False)
    _note(found)


@command("path")
def path(
    call: Call,
    source: Annotated[
        str | None,
        typer.Argument(help="Entity the paths start at (none: print the graph's location, as `where` does)."),
    ] = None,
    target: Annotated[str | None, typer.Argument(help="Entity the paths end at.")] = None,
    max_hops: Annotated[int, typer.Option("--max-hops", help="The longest path, in facts, 1 to 4.")] = 4,
    direction: Direction = "both",
    predicate: Predicates = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    during: During = None,
    time_respecting: TimeRespecting = False,
    max_facts: MaxFacts = DEFAULT_MAX_FACTS,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="At most this many paths.")] = 10,
    offset: Offset = 0,
) -> Answer | None:
    """The shortest paths between two entities, each a chain of facts (no entity: the graph's location)."""
    if source is None:
        err.print(
            "[dim]note: `kgtoolkit path` with no entities prints the graph's location; that moved to "
            "`kgtoolkit where`[/]",
            highlight=False,
        )
        show_location(call)
        return None
    if target is None:
        raise InvalidRequest(
            "path takes two entities, SOURCE and TARGET (the graph's location: `kgtoolkit where`)", field="target"
        )
    with call.open(read_only=True) as kg:  # opened here: with no entity there is no graph to open
        found = kg.paths(
            source,
            target,
            max_hops=max_hops,
            direction=direction,  # type: ignore[arg-type]
            predicates=predicate,
            as_of=as_of,
            known_at=known_at,
            during=during,
            time_respecting=time_respecting,
            max_facts=max_facts,
            limit=limit,
            offset=offset,
        )
        labels = kg.predicate_labels()
    return Answer(found.to_dict, lambda: _show_paths(found, f"paths from {found.start} to {found.target}", labels))


@command("follow", read_only=True)
def follow(
    kg: KnowledgeGraph,
    name: Annotated[str, typer.Argument(help="Entity the chain starts at.")],
    predicates: Annotated[
        list[str],
        typer.Argument(metavar="PREDICATE...", help="The relationships to follow, in order, one hop each (1 to 4)."),
    ],
    direction: Direction = "outgoing",
    as_of: AsOf = None,
    known_at: KnownAt = None,
    during: During = None,
    time_respecting: TimeRespecting = False,
    max_facts: MaxFacts = DEFAULT_MAX_FACTS,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="At most this many branches.")] = 100,
    offset: Offset = 0,
) -> Answer:
    """Follow a chain of relationship types from one entity, every branch (billing owned_by reports_to → Dana)."""
    found = kg.follow(
        name,
        predicates,
        direction=direction,  # type: ignore[arg-type]
        as_of=as_of,
        known_at=known_at,
        during=during,
        time_respecting=time_respecting,
        max_facts=max_facts,
        limit=limit,
        offset=offset,
    )
    labels = kg.predicate_labels()
    return Answer(found.to_dict, lambda: _show_branches(found, predicates, labels))


def _show_branches(found: Paths, predicates: Sequence[str], labels: Mapping[str, str]) -> None:
    chain = " → ".join(labels.get(p, p) for p in (normalize_predicate(p) for p in predicates))
    ends = ", ".join(found.ends) if found.ends else "nothing"
    out.print(f"[bold]{escape(found.start)} {escape(chain)}[/]: {escape(ends)}", highlight=False)
    if found.paths:
        _show_paths(found, "branches", labels)
    else:
        _note(found)


_KIND_STYLE = {"began": "green", "ended": "red", "replaced": "yellow", "renewed": "cyan", "occurred": "magenta"}


def _object(fact: Fact | None) -> str:
    if fact is None:
        return ""
    return f'"{fact.object_name}"' if fact.object_is_value else fact.object_name


def _diff_table(changes: Sequence[Change], title: str, labels: Mapping[str, str]) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for column in ("at", "change", "subject", "predicate", "object"):
        table.add_column(column)
    for c in changes:
        if c.kind == "replaced":
            what = f"{escape(_object(c.old))} → {escape(_object(c.new))}"
        elif c.kind == "renewed":
            assert c.old is not None
            what = f"{escape(_object(c.new))} (again, after {escape(c.old.valid_from or '?')} … {escape(c.old.valid_to or '?')})"
        else:
            what = escape(_object(c.new if c.kind in ("began", "occurred") else c.old))
        style = _KIND_STYLE[c.kind]
        either = c.new or c.old
        subject = escape(either.subject_name if either is not None else c.subject)
        if c.old is not None and c.new is not None and c.old.subject != c.new.subject:  # a one holder's successor
            subject = f"{escape(c.old.subject_name)} → {escape(c.new.subject_name)}"
            what = escape(_object(c.new))
        table.add_row(
            escape(c.at), f"[{style}]{c.kind}[/]", subject, escape(labels.get(c.predicate, c.predicate)), what
        )
    return table


@command("diff", read_only=True)
def diff(
    kg: KnowledgeGraph,
    start: Annotated[str, typer.Option("--from", help="The first date of the window (included).")],
    end: Annotated[str, typer.Option("--to", help="The last date of the window (included).")],
    entity: Annotated[str | None, typer.Option("--entity", help="Only facts about this entity (either side).")] = None,
    predicate: Predicates = None,
    known: Annotated[
        bool,
        typer.Option(
            "--known",
            help="What the graph learned between the two moments (transaction time), not what changed in the world.",
        ),
    ] = False,
    renewals: Annotated[
        bool,
        typer.Option(
            "--renewals/--no-renewals",
            help="The same fact again back to back (a term renewed on its last day or the day after) is one change, "
            "renewed (default); --no-renewals shows its end and its start apart.",
        ),
    ] = True,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """What changed between two dates: facts that began, ended, were replaced (old → new object; a one-holder
    predicate's old → new holder) or renewed; events that occurred."""
    found: Diff = kg.diff(
        start,
        end,
        entity=entity,
        predicates=predicate,
        by="known" if known else "valid",
        limit=limit,
        offset=offset,
        renewals=renewals,
    )
    labels = kg.predicate_labels()
    return Answer(found.to_dict, lambda: _show_diff(found, known, labels))


def _show_diff(found: Diff, known: bool, labels: Mapping[str, str]) -> None:
    shown = how_many(found, "change")
    title = (
        f"{'learned' if known else 'changes'} {found.start} … {found.end} ({shown}: {found.began:,} began, "
        f"{found.ended:,} ended, {found.replaced:,} replaced"
        + (f", {found.renewed:,} renewed" if found.renewed else "")
        + (f", {found.occurred:,} events occurred)" if found.occurred else ")")
    )
    if not found.changes:
        out.print(f"{escape(title)}", highlight=False)
    else:
        print_table(_diff_table(found.changes, escape(title), labels))

"""The commands of facts: write them (``add``, ``invalidate``, ``supersede``), keep their evidence (``remember``),
and read them (``query``, ``search``, ``timeline``, ``conflicts``).

Each is the library call of the same name (:meth:`KnowledgeGraph.add`, …) run by :func:`._common.command`,
and how its answer reads as a table; ``--json`` prints the agent tool's result for the same request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .._errors import InvalidRequest
from .._limits import DEFAULT_HISTORY
from .._records import ConflictGroup
from .._tool import MAX_LIMIT, conflicts_result, page_result
from ..graph import KnowledgeGraph
from ._common import AsOf, Current, KnownAt, Limit, Offset, Predicates, action_help, command
from ._render import Answer, facts_answer, facts_table, how_many, label, out, past, print_table, warn

__all__ = [
    "COMPACT_GROUPS",
    "add",
    "conflicts",
    "invalidate",
    "query",
    "remember",
    "search",
    "supersede",
    "supersede_holder",
    "timeline",
]

COMPACT_GROUPS = 10
"""More conflict groups than this are printed as one compact table, a row per group."""


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


@command("add")
def add(
    kg: KnowledgeGraph,
    subject: Annotated[str, typer.Argument(help="Entity the fact is about.")],
    predicate: Annotated[
        str, typer.Argument(help="Relationship, e.g. uses_queue (or a value predicate such as email).")
    ],
    obj: Annotated[str, typer.Argument(metavar="OBJECT", help="Entity (or text, for value predicates) it points at.")],
    valid_from: Annotated[str | None, typer.Option("--from", "--valid-from", help="When it became true.")] = None,
    valid_to: Annotated[str | None, typer.Option("--to", "--valid-to", help="When it stopped (add history).")] = None,
    confidence: Annotated[float, typer.Option(help="0 to 1.")] = 1.0,
    source: Annotated[str | None, typer.Option(help="Who asserts it (default: agent).")] = None,
    source_closet: Annotated[
        str | None, typer.Option("--closet", "--source-closet", help="Pointer to the evidence, e.g. a memory id.")
    ] = None,
    subject_type: Annotated[
        str | None, typer.Option("--subject-type", help="person, company, project, event, … (see `config`).")
    ] = None,
    object_type: Annotated[str | None, typer.Option("--object-type", help="Type of the object entity.")] = None,
    prop: Annotated[
        list[str] | None, typer.Option("--property", "-p", help="KEY=VALUE property of the subject (repeatable).")
    ] = None,
    occurrence: Annotated[
        int | None,
        typer.Option(
            "--occurrence",
            help="Which occurrence of an event (2, 3, … when it happened again on the same day; default 1).",
        ),
    ] = None,
) -> Answer:
    """Add a fact (missing entities are created; an identical current fact is returned as is)."""
    result = kg.add(
        subject,
        predicate,
        obj,
        valid_from=valid_from,
        valid_to=valid_to,
        confidence=confidence,
        source=source,
        source_closet=source_closet,
        subject_type=subject_type,
        object_type=object_type,
        properties=_properties(prop),
        occurrence=occurrence,
    )
    labels = kg.predicate_labels()

    def show() -> None:
        verb = "added" if result.created else "already current, unchanged"
        out.print(facts_table([result.fact], title=verb, labels=labels))
        warn(result.warnings)

    return Answer(result.to_dict, show)


@command("invalidate")
def invalidate(
    kg: KnowledgeGraph,
    subject: Annotated[str, typer.Argument()],
    predicate: Annotated[str, typer.Argument()],
    obj: Annotated[str, typer.Argument(metavar="OBJECT")],
    ended: Annotated[str | None, typer.Option(help="When it stopped being true (default: today, UTC).")] = None,
    ended_by: Annotated[str | None, typer.Option("--ended-by", help="Who ended it (default: agent).")] = None,
) -> Answer:
    """End a current fact; it stays as history."""
    fact = kg.invalidate(subject, predicate, obj, ended=ended, ended_by=ended_by)
    labels = kg.predicate_labels()
    return Answer(
        lambda: {"fact": fact.to_dict()}, lambda: out.print(facts_table([fact], title="ended", labels=labels))
    )


@command("supersede")
def supersede(
    kg: KnowledgeGraph,
    subject: Annotated[str, typer.Argument()],
    predicate: Annotated[str, typer.Argument()],
    old_object: Annotated[str, typer.Argument(metavar="OLD")],
    new_object: Annotated[str, typer.Argument(metavar="NEW")],
    at: Annotated[str | None, typer.Option(help="When NEW replaced OLD (default: today, UTC).")] = None,
    confidence: Annotated[float, typer.Option(help="0 to 1, of NEW.")] = 1.0,
    source: Annotated[str | None, typer.Option(help="Who asserts it (default: agent).")] = None,
    source_closet: Annotated[
        str | None, typer.Option("--closet", "--source-closet", help="Pointer to the evidence.")
    ] = None,
    object_type: Annotated[str | None, typer.Option("--object-type", help="Type of NEW.")] = None,
) -> Answer:
    """Replace OLD with NEW at one moment: end the old fact and add the new one, atomically."""
    result = kg.supersede(
        subject,
        predicate,
        old_object,
        new_object,
        at=at,
        confidence=confidence,
        source=source,
        source_closet=source_closet,
        object_type=object_type,
    )
    labels = kg.predicate_labels()
    return Answer(
        result.to_dict, lambda: out.print(facts_table([result.old, result.new], title="superseded", labels=labels))
    )


@command("supersede-holder")
def supersede_holder(
    kg: KnowledgeGraph,
    obj: Annotated[str, typer.Argument(metavar="OBJECT")],
    predicate: Annotated[str, typer.Argument()],
    old_subject: Annotated[str, typer.Argument(metavar="OLD")],
    new_subject: Annotated[str, typer.Argument(metavar="NEW")],
    at: Annotated[str | None, typer.Option(help="When NEW took over from OLD (default: today, UTC).")] = None,
    confidence: Annotated[float, typer.Option(help="0 to 1, of NEW's fact.")] = 1.0,
    source: Annotated[str | None, typer.Option(help="Who asserts it (default: agent).")] = None,
    source_closet: Annotated[
        str | None, typer.Option("--closet", "--source-closet", help="Pointer to the evidence.")
    ] = None,
    subject_type: Annotated[str | None, typer.Option("--subject-type", help="Type of NEW.")] = None,
) -> Answer:
    """Hand OBJECT over from holder OLD to NEW at one moment (a one-holder predicate: holds_office), atomically."""
    result = kg.supersede_holder(
        obj,
        predicate,
        old_subject,
        new_subject,
        at=at,
        confidence=confidence,
        source=source,
        source_closet=source_closet,
        subject_type=subject_type,
    )
    labels = kg.predicate_labels()
    return Answer(
        result.to_dict, lambda: out.print(facts_table([result.old, result.new], title="superseded", labels=labels))
    )


def _metadata(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidRequest(
            f'--metadata takes a JSON object, e.g. \'{{"meeting": "design review"}}\', not {text!r}',
            field="metadata",
            value=text,
        ) from exc
    if not isinstance(value, dict):
        raise InvalidRequest(f"--metadata takes a JSON object, not {text!r}", field="metadata", value=text)
    return value


@command("remember")
def remember(
    kg: KnowledgeGraph,
    text: Annotated[str, typer.Argument(help=action_help("remember", "text"))],
    source: Annotated[str | None, typer.Option(help=action_help("remember", "source"))] = None,
    metadata: Annotated[
        str | None, typer.Option("--metadata", metavar="JSON", help=action_help("remember", "metadata"))
    ] = None,
) -> Answer:
    """Store a piece of evidence verbatim as a memory; a fact cites it with --closet ID, and `find` searches it."""
    memory = kg.remember(text, source=source, metadata=_metadata(metadata))
    origin = f" from {escape(memory.source)}" if memory.source else ""
    return Answer(
        lambda: {"memory": memory.to_dict()},
        lambda: out.print(
            f"remembered [bold]{escape(memory.id)}[/]{origin}; a fact cites it with --closet {escape(memory.id)}",
            highlight=False,
        ),
    )


# ---------------------------------------------------------------------- reads


@command("query", read_only=True)
def query(
    kg: KnowledgeGraph,
    name: Annotated[str, typer.Argument(help="Entity (exact name or alias).")],
    direction: Annotated[str, typer.Option(help="outgoing, incoming or both.")] = "both",
    as_of: AsOf = None,
    known_at: KnownAt = None,
    current: Current = False,
    predicate: Predicates = None,
    other: Annotated[str | None, typer.Option("--other", help="Only facts whose other side is this entity.")] = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """Facts around one entity, oldest first, each flagged current and with its direction."""
    entity = kg.resolve(name)
    facts = kg.query(
        name,
        direction=direction,  # type: ignore[arg-type]
        as_of=as_of,
        known_at=known_at,
        current_only=current,
        predicates=predicate,
        other=other,
        limit=limit,
        offset=offset,
    )
    suffix = f" as of {as_of}" if as_of else ""
    return facts_answer(
        facts, {"entity": entity}, title=f"{entity}{suffix}", direction=True, labels=kg.predicate_labels()
    )


@command("search", read_only=True)
def search(
    kg: KnowledgeGraph,
    predicate: Annotated[str, typer.Argument(help="Relationship type.")],
    obj: Annotated[str | None, typer.Argument(metavar="[OBJECT]", help="Only facts pointing at this.")] = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    current: Current = False,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """Facts by relationship type, optionally pointing at one object ("what uses SQLite?")."""
    facts = kg.by_predicate(
        predicate, obj, as_of=as_of, known_at=known_at, current_only=current, limit=limit, offset=offset
    )
    return facts_answer(facts, {}, title=" ".join(x for x in (predicate, obj) if x), labels=kg.predicate_labels())


@command("timeline", read_only=True)
def timeline(
    kg: KnowledgeGraph,
    name: Annotated[str | None, typer.Argument(help="Entity (default: the whole graph).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only facts valid on or after this date.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only facts valid on or before this date.")] = None,
    predicate: Predicates = None,
    limit: Limit = None,
    offset: Offset = 0,
) -> Answer:
    """Facts in order of valid_from (unknown starts last)."""
    facts = kg.timeline(name, since=since, until=until, predicates=predicate, limit=limit, offset=offset)
    return facts_answer(facts, {}, title=f"timeline of {name}" if name else "timeline", labels=kg.predicate_labels())


@command("conflicts", read_only=True)
def conflicts(
    kg: KnowledgeGraph,
    entity: Annotated[
        str | None,
        typer.Argument(help="Only this subject's conflicts (and, for one-holder predicates, this object's)."),
    ] = None,
    current: Current = False,
    needs_action: Annotated[
        bool, typer.Option("--needs-action", help="Only groups with more than one current fact.")
    ] = False,
    predicate: Annotated[
        list[str] | None, typer.Option("--predicate", help="Only the groups of this predicate (repeatable).")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=0, help="At most this many groups (default: all).")
    ] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Skip this many groups first.")] = 0,
    history: Annotated[
        int,
        typer.Option("--history", min=0, max=MAX_LIMIT, help="Ended facts listed per group, the last ended first."),
    ] = DEFAULT_HISTORY,
    history_offset: Annotated[
        int, typer.Option("--history-offset", min=0, help="Skip this many of each group's ended facts first.")
    ] = 0,
) -> Answer:
    """(subject, predicate) pairs with more than one object, (object, predicate) pairs of one-holder predicates with
    more than one subject; those with several current facts first.

    Each group lists its current and scheduled facts and its last ended ones (--history; page on with
    --history-offset). More than a few groups print as one compact table, a row per group."""
    page = kg.conflicts(
        entity,
        current_only=current,
        needs_action=needs_action,
        predicates=predicate,
        limit=limit,
        offset=offset,
        history=history,
        history_offset=history_offset,
    )
    needing = kg.conflicts_needing_action(entity, current_only=current, predicates=predicate)
    labels = kg.predicate_labels()

    def show() -> None:
        if not page.items:
            out.print("no conflicts" + past(page, "group"))
            return
        heading = f"conflicts ({how_many(page, 'group')}, {needing:,} needing action)"
        if page.count > COMPACT_GROUPS:
            print_table(_groups_table(page.items, title=heading, labels=labels))
            return
        out.print(heading, highlight=False)
        for group in page:
            out.print(facts_table(group.facts, title=_group_title(group, labels), labels=labels))
            if group.history_more:
                out.print(
                    f"  {group.history_more:,} more ended facts: --history-offset "
                    f"{group.history_offset + group.history_shown}",
                    highlight=False,
                )

    return Answer(lambda: {**conflicts_result(page.items), **page_result(page), "needs_action_total": needing}, show)


def _groups_table(groups: Iterable[ConflictGroup], *, title: str, labels: Mapping[str, str] | None = None) -> Table:
    """One row per conflict group: subject, predicate, its objects, how many are current, needs action."""
    table = Table(title=escape(title), title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for column in ("subject", "predicate", "objects", "current", "history", "needs action"):
        table.add_column(column, justify="right" if column == "current" else "left")
    for group in groups:
        objects: list[str] = []
        subjects: list[str] = []
        for fact in group.facts:
            shown = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
            if shown not in objects:
                objects.append(shown)
            if fact.subject_name not in subjects:
                subjects.append(fact.subject_name)
        # its subject, or the holders of its object (a one-holder predicate); those its page of history shows, and
        # how many in all when that page leaves some out
        if group.by == "object":
            objects = objects or [group.object_name or ""]
        else:
            subjects = [group.subject_name or ""]
        table.add_row(
            escape(", ".join(subjects) + (f" (of {group.subjects})" if group.subjects > len(subjects) else "")),
            escape(label(group.predicate, labels)),
            escape(", ".join(objects) + (f" (of {group.objects})" if group.objects > len(objects) else "")),
            str(group.current),
            f"{group.history_shown:,}" + (f" ({group.history_more:,} more)" if group.history_more else ""),
            "[bold red]yes[/]" if group.needs_action else "[dim]no[/]",
            style=None if group.needs_action else "dim",
        )
    return table


def _group_title(group: ConflictGroup, labels: Mapping[str, str] | None = None) -> str:
    flag = "  [bold red]needs action[/]" if group.needs_action else ""
    if group.planned_switch:
        flag += f"  planned switch at {escape(group.planned_switch)}"
    if group.suggestion:
        flag += f" ({group.suggestion['action'].replace('_', '-')} at {escape(group.planned_switch or '')})"
    if group.by == "object":  # a one-holder predicate: the holders of one object
        return (
            f"{escape(group.object_name or '')} · {escape(label(group.predicate, labels))}: {group.subjects} holders, "
            f"{group.current} current{flag}"
        )
    return (
        f"{escape(group.subject_name or '')} · {escape(label(group.predicate, labels))}: {group.objects} objects, "
        f"{group.current} current{flag}"
    )

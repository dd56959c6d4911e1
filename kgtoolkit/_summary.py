"""The prompt summary (contract §5 ``summary``): what the graph holds, for an agent's system prompt.

The summary goes into a prompt, so every fact it would print passes the screen of
:mod:`kgtoolkit._screen` first (names and predicates, and a value fact's text strictly); a fact that
reads like instructions to the model is withheld, and the summary says how many were and why (reason
codes, never the payload). Names and values are printed as Markdown code spans (:func:`quoted`), so no
link, image or tag in them renders.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ._errors import InvalidRequest
from ._records import Fact
from ._screen import REASONS, looks_like_injection, screen
from ._time import TimeInput

if TYPE_CHECKING:
    from .store import GraphStore

__all__ = ["looks_like_injection", "quoted", "summary"]

_STYLES = {"main": "# Knowledge Graph", "subagent": "## Known Facts"}
_PER_ENTITY = 12

_MARKDOWN = re.compile(r"([\\`*\[\]<>!|#~])")


def quoted(text: str) -> str:
    """``text`` as a Markdown code span: shown as it is, never read as Markdown or HTML (no link, image or
    tag inside a code span renders). The fence is longer than any run of backticks in the text."""
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _plain_markdown(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)


def _line(fact: Fact, entity_id: str, labels: Mapping[str, str] | None = None, *, span: bool = True) -> str:
    """One fact's line; its predicate shown by its label (its first spelling, contract §13); ``span``: its dates
    (``since``, and ``until`` a planned end of a current fact, contract §4)."""
    dates = [f"since {fact.valid_from}"] if fact.valid_from and span else []
    if fact.valid_to and span:
        dates.append(f"until {fact.valid_to}")
    when = f" ({', '.join(dates)})" if dates else ""
    predicate = _plain_markdown((labels or {}).get(fact.predicate, fact.predicate))
    if fact.subject == entity_id:
        return f"- {predicate} → {quoted(fact.object_name)}{when}"
    return f"- {quoted(fact.subject_name)} → {predicate} → {quoted(fact.object_name)}{when}"


def _planned(fact: Fact, entity_id: str, labels: Mapping[str, str] | None = None) -> str:
    """A scheduled fact on the ``Planned:`` line: ``predicate → object from 2027-06-01`` (``until`` its end)."""
    until = f" until {fact.valid_to}" if fact.valid_to else ""
    return f"{_line(fact, entity_id, labels, span=False)[2:]} from {fact.valid_from}{until}"


def _reasons(fact: Fact, label: str | None = None) -> tuple[str, ...]:
    """Why the summary withholds a fact (reason codes of :func:`kgtoolkit._screen.screen`), if it does:
    names and predicates (the id and the label shown) are screened; a value fact's text strictly."""
    found: list[str] = []
    texts = (
        (fact.subject_name, False),
        (fact.predicate, False),
        (label or fact.predicate, False),
        (fact.object_name, fact.object_is_value),
    )
    for text, strict in texts:
        found += [r for r in screen(text, strict=strict) if r not in found]
    return tuple(found)


def summary(kg: GraphStore, *, limit: int = 20, style: str = "main", as_of: TimeInput | None = None) -> str:
    """Compact Markdown of the top entities (by current-fact count) and their current facts.

    ``style="main"`` heads it ``# Knowledge Graph``, ``"subagent"`` ``## Known Facts``. With
    ``as_of``, "current" means valid on that date. Without it, scheduled facts (contract §4: starting after
    now) are not current: an entity's are listed on one ``Planned:`` line, screened alike. Each fact is printed once, under the first
    listed entity it touches; facts that look like prompt injection are withheld and counted.
    """
    if style not in _STYLES:
        raise InvalidRequest(f"style must be 'main' or 'subagent', not {style!r}", field="style", value=str(style))
    heading = _STYLES[style]
    sub = "#" * (heading.count("#") + 1)
    top = kg.top_entities(limit, as_of=as_of)
    if not top:
        events = kg.stats().events if as_of is None else 0
        held = f" It records {events:,} events: ask for them by date (timeline, diff)." if events else ""
        return f"{heading}\n\n_The graph holds no current facts._{held}\n"
    lines = [heading, ""]
    labels = kg.predicate_labels()
    if as_of is not None:
        lines += [f"_Facts valid on {as_of}._", ""]
    printed: set[int] = set()
    withheld: set[int] = set()
    reasons: Counter[str] = Counter()
    for entity, _count in top:
        facts = kg.query(entity.id, as_of=as_of)
        shown: list[str] = []
        planned: list[str] = []
        more = 0
        for fact in facts:
            state = "current" if as_of is not None else fact.state
            if state in ("ended", "occurred") or fact.id in printed or fact.id in withheld:  # events: §12
                continue
            why = _reasons(fact, labels.get(fact.predicate))
            if why:
                withheld.add(fact.id)
                reasons.update(why)
                continue
            printed.add(fact.id)
            if state == "scheduled":
                if len(planned) < _PER_ENTITY:
                    planned.append(_planned(fact, entity.id, labels))
                else:
                    more += 1
            elif len(shown) < _PER_ENTITY:
                shown.append(_line(fact, entity.id, labels))
            else:
                more += 1
        if not shown:
            continue
        kind = f" ({entity.type})" if entity.type != "unknown" else ""
        lines.append(f"{sub} {quoted(entity.name)}{kind}")
        lines += shown
        if planned:
            lines.append(f"- Planned: {'; '.join(planned)}")
        if more:
            lines.append(f"- … and {more} more")
        lines.append("")
    if withheld:
        listed = ", ".join(
            f"{REASONS[code]} ({n})" for code, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        lines.append(
            f"_{len(withheld)} fact(s) withheld from this summary: {listed}. They are in the graph "
            "(query them to see them)._"
        )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"

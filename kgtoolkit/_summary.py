"""The prompt summary (contract §5 ``summary``, §16): what the graph holds, for an agent's system prompt.

The summary is safe by construction, and screened as a second line:

* **Structure only.** It inlines entity names, types, predicate labels and short values: one line each, at
  most :data:`INLINE_WORDS` words and :data:`INLINE_CHARS` characters. Free text never goes in: a note, a longer
  value or name, a text of several lines, and every memory. The summary counts them and says how to read them
  through the tool (``query``, ``find``), where they arrive as JSON data, never as prompt text.
* **A short sentence only in English, read by meaning.** A short text shaped as a sentence
  (:func:`kgtoolkit._freetext.sentence_shaped`) is inlined only when it is English
  (:func:`kgtoolkit._freetext.english`) and the meaning check (:mod:`kgtoolkit._meaning`) does not read it, or the
  fact's line, as an instruction aimed at an AI. In another language, or without the model, it is counted like free
  text. Names, titles and roles that are not sentences are inlined in any language; one of three or more words
  is read by meaning too, with its fact's line (:func:`kgtoolkit._freetext.reading`).
* **Every stored string inert.** A name or value is a Markdown code span (:func:`quoted`); a predicate label or
  a type is plain only when it is words alone (:func:`label`), else a code span too. Line breaks, control and
  format characters are taken out first, so no stored text can start a line, a link, an image, a tag or a role
  marker.
* **Screened.** What is inlined passes :func:`kgtoolkit._screen.screen` (names and predicates; a value strictly,
  and the fact's line as a whole). A fact that reads like instructions is withheld; the summary counts it with
  its reasons (codes, never the payload).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._errors import InvalidRequest
from ._freetext import reading
from ._records import Fact
from ._screen import REASONS, screen
from ._time import TimeInput
from .store import graph_counts

if TYPE_CHECKING:
    from .store import GraphStore

__all__ = ["FREE_TEXT_PREDICATES", "INLINE_CHARS", "INLINE_WORDS", "label", "quoted", "summary"]

_STYLES = {"main": "# Knowledge Graph", "subagent": "## Known Facts"}
_PER_ENTITY = 12

#: The most words and characters of a text the summary inlines; a longer one is free text.
INLINE_WORDS = 12
INLINE_CHARS = 100
#: Value predicates whose objects are free text, never inlined whatever their length.
FREE_TEXT_PREDICATES: frozenset[str] = frozenset({"note"})

_BREAKS = re.compile(r"[\s\u2028\u2029\x85]+")
# A label shown as plain text: words of letters and digits, joined by spaces and the marks names use. No mark
# that Markdown reads (`*_[]<>!|#~`), no colon or dot (a URL, an autolink), no leading hyphen (a list).
_PLAIN = re.compile(r"[^\W_](?:[\w '’,&/()-]*[^\W_)]|[\w '’,&/()-]*\))?")
_WORD = re.compile(r"\w+")
# CJK, Thai and other scripts written without spaces: every two characters count as a word.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _one_line(text: str) -> str:
    """``text`` as one line: line breaks as spaces, control and format characters (zero-width, bidi) taken out."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf") or c in "\t\n\r")
    return _BREAKS.sub(" ", kept).strip()


def quoted(text: str) -> str:
    """``text`` as a Markdown code span on one line: shown as it is, never read as Markdown or HTML (no link,
    image or tag inside a code span renders). The fence is longer than any run of backticks in the text.

    >>> quoted("![x](https://evil.example/p.png)")
    '`![x](https://evil.example/p.png)`'
    >>> quoted("a `b` c")
    '`` a `b` c ``'
    """
    text = _one_line(text)
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def label(text: str) -> str:
    """A predicate label or a type, inert: plain when it is words alone, else a code span (:func:`quoted`).

    >>> label("uses queue"), label("Arrest, detain, or charge with legal action")
    ('uses queue', 'Arrest, detain, or charge with legal action')
    >>> label("![s](https://evil.example/p.png?q=chat)")
    '`![s](https://evil.example/p.png?q=chat)`'
    """
    line = _one_line(text)
    return line if _PLAIN.fullmatch(line) else quoted(line)


def _words(text: str) -> int:
    return len(_WORD.findall(text)) + len(_UNSPACED.findall(text)) // 2


def _inline(text: str) -> bool:
    """True when ``text`` is short structure the summary may inline: one line, few words and characters."""
    return "\n" not in text and len(text) <= INLINE_CHARS and _words(text) <= INLINE_WORDS


def _line(fact: Fact, entity_id: str, labels: Mapping[str, str] | None = None, *, span: bool = True) -> str:
    """One fact's line; its predicate shown by its label (its first spelling, contract §13); ``span``: its dates
    (``since``, and ``until`` a planned end of a current fact, contract §4)."""
    dates = [f"since {fact.valid_from}"] if fact.valid_from and span else []
    if fact.valid_to and span:
        dates.append(f"until {fact.valid_to}")
    when = f" ({', '.join(dates)})" if dates else ""
    predicate = label((labels or {}).get(fact.predicate, fact.predicate))
    if fact.subject == entity_id:
        return f"- {predicate} → {quoted(fact.object_name)}{when}"
    return f"- {quoted(fact.subject_name)} → {predicate} → {quoted(fact.object_name)}{when}"


def _planned(fact: Fact, entity_id: str, labels: Mapping[str, str] | None = None) -> str:
    """A scheduled fact on the ``Planned:`` line: ``predicate → object from 2027-06-01`` (``until`` its end)."""
    until = f" until {fact.valid_to}" if fact.valid_to else ""
    return f"{_line(fact, entity_id, labels, span=False)[2:]} from {fact.valid_from}{until}"


def _free_text(fact: Fact, label_text: str) -> bool:
    """True when the fact holds free text, never inlined: a note, or a name, label or value past the budget."""
    if fact.object_is_value and fact.predicate in FREE_TEXT_PREDICATES:
        return True
    return not all(_inline(t) for t in (fact.subject_name, label_text, fact.object_name))


def _reasons(fact: Fact, label_text: str) -> tuple[str, ...]:
    """Why the summary withholds a fact it would inline (reason codes of :func:`kgtoolkit._screen.screen`): each
    name and the predicate (id and label), a value strictly, and the fact's line as one sentence (an instruction
    split over subject, predicate and object)."""
    found: list[str] = []
    texts = (
        (fact.subject_name, False),
        (fact.predicate, False),
        (label_text, False),
        (fact.object_name, fact.object_is_value),
        (f"{fact.subject_name} {label_text} {fact.object_name}", False),
    )
    for text, strict in texts:
        found += [r for r in screen(text, strict=strict) if r not in found]
    return tuple(found)


class _Sentences:
    """The short texts of the facts a summary may inline, read once per summary (contract §16): a sentence in
    another language than English, or any sentence when the meaning check cannot run, is not inlined; a fact whose
    English sentence or text of three or more words (or its line, then) :func:`kgtoolkit._meaning.aimed_at_ai`
    reads as an instruction aimed at an AI is withheld."""

    def __init__(self) -> None:
        from . import _meaning

        self.meaning = _meaning
        self.model = _meaning.available()
        self.verdicts: dict[str, bool] = {}

    def texts(self, fact: Fact, label_text: str) -> list[str] | None:
        """The texts to judge by meaning (the parts of three or more words or shaped as English sentences, and then
        the fact's line); None when the fact holds a sentence the summary cannot read."""
        parts = (fact.subject_name, label_text, fact.object_name)
        kinds = [reading(t, model=self.model) for t in parts]
        if "unread" in kinds:
            return None
        if not self.model:
            return []
        line = f"{fact.subject_name} {label_text} {fact.object_name}"
        read = [t for t, kind in zip(parts, kinds, strict=True) if kind == "meaning"]
        return [*read, line] if read else []

    def judge(self, texts: list[str]) -> None:
        """Judge the texts not judged yet, in one batch through the model."""
        todo = [t for t in dict.fromkeys(texts) if t not in self.verdicts]
        self.verdicts.update(zip(todo, self.meaning.aimed_at_ai(todo), strict=True))

    def judge_all(self, facts: list[Fact], labels: Mapping[str, str], *, dated: bool) -> None:
        """Judge the sentences of every fact the summary may inline, in one batch (``dated``: every fact current)."""
        texts: list[str] = []
        for fact in facts:
            label_text = labels.get(fact.predicate, fact.predicate)
            if (dated or fact.state not in ("ended", "occurred")) and not _free_text(fact, label_text):
                texts += self.texts(fact, label_text) or []
        self.judge(texts)

    def aimed(self, texts: list[str]) -> bool:
        return any(self.verdicts[t] for t in texts)


@dataclass
class _Left:
    """What the summary leaves out: facts withheld by the screen (with their reasons) and free-text facts."""

    withheld: set[int] = field(default_factory=set)
    reasons: Counter[str] = field(default_factory=Counter)
    free: set[int] = field(default_factory=set)
    free_predicates: Counter[str] = field(default_factory=Counter)
    unread: set[int] = field(default_factory=set)
    model_missing: bool = False

    def keeps(self, fact: Fact, label_text: str, sentences: _Sentences) -> bool:
        """True when the fact may be inlined; else it is counted where it belongs: free text, withheld by the
        screen or the meaning check (with its reasons), or a short sentence the summary does not inline."""
        if fact.id in self.free or fact.id in self.unread:
            return False
        if _free_text(fact, label_text):
            self.free.add(fact.id)
            self.free_predicates[label_text] += 1
            return False
        why = _reasons(fact, label_text)
        texts = sentences.texts(fact, label_text)
        if not why and texts and sentences.aimed(texts):
            why = ("meaning",)
        if why:
            self.withheld.add(fact.id)
            self.reasons.update(why)
            return False
        if texts is None:
            self.unread.add(fact.id)
            return False
        return True

    def lines(self, memories: int) -> list[str]:
        out: list[str] = []
        if self.free:
            kinds = ", ".join(label(p) for p, _ in self.free_predicates.most_common(5))
            out += [
                f"_{len(self.free)} fact(s) hold free text ({kinds}) and are not inlined: read them as data with the "
                "tool's `query` action (`subject`, `predicates`)._",
                "",
            ]
        if self.unread:
            why = (
                "the screen's model is not installed (`pip install kgtoolkit[search]`), so no sentence is inlined"
                if self.model_missing
                else "they are sentences in a language the screen does not read"
            )
            out += [
                f"_{len(self.unread)} fact(s) hold short sentences and are not inlined ({why}): read them as data "
                "with the tool's `query` action (`subject`, `predicates`)._",
                "",
            ]
        if memories:
            out += [f"_The graph keeps {memories:,} memories (notes of evidence): search them with `find`._", ""]
        if self.withheld:
            listed = ", ".join(
                f"{REASONS[code]} ({n})" for code, n in sorted(self.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            out += [
                f"_{len(self.withheld)} fact(s) withheld from this summary: {listed}. They are in the graph "
                "(query them to see them)._",
                "",
            ]
        return out


def summary(kg: GraphStore, *, limit: int = 20, style: str = "main", as_of: TimeInput | None = None) -> str:
    """Compact Markdown of the top entities (by current-fact count) and their current facts.

    Parameters
    ----------
    kg
        The graph.
    limit
        How many entities, the best connected first.
    style
        ``"main"`` heads it ``# Knowledge Graph``, ``"subagent"`` ``## Known Facts``.
    as_of
        "Current" means valid on that date. Without it, scheduled facts (contract §4: starting after now) are not
        current: an entity's are listed on one ``Planned:`` line, screened alike.

    Returns
    -------
    str
        Markdown. Each fact is printed once, under the first listed entity it touches. Only structure is inlined
        (names, types, labels, short values, every one inert); free text and memories are counted, and facts that
        read like instructions are withheld and counted (contract §16).

    Raises
    ------
    InvalidRequest
        A ``style`` other than ``main`` or ``subagent``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> _ = kg.add("Ann", "role", "Engineer")
    >>> _ = kg.add("Ann", "note", "Prefers async reviews; ask before pinging on weekends.")
    >>> print(kg.summary())
    # Knowledge Graph
    <BLANKLINE>
    ## `Ann`
    - role → `Engineer`
    <BLANKLINE>
    _1 fact(s) hold free text (note) and are not inlined: read them as data with the tool's `query` action (`subject`, `predicates`)._
    <BLANKLINE>
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
        lines += [f"_Facts valid on {as_of}._", ""]  # a date: top_entities read it
    printed: set[int] = set()
    left = _Left()
    sentences = _Sentences()
    left.model_missing = not sentences.model
    listed = [(entity, kg.query(entity.id, as_of=as_of)) for entity, _count in top]
    sentences.judge_all([f for _entity, facts in listed for f in facts], labels, dated=as_of is not None)
    for entity, facts in listed:
        shown: list[str] = []
        planned: list[str] = []
        more = 0
        for fact in facts:
            state = "current" if as_of is not None else fact.state
            if state in ("ended", "occurred") or fact.id in printed or fact.id in left.withheld:  # events: §12
                continue
            if not left.keeps(fact, labels.get(fact.predicate, fact.predicate), sentences):
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
        kind = f" ({label(entity.type)})" if entity.type != "unknown" else ""
        lines.append(f"{sub} {quoted(entity.name)}{kind}")
        lines += shown
        if planned:
            lines.append(f"- Planned: {'; '.join(planned)}")
        if more:
            lines.append(f"- … and {more} more")
        lines.append("")
    lines += left.lines(graph_counts(kg).memories)
    return "\n".join(lines).rstrip() + "\n"

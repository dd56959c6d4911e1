"""The rules of ``add``, written once: what a fact's fields must be, and what they become.

The row path (:meth:`KnowledgeGraph.add`) applies :meth:`Rules.fact` to one fact. The bulk path
(:func:`kgtoolkit.store.import_facts`, and the dump's merge) applies the same field rules once per
*distinct* value of a column, and the cross-field rules (:func:`ends_before_start`,
:func:`comma_refusals`) as polars expressions: those two accept plain values and polars expressions
alike, so each is one definition. ``tests/store/test_store_twins.py`` checks that both paths leave the same
graph.

Each rule raises the :class:`~kgtoolkit.KGError` that ``add`` raises (its ``code`` is what an import
reports for a rejected row).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..._errors import CommaList, IntervalOrder, InvalidRequest, UnknownType
from ..._names import (
    COMMA_PREDICATES,
    check_data,
    check_text,
    clean_text,
    has_comma,
    normalize_name,
    normalize_predicate,
    printable,
)
from ..._records import FactKind, GraphConfig, is_event
from ..._time import OPEN_END, OPEN_START, Bound, TimeInput, parse_bound
from ..._validity import bounds_event_sql

if TYPE_CHECKING:
    from ..engine import Dialect

__all__ = [
    "COMMA_HINT",
    "EventRule",
    "Name",
    "PreparedFact",
    "Rules",
    "comma_refusals",
    "ends_before_start",
    "interval_message",
]

X = TypeVar("X")

#: How to get past the comma guard, for a bulk load (which has it only when asked: contract §2).
COMMA_HINT = "(a packed list?); import without comma_guard=True if it is a real name"
_INTERVAL = "{field} {end} is before valid_from {start}; an interval cannot end before it starts"


def ends_before_start(start_key: X, end_key: X) -> X:
    """The interval rule: a fact cannot end before it starts (the keys compare instants).

    Works on integers and on polars expressions alike.
    """
    return end_key < start_key  # type: ignore[operator]


def interval_message(start: str, end: str, field: str = "valid_to") -> str:
    return _INTERVAL.format(field=field, end=end, start=start)


def comma_refusals(subject_has_comma: X, object_has_comma: X, object_guarded: X) -> tuple[X, X]:
    """The comma guard, as (subject refused, object refused): a subject may not hold a comma, nor an object
    whose predicate is guarded (every predicate but ``email, phone, address, note, url``).

    Works on booleans and on polars expressions alike.
    """
    return subject_has_comma, object_has_comma & object_guarded  # type: ignore[operator]


@dataclasses.dataclass(frozen=True, slots=True)
class EventRule:
    """:func:`~kgtoolkit._records.is_event` under one graph's settings (``config.events``, ``config.event_predicates``)."""

    graph: bool = False
    predicates: frozenset[str] = frozenset()

    @classmethod
    def of(cls, config: GraphConfig) -> EventRule:
        return cls(config.events, config.event_predicates)

    def kind(
        self,
        predicate: str,
        valid_from: str | None,
        valid_to: str | None,
        recorded_at: str | None = None,
        invalidated_at: str | None = None,
    ) -> FactKind:
        """``event`` or ``state`` for a fact with this predicate, these bounds and these transaction times (as
        stored; no ``invalidated_at``: its end, if any, was written with it)."""
        event = is_event(self.graph, predicate in self.predicates, valid_from, valid_to, recorded_at, invalidated_at)
        return "event" if event else "state"

    @property
    def declared(self) -> bool:
        """True when some facts are events by declaration (not only by their bounds)."""
        return self.graph or bool(self.predicates)

    def sql(self, d: Dialect, alias: str = "f", param: str = "event_predicates") -> str:
        """The rule as an SQL condition on the facts row ``alias`` (bind :meth:`params`)."""
        return self._sql(alias, d.in_list(f"{alias}.predicate", param) if self.predicates else None)

    def bound(self, d: Dialect, alias: str = "f", param: str = "event_predicates") -> tuple[str, dict[str, Any]]:
        """:meth:`sql` with the parameters it binds, the declared predicates each bound on its own
        (:meth:`~kgtoolkit.store.engine.Dialect.in_values`): for a rule checked on every row of a large read."""
        if not self.predicates or self.graph:
            return self._sql(alias, None), {}
        declared, params = d.in_values(f"{alias}.predicate", param, sorted(self.predicates))
        return self._sql(alias, declared), params

    def _sql(self, alias: str, declared: str | None) -> str:
        """The event rule as SQL on the facts row ``alias``, the declared predicates bound as ``declared``."""
        if self.graph:
            return "TRUE"
        same = bounds_event_sql(alias)
        if declared is None:
            return same
        return f"({same} OR {declared})"

    def not_declared_sql(self, d: Dialect, alias: str = "f", param: str = "event_predicates") -> str:
        """The SQL condition that a fact is not an event *by declaration*: what a current-fact test adds (a
        current fact cannot be an event by its bounds: one of those ends on its start day, contract §4)."""
        if self.graph:
            return "FALSE"
        if not self.predicates:
            return "TRUE"
        return f"NOT {d.in_list(f'{alias}.predicate', param)}"

    def params(self, d: Dialect, param: str = "event_predicates") -> dict[str, Any]:
        """The parameters :meth:`sql` and :meth:`not_declared_sql` bind."""
        return {param: d.list_param(sorted(self.predicates))} if self.predicates and not self.graph else {}


@dataclasses.dataclass(frozen=True, slots=True)
class Name:
    """An entity name as given (trimmed, inner whitespace collapsed) and its id."""

    display: str
    id: str


@dataclasses.dataclass(frozen=True, slots=True)
class PreparedFact:
    """One fact after the rules: every field in its stored form (entities not resolved yet)."""

    subject: Name
    predicate: str
    is_value: bool
    object: Name  # for a value predicate: the text and its case-folded key
    start: Bound | None
    end: Bound | None
    confidence: float
    source: str
    closet: str | None
    subject_type: str | None
    object_type: str | None
    warnings: tuple[str, ...] = ()
    predicate_label: str = ""
    occurrence: int = 1  # an event's repeat (contract §12): 1, 2, … for the same triple and bounds

    @property
    def from_key(self) -> int:
        return self.start.key if self.start else OPEN_START

    @property
    def to_key(self) -> int:
        return self.end.key if self.end else OPEN_END


class Rules:
    """The rules of ``add`` under one graph's settings (``comma_guard`` overrides the setting)."""

    def __init__(
        self,
        config: GraphConfig,
        *,
        comma_guard: bool | None = None,
        predicate_aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self.comma_guard = config.comma_guard if comma_guard is None else comma_guard
        #: Predicate alias → the canonical predicate (contract §13): :meth:`predicate` resolves through them.
        self.predicate_aliases: Mapping[str, str] = predicate_aliases or {}

    # ------------------------------------------------------------------ one field each

    def bounded(self, text: str, field: str, *, value: bool = False) -> str:
        """``text`` when it is no longer than the graph's ``max_name_length`` (``max_value_length`` for a value)."""
        setting = "max_value_length" if value else "max_name_length"
        limit: int = getattr(self.config, setting)
        if len(text) > limit:
            elsewhere = " (a long text belongs in a memory: `remember`)" if field != "text" else ""
            raise InvalidRequest(
                f"{field} is {len(text):,} characters long, more than this graph's {setting} of "
                f"{limit:,}; shorten it{elsewhere}, or raise the limit: "
                f"`kgtoolkit config --{setting.replace('_', '-')} N` or configure({setting}=N)",
                field=field,
                value=printable(text[:80]) + "…",
                length=len(text),
                limit=limit,
            )
        return text

    def predicate(self, text: Any) -> str:
        """The canonical predicate ``text`` names: normalised, then through its predicate alias if it is one."""
        key = self.bounded(normalize_predicate(text), "predicate")
        return self.predicate_aliases.get(key, key)

    def predicate_label(self, text: Any, key: str) -> str:
        """The label a spelling gives the predicate ``key`` when it is the first: trimmed, whitespace collapsed.
        A spelling of an alias labels nothing of its own: the canonical predicate's id stands in."""
        if normalize_predicate(text) != key:
            return key
        return clean_text(text, field="predicate")

    def name(self, text: Any, field: str) -> Name:
        display = self.bounded(clean_text(text, field=field), field)
        return Name(display, normalize_name(display, field=field))

    def value(self, text: Any) -> Name:
        """A value predicate's object: its text, and the key it de-duplicates by (case-folded)."""
        display = self.bounded(clean_text(text, field="object"), "object", value=True)
        return Name(display, display.casefold())

    def declared_event(self, predicate: str) -> bool:
        """Whether facts of ``predicate`` are events by declaration (the whole graph, or the predicate): such a
        fact given a start and no end is the occurrence of its day (or instant), and ends on it (contract §12)."""
        return self.config.events or predicate in self.config.event_predicates

    def occurrence(self, value: Any, predicate: str, start: Bound | None, end: Bound | None) -> int:
        """Which occurrence of an event a fact is (contract §12): a whole number from 1 (absent: 1). Above 1 only for
        an event with an end: the same triple on the same day (or instant) happened again; a state fact,
        or an open one, is one fact."""
        if value is None:
            return 1
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidRequest(
                f"occurrence must be a whole number from 1, not {value!r}", field="occurrence", value=str(value)
            )
        if value > 1 and (
            end is None or EventRule.of(self.config).kind(predicate, start.text if start else None, end.text) != "event"
        ):
            raise InvalidRequest(
                f"occurrence {value} is for an event that happened again on the same day (valid_from = valid_to, or "
                "an event predicate's dated fact); this fact is a state or has no end, so it occurs once",
                field="occurrence",
                value=str(value),
            )
        return value

    def is_value(self, predicate: str) -> bool:
        return predicate in self.config.value_predicates

    @staticmethod
    def start(value: TimeInput) -> Bound:
        return parse_bound(value, field="valid_from")

    @staticmethod
    def end(value: TimeInput, field: str = "valid_to") -> Bound:
        return parse_bound(value, field=field, end=True)

    def entity_type(self, value: Any, field: str) -> str | None:
        """A type of the graph's vocabulary (normalised), or None when not given."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        key = normalize_name(value, field=field)
        if key not in self.config.types:
            vocabulary = ", ".join(sorted(self.config.types))
            raise UnknownType(
                f"{field} {value!r} is not in this graph's vocabulary ({vocabulary}); use one of those, "
                "or extend it with configure(types=...) (`kgtoolkit config --add-type`)",
                field=field,
                value=str(value),
                suggestions=sorted(self.config.types),
            )
        return key

    @staticmethod
    def confidence(value: Any) -> float:
        """A number from 0 to 1 (text such as ``"0.8"`` too, as files hold it); absent means 1."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return 1.0
        number: Any = value
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0.0 <= float(number) <= 1.0:
            raise InvalidRequest(
                f"confidence must be a number from 0 to 1, not {value!r}", field="confidence", value=str(value)
            )
        return float(number)

    def text(self, value: Any, field: str) -> str | None:
        """Optional text (``source``, ``source_closet``, ``ended_by``, a memory): trimmed; blank means absent."""
        if value is None:
            return None
        if not isinstance(value, str):
            raise InvalidRequest(f"{field} must be text, not {type(value).__name__}", field=field, value=repr(value))
        text = check_text(value, field=field, error=InvalidRequest).strip()
        return self.bounded(text, field, value=True) or None

    def source(self, value: Any) -> str:
        return self.text(value, "source") or "agent"

    # ------------------------------------------------------------------ across fields

    def check_interval(self, start: Bound | None, end: Bound | None, field: str = "valid_to") -> None:
        if start is not None and end is not None and ends_before_start(start.key, end.key):
            raise IntervalOrder(interval_message(start.text, end.text, field), field=field, value=end.text)

    def check_commas(self, subject: str, predicate: str, obj: str) -> None:
        """Refuse a name with a comma the comma guard forbids (contract §2)."""
        if not self.comma_guard:
            return
        subject_bad, object_bad = comma_refusals(has_comma(subject), has_comma(obj), predicate not in COMMA_PREDICATES)
        if subject_bad:
            raise CommaList(
                f"subject {subject!r} contains a comma: record one fact per subject. If the comma is part "
                "of a real name, turn the guard off: `kgtoolkit config --no-comma-guard` or "
                "configure(comma_guard=False)",
                field="subject",
                value=subject,
            )
        if object_bad:
            raise CommaList(
                f"object {obj!r} contains a comma: add one fact per object (e.g. one {predicate!r} fact "
                "each). If the comma is part of a real name, turn the guard off: `kgtoolkit config "
                "--no-comma-guard` or configure(comma_guard=False)",
                field="object",
                value=obj,
            )

    # ------------------------------------------------------------------ a whole fact

    def fact(
        self,
        subject: Any,
        predicate: Any,
        obj: Any,
        *,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        confidence: Any = 1.0,
        source: Any = None,
        source_closet: Any = None,
        subject_type: Any = None,
        object_type: Any = None,
        occurrence: Any = None,
    ) -> PreparedFact:
        """Every rule of ``add`` on one fact, in the order ``add`` reports them."""
        pred = self.predicate(predicate)
        subject_name = self.name(subject, "subject")
        is_value = self.is_value(pred)
        obj_name = self.value(obj) if is_value else self.name(obj, "object")
        self.check_commas(subject_name.display, pred, obj_name.display)
        s_type = self.entity_type(subject_type, "subject_type")
        o_type = self.entity_type(object_type, "object_type")
        start = self.start(valid_from) if valid_from not in (None, "") else None
        if valid_to in (None, "") and start is not None and self.declared_event(pred):
            valid_to = valid_from  # an occurrence given its day: it ends on it (contract §12)
        end = self.end(valid_to) if valid_to not in (None, "") else None
        self.check_interval(start, end)
        if confidence is None or isinstance(confidence, str):  # add takes a number; only files give text or blanks
            raise InvalidRequest(
                f"confidence must be a number from 0 to 1, not {confidence!r}", field="confidence", value=confidence
            )
        conf = self.confidence(confidence)
        warnings: tuple[str, ...] = ()
        if is_value and o_type not in (None, "unknown"):
            warnings = (f"{pred!r} is a value predicate: its object is text, so object_type was ignored",)
        return PreparedFact(
            subject_name,
            pred,
            is_value,
            obj_name,
            start,
            end,
            conf,
            self.source(source),
            self.text(source_closet, "source_closet"),
            s_type,
            None if is_value else o_type,
            warnings,
            self.predicate_label(predicate, pred),
            self.occurrence(occurrence, pred, start, end),
        )


def json_object(value: Mapping[str, Any] | None, field: str) -> dict[str, Any] | None:
    """A JSON object (properties, metadata) as a plain dict, or None; NaN and other non-JSON values refused, and
    text holding a control character anywhere in it, keys included (contract §2)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidRequest(
            f"{field} must be a JSON object (a mapping), not {type(value).__name__}", field=field, value=repr(value)
        )
    try:
        text = json.dumps(dict(value), allow_nan=False, ensure_ascii=False)  # NaN/Infinity are not JSON
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"{field} must hold JSON values only: {exc}", field=field, value=repr(value)) from exc
    check_text(text, field=field, error=InvalidRequest)  # a key or value that is not valid Unicode
    plain: dict[str, Any] = json.loads(text)
    return check_data(plain, field=field)  # and no control character in any key or text (contract §2)

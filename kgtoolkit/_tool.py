"""The JSON agent tool (contract §7): one action-dispatched entry point that never raises.

Every action is declared once, here, with :func:`action` over its handler: its name, when an agent
should use it, its parameters as :class:`Param` records (JSON type, required, description, default)
and whether it only reads. Everything else comes from that one registry: the dispatcher and its
checks (:func:`run_tool`), the JSON schema for function calling (:data:`TOOL_SCHEMA`), the MCP
server's tools (``kgtoolkit.mcp_server.tool_specs``) and the CLI's ``tool`` command. Every door
answers in the one envelope :func:`envelope` builds.

To add an action: take its parameters from the shared vocabulary below (a new name gets its
``_param`` line: one JSON type and one general description per name), adapt them with
:meth:`Param.but` (required, this action's wording, default), write the handler under
``@action(...)``, and name the action and its parameters in README.md's ``kgtoolkit tool`` section
(``tests/test_docs.py`` fails until every door and the README have it).

>>> from kgtoolkit import open as open_graph
>>> kg = open_graph(":memory:")
>>> answer = run_tool({"action": "add", "subject": "Alice", "predicate": "works_at", "object": "Nocetic"}, kg=kg)
>>> answer["ok"], answer["result"]["created"], answer["result"]["fact"]["object"]
(True, True, 'nocetic')
>>> run_tool('{"action": "query", "name": "Bob"}', kg=kg)["error"]["code"]
'not_found'
>>> registry()["query"].required
('name',)

The list actions (query, search, timeline, conflicts, aliases, predicates) answer one page: ``count`` items
returned, ``total`` matching, ``truncated`` and ``next_offset`` (contract §7). Without a ``limit``
this tool returns :data:`DEFAULT_LIMIT` items (the MCP server: its own, smaller default); a
``limit`` above :data:`MAX_LIMIT` is ``invalid_request``.

>>> for i in range(3):
...     _ = kg.add("Alice", "knows", f"friend {i}")
>>> page = run_tool({"action": "query", "name": "Alice", "limit": 2}, kg=kg)["result"]
>>> page["count"], page["total"], page["truncated"], page["next_offset"]
(2, 4, True, 2)
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from ._errors import InvalidRequest, KGError
from ._limits import check_request, parse_request
from ._names import check_unicode, printable, printable_data
from ._page import Page
from ._records import ConflictGroup, Fact, _Record
from .graph import KnowledgeGraph

__all__ = ["ACTIONS", "DEFAULT_LIMIT", "MAX_LIMIT", "PARAMETERS", "TOOL_SCHEMA", "Action", "Param", "action",
           "answer_json", "conflicts_result", "envelope", "facts_result", "page_result", "registry", "run_tool",
           "tool_schema"]

JsonType = Literal["string", "boolean", "integer", "number", "object", "array"]
Handler = Callable[[KnowledgeGraph, dict[str, Any]], Any]
Rules = Callable[[dict[str, Any]], list[str]]

DEFAULT_LIMIT = 100
"""How many items a list action of this tool returns when the request gives no ``limit``."""
MAX_LIMIT = 1000
"""The largest ``limit`` a list action takes (more is ``invalid_request``: page with ``offset``)."""

_ACCEPTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, list) and all(isinstance(item, str) for item in v),  # an array of strings
}


@dataclasses.dataclass(frozen=True, slots=True)
class Param(_Record):
    """One parameter of an agent action.

    ``description`` is what an agent reads; ``default`` is what the library does when the parameter
    is left out (shown in the action's schema; ``None`` when there is no fixed value, e.g. "today").
    ``offered`` is false for a parameter the action accepts but its own schema does not show
    (supersede's ``object``, the older name of ``old_object``).

    >>> Param("limit", "integer", "At most this many items.", minimum=0).schema()
    {'type': 'integer', 'description': 'At most this many items.', 'minimum': 0}
    """

    name: str
    type: JsonType
    description: str = ""
    required: bool = False
    default: Any = None
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    offered: bool = True

    def __post_init__(self) -> None:
        if self.type not in _ACCEPTS:
            raise ValueError(f"parameter {self.name}: unknown JSON type {self.type!r}; use one of {', '.join(_ACCEPTS)}")

    def but(self, **changes: Any) -> Param:
        """This parameter as one action takes it: ``SUBJECT.but(required=True, description=…)``."""
        return dataclasses.replace(self, **changes)

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (decoded JSON) is of this parameter's JSON type (``True`` is no integer)."""
        return _ACCEPTS[self.type](value)

    def schema(self, *, with_default: bool = True) -> dict[str, Any]:
        """This parameter's JSON schema: type, description, enum, bounds and (for one action) default."""
        out: dict[str, Any] = {"type": self.type}
        if self.type == "array":
            out["items"] = {"type": "string"}
        if self.description:
            out["description"] = self.description
        if self.enum:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if with_default and self.default is not None:
            out["default"] = self.default
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class Action:
    """One action of the agent tool, as :func:`action` registered it.

    ``rules`` holds the action's own request rules beyond types and required parameters: it runs on
    the checked parameters, may rewrite them (supersede: ``object`` → ``old_object``) or raise, and
    returns the names of parameters still missing (add: ``predicate`` and ``object`` come together).
    ``paged``: a list action, answering one page (``limit`` defaults to the door's default and is at
    most :data:`MAX_LIMIT`).
    """

    name: str
    description: str
    params: tuple[Param, ...]
    handler: Handler = dataclasses.field(repr=False, compare=False)
    read_only: bool = False
    idempotent: bool = False
    destructive: bool = False
    rules: Rules | None = dataclasses.field(default=None, repr=False, compare=False)
    paged: bool = False

    @property
    def required(self) -> tuple[str, ...]:
        """The parameters it cannot do without, in declaration order."""
        return tuple(p.name for p in self.params if p.required)

    def param(self, name: str) -> Param | None:
        """The parameter ``name`` as this action takes it, or ``None``."""
        return next((p for p in self.params if p.name == name), None)

    def input_schema(self, *, default_limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
        """The JSON schema of this action's own parameters (the MCP tool's ``inputSchema``); a list action's
        ``limit`` shows ``default_limit``, the default of the door that serves it."""
        offered = [p for p in self.params if p.offered]
        properties = {p.name: p.schema() for p in offered}
        if self.paged and "limit" in properties:
            properties["limit"]["default"] = default_limit
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        required = [p.name for p in offered if p.required]
        if required:
            schema["required"] = required
        return schema

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the handler and rules left out)."""
        return {"name": self.name, "description": self.description, "params": [p.to_dict() for p in self.params],
                "read_only": self.read_only, "idempotent": self.idempotent, "destructive": self.destructive,
                "paged": self.paged}


_REGISTRY: dict[str, Action] = {}
_VOCABULARY: dict[str, Param] = {}


def registry() -> Mapping[str, Action]:
    """Every registered action by name, in the order they were declared (read-only)."""
    return MappingProxyType(_REGISTRY)


def _param(name: str, kind: JsonType, description: str, **options: Any) -> Param:
    """Declare a parameter of the shared vocabulary: one JSON type and one general description per name
    (the single :data:`TOOL_SCHEMA` has one property per name, whichever actions take it)."""
    param = Param(name, kind, description, **options)
    _VOCABULARY[name] = param
    return param


def action(name: str, description: str, *params: Param, read_only: bool = False, idempotent: bool = False,
           destructive: bool = False, rules: Rules | None = None, paged: bool = False) -> Callable[[Handler], Handler]:
    """Register the decorated ``handler(kg, params)`` as the agent action ``name``.

    ``description`` tells an agent when to use it; ``params`` are :class:`Param` records from the
    shared vocabulary (:data:`PARAMETERS`), adapted with :meth:`Param.but`. The handler gets the
    checked parameters (nulls left out) and returns the JSON-ready result. ``paged``: a list action
    (it takes ``limit`` and ``offset`` and answers one page, see :func:`page_result`).
    """

    def register(handler: Handler) -> Handler:
        if name in _REGISTRY:
            raise ValueError(f"the agent action {name!r} is declared twice")
        if len(description) < 40:
            raise ValueError(f"the agent action {name!r} needs a description that says when to use it")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"the agent action {name!r} declares a parameter twice: {names}")
        for p in params:
            shared = _VOCABULARY.get(p.name)
            if shared is None or shared.type != p.type:
                raise ValueError(f"parameter {p.name!r} of {name!r} must come from the shared vocabulary "
                                 f"(PARAMETERS), with its JSON type")
        if paged and not {"limit", "offset"} <= set(names):
            raise ValueError(f"the list action {name!r} must take limit and offset")
        _REGISTRY[name] = Action(name, description, tuple(params), handler, read_only=read_only,
                                 idempotent=idempotent, destructive=destructive, rules=rules, paged=paged)
        return handler

    return register


# ---------------------------------------------------------------------- the shared vocabulary

SUBJECT = _param("subject", "string", "Entity the fact is about (for merge: the duplicate to fold away).")
PREDICATE = _param("predicate", "string", "Relationship type, e.g. uses_queue, works_at, email.")
OBJECT = _param("object", "string", "Entity or value the fact points at (for merge: the entity to keep; for "
                                    "supersede: the old object).")
VALID_FROM = _param("valid_from", "string", "When the fact became true: YYYY, YYYY-MM, YYYY-MM-DD or an ISO "
                                            "datetime with Z.")
VALID_TO = _param("valid_to", "string", "When it stopped being true (leave out while it is still true).")
CONFIDENCE = _param("confidence", "number", "How sure the source is, 0 to 1 (default 1).", minimum=0, maximum=1)
SOURCE = _param("source", "string", "Who asserts it (default: agent), e.g. the agent's or the user's name; for path: "
                                    "the entity the path starts at.")
SOURCE_CLOSET = _param("source_closet", "string", "Pointer to the evidence, e.g. a memory id from kg_remember or "
                                                  "a URL.")
SUBJECT_TYPE = _param("subject_type", "string", "Type of the subject entity: person, company, project, event, "
                                                "unknown, or a type the graph adds.")
OBJECT_TYPE = _param("object_type", "string", "Type of the object entity (see subject_type).")
PROPERTIES = _param("properties", "object", "JSON object of properties to set on the subject entity.")
NAME = _param("name", "string", "Entity to look up (query, timeline, conflicts) or the new alias (alias).")
DIRECTION = _param("direction", "string", "outgoing (entity is subject), incoming (entity is object) or both.",
                   enum=("both", "outgoing", "incoming"))
AS_OF = _param("as_of", "string", "Only facts valid on this date.")
KNOWN_AT = _param("known_at", "string", "What the graph believed at this moment (transaction time).")
CURRENT_ONLY = _param("current_only", "boolean", "Only facts valid now (started and not yet ended; never a scheduled one).")
LIMIT = _param("limit", "integer", f"At most this many items. List actions (query, search, timeline, conflicts, "
                                   f"aliases, predicates): default {DEFAULT_LIMIT} (the MCP tools: 50), at most {MAX_LIMIT:,}; "
                                   "page on with offset = next_offset. summary: how many entities.", minimum=0)
PAGE_LIMIT = LIMIT.but(description=f"At most this many items (at most {MAX_LIMIT:,}); the answer's total, truncated "
                                   "and next_offset say whether more exist.", maximum=MAX_LIMIT)
OFFSET = _param("offset", "integer", "Skip this many items first (paging: the previous answer's next_offset).",
                minimum=0)
ENDED = _param("ended", "string", "When the fact stopped being true (default: today).")
ENDED_BY = _param("ended_by", "string", "Who ended it (default: agent).")
OLD_OBJECT = _param("old_object", "string", "The object being replaced (supersede).")
NEW_OBJECT = _param("new_object", "string", "The object that replaces it (supersede).")
AT = _param("at", "string", "When the new object replaced the old one (default: today).")
ENTITY = _param("entity", "string", "Entity an alias names.")
STYLE = _param("style", "string", "main (# Knowledge Graph heading) or subagent (## Known Facts).",
               enum=("main", "subagent"))
TEXT = _param("text", "string", "Evidence to store as a memory (remember); a fact's source_closet may point at its id.")
METADATA = _param("metadata", "object", "JSON object stored with the memory (remember).")
QUERY = _param("query", "string", "What to look for, in words (find): facts and memories are ranked by their words, "
                                   "meaning and the entities named.")
K = _param("k", "integer", "How many hits (find; default 10).")
KIND = _param("kind", "string", "facts, memories or both (find; default facts); entities or predicates "
                                 "(duplicates, not_duplicate; default entities).")
PREDICATES = _param("predicates", "array", "Only facts of these predicates (query, timeline), e.g. [\"works_at\"].")
OTHER = _param("other", "string", "Only facts whose other side is this entity (query): exact name or alias.")
SINCE = _param("since", "string", "Only facts valid on or after this date (timeline).")
UNTIL = _param("until", "string", "Only facts valid on or before this date (timeline).")
ALIAS = _param("alias", "string", "Another name of a predicate (alias_predicate): writes and reads through it mean the "
                                  "predicate.")
NEW_PREDICATE = _param("new_predicate", "string", "The predicate the facts are folded into (rename_predicate): one in "
                                                  "use, or a new one.")
FIRST = _param("first", "string", "One of two names (not_duplicate): an entity's exact name or alias, or a predicate.")
SECOND = _param("second", "string", "The other name (not_duplicate).")
CODES = _param("codes", "array", "Only findings of these codes (check), e.g. [\"single_valued_overlap\"].")

PARAMETERS: Mapping[str, Param] = MappingProxyType(_VOCABULARY)
"""Every parameter name an action may take, with its one JSON type and general description."""


# ---------------------------------------------------------------------- results and the envelope


def facts_result(facts: Iterable[Fact], **extra: Any) -> dict[str, Any]:
    """The result shape of every list of facts (query, search, timeline): ``{…extra, "facts", "count"}``."""
    rows = [f.to_dict() for f in facts]
    return {**extra, "facts": rows, "count": len(rows)}


def page_result(page: Page[Any]) -> dict[str, Any]:
    """The paging fields of a list answer: ``{"count", "total", "truncated", "next_offset"}``."""
    return page.paging()


def conflicts_result(groups: Sequence[ConflictGroup]) -> dict[str, Any]:
    """The result shape of conflicts: ``{"groups", "count", "needs_action"}``."""
    return {"groups": [g.to_dict() for g in groups], "count": len(groups),
            "needs_action": sum(g.needs_action for g in groups)}


def envelope(result: Any = None, *, error: BaseException | None = None) -> dict[str, Any]:
    """The one answer shape of the agent tool, the MCP server and ``kgtoolkit tool``.

    ``{"ok": true, "result": result}``, or with ``error`` ``{"ok": false, "error": {"code", "message",
    "suggestions", …}}``: a :class:`KGError`'s own fields, anything else ``internal_error`` with its
    type and message (made printable).

    >>> envelope({"count": 0})
    {'ok': True, 'result': {'count': 0}}
    >>> envelope(error=InvalidRequest("no such thing", field="name"))["error"]
    {'code': 'invalid_request', 'message': 'no such thing', 'suggestions': [], 'field': 'name'}
    >>> envelope(error=ZeroDivisionError("division by zero"))["error"]["code"]
    'internal_error'
    """
    if error is None:
        return {"ok": True, "result": result}
    if isinstance(error, KGError):
        return {"ok": False, "error": error.to_dict()}
    return {"ok": False, "error": {"code": "internal_error", "message": printable(f"{type(error).__name__}: {error}"),
                                   "suggestions": []}}


# ---------------------------------------------------------------------- the actions


def _add_rules(p: dict[str, Any]) -> list[str]:
    """add: with only a subject it creates an entity; a fact needs predicate and object together."""
    if ("predicate" in p) != ("object" in p):
        return ["object" if "predicate" in p else "predicate"]
    return []


@action(
    "add",
    "Record a stable fact: subject → predicate → object, with valid_from when known (e.g. my_api uses_queue Redis "
    "from 2026-03-02). Use it for durable knowledge (decisions, owners, dependencies, roles, contact details), not "
    "for passing chatter. Adding a fact that is already current changes nothing (created: false). When a fact "
    "replaces an older one, use kg_supersede instead; when one simply ended, kg_invalidate. With only subject (and "
    "subject_type / properties) it creates or updates the entity.",
    SUBJECT.but(required=True), PREDICATE, OBJECT, VALID_FROM, VALID_TO, CONFIDENCE.but(default=1), SOURCE,
    SOURCE_CLOSET, SUBJECT_TYPE, OBJECT_TYPE, PROPERTIES,
    idempotent=True, rules=_add_rules,
)
def _add(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    if "predicate" not in p:
        return {"entity": kg.add_entity(p["subject"], type=p.get("subject_type"),
                                        properties=p.get("properties")).to_dict()}
    subject, predicate, obj = p.pop("subject"), p.pop("predicate"), p.pop("object")
    return kg.add(subject, predicate, obj, **p).to_dict()


@action(
    "query",
    "Everything the graph knows about one entity: its facts with dates, each flagged current and with its "
    "direction (outgoing: the entity is the subject; incoming: it is the object, e.g. 'what uses SQLite?'). Check "
    "this before answering about past decisions or the state of something. as_of asks what held on a date, known_at "
    "what the graph believed at a moment. Never fuzzy: a miss returns not_found with suggestions.",
    NAME.but(required=True, description="Entity to look up: its exact name or an alias (never fuzzy)."),
    DIRECTION.but(default="both"), AS_OF, KNOWN_AT, CURRENT_ONLY.but(default=False), PREDICATES, OTHER, PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _query(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    entity = kg.resolve(p["name"])
    page = kg.query_page(p.pop("name"), **p)
    return {**facts_result(page, entity=entity), **page_result(page)}


@action(
    "invalidate",
    "Close a current fact that stopped being true (ended defaults to today); it stays as history. Use when "
    "something ended without a replacement; when it was replaced, use kg_supersede. Fails with not_current when no "
    "such fact is current (the message shows the historical ones).",
    SUBJECT.but(required=True), PREDICATE.but(required=True),
    OBJECT.but(required=True, description="The object of the fact that ended."), ENDED, ENDED_BY,
)
def _invalidate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"fact": kg.invalidate(p.pop("subject"), p.pop("predicate"), p.pop("object"), **p).to_dict()}


def _supersede_rules(p: dict[str, Any]) -> list[str]:
    """supersede takes its old object as ``object`` or ``old_object``, once."""
    if "object" in p:
        if "old_object" in p and p["old_object"] != p["object"]:
            raise InvalidRequest("supersede takes the old object once: give object or old_object, not both",
                                 field="old_object", value=str(p["old_object"]))
        p["old_object"] = p.pop("object")
    return []


@action(
    "supersede",
    "Replace the object of a current fact at one moment, atomically: ends subject–predicate–old_object at `at` and "
    "adds subject–predicate–new_object from `at` (e.g. my_api uses_queue Redis → SQLite on 2026-10-12). Use "
    "whenever a decision, owner, dependency or value changes.",
    SUBJECT.but(required=True), PREDICATE.but(required=True), OBJECT.but(offered=False),
    OLD_OBJECT.but(required=True), NEW_OBJECT.but(required=True), AT, CONFIDENCE.but(default=1), SOURCE,
    SOURCE_CLOSET, OBJECT_TYPE,
    rules=_supersede_rules,
)
def _supersede(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.supersede(p.pop("subject"), p.pop("predicate"), p.pop("old_object"), p.pop("new_object"), **p).to_dict()


@action(
    "search",
    "Facts by relationship type, optionally pointing at one object (predicate uses_queue, object SQLite: "
    "everything that uses SQLite as a queue). Use when you know the relationship but not the subject.",
    PREDICATE.but(required=True), OBJECT.but(description="Only facts pointing at this entity or value."), AS_OF,
    KNOWN_AT, CURRENT_ONLY.but(default=False), PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _search(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.search_page(p.pop("predicate"), p.pop("object", None), **p)
    return {**facts_result(page), **page_result(page)}


@action(
    "timeline",
    "Facts in chronological order, of one entity or of the whole graph. Use to explain how something evolved or "
    "what changed when; since, until and predicates narrow it to a span and the relationships asked about.",
    NAME.but(description="Only this entity's facts (default: the whole graph)."), SINCE, UNTIL, PREDICATES,
    PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _timeline(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.timeline_page(p.pop("name", None), **p)
    return {**facts_result(page), **page_result(page)}


@action(
    "merge",
    "Fold a duplicate entity (subject) into the one to keep (object): moves its facts, keeps its names as aliases, "
    "de-duplicates identical facts. Use when two names turn out to be one thing. It cannot be undone; for a mere "
    "second name, kg_alias is enough.",
    SUBJECT.but(required=True, description="The duplicate entity to fold away."),
    OBJECT.but(required=True, description="The entity to keep."),
    destructive=True,
)
def _merge(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.merge(p["subject"], p["object"]).to_dict()


@action(
    "alias",
    "Register another name (name) for an existing entity, so lookups by that name find it. Use for abbreviations, "
    "old names and other spellings, or after a not_found whose suggestion was right.",
    NAME.but(required=True, description="The other name to register."), ENTITY.but(required=True),
    idempotent=True,
)
def _alias(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.alias(p["name"], p["entity"]).to_dict()


@action(
    "aliases",
    "List the other names registered for entities (every alias, or one entity's), ordered by entity and alias. "
    "Use to see which spellings already resolve before adding an alias.",
    ENTITY.but(description="Only this entity's aliases (default: every alias)."), PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _aliases(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.aliases_page(p.pop("entity", None), **p)
    return {"aliases": [a.to_dict() for a in page], **page_result(page)}


@action(
    "alias_predicate",
    "Register another name (alias) for a predicate, so writes and reads through it (add, query, search, timeline, "
    "imports) mean that predicate, e.g. alias uses_db for predicate uses_database. Use when two spellings of a "
    "relationship mean one thing and the alias has no facts yet; if it has facts, fold them with "
    "kg_rename_predicate.",
    ALIAS.but(required=True), PREDICATE.but(required=True, description="The predicate the alias names."),
    idempotent=True,
)
def _alias_predicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.alias_predicate(p["alias"], p["predicate"]).to_dict()


@action(
    "rename_predicate",
    "Fold every fact of one predicate into another, atomically, with its history (as kg_merge does for "
    "entities): identical facts become one, and the old predicate becomes an alias of the new one. Use when a "
    "relationship was recorded under two names (uses_db and uses_database). It cannot be undone.",
    PREDICATE.but(required=True, description="The predicate whose facts move (it becomes an alias)."),
    NEW_PREDICATE.but(required=True),
    destructive=True,
)
def _rename_predicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.rename_predicate(p["predicate"], p["new_predicate"]).to_dict()


@action(
    "predicates",
    "List the predicates in use, most facts first: each with its id (the key to write and query by), its label "
    "(first spelling, for display), how many facts and current facts it has, and the aliases that name it. Use to "
    "see which relationships exist before adding facts, so one relationship keeps one name.",
    PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _predicates(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.predicates_page(**p)
    return {"predicates": [x.to_dict() for x in page], **page_result(page)}


@action(
    "stats",
    "Counts: entities per type, facts (current, ended), value facts, predicates, aliases, memories.",
    read_only=True,
)
def _stats(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.stats().to_dict()


@action(
    "conflicts",
    "Review contradictions: every (subject, predicate) with more than one object, with its facts. Groups with more "
    "than one current fact are flagged needs_action: resolve them with kg_supersede or kg_invalidate. A fact "
    "starting after today is scheduled, not current; with a current one it is a planned_switch, flagged when both "
    "would be valid at once, with the supersede request that resolves it as suggestion. Closed-out "
    "history is listed too (current_only to skip it). Use after adding facts or when answers disagree. Groups "
    "needing action come first; needs_action counts them in this page, needs_action_total in all.",
    NAME.but(description="Only this entity's conflicts (default: the whole graph)."), CURRENT_ONLY.but(default=False),
    PAGE_LIMIT.but(description=f"At most this many groups, each whole (at most {MAX_LIMIT:,}); the answer's total, "
                               "truncated and next_offset say whether more exist."), OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _conflicts(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    name, current_only = p.get("name"), p.get("current_only", False)
    page = kg.conflicts_page(name, current_only=current_only, limit=p.get("limit"), offset=p.get("offset", 0))
    return {**conflicts_result(page.items), **page_result(page),
            "needs_action_total": kg.conflicts_needing_action(name, current_only=current_only)}


@action(
    "summary",
    "Compact Markdown of the best-connected entities and their current facts. Use at the start of a task to load "
    "what the team already knows (style subagent for a shorter heading).",
    LIMIT.but(description="How many entities (default 20).", default=20), STYLE.but(default="main"),
    AS_OF.but(description="The current facts of this date instead of today."),
    read_only=True,
)
def _summary(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"markdown": kg.summary(**p)}


@action(
    "remember",
    "Store a piece of evidence verbatim (a decision record, a meeting note, what the user said) as a memory; its id "
    "can be cited by facts as source_closet. Use for context worth keeping word for word, and record the durable "
    "facts it implies with kg_add.",
    TEXT.but(required=True),
    SOURCE.but(description="Where the evidence came from (default: agent), e.g. a person, a document or a URL."),
    METADATA,
)
def _remember(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"memory": kg.remember(p.pop("text"), **p).to_dict()}


MODE = _param("mode", "string", "hybrid (default): words, meaning and names fused; vector: meaning alone; lexical: "
                                 "words alone (exact codes such as INC-4821, no model needed) (find).",
               enum=("hybrid", "vector", "lexical"))
RERANK = _param("rerank", "string", "graph: prefer facts near the entities the query names, and current facts over "
                                    "history (find).", enum=("graph",))
EXPLAIN = _param("explain", "boolean", "Give each hit its lexical, vector, name and graph contributions (find).")


@action(
    "find",
    "Search facts and stored memories by words and meaning (e.g. 'which queue does the API use?', 'INC-4821'); "
    "each hit says whether it is still current and what replaced it, and a fact repeated on many days is one hit "
    "with its count and first and last dates. Use when you do not know the exact entity or predicate, or to find "
    "the evidence behind a fact; use kg_query when you know the entity.",
    QUERY.but(required=True), K.but(default=10), KIND.but(default="facts"), AS_OF, CURRENT_ONLY.but(default=False),
    MODE.but(default="hybrid"), RERANK, EXPLAIN.but(default=False),
    read_only=True,
)
def _find(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    from .search import find  # torch and the model load only when an agent searches

    return find(kg, p.pop("query"), **p).to_dict()


# ---------------------------------------------------------------------- traversal and diff (contract §11)

HOPS = _param("hops", "integer", "How many hops to walk out from the entity, 1 to 4 (neighbors).", minimum=1,
              maximum=4)
MAX_HOPS = _param("max_hops", "integer", "The longest path, in facts, 1 to 4 (path).", minimum=1, maximum=4)
TARGET = _param("target", "string", "The entity a path ends at (path): exact name or alias.")
TIME_RESPECTING = _param("time_respecting", "boolean", "Only paths going forward in time: each next fact starts no "
                                                       "earlier than the previous one (path).")
FROM = _param("from", "string", "The first date of the window (diff), included.")
TO = _param("to", "string", "The last date of the window (diff), included.")
DURING = _param("during", "array", "Two dates [start, end] (neighbors, path, follow): walk the facts whose validity "
                                   "overlaps that window instead of those valid on one date (not with as_of).")
BY = _param("by", "string", "valid: what changed in the world (the facts' validity); known: what the graph learned "
                            "(transaction time) (diff).", enum=("valid", "known"))


@action(
    "neighbors",
    "The entities and facts within a few hops of one entity (hops 1 to 4), walked in the graph: what surrounds it, "
    "who or what it is connected to and how far. Every hop is a current fact (as_of: valid on that date; during: "
    "overlapping [start, end]; known_at: as believed then); predicates narrows the walk to those relationships. "
    "capped and note say when a hub stopped the walk early.",
    NAME.but(required=True, description="The entity to start from: exact name or alias (never fuzzy)."),
    HOPS.but(default=1), DIRECTION.but(default="both"), PREDICATES.but(description="Walk only these relationships."),
    AS_OF.but(description="Walk the facts valid on this date."), DURING, KNOWN_AT, PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _neighbors(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.neighbors(p.pop("name"), **p).to_dict()


@action(
    "path",
    "How two entities are connected: the shortest paths first, each a list of facts (a chain of precise hops, e.g. "
    "billing owned_by payments_team reports_to Dana), at most max_hops long. Use for multi-hop questions instead "
    "of chaining queries. Each fact's direction is the way the hop went; as_of asks about a date, during about a "
    "window [start, end]; time_respecting keeps paths that go forward in time.",
    SOURCE.but(required=True, description="The entity the path starts at: exact name or alias."),
    TARGET.but(required=True), MAX_HOPS.but(default=4), DIRECTION.but(default="both"),
    PREDICATES.but(description="Walk only these relationships."),
    AS_OF.but(description="Walk the facts valid on this date."), DURING, TIME_RESPECTING.but(default=False),
    PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _path(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.paths(p.pop("source"), p.pop("target"), **p).to_dict()


@action(
    "follow",
    "Follow a chain of relationship types from one entity, every branch: name billing_service, predicates "
    "[owned_by, reports_to] answers who the owners of billing_service report to (ends), with the facts of each "
    "branch (paths). One hop per predicate, 1 to 4; direction incoming walks each hop from object to subject; as_of "
    "or during [start, end] choose the facts by date.",
    NAME.but(required=True, description="The entity the chain starts at: exact name or alias."),
    PREDICATES.but(required=True, description="The relationships to follow, in order, one hop each (1 to 4)."),
    DIRECTION.but(default="outgoing"), AS_OF.but(description="Follow the facts valid on this date."), DURING,
    PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _follow(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.follow(p.pop("name"), p.pop("predicates"), **p).to_dict()


@action(
    "diff",
    "What changed between two dates: facts that began, facts that ended, and replacements (the same subject and "
    "predicate going from an old object to a new one, with the switch date), in time order. by known: what the "
    "graph learned between two moments instead. Events (facts of one day or instant, or of event predicates) are "
    "never begun, ended or replaced: they occurred (kind occurred). name and predicates narrow it; began, ended, "
    "replaced and occurred count each kind in the whole answer.",
    FROM.but(required=True), TO.but(required=True),
    NAME.but(description="Only facts about this entity (either side)."),
    PREDICATES.but(description="Only facts of these predicates."), BY.but(default="valid"), PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _diff(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.diff(p.pop("from"), p.pop("to"), entity=p.pop("name", None), **p).to_dict()
# ---------------------------------------------------------------------- cleaning up (contract §14)


@action(
    "duplicates",
    "List likely duplicates, best first: pairs of entities (or predicates, kind predicates) whose names are alike, "
    "abbreviate one another or share neighbours, each with a score from 0 to 1 and its reasons. Nothing is merged: "
    "after checking a pair, fold it with kg_merge, register a name with kg_alias, or mark it kg_not_duplicate so it "
    "is never listed again.",
    KIND.but(description="entities (default) or predicates.", default="entities", enum=("entities", "predicates")),
    PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _duplicates(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.duplicates(embeddings=False, **p)
    return {"candidates": [c.to_dict() for c in page], **page_result(page)}


@action(
    "not_duplicate",
    "Remember that two names listed as likely duplicates are different things (first and second, kind entities or "
    "predicates), so duplicates and check never list the pair again. Idempotent; the order does not matter.",
    FIRST.but(required=True), SECOND.but(required=True),
    KIND.but(description="entities (default) or predicates.", enum=("entities", "predicates")),
    idempotent=True,
)
def _not_duplicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"not_duplicate": kg.not_duplicates(p.pop("first"), p.pop("second"), **p).to_dict()}


@action(
    "check",
    "Check the graph: each finding has a stable code (single_valued_overlap, scheduled_overlap, "
    "dangling_source_closet, entity_without_facts, duplicate_candidate), a message saying what to do, and the facts "
    "and entities concerned. Use before relying on the graph or after a large import; clean is true when there "
    "are none.",
    CODES, PAGE_LIMIT, OFFSET.but(default=0),
    read_only=True, paged=True,
)
def _check(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.check(**p)
    return {"findings": [f.to_dict() for f in page], **page_result(page), "clean": page.total == 0}


ACTIONS: tuple[str, ...] = tuple(_REGISTRY)
"""The names of the actions, in the order they are declared."""


def tool_schema() -> dict[str, Any]:
    """The JSON schema of the whole tool for function calling: ``action`` and every parameter any action takes."""
    names = list(_REGISTRY)
    properties: dict[str, Any] = {
        "action": {"type": "string", "enum": names, "description": "What to do: " + ", ".join(names) + "."}}
    for act in _REGISTRY.values():
        for p in act.params:
            properties.setdefault(p.name, _VOCABULARY[p.name].schema(with_default=False))
    return {
        "name": "knowledge_graph",
        "description": (
            "A temporal knowledge graph of stable facts (subject → predicate → object, with the dates they "
            "held). Record facts with add; when one stops being true, invalidate it or supersede it with the "
            "new object (history is kept); query an entity before answering about past decisions. Store evidence "
            "text with remember (point a fact's source_closet at it) and search facts and memories by meaning with "
            "find: each hit says whether it is still current and what replaced it."
        ),
        "input_schema": {"type": "object", "properties": properties, "required": ["action"]},
    }


TOOL_SCHEMA: dict[str, Any] = tool_schema()


# ---------------------------------------------------------------------- checking and dispatching


def _check_text(request: Mapping[str, Any]) -> None:
    """Refuse text that is not valid Unicode anywhere in the request: names and values, nested too.

    JSON admits an unpaired ``\\ud800`` escape and Python reads it as a lone surrogate, which no
    UTF-8 answer, database or terminal can hold.
    """
    pending: list[tuple[str, Any]] = [("", request)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, str):
            check_unicode(value, field=where, error=InvalidRequest)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and key != printable(key):
                    inside = f" in {where}" if where else ""
                    raise InvalidRequest(f"the parameter name '{printable(key)}'{inside} is not valid Unicode text (a "
                                         "lone surrogate, what an unpaired \\ud800-\\udfff escape or a byte that is "
                                         "not UTF-8 becomes); send UTF-8 text", field=where or printable(key),
                                         value=printable(key))
                pending.append((f"{where}.{key}" if where else str(key), item))
        elif isinstance(value, (list, tuple)):
            pending.extend((f"{where}[{i}]", item) for i, item in enumerate(value))


def _validate(request: Any) -> tuple[Action, dict[str, Any]]:
    if isinstance(request, bytes):
        try:
            request = request.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(f"the request is not valid UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                                 f"position {exc.start}); send JSON encoded as UTF-8") from exc
    if isinstance(request, str):
        try:
            request = parse_request(request)
        except ValueError as exc:
            raise InvalidRequest(f"the request is not valid JSON: {printable(str(exc))}") from exc
    else:
        check_request(request)
    if not isinstance(request, Mapping):
        raise InvalidRequest("the request must be a JSON object with an 'action'")
    if not all(isinstance(key, str) for key in request):
        raise InvalidRequest("every parameter name must be text", field="action")
    _check_text(request)
    name = request.get("action")
    if not isinstance(name, str) or name not in _REGISTRY:
        names = list(_REGISTRY)
        raise InvalidRequest(f"unknown action {name!r}; use one of: {', '.join(names)}", field="action",
                             value=str(name), suggestions=names)
    act = _REGISTRY[name]
    allowed = {p.name: p for p in act.params}
    params = {k: v for k, v in request.items() if k != "action" and v is not None}
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InvalidRequest(f"{name} does not take {', '.join(unknown)}; it takes: {', '.join(allowed) or 'nothing'}",
                             field=unknown[0], value=str(params[unknown[0]]), suggestions=list(allowed))
    for key, value in params.items():
        if not allowed[key].accepts(value):
            kind = "array of strings" if allowed[key].type == "array" else allowed[key].type
            raise InvalidRequest(f"{key} must be a JSON {kind}, not {json.dumps(value)}", field=key,
                                 value=str(value))
    if act.paged:
        _check_page(params)
    also = act.rules(params) if act.rules is not None else []
    missing = [k for k in act.required if k not in params or params[k] == ""] + also
    if missing:
        raise InvalidRequest(f"{name} needs {', '.join(missing)}", field=missing[0])
    return act, params


def _check_page(params: dict[str, Any]) -> None:
    """A list action's ``limit`` (0 to :data:`MAX_LIMIT`) and ``offset`` (from 0), already known to be integers."""
    limit, offset = params.get("limit"), params.get("offset", 0)
    if limit is not None and not 0 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit must be a whole number from 0 to {MAX_LIMIT:,}, not {limit}; for more, page on "
                             "with offset (each answer's next_offset)", field="limit", value=str(limit),
                             maximum=MAX_LIMIT)
    if offset < 0:
        raise InvalidRequest(f"offset must be a whole number from 0, not {offset}", field="offset", value=str(offset))


def run_tool(request: Mapping[str, Any] | str | bytes, *, kg: KnowledgeGraph | None = None,
             db: str | os.PathLike[str] | None = None, default_limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """Answer one agent request: ``{"ok": true, "result": …}`` or ``{"ok": false, "error": {…}}``.

    ``request`` is a JSON object (or its text, or UTF-8 bytes) with ``action`` and that action's
    parameters. It never raises: bad input, a missing entity or a broken file all come back as an
    error object with a stable ``code``, a ``message`` and ``suggestions``. Text that is not valid
    Unicode anywhere in the request (bytes that are not UTF-8, a lone surrogate such as an unpaired
    ``\\ud800`` escape) is ``invalid_request``, naming the field.

    A list action (query, search, timeline, conflicts, aliases, predicates) given no ``limit`` returns at most
    ``default_limit`` items (:data:`DEFAULT_LIMIT`; the MCP server passes its own).
    """
    opened = None
    try:
        act, params = _validate(request)
        if act.paged and "limit" not in params:
            params["limit"] = default_limit
        if kg is None:
            kg = opened = KnowledgeGraph(db)
        return envelope(act.handler(kg, params))
    except Exception as exc:  # the tool must answer, whatever happened
        return envelope(error=exc)
    finally:
        if opened is not None:
            opened.close()


def answer_json(answer: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """An answer as one line of JSON that any UTF-8 channel carries, and the answer that line holds.

    Requests are checked, but a graph written by an older version may hold text that is not valid
    Unicode (a setting or property with a lone surrogate): such text is shown escaped (``\\udce9``)
    rather than breaking the channel.
    """
    text = json.dumps(answer, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        answer = printable_data(answer)
        text = json.dumps(answer, ensure_ascii=False)
    return text, answer

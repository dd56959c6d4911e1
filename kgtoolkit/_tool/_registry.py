"""The agent tool's registry: :class:`Param` and :class:`Action`, the :func:`action` decorator that declares
an action, the shared vocabulary of parameters (:data:`PARAMETERS`, filled by ``_param``), :func:`registry`
and the tool's JSON schema (:func:`tool_schema`). The actions themselves are declared in ``_actions``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from .._records import _Record
from ..graph import KnowledgeGraph

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
            raise ValueError(
                f"parameter {self.name}: unknown JSON type {self.type!r}; use one of {', '.join(_ACCEPTS)}"
            )

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
        return {
            "name": self.name,
            "description": self.description,
            "params": [p.to_dict() for p in self.params],
            "read_only": self.read_only,
            "idempotent": self.idempotent,
            "destructive": self.destructive,
            "paged": self.paged,
        }


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


def action(
    name: str,
    description: str,
    *params: Param,
    read_only: bool = False,
    idempotent: bool = False,
    destructive: bool = False,
    rules: Rules | None = None,
    paged: bool = False,
) -> Callable[[Handler], Handler]:
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
                raise ValueError(
                    f"parameter {p.name!r} of {name!r} must come from the shared vocabulary "
                    f"(PARAMETERS), with its JSON type"
                )
        if paged and not {"limit", "offset"} <= set(names):
            raise ValueError(f"the list action {name!r} must take limit and offset")
        _REGISTRY[name] = Action(
            name,
            description,
            tuple(params),
            handler,
            read_only=read_only,
            idempotent=idempotent,
            destructive=destructive,
            rules=rules,
            paged=paged,
        )
        return handler

    return register


PARAMETERS: Mapping[str, Param] = MappingProxyType(_VOCABULARY)
"""Every parameter name an action may take, with its one JSON type and general description."""


def tool_schema() -> dict[str, Any]:
    """The JSON schema of the whole tool for function calling: ``action`` and every parameter any action takes."""
    names = list(_REGISTRY)
    properties: dict[str, Any] = {
        "action": {"type": "string", "enum": names, "description": "What to do: " + ", ".join(names) + "."}
    }
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

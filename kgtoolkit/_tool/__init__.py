"""The JSON agent tool (contract §7): one action-dispatched entry point that never raises.

Every action is declared once, in ``_actions``, with :func:`action` over its handler: its name, when an agent
should use it, its parameters as :class:`Param` records (JSON type, required, description, default)
and whether it only reads. Everything else comes from that one registry: the dispatcher and its
checks (:func:`run_tool`), the JSON schema for function calling (:data:`TOOL_SCHEMA`), the MCP
server's tools (``kgtoolkit.mcp_server.tool_specs``) and the CLI's ``tool`` command. Every door
answers in the one envelope :func:`envelope` builds.

To add an action (in ``_actions``): take its parameters from the shared vocabulary there (a new name gets its
``_param`` line: one JSON type and one general description per name), adapt them with
:meth:`Param.but` (required, this action's wording, default), write the handler under
``@action(...)``, and name the action and its parameters in docs/agents.md's ``kgtoolkit tool`` section
(``tests/meta/test_docs.py`` fails until every door and the guide have it).

Layout, one private module per concern (everything the doors use is imported from here): ``_registry``
(:class:`Param`, :class:`Action`, :func:`action`, :func:`registry`, :func:`tool_schema`), ``_actions``
(the shared vocabulary and every action: imported here, so every action is registered before
:data:`ACTIONS` and :data:`TOOL_SCHEMA` are built), ``_dispatch`` (the result shapes, :func:`envelope`,
the checks of a request, :func:`run_tool`, :func:`answer_json`).

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

from typing import Any

from . import _actions  # noqa: F401  (declares every action in the registry: before ACTIONS and TOOL_SCHEMA)
from ._dispatch import answer_json, conflicts_result, envelope, facts_result, page_result, run_tool
from ._registry import DEFAULT_LIMIT, MAX_LIMIT, PARAMETERS, Action, Param, action, registry, tool_schema

__all__ = [
    "ACTIONS",
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "PARAMETERS",
    "TOOL_SCHEMA",
    "Action",
    "Param",
    "action",
    "answer_json",
    "conflicts_result",
    "envelope",
    "facts_result",
    "page_result",
    "registry",
    "run_tool",
    "tool_schema",
]


ACTIONS: tuple[str, ...] = tuple(registry())
"""The names of the actions, in the order they are declared."""

TOOL_SCHEMA: dict[str, Any] = tool_schema()

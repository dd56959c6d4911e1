"""The JSON agent tool (SPEC §6): one action-dispatched entry point that never raises.

>>> from kgtoolkit.store import open as open_graph
>>> kg = open_graph(":memory:")
>>> answer = run_tool({"action": "add", "subject": "Alice", "predicate": "works_at", "object": "Nocetic"}, kg=kg)
>>> answer["ok"], answer["result"]["created"], answer["result"]["fact"]["object"]
(True, True, 'nocetic')
>>> run_tool('{"action": "query", "name": "Bob"}', kg=kg)["error"]["code"]
'not_found'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from ._errors import InvalidRequest, KGError
from ._names import check_unicode, printable, printable_data
from .store import KnowledgeGraph

__all__ = ["ACTIONS", "TOOL_SCHEMA", "answer_json", "run_tool"]

_STR, _BOOL, _INT, _NUM, _OBJ = "string", "boolean", "integer", "number", "object"

# action -> {parameter: JSON type}; required parameters per action below.
_PARAMS: dict[str, dict[str, str]] = {
    "add": {"subject": _STR, "predicate": _STR, "object": _STR, "valid_from": _STR, "valid_to": _STR,
            "confidence": _NUM, "source": _STR, "source_closet": _STR, "subject_type": _STR,
            "object_type": _STR, "properties": _OBJ},
    "query": {"name": _STR, "direction": _STR, "as_of": _STR, "known_at": _STR, "current_only": _BOOL,
              "limit": _INT, "offset": _INT},
    "invalidate": {"subject": _STR, "predicate": _STR, "object": _STR, "ended": _STR, "ended_by": _STR},
    "supersede": {"subject": _STR, "predicate": _STR, "object": _STR, "old_object": _STR, "new_object": _STR,
                  "at": _STR, "confidence": _NUM, "source": _STR, "source_closet": _STR, "object_type": _STR},
    "search": {"predicate": _STR, "object": _STR, "as_of": _STR, "known_at": _STR, "current_only": _BOOL,
               "limit": _INT, "offset": _INT},
    "timeline": {"name": _STR, "limit": _INT, "offset": _INT},
    "merge": {"subject": _STR, "object": _STR},
    "alias": {"name": _STR, "entity": _STR},
    "stats": {},
    "conflicts": {"name": _STR, "current_only": _BOOL},
    "summary": {"limit": _INT, "style": _STR, "as_of": _STR},
    "remember": {"text": _STR, "source": _STR, "metadata": _OBJ},
    "find": {"query": _STR, "k": _INT, "kind": _STR, "as_of": _STR, "current_only": _BOOL},
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "add": ("subject",),
    "query": ("name",),
    "invalidate": ("subject", "predicate", "object"),
    "supersede": ("subject", "predicate", "new_object"),
    "search": ("predicate",),
    "merge": ("subject", "object"),
    "alias": ("name", "entity"),
    "remember": ("text",),
    "find": ("query",),
}
ACTIONS: tuple[str, ...] = tuple(_PARAMS)

_DESCRIPTIONS = {
    "action": "What to do: " + ", ".join(ACTIONS) + ".",
    "subject": "Entity the fact is about (for merge: the duplicate to fold away).",
    "predicate": "Relationship type, e.g. uses_queue, works_at, email.",
    "object": "Entity or value the fact points at (for merge: the entity to keep; for supersede: the old object).",
    "name": "Entity to look up (query, timeline, conflicts) or the new alias (alias).",
    "entity": "Entity an alias names.",
    "valid_from": "When the fact became true: YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime with Z.",
    "valid_to": "When it stopped being true (leave out while it is still true).",
    "ended": "When the fact stopped being true (default: today).",
    "at": "When the new object replaced the old one (default: today).",
    "as_of": "Only facts valid on this date.",
    "known_at": "What the graph believed at this moment (transaction time).",
    "direction": "outgoing (entity is subject), incoming (entity is object) or both.",
    "old_object": "The object being replaced (supersede).",
    "new_object": "The object that replaces it (supersede).",
    "text": "Evidence to store as a memory (remember); a fact's source_closet may point at its id.",
    "metadata": "JSON object stored with the memory (remember).",
    "query": "What to look for, in words (find): facts and memories are ranked by meaning.",
    "k": "How many hits (find; default 10).",
    "kind": "facts, memories or both (find; default facts).",
}

TOOL_SCHEMA: dict[str, Any] = {
    "name": "knowledge_graph",
    "description": (
        "A temporal knowledge graph of stable facts (subject → predicate → object, with the dates they "
        "held). Record facts with add; when one stops being true, invalidate it or supersede it with the "
        "new object (history is kept); query an entity before answering about past decisions. Store evidence "
        "text with remember (point a fact's source_closet at it) and search facts and memories by meaning with "
        "find: each hit says whether it is still current and what replaced it."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS), "description": _DESCRIPTIONS["action"]},
            **{
                name: {"type": kind, **({"description": _DESCRIPTIONS[name]} if name in _DESCRIPTIONS else {})}
                for params in _PARAMS.values() for name, kind in params.items()
            },
        },
        "required": ["action"],
    },
}

_CHECKS: dict[str, Callable[[Any], bool]] = {
    _STR: lambda v: isinstance(v, str),
    _BOOL: lambda v: isinstance(v, bool),
    _INT: lambda v: isinstance(v, int) and not isinstance(v, bool),
    _NUM: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    _OBJ: lambda v: isinstance(v, Mapping),
}


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


def _validate(request: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(request, bytes):
        try:
            request = request.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(f"the request is not valid UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                                 f"position {exc.start}); send JSON encoded as UTF-8") from None
    if isinstance(request, str):
        try:
            request = json.loads(request)
        except ValueError as exc:
            raise InvalidRequest(f"the request is not valid JSON: {printable(str(exc))}") from None
    if not isinstance(request, Mapping):
        raise InvalidRequest("the request must be a JSON object with an 'action'")
    if not all(isinstance(key, str) for key in request):
        raise InvalidRequest("every parameter name must be text", field="action")
    _check_text(request)
    action = request.get("action")
    if not isinstance(action, str) or action not in _PARAMS:
        raise InvalidRequest(f"unknown action {action!r}; use one of: {', '.join(ACTIONS)}", field="action",
                             value=str(action), suggestions=list(ACTIONS))
    allowed = _PARAMS[action]
    params = {k: v for k, v in request.items() if k != "action" and v is not None}
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InvalidRequest(f"{action} does not take {', '.join(unknown)}; it takes: {', '.join(allowed) or 'nothing'}",
                             field=unknown[0], value=str(params[unknown[0]]), suggestions=list(allowed))
    for key, value in params.items():
        if not _CHECKS[allowed[key]](value):
            raise InvalidRequest(f"{key} must be a JSON {allowed[key]}, not {json.dumps(value)}", field=key,
                                 value=str(value))
    if action == "supersede" and "object" in params:
        if "old_object" in params and params["old_object"] != params["object"]:
            raise InvalidRequest("supersede takes the old object once: give object or old_object, not both",
                                 field="old_object", value=str(params["old_object"]))
        params["old_object"] = params.pop("object")
    required = _REQUIRED.get(action, ()) + (("old_object",) if action == "supersede" else ())
    missing = [k for k in required if k not in params or params[k] == ""]
    if action == "add" and ("predicate" in params) != ("object" in params):
        missing.append("object" if "predicate" in params else "predicate")
    if missing:
        raise InvalidRequest(f"{action} needs {', '.join(missing)}", field=missing[0])
    return action, params


def _facts(facts: list[Any]) -> dict[str, Any]:
    return {"facts": [f.to_dict() for f in facts], "count": len(facts)}


def _dispatch(kg: KnowledgeGraph, action: str, p: dict[str, Any]) -> Any:
    if action == "add":
        if "predicate" not in p:
            kwargs = {"type": p.get("subject_type"), "properties": p.get("properties")}
            return {"entity": kg.add_entity(p["subject"], **kwargs).to_dict()}
        subject, predicate, obj = p.pop("subject"), p.pop("predicate"), p.pop("object")
        return kg.add(subject, predicate, obj, **p).to_dict()
    if action == "query":
        return {"entity": kg.resolve(p["name"]), **_facts(kg.query(p.pop("name"), **p))}
    if action == "invalidate":
        return {"fact": kg.invalidate(p.pop("subject"), p.pop("predicate"), p.pop("object"), **p).to_dict()}
    if action == "supersede":
        return kg.supersede(p.pop("subject"), p.pop("predicate"), p.pop("old_object"), p.pop("new_object"), **p).to_dict()
    if action == "search":
        return _facts(kg.search(p.pop("predicate"), p.pop("object", None), **p))
    if action == "timeline":
        return _facts(kg.timeline(p.pop("name", None), **p))
    if action == "merge":
        return kg.merge(p["subject"], p["object"]).to_dict()
    if action == "alias":
        return kg.alias(p["name"], p["entity"]).to_dict()
    if action == "stats":
        return kg.stats().to_dict()
    if action == "conflicts":
        groups = kg.conflicts(p.get("name"), current_only=p.get("current_only", False))
        return {"groups": [g.to_dict() for g in groups], "count": len(groups),
                "needs_action": sum(g.needs_action for g in groups)}
    if action == "summary":
        return {"markdown": kg.summary(**p)}
    if action == "remember":
        return {"memory": kg.remember(p.pop("text"), **p).to_dict()}
    if action == "find":
        from .search import find  # torch and the model load only when an agent searches

        return find(kg, p.pop("query"), **p).to_dict()
    raise AssertionError(action)  # pragma: no cover - _validate admits known actions only


def run_tool(request: Mapping[str, Any] | str | bytes, *, kg: KnowledgeGraph | None = None,
             db: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Answer one agent request: ``{"ok": true, "result": …}`` or ``{"ok": false, "error": {…}}``.

    ``request`` is a JSON object (or its text, or UTF-8 bytes) with ``action`` and that action's
    parameters. It never raises: bad input, a missing entity or a broken file all come back as an
    error object with a stable ``code``, a ``message`` and ``suggestions``. Text that is not valid
    Unicode anywhere in the request (bytes that are not UTF-8, a lone surrogate such as an unpaired
    ``\\ud800`` escape) is ``invalid_request``, naming the field.
    """
    opened = None
    try:
        action, params = _validate(request)
        if kg is None:
            kg = opened = KnowledgeGraph(db)
        return {"ok": True, "result": _dispatch(kg, action, params)}
    except KGError as exc:
        return {"ok": False, "error": exc.to_dict()}
    except Exception as exc:  # the tool must answer, whatever happened
        return {"ok": False, "error": {"code": "internal_error", "message": printable(f"{type(exc).__name__}: {exc}"),
                                       "suggestions": []}}
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

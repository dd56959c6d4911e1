"""The agent tool's answers and dispatch: the result shapes the actions share, the one :func:`envelope`, the
checks of a request (JSON, Unicode, the action's parameters and paging) and :func:`run_tool`, which answers
it and never raises; :func:`answer_json` for a channel."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._errors import InvalidDate, InvalidRequest, KGError
from .._limits import check_request, parse_request
from .._names import check_unicode, printable, printable_data
from .._page import Page
from .._records import ConflictGroup, Fact
from ..graph import KnowledgeGraph
from ._registry import DEFAULT_LIMIT, MAX_LIMIT, Action, Param, registry


def facts_result(facts: Iterable[Fact], **extra: Any) -> dict[str, Any]:
    """The result shape of every list of facts (query, search, timeline): ``{…extra, "facts", "count"}``."""
    rows = [f.to_dict() for f in facts]
    return {**extra, "facts": rows, "count": len(rows)}


def page_result(page: Page[Any]) -> dict[str, Any]:
    """The paging fields of a list answer: ``{"count", "total", "truncated", "next_offset"}``."""
    return page.paging()


def conflicts_result(groups: Sequence[ConflictGroup]) -> dict[str, Any]:
    """The result shape of conflicts: ``{"groups", "count", "needs_action"}``."""
    return {
        "groups": [g.to_dict() for g in groups],
        "count": len(groups),
        "needs_action": sum(g.needs_action for g in groups),
    }


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
    return {
        "ok": False,
        "error": {
            "code": "internal_error",
            "message": printable(f"{type(error).__name__}: {error}"),
            "suggestions": [],
        },
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
                    raise InvalidRequest(
                        f"the parameter name '{printable(key)}'{inside} is not valid Unicode text (a "
                        "lone surrogate, what an unpaired \\ud800-\\udfff escape or a byte that is "
                        "not UTF-8 becomes); send UTF-8 text",
                        field=where or printable(key),
                        value=printable(key),
                    )
                pending.append((f"{where}.{key}" if where else str(key), item))
        elif isinstance(value, (list, tuple)):
            pending.extend((f"{where}[{i}]", item) for i, item in enumerate(value))


def _decoded(request: Any) -> Any:
    """The request as JSON data: text and UTF-8 bytes parsed (within the limits), data checked against them."""
    if isinstance(request, bytes):
        try:
            request = request.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(
                f"the request is not valid UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                f"position {exc.start}); send JSON encoded as UTF-8"
            ) from exc
    if isinstance(request, str):
        if not request.strip():
            raise InvalidRequest("the request is empty: send one JSON object with an 'action' (one per line)")
        try:
            request = parse_request(request)
        except ValueError as exc:
            raise InvalidRequest(f"the request is not valid JSON: {printable(str(exc))}") from exc
    else:
        check_request(request)
    return request


def _validate(request: Any) -> tuple[Action, dict[str, Any]]:
    request = _decoded(request)
    if not isinstance(request, Mapping):
        raise InvalidRequest("the request must be a JSON object with an 'action'")
    _check_dates(request)
    if not all(isinstance(key, str) for key in request):
        raise InvalidRequest("every parameter name must be text", field="action")
    _check_text(request)
    name = request.get("action")
    actions = registry()  # read at each request: the actions declared so far
    if not isinstance(name, str) or name not in actions:
        names = list(actions)
        raise InvalidRequest(
            f"unknown action {name!r}; use one of: {', '.join(names)}",
            field="action",
            value=str(name),
            suggestions=names,
        )
    act = actions[name]
    allowed = {p.name: p for p in act.params}
    params = {k: v for k, v in request.items() if k != "action" and v is not None}
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InvalidRequest(
            f"{name} does not take {', '.join(unknown)}; it takes: {', '.join(allowed) or 'nothing'}",
            field=unknown[0],
            value=str(params[unknown[0]]),
            suggestions=list(allowed),
        )
    for key, value in params.items():
        if not allowed[key].accepts(value):
            kind = "array of strings" if allowed[key].type == "array" else allowed[key].type
            raise InvalidRequest(f"{key} must be a JSON {kind}, not {json.dumps(value)}", field=key, value=str(value))
    if act.paged:
        _check_page(params)
    _check_bounds(params, allowed)
    also = act.rules(params) if act.rules is not None else []
    missing = [k for k in act.required if k not in params or params[k] == ""] + also
    if missing:
        raise InvalidRequest(f"{name} needs {', '.join(missing)}", field=missing[0])
    return act, params


#: The date filters whose blank text is no date (never "today", never "no filter"): ``invalid_date``.
_DATE_FILTERS = ("as_of", "known_at", "since", "until", "from", "to")


def _check_dates(request: Mapping[str, Any]) -> None:
    """A date filter given as blank text is ``invalid_date`` (it used to read as no filter: "Facts valid on .")."""
    for key in _DATE_FILTERS:
        if isinstance(request.get(key), str) and not request[key].strip():
            raise InvalidDate(
                f"{key} is empty; give a date (YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime), or leave {key} out",
                field=key,
                value=request[key],
            )


def _check_bounds(params: dict[str, Any], allowed: Mapping[str, Param]) -> None:
    """Every whole-number parameter within the bounds its declaration states (``hops`` 1 to 4, summary's
    ``limit`` 1 to :data:`MAX_LIMIT`): the schema an agent reads is the rule the tool keeps."""
    for key, value in params.items():
        param = allowed[key]
        low, high = param.minimum, param.maximum
        if param.type != "integer" or (low is None and high is None):
            continue
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"from {low:,.0f}" + (f" to {high:,.0f}" if high is not None else "")
            raise InvalidRequest(
                f"{key} must be a whole number {span}, not {value}", field=key, value=str(value), maximum=high
            )


def _check_page(params: dict[str, Any]) -> None:
    """A list action's ``limit`` (0 to :data:`MAX_LIMIT`) and ``offset`` (from 0), and a conflict group's ``history``
    and ``history_offset`` likewise, already known to be integers."""
    _check_window(params, "limit", "offset", "offset (each answer's next_offset)")
    _check_window(params, "history", "history_offset", "history_offset")  # conflicts: a page of each group's history


def _check_window(params: dict[str, Any], size: str, start: str, page_on: str) -> None:
    """One page's ``size`` (0 to :data:`MAX_LIMIT`, or absent) and ``start`` (from 0) in ``params``."""
    count, skip = params.get(size), params.get(start, 0)
    if count is not None and not 0 <= count <= MAX_LIMIT:
        raise InvalidRequest(
            f"{size} must be a whole number from 0 to {MAX_LIMIT:,}, not {count}; for more, page on with {page_on}",
            field=size,
            value=str(count),
            maximum=MAX_LIMIT,
        )
    if skip < 0:
        raise InvalidRequest(f"{start} must be a whole number from 0, not {skip}", field=start, value=str(skip))


def run_tool(
    request: Mapping[str, Any] | str | bytes,
    *,
    kg: KnowledgeGraph | None = None,
    db: str | os.PathLike[str] | None = None,
    default_limit: int = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Answer one agent request: ``{"ok": true, "result": …}`` or ``{"ok": false, "error": {…}}``.

    It never raises. Bad input, a missing entity or a broken file all come back as an error object with a
    stable ``code``, a ``message`` and ``suggestions``. Text that is not valid Unicode anywhere in the
    request (bytes that are not UTF-8, an unpaired ``\\ud800`` escape) is ``invalid_request``, naming the
    field.

    Parameters
    ----------
    request
        A JSON object (or its text, or UTF-8 bytes) with ``action`` and that action's parameters
        (:data:`kgtoolkit.TOOL_SCHEMA` describes them).
    kg
        The graph to answer on.
    db
        The graph to open when ``kg`` is not given (default: ``$KGTOOLKIT_DB``, else the default file).
    default_limit
        How many items a list action (query, search, timeline, conflicts, aliases, predicates) returns when
        the request gives no ``limit`` (:data:`DEFAULT_LIMIT`; the MCP server passes its own).

    Returns
    -------
    dict
        The envelope, ready for ``json.dumps``.

    Examples
    --------
    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> run_tool({"action": "add", "subject": "my_api", "predicate": "uses", "object": "Redis"}, kg=kg)["ok"]
    True
    >>> run_tool({"action": "query", "name": "nobody"}, kg=kg)["error"]["code"]
    'not_found'
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

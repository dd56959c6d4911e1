"""How big and how deep an agent's request may be (contract §7): the JSON tool and MCP check here first;
how far a traversal reaches (contract §11); and how much history a conflict group carries (contract §5).

A request is one small JSON object of parameters; anything far larger or deeper is a mistake or an
attack, and is refused as ``invalid_request`` before any of it is looked at (never an
``internal_error`` from a parser's recursion limit, never a graph write).

>>> parse_request('{"action": "stats"}')
{'action': 'stats'}
>>> parse_request("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
kgtoolkit._errors.InvalidRequest: the request is nested more than 32 levels deep; ...
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._errors import InvalidRequest

__all__ = [
    "DEFAULT_HISTORY",
    "DEFAULT_MAX_FACTS",
    "MAX_DEPTH",
    "MAX_HOPS",
    "MAX_REQUEST_BYTES",
    "check_request",
    "depth",
    "parse_request",
    "too_deep",
]

#: The largest request text, in bytes of UTF-8: room for a value at the default ``max_value_length``.
MAX_REQUEST_BYTES = 1_048_576
#: The deepest nesting of objects and lists a request may hold (the parameters need two or three).
MAX_DEPTH = 32
#: How many facts one traversal reads at most, unless told otherwise (``max_facts``).
DEFAULT_MAX_FACTS = 10_000
#: How many ended facts a conflict group carries unless told otherwise (its last ended; contract §5 ``conflicts``).
DEFAULT_HISTORY = 20
#: The most hops a traversal takes (``hops``, ``max_hops``) and the longest chain ``follow`` follows.
MAX_HOPS = 4


def too_deep() -> InvalidRequest:
    """The refusal of a request nested deeper than :data:`MAX_DEPTH`."""
    return InvalidRequest(
        f"the request is nested more than {MAX_DEPTH} levels deep; parameters are names, texts, "
        "numbers and short lists",
        field="request",
        limit=MAX_DEPTH,
    )


def _too_big(size: int) -> InvalidRequest:
    return InvalidRequest(
        f"the request is {size:,} bytes, more than the {MAX_REQUEST_BYTES:,} a request may be; "
        "a long text belongs in a file: `kgtoolkit import`",
        field="request",
        size=size,
        limit=MAX_REQUEST_BYTES,
    )


def depth(value: Any) -> int:
    """How deeply ``value`` nests lists and mappings (a scalar is 0), walked without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, Mapping) else item if isinstance(item, (list, tuple)) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def parse_request(text: str | bytes) -> Any:
    """The JSON value of a request's text, once it is known to be small and shallow enough."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_REQUEST_BYTES:
        raise _too_big(size)
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep() from None  # the interpreter's own frames would be a thousand lines of noise
    if depth(value) > MAX_DEPTH:
        raise too_deep()
    return value


def check_request(value: Any) -> Any:
    """``value`` (a request already parsed, as MCP hands it over) when it is small and shallow enough."""
    if depth(value) > MAX_DEPTH:
        raise too_deep()
    size = len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    if size > MAX_REQUEST_BYTES:
        raise _too_big(size)
    return value

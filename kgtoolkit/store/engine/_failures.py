"""The one place where lower-layer failures become kgtoolkit errors (contract §6).

Both backends call it at their connection and transaction boundary, so no ``sqlite3``, ``psycopg``
or ``OSError`` exception leaves the store for a broken, full, locked or read-only database::

    lower layer                               kgtoolkit error       code
    sqlite3, by sqlite_errorname
      SQLITE_CORRUPT*; SQLITE_NOTADB of a     Corrupt               corrupt
        file that has SQLite's header
      SQLITE_NOTADB, no SQLite header         StoreError            store_error   (another kind of file)
      SQLITE_FULL; SQLITE_IOERR* with no room DiskFull              disk_full
      SQLITE_BUSY*, SQLITE_LOCKED*            Locked                locked
      SQLITE_READONLY*                        ReadOnly              read_only
      a closed connection                     StoreError            store_error
      anything else the engine reports        StoreError            store_error
    psycopg (and ADBC), by sqlstate
      XX001, XX002 (data/index corrupted)     Corrupt               corrupt
      53100 (disk full)                       DiskFull              disk_full
      55P03 (lock timeout), 57014 (canceled)  Locked                locked
      25006 (read-only transaction)           ReadOnly              read_only
      42501 (no privilege), class 08, other   StoreError            store_error
    OSError, by errno
      ENOSPC, EDQUOT, EFBIG                   DiskFull              disk_full
      anything else                           StoreError            store_error

Errors the store's own code makes (a wrong binding, a misuse of the API) are not the database's:
:func:`is_sqlite_failure` leaves them alone, so they keep their traceback. Every message names the
file or database and says what to do; ``data`` holds ``field`` (``path`` or ``db``) and ``value``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._errors import Corrupt, DiskFull, KGError, Locked, ReadOnly, StoreError

__all__ = [
    "CORRUPT_HINT",
    "SQLITE_MAGIC",
    "corrupt_error",
    "is_sqlite_failure",
    "os_failure",
    "postgres_connect_failure",
    "postgres_failure",
    "refused_reason",
    "sqlite_failure",
    "sqlite_text_failure",
    "unwritable",
]

SQLITE_MAGIC = b"SQLite format 3\x00"
#: What to do about a corrupt graph (contract §6).
CORRUPT_HINT = "restore from a backup, or `kgtoolkit export` what is still readable"

_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_ROOM = 64 * 1024  # a folder with less free space than this is full, for an I/O error's sake


def _first_line(exc: BaseException | str) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# ---------------------------------------------------------------------- SQLite


def is_sqlite_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database failing (the engine's error code, or a closed connection), not a
    mistake of the calling code (a wrong number of bindings, two statements in one)."""
    if not isinstance(exc, sqlite3.Error):
        return False
    if getattr(exc, "sqlite_errorcode", None) is not None or isinstance(exc, sqlite3.OperationalError):
        return True
    return isinstance(exc, sqlite3.ProgrammingError) and "closed database" in str(exc)


def unwritable(path: Path) -> str | None:
    """Why this user cannot write the graph at ``path`` (its folder, or the file itself), else None.

    ``os.access`` answers for root too: a read-only file system, an immutable file (``chattr +i``).
    """
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"its folder {folder} is read-only for this user (a read-only file system)"
    except OSError:  # no folder yet, or not POSIX: the checks below answer
        pass
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only for this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} is read-only for this user (SQLite needs to create files beside the graph)"
    return None


def refused_reason(path: Path) -> str | None:
    """Why SQLite could not write the graph at ``path`` just now: :func:`unwritable`, or its write-ahead log
    or shared-memory file (``-wal``, ``-shm``) that this user cannot write (an immutable file, say)."""
    reason = unwritable(path)
    if reason is not None:
        return reason
    for suffix, what in (("-wal", "write-ahead log"), ("-shm", "shared-memory file")):
        side = Path(f"{path}{suffix}")
        if side.exists() and not os.access(side, os.W_OK):
            return f"its {what} {side} is read-only for this user"
    return None


def _has_magic(path: Path | None) -> bool:
    if path is None:
        return False
    try:
        with path.open("rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _no_room(path: Path | None) -> str | None:
    """Why writing ``path`` has no room (a full file system, the process's file size limit), else None."""
    if path is None:
        return None
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        if soft != resource.RLIM_INFINITY:
            biggest = max(
                (os.stat(f"{path}{s}").st_size for s in ("", "-wal", "-journal") if os.path.exists(f"{path}{s}")),
                default=0,
            )
            if biggest + _ROOM >= soft:
                return f"the file size limit of this process ({soft} bytes, ulimit -f) is reached"
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        pass
    try:
        info = os.statvfs(path.parent)
        if info.f_bavail * info.f_frsize < _ROOM or (info.f_files and info.f_favail == 0):
            return f"the file system of {path.parent} is full"
    except OSError:
        pass
    return None


def _disk_full(path: Path | None, why: str, detail: str) -> DiskFull:
    """A ``disk_full`` error naming where and what to do: free space, or raise the file size limit."""
    where = str(path) if path is not None else "the graph"
    action = (
        "raise the limit (ulimit -f)" if "ulimit" in why else "free some space (or move the graph to a bigger disk)"
    )
    return DiskFull(
        f"no room to write {where}: {why} ({detail}); nothing was written (the graph is as it was "
        f"before); {action} and retry",
        field="path",
        value=where,
        reason=why,
    )


def corrupt_error(path: Path | None, detail: str) -> Corrupt:
    """The ``corrupt`` error for the graph file ``path``, ``detail`` saying what found it."""
    where = str(path) if path is not None else "the graph"
    return Corrupt(
        f"the graph file {where} is corrupt ({detail}): some of its pages are damaged; {CORRUPT_HINT} "
        f"(kgtoolkit --db {where} export FILE.json)",
        field="path",
        value=where,
    )


def sqlite_failure(
    exc: sqlite3.Error,
    *,
    path: Path | None,
    timeout: float,
    opening: bool = False,
    read_only_reason: Callable[[], str | None] | None = None,
) -> KGError:
    """The kgtoolkit error for a failure of the SQLite graph at ``path`` (None or ``:memory:``: in memory).

    ``opening``: the file is being opened as a graph (a file that is not SQLite is then no graph);
    ``read_only_reason``: why the file cannot be written now, for a write SQLite refused.
    """
    name = getattr(exc, "sqlite_errorname", None) or ""
    detail = _first_line(exc)
    where = str(path) if path is not None else "the graph"
    data: dict[str, Any] = {"field": "path", "value": where}
    if isinstance(exc, sqlite3.ProgrammingError) and "closed database" in detail:
        return StoreError(f"the graph {where} is closed; open it again", **data)
    if name.startswith("SQLITE_CORRUPT") or (name == "SQLITE_NOTADB" and _has_magic(path)):
        return corrupt_error(path, detail)
    if name == "SQLITE_NOTADB":
        return StoreError(
            f"cannot open {where} as a knowledge graph: {detail} (it has no SQLite header: another "
            "kind of file, or a graph whose first page is destroyed); check the path, or restore the "
            "graph from a backup",
            **data,
        )
    if name == "SQLITE_FULL":
        return _disk_full(path, _no_room(path) or "the disk is full", detail)
    if name.startswith("SQLITE_IOERR"):
        why = _no_room(path)
        if why is not None:
            return _disk_full(path, why, detail)
        return StoreError(
            f"the disk failed reading or writing {where} ({detail}, {name}); nothing was written; "
            "check the disk (dmesg) and retry",
            **data,
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and ("locked" in detail or "busy" in detail)):
        return Locked(
            f"the graph at {where} is busy ({detail}) after waiting {timeout:g} s: another connection "
            "holds its lock; retry, or raise the timeout",
            timeout=timeout,
            **data,
        )
    if name.startswith("SQLITE_READONLY"):
        reason = (read_only_reason() if read_only_reason is not None else None) or (
            "the file was moved or deleted while open"
            if name == "SQLITE_READONLY_DBMOVED"
            else f"the file system refused the write ({detail})"
        )
        return ReadOnly(
            f"{where} cannot be changed: {reason}. Reads work; to write, give this user write access "
            "to the file and its folder, or copy the graph elsewhere",
            reason=reason,
            **data,
        )
    if name.startswith("SQLITE_CANTOPEN"):
        return StoreError(
            f"cannot open {where} ({detail}); check that the file and its folder exist and this user may read them",
            **data,
        )
    if opening:
        return StoreError(f"cannot open {where} as a knowledge graph: {detail}", **data)
    return StoreError(f"the graph {where} refused a statement: {detail}; nothing was written", **data)


def sqlite_text_failure(message: str, *, path: Path | None, timeout: float) -> KGError:
    """:func:`sqlite_failure` for an SQLite error known only by its message (the reader process's answer)."""
    text = message.lower()
    if "malformed" in text or "corrupt" in text or ("not a database" in text and _has_magic(path)):
        return corrupt_error(path, message.strip().splitlines()[0])
    if "database or disk is full" in text:
        return _disk_full(path, _no_room(path) or "the disk is full", message.strip().splitlines()[0])
    if "no space left" in text or "disk quota" in text:  # the reader's result files (nothing is written to the graph)
        where = str(path) if path is not None else "the graph"
        return DiskFull(
            f"no room for the temporary files of a whole-table read of {where} ({message}); free space "
            "in /dev/shm or the temporary folder ($TMPDIR) and retry",
            field="path",
            value=where,
            reason="the temporary folder is full",
        )
    if "locked" in text or "busy" in text:
        where = str(path) if path is not None else "the graph"
        return Locked(
            f"the graph at {where} is busy ({message}) after waiting {timeout:g} s: another connection "
            "holds its lock; retry, or raise the timeout",
            field="path",
            value=where,
            timeout=timeout,
        )
    where = f" {path}" if path is not None else ""
    return StoreError(f"cannot read the graph{where}: {message}", field="path", value=str(path) if path else None)


# ---------------------------------------------------------------------- files


def os_failure(exc: OSError, *, path: Path | str, doing: str = "write", hint: str = "") -> KGError:
    """The kgtoolkit error for an ``OSError`` while ``doing`` something to ``path`` (a graph, an export)."""
    detail = exc.strerror or _first_line(exc)
    code = exc.errno
    if code is None:  # polars (Rust) says "No space left on device (os error 28)"
        import re

        found = re.search(r"\(os error (\d+)\)", str(exc))
        code = int(found.group(1)) if found else None
    if code in _NO_ROOM:
        why = {
            errno.EDQUOT: "the disk quota is exceeded",
            errno.EFBIG: "the file size limit of this process is reached (ulimit -f)",
        }.get(code or 0, "the disk is full")
        return DiskFull(
            f"no room to {doing} {path}: {why} ({detail}); nothing was written; free some space and retry",
            field="path",
            value=str(path),
            reason=why,
        )
    return StoreError(f"cannot {doing} {path}: {detail}{'; ' + hint if hint else ''}", field="path", value=str(path))


# ---------------------------------------------------------------------- PostgreSQL


def postgres_failure(
    exc: Exception, *, where: str, timeout: float, connection_error: type[BaseException] | None = None
) -> KGError:
    """The kgtoolkit error for a psycopg (or ADBC) error of the PostgreSQL graph ``where`` (password masked).

    ``connection_error``: psycopg's ``OperationalError`` (a lost connection).
    """
    state = getattr(exc, "sqlstate", None) or ""
    text = _first_line(exc)
    data: dict[str, Any] = {"field": "db", "value": where, "sqlstate": state or None}
    if state == "25006":
        return ReadOnly(
            f"{where} is open read-only; open it without read_only to change it", reason="a read-only session", **data
        )
    if state in ("55P03", "57014"):
        return Locked(
            f"the graph at {where} is busy ({text}) after waiting {timeout:g} s: another connection holds "
            "its lock; retry, or raise the timeout",
            timeout=timeout,
            **data,
        )
    if state == "53100":
        return DiskFull(
            f"the PostgreSQL server of {where} is out of disk space; nothing was written ({text}); free "
            "space on the server and retry",
            reason="the server's disk is full",
            **data,
        )
    if state in ("XX001", "XX002"):
        return Corrupt(f"the PostgreSQL server reports damaged data in {where} ({text}); {CORRUPT_HINT}", **data)
    if state == "42501":
        return StoreError(
            f"the database user lacks a privilege on {where} ({text}); grant it, or connect as the graph's owner",
            **data,
        )
    if (connection_error is not None and isinstance(exc, connection_error)) or state.startswith("08"):
        return StoreError(f"lost the connection to {where} ({text}); nothing was written; retry", **data)
    return StoreError(f"the PostgreSQL graph {where} refused a statement: {text}", **data)


def postgres_connect_failure(exc: Exception, *, where: str) -> StoreError:
    """The error for a connection to the PostgreSQL graph ``where`` that could not be made, with a hint."""
    import re

    text = str(exc).strip()
    reason = re.sub(r"^connection failed:\s*", "", _first_line(exc))
    if "password authentication failed" in text or "no password supplied" in text:
        hint = "the server refused the user name or password; check them in the URL (or PGPASSWORD, ~/.pgpass)"
    elif "does not exist" in text and "database" in text:
        hint = "the database does not exist; create it (createdb NAME, or CREATE DATABASE) or check its name"
    elif any(
        s in text
        for s in (
            "Connection refused",
            "could not translate host name",
            "timeout expired",
            "Name or service not known",
            "No route to host",
            "Network is unreachable",
        )
    ):
        hint = "the server cannot be reached; check the host and port, and that PostgreSQL is running there"
    else:
        hint = "check the URL (postgresql://user:password@host:port/database)"
    return StoreError(f"cannot connect to the PostgreSQL graph {where}: {hint} ({reason})", field="db", value=where)

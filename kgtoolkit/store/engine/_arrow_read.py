"""Whole-table reads of a graph file into Arrow, without a second SQLite library in this process.

**The rule: in a process that opens a graph file, only Python's ``sqlite3`` opens it.** ADBC's SQLite
driver reads straight into Arrow, fast, but it bundles its own copy of the SQLite library. Two
copies of SQLite on one file in one process corrupt it ("How To Corrupt An SQLite Database File",
§2.2.1 of SQLite's documentation): each copy's POSIX locks are invisible to the other, and closing a
file in one copy drops the locks the other holds. An import reading its graph through ADBC while
``sqlite3`` held the write transaction failed as "database disk image is malformed".

So ADBC runs in a separate **reader process** (:mod:`kgtoolkit.store.engine._reader_process`, one per process,
started on first use and ended with it): two processes on one file is what SQLite's locking is
made for. It writes each result as an Arrow IPC file in shared memory (``/dev/shm`` when it has room,
else the temporary folder), which this side maps without a copy and deletes. Small results are read
here through ``sqlite3`` instead, which costs less than the round trip. This module and the reader
process are the only places that know of ADBC's SQLite driver; ``tests/store/test_one_sqlite.py`` checks
that nothing else imports it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..._errors import StoreError
from ._failures import sqlite_text_failure

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Query", "read_arrow", "reader_uri"]

_CHILD = Path(__file__).with_name("_reader_process.py")
_SHM = Path("/dev/shm")
_SHM_ROOM = 2 << 30  # use shared memory when it has this much free room

Query = tuple[str, Sequence[Any]]  # SQL with ? placeholders, and its parameters


class _Reader:
    """The reader process of this process (restarted if it died, or after a fork)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = 0

    def _start(self) -> subprocess.Popen[bytes]:
        """The reader process, started (again) when this process has none running."""
        if self._proc is not None and self._pid == os.getpid() and self._proc.poll() is None:
            return self._proc
        # -P: nothing of the current folder shadows a module; the child imports nothing of kgtoolkit.
        self._proc = subprocess.Popen(
            [sys.executable, "-P", "-c", _CHILD.read_text(encoding="utf-8")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._pid = os.getpid()
        return self._proc

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request to the reader process, and its answer (a failure raised as kgtoolkit's)."""
        with self._lock:
            proc = self._start()
            stdin, stdout = proc.stdin, proc.stdout
            assert stdin is not None and stdout is not None
            try:
                stdin.write((json.dumps(request) + "\n").encode())
                stdin.flush()
                line = stdout.readline()
            except OSError:
                line = b""
            if not line:
                self._stop()
                raise StoreError(
                    "the reader process that loads whole tables ended unexpectedly; retry (nothing was changed)"
                )
            answer: dict[str, Any] = json.loads(line)
            return answer

    def _stop(self) -> None:
        """Stop the reader process this process started, closing its pipes."""
        proc, self._proc = self._proc, None
        if proc is None or self._pid != os.getpid():
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()

    def start(self) -> None:
        """Start the process now, if it is not running, without asking it anything."""
        with self._lock:
            self._start()

    def stop(self) -> None:
        with self._lock:
            self._stop()


_READER = _Reader()
atexit.register(_READER.stop)


def warm_reader() -> None:
    """Start the reader process now (it does not wait for it): its start, mostly imports, then overlaps the
    caller's own work before a whole-table read it knows is coming."""
    _READER.start()


def _folder() -> str:
    try:
        if _SHM.is_dir() and os.access(_SHM, os.W_OK) and shutil.disk_usage(_SHM).free >= _SHM_ROOM:
            return str(_SHM)
    except OSError:
        pass
    return tempfile.gettempdir()


def _load(path: str) -> pa.Table:
    """An Arrow IPC file as a table whose buffers map the file (no copy); the file is deleted at once."""
    import pyarrow as pa  # loaded by the first whole-table read, not by every import of kgtoolkit

    try:
        source: IO[bytes] | pa.MemoryMappedFile = pa.memory_map(path, "r")
        return pa.ipc.open_file(source).read_all()
    finally:
        os.unlink(path)


def reader_uri(path: Path, *, immutable: bool = False) -> str:
    """The read-only URI the reader process opens ``path`` with."""
    from urllib.parse import quote

    return f"file:{quote(str(path))}?mode=ro" + ("&immutable=1" if immutable else "")


def read_arrow(
    uri: str,
    *,
    timeout: float,
    queries: Sequence[Query] = (),
    split: Query | None = None,
    split_min: int = 200_000,
    pin: bool = True,
    path: Path | None = None,
) -> tuple[list[pa.Table], list[pa.Table]]:
    """Run read queries in the reader process, in one snapshot: ``split`` (the main query, whose SQL has
    ``f.id >= ? AND f.id <= ?`` with :data:`LO`/:data:`HI` among its parameters: both bounds included, so the
    largest id, 2**63 - 1, is read too) in parts ordered by id, and each of ``queries``. ``pin=False`` when this
    process holds the write lock (no snapshot pinning). ``path``: the graph's file, named in the error when the read fails (see :mod:`._failures`)."""
    request: dict[str, Any] = {
        "uri": uri,
        "timeout_ms": int(timeout * 1000),
        "dir": _folder(),
        "queries": [{"sql": sql, "params": list(params)} for sql, params in queries],
        "split": None,
    }
    if split is not None:
        request["split"] = {"sql": split[0], "params": list(split[1]), "min_rows": split_min, "pin": pin}
    answer = _READER.ask(request)
    if not answer.get("ok"):
        raise sqlite_text_failure(str(answer.get("message", "unknown error")), path=path, timeout=timeout)
    parts = [_load(p) for p in answer["parts"]]
    extra = [_load(p) for p in answer["extra"]]
    return parts, extra


LO = {"$": "lo"}
HI = {"$": "hi"}

"""The reader process: whole-table reads of a graph file into Arrow, through ADBC's SQLite driver.

This file runs as its own process (see :mod:`kgtoolkit.store.engine._arrow_read`), never as a module of the
process that opened the graph: ADBC's driver carries its own copy of the SQLite library, and two
copies of SQLite on one file in one process can corrupt it. So it imports nothing of kgtoolkit.

Protocol: one JSON request per line on stdin, one JSON answer per line on stdout. A request::

    {"uri": "file:...?mode=ro", "timeout_ms": 30000, "dir": "/dev/shm",
     "queries": [{"sql": "...", "params": [...]}, ...],
     "split": null | {"sql": "... f.id >= ? AND f.id <= ? ...", "params": [..., {"$": "lo"}, {"$": "hi"}, ...],
                      "min_rows": 200000, "pin": true}}

Every query runs in one read snapshot. ``split``, when given, is the main query, read as two id
ranges on two connections at once (both read transactions start while a third connection holds
the write lock for a moment, so they see one snapshot; with ``"pin": false`` the caller holds the write
transaction and waits for the answer, so nothing commits between them); its parts come first in the answer::

    {"ok": true, "parts": ["/dev/shm/kgtoolkit-…", …], "extra": ["…", …]}
    {"ok": false, "kind": "busy" | "error", "message": "…"}

Each path is an Arrow IPC file that the caller maps and deletes.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from typing import Any

import adbc_driver_manager
import adbc_driver_sqlite
import pyarrow as pa

_ONE_BATCH = str(2**30)  # ADBC infers each column's type from its first batch: make that batch every row
_PIN_WAIT_MS = 50
_count = 0
_count_lock = threading.Lock()


class _Connection:
    """One low-level ADBC connection (the DB-API layer would import pandas: a second of start-up)."""

    def __init__(self, uri: str, timeout_ms: int) -> None:
        self.db = adbc_driver_sqlite.connect(uri)
        self.conn = adbc_driver_manager.AdbcConnection(self.db)
        self.run(f"PRAGMA busy_timeout = {int(timeout_ms)}")

    def table(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        """One query's rows as an Arrow table, in one batch."""
        stmt = adbc_driver_manager.AdbcStatement(self.conn)
        try:
            stmt.set_options(**{adbc_driver_sqlite.StatementOptions.BATCH_ROWS.value: _ONE_BATCH})
            stmt.set_sql_query(sql)
            if params:
                batch = pa.record_batch([pa.array([v]) for v in params], names=[f"p{i}" for i in range(len(params))])
                stmt.bind(batch)
            handle, _ = stmt.execute_query()
            return pa.RecordBatchReader._import_from_c(handle.address).read_all()
        finally:
            stmt.close()

    def run(self, sql: str) -> None:
        self.table(sql)

    def close(self) -> None:
        self.conn.close()
        self.db.close()


def _write(table: pa.Table, folder: str) -> str:
    global _count
    with _count_lock:
        _count += 1
        name = f"kgtoolkit-read-{os.getpid()}-{_count}.arrow"
    fd, path = tempfile.mkstemp(prefix=name, dir=folder)
    os.close(fd)
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


def _values(params: list[Any], bounds: dict[str, int]) -> list[Any]:
    return [bounds[p["$"]] if isinstance(p, dict) else p for p in params]


def _answer(request: dict[str, Any]) -> dict[str, Any]:  # noqa: C901
    """Answer one request: run its queries on ADBC connections and write each table to a file."""
    uri, timeout, folder = request["uri"], int(request["timeout_ms"]), request["dir"]
    split = request.get("split")
    conns: list[_Connection] = []
    written: list[str] = []
    try:
        lo = hi = None
        parts_wanted = 1
        if split is not None:
            pin = None
            if split.get("pin", True):
                try:
                    pin = _Connection(uri.replace("mode=ro", "mode=rw"), _PIN_WAIT_MS)
                    pin.run("BEGIN IMMEDIATE")
                except adbc_driver_manager.Error:
                    if pin is not None:
                        pin.close()
                    pin = None  # a write is running, or the file is read-only: one connection reads all
            try:
                # Pinned by our own write lock (the caller holds the graph's write transaction and waits for this
                # answer: nothing can commit meanwhile), or by the lock just taken: two connections see one snapshot.
                counter = pin
                if pin is None and not split.get("pin", True):
                    counter = _Connection(uri, timeout)
                if counter is not None:
                    try:
                        lo, hi = (
                            counter.table("SELECT (SELECT min(id) FROM facts) AS lo, (SELECT max(id) FROM facts) AS hi")
                            .to_pylist()[0]
                            .values()
                        )
                    finally:
                        if counter is not pin:
                            counter.close()
                    if hi is not None and hi - lo + 1 >= int(split["min_rows"]):
                        parts_wanted = 2
                for _ in range(parts_wanted):
                    conns.append(_Connection(uri, timeout))
                    conns[-1].run("BEGIN")
                    conns[-1].run("SELECT max(id) FROM facts")  # starts the read transaction (pinned)
            finally:
                if pin is not None:
                    pin.run("ROLLBACK")
                    pin.close()
        else:
            conns.append(_Connection(uri, timeout))
            conns[0].run("BEGIN")
        first = conns[0]
        extra = [_write(first.table(q["sql"], q["params"]), folder) for q in request["queries"]]
        written += extra
        parts: list[str] = []
        if split is not None:
            if parts_wanted == 1:
                bounds = {"lo": -(2**63), "hi": 2**63 - 1}
                parts.append(_write(first.table(split["sql"], _values(split["params"], bounds)), folder))
            else:
                assert lo is not None and hi is not None
                mid = lo + (hi - lo + 1) // 2
                upper: dict[str, Any] = {}

                def read_upper() -> None:
                    try:
                        upper["path"] = _write(
                            conns[1].table(split["sql"], _values(split["params"], {"lo": mid, "hi": hi})), folder
                        )
                    except BaseException as exc:
                        upper["error"] = exc

                thread = threading.Thread(target=read_upper)
                thread.start()
                try:
                    parts.append(
                        _write(first.table(split["sql"], _values(split["params"], {"lo": lo, "hi": mid - 1})), folder)
                    )
                finally:
                    thread.join()
                if "error" in upper:
                    raise upper["error"]
                parts.append(upper["path"])
            written += parts
        return {"ok": True, "parts": parts, "extra": extra}
    except BaseException:
        for path in written:
            try:
                os.unlink(path)
            except OSError:
                pass
        raise
    finally:
        for conn in conns:
            try:
                conn.run("ROLLBACK")
            except adbc_driver_manager.Error:
                pass
            conn.close()


def main() -> None:
    """Answer the requests read from stdin, one JSON line each, until it closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = _answer(json.loads(line))
        except adbc_driver_manager.Error as exc:
            text = str(exc)
            kind = "busy" if "locked" in text or "busy" in text else "error"
            answer = {"ok": False, "kind": kind, "message": text}
        except Exception as exc:
            answer = {"ok": False, "kind": "error", "message": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Files that hold graph data are made readable by their owner alone (0600; folders 0700), at the one place each
is created: graph files (SQLite gives a graph's ``-wal`` and ``-shm`` its file's mode), dumps, exports,
rejects files, reports and the search index's files (contract §8).

A file is created empty with the mode first and then written by whoever writes it (Python, polars, SQLite,
FAISS): they open an existing file, which keeps its mode, whatever the process's umask. An existing file
given to :func:`private_file` as a temporary one is made 0600 too; an existing graph file is never touched.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> oct(private_file(folder / "dump.json").stat().st_mode & 0o777)
'0o600'
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder"]

FILE_MODE = 0o600
"""The mode of every file kgtoolkit creates that holds graph data."""
FOLDER_MODE = 0o700
"""The mode of every folder kgtoolkit creates to hold such files."""


def private_file(path: Path, *, exclusive: bool = False) -> Path:
    """Create ``path`` empty, mode 0600, and return it. ``exclusive``: only when it does not exist (a graph file
    another process created meanwhile is left as it is); else an existing file is emptied and made 0600."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    try:
        fd = os.open(path, flags, FILE_MODE)
    except FileExistsError:
        if exclusive:
            return path
        raise
    try:
        if not exclusive and hasattr(os, "fchmod"):
            os.fchmod(fd, FILE_MODE)  # a file left by an earlier run keeps the mode it had: set it
    finally:
        os.close(fd)
    return path


def private_folder(path: Path) -> Path:
    """Create the folder ``path`` (and its parents) if missing; the folder itself mode 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    return path

"""The index files: where they live, how they are written atomically, and how they are checked.

``<db>.search/`` beside an SQLite file (a local cache folder for PostgreSQL, none in memory:
:func:`index_folder`) holds one folder per model with ``facts.faiss``, ``memories.faiss``, their keys
(``*.keys.npz``) and ``manifest.json``: the format, the model, the dimension, the watermark of the graph the
index covers (:class:`~kgtoolkit.store.reads._search.Watermark`; a folder of an earlier release has none, and is
compared with the whole graph once), and a checksum of each file. Files are written beside their place and renamed over it under
an exclusive lock (readers take a shared one); any doubt on reading (a missing file, a checksum or
count that does not match) raises one of :data:`_UNREADABLE`, and the index is rebuilt.

Reading checks each file by its stamp first (:func:`_stamp`: size, modification time and inode, recorded in the
manifest when the file was put in place, its modification time set then to the nanosecond), and reads its checksum
only when the stamp differs (a folder copied elsewhere, a file changed in place): a file replaced after the manifest was
written has another inode, a file written over in place another modification time. A part's index is mapped into
memory rather than read (:func:`_read_part`); :meth:`~kgtoolkit.search._faiss._Part.own` copies it before it is
changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._private import private_file, private_folder
from .._time import now_text
from ..graph import KnowledgeGraph
from ._faiss import _PARTS, _faiss, _nprobe, _Part

__all__ = ["index_folder"]

_FORMAT = 3  # 3: float16 vectors (an index of format 2 is rebuilt from the embedding cache)
_UNREADABLE: tuple[type[Exception], ...] = (OSError, ValueError, KeyError, TypeError, RuntimeError)
"""What reading an unusable index folder raises (it is then rebuilt, never used)."""


def _slug(name: str) -> str:
    """A name fit for a folder.

    >>> _slug("sentence-transformers/all MiniLM")
    'sentence-transformers_all_MiniLM'
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "model"


def index_folder(kg: KnowledgeGraph) -> Path | None:
    """Where the index files of ``kg`` live: ``<db>.search/`` beside an SQLite file; for PostgreSQL, a
    local cache folder named by the database's identity (``$XDG_CACHE_HOME/kgtoolkit/search/<id>``, rebuilt
    from the embeddings the database holds); None (memory) for an in-memory graph.

    >>> import kgtoolkit
    >>> index_folder(kgtoolkit.open(":memory:")) is None
    True
    """
    if kg.location.memory:
        return None
    if kg.location.path is not None:
        return Path(f"{kg.location.path}.search")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "kgtoolkit" / "search" / _slug(kg.identity())


def _stamp(path: Path) -> list[int]:
    """What tells a file put in place by :func:`_write_index` from any other: its size, modification time (set to the
    nanosecond when it was written) and inode."""
    info = path.stat()
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def _checked(path: Path, digest: str, stamp: Any) -> list[int]:
    """The stamp of ``path`` now, once the file is known to be the one the manifest names: by its stamp, else by its
    checksum; raises ValueError when it is not."""
    now = _stamp(path)
    if now != stamp and _file_digest(path) != digest:
        raise ValueError(f"{path.name} does not match its checksum")
    return now


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _file_lock(folder: Path | None, exclusive: bool, *, create: bool = True) -> Iterator[None]:
    """Hold ``folder/.lock``: exclusive to write the files, shared to read them (nothing without a folder).
    ``create=False`` (a read-only graph's reader) creates nothing: no lock file yet, no lock (the checksums
    still catch a folder half written)."""
    if folder is None or (not create and not (folder / ".lock").exists()):
        yield
        return
    if create:
        private_folder(folder)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: atomic replaces and checksums still hold
        yield
        return
    with (folder / ".lock").open("a+" if create else "r") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _has_index(folder: Path | None) -> bool:
    """Whether ``folder`` holds an index at all (its manifest)."""
    return folder is not None and (folder / "manifest.json").exists()


def _read_index(folder: Path, model: str, *, create: bool = True) -> tuple[dict[str, _Part], dict[str, Any]]:
    """The parts and the manifest in ``folder``, every file checked by its stamp, else its checksum; raises one of
    :data:`_UNREADABLE` at any doubt (another format or model, a file that does not match or was replaced while it
    was read). ``create=False``:
    for a read-only graph, which creates no file (not even the lock's)."""
    with _file_lock(folder, exclusive=False, create=create):
        manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
        if manifest.get("format") != _FORMAT or manifest.get("model") != model:
            raise ValueError("it was written by another format or model")
        parts: dict[str, _Part] = {}
        for kind in _PARTS:
            info = manifest["parts"][kind]
            stamps = info.get("stamps") or {}  # none: written by an earlier release, every checksum is read
            seen = {name: _checked(folder / name, digest, stamps.get(name)) for name, digest in info["files"].items()}
            parts[kind] = _read_part(folder, kind, info)
            if any(_stamp(folder / name) != stamp for name, stamp in seen.items()):
                raise ValueError(f"the files of {kind} were replaced while they were read")
    return parts, manifest


def _read_part(folder: Path, kind: str, info: Mapping[str, Any]) -> _Part:
    """One kind's index and keys; the index mapped into memory where FAISS can (read-only: own it before changing it)."""
    import numpy as np

    faiss = _faiss()
    flag = getattr(faiss, "IO_FLAG_MMAP_IFC", 0) if os.name == "posix" else 0  # codes and ids read in place
    index = faiss.read_index(str(folder / f"{kind}.faiss"), flag)
    with np.load(folder / f"{kind}.keys.npz", allow_pickle=False) as data:
        keys, raw = data["keys"].tolist(), np.ascontiguousarray(data["hashes"], dtype=np.uint8).tobytes()
    hashes = [raw[i : i + 16] for i in range(0, len(raw), 16)]
    if index.ntotal != len(keys) or len(keys) != info["count"] or len(hashes) != len(keys):
        raise ValueError(f"{kind}.faiss holds {index.ntotal} vectors for {len(keys)} keys")
    if info["index_type"] == "ivf":
        index.nprobe = _nprobe(index.nlist)
    return _Part(dict(zip(keys, hashes)), index, info["index_type"], int(info["trained"]), mapped=bool(flag))


def _put(tmp: Path, path: Path) -> list[int]:
    """``tmp`` renamed to ``path``, its modification time set first to this nanosecond (a later write in place, stamped
    by the system's coarser clock, does not meet it again); the stamp it then has."""
    now = time.time_ns()
    os.utime(tmp, ns=(now, now))
    os.replace(tmp, path)
    return _stamp(path)


def _write_index(
    folder: Path,
    parts: Mapping[str, _Part],
    *,
    model: str,
    dim: int | None,
    watermark: Mapping[str, Any] | None,
    location: str,
) -> None:
    """Write every part and then the manifest into ``folder``, each file renamed into place; a folder
    that cannot be written is left as it is (the index still serves this process, and is rebuilt next time)."""
    import numpy as np

    faiss = _faiss()
    try:
        with _file_lock(folder, exclusive=True):
            written: dict[str, Any] = {}
            for kind, part in parts.items():
                files, stamps = {}, {}
                keys = list(part.hashes)
                key_array = np.array(keys, dtype=np.int64 if kind == "facts" else str)
                if kind == "memories" and not keys:
                    key_array = np.array([], dtype="<U1")
                # Raw bytes, 16 per row: a fixed-width "S16" string would drop trailing NUL bytes.
                hash_array = np.frombuffer(b"".join(part.hashes[k] for k in keys), dtype=np.uint8).reshape(-1, 16)
                tmp = private_file(folder / f".{kind}.faiss.{os.getpid()}.tmp")
                faiss.write_index(part.index, str(tmp))
                files[f"{kind}.faiss"] = _file_digest(tmp)
                stamps[f"{kind}.faiss"] = _put(tmp, folder / f"{kind}.faiss")
                tmp = private_file(folder / f".{kind}.keys.{os.getpid()}.tmp")
                with tmp.open("wb") as handle:
                    np.savez(handle, keys=key_array, hashes=hash_array)
                files[f"{kind}.keys.npz"] = _file_digest(tmp)
                stamps[f"{kind}.keys.npz"] = _put(tmp, folder / f"{kind}.keys.npz")
                written[kind] = {
                    "count": len(keys),
                    "index_type": part.index_type,
                    "trained": part.trained,
                    "files": files,
                    "stamps": stamps,
                }
            manifest = {
                "format": _FORMAT,
                "model": model,
                "dim": dim,
                "watermark": watermark,
                "parts": written,
                "graph_location": location,
                "updated_at": now_text(),
            }
            tmp = private_file(folder / f".manifest.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(manifest, indent=1))
            os.replace(tmp, folder / "manifest.json")
    except OSError:
        pass  # a read-only folder: the index still serves this process, and is rebuilt next time

"""The index files: where they live, how they are written atomically, and how they are checked.

``<db>.search/`` beside an SQLite file (a local cache folder for PostgreSQL, none in memory:
:func:`index_folder`) holds one folder per model with ``facts.faiss``, ``memories.faiss``, their keys
(``*.keys.npz``) and ``manifest.json``: the format, the model, the dimension, the watermark of the graph the
index covers (:class:`~kgtoolkit.store.reads._search.Watermark`; a folder of an earlier release has none, and is
compared with the whole graph once), and a checksum of each file. Files are written beside their place and renamed over it under
an exclusive lock (readers take a shared one); any doubt on reading (a missing file, a checksum or
count that does not match) raises one of :data:`_UNREADABLE`, and the index is rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
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
    """The parts and the manifest in ``folder``, every file checked against its checksum; raises one of
    :data:`_UNREADABLE` at any doubt (another format or model, a file that does not match). ``create=False``:
    for a read-only graph, which creates no file (not even the lock's)."""
    with _file_lock(folder, exclusive=False, create=create):
        manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
        if manifest.get("format") != _FORMAT or manifest.get("model") != model:
            raise ValueError("it was written by another format or model")
        parts: dict[str, _Part] = {}
        for kind in _PARTS:
            info = manifest["parts"][kind]
            for name, digest in info["files"].items():
                if _file_digest(folder / name) != digest:
                    raise ValueError(f"{name} does not match its checksum")
            parts[kind] = _read_part(folder, kind, info)
    return parts, manifest


def _read_part(folder: Path, kind: str, info: Mapping[str, Any]) -> _Part:
    import numpy as np

    faiss = _faiss()
    index = faiss.read_index(str(folder / f"{kind}.faiss"))
    with np.load(folder / f"{kind}.keys.npz", allow_pickle=False) as data:
        keys, hashes = data["keys"].tolist(), [bytes(row) for row in data["hashes"]]
    if index.ntotal != len(keys) or len(keys) != info["count"]:
        raise ValueError(f"{kind}.faiss holds {index.ntotal} vectors for {len(keys)} keys")
    if info["index_type"] == "ivf":
        index.nprobe = _nprobe(index.nlist)
    return _Part(dict(zip(keys, hashes)), index, info["index_type"], int(info["trained"]))


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
                files = {}
                keys = list(part.hashes)
                key_array = np.array(keys, dtype=np.int64 if kind == "facts" else str)
                if kind == "memories" and not keys:
                    key_array = np.array([], dtype="<U1")
                # Raw bytes, 16 per row: a fixed-width "S16" string would drop trailing NUL bytes.
                hash_array = np.frombuffer(b"".join(part.hashes[k] for k in keys), dtype=np.uint8).reshape(-1, 16)
                tmp = private_file(folder / f".{kind}.faiss.{os.getpid()}.tmp")
                faiss.write_index(part.index, str(tmp))
                files[f"{kind}.faiss"] = _file_digest(tmp)
                os.replace(tmp, folder / f"{kind}.faiss")
                tmp = private_file(folder / f".{kind}.keys.{os.getpid()}.tmp")
                with tmp.open("wb") as handle:
                    np.savez(handle, keys=key_array, hashes=hash_array)
                files[f"{kind}.keys.npz"] = _file_digest(tmp)
                os.replace(tmp, folder / f"{kind}.keys.npz")
                written[kind] = {
                    "count": len(keys),
                    "index_type": part.index_type,
                    "trained": part.trained,
                    "files": files,
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

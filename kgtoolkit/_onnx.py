"""The bundled model on ONNX Runtime: the same weights, exported here, run without torch.

:class:`OnnxEmbedder` runs a sentence-transformers model of the plain kind (a BERT-like transformer, mean
pooling, optionally normalised; the bundled all-MiniLM-L6-v2 is one) with ONNX Runtime and the ``tokenizers``
library. The ONNX file is made **here**, from the installed weights, the first time it is needed
(:func:`onnx_model`: ``torch.onnx.export`` of the model with its pooling and normalisation, written atomically
under a lock into a cache folder, :func:`model_cache`); nothing is downloaded. After that, embedding imports
neither torch nor sentence-transformers: a CLI ``find`` starts in a fraction of a second. Sessions open from a
copy ONNX Runtime optimised once, its weights mapped from a file of their own (:mod:`._onnx_saved`).

The fp32 export gives the vectors torch gives (cosine above 0.99999 on every fact text measured), so it keeps
the model's name and serves the indexes and embedding caches written with torch. ``int8=True`` quantises the
weights (ONNX Runtime's dynamic quantisation): its vectors differ (cosine about 0.96 to the fp32 ones), so it
has a name of its own (``…-int8``) and never mixes with fp32 vectors. As the runtime it is opt-in
(``KGTOOLKIT_SEARCH_RUNTIME=onnx-int8``), because it loses retrieval quality (benchmarks/bench_search.py); a
composed build embeds entity and predicate names with it (:func:`kgtoolkit.search._compose.parts_model`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import InvalidRequest, missing_dependency

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MODEL_CACHE_ENV", "OnnxEmbedder", "model_cache", "model_identity", "onnx_model", "plain_model"]

MODEL_CACHE_ENV = "KGTOOLKIT_MODEL_CACHE"
_EXPORT_LOCK = threading.Lock()
_SESSIONS: dict[str, Any] = {}  # ONNX file → (session, tokenizer), one per process
_WORKERS = min(os.cpu_count() or 1, 4)
"""Batches run at once by one ``encode`` (each on one thread of its own, ONNX Runtime's ``run`` releasing the GIL):
a short text's matrices are too small to split between threads, whose hand-offs cost more than a second core
saves (benchmarks/bench_search_build.py); whole batches side by side keep every core busy."""


def model_identity(folder: Path) -> str:
    """A model folder's stable name: its folder name and a digest of its files' names, sizes and JSON configs."""
    if not folder.is_dir():
        return str(folder)
    digest = hashlib.blake2b(digest_size=6)
    for item in sorted(folder.rglob("*")):
        if item.is_file() and not item.name.startswith("."):
            rel = item.relative_to(folder).as_posix()
            digest.update(f"{rel}:{item.stat().st_size}\n".encode())
            if item.suffix == ".json":
                digest.update(item.read_bytes())
    label = f"{folder.parent.name}-{folder.name}" if folder.name == "model" else folder.name
    return f"{label}-{digest.hexdigest()}"


def plain_model(folder: Path) -> int | None:
    """The maximum token length of a sentence-transformers folder this module can run (a transformer with a
    ``tokenizer.json``, mean pooling, optionally normalised, nothing else); None for any other."""
    try:
        modules = json.loads((folder / "modules.json").read_text())
        kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
        if kinds not in (["Transformer", "Pooling", "Normalize"], ["Transformer", "Pooling"]):
            return None
        pooling = json.loads((folder / modules[1]["path"] / "config.json").read_text())
        modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
        if modes != ["pooling_mode_mean_tokens"] or not (folder / "tokenizer.json").is_file():
            return None
        config = json.loads((folder / "sentence_bert_config.json").read_text())
        return int(config.get("max_seq_length") or 256)
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def model_cache() -> Path:
    """Where exported models are kept: ``$KGTOOLKIT_MODEL_CACHE``, else ``$XDG_CACHE_HOME/kgtoolkit/models``."""
    chosen = os.environ.get(MODEL_CACHE_ENV)
    if chosen:
        return Path(chosen).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kgtoolkit" / "models"


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """One exporter at a time per folder, across processes."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the atomic rename still holds
        yield
        return
    with (folder / ".lock").open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _export(source: Path, target: Path) -> None:
    """``source`` (a sentence-transformers folder) as one ONNX graph: token ids in, the pooled unit vector out."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise missing_dependency("torch", "search", needed_for="exporting the model to ONNX once", cause=exc) from exc
    normalise = "Normalize" in (source / "modules.json").read_text()
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    except Exception:
        pass
    model = AutoModel.from_pretrained(str(source), local_files_only=True, attn_implementation="eager").eval()

    class Pooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1) if normalise else pooled

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones((2, 8), dtype=torch.long) for _ in names)
    axes = {name: {0: "batch", 1: "tokens"} for name in names} | {"embedding": {0: "batch"}}
    import warnings

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(model),
            sample,
            str(target),
            input_names=names,
            output_names=["embedding"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def onnx_model(source: Path, *, int8: bool = False, cache: Path | None = None) -> Path:
    """The ONNX file of the model folder ``source`` (fp32, or ``int8`` quantised), exported from its weights
    into ``cache`` (default :func:`model_cache`) the first time, and found there afterwards."""
    folder = (cache or model_cache()) / model_identity(source)
    name = "model.int8.onnx" if int8 else "model.onnx"
    target = folder / name
    if target.is_file():
        return target
    with _EXPORT_LOCK, _folder_lock(folder):
        if target.is_file():  # another process exported it while this one waited
            return target
        fp32 = folder / "model.onnx"
        if not fp32.is_file():
            tmp = folder / f".model.{os.getpid()}.onnx"
            try:
                _export(source, tmp)
                os.replace(tmp, fp32)
            finally:
                tmp.unlink(missing_ok=True)
        if int8:
            tmp = folder / f".model.int8.{os.getpid()}.onnx"
            try:
                import logging

                from onnxruntime.quantization import QuantType, quantize_dynamic

                root = logging.getLogger()
                level = root.level
                root.setLevel(logging.ERROR)  # its advice to pre-process is for image models
                try:
                    quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8)
                finally:
                    root.setLevel(level)
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
    return target


class OnnxEmbedder:
    """A plain sentence-transformers model (see :func:`plain_model`) on ONNX Runtime, CPU, offline.

    ``source``: the model folder. ``int8``: the quantised export (a name of its own). ``max_tokens``: texts are cut
    to this many tokens (default the model's own maximum). ``embedded`` counts the texts computed.
    """

    def __init__(
        self,
        source: str | os.PathLike[str],
        *,
        int8: bool = False,
        batch_size: int = 64,
        max_tokens: int | None = None,
        cache: Path | None = None,
    ) -> None:
        self.source = str(Path(source).expanduser())
        limit = plain_model(Path(self.source))
        if limit is None:
            raise InvalidRequest(
                f"{self.source!r} is not a model ONNX Runtime can run here (a transformer with mean pooling)",
                field="model",
                value=self.source,
            )
        self.int8 = int8
        self.max_tokens = min(max_tokens or limit, limit)
        self.batch_size = batch_size
        self.cache = cache
        self.embedded = 0
        self.calls = 0
        self._path: Path | None = None
        pooling = json.loads((Path(self.source) / "1_Pooling" / "config.json").read_text())
        self._dim = int(pooling["word_embedding_dimension"])
        self.name = model_identity(Path(self.source)) + ("-int8" if int8 else "")

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.source!r}{', int8=True' if self.int8 else ''})"

    @property
    def dim(self) -> int:
        return self._dim

    def _session(self) -> tuple[Any, Any]:
        if self._path is None:  # found (or exported) once per embedder: the cache folder is read once
            self._path = onnx_model(Path(self.source), int8=self.int8, cache=self.cache)
        path = self._path
        key = f"{path}:{self.max_tokens}"
        if key not in _SESSIONS:
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise missing_dependency("onnxruntime", "search", needed_for="semantic search", cause=exc) from exc
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # the cores are shared by batches instead (:data:`_WORKERS`)
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # idle threads sleep
            options.log_severity_level = 3
            from ._onnx_saved import loadable

            session = ort.InferenceSession(
                str(loadable(path, _folder_lock)), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(Path(self.source) / "tokenizer.json"))
            tokenizer.enable_truncation(self.max_tokens)
            tokenizer.enable_padding()
            _SESSIONS[key] = (session, tokenizer)
        return _SESSIONS[key]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, shape (len(texts), dim), in the order of ``texts``."""
        import numpy as np

        self.calls += 1
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._session()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad little

        def run(rows: list[int]) -> None:
            encoded = tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            out[rows] = session.run(None, feed)[0]

        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        workers = min(_WORKERS, len(batches))
        if workers <= 1:
            for rows in batches:
                run(rows)
        else:
            with concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="kgtoolkit-embed") as pool:
                list(pool.map(run, batches))  # in order; a batch's error is raised here
        self.embedded += len(texts)
        return out

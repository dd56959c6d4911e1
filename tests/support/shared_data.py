"""Where the tests find the real datasets (YAGO11k, WIKIDATA12k, ICEWS14), which the project never copies in.

They are looked for in ``shared/data`` beside the clone (``../shared/data`` from the repository's root), or
wherever ``KGTOOLKIT_SHARED_DATA`` points; a test that needs one skips, saying where it looked, when it is
absent. Every test and benchmark that reads them takes the folder from here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA"]

DATA = Path(os.environ.get("KGTOOLKIT_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")

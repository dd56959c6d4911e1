"""`streamlit run app/dashboard.py` from a source checkout (kgtoolkit installed, e.g. ``pip install -e .``).

The dashboard itself ships inside the package, in ``kgtoolkit/dashboard/`` (``kgtoolkit dashboard``
runs ``kgtoolkit/dashboard/app.py``); this file only runs it.
"""

from __future__ import annotations

from kgtoolkit.dashboard.app import main

main()

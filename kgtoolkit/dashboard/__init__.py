"""The Streamlit dashboard, shipped inside the package (``pip install 'kgtoolkit[dashboard]'``).

``kgtoolkit dashboard`` runs :data:`SCRIPT` with ``streamlit run``; ``streamlit run app/dashboard.py``
from a source checkout runs the same app through a thin entry point. The files::

    app.py         the entry point: page setup, navigation and the sidebar (``main()``)
    kgdash.py      shared parts: settings, cached resources and frames, the sidebar, small widgets
    data.py        the data each page shows, made from the library's answers (no Streamlit: tests call it);
                   the Churn, Conflicts and Entity pages' own in data_churn.py, data_conflicts.py and
                   data_entity.py (data.py re-exports their names), predicate labels in _labels.py
    _text.py       stored text shown as text: the escaping every page applies (no Streamlit here either)
    graphview.py   the data behind the Graph picture, the names of ``picture/`` in one place: what to draw
                   (``build``), where (``layout``), the page (``render_html``), through time (``render_time_html``)
    picture/       the picture by concept: view, style (colours, labels), layout, render, timeview; no Streamlit,
                   so tests and benchmarks import it without a browser
    timegraph.py   the picture through time asked of a graph (``time_graph``): the Graph page's, and a notebook's
    views/*.py     one page each (graph, entity, conflicts, paths, changes, cleanup, churn, search, import_export)
    favicon.png

The pages are in ``views/``, not ``pages/``: Streamlit runs an app with a ``pages/`` folder in its
older multipage mode, which would bypass ``st.navigation`` (and the sidebar) when a page URL is opened
directly. The pages only draw: the data work (frames, rankings, dry-run imports, conflict groups,
duplicate candidates, merges) is the library's (``kgtoolkit.frames``, ``analysis``, ``io``,
``KnowledgeGraph``), and what a page shows is made from it by ``data.py`` and ``graphview.py``, reached
through ``kgdash.py``, which caches it.

Nothing here imports Streamlit (nor do ``data.py``, ``graphview.py``, ``picture/``, ``timegraph.py`` and ``_text.py``): the CLI finds the
script without it, and tests and benchmarks use the page data without it.

>>> from kgtoolkit import dashboard
>>> dashboard.SCRIPT.name, dashboard.SCRIPT.is_file(), (dashboard.VIEWS / "graph.py").is_file()
('app.py', True, True)
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["FOLDER", "READ_ONLY_ENV", "SCRIPT", "VIEWS"]

#: The folder of the dashboard's files (inside the installed package).
FOLDER: Path = Path(__file__).resolve().parent
#: The Streamlit script ``kgtoolkit dashboard`` runs.
SCRIPT: Path = FOLDER / "app.py"
#: The pages, one file each.
VIEWS: Path = FOLDER / "views"
#: ``1`` (or ``true``, ``yes``, ``on``) in this variable disables every change (``--read-only``).
READ_ONLY_ENV = "KGTOOLKIT_DASHBOARD_READ_ONLY"

"""kgtoolkit dashboard: `kgtoolkit dashboard [--db PATH] [--port N] [--read-only]` runs this file.

The graph file comes from ``$KGTOOLKIT_DB`` (the CLI sets it from ``--db``), read-only mode from
``$KGTOOLKIT_DASHBOARD_READ_ONLY``. Shared parts are in ``kgdash.py``; the pages are in ``views/``,
not ``pages/``: Streamlit runs an app with a ``pages/`` folder in its older multipage mode, which
would bypass this file's ``st.navigation`` (and its sidebar) when a page URL is opened directly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import kgdash  # noqa: E402

st.set_page_config(page_title="kgtoolkit", page_icon=str(HERE / "favicon.png"), layout="wide", initial_sidebar_state="expanded")
st.markdown("""<style>
  [data-testid="stMainBlockContainer"] {padding-top: 1.6rem; padding-bottom: 1rem;}
  [data-testid="stSidebarHeader"] {height: 1.2rem; min-height: 1.2rem; padding-top: .6rem;}
  h1 {padding-top: .2rem; padding-bottom: .4rem;}
  [data-testid="stSidebar"] [data-testid="stMetricValue"] {font-size: 1.25rem;}
  [data-testid="stSidebar"] [data-testid="stMetric"] {padding: 0;}
</style>""", unsafe_allow_html=True)

kgdash.init_state()
c = kgdash.ctx()
pages = [
    st.Page(str(HERE / "views" / "graph.py"), title="Graph", icon=":material/hub:", url_path="graph", default=True),
    st.Page(str(HERE / "views" / "entity.py"), title="Entity", icon=":material/person_search:", url_path="entity"),
    st.Page(str(HERE / "views" / "conflicts.py"), title="Conflicts", icon=":material/warning:", url_path="conflicts"),
    st.Page(str(HERE / "views" / "churn.py"), title="Churn", icon=":material/monitoring:", url_path="churn"),
    st.Page(str(HERE / "views" / "search.py"), title="Search", icon=":material/travel_explore:", url_path="search"),
    st.Page(str(HERE / "views" / "import_export.py"), title="Import / export", icon=":material/swap_vert:", url_path="import-export"),
]
page = st.navigation(pages)
kgdash.sidebar(c)
page.run()

"""kgtoolkit dashboard: `kgtoolkit dashboard [--db PATH] [--port N] [--read-only]` runs this file.

The graph comes from ``$KGTOOLKIT_DB`` (the CLI sets it from ``--db``), read-only mode from
``$KGTOOLKIT_DASHBOARD_READ_ONLY``. Shared parts are in ``kgdash.py``; the pages are in ``views/``
(see ``kgtoolkit/dashboard/__init__.py``). Streamlit runs this file as ``__main__`` on every
interaction; ``app/dashboard.py`` (a source checkout's entry point) imports it and calls :func:`main`.
"""

from __future__ import annotations

import functools

import streamlit as st

from kgtoolkit.dashboard import FOLDER, kgdash

STYLE = """<style>
  [data-testid="stMainBlockContainer"] {padding-top: 1.6rem; padding-bottom: 1rem;}
  [data-testid="stSidebarHeader"] {height: 1.2rem; min-height: 1.2rem; padding-top: .6rem;}
  h1 {padding-top: .2rem; padding-bottom: .4rem;}
  [data-testid="stSidebar"] [data-testid="stMetricValue"] {font-size: 1.25rem;}
  [data-testid="stSidebar"] [data-testid="stMetric"] {padding: 0;}
</style>"""


def main() -> None:
    """One run of the app: page setup, the shared state, the navigation, the sidebar, then the page."""
    st.set_page_config(
        page_title="kgtoolkit", page_icon=str(FOLDER / "favicon.png"), layout="wide", initial_sidebar_state="expanded"
    )
    st.markdown(STYLE, unsafe_allow_html=True)
    graph = st.Page(kgdash.view("graph"), title="Graph", icon=":material/hub:", url_path="graph")
    pages = [
        # Streamlit serves the default page at the root and ignores its url_path, so "/graph" would be "Page not
        # found": the root is a hidden page of its own that opens the Graph page, and every page has its address.
        st.Page(functools.partial(_open, graph), title="kgtoolkit", url_path="home", default=True, visibility="hidden"),
        graph,
        st.Page(kgdash.view("entity"), title="Entity", icon=":material/person_search:", url_path="entity"),
        st.Page(kgdash.view("conflicts"), title="Conflicts", icon=":material/warning:", url_path="conflicts"),
        st.Page(kgdash.view("paths"), title="Paths", icon=":material/route:", url_path="paths"),
        st.Page(kgdash.view("changes"), title="Changes", icon=":material/difference:", url_path="changes"),
        st.Page(kgdash.view("cleanup"), title="Clean up", icon=":material/cleaning_services:", url_path="cleanup"),
        st.Page(kgdash.view("churn"), title="Churn", icon=":material/monitoring:", url_path="churn"),
        st.Page(kgdash.view("search"), title="Search", icon=":material/travel_explore:", url_path="search"),
        st.Page(
            kgdash.view("import_export"), title="Import / export", icon=":material/swap_vert:", url_path="import-export"
        ),
    ]
    page = st.navigation(pages)
    if page is pages[0]:  # the root: on to the Graph page before anything is said (a link's notice, once)
        _open(graph)
    c = kgdash.ctx()
    kgdash.init_state(c)
    kgdash.sidebar(c)
    kgdash.link_notices()
    page.run()


def _open(page: st.Page) -> None:
    """The root address: the Graph page, with the address's query (``/?entity=my_api`` opens ``/graph?entity=my_api``)."""
    st.switch_page(page, query_params=st.query_params.to_dict())


if __name__ == "__main__":
    main()

"""Collection rules for the whole repository (the tests' fixtures are in tests/conftest.py).

``--doctest-modules`` imports every module under ``kgtoolkit/``; the dashboard's Streamlit scripts are
not modules to import (each draws a page when run, and needs Streamlit), so they are left out. Their
tests are tests/test_dashboard.py, tests/test_dashboard_browser.py and tests/test_packaging.py.
"""

collect_ignore = ["kgtoolkit/dashboard/app.py", "kgtoolkit/dashboard/kgdash.py", "kgtoolkit/dashboard/views", "app"]

"""Collection rules for the whole repository (the tests' fixtures are in tests/conftest.py).

``--doctest-modules`` imports every module under ``kgtoolkit/``; the dashboard's Streamlit scripts are
not modules to import (each draws a page when run, and needs Streamlit), so they are left out. Their
tests are tests/dashboard/test_dashboard.py, tests/dashboard/test_dashboard_browser.py and tests/meta/test_packaging.py.

Doctests see ``kgtoolkit`` as a reader of the docs does: the store's docstrings say
``kgtoolkit.open(...)`` (the door people use) without the store importing the package above it.
"""

from __future__ import annotations

from typing import Any

import pytest

import kgtoolkit

collect_ignore = ["kgtoolkit/dashboard/app.py", "kgtoolkit/dashboard/kgdash.py", "kgtoolkit/dashboard/views", "app"]


@pytest.fixture(autouse=True)
def _kgtoolkit_in_doctests(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["kgtoolkit"] = kgtoolkit

"""End to end in a real browser: Playwright for Python driving Debian's Chromium (never a downloaded one).

Starts ``kgtoolkit dashboard`` on the demo graph on a free loopback port, waits for Streamlit to finish
each run (its status widget gone, no placeholder left, and this page's footer drawn), checks the graph
canvas has drawn nodes, changes the date in the sidebar and sees the graph change, clicks the Clean up
page's buttons and sees the graph change, and saves a screenshot of every page (to ``docs/screenshots/`` with ``KGTOOLKIT_SCREENSHOTS=1``). Skips with a reason where Chromium or Playwright
is missing (CI installs Chromium with ``apt-get install chromium``).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
CHROMIUM = os.environ.get("KGTOOLKIT_CHROMIUM", "/usr/bin/chromium")
if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
pytest.importorskip("streamlit", reason="streamlit is not installed")

import kgtoolkit
from kgtoolkit._demo import build_demo
from kgtoolkit.store import dump

ROOT = Path(__file__).resolve().parents[2]
# The checked-in screenshots are refreshed on request (KGTOOLKIT_SCREENSHOTS=1); an ordinary run writes
# its pictures to a temporary folder, so the tests never change tracked files.
REFRESH = os.environ.get("KGTOOLKIT_SCREENSHOTS") == "1"
DOCS_SHOTS = ROOT / "docs" / "screenshots"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1280, "height": 800}

# Streamlit has finished the run: no status widget ("Running…"), no lazy placeholder, no stale
# element, and the footer of the expected page (the last element every page draws) is there.
READY = """(marker) => !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-testid="stSkeleton"]')
    && !document.querySelector('[data-stale="true"]')
    && [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
         .some(e => e.innerText.startsWith('kgtoolkit dashboard') && e.innerText.includes(marker))"""
DRAWN = "() => Number(document.getElementById('mynetwork')?.getAttribute('data-drawn-nodes') || 0) > 0"
INKED = """() => { const c = document.querySelector('#mynetwork canvas'); const g = c.getContext('2d');
    const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
    for (let i = 0; i < d.length; i += 4) { if (d[i + 3] > 0 && (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200)) n++; }
    return n; }"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(db: Path, folder: Path) -> Iterator[str]:
    """``kgtoolkit dashboard`` on ``db`` on a free loopback port (its log in ``folder``); yields its URL, stops it after."""
    port = _free_port()
    log = (folder / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "kgtoolkit", "dashboard", "--db", str(db), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 40
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as answer:
                    if answer.read() == b"ok":
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the dashboard did not start: {(folder / 'server.log').read_text()[-2000:]}")
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
        log.close()


# Duplicates planted in the demo graph, for the Clean up page: another spelling of an entity it has
# (Elasticsearch), with a fact of its own, and a university written two ways.
PLANTED = [
    ("analytics_pipeline", "indexes_into", "Elastic Search"),
    ("Mei Chen", "studied_at", "Univ. of Melbourne"),
    ("Sara Lind", "studied_at", "University of Melbourne"),
]


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("browser") / "demo.sqlite3"
    with build_demo(db) as kg:
        for fact in PLANTED:
            kg.add(*fact)
    return db


@pytest.fixture(scope="module")
def dashboard(demo_file: Path) -> Iterator[str]:
    with serve(demo_file, demo_file.parent) as url:
        yield url


@pytest.fixture(scope="module")
def page(dashboard: str) -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(viewport=VIEWPORT)
        outside: list[str] = []
        context.route(
            "**/*",
            lambda route: (
                (outside.append(route.request.url), route.abort())
                if not route.request.url.startswith(("http://127.0.0.1", "about:", "data:", "blob:"))
                else route.continue_()
            ),
        )
        tab = context.new_page()
        tab.outside = outside  # type: ignore[attr-defined]
        yield tab
        browser.close()


def _wait(tab, marker: str) -> None:
    tab.wait_for_function(READY, arg=marker, timeout=30_000)


def _graph_frame(tab):
    handle = tab.wait_for_selector('iframe[data-testid="stIFrame"]', timeout=30_000)
    frame = handle.content_frame()
    frame.wait_for_function(DRAWN, timeout=30_000)
    return frame


def _node_ids(frame) -> str:
    return frame.evaluate("() => document.getElementById('mynetwork').getAttribute('data-node-ids')")


def test_graph_draws_and_follows_the_date(dashboard: str, page) -> None:
    tab = page
    tab.goto(f"{dashboard}/?entity=my_api")
    _wait(tab, "· graph ·")
    frame = _graph_frame(tab)
    assert frame.evaluate(INKED) > 500, "the canvas is blank"
    today = _node_ids(frame)
    assert "my_api" in today.split("|") and "sqlite" in today.split("|")
    assert "vis.Network" in frame.content() and "jsdelivr" not in frame.content()

    field = tab.locator('[data-testid="stSidebar"] [data-testid="stDateInput"] input')
    field.fill("2026-06-01")  # the field takes an ISO date; closing its calendar (Escape) commits it
    field.press("Enter")
    tab.keyboard.press("Escape")
    _wait(tab, "as of 2026-06-01")
    frame = _graph_frame(tab)
    tab.wait_for_function(
        "(before) => { const f = document.querySelector('iframe[data-testid=\"stIFrame\"]');"
        " const n = f.contentDocument.getElementById('mynetwork');"
        " return n && n.getAttribute('data-node-ids') && n.getAttribute('data-node-ids') !== before; }",
        arg=today,
        timeout=30_000,
    )
    june = _node_ids(_graph_frame(tab)).split("|")
    assert "redis" in june and "sqlite" not in june
    assert not tab.outside, f"requests left the machine: {tab.outside}"


SCREENS = [
    ("graph", "/?entity=my_api&all_time=1", "· graph ·"),
    ("entity", "/entity?entity=billing_service", "· entity ·"),
    ("paths", "/paths?entity=billing_service", "· paths ·"),
    ("changes", "/changes", "· changes ·"),
    ("conflicts", "/conflicts", "· conflicts ·"),
    ("cleanup", "/cleanup", "· cleanup ·"),
    ("churn", "/churn", "· churn ·"),
    ("search", "/search", "· search ·"),
    ("import-export", "/import-export", "· import-export ·"),
]


def test_screenshots_of_every_page(dashboard: str, page, tmp_path: Path) -> None:
    shots = DOCS_SHOTS if REFRESH else tmp_path / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    tab = page
    for name, path, marker in SCREENS:
        tab.goto(f"{dashboard}{path}")
        _wait(tab, marker)
        if name == "entity":  # show the Gantt timeline
            tab.get_by_role("tab", name="Timeline").click()
            tab.wait_for_selector(
                '[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg', timeout=30_000
            )
        if name == "import-export":  # upload a file with two bad rows: the preview and the bad-row report
            upload = tmp_path / "facts.csv"
            upload.write_text(
                "subject,predicate,object,valid_from,valid_to\n"
                "my_api,uses_cache,Memcached,2026-11-02,\n"
                "billing_service,uses_queue,SQS,2026-11-15,\n"
                "Ada Brooks,works_at,Acme,19##,\n"
                'checkout_api,depends_on,"search, billing",2026-01-01,\n'  # a comma: taken as written (no guard)
                "Ada Brooks,member_of,payments_team,2026-11-20,2026-11-01\n"
            )
            tab.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
            tab.wait_for_selector("text=Bad rows", timeout=30_000)
            _wait(tab, marker)
            # The library's dry run of the import (io.import_file(..., dry_run=True)): 5 rows, 2 of them bad (a
            # bad date, an end before the start); the comma guard is off for a file, so the comma row is valid.
            shown = {" ".join(t.split()) for t in tab.locator('[data-testid="stMetric"]').all_inner_texts()}
            assert {"Rows 5", "Valid rows 3", "Bad rows 2"} <= shown, shown
            assert tab.get_by_role("button", name="Import 3 valid rows into demo.sqlite3").is_enabled()
        if name in ("graph", "paths", "changes"):
            frame = _graph_frame(tab)
            frame.wait_for_function(
                "() => document.getElementById('mynetwork').getAttribute('data-stable') === '1'", timeout=30_000
            )
        tab.evaluate("document.fonts.ready")
        tab.screenshot(path=str(shots / f"{name}.png"))
        assert (shots / f"{name}.png").stat().st_size > 10_000
    assert not tab.outside, f"requests left the machine: {tab.outside}"


def test_a_folder_named_kgtoolkit_beside_the_user_does_not_shadow_the_package(
    demo_file: Path, page, tmp_path: Path
) -> None:
    """Started from the parent of a clone (a ``kgtoolkit`` folder in the working directory), the pages still work."""
    (tmp_path / "kgtoolkit" / "kgtoolkit").mkdir(parents=True)  # a clone: no __init__.py at its top
    (tmp_path / "kgtoolkit" / "README.md").write_text("a clone\n")
    with serve(demo_file, tmp_path) as url:
        page.goto(f"{url}/?entity=my_api")
        _wait(page, "· graph ·")
        assert "my_api" in _node_ids(_graph_frame(page)).split("|")
        assert "AttributeError" not in page.content()


def _pair(tab, text: str):
    """The Clean up page's box of the pair whose names hold ``text``."""
    return tab.locator('[class*="st-key-cleanup_pair_"]').filter(has_text=text)


def test_clean_up_marks_a_pair_not_the_same_and_merges_another(dashboard: str, demo_file: Path, page) -> None:
    """Last: it changes the graph (the other tests read the demo graph as planted)."""
    tab = page
    tab.goto(f"{dashboard}/cleanup")
    _wait(tab, "· cleanup ·")
    assert _pair(tab, "University of Melbourne").count() == 1 and _pair(tab, "Elastic Search").count() == 1
    assert "Univ. of Melbourne" in _pair(tab, "University of Melbourne").inner_text()  # the reasons are shown
    assert "abbreviates" in _pair(tab, "University of Melbourne").inner_text()

    _pair(tab, "University of Melbourne").get_by_role("button", name="Not the same").click()
    tab.wait_for_selector("text=as not the same", timeout=30_000)
    _wait(tab, "· cleanup ·")
    assert _pair(tab, "University of Melbourne").count() == 0  # the list is read again: the pair is gone
    with kgtoolkit.open(demo_file, read_only=True) as kg:
        assert [(r["a"], r["b"]) for r in dump(kg)["not_duplicates"]] == [
            ("univ._of_melbourne", "university_of_melbourne")
        ]
        assert kg.entity("Univ. of Melbourne").id != kg.entity("University of Melbourne").id

    box = _pair(tab, "Elastic Search")
    assert box.get_by_role("radio", name=re.compile(r"^Elastic Search ")).is_checked()  # one fact each: the longer
    box.get_by_text(re.compile(r"^Elasticsearch ")).click()  # keep the other one
    _wait(tab, "· cleanup ·")
    assert _pair(tab, "Elastic Search").get_by_role("radio", name=re.compile(r"^Elasticsearch ")).is_checked()
    _pair(tab, "Elastic Search").get_by_role("button", name="Merge", exact=True).click()
    # the first click asks: what will happen, then Confirm or Cancel; nothing is merged yet
    confirm = _pair(tab, "Elastic Search").get_by_role("button", name="Confirm merge", exact=True)
    confirm.wait_for(timeout=30_000)
    question = _pair(tab, "Elastic Search").inner_text()
    assert "Merge Elastic Search into Elasticsearch?" in " ".join(question.split()), question
    with kgtoolkit.open(demo_file, read_only=True) as kg:
        assert kg.entity("Elastic Search").id != kg.entity("Elasticsearch").id
    confirm.click()
    tab.wait_for_selector("text=Merged", timeout=30_000)
    _wait(tab, "· cleanup ·")
    assert _pair(tab, "Elastic Search").count() == 0
    with kgtoolkit.open(demo_file, read_only=True) as kg:
        assert kg.resolve("Elastic Search") == "elasticsearch"  # an alias of the entity kept
        moved = kg.query("analytics_pipeline", predicates="indexes_into")
        assert [(f.object, f.object_name) for f in moved] == [("elasticsearch", "Elasticsearch")]  # its fact moved
        assert kg.duplicates(embeddings=False).total == 0
    assert not tab.outside, f"requests left the machine: {tab.outside}"


#: Every page's address (``st.Page(url_path=...)`` in ``app.py``) and the footer marker its page draws.
ADDRESSES = [
    ("graph", "· graph ·"),
    ("entity", "· entity ·"),
    ("conflicts", "· conflicts ·"),
    ("paths", "· paths ·"),
    ("changes", "· changes ·"),
    ("cleanup", "· cleanup ·"),
    ("churn", "· churn ·"),
    ("search", "· search ·"),
    ("import-export", "· import-export ·"),
]


def test_every_page_opens_by_its_address(dashboard: str, page) -> None:
    """Opening ``/graph`` (or any page's address) in a new tab opens that page, never "Page not found"; the root
    opens the Graph page, keeping its query."""
    tab = page
    for address, marker in ADDRESSES:
        tab.goto(f"{dashboard}/{address}")
        _wait(tab, marker)
        assert "Page not found" not in tab.content(), address
        assert tab.url.split("?")[0].rstrip("/").endswith(f"/{address}"), tab.url
    tab.goto(f"{dashboard}/?entity=my_api")
    _wait(tab, "· graph ·")
    assert "Page not found" not in tab.content()
    assert tab.url.split("?")[0].endswith("/graph") and "entity=my_api" in tab.url, tab.url
    tab.goto(f"{dashboard}/no-such-page")  # an unknown address still says so
    tab.wait_for_selector("text=Page not found", timeout=30_000)
    assert not tab.outside, f"requests left the machine: {tab.outside}"

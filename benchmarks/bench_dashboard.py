"""Time to first draw of the dashboard's Graph page on a generated graph (100,000 facts by default).

    python benchmarks/bench_dashboard.py                    # 100,000 facts, 3 runs
    python benchmarks/bench_dashboard.py --facts 250000 --repeat 5 --json out.json

Generates ``--facts`` facts with ``kgtoolkit.generate`` (seeded), imports them with
``kgtoolkit.store.import_facts`` into a new file, starts ``kgtoolkit dashboard`` on it (loopback, a
free port), and drives Debian's Chromium with Playwright (never a downloaded browser). Measured, wall
clock from ``page.goto`` until the vis-network canvas inside the graph's iframe reports drawn nodes
(``#mynetwork[data-drawn-nodes] > 0``, set on vis-network's ``afterDrawing``):

* ``cold``   the first page load after the server started: asks the engine for the most connected entities
             and the facts among them (no Streamlit cache yet), builds the view, renders and draws it;
* ``warm``   a first view on a warm server: a new browser profile (no HTTP cache) on the same server
             (``--repeat`` times; the median is reported): the frames come from the server's cache, the
             page still builds its widgets, and the browser downloads and compiles Streamlit's front end
             and the code of each kind of widget, then draws;
* ``repeat`` a repeat view on a warm server: a new tab in a browser profile that has opened the page
             once (its HTTP cache warm, as for a person opening the dashboard again): what is left is the
             page's run, its widgets' rendering and the drawing;
* ``date``   changing the sidebar date on a loaded page until the redrawn graph shows other nodes
             (the engine asked again for that day, a new view, a redraw);
* ``floor``  the same, warm and repeat, for a bare Streamlit page that shows only the same picture (the page
             ``render_html`` makes for the default view, in ``st.iframe``): what Streamlit's own front
             end and the drawing cost on this machine now, whatever the Graph page adds.

The default view is the overview (the most connected entities, node cap 120) as of today. ``server_peak_rss_mib``:
the dashboard server's peak resident memory (``VmHWM``) after the runs, ``server_tree_peak_rss_mib`` with its
children's (the SQLite reader process).
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
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
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


FLOOR_APP = """import streamlit as st
from pathlib import Path

page = Path(__file__).with_name("picture.html").read_text(encoding="utf-8")
if hasattr(st, "iframe"):
    st.iframe(page, height=600)
else:
    import streamlit.components.v1 as components

    components.html(page, height=600)
"""


def _serve(command: list[str], folder: Path, name: str, port_option: str = "--port") -> tuple[subprocess.Popen, str]:
    """Start a server (``command``, then ``port_option`` and a free port), its output in ``folder/name.log``, and
    wait until it answers; (process, URL)."""
    port = _free_port()
    with (folder / f"{name}.log").open("w") as log:
        server = subprocess.Popen([*command, port_option, str(port)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as answer:
                if answer.read() == b"ok":
                    return server, url
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise SystemExit(f"{name} did not start: {(folder / f'{name}.log').read_text()[-2000:]}")
        time.sleep(0.1)


def _peak_rss_mib(pid: int) -> tuple[float, float]:
    """The peak resident memory (``VmHWM``, MiB) of process ``pid`` and the sum over it and its children still
    running (the SQLite reader process the server starts); (0, 0) where /proc cannot say (not Linux)."""

    def hwm(p: int) -> float:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    tree, changed = {pid}, True
    while changed:
        changed = False
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) not in tree:
                try:
                    parent = int(
                        (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                    )  # after the name: state, ppid
                except (OSError, ValueError, IndexError):
                    continue
                if parent in tree:
                    tree.add(int(entry.name))
                    changed = True
    return round(hwm(pid), 1), round(sum(hwm(p) for p in tree), 1)


def _stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


def _floor_page(db: Path, folder: Path) -> Path:
    """The bare page of the floor, showing the picture the Graph page opens on (overview, node cap 120, today)."""
    import datetime as dt

    import kgtoolkit
    from kgtoolkit import frames
    from kgtoolkit.dashboard import graphview

    with kgtoolkit.open(db, read_only=True) as kg:
        facts = frames.facts(kg)
    day, _ = graphview.opening_day(facts, today=dt.date.today())
    view = graphview.build(frames.valid_at(facts, day.isoformat()), max_nodes=120)
    (folder / "picture.html").write_text(graphview.render_html(view, height=600), encoding="utf-8")
    script = folder / "floor_app.py"
    script.write_text(FLOOR_APP, encoding="utf-8")
    return script


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
    floor_script = _floor_page(db, folder)
    server, url = _serve(
        [sys.executable, "-m", "kgtoolkit", "dashboard", "--db", str(db), "--read-only"], folder, "server"
    )
    floor_server = None
    try:
        floor_server, floor_url = _serve(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(floor_script),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
                "--global.developmentMode",
                "false",
                "--theme.base",
                "light",
                "--client.toolbarMode",
                "minimal",
            ],
            folder,
            "floor",
            "--server.port",
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            viewport = {"width": 1280, "height": 800}
            context = browser.new_context(viewport=viewport)
            cold, nodes = _first_draw(context.new_page(), url)
            context.close()
            context = browser.new_context(viewport=viewport)
            _first_draw(context.new_page(), floor_url)  # the floor's own first (cold) load, not counted
            context.close()
            warm, floor = [], []
            for _ in range(options.repeat):  # alternately, so both see the same load
                for target, times in ((url, warm), (floor_url, floor)):
                    context = browser.new_context(viewport=viewport)
                    times.append(_first_draw(context.new_page(), target)[0])
                    context.close()
            # Repeat views: one browser profile per server, opened once; each timed view a new tab in it.
            profiles = {target: browser.new_context(viewport=viewport) for target in (url, floor_url)}
            for target, context in profiles.items():
                _first_draw(context.new_page(), target)
            repeat, floor_repeat = [], []
            for _ in range(options.repeat):
                for target, times in ((url, repeat), (floor_url, floor_repeat)):
                    tab = profiles[target].new_page()
                    times.append(_first_draw(tab, target)[0])
                    tab.close()
            for context in profiles.values():
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
                arg=before,
                timeout=120_000,
            )
            date_s = time.perf_counter() - started
            browser.close()
        server_rss, tree_rss = _peak_rss_mib(server.pid)
    finally:
        _stop(server)
        if floor_server is not None:
            _stop(floor_server)

    result = {
        "facts": options.facts,
        "seed": options.seed,
        "import_s": round(import_s, 3),
        "cold_first_draw_s": round(cold, 3),
        "warm_first_draw_s": round(statistics.median(warm), 3),
        "warm_runs_s": [round(w, 3) for w in warm],
        "date_change_redraw_s": round(date_s, 3),
        "floor_first_draw_s": round(statistics.median(floor), 3),
        "floor_runs_s": [round(f, 3) for f in floor],
        "repeat_view_s": round(statistics.median(repeat), 3),
        "repeat_runs_s": [round(r, 3) for r in repeat],
        "floor_repeat_view_s": round(statistics.median(floor_repeat), 3),
        "nodes_drawn": len(nodes.split("|")) if nodes else 0,
        "server_peak_rss_mib": server_rss,
        "server_tree_peak_rss_mib": tree_rss,
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

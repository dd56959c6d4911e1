"""Time to first draw of a dashboard page (Graph or Churn) on a generated graph (100,000 facts by default) or a given one.

    python benchmarks/bench_dashboard.py                    # 100,000 facts, 3 runs, the Graph page
    python benchmarks/bench_dashboard.py --facts 250000 --repeat 5 --json out.json
    python benchmarks/bench_dashboard.py --db graph.sqlite3 --page churn --repeat 3
    python benchmarks/bench_dashboard.py --db postgresql://user@127.0.0.1:5432/bench?options=-csearch_path%3Dg --page graph

Generates ``--facts`` facts with ``kgtoolkit.generate`` (seeded), imports them with
``kgtoolkit.store.import_facts`` into a new file (or, with ``--db``, uses that graph, a SQLite file or a PostgreSQL
URL, opened read-only only: nothing is written to it), starts ``kgtoolkit dashboard --read-only`` on it (loopback, a free port), and drives
Debian's Chromium with Playwright (never a downloaded browser). Measured, wall clock from ``page.goto`` until the
page is drawn: for ``--page graph`` (the default) until the vis-network canvas inside the graph's iframe reports
drawn nodes (``#mynetwork[data-drawn-nodes] > 0``, set on vis-network's ``afterDrawing``); for ``--page churn``
(``/churn``) until its first Vega-Lite chart has drawn (a ``canvas`` or ``svg`` in ``stVegaLiteChart``: the page
has asked the engine for every table, since its charts come after them):

* ``cold``   the first page load after the server started: asks the engine for the most connected entities
             and the facts among them (no Streamlit cache yet), builds the view, renders and draws it;
* ``warm``   a first view on a warm server: a new browser profile (no HTTP cache) on the same server
             (``--repeat`` times; the median is reported): the frames come from the server's cache, the
             page still builds its widgets, and the browser downloads and compiles Streamlit's front end
             and the code of each kind of widget, then draws;
* ``repeat`` a repeat view on a warm server: a new tab in a browser profile that has opened the page
             once (its HTTP cache warm, as for a person opening the dashboard again): what is left is the
             page's run, its widgets' rendering and the drawing;
* ``date``   (Graph page) changing the sidebar date on a loaded page until the redrawn graph shows other nodes
             (the engine asked again for that day, a new view, a redraw);
* ``floor``  the same, warm and repeat, for a bare Streamlit page that shows only the same picture: for the Graph
             page the page ``render_html`` makes for the default view, in ``st.iframe``, its view asked of the
             engine as the Graph page asks it (``data.opening_day``, ``data.graph_overview``: no facts frame);
             for the Churn page one Vega-Lite bar chart of 24 made-up months: what Streamlit's own front end and
             the drawing cost on this machine now, whatever the page adds.

The Graph page's default view is the overview (the most connected entities, node cap 120) on the session's opening
day; the Churn page's the whole span by month, top 10. ``server_peak_rss_mib``: the dashboard server's peak resident
memory (``VmHWM``) after the runs, ``server_tree_peak_rss_mib`` with its children's (the SQLite reader process).
``load``: the 1-minute load average before and after the runs.
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


FLOOR_CHART_APP = """import altair as alt
import polars as pl
import streamlit as st

months = pl.date_range(pl.date(2024, 1, 1), pl.date(2025, 12, 1), "1mo", eager=True)
frame = pl.DataFrame({"period": months, "facts": [(i * 37) % 100 + 10 for i in range(months.len())]})
chart = alt.Chart(frame.to_pandas()).mark_bar().encode(x=alt.X("period:T", title=None), y="facts:Q")
st.altair_chart(chart.properties(height=260), width="stretch")
"""


def _floor_page(db: Path | str, folder: Path, page: str) -> tuple[Path, float]:
    """The bare page of the floor and the seconds its data took. Graph: the picture the Graph page opens on
    (overview, node cap 120, the session's opening day), asked of the engine as the page asks it; Churn: one chart
    of made-up numbers (no data work)."""
    script = folder / "floor_app.py"
    if page == "churn":
        script.write_text(FLOOR_CHART_APP, encoding="utf-8")
        return script, 0.0
    import datetime as dt

    import kgtoolkit
    from kgtoolkit.dashboard import data, graphview

    started = time.perf_counter()
    with kgtoolkit.open(db, read_only=True) as kg:
        day, _ = data.opening_day(kg, today=dt.date.today())
        view = data.graph_overview(kg, day.isoformat(), kg.predicate_labels(), max_nodes=120)
    took = time.perf_counter() - started
    (folder / "picture.html").write_text(graphview.render_html(view, height=600), encoding="utf-8")
    script.write_text(FLOOR_APP, encoding="utf-8")
    return script, took


CHART = '[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg'
TIMEOUT_MS = 120_000


def _first_draw(page, url: str, chart: bool = False) -> tuple[float, str]:
    """Seconds from ``goto`` until the page is drawn: the graph's canvas has nodes (``chart``: a Vega-Lite chart has
    drawn); the drawn node ids (empty for a chart)."""
    started = time.perf_counter()
    page.goto(url)
    if chart:
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        return time.perf_counter() - started, ""
    handle = page.wait_for_selector('iframe[data-testid="stIFrame"]', timeout=TIMEOUT_MS)
    frame = handle.content_frame()
    frame.wait_for_function(DRAWN, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - started
    return elapsed, frame.evaluate("() => document.getElementById('mynetwork').getAttribute('data-node-ids')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--db",
        help="an existing graph (a SQLite file or a postgresql:// URL) to use, opened read-only, instead of --facts",
    )
    parser.add_argument(
        "--page", choices=("graph", "churn"), default="graph", help="the page whose first view is timed"
    )
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for a page to draw")
    options = parser.parse_args()
    global TIMEOUT_MS
    TIMEOUT_MS = int(options.timeout * 1000)

    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    db: Path | str
    if options.db is not None and options.db.startswith(("postgresql://", "postgres://")):
        db, import_s = options.db, None
    elif options.db is not None:
        if not Path(options.db).is_file():
            raise SystemExit(f"--db {options.db}: no such file")
        db, import_s = Path(options.db).resolve(), None
    else:
        db = folder / "generated.sqlite3"
        import_s = _build(db, options.facts, options.seed)
    chart = options.page == "churn"
    load_before = os.getloadavg()
    floor_script, floor_data_s = _floor_page(db, folder, options.page)
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
        url = f"{url}/churn" if chart else url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            viewport = {"width": 1280, "height": 800}
            context = browser.new_context(viewport=viewport)
            cold, nodes = _first_draw(context.new_page(), url, chart)
            context.close()
            context = browser.new_context(viewport=viewport)
            _first_draw(context.new_page(), floor_url, chart)  # the floor's own first (cold) load, not counted
            context.close()
            warm, floor = [], []
            for _ in range(options.repeat):  # alternately, so both see the same load
                for target, times in ((url, warm), (floor_url, floor)):
                    context = browser.new_context(viewport=viewport)
                    times.append(_first_draw(context.new_page(), target, chart)[0])
                    context.close()
            # Repeat views: one browser profile per server, opened once; each timed view a new tab in it.
            profiles = {target: browser.new_context(viewport=viewport) for target in (url, floor_url)}
            for target, context in profiles.items():
                _first_draw(context.new_page(), target, chart)
            repeat, floor_repeat = [], []
            for _ in range(options.repeat):
                for target, times in ((url, repeat), (floor_url, floor_repeat)):
                    tab = profiles[target].new_page()
                    times.append(_first_draw(tab, target, chart)[0])
                    tab.close()
            for context in profiles.values():
                context.close()
            date_s = None if chart else _date_change(browser.new_context(viewport=viewport), url)
            browser.close()
        server_rss, tree_rss = _peak_rss_mib(server.pid)
    finally:
        _stop(server)
        if floor_server is not None:
            _stop(floor_server)
    load_after = os.getloadavg()

    result = {
        "page": options.page,
        "db": str(options.db) if options.db is not None else None,
        "engine": "postgresql" if isinstance(db, str) else "sqlite",
        "facts": _fact_count(db) if options.db is not None else options.facts,
        "seed": None if options.db is not None else options.seed,
        "import_s": round(import_s, 3) if import_s is not None else None,
        "floor_data_s": round(floor_data_s, 3),
        "cold_first_draw_s": round(cold, 3),
        "warm_first_draw_s": round(statistics.median(warm), 3),
        "warm_runs_s": [round(w, 3) for w in warm],
        "date_change_redraw_s": round(date_s, 3) if date_s is not None else None,
        "floor_first_draw_s": round(statistics.median(floor), 3),
        "floor_runs_s": [round(f, 3) for f in floor],
        "repeat_view_s": round(statistics.median(repeat), 3),
        "repeat_runs_s": [round(r, 3) for r in repeat],
        "floor_repeat_view_s": round(statistics.median(floor_repeat), 3),
        "nodes_drawn": len(nodes.split("|")) if nodes else 0,
        "server_peak_rss_mib": server_rss,
        "server_tree_peak_rss_mib": tree_rss,
        "load": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]},
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2))


def _fact_count(db: Path | str) -> int:
    import kgtoolkit
    from kgtoolkit.store import count_facts

    with kgtoolkit.open(db, read_only=True) as kg:
        return count_facts(kg)


def _date_change(context, url: str) -> float:
    """Seconds from changing the sidebar date on a loaded Graph page until the redrawn graph shows other nodes."""
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
        timeout=TIMEOUT_MS,
    )
    date_s = time.perf_counter() - started
    context.close()
    return date_s


if __name__ == "__main__":
    main()

"""A step of the Graph page's time slider, at 1,000,000 facts (generated, seeded), in Debian's Chromium.

    python benchmarks/bench_graphtime.py                       # 1,000,000 facts, 15 steps
    python benchmarks/bench_graphtime.py --db graph.sqlite3 --steps 30 --json out.json

Generates ``--facts`` facts with ``kgtoolkit.generate`` into a new file (or uses ``--db``, read-only), then:

* ``build``   :func:`kgtoolkit.dashboard.timegraph.time_graph` of the graph (the ranking over the busy years, the
              facts among the drawn entities, the activity per period, the layout), cold, then again (``build_again``:
              the layout cached in the process, the engine asked again; the dashboard caches the whole answer);
* ``render``  the page (:func:`kgtoolkit.dashboard.picture.timeview.render_time_html`);
* ``step``    in Chromium, on that page (warm: loaded and drawn once): one step of the window (``kgTime.step(1)``,
              what the ▶ button and play do) until the browser has painted the next frame (two animation frames),
              ``--steps`` times, the median reported;
* ``floor``   the same wait for a redraw that changes nothing (``network.redraw()``), in the same run: what the
              browser's drawing of this picture costs whatever the step adds;
* ``date``    on the dashboard's Graph page (``kgtoolkit dashboard --read-only``), a new sidebar date on a warm
              page (its picture cached) until the redrawn picture shows the new period: the Streamlit run, the page
              sent again and drawn (``--date-steps`` times, the median reported).

``load``: the 1-minute load average before and after. Never used as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "tests" / "dashboard"))

STEP = """() => new Promise(done => { const t0 = performance.now(); kgTime.step(1);
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))); })"""
FLOOR = """() => new Promise(done => { const t0 = performance.now(); network.redraw();
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))); })"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--date-steps", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import kgtoolkit
    from kgtoolkit.dashboard.picture.timeview import render_time_html
    from kgtoolkit.dashboard.timegraph import time_graph

    out: dict[str, object] = {"facts": args.facts, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as folder:
        db = args.db
        if db is None:
            import bench_dashboard

            db = Path(folder) / "graph.sqlite3"
            out["import_s"] = round(bench_dashboard._build(db, args.facts, args.seed), 2)
        with kgtoolkit.open(db, read_only=True) as kg:
            out["facts"] = kg.stats().facts
            started = time.perf_counter()
            shown = time_graph(kg)
            out["build_s"] = round(time.perf_counter() - started, 3)
            started = time.perf_counter()
            shown = time_graph(kg)
            out["build_again_s"] = round(time.perf_counter() - started, 3)
        tv = shown.time
        started = time.perf_counter()
        page = render_time_html(tv)
        out["render_s"] = round(time.perf_counter() - started, 3)
        out.update(
            nodes=len(tv.view.nodes),
            edges=len(tv.view.edges),
            periods=len(tv.periods),
            every=tv.every,
            page_mb=round(len(page) / 1e6, 2),
        )
        file = Path(folder) / "time.html"
        file.write_text(page, encoding="utf-8")
        out.update(_browser(file, args.steps))
        out.update(_dashboard(db, Path(folder), tv, args.date_steps))
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


def _browser(file: Path, steps: int) -> dict[str, object]:
    from bench_dashboard import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        tab = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        tab.goto(file.as_uri())
        tab.wait_for_function(
            "() => document.getElementById('mynetwork').getAttribute('data-label-px')", timeout=120_000
        )
        tab.evaluate("() => kgTime.set(0, 0)")
        tab.evaluate(STEP)  # warm: one step drawn before measuring
        step, floor = [], []
        for _ in range(steps):  # interleaved: the floor and the step see the same machine
            floor.append(tab.evaluate(FLOOR))
            step.append(tab.evaluate(STEP))
        browser.close()
    med_step, med_floor = statistics.median(step), statistics.median(floor)
    return {
        "step_ms_median": round(med_step, 1),
        "step_ms_max": round(max(step), 1),
        "floor_ms_median": round(med_floor, 1),
        "step_over_floor": round(med_step / med_floor, 2) if med_floor else None,
    }


def _dashboard(db: Path, folder: Path, tv: object, steps: int) -> dict[str, object]:
    from bench_dashboard import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright
    from test_dashboard_browser import READY, serve
    from test_graph_browser import _picture

    starts = list(tv.starts)  # type: ignore[attr-defined]
    days = [starts[min(len(starts) - 1, i * max(1, len(starts) // (steps + 2)))] for i in range(1, steps + 2)]
    took = []
    with serve(db, folder) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        tab = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        tab.goto(f"{url}/?as_of={days[0].isoformat()}")
        tab.wait_for_function(READY, arg="· graph ·", timeout=600_000)
        period = _picture(tab).evaluate("() => document.getElementById('mynetwork').getAttribute('data-period')")
        field = tab.locator('[data-testid="stSidebar"] [data-testid="stDateInput"] input')
        for day in days[1:]:
            started = time.perf_counter()
            field.fill(day.isoformat())
            field.press("Enter")
            tab.keyboard.press("Escape")
            frame = _picture(tab, other_than=period)
            period = frame.evaluate("() => document.getElementById('mynetwork').getAttribute('data-period')")
            took.append(time.perf_counter() - started)
        browser.close()
    return {"date_s_median": round(statistics.median(took), 3), "date_s_all": [round(t, 3) for t in took]}


if __name__ == "__main__":
    sys.exit(main())

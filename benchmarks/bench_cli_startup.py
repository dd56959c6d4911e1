"""What a CLI call costs before it does any work (issue 50: a warm CLI ``find`` in at most a second).

Each figure is the median of ``--runs`` fresh processes of this checkout, the commands interleaved round by
round so that a change in the machine's load falls on all of them alike, beside the floor ``python -c pass``
measured in the same rounds:

* ``floor``: ``python -c pass``;
* ``import_cli``: ``python -c "import kgtoolkit.cli"``;
* ``help``: ``python -m kgtoolkit --help``;
* ``find``: ``python -m kgtoolkit --db GRAPH find QUERY`` on a graph whose semantic index is built and whose model is
  already exported to ONNX (a warm call: nothing is embedded but the query).

Wall and CPU (user + system of the child) are both reported: on a shared machine the wall time follows the load,
the CPU time much less. ``breakdown`` splits one warm ``find`` into its steps inside one process (CPU seconds,
median of the same rounds): Python and the CLI's imports, the search's libraries (numpy, faiss, ONNX Runtime,
tokenizers), opening the graph, reading the index, creating the ONNX Runtime session, embedding the query and the
whole search, to show where the floor of a CLI ``find`` is. ``ort_session`` compares a session made from the
exported model (ONNX Runtime optimising it at every start, its 90 MB of weights parsed and copied) with one made from
the copy kgtoolkit opens (:func:`kgtoolkit._onnx_saved.loadable`: optimised once, weights mapped from a file of their
own). Children run with bytecode cached, as an installed package's is.

    python benchmarks/bench_cli_startup.py --build /tmp/icews.sqlite3      # import ICEWS14 and index it first
    python benchmarks/bench_cli_startup.py --db /tmp/icews.sqlite3 --runs 9
    python benchmarks/bench_cli_startup.py --db /tmp/icews.sqlite3 --before /tmp/before   # another release alike

``--before DIR`` runs ``import_cli``, ``help`` and ``find`` of the kgtoolkit in ``DIR`` too, in the same rounds
(``*_before``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ICEWS = Path(os.environ.get("KGTOOLKIT_SHARED_DATA") or ROOT.parent / "shared" / "data") / "icews14" / "facts.tsv"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode cached, as installed
ENV["PYTHONPATH"] = str(ROOT)

_BREAKDOWN = """
import json, os, sys, time
steps = {}
t = time.process_time()
def step(name):
    global t
    now = time.process_time()
    steps[name] = now - t
    t = now
import kgtoolkit.cli
step("import_cli")
import numpy, faiss, onnxruntime, tokenizers
step("import_search_libraries")
import kgtoolkit
from kgtoolkit.search import open_index
kg = kgtoolkit.open(sys.argv[1], read_only=True)
step("open_graph")
index = open_index(kg)
step("read_index")
index.embedder._session()
step("ort_session")
index.embedder.encode([sys.argv[2]])
step("embed_query")
index.find(sys.argv[2], k=10)
step("find")
print(json.dumps(steps))
"""

_SESSION = """
import json, sys, time
import onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = 2
options.log_severity_level = 3
started = time.process_time()
ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
print(json.dumps(time.process_time() - started))
"""


def _child(args: list[str], code: Path = ROOT) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) and stdout of one child process importing ``code``'s kgtoolkit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env={**ENV, "PYTHONPATH": str(code)}, cwd=code)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def _summary(samples: list[tuple[float, float]], floor: list[tuple[float, float]] | None) -> dict[str, Any]:
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    out: dict[str, Any] = {
        "runs": len(samples),
        "median_s": round(wall, 4),
        "min_s": round(min(s[0] for s in samples), 4),
        "cpu_median_s": round(cpu, 4),
    }
    if floor is not None:
        out["x_floor_wall"] = round(wall / statistics.median(s[0] for s in floor), 2)
        out["x_floor_cpu"] = round(cpu / max(statistics.median(s[1] for s in floor), 1e-3), 2)
    return out


def build(path: Path) -> None:
    """ICEWS14 imported into ``path`` and its semantic index built (and the model exported, if it is not yet)."""
    if not ICEWS.is_file():
        raise SystemExit(f"{ICEWS} is missing: pass --db with an indexed graph")
    for args in (["import", str(ICEWS)], ["index"]):
        subprocess.run([sys.executable, "-m", "kgtoolkit", "--db", str(path), *args], env=ENV, cwd=ROOT, check=True)


def run(db: Path, query: str, runs: int, before: Path | None = None) -> dict[str, Any]:
    py = sys.executable
    commands = {
        "floor": [py, "-c", "pass"],
        "import_cli": [py, "-c", "import kgtoolkit.cli"],
        "help": [py, "-m", "kgtoolkit", "--help"],
        "find": [py, "-m", "kgtoolkit", "--db", str(db), "find", query],
    }
    compared = {f"{name}_before": args for name, args in commands.items() if before is not None and name != "floor"}
    _child(commands["find"])  # warm: the index read once, the page cache holding the model and the index
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in [*commands, *compared]}
    steps: list[dict[str, float]] = []
    sessions: list[dict[str, float]] = []
    from kgtoolkit._onnx import model_cache
    from kgtoolkit._onnx_saved import loadable

    models = sorted(model_cache().glob("*/model.onnx"))
    optimised = loadable(models[0]) if models else None
    for _ in range(runs):
        for name, args in commands.items():
            wall, cpu, _out = _child(args)
            samples[name].append((wall, cpu))
        for name, args in compared.items():
            assert before is not None
            wall, cpu, _out = _child(args, before)
            samples[name].append((wall, cpu))
        steps.append(json.loads(_child([py, "-c", textwrap.dedent(_BREAKDOWN), str(db), query])[2]))
        if models:
            # each in a process of its own: the first session of a process pays ONNX Runtime's own start
            session = textwrap.dedent(_SESSION)
            sessions.append(
                {
                    "exported": json.loads(_child([py, "-c", session, str(models[0])])[2]),
                    "optimised_copy": json.loads(_child([py, "-c", session, str(optimised)])[2]),
                }
            )
    floor = samples["floor"]
    result: dict[str, Any] = {name: _summary(got, None if name == "floor" else floor) for name, got in samples.items()}
    result["breakdown_cpu_median_s"] = {k: round(statistics.median(s[k] for s in steps), 4) for k in steps[0]}
    if sessions:
        result["ort_session_cpu_median_s"] = {
            k: round(statistics.median(s[k] for s in sessions), 4) for k in sessions[0]
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="an indexed graph (see --build)")
    parser.add_argument("--build", type=Path, help="import ICEWS14 into this new file and index it first")
    parser.add_argument("--query", default="police arrest protesters")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout's root (e.g. `git archive REV kgtoolkit | tar -x -C DIR`) measured alike",
    )
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results-cli-startup.json")
    args = parser.parse_args()
    db = args.db
    if args.build is not None:
        build(args.build)
        db = args.build
    if db is None:
        parser.error("--db or --build is needed")
    load_before = os.getloadavg()
    figures = run(db, args.query, args.runs, args.before)
    import kgtoolkit

    with kgtoolkit.open(db, read_only=True) as kg:
        facts = kg.stats().facts
    machine = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    if args.before is not None:
        machine["before"] = str(args.before)
    out = {"machine": machine, "graph": str(db), "facts": facts, "query": args.query, **figures}
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

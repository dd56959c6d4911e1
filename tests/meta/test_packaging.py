"""What an installed kgtoolkit gets: the wheel, installed into a fresh virtualenv, starts its own dashboard.

The wheel is built as ``pip wheel --no-deps --no-build-isolation -w DIR <repo>`` builds it, from a copy
of the repository (a build writes ``build/`` and ``*.egg-info`` into its source tree; the checkout is
left alone). Its file list must hold the dashboard (``kgtoolkit/dashboard/``: the Streamlit script,
its pages and icon) and the PEP 561 marker ``py.typed``, and nothing outside the package.

It is installed with ``--no-deps --no-index`` (nothing is downloaded) into a virtualenv made with
``--system-site-packages`` by this interpreter. A virtualenv made from inside a virtualenv sees the
*base* Python's site-packages, not this one's, so the fresh one gets a ``.pth`` line naming this
interpreter's site-packages, for kgtoolkit's dependencies; it is written after the install, so pip
never sees this interpreter's own kgtoolkit. That site-packages may hold an editable install of
kgtoolkit (``make`` installs one): a path line in a ``.pth`` does not run the ``.pth`` files of the
folder it names, so its import hook is never installed, and the fresh site-packages comes first on
``sys.path`` anyway. Every command runs without ``PYTHONPATH`` and outside the checkout (the current
folder is on ``sys.path`` for ``python -m``), and the tests assert that ``kgtoolkit`` is the wheel's copy.

Then ``kgtoolkit dashboard`` from that virtualenv serves a small graph on a free loopback port:
Streamlit's health check answers ``ok``, the page loads, and the server runs the installed script;
Streamlit's AppTest runs every page of the installed script in that virtualenv.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import shutil
import site
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgtoolkit
from kgtoolkit.dashboard._text import plain

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("graph", "entity", "paths", "changes", "conflicts", "cleanup", "churn", "search", "import_export")
FOOTER = "kgtoolkit dashboard"
# Not copied for the build: version control, environments, caches, build output, graphs.
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "data",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".pytest_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
    "*.sqlite3",
    "*.sqlite3-*",
)
# kgtoolkit.__all__ as it is: a name leaves the public API only on purpose (and this list with it).
PUBLIC_API = [
    "AddResult",
    "Alias",
    "AliasConflict",
    "CommaList",
    "ConflictGroup",
    "Corrupt",
    "DiskFull",
    "Entity",
    "Fact",
    "GraphConfig",
    "ImportReport",
    "IntervalOrder",
    "InvalidDate",
    "InvalidName",
    "InvalidRequest",
    "InvalidRows",
    "KGError",
    "KnowledgeGraph",
    "Locked",
    "Memory",
    "MergeResult",
    "MissingDependency",
    "NotCurrent",
    "NotFound",
    "Page",
    "ReadOnly",
    "Stats",
    "StoreError",
    "SupersedeResult",
    "TOOL_SCHEMA",
    "UnknownType",
    "looks_like_injection",
    "normalize_name",
    "normalize_predicate",
    "open",
    "resolve_path",
    "run_tool",
    "Change",
    "Diff",
    "Neighborhood",
    "Paths",
    "Reached",  # traversal and diff (contract §11)
    "PredicateAlias",
    "PredicateInfo",
    "PredicateRename",
    "DuplicateCandidate",
    "Finding",
    "NotDuplicate",
]


def test_the_public_api_is_pinned() -> None:
    assert sorted(kgtoolkit.__all__) == sorted(PUBLIC_API)  # the names, whatever order the linter keeps
    assert len(set(kgtoolkit.__all__)) == len(kgtoolkit.__all__)
    assert all(hasattr(kgtoolkit, name) for name in kgtoolkit.__all__)


def test_the_source_tree_marks_the_package_typed() -> None:
    assert (ROOT / "kgtoolkit" / "py.typed").is_file()


# ---------------------------------------------------------------------- the wheel and a fresh virtualenv


def _setuptools_for_the_build() -> None:
    """``--no-build-isolation`` builds with this interpreter's setuptools: skip unless it is new enough."""
    pytest.importorskip("pip", reason="pip is not installed")
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("setuptools is not installed (the wheel is built without build isolation)")
    if int(version.split(".")[0]) < 77:
        pytest.skip(f"setuptools {version} is older than pyproject.toml's build requirement (>=77)")


def _environment(home: Path) -> dict[str, str]:
    """This process's environment without what would import another kgtoolkit, and with its own HOME."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "PYTHONPATH",
            "PYTHONHOME",
            "PYTHONSTARTUP",
            "PYTHONUSERBASE",
            "VIRTUAL_ENV",
            "KGTOOLKIT_DB",
            "KGTOOLKIT_DASHBOARD_READ_ONLY",
        )
    }
    env.update(
        HOME=str(home), PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_NO_INDEX="1"
    )
    return env


def _run(command: list[str | Path], *, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@dataclasses.dataclass(frozen=True)
class Venv:
    home: Path  # a folder of its own: HOME and the working directory of the commands
    bin: Path
    site: Path  # its site-packages
    env: dict[str, str]

    @property
    def python(self) -> Path:
        return self.bin / "python"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _setuptools_for_the_build()
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "kgtoolkit-source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "-w",
            folder / "dist",
            source,
        ],
        env=_environment(folder),
        cwd=folder,
    )
    (built,) = (folder / "dist").glob("kgtoolkit-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    home = tmp_path_factory.mktemp("venv")
    env = _environment(home)
    target = home / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", target], env=env, cwd=home)
    python = target / "bin" / "python"
    _run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel],
        env=env,
        cwd=home,
    )
    purelib = Path(
        _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], env=env, cwd=home).strip()
    )
    if sys.prefix != sys.base_prefix:  # this interpreter is a virtualenv: its packages are not the "system" ones
        ours = [p for p in site.getsitepackages() if Path(p).resolve() != purelib.resolve()]
        (purelib / "_kgtoolkit_test_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    return Venv(home=home, bin=target / "bin", site=purelib, env=env)


@pytest.mark.slow
def test_the_wheel_ships_the_dashboard_and_the_type_marker(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    dashboard = {
        "kgtoolkit/dashboard/__init__.py",
        "kgtoolkit/dashboard/app.py",
        "kgtoolkit/dashboard/kgdash.py",
        "kgtoolkit/dashboard/data.py",
        "kgtoolkit/dashboard/graphview.py",
        "kgtoolkit/dashboard/timegraph.py",
        *(f"kgtoolkit/dashboard/picture/{part}.py" for part in ("view", "style", "layout", "render", "timeview")),
        "kgtoolkit/dashboard/favicon.png",
        *(f"kgtoolkit/dashboard/views/{page}.py" for page in PAGES),
    }
    assert dashboard <= names, sorted(dashboard - names)
    assert "kgtoolkit/graphview.py" not in names  # the graph's data lives with the dashboard now
    assert "kgtoolkit/py.typed" in names
    modules = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "kgtoolkit").rglob("*.py") if "__pycache__" not in p.parts
    }
    assert modules <= names, sorted(modules - names)  # every module and page of the source tree
    meta = f"kgtoolkit-{kgtoolkit.__version__}.dist-info"
    assert {n.split("/")[0] for n in names} == {"kgtoolkit", meta}  # no app/, tests/ or conftest.py
    with zipfile.ZipFile(wheel) as archive:
        entry_points = archive.read(f"{meta}/entry_points.txt").decode()
        metadata = archive.read(f"{meta}/METADATA").decode()
    assert "kgtoolkit = kgtoolkit.cli:main" in entry_points
    assert "Provides-Extra: dashboard" in metadata


@pytest.mark.slow
def test_the_fresh_venv_imports_the_wheels_copy(venv: Venv) -> None:
    code = (
        "import json, kgtoolkit, kgtoolkit.dashboard as d, importlib.metadata as m, pathlib; "
        "print(json.dumps([kgtoolkit.__file__, str(d.SCRIPT), d.SCRIPT.is_file(), "
        "(pathlib.Path(kgtoolkit.__file__).parent / 'py.typed').is_file(), "
        "str(m.distribution('kgtoolkit').locate_file('kgtoolkit'))]))"
    )
    package, script, script_there, typed, recorded = json.loads(
        _run([venv.python, "-c", code], env=venv.env, cwd=venv.home)
    )
    assert Path(package).is_relative_to(venv.site), f"kgtoolkit came from {package}, not the wheel in {venv.site}"
    assert Path(script).is_relative_to(venv.site) and script_there and typed
    assert Path(recorded).is_relative_to(venv.site)  # the installed distribution is the wheel's, too
    assert (venv.bin / "kgtoolkit").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _small_graph(folder: Path) -> Path:
    db = folder / "team.sqlite3"
    with kgtoolkit.open(db) as kg:
        kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
        kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
        kg.add("Ada Brooks", "email", "ada@acme.example")
        kg.add("Ada Brooks", "works_on", "my_api", valid_from="2026-01-05")
    return db


@pytest.fixture
def served(venv: Venv, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """``kgtoolkit dashboard`` of the fresh virtualenv on a small graph: its URL, process and log."""
    pytest.importorskip("streamlit", reason="the dashboard extra is not installed (pip install 'kgtoolkit[dashboard]')")
    pytest.importorskip("pyvis", reason="the dashboard extra is not installed (pip install 'kgtoolkit[dashboard]')")
    db = _small_graph(tmp_path)
    port = _free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [str(venv.bin / "kgtoolkit"), "dashboard", "--db", str(db), "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=venv.env,
            cwd=tmp_path,
        )
        try:
            yield f"http://127.0.0.1:{port}", server, log_path
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.status, answer.read()


@pytest.mark.slow
def test_kgtoolkit_dashboard_starts_from_the_installed_wheel(
    served: tuple[str, subprocess.Popen[bytes], Path], venv: Venv
) -> None:
    url, server, log = served
    deadline = time.monotonic() + 120  # how long to wait for a start on a busy machine (not a measurement)
    health = None
    while health != b"ok":
        try:
            health = _get(f"{url}/_stcore/health")[1]
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the dashboard did not start (exit {server.poll()}): {log.read_text()[-3000:]}")
            time.sleep(0.2)
    status, page = _get(f"{url}/")
    assert status == 200 and b"<title>" in page and b'id="root"' in page
    assert _get(f"{url}/_stcore/health") == (200, b"ok")
    said = log.read_text()
    assert f"kgtoolkit dashboard on http://{url.removeprefix('http://')}" in said, said
    cmdline = Path(f"/proc/{server.pid}/cmdline")
    if cmdline.exists():  # the CLI became the Streamlit server (exec), running the installed script
        args = cmdline.read_bytes().decode().split("\0")
        assert "streamlit" in args and "run" in args
        script = Path(args[args.index("run") + 1])
        assert script.name == "app.py" and script.is_relative_to(venv.site), args


APP_TEST = """
import json
from streamlit.testing.v1 import AppTest
from kgtoolkit import dashboard

at = AppTest.from_file(str(dashboard.SCRIPT), default_timeout=120)
at.session_state["entity"] = "my_api"
at.run()
seen = []
for page in json.loads(PAGES):
    if page != "graph":
        at.switch_page(f"views/{page}.py").run()
    seen.append({"page": page, "exceptions": [str(e.value) for e in at.exception],
                 "errors": [str(e.value) for e in at.error],
                 "footer": [c.value for c in at.caption if c.value.startswith("kgtoolkit dashboard")]})
print(json.dumps({"script": str(dashboard.SCRIPT), "pages": seen}))
"""


@pytest.mark.slow
def test_every_page_of_the_installed_dashboard_runs(venv: Venv, tmp_path: Path) -> None:
    pytest.importorskip("streamlit", reason="the dashboard extra is not installed (pip install 'kgtoolkit[dashboard]')")
    pytest.importorskip("pyvis", reason="the dashboard extra is not installed (pip install 'kgtoolkit[dashboard]')")
    db = _small_graph(tmp_path)
    env = {**venv.env, "KGTOOLKIT_DB": str(db), "KGTOOLKIT_DASHBOARD_READ_ONLY": "1"}
    code = APP_TEST.replace("json.loads(PAGES)", f"json.loads({json.dumps(json.dumps(PAGES))})")
    answer = json.loads(_run([venv.python, "-c", code], env=env, cwd=tmp_path).strip().splitlines()[-1])
    assert Path(answer["script"]).is_relative_to(venv.site)
    assert [p["page"] for p in answer["pages"]] == list(PAGES)
    for page in answer["pages"]:
        assert page["exceptions"] == [] and page["errors"] == [], page
        marker = f"· {page['page'].replace('_', '-')} ·"
        assert any(marker in plain(text) and "team.sqlite3" in plain(text) for text in page["footer"]), page

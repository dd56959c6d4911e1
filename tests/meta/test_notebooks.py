"""The notebooks of notebooks/: each runs top to bottom in a fresh kernel, and each is stored without outputs.

Every ``notebooks/*.ipynb`` is executed with nbclient in a fresh ``python3`` kernel that runs this very
interpreter (``sys.executable``), in a temporary working directory; a cell error (each notebook ends with
``assert`` statements about what it computed) fails the test. The notebooks find the repository through
``KGTOOLKIT_REPO`` (set here; in Jupyter they fall back to the folder above the notebook's own).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds per cell


@pytest.fixture(scope="session")
def mpl_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One matplotlib config folder for the session: HOME is per test, and a new one rebuilds the font cache."""
    return tmp_path_factory.mktemp("matplotlib")


@pytest.fixture
def python3_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The kernel name ``python3``, made to start ``sys.executable -m ipykernel_launcher``.

    ipykernel's own spec (``argv[0] == "python"``) is launched by jupyter_client with sys.executable; if
    the machine has another ``python3`` spec (another Python), a spec for this interpreter is put first
    on ``JUPYTER_PATH`` for the test, in tmp_path. Nothing is registered outside the test.
    """
    from jupyter_client.kernelspec import NoSuchKernel
    from jupyter_client.manager import KernelManager

    def command() -> list[str]:
        try:
            manager = KernelManager(kernel_name="python3")
            manager.connection_file = str(tmp_path / "kernel-probe.json")
            return manager.format_kernel_cmd()
        except NoSuchKernel:
            return []

    if command()[:1] != [sys.executable]:
        spec = tmp_path / "jupyter" / "kernels" / "python3"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "Python 3 (kgtoolkit tests)",
                    "language": "python",
                }
            )
        )
        monkeypatch.setenv(
            "JUPYTER_PATH", os.pathsep.join(filter(None, [str(tmp_path / "jupyter"), os.environ.get("JUPYTER_PATH")]))
        )
    assert command()[:3] == [sys.executable, "-m", "ipykernel_launcher"], command()
    return "python3"


def run_notebook(path: Path, workdir: Path, kernel_name: str) -> tuple[float, str]:
    """Execute ``path`` in a fresh kernel whose working directory is ``workdir``.

    Returns the seconds it took and the text it printed and displayed (``text/plain``), cell after cell.
    """
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name=kernel_name,
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(workdir)}},
    )
    started = time.monotonic()
    client.execute()  # raises CellExecutionError (with the cell and its traceback) on the first failing cell
    seconds = time.monotonic() - started
    text = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            text.append(output.get("text") or output.get("data", {}).get("text/plain", ""))
    return seconds, "\n".join(text)


@pytest.fixture
def notebook_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mpl_config: Path) -> Path:
    """The kernel's environment (repository, matplotlib cache, TMPDIR) and working directory (tmp_path/work)."""
    monkeypatch.setenv("KGTOOLKIT_REPO", str(REPO))
    monkeypatch.setenv("MPLCONFIGDIR", str(mpl_config))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))  # the notebooks' temporary folders land in tmp_path
    monkeypatch.delenv("KGTOOLKIT_NOTEBOOK_DATA", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    return work


def test_the_notebooks_are_there() -> None:
    names = {p.name for p in NOTEBOOKS}
    assert {
        "01_quickstart.ipynb",
        "02_fact_churn.ipynb",
        "03_conflicts_and_timelines.ipynb",
        "04_bulk_import.ipynb",
        "06_paths_and_events.ipynb",
        "07_parquet_handoff.ipynb",
    } <= names


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.search_extra) if "search" in p.stem else p for p in NOTEBOOKS],
    ids=[p.stem for p in NOTEBOOKS],
)
def test_notebook_runs_top_to_bottom(path: Path, notebook_env: Path, python3_kernel: str) -> None:
    run_notebook(path, notebook_env, python3_kernel)
    written = [p.name for p in notebook_env.iterdir()]
    assert written == [], f"{path.name} wrote {written} into its working directory; use a temporary folder"


@pytest.mark.slow
def test_bulk_import_notebook_takes_its_file_from_the_environment(
    notebook_env: Path, python3_kernel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KGTOOLKIT_NOTEBOOK_DATA chooses the file: a CSV of the demo graph plus one row ending before it starts."""
    import polars as pl

    from kgtoolkit import io
    from kgtoolkit._demo import build_demo

    with build_demo(tmp_path / "demo.sqlite3") as demo:
        io.export_file(demo, tmp_path / "demo.csv")
    exported = pl.read_csv(tmp_path / "demo.csv", infer_schema=False)
    bad = {
        "subject": "ann",
        "subject_name": "Ann",
        "predicate": "works_at",
        "object": "acme",
        "object_name": "Acme",
        "valid_from": "2026-05-01",
        "valid_to": "2026-04-01",
    }
    data = tmp_path / "facts.csv"
    pl.concat([exported, pl.DataFrame([bad])], how="diagonal").write_csv(data)
    monkeypatch.setenv("KGTOOLKIT_NOTEBOOK_DATA", str(data))
    _, printed = run_notebook(REPO / "notebooks" / "04_bulk_import.ipynb", notebook_env, python3_kernel)
    assert f"PosixPath('{data}')" in printed or str(data) in printed
    assert "refused: 1 problem(s) in 1 row(s)" in printed and printed.rstrip().endswith("all checks passed")


@pytest.mark.slow
def test_bulk_import_notebook_falls_back_to_the_demo(
    notebook_env: Path, python3_kernel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the YAGO11k file next to the repository, the notebook imports the demo graph's TSV."""
    elsewhere = tmp_path / "checkout" / "kgtoolkit"
    elsewhere.mkdir(parents=True)
    monkeypatch.setenv("KGTOOLKIT_REPO", str(elsewhere))  # no ../shared/data here
    _, printed = run_notebook(REPO / "notebooks" / "04_bulk_import.ipynb", notebook_env, python3_kernel)
    assert "demo_facts.tsv" in printed and "the strict import accepted every row" in printed
    assert printed.rstrip().endswith("all checks passed")


@pytest.mark.slow
def test_paths_and_events_notebook_runs_without_the_shared_data(
    notebook_env: Path, python3_kernel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ICEWS14 next to the repository, the event part says so and runs on a generated event graph."""
    elsewhere = tmp_path / "checkout" / "kgtoolkit"
    elsewhere.mkdir(parents=True)
    monkeypatch.setenv("KGTOOLKIT_REPO", str(elsewhere))  # no ../shared/data here
    _, printed = run_notebook(REPO / "notebooks" / "06_paths_and_events.ipynb", notebook_env, python3_kernel)
    assert "the ICEWS14 part is skipped" in printed and "events.tsv" in printed
    assert "part 1 checks passed" in printed and printed.rstrip().endswith("all checks passed")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_uses_only_the_public_api(path: Path) -> None:
    # A notebook is an example people copy: kgtoolkit._demo and the like may change without notice.
    code = "\n".join(
        "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
    )
    private = re.findall(r"\bkgtoolkit(?:\.\w+)*\._\w+|\bfrom kgtoolkit(?:\.\w+)* import [^\n]*\b_\w+", code)
    assert private == [], f"{path.name} uses private modules or names: {private}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {number} has outputs; clear them before committing"
            assert cell.get("execution_count") is None, f"{path.name} cell {number} has an execution count"
        assert "attachments" not in cell or not cell["attachments"], f"{path.name} cell {number} has attachments"
    assert notebook["metadata"].get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernel is not python3"

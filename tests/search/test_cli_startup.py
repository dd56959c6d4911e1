"""A CLI call does not load the world (issue 50): ``import kgtoolkit.cli``, ``kgtoolkit --help`` and a small
read load none of the heavy libraries; each command loads what it uses when it runs.

Each check runs in a fresh interpreter (a subprocess importing this checkout), because this test process has
loaded them all already. The checks assert which modules are loaded, never how long anything takes (the figures
are in benchmarks/bench_cli_startup.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kgtoolkit

ROOT = Path(kgtoolkit.__file__).parent.parent

#: Libraries that cost a noticeable part of a second to import, none of which a CLI start needs.
HEAVY = (
    "pyarrow",
    "polars",
    "numpy",
    "pandas",
    "torch",
    "transformers",
    "sentence_transformers",
    "onnxruntime",
    "tokenizers",
    "faiss",
    "streamlit",
    "mcp",
    "adbc_driver_sqlite",
)


def _loaded_after(code: str) -> list[str]:
    """The heavy libraries in ``sys.modules`` after running ``code`` in a fresh interpreter on this checkout."""
    return _probe(code)[0]


def _probe(code: str) -> tuple[list[str], str]:
    """What ``code`` printed, and the heavy libraries in ``sys.modules`` after it ran (a fresh interpreter)."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json as _json, sys as _sys
        _sys.__stdout__.write(
            "\\nHEAVY=" + _json.dumps(sorted(m for m in {HEAVY!r} if m in _sys.modules)) + "\\n"
        )
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    line = [row for row in done.stdout.splitlines() if row.startswith("HEAVY=")]
    assert line, done.stdout + done.stderr
    loaded: list[str] = json.loads(line[-1].removeprefix("HEAVY="))
    return loaded, done.stdout.rsplit("\nHEAVY=", 1)[0]


def _run_cli(*args: str) -> str:
    """Code that runs the CLI on ``args`` in-process (as ``python -m kgtoolkit`` does) and survives its exit."""
    return f"""
        import sys
        from kgtoolkit.cli import main
        sys.argv = ["kgtoolkit", *{list(args)!r}]
        try:
            main()
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        """


def test_the_checkout_is_the_one_imported() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import kgtoolkit; print(kgtoolkit.__file__)"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        check=True,
    )
    assert Path(done.stdout.strip()).parent.parent == ROOT


def test_importing_the_cli_loads_no_heavy_library() -> None:
    assert _loaded_after("import kgtoolkit.cli") == []


def test_importing_the_library_loads_no_heavy_library() -> None:
    assert _loaded_after("import kgtoolkit, kgtoolkit.search") == []


def test_help_loads_no_heavy_library() -> None:
    assert _loaded_after(_run_cli("--help")) == []
    assert _loaded_after(_run_cli("forecast", "--help")) == []
    assert _loaded_after(_run_cli("find", "--help")) == []


def test_a_small_read_loads_no_heavy_library(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path, create=True) as kg:
        kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    assert _loaded_after(_run_cli("--db", str(db_path), "query", "my_api", "--json")) == []


def test_a_lexical_find_loads_no_model_runtime(db_path: Path | str) -> None:
    with kgtoolkit.open(db_path, create=True) as kg:
        kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
    loaded, printed = _probe(_run_cli("--db", str(db_path), "find", "queue", "--mode", "lexical", "--json"))
    assert loaded == []
    with kgtoolkit.open(db_path) as kg:
        from kgtoolkit.search import find

        expected = [hit.fact.id for hit in find(kg, "queue", mode="lexical").hits]
    assert len(expected) == 1
    assert [hit["fact"]["id"] for hit in json.loads(printed)["hits"]] == expected


def test_a_command_loads_what_it_uses_when_it_runs(tmp_path: Path) -> None:
    # forecast's library needs numpy and polars: loaded by the command itself, and the answer is right.
    db = tmp_path / "events.sqlite3"
    with kgtoolkit.open(db, create=True) as kg:
        for day in range(1, 9):  # events: a fact that holds on one day
            kg.add("Ana", "meets", "Bo" if day % 2 else "Cy", valid_from=f"2026-01-0{day}", valid_to=f"2026-01-0{day}")
    code = _run_cli("--db", str(db), "forecast", "predict", "Ana", "meets", "--json")
    loaded, printed = _probe(code)
    assert {"numpy", "polars"} <= set(loaded)
    with kgtoolkit.open(db) as kg:
        from kgtoolkit import forecast

        expected = forecast.latest(kg).predict(kg.resolve("Ana"), kg.resolve_predicate("meets"), top=10)
    assert expected
    assert json.loads(printed)["predictions"] == [p.to_dict() for p in expected]


@pytest.mark.parametrize("module", ["kgtoolkit.forecast", "kgtoolkit.frames"])
def test_the_modules_that_need_them_still_load_them(module: str) -> None:
    assert "polars" in _loaded_after(f"import {module}")

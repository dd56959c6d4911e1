"""Running the ``kgtoolkit`` command line in tests: a command that must succeed, or fail with a code."""

from __future__ import annotations

import datetime as dt
import json
import re
import traceback
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kgtoolkit.cli import app
from kgtoolkit.store import resolve

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
runner = CliRunner()


def _clean(text: str) -> str:
    return _ANSI.sub("", text)


def _invoke(args: tuple[Any, ...], input: str | None = None, env: dict[str, str] | None = None):
    return runner.invoke(app, [str(a) for a in args], input=input, env=env)


def _explain(args: tuple[Any, ...], result: Any) -> str:
    tb = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    return (
        f"kgtoolkit {' '.join(map(str, args))} -> exit {result.exit_code}\n--- stdout\n{result.stdout}"
        f"\n--- stderr\n{result.stderr}\n--- exception {result.exception!r}\n{tb}"
    )


def ok(*args: Any, input: str | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command that must succeed; its stdout."""
    result = _invoke(args, input, env)
    assert result.exit_code == 0 and result.exception is None, _explain(args, result)
    return _clean(result.stdout)


def ok_json(*args: Any, **kwargs: Any) -> Any:
    return json.loads(ok(*args, **kwargs))


def fails(*args: Any, code: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command that must fail with error ``code``; the message (whitespace collapsed)."""
    result = _invoke(args, input, env)
    assert result.exit_code == 1, _explain(args, result)
    # An unhandled exception also exits 1 under CliRunner: insist on the clean typer.Exit(1).
    assert isinstance(result.exception, SystemExit), _explain(args, result)
    assert "Traceback" not in result.output, _explain(args, result)
    assert result.stdout == "", _explain(args, result)
    stderr = " ".join(_clean(result.stderr).split())
    match = re.fullmatch(r"error \[([a-z_]+)\] (.+)", stderr)
    assert match, _explain(args, result)
    assert match.group(1) == code, _explain(args, result)
    return match.group(2)


def shown(db: Path | str) -> str:
    """How the CLI names a graph: the file, or the PostgreSQL URL with its password masked."""
    return str(resolve(db))


def password_of(db: Path | str) -> str | None:
    """The password in a PostgreSQL URL (None for a file), to check that no output shows it."""
    return urllib.parse.urlsplit(db).password if isinstance(db, str) else None


Dump = Callable[[Path | str], list[str]]


def rows(table_text: str) -> list[list[str]]:
    """The cells of a rich table's lines, split on whitespace (box characters dropped)."""
    out = []
    for line in table_text.splitlines():
        cells = line.replace("│", " ").replace("┃", " ").split()
        if cells:
            out.append(cells)
    return out


def row_with(table_text: str, *cells: str) -> list[str]:
    """The one table row holding all of ``cells``."""
    found = [r for r in rows(table_text) if all(c in r for c in cells)]
    if len(found) > 1:  # a title line may name it too: keep the data rows (they start with the fact id)
        found = [r for r in found if r[0].isdigit()]
    assert len(found) == 1, f"expected one row with {cells} in:\n{table_text}"
    return found[0]


def today_utc() -> set[str]:
    """Today's UTC date (and, a few seconds after midnight, yesterday's: the command ran just before)."""
    now = dt.datetime.now(dt.UTC)
    return {now.date().isoformat(), (now - dt.timedelta(seconds=5)).date().isoformat()}


FACT_KEYS = {
    "id",
    "subject",
    "subject_name",
    "predicate",
    "object",
    "object_name",
    "object_is_value",
    "valid_from",
    "valid_to",
    "confidence",
    "source",
    "source_closet",
    "recorded_at",
    "invalidated_at",
    "ended_by",
    "direction",
    "kind",
    "occurrence",
    "current",
    "state",
}

"""Which format a file is in (its suffix, or ``format=``), and the file an import reads."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .._errors import InvalidRequest, NotFound
from ..store import is_sqlite_file

Progress = Callable[[int, int], None]


FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet", "json", "sqlite")
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".txt": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".json": "json",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
    ".db": "sqlite",
}
_SYNONYMS = {"ndjson": "jsonl", "txt": "tsv", "tab": "tsv", "pq": "parquet", "sqlite3": "sqlite", "db": "sqlite"}


def _format(path: Path, format: str | None, *, allowed: tuple[str, ...], purpose: str) -> str:
    if format is not None:
        fmt = _SYNONYMS.get(str(format).lower(), str(format).lower())
        if fmt not in FORMATS:
            raise InvalidRequest(
                f"unknown format {format!r}; choose one of {', '.join(FORMATS)}", field="format", value=str(format)
            )
    else:
        fmt = _SUFFIXES.get(path.suffix.lower(), "")
        if not fmt and purpose == "import" and is_sqlite_file(path):
            fmt = "sqlite"
        if not fmt:
            raise InvalidRequest(
                f"cannot tell the format of {path.name} from its suffix; name it .csv, .tsv, .jsonl, "
                f".parquet or .json, or pass format= ({', '.join(allowed)})",
                field="format",
                value=path.suffix,
            )
    if fmt not in allowed:
        raise InvalidRequest(
            f"{purpose} does not handle the {fmt} format; it handles {', '.join(allowed)}", field="format", value=fmt
        )
    return fmt


def _existing(path: str | os.PathLike[str]) -> Path:
    file = Path(path).expanduser()
    if not file.is_file():
        raise NotFound(f"no file at {file}", field="path", value=str(file))
    return file

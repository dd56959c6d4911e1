"""Which format a file is in (its suffix, or ``format=``), and the file an import reads."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


#: A compressed file, by its last suffix: the format is the suffix before it (``facts.tsv.gz``). Read and written with
#: pyarrow's codecs (gzip, bz2 and zstd are in every pyarrow wheel).
COMPRESSIONS: dict[str, str] = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}


def _compression(path: Path) -> str | None:
    """The codec of a compressed file by its suffix (``gzip``, ``bz2``, ``zstd``), or None."""
    return COMPRESSIONS.get(path.suffix.lower())


def _format(path: Path, format: str | None, *, allowed: tuple[str, ...], purpose: str) -> str:
    """The format of ``path``: ``format`` if given, else from its suffix (a compression suffix looked past)."""
    codec = _compression(path)
    inner = path.with_suffix("") if codec else path  # facts.tsv.gz is a TSV file
    if format is not None:
        fmt = _SYNONYMS.get(str(format).lower(), str(format).lower())
        if fmt not in FORMATS:
            raise InvalidRequest(
                f"unknown format {format!r}; choose one of {', '.join(FORMATS)}", field="format", value=str(format)
            )
    else:
        fmt = _SUFFIXES.get(inner.suffix.lower(), "")
        if not fmt and not codec and purpose == "import" and is_sqlite_file(path):
            fmt = "sqlite"
        if not fmt:
            raise InvalidRequest(
                f"cannot tell the format of {path.name} from its suffix; name it .csv, .tsv, .jsonl, .parquet or "
                f".json (compressed: add .gz, .bz2 or .zst), or give format=NAME (one of {', '.join(allowed)})",
                field="format",
                value=inner.suffix or path.suffix,
            )
    if fmt not in allowed:
        raise InvalidRequest(
            f"{purpose} does not handle the {fmt} format; it handles {', '.join(allowed)}", field="format", value=fmt
        )
    return fmt


@contextmanager
def _decompressed(file: Path) -> Iterator[Path]:
    """``file`` itself, or for a compressed one (:data:`COMPRESSIONS`) its content decompressed into a temporary
    file of the same name without the compression suffix, removed afterwards: every reader then reads it as any
    file (in batches, with its line numbers)."""
    codec = _compression(file)
    if codec is None:
        yield file
        return
    import pyarrow as pa

    with tempfile.TemporaryDirectory(prefix="kgtoolkit-import-") as folder:
        plain = Path(folder) / file.with_suffix("").name
        try:
            with pa.input_stream(str(file), compression=codec) as source, plain.open("wb") as target:
                shutil.copyfileobj(source, target, 2**20)
        except (OSError, pa.ArrowException) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InvalidRequest(
                f"cannot read {file} as {codec}-compressed: {first}", field="path", value=str(file)
            ) from exc
        yield plain


def _compressing(codec: str | None, write: Callable[[Path], None]) -> Callable[[Path], None]:
    """``write`` (to a path), compressed with ``codec`` when there is one."""
    if codec is None:
        return write

    def compressed(tmp: Path) -> None:
        import pyarrow as pa

        plain = tmp.with_name(tmp.name + ".plain")
        try:
            write(plain)
            with plain.open("rb") as source, pa.output_stream(str(tmp), compression=codec) as target:
                shutil.copyfileobj(source, target, 2**20)
        finally:
            plain.unlink(missing_ok=True)

    return compressed


def _existing(path: str | os.PathLike[str]) -> Path:
    file = Path(path).expanduser()
    if not file.is_file():
        raise NotFound(f"no file at {file}", field="path", value=str(file))
    return file

"""The rejects file: an import run so that its bad rows (or a dump's problems) are written as CSV, escaped
against formulas, whether it succeeds or refuses; the file's folder is checked before anything is imported."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InvalidRequest
from ..store import ImportReport, InvalidRows
from ._export import _atomic, _escape_formulas
from ._read import MALFORMED

if TYPE_CHECKING:
    import polars as pl


_REJECT_COLUMNS = ("line", "field", "value", "code", "reason")


def _guarded(
    run: Callable[[], tuple[ImportReport, pl.DataFrame]],
    frame: pl.DataFrame | None,
    rejects: str | os.PathLike[str] | None,
) -> ImportReport:
    """Run an import, writing the rejects file (when asked) whether it succeeds or refuses.

    The rejects file's folder is checked first: an import must not commit and then report failure. ``frame``: the
    rows read, whose fields the rejects file repeats; None when the import returns its rejects with their fields
    (an import in batches).
    """
    import polars as pl

    if rejects is not None:
        _check_writable(Path(rejects))
    try:
        report, bad = run()
    except InvalidRows as exc:
        if rejects is not None:
            schema = {"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String, "reason": pl.String}
            found = getattr(exc, "rejected_rows", None)
            rows = found if found is not None else pl.DataFrame(exc.data.get("rows", []), schema=schema)
            _write_rejects(Path(rejects), rows, frame)
        raise
    if rejects is not None:
        _write_rejects(Path(rejects), bad, frame)
    return report


def _check_writable(target: Path) -> None:
    """Refuse, before any work, a rejects file whose folder cannot be written."""
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".check"):
            pass
    except OSError as exc:
        raise InvalidRequest(
            f"cannot write the rejects file {target}: {exc.strerror or exc}; choose another path "
            "(nothing was imported)",
            field="rejects",
            value=str(target),
        ) from exc


def _write_rejects(target: Path, bad: pl.DataFrame | None, frame: pl.DataFrame | None) -> None:
    """The rejected rows as CSV: ``line, field, value, code, reason``, then the row's own fields (a dump's
    problems: ``line, record, field, value, code, reason``)."""
    import polars as pl

    if bad is None:
        bad = pl.DataFrame(
            schema={"line": pl.Int64, "field": pl.String, "value": pl.String, "code": pl.String, "reason": pl.String}
        )
    fixed = ["line", *(["record"] if "record" in bad.columns else []), *_REJECT_COLUMNS[1:]]
    out = bad.select(*fixed, *([c for c in bad.columns if c not in fixed] if frame is None else []))
    if frame is not None:
        fields = frame.select(
            "line", *[pl.col(c).cast(pl.String) for c in frame.columns if c not in ("line", MALFORMED)]
        )
        out = out.join(fields, on="line", how="left", suffix="_row")
    out = _escape_formulas(out)  # the bad rows are meant to be opened in a spreadsheet
    _atomic(target, lambda tmp: out.write_csv(tmp))

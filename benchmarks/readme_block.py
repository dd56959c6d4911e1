"""The tables a benchmark writes into ``benchmarks/README.md``: between two markers of its own, replaced in
place on every ``--readme`` run, so the prose around them stays as written."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_block"]


def write_block(readme: Path, name: str, text: str, *, heading: str | None = None) -> None:
    """Put ``text`` between ``<!-- name:begin -->`` and ``<!-- name:end -->`` in ``readme``; when the markers are
    not there yet, append the block at the end (under a ``## heading`` when given)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    current = readme.read_text()
    block = f"{begin}\n{text}\n{end}"
    if begin in current and end in current:
        before, rest = current.split(begin, 1)
        readme.write_text(before + block + rest.split(end, 1)[1])
    else:
        title = f"## {heading}\n\n" if heading else ""
        readme.write_text(current.rstrip() + "\n\n" + title + block + "\n")

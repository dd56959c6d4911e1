"""A griffe extension for the API reference: docstrings written for Python's help() read well as Markdown.

Two changes, to each docstring as it is loaded: a run of doctest lines (``>>>`` and its output) outside a
numpydoc ``Examples`` section is fenced as a ``pycon`` block, so its brackets are not read as Markdown links;
and a Sphinx role (``:class:`~kgtoolkit.NotFound```) becomes a code span (`NotFound`).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLES = re.compile(r"^[ \t]*Examples[ \t]*\n[ \t]*-{3,}[ \t]*$", re.M)
_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|const):`~?([^`]+)`")


def _fence(text: str) -> str:
    """Fence each run of doctest lines (a ``>>>`` line and the lines up to the next blank one)."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(">>>"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _role(match: re.Match[str]) -> str:
    """A Sphinx role as a code span: ``~a.b.C`` shows ``C``, ``a.b.C`` shows it whole."""
    whole = match.group(0)
    target = match.group(1)
    return f"`{target.rsplit('.', 1)[-1] if ':`~' in whole else target}`"


def markdown(text: str) -> str:
    """The docstring ``text`` with its doctests fenced (outside an Examples section) and its roles as code."""
    text = _ROLE.sub(_role, text)
    found = _EXAMPLES.search(text)
    if found is None:
        return _fence(text)
    return _fence(text[: found.start()]) + text[found.start() :]


class DoctestsAsCode(griffe.Extension):
    """Rewrite every loaded docstring with :func:`markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

"""The ``kgtoolkit`` command: a thin layer over the library, one command per operation.

Tables by default, ``--json`` for programs; errors print their code and message (no traceback)
and exit with status 1.

The package, by concern (each command module registers its commands on :data:`app` when imported here):

- :mod:`._common`: the Typer app, the global and shared options, and :func:`~._common.command`, the one
  runner that opens the graph, calls the body and renders its answer (``--json`` or a table);
- :mod:`._render`: the consoles, JSON output, the tables of facts and the words that count;
- :mod:`.facts` (add, invalidate, supersede, supersede-holder, remember, query, search, timeline, conflicts),
  :mod:`.entities` (merge, alias, aliases), :mod:`.predicates` (alias-predicate, rename-predicate,
  predicates), :mod:`.admin` (config, stats, summary, where), :mod:`.cleanup` (duplicates, not-duplicate,
  check), :mod:`.traversal` (neighbors, path, follow, diff), :mod:`.transfer` (import, export, copy,
  report, generate, demo), :mod:`.retrieval` (index, find), :mod:`.serve` (tool, mcp, dashboard) and
  :mod:`.forecast` (the group ``forecast``: evaluate, predict).

Every action of the agent tool has a command of the same name (``alias_predicate`` → ``alias-predicate``)
taking each of its parameters; ``tests/doors/test_cli_parity.py`` proves it, parameter by parameter, with the few
other spellings in a table, each with its reason.
"""

from __future__ import annotations

from . import admin, cleanup, entities, facts, forecast, predicates, retrieval, serve, transfer, traversal
from ._common import app
from ._common import progress_lines as _progress_lines  # noqa: F401 (the name tests/doors/test_cli.py imports)

__all__ = ["app", "main"]

_MODULES = (facts, entities, predicates, admin, cleanup, traversal, transfer, retrieval, serve, forecast)

#: The order ``kgtoolkit --help`` lists the commands in (the order they were first written in); a command
#: missing here is listed last.
HELP_ORDER = (
    "add",
    "invalidate",
    "supersede",
    "supersede-holder",
    "remember",
    "merge",
    "alias",
    "aliases",
    "alias-predicate",
    "rename-predicate",
    "predicates",
    "config",
    "query",
    "search",
    "timeline",
    "stats",
    "conflicts",
    "summary",
    "tool",
    "import",
    "export",
    "copy",
    "report",
    "generate",
    "mcp",
    "dashboard",
    "index",
    "find",
    "where",
    "demo",
    "duplicates",
    "not-duplicate",
    "check",
    "neighbors",
    "path",
    "follow",
    "diff",
    "forecast",
)
app.registered_commands.sort(key=lambda c: HELP_ORDER.index(c.name) if c.name in HELP_ORDER else len(HELP_ORDER))


def main() -> None:
    """Entry point of the ``kgtoolkit`` script."""
    app()


if __name__ == "__main__":
    main()

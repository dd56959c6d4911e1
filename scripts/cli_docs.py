"""Write docs/cli.md, the CLI reference, from the ``--help`` of ``kgtoolkit`` and of each of its commands.

    python scripts/cli_docs.py            # rewrite docs/cli.md
    python scripts/cli_docs.py --check    # exit 1 if docs/cli.md is not what this would write

The help is Click's plain text (Typer's rich panels off, 100 columns), so the page is the same on every
machine. ``tests/meta/test_site.py`` runs ``--check``: change a command's help, then run this script.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["TYPER_USE_RICH"] = "0"  # read when Typer is imported: plain help, no boxes, no colours

import typer.core
import typer.main
from typer import _click as click  # Typer's own Click: its commands are of these classes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kgtoolkit.cli import app  # noqa: E402

PAGE = ROOT / "docs" / "cli.md"
WIDTH = 100

HEADER = """# CLI reference

Every command's `--help`, as `kgtoolkit COMMAND --help` prints it. The guide to the commands, with examples,
is [Commands](commands.md).

<!-- Written by scripts/cli_docs.py from the commands' help: do not edit by hand. -->
"""


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    """The plain ``--help`` text of ``command`` invoked as ``name``."""
    ctx = click.Context(command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH)
    return command.get_help(ctx).rstrip()


def render() -> str:
    """The whole page: the top-level help, then one section per command in the order ``--help`` lists them."""
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    root_ctx = click.Context(root, info_name="kgtoolkit", terminal_width=WIDTH, max_content_width=WIDTH)
    parts = [HEADER, "## kgtoolkit\n", "```text", _help(root, "kgtoolkit", None), "```\n"]
    for name in root.list_commands(root_ctx):
        command = root.get_command(root_ctx, name)
        if command is None or command.hidden:
            continue
        parts += [f"## kgtoolkit {name}\n", "```text", _help(command, name, root_ctx), "```\n"]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    """Write the page, or with ``--check`` say whether it is up to date."""
    text = render()
    if "--check" in argv:
        if PAGE.exists() and PAGE.read_text(encoding="utf-8") == text:
            return 0
        print(f"{PAGE.relative_to(ROOT)} is out of date: run python scripts/cli_docs.py", file=sys.stderr)
        return 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

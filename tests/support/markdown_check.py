"""Markdown as a reader renders it (CommonMark, with tables and strikethrough): the markup a summary's stored
text would form. Shared by tests/prompt/test_prompt_summary.py and benchmarks/bench_screen.py."""

from __future__ import annotations

from markdown_it import MarkdownIt

__all__ = ["headings", "live_markup"]

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_LIVE = {"link_open", "image", "html_inline", "html_block", "table_open", "hr"}
_EMPHASIS = {"em_open", "strong_open", "s_open"}  # ours only in the closing lines, never in a fact's line or heading


def live_markup(markdown: str) -> list[str]:
    """The tokens of ``markdown`` that render as markup no summary line of ours makes (links, images, HTML, …)."""
    found: list[str] = []
    nested = 0  # inside a list item or a heading: a fact's line or an entity's name
    for token in _MD.parse(markdown):
        nested += {"list_item_open": 1, "heading_open": 1, "list_item_close": -1, "heading_close": -1}.get(
            token.type, 0
        )
        live = _LIVE | (_EMPHASIS if nested else set())
        found += [token.type] if token.type in live else []
        found += [child.type for child in token.children or () if child.type in live]
    return found


def headings(markdown: str) -> int:
    """How many headings ``markdown`` renders."""
    return sum(t.type == "heading_open" for t in _MD.parse(markdown))

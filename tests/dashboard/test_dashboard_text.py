"""Stored text stays inert on the dashboard (issue 16): the escaping (kgtoolkit/dashboard/_text.py) and every page.

The escaping is checked three ways for any text (Hypothesis): read back it is the text; a CommonMark
parser (markdown-it-py, which rich brings) finds only text and line breaks in it, never a link, image,
emphasis, code or HTML; and none of the patterns Streamlit's frontend and GFM rewrite (in the Markdown
source, or in the parsed text: ``:material/``, emoji shortcodes, ``$…$``, web and e-mail addresses,
``->``…) is left in it. Then every page runs under AppTest on a graph whose every text is hostile
(tests/support/hostile_graph.py): no Markdown the pages send holds a payload unescaped, and the Entity and
Conflicts pages send the escaped forms. tests/dashboard/test_dashboard_hostile.py renders the same graph in Chromium.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import hostile_graph as hostile
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kgtoolkit.dashboard._text import WORD_JOINER, html_text, md_code, md_text, plain

PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
TOKENS = [
    "![",
    "](",
    "<img ",
    "<script>",
    "</",
    "javascript:",
    "http://",
    "HTTPS://",
    "www.",
    "a@b.example",
    ":red[",
    ":material/",
    ":material_",
    ":streamlit:",
    ":smile:",
    "$",
    "$$",
    "\\href{",
    "->",
    "<-",
    "<->",
    "--",
    ">=",
    "<=",
    "~=",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "    ",
    "x",
    "é",
    "\u00a0",
    "&amp;",
    "&#58;",
    "\\",
    "1.",
    "#",
    ">",
    "|",
    "---",
    "===",
    "```",
    "~~",
    "**",
    "__",
    "`",
    "[^1]",
    "<!--",
    "{",
    "::",
    ":::",
]
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

texts = st.one_of(
    st.lists(st.sampled_from(TOKENS + list(PUNCTUATION) + list("ab09_")), max_size=40).map("".join),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
)
# A CommonMark parser's view: no control characters other than tab and line feed (the store refuses them
# anyway; CommonMark itself turns NUL into U+FFFD), no carriage returns (md_text makes them line feeds).
printable = st.one_of(
    st.lists(st.sampled_from(TOKENS + list(PUNCTUATION) + list("ab09_")), max_size=40).map("".join),
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\t\n"), max_size=60),
)

COMMONMARK = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def as_typed(text: str) -> str:
    """What md_text promises to show: the text, line breaks as \\n, none at the ends."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")


# ---------------------------------------------------------------------- md_text


@given(texts)
@example(hostile.LONG)
@example("x\\")
@example("\\\n")
@example("a\u2060b http://x")  # a word joiner of the text's own survives
def test_escaped_text_reads_back_as_the_text(text: str) -> None:
    assert plain(md_text(text)) == as_typed(text)


@given(texts)
@settings(max_examples=300)
@example(hostile.IMAGE)
@example(hostile.MEMORY)
@example("[a]: http://198.51.100.7")
def test_escaped_text_has_no_markup_left(text: str) -> None:
    """Every ASCII punctuation character is escaped or a character reference; nothing Streamlit scans
    the source for (``:``, ``$``), nothing HTML acts on (``< > " '``, a bare ``&``)."""
    out = md_text(text)
    bare = re.sub(r"\\[!-/:-@\[-`{-~]|\\\n|&(?:amp|lt|gt|quot|#x27|#[0-9]+);", "", out)
    assert not set(bare) & set(PUNCTUATION), (text, out, bare)  # so no unescaped "![", "[", "<", "`", "*"…


@given(printable)
@settings(max_examples=300)
@example(hostile.MEMORY)
@example("   indented\n    code")
@example("a  \n  b  ")
@example("\u2060 -> \u2060")
@example("**x** _y_ `z` <b>w</b> [l](http://e) ![i](http://e/i.png)")
def test_commonmark_finds_only_text(text: str) -> None:
    """Parsed as CommonMark (with GFM tables and strikethrough), the escaped text is one paragraph of
    plain text and hard line breaks, and its text is the text as typed."""
    tokens = COMMONMARK.parse(md_text(text))
    if not as_typed(text):
        assert tokens == []
        return
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], (text, tokens)
    children = tokens[1].children or []
    assert {c.type for c in children} <= {"text", "hardbreak"}, (text, [c.type for c in children])
    shown = "".join("\n" if c.type == "hardbreak" else c.content for c in children)
    assert shown.replace(WORD_JOINER, "") == as_typed(text).replace(WORD_JOINER, "")  # the joiners show as nothing


# What Streamlit's frontend (1.5x/1.6x StreamlitMarkdown) and GFM rewrite in the text of a parsed
# Markdown text node, in JavaScript's terms (\w is ASCII there). A text node ends at a hard break.
TEXT_REWRITES = {
    "material icon": re.compile(r":material_(\w+):", re.ASCII),
    "streamlit logo": re.compile(r":streamlit:"),
    "emoji": re.compile(r":\+1:|:-1:|:[\w-]+:", re.ASCII),
    "autolink": re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.ASCII | re.IGNORECASE),
    "e-mail autolink": re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII),
    "typography": re.compile(rf"(^|[{JS_SPACE}])(<->|->|<-|--|>=|<=|~=)([{JS_SPACE}]|$)"),
}


@given(texts)
@settings(max_examples=300)
@example(hostile.DIRECTIVES + " :smile: :streamlit: :material_home: a -> b -- c")
@example("mail dana@acme.example or see http://198.51.100.7 and www.example.com")
def test_nothing_streamlit_rewrites_is_left(text: str) -> None:
    out = md_text(text)
    # In the source: Streamlit rewrites ":material/", looks for emoji shortcodes and $…$ before parsing.
    assert ":" not in out and "$" not in out
    # In the parsed text (character references and escapes decoded; the word joiners kept):
    for line in plain(out, joiners=True).split("\n"):
        for name, pattern in TEXT_REWRITES.items():
            assert not pattern.search(line), (name, text, line)


def test_the_payloads_escape_as_documented() -> None:
    assert md_text(hostile.IMAGE) == "\\!\\[t\\]\\(http\u2060&#58;\\/\\/198\\.51\\.100\\.7\\/name\\.png\\)"
    assert md_text(hostile.SCRIPT) == "&lt;script&gt;alert\\(1\\)&lt;\\/script&gt;"
    assert md_text(hostile.DIRECTIVES) == "&#58;red\\[red\\] &#58;material\\/warning&#58;"
    assert md_text(hostile.MATH) == "&#36;\\\\href\\{http\u2060&#58;\\/\\/198\\.51\\.100\\.7\\}\\{x\\}&#36;"
    assert md_text("My API") == "My API" and md_text(None) == ""
    assert html_text(hostile.IMG_TAG) == "&lt;img src=http://198.51.100.7/x.png onerror=alert(1)&gt;"


@given(printable)
@example("`a`")
@example(" x ")
@example(":material/warning:")
def test_a_code_span_holds_the_text_as_typed(text: str) -> None:
    tokens = COMMONMARK.parse(md_code(text))
    if "\n" in text or ":material/" in text or not text.strip():
        assert md_code(text) == md_text(text)  # no code span can hold these as typed
        return
    children = tokens[1].children
    assert [c.type for c in children] == ["code_inline"] and children[0].content == text, (text, md_code(text))


# ---------------------------------------------------------------------- every page, on the hostile graph

pytest.importorskip("streamlit")
pytest.importorskip("pyvis")
from streamlit.testing.v1 import AppTest

from kgtoolkit import dashboard

PAGES = ["graph", "entity", "conflicts", "cleanup", "churn", "search", "import_export"]
FOOTER = "kgtoolkit dashboard"
# Elements whose text Streamlit renders as Markdown (bodies, and widget labels).
MARKDOWN_BODIES = (
    "markdown",
    "caption",
    "title",
    "header",
    "subheader",
    "info",
    "warning",
    "error",
    "success",
    "exception",
    "toast",
)
LABELLED = (
    "expander",
    "tab",
    "metric",
    "button",
    "download_button",
    "toggle",
    "checkbox",
    "radio",
    "selectbox",
    "multiselect",
    "text_input",
    "number_input",
    "date_input",
    "slider",
    "file_uploader",
    "status",
)
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("hostile") / "hostile.sqlite3"
    return path, hostile.build_hostile(path)


def _app(monkeypatch: pytest.MonkeyPatch, db: Path, **state: object) -> AppTest:
    monkeypatch.setenv("KGTOOLKIT_DB", str(db))
    monkeypatch.setenv("KGTOOLKIT_DASHBOARD_READ_ONLY", "0")
    at = AppTest.from_file(str(dashboard.SCRIPT), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _open(at: AppTest, page: str) -> AppTest:
    at.run()
    if page != "graph":
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(c.value.startswith(FOOTER) and f"· {page.replace('_', '-')} ·" in c.value for c in at.caption)
    return at


def _markdown_sent(at: AppTest) -> list[str]:
    """Every text of this run that the browser renders as Markdown: bodies, labels, metric values, help."""
    sent: list[str] = []
    for kind in MARKDOWN_BODIES:
        sent += [e.value for e in at.get(kind) if isinstance(getattr(e, "value", None), str)]
    for kind in LABELLED:
        for e in at.get(kind):
            sent += [v for v in (getattr(e, "label", None), getattr(e, "help", None)) if isinstance(v, str)]
            if kind == "metric":
                sent += [v for v in (e.value, e.delta) if isinstance(v, str)]
    return sent


def _assert_inert(at: AppTest) -> list[str]:
    sent = _markdown_sent(at)
    assert sent
    for text in sent:
        outside_code = CODE_SPAN.sub("", text)  # a code span shows its text as typed (md_code)
        for marker in hostile.RAW_MARKERS:
            assert marker not in outside_code, (marker, text)
    return sent


@pytest.mark.parametrize("page", PAGES)
def test_every_page_sends_stored_text_escaped(monkeypatch: pytest.MonkeyPatch, hostile_db, page: str) -> None:
    db, ids = hostile_db
    for name in hostile.NAMES:
        for all_time in (False, True):
            at = _open(_app(monkeypatch, db, entity=ids[f"id:{name}"], all_time=all_time), page)
            _assert_inert(at)
        if page in ("churn", "cleanup", "import_export", "search"):
            break  # these pages do not depend on the chosen entity


def test_the_merge_question_sends_the_names_escaped(monkeypatch: pytest.MonkeyPatch, hostile_db) -> None:
    """Merge asks first, naming both sides: hostile names stay text there too."""
    db, _ = hostile_db
    at = _open(_app(monkeypatch, db, cleanup_min_score=0.5), "cleanup")
    merges = [b.key for b in at.button if b.key.startswith("cleanup_merge_")]
    assert len(merges) >= 2
    for key in merges:
        at.button(key=key).click().run()
        assert len(at.warning) == 1 and at.warning[0].value.startswith("Merge ")
        sent = _assert_inert(at)
        assert at.warning[0].value in sent
        at.button(key=key.replace("cleanup_merge_", "cleanup_cancel_")).click().run()


def test_the_entity_page_shows_the_escaped_forms(monkeypatch: pytest.MonkeyPatch, hostile_db) -> None:
    db, ids = hostile_db
    at = _open(_app(monkeypatch, db, entity=ids[f"id:{hostile.IMAGE}"], all_time=True), "entity")
    assert [s.value for s in at.subheader] == [md_text(hostile.IMAGE)]
    sent = _assert_inert(at)
    assert any(md_code(hostile.ALIASES[hostile.IMAGE]) in text for text in sent)  # the alias, in a code span
    assert f"> {md_text(hostile.MEMORY)}" in sent  # the evidence: the memory's text
    assert any(md_text(hostile.SOURCE) in text for text in sent)
    at = _open(_app(monkeypatch, db, entity=ids[f"id:{hostile.LINK}"], all_time=True), "entity")
    assert [m.value for m in at.metric if m.label == "Type"] == [md_text(hostile.TYPE.replace(" ", "_"))]


def test_the_conflicts_page_shows_the_escaped_forms(monkeypatch: pytest.MonkeyPatch, hostile_db) -> None:
    db, _ = hostile_db
    at = _open(_app(monkeypatch, db), "conflicts")
    labels = [e.label for e in at.expander]
    assert any(f"**{md_text(hostile.IMAGE)}** → uses\\_queue" in label for label in labels), labels
    sent = _assert_inert(at)
    assert any(md_text(hostile.IMG_TAG) in text and md_text(hostile.SCRIPT) in text for text in sent)  # current objects
    assert any(md_text(hostile.MULTI) in text for text in sent)  # the multi-valued predicates left out


def test_the_graph_page_shows_the_escaped_forms(monkeypatch: pytest.MonkeyPatch, hostile_db) -> None:
    db, ids = hostile_db
    at = _open(_app(monkeypatch, db, entity=ids[f"id:{hostile.IMAGE}"], all_time=True), "graph")
    assert any(f"around **{md_text(hostile.IMAGE)}**" in m.value for m in at.markdown)
    view = at.session_state["graph_view"]
    assert {n.label for n in view.nodes} >= {hostile.IMAGE, hostile.IMG_TAG, hostile.SCRIPT}  # the data stays as typed
    _assert_inert(at)


@pytest.mark.parametrize("module", ["faiss", "sentence_transformers"])
def test_the_search_page_without_search_is_inert(monkeypatch: pytest.MonkeyPatch, hostile_db, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    _assert_inert(_open(_app(monkeypatch, hostile_db[0]), "search"))


@pytest.mark.search_extra
def test_search_results_are_inert(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kgtoolkit import search

    db = tmp_path / "hostile.sqlite3"
    hostile.build_hostile(db)
    at = _open(_app(monkeypatch, db), "search")
    assert any("not indexed yet" in i.value for i in at.info)
    _assert_inert(at)
    import kgtoolkit

    with kgtoolkit.open(db) as kg:
        search.index(kg)
    at = _open(_app(monkeypatch, db, search_query="Evidence image script alert", search_k=20), "search")
    sent = _assert_inert(at)
    assert any(md_text(hostile.MEMORY) in text for text in sent)  # the memory hit, escaped
    assert any(md_text(hostile.IMAGE) in text for text in sent)  # a fact hit's subject, escaped

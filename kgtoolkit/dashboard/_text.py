r"""Stored text, shown as text: the one place the dashboard escapes what facts, aliases and memories say.

Facts are written by agents, imports and people, so a name, alias, predicate, value, source or memory
may hold Markdown or HTML meant to act when it is shown: ``![t](http://198.51.100.7/x.png)`` makes a
browser fetch an image from an outside host, ``<img src=… onerror=…>`` runs script, ``$\href{…}{x}$``
is a KaTeX link, ``:red[…]`` and ``:material/…:`` are Streamlit's colours and icons. Streamlit renders
Markdown in ``st.markdown`` and ``st.caption`` but also in titles, alerts, and in every widget label
(expanders, tabs, buttons, metric labels *and values*), where links and images work too. Every stored
string the dashboard puts into one of those goes through :func:`md_text` first; the few places built as
HTML use :func:`html_text`. Dataframe cells, selectbox and multiselect options, JSON viewers and the
graph's canvas labels and tooltips show text as text already and get stored strings as they are.

:func:`md_text` makes a string inert in Streamlit's Markdown (CommonMark with GFM, directives, math,
emoji and Streamlit's own icon and arrow rewrites) while it still reads exactly as typed:

* ``& < > " '`` become HTML character references (``&amp;`` …): text in Markdown, text in HTML too;
* ``:`` and ``$`` become ``&#58;`` and ``&#36;``: Streamlit scans the Markdown *source* for ``:material/``,
  emoji shortcodes and ``$…$`` before parsing it, and a character reference is never one of those;
* every other ASCII punctuation character CommonMark lets one escape gets a backslash (``\[``,
  ``\*``, ``\#``…): no link, image, emphasis, code, table, list, heading or directive can start;
* a line break becomes a hard break (``\`` at the end of the line), and whitespace at the ends of a
  line becomes character references (no indented code block, no broken emphasis around the text);
* a WORD JOINER (U+2060, invisible, zero width) goes where Streamlit and GFM would rewrite plain text
  after parsing: after the ``http``/``https``/``www`` of a web address and after the ``@`` of an e-mail
  address (GFM makes links of them), after the first ``:`` of ``:word:`` (emoji shortcodes,
  ``:streamlit:``, ``:material_icon:``) and inside ``->``, ``<-``, ``<->``, ``--``, ``>=``, ``<=``,
  ``~=`` standing alone (Streamlit turns them into arrows and signs). It shows as nothing (copied, it
  comes along); a word joiner of the text itself is written ``&#8288;``, so :func:`plain` tells them apart.

So the only rule for the pages' own Markdown: no ``:`` right before *and* after an escaped string
(``:{name}:`` would be an emoji shortcode again).

>>> def show(s): print(md_text(s).replace(WORD_JOINER, "{WJ}"))
>>> show("![t](http://198.51.100.7/name.png)")
\!\[t\]\(http{WJ}&#58;\/\/198\.51\.100\.7\/name\.png\)
>>> show("<script>alert(1)</script>")
&lt;script&gt;alert\(1\)&lt;\/script&gt;
>>> show(":red[red] :material/warning: :smile:")
&#58;red\[red\] &#58;material\/warning&#58; &#58;{WJ}smile&#58;
>>> for s in ("My API", "billing_service", "a -> b"): show(s)
My API
billing\_service
a \-{WJ}&gt; b
>>> text = "$\\href{http://198.51.100.7}{x}$ & <b> *x*\n:smile: dana@acme.example"
>>> plain(md_text(text)) == text
True
>>> print(md_code("my_api"), md_code("a`b"), html_text("<img src=x onerror=alert(1)>"))
`my_api` ``a`b`` &lt;img src=x onerror=alert(1)&gt;
"""

from __future__ import annotations

import html
import re

__all__ = ["WORD_JOINER", "html_text", "md_code", "md_text", "plain"]

#: Invisible, zero width, no line break: put where Streamlit would rewrite plain text (see :func:`md_text`).
WORD_JOINER = "\u2060"

#: The ASCII punctuation characters CommonMark lets a backslash escape (§2.4).
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: Those written as character references instead (HTML's five, and the two Streamlit looks for in the source).
_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", ":": "&#58;", "$": "&#36;"}
_TABLE = {ord(c): _REFERENCES.get(c, "\\" + c) for c in _ESCAPABLE}

# Where a word joiner goes (each a zero-width match: the joiner is inserted there).
_JOIN = re.compile(
    r"(?i:(?<=https)(?=://)|(?<=http)(?=://)|(?<=www)(?=\.))"  # GFM's autolinks: http://…, https://…, www.…
    r"|(?<=[-.\w+]@)(?=[-\w])"  # GFM's e-mail autolinks: a@b.example
    r"|(?<=:)(?=[\w+-]+:)"  # :smile:, :streamlit:, :material_icon:
)
# Streamlit's typography, on a sign standing alone (whitespace or an end on both sides): -> becomes →, …
_SIGNS = re.compile(r"(?<![^\s\ufeff])(<->|->|<-|--|>=|<=|~=)(?=[\s\ufeff]|$)")
_EDGE_SPACE = re.compile(r"^[^\S\n]+|[^\S\n]+$", re.MULTILINE)  # spaces, tabs, NBSP… at either end of a line


def _join(text: str) -> str:
    text = _JOIN.sub(WORD_JOINER, text)
    return _SIGNS.sub(lambda m: m.group(0)[0] + WORD_JOINER + m.group(0)[1:], text)


def md_text(text: object) -> str:
    """``text`` as Streamlit Markdown that renders as exactly that text (see the module's notes).

    For ``st.markdown``/``st.caption``/``st.title``/alerts and every widget label; ``None`` is ``""``.
    """
    if text is None:
        return ""
    value = str(text).replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    # A word joiner of the text itself is written as a reference: the bare ones are all ours (see plain()).
    value = "&#8288;".join(_join(part).translate(_TABLE) for part in value.split(WORD_JOINER))
    value = _EDGE_SPACE.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group(0)), value)
    return value.replace("\n", "\\\n")


def md_code(text: object) -> str:
    """``text`` as an inline code span (a name or id shown in ``monospace``), or as :func:`md_text` when a
    code span cannot hold it as typed (line breaks, or ``:material/``, which Streamlit rewrites even there)."""
    value = "" if text is None else str(text)
    if not value or "\n" in value or "\r" in value or ":material/" in value or value.strip() == "":
        return md_text(value)
    ticks = max((len(run) for run in re.findall(r"`+", value)), default=0) + 1
    pad = " " if value.startswith(("`", " ")) or value.endswith(("`", " ")) else ""
    return f"{'`' * ticks}{pad}{value}{pad}{'`' * ticks}"


def html_text(text: object) -> str:
    """``text`` for a page built as HTML (not Markdown): ``& < > " '`` as character references."""
    return "" if text is None else html.escape(str(text), quote=True)


_UNESCAPE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])|\\\n|&(amp|lt|gt|quot|#x27|#[0-9]+);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "#x27": "'"}


def plain(markdown: str, *, joiners: bool = False) -> str:
    """What :func:`md_text` wrote, read back as text: ``plain(md_text(s)) == s`` for every ``s`` without
    carriage returns or line breaks at its ends. The word joiners are left out, unless ``joiners``. Tests use it."""

    def back(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return _NAMED.get(m.group(2)) or chr(int(m.group(2)[1:]))
        return "\n"

    return _UNESCAPE.sub(back, markdown if joiners else markdown.replace(WORD_JOINER, ""))

"""Search: hybrid search (words, meaning, names) over facts and memories (``kgtoolkit.search``), each hit with its graph context.

The search module is optional and checked at run time: without it (or without an index) the page
says so and how to get it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

import kgtoolkit
from kgtoolkit.dashboard import kgdash
from kgtoolkit.dashboard._text import md_text

c = kgdash.ctx()
st.title("Search")

module, why = kgdash.search_module()
if module is None:
    st.info(
        f"**Semantic search is not installed** ({why}). When it is, build the index "
        "with `kgtoolkit index` and search here; the graph pages work without it.",
        icon=":material/travel_explore:",
    )
    kgdash.footer(c, "search")
    st.stop()

try:
    index = kgdash.search_index(c.path, c.read_only)
    status = index.status()
except kgtoolkit.KGError as exc:
    st.error(md_text(f"[{exc.code}] {exc.message}"))
    kgdash.footer(c, "search")
    st.stop()
indexed = status.state not in ("missing", "corrupt")
if not indexed:
    st.info(
        f"**This graph is not indexed yet** ({md_text(status.reason)}): words are found already (lexical "
        "search, the database's own full-text index); for search by meaning build the index with "
        "`kgtoolkit index` (embedding runs on the CPU, about 280 facts a second)"
        + (", or here." if not c.read_only else "; read-only mode cannot build it here."),
        icon=":material/travel_explore:",
    )
    if st.button(
        "Build the index now",
        key="search_build",
        disabled=c.read_only,
        help="Disabled in read-only mode." if c.read_only else "Embeds every fact and memory once.",
    ):
        bar = st.progress(0.0, text="Embedding…")
        report = index.sync(
            progress=lambda done, total: bar.progress(done / max(total, 1), text=f"Embedding {done:,} / {total:,}")
        )
        st.success(f"Indexed: {report.embedded:,} texts embedded in {report.seconds:.1f} s.")
        st.rerun()
else:
    st.caption(
        f"Index: {status.facts:,} facts, {status.memories:,} memories · {md_text(status.state)} · "
        f"{md_text(status.model)}"
    )

a, b, d, e = st.columns([4, 1, 1.3, 1.3])
query = a.text_input("Search facts and memories", key="search_query", placeholder="which queue does my api use?")
k = b.number_input("Results", 1, 100, 10, key="search_k")
kind = d.selectbox("Kind", ["both", "facts", "memories"], key="search_kind")
use_date = e.toggle(f"Only {c.date_label}", value=False, key="search_use_date", disabled=c.as_of is None)
current_only = e.toggle("Current only", value=False, key="search_current")
m, r, x = st.columns([2, 1.3, 1.3])
modes = ["hybrid", "vector", "lexical"] if indexed else ["lexical"]
mode = (
    m.segmented_control(
        "Ranking",
        modes,
        default=modes[0],
        key="search_mode",
        help="hybrid: words, meaning and exact names fused by reciprocal rank; vector: meaning "
        "only; lexical: words only (no model).",
    )
    or modes[0]
)
rerank = r.toggle(
    "Near the named entities",
    value=False,
    key="search_rerank",
    help="Graph rerank: facts fewer hops from the entities the query names rank higher, "
    "history lower unless a date is chosen.",
)
explain = x.toggle(
    "Explain",
    value=False,
    key="search_explain",
    help="Each hit's lexical, vector, name and graph contributions to its score.",
)

if not query.strip():
    st.caption(
        "Type a question or a few words: rare words (an incident number, a version) are found as "
        "written, paraphrases by meaning, and the facts of an entity the query names rank high."
    )
    kgdash.footer(c, "search")
    st.stop()

options = {
    "k": int(k),
    "kind": kind,
    "as_of": c.as_of if use_date else None,
    "current_only": current_only,
    "mode": mode,
    "rerank": "graph" if rerank else None,
    "explain": explain,
}
try:
    with st.spinner("Searching…"):
        result = index.find(query, **options)
except kgtoolkit.KGError as exc:
    st.error(md_text(f"[{exc.code}] {exc.message}"))
    result = None
except Exception as exc:  # keep the page up whatever the search module does
    st.error(md_text(f"Search failed: {type(exc).__name__}: {exc}"))
    result = None

hits = list(result.hits) if result is not None else []
if result is not None:
    named = result.named
    st.caption(
        f"{len(hits)} result(s)"
        + (f" · the query names {', '.join(md_text(n.entity) for n in named)}" if named else "")
    )


def _fact_line(f: kgtoolkit.Fact) -> str:
    # Names come from agents: shown as text, never as Markdown or HTML.
    return (
        f"{md_text(f.subject_name)} → **{md_text(f.predicate)}** → {md_text(f.object_name)} "
        f"<small>({md_text(f.valid_from or '?')} … {md_text(f.valid_to or 'now')})</small>"
    )


def _why(e: Any) -> str:
    signals = [
        f"{name} {value:.4f} (rank {rank_})"
        for name, value, rank_ in (
            ("lexical", e.lexical, e.lexical_rank),
            ("vector", e.vector, e.vector_rank),
            ("name", e.name, e.name_rank),
        )
        if rank_ is not None
    ]
    graph = f" · graph {e.graph:+.4f} ({e.hops} hops)" if e.hops is not None else ""
    return f"Why: {' + '.join(signals) or 'no signal'}{graph} = {e.total:.4f}"


for rank, hit in enumerate(hits, 1):
    head = f"**{rank}.** `{hit.score:.3f}`"
    with st.container(border=True):
        if hit.kind == "fact":
            badge = ":green-badge[current]" if hit.current else ":gray-badge[history]"
            exact = " :blue-badge[named in the query]" if hit.exact else ""
            st.markdown(f"{head} {badge}{exact} {_fact_line(hit.fact)}", unsafe_allow_html=True)
            if hit.count > 1:
                st.caption(
                    f"Stated {hit.count:,} times, from {md_text(hit.first or '?')} to {md_text(hit.last or '?')}."
                )
            if hit.explain is not None:
                st.caption(_why(hit.explain))
            if hit.note:
                st.caption(md_text(hit.note))
            same = kgdash.relationship(c.path, c.read_only, c.version, hit.fact.subject, hit.fact.predicate)
            if same.height > 1:
                with st.expander("Graph context: the history of this relationship"):
                    kgdash.show_facts(same, key=f"search_ctx_{rank}")
        else:
            colour = {"current": "green", "history": "gray", "mixed": "orange"}.get(hit.status, "blue")
            st.markdown(f"{head} :{colour}-badge[memory · {md_text(hit.status)}] {md_text(hit.memory.text)}")
            if hit.explain is not None:
                st.caption(_why(hit.explain))
            if hit.note:
                st.caption(md_text(hit.note))
            linked = [ctx.fact for ctx in (*hit.backs, *hit.mentions)]
            if linked:
                with st.expander(f"Graph context: {len(linked)} related fact(s)"):
                    kgdash.show_facts(
                        kgdash.facts_with_ids(c.path, c.read_only, c.version, tuple(f.id for f in linked)),
                        key=f"search_mem_{rank}",
                    )

kgdash.footer(c, "search")

"""Paths: how two entities are connected, hop by hop, on the sidebar's date (``kg.paths``)."""

from __future__ import annotations

import streamlit as st

from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_text

FIRST, OTHER = "#E45756", "#F58518"  # the shortest path, the others

c = kgdash.ctx()
st.title("Paths")
st.caption(
    "Every hop is a fact valid on the sidebar's day (with **All dates** on: current facts, and events at any "
    "date), shortest paths "
    "first. A multi-hop question answered step by step: *billing → owned_by → payments team → reports_to → Dana*."
)

left, right = st.columns(2)
with left:
    source = kgdash.entity_picker(
        c, label="From", key="paths_source", allow_none=False, columns=tuple(st.columns([3, 2]))
    )
with right:
    target = kgdash.entity_picker(
        c, label="To", key="paths_target", allow_none=False, state="paths_target", columns=tuple(st.columns([3, 2]))
    )
a, b, d = st.columns([1.2, 1.2, 1])
max_hops = a.slider("At most this many hops", 1, 4, 3, key="paths_hops")
limit = b.slider("Paths shown", 1, 50, 10, key="paths_limit")
time_respecting = d.toggle(
    "Time-respecting", key="paths_time", help="Each next fact starts no earlier than the previous one started."
)

if source is None or target is None:
    st.info(
        "This graph has no entities yet. Add facts with `kgtoolkit add`, or import a file on the "
        "**Import / export** page."
    )
elif source == target:
    st.info("Choose two different entities.")
else:
    found = kgdash.paths(c.path, c.read_only, c.version, source, target, max_hops, c.as_of, time_respecting, limit)
    st.session_state["paths_result"] = found  # the data behind the page (tests read it)
    if found.note:
        st.warning(md_text(found.note), icon=":material/content_cut:")
    if not found.paths:
        st.info(
            f"No path of at most {max_hops} hops {c.date_label}. Allow more hops, pick another date, or switch "
            "on **All dates** in the sidebar."
        )
    else:
        more = " (more exist: show more, or narrow the hops)" if found.truncated else ""
        st.markdown(
            f"**{len(found.paths)}** path{'s' * (len(found.paths) != 1)} {c.date_label}{more}; "
            "the shortest in red, the others in orange."
        )
        spelled = kgdash.labels(c.path, c.read_only, c.version)  # predicates as people spell them, not their ids
        colors = data.path_colors(found.paths, FIRST, OTHER)
        ids = tuple(sorted(colors))
        view = kgdash.facts_view(c.path, c.read_only, c.version, ids, tuple(sorted(colors.items())), 150)
        st.session_state["paths_view"] = view
        kgdash.show_graph(view, 480)
        for number, walk in enumerate(found.paths, start=1):
            start, hops = data.path_steps(walk)
            steps = [md_text(start)]
            for forward, predicate, there, span in hops:
                said = md_text(spelled.get(predicate, predicate))
                arrow = f"—{said}→" if forward else f"←{said}—"
                steps.append(f"{arrow} **{md_text(there)}** <small>({md_text(span)})</small>")
            st.markdown(f"{number}. " + " ".join(steps), unsafe_allow_html=True)

kgdash.footer(c, "paths")

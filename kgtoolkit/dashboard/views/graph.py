"""Graph: the neighbourhood of an entity (1–3 hops) or the most connected entities, on a date or through time."""

from __future__ import annotations

import streamlit as st

from kgtoolkit.dashboard import graphview, kgdash, timegraph
from kgtoolkit.dashboard._text import md_text

c = kgdash.ctx()
st.title("Graph")

left, right, a, b = st.columns([2.3, 1.6, 1.1, 1.5])
center = kgdash.entity_picker(c, label="Centre on", key="graph_entity", allow_none=True, columns=(left, right))
hops = a.selectbox(
    "Hops", [1, 2, 3], index=1, key="graph_hops", disabled=center is None, help="How far from the centre to go."
)
max_nodes = b.slider(
    "Node cap",
    10,
    500,
    120,
    step=10,
    key="graph_cap",
    help="At most this many entities are drawn; the notice below says what was left out.",
)
filters = st.expander("Filter by predicate and entity type")
d, e = filters.columns(2)
all_predicates = kgdash.predicates(c.path, c.read_only, c.version)
spelled = kgdash.labels(c.path, c.read_only, c.version)
preds = d.multiselect(
    "Predicates",
    all_predicates,
    key="graph_predicates",
    placeholder="all predicates",
    format_func=lambda p: spelled.get(p, p),
)
all_types = sorted(t for t, _ in kgdash.counts(c.path, c.read_only, c.version).entities_by_type)
types = e.multiselect("Entity types", all_types, key="graph_types", placeholder="all types")
t1, t2, _ = st.columns([1.3, 1.3, 3])
through_time = t1.toggle(
    "Through time",
    value=True,
    key="graph_time",
    help="Draw the entities of the whole span once, at places that stay put; the sidebar's date (or the window "
    "on the activity histogram, or play) only shows, fades or hides them.",
)
EVERY = {"auto": None, "day": "1d", "week": "1w", "month": "1mo", "year": "1y", "decade": "10y"}
every = EVERY[t2.selectbox("Period", list(EVERY), key="graph_every", disabled=not through_time)]

chosen = (
    c.path,
    c.read_only,
    c.version,
    c.window,
    center,
    hops if center else 1,
    tuple(preds),
    tuple(types),
    max_nodes,
)
timed = kgdash.time_graph(c.path, c.read_only, c.version, *chosen[4:], every) if through_time else None
# The picture of the sidebar's date alone: drawn when not through time, else asked for after the picture (the
# facts table lists its facts), so a new date moves the picture's window first.
view = kgdash.graph_view(*chosen) if timed is None else None
drawn = timed.time.view if timed is not None else view
assert drawn is not None
if timed is not None:
    tv = timed.time
    st.session_state["graph_time_view"] = tv
    around = f"around **{md_text(drawn.nodes[0].label)}**" if center and drawn.nodes else "the most connected entities"
    st.markdown(
        f"{around} of **{tv.periods[0]} … {tv.periods[-1]}** (by {tv.every}) · **{len(drawn.nodes):,}** entities, "
        f"**{drawn.fact_count:,}** facts (**{drawn.current_edges:,}** edges current now"
        + (f", **{drawn.event_edges:,}** events" if drawn.event_edges else "")
        + "), drawn once at places that stay put · the window (the sidebar's date: "
        + f"{c.date_label}) shows those with a fact in it, the others faded. Drag the window on the histogram (its "
        + "edges to widen it), or press play."
    )
else:
    assert view is not None
    current, events = view.current_edges, view.event_edges
    scope = f"around **{md_text(view.nodes[0].label)}**" if center and view.nodes else "the most connected entities"
    grouped = (
        f" in **{len(view.edges):,}** edges (a repeated fact is one edge, wider the more often it holds)"
        if view.fact_count > len(view.edges)
        else ""
    )
    st.markdown(
        f"{scope} · {c.date_label} · **{len(view.nodes):,}** entities, **{view.fact_count:,}** facts{grouped} "
        f"(**{current:,}** edges current now, **{len(view.edges) - current - events:,}** not"
        + (f", **{events:,}** events" if events else "")
        + ") · "
        f"{view.value_facts:,} value facts in tooltips"
    )
events = drawn.event_edges
if drawn.notice:
    st.warning(md_text(drawn.notice), icon=":material/content_cut:")
if not drawn.nodes:
    if kgdash.counts(c.path, c.read_only, c.version).facts == 0:
        st.info(
            "This graph is empty. Add facts with `kgtoolkit add`, or import a file on the **Import / export** page."
        )
    else:
        st.info(
            f"No facts match {c.date_label} and these filters. Pick another date, or switch on "
            "**All dates** in the sidebar."
        )
else:
    if timed is not None:
        kgdash.show_graph(kgdash.time_html(c.path, c.read_only, c.version, *chosen[4:], every, 700), 700)
        days = timegraph.window_days(c.window)
        window = timed.time.at(*days) if days else timed.time.at(None)
        kgdash.show_graph(graphview.follow_html(window.start, window.start + window.width - 1), 1)
    else:
        kgdash.show_graph(drawn, 600)
    loose = len(drawn.isolated) if len(drawn.nodes) > 1 else 0
    colours = "community (the types say nothing here)" if drawn.grouping == "community" else "type"
    legend = f"colour by {colours}: " + " ".join(
        f"<span style='color:{color}'>●</span> {md_text(kind)}" for kind, color in drawn.legend
    )
    if loose:
        legend += f" &nbsp;·&nbsp; {loose:,} entities with no link among those drawn, gathered below"
    st.markdown(
        f"<small>{legend} &nbsp;·&nbsp; ── current &nbsp; ┄┄ not current now (ended, or not yet begun) &nbsp;·&nbsp; "
        + (
            f"<span style='color:{graphview.EVENT_EDGE}'>──</span> events (they occurred) &nbsp;·&nbsp; "
            if events
            else ""
        )
        + "hover for details · double-click a node to recentre</small>",
        unsafe_allow_html=True,
    )
    names = drawn.names
    choices = [i for i in names if i != center]
    f, g = st.columns([3, 1])
    target = f.selectbox(
        "Recentre on a drawn entity",
        [None, *choices],
        format_func=lambda i: "—" if i is None else names[i],
        key=f"graph_recentre_{center}",
    )
    if target is not None:
        kgdash.set_entity(target)
        st.rerun()
    if center and g.button("Open its Entity page", key="graph_open_entity", width="stretch"):
        st.switch_page(kgdash.view("entity"))
    if view is None:
        view = kgdash.graph_view(*chosen)
    box, shown = kgdash.lazy_expander(f"The {view.fact_count:,} facts of {c.date_label}", key="graph_facts_open")
    if shown:  # the table (and the browser's table code, 1.5 MB of it) only once it is opened
        with box:
            kgdash.show_facts(kgdash.graph_facts(*chosen), key="graph_facts")

st.session_state["graph_view"] = view if view is not None else kgdash.graph_view(*chosen)  # tests read it
kgdash.footer(c, "graph")

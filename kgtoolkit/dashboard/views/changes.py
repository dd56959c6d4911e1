"""Changes: what began, ended or was replaced between two dates (``kg.diff``), drawn and listed."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_text

COLORS = {"began": "#54A24B", "ended": "#E45756", "replaced": "#F58518", "renewed": "#4C78A8", "occurred": "#C2570C"}
LIMIT = 2000  # changes read at once; the page says when there are more

c = kgdash.ctx()
st.title("Changes")

today = st.session_state.get("as_of") or dt.date.today()
a, b, e = st.columns([1, 1, 2.4])
start = a.date_input(
    "From",
    value=today - dt.timedelta(days=90),
    key="changes_from",
    min_value=dt.date(1, 1, 1),
    max_value=dt.date(9999, 12, 31),
    format="YYYY-MM-DD",
)
end = b.date_input(
    "To",
    value=today,
    key="changes_to",
    min_value=dt.date(1, 1, 1),
    max_value=dt.date(9999, 12, 31),
    format="YYYY-MM-DD",
    help="Both days count.",
)
with e:
    entity = kgdash.entity_picker(
        c,
        label="About",
        key="changes_entity",
        allow_none=True,
        none_label="(every entity)",
        columns=tuple(st.columns([3, 2])),
    )
spelled = kgdash.labels(c.path, c.read_only, c.version)
preds = st.multiselect(
    "Predicates",
    kgdash.predicates(c.path, c.read_only, c.version),
    key="changes_predicates",
    placeholder="all predicates",
    format_func=lambda p: spelled.get(p, p),
)

if start > end:
    st.warning("**From** is after **To**: swap them.")
    kgdash.footer(c, "changes")
    st.stop()
result = kgdash.diff(c.path, c.read_only, c.version, start.isoformat(), end.isoformat(), entity, tuple(preds), LIMIT)
st.session_state["changes_result"] = result  # the data behind the page (tests read it)
m1, m2, m3, m4, m5, m6 = st.columns(6)
m1.metric("Changes", f"{result.total:,}")
m2.metric("Began", f"{result.began:,}")
m3.metric("Ended", f"{result.ended:,}")
m4.metric("Replaced", f"{result.replaced:,}")
m5.metric("Renewed", f"{result.renewed:,}")  # the same fact again, back to back (contract §11): not began nor ended
m6.metric("Events", f"{result.occurred:,}")  # events occurred (contract §12): never began, ended or replaced
if not result.changes:
    st.info(
        f"Nothing began, ended, was replaced, renewed or occurred from {start} to {end}"
        + (" for this entity" if entity else "")
        + ". Widen the dates or drop the filters."
    )
    kgdash.footer(c, "changes")
    st.stop()
if result.total > len(result.changes):
    st.caption(
        f"The first {len(result.changes):,} of {result.total:,} changes, in time order; narrow the dates, "
        "the entity or the predicates to see the rest."
    )

colors = data.change_colors(result.changes, COLORS)
view = kgdash.facts_view(c.path, c.read_only, c.version, tuple(sorted(colors)), tuple(sorted(colors.items())), 150)
st.session_state["changes_view"] = view
graph, listing = st.columns([3, 2])
with graph:
    kgdash.show_graph(view, 520)
    st.markdown(
        "<small>"
        + " &nbsp; ".join(f"<span style='color:{color}'>━</span> {kind}" for kind, color in COLORS.items())
        + " (the old fact of a replacement in red)</small>",
        unsafe_allow_html=True,
    )
with listing:
    st.dataframe(data.change_rows(result.changes, spelled), hide_index=True, width="stretch", height=520)
st.caption(md_text(f"From {start} to {end}, by the facts' validity."))
kgdash.footer(c, "changes")

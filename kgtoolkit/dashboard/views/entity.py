"""Entity: its facts (current and history), a Gantt timeline, aliases, properties, and the evidence.

The facts are those ``kg.query`` answers for the entity (:func:`kgtoolkit.dashboard.data.entity_facts`)."""

from __future__ import annotations

import datetime as dt
import json

import altair as alt
import streamlit as st

import kgtoolkit
from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_code, md_text
from kgtoolkit.dashboard.likely import likely_next

c = kgdash.ctx()
st.title("Entity")

entity_id = kgdash.entity_picker(c, label="Entity", key="entity_page", allow_none=False)
if entity_id is None:
    st.info(
        "This graph has no entities yet. Add facts with `kgtoolkit add`, or import a file on the "
        "**Import / export** page."
    )
    kgdash.footer(c, "entity")
    st.stop()

entity = c.kg.entity(entity_id)
found = kgdash.entity_facts(c.path, c.read_only, c.version, entity_id, c.window)
facts, current, as_of_facts = found.history, found.current, found.valid
aliases = c.kg.aliases(entity_id)

st.subheader(md_text(entity.name))
events = found.events
tiles = st.columns(5 if events.height else 4)
tiles[0].metric("Type", md_text(entity.type))
shown = 1
if events.height:  # events are never current nor ended (contract §12): the page counts them apart
    tiles[1].metric("Events", f"{events.height:,}")
    shown = 2
if found.states or not events.height:
    tiles[shown].metric("Current facts", f"{current.height:,}")
    tiles[shown + 1].metric("Ended facts", f"{found.ended:,}")
else:
    partners = found.partners(entity_id, top=1)
    if partners.height:
        tiles[shown].metric(
            "Most events with",
            md_text(partners["name"][0]),
            f"{partners['events'][0]:,} events",
            delta_color="off",
            delta_arrow="off",
        )
    latest = events["start"].drop_nulls()
    tiles[shown + 1].metric("Last event", latest.max().date().isoformat() if latest.len() else "–")  # type: ignore[union-attr]
tiles[-1].metric("Aliases", len(aliases))
meta, props = st.columns([1, 1])
with meta:
    st.markdown(f"**id** {md_code(entity.id)} · created {md_text(entity.created_at[:10])}")
    st.markdown("**Aliases** " + (", ".join(md_code(a.name) for a in aliases) if aliases else "_none_"))
with props:
    st.markdown("**Properties**")
    if entity.properties:
        st.json(json.loads(json.dumps(dict(entity.properties))), expanded=True)
    else:
        st.caption("none")

labels = {
    "current": f"Current ({current.height})",
    "events": f"Events ({events.height:,})",
    "history": f"History ({facts.height:,})",
    "valid": f"Valid {c.date_label} ({as_of_facts.height:,})",
    "timeline": "Timeline",
    "evidence": f"Evidence ({found.cited.height})",
}
# Nothing current: an entity of events opens on its events; a historical graph on the facts of the sidebar date,
# else on the history.
tabs = dict(zip(labels, st.tabs(list(labels.values()), default=labels[found.opening]), strict=True))
with tabs["current"]:
    if not current.height and events.height:
        st.caption("Events are never current: they occurred on their day (see Events).")
    kgdash.show_facts(current, key="entity_current")
with tabs["events"]:
    if events.height == 0:
        st.caption("No fact of this entity is an event.")
    else:
        volume = found.event_volume("1mo")
        chart = (
            alt.Chart(volume.to_pandas())
            .mark_bar(color="#B279A2", size=data.bar_width(volume.height))
            .encode(
                x=alt.X("period:T", title=None),
                y=alt.Y("events:Q", title="events per month", axis=alt.Axis(format=",d", tickMinStep=1)),
                tooltip=["period:T", "events", "change"],
            )
        )
        st.altair_chart(chart.properties(height=180), width="stretch")
        left, right = st.columns([1, 2])
        with left:
            st.markdown("**Most events with**")
            st.dataframe(found.partners(entity_id, top=15).drop("entity"), hide_index=True, width="stretch")
        with right:
            st.markdown("**Its events, the latest first**")
            kgdash.show_facts(events, key="entity_events")
with tabs["history"]:
    kgdash.show_facts(facts, key="entity_history")
with tabs["valid"]:
    kgdash.show_facts(as_of_facts, key="entity_as_of")
with tabs["timeline"]:
    limit = 150
    bars = data.timeline(facts, as_of=c.as_of, now=dt.datetime.now(dt.UTC), limit=limit)  # as on the sidebar date
    if bars.total == 0:
        st.info("No fact of this entity has a known start, so there is nothing to draw.")
    else:
        if bars.total > limit:
            st.caption(f"The latest {limit} of {bars.total:,} intervals.")
        chart_data = bars.bars.to_pandas()
        chart = (
            alt.Chart(chart_data)
            .mark_bar(cornerRadius=3, height=14)
            .encode(
                x=alt.X("start:T", title=None),
                x2="end:T",
                y=alt.Y(
                    "row:N",
                    sort=chart_data["row"].tolist(),
                    title=None,
                    axis=alt.Axis(labelLimit=420, labelOverlap=False),
                ),
                color=alt.Color(
                    "state:N",
                    scale=alt.Scale(
                        domain=["current", "scheduled", "ended", "occurred"],
                        range=["#3A5F8F", "#C9A227", "#B5B5B5", "#C2570C"],
                    ),
                    legend=alt.Legend(orient="top", title=None),
                ),
                tooltip=["label", "start:T", "end:T", "state"],
            )
        )
        if c.as_of:
            marker = alt.Data(values=[{"d": c.as_of}])  # type: ignore[no-untyped-call]
            rule = alt.Chart(marker).mark_rule(color="#E45756", strokeDash=[4, 3]).encode(x="d:T")
            chart = alt.layer(chart, rule)
        height = max(120, 30 * bars.bars.height)
        st.altair_chart(chart.properties(height=height), width="stretch", height=height + 60)
        st.caption(f"Colours: each fact's state {c.date_label} (the red line); open intervals run to today.")
with tabs["evidence"]:
    if found.cited.height == 0:
        st.caption("No fact of this entity points at evidence (`source_closet`).")
    for row in found.cited.iter_rows(named=True):
        fact = " → ".join(md_text(row[k]) for k in ("subject_name", "predicate_label", "object_name"))
        span = md_text(f"{row['valid_from'] or '?'} … {row['valid_to'] or 'now'}")
        with st.container(border=True):
            st.markdown(
                f"**{fact}**  \n<small>{span} · {row.get('state') or ('current' if row['current'] else 'ended')} · "
                f"{md_text(row['source_closet'])}</small>",
                unsafe_allow_html=True,
            )
            try:
                memory = c.kg.memory(row["source_closet"])
                st.markdown(f"> {md_text(memory.text)}")
                st.caption(f"source: {md_text(memory.source or '?')} · recorded {md_text(memory.created_at[:10])}")
            except kgtoolkit.KGError:
                st.caption("The evidence is not stored in this graph (an external pointer).")

likely = likely_next(c.kg, entity_id)  # an event graph: what this entity's busiest kinds of event bring next
if likely.height:
    with st.expander("Likely next (recurrency forecast)", expanded=False):
        st.caption(
            "The likely objects of this entity's busiest kinds of event on the day after the last event: how often "
            "and how recently it had each (times seen, last seen), and how common each is for the event (share)."
        )
        st.dataframe(likely.to_pandas(), hide_index=True, width="stretch")

kgdash.footer(c, "entity")

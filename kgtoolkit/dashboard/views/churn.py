"""Churn: facts added and ended per period, events and their volume (contract §12), per predicate, and the most
volatile entities. The tables, labelled, and their totals are :func:`kgtoolkit.dashboard.data.churn`'s."""

from __future__ import annotations

import altair as alt
import streamlit as st

from kgtoolkit.dashboard import kgdash

c = kgdash.ctx()
st.title("Churn")

PERIODS = {"week": "1w", "month": "1mo", "quarter": "1q", "year": "1y"}
a, b, d = st.columns([1, 2, 1])
period = a.selectbox("Period", list(PERIODS), index=1, key="churn_period")
span = kgdash.churn_span(c.path, c.read_only, c.version)
if span is None:
    st.info("Nothing to count yet: the graph has no facts with a known start.")
    kgdash.footer(c, "churn")
    st.stop()
first, last = span
window = b.slider(
    "Window", min_value=first, max_value=last, value=(first, last), format="YYYY-MM-DD", key="churn_window"
)
top = d.number_input("Top N", 3, 50, 10, key="churn_top")
every = PERIODS[period]
since, until = window[0].isoformat(), window[1].isoformat()

# Counts are whole numbers: a flat line (every period the same) must not read "0.000000".
COUNT = alt.Axis(format=",d", tickMinStep=1)

tables = kgdash.churn(c.path, c.read_only, c.version, every, since, until, int(top))  # predicates labelled (§13)
m1, m2, m3, m4, m5 = st.columns(5)
m1.metric("Added", f"{tables.added:,}")
m2.metric("Ended", f"{tables.ended:,}")
m3.metric("Renewed", f"{tables.renewed:,}")  # back to back (contract §11): neither added nor ended
m4.metric("Net", f"{tables.net:+,}")
rate = tables.mean_rate
m5.metric(f"Mean churn rate / {period}", f"{rate:.1%}" if rate is not None else "–")

if tables.events:  # an event graph (or events beside states): the volume per period and its change
    busiest = tables.busiest()
    e1, e2, e3 = st.columns(3)
    e1.metric("Events", f"{tables.events:,}")
    e2.metric(
        f"Busiest {period}", busiest["period"].date().isoformat(), f"{busiest['events']:,} events", delta_color="off"
    )
    e3.metric(f"Last {period}'s change", f"{tables.last_events_change:+,}")
    st.subheader(f"Events per {period}")
    volume = (
        alt.Chart(tables.volume().to_pandas())
        .mark_bar(color="#B279A2")
        .encode(
            x=alt.X("period:T", title=None),
            y=alt.Y("events:Q", title="events", axis=COUNT),
            tooltip=["period:T", "events", alt.Tooltip("events_change:Q", title="change")],
        )
    )
    st.altair_chart(volume.properties(height=260), width="stretch")
    if not tables.states:
        st.caption("Every fact here is an event (it occurred, it never ended): there are no added / ended pairs.")

st.subheader(f"Added and ended per {period}")
bars = (
    alt.Chart(tables.moves().to_pandas())
    .mark_bar()
    .encode(
        x=alt.X("period:T", title=None),
        y=alt.Y("facts:Q", title="facts (ended below zero)", axis=COUNT),
        color=alt.Color(
            "event:N",
            scale=alt.Scale(domain=["added", "ended"], range=["#54A24B", "#E45756"]),
            legend=alt.Legend(orient="top", title=None),
        ),
        tooltip=["period:T", "event", "facts"],
    )
)
active = (
    alt.Chart(tables.active().to_pandas())
    .mark_line(color="#3A5F8F", point=False)
    .encode(
        x="period:T",
        y=alt.Y("active_at_end:Q", title="active facts", axis=COUNT),
        tooltip=["period:T", "active_at_end"],
    )
)
left, right = st.columns(2)
left.altair_chart(bars.properties(height=260), width="stretch")
right.altair_chart(active.properties(height=260, title="Active facts at the end of each period"), width="stretch")

st.subheader("Per predicate")
if tables.by_predicate.height:
    chart = (
        alt.Chart(tables.top_predicates(8).to_pandas())
        .mark_bar()
        .encode(
            x=alt.X("period:T", title=None),
            y=alt.Y("changes:Q", stack=True, title="added + ended + events", axis=COUNT),
            color=alt.Color("predicate:N", legend=alt.Legend(orient="right")),
            tooltip=["period:T", "predicate", "changes"],
        )
    )
    st.altair_chart(chart.properties(height=260), width="stretch")
else:
    st.caption("No events in this window.")

left, right = st.columns(2)
with left:
    st.subheader("Most volatile entities")
    if tables.volatile.height:
        chart = (
            alt.Chart(tables.volatile_moves().to_pandas())
            .mark_bar()
            .encode(
                y=alt.Y("entity_name:N", sort="-x", title=None),
                x=alt.X("facts:Q", stack=True, title="changes", axis=COUNT),
                color=alt.Color(
                    "event:N",
                    scale=alt.Scale(domain=["added", "ended"], range=["#54A24B", "#E45756"]),
                    legend=alt.Legend(orient="top", title=None),
                ),
                tooltip=["entity_name", "event", "facts"],
            )
        )
        st.altair_chart(chart.properties(height=max(160, 24 * tables.volatile.height)), width="stretch")
    else:
        st.caption("No changes in this window.")
with right:
    st.subheader("Most changed relationships")
    st.dataframe(tables.changed_table(), hide_index=True, width="stretch")

kgdash.footer(c, "churn")

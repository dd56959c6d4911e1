"""Churn: facts added and ended per period, events and their volume (contract §12), per predicate, and the most
volatile entities."""

from __future__ import annotations

import datetime as dt

import altair as alt
import polars as pl
import streamlit as st

from kgtoolkit import analysis
from kgtoolkit.dashboard import kgdash

c = kgdash.ctx()
st.title("Churn")

PERIODS = {"week": "1w", "month": "1mo", "quarter": "1q", "year": "1y"}
a, b, d = st.columns([1, 2, 1])
period = a.selectbox("Period", list(PERIODS), index=1, key="churn_period")
facts = c.facts()
starts = facts["start"].drop_nulls()
if facts.height == 0 or starts.len() == 0:
    st.info("Nothing to count yet: the graph has no facts with a known start.")
    kgdash.footer(c, "churn")
    st.stop()
earliest: dt.datetime = starts.min()  # type: ignore[assignment]  # a datetime column's min
latest: dt.datetime = max(starts.max(), facts["end"].drop_nulls().max() or starts.max())  # type: ignore[assignment, type-var]
first, last = earliest.date(), latest.date()
last = max(last, first + dt.timedelta(days=1))  # a slider needs two different ends
window = b.slider("Window", min_value=first, max_value=last, value=(first, last), format="YYYY-MM-DD", key="churn_window")
top = d.number_input("Top N", 3, 50, 10, key="churn_top")
every = PERIODS[period]
since, until = window[0].isoformat(), window[1].isoformat()


@st.cache_data(show_spinner=False, max_entries=16)
def churn_tables(path: str, read_only: bool, version: tuple[object, ...], every: str, since: str, until: str,
                 top: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    frame = kgdash.facts_frame(path, read_only, version)
    overall = analysis.churn(frame, every=every, since=since, until=until)
    by_predicate = analysis.churn(frame, every=every, since=since, until=until, by="predicate")
    volatile = analysis.most_volatile(frame, by="entity", top=top, since=since, until=until)
    changed = analysis.most_changed(frame, top=top, since=since, until=until,
                                    multi_valued=kgdash.open_graph(path, read_only).config.multi_valued)
    return overall, by_predicate, volatile, changed


# Counts are whole numbers: a flat line (every period the same) must not read "0.000000".
COUNT = alt.Axis(format=",d", tickMinStep=1)

overall, by_predicate, volatile, changed = churn_tables(c.path, c.read_only, c.version, every, since, until, int(top))
spelled = kgdash.labels(c.path, c.read_only, c.version)  # each predicate as people spell it (contract §13)
by_predicate = by_predicate.with_columns(pl.col("predicate").replace_strict(spelled, default=pl.col("predicate"),
                                                                            return_dtype=pl.String))
changed = changed.with_columns(pl.col("predicate").replace_strict(spelled, default=pl.col("predicate"),
                                                                  return_dtype=pl.String))
m1, m2, m3, m4 = st.columns(4)
m1.metric("Added", f"{overall['added'].sum():,}")
m2.metric("Ended", f"{overall['ended'].sum():,}")
m3.metric("Net", f"{overall['net'].sum():+,}")
rate = overall["churn_rate"].drop_nulls()
m4.metric(f"Mean churn rate / {period}", f"{float(rate.mean()):.1%}" if rate.len() else "–")  # type: ignore[arg-type]

event_total = int(overall["events"].sum())
state_total = int(overall.select(pl.col("added").sum() + pl.col("ended").sum()).item())
if event_total:  # an event graph (or events beside states): the volume per period and its change
    busiest = overall.sort("events", descending=True, maintain_order=True).row(0, named=True)
    e1, e2, e3 = st.columns(3)
    e1.metric("Events", f"{event_total:,}")
    e2.metric(f"Busiest {period}", busiest["period"].date().isoformat(), f"{busiest['events']:,} events",
              delta_color="off")
    e3.metric(f"Last {period}'s change", f"{int(overall['events_change'][-1] or 0):+,}")
    st.subheader(f"Events per {period}")
    volume = alt.Chart(overall.select(pl.col("period").dt.replace_time_zone(None), "events", "events_change")
                       .to_pandas()).mark_bar(color="#B279A2").encode(
        x=alt.X("period:T", title=None), y=alt.Y("events:Q", title="events", axis=COUNT),
        tooltip=["period:T", "events", alt.Tooltip("events_change:Q", title="change")])
    st.altair_chart(volume.properties(height=260), width="stretch")
    if not state_total:
        st.caption("Every fact here is an event (it occurred, it never ended): there are no added / ended pairs.")

st.subheader(f"Added and ended per {period}")
events = overall.select(pl.col("period").dt.replace_time_zone(None), "added", (-pl.col("ended")).alias("ended")) \
    .unpivot(index="period", variable_name="event", value_name="facts").to_pandas()
bars = alt.Chart(events).mark_bar().encode(
    x=alt.X("period:T", title=None), y=alt.Y("facts:Q", title="facts (ended below zero)", axis=COUNT),
    color=alt.Color("event:N", scale=alt.Scale(domain=["added", "ended"], range=["#54A24B", "#E45756"]),
                    legend=alt.Legend(orient="top", title=None)),
    tooltip=["period:T", "event", "facts"])
active = alt.Chart(overall.select(pl.col("period").dt.replace_time_zone(None), "active_at_end").to_pandas()).mark_line(
    color="#3A5F8F", point=False).encode(x="period:T", y=alt.Y("active_at_end:Q", title="active facts", axis=COUNT),
                                         tooltip=["period:T", "active_at_end"])
left, right = st.columns(2)
left.altair_chart(bars.properties(height=260), width="stretch")
right.altair_chart(active.properties(height=260, title="Active facts at the end of each period"), width="stretch")

st.subheader("Per predicate")
if by_predicate.height:
    moves = pl.col("added") + pl.col("ended") + pl.col("events")
    ranked = by_predicate.group_by("predicate").agg(moves.sum().alias("n")) \
        .sort("n", descending=True)["predicate"].head(8).to_list()
    data = by_predicate.filter(pl.col("predicate").is_in(ranked)).select(
        pl.col("period").dt.replace_time_zone(None), "predicate", moves.alias("changes")).to_pandas()
    chart = alt.Chart(data).mark_bar().encode(
        x=alt.X("period:T", title=None), y=alt.Y("changes:Q", stack=True, title="added + ended + events", axis=COUNT),
        color=alt.Color("predicate:N", legend=alt.Legend(orient="right")), tooltip=["period:T", "predicate", "changes"])
    st.altair_chart(chart.properties(height=260), width="stretch")
else:
    st.caption("No events in this window.")

left, right = st.columns(2)
with left:
    st.subheader("Most volatile entities")
    if volatile.height:
        chart = alt.Chart(volatile.select("entity_name", "added", "ended").unpivot(
            index="entity_name", variable_name="event", value_name="facts").to_pandas()).mark_bar().encode(
            y=alt.Y("entity_name:N", sort="-x", title=None), x=alt.X("facts:Q", stack=True, title="changes", axis=COUNT),
            color=alt.Color("event:N", scale=alt.Scale(domain=["added", "ended"], range=["#54A24B", "#E45756"]),
                            legend=alt.Legend(orient="top", title=None)), tooltip=["entity_name", "event", "facts"])
        st.altair_chart(chart.properties(height=max(160, 24 * volatile.height)), width="stretch")
    else:
        st.caption("No changes in this window.")
with right:
    st.subheader("Most changed relationships")
    st.dataframe(changed.select("subject_name", "predicate", "changes", pl.col("history").list.join(" → "),
                                pl.col("current_objects").list.join(", ")).rename(
        {"subject_name": "subject", "current_objects": "current"}), hide_index=True, width="stretch")

kgdash.footer(c, "churn")

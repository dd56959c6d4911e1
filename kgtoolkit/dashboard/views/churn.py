"""Churn: what the graph records, per period. An event graph (contract §12) gets its event measures: the volume per
period, the change of the last whole period, the busiest pairs and the bursts. A state graph gets facts added and
ended to date, what is scheduled after today, the active facts, the most volatile entities and changed
relationships; a mixed graph both. Partial periods are marked and never headline a change. The tables, labelled,
and their totals are :func:`kgtoolkit.dashboard.data.churn`'s (see docs/dashboard.md)."""

from __future__ import annotations

import datetime as dt

import altair as alt
import streamlit as st

from kgtoolkit.dashboard import data, kgdash

c = kgdash.ctx()
st.title("Churn")

a, b, d = st.columns([1, 2, 1])
span = kgdash.churn_span(c.path, c.read_only, c.version)
if span is None:
    st.info("Nothing to count yet: the graph has no facts with a known start.")
    kgdash.footer(c, "churn")
    st.stop()
first, last = span
opening = data.opening_window(span, dt.datetime.now(dt.UTC).date())  # ends today: later is scheduled
names = list(data.PERIODS)
period = a.selectbox("Period", names, index=names.index(data.opening_period(opening)), key="churn_period")
if data.SLIDER_DAYS[0] <= first and last <= data.SLIDER_DAYS[1]:
    window = b.slider("Window", min_value=first, max_value=last, value=opening, format="YYYY-MM-DD", key="churn_window")
else:  # a slider cannot hold days this far from 1970: two fields
    f, t = b.columns(2)
    lo = f.date_input("From", value=opening[0], min_value=first, max_value=last, key="churn_from")
    hi = t.date_input("To", value=opening[1], min_value=first, max_value=last, key="churn_to")
    window = (min(lo, hi), max(lo, hi))
top = d.number_input("Top N", 3, 50, 10, key="churn_top")
every = data.PERIODS[period]
since, until = window[0].isoformat(), window[1].isoformat()

# Counts are whole numbers: a flat line (every period the same) must not read "0.000000".
COUNT = alt.Axis(format=",d", tickMinStep=1)
LEGEND = alt.Legend(orient="top", title=None)  # above the plot: never over a bar

tables = kgdash.churn(c.path, c.read_only, c.version, every, since, until, int(top))  # predicates labelled (§13)
events_shown = tables.kind != "states"
states_shown = tables.kind != "events"
if tables.partial:
    st.caption(
        f"{tables.partial:,} of {tables.overall.height:,} periods are partial (the window or the data cover them in "
        "part): drawn lighter, and their change is not shown."
    )


def event_measures() -> None:
    """The event measures (contract §12): volume, the change of the last whole period, busiest pairs, bursts."""
    busiest = tables.busiest()
    change = tables.whole_change()
    e1, e2, e3, e4 = st.columns(4)
    e1.metric("Events", f"{tables.events:,}")
    e2.metric(
        f"Busiest {period}",
        data.period_label(busiest["period"], period),
        f"{busiest['events']:,} events" + (" (partial)" if busiest["partial"] else ""),
        delta_color="off",
        delta_arrow="off",
    )
    if change is None:
        e3.metric(f"Change on the {period} before", "–", help="No two whole periods follow each other in the window.")
    else:
        e3.metric(
            f"Change on the {period} before",
            f"{change[1]:+,}",
            f"in {data.period_label(change[0], period)}",
            delta_color="off",
            delta_arrow="off",
            help="The last whole period, on the one before: a partial period never headlines a change.",
        )
    pairs = tables.pairs_table()
    if pairs.height:
        top_pair = pairs.row(0, named=True)
        e4.metric(
            "Busiest pair",
            f"{top_pair['events']:,} events",
            f"{top_pair['subject']} → {top_pair['object']}",
            delta_color="off",
            delta_arrow="off",
        )
    st.subheader(f"Events per {period}")
    volume = (
        alt.Chart(tables.volume().to_pandas())
        .mark_bar(color="#B279A2", stroke="white", strokeWidth=0.5 if tables.overall.height <= 150 else 0)
        .encode(
            x=alt.X("period:T", title=None),
            x2="end:T",
            y=alt.Y("events:Q", title="events", axis=COUNT),
            y2=alt.datum(0),
            opacity=alt.Opacity("partial:N", scale=alt.Scale(domain=[False, True], range=[1.0, 0.35]), legend=None),
            tooltip=["period:T", "events", alt.Tooltip("events_change:Q", title="change"), "partial"],
        )
    )
    st.altair_chart(volume.properties(height=260), width="stretch")
    left, right = st.columns(2)
    with left:
        st.subheader("Busiest pairs")
        if pairs.height:
            st.dataframe(pairs, hide_index=True, width="stretch")
        else:
            st.caption("No event between two entities in this window.")
    with right:
        st.subheader("Bursts")
        found = tables.bursts_table()
        if found.height:
            st.dataframe(found.rename({"z": "standard deviations above the mean"}), hide_index=True, width="stretch")
        else:
            st.caption(f"No whole {period} stands two standard deviations above the mean.")


def state_measures() -> None:
    """The state measures: added and ended to date, what is scheduled after today, the active facts."""
    m1, m2, m3, m4, m5, m6 = st.columns(6)
    m1.metric("Added", f"{tables.added:,}", help="State facts started in the window, to date.")
    m2.metric("Ended", f"{tables.ended:,}", help="To date: an end after today is scheduled, not ended.")
    m3.metric("Renewed", f"{tables.renewed:,}")  # back to back (contract §11): neither added nor ended
    m4.metric("Net", f"{tables.net:+,}")
    rate = tables.mean_rate
    m5.metric(f"Mean churn rate / {period}", f"{rate:.1%}" if rate is not None else "–")
    m6.metric("Scheduled to end", f"{tables.scheduled_ended:,}", help="In the window, after today.")

    st.subheader(f"Added and ended per {period}")
    moves = tables.moves()
    kinds = ["added", "ended", "scheduled to start", "scheduled to end"]
    colours = dict(zip(kinds, ["#54A24B", "#E45756", "#B5DDA9", "#F2B6B4"], strict=True))
    if not tables.scheduled_added and not tables.scheduled_ended:  # nothing after today in the window
        kinds = kinds[:2]
        moves = moves.filter(moves["event"].is_in(kinds))
    bars = (
        alt.Chart(moves.to_pandas())
        .mark_bar(size=data.bar_width(tables.overall.height, 560))  # stacked: drawn at the period's start
        .encode(
            x=alt.X("period:T", title=None),
            y=alt.Y("facts:Q", title="facts (ended below zero)", axis=COUNT),
            color=alt.Color(
                "event:N",
                scale=alt.Scale(domain=kinds, range=[colours[k] for k in kinds]),
                legend=LEGEND,
            ),
            tooltip=["period:T", "event", "facts"],
        )
    )
    active = (
        alt.Chart(tables.active().to_pandas())
        .mark_line(color="#3A5F8F", point=False)
        .encode(
            x=alt.X("period:T", title=None),
            y=alt.Y("active_at_end:Q", title="active facts", axis=COUNT),
            tooltip=["period:T", "active_at_end", "partial"],
        )
    )
    left, right = st.columns(2)
    left.altair_chart(bars.properties(height=260), width="stretch")
    right.altair_chart(active.properties(height=260, title="Active facts at the end of each period"), width="stretch")


# A mixed graph shows what it holds most of first.
sections = [(tables.events, event_measures, events_shown), (tables.states, state_measures, states_shown)]
for _, draw, shown in sorted(sections, key=lambda item: -item[0]):
    if shown:
        draw()

st.subheader("Per predicate")
if tables.by_predicate.height:
    chart = (
        alt.Chart(tables.top_predicates(8).to_pandas())
        .mark_bar(size=data.bar_width(tables.overall.height, 900))
        .encode(
            x=alt.X("period:T", title=None),
            y=alt.Y("changes:Q", stack=True, title="added + ended + events" if states_shown else "events", axis=COUNT),
            color=alt.Color("predicate:N", legend=alt.Legend(orient="right")),
            tooltip=["period:T", "predicate", "changes"],
        )
    )
    st.altair_chart(chart.properties(height=260), width="stretch")
else:
    st.caption("Nothing happened in this window.")

left, right = st.columns(2)
with left:
    st.subheader("Most volatile entities" if states_shown else "Busiest entities")
    if tables.volatile.height:
        chart = (
            alt.Chart(tables.volatile_moves().to_pandas())
            .mark_bar()
            .encode(
                y=alt.Y("entity_name:N", sort="-x", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=240)),
                x=alt.X("facts:Q", stack=True, title="changes" if states_shown else "events", axis=COUNT),
                color=alt.Color(
                    "event:N",
                    scale=alt.Scale(
                        domain=["added", "ended", "events"] if states_shown else ["events"],
                        range=["#54A24B", "#E45756", "#B279A2"] if states_shown else ["#B279A2"],
                    ),
                    legend=LEGEND,
                ),
                tooltip=["entity_name", "event", "facts"],
            )
        )
        tall = max(160, 26 * tables.volatile.height)
        st.altair_chart(chart.properties(height=tall), width="stretch", height=tall + 60)
    else:
        st.caption("No changes in this window.")
if states_shown:
    with right:
        st.subheader("Most changed relationships")
        st.dataframe(tables.changed_table(), hide_index=True, width="stretch")

kgdash.footer(c, "churn")

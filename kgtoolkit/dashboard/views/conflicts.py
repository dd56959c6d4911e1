"""Conflicts: (subject, predicate) pairs with more than one object; those needing action first."""

from __future__ import annotations

import datetime as dt
import functools

import streamlit as st

import kgtoolkit
from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_text

c = kgdash.ctx()
st.title("Conflicts")
st.caption(
    "A conflict group is a subject and predicate with more than one object (for a one-holder predicate, an object "
    "and predicate with more than one holder). Its current and scheduled facts "
    f"are listed with its last {data.PAGE_HISTORY} ended ones for review; a group with **more than one current fact "
    "needs action**. Multi-valued predicates "
    f"({', '.join(md_text(p) for p in sorted(c.kg.config.multi_valued))}) are left out."
)

groups, needing = kgdash.conflict_counts(c.path, c.read_only, c.version)  # counted in the engine
m1, m2, m3 = st.columns(3)
m1.metric("Groups", f"{groups:,}")
m2.metric("Need action", f"{needing:,}")
m3.metric("History only", f"{groups - needing:,}")
if c.read_only:
    st.info("Read-only mode: invalidating and superseding are disabled.", icon=":material/lock:")

f1, f2, f3 = st.columns([1, 2, 1])
only = f1.toggle("Needs action only", value=needing > 0, key="conflicts_only")
text = f2.text_input("Filter by subject or predicate", key="conflicts_filter", placeholder="e.g. owned_by")
per_page = 20
if text.strip():  # a text filter looks at every group: the whole table (each predicate labelled, contract §13)
    shown = data.conflict_groups(kgdash.conflict_table(c.path, c.read_only, c.version), needs_only=only, text=text)
    count = shown.height
else:
    count = needing if only else groups
pages = data.page_count(count, per_page)
page = f3.number_input(f"Page (of {pages})", 1, pages, 1, key="conflicts_page")
if count == 0:
    st.success("No conflict groups here." if groups == 0 or not only else "No group needs action.")
if text.strip():
    listed, facts = data.page_of(shown, page, per_page), c.facts()
else:  # the first view: one page of groups judged and cut in the engine, and their facts alone
    found = kgdash.conflict_page(c.path, c.read_only, c.version, only, int(page), per_page)
    listed, facts = found.groups, found.facts


def _fact_label(labels: dict[int, str], fact_id: int) -> str:
    return f"#{fact_id} → {labels[fact_id]}"  # a selectbox option is plain text


def act(key: str) -> None:
    """Apply the group's form as it reads now (callback arguments would hold the previous run's values)."""
    state = st.session_state
    fact_id, action = state[f"cf_fact_{key}"], state[f"cf_action_{key}"]
    day, new_object = state[f"cf_day_{key}"], state.get(f"cf_new_{key}", "")
    row = data.fact_row(facts, fact_id)
    try:
        if action == "invalidate":
            c.kg.invalidate(
                row["subject"], row["predicate"], row["object"], ended=day.isoformat(), ended_by="dashboard"
            )
            st.session_state["conflicts_done"] = f"Ended fact {fact_id} on {day}."
        elif state[f"cf_by_{key}"] == "object":  # a one-holder group: a new holder of the object
            result = c.kg.supersede_holder(
                row["object"], row["predicate"], row["subject"], new_object, at=day.isoformat(), source="dashboard"
            )
            st.session_state["conflicts_done"] = (
                f"Superseded fact {fact_id} by {md_text(result.new.subject_name)} from {day}."
            )
        else:
            result = c.kg.supersede(
                row["subject"], row["predicate"], row["object"], new_object, at=day.isoformat(), source="dashboard"
            )
            st.session_state["conflicts_done"] = (
                f"Superseded fact {fact_id} by {md_text(result.new.object_name)} from {day}."
            )
    except kgtoolkit.KGError as exc:
        st.session_state["conflicts_error"] = md_text(f"[{exc.code}] {exc.message}")


if st.session_state.get("conflicts_done"):
    st.success(st.session_state.pop("conflicts_done"))
if st.session_state.get("conflicts_error"):
    st.error(st.session_state.pop("conflicts_error"))

for group in listed.iter_rows(named=True):
    flag = ":red[:material/error: needs action]" if group["needs_action"] else ":gray[:material/history: history]"
    said = group["predicate_label"]  # the predicate as people spell it (contract §13)
    held = group["by"] == "object"  # a one-holder predicate: the holders of one object
    title = (
        f"{flag} · {md_text(said)} → **{md_text(group['object_name'])}** · {group['subjects']} holders, "
        f"{group['current']} current"
        if held
        else f"{flag} · **{md_text(group['subject_name'])}** → {md_text(said)} · {group['objects']} objects, "
        f"{group['current']} current"
    )
    key = f"{group['by']}|{group['subject'] or group['object']}|{group['predicate']}"
    st.session_state[f"cf_by_{key}"] = group["by"]
    with st.expander(title, expanded=group["needs_action"] and only):
        members, left_out = data.listed_facts(data.group_facts(facts, group["facts"]))
        more = group["history_more"] + left_out  # past the page the engine cut, or the whole table's group
        if group["needs_action"] and group["open_since"] is not None:
            st.caption(
                f"Contradiction open since {group['open_since']:%Y-%m-%d} "
                f"({group['open_for'].days} days): current "
                + (
                    f"holders {', '.join(md_text(o) for o in group['current_subjects'])}."
                    if held
                    else f"objects {', '.join(md_text(o) for o in group['current_objects'])}."
                )
            )
        kgdash.show_facts(members, key=f"cf_{key}")
        if more:
            st.caption(
                f"{more:,} more ended facts (earlier ones) are not listed: `kgtoolkit conflicts` pages through a "
                "group's history with `--predicate` and `--history-offset`."
            )
        labels = data.current_choices(members)
        if labels:
            options = list(labels)
            a, b, d, e = st.columns([2, 1.4, 1.2, 1.6])
            fact_id = a.selectbox(
                "Fact",
                options,
                format_func=functools.partial(_fact_label, labels),
                key=f"cf_fact_{key}",
                disabled=c.read_only,
            )
            action = b.radio(
                "Action",
                ["invalidate", "supersede"],
                key=f"cf_action_{key}",
                disabled=c.read_only,
                format_func=lambda a: {"invalidate": "End it", "supersede": "Replace it"}[a],
            )
            day = d.date_input("On", dt.date.today(), key=f"cf_day_{key}", disabled=c.read_only, format="YYYY-MM-DD")
            new_object = e.text_input(
                "New holder" if held else "New object",
                key=f"cf_new_{key}",
                disabled=c.read_only or action != "supersede",
            )
            st.button(
                "Apply",
                key=f"cf_apply_{key}",
                type="primary",
                disabled=c.read_only or (action == "supersede" and not new_object.strip()),
                on_click=act,
                args=(key,),
                help="Disabled in read-only mode." if c.read_only else None,
            )

kgdash.footer(c, "conflicts")

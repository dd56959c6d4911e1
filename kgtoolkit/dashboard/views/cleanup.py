"""Clean up: duplicate candidates (``kg.duplicates``) with their reasons, merged, aliased or marked not the same."""

from __future__ import annotations

import streamlit as st

import kgtoolkit
from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_code, md_text

KINDS = {"entities": "Entities", "predicates": "Predicates"}
PER_PAGE = (10, 25, 50, 100)

c = kgdash.ctx()
st.title("Clean up")
st.caption(
    'Names that probably mean one thing ("Postgres" / "PostgreSQL", `uses_db` / `uses_database`), best '
    "first, each with the reasons it was suggested; nothing changes until you press a button. **Merge** (two "
    "entities): the other entity's facts move to the one you keep, and its name becomes an alias of it. "
    "**Make alias** (two predicates): the other predicate's facts fold into the one you keep, and it becomes "
    "a predicate alias of it. Both say what they will do and wait for **Confirm**. **Not the same**: remembered "
    "in the graph, never suggested again."
)
with st.expander("Why Merge for entities and Make alias for predicates"):
    st.caption(
        "For two entities, making one name an alias of the other *is* the merge: the library's `alias` refuses "
        "a name that is an entity already (`alias_conflict`), so **Merge** calls `merge`, which moves the "
        "facts and keeps the name as an alias. For two predicates there is no merge: **Make alias** calls "
        "`rename_predicate`, which folds the facts (with their history) and makes the old predicate an alias; "
        "`alias_predicate` refuses a predicate that has facts, and every predicate listed here has some."
    )

refusal = kgdash.write_refusal(c)
if refusal:
    st.info(
        f"Read-only: {md_text(refusal)}. The candidates are listed; merging, aliasing and marking are disabled.",
        icon=":material/lock:",
    )


def _first_page() -> None:
    st.session_state["cleanup_page"] = 1


a, b, d, e = st.columns([1.3, 1.4, 1, 2])
kind = (
    a.segmented_control(
        "Kind",
        list(KINDS),
        format_func=KINDS.__getitem__,
        key="cleanup_kind",
        default="entities",
        on_change=_first_page,
    )
    or "entities"
)
min_score = b.slider(
    "Lowest score",
    0.5,
    1.0,
    0.75,
    0.01,
    key="cleanup_min_score",
    on_change=_first_page,
    help="Pairs scoring below this are left out (scores run from 0 to 1; the library's default is 0.75).",
)
search, missing = kgdash.search_module()
with d:
    st.write("")  # level with the other widgets' labels
    embeddings = st.toggle(
        "By meaning",
        key="cleanup_embeddings",
        disabled=search is None,
        on_change=_first_page,
        help=missing or "Also rank names close in meaning (the embeddings of the search extra); slower.",
    )
text = e.text_input("Filter by name", key="cleanup_filter", placeholder="e.g. melbourne", on_change=_first_page)

if st.session_state.get("cleanup_done"):
    st.success(st.session_state.pop("cleanup_done"), icon=":material/check_circle:")
if st.session_state.get("cleanup_error"):
    st.error(st.session_state.pop("cleanup_error"))

try:
    found = kgdash.duplicates(c.path, c.read_only, c.version, kind, float(min_score), bool(embeddings))
except kgtoolkit.KGError as exc:
    st.error(md_text(f"[{exc.code}] {exc.message}"))
    kgdash.footer(c, "cleanup")
    st.stop()
probe = text.strip()
shown = data.matching_pairs(found, text)
st.session_state["cleanup_candidates"] = shown  # the data behind the page (tests read it)
counts = kgdash.fact_counts(c.path, c.read_only, c.version, kind)
spelled = kgdash.labels(c.path, c.read_only, c.version) if kind == "predicates" else {}

m1, m2, m3, m4 = st.columns([1, 1, 1.2, 1.2])
m1.metric("Candidates", f"{len(found):,}")
m2.metric("Shown", f"{len(shown):,}")
per_page = int(m3.selectbox("Per page", PER_PAGE, index=1, key="cleanup_per_page", on_change=_first_page))
pages = data.page_count(len(shown), per_page)
if st.session_state.get("cleanup_page", 1) > pages:  # the list got shorter (an action, a filter)
    st.session_state["cleanup_page"] = pages
page = int(m4.number_input(f"Page (of {pages:,})", 1, pages, key="cleanup_page"))

if not shown:
    st.success(
        f"No duplicate {kind[:-1]} candidates{' match the filter' if probe else ''}."
        + ("" if probe else " Pairs marked not the same are never listed again.")
    )


def _facts(pair_id: str) -> str:
    n = counts.get(pair_id, 0)
    return f"{n:,} fact" if n == 1 else f"{n:,} facts"


def _name(pair_id: str, name: str) -> str:
    return f"{name}  ·  {_facts(pair_id)}"


def ask(key: str) -> None:
    """A first click on Merge / Make alias: the pair shows what will happen, and waits for Confirm or Cancel."""
    st.session_state["cleanup_confirm"] = key


def cancel() -> None:
    st.session_state.pop("cleanup_confirm", None)


def act(action: str, a_id: str, b_id: str, key: str) -> None:
    """Apply a pair's button as the pair's form reads now (the kept side is its radio's)."""
    st.session_state.pop("cleanup_confirm", None)
    keep = st.session_state.get(f"cleanup_keep_{key}", b_id)
    drop = a_id if keep == b_id else b_id
    try:
        st.session_state["cleanup_done"] = data.clean_up(c.kg, kind, action, keep, drop)
    except kgtoolkit.KGError as exc:
        st.session_state["cleanup_error"] = md_text(f"[{exc.code}] {exc.message}")


verb = {"entities": "Merge", "predicates": "Make alias"}[kind]
action = data.CLEAN_UP_ACTIONS[kind][0]
for n, pair in enumerate(data.page_of(shown, page, per_page)):
    key = f"{kind}|{pair.a}|{pair.b}"
    names = data.pair_names(pair, spelled)  # a predicate as people spell it (contract §13)
    with st.container(border=True, key=f"cleanup_pair_{n}"):
        left, right = st.columns([3, 2])
        shown_a, shown_b = names[pair.a], names[pair.b]
        left.markdown(
            f"**{md_text(shown_a)}** · **{md_text(shown_b)}**  \n"
            f"<small>score {pair.score:.2f} · {md_code(pair.a)} ({_facts(pair.a)}) · "
            f"{md_code(pair.b)} ({_facts(pair.b)})</small>",
            unsafe_allow_html=True,
        )
        left.caption("  \n".join(md_text(reason) for reason in pair.reasons))
        best = data.keep_first(pair, counts)  # the side more facts name (then the longer name)
        choices = {i: md_text(_name(i, said)) for i, said in names.items()}  # radio options are Markdown
        keep = right.radio(
            "Keep",
            [pair.a, pair.b],
            index=[pair.a, pair.b].index(best),
            horizontal=True,
            key=f"cleanup_keep_{key}",
            format_func=choices.__getitem__,
            disabled=refusal is not None,
        )
        other = pair.a if keep == pair.b else pair.b
        x, y = right.columns(2)
        x.button(
            verb,
            key=f"cleanup_{action}_{key}",
            type="primary",
            on_click=ask,
            args=(key,),
            disabled=refusal is not None,
            help=f"Disabled: {md_text(refusal)}."
            if refusal
            else (
                f"Move the facts of {md_text(names[other])} to {md_text(names[keep])}; its name becomes an alias."
                if kind == "entities"
                else f"Fold the facts of {md_text(other)} into {md_text(keep)}; it becomes a predicate alias."
            ),
        )
        y.button(
            "Not the same",
            key=f"cleanup_not_same_{key}",
            on_click=act,
            args=("not_same", pair.a, pair.b, key),
            disabled=refusal is not None,
            help=f"Disabled: {md_text(refusal)}." if refusal else "Remember they differ: never suggested again.",
        )
        if refusal is None and st.session_state.get("cleanup_confirm") == key:
            shown_keep, shown_other = (names[keep], names[other]) if kind == "entities" else (keep, other)
            st.warning(data.clean_up_preview(kind, shown_keep, shown_other, counts.get(other, 0)))
            yes, no, _ = st.columns([1, 1, 2])
            yes.button(
                f"Confirm {verb.lower()}",
                key=f"cleanup_confirm_{key}",
                type="primary",
                on_click=act,
                args=(action, pair.a, pair.b, key),
            )
            no.button("Cancel", key=f"cleanup_cancel_{key}", on_click=cancel)

kgdash.footer(c, "cleanup")

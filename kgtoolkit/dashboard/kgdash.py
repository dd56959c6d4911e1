"""Shared parts of the dashboard: settings, cached resources and frames, the sidebar, small widgets.

Everything reads the graph through the library (``kgtoolkit``): no SQL here or in the pages, and no
data work either: frames, rankings, conflict groups and dry-run imports are library calls, and what a page
shows is made from them by :mod:`kgtoolkit.dashboard.data` (no Streamlit there). This module caches those
functions' answers and keeps the session's state.

What a page draws is asked of the engine (issue #32): the Graph page's picture (:func:`graph_view`: the most
connected entities, or a neighbourhood, and the facts among them), the entity pickers' ranking, the Entity page's
facts, the Conflicts page's counts and page of groups, the facts of a table or a picture by id. The whole facts frame
(:func:`facts_frame`) is read only for a text filter on the Conflicts page. The sidebar's counts and the predicate
filter's list are read on indexes (:func:`counts`); the states of every fact (:func:`stats`, a scan of every fact)
only once the sidebar's "States" expander is opened.

Caching:

* the store handle (:func:`open_graph`) and the search index (:func:`search_index`) are
  ``st.cache_resource``: one per (file, mode), shared by every session;
* frames and other results are cached for the whole server (every session shares them), keyed on the graph's
  **data version** (:func:`data_version`: size and modification time of the file and its ``-wal``; on
  PostgreSQL the graph's revision, advanced by every write), so a widget change and a new session reuse them and
  a write (here or by another process) is picked up on the next run, never served from before it;
* the frames (polars frames are never changed in place here) and the Graph page's view and page are
  ``st.cache_resource``: every run gets the cached object itself. ``st.cache_data`` would hand out a
  copy (pickled, then read back: 0.2 s for the facts frame of 100,000 facts, on every run); the
  smaller results stay ``st.cache_data``.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import inspect
import os
import pickle
from collections.abc import Sequence
from typing import Any

import polars as pl
import streamlit as st

import kgtoolkit
import kgtoolkit.store
from kgtoolkit import frames
from kgtoolkit.dashboard import READ_ONLY_ENV, VIEWS, data, graphview, timegraph
from kgtoolkit.dashboard._text import md_code, md_text  # every stored string shown as Markdown goes through these
from kgtoolkit.duplicates import DuplicateCandidate

END_MARKER = "kgtoolkit dashboard"  # the page footer starts with this; the browser test waits for it


# ---------------------------------------------------------------------- settings and resources


def view(name: str) -> str:
    """The file of a page (``graph``, ``entity``, …) as an absolute path, for ``st.Page`` and ``st.switch_page``.

    Absolute, so the pages are found whichever script Streamlit runs (the package's ``app.py``, or a
    source checkout's ``app/dashboard.py``).
    """
    return str(VIEWS / f"{name}.py")


def settings() -> tuple[str, bool]:
    """The graph (``$KGTOOLKIT_DB`` else the default file: the store's one rule) and whether writes are disabled."""
    location = kgtoolkit.store.resolve(None)
    read_only = os.environ.get(READ_ONLY_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    if location.path is not None and not location.memory:
        return str(location.path.resolve()), read_only
    return location.url or str(location), read_only


@st.cache_resource(show_spinner=False)
def open_graph(path: str, read_only: bool) -> kgtoolkit.KnowledgeGraph:
    """One store handle per (graph, mode) for the whole server (the store is thread-safe)."""
    return kgtoolkit.open(path, read_only=read_only)


def data_version(path: str, read_only: bool) -> tuple[object, ...]:
    """Changes whenever the graph's data may have changed (a write here, or by another process)."""
    return open_graph(path, read_only).data_version()


class Ctx:
    """What a page needs: the graph, its file, the mode, the data version and the chosen date."""

    def __init__(self, kg: kgtoolkit.KnowledgeGraph, path: str, read_only: bool) -> None:
        self.kg, self.path, self.read_only = kg, path, read_only

    @property
    def version(self) -> tuple[object, ...]:
        return data_version(self.path, self.read_only)

    @property
    def name(self) -> str:
        """The graph as people should see it (a file name, or the database URL without its password)."""
        location = self.kg.location
        return location.path.name if location.path is not None else str(location)

    @property
    def window(self) -> str | None:
        """The sidebar's time window: a day, a month (``2014-03``), a year (``2014``), a range
        (``2014-01-01/2014-03-31``, facts overlapping it), or None for all dates."""
        if st.session_state.get("all_time"):
            return None
        day = st.session_state.get("as_of") or dt.date.today()
        return data.window(day, st.session_state.get("span", "day"), st.session_state.get("as_of_to") or day)

    @property
    def as_of(self) -> str | None:
        """The window as the library's ``as_of`` takes it (a day, a month or a year); None for a range or all dates."""
        window = self.window
        return None if window is None or "/" in window else window

    @property
    def date_label(self) -> str:
        return data.date_label(self.window)

    def facts(self) -> pl.DataFrame:
        return facts_frame(self.path, self.read_only, self.version)


def ctx() -> Ctx:
    """The context of this run; stops the page with a clear message when the graph cannot be opened."""
    path, read_only = settings()
    try:
        kg = open_graph(path, read_only)
    except kgtoolkit.KGError as exc:
        st.error(f"Cannot open the graph at {md_code(path)} · {md_text(exc.message)}")
        st.stop()
    file = kg.location.path
    if file is not None and not kg.location.memory and not file.exists():  # reads never make a graph (contract §8)
        st.error(
            f"No graph at {md_code(path)} · check the path; to start one there, write to it first "
            f"({md_code('kgtoolkit add … --db ' + path)}, {md_code('kgtoolkit import FILE --db ' + path)}) and reload"
        )
        st.stop()
    return Ctx(kg, path, read_only)


# ---------------------------------------------------------------------- cached data (keyed on the data version)


@st.cache_resource(show_spinner="Reading the graph…", max_entries=4)
def facts_frame(path: str, read_only: bool, version: tuple[object, ...]) -> pl.DataFrame:
    """Every fact, names and types resolved (``frames.facts``), with each predicate's ``predicate_label``
    (its first spelling, contract §13: what the pages show); read once per data version."""
    return data.labelled(
        frames.facts(open_graph(path, read_only)), labels(path, read_only, version), alias="predicate_label"
    )


@st.cache_data(show_spinner=False, max_entries=4)
def labels(path: str, read_only: bool, version: tuple[object, ...]) -> dict[str, str]:
    """Each predicate's label (its first spelling), by id."""
    return open_graph(path, read_only).predicate_labels()


@st.cache_data(show_spinner=False, max_entries=4)
def stats(path: str, read_only: bool, version: tuple[object, ...]) -> dict[str, Any]:
    """Every count of :meth:`KnowledgeGraph.stats` (one scan of every fact: 13-23 s at 10M facts); the sidebar
    reads it only once its "States" expander is opened."""
    return open_graph(path, read_only).stats().to_dict()


@st.cache_data(show_spinner=False, max_entries=4)
def counts(path: str, read_only: bool, version: tuple[object, ...]) -> kgtoolkit.store.GraphCounts:
    """The counts every page's sidebar shows (:func:`kgtoolkit.store.graph_counts`: entities and their types, facts,
    the predicates in use, aliases, memories; no scan of the facts' rows)."""
    return kgtoolkit.store.graph_counts(open_graph(path, read_only))


@st.cache_resource(show_spinner=False, max_entries=4)
def entity_ranking(path: str, read_only: bool, version: tuple[object, ...]) -> pl.DataFrame:
    """Every entity with its name, type and fact counts (both directions), most connected first, counted in the
    engine (:func:`kgtoolkit.dashboard.data.entity_ranking`: no facts read)."""
    return data.entity_ranking(open_graph(path, read_only))


@st.cache_resource(show_spinner=False, max_entries=8)
def entity_choices(path: str, read_only: bool, version: tuple[object, ...], limit: int) -> data.EntityChoices:
    """What an entity picker lists: the ``limit`` most connected entities, ranked in the engine
    (:func:`~kgtoolkit.dashboard.data.entity_choices` of :func:`kgtoolkit.dashboard.data.entity_ranking`), made once
    per data version, not on every run; never changed."""
    return data.entity_choices(data.entity_ranking(open_graph(path, read_only), limit=limit), limit)


@st.cache_data(show_spinner=False, max_entries=64)
def entity_choice(path: str, read_only: bool, version: tuple[object, ...], entity_id: str) -> tuple[str, int] | None:
    """One entity a picker holds that its list does not: its name and fact count, or None when the graph has no
    such entity (any more)."""
    row = data.entity_ranking(open_graph(path, read_only), ids=[entity_id])
    return (row["name"][0], int(row["facts"][0])) if row.height else None


@st.cache_resource(show_spinner=False, max_entries=16)
def entity_facts(
    path: str, read_only: bool, version: tuple[object, ...], entity_id: str, window: str | None
) -> data.EntityFacts:
    """The Entity page's lists (:func:`kgtoolkit.dashboard.data.entity_page_facts`: what ``kg.query`` answers, the
    entity's facts alone read from the store)."""
    return data.entity_page_facts(open_graph(path, read_only), entity_id, window, labels(path, read_only, version))


def predicates(path: str, read_only: bool, version: tuple[object, ...]) -> list[str]:
    """The predicates in use, by id (:func:`counts`: found on the index, not counted)."""
    return list(counts(path, read_only, version).predicates)


@st.cache_resource(show_spinner=False, max_entries=32)
def graph_view(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    as_of: str | None,
    center: str | None,
    hops: int,
    preds: tuple[str, ...],
    types: tuple[str, ...],
    max_nodes: int,
) -> graphview.GraphView:
    """The data behind the Graph page's picture (cached: recentring back and forth is instant), asked of the engine
    (:func:`kgtoolkit.dashboard.data.graph_overview`: the most connected entities, or the centre's neighbourhood, and
    the facts among those drawn)."""
    return data.graph_overview(
        open_graph(path, read_only),
        as_of,
        labels(path, read_only, version),
        center=center,
        hops=hops,
        predicates=list(preds) or None,
        types=list(types) or None,
        max_nodes=max_nodes,
    )


@st.cache_resource(show_spinner=False, max_entries=32)
def graph_facts(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    as_of: str | None,
    center: str | None,
    hops: int,
    preds: tuple[str, ...],
    types: tuple[str, ...],
    max_nodes: int,
) -> pl.DataFrame:
    """The facts the Graph page draws (:func:`graph_view`'s, each edge's facts), read by id alone, labelled."""
    view = graph_view(path, read_only, version, as_of, center, hops, preds, types, max_nodes)
    return facts_with_ids(path, read_only, version, tuple(view.edge_ids))


@st.cache_resource(show_spinner=False, max_entries=32)
def facts_with_ids(path: str, read_only: bool, version: tuple[object, ...], ids: tuple[int, ...]) -> pl.DataFrame:
    """The facts of ``ids`` alone, by id, each predicate labelled (:func:`kgtoolkit.frames.facts_with_ids`)."""
    return data.labelled(
        frames.facts_with_ids(open_graph(path, read_only), ids),
        labels(path, read_only, version),
        alias="predicate_label",
    )


@st.cache_resource(show_spinner=False, max_entries=32)
def relationship(path: str, read_only: bool, version: tuple[object, ...], subject: str, predicate: str) -> pl.DataFrame:
    """Every fact of one (subject, predicate), oldest first (:func:`kgtoolkit.dashboard.data.relationship_history`
    of the subject's facts of that predicate, read alone)."""
    kg = open_graph(path, read_only)
    found = pl.concat(list(frames.stream(kg, entity=subject, predicate=predicate)))
    assert isinstance(found, pl.DataFrame)
    return data.relationship_history(
        data.labelled(found, labels(path, read_only, version), alias="predicate_label"), subject, predicate
    )


def _view_bytes(view: graphview.GraphView) -> bytes:
    """What :func:`graph_html` is keyed on: the view's content (Streamlit's own hashing walks the
    dataclasses field by field, 0.5 s for a view of 120 nodes; this takes a millisecond)."""
    return pickle.dumps(view, protocol=pickle.HIGHEST_PROTOCOL)


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs={graphview.GraphView: _view_bytes})
def graph_html(view: graphview.GraphView, height: int) -> str:
    """The page drawing ``view`` (:func:`kgtoolkit.dashboard.graphview.render_html`: the nodes at their
    :func:`~kgtoolkit.dashboard.graphview.layout` places, drawn at once)."""
    return graphview.render_html(view, height=height)


@st.cache_resource(show_spinner="Placing the graph through time…", max_entries=16)
def time_graph(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    center: str | None,
    hops: int,
    preds: tuple[str, ...],
    types: tuple[str, ...],
    max_nodes: int,
    every: str | None,
) -> timegraph.TimeGraph | None:
    """The Graph page's picture through time (:func:`kgtoolkit.dashboard.timegraph.time_graph`) over the graph's
    whole span, placed once (cached: a new date only moves the window); None when no fact has a known start."""
    kg = open_graph(path, read_only)
    if churn_span(path, read_only, version) is None:
        return None
    return timegraph.time_graph(
        kg,
        center=center,
        hops=hops,
        predicates=list(preds) or None,
        types=list(types) or None,
        max_nodes=max_nodes,
        every=every,
    )


@st.cache_resource(show_spinner=False, max_entries=32)
def time_html(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    center: str | None,
    hops: int,
    preds: tuple[str, ...],
    types: tuple[str, ...],
    max_nodes: int,
    every: str | None,
    height: int,
) -> str:
    """The page drawing :func:`time_graph` (the same page whatever the date: the sidebar's date moves its window
    through :func:`kgtoolkit.dashboard.picture.timeview.follow_html`, so the picture is neither sent nor drawn
    again)."""
    shown = time_graph(path, read_only, version, center, hops, preds, types, max_nodes, every)
    assert shown is not None
    return graphview.render_time_html(shown.time.at(None), height=height)


@st.cache_data(show_spinner=False, max_entries=8)
def opening(path: str, read_only: bool, version: tuple[object, ...], today: dt.date) -> tuple[dt.date, str | None]:
    """The day a new session opens on (:func:`kgtoolkit.dashboard.data.opening_day`: asked of the engine, no facts
    frame read), and why when not ``today``."""
    return data.opening_day(open_graph(path, read_only), today=today)


@st.cache_data(show_spinner="Walking the graph…", max_entries=16)
def paths(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    source: str,
    target: str,
    max_hops: int,
    as_of: str | None,
    time_respecting: bool,
    limit: int,
) -> Any:
    """:meth:`KnowledgeGraph.paths` (a :class:`~kgtoolkit.Paths`), at most ``limit`` of them."""
    return open_graph(path, read_only).paths(
        source, target, max_hops=max_hops, as_of=as_of, time_respecting=time_respecting, limit=limit
    )


@st.cache_data(show_spinner="Comparing the two dates…", max_entries=16)
def diff(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    start: str,
    end: str,
    entity: str | None,
    preds: tuple[str, ...],
    limit: int,
) -> Any:
    """:meth:`KnowledgeGraph.diff` from ``start`` to ``end`` (both included), at most ``limit`` changes."""
    return open_graph(path, read_only).diff(start, end, entity=entity, predicates=list(preds) or None, limit=limit)


@st.cache_resource(show_spinner=False, max_entries=32)
def facts_view(
    path: str,
    read_only: bool,
    version: tuple[object, ...],
    ids: tuple[int, ...],
    colors: tuple[tuple[int, str], ...],
    max_nodes: int,
) -> graphview.GraphView:
    """The facts of ``colors`` drawn as a graph, the edges holding one in its colour
    (:func:`kgtoolkit.dashboard.data.facts_view`); ``ids``: the same facts, the cache's key."""
    return data.facts_view(facts_with_ids(path, read_only, version, ids), dict(colors), max_nodes)


@st.cache_data(show_spinner="Counting conflicts…", max_entries=4)
def conflict_counts(path: str, read_only: bool, version: tuple[object, ...]) -> tuple[int, int]:
    """How many conflict groups there are, and how many need action (:func:`kgtoolkit.store.conflict_counts`)."""
    return data.conflict_counts(open_graph(path, read_only))


@st.cache_resource(show_spinner="Finding conflicts…", max_entries=16)
def conflict_page(
    path: str, read_only: bool, version: tuple[object, ...], needs_only: bool, page: int, per_page: int
) -> data.ConflictPage:
    """One page of conflict groups and their facts, asked of the engine (:func:`kgtoolkit.dashboard.data.conflict_page`)."""
    return data.conflict_page(
        open_graph(path, read_only),
        labels(path, read_only, version),
        needs_only=needs_only,
        page=page,
        per_page=per_page,
    )


@st.cache_data(show_spinner="Finding conflicts…", max_entries=4)
def conflict_table(path: str, read_only: bool, version: tuple[object, ...]) -> pl.DataFrame:
    """Every conflict group, each predicate labelled (:func:`kgtoolkit.dashboard.data.conflict_table` of the whole
    facts frame): what a text filter on the Conflicts page reads."""
    config = open_graph(path, read_only).config
    return data.conflict_table(
        facts_frame(path, read_only, version),
        labels(path, read_only, version),
        config.multi_valued,
        one_holder=config.one_holder,
        single_valued=config.single_valued,
    )


@st.cache_data(show_spinner=False, max_entries=4)
def churn_span(path: str, read_only: bool, version: tuple[object, ...]) -> tuple[dt.date, dt.date] | None:
    """The days the Churn page's window runs between (:func:`kgtoolkit.dashboard.data.churn_span`)."""
    return data.churn_span(open_graph(path, read_only))


@st.cache_data(show_spinner=False, max_entries=16)
def churn(
    path: str, read_only: bool, version: tuple[object, ...], every: str, since: str, until: str, top: int
) -> data.Churn:
    """The Churn page's tables, labelled (:func:`kgtoolkit.dashboard.data.churn`: asked of the engine)."""
    return data.churn(
        open_graph(path, read_only),
        labels(path, read_only, version),
        every=every,
        since=since,
        until=until,
        top=top,
        multi_valued=open_graph(path, read_only).config.multi_valued,
    )


@st.cache_data(show_spinner="Checking the rows…", max_entries=4)
def check_upload(
    name: str,
    content: bytes,
    comma_guard: bool,
    source: str | None,
    path: str,
    read_only: bool,
    version: tuple[object, ...],
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """The file's rows (the preview) and the library's dry run of the import into this graph
    (:func:`kgtoolkit.dashboard.data.check_upload`). Keyed on the data version: a change of the graph's
    settings is seen."""
    return data.check_upload(open_graph(path, read_only), name, content, comma_guard=comma_guard, source=source)


# ---------------------------------------------------------------------- cleaning up (contract §14)


@st.cache_data(show_spinner="Looking for duplicates…", max_entries=8)
def duplicates(
    path: str, read_only: bool, version: tuple[object, ...], kind: str, min_score: float, embeddings: bool
) -> tuple[DuplicateCandidate, ...]:
    """Every duplicate candidate of ``kind`` (:meth:`KnowledgeGraph.duplicates`), best first: ranked once per
    data version and setting, so paging through them and a rerun cost nothing."""
    return open_graph(path, read_only).duplicates(kind=kind, min_score=min_score, embeddings=embeddings).items


@st.cache_data(show_spinner=False, max_entries=4)
def fact_counts(path: str, read_only: bool, version: tuple[object, ...], kind: str) -> dict[str, int]:
    """How many facts name each entity (either side) or use each predicate, by id
    (:mod:`kgtoolkit.dashboard.data`)."""
    if kind == "entities":
        return data.entity_fact_counts(entity_ranking(path, read_only, version))
    return data.predicate_fact_counts(open_graph(path, read_only))


def write_refusal(c: Ctx) -> str | None:
    """Why this graph takes no writes here (the dashboard's ``--read-only``, or a file this user cannot
    write), or None when it does."""
    if c.read_only:
        return "the dashboard runs read-only (--read-only)"
    if c.kg.read_only:
        return c.kg.read_only_reason or "the graph is open read-only"
    return None


# ---------------------------------------------------------------------- search (optional module)


def search_module() -> tuple[Any | None, str | None]:
    """``kgtoolkit.search`` when its packages (faiss, sentence-transformers) are installed, else (None, why)."""
    missing = [name for name in ("faiss", "sentence_transformers") if importlib.util.find_spec(name) is None]
    if missing:
        return None, f"missing {', '.join(missing)}: pip install 'kgtoolkit[search]'"
    from kgtoolkit import search

    return search, None


@st.cache_resource(show_spinner="Loading the search index…")
def search_index(path: str, read_only: bool) -> Any:
    """The graph's one :class:`kgtoolkit.search.SearchIndex`; ``find`` keeps it in step with the file."""
    from kgtoolkit import search

    return search.open_index(open_graph(path, read_only))


# ---------------------------------------------------------------------- entities and shared state


def init_state(c: Ctx) -> None:
    """Session defaults, once; a shared URL (``?entity=…&as_of=…``) seeds them.

    The date opens on today, or, when no fact is valid today, on the day the graph's facts say
    (:func:`kgtoolkit.dashboard.graphview.opening_day`: a historical graph opens on its last day), with a note.
    """
    if st.session_state.get("_init"):
        return
    st.session_state["_init"] = True
    params = st.query_params
    notices: list[str] = []  # what the link asked for and could not have, said once on the first page
    day: dt.date | None = None
    if params.get("as_of"):
        try:
            day = dt.date.fromisoformat(params["as_of"])
        except ValueError:
            notices.append(
                f"The link's as_of “{md_text(params['as_of'])}” is not a date (write it YYYY-MM-DD, "
                "for instance 2024-06-30); the date below is the graph's own opening day."
            )
    if day is None:
        day, why = opening(c.path, c.read_only, c.version, dt.date.today())
        if why:
            st.session_state["as_of_notice"] = (day, why)
    span = params.get("span")
    if span and span not in SPANS:
        notices.append(f"The link's span “{md_text(span)}” is not one of {', '.join(SPANS)}; showing a day.")
    st.session_state.setdefault("as_of", day)
    st.session_state.setdefault("span", span if span in SPANS else "day")
    st.session_state.setdefault("all_time", params.get("all_time") == "1")
    if params.get("entity"):
        try:  # an id, a name or an alias: the link may have been written by hand
            st.session_state["entity"] = c.kg.resolve(params["entity"])
        except kgtoolkit.KGError as exc:
            hint = exc.data.get("suggestions") if isinstance(exc.data, dict) else None
            notices.append(
                f"The link names an entity this graph does not have: “{md_text(params['entity'])}”."
                + (f" Did you mean: {md_text(', '.join(hint))}?" if hint else " Pick one below, or type its name.")
            )
    st.session_state["link_notices"] = notices


def link_notices() -> None:
    """Say, once, what a shared link asked for that this graph could not show (a bad date, an unknown entity)."""
    for notice in st.session_state.pop("link_notices", None) or ():
        st.warning(notice, icon=":material/link_off:")


def set_entity(entity_id: str | None) -> None:
    st.session_state["entity"] = entity_id
    if entity_id:
        st.query_params["entity"] = entity_id
    elif "entity" in st.query_params:
        del st.query_params["entity"]


def _held(
    c: Ctx, choices: data.EntityChoices, current: str | None
) -> tuple[str | None, dict[str, str], dict[str, int]]:
    """The entity a picker holds (None when the graph has it no more) and the names and fact counts it shows: the
    list's, and the held one's when the list does not have it (typed, or from a link: looked up alone)."""
    if current is None or current in choices.known:
        return current, choices.names, choices.counts
    extra = entity_choice(c.path, c.read_only, c.version, current)
    if extra is None:
        return None, choices.names, choices.counts
    return current, {**choices.names, current: extra[0]}, {**choices.counts, current: extra[1]}


def entity_picker(
    c: Ctx,
    *,
    label: str,
    key: str,
    allow_none: bool,
    none_label: str = "(most connected entities)",
    limit: int = 1500,
    columns: Sequence[Any] | None = None,
    state: str = "entity",
) -> str | None:
    """Choose an entity: the most connected ones in a list, any other by its exact name or alias.

    The choice is shared between pages (``st.session_state["entity"]``) and kept in the URL; another
    ``state`` key keeps a second choice of its own (the Paths page's target).
    """
    choices = entity_choices(c.path, c.read_only, c.version, limit)
    top = choices.top
    current, labels, counts = _held(c, choices, st.session_state.get(state))

    def choose(entity_id: str | None) -> None:
        if state == "entity":
            set_entity(entity_id)
        else:
            st.session_state[state] = entity_id

    ids: list[str | None] = list(top)
    if current is not None and current not in ids:
        ids.append(current)
    if allow_none:
        ids = [None, *ids]
    elif current is None and ids:
        current = ids[0]
        choose(current)
    if not ids:
        return None

    def fmt(option: str | None) -> str:
        return none_label if option is None else f"{labels.get(option, option)}  ·  {counts.get(option, 0)} facts"

    select_key, typed_key = f"{key}_select", f"{key}_typed"
    if st.session_state.get(select_key, "\0") != current:
        st.session_state[select_key] = current

    def picked() -> None:
        choose(st.session_state[select_key])

    def typed() -> None:
        text = st.session_state[typed_key].strip()
        if not text:
            return
        try:
            choose(c.kg.resolve(text))
            st.session_state[typed_key] = ""
            st.session_state.pop(f"{key}_miss", None)
        except kgtoolkit.KGError as exc:
            hint = exc.data.get("suggestions") if isinstance(exc.data, dict) else None
            st.session_state[f"{key}_miss"] = md_text(
                f"No entity named {text!r}. Did you mean: {', '.join(hint)}?" if hint else exc.message
            )

    left, right = columns or st.columns([3, 2])
    left.selectbox(
        label,
        ids,
        format_func=fmt,
        key=select_key,
        on_change=picked,
        help=f"The {len(top):,} most connected entities; type on the right for any other.",
    )
    right.text_input("…or type a name or alias", key=typed_key, on_change=typed, placeholder="e.g. My API")
    if st.session_state.get(f"{key}_miss"):
        st.warning(st.session_state.pop(f"{key}_miss"))
    return current


# ---------------------------------------------------------------------- sidebar and footer


#: The sidebar's kinds of time window: what the date picker's day stands for.
SPANS = {"day": "Day", "month": "Month", "year": "Year", "range": "Range"}


def _on_date_change() -> None:
    st.query_params["as_of"] = st.session_state["as_of"].isoformat()
    st.query_params["span"] = st.session_state.get("span", "day")


def sidebar(c: Ctx) -> None:
    n = counts(c.path, c.read_only, c.version)
    with st.sidebar:
        st.markdown("### :material/hub: kgtoolkit")
        where = str(c.kg.location.path.parent) if c.kg.location.path is not None else c.kg.backend
        st.markdown(
            f"**{md_text(c.name)}**  \n<small style='color:#777;word-break:break-all'>{md_text(where)}</small>",
            unsafe_allow_html=True,
        )
        if c.read_only:
            st.info("Read-only mode: changes are disabled.", icon=":material/lock:")
        all_time = st.session_state.get("all_time", False)
        st.segmented_control(
            "Window",
            list(SPANS),
            format_func=SPANS.__getitem__,
            key="span",
            on_change=_on_date_change,
            disabled=all_time,
            help="Show the facts valid on one day, in its month or year, or overlapping a range.",
        )
        span = st.session_state.get("span") or "day"
        st.date_input(
            "As of"
            if span == "day"
            else "In the month of"
            if span == "month"
            else "In the year of"
            if span == "year"
            else "From",
            key="as_of",
            on_change=_on_date_change,
            disabled=all_time,
            min_value=dt.date(1, 1, 1),
            max_value=dt.date(9999, 12, 31),
            format="YYYY-MM-DD",
            help="Show the facts valid on this day (both ends of an interval count).",
        )
        if span == "range":
            st.session_state.setdefault("as_of_to", st.session_state.get("as_of"))
            st.date_input(
                "To",
                key="as_of_to",
                disabled=all_time,
                min_value=dt.date(1, 1, 1),
                max_value=dt.date(9999, 12, 31),
                format="YYYY-MM-DD",
                help="The last day of the range (both ends count).",
            )
        notice = st.session_state.get("as_of_notice")
        if notice and notice[0] == st.session_state.get("as_of") and not st.session_state.get("all_time"):
            st.caption(md_text(notice[1]))
        st.toggle("All dates (whole history)", key="all_time", help="Ignore the date: every fact, current and ended.")
        a, b = st.columns(2)
        a.metric("Entities", f"{n.entities:,}")
        b.metric("Facts", f"{n.facts:,}")
        types = ", ".join(f"{md_text(k)} {v:,}" for k, v in data.by_count(dict(n.entities_by_type)))
        st.caption(
            f"{len(n.predicates):,} predicates · {n.aliases:,} aliases · {n.memories:,} memories"
            + (f"  \nTypes: {types}" if types else "")
        )
        # The states need a scan of every fact (13-23 s at 10M): counted once the expander is opened, not on a
        # first view (then cached per data version like every count here).
        box, shown = lazy_expander("States: current, ended, events", key="sidebar_states")
        if shown:
            s = stats(c.path, c.read_only, c.version)
            with box:
                a, b = st.columns(2)
                a.metric("Current", f"{s['current']:,}")
                b.metric("Ended", f"{s['ended']:,}")
                if s["events"]:  # an event graph: its facts are events, never current nor ended (contract §12)
                    a.metric("Events", f"{s['events']:,}")
                if s["scheduled"]:
                    b.metric("Scheduled", f"{s['scheduled']:,}")
                st.caption(f"{s['value_facts']:,} value facts")


def footer(c: Ctx, page: str) -> None:
    """The last element of every page: the browser test waits for it to know the run finished."""
    st.divider()
    st.caption(
        f"{END_MARKER} {kgtoolkit.__version__} · {page} · {md_text(c.name)} · {c.date_label}"
        f"{' · read-only' if c.read_only else ''}"
    )


def show_graph(view: graphview.GraphView | str, height: int) -> None:
    """Draw ``view`` (pyvis, inlined; or a page already made) in an iframe ``height`` pixels tall."""
    html = view if isinstance(view, str) else graph_html(view, height)
    if hasattr(st, "iframe"):  # Streamlit ≥ 1.52: components.v1.html is deprecated in favour of st.iframe
        st.iframe(html, height=height)
    else:
        import streamlit.components.v1 as components

        components.html(html, height=height)


def lazy_expander(label: str, *, key: str) -> tuple[Any, bool]:
    """An expander, and whether to fill it: only while it is open (opening it reruns the page), where this
    Streamlit can tell (``st.expander(on_change="rerun")``, 1.5x); always, where it cannot."""
    if "on_change" not in inspect.signature(st.expander).parameters:
        return st.expander(label), True
    box = st.expander(label, key=key, on_change="rerun")
    return box, bool(getattr(box, "open", True))


def show_facts(facts: pl.DataFrame, *, height: int | None = None, key: str | None = None) -> None:
    """A facts frame as a readable table."""
    st.dataframe(
        data.fact_table(facts),
        hide_index=True,
        width="stretch",
        height=height or "auto",
        key=key,
        column_config={
            "current": st.column_config.CheckboxColumn("current"),
            "confidence": st.column_config.NumberColumn("conf.", format="%.2f"),
        },
    )

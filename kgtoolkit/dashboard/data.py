"""The data behind the dashboard's pages: what each page shows, computed from the library's answers.

The pages (``views/*.py``) only draw: every filter, ranking, count, label and record they show comes from a
function here (or from ``kgtoolkit.frames``, ``analysis``, ``io``, :mod:`kgtoolkit.dashboard.graphview` and
``KnowledgeGraph``, which these call), and ``kgdash.py`` caches them per data version. No Streamlit here: tests
call these functions on a graph, without a browser or ``AppTest``.

* labels: :func:`labelled` (each predicate as people spell it, contract §13: the one place a page's frame gets them);
* entity lists: :func:`entity_ranking` (asked of the engine), :func:`entity_choices`, :func:`entity_fact_counts`,
  :func:`predicate_fact_counts`;
* Entity page: :func:`entity_page_facts` (the entity's facts read from the store), :func:`entity_facts` (the facts
  :meth:`KnowledgeGraph.query` answers, through :func:`kgtoolkit.frames.around`), :func:`timeline`;
* Graph page: :func:`graph_overview` (the most connected entities and the facts among them, asked of the engine);
* Graph, Paths and Changes pages: :func:`facts_by_id`, :func:`facts_view`, :func:`path_colors`, :func:`path_steps`,
  :func:`change_colors`, :func:`change_rows`;
* Churn page: :func:`churn_span`, :func:`churn` (a :class:`Churn`: the tables, labelled, their totals and charts;
  asked of the engine, no facts frame);
* Conflicts page: :func:`conflict_page` (one page of groups, asked of the engine), :func:`conflict_counts`,
  :func:`conflict_table` (every group, from a facts frame: what a text filter still reads), :func:`conflict_groups`, :func:`group_facts`, :func:`current_choices`,
  :func:`fact_row`;
* Clean up page: :func:`matching_pairs`, :func:`keep_first`, :func:`clean_up` (a pair's action, through the
  library);
* Search page: :func:`relationship_history`;
* Import / export page: :func:`check_upload`, :func:`import_upload`, :func:`rejects_frame`, :func:`export_bytes`;
* every page: :func:`opening_day` (the day a session opens on, asked of the engine), :func:`fact_table` (a facts frame as listed), :func:`window` and :func:`date_label` (the sidebar's
  time window), :func:`by_count`, :func:`page_count`, :func:`page_of`.

>>> import kgtoolkit
>>> from kgtoolkit import frames
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "usesQueue", "Redis", valid_from="2026-03-02")
>>> _ = kg.add("billing", "calls", "my_api", valid_from="2026-01-05", valid_to="2026-02-01")
>>> facts = labelled(frames.facts(kg), kg.predicate_labels(), alias="predicate_label")
>>> page = entity_facts(facts, "my_api", "2026-01")
>>> page.current.select("predicate", "predicate_label").rows(), page.valid["id"].to_list(), page.ended
([('usesqueue', 'usesQueue')], [2], 1)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import tempfile
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

import polars as pl

import kgtoolkit
from kgtoolkit import analysis, frames, io
from kgtoolkit.dashboard import graphview
from kgtoolkit.dashboard._text import md_code, md_text
from kgtoolkit.duplicates import DuplicateCandidate
from kgtoolkit.store import (
    conflict_counts,
    connected_counts,
    count_facts,
    fact_span,
    link_ranking,
    nearest_bounds,
    neighbourhood,
)

__all__ = [
    "CLEAN_UP_ACTIONS",
    "RANKING_SCHEMA",
    "Churn",
    "ConflictPage",
    "EntityChoices",
    "EntityFacts",
    "Timeline",
    "by_count",
    "change_colors",
    "change_rows",
    "check_upload",
    "churn",
    "churn_span",
    "clean_up",
    "conflict_counts",
    "conflict_groups",
    "conflict_page",
    "conflict_table",
    "current_choices",
    "date_label",
    "entity_choices",
    "entity_fact_counts",
    "entity_facts",
    "entity_page_facts",
    "entity_ranking",
    "export_bytes",
    "fact_row",
    "fact_table",
    "facts_by_id",
    "facts_view",
    "graph_overview",
    "group_facts",
    "import_upload",
    "keep_first",
    "labelled",
    "matching_pairs",
    "opening_day",
    "page_count",
    "page_of",
    "pair_names",
    "path_colors",
    "path_steps",
    "predicate_fact_counts",
    "rejects_frame",
    "relationship_history",
    "saved",
    "timeline",
    "window",
]

T = TypeVar("T")

_EPOCH = dt.datetime(1970, 1, 1)  # the store's instant keys count microseconds from here (UTC)


# ---------------------------------------------------------------------- labels and lookups


def labelled(
    frame: pl.DataFrame, labels: Mapping[str, str], *, column: str = "predicate", alias: str | None = None
) -> pl.DataFrame:
    """``frame`` with each predicate id of ``column`` replaced by its label (``kg.predicate_labels()``: its first
    spelling, contract §13), in ``alias`` (default: in place); an id without a label stays as it is.

    >>> labelled(pl.DataFrame({"predicate": ["works_at", "x"]}), {"works_at": "worksAt"})["predicate"].to_list()
    ['worksAt', 'x']
    """
    return frame.with_columns(
        pl.col(column)
        .replace_strict(dict(labels), default=pl.col(column), return_dtype=pl.String)
        .alias(alias or column)
    )


def fact_table(facts: pl.DataFrame) -> pl.DataFrame:
    """A facts frame as the pages list it: id, subject, predicate (its label when the frame has one), object,
    valid_from, valid_to, current, confidence, source, source_closet (those the frame has)."""
    shown = "predicate_label" if "predicate_label" in facts.columns else "predicate"
    cols = [
        c
        for c in (
            "id",
            "subject_name",
            shown,
            "object_name",
            "valid_from",
            "valid_to",
            "current",
            "confidence",
            "source",
            "source_closet",
        )
        if c in facts.columns
    ]
    return facts.select(cols).rename(
        {"subject_name": "subject", "object_name": "object", "predicate_label": "predicate"}, strict=False
    )


def by_count(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """``counts`` (e.g. entities by type), the largest first (equals in their order).

    >>> by_count({"person": 2, "team": 5, "unknown": 2})
    [('team', 5), ('person', 2), ('unknown', 2)]
    """
    return sorted(counts.items(), key=lambda kv: -kv[1])


def window(day: dt.date, span: str, until: dt.date | None = None) -> str:
    """The sidebar's time window as the library takes it: ``day`` (``span`` ``day``), its month (``2014-03``), its
    year (``2014``), or the range from ``day`` to ``until`` in either order (``2014-01-01/2014-03-31``: the facts
    overlapping it, :func:`kgtoolkit.frames.valid_at`).

    >>> d = dt.date(2014, 3, 9)
    >>> [window(d, s, dt.date(2014, 1, 1)) for s in ("day", "month", "year", "range")]
    ['2014-03-09', '2014-03', '2014', '2014-01-01/2014-03-09']
    """
    if span == "month":
        return day.isoformat()[:7]
    if span == "year":
        return day.isoformat()[:4]
    if span == "range":
        first, last = sorted((day, until or day))
        return f"{first.isoformat()}/{last.isoformat()}"
    return day.isoformat()


def date_label(window: str | None) -> str:
    """A window (:func:`window`, None for all dates) as the pages say it.

    >>> [date_label(w) for w in (None, "2014-03-09", "2014-03", "2014-01-01/2014-03-09")]
    ['all dates', 'as of 2014-03-09', 'in 2014-03', 'from 2014-01-01 to 2014-03-09']
    """
    if window is None:
        return "all dates"
    if "/" in window:
        return "from {} to {}".format(*window.split("/"))
    return f"as of {window}" if len(window) == 10 else f"in {window}"


def facts_by_id(facts: pl.DataFrame, ids: Iterable[int]) -> pl.DataFrame:
    """The rows of ``facts`` whose id is one of ``ids``, in the frame's order."""
    return facts.filter(pl.col("id").is_in(list(ids)))


def page_count(items: int, per_page: int) -> int:
    """How many pages ``items`` fill, ``per_page`` a page (at least one: an empty list is one empty page).

    >>> page_count(0, 20), page_count(20, 20), page_count(21, 20)
    (1, 1, 2)
    """
    return max(1, -(-items // per_page))


@overload
def page_of(items: pl.DataFrame, page: int, per_page: int) -> pl.DataFrame: ...
@overload
def page_of(items: Sequence[T], page: int, per_page: int) -> Sequence[T]: ...
def page_of(items: pl.DataFrame | Sequence[T], page: int, per_page: int) -> pl.DataFrame | Sequence[T]:
    """Page ``page`` (from 1) of ``items`` (a list, or a frame's rows), ``per_page`` a page.

    >>> page_of(list(range(7)), 2, 3)
    [3, 4, 5]
    """
    return items[(page - 1) * per_page : page * per_page]


# ---------------------------------------------------------------------- entity lists


@dataclasses.dataclass(frozen=True, slots=True)
class EntityChoices:
    """What an entity picker lists: the ids of the ranking it was made from (``known``; the dashboard ranks only
    the ones it lists and looks any other up alone), the ``top`` most connected, each one's name and fact count."""

    known: frozenset[str]
    top: tuple[str, ...]
    names: dict[str, str]
    counts: dict[str, int]


#: :func:`entity_ranking`'s columns (those of :func:`kgtoolkit.analysis.most_connected` a picker reads).
RANKING_SCHEMA: dict[str, pl.DataType] = analysis.CONNECTED_SCHEMA


def entity_ranking(
    kg: kgtoolkit.KnowledgeGraph, *, limit: int | None = None, ids: Sequence[str] | None = None
) -> pl.DataFrame:
    """Entities by the facts naming them, most first, ties by id (:data:`RANKING_SCHEMA`), counted in the engine
    (:func:`kgtoolkit.store.connected_counts`, as :func:`kgtoolkit.analysis.most_connected` counts them): ``limit``
    the first ones, ``ids`` only those."""
    if ids is not None and not ids:
        return pl.DataFrame(schema=RANKING_SCHEMA)
    counted = connected_counts(kg, limit, ids=ids)
    return counted.with_columns((pl.col("outgoing") + pl.col("incoming")).alias("facts")).select(*RANKING_SCHEMA)


def entity_choices(ranking: pl.DataFrame, limit: int) -> EntityChoices:
    """An entity picker's lists from a ranking (:func:`kgtoolkit.analysis.most_connected`, most connected first)."""
    ids = ranking["id"].to_list()
    return EntityChoices(
        frozenset(ids),
        tuple(ids[:limit]),
        dict(zip(ids, ranking["name"].to_list(), strict=True)),
        dict(zip(ids, ranking["facts"].to_list(), strict=True)),
    )


def entity_fact_counts(ranking: pl.DataFrame) -> dict[str, int]:
    """How many facts name each entity (either side), by id, from a ranking
    (:func:`~kgtoolkit.analysis.most_connected`)."""
    return dict(zip(ranking["id"].to_list(), ranking["facts"].to_list(), strict=True))


def predicate_fact_counts(kg: kgtoolkit.KnowledgeGraph) -> dict[str, int]:
    """How many facts use each predicate, by id."""
    return {p.id: p.facts for p in kg.predicates()}


# ---------------------------------------------------------------------- the Entity page


@dataclasses.dataclass(frozen=True, slots=True)
class EntityFacts:
    """The facts of one entity as its page lists them (rows of the dashboard's facts frame).

    ``history``: every fact around it (:func:`kgtoolkit.frames.around`: what :meth:`KnowledgeGraph.query` answers),
    oldest first; ``current``: those current now, by predicate; ``valid``: those valid in the sidebar's window;
    ``cited``: those pointing at evidence (``source_closet``); ``ended``: how many have ended.
    """

    history: pl.DataFrame
    current: pl.DataFrame
    valid: pl.DataFrame
    cited: pl.DataFrame
    ended: int

    @property
    def opening(self) -> Literal["current", "valid", "history"]:
        """The tab to open on: the current facts; when none (a historical graph), those of the window; else the history."""
        return "current" if self.current.height else "valid" if self.valid.height else "history"


def entity_facts(facts: pl.DataFrame, entity_id: str, window: str | None) -> EntityFacts:
    """The Entity page's lists for ``entity_id`` from the facts frame, ``window`` the sidebar's (a day, a month, a
    year, ``START/END``, or None for all dates: :func:`kgtoolkit.frames.valid_at`)."""
    history = frames.around(facts, entity_id)
    return EntityFacts(
        history=history.sort("start", "id", nulls_last=True),
        current=history.filter(pl.col("current")).sort("predicate", "start"),
        valid=frames.valid_at(history, window).sort("start", "id", nulls_last=True),
        cited=history.filter(pl.col("source_closet").is_not_null()).sort("start", nulls_last=True),
        ended=history.filter(pl.col("state") == "ended").height,
    )


def entity_page_facts(
    kg: kgtoolkit.KnowledgeGraph, entity_id: str, window: str | None, labels: Mapping[str, str]
) -> EntityFacts:
    """:func:`entity_facts` of the facts naming ``entity_id`` alone, read from the store (:func:`kgtoolkit.frames.stream`
    filtered by the entity in SQL, names looked up by key), each predicate labelled: the same lists as from the
    whole facts frame."""
    found = pl.concat(list(frames.stream(kg, entity=entity_id, batch_size=100_000)))
    assert isinstance(found, pl.DataFrame)
    return entity_facts(labelled(found, labels, alias="predicate_label"), entity_id, window)


@dataclasses.dataclass(frozen=True, slots=True)
class Timeline:
    """The Entity page's Gantt chart: ``bars`` (``row``, ``label``, ``start``, ``end``, ``state``, ``id``; times
    without a time zone, in drawing order), ``total`` intervals of which the latest ``bars.height`` are drawn."""

    bars: pl.DataFrame
    total: int


def timeline(facts: pl.DataFrame, *, as_of: str | None, now: dt.datetime, limit: int = 150) -> Timeline:
    """The bars of ``facts`` (:func:`kgtoolkit.analysis.gantt`, coloured by each fact's state on ``as_of``), the
    latest ``limit`` of them, each row named by its fact and start day."""
    bars = analysis.gantt(facts, now=now, as_of=as_of)
    total = bars.height
    if total > limit:
        bars = bars.sort("start").tail(limit)
    shown = (
        bars.sort("start", "id")
        .with_columns(
            (pl.col("label") + pl.lit("  · ") + pl.col("start").dt.strftime("%Y-%m-%d")).alias("row"),
            pl.col("start").dt.replace_time_zone(None),
            pl.col("end").dt.replace_time_zone(None),
        )
        .select("row", "label", "start", "end", "state", "id")
    )
    return Timeline(shown, total)


# ---------------------------------------------------------------------- drawing chosen facts (Paths, Changes)


def graph_overview(
    kg: kgtoolkit.KnowledgeGraph,
    window: str | None,
    labels: Mapping[str, str],
    *,
    center: str | None = None,
    hops: int = 1,
    predicates: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    max_nodes: int = 150,
) -> graphview.GraphView:
    """The Graph page's picture asked of the engine: without ``center``, the ``max_nodes`` entities with the most
    relationship facts valid in ``window`` (:func:`kgtoolkit.store.link_ranking`); with it, its neighbourhood of
    ``hops`` walked in the engine (:func:`kgtoolkit.store.neighbourhood`); ``predicates`` and ``types`` as the page's
    filters. Only the facts among the drawn entities are read (:func:`kgtoolkit.frames.facts_among`), each predicate
    labelled: the same view as :func:`kgtoolkit.dashboard.graphview.build` of the whole frame valid then
    (:func:`kgtoolkit.frames.valid_at`)."""
    preds, kinds = predicates or None, types or None
    if center is None:
        ranking = link_ranking(kg, as_of=window, predicates=preds, types=kinds, limit=max_nodes + 5)
        ranked: Sequence[tuple[Any, ...]] = ranking.ranked
        nodes, links, hidden = ranking.nodes, ranking.links, None
    else:
        around = neighbourhood(kg, center, hops=hops, as_of=window, predicates=preds, types=kinds, max_nodes=max_nodes)
        ranked, nodes, links, hidden = around.ranked, around.nodes, around.links, around.hidden
    kept = [r[0] for r in ranked[:max_nodes]]
    facts = labelled(frames.facts_among(kg, kept, as_of=window), labels, alias="predicate_label")
    return graphview.build_ranked(
        facts,
        ranked,
        total_nodes=nodes,
        total_edges=links,
        center=center,
        hops=hops,
        hidden=hidden,
        predicates=predicates,
        types=types,
        max_nodes=max_nodes,
    )


def facts_view(facts: pl.DataFrame, colors: Mapping[int, str], max_nodes: int) -> graphview.GraphView:
    """The facts of ``colors`` (fact id → colour) drawn as a graph, each edge holding one of them in its colour."""
    return graphview.highlight(graphview.build(facts_by_id(facts, colors), max_nodes=max_nodes), colors)


def path_colors(paths: Sequence[Sequence[Any]], first: str, other: str) -> dict[int, str]:
    """Fact id → colour for the Paths page: the facts of the first (shortest) path in ``first``, the others'
    in ``other``."""
    return {f.id: other for p in paths[1:] for f in p} | {f.id: first for f in paths[0]} if paths else {}


def path_steps(walk: Sequence[Any]) -> tuple[str, list[tuple[bool, str, str, str]]]:
    """A path (:meth:`KnowledgeGraph.paths`' facts, each with its ``direction``) as its first entity's name and
    its steps: (forward, predicate, the entity reached, the fact's span)."""
    start = walk[0].subject_name if walk[0].direction != "incoming" else walk[0].object_name
    steps = [
        (
            f.direction != "incoming",
            f.predicate,
            f.object_name if f.direction != "incoming" else f.subject_name,
            f"{f.valid_from or '?'} … {f.valid_to or 'now'}",
        )
        for f in walk
    ]
    return start, steps


def change_colors(changes: Iterable[Any], colors: Mapping[str, str]) -> dict[int, str]:
    """Fact id → colour for the Changes page: each fact of a change in its kind's colour (``colors``), the old
    fact of a replacement in the colour of ``ended``."""
    out: dict[int, str] = {}
    for change in changes:
        for fact in (change.old, change.new):
            if fact is not None:
                out.setdefault(
                    fact.id, colors[change.kind] if change.kind != "replaced" or fact is change.new else colors["ended"]
                )
    return out


def change_rows(changes: Iterable[Any], labels: Mapping[str, str]) -> pl.DataFrame:
    """The Changes page's list: ``at``, ``change``, ``subject``, ``predicate`` (its label), ``from``, ``to``."""
    rows = [
        {
            "at": ch.at,
            "change": ch.kind,
            "subject": (ch.new or ch.old).subject_name,
            "predicate": labels.get(ch.predicate, ch.predicate),
            "from": ch.old.object_name if ch.old else "",
            "to": ch.new.object_name if ch.new else "",
        }
        for ch in changes
    ]
    return pl.DataFrame(rows, schema={k: pl.String for k in ("at", "change", "subject", "predicate", "from", "to")})


# ---------------------------------------------------------------------- the opening day


def opening_day(kg: kgtoolkit.KnowledgeGraph, *, today: dt.date) -> tuple[dt.date, str | None]:
    """:func:`kgtoolkit.dashboard.graphview.opening_day` of the graph's facts, asked of the engine (a count of the
    facts valid ``today``, the nearest end before it and start after it) instead of read from its whole frame."""
    if not count_facts(kg, as_of=today.isoformat()) and count_facts(kg):
        midnight = (dt.datetime.combine(today, dt.time()) - _EPOCH) // dt.timedelta(microseconds=1)
        before, after = nearest_bounds(kg, midnight, midnight + 86_400_000_000)
        if before is not None:
            day = (_EPOCH + dt.timedelta(microseconds=before)).date()
            return day, f"No fact is valid on {today.isoformat()}; showing {day.isoformat()}, the last day with facts."
        if after is not None:
            day = (_EPOCH + dt.timedelta(microseconds=after)).date()
            return day, (
                f"No fact is valid on {today.isoformat()}; showing {day.isoformat()}, the first day with "
                "facts (every fact starts later)."
            )
    return today, None


# ---------------------------------------------------------------------- the Churn page


def churn_span(kg: kgtoolkit.KnowledgeGraph) -> tuple[dt.date, dt.date] | None:
    """The days the Churn page's window slider runs between: the first start, the last start or end (at least a
    day later); None when no fact has a known start. Asked of the engine (:func:`kgtoolkit.store.fact_span`)."""
    span = fact_span(kg)
    if span is None:
        return None
    first, last = (_EPOCH + dt.timedelta(microseconds=us) for us in span)
    return first.date(), max(last.date(), first.date() + dt.timedelta(days=1))  # a slider needs two different ends


def _naive(frame: pl.DataFrame, *columns: str | pl.Expr) -> pl.DataFrame:
    """``period`` without its time zone (what a chart draws), then ``columns``."""
    return frame.select(pl.col("period").dt.replace_time_zone(None), *columns)


@dataclasses.dataclass(frozen=True, slots=True)
class Churn:
    """The Churn page's tables (:func:`kgtoolkit.analysis.churn` overall and per predicate,
    :func:`~kgtoolkit.analysis.most_volatile` entities, :func:`~kgtoolkit.analysis.most_changed` relationships),
    predicates labelled, with the totals and chart frames the page draws."""

    overall: pl.DataFrame
    by_predicate: pl.DataFrame
    volatile: pl.DataFrame
    changed: pl.DataFrame

    @property
    def added(self) -> int:
        return int(self.overall["added"].sum())

    @property
    def ended(self) -> int:
        return int(self.overall["ended"].sum())

    @property
    def renewed(self) -> int:
        """Renewals (contract §11): the same fact again back to back, neither added nor ended."""
        return int(self.overall["renewed"].sum())

    @property
    def net(self) -> int:
        return int(self.overall["net"].sum())

    @property
    def mean_rate(self) -> float | None:
        """The mean churn rate over the periods that have one (None when none has)."""
        rate = self.overall["churn_rate"].drop_nulls()
        return float(rate.mean()) if rate.len() else None  # type: ignore[arg-type]

    @property
    def events(self) -> int:
        return int(self.overall["events"].sum())

    @property
    def states(self) -> int:
        """State facts added plus ended (0 in a graph of events only)."""
        return self.added + self.ended

    def busiest(self) -> dict[str, Any]:
        """The period with the most events (the first of equals), as a row."""
        return self.overall.sort("events", descending=True, maintain_order=True).row(0, named=True)

    @property
    def last_events_change(self) -> int:
        return int(self.overall["events_change"][-1] or 0)

    def volume(self) -> pl.DataFrame:
        """Events per period and their change from the period before."""
        return _naive(self.overall, "events", "events_change")

    def moves(self) -> pl.DataFrame:
        """Added and ended per period, long (``event``, ``facts``), the ended below zero."""
        return _naive(self.overall, "added", (-pl.col("ended")).alias("ended")).unpivot(
            index="period", variable_name="event", value_name="facts"
        )

    def active(self) -> pl.DataFrame:
        return _naive(self.overall, "active_at_end")

    def top_predicates(self, top: int = 8) -> pl.DataFrame:
        """The changes (added + ended + events) per period of the ``top`` predicates with the most of them."""
        moves = pl.col("added") + pl.col("ended") + pl.col("events")
        ranked = (
            self.by_predicate.group_by("predicate")
            .agg(moves.sum().alias("n"))
            .sort("n", descending=True)["predicate"]
            .head(top)
            .to_list()
        )
        return _naive(self.by_predicate.filter(pl.col("predicate").is_in(ranked)), "predicate", moves.alias("changes"))

    def volatile_moves(self) -> pl.DataFrame:
        """The most volatile entities' added and ended, long (``entity_name``, ``event``, ``facts``)."""
        return self.volatile.select("entity_name", "added", "ended").unpivot(
            index="entity_name", variable_name="event", value_name="facts"
        )

    def changed_table(self) -> pl.DataFrame:
        """The most changed relationships as listed: subject, predicate, changes, history and current objects."""
        return self.changed.select(
            "subject_name",
            "predicate",
            "changes",
            pl.col("history").list.join(" → "),
            pl.col("current_objects").list.join(", "),
        ).rename({"subject_name": "subject", "current_objects": "current"})


def churn(
    kg: kgtoolkit.KnowledgeGraph,
    labels: Mapping[str, str],
    *,
    every: str,
    since: str,
    until: str,
    top: int,
    multi_valued: Collection[str],
) -> Churn:
    """The Churn page's tables over the graph ``kg`` per ``every`` (``1mo``…) from ``since`` to ``until``, the
    ``top`` entities and relationships, each predicate as people spell it (``labels``: ``kg.predicate_labels()``).
    Each is asked of the engine (the analysis given the graph, not a facts frame): no whole frame is read."""
    return Churn(
        overall=analysis.churn(kg, every=every, since=since, until=until),
        by_predicate=labelled(analysis.churn(kg, every=every, since=since, until=until, by="predicate"), labels),
        volatile=analysis.most_volatile(kg, by="entity", top=top, since=since, until=until),
        changed=labelled(
            analysis.most_changed(kg, top=top, since=since, until=until, multi_valued=multi_valued), labels
        ),
    )


# ---------------------------------------------------------------------- the Conflicts page


def conflict_table(
    facts: pl.DataFrame,
    labels: Mapping[str, str],
    multi_valued: Collection[str],
    *,
    one_holder: Collection[str] = (),
    single_valued: Collection[str] = (),
) -> pl.DataFrame:
    """The conflict groups (:func:`kgtoolkit.analysis.conflicts`: pass the graph's ``multi_valued``, ``one_holder`` and
    ``single_valued``; whole groups, every fact of each), those needing action first, each with its
    ``predicate_label`` and ``history_more`` (0: the whole history is listed)."""
    found = analysis.conflicts(facts, multi_valued=multi_valued, one_holder=one_holder, single_valued=single_valued)
    return labelled(found, labels, alias="predicate_label").with_columns(pl.lit(0, pl.Int64).alias("history_more"))


#: How many ended facts a group of the Conflicts page lists (the last ended; contract §5 ``conflicts``).
PAGE_HISTORY = 20


@dataclasses.dataclass(frozen=True, slots=True)
class ConflictPage:
    """One page of conflict groups as the Conflicts page lists them: ``groups`` (rows shaped as those of
    :func:`conflict_table`, the page's alone), ``facts`` (the facts the page's groups carry, labelled), ``total``
    (the groups on every page)."""

    groups: pl.DataFrame
    facts: pl.DataFrame
    total: int


def conflict_page(
    kg: kgtoolkit.KnowledgeGraph,
    labels: Mapping[str, str],
    *,
    needs_only: bool,
    page: int,
    per_page: int,
    history: int = PAGE_HISTORY,
) -> ConflictPage:
    """Page ``page`` (from 1) of the conflict groups (those needing action when ``needs_only``), judged and cut in
    the engine (:meth:`KnowledgeGraph.conflicts`), each with its current and scheduled facts and its last
    ``history`` ended ones; only those facts are read (:func:`kgtoolkit.frames.facts_with_ids`). The rows are the
    groups' records (their judgement and counts, ``history_more`` the ended facts not carried; ``object_names``
    those of the facts carried) beside the overlap columns :func:`kgtoolkit.analysis.conflicts` computes from their
    current facts (all carried)."""
    found = kg.conflicts(needs_action=needs_only, limit=per_page, offset=(page - 1) * per_page, history=history)
    facts = labelled(
        frames.facts_with_ids(kg, [f.id for g in found.items for f in g.facts]), labels, alias="predicate_label"
    )
    schema = analysis.CONFLICTS_SCHEMA
    groups = found.items
    records = pl.DataFrame(
        {
            "subject": [g.subject for g in groups],
            "subject_name": [g.subject_name for g in groups],
            "predicate": [g.predicate for g in groups],
            "objects": [g.objects for g in groups],
            "object_names": [_distinct_names(g.facts, "object") for g in groups],
            "facts": [[f.id for f in g.facts] for g in groups],
            "current": [g.current for g in groups],
            "needs_action": [g.needs_action for g in groups],
            "current_objects": [[f.object_name for f in g.facts if f.state == "current"] for g in groups],
            "scheduled": [g.scheduled for g in groups],
            "planned_switch": [g.planned_switch for g in groups],
            "switch_overlaps": [g.switch_overlaps for g in groups],
            "by": [g.by for g in groups],
            "object": [g.object for g in groups],
            "object_name": [g.object_name for g in groups],
            "subjects": [g.subjects for g in groups],
            "subject_names": [_distinct_names(g.facts, "subject") for g in groups],
            "current_subjects": [[f.subject_name for f in g.facts if f.state == "current"] for g in groups],
            "history_more": [g.history_more for g in groups],
        },
        schema={**{k: schema[k] for k in schema if k not in _OVERLAP}, "history_more": pl.Int64()},
    )
    config = kg.config
    overlap = analysis.conflicts(
        facts, multi_valued=config.multi_valued, one_holder=config.one_holder, single_valued=config.single_valued
    ).select("by", "predicate", _anchor(), *_OVERLAP)
    table = records.with_columns(_anchor()).join(
        overlap, on=["by", "predicate", "_anchor"], how="left", maintain_order="left"
    )
    table = labelled(table.select(*schema, "history_more"), labels, alias="predicate_label")
    return ConflictPage(table.select(*schema, "predicate_label", "history_more"), facts, found.total)


def _distinct_names(facts: Iterable[kgtoolkit.Fact], side: Literal["subject", "object"]) -> list[str]:
    """The names of the distinct objects (or subjects) among ``facts`` (those a group carries), each once, in their
    order (value objects compared case-insensitively, entity objects by id, as :func:`kgtoolkit.analysis.conflicts`
    does)."""
    seen: dict[str, str] = {}
    for f in facts:
        if side == "subject":
            seen.setdefault(f.subject, f.subject_name)
        else:
            seen.setdefault(f.object_key, f.object_name)
    return list(seen.values())


def _anchor() -> pl.Expr:
    """Which group a row of :func:`conflict_table` is, beside ``by`` and ``predicate``: its subject, or (by object)
    its object case-folded (an entity id is case-folded already; a value is compared case-insensitively), whichever
    of the object's spellings the row names."""
    folded = pl.col("object").map_batches(
        lambda s: pl.Series(s.name, [None if v is None else v.casefold() for v in s.to_list()], dtype=pl.String),
        return_dtype=pl.String,
    )
    return pl.when(pl.col("by") == "object").then(folded).otherwise(pl.col("subject")).alias("_anchor")


#: The columns of :data:`kgtoolkit.analysis.CONFLICTS_SCHEMA` about a group's current facts overlapping.
_OVERLAP = ("overlap_start", "overlap", "open_since", "open_for")


def conflict_groups(table: pl.DataFrame, *, needs_only: bool, text: str) -> pl.DataFrame:
    """The groups the page lists: those needing action when ``needs_only``, and those whose subject (its id or
    name; the object of a one-holder group) or predicate contains ``text`` (ignoring case) when it is not blank."""
    shown = table.filter(pl.col("needs_action")) if needs_only else table
    probe = text.strip().casefold()
    if probe:
        shown = shown.filter(
            pl.coalesce("subject", "object").str.contains(probe, literal=True)
            | pl.coalesce("subject_name", "object_name").str.to_lowercase().str.contains(probe, literal=True)
            | pl.col("predicate").str.contains(probe, literal=True)
        )
    return shown


def group_facts(facts: pl.DataFrame, ids: Iterable[int]) -> pl.DataFrame:
    """The facts of a group (by id), oldest first."""
    return facts_by_id(facts, ids).sort("start", "id", nulls_last=True)


def listed_facts(members: pl.DataFrame, history: int = PAGE_HISTORY) -> tuple[pl.DataFrame, int]:
    """What a group lists of ``members`` (:func:`group_facts`): its facts not ended and its last ``history`` ended
    ones (the latest end first, as ``kg.conflicts`` cuts them), oldest first; and how many ended facts it leaves out."""
    ended = pl.col("state") == "ended"
    last = members.filter(ended).sort("end", "start", "id", descending=True, nulls_last=True).head(history)["id"]
    kept = members.filter(~ended | pl.col("id").is_in(last.implode()))
    return kept, members.height - kept.height


def current_choices(members: pl.DataFrame) -> dict[int, str]:
    """The current facts among ``members``: fact id → its object's name (what a group's form offers to end or replace)."""
    live = members.filter(pl.col("current"))
    return dict(zip(live["id"].to_list(), live["object_name"].to_list(), strict=True))


def fact_row(facts: pl.DataFrame, fact_id: int) -> dict[str, Any]:
    """One fact of the frame, as a row (``subject``, ``predicate``, ``object``…)."""
    return facts.filter(pl.col("id") == fact_id).row(0, named=True)


# ---------------------------------------------------------------------- the Clean up page (contract §14)


def matching_pairs(found: Iterable[DuplicateCandidate], text: str) -> list[DuplicateCandidate]:
    """The candidates either of whose names contains ``text`` (ignoring case); every one when it is blank."""
    probe = text.strip().casefold()
    return [p for p in found if probe in p.a_name.casefold() or probe in p.b_name.casefold()] if probe else list(found)


def pair_names(pair: DuplicateCandidate, labels: Mapping[str, str]) -> dict[str, str]:
    """The two sides of ``pair`` as the page names them: id → its name, a predicate's label (``labels``, contract §13)
    when it has one."""
    return {pair.a: labels.get(pair.a, pair.a_name), pair.b: labels.get(pair.b, pair.b_name)}


def keep_first(pair: DuplicateCandidate, counts: Mapping[str, int]) -> str:
    """The side of ``pair`` offered to keep: the one more facts name, then the longer name (usually the spelling
    people use), then ``b``."""
    names = {pair.a: pair.a_name, pair.b: pair.b_name}
    return max((pair.b, pair.a), key=lambda i: (counts.get(i, 0), len(names[i])))


def _facts(n: int) -> str:
    return f"{n:,} fact" if n == 1 else f"{n:,} facts"


#: The Clean up page's actions by kind: what each button does to the pair (``keep`` and the other, ``drop``).
CLEAN_UP_ACTIONS: dict[str, tuple[str, ...]] = {"entities": ("merge", "not_same"), "predicates": ("alias", "not_same")}


def clean_up_preview(kind: str, keep: str, drop: str, moved: int) -> str:
    """What a Merge (entities) or Make alias (predicates) will do, asked before it is done, as Markdown: which side
    is kept, how many facts move (``moved``: the facts naming ``drop``), and what becomes of the other name."""
    if kind == "entities":
        return (
            f"Merge **{md_text(drop)}** into **{md_text(keep)}**? **{md_text(keep)}** is kept; the "
            f"{_facts(moved)} of **{md_text(drop)}** move to it, and {md_code(drop)} becomes an alias of it. "
            "The dashboard cannot undo a merge."
        )
    return (
        f"Fold {md_code(drop)} into {md_code(keep)}? {md_code(keep)} is kept; the {_facts(moved)} of "
        f"{md_code(drop)} fold into it, and {md_code(drop)} becomes a predicate alias of it. The dashboard cannot "
        "undo this."
    )


def clean_up(kg: kgtoolkit.KnowledgeGraph, kind: str, action: str, keep: str, drop: str) -> str:
    """One Clean up action on a duplicate pair, through the library; what it did, as Markdown (names escaped).

    * ``merge`` (entities): :meth:`~KnowledgeGraph.merge` ``drop`` into ``keep``: its facts move, its name
      becomes an alias of ``keep``. (``alias`` refuses a name that is an entity already: for two entities,
      making one name an alias of the other *is* the merge.)
    * ``alias`` (predicates): :meth:`~KnowledgeGraph.rename_predicate` ``drop`` into ``keep``: its facts fold
      into ``keep`` and it becomes a predicate alias of ``keep``. (``alias_predicate`` refuses a predicate
      that has facts, and every listed predicate has some.)
    * ``not_same``: :meth:`~KnowledgeGraph.not_duplicates`: never suggested again.

    Raises the library's :class:`~kgtoolkit.KGError` (nothing changed then).
    """
    if action not in CLEAN_UP_ACTIONS.get(kind, ()):
        raise kgtoolkit.InvalidRequest(f"no Clean up action {action!r} for {kind}", field="action", value=action)
    if action == "not_same":
        marked = kg.not_duplicates(keep, drop, kind=kind)
        said = "Marked" if marked.created else "Already marked"
        return (
            f"{said} **{md_text(marked.a_name)}** and **{md_text(marked.b_name)}** as not the same: "
            "they are never suggested again."
        )
    if action == "merge":
        name = kg.entity(drop).name
        merged = kg.merge(drop, keep)
        folded = f" ({merged.deduplicated:,} identical ones folded into one)" if merged.deduplicated else ""
        return (
            f"Merged **{md_text(name)}** into **{md_text(merged.target.name)}**: {_facts(merged.moved)} "
            f"moved{folded}; {md_code(name)} is an alias of it now."
            + "".join(f"  \n{md_text(w)}" for w in merged.warnings)
        )
    renamed = kg.rename_predicate(drop, keep)
    folded = f" ({renamed.deduplicated:,} identical ones folded into one)" if renamed.deduplicated else ""
    return (
        f"Folded {_facts(renamed.moved)} of {md_code(renamed.old)} into {md_code(renamed.new)}{folded}; "
        f"{md_code(renamed.old)} is an alias of it now."
    )


# ---------------------------------------------------------------------- the Search page


def relationship_history(facts: pl.DataFrame, subject: str, predicate: str) -> pl.DataFrame:
    """Every fact of one (subject, predicate), oldest first: a search hit's history."""
    return facts.filter((pl.col("subject") == subject) & (pl.col("predicate") == predicate)).sort(
        "start", "id", nulls_last=True
    )


# ---------------------------------------------------------------------- the Import / export page


@contextmanager
def saved(name: str, data: bytes) -> Iterator[Path]:
    """An upload as a temporary file with its own suffix (the library reads files, and tells the format by suffix)."""
    with tempfile.TemporaryDirectory(prefix="kgdash-") as folder:
        target = Path(folder) / Path(name).name
        target.write_bytes(data)
        yield target


def check_upload(
    kg: kgtoolkit.KnowledgeGraph, name: str, data: bytes, *, comma_guard: bool, source: str | None
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """An upload's rows (the preview) and the library's dry run of importing it into ``kg``
    (:func:`kgtoolkit.io.import_file` with ``dry_run``: its settings' rules, nothing written, so a read-only
    graph can check a file too)."""
    with saved(name, data) as file:
        rows = io.read_facts_file(file)
        report = io.import_file(kg, file, on_error="skip", comma_guard=comma_guard, source=source, dry_run=True)
    return rows, report.to_dict()


def import_upload(
    kg: kgtoolkit.KnowledgeGraph, name: str, data: bytes, *, comma_guard: bool, source: str | None
) -> kgtoolkit.ImportReport:
    """Import an upload's valid rows into ``kg`` (one transaction; bad rows skipped)."""
    with saved(name, data) as file:
        return io.import_file(kg, file, on_error="skip", comma_guard=comma_guard, source=source)


#: The import page's own controls, by the library parameter a message names (a page names its own options).
_IMPORT_CONTROLS = {"comma_guard=True": "the switch “Refuse names with commas”"}


def import_wording(message: str) -> str:
    """An import's warning or error as the import page words it: the page's switch where the library names its
    parameter.

    >>> import_wording("… imported as written; comma_guard=True refuses them as packed lists")
    '… imported as written; the switch “Refuse names with commas” refuses them as packed lists'
    """
    for parameter, control in _IMPORT_CONTROLS.items():
        message = message.replace(parameter, control)
    return message


def rejects_frame(dry: Mapping[str, Any]) -> pl.DataFrame:
    """A dry run's bad rows (``line``, ``field``, ``value``, ``reason``): the report the page lists and offers."""
    return pl.DataFrame(
        dry["rejects"], schema={"line": pl.Int64, "field": pl.String, "value": pl.String, "reason": pl.String}
    )


def export_bytes(
    kg: kgtoolkit.KnowledgeGraph,
    name: str,
    fmt: str,
    *,
    current_only: bool = False,
    predicate: str | None = None,
    as_of: str | None = None,
) -> tuple[str, bytes, int]:
    """The graph exported as ``fmt`` (:func:`kgtoolkit.io.export_file`; ``json``: the whole dump, no filters):
    the file's name (``name`` with the format's suffix), its bytes and how many facts it holds."""
    with tempfile.TemporaryDirectory(prefix="kgdash-") as folder:
        target = Path(folder) / f"{Path(name).stem or 'graph'}.{fmt}"
        if fmt == "json":
            count = io.export_file(kg, target)
        else:
            count = io.export_file(kg, target, current_only=current_only, predicate=predicate, as_of=as_of)
        return target.name, target.read_bytes(), count

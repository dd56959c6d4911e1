"""A churn report of a graph: one self-contained HTML page and a Markdown summary beside it.

The HTML holds its charts as base64 PNG images and its style inline: no script, no stylesheet or
image from any host, so it opens offline and can be mailed as one file. Every name from the graph
is HTML-escaped (Markdown: table-escaped). The numbers come from :mod:`kgtoolkit.analysis`.

>>> import tempfile, pathlib
>>> from kgtoolkit._demo import build_demo
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> kg = build_demo(folder / "demo.sqlite3")
>>> html_path, md_path = churn_report(kg, out=folder / "churn.html")
>>> html_path.name, md_path.name
('churn.html', 'churn.md')
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._private import private_file
from ._report_options import ReportOptions
from ._time import TimeInput

if TYPE_CHECKING:
    import polars as pl

    from ._report_sources import ReportSource
    from .graph import KnowledgeGraph

__all__ = ["ReportOptions", "churn_report", "write_churn_report"]

_CHART_PREDICATES = 15  # predicates drawn in the per-predicate chart
_MD_PERIODS = 24  # most recent active periods listed in the Markdown summary
_BAR_LIMIT = 150  # above this many periods the per-period chart draws lines instead of bars
_CONFLICT_ROWS = 50  # open conflicts listed (longest open first); the headline counts them all
_HISTORY_ENDS = 3  # objects shown at each end of a long history in the HTML (the Markdown lists them all)
_NUMBER = re.compile(r"[+-]?[\d,]+(\.\d+)?%?")


@dataclass(frozen=True)
class _Data:
    """Everything the two renderings show, computed once."""

    title: str
    graph: str
    generated: str
    every: str
    window: tuple[str, str] | None
    headline: list[tuple[str, str, str]]  # (id, label, value)
    periods: pl.DataFrame
    predicates: pl.DataFrame
    entities: pl.DataFrame
    changed: pl.DataFrame
    conflicts: pl.DataFrame
    pairs: pl.DataFrame  # the busiest pairs of entities by events (analysis.event_graph)
    bursts: pl.DataFrame  # the whole periods whose events stand out (analysis.bursts)
    kind: str  # events, states or mixed (analysis.graph_kind)
    top: int


def churn_report(
    kg: KnowledgeGraph,
    *,
    options: ReportOptions | None = None,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    every: str = "1mo",
    out: str | os.PathLike[str] = "report.html",
    top: int = 10,
    now: TimeInput | None = None,
    title: str | None = None,
    renewals: bool = True,
) -> tuple[Path, Path]:
    """Write the churn report of a graph: an HTML page and a Markdown summary beside it.

    Covers the periods of :func:`kgtoolkit.analysis.churn_to_date`. What it shows depends on what the
    graph records (:func:`kgtoolkit.analysis.graph_kind`, contract §12). A graph of **states** gets facts
    added and ended to date (an end after today is **scheduled to end**, not ended), net, renewed, scheduled
    to end and to start, the most volatile entities and predicates, the most often changed (subject,
    predicate) pairs and the open conflicts needing action. A graph of **events** gets the event volume per
    period, the change of the last whole period (a partial period never headlines a change), the busiest
    period, predicates, entities and pairs, and the bursts; no state tiles. A mixed graph gets both. Partial
    periods are marked ``(partial)``.

    Parameters
    ----------
    kg
        The graph.
    options
        All the options below as one :class:`ReportOptions` (the same value serves
        :func:`kgtoolkit.spark.churn_report`); then none of them is given beside it.
    since, until
        The window. Default: from the first start to the last start or end, or to today when the
        graph plans past it.
    every
        The period, as ``analysis.churn`` reads it (``"1w"``, ``"1mo"``, ``"1q"``, ``"1y"``, …).
    out
        The HTML file. The Markdown is written beside it, with ``.md``.
    top
        How many entities, predicates and pairs each ranking lists (at least 1).
    now
        The moment conflicts' durations run to (default: the current time).
    title
        The report's title (default: "Knowledge-graph churn report").
    renewals
        Show a renewal (the same fact again back to back, contract §11) as ``renewed``, neither added
        nor ended. False counts its end and its start apart.

    Returns
    -------
    tuple[Path, Path]
        The HTML file and the Markdown file.

    Raises
    ------
    InvalidRequest
        What :class:`ReportOptions` refuses (``out`` named ``.md``, ``top`` below 1, an ``every`` that is no
        period, ``until`` before ``since``; ``options`` with an option beside it), or a window of more than
        ``analysis.MAX_PERIODS`` periods (the message names a longer ``every`` that fits). Nothing is written
        then.
    InvalidDate
        ``since``, ``until`` or ``now`` is not a time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kgtoolkit._demo import build_demo
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> html_path, md_path = churn_report(build_demo(folder / "demo.sqlite3"), out=folder / "churn.html")
    >>> html_path.name, md_path.name
    ('churn.html', 'churn.md')
    """
    from ._report_sources import GraphSource

    mine = dict(since=since, until=until, every=every, out=out, top=top, now=now, title=title, renewals=renewals)
    return write_churn_report(GraphSource(kg), ReportOptions.of(options, **mine))


def write_churn_report(source: ReportSource, options: ReportOptions | None = None, **fields: Any) -> tuple[Path, Path]:
    """Write the churn report of any source of the analyses (a graph's, a Spark run's), as :func:`churn_report` does.

    Parameters
    ----------
    source
        What answers the report's analyses (``kgtoolkit._report_sources.ReportSource``).
    options
        The report's options.
    **fields
        The same options as keywords (``since``, ``until``, ``every``, ``out``, ``top``, ``now``, ``title``,
        ``renewals``), when ``options`` is not given.

    Returns
    -------
    tuple[Path, Path]
        The HTML file and the Markdown file.

    Raises
    ------
    InvalidRequest
        What :func:`churn_report` refuses. Nothing is written then.
    InvalidDate
        ``since``, ``until`` or ``now`` is not a time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kgtoolkit._demo import build_demo
    >>> from kgtoolkit._report_sources import GraphSource
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> source = GraphSource(build_demo(folder / "demo.sqlite3"))
    >>> html_path, md_path = write_churn_report(source, ReportOptions(every="1q", out=folder / "q.html"))
    >>> html_path.name, md_path.name
    ('q.html', 'q.md')
    """
    options = ReportOptions.of(options, **fields)
    data = _collect(source, options)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    private_file(options.out).write_text(_html(data), encoding="utf-8")  # 0600: a report shows the graph's facts
    private_file(options.markdown).write_text(_markdown(data, options.out.name), encoding="utf-8")
    return options.out, options.markdown


# ---------------------------------------------------------------------- numbers


def _collect(source: ReportSource, options: ReportOptions) -> _Data:
    """Everything the report shows, asked of the source once."""
    import polars as pl

    from . import analysis
    from .analysis._to_date import _scheduled, _to_date
    from .frames import FACTS_SCHEMA

    every, top, now = options.every, options.top, options.now
    counts = source.counts()
    kind = analysis.graph_kind(counts)  # events, states or both (contract §12)
    span = source.span()
    # What happened, told from what is scheduled (after today), each period marked whole or partial; by default
    # the window ends today when the graph plans past it.
    periods = _to_date(
        source.churn, span, every=every, since=options.since, until=options.until, now=now, renewals=options.renewals
    )
    window: tuple[str, str] | None = None
    lo = hi = None
    if periods.height:
        # The window ends with the last period, computed in polars: the period after one of 9999 lies in
        # year 10000, which no Python datetime holds. (Truncating again undoes churn's clip of a period
        # begun in year 0, so that one ends where it should.)
        last_instant = dt.datetime.max.replace(tzinfo=dt.UTC)
        lo, hi = periods.select(
            pl.col("period").min().alias("lo"),
            (pl.col("period").max().dt.truncate(every).dt.offset_by(every) - dt.timedelta(microseconds=1))
            .clip(upper_bound=last_instant)
            .alias("hi"),
        ).row(0)
        window = (_day(lo), _day(hi))
    if lo is None:  # nothing happened in the chosen periods: the tables stay empty too
        empty = pl.DataFrame(schema=FACTS_SCHEMA)
        entities = analysis.most_volatile(empty, by="entity")
        predicates = analysis.most_volatile(empty, by="predicate")
        changed = analysis.most_changed(empty)
        pairs = analysis.event_graph(empty)
    else:  # the rankings count what happened: up to the end of today (what follows is scheduled)
        from .analysis._shared import _now

        assert hi is not None
        done: dt.datetime = max(min(hi, dt.datetime.combine(_now(now).date(), dt.time.max, tzinfo=dt.UTC)), lo)
        entities = source.most_volatile(by="entity", top=top, since=lo, until=done)
        predicates = source.most_volatile(by="predicate", top=None, since=lo, until=done)
        changed = source.most_changed(top=top, since=lo, until=done)
        pairs = source.event_graph(start=lo, end=done).head(top)
    groups = source.conflicts(now=now)
    open_conflicts = groups.filter(pl.col("needs_action"))
    # Shown by their labels (first spellings, contract §13): the tables and charts read these frames.
    labels = source.labels()
    if labels:
        predicates, changed, open_conflicts = (
            df.with_columns(pl.col("predicate").replace(labels)) if df.height else df
            for df in (predicates, changed, open_conflicts)
        )
        if pairs.height:
            pairs = pairs.with_columns(pl.col("predicates").list.eval(pl.element().replace(labels)))
    added, ended, renewed = (int(periods[c].sum()) for c in ("added", "ended", "renewed"))
    headline = [
        ("facts", "facts", _n(counts.facts)),
        ("entities", "entities", _n(counts.entities)),
        ("predicates", "predicates", _n(counts.predicates)),
    ]
    if kind != "events":  # state measures: what happened to date, what is scheduled after today
        scheduled = _scheduled(source.churn, span, now=now, renewals=options.renewals)
        headline += [
            ("current", "current facts", _n(counts.current_facts)),
            ("added", "added in the window", _n(added)),
            ("ended", "ended in the window (to date)", _n(ended)),
            *(
                [("renewed", "renewed in the window (back to back: neither added nor ended)", _n(renewed))]
                if renewed
                else []
            ),
            ("net", "net change", _signed(added - ended)),
            ("scheduled-end", "scheduled to end (after today)", _n(scheduled["ended"])),
            *(
                [("scheduled-start", "scheduled to start (after today)", _n(scheduled["added"]))]
                if scheduled["added"]
                else []
            ),
        ]
    if kind != "states" or int(periods["events"].sum()):
        headline += _event_headline(periods, every, pairs)
    if kind != "events":
        headline += [
            ("conflicts", "open conflicts needing action", _n(open_conflicts.height)),
            ("conflict-groups", "conflict groups (with history)", _n(groups.height)),
        ]
    if entities.height:
        label = "busiest entity (most events)" if kind == "events" else "most volatile entity"
        headline.append(("top-entity", label, str(entities["entity_name"][0])))
    return _Data(
        title=options.title or "Knowledge-graph churn report",
        graph=source.location,
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        every=every,
        window=window,
        headline=headline,
        periods=periods,
        predicates=predicates,
        entities=entities,
        changed=changed,
        conflicts=open_conflicts,
        pairs=pairs,
        bursts=analysis.bursts(periods).head(top),
        kind=kind,
        top=top,
    )


def _event_headline(periods: Any, every: str, pairs: Any) -> list[tuple[str, str, str]]:
    """The event numbers (contract §12): volume in the window, the change of the last whole period on the one
    before (a partial period never headlines a change), the busiest period and the busiest pair."""
    from .analysis import last_full_change

    volume = periods["events"].to_list()
    rows: list[tuple[str, str, str]] = [("events", "events in the window", _n(sum(volume)))]
    if not volume:
        return rows
    change = last_full_change(periods)
    if change is not None:
        period, value = change
        rows.append(("events-change", f"events in {_period_label(period, every)} vs the period before", _signed(value)))
    else:
        rows.append(("events-change", "change on the period before (no two whole periods)", "–"))
    busiest = max(range(len(volume)), key=lambda i: (volume[i], -i))
    partial = ", partial period" if periods["partial"][busiest] else ""
    rows.append(
        (
            "events-peak",
            "busiest period",
            f"{_period_label(periods['period'][busiest], every)} ({_n(volume[busiest])}{partial})",
        )
    )
    if pairs.height:
        first = pairs.row(0, named=True)
        rows.append(
            ("events-pair", "busiest pair", f"{first['subject_name']} → {first['object_name']} ({_n(first['events'])})")
        )
    return rows


def _n(value: int) -> str:
    return f"{value:,}"


def _signed(value: int) -> str:
    return f"{value:+,}" if value else "0"


def _day(moment: dt.datetime | None) -> str:
    return "?" if moment is None else moment.date().isoformat()  # isoformat pads years before 1000


def _period_label(moment: dt.datetime, every: str) -> str:
    day = moment.date().isoformat()
    if every.endswith(("h", "m", "s")) and not every.endswith("mo"):  # sub-daily periods
        return f"{day} {moment:%H:%M}"
    if every.endswith("y"):
        return day[:4]
    if every.endswith(("mo", "q")):
        return day[:7]
    return day


def _days(span: dt.timedelta | None) -> str:
    return "?" if span is None else _n(span.days)


def _names(values: Any) -> str:
    return ", ".join(str(v) for v in (values or []))


def _history(objects: list[str], *, bounded: bool) -> str:
    """A fact's objects in order, joined by arrows; ``bounded``: the first and last few around "… N more".

    >>> _history([str(n) for n in range(10)], bounded=True)
    '0 → 1 → 2 → … 4 more → 7 → 8 → 9'
    >>> _history(["a", "b"], bounded=True)
    'a → b'
    """
    ends = _HISTORY_ENDS
    if bounded and len(objects) > 2 * ends + 1:
        objects = [*objects[:ends], f"… {_n(len(objects) - 2 * ends)} more", *objects[-ends:]]
    return " → ".join(objects)


def _first(names: list[str], *, bounded: bool) -> list[str]:
    """``names``, or (``bounded``) the first few and "… N more": a pair's predicates on the page.

    >>> _first(list("abcdefgh"), bounded=True)
    ['a', 'b', 'c', 'd', 'e', '… 3 more']
    """
    keep = 2 * _HISTORY_ENDS - 1
    if bounded and len(names) > keep + 1:
        return [*names[:keep], f"… {_n(len(names) - keep)} more"]
    return list(names)


def _tables(data: _Data, *, bounded: bool) -> list[tuple[str, list[str], list[list[str]], str]]:
    """(title, header, rows, empty text) of every table, shared by both renderings.

    ``bounded`` shortens the long cells (a fact's history) for the page; the Markdown keeps them whole. A graph of
    events (contract §12) gets event tables (volume, busiest pairs, bursts), not add/end pairs; a graph of states
    gets the state tables; a mixed graph both. A partial period is marked, and shows no change.
    """
    import polars as pl

    every = data.every
    states = data.kind != "events"
    periods = data.periods.with_columns(pl.col("partial").shift(1).fill_null(True).alias("_after_partial"))
    with_events = data.kind != "states" or bool(periods["events"].sum())
    scheduled_columns = states and bool(int(periods["scheduled_added"].sum()) + int(periods["scheduled_ended"].sum()))
    moved = pl.sum_horizontal(
        "added", "ended", "renewed", "events", "scheduled_added", "scheduled_ended", "scheduled_events"
    )
    active = periods.filter(moved > 0).tail(_MD_PERIODS)
    renewed = states and bool(periods["renewed"].sum())  # renewals (contract §11), when there are any
    period_header = [
        "period",
        *(
            ["added", "ended", *(["renewed"] if renewed else []), "net", "active at start", "churn rate"]
            if states
            else []
        ),
        *(["scheduled to start", "scheduled to end"] if scheduled_columns else []),
        *(["events", "change on the period before"] if with_events else []),
    ]
    period_rows = [
        [
            _period_label(r["period"], every) + (" (partial)" if r["partial"] else ""),
            *(
                [
                    _n(r["added"]),
                    _n(r["ended"]),
                    *([_n(r["renewed"])] if renewed else []),
                    _signed(r["net"]),
                    _n(r["active_at_start"]),
                    "–" if r["churn_rate"] is None else f"{r['churn_rate']:.1%}",
                ]
                if states
                else []
            ),
            *([_n(r["scheduled_added"]), _n(r["scheduled_ended"])] if scheduled_columns else []),
            *(
                [_n(r["events"]), "–" if r["partial"] or r["_after_partial"] else _signed(r["events_change"])]
                if with_events
                else []
            ),
        ]
        for r in active.iter_rows(named=True)
    ]

    def volatile(frame: pl.DataFrame, name: str) -> list[list[str]]:
        return [
            [
                r[name],
                *([_n(r["changes"]), _n(r["added"]), _n(r["ended"]), _n(r["current"])] if states else []),
                *([_n(r["events"])] if with_events else []),
            ]
            for r in frame.iter_rows(named=True)
        ]

    volatile_header = [
        *(["changes", "added", "ended", "current"] if states else []),
        *(["events"] if with_events else []),
    ]
    tables: list[tuple[str, list[str], list[list[str]], str]] = [
        (
            f"Most recent active periods (last {_MD_PERIODS})",
            period_header,
            period_rows,
            "No fact started or ended, and no event occurred.",
        ),
        (
            "Most volatile predicates" if states else "Busiest predicates",
            ["predicate", *volatile_header],
            volatile(data.predicates.head(data.top), "predicate"),
            "No changes in the window.",
        ),
        (
            "Most volatile entities" if states else "Busiest entities",
            ["entity", *volatile_header],
            volatile(data.entities, "entity_name"),
            "No changes in the window.",
        ),
    ]
    if with_events:
        tables.append(
            (
                "Busiest pairs (events between two entities, the direction kept)",
                ["subject", "object", "events", "first", "last", "predicates"],
                [
                    [
                        r["subject_name"],
                        r["object_name"],
                        _n(r["events"]),
                        _day(r["first"]),
                        _day(r["last"]),
                        _names(_first(r["predicates"], bounded=bounded)),
                    ]
                    for r in data.pairs.iter_rows(named=True)
                ],
                "No event between two entities in the window.",
            )
        )
        tables.append(
            (
                "Bursts (whole periods two standard deviations or more above the mean)",
                ["period", "events", "standard deviations above the mean"],
                [
                    [_period_label(r["period"], every), _n(r["events"]), f"{r['z']:.1f}"]
                    for r in data.bursts.iter_rows(named=True)
                ],
                "No whole period stands out.",
            )
        )
    if not states:
        return tables
    changed_rows = [
        [
            r["subject_name"],
            r["predicate"],
            _n(r["changes"]),
            _history(r["history"], bounded=bounded),
            _names(r["current_objects"]),
        ]
        for r in data.changed.iter_rows(named=True)
    ]
    shortened = bounded and any(len(h) > 2 * _HISTORY_ENDS + 1 for h in data.changed["history"].to_list())
    changed_title = "Facts that changed most often" + (
        " (long histories shortened here; the Markdown beside this page lists them whole)" if shortened else ""
    )
    listed = data.conflicts.sort("open_for", descending=True, nulls_last=True, maintain_order=True)
    conflict_rows = [
        [
            r["subject_name"] if r["by"] == "subject" else r["object_name"],  # a one-holder group: its object
            r["predicate"],
            _names(r["current_objects"] if r["by"] == "subject" else r["current_subjects"]),
            _day(r["open_since"]),
            _days(r["open_for"]),
        ]
        for r in listed.head(_CONFLICT_ROWS).iter_rows(named=True)
    ]
    shown = f" ({_CONFLICT_ROWS} longest open of {_n(listed.height)})" if listed.height > _CONFLICT_ROWS else ""
    return [
        *tables,
        (
            changed_title,
            ["subject", "predicate", "changes", "history", "current"],
            changed_rows,
            "No (subject, predicate) changed its object in the window.",
        ),
        (
            f"Open conflicts needing action{shown}",
            ["subject", "predicate", "current objects", "open since", "days open"],
            conflict_rows,
            "None: no (subject, predicate) has more than one current object.",
        ),
    ]


def _numeric_columns(rows: list[list[str]], width: int) -> list[bool]:
    """Which columns hold numbers (every cell a number or "–"): those are right-aligned, their header too."""
    return [
        all(_numeric(row[i]) or row[i] == "–" for row in rows) and any(_numeric(row[i]) for row in rows)
        for i in range(width)
    ]


# ---------------------------------------------------------------------- charts


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _period_ticks(ax: Any, periods: Any, every: str) -> None:
    """About a dozen period labels under a chart of one bar (or step) per period."""
    step = max(1, periods.height // 12)
    labels = [_period_label(p, every) for p in periods["period"].gather_every(step).to_list()]
    ax.set_xticks(list(range(periods.height))[::step], labels, rotation=30, ha="right", fontsize=8)


def _legend(fig: Any) -> None:
    """The legend above the plot, outside it: it never covers a bar."""
    fig.legend(loc="outside upper right", ncols=4, fontsize=8, frameon=False)


def _charts(data: _Data) -> list[tuple[str, str]]:
    """(alt text, base64 PNG) of each chart, drawn with matplotlib's Agg canvas (no pyplot, no GUI). A partial
    period is drawn lighter, and its change is not drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    charts: list[tuple[str, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a glyph missing from the default font
        periods = data.periods
        partial = periods["partial"].to_list()
        x = list(range(periods.height))
        bars = periods.height <= _BAR_LIMIT
        if periods.height and int(periods["events"].sum()):  # events per period and their change (contract §12)
            fig = Figure(figsize=(10, 3.8), layout="constrained")
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
            volume = periods["events"].to_list()
            after = [True, *partial[:-1]]
            change = [
                float("nan") if p or q else float(c)
                for c, p, q in zip(periods["events_change"].to_list(), partial, after, strict=True)
            ]
            whole = [0 if p else v for v, p in zip(volume, partial, strict=True)]
            cut = [v if p else 0 for v, p in zip(volume, partial, strict=True)]
            if bars:
                ax.bar(x, whole, color="#c2570c", label="events")
                if any(cut):
                    ax.bar(x, cut, color="#c2570c", alpha=0.35, hatch="//", label="events (partial period)")
            else:
                ax.fill_between(x, volume, step="mid", color="#c2570c", alpha=0.8, label="events")
            if bars:  # over hundreds of periods the change is noise; the table lists it
                ax.plot(x, change, color="#222222", linewidth=0.8, label="change on the period before")
            ax.axhline(0, color="#888888", linewidth=0.6)
            _period_ticks(ax, periods, data.every)
            ax.set_ylabel("events")
            ax.set_title(f"Events per period ({data.every})", fontsize=10, loc="left")
            _legend(fig)
            charts.append(("Events per period and their change", _png(fig)))
        moved = periods["added"] + periods["ended"] + periods["scheduled_added"] + periods["scheduled_ended"]
        if data.kind != "events" and periods.height and int(moved.sum()):
            fig = Figure(figsize=(10, 3.8), layout="constrained")
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
            added, ended, net = periods["added"].to_list(), periods["ended"].to_list(), periods["net"].to_list()
            planned_start, planned_end = periods["scheduled_added"].to_list(), periods["scheduled_ended"].to_list()
            if bars:
                ax.bar(x, added, color="#3a7d44", label="added")
                ax.bar(x, [-e for e in ended], color="#b5443a", label="ended")
                if any(planned_start) or any(planned_end):
                    ax.bar(
                        x,
                        planned_start,
                        bottom=added,
                        color="#3a7d44",
                        alpha=0.35,
                        hatch="//",
                        label="scheduled to start",
                    )
                    ax.bar(
                        x,
                        [-e for e in planned_end],
                        bottom=[-e for e in ended],
                        color="#b5443a",
                        alpha=0.35,
                        hatch="//",
                        label="scheduled to end",
                    )
                ax.plot(x, net, color="#222222", marker="o", markersize=3, linewidth=1, label="net")
            else:
                ax.fill_between(x, added, step="mid", color="#3a7d44", alpha=0.8, label="added")
                ax.fill_between(x, [-e for e in ended], step="mid", color="#b5443a", alpha=0.8, label="ended")
                ax.plot(x, net, color="#222222", linewidth=0.6, label="net")
            ax.axhline(0, color="#888888", linewidth=0.6)
            _period_ticks(ax, periods, data.every)
            ax.set_ylabel("facts")
            ax.set_title(f"Facts added / ended per period ({data.every})", fontsize=10, loc="left")
            _legend(fig)
            charts.append(("Facts added, ended and net change per period", _png(fig)))
        shown = data.predicates.head(_CHART_PREDICATES)
        if shown.height:
            fig = Figure(figsize=(10, 0.9 + 0.3 * shown.height), layout="constrained")
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
            names = shown["predicate"].to_list()[::-1]
            added, ended = shown["added"].to_list()[::-1], shown["ended"].to_list()[::-1]
            occurred = shown["events"].to_list()[::-1]
            if data.kind != "events":
                ax.barh(names, added, color="#3a7d44", label="added")
                ax.barh(names, ended, left=added, color="#b5443a", label="ended")
            if any(occurred):
                ax.barh(
                    names,
                    occurred,
                    left=[a + e for a, e in zip(added, ended, strict=True)],
                    color="#c2570c",
                    label="events",
                )
            ax.set_xlabel("facts added + ended, and events, in the window" if data.kind != "events" else "events")
            ax.set_title(
                "Churn per predicate" if data.kind != "events" else "Events per predicate", fontsize=10, loc="left"
            )
            ax.tick_params(axis="y", labelsize=8)
            _legend(fig)
            charts.append(
                ("Facts added and ended per predicate" if data.kind != "events" else "Events per predicate", _png(fig))
            )
    return charts


# ---------------------------------------------------------------------- renderings

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #1d1d1f; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.meta { color: #666; font-size: .85rem; }
.stats { display: flex; flex-wrap: wrap; gap: .6rem; margin: 1rem 0; }
.stat { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .8rem; min-width: 8rem; }
.stat .value { display: block; font-size: 1.3rem; font-weight: 600; }
.stat .label { color: #555; font-size: .8rem; }
table { border-collapse: collapse; width: 100%; font-size: .85rem; }
th, td { border-bottom: 1px solid #e5e5e5; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f6f6; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; height: auto; } .empty { color: #666; font-style: italic; }
"""


def _h(value: object) -> str:
    return html.escape(str(value), quote=True)


def _html(data: _Data) -> str:
    """The report as one self-contained HTML page: inline style, charts as base64 PNG, every name escaped."""
    window = f"{data.window[0]} … {data.window[1]}" if data.window else "no activity"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_h(data.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_h(data.title)}</h1>",
        f'<p class="meta">Graph <code>{_h(data.graph)}</code> · window {_h(window)} · periods of {_h(data.every)} · '
        f"generated {_h(data.generated)}</p>",
        '<div class="stats">',
    ]
    for key, label, value in data.headline:
        parts.append(
            f'<div class="stat" id="stat-{_h(key)}"><span class="value">{_h(value)}</span>'
            f'<span class="label">{_h(label)}</span></div>'
        )
    parts.append("</div>")
    for alt, png in _charts(data):
        parts.append(f"<h2>{_h(alt)}</h2>")
        parts.append(f'<img alt="{_h(alt)}" src="data:image/png;base64,{png}">')
    for title, header, rows, empty in _tables(data, bounded=True):
        parts.append(f"<h2>{_h(title)}</h2>")
        if not rows:
            parts.append(f'<p class="empty">{_h(empty)}</p>')
            continue
        numeric = _numeric_columns(rows, len(header))
        parts.append(
            "<table><thead><tr>"
            + "".join(
                f'<th class="num">{_h(c)}</th>' if n else f"<th>{_h(c)}</th>"
                for c, n in zip(header, numeric, strict=True)
            )
            + "</tr></thead><tbody>"
        )
        for row in rows:
            cells = "".join(
                f'<td class="num">{_h(c)}</td>' if n else f"<td>{_h(c)}</td>" for c, n in zip(row, numeric, strict=True)
            )
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _numeric(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


def _md(value: object) -> str:
    text = " ".join(str(value).split())
    for char in "\\|`*[]<>":
        text = text.replace(char, "\\" + char)
    return text


def _markdown(data: _Data, html_name: str) -> str:
    """The report's Markdown summary, its tables escaped, pointing at the HTML page ``html_name``."""
    window = f"{data.window[0]} … {data.window[1]}" if data.window else "no activity"
    lines = [
        f"# {_md(data.title)}",
        "",
        f"Graph `{data.graph.replace('`', '')}` · window {window} · periods of {_md(data.every)} · "
        f"generated {data.generated}. Charts: {_md(html_name)}.",
        "",
        "## Headline",
        "",
    ]
    lines += [f"- **{_md(label)}**: {_md(value)}" for _key, label, value in data.headline]
    for title, header, rows, empty in _tables(data, bounded=False):
        lines += ["", f"## {_md(title)}", ""]
        if not rows:
            lines.append(f"_{_md(empty)}_")
            continue
        lines.append("| " + " | ".join(_md(c) for c in header) + " |")
        lines.append("|" + "|".join("---:" if n else "---" for n in _numeric_columns(rows, len(header))) + "|")
        lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"

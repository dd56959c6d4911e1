"""Analysis of a graph's history on a facts frame: timelines, Gantt bars, conflicts, churn, connectedness.

Every function takes a frame shaped like :func:`kgtoolkit.frames.facts` (polars; a pandas frame
is converted and the answer converted back), so it works on any filtered frame. :func:`churn`,
:func:`events` and :func:`event_graph` also take the graph itself: the store groups the facts in the
engine (kgtoolkit.store's ``churn_counts``, ``event_counts``, ``event_pairs``) and the answer equals the
frame path's; :func:`snapshots` reads the graph's frame. No SQL here: the store modules read the data.

Time conventions (the store's, contract §4):

* ``start``/``end`` are UTC datetimes; a null ``start`` is an **unknown start**, which the store
  treats as "valid since before anything" (an ``as_of`` query always matches it); a null ``end``
  is an open (current) fact.
* A date-only ``valid_to`` covers its whole day (``end`` is its last microsecond), so interval
  lengths and Gantt bars close it at the following midnight: ``2026-03-02 … 2026-03-02`` lasts one
  day, a datetime interval lasts exactly ``end - start``.
* Periods (:func:`churn`) are polars truncations (``dt.truncate(every)``) of the UTC instants, the
  windows ``group_by_dynamic`` would use: ``"1mo"`` periods start on the 1st at 00:00 UTC, ``"1w"``
  on Mondays. An end belongs to the period holding its instant, so a fact ending on 2026-10-31 (a
  date) ends in October. A period that begins before 0001-01-01 (``"7d"`` or ``"10y"`` periods
  holding that day) is dated 0001-01-01, the first instant a Python datetime holds.
* The store's bounds reach 0001-01-01 … 9999-12-31; an instant computed past the last one (the
  midnight closing a date-only ``valid_to`` of 9999-12-31, a Gantt bar's end) is clipped to
  9999-12-31 23:59:59.999999, as no later datetime exists in Python.

Layout, one private module per concern (everything public is imported from here): ``_shared`` (the
facts frame in and the answer out, time inputs, windows), ``_periods`` (a checked ``every``, period
starts and counts, :data:`MAX_PERIODS`), ``_timeline`` (:func:`timeline`, :func:`gantt`), ``_conflicts``
(:func:`conflicts`), ``_churn`` (:func:`churn`), ``_to_date`` (:func:`churn_to_date`, :func:`last_full_change`,
:func:`bursts`: what happened told from what is scheduled, partial periods), ``_rankings`` (:func:`most_volatile`,
:func:`most_changed`, :func:`most_connected`), ``_events`` (:func:`events`, :func:`event_graph`,
:func:`snapshots`). The types of the parameters (``Frame``, ``Moment``, ``GroupBy``, ``EventsBy``,
``SnapshotAt``, ``VolatileBy``) and ``FACT_COLUMNS`` are importable from here too.

>>> import kgtoolkit
>>> from kgtoolkit import analysis, frames
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02")
>>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
>>> analysis.timeline(frames.facts(kg)).select("event", "object", "when").rows()
[('started', 'redis', '2026-03-02'), ('started', 'sqlite', '2026-10-12'), ('ended', 'redis', '2026-10-12')]
"""

from __future__ import annotations

from ._churn import CHURN_SCHEMA, churn
from ._churn import GroupBy as GroupBy
from ._conflicts import CONFLICTS_SCHEMA, conflicts
from ._events import EVENT_GRAPH_SCHEMA, EVENTS_SCHEMA, SNAPSHOTS_SCHEMA, event_graph, events, snapshots
from ._events import EventsBy as EventsBy
from ._events import SnapshotAt as SnapshotAt
from ._periods import MAX_PERIODS
from ._rankings import (
    CONNECTED_SCHEMA,
    MOST_CHANGED_SCHEMA,
    VOLATILE_SCHEMA,
    most_changed,
    most_connected,
    most_volatile,
)
from ._rankings import VolatileBy as VolatileBy
from ._shared import FACT_COLUMNS as FACT_COLUMNS
from ._shared import Frame as Frame
from ._shared import Moment as Moment
from ._timeline import GANTT_SCHEMA, TIMELINE_SCHEMA, gantt, timeline
from ._to_date import (
    BURSTS_SCHEMA,
    TO_DATE_SCHEMA,
    bursts,
    churn_to_date,
    graph_kind,
    last_full_change,
    scheduled_totals,
)

__all__ = [
    "BURSTS_SCHEMA",
    "CHURN_SCHEMA",
    "CONFLICTS_SCHEMA",
    "CONNECTED_SCHEMA",
    "EVENTS_SCHEMA",
    "EVENT_GRAPH_SCHEMA",
    "GANTT_SCHEMA",
    "MAX_PERIODS",
    "MOST_CHANGED_SCHEMA",
    "SNAPSHOTS_SCHEMA",
    "TIMELINE_SCHEMA",
    "TO_DATE_SCHEMA",
    "VOLATILE_SCHEMA",
    "bursts",
    "churn",
    "churn_to_date",
    "conflicts",
    "event_graph",
    "events",
    "gantt",
    "graph_kind",
    "last_full_change",
    "most_changed",
    "most_connected",
    "most_volatile",
    "scheduled_totals",
    "snapshots",
    "timeline",
]

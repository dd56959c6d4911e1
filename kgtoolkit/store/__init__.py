"""The store: a temporal knowledge graph in an SQLite file (the default) or a PostgreSQL database.

Every SQL statement and every database connection of kgtoolkit lives in this package, in four wings::

    engine/     what differs per database: the backends (_backend and its Dialect, _sqlite, _postgres),
                the schema and migrations (_schema), which database (_location), the SQLite reader
                process (_arrow_read, _reader_process), driver errors as kgtoolkit's (_failures)
    ops/        the operations, one module per resource, as functions over the engine and the rules
                (_rules: the rules of add, written once over the dialect)
    transfer/   many facts and whole graphs in and out: load, export, dump and its check, copy, foreign
    reads/      what the services read, grouped in the engine: query parts, search, aggregates,
                rankings, overview, cleanup, the rollups' reads (contract §18)
    _graph_store.py, _graph_reads.py
                GraphStore, the facade: each method calls one operation of ops/ (writes, settings
                and plumbing in the first, reads in the second)

Only the engine wing touches a backend's internals; the other wings import the engine's names from
``kgtoolkit.store.engine`` and reach a graph's backend through :attr:`GraphStore.engine` (the one seam).

The public :class:`kgtoolkit.KnowledgeGraph` sits above this package (``kgtoolkit/graph.py``): a
:class:`GraphStore` with the services that read a whole graph (duplicates, checks, the summary) added.

>>> store = GraphStore(backend=connect(":memory:"))
>>> store.backend, store.add("my_api", "uses queue", "Redis").created
('sqlite', True)
"""

from __future__ import annotations

from .._renewals import NEAR_DAYS
from ._graph_store import GraphStore
from .engine import (
    DEFAULT_PATH,
    ENV_VAR,
    SCHEMA_VERSION,
    Backend,
    DatabaseName,
    Location,
    connect,
    migration_progress,
    resolve,
    resolve_path,
)
from .ops._conflict_kept import check as check_rollups
from .ops._conflict_kept import fold as fold_rollups
from .ops._conflict_kept import rebuild as rebuild_rollups
from .ops._diff import pair_rows as diff_pairs  # the diff's pairing over light rows, for kgtoolkit.spark
from .ops._not_same import check_kind
from .ops._rollups import RollupCheck
from .reads._aggregates import ChurnCounts, PeriodPlan, churn_counts, event_counts, event_pairs, period_plan
from .reads._cleanup import DuplicateInputs, StructuralRows, duplicate_inputs, structural_rows
from .reads._event_days import EVENT_DAYS_COLUMNS, event_days
from .reads._overview import (
    GraphCounts,
    LinkRanking,
    Neighbourhood,
    conflict_counts,
    facts_among,
    facts_with_ids,
    graph_counts,
    link_ranking,
    neighbourhood,
    predicates_in_use,
)
from .reads._rankings import (
    changing_pair_facts,
    connected_counts,
    fact_span,
    most_changed_pairs,
    nearest_bounds,
    volatile_counts,
)
from .reads._rollups import scan_only
from .reads._rollups import source as answer_source
from .reads._spark_source import FACT_COLUMNS as SPARK_FACT_COLUMNS
from .reads._spark_source import JdbcSource, jdbc_source
from .transfer._copy import copy_graph
from .transfer._dump import dump, dump_parts, dump_predicate_aliases, import_graph, is_empty, restore
from .transfer._export import count_facts, facts_batches, facts_table, read_table
from .transfer._foreign import is_kgtoolkit_file, is_sqlite_file, read_foreign
from .transfer._load import ImportReport, InvalidRows, import_facts

__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "EVENT_DAYS_COLUMNS",
    "NEAR_DAYS",
    "SCHEMA_VERSION",
    "SPARK_FACT_COLUMNS",
    "Backend",
    "ChurnCounts",
    "DatabaseName",
    "DuplicateInputs",
    "GraphCounts",
    "GraphStore",
    "ImportReport",
    "InvalidRows",
    "JdbcSource",
    "LinkRanking",
    "Location",
    "Neighbourhood",
    "PeriodPlan",
    "RollupCheck",
    "StructuralRows",
    "answer_source",
    "changing_pair_facts",
    "check_kind",
    "check_rollups",
    "churn_counts",
    "conflict_counts",
    "connect",
    "connected_counts",
    "copy_graph",
    "count_facts",
    "diff_pairs",
    "dump",
    "dump_parts",
    "dump_predicate_aliases",
    "duplicate_inputs",
    "event_counts",
    "event_days",
    "event_pairs",
    "fact_span",
    "facts_among",
    "facts_batches",
    "facts_table",
    "facts_with_ids",
    "fold_rollups",
    "graph_counts",
    "import_facts",
    "import_graph",
    "is_empty",
    "is_kgtoolkit_file",
    "is_sqlite_file",
    "jdbc_source",
    "link_ranking",
    "migration_progress",
    "most_changed_pairs",
    "nearest_bounds",
    "neighbourhood",
    "period_plan",
    "predicates_in_use",
    "read_foreign",
    "read_table",
    "rebuild_rollups",
    "resolve",
    "resolve_path",
    "restore",
    "scan_only",
    "structural_rows",
    "volatile_counts",
]

"""The store: a temporal knowledge graph in an SQLite file (the default) or a PostgreSQL database.

Every SQL statement and every database connection of kgtoolkit lives in this package. Its layout is
the seam between what the engines share and what differs::

    _location.py   which database: a path, sqlite:///…, or postgresql://… (the one rule every door uses)
    _schema.py     tables, column lists, migrations per engine, the one fact SELECT
    _rules.py      the rules of add, written once (the row path, the bulk path and the dump use them)
    _queries.py    queries the parts share: settings, names, entities, the fact row, time filters
    _operations.py GraphStore: the operations, written once over an injected Backend
    _bulk.py       whole tables as Arrow; many facts in at once
    _keyset.py     the keys a load in batches has seen: 128-bit hashes in sorted runs, 16 bytes a fact
    _dump.py       the whole graph as plain data, restored exactly or merged
    _dump_check.py the dump's validator: every record checked by the store's rules, every failure collected
    _foreign.py    other programs' SQLite graphs (MemPalace, Flowly), read for an import
    _copy.py       a whole graph from one database to another, losslessly
    _search.py     what semantic search reads, and its embedding cache
    _cleanup.py    what the duplicate candidates and the checks read
    _not_same.py   the pairs a person said are not the same, kept through merges and renames
    _aggregates.py churn and event counts per period, grouped in the engine (the analysis of a graph)
    _overview.py   the most connected entities and the facts among a few, for a picture of the graph
    _rankings.py   the most volatile, most changed and most connected counts, and the span of the facts, in the engine
    _backend.py    the abstract backend: transactions, Arrow reads, bulk loads, identity, change tokens
    _failures.py   sqlite3, psycopg and OS errors as kgtoolkit's (corrupt, disk_full, locked, read_only, ...)
    _sqlite.py     SQLite: sqlite3 here, ADBC in a reader process (_arrow_read.py, _reader_process.py)
    _postgres.py   PostgreSQL: psycopg 3, COPY, ADBC; serializable writes retried on conflicts

The public :class:`kgtoolkit.KnowledgeGraph` sits above this package (``kgtoolkit/graph.py``): a
:class:`GraphStore` with the services that read a whole graph (duplicates, checks, the summary) added.

>>> store = GraphStore(backend=connect(":memory:"))
>>> store.backend, store.add("my_api", "uses queue", "Redis").created
('sqlite', True)
"""

from __future__ import annotations

from ._aggregates import ChurnCounts, PeriodPlan, churn_counts, event_counts, event_pairs, period_plan
from ._backend import Backend
from ._bulk import ImportReport, InvalidRows, count_facts, facts_batches, facts_table, import_facts, read_table
from ._cleanup import DuplicateInputs, StructuralRows, duplicate_inputs, structural_rows
from ._copy import copy_graph
from ._dump import dump, dump_parts, dump_predicate_aliases, import_graph, is_empty, restore
from ._foreign import is_kgtoolkit_file, is_sqlite_file, read_foreign
from ._location import DEFAULT_PATH, ENV_VAR, DatabaseName, Location, resolve, resolve_path
from ._not_same import check_kind
from ._operations import GraphStore, connect
from ._overview import (
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
    window_keys,
)
from ._rankings import (
    changing_pair_facts,
    connected_counts,
    fact_span,
    most_changed_pairs,
    nearest_bounds,
    volatile_counts,
)
from ._rollups import RollupCheck, scan_only
from ._rollups import check as check_rollups
from ._rollups import fold as fold_rollups
from ._rollups import rebuild as rebuild_rollups
from ._rollups import source as answer_source
from ._schema import SCHEMA_VERSION

__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "SCHEMA_VERSION",
    "Backend",
    "ChurnCounts",
    "DatabaseName",
    "DuplicateInputs",
    "GraphCounts",
    "GraphStore",
    "ImportReport",
    "InvalidRows",
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
    "dump",
    "dump_parts",
    "dump_predicate_aliases",
    "duplicate_inputs",
    "event_counts",
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
    "link_ranking",
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
    "window_keys",
]

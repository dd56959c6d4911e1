"""The graph as dataframes: polars first, pandas through ``backend="pandas"``.

Each loader pushes its filters into SQL and reads through Arrow, then gives every column an
explicit type (:data:`FACTS_SCHEMA` and friends), so an empty result has the same columns as a full one.

>>> import kgtoolkit
>>> from kgtoolkit import frames
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02", valid_to="2026-10-12")
>>> frames.facts(kg).select("subject", "object_name", "current").rows()
[('my_api', 'Redis', False)]
"""

from __future__ import annotations

from ._diff import DIFF_SCHEMA, diff
from ._facts import facts, facts_among, facts_with_ids, stream, to_store
from ._filters import around, valid_at
from ._graphs import EDGE_ATTRIBUTES, named_entities, to_networkx, to_rustworkx
from ._schemas import ALIASES_SCHEMA, ENTITIES_SCHEMA, FACTS_SCHEMA, MEMORIES_SCHEMA
from ._tables import aliases, entities, memories

__all__ = [
    "ALIASES_SCHEMA",
    "DIFF_SCHEMA",
    "EDGE_ATTRIBUTES",
    "ENTITIES_SCHEMA",
    "FACTS_SCHEMA",
    "MEMORIES_SCHEMA",
    "aliases",
    "around",
    "diff",
    "entities",
    "facts",
    "facts_among",
    "facts_with_ids",
    "memories",
    "named_entities",
    "stream",
    "to_networkx",
    "to_rustworkx",
    "to_store",
    "valid_at",
]

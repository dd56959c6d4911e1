"""kgtoolkit: a temporal knowledge graph in one local SQLite file, or in PostgreSQL for a team.

Facts are ``subject → predicate → object`` with the dates they held. Facts change; nothing is deleted.
This module is the public face: :func:`open` and :class:`KnowledgeGraph`, the frozen records every
method returns (each with ``to_dict``), the error tree (every error a :class:`KGError` with a stable
``code``), the name rules, and the agent tool (:func:`run_tool`, :data:`TOOL_SCHEMA`). The frames,
analysis, import and export, search and report live in their modules: ``kgtoolkit.frames``,
``kgtoolkit.analysis``, ``kgtoolkit.io``, ``kgtoolkit.search``, ``kgtoolkit.report``.

>>> import kgtoolkit
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
>>> _ = kg.supersede("my_api", "uses_queue", "Redis", "SQLite", at="2026-10-12")
>>> [(f.object_name, f.current) for f in kg.query("My API")]
[('Redis', False), ('SQLite', True)]
"""

from __future__ import annotations

from ._errors import (
    AliasConflict,
    CommaList,
    Corrupt,
    DiskFull,
    IntervalOrder,
    InvalidDate,
    InvalidName,
    InvalidRequest,
    InvalidRows,
    KGError,
    Locked,
    MissingDependency,
    NotCurrent,
    NotFound,
    ReadOnly,
    StoreError,
    UnknownType,
)
from ._names import normalize_name, normalize_predicate
from ._page import Page
from ._records import (
    AddResult,
    Alias,
    Change,
    ConflictGroup,
    Diff,
    DuplicateCandidate,
    Entity,
    Fact,
    Finding,
    GraphConfig,
    ImportReport,
    Memory,
    MergeResult,
    Neighborhood,
    NotDuplicate,
    Paths,
    PredicateAlias,
    PredicateInfo,
    PredicateRename,
    Reached,
    Stats,
    SupersedeResult,
)
from ._screen import looks_like_injection
from ._tool import TOOL_SCHEMA, run_tool
from ._version import __version__ as __version__
from .graph import KnowledgeGraph, open
from .store import resolve_path

__all__ = [
    "TOOL_SCHEMA",
    "AddResult",
    "Alias",
    "AliasConflict",
    "Change",
    "CommaList",
    "ConflictGroup",
    "Corrupt",
    "Diff",
    "DiskFull",
    "DuplicateCandidate",
    "Entity",
    "Fact",
    "Finding",
    "GraphConfig",
    "ImportReport",
    "IntervalOrder",
    "InvalidDate",
    "InvalidName",
    "InvalidRequest",
    "InvalidRows",
    "KGError",
    "KnowledgeGraph",
    "Locked",
    "Memory",
    "MergeResult",
    "MissingDependency",
    "Neighborhood",
    "NotCurrent",
    "NotDuplicate",
    "NotFound",
    "Page",
    "Paths",
    "PredicateAlias",
    "PredicateInfo",
    "PredicateRename",
    "Reached",
    "ReadOnly",
    "Stats",
    "StoreError",
    "SupersedeResult",
    "UnknownType",
    "looks_like_injection",
    "normalize_name",
    "normalize_predicate",
    "open",
    "resolve_path",
    "run_tool",
]

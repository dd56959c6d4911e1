"""The knowledge graph people and agents hold: the store's operations, and the services that read a whole graph.

:class:`KnowledgeGraph` is a :class:`~kgtoolkit.store.GraphStore` (every operation's SQL, over one backend that
may be injected) with what sits above the store added: likely duplicates (:mod:`kgtoolkit.duplicates`), the
graph's findings (:mod:`kgtoolkit.findings`) and the prompt summary (:mod:`kgtoolkit._summary`). Those
services take the store's object and never this one, so nothing imports back up (docs/layers.md).

>>> kg = open(":memory:")
>>> kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02").created
True
>>> kg.summary().splitlines()[0]
'# Knowledge Graph'
"""

from __future__ import annotations

from collections.abc import Collection

from ._page import Page
from ._summary import summary
from ._time import TimeInput
from .duplicates import DuplicateCandidate, NotDuplicate, find_duplicates
from .findings import Finding, check
from .store import Backend, DatabaseName, GraphStore

__all__ = ["KnowledgeGraph", "open"]


def open(
    db: DatabaseName | None = None,
    *,
    read_only: bool = False,
    timeout: float = 30.0,
    backend: Backend | None = None,
    create: bool = False,
) -> KnowledgeGraph:
    """Open the graph in ``db``: a file path, ``sqlite:///…`` or ``postgresql://…`` (see
    :func:`kgtoolkit.store.resolve`; default ``$KGTOOLKIT_DB``, else ``~/.kgtoolkit/knowledge_graph.sqlite3``).

    Reads never create a graph: a file that does not exist is made by the graph's first write (or at once with
    ``create=True``), and a read before then raises :class:`~kgtoolkit.NotFound` naming the path. A PostgreSQL
    database (or schema) gets the graph's tables when it is opened for writing.

    ``backend``: a :class:`~kgtoolkit.store.Backend` to run on instead (from :func:`kgtoolkit.store.connect`, or
    a subclass of an engine's that instruments it); then ``db`` is left out.

    >>> kg = open(":memory:")
    >>> kg.stats().facts
    0
    """
    return KnowledgeGraph(db, read_only=read_only, timeout=timeout, backend=backend, create=create)


class KnowledgeGraph(GraphStore):
    """A temporal knowledge graph in one SQLite file or one PostgreSQL database.

    Safe to share between threads of one process; several processes (on several machines, for
    PostgreSQL) may write one graph at once, with the same guarantees on both engines: every write
    is one transaction, whole or absent; never two identical current facts; ``supersede`` and
    ``merge`` atomic. ``location`` says where the graph is (``location.path``: its SQLite file, None for PostgreSQL).
    """

    # ------------------------------------------------------------------ cleaning up (contract §14)

    def duplicates(
        self,
        *,
        kind: str = "entities",
        limit: int | None = None,
        offset: int = 0,
        min_score: float | None = None,
        embeddings: bool | None = None,
    ) -> Page[DuplicateCandidate]:
        """Likely duplicates among entity names (or predicates), best first, each saying why; never merges.

        See :func:`kgtoolkit.duplicates.find_duplicates` (``embeddings``: the search extra's signal; None
        uses it for small graphs when installed).
        """
        return find_duplicates(self, kind=kind, limit=limit, offset=offset, min_score=min_score, embeddings=embeddings)

    def not_duplicates(self, first: str, second: str, *, kind: str = "entities") -> NotDuplicate:
        """Remember that ``first`` and ``second`` are not the same: :meth:`duplicates` never lists them again.

        Idempotent and order-independent; stored by entity id (a name resolves exactly or by alias), so
        it survives aliases and merges; ``kind="predicates"`` for two predicates.
        """
        return NotDuplicate(kind, *self.mark_not_same(first, second, kind=kind))

    def check(
        self, *, codes: Collection[str] | None = None, limit: int | None = None, offset: int = 0
    ) -> Page[Finding]:
        """Temporal and structural findings, each with a stable ``code`` (see :func:`kgtoolkit.findings.check`)."""
        return check(self, codes=codes, limit=limit, offset=offset)

    def summary(self, limit: int = 20, *, style: str = "main", as_of: TimeInput | None = None) -> str:
        """Compact Markdown of the graph for a system prompt (see :func:`kgtoolkit._summary.summary`)."""
        return summary(self, limit=limit, style=style, as_of=as_of)

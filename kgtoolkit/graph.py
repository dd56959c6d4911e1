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
    """Open the knowledge graph in ``db``.

    Reads never create a graph. A file that does not exist is made by the first write, or at once with
    ``create=True``. A PostgreSQL database (or schema) gets the graph's tables when opened for writing.

    Parameters
    ----------
    db
        A file path, ``sqlite:///file`` or ``postgresql://…``. Default: ``$KGTOOLKIT_DB``, else
        ``~/.kgtoolkit/knowledge_graph.sqlite3`` (the rule is :func:`kgtoolkit.store.resolve`).
    read_only
        Open for reading only: every write raises :class:`~kgtoolkit.ReadOnly`.
    timeout
        Seconds to wait for another writer's lock.
    backend
        A :class:`~kgtoolkit.store.Backend` to run on instead, from :func:`kgtoolkit.store.connect` or a
        subclass that instruments one. Leave ``db`` out then.
    create
        Make the graph now, not at its first write.

    Returns
    -------
    KnowledgeGraph
        The open graph.

    Raises
    ------
    NotFound
        A read of a file that does not exist (the error names the path).
    MissingDependency
        A ``postgresql://`` name without the ``postgres`` extra installed.

    Examples
    --------
    >>> kg = open(":memory:")
    >>> kg.stats().facts
    0
    """
    return KnowledgeGraph(db, read_only=read_only, timeout=timeout, backend=backend, create=create)


class KnowledgeGraph(GraphStore):
    """A temporal knowledge graph in one SQLite file or one PostgreSQL database.

    Make one with :func:`open`. It is safe to share between threads of one process. Several processes
    (on several machines, for PostgreSQL) may write one graph at once. Both engines give the same
    guarantees: every write is one transaction, whole or absent; never two identical current facts;
    ``supersede`` and ``merge`` are atomic. ``location`` says where the graph is (``location.path`` is
    its SQLite file, None for PostgreSQL).

    Examples
    --------
    >>> kg = open(":memory:")
    >>> kg.add("billing", "owned_by", "payments team").created
    True
    >>> [f.object_name for f in kg.query("billing")]
    ['payments team']
    """

    def duplicates(
        self,
        *,
        kind: str = "entities",
        limit: int | None = None,
        offset: int = 0,
        min_score: float | None = None,
        embeddings: bool | None = None,
    ) -> Page[DuplicateCandidate]:
        """List likely duplicates among entity names (or predicates), best first, each saying why.

        It never merges; see :func:`kgtoolkit.duplicates.find_duplicates` and contract §14.

        Parameters
        ----------
        kind
            ``"entities"`` or ``"predicates"``.
        limit
            At most this many pairs (None: all).
        offset
            Skip this many pairs first.
        min_score
            Drop pairs scoring below this (0 to 1; default ``duplicates.DEFAULT_MIN_SCORE``).
        embeddings
            Use the names' meaning too (the search extra). None uses it for small graphs when installed.

        Returns
        -------
        Page[DuplicateCandidate]
            One page of pairs, with ``total`` and ``next_offset``.

        Raises
        ------
        InvalidRequest
            A bad ``kind``, ``limit``, ``offset`` or ``min_score``.
        MissingDependency
            ``embeddings=True`` without the search extra.

        Examples
        --------
        >>> kg = open(":memory:")
        >>> _ = kg.add("Postgres", "is_a", "database"); _ = kg.add("PostgreSQL", "is_a", "database")
        >>> [(c.a_name, c.b_name) for c in kg.duplicates(embeddings=False)]
        [('Postgres', 'PostgreSQL')]
        """
        return find_duplicates(self, kind=kind, limit=limit, offset=offset, min_score=min_score, embeddings=embeddings)

    def not_duplicates(self, first: str, second: str, *, kind: str = "entities") -> NotDuplicate:
        """Remember that ``first`` and ``second`` are different things.

        :meth:`duplicates` and :meth:`check` never list the pair again. Calling it twice, or in either
        order, changes nothing. It is stored by entity id, so it survives aliases and merges.

        Parameters
        ----------
        first, second
            Two names (exact, or an alias).
        kind
            ``"entities"``, or ``"predicates"`` for two predicates.

        Returns
        -------
        NotDuplicate
            The pair as stored.

        Raises
        ------
        NotFound
            A name that resolves to nothing.
        InvalidRequest
            The same thing twice, or a bad ``kind``.

        Examples
        --------
        >>> kg = open(":memory:")
        >>> _ = kg.add("Postgres", "is_a", "database"); _ = kg.add("PostgreSQL", "is_a", "database")
        >>> _ = kg.not_duplicates("Postgres", "PostgreSQL")
        >>> kg.duplicates(embeddings=False).total
        0
        """
        return NotDuplicate(kind, *self.mark_not_same(first, second, kind=kind))

    def check(
        self, *, codes: Collection[str] | None = None, limit: int | None = None, offset: int = 0
    ) -> Page[Finding]:
        """List the graph's temporal and structural findings, each with a stable ``code``.

        See :func:`kgtoolkit.findings.check` for the codes.

        Parameters
        ----------
        codes
            Only findings of these codes (default: every code in ``findings.CODES``).
        limit
            At most this many findings (None: all).
        offset
            Skip this many findings first.

        Returns
        -------
        Page[Finding]
            One page of findings, with ``total``.

        Raises
        ------
        InvalidRequest
            An unknown code, or a bad ``limit`` or ``offset``.

        Examples
        --------
        >>> kg = open(":memory:")
        >>> _ = kg.add("billing", "owned_by", "payments team")
        >>> kg.check().total
        0
        """
        return check(self, codes=codes, limit=limit, offset=offset)

    def summary(self, limit: int = 20, *, style: str = "main", as_of: TimeInput | None = None) -> str:
        """Write compact Markdown of the graph for a system prompt.

        Only structure is inlined (names, types, labels, short values), each inert; free text is counted.
        Contract §16 says what can reach a prompt.

        Parameters
        ----------
        limit
            How many entities, the best connected first.
        style
            ``"main"`` heads it ``# Knowledge Graph``, ``"subagent"`` ``## Known Facts``.
        as_of
            "Current" means valid on that date (default: now).

        Returns
        -------
        str
            The Markdown.

        Raises
        ------
        InvalidRequest
            A ``style`` other than ``main`` or ``subagent``.

        Examples
        --------
        >>> kg = open(":memory:")
        >>> _ = kg.add("billing", "owned_by", "payments team")
        >>> kg.summary().splitlines()[0]
        '# Knowledge Graph'
        """
        return summary(self, limit=limit, style=style, as_of=as_of)

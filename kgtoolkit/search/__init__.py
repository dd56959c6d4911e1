"""Search over memories and facts, by words and by meaning, read against the graph.

Search answers "what have we said about this?"; the graph answers "what is true, and since when?".
:func:`find` does both: it ranks facts and memories by reciprocal-rank fusion of three signals
(contract §15): the words (the database's own full-text index: SQLite FTS5, PostgreSQL tsvector),
the meaning (sentence-transformers embeddings in FAISS indexes kept beside the graph file) and the
names (facts of an entity or alias the query names exactly, on the side the query puts it), with an
optional graph rerank (``rerank="graph"``: near the named entities, current first); ``mode`` picks
``hybrid`` (default), ``vector`` or ``lexical`` (no model needed), ``explain=True`` gives each hit
its signals (:class:`Explanation`). The same triple on many days is one hit with its dates. Every hit
is annotated with the graph's state: is the fact current, what replaced it and since when; which
facts a memory backs, whether they still hold, and the current facts of the entities it names.

Usage (the model loads on first use, from local files only)::

    import kgtoolkit
    from kgtoolkit.search import find, index

    kg = kgtoolkit.open("graph.sqlite3")
    index(kg)                                   # optional: find() brings the index up to date itself
    for hit in find(kg, "which queue does my api use", k=5).hits:
        print(hit.score, hit.fact, hit.note)

Storage: ``<db>.search/`` beside the graph file holds ``embeddings.sqlite3`` (vectors by model and
text hash, so no text is embedded twice) and one folder per model with ``facts.faiss``,
``memories.faiss``, their keys, and ``manifest.json`` (what the index covers, and a checksum of each
file). A PostgreSQL graph keeps the embeddings in its database (``embeddings``: each text is embedded
once for every process and machine; a database user who may only read keeps the vectors it computes in
a local ``embeddings.sqlite3`` instead) and the index files in a local cache folder named by the graph's
identity (:func:`index_folder`), rebuilt from the database's embeddings when missing. A graph open
read-only writes nothing anywhere: it reads the index files that are there and keeps what it embeds in
memory (no folder, lock, cache or index file is created or written). Freshness: the
manifest records the watermark of the graph the index covers, kept by the database itself (schema step
8): facts above its id and memories above its order are new, and are read and embedded alone; a write
that changes or removes a text already embedded moves its generation, and the index is then compared
with every text (only changed texts are embedded). SQLite's change token (data_version) skips even that
read when nothing was written; PostgreSQL reads the watermark at every :func:`find`, so a write by any
program is seen. A missing, tampered or unreadable index is rebuilt (from the cache).
Nothing here imports torch, sentence-transformers or faiss until it is needed.

Layout, one private module per concern (everything public is imported from here):
``_results`` (the records), ``_texts`` (what is embedded; the embedding model itself is
:mod:`kgtoolkit._embedding`, which duplicates use too),
``_spotting`` (the entities a text names, and the side it puts them), ``_notes`` (a hit's note),
``_context`` (hits read against the graph), ``_faiss`` (one kind's FAISS index), ``_files`` (the index
folder), ``_sync`` (keeping the index in step), ``_rank`` (the vector signal), ``_fusion`` (hybrid
ranking: signals, fusion, graph rerank, grouping), ``_index`` (:class:`SearchIndex`), ``_api``
(:func:`open_index`, :func:`index`, :func:`find`). The full-text index itself is the store's
(``fact_search``, ``memory_search``: schema step 6, kept by triggers).
"""

from __future__ import annotations

from .._embedding import DEFAULT_MODEL_ENV, Embedder, SentenceEmbedder, default_model_path
from ._api import find, index, open_index
from ._background import BACKGROUND_TEXTS, BuildEstimate
from ._faiss import FLAT_LIMIT
from ._faiss import _build_index as _build_index  # private, re-exported for benchmarks/bench_search.py
from ._files import index_folder
from ._index import SearchIndex
from ._results import (
    KINDS,
    MODES,
    RERANKS,
    EntityContext,
    Explanation,
    FactContext,
    FactHit,
    FindResult,
    Hit,
    IndexStatus,
    Kind,
    MemoryHit,
    Mode,
    NamedEntity,
    PartReport,
    SyncReport,
)
from ._spotting import named_entities
from ._sync import Progress
from ._texts import _text_hash as _text_hash  # private, re-exported for tests/contract/test_regressions.py
from ._texts import fact_text

__all__ = [
    "BACKGROUND_TEXTS",
    "DEFAULT_MODEL_ENV",
    "FLAT_LIMIT",
    "KINDS",
    "MODES",
    "RERANKS",
    "BuildEstimate",
    "Embedder",
    "EntityContext",
    "Explanation",
    "FactContext",
    "FactHit",
    "FindResult",
    "Hit",
    "IndexStatus",
    "Kind",
    "MemoryHit",
    "Mode",
    "NamedEntity",
    "PartReport",
    "Progress",
    "SearchIndex",
    "SentenceEmbedder",
    "SyncReport",
    "default_model_path",
    "fact_text",
    "find",
    "index",
    "index_folder",
    "named_entities",
    "open_index",
]

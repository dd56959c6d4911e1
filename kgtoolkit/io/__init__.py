"""Bulk import and export: CSV, TSV, JSON Lines, Parquet, a lossless JSON dump, and other programs' SQLite graphs.

>>> import kgtoolkit, tempfile, pathlib
>>> from kgtoolkit import io
>>> kg = kgtoolkit.open(":memory:")
>>> _ = kg.add("my_api", "uses queue", "Redis", valid_from="2026-03-02")
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> io.export_file(kg, folder / "facts.csv")
1
>>> io.import_file(kgtoolkit.open(":memory:"), folder / "facts.csv").inserted
1

Formats (from the file's suffix; ``format=`` overrides):

| format | suffixes | notes |
|---|---|---|
| csv | .csv | comma separated, ``"`` quoting, first line is the header |
| tsv | .tsv .txt .tab | tab separated, **no quoting** (a ``"`` is an ordinary character) |
| jsonl | .jsonl .ndjson | one JSON object per line; blank lines are skipped |
| parquet | .parquet .pq | row n is "line" n |
| json | .json | the lossless dump of the whole graph (import/export only) |
| sqlite | .sqlite .sqlite3 .db | import only: a kgtoolkit graph, or MemPalace's / Flowly's ``entities``/``triples`` file (read-only) |

Any of these compressed: ``.gz``, ``.bz2`` or ``.zst`` after the suffix (``facts.tsv.gz``), read by pyarrow's codecs
(an import decompresses into a temporary file first, so a big file is still read in batches) and written so by an
export.

The graph itself may be an SQLite file or a PostgreSQL database (:func:`kgtoolkit.store.resolve`):
every format reads and writes the same there (the same file from the same graph, but for the
transaction times), and the ``sqlite`` format always names a *source* file, whatever holds the graph.

**Formulas** (CSV injection). A spreadsheet runs a CSV or TSV cell that begins with ``=``, ``+``, ``-``
or ``@`` (or a tab or carriage return) as a formula: ``=HYPERLINK(…)`` in a fact would become a live
link. So CSV and TSV exports put a ``'`` before such a text cell (a spreadsheet shows it as text,
without the ``'``), and before one that already begins with ``'`` and one of those characters; reading
a CSV or TSV takes exactly one such ``'`` off again, so an exported file re-imports to the same facts.
``escape_formulas=False`` (``--no-escape-formulas``) writes the cells as they are, for programs that
are not spreadsheets; such a file re-imports the same too, except that a value beginning with ``'=``
(or ``'+``, …) loses its ``'``. JSONL and Parquet are never changed.

Every value is read as text (``0360-01-01`` and ids stay as written). Columns are matched by name
(case-insensitive): ``subject, predicate, object`` are needed; ``valid_from, valid_to, confidence,
source, source_closet, subject_type, object_type, recorded_at, invalidated_at, ended_by`` are used when present;
other columns are ignored. A CSV/TSV row with fewer fields than the header (a file cut mid-row) is a bad row,
never padded with empty fields. Names with commas are taken as written and counted in the report's warnings
(``comma_guard=True`` refuses them, contract §2). A file written by :func:`export_file` re-imports as is, recognised by its
columns (its ``subject_name``/``object_name`` give the spellings, which the comma guard leaves alone as
the source graph accepted them; ``recorded_at``/``invalidated_at``/``ended_by`` are kept; ``subject_type``/``object_type`` the types; a type outside the importing graph's vocabulary
rejects the row, as in ``add``: extend the vocabulary first, or move whole graphs with the JSON dump). ``columns={"head": "subject", "relation": "predicate", "tail": "object", "start":
"valid_from", "end": "valid_to"}`` maps other headers. **Header-less** CSV/TSV: pass ``header=False``;
the columns are then named by position (``"0"``, ``"1"``, …) for ``columns``, and without ``columns``
they are taken as ``subject, predicate, object, valid_from, valid_to`` (3 to 5 columns, more ignored).

Every import is one transaction: it happens whole or not at all, even on Ctrl-C. The reports'
``line`` is the file's line (CSV/TSV: the header is line 1, so data starts at 2; quoted line breaks
are counted), the JSONL line, the Parquet row + 1, a dump's fact id, or a foreign triple's rowid.

The JSON dump: into an **empty** graph (no entities, facts, aliases or memories) it is restored
exactly (ids, transaction times, types, properties, aliases, memories, settings), so export → import
→ export gives identical files. Every record is checked first by the rules the store keeps (names
normalised, types in the dump's own vocabulary, dates and transaction times in the stored form,
references to entities of the dump, one current fact per triple, ...: see ``kgtoolkit.store.transfer._dump_check``); one
bad record refuses the whole dump, and :class:`~kgtoolkit.InvalidRows` names every problem with its
``record`` (``facts[3]``, ``config``) and, for a fact, its id as ``line``. Into a graph that is **not
empty** a dump is merged by the add rules, like any other import: facts get new ids and keep their
transaction times (as an export's rows do), facts already there are skipped, entity types are upgraded from ``unknown`` and properties
merged, aliases registered unless they clash, memories added unless their id exists or they break
the dump's rules; the graph's settings stay. Both are reported.

Layout, one private module per concern (everything public is imported from here): ``_formats`` (a file's
format, from its suffix or ``format=``), ``_read`` (:func:`read_facts_file`: CSV, TSV, JSON Lines and
Parquet read as text, and which column feeds each field), ``_import`` (:func:`import_file`, by format),
``_dump_import`` (a JSON dump restored or merged), ``_rejects`` (the rejects file), ``_export``
(:func:`export_file`, escaping formulas, atomic writes).
"""

from __future__ import annotations

from ._export import export_file
from ._formats import FORMATS
from ._formats import Progress as Progress  # the type of a progress callback, public here
from ._import import import_file
from ._partitioned import NULL_PARTITION, PARTITIONS, export_partitioned
from ._read import FIELDS, read_facts_file

__all__ = [
    "FIELDS",
    "FORMATS",
    "NULL_PARTITION",
    "PARTITIONS",
    "export_file",
    "export_partitioned",
    "import_file",
    "read_facts_file",
]

"""The two write paths are twins: a bulk load leaves the same graph as a loop of ``add``.

``kgtoolkit.store.import_facts`` (the bulk path: the rules once per distinct value, the cross-field
rules as polars expressions, one load) and ``KnowledgeGraph.add`` row by row (the row path) must
agree on every row: the same rows refused, for the same reasons, and the same graph left behind
(entities, aliases, facts; ids and transaction times aside). Hypothesis draws the rows from small
pools so that spellings collide, duplicates meet, and every rule of add gets its turn; both paths
start from the same graph (an alias, typed and untyped entities, current and ended facts, and
sometimes enough filler that the bulk path reads only the rows it touches). On both backends.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import KGError
from kgtoolkit.store import dump, import_facts, read_table, restore

# ---------------------------------------------------------------------- what rows are made of


def _spellings(*words: str) -> list[str]:
    """A name's spellings that normalise alike: case, padding, doubled or odd separators."""
    joined = " ".join(words)
    return [
        joined,
        joined.upper(),
        joined.lower(),
        f"  {joined}\t",
        "_".join(words),
        "  ".join(words),
        "\u00a0".join(words),
    ]


NAMES = sorted(
    {
        *_spellings("Acme"),
        *_spellings("My", "API"),
        *_spellings("Nimbus"),
        "nb",
        "NB",
        " nb ",  # nb: an alias
        "Dana O'Brien",
        "Dana O\u2019Brien",
        "dana obrien",
        "DANA  O'BRIEN",  # apostrophes vanish from the id
        "Zoë",
        "ZOË",
        "Zoe\u0308",  # NFKC: one id
        "Redis",
        "redis",  # in the graph already
        "Straße",
        "STRASSE",
        "\ufb01sh",
        "fish",  # case folding and NFKC: ß is ss, the ligature fi is f-i
        "Smith, John",
        "Acme, Inc",  # the comma guard
        "back\\slash",
        "\\N",  # what COPY's text format escapes
        "",
        "   ",
        "_",
        "'",  # nothing left: invalid_name
    }
)
PREDICATES = [
    "uses",
    "Uses",
    "uses queue",
    "uses_queue",
    "Uses  Queue",
    "works at",
    "email",
    "Email",
    " note ",
    "NOTE",
    "",
    "  ",
]
VALUES = [
    "Dana@Example.com",
    "dana@example.com",
    " dana@example.com ",
    "a, b",
    "x",
    "X",
    "Straße",
    "STRASSE",
    "\\N",
    "tab\\t",
]
DATES = [
    None,
    "",
    "  ",
    "2026",
    "2026-03",
    "2026-03-02",
    " 2026-03-02 ",
    "2026-03-31",
    "2025-12",
    "2026-03-31T23:59:59.999999Z",  # the key of the day 2026-03-31 as an end, spelled as an instant
    "2026-03-02T10:00:00Z",
    "2026-03-02T10:00:00+02:00",
    "2026-03-01T23:30:00-05:00",
    "2026-03-02T08:00:00z",
    "2026-02-30",
    "2026-13",
    "yesterday",
    "2026-03-02T10:00:00",
]
# Typed date columns (a frame from a dataframe library rather than a file): the row path gets the objects.
UTC = dt.UTC
DATE_COLUMNS: dict[str, tuple[Any, list[Any]]] = {
    "text": (pl.String, DATES),
    "date": (pl.Date, [None, dt.date(2025, 12, 31), dt.date(2026, 3, 1), dt.date(2026, 3, 2)]),
    "datetime": (
        pl.Datetime("us", "UTC"),
        [
            None,
            dt.datetime(2026, 3, 2, 10, tzinfo=UTC),
            dt.datetime(2026, 3, 2, 12, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            dt.datetime(2026, 3, 1, 23, 59, 59, 999999, tzinfo=UTC),
            dt.datetime(2026, 3, 2, 8, 0, 0, 1, tzinfo=UTC),
        ],
    ),
}
CONFIDENCES = [None, 0.0, 0.5, 0.9, 1.0, 1.5, -0.1, math.nan, math.inf]
SOURCES = [None, "", "  ", "import", " import ", "agent"]
CLOSETS = [None, "", "mem_1", " mem_2 "]
TYPES = [None, "", "  ", "person", "Person", " company ", "unknown", "robot"]  # robot: not in the vocabulary
TEXT_COLUMNS = (
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "source",
    "source_closet",
    "subject_type",
    "object_type",
)


@st.composite
def rows(draw: st.DrawFn, dates: list[Any]) -> dict[str, Any]:
    predicate = draw(st.sampled_from(PREDICATES))
    value = predicate.strip().lower() in ("email", "note")
    return {
        "subject": draw(st.sampled_from(NAMES)),
        "predicate": predicate,
        "object": draw(st.sampled_from(VALUES + NAMES[:6] if value else NAMES)),
        "valid_from": draw(st.sampled_from(dates)),
        "valid_to": draw(st.sampled_from(dates)),
        "confidence": draw(st.sampled_from(CONFIDENCES)),
        "source": draw(st.sampled_from(SOURCES)),
        "source_closet": draw(st.sampled_from(CLOSETS)),
        "subject_type": draw(st.sampled_from(TYPES)),
        "object_type": draw(st.sampled_from(TYPES)),
    }


@st.composite
def batches(draw: st.DrawFn) -> pl.DataFrame:
    """A frame of 1 to 14 rows (its dates as text, mostly; else a date or datetime column)."""
    kind = draw(st.sampled_from(["text", "text", "text", "date", "datetime"]))
    dtype, dates = DATE_COLUMNS[kind]
    batch = draw(st.lists(rows(dates), min_size=1, max_size=14))
    schema = {**{c: pl.String for c in TEXT_COLUMNS}, "valid_from": dtype, "valid_to": dtype, "confidence": pl.Float64}
    return pl.DataFrame(batch, schema=schema)


# ---------------------------------------------------------------------- the paths


def setup(kg: kgtoolkit.KnowledgeGraph, filler: int, guard: bool) -> None:
    """The graph both paths start from: an alias, typed and untyped entities, current and ended facts,
    a value fact; ``filler`` facts more; the comma guard on or off."""
    kg.configure(comma_guard=guard)
    kg.add("Nimbus", "uses", "Redis", valid_from="2026-01-01", subject_type="project")
    kg.alias("nb", "Nimbus")
    kg.add("Acme", "works at", "Redis", valid_from="2025-01-01", valid_to="2025-12-31")  # history
    kg.add("Dana O'Brien", "email", "dana@example.com")
    kg.add_entity("Zoë")  # unknown: a type may upgrade it
    kg.add_entity("My API", type="company")  # concrete: another type only warns
    if filler:  # enough rows that the bulk path reads only the entities and facts its rows name
        filled = pl.DataFrame(
            {
                "subject": [f"filler {i % 37}" for i in range(filler)],
                "predicate": ["relates"] * filler,
                "object": [f"thing {i}" for i in range(filler)],
            }
        )
        import_facts(kg, filled)


def row_path(kg: kgtoolkit.KnowledgeGraph, frame: pl.DataFrame) -> dict[int, str]:
    """``add`` per row of the frame, as a caller maps a row to arguments (an empty cell: an absent argument);
    the code of each refused row by line. An event's row met again is its next occurrence (contract §12), as the
    import numbers it: the n-th row that ``add`` finds as one ended event is written as occurrence n."""
    refused: dict[int, str] = {}
    rows_of: Counter[int] = Counter()  # rows of this frame found as each ended event (its first occurrence's id)
    for line, row in enumerate(frame.iter_rows(named=True), start=1):
        kwargs = {k: v for k, v in row.items() if k not in ("subject", "predicate", "object") and v is not None}
        try:
            fact = kg.add(row["subject"], row["predicate"], row["object"], **kwargs).fact
            if fact.kind == "event" and fact.valid_to is not None:
                rows_of[fact.id] += 1
                if rows_of[fact.id] > 1:
                    kg.add(row["subject"], row["predicate"], row["object"], occurrence=rows_of[fact.id], **kwargs)
        except KGError as exc:
            refused[line] = exc.code
    return refused


def bulk_path(kg: kgtoolkit.KnowledgeGraph, frame: pl.DataFrame) -> dict[int, set[str]]:
    """The frame in one import (bad rows skipped), with the comma guard as the graph's own writes have it (an import
    only guards when asked, contract §2); the codes of each refused row by line."""
    report, rejects = import_facts(kg, frame, on_error="skip", comma_guard=kg.config.comma_guard)
    codes: dict[int, set[str]] = {}
    for problem in report.rejects:
        codes.setdefault(problem["line"], set()).add(problem["code"])
    assert report.rejected == len(codes) == (rejects["line"].n_unique() if rejects.height else 0)
    assert report.inserted + report.duplicates == frame.height - report.rejected
    return codes


def graph_of(kg: kgtoolkit.KnowledgeGraph) -> dict[str, Counter[tuple[Any, ...]]]:
    """The graph, ids of facts and transaction times aside (a multiset of rows per table)."""

    def nan_safe(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row)

    entities = read_table(kg, "entities").select(["id", "name", "type", "properties"])
    aliases = read_table(kg, "aliases").select(["alias", "name", "entity_id"])
    facts = read_table(kg, "facts").select(
        [
            "subject",
            "predicate",
            "object_id",
            "object_value",
            "object_key",
            "valid_from",
            "valid_to",
            "from_us",
            "to_us",
            "confidence",
            "source",
            "source_closet",
            "ended_by",
            "occurrence",
        ]
    )
    facts = facts.append_column("current", facts["valid_to"].is_null())
    graph = {
        name: Counter(nan_safe(tuple(r.values())) for r in table.to_pylist())
        for name, table in (("entities", entities), ("aliases", aliases), ("facts", facts))
    }
    return {**graph, "labels": Counter(kg.predicate_labels().items())}  # each predicate's first spelling


def differences(a: dict[str, Counter[Any]], b: dict[str, Counter[Any]]) -> dict[str, Any]:
    return {
        name: {"bulk only": sorted(map(repr, a[name] - b[name])), "row only": sorted(map(repr, b[name] - a[name]))}
        for name in a
        if a[name] != b[name]
    }


# ---------------------------------------------------------------------- the property


class Twins:
    """Two graphs, the one the bulk path writes and the one the row path writes, reset to one start
    between hypothesis examples: emptied behind kgtoolkit's back, then the start restored exactly
    (much faster than a fresh PostgreSQL schema per example)."""

    def __init__(self, new_db: Callable[[str], Path | str], sql: Callable[..., Any]) -> None:
        self.sql = sql
        self.names = (new_db("bulk"), new_db("rows"))
        self.bulk, self.rows = (kgtoolkit.open(name, create=True) for name in self.names)
        self.starts: dict[tuple[int, bool], dict[str, Any]] = {}

    def reset(self, filler: int = 0, guard: bool = True) -> tuple[kgtoolkit.KnowledgeGraph, kgtoolkit.KnowledgeGraph]:
        if (filler, guard) not in self.starts:
            self.empty()
            setup(self.bulk, filler, guard)
            self.starts[filler, guard] = dump(self.bulk)
        self.empty()
        for kg in (self.bulk, self.rows):
            restore(kg, self.starts[filler, guard])  # the dump's settings too
        return self.bulk, self.rows

    def empty(self) -> None:
        for name in self.names:
            self.sql(
                name,
                "DELETE FROM aliases",
                "DELETE FROM facts",
                "DELETE FROM entities",
                "DELETE FROM memories",
                "DELETE FROM settings",
            )

    def close(self) -> None:
        self.bulk.close()
        self.rows.close()


@pytest.fixture
def twins(new_db: Callable[[str], Path | str], sql: Callable[..., Any]) -> Iterator[Twins]:
    pair = Twins(new_db, sql)
    yield pair
    pair.close()


def test_bulk_path_and_row_path_leave_the_same_graph(backend: str, twins: Twins) -> None:
    @settings(
        max_examples=60 if backend == "sqlite" else 25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(batches(), st.sampled_from([0, 0, 320]), st.sampled_from([True, True, False]))
    def check(frame: pl.DataFrame, filler: int, guard: bool) -> None:
        bulk, by_row = twins.reset(filler, guard)
        bulk_codes = bulk_path(bulk, frame)
        row_codes = row_path(by_row, frame)
        assert set(bulk_codes) == set(row_codes), (bulk_codes, row_codes)
        for line, code in row_codes.items():
            assert code in bulk_codes[line], (line, frame.row(line - 1, named=True), code, bulk_codes[line])
        left, right = graph_of(bulk), graph_of(by_row)
        assert left == right, differences(left, right)

    check()


def test_the_twins_agree_on_a_worked_batch(twins: Twins) -> None:
    """One hand-made batch through both paths: collisions, history, a value predicate, refusals."""
    batch = [
        {"subject": "my api", "predicate": "uses queue", "object": "Redis", "valid_from": "2026-03"},
        {"subject": "My_API", "predicate": "Uses  Queue", "object": "redis", "valid_from": "2026-04-01"},  # duplicate
        {"subject": "nb", "predicate": "uses", "object": "Redis"},  # the alias: a duplicate of the setup's fact
        {
            "subject": "Acme",
            "predicate": "works at",
            "object": "Redis",
            "valid_from": "2025-01-01",
            "valid_to": "2025-12-31",
        },  # the setup's history row again
        {"subject": "Dana O\u2019Brien", "predicate": "Email", "object": " Dana@Example.com "},  # the same value
        {
            "subject": "Zoë",
            "predicate": "works at",
            "object": "Acme",
            "subject_type": "Person",
            "object_type": "company",
            "confidence": 0.5,
            "source": " import ",
            "source_closet": "mem_1",
        },
        {"subject": "Smith, John", "predicate": "uses", "object": "x"},  # comma_list
        {
            "subject": "Acme",
            "predicate": "uses",
            "object": "Redis",
            "valid_from": "2026-03-02",
            "valid_to": "2026-03-01T23:30:00-05:00",
        },  # ends (04:30Z on the 2nd) inside its start day: fine
        {
            "subject": "Acme",
            "predicate": "uses",
            "object": "Redis",
            "valid_from": "2026-03-02T10:00:00Z",
            "valid_to": "2026-03-02T08:00:00Z",
        },  # interval_order
        {"subject": "Acme", "predicate": "uses", "object": "SQLite", "confidence": 1.5},  # invalid_request
        {"subject": "Acme", "predicate": "uses", "object": "SQLite", "subject_type": "robot"},  # unknown_type
        {"subject": "Acme", "predicate": "uses", "object": "SQLite", "valid_from": "2026-02-30"},  # invalid_date
        {"subject": "Acme", "predicate": "uses", "object": "SQLite", "valid_to": "   "},  # not a date, as for add
        {"subject": "Acme", "predicate": "uses", "object": "SQLite", "valid_to": ""},  # an empty cell: no end
    ]
    frame = pl.DataFrame(batch, schema={**{c: pl.String for c in TEXT_COLUMNS}, "confidence": pl.Float64})
    bulk, by_row = twins.reset()
    bulk_codes, row_codes = bulk_path(bulk, frame), row_path(by_row, frame)
    assert row_codes == {
        7: "comma_list",
        9: "interval_order",
        10: "invalid_request",
        11: "unknown_type",
        12: "invalid_date",
        13: "invalid_date",
    }
    assert bulk_codes == {line: {code} for line, code in row_codes.items()}
    left, right = graph_of(bulk), graph_of(by_row)
    assert left == right, differences(left, right)
    zoe = bulk.entity("zoë")
    assert zoe.type == "person" and bulk.entity("acme").type == "company"
    assert len(bulk.query("my api", direction="outgoing")) == 1
    assert [f.object for f in bulk.by_predicate("uses", "SQLite")] == ["sqlite"]  # line 14, current


def test_an_events_repeated_row_is_its_next_occurrence_on_both_paths(twins: Twins) -> None:
    """Hypothesis found it: the same one-day value fact twice in a frame is two occurrences (contract §12), by the
    import and by ``add`` told the occurrence; the setup's facts are met once each."""
    row = {"subject": " Acme\t", "predicate": "email", "object": "Dana@Example.com", "valid_from": "2025-12-31"}
    frame = pl.DataFrame(
        [
            {"subject": "", "predicate": "uses", "object": ""},
            {**row, "valid_to": "2025-12-31"},
            row | {"valid_to": "2025-12-31"},
        ],
        schema={**{c: pl.String for c in TEXT_COLUMNS}, "confidence": pl.Float64},
    )
    bulk, by_row = twins.reset()
    assert bulk_path(bulk, frame) == {1: {"invalid_name"}} and row_path(by_row, frame) == {1: "invalid_name"}
    left, right = graph_of(bulk), graph_of(by_row)
    assert left == right, differences(left, right)
    assert sorted(f.occurrence for f in bulk.query("acme", predicates=["email"]) if f.kind == "event") == [1, 2]

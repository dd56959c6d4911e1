"""An import in batches (issue 33): a big file is read, checked and written a batch at a time in one transaction,
so memory is bounded by the batch. Every answer must equal the import of the whole frame at once (the twin):
the facts and ids written, the report, the rejects and their line numbers, the refusal; both engines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import KnowledgeGraph, frames, io
from kgtoolkit.io import _read
from kgtoolkit.store import InvalidRows, import_facts

#: What differs between two imports of the same rows at another moment.
_WHEN = ("recorded_at", "invalidated_at")


def batches(frame: pl.DataFrame, size: int) -> Iterator[pl.DataFrame]:
    return (frame.slice(i, size) for i in range(0, max(frame.height, 1), size))


def stored(kg: KnowledgeGraph) -> tuple[pl.DataFrame, pl.DataFrame]:
    facts = frames.facts(kg).drop(*_WHEN).sort("id")
    entities = frames.entities(kg).drop("created_at").sort("id")
    return facts, entities


def rows(n: int, *, start: int = 0, bad_every: int = 0) -> pl.DataFrame:
    """Facts with duplicates inside the frame (every 7th row repeats an earlier one: a state's repeat folds, an
    event's is its next occurrence, contract §12), value facts, ended facts, events of one day, entity types that
    upgrade and clash, and a bad date every ``bad_every`` rows."""
    out: dict[str, list[Any]] = {k: [] for k in ("subject", "predicate", "object", "valid_from", "valid_to")}
    out["subject_type"] = []
    for i in range(start, start + n):
        j = i - 5 if i % 7 == 6 else i  # a repeat of a row five back
        out["subject"].append(f"Station {j % 11}")
        out["predicate"].append(["feeds", "has_name", "located_in"][j % 3])
        out["object"].append(f"Reservoir {j % 17}" if j % 3 != 1 else f"name {j}")
        out["valid_from"].append("20x1" if bad_every and i % bad_every == bad_every - 1 else f"20{10 + j % 9}-01-01")
        out["valid_to"].append(
            f"20{20 + j % 3}-06-30" if j % 4 == 0 else f"20{10 + j % 9}-01-01" if j % 4 == 2 else None
        )
        out["subject_type"].append(["place", "unknown", "person"][j % 3] if j % 5 == 0 else None)
    return pl.DataFrame(out)


@pytest.mark.parametrize("size", [1, 13, 100, 1000])
def test_batches_write_what_the_whole_frame_writes(
    new_db: Callable[[str], Path | str], size: int, backend: str
) -> None:
    frame = rows(300)
    with kgtoolkit.open(new_db("whole")) as whole, kgtoolkit.open(new_db("batches")) as batched:
        for kg in (whole, batched):
            kg.configure(value_predicates={"has_name"}, types={"place", "person", "unknown"})
            kg.add("Station 3", "feeds", "Reservoir 3", valid_from="2013-01-01")  # already there
            kg.add_entity("Station 4", type="place")
            kg.alias("Depot", "Station 4")
        frame = pl.concat([frame, frame.with_columns(subject=pl.lit("Depot")).head(20)])  # names an alias
        one, _ = import_facts(whole, frame)
        many, _ = import_facts(batched, batches(frame, size), rows=frame.height)
        assert (many.rows, many.inserted, many.duplicates, many.entities_created, many.types_upgraded) == (
            one.rows,
            one.inserted,
            one.duplicates,
            one.entities_created,
            one.types_upgraded,
        )
        assert sorted(many.warnings) == sorted(one.warnings)
        assert all(a.equals(b) for a, b in zip(stored(batched), stored(whole)))
        again, _ = import_facts(batched, batches(frame, size))  # importing twice changes nothing
        assert (again.inserted, again.duplicates) == (0, frame.height)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(0, 120), size=st.integers(1, 50), start=st.integers(0, 30))
def test_any_batch_size_is_the_whole_import(
    tmp_path_factory: pytest.TempPathFactory, n: int, size: int, start: int
) -> None:
    folder = tmp_path_factory.mktemp("b")
    frame = rows(n, start=start)
    with kgtoolkit.open(folder / "a.sqlite3") as whole, kgtoolkit.open(folder / "b.sqlite3") as batched:
        for kg in (whole, batched):
            kg.configure(types={"place", "person", "unknown"})
        one, _ = import_facts(whole, frame, on_error="skip")
        many, _ = import_facts(batched, batches(frame, size), on_error="skip")
        assert (many.inserted, many.duplicates) == (one.inserted, one.duplicates)
        assert all(a.equals(b) for a, b in zip(stored(batched), stored(whole)))


def test_a_bad_row_in_a_later_batch_refuses_the_whole_load(kg: KnowledgeGraph) -> None:
    kg.configure(types={"place", "person", "unknown"})
    kg.add("Pump 1", "feeds", "Reservoir 1")
    frame = rows(200, bad_every=90)  # bad rows in the first and the third batch
    with pytest.raises(InvalidRows) as whole:
        import_facts(kg, frame)
    with pytest.raises(InvalidRows) as batched:
        import_facts(kg, batches(frame, 64))
    assert batched.value.data["rows"] == whole.value.data["rows"]  # every bad row, not the first batch's
    assert batched.value.message == whole.value.message
    assert kg.stats().facts == 1  # nothing written

    skipped, rejected = import_facts(kg, batches(frame, 64), on_error="skip")
    assert [r["line"] for r in skipped.rejects] == [90, 180]
    assert rejected["valid_from"].to_list() == ["20x1", "20x1"]  # the rows' own fields come back


def _csv(path: Path) -> Path:
    """A CSV with a header, quoted line breaks, blank lines, a formula escape and a bad date."""
    lines = ["subject,predicate,object,valid_from"]
    for i in range(1, 80):
        if i % 13 == 0:
            lines.append("")
        name = f'"Station\n{i}"' if i % 17 == 0 else f"Station {i % 9}"
        when = "20x1" if i == 61 else f"2015-0{1 + i % 9}-01"
        lines.append(f"{name},feeds,'=Reservoir {i % 5},{when}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_a_big_file_reads_in_batches_as_it_reads_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    file = _csv(tmp_path / "facts.csv")
    whole, _ = _read._read(file, format=None, columns=None, delimiter=None, header=True)
    monkeypatch.setattr(_read, "STREAM_BYTES", 1)
    streamed = _read._read_batches(file, format=None, columns=None, delimiter=None, header=True, batch_size=size)
    assert streamed is not None
    parts, _, _ = streamed
    assert pl.concat(list(parts)).equals(whole)  # the same cells and line numbers


def test_import_file_in_batches_equals_the_whole_file(
    tmp_path: Path, new_db: Callable[[str], Path | str], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    file = _csv(tmp_path / "facts.csv")
    with kgtoolkit.open(new_db("whole")) as kg:
        one = io.import_file(kg, file, on_error="skip", rejects=tmp_path / "one.csv")
        expected = stored(kg)
    monkeypatch.setattr(_read, "STREAM_BYTES", 1)
    monkeypatch.setattr(_read, "BATCH_ROWS", 10)
    with kgtoolkit.open(new_db("batches")) as kg:
        many = io.import_file(kg, file, on_error="skip", rejects=tmp_path / "many.csv")
        assert all(a.equals(b) for a, b in zip(stored(kg), expected))
        with pytest.raises(InvalidRows):  # the refusal reads every batch and writes nothing
            io.import_file(kg, file, rejects=tmp_path / "refused.csv")
    assert (many.inserted, many.duplicates, many.rejected, many.rejects) == (
        one.inserted,
        one.duplicates,
        one.rejected,
        one.rejects,
    )
    assert (tmp_path / "many.csv").read_text() == (tmp_path / "one.csv").read_text()
    assert (tmp_path / "refused.csv").read_text() == (tmp_path / "one.csv").read_text()


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), max_size=40), max_size=12),
    asked=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), max_size=40),
)
def test_the_key_set_answers_as_a_set(batches: list[list[tuple[int, int]]], asked: list[tuple[int, int]]) -> None:
    """The load's seen keys (sorted runs merged like a binary counter, first halves shared) answer as a Python set."""
    import numpy as np

    from kgtoolkit.store.transfer._keyset import KeySet

    def arrays(keys: list[tuple[int, int]]) -> tuple[Any, Any]:
        return np.array([a for a, _ in keys], dtype=np.uint64), np.array([b for _, b in keys], dtype=np.uint64)

    keys, model = KeySet(), set()
    for batch in batches:
        new = [k for k in dict.fromkeys(batch) if k not in model]  # as a load adds them: only keys not seen yet
        keys.add(*arrays(new))
        model.update(new)
        assert keys.contains(*arrays(asked)).tolist() == [k in model for k in asked]
    assert len(keys) == len(model)


def test_a_big_csv_in_batches_has_a_progress_total_from_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CSV does not say how many rows it has: the first batch's bytes per row and the file's size estimate it,
    for the progress bar's total and the load's choices; the bar ends at the rows there were."""
    file = tmp_path / "facts.csv"
    rows(3_000).write_csv(file)
    monkeypatch.setattr(_read, "STREAM_BYTES", 1)
    monkeypatch.setattr(_read, "BATCH_ROWS", 200)
    streamed = _read._read_batches(file, format=None, columns=None, delimiter=None, header=True, batch_size=200)
    assert streamed is not None
    assert 0.8 * 3_000 <= (streamed[2] or 0) <= 1.2 * 3_000
    calls: list[tuple[int, int]] = []
    with kgtoolkit.open(tmp_path / "g.sqlite3") as kg:
        kg.configure(types={"place", "person", "unknown"})
        report = io.import_file(kg, file, progress=lambda done, total: calls.append((done, total)))
    assert report.rows == 3_000
    assert 0.8 * 3_000 <= calls[0][1] <= 1.2 * 3_000  # the total shown from the start
    assert calls[-1] == (3_000, 3_000)
    assert all(done <= total for done, total in calls)

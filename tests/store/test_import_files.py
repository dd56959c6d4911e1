"""Importing real files (issue 43): curated names with commas, compressed files by suffix, rows cut short, every
field of a fact through every format that imports back, and the CLI naming its own options.

Contract §2 (the comma guard: for agents, not for files) and §9 (import and export).
"""

from __future__ import annotations

import bz2
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import typer.testing
from shared_data import DATA

import kgtoolkit
from kgtoolkit import InvalidRequest, InvalidRows, KnowledgeGraph, io
from kgtoolkit.cli import app

CURATED = (
    "subject\tpredicate\tobject\tvalid_from\tvalid_to\n"
    "Washington, D.C.\tcapital of\tUnited States\t1800\t\n"
    "Sanford D. Bishop, Jr.\tholds\tU.S. Representative\t1993-01-03\t\n"
    "Sanford D. Bishop, Jr.\tmember of\tDemocratic Party\t1993\t\n"
    "Alice\temail\talice@example.com\t\t\n"  # an email may hold a comma anyway: never counted
    "Bob\tlives in\tParis\t2020\t2021\n"
)


def _dump(kg: KnowledgeGraph) -> list[dict[str, Any]]:
    return [f.to_dict() for f in kg.timeline()]


# ---------------------------------------------------------------------- the comma guard (contract §2)


def test_curated_names_with_commas_import_and_are_counted(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "curated.tsv"
    path.write_text(CURATED, encoding="utf-8")
    report = io.import_file(kg, path)
    assert report.inserted == 5 and report.rejected == 0
    counted = [w for w in report.warnings if "hold a comma" in w]
    assert counted == [
        "2 name(s) or value(s) hold a comma ('Washington, D.C.', 'Sanford D. Bishop, Jr.'), imported as written; "
        "comma_guard=True refuses them as packed lists"
    ]
    assert kg.entity("Washington, D.C.").name == "Washington, D.C."
    # A dry run says the same; importing again counts again and changes nothing.
    again = io.import_file(kg, path)
    assert again.inserted == 0 and again.warnings == report.warnings
    assert io.import_file(kgtoolkit.open(":memory:"), path, dry_run=True).warnings == report.warnings


def test_the_comma_guard_on_refuses_with_line_numbers(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "curated.tsv"
    path.write_text(CURATED, encoding="utf-8")
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, path, comma_guard=True)
    rows = [(r["line"], r["field"], r["code"]) for r in refused.value.data["rows"]]
    assert rows == [(2, "subject", "comma_list"), (3, "subject", "comma_list"), (4, "subject", "comma_list")]
    assert "line 2 subject 'Washington, D.C.'" in refused.value.message
    assert "without comma_guard=True" in refused.value.message
    assert kg.stats().facts == 0
    # The frames door and the store take the same keyword; allow_commas (the older spelling) still means "off".
    assert io.import_file(kg, path, allow_commas=True).inserted == 5


def test_add_keeps_the_guard(kg: KnowledgeGraph) -> None:
    with pytest.raises(kgtoolkit.CommaList):
        kg.add("Washington, D.C.", "capital of", "United States")


def test_a_refusal_is_bounded_and_counts_every_problem(kg: KnowledgeGraph, tmp_path: Path) -> None:
    many = InvalidRows.KEPT + 500
    frame = pl.DataFrame({"subject": [f"a{i}, b{i}" for i in range(many)], "predicate": "p", "object": "o"})
    frame.write_csv(tmp_path / "lists.csv")
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, tmp_path / "lists.csv", comma_guard=True, rejects=tmp_path / "rejects.csv")
    data = refused.value.data
    assert len(data["rows"]) == InvalidRows.KEPT and data["total"] == many and data["truncated"] is True
    assert refused.value.message.startswith(f"{many:,} problem(s) in {many:,} row(s), nothing imported")
    assert f"… and {many - InvalidRows.LISTED:,} more (a rejects file lists every one)" in refused.value.message
    assert pl.read_csv(tmp_path / "rejects.csv").height == many  # the rejects file has every one
    assert kg.stats().facts == 0


@pytest.mark.sqlite_only
def test_yago_with_commas_imports_and_with_the_guard_is_refused(kg: KnowledgeGraph, tmp_path: Path) -> None:
    source = DATA / "yago11k" / "facts.tsv"
    if not source.is_file():
        pytest.skip(f"dataset yago11k not present in {DATA}")
    raw = pl.read_csv(source, separator="\t", quote_char=None, infer_schema=False)
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, source, comma_guard=True, rejects=tmp_path / "rejects.csv")
    assert len(refused.value.data["rows"]) == InvalidRows.KEPT < refused.value.data["total"]
    rejected = pl.read_csv(tmp_path / "rejects.csv", infer_schema=False)
    commas = set(rejected.filter(pl.col("code") == "comma_list")["line"].cast(pl.Int64).to_list())
    with_comma = raw.with_row_index("line", offset=2).filter(
        pl.col("subject").str.contains(",") | pl.col("object").str.contains(",")
    )
    assert commas == set(with_comma["line"].to_list())
    assert kg.stats().facts == 0
    report = io.import_file(kg, source, on_error="skip")  # the guard off: only the dataset's bad dates are left out
    assert not any(r["code"] == "comma_list" for r in report.rejects)
    kept = with_comma.filter(~pl.col("line").is_in([r["line"] for r in report.rejects]))  # as imported
    spelled = [" ".join(n.split()) for n in (*kept["subject"], *kept["object"]) if "," in n]
    names = set(spelled)
    (counted,) = [w for w in report.warnings if "hold a comma" in w]
    assert counted.startswith(f"{len(names):,} name(s) or value(s) hold a comma (")


# ---------------------------------------------------------------------- compressed files by suffix


def _compress(path: Path, suffix: str) -> Path:
    data = path.read_bytes()
    target = path.with_name(path.name + suffix)
    if suffix == ".gz":
        target.write_bytes(gzip.compress(data))
    elif suffix == ".bz2":
        target.write_bytes(bz2.compress(data))
    else:
        import pyarrow as pa

        with pa.output_stream(str(target), compression="zstd") as out:
            out.write(data)
    return target


@pytest.mark.parametrize("name", ["facts.tsv.gz", "facts.csv.bz2", "facts.jsonl.zst", "facts.TSV.GZ"])
def test_a_compressed_file_imports_by_its_suffix(kg: KnowledgeGraph, tmp_path: Path, name: str) -> None:
    inner, suffix = name.rsplit(".", 1)
    plain = tmp_path / inner
    rows = [("Washington, D.C.", "capital of", "United States", "1800"), ("Bob", "lives in", "Paris", "2020")]
    frame = pl.DataFrame(rows, schema=["subject", "predicate", "object", "valid_from"], orient="row")
    kind = inner.rsplit(".", 1)[1].lower()
    if kind == "tsv":
        frame.write_csv(plain, separator="\t")
    elif kind == "csv":
        frame.write_csv(plain)
    else:
        frame.write_ndjson(plain)
    path = _compress(plain, "." + suffix.lower())
    if suffix != suffix.lower():
        path = path.rename(tmp_path / name)
    report = io.import_file(kg, path)
    assert report.inserted == 2 and report.rejected == 0
    assert any("1 name(s) or value(s) hold a comma" in w for w in report.warnings)
    assert io.read_facts_file(path).height == 2


def test_a_compressed_file_that_is_not_refuses_cleanly(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "facts.tsv.gz"
    path.write_text("subject\tpredicate\tobject\n", encoding="utf-8")
    with pytest.raises(InvalidRequest, match=r"cannot read .*facts\.tsv\.gz as gzip-compressed"):
        io.import_file(kg, path)
    assert kg.stats().facts == 0


def test_an_unknown_suffix_names_the_format_parameter(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "facts.dat.gz"
    path.write_bytes(gzip.compress(b"subject\tpredicate\tobject\na\tb\tc\n"))
    with pytest.raises(InvalidRequest, match=r"give format=NAME") as refused:
        io.import_file(kg, path)
    assert refused.value.data["field"] == "format"
    assert io.import_file(kg, path, format="tsv").inserted == 1  # the format given: still decompressed


# ---------------------------------------------------------------------- rows cut short


TRUNCATED = "subject\tpredicate\tobject\tvalid_from\tvalid_to\nObama\tholds\tPresident\t2009\t2017\nObama\tholds\tPres"


@pytest.mark.parametrize("streamed", [False, True])
def test_a_file_cut_mid_row_is_refused_with_its_line(
    kg: KnowledgeGraph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:  # the same file read in batches (a big file's way)
        monkeypatch.setattr("kgtoolkit.io._read.STREAM_BYTES", 0)
        monkeypatch.setattr("kgtoolkit.io._read.BATCH_ROWS", 1)
    kg.add("Zed", "knows", "Alice")
    before = _dump(kg)
    path = tmp_path / "cut.tsv"
    path.write_text(TRUNCATED, encoding="utf-8")
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, path)
    (row,) = [r for r in refused.value.data["rows"] if r["field"] == "fields"]
    assert row["line"] == 3 and row["code"] == "invalid_request"
    assert "the row has 3 of the header's 5 fields: cut short" in row["reason"]
    assert _dump(kg) == before  # nothing stored: not the ended term as a current one
    report = io.import_file(kg, path, on_error="skip", rejects=tmp_path / "rejects.csv")
    assert (report.inserted, report.rejected) == (1, 1) and report.rejects[0]["line"] == 3
    assert [f.valid_to for f in kg.query("Obama")] == ["2017-12-31"]
    rejected = pl.read_csv(tmp_path / "rejects.csv", infer_schema=False)
    assert rejected["line"].to_list() == ["3"] and rejected["object"].to_list() == ["Pres"]


def test_short_rows_of_a_csv_with_quoted_line_breaks(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(
        'subject,predicate,object,valid_to\na,note,"two\nlines, and a comma",2020\nb,knows,c\nd,knows,"e, f",2021\n',
        encoding="utf-8",
    )
    with pytest.raises(InvalidRows) as refused:
        io.import_file(kg, path)
    assert [(r["line"], r["field"]) for r in refused.value.data["rows"]] == [(4, "fields")]
    # An empty last field is a field: not a short row.
    path.write_text("subject,predicate,object,valid_to\na,knows,b,\n", encoding="utf-8")
    assert io.import_file(kg, path).inserted == 1


def test_the_missing_column_hint_proposes_only_lookalikes(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "odd.tsv"
    path.write_text("subject\tpredicate\tvalid_from\nA\tb\t2020\n", encoding="utf-8")
    with pytest.raises(InvalidRequest) as refused:
        io.import_file(kg, path)
    assert "valid_from" not in refused.value.message.split("it has:")[1].split(")")[1]  # never valid_from=object
    assert "columns={'THEIRS': 'object'}" in refused.value.message
    path.write_text("head\trelation\ttail\tstart\nA\tb\tc\t2020\n", encoding="utf-8")
    with pytest.raises(InvalidRequest) as refused:
        io.import_file(kg, path)
    assert "columns={'head': 'subject', 'relation': 'predicate', 'tail': 'object'}" in refused.value.message


# ---------------------------------------------------------------------- every field round-trips


def _build(kg: KnowledgeGraph) -> None:
    """Facts whose every field differs from its default: ended by someone, scheduled, values, sources, types."""
    kg.configure(comma_guard=False)
    kg.add("My API", "uses queue", "Redis", valid_from="2026-03-02", subject_type="project", source="carol")
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12", ended_by="ops team")
    kg.add(
        "my_api", "uses_queue", "SQLite", valid_from="2026-10-12", source="bob", source_closet="mem_x", confidence=0.75
    )
    kg.add("Alice", "email", "Alice@Example.com", subject_type="person")
    kg.add("Alice", "works at", "Nocetic", valid_from="2024-01", valid_to="2025-06", object_type="company")
    kg.add("Washington, D.C.", "capital of", "United States", valid_from="1800-11-17T12:00:00+01:00")
    kg.add("Alice", "joins", "Mars Mission", valid_from="2090")  # scheduled


def _facts(kg: KnowledgeGraph) -> list[dict[str, Any]]:
    """Every field of every fact (from the record itself, so a new field is compared too), ids aside."""
    rows = [{k: v for k, v in f.to_dict().items() if k != "id"} for f in kg.timeline()]
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


ROUND_TRIPS = ["csv", "tsv", "jsonl", "parquet", "json", "csv.gz", "tsv.bz2", "jsonl.zst", "parquet.gz", "json.gz"]


@pytest.mark.parametrize("suffix", ROUND_TRIPS)
def test_every_field_round_trips(new_db: Callable[[str], Path | str], tmp_path: Path, suffix: str) -> None:
    source, target = kgtoolkit.open(new_db("source")), kgtoolkit.open(new_db("target"))
    try:
        _build(source)
        path = tmp_path / f"facts.{suffix}"
        assert io.export_file(source, path) == 6
        report = io.import_file(target, path)
        assert report.rejected == 0 and not [w for w in report.warnings if "comma" in w]
        assert _facts(target) == _facts(source)
        assert any(f["ended_by"] == "ops team" for f in _facts(target))
        for name in ("my_api", "alice", "nocetic"):  # the entities' types travel too
            assert target.entity(name).type == source.entity(name).type
    finally:
        source.close()
        target.close()


def test_an_ended_fact_without_ended_by_is_ended_by_its_source(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "ended.csv"
    path.write_text("subject,predicate,object,valid_from,valid_to,source\na,knows,b,2020,2021,crawler\n", "utf-8")
    io.import_file(kg, path)
    (fact,) = kg.timeline()
    assert fact.ended_by == "crawler"
    path.write_text("subject,predicate,object,valid_to,ended_by\nc,knows,d,2021,\tx\u202e\n", "utf-8")
    with pytest.raises(InvalidRows, match="ended_by"):
        io.import_file(kg, path)


# ---------------------------------------------------------------------- the CLI names its own options


_runner = typer.testing.CliRunner()


def _cli(*args: Any) -> tuple[int, str]:
    result = _runner.invoke(app, [str(a) for a in args])
    return result.exit_code, " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", result.stderr).split())


def test_cli_errors_name_cli_options(db_path: Path | str, tmp_path: Path) -> None:
    odd = tmp_path / "facts.dat"
    odd.write_text("subject\tpredicate\tobject\na\tb\tc\n", encoding="utf-8")
    code, err = _cli("import", odd, "--db", db_path)
    assert code == 1 and "give --format NAME (one of csv" in err and "format=" not in err
    curated = tmp_path / "curated.tsv"
    curated.write_text(CURATED, encoding="utf-8")
    code, err = _cli("import", curated, "--db", db_path, "--comma-guard")
    assert code == 1 and "import without --comma-guard if it is a real name" in err
    assert "with --on-error skip; --rejects FILE writes every bad row" in err and "on_error" not in err
    odd.write_text("head\trel\tvalid_from\n2014\tb\t2020\n", encoding="utf-8")
    code, err = _cli("import", odd, "--db", db_path, "--format", "tsv")
    assert code == 1 and "--map head=subject --map rel=predicate" in err and "--no-header" in err
    assert "columns=" not in err and "header=" not in err
    code, err = _cli("import", curated, "--db", db_path, "--map", "subj=subject")
    assert code == 1 and "--map subj=subject names a column curated.tsv does not have" in err
    code, err = _cli("import", curated, "--db", db_path)
    assert code == 0 and "warning 2 name(s) or value(s) hold a comma" in err and "--comma-guard refuses them" in err


def test_progress_never_says_0_of_0(capsys: pytest.CaptureFixture[str]) -> None:
    from kgtoolkit.cli._common import progress_lines

    lines = progress_lines("importing facts.tsv", every=0)
    lines(0, 0)  # nothing to write (every row already there)
    assert capsys.readouterr().err == "importing facts.tsv: nothing to do\n"

"""What a first use of two real sets the suite had not seen found (issue #34), each now a rule with its test.

The sets, in the layouts they are published in (Garcia-Duran et al., 2018): ICEWS05-15 (events: subject,
relation, object and one date a line, no header) and YAGO15k (states: a fact's line, then lines of
``occursSince``/``occursUntil`` qualifiers). Neither is copied here; ICEWS14 from the shared data is the event
layout's public twin, and the other cases are a few lines written in each layout.

- An occurrence given only its day (contract §12): in an event graph, or for an event predicate, a fact with a
  start and no end is the event of that day and ends on it, so the same triple on another day is another fact
  (before: 17,340 of ICEWS05-15's 46,092 test events were folded into an earlier day's as "already present").
- A header-less file read with a header says --no-header first; a file whose lines have different numbers of
  fields names the first such line; a misspelled name or predicate meets the nearest spellings.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from shared_data import DATA
from typer.testing import CliRunner

import kgtoolkit
from kgtoolkit import KnowledgeGraph, io
from kgtoolkit.cli import app

ICEWS14 = DATA / "icews14" / "facts.tsv"


def test_in_an_event_graph_each_day_is_another_occurrence(kg: KnowledgeGraph) -> None:
    kg.configure(events=True)
    first = kg.add("Police", "arrest", "protesters", valid_from="2014-01-02")
    assert (first.created, first.fact.valid_from, first.fact.valid_to, first.fact.kind) == (
        True,
        "2014-01-02",
        "2014-01-02",
        "event",
    )
    again = kg.add("police", "Arrest", "Protesters", valid_from="2014-01-02")
    assert (again.created, again.fact.id) == (False, first.fact.id)  # the same day: the same occurrence
    later = kg.add("police", "arrest", "protesters", valid_from="2014-01-05")
    assert later.created and later.fact.id != first.fact.id and later.fact.valid_to == "2014-01-05"
    at = kg.add("police", "arrest", "protesters", valid_from="2014-01-06T10:30:00Z")
    assert at.fact.valid_to == at.fact.valid_from and at.fact.kind == "event"  # an instant ends on itself
    undated = kg.add("police", "arrest", "protesters")  # no day: one open occurrence, as before
    assert undated.fact.valid_to is None and kg.add("police", "arrest", "protesters").created is False
    assert kg.stats().events == 4


def test_only_declared_events_end_on_their_start(kg: KnowledgeGraph) -> None:
    kg.configure(event_predicates={"attacked"})
    event = kg.add("rebels", "attacked", "convoy", valid_from="2014-03-01").fact
    state = kg.add("rebels", "controls", "town", valid_from="2014-03-01").fact
    assert (event.valid_to, event.kind) == ("2014-03-01", "event")
    assert (state.valid_to, state.kind, state.state) == (None, "state", "current")
    month = kg.add("rebels", "attacked", "depot", valid_from="2014-04").fact  # a month: the occurrence spans it
    assert (month.valid_from, month.valid_to, month.kind) == ("2014-04-01", "2014-04-30", "event")


def test_a_header_less_event_file_imports_every_occurrence(kg: KnowledgeGraph, tmp_path: Path) -> None:
    rows = [
        ("Colombia", "Investigate", "Guerrilla (Colombia)", "2008-07-25"),
        ("Colombia", "Investigate", "Guerrilla (Colombia)", "2010-02-01"),
        ("Colombia", "Investigate", "Guerrilla (Colombia)", "2010-02-01"),  # it happened again that day
        ("France", "Make statement", "Mali", "2013-04-23"),
    ]
    path = tmp_path / "events.txt"
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    kg.configure(events=True)
    report = io.import_file(kg, path, format="tsv", header=False)
    assert (report.inserted, report.duplicates) == (4, 0)  # the repeat is the day's second occurrence (§12)
    assert sorted((f.valid_from, f.valid_to, f.occurrence) for f in kg.query("Colombia")) == [
        ("2008-07-25", "2008-07-25", 1),
        ("2010-02-01", "2010-02-01", 1),
        ("2010-02-01", "2010-02-01", 2),
    ]
    assert io.import_file(kg, path, format="tsv", header=False).inserted == 0  # importing twice changes nothing
    state = kgtoolkit.open(":memory:")  # a state graph keeps the open-ended reading: one fact since its first day
    assert io.import_file(state, path, format="tsv", header=False).inserted == 2


def test_the_cli_says_a_header_less_file_needs_no_header_first(tmp_path: Path) -> None:
    path = tmp_path / "icews.txt"
    path.write_text("Colombia\tInvestigate\tGuerrilla (Colombia)\t2008-07-25\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["--db", str(tmp_path / "g.sqlite3"), "import", str(path), "--format", "tsv"])
    assert done.exit_code == 1 and "Traceback" not in done.output
    line = done.output.strip()
    assert (
        line.startswith("error [invalid_request] icews.txt has no header line")
        and "looks like data ('2008-07-25')" in line
    )
    assert "--no-header" in line and "header=False" not in line  # the CLI names its own option (contract §6)
    named = tmp_path / "named.tsv"
    named.write_text("head\trelation\ttail\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["--db", str(tmp_path / "g.sqlite3"), "import", str(named)])
    assert "--map head=subject --map relation=predicate --map tail=object" in done.output


@pytest.mark.skipif(not ICEWS14.exists(), reason=f"no ICEWS14 at {ICEWS14}")
def test_icews14_with_one_date_a_line_is_the_same_event_graph(tmp_path: Path) -> None:
    """The real file without its valid_to column (the usual published layout) gives the same graph as with it."""
    dated = pl.read_csv(ICEWS14, separator="\t", quote_char=None).drop("valid_to")
    path = tmp_path / "icews14-one-date.tsv"
    dated.write_csv(path, separator="\t", include_header=False, quote_style="never")
    with kgtoolkit.open(tmp_path / "both.sqlite3") as both, kgtoolkit.open(tmp_path / "one.sqlite3") as one:
        both.configure(events=True)
        one.configure(events=True)
        full = io.import_file(both, ICEWS14, allow_commas=True)
        single = io.import_file(one, path, format="tsv", header=False, allow_commas=True)
        assert (single.inserted, single.duplicates) == (full.inserted, full.duplicates)
        assert single.inserted == both.stats().events == one.stats().events > 90_000


def test_a_typo_is_met_with_the_name_it_was_meant_to_be(kg: KnowledgeGraph) -> None:
    """Found on the same set: `query Colmbia` suggested nothing (partial matches only); typos now meet the nearest
    spellings, the nearest first, for entities and predicates alike."""
    kg.add("Barack Obama", "Make statement", "Colombia")
    kg.add("Hisham Barakat", "Investigate", "Colombia")
    with pytest.raises(kgtoolkit.NotFound) as caught:
        kg.query("Colmbia")
    assert caught.value.data["suggestions"][0] == "Colombia"
    with pytest.raises(kgtoolkit.NotFound) as caught:
        kg.query("Barak Obama")
    assert caught.value.data["suggestions"][0] == "Barack Obama"
    with pytest.raises(kgtoolkit.NotFound) as caught:
        kg.query("Colombia", predicates=["investigte"])
    assert caught.value.data["suggestions"][0] == "investigate" and "Did you mean: investigate" in str(caught.value)


def test_a_file_of_uneven_lines_names_the_first_one(tmp_path: Path) -> None:
    """YAGO15k's layout: three fields for a fact, five for a qualifier line (was: polars' "found more fields than
    defined in 'Schema'")."""
    path = tmp_path / "yago15k.tsv"
    path.write_text(
        "<Ben_Alnwick>\t<playsFor>\t<Leicester_City_F.C.>\n"
        '<Ben_Alnwick>\t<playsFor>\t<Leicester_City_F.C.>\t<occursSince>\t"2008-##-##"\n',
        encoding="utf-8",
    )
    done = CliRunner().invoke(app, ["--db", str(tmp_path / "g.sqlite3"), "import", str(path), "--no-header"])
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert done.output.startswith("error [invalid_request] yago15k.tsv line 2 has 5 fields where its first line has 3")
    assert not (tmp_path / "g.sqlite3").exists() or kgtoolkit.open(tmp_path / "g.sqlite3").stats().facts == 0

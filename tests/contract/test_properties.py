"""Property tests: name normalisation, as_of / known_at against a plain-Python interval model, damaged dumps.

The properties that open a graph run on both backends, each example on a fresh graph (``new_db``);
PostgreSQL runs fewer examples (a fresh schema per example costs more than a fresh file).
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import json
import re
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kgtoolkit
from kgtoolkit import IntervalOrder, InvalidName, frames, io, normalize_name, normalize_predicate
from kgtoolkit._demo import build_demo
from kgtoolkit._names import clean_text
from kgtoolkit._time import parse_bound
from kgtoolkit.store import dump, is_empty, read_table, restore

UTC = dt.UTC
US = dt.timedelta(microseconds=1)
NEVER_BEFORE = dt.datetime(1, 1, 1, tzinfo=UTC)
NEVER_AFTER = dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)

# ====================================================================== names

WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.éÉöÖ"
SEPARATORS = [" ", "  ", "\t", "\n", "\u00a0", "\u2003", "_", "__", " _ ", "_\u00a0_", " \t "]
words = st.lists(st.text(alphabet=WORD_CHARS, min_size=1, max_size=8), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_normalisation_idempotent_and_clean(text: str) -> None:
    try:
        key = normalize_name(text)
    except InvalidName:
        return
    assert normalize_name(key) == key
    assert key and not any(ch.isspace() for ch in key)
    assert "'" not in key and "\u2019" not in key
    assert "__" not in key and key != "_"
    # Case-folded (then NFKC-recomposed, so e.g. 'ǰ' stays one code point).
    assert unicodedata.normalize("NFKC", key.casefold()) == key


@settings(max_examples=200, deadline=None)
@given(words, st.data())
def test_equivalent_spellings_give_one_id(parts: list[str], data: st.DataObject) -> None:
    expected = "_".join(p.lower() for p in parts)
    spellings = []
    for _ in range(3):
        seps = [data.draw(st.sampled_from(SEPARATORS)) for _ in parts[1:]]
        cased = ["".join(ch.upper() if data.draw(st.booleans()) else ch.lower() for ch in p) for p in parts]
        text = cased[0] + "".join(sep + word for sep, word in zip(seps, cased[1:]))
        lead, trail = data.draw(st.sampled_from(["", " ", "\t\u00a0"])), data.draw(st.sampled_from(["", "  ", "\n"]))
        spellings.append(lead + text + trail)
    apostrophe = data.draw(st.sampled_from(["'", "\u2019"]))
    spellings.append(parts[0][:1] + apostrophe + parts[0][1:] + "".join(" " + p for p in parts[1:]))
    assert {normalize_name(s) for s in spellings} == {expected}


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=" \t\n\u00a0\u2003_'\u2019", max_size=12))
def test_nothing_left_is_an_error(text: str) -> None:
    with pytest.raises(InvalidName):
        normalize_name(text)


def examples(backend: str, sqlite: int) -> int:
    """How many hypothesis examples a property that opens graphs runs on this backend."""
    return sqlite if backend == "sqlite" else max(5, sqlite // 4)


@pytest.fixture
def fresh(new_db: Callable[[str], Path | str]) -> Callable[[], kgtoolkit.KnowledgeGraph]:
    """``fresh()``: a new, empty graph on the test's backend (one per hypothesis example)."""
    names = itertools.count()
    return lambda: kgtoolkit.open(new_db(f"example{next(names)}"))


def test_spellings_name_one_entity_in_the_store(backend: str, fresh: Callable[[], kgtoolkit.KnowledgeGraph]) -> None:
    """Equivalent spellings are one entity in the database too (its ids compare as the store's keys do):
    every spelling resolves to it, an alias to it, and a fact added under any spelling is one fact."""

    @settings(max_examples=examples(backend, 60), deadline=None)
    @given(words, st.data())
    def check(parts: list[str], data: st.DataObject) -> None:
        expected = "_".join(p.lower() for p in parts)
        assume(expected != "acme" and f"{parts[0].lower()}_alias" != expected)  # no self-loop, the alias is new
        spellings = [
            data.draw(st.sampled_from(SEPARATORS)).join(
                "".join(ch.upper() if data.draw(st.booleans()) else ch for ch in p) for p in parts
            )
            for _ in range(3)
        ]
        with fresh() as kg:
            results = [kg.add(s, "Works  At", "Acme") for s in spellings]
            assert [r.created for r in results] == [True, False, False]
            assert {r.fact.subject for r in results} == {expected}
            assert kg.entity(spellings[1]).name == clean_text(spellings[0])  # the first spelling is the name
            assert {kg.resolve(s) for s in spellings} == {expected} and kg.stats().entities == 2
            kg.alias(f"{parts[0]} alias", spellings[1])
            assert kg.resolve(f"  {parts[0].upper()}   ALIAS ") == expected
            assert [f.object for f in kg.query(spellings[2], direction="outgoing")] == ["acme"]
            assert [e.id for e in kg.entities()] == sorted([expected, "acme"])

    check()


# ====================================================================== time model
#
# A bound is drawn as (input handed to the store, model spec). The model turns a spec into the first
# and last instant it covers; a start uses the first, an end the last (whole days, both ends count).

BASE = dt.date(2026, 1, 10)
DAYS = [BASE + dt.timedelta(days=n) for n in range(0, 22)]
MONTHS = [(2025, 12), (2026, 1), (2026, 2)]


def _first_instant(spec: tuple[Any, ...]) -> dt.datetime:
    kind = spec[0]
    if kind == "none":
        return NEVER_BEFORE
    if kind == "day":
        d = spec[1]
        return dt.datetime(d.year, d.month, d.day, tzinfo=UTC)
    if kind == "month":
        return dt.datetime(spec[1], spec[2], 1, tzinfo=UTC)
    return spec[1]


def _last_instant(spec: tuple[Any, ...]) -> dt.datetime:
    kind = spec[0]
    if kind == "none":
        return NEVER_AFTER
    if kind == "day":
        return _first_instant(spec) + dt.timedelta(days=1) - US
    if kind == "month":
        year, month = spec[1] + spec[2] // 12, spec[2] % 12 + 1
        return dt.datetime(year, month, 1, tzinfo=UTC) - US
    return spec[1]


def _stored_text(spec: tuple[Any, ...], *, end: bool) -> str | None:
    kind = spec[0]
    if kind == "none":
        return None
    if kind in ("day", "month"):
        return (_last_instant(spec) if end else _first_instant(spec)).date().isoformat()
    return _z(spec[1])


def _z(moment: dt.datetime) -> str:
    naive = moment.astimezone(UTC).replace(tzinfo=None)
    return naive.isoformat(timespec="microseconds" if naive.microsecond else "seconds") + "Z"


def _z_us(moment: dt.datetime) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


@st.composite
def bounds(draw: st.DrawFn, *, allow_open: bool = True) -> tuple[Any, tuple[Any, ...]]:
    kinds = ["day", "day_obj", "month", "dt_z", "dt_offset", "dt_obj"] + (["none", "none"] if allow_open else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None, ("none",)
    if kind in ("day", "day_obj"):
        d = draw(st.sampled_from(DAYS))
        return (d.isoformat() if kind == "day" else d), ("day", d)
    if kind == "month":
        year, month = draw(st.sampled_from(MONTHS))
        return f"{year:04d}-{month:02d}", ("month", year, month)
    d = draw(st.sampled_from(DAYS))
    moment = dt.datetime(
        d.year,
        d.month,
        d.day,
        draw(st.sampled_from([0, 1, 12, 22, 23])),
        draw(st.sampled_from([0, 30, 59])),
        draw(st.sampled_from([0, 59])),
        draw(st.sampled_from([0, 999999])),
        tzinfo=UTC,
    )
    zone = dt.timezone(dt.timedelta(hours=draw(st.sampled_from([-5, 0, 2, 14]))))
    if kind == "dt_z":
        return _z(moment), ("dt", moment)
    if kind == "dt_offset":
        return moment.astimezone(zone).isoformat(), ("dt", moment)
    return moment.astimezone(zone), ("dt", moment)


fact_plans = st.lists(
    st.tuples(bounds(), bounds(), st.one_of(st.none(), bounds(allow_open=False))),
    min_size=1,
    max_size=7,
)


def _build(kg: kgtoolkit.KnowledgeGraph, plans: list[Any]) -> dict[str, dict[str, Any]]:
    """Add (and maybe invalidate) each planned fact; return the model of what the store must hold."""
    model: dict[str, dict[str, Any]] = {}
    for i, ((start_in, start), (end_in, end), ended) in enumerate(plans):
        obj = f"o{i}"
        first, last = _first_instant(start), _last_instant(end)
        if last < first:
            with pytest.raises(IntervalOrder):
                kg.add("s", "p", obj, valid_from=start_in, valid_to=end_in)
            continue
        fact = kg.add("s", "p", obj, valid_from=start_in, valid_to=end_in).fact
        assert fact.valid_from == _stored_text(start, end=False)
        assert fact.valid_to == _stored_text(end, end=True)
        model[obj] = {"first": first, "last": last}
        if ended is not None and end[0] == "none":
            ended_in, ended_spec = ended
            if _last_instant(ended_spec) < first:
                with pytest.raises(IntervalOrder):
                    kg.invalidate("s", "p", obj, ended=ended_in)
            else:
                done = kg.invalidate("s", "p", obj, ended=ended_in)
                assert done.valid_to == _stored_text(ended_spec, end=True)
                model[obj]["last"] = _last_instant(ended_spec)
    if not model:  # every planned fact was refused: nothing was written, not even the subject
        assert kg.stats().entities == 0
        return model
    for fact in kg.query("s"):
        model[fact.object]["recorded"] = dt.datetime.fromisoformat(fact.recorded_at)
        model[fact.object]["invalidated"] = (
            dt.datetime.fromisoformat(fact.invalidated_at) if fact.invalidated_at else None
        )
    assert set(model) == {f.object for f in kg.query("s")}
    return model


def _windows(model: dict[str, dict[str, Any]]) -> list[tuple[Any, dt.datetime, dt.datetime]]:
    """as_of values to try: every day around the facts, a month, and every bound instant ±1µs."""
    out: list[tuple[Any, dt.datetime, dt.datetime]] = []
    for n in range(-2, 24):
        d = BASE + dt.timedelta(days=n)
        spec = ("day", d)
        out.append((d.isoformat(), _first_instant(spec), _last_instant(spec)))
    out.append(("2026-01", *(f(("month", 2026, 1)) for f in (_first_instant, _last_instant))))
    instants = {m for fact in model.values() for m in (fact["first"], fact["last"])}
    instants -= {NEVER_BEFORE, NEVER_AFTER}
    for moment in sorted(instants):
        for t in (moment - US, moment, moment + US):
            out.append((_z_us(t), t, t))
    out.append(
        (
            dt.datetime(2026, 1, 15, 3, tzinfo=dt.timezone(dt.timedelta(hours=5))),
            dt.datetime(2026, 1, 14, 22, tzinfo=UTC),
            dt.datetime(2026, 1, 14, 22, tzinfo=UTC),
        )
    )
    return out


def test_as_of_matches_model(backend: str, fresh: Callable[[], kgtoolkit.KnowledgeGraph]) -> None:
    @settings(max_examples=examples(backend, 60), deadline=None)
    @given(fact_plans)
    def check(plans: list[Any]) -> None:
        with fresh() as kg:
            as_of_matches_model(kg, plans)

    check()


def as_of_matches_model(kg: kgtoolkit.KnowledgeGraph, plans: list[Any]) -> None:
    model = _build(kg, plans)
    assume(model)
    for value, lo, hi in _windows(model):
        expected = {obj for obj, f in model.items() if f["first"] <= hi and f["last"] >= lo}
        got = kg.query("s", as_of=value)
        assert {f.object for f in got} == expected, (value, model)
        assert len(got) == len(expected)
        assert {f.object for f in kg.by_predicate("p", as_of=value)} == expected
        current = {obj for obj in expected if model[obj]["last"] == NEVER_AFTER}
        assert {f.object for f in kg.query("s", as_of=value, current_only=True)} == current


def test_known_at_matches_model(backend: str, fresh: Callable[[], kgtoolkit.KnowledgeGraph]) -> None:
    @settings(max_examples=examples(backend, 40), deadline=None)
    @given(fact_plans)
    def check(plans: list[Any]) -> None:
        with fresh() as kg:
            known_at_matches_model(kg, plans)

    check()


def known_at_matches_model(kg: kgtoolkit.KnowledgeGraph, plans: list[Any]) -> None:
    model = _build(kg, plans)
    assume(model)
    moments = {f["recorded"] for f in model.values()} | {f["invalidated"] for f in model.values() if f["invalidated"]}
    points = sorted({m + delta for m in moments for delta in (-US, dt.timedelta(0), US)})
    days = [_windows(model)[i] for i in (2, 8, 14, 20)]
    for k in points:
        visible = {obj: f for obj, f in model.items() if f["recorded"] <= k}
        ended = {obj for obj, f in visible.items() if f["invalidated"] is not None and f["invalidated"] <= k}
        got = kg.query("s", known_at=_z_us(k))
        assert {f.object for f in got} == set(visible), (k, model)
        assert {f.object for f in got if f.current} == set(visible) - ended
        for f in got:
            assert (f.valid_to is None) == (f.object not in ended)
            assert (f.invalidated_at is None) == (f.object not in ended)
        assert {f.object for f in kg.query("s", known_at=_z_us(k), current_only=True)} == set(visible) - ended
        for value, lo, hi in days:
            expected = {
                obj
                for obj, f in visible.items()
                if f["first"] <= hi and (f["last"] if obj in ended else NEVER_AFTER) >= lo
            }
            assert {f.object for f in kg.query("s", as_of=value, known_at=_z_us(k))} == expected
    assert kg.query("s", known_at="2000-01-01") == []


# ====================================================================== dumps
#
# A dump is restored only if every record keeps the store's rules; otherwise it is refused whole with a
# KGError (never a TypeError, KeyError, OverflowError, UnicodeEncodeError, sqlite3 error, ...) and nothing
# is written. The same holds for merging a dump into a graph that is not empty. A graph the store built
# always restores, exactly.

ODD_TEXT = st.text(alphabet=st.sampled_from("aZé ß_-'’,.\t\u00a0\u2003\x1c\u0308ǰﬁİ"), min_size=1, max_size=10)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            ODD_TEXT,
            st.sampled_from(["knows", "Works At", "note", "email"]),
            ODD_TEXT,
            bounds(),
            st.one_of(st.none(), bounds(allow_open=False)),
            st.sampled_from([0, 0.5, 1]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.tuples(ODD_TEXT, st.integers(0, 5)), max_size=2),
)
def test_a_graph_the_store_built_always_restores(facts: list[Any], aliases: list[Any]) -> None:
    with kgtoolkit.open(":memory:") as kg, kgtoolkit.open(":memory:") as twin:
        kg.configure(comma_guard=False)
        writes = [
            lambda s=s, p=p, o=o, start=start, c=c: kg.add(
                s, p, o, valid_from=start, confidence=c, source=f" {s} ", properties={"n": o}
            )
            for s, p, o, (start, _), _, c in facts
        ]
        writes += [
            lambda s=s, p=p, o=o, end=end: kg.invalidate(s, p, o, ended=end[0], ended_by=o)
            for s, p, o, _, end, _ in facts
            if end is not None
        ]
        writes.append(lambda: kg.remember(facts[0][0], source=facts[0][2], metadata={"k": facts[0][0]}))
        for write in writes:
            try:
                write()
            except kgtoolkit.KGError:  # names that normalise to nothing, an end before the start, ...
                pass
        entities = [e.id for e in kg.entities()]
        for alias, target in aliases if entities else ():
            try:
                kg.alias(alias, entities[target % len(entities)])
            except kgtoolkit.KGError:
                pass
        data = json.loads(json.dumps(dump(kg)))  # through JSON, as a file is
        restore(twin, data)
        assert dump(twin) == data


# Damage: values that are nearly right (names, dates, times, references), numbers at the edges, then anything.
PLAUSIBLE = st.sampled_from(
    [
        "",
        " ",
        "\t",
        "_",
        "'",
        " Acme",
        "Acme ",
        "acme",
        "ACME",
        "postgres",
        "pg",
        "ghost",
        "Uses Queue",
        "uses_queue",
        "person",
        "robot",
        "unknown",
        "a,b",
        "mem_x",
        "NaN",
        "19##",
        "2026-13-01",
        "2026-02-30",
        "0000-01-01",
        "2026-10",
        "2026-10-12",
        "2025-01-06",
        "2026-10-12T08:00:00+02:00",
        "2026-10-12T06:00:00Z",
        "2026-12-02T12:00:00.123456Z",
        "2026-12-02 12:00:00.123456Z",
        "2026-12-02T12:00:00Z",
        "9999-12-31T23:59:59.999999Z",
        "\ud800",
        "x\udfff",
    ]
)
NUMBERS = st.sampled_from(
    [0, 1, -1, 0.5, 1.0000001, 2**63 - 1, 2**63, 10**30, -(2**63), float("nan"), float("inf"), True, False]
)
JUNK = st.one_of(
    PLAUSIBLE,
    NUMBERS,
    st.none(),
    st.text(max_size=8),
    st.integers(),
    st.floats(),
    st.recursive(
        st.none() | st.integers() | st.floats() | st.text(max_size=3),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=6,
    ),
)
FIELDS = {
    "entities": ("id", "name", "type", "properties", "created_at"),
    "facts": (
        "id",
        "subject",
        "predicate",
        "object_id",
        "object_value",
        "valid_from",
        "valid_to",
        "confidence",
        "source",
        "source_closet",
        "recorded_at",
        "invalidated_at",
        "ended_by",
    ),
    "aliases": ("alias", "name", "entity_id"),
    "memories": ("id", "text", "source", "created_at", "metadata"),
}
PLACE = st.tuples(st.sampled_from(list(FIELDS)), st.integers(0, 999), st.integers(0, 99))  # section, record, field
MUTATIONS = st.one_of(
    st.tuples(st.just("set"), PLACE, PLAUSIBLE),
    st.tuples(st.just("set"), PLACE, NUMBERS),
    st.tuples(st.just("set"), PLACE, JUNK),
    st.tuples(st.just("delete"), PLACE),
    st.tuples(st.just("copy"), PLACE, st.integers(0, 999)),  # the field of another record: duplicate ids, ...
    st.tuples(st.sampled_from(["duplicate", "drop"]), PLACE),
    st.tuples(st.just("replace"), PLACE, JUNK),
    st.tuples(st.just("section"), st.sampled_from([*FIELDS, "config"]), JUNK),
    st.tuples(
        st.just("config"), st.sampled_from(["types", "value_predicates", "multi_valued", "comma_guard", "other"]), JUNK
    ),
    st.tuples(st.just("vocabulary"), st.sampled_from(["types", "value_predicates", "multi_valued"]), JUNK),
    st.tuples(st.just("header"), JUNK),
)
TRANSACTION_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")
_DEMO: list[dict[str, Any]] = []


def _demo_dump() -> dict[str, Any]:
    """A copy of the demo graph's dump (history, merges, aliases, memories, properties), built once."""
    if not _DEMO:
        with tempfile.TemporaryDirectory() as folder, build_demo(Path(folder) / "demo.sqlite3") as kg:
            kg.add("Acme", "note", "Lisbon, Portugal")
            _DEMO.append(json.loads(json.dumps(dump(kg))))
    return copy.deepcopy(_DEMO[0])


def _mutate(data: dict[str, Any], mutation: tuple[Any, ...]) -> None:
    kind, *args = mutation
    if kind in ("set", "delete", "copy", "duplicate", "drop", "replace"):
        section, i, field = args[0]
        rows = data[section]
        if not isinstance(rows, list) or not rows:
            return
        i %= len(rows)
        row, key = rows[i], (*FIELDS[section], "other")[field % (len(FIELDS[section]) + 1)]
        other = rows[args[1] % len(rows)] if kind == "copy" else None
        if kind == "set" and isinstance(row, dict):
            row[key] = args[1]
        elif kind == "delete" and isinstance(row, dict):
            row.pop(key, None)
        elif kind == "copy" and isinstance(row, dict) and isinstance(other, dict):
            row[key] = other.get(key)
        elif kind == "duplicate":
            rows.insert(i, copy.deepcopy(row))
        elif kind == "drop":
            del rows[i]
        elif kind == "replace":
            rows[i] = args[1]
    elif kind == "section":
        data[args[0]] = args[1]
    elif kind == "config" and isinstance(data["config"], dict):
        data["config"][args[0]] = args[1]
    elif kind == "vocabulary" and isinstance(data["config"], dict) and isinstance(data["config"].get(args[0]), list):
        data["config"][args[0]].append(args[1])
    elif kind == "header":
        data["kgtoolkit"]["schema"] = args[0]


def _sound(kg: kgtoolkit.KnowledgeGraph, folder: Path) -> None:
    """The graph keeps the store's rules, passes SQLite's checks, and exports a dump that restores to the same."""
    with kg.engine.read() as cur:
        assert cur.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert cur.execute("PRAGMA foreign_key_check").fetchall() == []
    config = kg.config
    for entity in kg.entities():
        assert kg.resolve(entity.name) == entity.id and entity.type in config.types
        assert TRANSACTION_TIME.fullmatch(entity.created_at)
    for fact in kg.timeline():
        assert normalize_predicate(fact.predicate) == fact.predicate and fact.source.strip()
        assert fact.valid_from is None or parse_bound(fact.valid_from, field="f").text == fact.valid_from
        assert fact.valid_to is None or parse_bound(fact.valid_to, field="t", end=True).text == fact.valid_to
        assert 0 <= fact.confidence <= 1 and TRANSACTION_TIME.fullmatch(fact.recorded_at)
        assert (fact.valid_to is None) == (fact.invalidated_at is None) == (fact.ended_by is None)
    for alias in kg.aliases():
        assert normalize_name(alias.name) == alias.alias and kg.resolve(alias.alias) == alias.entity
    for memory in read_table(kg, "memories").to_pylist():
        assert memory["id"].strip() and memory["text"].strip() and TRANSACTION_TIME.fullmatch(memory["created_at"])
    assert frames.facts(kg).height == kg.stats().facts
    io.export_file(kg, folder / "again.json")
    with kgtoolkit.open(":memory:") as again:
        io.import_file(again, folder / "again.json")
        assert dump(again) == dump(kg)


@settings(max_examples=200, deadline=None)
@given(st.lists(MUTATIONS, min_size=1, max_size=2), st.sampled_from(["restore", "restore", "merge"]))
def test_a_damaged_dump_is_restored_or_refused_whole(mutations: list[Any], into: str) -> None:
    data = _demo_dump()
    for mutation in mutations:
        _mutate(data, mutation)
    with tempfile.TemporaryDirectory() as name, kgtoolkit.open(":memory:") as kg:
        folder = Path(name)
        path = folder / "damaged.json"
        path.write_text(json.dumps(data), encoding="utf-8")  # NaN as NaN, lone surrogates as \ud800 escapes
        if into == "merge":  # a graph that is not empty: the dump is merged by the add rules
            kg.add("Zed", "knows", "Acme")
        before = dump(kg)
        try:
            io.import_file(kg, path, allow_commas=True)
        except kgtoolkit.KGError as exc:
            assert dump(kg) == before, exc
            assert into == "merge" or is_empty(kg)
            return
        _sound(kg, folder)

"""Synthetic temporal knowledge graphs, seeded: hubs and leaves, histories, switches and a few conflicts.

:func:`generate` builds a frame of facts about a made-up software organisation (services, queues,
databases, teams, people, companies), ready for :func:`kgtoolkit.frames.to_store` /
``import_facts`` or ``kgtoolkit import``. Everything is vectorised (numpy + polars): a million
facts take a few seconds.

>>> frame = generate(1_000, seed=3)
>>> frame.height, frame.columns
(1000, ['subject', 'predicate', 'object', 'valid_from', 'valid_to', 'source'])
>>> frame.equals(generate(1_000, seed=3))
True

:func:`build_demo` writes the small hand-written demo graph instead (the one ``kgtoolkit demo``
shows and the notebooks start from): a fixed story, not a random one.

What the frame holds
--------------------
* **Skew.** Objects are drawn from Zipf distributions over a random ranking of their kind (a few
  databases, queues, companies, managers and core services hold most incoming facts), and the
  number of ``depends_on`` edges per service is Pareto: hubs and many leaves.
* **Histories.** Each (subject, predicate) chain is a sequence of objects in time: when one fact
  ends the next starts *the same day* (a switch: a migration, a team change, a promotion). Some
  chains end with nothing after (a person leaves a company), some start with an unknown date.
* **Re-orgs.** ``owned_by``, ``reports_to``, ``member_of`` and ``part_of`` switches often snap to a
  few re-org days (:data:`REORG_FRACTIONS` of the period), so many change at once.
* **Conflicts.** A small share of single-valued chains forgot to end the old fact: two current
  objects for one (subject, predicate), which :meth:`KnowledgeGraph.conflicts` flags.
* **Valid input.** No two current facts share (subject, predicate, object), no two ended facts are
  identical, no end is before its start, no name has a comma: a generated frame imports with
  zero rejects and ``inserted == facts``.

Determinism
-----------
The same arguments give the same frame on any machine and NumPy version: the only randomness
is PCG64's raw 64-bit stream (seeded through ``SeedSequence([seed, stream])``, both of which NumPy
keeps stable), and every distribution (uniform, Zipf, exponential, Pareto, permutations) is derived
here from those raw bits; polars steps keep row order (``maintain_order``, stable sorts).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._checks import whole_number
from ._demo import build_demo
from ._errors import InvalidRequest
from ._generate_words import (
    AREAS as _AREAS,
)
from ._generate_words import (
    COMPANY_KINDS as _COMPANY_KINDS,
)
from ._generate_words import (
    COMPANY_PREFIXES as _COMPANY_PREFIXES,
)
from ._generate_words import (
    DOMAINS as _DOMAINS,
)
from ._generate_words import (
    DOMAINS_MAIL as _DOMAINS_MAIL,
)
from ._generate_words import (
    ENGINES as _ENGINES,
)
from ._generate_words import (
    EVENTS as _EVENTS,
)
from ._generate_words import (
    FIRST as _FIRST,
)
from ._generate_words import (
    LAST as _LAST,
)
from ._generate_words import (
    ROLES as _ROLES,
)
from ._generate_words import (
    SERVICE_KINDS as _SERVICE_KINDS,
)

if TYPE_CHECKING:
    import polars as pl

    from .graph import KnowledgeGraph
    from .store import DatabaseName, ImportReport

__all__ = [
    "COLUMNS",
    "ENTITY_TYPES",
    "PREDICATES",
    "REORG_FRACTIONS",
    "add_generated",
    "build_demo",
    "build_generated",
    "generate",
    "write_generated",
]

COLUMNS = ("subject", "predicate", "object", "valid_from", "valid_to", "source")
#: Entity kinds, as type names (``generate(..., types=True)`` adds them; extend the graph's vocabulary first).
ENTITY_TYPES = ("service", "queue", "database", "team", "person", "company")
#: Re-org days, as fractions of the period: many ownership/reporting/team switches land on them.
REORG_FRACTIONS = (0.23, 0.51, 0.78)

#: Predicates the generator writes, with the source most of their facts name.
PREDICATES: dict[str, str] = {
    "works_at": "hr-sync",
    "member_of": "hr-sync",
    "reports_to": "hr-sync",
    "email": "directory",
    "role": "hr-sync",
    "owned_by": "service-catalog",
    "uses_database": "service-catalog",
    "uses_queue": "service-catalog",
    "depends_on": "tracing",
    "part_of": "hr-sync",
}
_PRED_CODE = {p: i for i, p in enumerate(PREDICATES)}
_SOURCES = (*dict.fromkeys(PREDICATES.values()), "agent")
_AGENT_SHARE = 0.06  # share of facts asserted by an agent rather than a sync job
_ROWS_PER_PERSON = 11.9  # rows a person brings with everything around them (measured), to size the graph


# ---------------------------------------------------------------------- randomness


class _Random:
    """Distributions derived from PCG64's raw stream alone, so they never change with NumPy versions.

    (``Generator`` methods may change their algorithms between NumPy releases; the bit generators
    and ``SeedSequence`` are kept stable.)
    """

    def __init__(self, seed: int, stream: int) -> None:
        self._bits = np.random.PCG64(np.random.SeedSequence([seed, stream]))

    def raw(self, n: int) -> np.ndarray:
        return self._bits.random_raw(n).astype(np.uint64)

    def uniform(self, n: int) -> np.ndarray:
        """Floats in [0, 1), 53 random bits each."""
        return (self.raw(n) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)

    def below(self, n: int, high: int | np.ndarray) -> np.ndarray:
        """Integers in [0, high) (``high`` may be one bound per draw)."""
        high = np.asarray(high, dtype=np.int64)
        return np.minimum((self.uniform(n) * high).astype(np.int64), high - 1)

    def chance(self, n: int, p: float) -> np.ndarray:
        return self.uniform(n) < p

    def exponential(self, n: int, mean: float) -> np.ndarray:
        return -mean * np.log1p(-self.uniform(n))

    def zipf(self, n: int, m: int, a: float) -> np.ndarray:
        """Ranks in [0, m) with P(rank k) ∝ (k + 1) ** -a."""
        cdf = np.cumsum(np.arange(1, m + 1, dtype=np.float64) ** -a)
        return np.minimum(np.searchsorted(cdf, self.uniform(n) * cdf[-1], side="right"), m - 1)

    def permutation(self, m: int) -> np.ndarray:
        return np.argsort(self.raw(m), kind="stable")


# ---------------------------------------------------------------------- names


def _mix(i: np.ndarray, a: int, b: int) -> np.ndarray:
    """The second index of pair ``i`` (the first is ``i % a``): every pair once per ``a * b``, mixed early on."""
    return (i // a + (i % a) * 37) % b


def _combos(n: int, first: Sequence[str], second: Sequence[str], template: str, extra: str) -> pl.Series:
    """``n`` distinct names: ``template`` over every (first, second) pair, then again with ``extra``.

    ``template`` uses ``{a}`` and ``{b}``; ``extra`` the pass number ``{k}`` (2, 3, ...).
    """
    import polars as pl

    i = np.arange(n, dtype=np.int64)
    a = pl.Series(first).gather(i % len(first))
    b = pl.Series(second).gather(_mix(i, len(first), len(second)))
    k = pl.Series(i // (len(first) * len(second)) + 1)
    frame = pl.DataFrame({"a": a, "b": b, "k": k})
    pieces = template.replace("{a}", "\0a\0").replace("{b}", "\0b\0").split("\0")
    base = pl.concat_str([pl.col(p) if p in ("a", "b") else pl.lit(p) for p in pieces if p != ""])
    suffix = (
        pl.when(pl.col("k") > 1)
        .then(pl.lit(extra.split("{k}")[0]) + pl.col("k").cast(pl.String) + pl.lit(extra.split("{k}")[1]))
        .otherwise(pl.lit(""))
    )
    return frame.select((base + suffix).alias("name"))["name"]


def _people(n: int) -> pl.DataFrame:
    """Unique person names (first, an initial once the first × last pairs run out, last) and emails."""
    import polars as pl

    i = np.arange(n, dtype=np.int64)
    pairs = len(_FIRST) * len(_LAST)
    k = i // pairs
    letters = pl.Series(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    frame = pl.DataFrame(
        {
            "first": pl.Series(_FIRST).gather(i % len(_FIRST)),
            "last": pl.Series(_LAST).gather(_mix(i, len(_FIRST), len(_LAST))),
            "k": k,
            "letter": letters.gather(np.maximum(k - 1, 0) % 26),
            "round": (np.maximum(k - 1, 0) // 26),
        }
    )
    initial = (
        pl.when(pl.col("k") == 0)
        .then(pl.lit(""))
        .otherwise(
            pl.col("letter")
            + pl.when(pl.col("round") > 0).then(pl.col("round").cast(pl.String)).otherwise(pl.lit(""))
            + pl.lit(". ")
        )
    )
    frame = frame.with_columns(name=pl.col("first") + pl.lit(" ") + initial + pl.col("last"))
    # Emails: an ASCII slug of the name; the alternative address (after a change) is on another domain.
    slug = (
        pl.col("name")
        .str.to_lowercase()
        .str.replace_all("é", "e")
        .str.replace_all("ö", "o")
        .str.replace_all("ü", "u")
        .str.replace_all("å", "a")
        .str.replace_all("á", "a")
        .str.replace_all("[^a-z0-9]+", ".")
        .str.strip_chars(".")
    )
    return frame.select(
        "name",
        primary=slug + pl.lit("@" + _DOMAINS_MAIL[0]),
        alternative=slug + pl.lit("@" + _DOMAINS_MAIL[1]),
    )


# ---------------------------------------------------------------------- chains


class _Rows:
    """Columns of generated rows (numpy), grown one predicate at a time."""

    def __init__(self) -> None:
        self.parts: list[dict[str, np.ndarray]] = []

    def add(self, part: dict[str, np.ndarray]) -> None:
        self.parts.append(part)

    def columns(self) -> dict[str, np.ndarray]:
        return {key: np.concatenate([p[key] for p in self.parts]) for key in self.parts[0]}


def _pick(rnd: _Random, n: int, links: int, pool: np.ndarray, a: float) -> np.ndarray:
    """An ``n × links`` matrix of objects from ``pool`` (Zipf by rank), no object twice in a row."""
    m = len(pool)
    if m == 1:  # one possible object: no switches
        links = 1
    ranks = rnd.zipf(n * links, m, a).reshape(n, links)
    for i in range(1, links):
        shift = (ranks[:, i - 1] + 1 + rnd.below(n, m - 1)) % m
        ranks[:, i] = np.where(ranks[:, i] == ranks[:, i - 1], shift, ranks[:, i])
    return pool[ranks]


class _Change(NamedTuple):
    """How the chains of one predicate change: a link's mean length in days, the shares of chains that start on
    an unknown day, end with nothing after, or keep the old fact open (a conflict), and whether switches snap to
    the re-org days."""

    mean_days: float
    p_unknown: float = 0.0
    p_end: float = 0.0
    p_conflict: float = 0.0
    reorg: bool = False


def _chains(
    rnd: _Random,
    rows: _Rows,
    subjects: np.ndarray,
    objects: np.ndarray,
    predicate: str,
    *,
    days: int,
    mean_days: float,
    p_unknown: float = 0.0,
    p_end: float = 0.0,
    p_conflict: float = 0.0,
    reorg: bool = False,
) -> None:
    """One history per subject row: ``objects[i, j]`` held from one switch day to the next.

    A chain starts somewhere in the period, each link lasts two weeks plus an exponential time and
    the next starts the day it ends. Links starting after the period are dropped; the last one is
    open (current), or ended (``p_end``); with ``p_conflict`` the one before it stays open too.
    """
    n, links = objects.shape
    if n == 0:
        return
    start = (rnd.uniform(n) ** 1.3 * days * 0.85).astype(np.int64)
    durations = 14 + rnd.exponential(n * links, mean_days).astype(np.int64).reshape(n, links)
    if reorg:  # a switch due in the 200 days before a re-org often waits for it (the rest of the chain moves too)
        reorgs = np.array([int(days * f) for f in REORG_FRACTIONS] + [2**40], dtype=np.int64)
        snap = rnd.chance(n * links, 0.6).reshape(n, links)
        ends = np.empty((n, links), dtype=np.int64)
        previous = start
        for j in range(links):
            due = previous + durations[:, j]
            nearest = reorgs[np.searchsorted(reorgs, due)]
            ends[:, j] = np.where(snap[:, j] & (nearest - due < 200), nearest, due)
            previous = ends[:, j]
    else:
        ends = start[:, None] + np.cumsum(durations, axis=1)  # ends[:, j]: the day link j ends and j + 1 starts
    starts = np.concatenate([start[:, None], ends[:, :-1]], axis=1)
    exists = starts < days
    count = exists.sum(axis=1)
    last = count - 1
    chain = np.arange(n)
    to_day = np.where(exists, ends, -1)
    to_day[chain, last] = -1  # the last link is current...
    ended = rnd.chance(n, p_end)  # ... unless it simply ended (someone left, a dependency was dropped)
    last_start = starts[chain, last]
    to_day[chain[ended], last[ended]] = (last_start + rnd.below(n, days - last_start))[ended]
    conflict = ~ended & (count >= 2) & rnd.chance(n, p_conflict)  # the old fact was never ended
    to_day[chain[conflict], last[conflict] - 1] = -1
    from_day = starts.copy()
    from_day[rnd.chance(n, p_unknown), 0] = -1  # known to hold, start unknown

    key = rnd.raw(n)
    size = int(exists.sum())
    source = np.where(rnd.chance(size, _AGENT_SHARE), len(_SOURCES) - 1, _SOURCES.index(PREDICATES[predicate]))
    rows.add(
        {
            "chain": np.broadcast_to(key[:, None], (n, links))[exists],
            "link": np.broadcast_to(np.arange(links), (n, links))[exists],
            "s": np.broadcast_to(subjects[:, None], (n, links))[exists].astype(np.int64),
            "p": np.full(size, _PRED_CODE[predicate], dtype=np.int8),
            "o": objects[exists].astype(np.int64),
            "from": from_day[exists].astype(np.int32),
            "to": to_day[exists].astype(np.int32),
            "src": source.astype(np.int8),
        }
    )


def _some(rnd: _Random, codes: np.ndarray, p: float) -> np.ndarray:
    return codes[rnd.chance(len(codes), p)]


def _graph(people: int, seed: int, days: int) -> tuple[pl.DataFrame, pl.Series, np.ndarray]:
    """All rows (integer codes, in chain order, de-duplicated) for a graph of ``people`` people, the
    text table the codes index, and where each entity kind's codes end (values come after)."""
    import polars as pl

    counts = {
        "person": people,
        "team": max(2, round(people / 9)),
        "company": max(2, round(people / 40)),
        "service": max(3, round(people / 2)),
        "queue": max(2, round(people / 8)),
        "database": max(2, round(people / 10)),
    }
    names = {
        "service": _combos(counts["service"], _DOMAINS, _SERVICE_KINDS, "{a} {b}", " {k}"),
        "queue": _combos(counts["queue"], [d.lower() for d in _DOMAINS], _EVENTS, "{a}.{b}", ".v{k}"),
        "database": _combos(counts["database"], [d.lower() for d in _DOMAINS], _ENGINES, "{a}-{b}", "-{k}"),
        "team": _combos(counts["team"], _AREAS, [""], "Team {a}", " {k}"),
        "company": _combos(counts["company"], _COMPANY_PREFIXES, _COMPANY_KINDS, "{a} {b}", " {k}"),
    }
    persons = _people(people)
    names["person"] = persons["name"]
    text: list[pl.Series] = []
    codes: dict[str, np.ndarray] = {}
    offset = 0
    for kind in ENTITY_TYPES:
        codes[kind] = np.arange(offset, offset + counts[kind], dtype=np.int64)
        text.append(names[kind])
        offset += counts[kind]
    roles = np.arange(offset, offset + len(_ROLES), dtype=np.int64)
    text.append(pl.Series(_ROLES))
    offset += len(_ROLES)
    primary = np.arange(offset, offset + people, dtype=np.int64)
    alternative = primary + people
    text += [persons["primary"], persons["alternative"]]
    table = pl.concat([s.rename("text") for s in text])

    rows = _Rows()
    streams = iter(range(1, 1000))

    def hubs(kind: str) -> np.ndarray:  # the kind's codes in a random popularity order
        return codes[kind][_Random(seed, next(streams)).permutation(len(codes[kind]))]

    people_ = codes["person"]
    companies, teams, managers = hubs("company"), hubs("team"), hubs("person")
    databases, queues, services = hubs("database"), hubs("queue"), hubs("service")

    def some(kind: np.ndarray, *shares: float) -> Callable[[_Random], np.ndarray]:  # a share of them, or several
        return lambda r: np.concatenate([_some(r, kind, share) for share in shares])

    def pick(pool: np.ndarray, links: int, a: float) -> Callable[[_Random, np.ndarray], np.ndarray]:
        return lambda r, who: _pick(r, len(who), links, pool, a)

    def dependants(r: _Random) -> np.ndarray:  # a Pareto number of dependencies on (hub) services
        service_count = len(codes["service"])
        pareto = np.floor((1.0 - r.uniform(service_count)) ** (-1 / 1.4)).astype(np.int64)  # 1, 1, 2, 1, 7, 1, 240, ...
        degree = pareto - 1 + r.chance(service_count, 0.85)  # about 15% depend on nothing
        degree = np.minimum(degree, min(200, service_count - 1))
        return np.repeat(codes["service"], degree)

    services_ = codes["service"]
    owned = [services_, codes["queue"], codes["database"]]
    mails = np.stack([primary, alternative, primary], axis=1)
    # The chains, in the order their random streams are drawn: (subjects, objects, predicate, how they change).
    # People: employer, teams (a few people are in two), manager, email, role. Services and the queues and
    # databases they own: owner team, database, queue, dependencies. Teams belong to companies (re-orgs move a few).
    chains: list[tuple[Callable[[_Random], np.ndarray], Callable[[_Random, np.ndarray], np.ndarray], str, _Change]] = [
        (
            some(people_, 0.95),
            pick(companies, 4, 1.1),
            "works_at",
            _Change(1100, p_unknown=0.15, p_end=0.04, p_conflict=0.01),
        ),
        (
            some(people_, 0.9, 0.1),
            pick(teams, 6, 1.0),
            "member_of",
            _Change(420, p_unknown=0.05, p_end=0.03, reorg=True),
        ),
        (
            some(people_, 0.85),
            pick(managers, 6, 1.2),
            "reports_to",
            _Change(500, p_unknown=0.1, p_end=0.03, p_conflict=0.02, reorg=True),
        ),
        (lambda r: people_, lambda r, who: mails, "email", _Change(1800, p_unknown=0.5, p_conflict=0.01)),
        (some(people_, 0.8), pick(roles, 5, 0.7), "role", _Change(550, p_unknown=0.2, p_conflict=0.01)),
        (
            lambda r: _some(r, np.concatenate([owned[0], _some(r, owned[1], 0.8), _some(r, owned[2], 0.8)]), 0.95),
            pick(teams, 5, 1.0),
            "owned_by",
            _Change(600, p_unknown=0.1, p_end=0.02, p_conflict=0.03, reorg=True),
        ),
        (
            some(services_, 0.75),
            pick(databases, 4, 1.3),
            "uses_database",
            _Change(900, p_unknown=0.1, p_end=0.02, p_conflict=0.03),
        ),
        (
            some(services_, 0.55),
            pick(queues, 4, 1.2),
            "uses_queue",
            _Change(700, p_unknown=0.1, p_end=0.03, p_conflict=0.03),
        ),
        (dependants, pick(services, 3, 1.3), "depends_on", _Change(500, p_unknown=0.05, p_end=0.1)),
        (lambda r: codes["team"], pick(companies, 3, 1.3), "part_of", _Change(1000, p_conflict=0.01, reorg=True)),
    ]
    for subjects, objects, predicate, change in chains:
        r = _Random(seed, next(streams))
        who = subjects(r)
        _chains(r, rows, who, objects(r, who), predicate, days=days, **change._asdict())

    ends = np.cumsum([counts[kind] for kind in ENTITY_TYPES])
    return _dedupe(pl.DataFrame(rows.columns())), table, ends


def _dedupe(frame: pl.DataFrame) -> pl.DataFrame:
    """Rows in chain order, without what the graph would refuse or merge."""
    import polars as pl

    # One current fact per (subject, predicate, object); identical ended facts once.
    start = pl.when(pl.col("to") < 0).then(pl.lit(-2, pl.Int32)).otherwise(pl.col("from")).alias("f")
    key = pl.struct("s", "p", "o", start, "to")
    return (
        frame.filter(pl.col("s") != pl.col("o"))  # nobody reports to themselves, no service depends on itself
        .sort("chain", "link", maintain_order=True)
        .filter(key.is_first_distinct())
    )


def generate(
    facts: int, *, seed: int = 7, start: str | dt.date = "2024-01-01", days: int = 730, types: bool = False
) -> pl.DataFrame:
    """A synthetic graph of exactly ``facts`` facts over ``days`` days from ``start``, seeded.

    Text columns ``subject, predicate, object, valid_from, valid_to, source`` (dates ``YYYY-MM-DD``;
    null ``valid_from`` = start unknown, null ``valid_to`` = current), ready for ``import_facts``.
    Rows come chain by chain (one subject–predicate history in date order), chains in random order.
    ``types=True`` adds ``subject_type``/``object_type`` (:data:`ENTITY_TYPES`; the graph's
    vocabulary must hold them: ``kg.configure(types=kg.config.types | set(ENTITY_TYPES))``).
    The same arguments always give the same frame.
    """
    import polars as pl

    whole_number(facts, field="facts")
    whole_number(seed, field="seed")
    whole_number(days, field="days", low=1)
    try:
        first = start if isinstance(start, dt.date) else dt.date.fromisoformat(str(start))
        first + dt.timedelta(days=days)
    except (ValueError, OverflowError) as exc:
        raise InvalidRequest(
            f"start must be a date YYYY-MM-DD and start + days before 9999-12-31, not {start!r}",
            field="start",
            value=str(start),
        ) from exc
    if isinstance(first, dt.datetime):
        first = first.date()
    schema = {c: pl.String for c in COLUMNS} | ({"subject_type": pl.String, "object_type": pl.String} if types else {})
    if facts == 0:
        return pl.DataFrame(schema=schema)

    people = max(4.0, facts / _ROWS_PER_PERSON * 1.02)
    while True:
        frame, table, kind_ends = _graph(int(people), seed, days)
        if frame.height >= facts:
            break
        people = people * facts / max(frame.height, 1) * 1.05 + 4  # too few (tiny graphs): grow and redo
    frame = frame.head(facts)

    day_text = pl.date_range(first, first + dt.timedelta(days=days - 1), "1d", eager=True).dt.strftime("%Y-%m-%d")
    day_text = pl.concat([day_text, pl.Series([None], dtype=pl.String)])  # the last index: no date
    undated = len(day_text) - 1
    s, o = frame["s"].to_numpy(), frame["o"].to_numpy()
    start_day, end_day = frame["from"].to_numpy(), frame["to"].to_numpy()
    columns = {
        "subject": table.gather(s),
        "predicate": pl.Series(list(PREDICATES)).gather(frame["p"].to_numpy().astype(np.int64)),
        "object": table.gather(o),
        "valid_from": day_text.gather(np.where(start_day < 0, undated, start_day)),
        "valid_to": day_text.gather(np.where(end_day < 0, undated, end_day)),
        "source": pl.Series(list(_SOURCES)).gather(frame["src"].to_numpy().astype(np.int64)),
    }
    if types:
        kinds = pl.Series([*ENTITY_TYPES, None], dtype=pl.String)
        columns["subject_type"] = kinds.gather(np.searchsorted(kind_ends, s, side="right"))
        columns["object_type"] = kinds.gather(np.searchsorted(kind_ends, o, side="right"))
    return pl.DataFrame(columns, schema=schema)


def write_generated(path: str | os.PathLike[str], facts: int, *, seed: int = 7, **options: Any) -> int:
    """Write :func:`generate`'s frame to ``path`` as .tsv, .csv, .parquet or .jsonl (by suffix); returns the rows.

    ``options`` go to :func:`generate` (``start``, ``days``, ``types``). Dates stay text; in CSV/TSV
    an empty cell is a missing date.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    writers = {".tsv": "tsv", ".csv": "csv", ".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}
    if suffix not in writers:
        raise InvalidRequest(
            f"cannot tell the format of {target.name!r}; name it .tsv, .csv, .parquet or .jsonl",
            field="path",
            value=str(target),
        )
    frame = generate(facts, seed=seed, **options)
    kind = writers[suffix]
    if kind == "tsv":
        frame.write_csv(target, separator="\t", quote_style="never")  # kgtoolkit reads TSV without quoting
    elif kind == "csv":
        frame.write_csv(target)
    elif kind == "parquet":
        frame.write_parquet(target)
    else:
        frame.write_ndjson(target)
    return frame.height


def add_generated(
    kg: KnowledgeGraph, facts: int, *, seed: int = 7, progress: Callable[[int, int], None] | None = None, **options: Any
) -> ImportReport:
    """Generate ``facts`` facts with typed entities and add them to ``kg``; returns the import's report.

    The graph's type vocabulary gains :data:`ENTITY_TYPES` first; the facts then go in by the rules
    of :meth:`~kgtoolkit.KnowledgeGraph.add`, in one transaction (whole or nothing), so adding the
    same seed twice changes nothing. ``options`` go to :func:`generate` (``start``, ``days``);
    ``progress(done, total)`` is called as rows are written.

    >>> import kgtoolkit
    >>> kg = kgtoolkit.open(":memory:")
    >>> add_generated(kg, 200, seed=3).inserted, kg.stats().facts
    (200, 200)
    >>> add_generated(kg, 200, seed=3).inserted
    0
    """
    frame = generate(facts, seed=seed, types=True, **options)  # checked before the graph is touched
    return _add_typed(kg, frame, progress)


def build_generated(
    target: DatabaseName,
    facts: int,
    *,
    seed: int = 7,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> KnowledgeGraph:
    """Write a generated graph of ``facts`` facts (typed entities, as :func:`add_generated`) to ``target`` and
    return it open: what ``kgtoolkit generate --out`` does for a graph.

    ``target`` is any graph name (:func:`kgtoolkit.store.resolve`), as :func:`build_demo` takes: a file, which
    ``force`` replaces when it exists (else it is refused), or an empty PostgreSQL database or schema
    (``postgresql://…``); one that already holds a graph is refused with :class:`~kgtoolkit.InvalidRequest`,
    ``force`` or not (a shared graph is never replaced by generated data), and left as it was. The arguments are
    checked, and the facts generated, before anything is replaced or written.

    >>> with build_generated(":memory:", 300, seed=3) as kg:
    ...     kg.stats().facts, sorted(kg.stats().entities_by_type) == sorted(ENTITY_TYPES)
    (300, True)
    """
    from .graph import KnowledgeGraph
    from .store import is_empty, resolve

    location = resolve(target)
    postgres = location.kind == "postgresql"
    file = location.path if location.kind == "sqlite" and not location.memory else None
    if file is not None and file.exists() and not force:
        raise InvalidRequest(f"{file} exists; pass --force (force=True) to replace it", field="out", value=str(file))
    frame = generate(facts, seed=seed, types=True, **options)  # the arguments checked before anything is replaced
    if file is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{file}{suffix}").unlink(missing_ok=True)
    kg = KnowledgeGraph(location, create=True)
    try:
        if postgres and not is_empty(kg):
            raise InvalidRequest(
                f"{kg.location} already holds a graph; the generated graph goes into an empty PostgreSQL "
                "database or schema (kgtoolkit never replaces a PostgreSQL graph, force or not)",
                field="out",
                value=str(kg.location),
            )
        _add_typed(kg, frame, progress)
    except BaseException:
        kg.close()
        raise
    return kg


def _add_typed(kg: KnowledgeGraph, frame: pl.DataFrame, progress: Callable[[int, int], None] | None) -> ImportReport:
    """A generated frame with types into ``kg``: the graph's type vocabulary gains :data:`ENTITY_TYPES` first."""
    from .store import import_facts

    kg.configure(types=kg.config.types | set(ENTITY_TYPES))
    report, _ = import_facts(kg, frame, progress=progress)
    return report

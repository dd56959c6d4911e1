"""Reading facts: around an entity (``query``), by predicate and object (``search``), and the graph's counts."""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

from ... import _validity as v
from ..._errors import (
    InvalidRequest,
    KGError,
)
from ..._names import (
    DEFAULT_VALUE_PREDICATES,
    clean_text,
    normalize_name,
    normalize_predicate,
)
from ..._records import (
    Direction,
    Fact,
    Stats,
)
from ..._validity import Clock, Sql
from ..._window import ReadWindow
from ..engine import (
    FACT_FROM,
    FACT_READ,
    FACT_SELECT,
    ORDER,
    Backend,
    Cursor,
    Dialect,
)
from ..reads import _queries as q
from ..reads import _rollups
from . import _predicates as _preds


def _predicate_list(predicates: str | Collection[str] | None) -> list[str]:
    """The normalised predicates of a ``predicates`` filter: one text or several (none or empty: no filter)."""
    if predicates is None:
        return []
    given = [predicates] if isinstance(predicates, str) else _strings(predicates, "predicates")
    return sorted({normalize_name(p, field="predicates") for p in given})


def _canonical_list(cur: Cursor, preds: list[str]) -> list[str]:
    """Normalised predicates through their predicate aliases (contract §13), sorted, each once."""
    aliases = _preds.read_aliases(cur)
    return sorted({aliases.get(p, p) for p in preds})


@functools.lru_cache(maxsize=256)
def _search_sql(d: Dialect, where: str, value: bool, paged: bool) -> str:
    """The statement of :meth:`GraphStore._search_found`: the facts of predicate ``:p`` (through its alias)
    whose object key is ``:o`` (``value``: the text's key itself; else the entity the name ``:o`` resolves to),
    then the value predicates and event settings (:data:`~._queries.EVENT_SETTINGS`) of the same snapshot."""
    obj = ":o" if value else f"({q.lookup_sql('o')})"
    sql = (
        f"SELECT {FACT_READ}, (SELECT value FROM settings WHERE key = 'value_predicates'), {q.EVENT_SETTINGS} "
        f"FROM {FACT_FROM} WHERE f.predicate = COALESCE((SELECT predicate FROM predicate_aliases WHERE alias = :p), "
        f":p) AND f.object_key = {obj}{where} {ORDER}"
    )
    return sql + " LIMIT :limit OFFSET :offset" if paged else sql


class _Guesses(dict[str, bool]):
    """A dict of guesses that forgets them all past a bound (guesses are only ever checked, never trusted)."""

    LIMIT = 4096

    def __setitem__(self, key: str, value: bool) -> None:
        if len(self) >= self.LIMIT and key not in self:
            self.clear()
        super().__setitem__(key, value)


@functools.lru_cache(maxsize=256)
def _query_sql(d: Dialect, direction: str, where: str, other: bool, preds: bool, paged: bool) -> tuple[str, str]:
    """The statements of :meth:`GraphStore.query` (its rows; how many match) for one shape of call: the
    name in ``:k`` resolved inside them, so each is one round trip and one snapshot. ``where``: the time filter's
    conditions; ``other``: facts whose other side is ``:o``; ``preds``: of the predicates in ``:preds``;
    ``paged``: ``LIMIT :limit OFFSET :offset`` (left out when not, which SQLite plans faster)."""
    if preds:
        where += f" AND f.predicate IN {d.values('preds')}"
    named = f"WITH named AS ({q.LOOKUP}) "
    outgoing_other = incoming_other = ""
    if other:
        named = f"WITH named AS ({q.LOOKUP}), other_named AS ({q.lookup_sql('o')}) "
        outgoing_other = " AND f.object_id = (SELECT id FROM other_named)"
        incoming_other = " AND f.subject = (SELECT id FROM other_named)"
    entity = "(SELECT id FROM named)"
    parts, counts = [], []
    if direction in ("outgoing", "both"):
        cond = f"f.subject = {entity}{outgoing_other}{where}"
        parts.append(
            f"SELECT {FACT_READ}, 'outgoing' AS direction, f.valid_from IS NULL AS unknown_start,"
            f" f.from_us AS start_key, {q.EVENT_SETTINGS} FROM {FACT_FROM} WHERE {cond}"
        )
        counts.append(f"(SELECT count(*) FROM facts f WHERE {cond})")
    if direction in ("incoming", "both"):
        self_loop = f" AND f.subject <> {entity}" if direction == "both" else ""
        cond = f"f.object_id = {entity}{self_loop}{incoming_other}{where}"
        parts.append(
            f"SELECT {FACT_READ}, 'incoming' AS direction, f.valid_from IS NULL AS unknown_start,"
            f" f.from_us AS start_key, {q.EVENT_SETTINGS} FROM {FACT_FROM} WHERE {cond}"
        )
        counts.append(f"(SELECT count(*) FROM facts f WHERE {cond})")
    sql = named + " UNION ALL ".join(parts) + " ORDER BY unknown_start, start_key, 1"
    if paged:
        sql += " LIMIT :limit OFFSET :offset"
    return sql, named + "SELECT " + " + ".join(counts)


def _count(cur: Cursor, sql: str, params: dict[str, Any]) -> int:
    """The one number a ``SELECT count(*) …`` answers."""
    return int(cur.execute(sql, params).fetchone()[0])


_DIRECTIONS = ("outgoing", "incoming", "both")


def query(
    engine: Backend,
    name: str,
    direction: Direction,
    window: ReadWindow,
    limit: int | None,
    offset: int,
    *,
    counted: bool,
    predicates: str | Collection[str] | None = None,
    other: str | None = None,
) -> tuple[list[Fact], int | None]:
    """A page of the facts around one entity in ``window``, and their count when ``counted``."""
    if direction not in _DIRECTIONS:
        raise InvalidRequest(
            f"direction must be one of {', '.join(_DIRECTIONS)}, not {direction!r}",
            field="direction",
            value=str(direction),
        )
    where, params, known = q.time_filter(window)
    d = engine.dialect
    params.update(k=normalize_name(name), **q.page(d, limit, offset))
    paged = limit is not None or offset != 0
    total: int | None = None
    # Counted: the count in the same snapshot (a transaction); else one statement is its own snapshot (the
    # event rule is read in it: EVENT_SETTINGS).
    with engine.read(snapshot=counted) as cur:
        if window.current_only:  # an event is never current (contract §12)
            not_events, event_params = q.not_declared_events(cur, d)
            where += not_events
            params.update(event_params)
        preds = _predicate_list(predicates)
        if other is not None:
            params["o"] = normalize_name(other, field="other")
        sql, count_sql = _query_sql(d, direction, where, other is not None, bool(preds), paged)
        if preds:  # through predicate aliases (contract §13)
            preds = _canonical_list(cur, preds)
            params["preds"] = d.list_param(preds)
        rows = cur.execute(sql, params).fetchall()
        if counted:
            total = int(cur.execute(count_sql, params).fetchone()[0])
        if not rows and not total:
            q.resolve(cur, d, name)  # no such entity: NotFound, with suggestions
            if other is not None:
                q.resolve(cur, d, other, field="other")
        if preds:
            _preds.check_used(cur, engine.dialect, preds)
    if not rows:
        return [], total
    events = q.stored_event_rule(rows[0][19], rows[0][20])
    return q.row_facts(rows, events=events, known_at=known, directions=True), total


def search(
    engine: Backend,
    guesses: dict[str, bool],
    predicate: str,
    object: str | None,
    window: ReadWindow,
    limit: int | None,
    offset: int,
    *,
    counted: bool,
) -> tuple[list[Fact], int | None]:
    """A page of the facts of one predicate (and object) in ``window``, and their count when ``counted``."""
    key = normalize_predicate(predicate)  # a bad name is refused before the graph is read
    where, params, known = q.time_filter(window)
    d = engine.dialect
    if object not in (None, "") and not counted and not window.current_only:
        found = _search_found(engine, guesses, key, object, where, dict(params), known, limit, offset)
        if found:
            return found, None
    total: int | None = None
    with engine.read() as cur:
        events = q.event_rule(cur)
        if window.current_only:  # an event is never current (contract §12)
            not_events, event_params = q.not_declared_events(cur, d)
            where += not_events
            params.update(event_params)
        # Through a predicate alias (contract §13), and one some fact uses (else not_found, with suggestions).
        # Whether a fact uses it is asked only when the answer is empty, or before any other error: a fact found
        # uses it, so a search that finds something costs one statement less.
        pred = _preds.canonical(cur, predicate)
        params.update(p=pred, **q.page(d, limit, offset))
        if object not in (None, ""):
            try:
                is_value = pred in q.read_config(cur).value_predicates
                guesses[key] = is_value
                if is_value:
                    params["o"] = clean_text(object, field="object").casefold()
                else:
                    params["o"] = q.resolve(cur, d, object, field="object")
            except KGError:
                _preds.check_used(cur, d, [predicate], field="predicate")
                raise
            where = " AND f.object_key = :o" + where
        rows = cur.execute(
            f"{FACT_SELECT} WHERE f.predicate = :p{where} {ORDER} LIMIT :limit OFFSET :offset", params
        ).fetchall()
        if not rows:
            _preds.check_used(cur, d, [predicate], field="predicate")
        if counted:
            total = _count(cur, f"SELECT count(*) FROM facts f WHERE f.predicate = :p{where}", params)
    return [q.row_fact(r, events=events, known_at=known) for r in rows], total


def _search_found(
    engine: Backend,
    guesses: dict[str, bool],
    key: str,
    obj: str,
    where: str,
    params: dict[str, Any],
    known: str | None,
    limit: int | None,
    offset: int,
) -> list[Fact]:
    """:func:`search` by predicate and object in one statement, its own snapshot, when it finds something.

    The statement resolves the predicate through its alias and the object's name (for an entity predicate)
    itself, and returns the settings the answer depends on (value predicates, the event rule) as they were in
    its snapshot. Whether the predicate is a value predicate decides the object's key before the statement
    runs, so it is guessed (what the last search of ``key`` found) and checked against the settings the
    statement read: a wrong guess, an answer of no facts, or a name the rules refuse leave it to the full read
    (empty list), which also words the errors.
    """
    guess = guesses.get(key, key in DEFAULT_VALUE_PREDICATES)
    try:
        params["o"] = clean_text(obj, field="object").casefold() if guess else normalize_name(obj, field="object")
    except KGError:
        return []
    d = engine.dialect
    params.update(p=key, **q.page(d, limit, offset))
    sql = _search_sql(d, where, guess, limit is not None or offset != 0)
    rows = engine.fetch_all(sql, params)
    if not rows:
        return []
    first = rows[0]
    if (first[3] in q.stored_value_predicates(first[16])) != guess:  # f.predicate: the canonical predicate
        guesses[key] = not guess
        return []
    events = q.stored_event_rule(first[17], first[18])
    return q.row_facts(rows, events=events, known_at=known)


def stats(engine: Backend) -> Stats:
    """The graph's counts: from the rollups (contract §18), else the facts' states in one scan."""
    if (rolled := _rollups.stats(engine)) is not None:
        return rolled
    d = engine.dialect
    with engine.read() as cur:
        t = q.table_counts(cur)  # on the tables and indexes; the facts' states below in one scan
        # Events are counted apart (contract §12); the rule checked on every row, its predicates bound one by one.
        event, params = q.event_rule(cur).bound(d)
        keys = (Sql("from_us"), Sql("to_us"), v.NOW, v.NOW_DAY_LAST)  # the states of contract §4
        facts, current, ended, values, events = cur.execute(
            f"SELECT count(*), count(*) FILTER (WHERE {v.current(*keys).text} AND NOT {event}), "
            f"count(*) FILTER (WHERE {v.ended(*keys).text} AND NOT {event}), "
            f"count(*) FILTER (WHERE object_id IS NULL), count(*) FILTER (WHERE {event}) FROM facts f",
            {**Clock.real().params(), **params},
        ).fetchone()
    by_type = dict(t.entities_by_type)
    return Stats(
        sum(by_type.values()),
        by_type,
        facts,
        current,
        ended,
        values,
        len(t.predicates),
        t.aliases,
        t.memories,
        facts - current - ended - events,
        events,
    )


def _strings(values: Any, field: str) -> list[str]:
    if isinstance(values, str) or not all(isinstance(v, str) for v in values):
        raise InvalidRequest(f"{field} must be a list of names", field=field, value=repr(values))
    return list(values)

"""Predicates as things of their own (contract §13): labels, aliases, renames.

A predicate's id is its normalised name (``uses_db``); its *label* is the first spelling it was written
with (``Uses DB``), kept in ``predicates`` as an entity keeps its first spelling as its name. A predicate
alias (``predicate_aliases``) names another predicate: every write and read that takes a predicate
resolves it first (:func:`rules` gives :class:`~._rules.Rules` that do, :func:`canonical` for reads), so
facts are only ever stored under the canonical id. An alias names a canonical predicate directly (no
chains, no cycles), and never a predicate that has facts (those are folded with :func:`rename`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..._errors import AliasConflict, InvalidRequest, NotFound
from ..._names import clean_text, close_matches, normalize_name, normalize_predicate
from ..._records import GraphConfig, PredicateAlias, PredicateInfo, PredicateRename
from ..._validity import Clock
from ..engine import Backend, Cursor, Dialect
from ..reads import _queries as q
from ..reads import _rollups
from ..reads._queries import canonical
from ._not_same import repoint_not_same
from ._rules import Rules

__all__ = [
    "PredicateAlias",
    "PredicateInfo",
    "PredicateRename",
    "add_alias",
    "alias_predicate",
    "canonical",
    "check_exclusive",
    "check_used",
    "ensure_labels",
    "labels",
    "predicate_aliases",
    "predicates_page",
    "read_aliases",
    "rename_predicate",
    "rules",
]

#: The settings that name predicates (each moves from the old predicate to the new one on a rename).
PREDICATE_SETTINGS = ("value_predicates", "multi_valued", "event_predicates", "single_valued", "one_holder")

#: Settings no predicate may be in together, and the option of ``kgtoolkit config`` that removes one from each.
EXCLUSIVE_SETTINGS = (
    ("multi_valued", "single_valued", "multi-valued and single-valued"),
    ("multi_valued", "one_holder", "multi-valued and one-holder"),
)
_REMOVE_OPTION = {
    "multi_valued": "--remove-multi-valued",
    "single_valued": "--remove-single-valued",
    "one_holder": "--remove-one-holder",
}


def check_exclusive(config: GraphConfig, updates: Mapping[str, Any] | None = None) -> None:
    """Refuse a predicate in two lists that exclude each other (:data:`EXCLUSIVE_SETTINGS`): a multi-valued
    predicate is neither single-valued nor one-holder (:class:`InvalidRequest`). The lists are ``config``'s, each
    replaced by its new value in ``updates`` when there is one."""
    changed = updates or {}

    def names(key: str) -> set[str]:
        return set(changed[key] if key in changed else getattr(config, key))

    for first, second, what in EXCLUSIVE_SETTINGS:
        both = names(first) & names(second)
        if both:
            raise InvalidRequest(
                f"{', '.join(sorted(both))} cannot be both {what}; remove it from one list "
                f"(`kgtoolkit config {_REMOVE_OPTION[first]} P` or `{_REMOVE_OPTION[second]} P`)",
                field=second,
                value=sorted(both),
            )


def read_aliases(cur: Cursor) -> dict[str, str]:
    """Every predicate alias → the canonical predicate it names."""
    return dict(cur.execute("SELECT alias, predicate FROM predicate_aliases").fetchall())


def rules(cur: Cursor, config: Any = None, *, comma_guard: bool | None = None) -> Rules:
    """The rules of ``add`` under the graph's settings and predicate aliases, read in this transaction."""
    return Rules(
        config if config is not None else q.read_config(cur),
        comma_guard=comma_guard,
        predicate_aliases=read_aliases(cur),
    )


def check_used(cur: Cursor, dialect: Dialect, predicates: Iterable[str], *, field: str = "predicates") -> list[str]:
    """``predicates`` (a filter) as canonical ids, each once, in the order given: each through its alias
    (contract §13), and each one some fact uses, else :class:`NotFound` with the nearest predicates in use."""
    out: list[str] = []
    for given in predicates:
        if not isinstance(given, str):
            raise InvalidRequest(f"a predicate must be text, not {given!r}", field=field, value=str(given))
        pred = canonical(cur, given)
        if cur.execute("SELECT 1 FROM facts WHERE predicate = ? LIMIT 1", (pred,)).fetchone() is None:
            suggestions = _suggest(cur, dialect, pred)
            hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
            raise NotFound(
                f"no fact uses the predicate {pred!r} ({field}).{hint} `kgtoolkit predicates` lists "
                "the predicates in use.",
                field=field,
                value=given,
                suggestions=suggestions,
            )
        if pred not in out:
            out.append(pred)
    return out


def _suggest(cur: Cursor, d: Dialect, pred: str) -> list[str]:
    """Up to five predicates in use that contain ``pred`` or a word of it (or that it contains), most used first."""
    found: list[str] = []
    for probe in [pred] + [t for t in pred.split("_") if len(t) >= 3]:
        for (p,) in cur.execute(
            f"SELECT predicate FROM facts WHERE {d.contains('predicate', ':p')} OR "
            f"{d.contains(':p', 'predicate')} GROUP BY predicate ORDER BY count(*) DESC, "
            "predicate LIMIT 5",
            {"p": probe},
        ).fetchall():
            if p not in found:
                found.append(p)
    if len(found) < 5:  # a typo: the nearest predicates by spelling (the predicates table holds one row each)
        labelled = dict(cur.execute("SELECT id, id FROM predicates").fetchall())
        found += [p for p in close_matches(pred, labelled) if p not in found]
    return found[:5]


def ensure_labels(cur: Cursor, labels: Iterable[tuple[str, str]]) -> None:
    """Record ``(predicate, label)`` pairs for predicates that have no label yet (the first spelling wins)."""
    rows = list(labels)
    if rows:
        cur.executemany("INSERT INTO predicates(id, label) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", rows)


def _label(text: str, key: str) -> str:
    """The label a spelling gives the predicate ``key``: the spelling trimmed, inner whitespace collapsed, when
    it spells ``key`` itself (a spelling of an alias labels nothing of its own: the id stands in)."""
    try:
        return clean_text(text, field="predicate") if normalize_predicate(text) == key else key
    except InvalidRequest:
        return key


def labels(cur: Cursor) -> dict[str, str]:
    """Every predicate's label by id (the predicates that have one: every predicate written since labels exist)."""
    return dict(cur.execute("SELECT id, label FROM predicates").fetchall())


def _facts(cur: Cursor, predicate: str) -> int:
    return int(cur.execute("SELECT count(*) FROM facts WHERE predicate = ?", (predicate,)).fetchone()[0])


def _move_settings(cur: Cursor, old: str, new: str) -> tuple[str, ...]:
    """Each predicate setting that names ``old`` names ``new`` instead; the settings changed."""
    config = q.read_config(cur)
    moved = []
    for key in PREDICATE_SETTINGS:
        names: frozenset[str] = getattr(config, key)
        if old in names:
            cur.execute(
                "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(sorted((names - {old}) | {new}))),
            )
            moved.append(key)
    return tuple(moved)


def _aliases_of(cur: Cursor, predicate: str) -> tuple[str, ...]:
    return tuple(
        r[0]
        for r in cur.execute(
            "SELECT alias FROM predicate_aliases WHERE predicate = ? ORDER BY alias", (predicate,)
        ).fetchall()
    )


# ---------------------------------------------------------------------- writes


def alias_predicate(backend: Backend, alias: str, predicate: str) -> PredicateAlias:
    """Register ``alias`` as another name of ``predicate`` (see :meth:`KnowledgeGraph.alias_predicate`)."""
    return backend.write(lambda cur: add_alias(cur, alias, predicate))


def add_alias(cur: Cursor, alias: str, predicate: str) -> PredicateAlias:
    """:func:`alias_predicate` inside an open write transaction."""
    rules_ = rules(cur)
    key = rules_.bounded(normalize_name(alias, field="alias"), "alias")
    target = rules_.predicate(predicate)  # through an alias: an alias always names a canonical predicate
    if key == target:
        raise InvalidRequest(
            f"{alias!r} and {predicate!r} are the same predicate ({target!r}); an alias names another predicate",
            field="alias",
            value=alias,
        )
    existing = rules_.predicate_aliases.get(key)
    if existing is not None and existing != target:
        raise AliasConflict(
            f"{alias!r} is already an alias of the predicate {existing!r}; an alias names one "
            f"predicate. To fold {existing!r} into {target!r}: `kgtoolkit rename-predicate "
            f"{existing} {target}`",
            field="alias",
            value=alias,
            predicate=existing,
        )
    if existing is None:
        count = _facts(cur, key)
        if count:
            raise AliasConflict(
                f"the predicate {key!r} has {count} fact(s); an alias cannot be a predicate in use. "
                f"To fold its facts into {target!r} (and make it an alias): `kgtoolkit "
                f"rename-predicate {key} {target}` or rename_predicate({key!r}, {target!r})",
                field="alias",
                value=alias,
                facts=count,
            )
        ensure_labels(cur, [(target, _label(predicate, target))])
        cur.execute("UPDATE predicate_aliases SET predicate = ? WHERE predicate = ?", (target, key))  # no chains
        cur.execute("INSERT INTO predicate_aliases(alias, predicate) VALUES (?, ?)", (key, target))
        cur.execute("DELETE FROM predicates WHERE id = ?", (key,))
        _move_settings(cur, key, target)
        check_exclusive(q.read_config(cur))
    return PredicateAlias(key, target)


def rename_predicate(backend: Backend, old: str, new: str) -> PredicateRename:
    """Fold every fact of ``old`` into ``new``, atomically (see :meth:`KnowledgeGraph.rename_predicate`)."""

    def write(cur: Cursor) -> PredicateRename:
        rules_ = rules(cur)
        src = rules_.bounded(normalize_name(old, field="old"), "old")
        if src in rules_.predicate_aliases:
            raise InvalidRequest(
                f"{old!r} is already an alias of the predicate {rules_.predicate_aliases[src]!r}; "
                "its facts are stored under that predicate, so there is nothing to rename",
                field="old",
                value=old,
                predicate=rules_.predicate_aliases[src],
            )
        dst = rules_.predicate(new)
        if src == dst:
            raise InvalidRequest(
                f"{old!r} and {new!r} are the same predicate ({dst!r}); nothing to rename", field="new", value=new
            )
        moved = _facts(cur, src)
        if not moved:
            raise NotFound(
                f"no fact uses the predicate {src!r}, so there is nothing to rename; `kgtoolkit predicates` "
                "lists the predicates in use (to make a name without facts another name of a predicate: "
                "`kgtoolkit alias-predicate`)",
                field="old",
                value=old,
            )
        in_use = _facts(cur, dst)
        if in_use and rules_.is_value(src) != rules_.is_value(dst):
            value, entity = (src, dst) if rules_.is_value(src) else (dst, src)
            raise InvalidRequest(
                f"{value!r} is a value predicate (its objects are text) and {entity!r} is not (its "
                "objects are entities); facts of the two kinds cannot become one predicate: rename "
                "into a predicate of the same kind, or into an unused one",
                field="new",
                value=new,
                predicate=dst,
            )
        deduplicated = _fold(cur, src, dst)
        cur.execute("UPDATE facts SET predicate = ? WHERE predicate = ?", (dst, src))
        ensure_labels(cur, [(dst, _label(new, dst))])
        cur.execute("DELETE FROM predicates WHERE id = ?", (src,))
        cur.execute("UPDATE predicate_aliases SET predicate = ? WHERE predicate = ?", (dst, src))
        cur.execute("INSERT INTO predicate_aliases(alias, predicate) VALUES (?, ?)", (src, dst))
        settings = _move_settings(cur, src, dst)
        check_exclusive(q.read_config(cur))  # old single-valued or one-holder into a multi-valued new: refused
        repoint_not_same(cur, src, dst, "predicates")  # a pair marked not the same stays remembered
        label = cur.execute("SELECT label FROM predicates WHERE id = ?", (dst,)).fetchone()[0]
        return PredicateRename(src, dst, label, moved, deduplicated, _aliases_of(cur, dst), settings)

    return backend.write(write)


def _fold(cur: Cursor, src: str, dst: str) -> int:
    """Before ``src``'s facts become ``dst``'s: delete the rows that would then be duplicates, as a merge does
    (identical current facts keep the earliest start; identical history rows keep one: an event's occurrences stay
    apart, contract §12)."""
    rows = cur.execute(
        "SELECT id, subject, object_key, object_id IS NULL, valid_to IS NULL, from_us, to_us, occurrence FROM facts "
        "WHERE predicate IN (?, ?) ORDER BY from_us, id",
        (src, dst),
    ).fetchall()
    keep: set[tuple[Any, ...]] = set()
    drop: list[tuple[int]] = []
    for fact_id, subject, object_key, is_value, current, from_key, to_key, occurrence in rows:
        identity = (subject, object_key, bool(is_value)) + ((None,) if current else (from_key, to_key, occurrence))
        if identity in keep:
            drop.append((fact_id,))
        else:
            keep.add(identity)
    if drop:
        cur.executemany("DELETE FROM facts WHERE id = ?", drop)
    return len(drop)


# ---------------------------------------------------------------------- reads


def predicates_page(
    cur: Cursor, dialect: Dialect, limit: int | None, offset: int, clock: Clock
) -> tuple[list[PredicateInfo], int]:
    """Every predicate in use (most facts first, then id) with its label, counts and aliases; and how many."""
    if (rolled := _rollups.predicates_page(cur, dialect, limit, offset, clock)) is not None:  # contract §18
        return rolled
    params = {**clock.params(), **q.page(dialect, limit, offset)}
    # Four grouped reads, each on an index: every fact (facts_predicate), the open ones (the partial index
    # facts_current), the open scheduled ones (facts_validity, from_us after now) and the bounded current ones
    # (facts_ended, to_us after now); current = open - scheduled + bounded current (contract §4).
    # ``predicate || ''`` keeps SQLite from grouping the last three through facts_predicate (a scan of every row).
    bounded = q.current_sql("facts")
    rows = cur.execute(
        f"""WITH n AS (SELECT predicate, count(*) AS n FROM facts GROUP BY predicate),
                o AS (SELECT predicate || '' AS predicate, count(*) AS c FROM facts WHERE valid_to IS NULL GROUP BY 1),
                s AS (SELECT predicate || '' AS predicate, count(*) AS c FROM facts
                      WHERE from_us > :now AND valid_to IS NULL GROUP BY 1),
                b AS (SELECT predicate || '' AS predicate, count(*) AS c FROM facts
                      WHERE valid_to IS NOT NULL AND {bounded} GROUP BY 1)
           SELECT n.predicate, COALESCE(p.label, n.predicate), n.n,
                  COALESCE(o.c, 0) - COALESCE(s.c, 0) + COALESCE(b.c, 0), count(*) OVER ()
           FROM n LEFT JOIN o ON o.predicate = n.predicate LEFT JOIN s ON s.predicate = n.predicate
                  LEFT JOIN b ON b.predicate = n.predicate LEFT JOIN predicates p ON p.id = n.predicate
           ORDER BY n.n DESC, n.predicate LIMIT :limit OFFSET :offset""",
        params,
    ).fetchall()
    total = int(rows[0][4]) if rows else int(cur.execute("SELECT count(DISTINCT predicate) FROM facts").fetchone()[0])
    aliases: dict[str, list[str]] = {}
    if rows:
        names = dialect.list_param([r[0] for r in rows])
        for alias, target in cur.execute(
            f"SELECT alias, predicate FROM predicate_aliases WHERE predicate IN "
            f"{dialect.values('names')} ORDER BY alias",
            {"names": names},
        ).fetchall():
            aliases.setdefault(target, []).append(alias)
    events = q.event_rule(
        cur
    )  # a declared event is never current (contract §12); one by its bounds ends on its start day

    def current(predicate: str, count: int) -> int:
        return 0 if events.graph or predicate in events.predicates else count

    return [
        PredicateInfo(p, label, int(n), current(p, int(c)), tuple(aliases.get(p, ()))) for p, label, n, c, _ in rows
    ], total


def predicate_aliases(cur: Cursor) -> list[PredicateAlias]:
    """Every predicate alias, ordered by the predicate it names, then alias."""
    return [
        PredicateAlias(a, p)
        for a, p in cur.execute("SELECT alias, predicate FROM predicate_aliases ORDER BY predicate, alias").fetchall()
    ]

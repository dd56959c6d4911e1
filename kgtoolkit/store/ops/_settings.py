"""The graph's settings: read, and replaced in part by ``configure``."""

from __future__ import annotations

import json
from collections.abc import Collection

from ..._checks import whole_number
from ..._errors import (
    InvalidName,
    InvalidRequest,
    UnknownType,
)
from ..._names import (
    normalize_name,
    printable,
)
from ..._records import (
    GraphConfig,
)
from ..engine import (
    Backend,
    Cursor,
    read_or_blank,
)
from ..reads import _queries as q
from . import _conflict_kept as _kept
from . import _predicates as _preds
from ._reads import _strings


def read_config(engine: Backend) -> GraphConfig:
    """The graph's settings (a graph not made yet has a new graph's)."""
    with read_or_blank(engine) as cur:
        return q.read_config(cur)


def configure(  # noqa: C901
    engine: Backend,
    *,
    types: Collection[str] | None = None,
    value_predicates: Collection[str] | None = None,
    multi_valued: Collection[str] | None = None,
    comma_guard: bool | None = None,
    max_name_length: int | None = None,
    max_value_length: int | None = None,
    single_valued: Collection[str] | None = None,
    events: bool | None = None,
    event_predicates: Collection[str] | None = None,
    one_holder: Collection[str] | None = None,
) -> GraphConfig:
    """Replace the given settings in one write, and answer the settings after it."""
    engine.create()  # it writes: a new graph is made first (a refusal may read its settings)
    updates: dict[str, str] = {}
    if types is not None:
        vocabulary = _setting_names(engine, types, "types", "type")
        vocabulary.add("unknown")
        updates["types"] = json.dumps(sorted(vocabulary))
    if value_predicates is not None:
        updates["value_predicates"] = json.dumps(
            sorted(_setting_names(engine, value_predicates, "value_predicates", "predicate"))
        )
    if multi_valued is not None:
        updates["multi_valued"] = json.dumps(sorted(_setting_names(engine, multi_valued, "multi_valued", "predicate")))
    if single_valued is not None:
        updates["single_valued"] = json.dumps(
            sorted(_setting_names(engine, single_valued, "single_valued", "predicate"))
        )
    if event_predicates is not None:
        updates["event_predicates"] = json.dumps(
            sorted(_setting_names(engine, event_predicates, "event_predicates", "predicate"))
        )
    if one_holder is not None:
        updates["one_holder"] = json.dumps(sorted(_setting_names(engine, one_holder, "one_holder", "predicate")))
    for key, flag in (("comma_guard", comma_guard), ("events", events)):
        if flag is not None:
            if not isinstance(flag, bool):
                raise InvalidRequest(f"{key} must be true or false", field=key, value=str(flag))
            updates[key] = json.dumps(flag)
    for key, value in (("max_name_length", max_name_length), ("max_value_length", max_value_length)):
        if value is not None:
            updates[key] = json.dumps(whole_number(value, field=key, low=1, high=q.LENGTH_SETTINGS[key]))

    def write(cur: Cursor) -> GraphConfig:
        aliases = _preds.read_aliases(cur)
        for key in _preds.PREDICATE_SETTINGS:  # a predicate alias names its predicate here too (contract §13)
            if key in updates and aliases:
                updates[key] = json.dumps(sorted({aliases.get(p, p) for p in json.loads(updates[key])}))
        if types is not None:
            in_use = {r[0] for r in cur.execute("SELECT DISTINCT type FROM entities")}
            missing = in_use - set(json.loads(updates["types"]))
            if missing:
                raise UnknownType(
                    f"types {sorted(missing)} are used by entities; keep them in the vocabulary",
                    field="types",
                    value=sorted(missing),
                )
        before = q.read_config(cur)
        _preds.check_exclusive(before, {key: json.loads(value) for key, value in updates.items()})
        judged_under = _kept.read_config_key(cur)
        cur.executemany(
            "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            list(updates.items()),
        )
        _kept.settings_changed(engine, cur, judged_under)  # the conflict groups whose rule changed, marked
        return q.read_config(cur)

    return engine.write(write)


def _setting_names(engine: Backend, values: Collection[str], setting: str, field: str) -> set[str]:
    """The normalised names of a setting. One that is not valid Unicode is refused, saying how to remove it
    when it is already stored (older versions accepted such names from the command line)."""
    keys: set[str] = set()
    for name in _strings(values, setting):
        try:
            keys.add(normalize_name(name, field=field))
        except InvalidName as exc:
            if name == printable(name) or name not in getattr(read_config(engine), setting):
                raise
            option = {
                "types": "--remove-type",
                "value_predicates": "--remove-value-predicate",
                "multi_valued": "--remove-multi-valued",
                "single_valued": "--remove-single-valued",
                "one_holder": "--remove-one-holder",
                "event_predicates": "--remove-event-predicate",
            }[setting]
            raise InvalidName(
                f"{exc.message}. It is stored in this graph's {setting}: remove it with "
                f"`kgtoolkit config {option} '{printable(name)}'` (or leave it out of "
                f"configure({setting}=...))",
                **exc.data,
            ) from exc
    return keys

"""The kept conflict judgement (contract §5 and §18, issue 43): every conflict group judged as facts are written, so
a page of conflicts costs its page and what changed lately, not the graph.

The judgement is :mod:`._conflicts`' own SQL (:func:`~._conflicts._judgement`), kept in ``conflict_kept`` (schema
step 14, ``kgtoolkit/store/engine/_conflict_schema.py``): per group and mode (0: every fact; 1: current facts
alone), whether it needs action (``calm`` 0), its counts, and ``fresh_until``, the first instant after the
judgement at which a fact of the group may change state (:func:`kgtoolkit._validity.state_changes`). "Needs action"
depends on now (two facts current now, a planned switch still to come: contract §4), so a read takes a kept row
only before ``fresh_until``.

**In every write.** A write marks what it changed (new facts above ``conflict_state.upto``; triggers mark the groups
of a changed or deleted fact in ``conflict_dirty``). The engine ends every write transaction, after the rollups'
fold, with :func:`fold_kept` when the waiting facts, marks and past groups reach
:data:`~kgtoolkit.store.engine.KEPT_WAIT` (or the judgement was never made, or the settings changed by a copy or a
restore); below that, the reads judge the waiting groups live (:func:`~._conflicts.kept_page`), each by index. A
bulk load judges its groups at its end, after its indexes are built again. A settings change marks the groups of
the predicates it concerns (:func:`settings_changed`), in its own write.
"""

from __future__ import annotations

import json
from typing import Any

from ..._validity import Clock
from ..engine import Backend, Cursor, register_conflict_fold
from . import _conflicts as _c
from . import _rollups
from ._rollups import RollupCheck

__all__ = [
    "check",
    "fold",
    "fold_engine",
    "fold_kept",
    "read_config_key",
    "rebuild",
    "rebuild_kept",
    "settings_changed",
]

_KEY = _c.KEPT_KEY
_COLUMNS = "anchor, predicate, axis, mode, calm, n_objects, n_subjects, n_facts, n_ended, fresh_until"


def _insert(kind: str) -> str:
    return "INSERT OR IGNORE INTO" if kind == "sqlite" else "INSERT INTO"


def _ignore(kind: str) -> str:
    return "" if kind == "sqlite" else " ON CONFLICT DO NOTHING"


def fold_kept(engine: Backend, cur: Cursor, clock: Clock | None = None) -> None:
    """In the caller's write transaction: the groups that changed since they were judged (new facts, marked groups,
    groups past their freshness) judged again at ``clock`` (default: now) and kept; every group when the judgement
    was never made, was made under other settings, or fact ids were reused."""
    clock = clock or Clock.real()
    settings = _c._settings_key(cur)
    config, upto = cur.execute("SELECT config, upto FROM conflict_state WHERE id = 1").fetchone()
    top = int(cur.execute("SELECT COALESCE(max(id), 0) FROM facts").fetchone()[0])
    now = clock.params()
    keys: tuple[str, str] | None = None
    # every group, by one scan: never judged, other settings, ids reused, or a load of a quarter of the graph or more
    if config != settings or not int(upto) or top < int(upto) or top - int(upto) > top // 4:
        cur.execute("DELETE FROM conflict_kept")
        cur.execute("DELETE FROM conflict_dirty")
    else:
        ins, tail = _insert(engine.kind), _ignore(engine.kind)
        for axis, anchor in ((0, "subject"), (1, "object_key")):
            cur.execute(
                f"{ins} conflict_dirty(anchor, predicate, axis) SELECT DISTINCT {anchor}, predicate, {axis} "
                # the new facts read by their key's range (no plan walks an index of every fact to group them)
                f"FROM (WITH n AS MATERIALIZED (SELECT * FROM facts WHERE id > :upto) SELECT * FROM n) f{tail}",
                {"upto": int(upto)},
            )
        cur.execute(
            f"{ins} conflict_dirty(anchor, predicate, axis) SELECT anchor, predicate, axis FROM conflict_kept "
            f"WHERE mode = 0 AND fresh_until <= :now{tail}",
            now,
        )
        cur.execute(  # by the key: an index seek per marked group
            "DELETE FROM conflict_kept WHERE (anchor, predicate, axis) IN "
            "(SELECT anchor, predicate, axis FROM conflict_dirty)"
        )
        keys = tuple(  # type: ignore[assignment]
            f"(SELECT d.anchor, d.predicate FROM conflict_dirty d WHERE d.axis = {axis})" for axis in (0, 1)
        )
    judged, params, _ = _c._judgement(engine, cur, None, False, keys=keys, clock=clock, scan=keys is None)
    cur.execute(
        f"INSERT INTO conflict_kept({_COLUMNS}) {judged} SELECT anchor, predicate, axis, 0, 1 - needs, n_objects, "
        "n_subjects, n_facts, n_ended, fresh FROM judged",
        params,
    )
    # Current facts alone: the groups of mode 0 judged again (each is one there, with more facts), their freshness
    # that of mode 0 (every fact of the group, the scheduled ones too, may change what is current).
    judged, params, _ = _c._judgement(engine, cur, None, True, keys=keys, clock=clock, scan=keys is None)
    cur.execute(
        f"INSERT INTO conflict_kept({_COLUMNS}) {judged} SELECT j.anchor, j.predicate, j.axis, 1, 1 - j.needs, "
        "j.n_objects, j.n_subjects, j.n_facts, j.n_ended, k.fresh_until FROM judged j JOIN conflict_kept k ON "
        f"k.mode = 0 AND {_KEY.format(t='j')}",
        params,
    )
    cur.execute("DELETE FROM conflict_dirty")
    cur.execute(
        "UPDATE conflict_state SET upto = :top, config = :config WHERE id = 1", {"top": top, "config": settings}
    )


register_conflict_fold(fold_kept)


def settings_changed(engine: Backend, cur: Cursor, before: str | None) -> None:
    """In a settings write, after the settings changed (a trigger cleared ``conflict_state.config``): the groups
    of every predicate whose grouping or event rule changed marked (judged live, then again by a write), so the
    judgement stays whole; ``before`` is ``conflict_state.config`` before the write. A change of ``events`` (every
    fact an event, or not) leaves the whole judgement to the write's end."""
    if before is None:
        return
    after = _c._settings_key(cur)
    old, new = json.loads(before), json.loads(after)
    if old[2] != new[2]:  # events: every group changes
        return
    changed = sorted({p for i in (0, 1, 3) for p in set(old[i]) ^ set(new[i])})
    if changed:
        d = engine.dialect
        ins, tail = _insert(engine.kind), _ignore(engine.kind)
        for axis, anchor in ((0, "subject"), (1, "object_key")):
            cur.execute(
                f"{ins} conflict_dirty(anchor, predicate, axis) SELECT DISTINCT {anchor}, predicate, {axis} FROM facts "
                f"WHERE {d.in_list('predicate', 'changed')}{tail}",
                {"changed": d.list_param(changed)},
            )
    cur.execute("UPDATE conflict_state SET config = :config WHERE id = 1", {"config": after})


def read_config_key(cur: Cursor) -> str | None:
    """The settings the kept judgement was made under (None: none)."""
    row = cur.execute("SELECT config FROM conflict_state WHERE id = 1").fetchone()
    return None if row is None else row[0]


def rebuild_kept(cur: Cursor) -> None:
    """Forget the kept judgement (in the caller's write transaction): the next fold judges every group."""
    cur.execute("DELETE FROM conflict_kept")
    cur.execute("DELETE FROM conflict_dirty")
    cur.execute("UPDATE conflict_state SET upto = 0, config = NULL WHERE id = 1")


def _waiting(cur: Cursor) -> bool:
    """Anything a read would judge live: new facts, marks, groups past their freshness, other settings."""
    upto = _c.kept_state(cur)
    if upto is None:
        return True
    now = Clock.real().params()
    return bool(
        cur.execute(
            "SELECT (SELECT COALESCE(max(id), 0) FROM facts) > :upto OR EXISTS (SELECT 1 FROM conflict_dirty) "
            "OR EXISTS (SELECT 1 FROM conflict_kept WHERE fresh_until <= :now)",
            {**now, "upto": upto},
        ).fetchone()[0]
    )


def check_kept(engine: Backend) -> tuple[int, tuple[str, ...]]:
    """How many kept groups disagree with the judgement of every group now (and a few of them), for ``check
    --rollups``: the kept rows a read would take (those still fresh) against the live rule. Nothing kept: 0."""
    with engine.read() as cur:
        if _waiting(cur):
            return 0, ()
        out: list[str] = []
        bad = 0
        for mode in (0, 1):
            judged, params, _ = _c._judgement(engine, cur, None, bool(mode))
            params = {**params, "mode": mode}
            cols = "anchor, predicate, axis, calm, n_objects, n_subjects, n_facts, n_ended"
            want = (
                f"SELECT anchor, predicate, axis, 1 - needs AS calm, n_objects, n_subjects, n_facts, n_ended FROM judged "
                f"WHERE NOT EXISTS (SELECT 1 FROM conflict_kept k WHERE k.mode = :mode AND {_KEY.format(t='judged')} "
                "AND k.fresh_until <= :now)"
            )
            have = f"SELECT {cols} FROM conflict_kept WHERE mode = :mode AND fresh_until > :now"
            for side, a, b in (("missing", want, have), ("extra", have, want)):
                rows = cur.execute(f"{judged} SELECT * FROM ({a} EXCEPT {b}) x", params).fetchall()
                bad += len(rows)
                out += [f"conflict_kept mode {mode} {side}: {tuple(r)}" for r in rows[:3]]
        return bad, tuple(out)


def fold_engine(backend: Backend) -> bool:
    """The rollups brought up to date (:func:`._rollups.fold_engine`), then the kept conflict judgement made whole
    again (what waits for it judged in one write): False when they are not and cannot be (a read-only graph)."""
    done = _rollups.fold_engine(backend)
    if backend.missing:
        return done
    with backend.read() as cur:
        waiting = _waiting(cur)
    if not waiting:
        return done
    if backend.read_only:
        return False
    backend.write(lambda cur: fold_kept(backend, cur))
    return done


def fold(kg: Any) -> bool:
    """Bring the rollups and the kept conflict judgement of graph ``kg`` up to date (:func:`fold_engine`)."""
    return fold_engine(kg.engine)


def rebuild(kg: Any) -> None:
    """Make every rollup and the kept conflict judgement again from the facts (``check --rebuild-rollups``)."""
    _rollups.rebuild(kg)
    backend = kg.engine

    def again(cur: Cursor) -> None:
        rebuild_kept(cur)
        fold_kept(backend, cur)

    backend.write(again)


def check(kg: Any) -> RollupCheck:
    """Every rollup compared with a scan (:func:`._rollups.check`), and the kept conflict groups with the judgement
    of every group (:func:`check_kept`)."""
    fold(kg)
    found = _rollups.check(kg)
    wrong, examples = check_kept(kg.engine)
    return RollupCheck({**found.differences, "conflict_kept": wrong}, found.examples + examples)

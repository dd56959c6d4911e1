"""The agent tool's actions: the shared vocabulary of parameters (one ``_param`` line per name) and every
action, each declared once with ``@action`` over its handler (contract §7, §11, §14).

To add an action: take its parameters from the shared vocabulary below (a new name gets its ``_param``
line: one JSON type and one general description per name), adapt them with :meth:`Param.but` (required,
this action's wording, default), write the handler under ``@action(...)``, and name the action and its
parameters in docs/agents.md's ``kgtoolkit tool`` section (``tests/meta/test_docs.py`` fails until every door and the
guide have it).
"""

from __future__ import annotations

from typing import Any

from .._errors import InvalidRequest
from .._limits import DEFAULT_HISTORY
from ..graph import KnowledgeGraph
from ._dispatch import conflicts_result, facts_result, page_result
from ._registry import DEFAULT_LIMIT, MAX_LIMIT, _param, action

# ---------------------------------------------------------------------- the shared vocabulary

SUBJECT = _param("subject", "string", "Entity the fact is about (for merge: the duplicate to fold away).")
PREDICATE = _param("predicate", "string", "Relationship type, e.g. uses_queue, works_at, email.")
OBJECT = _param(
    "object",
    "string",
    "Entity or value the fact points at (for merge: the entity to keep; for supersede: the old object).",
)
VALID_FROM = _param(
    "valid_from", "string", "When the fact became true: YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime with Z."
)
VALID_TO = _param("valid_to", "string", "When it stopped being true (leave out while it is still true).")
CONFIDENCE = _param("confidence", "number", "How sure the source is, 0 to 1 (default 1).", minimum=0, maximum=1)
SOURCE = _param(
    "source",
    "string",
    "Who asserts it (default: agent), e.g. the agent's or the user's name; for path: the entity the path starts at.",
)
SOURCE_CLOSET = _param(
    "source_closet", "string", "Pointer to the evidence, e.g. a memory id from kg_remember or a URL."
)
SUBJECT_TYPE = _param(
    "subject_type",
    "string",
    "Type of the subject entity: person, company, project, event, unknown, or a type the graph adds.",
)
OBJECT_TYPE = _param("object_type", "string", "Type of the object entity (see subject_type).")
PROPERTIES = _param("properties", "object", "JSON object of properties to set on the subject entity.")
OCCURRENCE = _param(
    "occurrence",
    "integer",
    "Which occurrence of an event this is (add): 2, 3, … when the same event happened again on the same day "
    "(default 1; the same occurrence again changes nothing).",
    minimum=1,
)
NAME = _param("name", "string", "Entity to look up (query, timeline, conflicts) or the new alias (alias).")
DIRECTION = _param(
    "direction",
    "string",
    "outgoing (entity is subject), incoming (entity is object) or both.",
    enum=("both", "outgoing", "incoming"),
)
AS_OF = _param("as_of", "string", "Only facts valid on this date.")
KNOWN_AT = _param("known_at", "string", "What the graph believed at this moment (transaction time).")
CURRENT_ONLY = _param(
    "current_only", "boolean", "Only facts valid now (started and not yet ended; never a scheduled one)."
)
LIMIT = _param(
    "limit",
    "integer",
    f"At most this many items. List actions (query, search, timeline, conflicts, "
    f"aliases, predicates): default {DEFAULT_LIMIT} (the MCP tools: 50), at most {MAX_LIMIT:,}; "
    "page on with offset = next_offset. summary: how many entities.",
    minimum=0,
)
PAGE_LIMIT = LIMIT.but(
    description=f"At most this many items (at most {MAX_LIMIT:,}); the answer's total, truncated "
    "and next_offset say whether more exist.",
    maximum=MAX_LIMIT,
)
OFFSET = _param(
    "offset", "integer", "Skip this many items first (paging: the previous answer's next_offset).", minimum=0
)
HISTORY = _param(
    "history",
    "integer",
    f"How many ended facts each conflict group lists, the last ended first (default {DEFAULT_HISTORY}, at most "
    f"{MAX_LIMIT:,}); its history_total counts them all, history_more those past this page.",
    minimum=0,
    maximum=MAX_LIMIT,
)
HISTORY_OFFSET = _param(
    "history_offset",
    "integer",
    "Skip this many of each group's ended facts first (paging a group's history: name and predicates pick the "
    "group, history_offset goes up by history).",
    minimum=0,
)
ENDED = _param("ended", "string", "When the fact stopped being true (default: today).")
ENDED_BY = _param("ended_by", "string", "Who ended it (default: agent).")
OLD_OBJECT = _param("old_object", "string", "The object being replaced (supersede).")
NEW_OBJECT = _param("new_object", "string", "The object that replaces it (supersede).")
OLD_SUBJECT = _param("old_subject", "string", "The holder being replaced (supersede_holder).")
NEW_SUBJECT = _param("new_subject", "string", "The holder that replaces it (supersede_holder).")
AT = _param("at", "string", "When the new object (or holder) replaced the old one (default: today).")
ENTITY = _param("entity", "string", "Entity an alias names.")
STYLE = _param(
    "style", "string", "main (# Knowledge Graph heading) or subagent (## Known Facts).", enum=("main", "subagent")
)
TEXT = _param("text", "string", "Evidence to store as a memory (remember); a fact's source_closet may point at its id.")
METADATA = _param("metadata", "object", "JSON object stored with the memory (remember).")
QUERY = _param(
    "query",
    "string",
    "What to look for, in words (find): facts and memories are ranked by their words, meaning and the entities named.",
)
K = _param("k", "integer", "How many hits (find; default 10).")
KIND = _param(
    "kind",
    "string",
    "facts, memories or both (find; default facts); entities or predicates "
    "(duplicates, not_duplicate; default entities).",
)
PREDICATES = _param("predicates", "array", 'Only facts of these predicates (query, timeline), e.g. ["works_at"].')
OTHER = _param("other", "string", "Only facts whose other side is this entity (query): exact name or alias.")
SINCE = _param("since", "string", "Only facts valid on or after this date (timeline).")
UNTIL = _param("until", "string", "Only facts valid on or before this date (timeline).")
ALIAS = _param(
    "alias", "string", "Another name of a predicate (alias_predicate): writes and reads through it mean the predicate."
)
NEW_PREDICATE = _param(
    "new_predicate", "string", "The predicate the facts are folded into (rename_predicate): one in use, or a new one."
)
FIRST = _param("first", "string", "One of two names (not_duplicate): an entity's exact name or alias, or a predicate.")
SECOND = _param("second", "string", "The other name (not_duplicate).")
CODES = _param("codes", "array", 'Only findings of these codes (check), e.g. ["single_valued_overlap"].')


# ---------------------------------------------------------------------- the actions


def _add_rules(p: dict[str, Any]) -> list[str]:
    """add: with only a subject it creates an entity; a fact needs predicate and object together."""
    if ("predicate" in p) != ("object" in p):
        return ["object" if "predicate" in p else "predicate"]
    return []


@action(
    "add",
    "Record a stable fact: subject → predicate → object, with valid_from when known (e.g. my_api uses_queue Redis "
    "from 2026-03-02). Use it for durable knowledge (decisions, owners, dependencies, roles, contact details), not "
    "for passing chatter. Adding a fact that is already current changes nothing (created: false). When a fact "
    "replaces an older one, use kg_supersede instead; when one simply ended, kg_invalidate. With only subject (and "
    "subject_type / properties) it creates or updates the entity.",
    SUBJECT.but(required=True),
    PREDICATE,
    OBJECT,
    VALID_FROM,
    VALID_TO,
    CONFIDENCE.but(default=1),
    SOURCE,
    SOURCE_CLOSET,
    SUBJECT_TYPE,
    OBJECT_TYPE,
    PROPERTIES,
    OCCURRENCE,
    idempotent=True,
    rules=_add_rules,
)
def _add(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    if "predicate" not in p:
        return {
            "entity": kg.add_entity(p["subject"], type=p.get("subject_type"), properties=p.get("properties")).to_dict()
        }
    subject, predicate, obj = p.pop("subject"), p.pop("predicate"), p.pop("object")
    return kg.add(subject, predicate, obj, **p).to_dict()


@action(
    "query",
    "Everything the graph knows about one entity: its facts with dates, each flagged current and with its "
    "direction (outgoing: the entity is the subject; incoming: it is the object, e.g. 'what uses SQLite?'). Check "
    "this before answering about past decisions or the state of something. as_of asks what held on a date, known_at "
    "what the graph believed at a moment. Never fuzzy: a miss returns not_found with suggestions.",
    NAME.but(required=True, description="Entity to look up: its exact name or an alias (never fuzzy)."),
    DIRECTION.but(default="both"),
    AS_OF,
    KNOWN_AT,
    CURRENT_ONLY.but(default=False),
    PREDICATES,
    OTHER,
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _query(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    entity = kg.resolve(p["name"])
    page = kg.query(p.pop("name"), **p)
    return {**facts_result(page, entity=entity), **page_result(page)}


@action(
    "invalidate",
    "Close a current fact that stopped being true (ended defaults to today); it stays as history. Use when "
    "something ended without a replacement; when it was replaced, use kg_supersede. Fails with not_current when no "
    "such fact is current (the message shows the historical ones).",
    SUBJECT.but(required=True),
    PREDICATE.but(required=True),
    OBJECT.but(required=True, description="The object of the fact that ended."),
    ENDED,
    ENDED_BY,
)
def _invalidate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"fact": kg.invalidate(p.pop("subject"), p.pop("predicate"), p.pop("object"), **p).to_dict()}


def _supersede_rules(p: dict[str, Any]) -> list[str]:
    """supersede takes its old object as ``object`` or ``old_object``, once."""
    if "object" in p:
        if "old_object" in p and p["old_object"] != p["object"]:
            raise InvalidRequest(
                "supersede takes the old object once: give object or old_object, not both",
                field="old_object",
                value=str(p["old_object"]),
            )
        p["old_object"] = p.pop("object")
    return []


@action(
    "supersede",
    "Replace the object of a current fact at one moment, atomically: ends subject–predicate–old_object at `at` and "
    "adds subject–predicate–new_object from `at` (e.g. my_api uses_queue Redis → SQLite on 2026-10-12). Use "
    "whenever a decision, owner, dependency or value changes.",
    SUBJECT.but(required=True),
    PREDICATE.but(required=True),
    OBJECT.but(offered=False),
    OLD_OBJECT.but(required=True),
    NEW_OBJECT.but(required=True),
    AT,
    CONFIDENCE.but(default=1),
    SOURCE,
    SOURCE_CLOSET,
    OBJECT_TYPE,
    rules=_supersede_rules,
)
def _supersede(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.supersede(p.pop("subject"), p.pop("predicate"), p.pop("old_object"), p.pop("new_object"), **p).to_dict()


@action(
    "supersede_holder",
    "Replace the holder (subject) of a current fact at one moment, atomically: ends old_subject–predicate–object "
    "at `at` and adds new_subject–predicate–object from `at` (e.g. Ann holds_office Mayor → Ben on 2024-01-01). "
    "Use when an office, role or asset passes to someone else; declare such predicates one holder "
    "(`kgtoolkit config --add-one-holder`) so diff shows the handover as replaced.",
    OBJECT.but(required=True, description="The entity or value held (the office, the company)."),
    PREDICATE.but(required=True),
    OLD_SUBJECT.but(required=True),
    NEW_SUBJECT.but(required=True),
    AT,
    CONFIDENCE.but(default=1),
    SOURCE,
    SOURCE_CLOSET,
    SUBJECT_TYPE.but(description="Type of the new holder, when it is created."),
)
def _supersede_holder(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.supersede_holder(
        p.pop("object"), p.pop("predicate"), p.pop("old_subject"), p.pop("new_subject"), **p
    ).to_dict()


@action(
    "search",
    "Facts by relationship type, optionally pointing at one object (predicate uses_queue, object SQLite: "
    "everything that uses SQLite as a queue). Use when you know the relationship but not the subject.",
    PREDICATE.but(required=True),
    OBJECT.but(description="Only facts pointing at this entity or value."),
    AS_OF,
    KNOWN_AT,
    CURRENT_ONLY.but(default=False),
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _search(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.by_predicate(p.pop("predicate"), p.pop("object", None), **p)
    return {**facts_result(page), **page_result(page)}


@action(
    "timeline",
    "Facts in chronological order, of one entity or of the whole graph. Use to explain how something evolved or "
    "what changed when; since, until and predicates narrow it to a span and the relationships asked about.",
    NAME.but(description="Only this entity's facts (default: the whole graph)."),
    SINCE,
    UNTIL,
    PREDICATES,
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _timeline(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.timeline(p.pop("name", None), **p)
    return {**facts_result(page), **page_result(page)}


@action(
    "merge",
    "Fold a duplicate entity (subject) into the one to keep (object): moves its facts, keeps its names as aliases, "
    "de-duplicates identical facts. Use when two names turn out to be one thing. It cannot be undone; for a mere "
    "second name, kg_alias is enough.",
    SUBJECT.but(required=True, description="The duplicate entity to fold away."),
    OBJECT.but(required=True, description="The entity to keep."),
    destructive=True,
)
def _merge(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.merge(p["subject"], p["object"]).to_dict()


@action(
    "alias",
    "Register another name (name) for an existing entity, so lookups by that name find it. Use for abbreviations, "
    "old names and other spellings, or after a not_found whose suggestion was right.",
    NAME.but(required=True, description="The other name to register."),
    ENTITY.but(required=True),
    idempotent=True,
)
def _alias(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.alias(p["name"], p["entity"]).to_dict()


@action(
    "aliases",
    "List the other names registered for entities (every alias, or one entity's), ordered by entity and alias. "
    "Use to see which spellings already resolve before adding an alias.",
    ENTITY.but(description="Only this entity's aliases (default: every alias)."),
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _aliases(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.aliases(p.pop("entity", None), **p)
    return {"aliases": [a.to_dict() for a in page], **page_result(page)}


@action(
    "alias_predicate",
    "Register another name (alias) for a predicate, so writes and reads through it (add, query, search, timeline, "
    "imports) mean that predicate, e.g. alias uses_db for predicate uses_database. Use when two spellings of a "
    "relationship mean one thing and the alias has no facts yet; if it has facts, fold them with "
    "kg_rename_predicate.",
    ALIAS.but(required=True),
    PREDICATE.but(required=True, description="The predicate the alias names."),
    idempotent=True,
)
def _alias_predicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.alias_predicate(p["alias"], p["predicate"]).to_dict()


@action(
    "rename_predicate",
    "Fold every fact of one predicate into another, atomically, with its history (as kg_merge does for "
    "entities): identical facts become one, and the old predicate becomes an alias of the new one. Use when a "
    "relationship was recorded under two names (uses_db and uses_database). It cannot be undone.",
    PREDICATE.but(required=True, description="The predicate whose facts move (it becomes an alias)."),
    NEW_PREDICATE.but(required=True),
    destructive=True,
)
def _rename_predicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.rename_predicate(p["predicate"], p["new_predicate"]).to_dict()


@action(
    "predicates",
    "List the predicates in use, most facts first: each with its id (the key to write and query by), its label "
    "(first spelling, for display), how many facts and current facts it has, and the aliases that name it. Use to "
    "see which relationships exist before adding facts, so one relationship keeps one name.",
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _predicates(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.predicates(**p)
    return {"predicates": [x.to_dict() for x in page], **page_result(page)}


@action(
    "stats",
    "Counts: entities per type, facts (current, ended), value facts, predicates, aliases, memories.",
    read_only=True,
)
def _stats(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.stats().to_dict()


@action(
    "conflicts",
    "Review contradictions: every (subject, predicate) with more than one object (for a one-holder predicate, "
    "every (object, predicate) with more than one subject: by is object), with its current and scheduled "
    "facts and its last ended ones (history; page on with history_offset). Groups with more "
    "than one current fact are flagged needs_action: resolve them with kg_supersede (kg_supersede_holder) or "
    "kg_invalidate. A fact "
    "starting after today is scheduled, not current; with a current one it is a planned_switch, flagged when both "
    "would be valid at once, with the supersede request that resolves it as suggestion. Closed-out "
    "history is listed too (current_only to skip it). Use after adding facts or when answers disagree. Groups "
    "needing action come first; needs_action counts them in this page, needs_action_total in all.",
    NAME.but(description="Only this entity's conflicts (default: the whole graph)."),
    CURRENT_ONLY.but(default=False),
    PREDICATES.but(description='Only the groups of these predicates, e.g. ["owned_by"].'),
    PAGE_LIMIT.but(
        description=f"At most this many groups, each judged whole (at most {MAX_LIMIT:,}); the answer's total, "
        "truncated and next_offset say whether more exist."
    ),
    OFFSET.but(default=0),
    HISTORY.but(default=DEFAULT_HISTORY),
    HISTORY_OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _conflicts(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    name, current_only, predicates = p.get("name"), p.get("current_only", False), p.get("predicates")
    page = kg.conflicts(
        name,
        current_only=current_only,
        predicates=predicates,
        limit=p.get("limit"),
        offset=p.get("offset", 0),
        history=p.get("history", DEFAULT_HISTORY),
        history_offset=p.get("history_offset", 0),
    )
    return {
        **conflicts_result(page.items),
        **page_result(page),
        "needs_action_total": kg.conflicts_needing_action(name, current_only=current_only, predicates=predicates),
    }


@action(
    "summary",
    "Compact Markdown of the best-connected entities and their current facts. Use at the start of a task to load "
    "what the team already knows (style subagent for a shorter heading).",
    LIMIT.but(
        description=f"How many entities, 1 to {MAX_LIMIT:,} (default 20).", default=20, minimum=1, maximum=MAX_LIMIT
    ),
    STYLE.but(default="main"),
    AS_OF.but(description="The current facts of this date instead of today."),
    read_only=True,
)
def _summary(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    limit = p.get("limit", 20)
    if limit > MAX_LIMIT:  # an answer is bounded (contract §7): a summary of more entities is a bigger prompt
        raise InvalidRequest(
            f"limit must be a whole number from 0 to {MAX_LIMIT:,}, not {limit}",
            field="limit",
            value=str(limit),
            maximum=MAX_LIMIT,
        )
    return {"markdown": kg.summary(**p)}


@action(
    "remember",
    "Store a piece of evidence verbatim (a decision record, a meeting note, what the user said) as a memory; its id "
    "can be cited by facts as source_closet. Use for context worth keeping word for word, and record the durable "
    "facts it implies with kg_add.",
    TEXT.but(required=True),
    SOURCE.but(description="Where the evidence came from (default: agent), e.g. a person, a document or a URL."),
    METADATA,
)
def _remember(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"memory": kg.remember(p.pop("text"), **p).to_dict()}


MODE = _param(
    "mode",
    "string",
    "hybrid (default): words, meaning and names fused; vector: meaning alone; lexical: "
    "words alone (exact codes such as INC-4821, no model needed) (find).",
    enum=("hybrid", "vector", "lexical"),
)
RERANK = _param(
    "rerank",
    "string",
    "graph: prefer facts near the entities the query names, and current facts over history (find).",
    enum=("graph",),
)
EXPLAIN = _param("explain", "boolean", "Give each hit its lexical, vector, name and graph contributions (find).")


@action(
    "find",
    "Search facts and stored memories by words and meaning (e.g. 'which queue does the API use?', 'INC-4821'); "
    "each hit says whether it is still current and what replaced it, and a fact repeated on many days is one hit "
    "with its count and first and last dates. Use when you do not know the exact entity or predicate, or to find "
    "the evidence behind a fact; use kg_query when you know the entity.",
    QUERY.but(required=True),
    K.but(default=10),
    KIND.but(default="facts"),
    AS_OF,
    CURRENT_ONLY.but(default=False),
    MODE.but(default="hybrid"),
    RERANK,
    EXPLAIN.but(default=False),
    read_only=True,
)
def _find(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    from ..search import find  # torch and the model load only when an agent searches

    return find(kg, p.pop("query"), **p).to_dict()


# ---------------------------------------------------------------------- traversal and diff (contract §11)

HOPS = _param("hops", "integer", "How many hops to walk out from the entity, 1 to 4 (neighbors).", minimum=1, maximum=4)
MAX_HOPS = _param("max_hops", "integer", "The longest path, in facts, 1 to 4 (path).", minimum=1, maximum=4)
TARGET = _param("target", "string", "The entity a path ends at (path): exact name or alias.")
TIME_RESPECTING = _param(
    "time_respecting",
    "boolean",
    "Only paths going forward in time: each next fact starts no earlier than the previous one (path).",
)
FROM = _param("from", "string", "The first date of the window (diff), included.")
TO = _param("to", "string", "The last date of the window (diff), included.")
DURING = _param(
    "during",
    "array",
    "Two dates [start, end] (neighbors, path, follow): walk the facts whose validity "
    "overlaps that window instead of those valid on one date (not with as_of).",
)
BY = _param(
    "by",
    "string",
    "valid: what changed in the world (the facts' validity); known: what the graph learned (transaction time) (diff).",
    enum=("valid", "known"),
)
RENEWALS = _param(
    "renewals",
    "boolean",
    "true (default): the same fact again back to back (a term renewed on its last day or the day after) is one "
    "change, kind renewed, neither began nor ended; false: every end and start apart (diff).",
)


@action(
    "neighbors",
    "The entities and facts within a few hops of one entity (hops 1 to 4), walked in the graph: what surrounds it, "
    "who or what it is connected to and how far. Every hop is a current fact or an event that has occurred, at any "
    "date (as_of: valid on that date; during: overlapping [start, end]; known_at: as believed then); predicates "
    "narrows the walk to those relationships. "
    "capped and note say when a hub stopped the walk early.",
    NAME.but(required=True, description="The entity to start from: exact name or alias (never fuzzy)."),
    HOPS.but(default=1),
    DIRECTION.but(default="both"),
    PREDICATES.but(description="Walk only these relationships."),
    AS_OF.but(description="Walk the facts valid on this date."),
    DURING,
    KNOWN_AT,
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _neighbors(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.neighbors(p.pop("name"), **p).to_dict()


@action(
    "path",
    "How two entities are connected: the shortest paths first, each a list of facts (a chain of precise hops, e.g. "
    "billing owned_by payments_team reports_to Dana), at most max_hops long. Use for multi-hop questions instead "
    "of chaining queries. Each fact's direction is the way the hop went. Every hop is a current fact or an event "
    "that has occurred, at any date; as_of asks about a date, during about a window [start, end]; time_respecting "
    "keeps paths that go forward in time.",
    SOURCE.but(required=True, description="The entity the path starts at: exact name or alias."),
    TARGET.but(required=True),
    MAX_HOPS.but(default=4),
    DIRECTION.but(default="both"),
    PREDICATES.but(description="Walk only these relationships."),
    AS_OF.but(description="Walk the facts valid on this date."),
    DURING,
    TIME_RESPECTING.but(default=False),
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _path(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.paths(p.pop("source"), p.pop("target"), **p).to_dict()


@action(
    "follow",
    "Follow a chain of relationship types from one entity, every branch: name billing_service, predicates "
    "[owned_by, reports_to] answers who the owners of billing_service report to (ends), with the facts of each "
    "branch (paths). One hop per predicate, 1 to 4; direction incoming walks each hop from object to subject; each "
    "hop is a current fact or an event that has occurred, at any date, unless as_of or during [start, end] choose "
    "the facts by date.",
    NAME.but(required=True, description="The entity the chain starts at: exact name or alias."),
    PREDICATES.but(required=True, description="The relationships to follow, in order, one hop each (1 to 4)."),
    DIRECTION.but(default="outgoing"),
    AS_OF.but(description="Follow the facts valid on this date."),
    DURING,
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _follow(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.follow(p.pop("name"), p.pop("predicates"), **p).to_dict()


@action(
    "diff",
    "What changed between two dates: facts that began, facts that ended, and replacements (the same subject and "
    "predicate going from an old object to a new one, with the switch date; for a one-holder predicate, the same "
    "object going from an old holder to a new one), in time order. by known: what the "
    "graph learned between two moments instead. Events (facts of one day or instant, or of event predicates) are "
    "never begun, ended or replaced: they occurred (kind occurred). The same fact renewed back to back (re-elected, "
    "a lease renewed) is one change, kind renewed, not an end and a start. name and predicates narrow it; began, "
    "ended, replaced, renewed and occurred count each kind in the whole answer.",
    FROM.but(required=True),
    TO.but(required=True),
    NAME.but(description="Only facts about this entity (either side)."),
    PREDICATES.but(description="Only facts of these predicates."),
    BY.but(default="valid"),
    RENEWALS.but(default=True),
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _diff(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return kg.diff(p.pop("from"), p.pop("to"), entity=p.pop("name", None), **p).to_dict()


# ---------------------------------------------------------------------- cleaning up (contract §14)


@action(
    "duplicates",
    "List likely duplicates, best first: pairs of entities (or predicates, kind predicates) whose names are alike, "
    "abbreviate one another or share neighbours, each with a score from 0 to 1 and its reasons. Nothing is merged: "
    "after checking a pair, fold it with kg_merge, register a name with kg_alias, or mark it kg_not_duplicate so it "
    "is never listed again.",
    KIND.but(description="entities (default) or predicates.", default="entities", enum=("entities", "predicates")),
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _duplicates(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.duplicates(embeddings=False, **p)
    return {"candidates": [c.to_dict() for c in page], **page_result(page)}


@action(
    "not_duplicate",
    "Remember that two names listed as likely duplicates are different things (first and second, kind entities or "
    "predicates), so duplicates and check never list the pair again. Idempotent; the order does not matter.",
    FIRST.but(required=True),
    SECOND.but(required=True),
    KIND.but(description="entities (default) or predicates.", enum=("entities", "predicates")),
    idempotent=True,
)
def _not_duplicate(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    return {"not_duplicate": kg.not_duplicates(p.pop("first"), p.pop("second"), **p).to_dict()}


@action(
    "check",
    "Check the graph: each finding has a stable code (single_valued_overlap, one_holder_overlap, scheduled_overlap, "
    "dangling_source_closet, entity_without_facts, duplicate_candidate), a message saying what to do, and the facts "
    "and entities concerned. Use before relying on the graph or after a large import; clean is true when there "
    "are none.",
    CODES,
    PAGE_LIMIT,
    OFFSET.but(default=0),
    read_only=True,
    paged=True,
)
def _check(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    page = kg.check(**p)
    return {"findings": [f.to_dict() for f in page], **page_result(page), "clean": page.total == 0}


TOP = _param("top", "integer", "How many likely objects (forecast; default 10).", minimum=1, maximum=1000)


@action(
    "forecast",
    "What happens next in an event graph: the objects the subject is most likely to have with the predicate on a "
    "day (default: the day after the last event), ranked by the recurrency baseline (how often and how recently "
    "the subject had each, and how common each is for the predicate), each with its evidence: times_seen, "
    "last_seen, share. Use for 'whom will X meet next?'; an object never seen with the predicate is not listed.",
    SUBJECT.but(required=True, description="The entity whose next events are forecast: its name or an alias."),
    PREDICATE.but(required=True, description="The kind of event, e.g. make_statement."),
    AT.but(description="The day to forecast (default: the day after the graph's last event)."),
    TOP.but(default=10),
    read_only=True,
)
def _forecast(kg: KnowledgeGraph, p: dict[str, Any]) -> Any:
    from ..forecast import latest

    subject = kg.resolve(p.pop("subject"))
    predictions = latest(kg).predict(subject, kg.resolve_predicate(p.pop("predicate")), **p)
    return {"predictions": [x.to_dict() for x in predictions], "count": len(predictions)}

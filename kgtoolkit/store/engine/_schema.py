"""The schema: tables, column lists, migrations (as data, per engine) and the one fact SELECT.

Both engines hold the same tables with the same columns; the DDL differs only where the engines
do (types, identity columns, expression indexes, collation). Text keys compare byte by byte on both
(PostgreSQL columns are ``COLLATE "C"``), so ordering and uniqueness agree.

``facts`` keeps each bound twice: as text (``valid_from``/``valid_to``, what users see) and as an
integer key in microseconds (``from_us``/``to_us``, what comparisons use; open ends are ±2**62), and
``object_key``: the object's entity id, or its value case-folded (the de-duplication key). A partial
unique index enforces "one current identical fact".
"""

from __future__ import annotations

__all__ = [
    "ALIAS_COLUMNS",
    "DERIVED_FACT_COLUMNS",
    "DUMP_FACT_FIELDS",
    "ENTITY_COLUMNS",
    "FACT_COLUMNS",
    "FACT_FRAME_COLUMNS",
    "FACT_FROM",
    "FACT_READ",
    "FACT_SEARCH_FILL",
    "FACT_SELECT",
    "MEMORY_COLUMNS",
    "MIGRATIONS",
    "NOT_DUPLICATE_COLUMNS",
    "ORDER",
    "SCHEMA_VERSION",
    "TABLES",
    "TABLE_COLUMNS",
]

#: Every stored column of each table, in table order.
FACT_COLUMNS: tuple[str, ...] = (
    "id",
    "subject",
    "predicate",
    "object_id",
    "object_value",
    "object_key",
    "valid_from",
    "valid_to",
    "from_us",
    "to_us",
    "confidence",
    "source",
    "source_closet",
    "recorded_at",
    "invalidated_at",
    "ended_by",
    "occurrence",
)
#: The fact columns the store derives from others (the object's key, the bounds' keys): written, never given.
DERIVED_FACT_COLUMNS: tuple[str, ...] = ("object_key", "from_us", "to_us")
#: The fact columns a frame reads (every one but the object's key, which the object columns hold).
FACT_FRAME_COLUMNS: tuple[str, ...] = tuple(c for c in FACT_COLUMNS if c != "object_key")
#: The fact fields of a dump: every stored column but the derived ones, which a restore computes again.
DUMP_FACT_FIELDS: tuple[str, ...] = tuple(c for c in FACT_COLUMNS if c not in DERIVED_FACT_COLUMNS)
ENTITY_COLUMNS: tuple[str, ...] = ("id", "name", "type", "properties", "created_at")
ALIAS_COLUMNS: tuple[str, ...] = ("alias", "name", "entity_id")
MEMORY_COLUMNS: tuple[str, ...] = ("id", "text", "source", "created_at", "metadata")
NOT_DUPLICATE_COLUMNS: tuple[str, ...] = ("kind", "a", "b", "created_at")
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "facts": FACT_COLUMNS,
    "entities": ENTITY_COLUMNS,
    "aliases": ALIAS_COLUMNS,
    "memories": MEMORY_COLUMNS,
    "not_duplicates": NOT_DUPLICATE_COLUMNS,
}
#: The tables of a graph, in an order that satisfies their foreign keys when filled.
TABLES: tuple[str, ...] = (
    "settings",
    "entities",
    "facts",
    "aliases",
    "memories",
    "predicates",
    "predicate_aliases",
    "not_duplicates",
)

#: The columns of the one fact SELECT: what :class:`~kgtoolkit.Fact` is built from.
FACT_READ = """f.id, f.subject, s.name, f.predicate, COALESCE(f.object_id, f.object_value),
    COALESCE(o.name, f.object_value), f.object_id IS NULL, f.valid_from, f.valid_to, f.confidence,
    f.source, f.source_closet, f.recorded_at, f.invalidated_at, f.ended_by, f.occurrence"""
FACT_FROM = "facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id"
FACT_SELECT = f"SELECT {FACT_READ} FROM {FACT_FROM}"
#: Chronological order of ``valid_from`` (unknown starts last), then id.
ORDER = "ORDER BY f.valid_from IS NULL, f.from_us, f.id"

# Each entry migrates the schema from version i to i + 1. SQLite keeps the version in PRAGMA
# user_version; PostgreSQL in the kgtoolkit_schema table (which also holds the graph's identity).
_SQLITE: list[list[str]] = [
    [
        """CREATE TABLE entities (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL DEFAULT 'unknown',
            properties TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            subject TEXT NOT NULL REFERENCES entities(id),
            predicate TEXT NOT NULL,
            object_id TEXT REFERENCES entities(id),
            object_value TEXT,
            object_key TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            from_us INTEGER NOT NULL,
            to_us INTEGER NOT NULL,
            confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0.0 AND 1.0),
            source TEXT NOT NULL DEFAULT 'agent',
            source_closet TEXT,
            recorded_at TEXT NOT NULL,
            invalidated_at TEXT,
            ended_by TEXT,
            CHECK ((object_id IS NULL) <> (object_value IS NULL)),
            CHECK (to_us >= from_us)
        )""",
        # One current fact per (subject, predicate, object): the de-duplication rule, enforced.
        "CREATE UNIQUE INDEX facts_current ON facts(subject, predicate, object_key) WHERE valid_to IS NULL",
        "CREATE INDEX facts_subject ON facts(subject, predicate, from_us)",
        "CREATE INDEX facts_object ON facts(object_id, predicate) WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_predicate ON facts(predicate, object_key)",
        "CREATE INDEX facts_validity ON facts(from_us, to_us)",
        "CREATE INDEX facts_timeline ON facts(valid_from IS NULL, from_us)",
        """CREATE TABLE aliases (
            alias TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE
        )""",
        "CREATE INDEX aliases_entity ON aliases(entity_id)",
        """CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            source TEXT,
            created_at TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}'
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ],
    [
        # Fact ids are never reused (contract §1): AUTOINCREMENT keeps the largest id ever given in
        # sqlite_sequence, so a row a merge folded away leaves its id unused. SQLite cannot change a
        # table's key in place: a new table, the rows copied (ids kept), the old one dropped, the indexes again.
        """CREATE TABLE facts_v2 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            subject TEXT NOT NULL REFERENCES entities(id),
            predicate TEXT NOT NULL,
            object_id TEXT REFERENCES entities(id),
            object_value TEXT,
            object_key TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            from_us INTEGER NOT NULL,
            to_us INTEGER NOT NULL,
            confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0.0 AND 1.0),
            source TEXT NOT NULL DEFAULT 'agent',
            source_closet TEXT,
            recorded_at TEXT NOT NULL,
            invalidated_at TEXT,
            ended_by TEXT,
            CHECK ((object_id IS NULL) <> (object_value IS NULL)),
            CHECK (to_us >= from_us)
        )""",
        "INSERT INTO facts_v2 SELECT * FROM facts ORDER BY id",
        "DROP TABLE facts",
        "ALTER TABLE facts_v2 RENAME TO facts",
        # The indexes of the first step, again (a migration is history: written out, never derived).
        "CREATE UNIQUE INDEX facts_current ON facts(subject, predicate, object_key) WHERE valid_to IS NULL",
        "CREATE INDEX facts_subject ON facts(subject, predicate, from_us)",
        "CREATE INDEX facts_object ON facts(object_id, predicate) WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_predicate ON facts(predicate, object_key)",
        "CREATE INDEX facts_validity ON facts(from_us, to_us)",
        "CREATE INDEX facts_timeline ON facts(valid_from IS NULL, from_us)",
    ],
    [
        # Each predicate's label (its first spelling) and the predicate aliases (contract §13).
        "CREATE TABLE predicates (id TEXT PRIMARY KEY, label TEXT NOT NULL)",
        "INSERT INTO predicates(id, label) SELECT DISTINCT predicate, predicate FROM facts",
        "CREATE TABLE predicate_aliases (alias TEXT PRIMARY KEY, predicate TEXT NOT NULL)",
    ],
    # The pairs a person said are not the same (contract §14): ids in order, so a pair is stored once.
    [
        """CREATE TABLE not_duplicates (
            kind TEXT NOT NULL CHECK (kind IN ('entities', 'predicates')),
            a TEXT NOT NULL,
            b TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (kind, a, b),
            CHECK (a < b)
        )""",
    ],
    [
        # Multi-hop reads (contract §11) walk facts by either end: indexes that hold every column a hop reads
        # (both ends, the interval keys, the predicate), so a walk never reads the table's rows.
        "CREATE INDEX facts_walk_out ON facts(subject, object_id, to_us, from_us, predicate) "
        "WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_walk_in ON facts(object_id, subject, to_us, from_us, predicate) WHERE object_id IS NOT NULL",
        # diff (contract §11): the facts whose validity ended in a window.
        "CREATE INDEX facts_ended ON facts(to_us) WHERE valid_to IS NOT NULL",
    ],
    [
        # Lexical search (contract §15): the database's own full-text index of every fact's text (subject name,
        # predicate label, object: what search embeds) and every memory, kept by triggers so it is fresh after
        # every write. Porter-stemmed unicode61 words; a query word such as "INC-4821" is searched as the phrase
        # of its parts, so rare tokens stay findable. A fact's row is its id (ids are never reused).
        "CREATE VIRTUAL TABLE fact_search USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')",
        """CREATE TRIGGER fact_search_insert AFTER INSERT ON facts BEGIN
            INSERT INTO fact_search(rowid, text) VALUES (new.id,
                (SELECT name FROM entities WHERE id = new.subject) || ' '
                || replace(COALESCE((SELECT label FROM predicates WHERE id = new.predicate), new.predicate), '_', ' ')
                || ' ' || COALESCE((SELECT name FROM entities WHERE id = new.object_id), new.object_value));
        END""",
        """CREATE TRIGGER fact_search_update AFTER UPDATE OF subject, predicate, object_id, object_value ON facts BEGIN
            DELETE FROM fact_search WHERE rowid = old.id;
            INSERT INTO fact_search(rowid, text) VALUES (new.id,
                (SELECT name FROM entities WHERE id = new.subject) || ' '
                || replace(COALESCE((SELECT label FROM predicates WHERE id = new.predicate), new.predicate), '_', ' ')
                || ' ' || COALESCE((SELECT name FROM entities WHERE id = new.object_id), new.object_value));
        END""",
        "CREATE TRIGGER fact_search_delete AFTER DELETE ON facts BEGIN DELETE FROM fact_search WHERE rowid = old.id; END",
        """INSERT INTO fact_search(rowid, text)
            SELECT f.id, s.name || ' ' || replace(COALESCE(p.label, f.predicate), '_', ' ') || ' '
                   || COALESCE(o.name, f.object_value)
            FROM facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id
            LEFT JOIN predicates p ON p.id = f.predicate""",
        # Memories have text keys: the index holds the id beside the text (a memory is never deleted or changed
        # by kgtoolkit; the triggers keep the index right if another program does).
        "CREATE VIRTUAL TABLE memory_search USING fts5(id UNINDEXED, text, "
        "tokenize = 'porter unicode61 remove_diacritics 2')",
        "CREATE TRIGGER memory_search_insert AFTER INSERT ON memories BEGIN "
        "INSERT INTO memory_search(id, text) VALUES (new.id, new.text); END",
        "CREATE TRIGGER memory_search_update AFTER UPDATE OF id, text ON memories BEGIN "
        "DELETE FROM memory_search WHERE id = old.id; INSERT INTO memory_search(id, text) VALUES (new.id, new.text); END",
        "CREATE TRIGGER memory_search_delete AFTER DELETE ON memories BEGIN "
        "DELETE FROM memory_search WHERE id = old.id; END",
        "INSERT INTO memory_search(id, text) SELECT id, text FROM memories",
    ],
    [
        # Walks (contract §11) read current or as-of facts: the walk's indexes put the end key right after the
        # end they start from, so a hop seeks to the facts still valid instead of reading every ended one (a hub's
        # current facts in a third of the time on a graph where most facts ended).
        "DROP INDEX IF EXISTS facts_walk_out",
        "CREATE INDEX facts_walk_out ON facts(subject, to_us, object_id, from_us, predicate) WHERE object_id IS NOT NULL",
        "DROP INDEX IF EXISTS facts_walk_in",
        "CREATE INDEX facts_walk_in ON facts(object_id, to_us, subject, from_us, predicate) WHERE object_id IS NOT NULL",
    ],
    [
        # Search freshness (contract §15): what changed since a search index was written, kept by the database so
        # a write by any program is seen. New facts are the ids above the ones an index covers (ids are never
        # reused), new memories the rowids above its; the rare writes that change or remove a text already
        # embedded (a fact's subject, predicate or object; an entity's name; a memory's text; any delete) bump
        # the generation, in the write's own transaction. ``graph`` is a random name of this database: an index
        # of another graph at the same place never passes for this one's.
        """CREATE TABLE search_generation (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            graph TEXT NOT NULL,
            generation INTEGER NOT NULL
        )""",
        "INSERT INTO search_generation(id, graph, generation) VALUES (1, lower(hex(randomblob(16))), 0)",
        """CREATE TRIGGER search_fact_changed AFTER UPDATE OF subject, predicate, object_id, object_value ON facts
            WHEN old.subject IS NOT new.subject OR old.predicate IS NOT new.predicate
                OR old.object_id IS NOT new.object_id OR old.object_value IS NOT new.object_value
            BEGIN UPDATE search_generation SET generation = generation + 1; END""",
        "CREATE TRIGGER search_fact_deleted AFTER DELETE ON facts "
        "BEGIN UPDATE search_generation SET generation = generation + 1; END",
        """CREATE TRIGGER search_entity_changed AFTER UPDATE OF id, name ON entities
            WHEN old.id IS NOT new.id OR old.name IS NOT new.name
            BEGIN UPDATE search_generation SET generation = generation + 1; END""",
        "CREATE TRIGGER search_entity_deleted AFTER DELETE ON entities "
        "BEGIN UPDATE search_generation SET generation = generation + 1; END",
        """CREATE TRIGGER search_memory_changed AFTER UPDATE OF id, text ON memories
            WHEN old.id IS NOT new.id OR old.text IS NOT new.text
            BEGIN UPDATE search_generation SET generation = generation + 1; END""",
        "CREATE TRIGGER search_memory_deleted AFTER DELETE ON memories "
        "BEGIN UPDATE search_generation SET generation = generation + 1; END",
    ],
    [
        # Current means valid now (contract §4): the bounded facts still running, counted per predicate
        # (predicates_page) from this index alone; diff's range on to_us still uses it.
        "DROP INDEX IF EXISTS facts_ended",
        "CREATE INDEX facts_ended ON facts(to_us, from_us, predicate) WHERE valid_to IS NOT NULL",
    ],
    [
        # Lexical search after a big load (contract §15): a load of many facts leaves their full-text rows to the
        # first word search (or `kgtoolkit index`), which fills them in one statement. Each row is a range of fact
        # ids (lo, hi] that the full-text index may not hold yet; facts written since are indexed by the triggers.
        "CREATE TABLE fact_search_pending (lo INTEGER PRIMARY KEY, hi INTEGER NOT NULL, CHECK (lo < hi))",
    ],
    [
        # Repeated events (contract §12): each occurrence of an event is a row of its own, told apart by its ordinal
        # (1, 2, …), part of the event's identity beside its triple and bounds; every fact written before is the
        # first. A constant default: SQLite adds the column without rewriting the table. No index: the duplicate
        # checks find a fact by its triple and bounds (facts_subject) and the occurrence narrows the few rows there.
        "ALTER TABLE facts ADD COLUMN occurrence INTEGER NOT NULL DEFAULT 1 CHECK (occurrence >= 1)",
    ],
]

_POSTGRES: list[list[str]] = [
    [
        """CREATE TABLE entities (
            id TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL,
            type TEXT COLLATE "C" NOT NULL DEFAULT 'unknown',
            properties TEXT COLLATE "C" NOT NULL DEFAULT '{}',
            created_at TEXT COLLATE "C" NOT NULL
        )""",
        """CREATE TABLE facts (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            subject TEXT COLLATE "C" NOT NULL REFERENCES entities(id),
            predicate TEXT COLLATE "C" NOT NULL,
            object_id TEXT COLLATE "C" REFERENCES entities(id),
            object_value TEXT COLLATE "C",
            object_key TEXT COLLATE "C" NOT NULL,
            valid_from TEXT COLLATE "C",
            valid_to TEXT COLLATE "C",
            from_us BIGINT NOT NULL,
            to_us BIGINT NOT NULL,
            confidence DOUBLE PRECISION NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0.0 AND 1.0),
            source TEXT COLLATE "C" NOT NULL DEFAULT 'agent',
            source_closet TEXT COLLATE "C",
            recorded_at TEXT COLLATE "C" NOT NULL,
            invalidated_at TEXT COLLATE "C",
            ended_by TEXT COLLATE "C",
            CHECK ((object_id IS NULL) <> (object_value IS NULL)),
            CHECK (to_us >= from_us)
        )""",
        "CREATE UNIQUE INDEX facts_current ON facts(subject, predicate, object_key) WHERE valid_to IS NULL",
        "CREATE INDEX facts_subject ON facts(subject, predicate, from_us)",
        "CREATE INDEX facts_object ON facts(object_id, predicate) WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_predicate ON facts(predicate, object_key)",
        "CREATE INDEX facts_validity ON facts(from_us, to_us)",
        "CREATE INDEX facts_timeline ON facts((valid_from IS NULL), from_us)",
        """CREATE TABLE aliases (
            alias TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL,
            entity_id TEXT COLLATE "C" NOT NULL REFERENCES entities(id) ON DELETE CASCADE
        )""",
        "CREATE INDEX aliases_entity ON aliases(entity_id)",
        """CREATE TABLE memories (
            id TEXT COLLATE "C" PRIMARY KEY,
            text TEXT COLLATE "C" NOT NULL,
            source TEXT COLLATE "C",
            created_at TEXT COLLATE "C" NOT NULL,
            metadata TEXT COLLATE "C" NOT NULL DEFAULT '{}'
        )""",
        'CREATE TABLE settings (key TEXT COLLATE "C" PRIMARY KEY, value TEXT COLLATE "C" NOT NULL)',
        # The embedding cache of semantic search: in the database, so a team embeds each text once.
        """CREATE TABLE embeddings (
            model TEXT COLLATE "C" NOT NULL,
            hash BYTEA NOT NULL,
            vector BYTEA NOT NULL,
            PRIMARY KEY (model, hash)
        )""",
    ],
    # Fact ids: the identity column never gives an id twice already (sequences never go back); this
    # step keeps the two engines at the same version.
    [],
    [
        # Each predicate's label (its first spelling) and the predicate aliases (contract §13).
        'CREATE TABLE predicates (id TEXT COLLATE "C" PRIMARY KEY, label TEXT COLLATE "C" NOT NULL)',
        "INSERT INTO predicates(id, label) SELECT DISTINCT predicate, predicate FROM facts",
        'CREATE TABLE predicate_aliases (alias TEXT COLLATE "C" PRIMARY KEY, predicate TEXT COLLATE "C" NOT NULL)',
    ],
    [
        """CREATE TABLE not_duplicates (
            kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('entities', 'predicates')),
            a TEXT COLLATE "C" NOT NULL,
            b TEXT COLLATE "C" NOT NULL,
            created_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (kind, a, b),
            CHECK (a < b)
        )""",
    ],
    [
        # Multi-hop reads (contract §11): the walk's covering indexes, as for SQLite.
        "CREATE INDEX facts_walk_out ON facts(subject, object_id, to_us, from_us, predicate) "
        "WHERE object_id IS NOT NULL",
        "CREATE INDEX facts_walk_in ON facts(object_id, subject, to_us, from_us, predicate) WHERE object_id IS NOT NULL",
        # diff (contract §11): the facts whose validity ended in a window.
        "CREATE INDEX facts_ended ON facts(to_us) WHERE valid_to IS NOT NULL",
    ],
    [
        # Lexical search (contract §15): a tsvector of every fact's text (subject name, predicate label, object)
        # and of every memory, in tables of their own (a fact's text reads other tables, which a generated
        # column cannot), with GIN indexes, kept by triggers. English stemming, as SQLite's porter.
        "CREATE TABLE fact_search (fact_id BIGINT PRIMARY KEY, tsv TSVECTOR NOT NULL)",
        "CREATE INDEX fact_search_tsv ON fact_search USING gin (tsv)",
        """CREATE FUNCTION kgtoolkit_fact_search() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                DELETE FROM fact_search WHERE fact_id = OLD.id;
                RETURN NULL;
            END IF;
            INSERT INTO fact_search(fact_id, tsv) VALUES (NEW.id, to_tsvector('english',
                (SELECT name FROM entities WHERE id = NEW.subject) || ' '
                || replace(COALESCE((SELECT label FROM predicates WHERE id = NEW.predicate), NEW.predicate), '_', ' ')
                || ' ' || COALESCE((SELECT name FROM entities WHERE id = NEW.object_id), NEW.object_value)))
            ON CONFLICT (fact_id) DO UPDATE SET tsv = excluded.tsv;
            RETURN NULL;
        END $body$""",
        "CREATE TRIGGER fact_search_sync AFTER INSERT OR DELETE OR UPDATE OF subject, predicate, object_id, "
        "object_value ON facts FOR EACH ROW EXECUTE FUNCTION kgtoolkit_fact_search()",
        """INSERT INTO fact_search(fact_id, tsv)
            SELECT f.id, to_tsvector('english', s.name || ' ' || replace(COALESCE(p.label, f.predicate), '_', ' ')
                   || ' ' || COALESCE(o.name, f.object_value))
            FROM facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id
            LEFT JOIN predicates p ON p.id = f.predicate""",
        'CREATE TABLE memory_search (id TEXT COLLATE "C" PRIMARY KEY, tsv TSVECTOR NOT NULL)',
        "CREATE INDEX memory_search_tsv ON memory_search USING gin (tsv)",
        """CREATE FUNCTION kgtoolkit_memory_search() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                DELETE FROM memory_search WHERE id = OLD.id;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                INSERT INTO memory_search(id, tsv) VALUES (NEW.id, to_tsvector('english', NEW.text));
            END IF;
            RETURN NULL;
        END $body$""",
        "CREATE TRIGGER memory_search_sync AFTER INSERT OR DELETE OR UPDATE OF id, text ON memories "
        "FOR EACH ROW EXECUTE FUNCTION kgtoolkit_memory_search()",
        "INSERT INTO memory_search(id, tsv) SELECT id, to_tsvector('english', text) FROM memories",
    ],
    [
        # The walk's indexes with the end key second, as for SQLite.
        "DROP INDEX IF EXISTS facts_walk_out",
        "CREATE INDEX facts_walk_out ON facts(subject, to_us, object_id, from_us, predicate) WHERE object_id IS NOT NULL",
        "DROP INDEX IF EXISTS facts_walk_in",
        "CREATE INDEX facts_walk_in ON facts(object_id, to_us, subject, from_us, predicate) WHERE object_id IS NOT NULL",
    ],
    [
        # Search freshness, as for SQLite. Memories have no rowid here: ``seq`` orders them as they are added. The
        # generation is bumped once per statement (a merge moves many facts in one), in the write's transaction.
        """CREATE TABLE search_generation (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            graph TEXT COLLATE "C" NOT NULL,
            generation BIGINT NOT NULL
        )""",
        "INSERT INTO search_generation(id, graph, generation) VALUES (1, md5(random()::text || clock_timestamp()::text), 0)",
        """CREATE FUNCTION kgtoolkit_search_generation() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            UPDATE search_generation SET generation = generation + 1;
            RETURN NULL;
        END $body$""",
        "CREATE TRIGGER search_facts_changed AFTER DELETE OR TRUNCATE OR UPDATE OF subject, predicate, object_id, "
        "object_value ON facts FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_search_generation()",
        "CREATE TRIGGER search_entities_changed AFTER DELETE OR TRUNCATE OR UPDATE OF id, name ON entities "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_search_generation()",
        "CREATE TRIGGER search_memories_changed AFTER DELETE OR TRUNCATE OR UPDATE OF id, text ON memories "
        "FOR EACH STATEMENT EXECUTE FUNCTION kgtoolkit_search_generation()",
        "ALTER TABLE memories ADD COLUMN IF NOT EXISTS seq BIGINT GENERATED BY DEFAULT AS IDENTITY",
        "CREATE UNIQUE INDEX memories_seq ON memories(seq)",
    ],
    [
        # Current means valid now (contract §4): the bounded facts still running, counted per predicate
        # (predicates_page) from this index alone; diff's range on to_us still uses it.
        "DROP INDEX IF EXISTS facts_ended",
        "CREATE INDEX facts_ended ON facts(to_us, from_us, predicate) WHERE valid_to IS NOT NULL",
    ],
    [
        # Lexical search after a big load, as for SQLite.
        "CREATE TABLE fact_search_pending (lo BIGINT PRIMARY KEY, hi BIGINT NOT NULL, CHECK (lo < hi))",
    ],
    [
        # Repeated events, as for SQLite (a constant default: no rewrite of the table; the check reads it once).
        "ALTER TABLE facts ADD COLUMN occurrence INTEGER NOT NULL DEFAULT 1 CHECK (occurrence >= 1)",
    ],
]

# Rollups (contract §18): the counts analysis reads, kept by triggers as facts are written, filled from the facts there
# are (a graph of an earlier version gains them here). Their SQL is the event and renewal rules' own
# (._rollup_schema); a later change of those rules makes them again in a step of its own.
from ._rollup_schema import rollup_migration as _rollups_step  # noqa: E402 - after the lists: reads no name of this module

_SQLITE.append(_rollups_step("sqlite"))
_POSTGRES.append(_rollups_step("postgresql"))

# The rollup triggers made again: a triple's renewals are remade only when another fact shares the triple.
from ._rollup_schema import rollup_trigger_refresh as _triggers_step  # noqa: E402 - as above

_SQLITE.append(_triggers_step("sqlite"))
_POSTGRES.append(_triggers_step("postgresql"))

# The kept conflict judgement (contract §5, §18): its tables, empty until the next write judges every group, and the
# triggers that mark the groups of a changed fact (._conflict_schema).
from ._conflict_schema import conflict_migration as _conflicts_step  # noqa: E402 - as above

_SQLITE.append(_conflicts_step("sqlite"))
_POSTGRES.append(_conflicts_step("postgresql"))

# The facts of each (subject, predicate) pair and each entity's links (contract §18): what the most-changed ranking
# and the Graph page's ranking walk (._rollup_pairs).
from ._rollup_pairs import pairs_migration as _pairs_step  # noqa: E402 - as above

_SQLITE.append(_pairs_step("sqlite"))
_POSTGRES.append(_pairs_step("postgresql"))

# The rollup triggers made again: one grouped upsert per table for an update's old and new row together (the keys
# they agree on not written), and a triple's facts looked up by subject and predicate.
_SQLITE.append(_triggers_step("sqlite"))
_POSTGRES.append(_triggers_step("postgresql"))

#: The migrations of each engine: ``MIGRATIONS[kind][i]`` takes a graph from version i to i + 1.
MIGRATIONS: dict[str, list[list[str]]] = {"sqlite": _SQLITE, "postgresql": _POSTGRES}
SCHEMA_VERSION = len(_SQLITE)
assert len(_POSTGRES) == SCHEMA_VERSION, "every engine migrates to the same version"

#: The bulk path's fill of the full-text index (schema step 6): every fact with an id above ``:after`` indexed in
#: one statement, after a load that ran without the per-row trigger (see ``Backend.text_index_paused``; PostgreSQL's
#: first deletes any row of those ids, so the fill is a plain insert rather than one that checks each row for a conflict).
FACT_SEARCH_FILL: dict[str, str] = {
    "sqlite": """INSERT INTO fact_search(rowid, text)
        SELECT f.id, s.name || ' ' || replace(COALESCE(p.label, f.predicate), '_', ' ') || ' '
               || COALESCE(o.name, f.object_value)
        FROM facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id
        LEFT JOIN predicates p ON p.id = f.predicate WHERE f.id > :after AND f.id <= :upto""",
    "postgresql": """INSERT INTO fact_search(fact_id, tsv)
        SELECT f.id, to_tsvector('english', s.name || ' ' || replace(COALESCE(p.label, f.predicate), '_', ' ')
               || ' ' || COALESCE(o.name, f.object_value))
        FROM facts f JOIN entities s ON s.id = f.subject LEFT JOIN entities o ON o.id = f.object_id
        LEFT JOIN predicates p ON p.id = f.predicate WHERE f.id > :after AND f.id <= :upto""",
}

#: The indexes on ``facts`` (a big import into a small graph drops them and builds them after; see
#: ``Backend.fact_indexes_deferred``).
FACT_INDEXES: dict[str, list[str]] = {
    kind: list(
        {
            s.split(" INDEX ")[1].split()[0]: s
            for step in steps
            for s in step
            if " INDEX " in s.upper() and " ON facts(" in s
        }.values()
    )
    for kind, steps in MIGRATIONS.items()
}

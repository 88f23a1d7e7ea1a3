-- A smaller file at 100k memories (issue 16): what each memory costs on
-- disk beside its content.

-- 1. normalized_content is derived from content (text.NormalizeContent)
--    and only the duplicate repair read it, which now derives it. It was
--    as large as content itself.
ALTER TABLE memories DROP COLUMN normalized_content;

-- 2. A content hash (the SHA-256 of the normalized content) is stored as
--    its 32 bytes rather than 64 hex characters: in each memory, its
--    live-hash index entry, each vector row and the vectors' key (storage
--    reads and writes the hex text; hashkey.go). A hash that is not 64
--    lowercase hex characters stays the text it is. A vector row's
--    timestamp goes too (nothing read it): with both, seven int8 vectors
--    of 512 dimensions fit a page instead of six.
UPDATE memories SET content_hash = unhex(content_hash)
    WHERE typeof(content_hash) = 'text' AND length(content_hash) = 64 AND content_hash NOT GLOB '*[^0-9a-f]*';
UPDATE embeddings SET content_hash = unhex(content_hash)
    WHERE typeof(content_hash) = 'text' AND length(content_hash) = 64 AND content_hash NOT GLOB '*[^0-9a-f]*';
ALTER TABLE embeddings DROP COLUMN created_at;

-- 3. A "created" event no longer repeats the content its memory row holds:
--    new_content is NULL and reads show the row's content. Before the
--    row's content changes or the row is deleted, these triggers copy the
--    content it was created with back into the event (triggers at the
--    end), so the audit trail still shows what was created after an edit
--    or a purge.
UPDATE memory_history SET new_content = NULL
    WHERE event = 'created' AND new_content IS NOT NULL
    AND new_content = (SELECT m.content FROM memories m WHERE m.id = memory_history.memory_id);
-- One memory's events are a handful: finding them by memory_id alone and
-- sorting them costs nothing, and the index is a timestamp smaller a row.
DROP INDEX IF EXISTS idx_history_memory;
CREATE INDEX idx_history_memory ON memory_history(memory_id);
-- Events of one kind by time: "created" events, most of the trail, are
-- found through idx_history_created instead (historyEventCond), so this
-- index holds the others only.
DROP INDEX IF EXISTS idx_history_event;
CREATE INDEX idx_history_event ON memory_history(event, created_at) WHERE event <> 'created';

-- 4. Indexes of memories no query needs whole: none looks memories up by
--    extraction status (its jobs are found by id), and who and project
--    are only ever matched by value, which no NULL row can have.
DROP INDEX IF EXISTS idx_memories_extraction;
DROP INDEX IF EXISTS idx_memories_who;
CREATE INDEX idx_memories_who ON memories(who) WHERE who IS NOT NULL;
DROP INDEX IF EXISTS idx_memories_project;
CREATE INDEX idx_memories_project ON memories(project) WHERE project IS NOT NULL;

-- 5. Entity links by integer keys. A link was two 36-character UUIDs, a
--    timestamp and the same two UUIDs again in the entity index (about 230
--    bytes a link); now it is the memory's rid and the entity's rid. An
--    entity keeps its public id and gains an explicit rid (an INTEGER
--    PRIMARY KEY, which VACUUM never renumbers). memory_rid is not a
--    foreign key: retention removes a purged memory's links and counts
--    them off their entities, and a row deleted any other way takes its
--    links with it (trigger at the end), so a rid used again never
--    inherits links.
--
--    Links of memories that no longer exist cannot be keyed by a rid:
--    they are counted off their entities and dropped here, as retention
--    would have, and an entity left with no mention and no link goes
--    with its relations.
CREATE TEMP TABLE gone_links AS
    SELECT mm.entity_id AS entity_id, count(*) AS n FROM memory_entity_mentions mm
    WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = mm.memory_id)
    GROUP BY mm.entity_id;
DELETE FROM memory_entity_mentions
    WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_entity_mentions.memory_id);
UPDATE entities SET mentions = max(mentions - (SELECT g.n FROM gone_links g WHERE g.entity_id = entities.id), 0)
    WHERE id IN (SELECT entity_id FROM gone_links);
DELETE FROM relations WHERE source_entity_id IN (SELECT e.id FROM entities e
        WHERE e.id IN (SELECT entity_id FROM gone_links) AND e.mentions <= 0
        AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_id = e.id))
    OR target_entity_id IN (SELECT e.id FROM entities e
        WHERE e.id IN (SELECT entity_id FROM gone_links) AND e.mentions <= 0
        AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_id = e.id));
DELETE FROM entities WHERE id IN (SELECT entity_id FROM gone_links) AND mentions <= 0
    AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_id = entities.id);
DROP TABLE gone_links;

-- Renaming entities points the foreign keys of relations and the old
-- links at entities_old; both are rebuilt against the new table and the
-- old ones dropped before entities_old, so no cascade fires.
ALTER TABLE entities RENAME TO entities_old;
DROP INDEX IF EXISTS idx_entities_mentions;
CREATE TABLE entities (
    rid            INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    name           TEXT    NOT NULL,            -- first spelling seen
    canonical_name TEXT    NOT NULL UNIQUE,
    entity_type    TEXT    NOT NULL DEFAULT 'unknown',
    description    TEXT,
    mentions       INTEGER NOT NULL DEFAULT 0,  -- distinct memories linked
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
);
INSERT INTO entities (id, name, canonical_name, entity_type, description, mentions, created_at, updated_at)
    SELECT id, name, canonical_name, entity_type, description, mentions, created_at, updated_at
    FROM entities_old ORDER BY rowid;
CREATE INDEX idx_entities_mentions ON entities(mentions DESC);

CREATE TABLE relations_new (
    id               TEXT    PRIMARY KEY,
    source_entity_id TEXT    NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_entity_id TEXT    NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    relation_type    TEXT    NOT NULL,
    strength         REAL    NOT NULL DEFAULT 1.0,
    mentions         INTEGER NOT NULL DEFAULT 1,
    confidence       REAL    NOT NULL DEFAULT 0.5,  -- running average
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    UNIQUE (source_entity_id, target_entity_id, relation_type)
);
INSERT INTO relations_new (id, source_entity_id, target_entity_id, relation_type, strength, mentions, confidence, created_at, updated_at)
    SELECT id, source_entity_id, target_entity_id, relation_type, strength, mentions, confidence, created_at, updated_at
    FROM relations ORDER BY rowid;

-- A link's own timestamp is gone: nothing read it. entity_rid is not a
-- declared foreign key either: checking the entity at every link cost a
-- third of writing the links of an import, and links are only written
-- with a rid just read from entities; the trigger at the end deletes an
-- entity's links with it, as the cascade did.
CREATE TABLE memory_entity_mentions_new (
    memory_rid   INTEGER NOT NULL,            -- memories.rid
    entity_rid   INTEGER NOT NULL,            -- entities.rid
    mention_text TEXT,                        -- the spelling before canonicalization
    confidence   REAL,
    PRIMARY KEY (memory_rid, entity_rid)
) WITHOUT ROWID;
INSERT INTO memory_entity_mentions_new (memory_rid, entity_rid, mention_text, confidence)
    SELECT m.rid, e.rid, mm.mention_text, mm.confidence
    FROM memory_entity_mentions mm
    JOIN memories m ON m.id = mm.memory_id
    JOIN entities e ON e.id = mm.entity_id;

DROP TABLE memory_entity_mentions;
DROP TABLE relations;
DROP TABLE entities_old;
ALTER TABLE relations_new RENAME TO relations;
CREATE INDEX idx_relations_target ON relations(target_entity_id);
ALTER TABLE memory_entity_mentions_new RENAME TO memory_entity_mentions;
CREATE INDEX idx_mentions_entity ON memory_entity_mentions(entity_rid);

CREATE TRIGGER memories_history_created_au BEFORE UPDATE OF content ON memories
WHEN old.content IS NOT new.content BEGIN
    UPDATE memory_history SET new_content = old.content
        WHERE memory_id = old.id AND event = 'created' AND new_content IS NULL;
END;

CREATE TRIGGER memories_bd BEFORE DELETE ON memories BEGIN
    UPDATE memory_history SET new_content = old.content
        WHERE memory_id = old.id AND event = 'created' AND new_content IS NULL;
    UPDATE entities SET mentions = max(mentions - 1, 0)
        WHERE rid IN (SELECT entity_rid FROM memory_entity_mentions WHERE memory_rid = old.rid);
    DELETE FROM memory_entity_mentions WHERE memory_rid = old.rid;
END;

CREATE TRIGGER entities_ad AFTER DELETE ON entities BEGIN
    DELETE FROM memory_entity_mentions WHERE entity_rid = old.rid;
END;

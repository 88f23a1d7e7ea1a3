-- A smaller file at scale (100k memories).
--
-- idx_memories_created is the prefix of idx_memories_created_rid
-- (created_at DESC, rid DESC): every query it served is served by the
-- other, so it only cost space and a write per insert.
DROP INDEX IF EXISTS idx_memories_created;

-- memory_entity_mentions is keyed by (memory_id, entity_id): as a rowid
-- table it kept that key twice (the table and its automatic unique index,
-- about 70 bytes a mention). WITHOUT ROWID stores the rows in the key's
-- own B-tree.
CREATE TABLE memory_entity_mentions_new (
    memory_id    TEXT NOT NULL,
    entity_id    TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    mention_text TEXT,                -- the spelling before canonicalization
    confidence   REAL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (memory_id, entity_id)
) WITHOUT ROWID;
INSERT INTO memory_entity_mentions_new (memory_id, entity_id, mention_text, confidence, created_at)
    SELECT memory_id, entity_id, mention_text, confidence, created_at FROM memory_entity_mentions;
DROP TABLE memory_entity_mentions;
ALTER TABLE memory_entity_mentions_new RENAME TO memory_entity_mentions;
CREATE INDEX idx_mentions_entity ON memory_entity_mentions(entity_id);

-- Indexes on a time column declared DESC fill their pages half: rows come
-- in time order, so each new key lands at the B-tree's left edge and every
-- split leaves a half-empty page behind. SQLite walks an ascending index
-- backwards at no cost for ORDER BY ... DESC, so these are ascending now.
DROP INDEX IF EXISTS idx_memories_created_rid;
CREATE INDEX idx_memories_created_rid ON memories(created_at, rid);
DROP INDEX IF EXISTS idx_memories_updated;
CREATE INDEX idx_memories_updated ON memories(updated_at);
DROP INDEX IF EXISTS idx_history_created;
CREATE INDEX idx_history_created ON memory_history(created_at);
DROP INDEX IF EXISTS idx_history_event;
CREATE INDEX idx_history_event ON memory_history(event, created_at);
DROP INDEX IF EXISTS idx_sessions_started;
CREATE INDEX idx_sessions_started ON sessions(started_at);
DROP INDEX IF EXISTS idx_documents_status;
CREATE INDEX idx_documents_status ON documents(status, created_at);
DROP INDEX IF EXISTS idx_documents_created;
CREATE INDEX idx_documents_created ON documents(created_at);

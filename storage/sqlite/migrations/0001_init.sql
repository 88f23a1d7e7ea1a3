-- cairn schema, version 1: memories with their full-text index, embeddings,
-- the audit trail and the job queue.

-- rid is an explicit INTEGER PRIMARY KEY so the FTS index's content_rowid can
-- never be renumbered by VACUUM; id is the public UUID (v7, time-ordered).
CREATE TABLE memories (
    rid                INTEGER PRIMARY KEY,
    id                 TEXT    NOT NULL UNIQUE,
    type               TEXT    NOT NULL DEFAULT 'fact',
    category           TEXT,
    content            TEXT    NOT NULL,
    normalized_content TEXT    NOT NULL,
    content_hash       TEXT    NOT NULL,
    confidence         REAL    NOT NULL DEFAULT 1.0,
    importance         REAL    NOT NULL DEFAULT 0.8,
    source_id          TEXT,
    source_type        TEXT    NOT NULL DEFAULT 'manual',
    tags               TEXT    NOT NULL DEFAULT '[]',  -- JSON array of strings
    who                TEXT,
    why                TEXT,
    project            TEXT,
    session_id         TEXT,
    created_at         TEXT    NOT NULL,
    updated_at         TEXT    NOT NULL,
    updated_by         TEXT    NOT NULL DEFAULT 'system',
    last_accessed      TEXT,
    access_count       INTEGER NOT NULL DEFAULT 0,
    vector_clock       TEXT    NOT NULL DEFAULT '{}',
    version            INTEGER NOT NULL DEFAULT 1,
    manual_override    INTEGER NOT NULL DEFAULT 0,
    pinned             INTEGER NOT NULL DEFAULT 0,
    is_deleted         INTEGER NOT NULL DEFAULT 0,
    deleted_at         TEXT,
    extraction_status  TEXT    NOT NULL DEFAULT 'none',
    embedding_model    TEXT,
    extraction_model   TEXT,
    update_count       INTEGER NOT NULL DEFAULT 0,
    idempotency_key    TEXT,
    runtime_path       TEXT,
    source_path        TEXT,
    source_section     TEXT,
    CHECK (importance >= 0 AND importance <= 1),
    CHECK (confidence >= 0 AND confidence <= 1),
    CHECK (pinned IN (0, 1) AND is_deleted IN (0, 1)),
    CHECK (version >= 1)
);

CREATE INDEX idx_memories_type       ON memories(type);
CREATE INDEX idx_memories_project    ON memories(project);
CREATE INDEX idx_memories_pinned     ON memories(pinned);
CREATE INDEX idx_memories_importance ON memories(importance DESC);
CREATE INDEX idx_memories_created    ON memories(created_at DESC);
CREATE INDEX idx_memories_updated    ON memories(updated_at DESC);
CREATE INDEX idx_memories_who        ON memories(who);
CREATE INDEX idx_memories_source     ON memories(source_type, source_id);
CREATE INDEX idx_memories_extraction ON memories(extraction_status);
CREATE INDEX idx_memories_deleted_at ON memories(deleted_at) WHERE is_deleted = 1;
-- Exact-content dedup among live rows, per project (a fact remembered in one
-- project does not silently hide in another).
CREATE UNIQUE INDEX idx_memories_hash_live
    ON memories(content_hash, COALESCE(project, '')) WHERE is_deleted = 0;
CREATE UNIQUE INDEX idx_memories_idempotency
    ON memories(idempotency_key) WHERE idempotency_key IS NOT NULL AND is_deleted = 0;

-- External-content FTS5 index over memories.content. Porter stemming on top of
-- unicode61 measured clearly better than plain unicode61 on conversational
-- recall; remove_diacritics 2 lets "creme" find "crème".
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content,
    content = 'memories',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content) VALUES (new.rid, new.content);
END;

CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.rid, old.content);
END;

-- Only a change of content re-indexes: access counts, pins and soft deletes
-- leave the index alone (deleted rows are filtered by the join at query time).
CREATE TRIGGER memories_au AFTER UPDATE OF content ON memories
WHEN old.content IS NOT new.content BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    INSERT INTO memories_fts(rowid, content) VALUES (new.rid, new.content);
END;

-- One vector per distinct content hash and model (float32 little-endian).
-- A rowid table on purpose: its leaf pages hold a 2 KiB vector inline,
-- while a WITHOUT ROWID table (an index b-tree) spills every vector to
-- overflow pages, which made loading 100k vectors take seconds.
CREATE TABLE embeddings (
    id           INTEGER PRIMARY KEY,
    content_hash TEXT    NOT NULL,
    model        TEXT    NOT NULL,
    dimensions   INTEGER NOT NULL,
    vector       BLOB    NOT NULL,
    created_at   TEXT    NOT NULL,
    UNIQUE (content_hash, model)
);

-- The audit trail. memory_id is not a foreign key on purpose: history
-- outlives purged tombstones, and system events use memory_id = 'system'.
CREATE TABLE memory_history (
    id          TEXT PRIMARY KEY,
    memory_id   TEXT NOT NULL,
    event       TEXT NOT NULL,
    old_content TEXT,
    new_content TEXT,
    changed_by  TEXT NOT NULL,
    actor_type  TEXT NOT NULL DEFAULT 'operator',
    reason      TEXT,
    metadata    TEXT,
    session_id  TEXT,
    request_id  TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX idx_history_memory  ON memory_history(memory_id, created_at);
CREATE INDEX idx_history_created ON memory_history(created_at DESC);
CREATE INDEX idx_history_event   ON memory_history(event, created_at DESC);

-- The durable job queue shared by the pipeline workers.
CREATE TABLE memory_jobs (
    id              TEXT PRIMARY KEY,
    memory_id       TEXT,
    document_id     TEXT,
    job_type        TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending',
    payload         TEXT,
    result          TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    max_attempts    INTEGER NOT NULL DEFAULT 3,
    next_attempt_at TEXT,
    leased_at       TEXT,
    lease_owner     TEXT,
    completed_at    TEXT,
    failed_at       TEXT,
    error           TEXT,
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL,
    CHECK (status IN ('pending', 'leased', 'completed', 'failed', 'dead'))
);
CREATE INDEX idx_jobs_status  ON memory_jobs(status, job_type, created_at);
CREATE INDEX idx_jobs_memory  ON memory_jobs(memory_id);
CREATE INDEX idx_jobs_updated ON memory_jobs(status, updated_at);
-- Enqueue dedup: at most one live job of a type per memory.
CREATE UNIQUE INDEX idx_jobs_live ON memory_jobs(memory_id, job_type)
    WHERE status IN ('pending', 'leased') AND memory_id IS NOT NULL;

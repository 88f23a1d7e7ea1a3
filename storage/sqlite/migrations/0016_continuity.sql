-- Session continuity (seed 003): checkpoints of a session's state, so a
-- session that is compacted, resumed or restarted after a crash gets its
-- thread back; what was injected into each session and the later signs
-- that it was used; and a score per session of how useful the injected
-- memories were.
CREATE TABLE session_checkpoints (
    id               TEXT    PRIMARY KEY,
    session_key      TEXT    NOT NULL,
    harness          TEXT    NOT NULL,
    project          TEXT,
    trigger          TEXT    NOT NULL,
    digest           TEXT    NOT NULL,
    prompt_count     INTEGER NOT NULL DEFAULT 0,
    memory_queries   TEXT    NOT NULL DEFAULT '[]',   -- JSON array
    recent_remembers TEXT    NOT NULL DEFAULT '[]',   -- JSON array
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    CHECK (trigger IN ('periodic', 'pre_compaction', 'session_end', 'agent', 'explicit'))
);
CREATE INDEX idx_checkpoints_session ON session_checkpoints(session_key, created_at);
CREATE INDEX idx_checkpoints_project ON session_checkpoints(project, created_at);
CREATE INDEX idx_checkpoints_created ON session_checkpoints(created_at);

CREATE TABLE session_memories (
    session_key  TEXT    NOT NULL,
    memory_id    TEXT    NOT NULL,
    source       TEXT    NOT NULL,                -- session_start or prompt: where it was first offered
    rank         INTEGER NOT NULL,                -- its rank there (0 first)
    score        REAL    NOT NULL DEFAULT 0,
    was_injected INTEGER NOT NULL DEFAULT 1,
    uses         INTEGER NOT NULL DEFAULT 0,      -- later signs of use: prompts, the transcript, recalls
    relevance    REAL,                            -- set when the session is scored
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL,
    PRIMARY KEY (session_key, memory_id)
) WITHOUT ROWID;
CREATE INDEX idx_session_memories_memory ON session_memories(memory_id);

CREATE TABLE session_scores (
    session_key         TEXT    PRIMARY KEY,
    project             TEXT,
    harness             TEXT    NOT NULL,
    score               REAL    NOT NULL,
    confidence          REAL    NOT NULL,
    memories_recalled   INTEGER NOT NULL,
    memories_used       INTEGER NOT NULL,
    novel_context_count INTEGER NOT NULL DEFAULT 0,
    method              TEXT    NOT NULL,         -- heuristic or the LLM provider's name
    reasoning           TEXT,
    created_at          TEXT    NOT NULL
);

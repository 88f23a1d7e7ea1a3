-- Agent sessions seen through the hooks: when each started and ended, how
-- many prompts it sent, its transcript (normalized, cairn's own injected
-- blocks stripped) and which memories were injected into which prompt, so
-- a memory is not injected again within the dedup window.
CREATE TABLE sessions (
    key            TEXT    PRIMARY KEY,
    harness        TEXT    NOT NULL,
    project        TEXT,
    started_at     TEXT    NOT NULL,
    ended_at       TEXT,
    end_reason     TEXT,
    prompt_count   INTEGER NOT NULL DEFAULT 0,
    last_prompt_at TEXT
);

CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_sessions_project ON sessions(project);

CREATE TABLE session_transcripts (
    session_key    TEXT    PRIMARY KEY,
    content        TEXT    NOT NULL,
    format         TEXT    NOT NULL,  -- claude-code, codex, jsonl, text
    harness        TEXT    NOT NULL,
    project        TEXT,
    source_bytes   INTEGER NOT NULL DEFAULT 0,
    truncated      INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT    NOT NULL
);

CREATE TABLE session_injections (
    session_key    TEXT    NOT NULL,
    memory_id      TEXT    NOT NULL,
    injected_at    TEXT    NOT NULL,
    prompt_no      INTEGER NOT NULL,
    PRIMARY KEY (session_key, memory_id, prompt_no)
);

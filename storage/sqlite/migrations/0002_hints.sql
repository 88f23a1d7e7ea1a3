-- Prospective indexing (seed 003 "Hints"): questions a memory could answer,
-- searched in their own full-text index and merged with the content match
-- by max, so a hint can lift its memory but never double-count.
CREATE TABLE memory_hints (
    id         INTEGER PRIMARY KEY,
    memory_id  TEXT NOT NULL,
    hint       TEXT NOT NULL,
    source     TEXT NOT NULL,          -- heuristic, or the LLM provider's name
    created_at TEXT NOT NULL
);
CREATE INDEX idx_hints_memory ON memory_hints(memory_id);

CREATE VIRTUAL TABLE memory_hints_fts USING fts5(
    hint,
    content = 'memory_hints',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memory_hints_ai AFTER INSERT ON memory_hints BEGIN
    INSERT INTO memory_hints_fts(rowid, hint) VALUES (new.id, new.hint);
END;

CREATE TRIGGER memory_hints_ad AFTER DELETE ON memory_hints BEGIN
    INSERT INTO memory_hints_fts(memory_hints_fts, rowid, hint) VALUES ('delete', old.id, old.hint);
END;

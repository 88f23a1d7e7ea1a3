-- Connectors (seed 001): sources cairn keeps in step with, such as a
-- folder of notes. Each file a connector ingested is one document; the
-- files table says which, so a changed file replaces its document and a
-- removed one takes its document with it.
CREATE TABLE connectors (
    id            TEXT PRIMARY KEY,
    provider      TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    config        TEXT NOT NULL,               -- JSON object
    cursor        TEXT,                        -- JSON object: where the last sync left off
    status        TEXT NOT NULL DEFAULT 'idle',
    last_sync_at  TEXT,
    last_error    TEXT,
    last_error_at TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    CHECK (status IN ('idle', 'syncing', 'error'))
);
CREATE INDEX idx_connectors_provider ON connectors(provider);

CREATE TABLE connector_files (
    connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
    path         TEXT NOT NULL,                -- relative to the connector's root, '/'-separated
    size         INTEGER NOT NULL,
    mtime        TEXT NOT NULL,
    hash         TEXT NOT NULL,                -- sha256 of the content
    document_id  TEXT NOT NULL,
    PRIMARY KEY (connector_id, path)
) WITHOUT ROWID;

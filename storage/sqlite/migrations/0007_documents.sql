-- Documents: long text, URLs and files ingested by the document worker.
-- A document is queued, then moves through extracting → chunking →
-- embedding → indexing → done (or failed); each chunk becomes a memory of
-- type document_chunk, linked here by its position.
CREATE TABLE documents (
    id           TEXT    PRIMARY KEY,
    source_type  TEXT    NOT NULL,
    source_url   TEXT,
    title        TEXT,
    content_type TEXT,
    content      TEXT,              -- the text: given (text) or fetched (url)
    connector_id TEXT,
    metadata     TEXT,              -- JSON object, as given
    status       TEXT    NOT NULL DEFAULT 'queued',
    error        TEXT,
    chunk_count  INTEGER NOT NULL DEFAULT 0,
    bytes        INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL,
    completed_at TEXT,
    CHECK (source_type IN ('text', 'url', 'file')),
    CHECK (status IN ('queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed', 'deleted'))
);
CREATE INDEX idx_documents_status    ON documents(status, created_at DESC);
CREATE INDEX idx_documents_created   ON documents(created_at DESC);
CREATE INDEX idx_documents_connector ON documents(connector_id) WHERE connector_id IS NOT NULL;
-- Dedup by URL among documents that are neither failed nor deleted.
CREATE INDEX idx_documents_url       ON documents(source_url) WHERE source_url IS NOT NULL;

CREATE TABLE document_memories (
    document_id TEXT    NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    memory_id   TEXT    NOT NULL,
    chunk_index INTEGER NOT NULL,
    PRIMARY KEY (document_id, chunk_index)
);
CREATE INDEX idx_document_memories_memory ON document_memories(memory_id);

-- Document jobs are found by their document.
CREATE INDEX idx_jobs_document ON memory_jobs(document_id) WHERE document_id IS NOT NULL;

-- Pipeline V2: the proposals the extraction pipeline records (shadow mode,
-- blocked or flagged for review), each reviewable by an operator, and an
-- index for leasing jobs fairly across job types.
CREATE TABLE pipeline_proposals (
    id                 TEXT    PRIMARY KEY,
    job_id             TEXT,
    source_memory_id   TEXT    NOT NULL,
    action             TEXT    NOT NULL,
    fact               TEXT    NOT NULL,
    fact_type          TEXT    NOT NULL DEFAULT 'fact',
    confidence         REAL    NOT NULL DEFAULT 0,
    target_memory_id   TEXT,
    target_version     INTEGER,
    reason             TEXT,
    state              TEXT    NOT NULL DEFAULT 'pending',
    shadow             INTEGER NOT NULL DEFAULT 0,
    blocked            INTEGER NOT NULL DEFAULT 0,
    blocked_reason     TEXT,
    skipped_reason     TEXT,
    review_needed      INTEGER NOT NULL DEFAULT 0,
    contradiction_risk INTEGER NOT NULL DEFAULT 0,
    applied_memory_id  TEXT,
    decided_by         TEXT,
    decided_at         TEXT,
    decision_reason    TEXT,
    created_at         TEXT    NOT NULL,
    updated_at         TEXT    NOT NULL,
    CHECK (action IN ('add', 'update', 'delete', 'none')),
    CHECK (state IN ('pending', 'approved', 'rejected', 'applied', 'skipped'))
);
CREATE INDEX idx_proposals_state  ON pipeline_proposals(state, created_at);
CREATE INDEX idx_proposals_source ON pipeline_proposals(source_memory_id);
CREATE INDEX idx_proposals_job    ON pipeline_proposals(job_id);

-- Leasing: the due pending jobs of a type, oldest first, and the most
-- recent lease of each type (the least recently served type goes first).
CREATE INDEX idx_jobs_due   ON memory_jobs(status, job_type, next_attempt_at, created_at);
CREATE INDEX idx_jobs_lease ON memory_jobs(job_type, leased_at);

-- The pipeline proposes a fact once: a pending proposal with the same fact,
-- or any earlier proposal of the same source, means it is not proposed
-- again (the index serves that lookup). A session's transcript remembers
-- how much of it was extracted (its length and the hash of that prefix), so
-- a resumed session's next extraction reads only the turns added since.
CREATE INDEX idx_proposals_fact ON pipeline_proposals(fact);
ALTER TABLE session_transcripts ADD COLUMN extracted_chars INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_transcripts ADD COLUMN extracted_hash  TEXT    NOT NULL DEFAULT '';

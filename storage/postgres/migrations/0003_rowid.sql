-- Insertion order where storage's queries read SQLite's implicit rowid
-- of a table whose key is text: the ties of history, jobs and proposals
-- listed newest first (ORDER BY created_at DESC, rowid DESC), and
-- retention's batched deletes (WHERE rowid IN (SELECT rowid ...)). A
-- column of that name keeps those queries as they are.
ALTER TABLE memory_history     ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;
ALTER TABLE memory_jobs        ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;
ALTER TABLE pipeline_proposals ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;

-- Memory that evolves (seeds 002 and 004): a fact stated again reinforces
-- the memory that holds it instead of being dropped silently; a keyed fact
-- ("timezone", "staging.db.port") has one live value per project, and a
-- new value supersedes the old one, which stays reachable from its
-- successor and can be restored.
ALTER TABLE memories ADD COLUMN memory_key TEXT;          -- normalized key, NULL for unkeyed memories
ALTER TABLE memories ADD COLUMN superseded_by TEXT;       -- the memory that replaced this one
ALTER TABLE memories ADD COLUMN reinforced_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN last_confirmed_at TEXT;   -- the last time it was stated (created or reinforced)

CREATE INDEX idx_memories_key ON memories(memory_key, project) WHERE memory_key IS NOT NULL AND is_deleted = 0;
CREATE INDEX idx_memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL;

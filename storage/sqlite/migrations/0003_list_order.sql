-- Lists are ordered newest first with rid breaking ties; without an index
-- on exactly that order every page sorted the whole table (272 ms at 100k
-- memories, 0.35 ms with it).
CREATE INDEX idx_memories_created_rid ON memories(created_at DESC, rid DESC);

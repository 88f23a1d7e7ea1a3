-- Paged lists filtered by type or by project (the terminal UI's list of a
-- project's memories, newest first). A page reads an index from a cursor
-- (created_at, rid); with an index on the filter column alone, SQLite read
-- every memory of that type or project and sorted them for each page
-- (a quarter to two thirds of a second at 100k memories). These indexes
-- hold the list's order after the filter column, so a page walks one
-- index from the cursor. The type index is their prefix and goes; the
-- project one stays: it reads a project's memories in row order (a
-- project's remap) without sorting them.
DROP INDEX IF EXISTS idx_memories_type;
CREATE INDEX idx_memories_type_created ON memories(type, created_at, rid);
CREATE INDEX idx_memories_project_created ON memories(project, created_at, rid) WHERE project IS NOT NULL;
-- The list of forgotten memories, newest first: without it a page walked
-- every live memory to find the few tombstones.
CREATE INDEX idx_memories_deleted_created ON memories(created_at, rid) WHERE is_deleted = 1;

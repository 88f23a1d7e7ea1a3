-- SQLite's migration 0025: paged lists filtered by type or project, and
-- the list of forgotten memories, walk an index in the list's order
-- (created_at, rid) from the page's cursor.
DROP INDEX IF EXISTS idx_memories_type;
CREATE INDEX idx_memories_type_created ON memories(type, created_at, rid);
CREATE INDEX idx_memories_project_created ON memories(project, created_at, rid) WHERE project IS NOT NULL;
CREATE INDEX idx_memories_deleted_created ON memories(created_at, rid) WHERE is_deleted = 1;

-- Memory that evolves, continued (seeds 002 and 003).
--
-- Entity aspects and attributes: what the linker reads from a statement
-- ("staging runs Postgres 14": entity staging, aspect versions, attribute
-- postgres version, value 14). Entities are named by their canonical name,
-- as in the graph. A newer value of the same entity and attribute in the
-- same project and scope supersedes the older one: its row becomes
-- 'superseded' and points to the memory that replaced it.
CREATE TABLE entity_aspects (
    id         TEXT PRIMARY KEY,
    entity     TEXT NOT NULL,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (entity, name)
);

CREATE TABLE entity_attributes (
    id            TEXT PRIMARY KEY,
    memory_id     TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    slot          TEXT NOT NULL DEFAULT '',   -- the project, or the user or agent scope, it holds in
    entity        TEXT NOT NULL,
    aspect_id     TEXT REFERENCES entity_aspects(id),
    name          TEXT NOT NULL,
    value         TEXT NOT NULL,
    kind          TEXT NOT NULL DEFAULT 'attribute' CHECK (kind IN ('attribute', 'constraint')),
    status        TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'superseded')),
    superseded_by TEXT,                       -- the memory holding the newer value
    created_at    TEXT NOT NULL
);
CREATE INDEX idx_entity_attributes_slot ON entity_attributes(slot, entity, name) WHERE status = 'live';
CREATE INDEX idx_entity_attributes_value ON entity_attributes(slot, value) WHERE status = 'live';
CREATE INDEX idx_entity_attributes_memory ON entity_attributes(memory_id);

-- Scopes (seed 002): NULL is the project scope; 'user' follows the user
-- into every project; 'agent' belongs to the agent that wrote it (who).
ALTER TABLE memories ADD COLUMN scope TEXT CHECK (scope IN ('user', 'agent'));
CREATE INDEX idx_memories_scope ON memories(scope, who) WHERE scope IS NOT NULL AND is_deleted = 0;

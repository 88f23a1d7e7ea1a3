-- Knowledge graph: entities named in memories (deduplicated by canonical
-- name: trimmed, lower-cased, whitespace collapsed), typed relations between
-- them, and which memories mention which entities. An augmentation layer:
-- recall works without it, and extraction never fails because of it.
CREATE TABLE entities (
    id             TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,            -- first spelling seen
    canonical_name TEXT    NOT NULL UNIQUE,
    entity_type    TEXT    NOT NULL DEFAULT 'unknown',
    description    TEXT,
    mentions       INTEGER NOT NULL DEFAULT 0,  -- distinct memories linked
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
);
CREATE INDEX idx_entities_mentions ON entities(mentions DESC);

CREATE TABLE relations (
    id               TEXT    PRIMARY KEY,
    source_entity_id TEXT    NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_entity_id TEXT    NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    relation_type    TEXT    NOT NULL,
    strength         REAL    NOT NULL DEFAULT 1.0,
    mentions         INTEGER NOT NULL DEFAULT 1,
    confidence       REAL    NOT NULL DEFAULT 0.5,  -- running average
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    UNIQUE (source_entity_id, target_entity_id, relation_type)
);
CREATE INDEX idx_relations_target ON relations(target_entity_id);

CREATE TABLE memory_entity_mentions (
    memory_id    TEXT NOT NULL,
    entity_id    TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    mention_text TEXT,                -- the spelling before canonicalization
    confidence   REAL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (memory_id, entity_id)
);
CREATE INDEX idx_mentions_entity ON memory_entity_mentions(entity_id);

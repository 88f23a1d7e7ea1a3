-- Aspect feedback (seed 003): a weight per entity aspect. Memories
-- confirmed as used in a scored session raise the weight of their aspects
-- (by feedback.weight_delta per confirmation, up to feedback.max_weight);
-- aspects not confirmed for feedback.stale_days decay toward
-- feedback.min_weight. New aspects start at 0.5, the middle.
ALTER TABLE entity_aspects ADD COLUMN weight REAL NOT NULL DEFAULT 0.5;
-- How many confirmations the aspect has had, and the last one (NULL:
-- never confirmed; its age is then counted from created_at).
ALTER TABLE entity_aspects ADD COLUMN confirmations INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entity_aspects ADD COLUMN confirmed_at TEXT;

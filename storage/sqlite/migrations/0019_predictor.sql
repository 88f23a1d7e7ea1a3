-- The learned ranker (seed 003's predictor): what recall knew of each
-- memory offered to a session (its features, as a JSON array), so scored
-- sessions become training data; and the model, with its quality, in one
-- row.
ALTER TABLE session_memories ADD COLUMN features TEXT;
-- The prompt the memory was first offered with (0: session start): the
-- memories offered together are ranked against each other.
ALTER TABLE session_memories ADD COLUMN offer_group INTEGER NOT NULL DEFAULT 0;

CREATE TABLE predictor_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    state      TEXT    NOT NULL,   -- JSON: weights per source, training and quality figures
    updated_at TEXT    NOT NULL
);

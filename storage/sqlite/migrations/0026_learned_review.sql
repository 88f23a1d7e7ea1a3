-- Reviewing what cairn learned (issue 34): the TUI shows the memories
-- learned from sessions since the person last looked, and each is kept,
-- edited or dropped.
--
-- settings holds small values of the store by key; "learned.seen_through"
-- is the creation time of the newest learned memory the person has seen
-- (what is learned later is new).
CREATE TABLE settings (
    key        TEXT NOT NULL PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
) WITHOUT ROWID;

-- learned_reviews are the learned memories kept since then (reviewed, left
-- as they are); the rows go when seen_through passes them.
CREATE TABLE learned_reviews (
    memory_id   TEXT NOT NULL PRIMARY KEY,
    reviewed_at TEXT NOT NULL
) WITHOUT ROWID;

-- SQLite's migration 0026: small settings of the store by key (the newest
-- learned memory the person has seen), and the learned memories kept since.
CREATE TABLE settings (
    key        TEXT NOT NULL PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE learned_reviews (
    memory_id   TEXT NOT NULL PRIMARY KEY,
    reviewed_at TEXT NOT NULL
);

-- Diagnostics reads the number of rows and tombstones on every poll. Counting
-- tombstones walks an index entry by entry (milliseconds at 100k rows), so
-- the two counts are kept in one row by triggers and read in O(1).
CREATE TABLE memory_counts (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    total   INTEGER NOT NULL,
    deleted INTEGER NOT NULL
);
INSERT INTO memory_counts (id, total, deleted)
    SELECT 1, count(*), COALESCE(sum(is_deleted), 0) FROM memories;

CREATE TRIGGER memory_counts_ai AFTER INSERT ON memories BEGIN
    UPDATE memory_counts SET total = total + 1, deleted = deleted + new.is_deleted WHERE id = 1;
END;

CREATE TRIGGER memory_counts_ad AFTER DELETE ON memories BEGIN
    UPDATE memory_counts SET total = total - 1, deleted = deleted - old.is_deleted WHERE id = 1;
END;

CREATE TRIGGER memory_counts_au AFTER UPDATE OF is_deleted ON memories
WHEN old.is_deleted IS NOT new.is_deleted BEGIN
    UPDATE memory_counts SET deleted = deleted + new.is_deleted - old.is_deleted WHERE id = 1;
END;

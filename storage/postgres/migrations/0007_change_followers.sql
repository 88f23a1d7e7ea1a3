-- PostgreSQL only: each server's follower of the change feed (0002)
-- records its cursor here, with when it last did, and the log below the
-- oldest cursor of the followers seen within the live window is pruned
-- (DB.Beat, DB.PruneFollowed). A follower not seen for a day is dropped.
CREATE TABLE memory_changes_followers (
    id         TEXT        NOT NULL PRIMARY KEY,
    cursor_xid xid8        NOT NULL,
    seen_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

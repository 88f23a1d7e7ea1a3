-- The change feed (storage/doc.go): every insert, update and delete of a
-- memories row is logged here by a trigger, in the transaction that made
-- it, whichever server or statement made it; each statement that logged
-- rows notifies the channel cairn_memory_changes once, delivered at
-- commit. A follower reads the log from a cursor (changes.go).
--
-- xid is the writing transaction's id. Sequence values are handed out in
-- insert order, not commit order, so a follower cannot safely skip past a
-- seq: a smaller one may still commit. It reads instead by transaction
-- id below its snapshot's xmin, where every transaction has ended.
CREATE TABLE memory_changes (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    xid xid8   NOT NULL DEFAULT pg_current_xact_id(),
    rid BIGINT NOT NULL
);
CREATE INDEX idx_memory_changes_xid ON memory_changes(xid);

CREATE FUNCTION cairn_memory_changes_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO memory_changes (rid) VALUES (OLD.rid);
    ELSE
        INSERT INTO memory_changes (rid) VALUES (NEW.rid);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER memory_changes_row AFTER INSERT OR UPDATE OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION cairn_memory_changes_row();

-- One notification a statement; PostgreSQL folds identical ones of a
-- transaction into one.
CREATE FUNCTION cairn_memory_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cairn_memory_changes', '');
    RETURN NULL;
END $$;
CREATE TRIGGER memory_changes_notify AFTER INSERT OR UPDATE OR DELETE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_memory_changes_notify();

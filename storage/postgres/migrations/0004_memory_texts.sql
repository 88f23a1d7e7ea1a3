-- What storage reads to index a memory in memory (MemoryTexts): its
-- content and its predecessor's, the context it is indexed with. On
-- SQLite this view is also the FTS5 index's external content; here it is
-- only the view.
CREATE VIEW memories_fts_source AS
    SELECT m.rid AS rid, m.content AS content, p.content AS context
    FROM memories m LEFT JOIN memories p ON p.rid = m.context_rid;

package storage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompactRowsMigration upgrades a database written before migration
// 17 and checks what 17 promises: normalized_content is gone; a created
// event that repeated its memory's content stores none yet still reads
// it, and keeps it through an edit and a purge; one that differed keeps
// its own; links are keyed by integers with every live link kept, and
// links of memories already gone are counted off their entities (an
// entity left without any goes with its relations); relations and their
// foreign keys survive the rebuild of entities.
func TestCompactRowsMigration(t *testing.T) {
	ctx := context.Background()
	before, all := migrationsBefore(t, 17)
	var err error
	// m1's hash is a SHA-256 (stored as its bytes after 17); m2's is not.
	const sha1 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	path := filepath.Join(t.TempDir(), "c.db")
	db := openTemp(t, path, before)
	err = db.WriteTx(ctx, func(tx Tx) error {
		for _, s := range []string{
			`INSERT INTO memories (id, content, normalized_content, content_hash, created_at, updated_at)
				VALUES ('m1', 'Alpha uses Postgres', 'alpha uses postgres', '` + sha1 + `', 't1', 't1'),
				       ('m2', 'Beta uses Postgres', 'beta uses postgres', 'h2', 't2', 't2')`,
			`INSERT INTO embeddings (content_hash, model, dimensions, vector, created_at)
				VALUES ('` + sha1 + `', 'm', 1, x'0000803f01', 't'), ('h2', 'm', 1, x'0000803f02', 't')`,
			`INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
				VALUES ('e1', 'Postgres', 'postgres', 'tool', 2, 't', 't'),
				       ('e2', 'Gone', 'gone', 'tool', 1, 't', 't'),
				       ('e3', 'Kept', 'kept', 'tool', 2, 't', 't')`,
			`INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, created_at, updated_at)
				VALUES ('r1', 'e1', 'e3', 'uses', 't', 't'), ('r2', 'e2', 'e1', 'uses', 't', 't')`,
			`INSERT INTO memory_entity_mentions (memory_id, entity_id, mention_text, confidence, created_at)
				VALUES ('m1', 'e1', 'Postgres', 0.9, 't'), ('m2', 'e1', NULL, NULL, 't'),
				       ('gone', 'e2', 'Gone', 0.5, 't'), ('gone', 'e3', 'Kept', 0.5, 't'), ('m2', 'e3', 'Kept', 0.5, 't')`,
			`INSERT INTO memory_history (id, memory_id, event, new_content, changed_by, created_at)
				VALUES ('h1', 'm1', 'created', 'Alpha uses Postgres', 'u', 't1'),
				       ('h2', 'm2', 'created', 'Beta used Postgres', 'u', 't2'),
				       ('h3', 'gone', 'created', 'Gone memory', 'u', 't0')`,
		} {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTemp(t, path, all)
	defer db.Close()
	r := db.Reader()
	var cols string
	r.QueryRowContext(ctx, `SELECT group_concat(name) FROM pragma_table_info('memories')`).Scan(&cols)
	if strings.Contains(cols, "normalized_content") || !strings.Contains(cols, "content_hash") {
		t.Fatalf("memories columns: %s", cols)
	}

	// Hashes: a SHA-256 is stored as its 32 bytes and read as hex, in
	// memories and in embeddings; another value stays the text it is.
	var types string
	r.QueryRowContext(ctx, `SELECT (SELECT group_concat(typeof(content_hash) || length(content_hash)) FROM (SELECT content_hash FROM memories ORDER BY id))
		|| ' ' || (SELECT group_concat(typeof(content_hash) || length(content_hash)) FROM (SELECT content_hash FROM embeddings ORDER BY id))`).Scan(&types)
	if types != "blob32,text2 blob32,text2" {
		t.Fatalf("stored hashes: %s", types)
	}
	if m, err := GetMemory(ctx, r, "m1"); err != nil || m.ContentHash != sha1 {
		t.Fatalf("m1 reads back hash %q, %v", m.ContentHash, err)
	}
	if m, err := FindLiveByHash(ctx, r, sha1, ""); err != nil || m.ID != "m1" {
		t.Fatalf("find by hash: %v %v", m, err)
	}
	if v, err := EmbeddingVector(ctx, r, sha1, "m"); err != nil || len(v) != 5 || v[4] != 1 {
		t.Fatalf("m1's vector: %v %v", v, err)
	}
	if v, err := EmbeddingVector(ctx, r, "h2", "m"); err != nil || len(v) != 5 || v[4] != 2 {
		t.Fatalf("m2's vector: %v %v", v, err)
	}
	if live, err := LiveHashes(ctx, r, []string{sha1, "h2", "h3"}); err != nil || len(live) != 2 || !live[[2]string{sha1, ""}] || !live[[2]string{"h2", ""}] {
		t.Fatalf("live hashes: %v %v", live, err)
	}
	r.QueryRowContext(ctx, `SELECT group_concat(name) FROM pragma_table_info('embeddings')`).Scan(&cols)
	if strings.Contains(cols, "created_at") {
		t.Fatalf("embeddings columns: %s", cols)
	}

	// History: h1 repeated m1's row and stores nothing now; h2 differed.
	stored := func(id string) string {
		var s *string
		if err := r.QueryRowContext(ctx, `SELECT new_content FROM memory_history WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return "<null>"
		}
		return *s
	}
	if got := stored("h1") + "|" + stored("h2") + "|" + stored("h3"); got != "<null>|Beta used Postgres|Gone memory" {
		t.Fatalf("stored created content: %s", got)
	}
	created := func(memoryID string) string {
		evs, err := ListHistory(ctx, r, HistoryFilter{MemoryID: memoryID, Event: EventCreated}, 5)
		if err != nil || len(evs) != 1 || evs[0].NewContent == nil {
			t.Fatalf("created event of %s: %v %v", memoryID, evs, err)
		}
		return *evs[0].NewContent
	}
	if got := created("m1"); got != "Alpha uses Postgres" {
		t.Fatalf("m1 created with %q", got)
	}
	if evs, err := SearchHistory(ctx, r, HistorySearch{Text: []string{"alpha"}}, 5); err != nil || len(evs) != 1 || evs[0].ID != "h1" {
		t.Fatalf("history search finds the created content: %v %v", evs, err)
	}

	// Graph: e1's two links survive, keyed by rids; e3 loses the link of
	// the memory that is gone; e2 had only that one and goes, with r2.
	var mentions string
	r.QueryRowContext(ctx, `SELECT group_concat(e.id || '=' || e.mentions, ',') FROM (SELECT * FROM entities ORDER BY id) e`).Scan(&mentions)
	if mentions != "e1=2,e3=1" {
		t.Fatalf("entities after the upgrade: %s", mentions)
	}
	var links string
	r.QueryRowContext(ctx, `SELECT group_concat(m.id || '>' || e.id || ':' || COALESCE(mm.mention_text, '-') || ':' || COALESCE(mm.confidence, '-'), ',')
		FROM (SELECT * FROM memory_entity_mentions ORDER BY memory_rid, entity_rid) mm
		JOIN memories m ON m.rid = mm.memory_rid JOIN entities e ON e.rid = mm.entity_rid`).Scan(&links)
	if links != "m1>e1:Postgres:0.9,m2>e1:-:-,m2>e3:Kept:0.5" {
		t.Fatalf("links after the upgrade: %s", links)
	}
	var rels string
	r.QueryRowContext(ctx, `SELECT group_concat(id) FROM relations`).Scan(&rels)
	if rels != "r1" {
		t.Fatalf("relations after the upgrade: %s", rels)
	}
	var ddl string
	r.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'memory_entity_mentions'`).Scan(&ddl)
	if !strings.Contains(ddl, "WITHOUT ROWID") || !strings.Contains(ddl, "memory_rid") {
		t.Fatalf("mentions table: %s", ddl)
	}
	if n := count(t, db, `SELECT count(*) FROM sqlite_schema WHERE name LIKE '%_old' OR name LIKE '%_new'`); n != 0 {
		t.Fatalf("%d leftover tables", n)
	}
	ents, err := MemoryEntities(ctx, r, "m2")
	if err != nil || len(ents) != 2 || ents[0].ID != "e1" {
		t.Fatalf("entities of m2: %v %v", ents, err)
	}
	links2, err := LiveLinks(ctx, r, []string{"e1", "e3"}, []string{"m1", "m2"})
	if err != nil || len(links2) != 3 {
		t.Fatalf("live links: %v %v", links2, err)
	}

	// The smaller indexes still serve their queries, in order.
	eventCond := func(event string) string { return strings.Replace(historyEventCond(event), "?", "'"+event+"'", 1) }
	for q, index := range map[string]string{
		`SELECT id FROM memory_history h WHERE ` + eventCond("deleted") + ` ORDER BY created_at DESC, rowid DESC LIMIT 20`: "idx_history_event",
		`SELECT id FROM memory_history h WHERE ` + eventCond("created") + ` ORDER BY created_at DESC, rowid DESC LIMIT 20`: "idx_history_created",
		`SELECT count(*) FROM memory_history WHERE ` + eventCond("merged") + ` AND created_at >= 't'`:                      "idx_history_event",
		`SELECT id FROM memory_history WHERE memory_id = 'm1' ORDER BY created_at DESC, rowid DESC LIMIT 20`:               "idx_history_memory",
		`SELECT id FROM memories m WHERE m.who = 'me' ORDER BY m.rid`:                                                      "idx_memories_who",
		`SELECT id FROM memories m WHERE m.project = 'p' ORDER BY m.rid`:                                                   "idx_memories_project",
		`SELECT m.id FROM memories m JOIN memory_entity_mentions mem ON mem.memory_rid = m.rid
			WHERE mem.entity_rid = (SELECT rid FROM entities WHERE id = 'e1')`: "idx_mentions_entity",
	} {
		plan := queryPlan(t, db, q)
		if !strings.Contains(plan, index) || (strings.Contains(plan, "TEMP B-TREE") && !strings.Contains(q, "memory_id =")) {
			t.Errorf("%s\nplan: %s", q, plan)
		}
	}

	err = db.WriteTx(ctx, func(tx Tx) error {
		// Foreign keys still hold: a relation to no entity is refused,
		// and deleting an entity takes its relations and links.
		if _, err := tx.ExecContext(ctx, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, created_at, updated_at)
			VALUES ('r9', 'e1', 'nobody', 'uses', 't', 't')`); err == nil {
			t.Error("a relation to a missing entity was written")
		}
		// An edit keeps what m1 was created with in its event; a purge of
		// m2 keeps its own and takes its links, counted off.
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET content = 'Alpha uses MySQL' WHERE id = 'm1'`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = 'm2'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := created("m1"); got != "Alpha uses Postgres" || stored("h1") != "Alpha uses Postgres" {
		t.Fatalf("m1's created event after an edit: %q", got)
	}
	if got := created("m2"); got != "Beta used Postgres" {
		t.Fatalf("m2's created event after a purge: %q", got)
	}
	r.QueryRowContext(ctx, `SELECT group_concat(e.id || '=' || e.mentions, ',') FROM (SELECT * FROM entities ORDER BY id) e`).Scan(&mentions)
	if n := count(t, db, `SELECT count(*) FROM memory_entity_mentions`); mentions != "e1=1,e3=0" || n != 1 {
		t.Fatalf("after purging m2: entities %s, %d links", mentions, n)
	}
	// An entity deleted takes its links and relations with it.
	err = db.WriteTx(ctx, func(tx Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE id = 'e1'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT (SELECT count(*) FROM memory_entity_mentions) + (SELECT count(*) FROM relations)`); n != 0 {
		t.Fatalf("%d links and relations left of a deleted entity", n)
	}
}

// TestContentHashStoredAsBytes: the write path stores a SHA-256 content
// hash as its 32 bytes and every read gives back the hex text; any other
// value (32 characters too) is stored and read back as the text it is.
func TestContentHashStoredAsBytes(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t, filepath.Join(t.TempDir(), "h.db"), nil)
	defer db.Close()
	const sha = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	other := strings.Repeat("ab", 16) // 32 characters, not a SHA-256
	err := db.WriteTx(ctx, func(tx Tx) error {
		for id, h := range map[string]string{"a": sha, "b": other, "c": strings.ToUpper(sha)} {
			if err := InsertMemory(ctx, tx, &Memory{ID: id, Type: "fact", Content: "content " + id, ContentHash: h,
				SourceType: "manual", CreatedAt: "t", UpdatedAt: "t", UpdatedBy: "u"}); err != nil {
				return err
			}
		}
		return UpsertEmbedding(ctx, tx, sha, "m", 1, []byte{0, 0, 128, 63, 7})
	})
	if err != nil {
		t.Fatal(err)
	}
	var types string
	db.Reader().QueryRowContext(ctx, `SELECT group_concat(typeof(content_hash) || length(content_hash)) FROM (SELECT content_hash FROM memories ORDER BY id)`).Scan(&types)
	if types != "blob32,text32,text64" {
		t.Fatalf("stored hashes: %s", types)
	}
	for id, want := range map[string]string{"a": sha, "b": other, "c": strings.ToUpper(sha)} {
		if m, err := GetMemory(ctx, db.Reader(), id); err != nil || m.ContentHash != want {
			t.Errorf("%s reads back %q, %v; want %q", id, m.ContentHash, err, want)
		}
	}
	if n, err := CountEmbeddedMemories(ctx, db.Reader(), "m"); err != nil || n != 1 {
		t.Fatalf("embedded memories: %d %v", n, err)
	}
	ps, err := PendingEmbeddings(ctx, db.Reader(), "m", 10)
	if err != nil || len(ps) != 2 {
		t.Fatalf("pending: %v %v", ps, err)
	}
	for _, p := range ps {
		if p.ContentHash != other && p.ContentHash != strings.ToUpper(sha) {
			t.Errorf("pending hash %q", p.ContentHash)
		}
	}
}

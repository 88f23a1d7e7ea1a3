package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

const day = 24 * time.Hour

func forget(t *testing.T, e *apitest.Env, id string) {
	t.Helper()
	if _, err := e.Svc.Forget(context.Background(), core.ForgetInput{ID: id, Reason: "test"}, core.Actor{Name: "test"}); err != nil {
		t.Fatalf("forget %s: %v", id, err)
	}
}

func sweep(t *testing.T, e *apitest.Env) *ops.RetentionReport {
	t.Helper()
	rep, err := e.App.Ops.RetentionSweep(context.Background())
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	return rep
}

func exec(t *testing.T, e *apitest.Env, query string, args ...any) {
	t.Helper()
	if err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		_, err := tx.ExecContext(context.Background(), query, args...)
		return err
	}); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// hashOf is a memory's content hash as stored (a BLOB for a SHA-256), to
// bind in queries on the tables.
func hashOf(t *testing.T, e *apitest.Env, id string) any {
	t.Helper()
	var h any
	if err := e.RO.QueryRow(`SELECT content_hash FROM memories WHERE id = ?`, id).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// assertFTS checks that the full-text index holds exactly the memories rows
// and passes FTS5's integrity-check.
func assertFTS(t *testing.T, e *apitest.Env) {
	t.Helper()
	rows := e.Count(t, `SELECT count(*) FROM memories`)
	if n := e.Count(t, `SELECT count(*) FROM memories_fts_docsize`); n != rows {
		t.Fatalf("FTS documents %d, memories rows %d", n, rows)
	}
	c, err := e.App.Ops.CheckFTS(context.Background())
	if err != nil || c.Mismatch {
		t.Fatalf("CheckFTS = %+v, %v", c, err)
	}
}

func TestRetentionSweepWindowsAndOrder(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	a := e.MustID(t, "The zebrafish billing service stores invoices in PostgreSQL.")
	b := e.MustID(t, "The reporting job reads PostgreSQL replicas every night.")
	c := e.MustID(t, "The quokka deploy pipeline publishes images nightly.")
	e.Persist(t, a, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "billing service", Relationship: "uses", Target: "PostgreSQL", Confidence: 0.9},
	}})
	e.Persist(t, b, extract.ExtractionResult{Mentions: []extract.Mention{{Name: "PostgreSQL", Type: "name"}}})
	if n := e.Count(t, `SELECT mentions FROM entities WHERE canonical_name = 'postgresql'`); n != 2 {
		t.Fatalf("postgresql mentions before = %d", n)
	}
	// Links of a memory that no longer exists at all.
	exec(t, e, `INSERT INTO memory_entity_mentions (memory_rid, entity_rid)
		SELECT (SELECT max(rid) + 1000 FROM memories), rid FROM entities WHERE canonical_name = 'postgresql'`)
	exec(t, e, `UPDATE entities SET mentions = mentions + 1 WHERE canonical_name = 'postgresql'`)
	// Vectors: a's (purged with it), b's (live), c's (recoverable when the
	// sweep runs), and one whose memory is gone.
	for _, h := range []any{hashOf(t, e, a), hashOf(t, e, b), hashOf(t, e, c), "no-such-hash"} {
		exec(t, e, `INSERT INTO embeddings (content_hash, model, dimensions, vector) VALUES (?, 'm', 1, x'0000803f')`, h)
	}
	// Jobs finished now.
	exec(t, e, `DELETE FROM memory_jobs`)
	now := storage.FormatTime(e.Clock.Now())
	for i, st := range []string{"completed", "completed", "dead"} {
		exec(t, e, `INSERT INTO memory_jobs (id, job_type, status, created_at, updated_at) VALUES (?, 'extract', ?, ?, ?)`,
			[]string{"j1", "j2", "j3"}[i], st, now, now)
	}
	histAtStart := e.Count(t, `SELECT count(*) FROM memory_history`)
	forget(t, e, a)
	histAtStart++

	// Completed jobs: 14 days.
	// Links and vectors of memories that are gone entirely go at once.
	e.Clock.Advance(14*day - time.Hour)
	if rep := sweep(t, e); rep.Total() != 2 || rep.GraphLinks != 1 || rep.Embeddings != 1 || rep.GraphEntities != 0 {
		t.Fatalf("sweep before any window removed %+v", rep)
	}
	e.Clock.Advance(2 * time.Hour)
	rep := sweep(t, e)
	if rep.CompletedJobs != 2 || rep.Total() != 2 {
		t.Fatalf("sweep at 14 d: %+v", rep)
	}
	forget(t, e, c) // deleted at 14 d + 1 h: recoverable until 44 d

	// Tombstones and dead jobs: 30 days. Graph links go first.
	e.Clock.Advance(16*day - 2*time.Hour) // 30 d − 1 h
	if rep := sweep(t, e); rep.Total() != 0 {
		t.Fatalf("sweep at 30 d − 1 h removed %s", rep)
	}
	e.Clock.Advance(2 * time.Hour)
	rep = sweep(t, e)
	if rep.Tombstones != 1 || rep.DeadJobs != 1 || rep.GraphMemories != 1 || rep.GraphLinks != 2 ||
		rep.GraphEntities != 1 || rep.GraphRelations != 1 || rep.Embeddings != 1 || rep.History != 0 {
		t.Fatalf("sweep at 30 d + 1 h: %+v", rep)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ?`, a); n != 0 {
		t.Fatal("tombstone a not purged")
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id IN (?, ?)`, b, c); n != 2 {
		t.Fatal("live or recoverable memory purged")
	}
	// The graph: billing service had only a; it is gone with its relation.
	// postgresql keeps b's link and is decremented by a's and the gone one.
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE canonical_name = 'billing service'`); n != 0 {
		t.Fatal("orphaned entity kept")
	}
	if n := e.Count(t, `SELECT count(*) FROM relations`); n != 0 {
		t.Fatal("relation of an orphaned entity kept")
	}
	if n := e.Count(t, `SELECT mentions FROM entities WHERE canonical_name = 'postgresql'`); n != 1 {
		t.Fatalf("postgresql mentions after = %d, want 1", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions mm WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = mm.memory_rid)`); n != 0 {
		t.Fatalf("%d links to missing memories", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM embeddings WHERE content_hash IN (?, ?)`, hashOf(t, e, b), hashOf(t, e, c)); n != 2 {
		t.Fatal("vector of a live or recoverable memory deleted")
	}
	// The index forgot a: its word matches nothing, b still matches.
	assertFTS(t, e)
	if n := e.Count(t, `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'zebrafish'`); n != 0 {
		t.Fatalf("purged memory still in the index (%d)", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'replicas'`); n != 1 {
		t.Fatalf("live memory missing from the index (%d)", n)
	}

	// History: 180 days, from each event's own time.
	e.Clock.Advance(150*day - 2*time.Hour) // 180 d − 1 h
	// c (deleted at 14 d + 1 h) is past its window now, vector included.
	if rep := sweep(t, e); rep.History != 0 || rep.Tombstones != 1 || rep.Embeddings != 1 {
		t.Fatalf("sweep at 180 d − 1 h: %+v", rep)
	}
	e.Clock.Advance(2 * time.Hour)
	rep = sweep(t, e)
	if rep.History != int64(histAtStart) {
		t.Fatalf("history purged %d, want the %d events of day 0", rep.History, histAtStart)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'deleted'`, c); n != 1 {
		t.Fatal("a younger history event was purged")
	}
	assertFTS(t, e)
	if rep := sweep(t, e); rep.Total() != 0 {
		t.Fatalf("second sweep not idempotent: %s", rep)
	}
}

func TestRetentionSweepBatchesAndCap(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Retention.BatchSize = 2; c.Retention.MaxBatches = 2 })
	for _, s := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"} {
		forget(t, e, e.MustID(t, "The "+s+" service handles one part of the billing flow."))
	}
	e.Clock.Advance(31 * day)
	rep := sweep(t, e)
	if rep.Tombstones != 4 || !rep.Capped {
		t.Fatalf("capped sweep = %+v, want 4 tombstones (2 batches of 2) and capped", rep)
	}
	rep = sweep(t, e)
	if rep.Tombstones != 3 {
		t.Fatalf("next sweep = %+v, want the other 3", rep)
	}
	assertFTS(t, e)
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("%d rows left", n)
	}
}

func TestRetentionWindowNotShorterThanRecover(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.Retention.TombstoneWindow = config.Duration(7 * day)
	err := cfg.Validate()
	var ce *config.ConfigError
	if !errors.As(err, &ce) || ce.Key != "retention.tombstone_window" {
		t.Fatalf("Validate = %v, want a retention.tombstone_window error", err)
	}
	cfg = config.DefaultConfig()
	if err := cfg.Set("retention.batch_size", "0"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "retention.batch_size" {
		t.Fatalf("batch_size 0 accepted: %v", err)
	}
	cfg = config.DefaultConfig()
	if err := cfg.Set("maintenance.mode", "yolo"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "maintenance.mode" {
		t.Fatalf("mode yolo accepted: %v", err)
	}
}

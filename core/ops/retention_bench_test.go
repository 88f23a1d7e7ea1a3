package ops_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/storage"
)

// BenchmarkRetentionSweep purges 30,000 tombstones past the window out of
// 100,000 memories, each with a vector, 20,000 entity links and their FTS
// entries. Run with: go test ./core -run '^$' -bench RetentionSweep
func BenchmarkRetentionSweep(b *testing.B) {
	const total, tombstones = 100_000, 30_000
	ctx := context.Background()
	var removed int64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := apitest.NewStoreEnv(b, apitest.NoEmbed)
		seedRetentionBench(b, e, total, tombstones)
		b.StartTimer()
		start := time.Now()
		rep, err := e.App.Ops.RetentionSweep(ctx)
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if rep.Tombstones != tombstones || rep.Embeddings != tombstones || rep.Capped {
			b.Fatalf("sweep = %+v", rep)
		}
		if n := e.Count(b, `SELECT count(*) FROM memories_fts_docsize`); n != total-tombstones {
			b.Fatalf("FTS documents %d after the sweep", n)
		}
		removed += rep.Total()
		b.StartTimer()
	}
	b.ReportMetric(float64(removed)/elapsed.Seconds(), "rows/s")
}

// seedRetentionBench fills e with total memories (FTS indexed by the
// trigger), the first tombstones of them deleted 40 days ago, a vector
// each, 1,000 entities and a link from every fifth memory.
func seedRetentionBench(b *testing.B, e *apitest.Env, total, tombstones int) {
	ctx := context.Background()
	old := storage.FormatTime(apitest.ClockStart.Add(-40 * day))
	recent := storage.FormatTime(apitest.ClockStart.Add(-time.Hour))
	err := e.DB.WriteTx(ctx, func(tx storage.Tx) error {
		// The first 30% are tombstones deleted 40 days ago (past the
		// 30-day window); the rest are live. The FTS trigger indexes all.
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO memories (id, content, content_hash, created_at, updated_at, is_deleted, deleted_at)
		SELECT printf('m%06d', i),
			printf('Memory %d about service %d and the deploy window of team %d', i, i % 97, i % 13),
			printf('h%06d', i), ?, ?, i <= ?, CASE WHEN i <= ? THEN ? END FROM n`,
			total, recent, recent, tombstones, tombstones, old); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO embeddings (content_hash, model, dimensions, vector)
		SELECT content_hash, 'bench', 16, zeroblob(64) FROM memories`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO entities (id, name, canonical_name, mentions, created_at, updated_at)
		SELECT printf('e%04d', i), printf('entity %d', i), printf('entity %d', i), 0, ?, ? FROM n`, recent, recent); err != nil {
			return err
		}
		// Links: every fifth memory names one entity.
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_entity_mentions (memory_rid, entity_rid)
		SELECT m.rid, e.rid FROM memories m JOIN entities e ON e.id = printf('e%04d', (m.rid % 1000) + 1) WHERE m.rid % 5 = 0`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE entities SET mentions = (SELECT count(*) FROM memory_entity_mentions mm WHERE mm.entity_rid = entities.rid)`)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheckFTS is check-fts on 100,000 memories: how long the
// integrity-check holds the writer.
func BenchmarkCheckFTS(b *testing.B) {
	e := apitest.NewStoreEnv(b, apitest.NoEmbed)
	seedRetentionBench(b, e, 100_000, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := e.App.Ops.CheckFTS(context.Background())
		if err != nil || c.Mismatch {
			b.Fatalf("%+v %v", c, err)
		}
	}
}

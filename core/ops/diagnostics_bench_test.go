package ops_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/storage"
)

// fixedEmbedder is an Embedder that never gets called in the benchmark;
// it only turns the embedding-coverage signal on.
type fixedEmbedder struct{}

func (fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0, 0}
	}
	return out, nil
}
func (fixedEmbedder) Model() string   { return "bench-model" }
func (fixedEmbedder) Dimensions() int { return 4 }

// seedMemories inserts n memories through direct SQL in batches (the FTS
// and count triggers stay consistent); the share deleted are tombstones
// and, when embedded is set, 90% of the live ones have a vector for
// fixedEmbedder's model.
func seedMemories(tb testing.TB, db *storage.DB, n int, deleted float64, embedded bool) {
	tb.Helper()
	ctx := context.Background()
	ts := storage.FormatTime(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := db.WriteTx(ctx, func(tx storage.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				del := float64(i%100) < deleted*100
				hash := fmt.Sprintf("h%08d", i)
				content := fmt.Sprintf("memory %d about service %d and port %d", i, i%97, 5000+i%1000)
				isDel := 0
				if del {
					isDel = 1
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO memories (id, content, content_hash, created_at, updated_at, is_deleted, deleted_at)
					VALUES (?, ?, ?, ?, ?, ?, CASE WHEN ? = 1 THEN ? END)`,
					fmt.Sprintf("m-%08d", i), content, hash, ts, ts, isDel, isDel, ts); err != nil {
					return err
				}
				if embedded && !del && i%10 != 0 {
					if _, err := tx.ExecContext(ctx, `INSERT INTO embeddings (content_hash, model, dimensions, vector) VALUES (?, 'bench-model', 4, x'0000803f000000000000000000000000')`, hash); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

var benchDBs sync.Map // path key → *storage.DB, built once per process

func benchService(b *testing.B, embedded bool) *app.App {
	b.Helper()
	key := fmt.Sprint(embedded)
	v, ok := benchDBs.Load(key)
	if !ok {
		dir, err := filepath.Abs(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(dir, "bench.db"), NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close(); benchDBs.Delete(key) })
		seedMemories(b, db, 100_000, 0.3, embedded)
		v = db
		benchDBs.Store(key, db)
	}
	opts := app.Options{}
	if embedded {
		opts.Embedder = fixedEmbedder{}
	}
	return app.New(v.(*storage.DB), config.DefaultConfig(), opts)
}

// BenchmarkDiagnostics is one uncached report over 100k memories with 30%
// tombstones.
func BenchmarkDiagnostics(b *testing.B) {
	for _, embedded := range []bool{false, true} {
		b.Run(fmt.Sprintf("embedder=%v", embedded), func(b *testing.B) {
			ap := benchService(b, embedded)
			ctx := context.Background()
			rep, err := ops.New(ap.Service, ap.Vectors, ap.Jobs).ComputeDiagnostics(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if st := rep.Domain(ops.DomainStorage); st.Signals[0].Value != 0.3 {
				b.Fatalf("tombstone ratio %v, want 0.3", st.Signals[0].Value)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := ops.New(ap.Service, ap.Vectors, ap.Jobs).ComputeDiagnostics(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAnalyticsRecord(b *testing.B) {
	a := analytics.NewAnalytics(nil)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			a.RecordRequest("GET /api/memory/{id}", "agent", 200+i%3*100, time.Millisecond)
			a.RecordLatency(analytics.LatencyRecall, time.Duration(i)*time.Microsecond)
		}
	})
}

// BenchmarkMaintenanceRecommendations is what the Diagnostics pane pays
// for its recommendations (diagnostics, cached, plus the exact-duplicate
// count) on 100k memories with 30% tombstones.
func BenchmarkMaintenanceRecommendations(b *testing.B) {
	ap := benchService(b, true)
	ctx := context.Background()
	for b.Loop() {
		if _, err := ops.New(ap.Service, ap.Vectors, ap.Jobs).MaintenanceRecommendations(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

package sqlite_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// buildStore writes n memories, each with its history event and a
// 384-dimension embedding, the shape of a real store, and closes it.
func buildStore(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "memories.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
	if err != nil {
		tb.Fatal(err)
	}
	blob := make([]byte, 384*4)
	for i := 0; i < 384; i++ {
		binary.LittleEndian.PutUint32(blob[i*4:], math.Float32bits(float32(i)/384))
	}
	now := storage.FormatTime(t0)
	for start := 0; start < n; start += 500 {
		err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
			for i := start; i < min(start+500, n); i++ {
				id := fmt.Sprintf("m%06d", i)
				content := fmt.Sprintf("memory %d: service %d deploys from branch release-%d on Fridays; the runbook for team %d is in docs/runbooks/%d.md", i, i%97, i%13, i%7, i)
				hash := fmt.Sprintf("h%06d", i)
				m := &storage.Memory{ID: id, Type: "fact", Content: content, ContentHash: hash,
					Confidence: 1, Importance: 0.5, SourceType: "manual", Tags: []string{"team", fmt.Sprintf("svc%d", i%97)},
					CreatedAt: now, UpdatedAt: now, UpdatedBy: "bench", EmbeddingModel: "m1"}
				if err := storage.InsertMemory(ctx, tx, m); err != nil {
					return err
				}
				c := content
				if err := storage.InsertHistory(ctx, tx, &storage.HistoryEvent{ID: "h" + id, MemoryID: id, Event: "created",
					NewContent: &c, ChangedBy: "bench", CreatedAt: now}); err != nil {
					return err
				}
				if err := storage.UpsertEmbedding(ctx, tx, hash, "m1", 384, blob); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkQuickCheck10k measures the integrity check Open runs, on a
// store of 10,000 memories with their history and embeddings, and the
// whole Open around it.
//
//	go test -run '^$' -bench BenchmarkQuickCheck10k -benchtime 20x ./storage/sqlite/
func BenchmarkQuickCheck10k(b *testing.B) {
	path := buildStore(b, 10000)
	st, _ := os.Stat(path)
	ctx := context.Background()
	b.Run("quick_check", func(b *testing.B) {
		db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for b.Loop() {
			var res string
			if err := db.Reader().QueryRow(`PRAGMA quick_check`).Scan(&res); err != nil || res != "ok" {
				b.Fatal(res, err)
			}
		}
		b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
			if err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
	})
}

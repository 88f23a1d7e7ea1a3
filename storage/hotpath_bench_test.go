package storage_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// The hot paths of every request, through the names callers use: a read
// on the reader pool and a write transaction on the writer, both running
// statements from the engine's caches.
//
//	go test -run '^$' -bench 'Cached|WriteTx' -benchtime 3s -count 5 ./storage/

func benchStore(b *testing.B, n int) *storage.DB {
	b.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(b.TempDir(), "b.db"), NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	err = db.WriteTx(ctx, func(tx storage.Tx) error {
		for i := range n {
			if err := storage.InsertMemory(ctx, tx, benchMemory(fmt.Sprintf("m%06d", i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func benchMemory(id string) *storage.Memory {
	now := storage.FormatTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return &storage.Memory{ID: id, Type: "fact", Content: "the deploy pipeline caches modules between runs " + id,
		ContentHash: "h-" + id, Confidence: 1, Importance: 0.5, SourceType: "manual", Tags: []string{"ci"},
		Project: "/p", CreatedAt: now, UpdatedAt: now, UpdatedBy: "bench"}
}

// BenchmarkCachedRead reads one memory by id on the reader pool.
func BenchmarkCachedRead(b *testing.B) {
	db := benchStore(b, 1000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := storage.GetMemory(ctx, db.Reader(), fmt.Sprintf("m%06d", i%1000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkCachedReadParallel is BenchmarkCachedRead from many goroutines.
func BenchmarkCachedReadParallel(b *testing.B) {
	db := benchStore(b, 1000)
	ctx := context.Background()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := storage.GetMemory(ctx, db.Reader(), fmt.Sprintf("m%06d", n.Add(1)%1000)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkWriteTx commits a memory and its history event per
// transaction, one writer at a time.
func BenchmarkWriteTx(b *testing.B) {
	db := benchStore(b, 0)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if err := db.WriteTx(ctx, func(tx storage.Tx) error { return benchWrite(ctx, tx, i) }); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkWriteTxParallel is BenchmarkWriteTx from many goroutines, so
// writes share commits.
func BenchmarkWriteTxParallel(b *testing.B) {
	db := benchStore(b, 0)
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			if err := db.WriteTx(ctx, func(tx storage.Tx) error { return benchWrite(ctx, tx, i) }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchWrite(ctx context.Context, tx storage.Tx, i int) error {
	m := benchMemory(fmt.Sprintf("w%08d", i))
	if err := storage.InsertMemory(ctx, tx, m); err != nil {
		return err
	}
	content := m.Content
	return storage.InsertHistory(ctx, tx, &storage.HistoryEvent{ID: "h-" + m.ID, MemoryID: m.ID, Event: "created",
		NewContent: &content, ChangedBy: "bench", ActorType: "agent", CreatedAt: m.CreatedAt})
}

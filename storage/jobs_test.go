package storage_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

func openJobsDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "q.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func enqueue(t *testing.T, db *store, n int, typ string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	err := db.WriteTx(ctx, func(tx storage.Querier) error {
		for i := range n {
			ts := storage.FormatTime(at.Add(time.Duration(i) * time.Millisecond))
			if _, err := storage.EnqueueJob(ctx, tx, fmt.Sprintf("%s-%03d", typ, i), fmt.Sprintf("m-%s-%d", typ, i), typ, "", 3, ts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func lease(t *testing.T, db *store, owner string, now time.Time, types ...string) *storage.Job {
	t.Helper()
	j, err := db.leaseJob(context.Background(), owner, types, storage.FormatTime(now))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestEnqueueDedup(t *testing.T) { testEnqueueDedup(t, sqliteStore(t)) }

func testEnqueueDedup(t *testing.T, db *store) {
	ctx := context.Background()
	var first, second bool
	_ = db.WriteTx(ctx, func(tx storage.Querier) error {
		first, _ = storage.EnqueueJob(ctx, tx, "a", "m1", "extract", "", 3, storage.FormatTime(t0))
		second, _ = storage.EnqueueJob(ctx, tx, "b", "m1", "extract", "", 3, storage.FormatTime(t0))
		return nil
	})
	if !first || second {
		t.Fatalf("enqueue: first=%v second=%v, want true false", first, second)
	}
}

func TestLeaseAtomic(t *testing.T) { testLeaseAtomic(t, sqliteStore(t)) }

func testLeaseAtomic(t *testing.T, db *store) {
	enqueue(t, db, 40, "extract", t0)
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("w%d", g)
			for {
				j, err := db.leaseJob(context.Background(), owner, nil, storage.FormatTime(t0.Add(time.Second)))
				if j == nil && err == nil {
					return
				} else if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if prev, dup := seen[j.ID]; dup {
					t.Errorf("job %s leased by %s and %s", j.ID, prev, owner)
				}
				seen[j.ID] = owner
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Fatalf("leased %d jobs, want 40", len(seen))
	}
}

func TestRetryBackoffThenDead(t *testing.T) { testRetryBackoffThenDead(t, sqliteStore(t)) }

func testRetryBackoffThenDead(t *testing.T, db *store) {
	ctx := context.Background()
	enqueue(t, db, 1, "extract", t0)
	now := t0.Add(time.Second)
	for attempt := 1; attempt <= 3; attempt++ {
		j := lease(t, db, "w", now)
		if j == nil || j.Attempts != attempt {
			t.Fatalf("attempt %d: leased %+v", attempt, j)
		}
		var dead bool
		delay := storage.RetryDelay(j.Attempts)
		err := db.WriteTx(ctx, func(tx storage.Querier) error {
			var err error
			dead, err = storage.FailJob(ctx, tx, j, "boom", now, delay)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if dead != (attempt == 3) {
			t.Fatalf("attempt %d: dead=%v", attempt, dead)
		}
		if attempt < 3 {
			if want := min(time.Duration(1<<attempt)*5*time.Second, 120*time.Second); delay != want {
				t.Fatalf("delay %v, want %v", delay, want)
			}
			if j := lease(t, db, "w", now.Add(delay-time.Millisecond)); j != nil {
				t.Fatalf("attempt %d: leased before the backoff passed", attempt)
			}
			now = now.Add(delay)
		}
	}
	j, err := storage.GetJob(ctx, db.Reader(), "extract-000")
	if err != nil || j.Status != storage.JobDead || j.Error != "boom" {
		t.Fatalf("job after max attempts: %+v %v", j, err)
	}
	if j := lease(t, db, "w", now.Add(time.Hour)); j != nil {
		t.Fatal("a dead job was leased")
	}
	if storage.RetryDelay(10) != 120*time.Second {
		t.Fatal("delay not capped at 120 s")
	}
}

func TestReaperReturnsStaleLeaseOnce(t *testing.T) {
	testReaperReturnsStaleLeaseOnce(t, sqliteStore(t))
}

func testReaperReturnsStaleLeaseOnce(t *testing.T, db *store) {
	ctx := context.Background()
	enqueue(t, db, 1, "extract", t0)
	a := lease(t, db, "crashed", t0.Add(time.Second))
	var reaped int64
	_ = db.WriteTx(ctx, func(tx storage.Querier) error {
		var err error
		reaped, _, err = storage.ReapStaleLeases(ctx, tx, storage.FormatTime(t0.Add(time.Second)), storage.FormatTime(t0.Add(time.Second)))
		return err
	})
	if reaped != 0 {
		t.Fatal("a fresh lease was reaped")
	}
	_ = db.WriteTx(ctx, func(tx storage.Querier) error {
		var err error
		reaped, _, err = storage.ReapStaleLeases(ctx, tx, storage.FormatTime(t0.Add(6*time.Minute)), storage.FormatTime(t0.Add(6*time.Minute)))
		return err
	})
	if reaped != 1 {
		t.Fatalf("reaped %d, want 1", reaped)
	}
	b := lease(t, db, "alive", t0.Add(6*time.Minute))
	if b == nil || b.ID != a.ID || b.Attempts != 2 {
		t.Fatalf("re-lease: %+v", b)
	}
	// The crashed worker comes back: its completion is refused.
	err := db.WriteTx(ctx, func(tx storage.Querier) error { return storage.CompleteJob(ctx, tx, a, `{"by":"crashed"}`, "x") })
	if !errors.Is(err, storage.ErrLeaseLost) {
		t.Fatalf("stale owner completed: %v", err)
	}
	if err := db.WriteTx(ctx, func(tx storage.Querier) error { return storage.CompleteJob(ctx, tx, b, `{"by":"alive"}`, "y") }); err != nil {
		t.Fatal(err)
	}
	err = db.WriteTx(ctx, func(tx storage.Querier) error { return storage.CompleteJob(ctx, tx, b, `{"by":"alive"}`, "z") })
	if !errors.Is(err, storage.ErrLeaseLost) {
		t.Fatalf("completed twice: %v", err)
	}
	j, _ := storage.GetJob(ctx, db.Reader(), a.ID)
	if j.Status != storage.JobCompleted || j.Result != `{"by":"alive"}` {
		t.Fatalf("final job %+v", j)
	}
}

func TestLeaseFairAcrossTypes(t *testing.T) { testLeaseFairAcrossTypes(t, sqliteStore(t)) }

func testLeaseFairAcrossTypes(t *testing.T, db *store) {
	enqueue(t, db, 50, "extract", t0)
	enqueue(t, db, 1, "document_ingest", t0.Add(time.Minute)) // enqueued after the burst
	now := t0.Add(2 * time.Minute)
	var order []string
	for i := range 4 {
		j := lease(t, db, "w", now.Add(time.Duration(i)*time.Millisecond))
		order = append(order, j.JobType)
	}
	found := false
	for _, typ := range order[:2] {
		found = found || typ == "document_ingest"
	}
	if !found {
		t.Fatalf("document_ingest starved behind the burst: %v", order)
	}
}

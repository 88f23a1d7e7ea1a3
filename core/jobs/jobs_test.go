package jobs_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/storage"
)

func newQueue(t *testing.T, now func() time.Time) *jobs.Queue {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "q.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig().PipelineV2
	cfg.MaxAttempts = 2
	return jobs.New(db, cfg, now)
}

// A job goes through the queue: enqueued once per memory and type, leased
// by type, completed with its result; retrying a completed job is refused.
func TestQueueLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := newQueue(t, nil)
	if ok, err := q.Enqueue(ctx, "m1", jobs.Extract, ""); !ok || err != nil {
		t.Fatalf("enqueue: %v %v", ok, err)
	}
	if ok, err := q.Enqueue(ctx, "m1", jobs.Extract, ""); ok || err != nil {
		t.Fatalf("a second live job of the type: %v %v", ok, err)
	}
	if j, err := q.Lease(ctx, "w", jobs.SessionScore); j != nil || err != nil {
		t.Fatalf("lease of another type: %v %v", j, err)
	}
	j, err := q.Lease(ctx, "w", jobs.PipelineTypes...)
	if err != nil || j == nil || j.MemoryID != "m1" || j.Status != storage.JobLeased {
		t.Fatalf("lease: %+v %v", j, err)
	}
	if err := q.Complete(ctx, j, map[string]any{"facts": 0}); err != nil {
		t.Fatal(err)
	}
	got, err := q.Get(ctx, j.ID)
	if err != nil || got.Status != storage.JobCompleted || got.Result != `{"facts":0}` {
		t.Fatalf("completed job: %+v %v", got, err)
	}
	byStatus, byType, err := q.Counts(ctx)
	if err != nil || byStatus[storage.JobCompleted] != 1 || byType[jobs.Extract][storage.JobCompleted] != 1 {
		t.Fatalf("counts: %v %v %v", byStatus, byType, err)
	}
	_, err = q.Retry(ctx, j.ID)
	var nr *jobs.NotRetryableError
	if !errors.As(err, &nr) || nr.Error() != "conflict: job is completed" || !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("retry of a completed job: %v", err)
	}
}

// A failed job is retried until max_attempts, then dead; a dead job comes
// back with Retry.
func TestQueueFailAndRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := newQueue(t, nil)
	if _, err := q.Enqueue(ctx, "m1", jobs.Extract, ""); err != nil {
		t.Fatal(err)
	}
	j, _ := q.Lease(ctx, "w")
	if dead, err := q.Fail(ctx, j, errors.New("boom")); dead || err != nil {
		t.Fatalf("first failure: dead=%v %v", dead, err)
	}
	if _, err := q.Retry(ctx, j.ID); err != nil { // due now, not after the backoff
		t.Fatal(err)
	}
	j, _ = q.Lease(ctx, "w")
	if j == nil {
		t.Fatal("the retried job is not due")
	}
	if dead, err := q.Fail(ctx, j, errors.New("boom again")); !dead || err != nil {
		t.Fatalf("last attempt: dead=%v %v", dead, err)
	}
	rows, err := q.List(ctx, jobs.Filter{Status: storage.JobDead}, 10)
	if err != nil || len(rows) != 1 || rows[0].Error != "boom again" {
		t.Fatalf("dead jobs: %+v %v", rows, err)
	}
	if j, err := q.Retry(ctx, j.ID); err != nil || j.Status != storage.JobPending || j.Attempts != 0 {
		t.Fatalf("retry of a dead job: %+v %v", j, err)
	}
}

// A lease held longer than the lease timeout goes back to the queue.
func TestQueueReapsStaleLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	q := newQueue(t, func() time.Time { return now })
	if _, err := q.Enqueue(ctx, "m1", jobs.Extract, ""); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Lease(ctx, "crashed"); j == nil {
		t.Fatal("nothing leased")
	}
	if reaped, dead, err := q.ReapStaleLeases(ctx); reaped+dead != 0 || err != nil {
		t.Fatalf("a fresh lease was reaped: %d %d %v", reaped, dead, err)
	}
	now = now.Add(config.DefaultConfig().PipelineV2.LeaseTimeout.D() + time.Second)
	if reaped, dead, err := q.ReapStaleLeases(ctx); reaped+dead != 1 || err != nil {
		t.Fatalf("a stale lease: %d %d %v", reaped, dead, err)
	}
}

// What the queue refuses, it says with its own errors (core.AsError gives
// them the API's codes).
func TestQueueRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := newQueue(t, nil)
	var inv *jobs.InvalidError
	if _, err := q.List(ctx, jobs.Filter{Status: "sleeping"}, 10); !errors.As(err, &inv) || inv.Field != "status" ||
		inv.Message != "status must be one of pending, leased, completed, failed, dead" {
		t.Fatalf("unknown status: %v", err)
	}
	if _, err := q.List(ctx, jobs.Filter{}, 0); !errors.As(err, &inv) || inv.Field != "limit" {
		t.Fatalf("limit 0: %v", err)
	}
	if _, err := q.Get(ctx, "nope"); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("get of an unknown job: %v", err)
	}
	if _, err := q.Retry(ctx, "nope"); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("retry of an unknown job: %v", err)
	}
}

package workers_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
)

// The retention worker sweeps shortly after start and then every interval,
// measuring windows with the service clock.
func TestRetentionWorkerSweeps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "r.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cfg := config.DefaultConfig()
	cfg.Embedding.Provider = "none"
	ap := app.New(db, cfg, app.Options{Now: clock})
	svc := ap.Service
	var ids []string
	for _, c := range []string{"An expired note about the old build farm.", "A second expired note about the old runners."} {
		res, err := svc.Remember(ctx, core.RememberInput{Content: c}, core.Actor{Name: "test"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	if _, err := svc.Forget(ctx, core.ForgetInput{ID: ids[0], Reason: "old"}, core.Actor{Name: "test"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()

	reports := make(chan *ops.RetentionReport, 4)
	w := &workers.RetentionWorker{Svc: svc, Ops: ap.Ops, Interval: 50 * time.Millisecond, FirstDelay: time.Millisecond,
		OnSweep: func(r *ops.RetentionReport, err error) {
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			select {
			case reports <- r:
			default:
			}
		}}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	first := <-reports
	if first == nil || first.Tombstones != 1 {
		t.Fatalf("first sweep = %+v", first)
	}
	// Forget the second; it is purged by a later sweep once its window passes.
	if _, err := svc.Forget(ctx, core.ForgetInput{ID: ids[1], Reason: "old"}, core.Actor{Name: "test"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()
	deadline := time.After(30 * time.Second)
	for purged := false; !purged; {
		select {
		case r := <-reports:
			purged = r != nil && r.Tombstones == 1
		case <-deadline:
			t.Fatal("the second tombstone was never purged")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT count(*) FROM memories`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("memories left %d, %v", n, err)
	}
	// Each sweep that removed something is in the audit trail; empty ones
	// are not.
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT count(*) FROM memory_history WHERE memory_id = 'system'
		AND changed_by = 'retention-worker' AND actor_type = 'daemon' AND json_extract(metadata, '$.repairAction') = 'retention-sweep'`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("audited sweeps = %d, %v; want 2", n, err)
	}
}

// A disabled worker returns at once.
func TestRetentionDisabled(t *testing.T) {
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "r.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.DefaultConfig()
	cfg.Retention.Enabled = false
	if err := workers.RunRetention(context.Background(), app.New(db, cfg, app.Options{}), nil); err != nil {
		t.Fatal(err)
	}
}

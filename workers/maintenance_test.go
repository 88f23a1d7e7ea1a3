package workers_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
)

// The worker runs passes on its interval in execute mode as the daemon and
// stops with its context; RunMaintenance does not start it unless autonomy
// is enabled and not frozen.
func TestMaintenanceWorker(t *testing.T) {
	ap := pipelineService(t, func(c *config.Config) {
		c.Pipeline.Enabled = false
		c.Maintenance.AutonomousEnabled = true
	})
	svc := ap.Service
	ctx := context.Background()
	rememberN(t, svc, 5)
	if err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		now := storage.FormatTime(time.Now())
		_, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, memory_id, job_type, status, attempts, max_attempts, error, created_at, updated_at)
			SELECT 'j-' || id, id, 'extract', 'dead', 3, 3, 'boom', ?, ? FROM memories`, now, now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	runs := make(chan *ops.MaintenanceRun, 16)
	w := &workers.MaintenanceWorker{Svc: svc, Ops: ap.Ops, Mode: "execute", Interval: 20 * time.Millisecond,
		OnRun: func(r *ops.MaintenanceRun, err error) {
			if err != nil {
				t.Error(err)
			}
			runs <- r
		}}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	first := <-runs
	if len(first.Steps) != 1 || first.Steps[0].Action != ops.RepairRequeueDead || first.Steps[0].Result.Affected != 5 {
		t.Fatalf("first pass: %+v", first)
	}
	if second := <-runs; len(second.Recommendations) != 0 {
		t.Fatalf("second pass still recommends: %+v", second.Recommendations)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	frozen := pipelineService(t, func(c *config.Config) {
		c.Maintenance.AutonomousEnabled = true
		c.Maintenance.AutonomousFrozen = true
	})
	fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
	defer fcancel()
	if err := workers.RunMaintenance(fctx, frozen, nil); err != nil || fctx.Err() != nil {
		t.Fatalf("frozen maintenance should return at once: %v %v", err, fctx.Err())
	}
}

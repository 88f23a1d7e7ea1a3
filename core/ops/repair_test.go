package ops_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func TestRepairRequeueDeadAudited(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	ctx := context.Background()
	e.MustID(t, "The billing service runs on PostgreSQL with row level locking enabled.")
	e.MustID(t, "The deploy pipeline publishes container images to the internal registry.")
	if err := e.DB.WriteTx(ctx, func(tx storage.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memory_jobs SET status = 'dead', attempts = max_attempts, error = 'boom'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	dry, err := e.App.Ops.Repair(ctx, ops.RepairRequeueDead, core.Actor{Name: "alice"}, ops.RepairOptions{DryRun: true})
	if err != nil || dry.Affected != 2 || !dry.DryRun {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE status = 'dead'`); n != 2 {
		t.Fatalf("dry run changed jobs: %d dead", n)
	}
	res, err := e.App.Ops.Repair(ctx, ops.RepairRequeueDead, core.Actor{Name: "alice"}, ops.RepairOptions{BatchSize: 1})
	if err != nil || res.Affected != 1 || !res.Success {
		t.Fatalf("requeue = %+v, %v", res, err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE status = 'pending' AND attempts = 0`); n != 1 {
		t.Fatalf("pending after requeue = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND changed_by = 'alice'
		AND json_extract(metadata, '$.repairAction') = 'requeue-dead' AND json_extract(metadata, '$.affected') = 1`); n != 1 {
		t.Fatalf("audit rows = %d", n)
	}
	if _, err := e.App.Ops.Repair(ctx, "nope", core.Actor{}, ops.RepairOptions{}); err == nil {
		t.Fatal("unknown action accepted")
	}
}

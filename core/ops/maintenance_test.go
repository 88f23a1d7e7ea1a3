package ops_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func autonomous(c *config.Config) {
	apitest.NoPipeline(c)
	c.Maintenance.AutonomousEnabled = true
}

func recActions(recs []ops.Recommendation) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Action)
	}
	return out
}

func TestMaintenanceHealthyStoreRecommendsNothing(t *testing.T) {
	e := apitest.NewEnv(t, autonomous)
	e.MustID(t, "The deploy pipeline publishes container images to the internal registry.")
	run, err := e.App.Ops.RunMaintenance(context.Background(), "execute", ops.MaintenanceActor)
	if err != nil || len(run.Recommendations) != 0 || len(run.Steps) != 0 {
		t.Fatalf("run = %+v, %v", run, err)
	}
	if run.Before.Status != ops.StatusHealthy {
		t.Fatalf("before = %+v", run.Before)
	}
}

// Tombstones over the ratio: retention is recommended. Observe changes
// nothing; execute runs the sweep, which cannot help while the tombstones
// are inside their window, so after three such runs the action is halted;
// once they expire, a pass (halted actions are skipped) does nothing, but
// an operator's sweep frees the rows and the next recommendation is gone.
func TestMaintenanceObserveExecuteAndHalt(t *testing.T) {
	e := apitest.NewEnv(t, autonomous)
	ctx := context.Background()
	for i := range 10 {
		id := e.MustID(t, fmt.Sprintf("Note %d about the billing service and its invoices in region %d.", i, i))
		if i < 4 {
			e.Del(t, id, map[string]any{"reason": "obsolete"}).Want(t, 200)
		}
	}
	run, err := e.App.Ops.RunMaintenance(ctx, "observe", ops.MaintenanceActor)
	if err != nil || fmt.Sprint(recActions(run.Recommendations)) != "[retention-sweep]" || len(run.Steps) != 0 {
		t.Fatalf("observe: %+v %v", run, err)
	}
	for i := range ops.MaintenanceHaltAfter {
		run, err = e.App.Ops.RunMaintenance(ctx, "execute", ops.MaintenanceActor)
		if err != nil || len(run.Steps) != 1 || run.Steps[0].Improved || run.Steps[0].Result == nil || run.Steps[0].Result.Affected != 0 {
			t.Fatalf("execute %d: %+v %v", i, run, err)
		}
	}
	if st := e.App.Ops.MaintenanceStatus(); fmt.Sprint(st.Halted) != "[retention-sweep]" || st.Runs != 1+ops.MaintenanceHaltAfter {
		t.Fatalf("state: %+v", st)
	}
	run, _ = e.App.Ops.RunMaintenance(ctx, "execute", ops.MaintenanceActor)
	if len(run.Steps) != 0 || !run.Recommendations[0].Halted {
		t.Fatalf("a halted action ran: %+v", run)
	}
	recs, err := e.App.Ops.MaintenanceRecommendations(ctx)
	if err != nil || len(recs) != 1 || !recs[0].Halted {
		t.Fatalf("recommendations: %+v %v", recs, err)
	}
	// The repairs were audited as the maintenance worker.
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND changed_by = 'maintenance-worker' AND actor_type = 'daemon'`); n != ops.MaintenanceHaltAfter {
		t.Fatalf("audit rows = %d", n)
	}
	// Past the window, an operator's sweep helps and the tracker forgets.
	e.Clock.Advance(31 * 24 * time.Hour)
	res, err := e.App.Ops.Repair(ctx, ops.RepairRetentionSweep, core.Actor{Name: "alice"}, ops.RepairOptions{})
	if err != nil || res.Affected < 4 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	run, _ = e.App.Ops.RunMaintenance(ctx, "execute", ops.MaintenanceActor)
	if len(run.Recommendations) != 0 {
		t.Fatalf("after the sweep: %+v", run.Recommendations)
	}
}

func TestMaintenanceExecuteImprovesAndRespectsTheGate(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline) // autonomy off
	ctx := context.Background()
	for i := range 10 {
		e.MustID(t, fmt.Sprintf("Job source %d about the deploy schedule for region %d.", i, i))
	}
	e.Exec(t, `INSERT INTO memory_jobs (id, memory_id, job_type, status, attempts, max_attempts, error, created_at, updated_at)
		SELECT 'j-' || id, id, 'extract', 'dead', 3, 3, 'boom', ?, ? FROM memories`, storage.FormatTime(e.Clock.Now()), storage.FormatTime(e.Clock.Now()))
	run, err := e.App.Ops.RunMaintenance(ctx, "execute", ops.MaintenanceActor)
	if err != nil || len(run.Steps) != 1 || run.Steps[0].Action != ops.RepairRequeueDead || run.Steps[0].Error == "" {
		t.Fatalf("denied run: %+v %v", run, err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE status = 'dead'`); n != 10 {
		t.Fatalf("the gate let the daemon requeue: %d dead left", n)
	}
	// An operator may run a pass whatever the autonomy settings.
	run, err = e.App.Ops.RunMaintenance(ctx, "execute", core.Actor{Name: "alice", Type: core.ActorOperator})
	if err != nil || len(run.Steps) != 1 || !run.Steps[0].Improved || run.Steps[0].Result.Affected != 10 || run.After.Score <= run.Before.Score {
		t.Fatalf("operator run: %+v %v", run, err)
	}
}

func TestMaintenanceSingleFlightAndAPI(t *testing.T) {
	e := apitest.NewEnv(t, autonomous)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.App.Ops.RunMaintenance(context.Background(), "observe", ops.MaintenanceActor)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if ce := core.AsError(err); ce.Code != "maintenance_in_progress" {
			t.Fatalf("err = %v", err)
		}
	}
	if ok == 0 {
		t.Fatal("no pass ran")
	}
	r := e.Get(t, "/api/maintenance").Want(t, 200)
	if !r.Bool("enabled") || r.Str("mode") != "observe" {
		t.Fatalf("GET /api/maintenance: %s", r)
	}
	e.Post(t, "/api/maintenance/run", map[string]any{"mode": "fix-everything"}).WantInvalid(t, "mode", "mode must be observe or execute")
	e.Do(t, "POST", "/api/maintenance/run", nil, nil).Want(t, 200)
}

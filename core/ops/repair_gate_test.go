package ops

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/storage"
)

// The retention worker's sweep and the retention-sweep repair share one
// flight: while one runs the other is refused, and the flight is released
// after a refusal by the limiter.
func TestRetentionSharesRepairFlight(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "g.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.DefaultConfig()
	cfg.Maintenance.AutonomousEnabled = true
	s := New(core.NewService(db, cfg, core.ServiceOptions{}), vectors.New(db, cfg.Embedding, vectors.Options{}), jobs.New(db, cfg.PipelineV2, nil))
	release, err := s.repair.acquire(RepairRetentionSweep)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RetentionSweep(ctx); !errors.Is(err, &core.Error{Code: CodeRepairInProgress}) {
		t.Fatalf("sweep during a repair: %v", err)
	}
	if _, err := s.Repair(ctx, RepairRetentionSweep, core.Actor{}, RepairOptions{}); !errors.Is(err, &core.Error{Code: CodeRepairInProgress}) {
		t.Fatalf("repair during a sweep: %v", err)
	}
	release()
	if _, err := s.RetentionSweep(ctx); err != nil {
		t.Fatal(err)
	}
	// An agent refused by the cooldown does not keep the action busy.
	agent := core.Actor{Name: "a", Type: core.ActorAgent}
	if _, err := s.Repair(ctx, RepairRetentionSweep, agent, RepairOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repair(ctx, RepairRetentionSweep, agent, RepairOptions{}); !errors.Is(err, &core.Error{Code: CodeRepairCooldown}) {
		t.Fatalf("second agent run: %v", err)
	}
	if _, err := s.Repair(ctx, RepairRetentionSweep, core.Actor{}, RepairOptions{}); err != nil {
		t.Fatalf("operator after a refused agent: %v", err)
	}
}

func TestActorClass(t *testing.T) {
	for typ, want := range map[string]string{
		core.ActorOperator: core.ActorOperator, core.ActorSDK: core.ActorOperator, "": core.ActorOperator,
		core.ActorAgent: core.ActorAgent, core.ActorHarness: core.ActorAgent,
		core.ActorDaemon: core.ActorDaemon, core.ActorPipeline: core.ActorDaemon,
	} {
		if got := actorClass(typ); got != want {
			t.Errorf("actorClass(%q) = %q, want %q", typ, got, want)
		}
	}
}

package ops_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
)

// The status of /health, /api/status and /api/pipeline/status: the queue
// with every status present, and the pipeline's run-time state as the
// workers report it.
func TestQueueCountsAndPipelineStatus(t *testing.T) {
	t.Parallel()
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	q, err := e.App.Ops.QueueCounts(ctx)
	if err != nil || len(q) != 5 || q["pending"] != 0 || q["dead"] != 0 {
		t.Fatalf("empty queue: %v %v", q, err)
	}
	e.MustID(t, "The deploy window is Tuesday at noon.") // an extract job
	if q, _ = e.App.Ops.QueueCounts(ctx); q["pending"] != 1 || q["completed"] != 0 {
		t.Fatalf("queue: %v", q)
	}

	rt := e.Svc.PipelineRuntime()
	rt.SetProvider("ollama", false, errors.New("connection refused"))
	rt.RecordError(errors.New("boom"), apitest.ClockStart)
	rt.RecordProcessed()
	rt.WorkerStarted()
	stop := rt.WorkerRunning(core.WorkerExtraction)
	st, err := e.App.Ops.PipelineStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st["mode"] != e.Svc.PipelineMode() || st["provider"] != "ollama" || st["providerAvailable"] != false ||
		st["providerError"] != "connection refused" || st["lastError"] != "boom" || st["lastErrorAt"] != "2026-03-01T12:00:00.000Z" ||
		st["processed"] != int64(1) || st["failed"] != int64(1) || st["workersRunning"] != int32(1) ||
		st["allowUpdateDelete"] != e.Svc.Config().PipelineV2.AllowUpdateDelete {
		t.Fatalf("pipeline status: %v", st)
	}
	if w := st["workers"].(map[string]any)[core.WorkerExtraction].(map[string]any); w["running"] != true || w["goroutines"] != int32(1) {
		t.Fatalf("workers: %v", st["workers"])
	}
	if st["queue"].(map[string]int)["pending"] != 1 || st["queueByType"].(map[string]map[string]int)[jobs.Extract]["pending"] != 1 {
		t.Fatalf("queue: %v %v", st["queue"], st["queueByType"])
	}
	stop()
	rt.WorkerStopped()
	st, _ = e.App.Ops.PipelineStatus(ctx)
	if w := st["workers"].(map[string]any)[core.WorkerExtraction].(map[string]any); w["running"] != false || st["workersRunning"] != int32(0) {
		t.Fatalf("after the worker stopped: %v", st)
	}
	if ps := rt.Provider(); ps.Provider != "ollama" || ps.Available || ps.ProviderError != "connection refused" || ps.LastError != "boom" {
		t.Fatalf("provider: %+v", ps)
	}
}

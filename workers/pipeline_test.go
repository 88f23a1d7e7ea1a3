package workers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"github.com/cairnmem/cairn/workers/llm"
)

func pipelineService(tb testing.TB, mods ...func(*config.Config)) *app.App {
	tb.Helper()
	cfg := config.DefaultConfig()
	cfg.Embedding.Provider = "none"
	for _, m := range mods {
		m(&cfg)
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(tb.TempDir(), "p.db"), NoBackup: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return app.New(db, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

var topics = []string{"billing", "deploys", "search", "auth", "metrics", "backups", "queues", "caching"}

func rememberN(tb testing.TB, svc *core.Service, n int) {
	tb.Helper()
	for i := range n {
		t := topics[i%len(topics)]
		content := fmt.Sprintf("We decided to move the %s service %d to Go because the old runtime leaked memory. The %s team prefers small releases every Tuesday.", t, i, t)
		if _, err := svc.Remember(context.Background(), core.RememberInput{Content: content}, core.Actor{}); err != nil {
			tb.Fatal(err)
		}
	}
}

func waitQueue(t *testing.T, ap *app.App, done func(map[string]int) bool) map[string]int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := ap.Ops.QueueCounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if done(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue never settled: %v", c)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The worker drains the queue with several goroutines, every job completes
// exactly once, a lease left by a killed process is reaped and run, and Run
// returns when its context ends.
func TestPipelineWorkerRunDrainsQueue(t *testing.T) {
	ap := pipelineService(t)
	svc := ap.Service
	rememberN(t, svc, 12)
	ctx := context.Background()
	// A job leased by a process that died an hour ago.
	orphan, err := ap.Jobs.Lease(ctx, "dead-process", jobs.Extract)
	if err != nil || orphan == nil {
		t.Fatal(err)
	}
	if err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memory_jobs SET leased_at = ? WHERE id = ?`, storage.FormatTime(time.Now().Add(-time.Hour)), orphan.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}

	w := &workers.PipelineWorker{Svc: svc, Jobs: ap.Jobs, Pipeline: ap.Pipeline, LLM: llm.NewHeuristic(), Concurrency: 3, Poll: 10 * time.Millisecond, ReapEvery: 50 * time.Millisecond}
	rctx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(rctx) }()
	c := waitQueue(t, ap, func(c map[string]int) bool { return c["completed"] == 12 })
	if st, _ := ap.Ops.PipelineStatus(ctx); st["workers"].(map[string]any)["extraction"].(map[string]any)["running"] != true {
		t.Fatalf("status does not show the extraction worker running: %v", st["workers"])
	}
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if c["pending"]+c["leased"]+c["dead"] != 0 {
		t.Fatalf("queue: %v", c)
	}
	// The heuristic provider extracts each memory's own sentences: every
	// job read them and proposed nothing (they restate their source).
	var props, events, screened int
	r := svc.DB().Reader()
	r.QueryRowContext(ctx, `SELECT count(*) FROM pipeline_proposals`).Scan(&props)
	r.QueryRowContext(ctx, `SELECT count(*) FROM memory_history WHERE changed_by = 'pipeline-shadow'`).Scan(&events)
	r.QueryRowContext(ctx, `SELECT count(*) FROM memory_jobs WHERE status = 'completed'
		AND json_extract(result, '$.screened.restates_source') = 2`).Scan(&screened)
	if props != 0 || events != 0 || screened != 12 {
		t.Fatalf("proposals=%d history=%d jobs screening both sentences=%d", props, events, screened)
	}
	j, _ := ap.Jobs.Get(ctx, orphan.ID)
	if j.Status != "completed" || j.Attempts != 2 {
		t.Fatalf("orphaned job: %+v", j)
	}
	st, _ := ap.Ops.PipelineStatus(ctx)
	if st["workers"].(map[string]any)["extraction"].(map[string]any)["running"] != false {
		t.Fatalf("a stopped worker is reported running: %v", st["workers"])
	}
	if st["provider"] != "heuristic" || st["processed"].(int64) < 11 {
		t.Fatalf("status: %v", st)
	}
}

// A provider that always fails: jobs retry with backoff and go dead after
// max_attempts; the memory is marked failed and the error is recorded.
func TestPipelineWorkerDeadLetters(t *testing.T) {
	ap := pipelineService(t, func(c *config.Config) { c.PipelineV2.MaxAttempts = 2 })
	svc := ap.Service
	rememberN(t, svc, 1)
	w := &workers.PipelineWorker{Svc: svc, Jobs: ap.Jobs, Pipeline: ap.Pipeline, LLM: failingLLM{}, Concurrency: 1}
	ctx := context.Background()
	for i := range 2 {
		// Skip the backoff: make the job due.
		if err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE memory_jobs SET next_attempt_at = NULL`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		worked, err := w.Step(ctx, "w")
		if !worked || err == nil {
			t.Fatalf("step %d: worked=%v err=%v", i, worked, err)
		}
	}
	dead, _ := ap.Jobs.List(ctx, jobs.Filter{Status: "dead"}, 10)
	if len(dead) != 1 || dead[0].Attempts != 2 || dead[0].Error == "" {
		t.Fatalf("dead jobs: %+v", dead)
	}
	var status string
	svc.DB().Reader().QueryRowContext(ctx, `SELECT extraction_status FROM memories`).Scan(&status)
	if status != "failed" {
		t.Fatalf("extraction_status = %q", status)
	}
}

type failingLLM struct{}

func (failingLLM) Name() string { return "broken" }
func (failingLLM) Generate(ctx context.Context, prompt string, _ extract.GenerateOptions) (string, error) {
	return "", fmt.Errorf("model server said 500")
}

// BenchmarkPipelineHeuristic measures jobs per second through the queue
// with the heuristic provider in shadow mode: lease, extract, decide (a
// hybrid recall per fact), record proposals and history, complete.
func BenchmarkPipelineHeuristic(b *testing.B) {
	ap := pipelineService(b)
	svc := ap.Service
	w := &workers.PipelineWorker{Svc: svc, Jobs: ap.Jobs, Pipeline: ap.Pipeline, LLM: llm.NewHeuristic()}
	rememberN(b, svc, b.N)
	b.ResetTimer()
	for range b.N {
		if worked, err := w.Step(context.Background(), "bench"); !worked || err != nil {
			b.Fatal(worked, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkQueueOverhead is the queue's own cost per job: enqueue, lease
// (with the fairness pick) and complete, with no work in between.
func BenchmarkQueueOverhead(b *testing.B) {
	ap := pipelineService(b, func(c *config.Config) { c.Pipeline.Enabled = false })
	ctx := context.Background()
	for i := range 1000 { // a queue with history, as in use
		if _, err := ap.Jobs.Enqueue(ctx, fmt.Sprintf("old-%d", i), "extract", ""); err != nil {
			b.Fatal(err)
		}
		j, _ := ap.Jobs.Lease(ctx, "w")
		if err := ap.Jobs.Complete(ctx, j, map[string]any{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := ap.Jobs.Enqueue(ctx, fmt.Sprintf("m-%d", i), "extract", ""); err != nil {
			b.Fatal(err)
		}
		j, err := ap.Jobs.Lease(ctx, "w")
		if err != nil || j == nil {
			b.Fatal(err)
		}
		if err := ap.Jobs.Complete(ctx, j, map[string]any{"status": "completed"}); err != nil {
			b.Fatal(err)
		}
	}
}

package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// PipelineWorker runs extract jobs from the queue: Concurrency goroutines
// lease, process (core.Service.ProcessExtractJob) and fail jobs, backing off
// on consecutive failures, and a reaper returns stale leases.
type PipelineWorker struct {
	Svc         *core.Service
	Jobs        *jobs.Queue
	Pipeline    *pipeline.Pipeline
	LLM         extract.LLM
	Concurrency int
	// Poll is how often an idle worker looks for jobs; zero means
	// config.DefaultPipelineV2PollInterval.
	Poll time.Duration
	Log  *slog.Logger
	// ReapEvery is how often stale leases are reaped; default
	// min(60 s, lease timeout / 2).
	ReapEvery time.Duration
}

// NewPipelineWorker builds the worker from the service's configuration,
// choosing the provider with llm.New (auto is the heuristic). A provider
// that cannot be built is returned as an error and reported in the
// status; it is never silently swapped for another. A model is metered
// (llm.Budgeted): its calls and tokens per day are recorded, and past
// pipeline_v2.daily_token_budget the heuristic answers until the day ends,
// reported in the error log and the status.
func NewPipelineWorker(ap *app.App, log *slog.Logger) (*PipelineWorker, error) {
	svc := ap.Service
	cfg := svc.Config().PipelineV2
	m, err := llm.New(cfg.Provider, llm.Config{Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL,
		APIKey: cfg.APIKey, Timeout: cfg.Timeout.D()})
	if err != nil {
		svc.PipelineRuntime().SetProvider(cfg.Provider, false, err)
		return nil, err
	}
	if m.Name() != llm.ProviderHeuristic {
		log := logOrDiscard(log)
		m = &llm.Budgeted{Model: m, DB: svc.DB(), Budget: cfg.DailyTokenBudget, Now: svc.Now,
			Spent: func(day string, used, budget int64) {
				msg := fmt.Sprintf("the daily model budget is spent (%d of %d tokens on %s, pipeline_v2.daily_token_budget): the heuristic extractor learns until the day ends", used, budget, day)
				log.Warn(msg)
				svc.Analytics().RecordError(analytics.ErrorEvent{Stage: analytics.StageExtraction, Code: analytics.CodeModelBudgetSpent, Message: msg, Actor: core.PipelineActorName})
			}}
	}
	return &PipelineWorker{Svc: svc, Jobs: ap.Jobs, Pipeline: ap.Pipeline, LLM: m, Concurrency: cfg.Concurrency, Poll: cfg.PollInterval.D(), Log: log}, nil
}

// RunPipeline starts the pipeline worker for svc until ctx ends. It returns
// nil (after logging) when the pipeline is disabled or its provider fails
// to build: the API keeps running and the status says why.
func RunPipeline(ctx context.Context, ap *app.App, log *slog.Logger) error {
	log = logOrDiscard(log)
	svc := ap.Service
	if !svc.Config().Pipeline.Enabled {
		log.Info("pipeline disabled")
		return nil
	}
	w, err := NewPipelineWorker(ap, log)
	if err != nil {
		log.Error("pipeline provider unavailable; extraction jobs stay queued", "provider", svc.Config().PipelineV2.Provider, "err", err)
		return nil
	}
	return w.Run(ctx)
}

// Run processes jobs until ctx ends.
func (w *PipelineWorker) Run(ctx context.Context) error {
	defer w.Svc.PipelineRuntime().WorkerRunning(core.WorkerExtraction)()
	log := logOrDiscard(w.Log)
	n := min(max(w.Concurrency, 1), 8)
	poll := w.Poll
	if poll <= 0 {
		poll = config.DefaultPipelineV2PollInterval
	}
	rt := w.Svc.PipelineRuntime()
	rt.SetProvider(w.LLM.Name(), true, nil)
	log.Info("pipeline worker started", "provider", w.LLM.Name(), "mode", w.Svc.PipelineMode(), "concurrency", n)
	reap := reapInterval(w.ReapEvery, w.Svc)
	runPool(ctx, n, "", reap, func() { reapLeases(ctx, w.Jobs, log) }, func(owner string) {
		rt.WorkerStarted()
		defer rt.WorkerStopped()
		w.loop(ctx, owner, poll, log)
	})
	return nil
}

// runPool runs loop in n goroutines, each with its own lease owner name
// (host/pid/tag+random-i), beside reap every reapEvery (first at once),
// until ctx ends and every goroutine has returned.
func runPool(ctx context.Context, n int, tag string, reapEvery time.Duration, reap func(), loop func(owner string)) {
	host, _ := os.Hostname()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(reapEvery)
		defer t.Stop()
		for {
			reap()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	for i := range n {
		owner := fmt.Sprintf("%s/%d/%s%s-%d", host, os.Getpid(), tag, core.NewID()[:8], i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop(owner)
		}()
	}
	wg.Wait()
}

// reapLeases returns stale leases to the queue and logs what it did.
func reapLeases(ctx context.Context, q *jobs.Queue, log *slog.Logger) {
	if r, d, err := q.ReapStaleLeases(ctx); err != nil && ctx.Err() == nil {
		log.Warn("reap stale leases", "err", err)
	} else if r+d > 0 {
		log.Info("reaped stale job leases", "returned", r, "dead", d)
	}
}

func (w *PipelineWorker) loop(ctx context.Context, owner string, poll time.Duration, log *slog.Logger) {
	rt := w.Svc.PipelineRuntime()
	throttle := w.Svc.Foreground().NewThrottle() // extraction yields to foreground requests
	pollLoop(ctx, poll, func() (bool, error) {
		if _, err := throttle.Wait(ctx); err != nil {
			return false, nil
		}
		return w.Step(ctx, owner)
	}, func(err error, failures int) {
		rt.RecordError(err, time.Now())
		log.Warn("pipeline job failed", "err", err, "consecutive", failures)
	})
}

// pollLoop runs step until ctx ends: again at once after a job, after
// poll when the queue is empty, and after an exponential backoff with
// jitter (1 s doubling to 30 s, plus up to 500 ms) on consecutive
// failures, each reported to failed.
func pollLoop(ctx context.Context, poll time.Duration, step func() (bool, error), failed func(err error, consecutive int)) {
	failures := 0
	for ctx.Err() == nil {
		wait := poll
		worked, err := step()
		switch {
		case err != nil && ctx.Err() == nil:
			failures++
			failed(err, failures)
			wait = min(time.Second<<min(failures, 5), 30*time.Second) + time.Duration(rand.Int64N(int64(500*time.Millisecond)))
		case worked:
			failures = 0
			continue // look for the next job at once
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// Step leases and runs at most one extract or session_extract job. It reports whether a job
// was found; a job's failure is recorded on the job (retry or dead) and
// returned.
func (w *PipelineWorker) Step(ctx context.Context, owner string) (bool, error) {
	job, err := w.Jobs.Lease(ctx, owner, jobs.PipelineTypes...)
	if err != nil || job == nil {
		return false, err
	}
	defer w.Svc.Analytics().Since(analytics.LatencyJobs, time.Now())
	p := w.Pipeline
	var perr error
	switch {
	case job.JobType == jobs.ProspectiveIndex:
		_, perr = p.ProcessHintsJob(ctx, job, w.LLM)
	case job.JobType == jobs.SessionScore:
		_, perr = p.ProcessScoreJob(ctx, job, w.LLM)
	case job.JobType == jobs.StructuralClassify:
		_, perr = p.ProcessClassifyJob(ctx, job, w.LLM)
	default:
		_, perr = p.ProcessExtractJob(ctx, job, w.LLM)
		if perr == nil && job.JobType == jobs.Extract && job.MemoryID != "" && p.WantsModelHints(w.LLM) {
			// The model writes the memory's questions next
			// (docs/design/pipeline.md, "Prospective indexing with a model").
			if err := p.EnqueueHints(ctx, job.MemoryID); err != nil {
				logOrDiscard(w.Log).Warn("queue prospective index", "memory", job.MemoryID, "err", err)
			}
		}
		if perr == nil && job.JobType == jobs.Extract && job.MemoryID != "" && p.WantsClassify(w.LLM) {
			// The model files the memory's entities under their aspects.
			if err := p.EnqueueClassify(ctx, job.MemoryID); err != nil {
				logOrDiscard(w.Log).Warn("queue structural classification", "memory", job.MemoryID, "err", err)
			}
		}
		if perr == nil && job.JobType == jobs.SessionExtract && p.WantsModelScore(w.LLM) {
			// With the transcript read, the model scores the session.
			var pl struct {
				SessionKey string `json:"session_key"`
			}
			if json.Unmarshal([]byte(job.Payload), &pl) == nil && pl.SessionKey != "" {
				if err := p.EnqueueSessionScore(ctx, pl.SessionKey); err != nil {
					logOrDiscard(w.Log).Warn("queue session score", "session", pl.SessionKey, "err", err)
				}
			}
		}
	}
	if perr == nil {
		w.Svc.PipelineRuntime().RecordProcessed()
		return true, nil
	}
	if errors.Is(perr, storage.ErrLeaseLost) {
		return true, perr // another worker owns it now; nothing was written
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	dead, ferr := w.Jobs.Fail(fctx, job, perr)
	if ferr != nil {
		return true, errors.Join(perr, ferr)
	}
	if dead {
		return true, fmt.Errorf("job %s dead after %d attempts: %w", job.ID, job.Attempts, perr)
	}
	return true, perr
}

package core

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// Pipeline V2 (seed 001 "Pipeline V2", seed 003, reference section 7.1): a
// memory is stored first, then an extract job turns it into atomic facts,
// each fact is compared with its nearest memories and a proposal (add,
// update, delete, none) is recorded or, in controlled-write mode, applied
// through the one write path. No model call runs inside a transaction.

// Job types.
const (
	JobExtract = "extract"
	// JobSessionExtract extracts facts from a session's transcript (queued
	// by the session-end hook). Its proposals name "session:<key>" as their
	// source.
	JobSessionExtract = "session_extract"
)

// ExtractJobTypes are the job types ProcessExtractJob runs.
var ExtractJobTypes = []string{JobExtract, JobSessionExtract}

// JobProspectiveIndex has the pipeline's model write a memory's hints
// (hints.llm).
const JobProspectiveIndex = "prospective_index"

// JobSessionScore has the pipeline's model score how useful a session's
// injected memories were (continuity scoring).
const JobSessionScore = "session_score"

// JobStructuralClassify has the pipeline's model file an entity's
// memories under its aspects (pipeline/classify_job.go).
const JobStructuralClassify = "structural_classify"

// PipelineJobTypes are the jobs the pipeline worker leases.
var PipelineJobTypes = []string{JobExtract, JobSessionExtract, JobProspectiveIndex, JobSessionScore, JobStructuralClassify}

// Pipeline actor names.
const (
	PipelineActorName = "pipeline-v2"
	PipelineShadowBy  = "pipeline-shadow"
)

var PipelineActor = Actor{Name: PipelineActorName, Type: ActorPipeline}

// PipelineRuntime is what the running worker reports for
// /api/pipeline/status.
type PipelineRuntime struct {
	mu                sync.Mutex
	workers           atomic.Int32
	provider          string
	providerAvailable bool
	providerError     string
	lastError         string
	lastErrorAt       string
	processed         atomic.Int64
	failed            atomic.Int64
	running           sync.Map // worker name → *atomic.Int32
}

// PipelineRuntime returns the service's pipeline run-time state.
func (s *Service) PipelineRuntime() *PipelineRuntime { return &s.runtime }

// Background workers by name, as /api/pipeline/status reports them.
const (
	WorkerExtraction  = "extraction"
	WorkerDocument    = "document"
	WorkerRetention   = "retention"
	WorkerMaintenance = "maintenance"
	WorkerEmbedding   = "embedding"
)

// WorkerRunning marks the named background worker running until the
// returned function is called.
func (s *Service) WorkerRunning(name string) (stopped func()) {
	v, _ := s.runtime.running.LoadOrStore(name, new(atomic.Int32))
	n := v.(*atomic.Int32)
	n.Add(1)
	return func() { n.Add(-1) }
}

// Workers reports which background workers run (goroutines per worker).
func (s *Service) Workers() map[string]any {
	out := map[string]any{}
	for _, name := range []string{WorkerExtraction, WorkerDocument, WorkerRetention, WorkerMaintenance, WorkerEmbedding} {
		n := int32(0)
		if v, ok := s.runtime.running.Load(name); ok {
			n = v.(*atomic.Int32).Load()
		}
		out[name] = map[string]any{"running": n > 0, "goroutines": n}
	}
	return out
}

// SetProvider records the chosen provider and whether it is usable.
func (r *PipelineRuntime) SetProvider(name string, available bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.provider, r.providerAvailable, r.providerError = name, available, ""
	if err != nil {
		r.providerError = err.Error()
	}
}

// WorkerStarted and WorkerStopped count running worker goroutines.
func (r *PipelineRuntime) WorkerStarted() { r.workers.Add(1) }

// WorkerStopped is the counterpart of WorkerStarted.
func (r *PipelineRuntime) WorkerStopped() { r.workers.Add(-1) }

// RecordError remembers the last job error.
func (r *PipelineRuntime) RecordError(err error, at time.Time) {
	r.failed.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastError, r.lastErrorAt = err.Error(), storage.FormatTime(at)
}

// RecordProcessed counts a processed job.
func (r *PipelineRuntime) RecordProcessed() { r.processed.Add(1) }

func (s *Service) PipelineStatus(ctx context.Context) (map[string]any, error) {
	byStatus, byType, err := storage.JobCounts(ctx, s.db.Reader())
	if err != nil {
		return nil, err
	}
	// A model's calls and tokens per day (the last week), and whether
	// today's budget is spent (the heuristic then learns).
	today := s.Now().UTC()
	usage, err := storage.ModelUsageSince(ctx, s.db.Reader(), today.AddDate(0, 0, -6).Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	var spentToday int64
	for _, u := range usage {
		if u.Day == today.Format(time.DateOnly) {
			spentToday += u.InputTokens + u.OutputTokens
		}
	}
	rt := s.PipelineRuntime()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return map[string]any{
		"mode":              s.PipelineMode(),
		"workersRunning":    rt.workers.Load(),
		"workers":           s.Workers(),
		"queue":             byStatus,
		"queueByType":       byType,
		"provider":          rt.provider,
		"providerAvailable": rt.providerAvailable,
		"providerError":     rt.providerError,
		"lastError":         rt.lastError,
		"lastErrorAt":       rt.lastErrorAt,
		"processed":         rt.processed.Load(),
		"failed":            rt.failed.Load(),
		"allowUpdateDelete": s.cfg.PipelineV2.AllowUpdateDelete,
		"modelUsage":        usage,
		"dailyTokenBudget":  s.cfg.PipelineV2.DailyTokenBudget,
		"tokensToday":       spentToday,
		"budgetSpent":       spentToday >= s.cfg.PipelineV2.DailyTokenBudget,
	}, nil
}

// noteExtraction records a pipeline error in the analytics error ring.

// PipelineMode names the pipeline's effective mode.
func (s *Service) PipelineMode() string {
	p := s.cfg.Pipeline
	switch {
	case !p.Enabled:
		return "disabled"
	case s.MutationsFrozen():
		return "frozen"
	case p.ShadowMode:
		return "shadow"
	}
	return "controlled-write"
}

// EmptyExtractionsMax is how many empty extractions in a row degrade the
// provider (the pipeline counts the streak, diagnostics reports it).
const EmptyExtractionsMax = 5

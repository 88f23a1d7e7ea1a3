package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// The pipeline (docs/design/pipeline.md): a memory is stored first, then an
// extract job turns it into atomic facts, each fact is compared with its
// nearest memories and decided (add, update, delete, none); a proposal is
// recorded for each but none or, in controlled-write mode, applied through
// the one write path. No model call runs inside a transaction.

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
func (r *PipelineRuntime) WorkerRunning(name string) (stopped func()) {
	v, _ := r.running.LoadOrStore(name, new(atomic.Int32))
	n := v.(*atomic.Int32)
	n.Add(1)
	return func() { n.Add(-1) }
}

// Workers reports which background workers run (goroutines per worker).
func (r *PipelineRuntime) Workers() map[string]any {
	out := map[string]any{}
	for _, name := range []string{WorkerExtraction, WorkerDocument, WorkerRetention, WorkerMaintenance, WorkerEmbedding} {
		n := int32(0)
		if v, ok := r.running.Load(name); ok {
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

// ProviderState is the extraction provider as the pipeline last saw it.
type ProviderState struct {
	Provider      string // the provider the workers resolved
	Available     bool
	ProviderError string // why the provider is not available
	LastError     string // the pipeline's last job error
}

// Provider returns the extraction provider's state.
func (r *PipelineRuntime) Provider() ProviderState { return r.State().ProviderState }

// RuntimeState is the pipeline's run-time state at one moment, for
// /api/pipeline/status.
type RuntimeState struct {
	ProviderState
	LastErrorAt       string
	WorkersRunning    int32
	Processed, Failed int64
}

// State returns the pipeline's run-time state.
func (r *PipelineRuntime) State() RuntimeState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RuntimeState{
		ProviderState: ProviderState{Provider: r.provider, Available: r.providerAvailable, ProviderError: r.providerError,
			LastError: r.lastError},
		LastErrorAt: r.lastErrorAt, WorkersRunning: r.workers.Load(), Processed: r.processed.Load(), Failed: r.failed.Load(),
	}
}

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

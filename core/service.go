package core

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/storage"
	"github.com/google/uuid"
)

// Service is cairn's domain: the memory lifecycle, search and history on top
// of one storage.DB. The HTTP API, the CLI, the TUI and the workers all call
// it; it is the one write path.
type Service struct {
	vectors *vectors.Vectors // the embedder, the vector index and the provider's health
	db      *storage.DB
	cfg     config.Config
	now     func() time.Time
	log     *slog.Logger
	frozen  atomic.Bool
	events  broker
	runtime PipelineRuntime
	redact  Redactor    // secrets redacted from what is stored, counted (redact.go)
	rerank  modelRerank // recall's reranking by a model (rerank.go)
	fg      *Foreground // requests in flight, for background work to yield to

	keyword keywordIndex // the in-memory keyword index (keyindex.go)

	analytics *analytics.Analytics // in-memory usage, errors and latencies
}

// ServiceOptions are optional dependencies of a Service.
type ServiceOptions struct {
	// Now replaces the clock (tests move it to check time windows).
	Now func() time.Time
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Vectors embeds memories and serves the vector leg of recall; nil, or
	// one without an embedder, turns the vector leg off (recall is then
	// keyword-only and says so).
	Vectors *vectors.Vectors
	// Reranker reorders recall's best candidates (reranker.enabled); nil
	// leaves recall's order as fused.
	Reranker Reranker
	// Analytics keeps usage, errors and latencies; nil starts empty ones.
	Analytics *analytics.Analytics
	// Foreground counts the requests in flight, which background work
	// yields to; nil counts them in the Service's own.
	Foreground *Foreground
}

// NewService returns a Service over db configured by cfg.
func NewService(db *storage.DB, cfg config.Config, opts ServiceOptions) *Service {
	s := &Service{db: db, cfg: cfg, now: opts.Now, log: opts.Logger, vectors: opts.Vectors,
		analytics: opts.Analytics, fg: opts.Foreground}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.keyword.db, s.keyword.log = db, s.log
	s.rerank.model, s.rerank.cfg, s.rerank.log = opts.Reranker, cfg.Reranker, s.log
	s.frozen.Store(cfg.Pipeline.MutationsFrozen)
	if s.analytics == nil {
		s.analytics = analytics.NewAnalytics(s.now)
	}
	if s.fg == nil {
		s.fg = new(Foreground)
	}
	if s.vectors == nil {
		s.vectors = vectors.New(db, cfg.Embedding, vectors.Options{Now: s.now, Logger: s.log, Analytics: s.analytics})
	}
	return s
}

// Config returns the configuration the service runs with.
func (s *Service) Config() config.Config { return s.cfg }

// DB returns the underlying store.
func (s *Service) DB() *storage.DB { return s.db }

// SetMutationsFrozen turns the kill switch on or off at run time.
func (s *Service) SetMutationsFrozen(on bool) { s.frozen.Store(on) }

// MutationsFrozen reports whether the kill switch is on.
func (s *Service) MutationsFrozen() bool { return s.frozen.Load() }

func (s *Service) CheckFrozen() error {
	if s.frozen.Load() {
		return ErrFrozen
	}
	return nil
}

// Timestamp is the service clock's now in the store's time format.
func (s *Service) Timestamp() string { return storage.FormatTime(s.now()) }

// NewID returns a new time-ordered UUID (v7).
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// Actor is who asked for a change, recorded in every history event.
type Actor struct {
	Name      string // e.g. "operator", "claude-code", "pipeline-v2"
	Type      string // operator, agent, harness, pipeline, sdk, daemon
	SessionID string
	RequestID string
}

// Actor types.
const (
	ActorOperator = "operator"
	ActorAgent    = "agent"
	ActorHarness  = "harness"
	ActorPipeline = "pipeline"
	ActorSDK      = "sdk"
	ActorDaemon   = "daemon"
)

// ValidActorType reports whether t is a known actor type.
func ValidActorType(t string) bool {
	switch t {
	case ActorOperator, ActorAgent, ActorHarness, ActorPipeline, ActorSDK, ActorDaemon:
		return true
	}
	return false
}

// Normalized fills in a missing name and type (operator).
func (a Actor) Normalized() Actor {
	if a.Name == "" {
		a.Name = "operator"
	}
	if !ValidActorType(a.Type) {
		a.Type = ActorOperator
	}
	return a
}

// Stats returns memory counts.
func (s *Service) Stats(ctx context.Context) (storage.MemoryStats, error) {
	return storage.Stats(ctx, s.db.Reader())
}

// Logger returns the service's structured logger.
func (s *Service) Logger() *slog.Logger { return s.log }

// Now returns the service clock's current time.
func (s *Service) Now() time.Time { return s.now() }

// Analytics returns the service's analytics.
func (s *Service) Analytics() *analytics.Analytics { return s.analytics }

// EvolutionTx lends evolution the write path inside tx, on behalf of
// actor: its time, history events (by actor, or by the pipeline for the
// contradiction detector's proposals), and soft delete and recover with
// their checks (ForgetTx, RecoverTx). Core's own writes and the pipeline's
// use it to call evolution inside their transactions.
func (s *Service) EvolutionTx(tx storage.Tx, actor Actor) evolution.Tx {
	record := func(as Actor) func(context.Context, string, string, string, map[string]any) error {
		return func(ctx context.Context, id, event, reason string, meta map[string]any) error {
			return s.AddHistory(ctx, tx, id, event, nil, nil, as, reason, meta)
		}
	}
	return evolution.Tx{
		Tx:                  tx,
		Stamp:               s.Timestamp(),
		SupersedeAttributes: s.cfg.Memory.SupersedeAttributes,
		Log:                 s.log,
		Record:              record(actor),
		RecordPipeline:      record(PipelineActor),
		Forget: func(ctx context.Context, id, reason string, ifVersion *int64, force bool) (string, error) {
			res, err := s.ForgetTx(ctx, tx, ForgetInput{ID: id, Reason: reason, IfVersion: ifVersion, Force: force}, actor)
			if res == nil {
				return "", err
			}
			return res.Status, err
		},
		Restore: func(ctx context.Context, id, reason string, meta map[string]any) (bool, error) {
			res, err := s.RecoverTx(ctx, tx, RecoverInput{ID: id, Reason: reason, meta: meta, keepAttributes: true}, actor)
			if res == nil {
				return false, err
			}
			return res.Status == "recovered", nil
		},
	}
}

// Package app is cairn's composition root: New builds the Service of one
// open store and every subsystem on it, once, with their dependencies
// spelled out, and hands them over as one typed struct. The HTTP API
// (core/httpapi), the workers, the terminal UI's local client and the
// commands of package main all take what they need from an App; nothing
// else constructs a subsystem, so every caller of a store shares one
// instance of each (caches, single-flight repairs, halted actions, the
// sessions' activity).
//
// app may import every domain package; no domain package imports it.
package app

import (
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/core/vectors"
	"github.com/cairnmem/cairn/storage"
)

// App is one open store with its Service and subsystems.
type App struct {
	// Service is the memory lifecycle (the one write path) and recall.
	Service *core.Service
	// Vectors: the embedder, the vector index and the pending embeddings.
	Vectors *vectors.Vectors
	// Jobs: the job queue the workers lease from.
	Jobs *jobs.Queue
	// Ops: diagnostics, repairs, maintenance and retention.
	Ops *ops.Ops
	// Pipeline: extraction, decisions, proposals and the graph's writes.
	Pipeline *pipeline.Pipeline
	// Documents: document ingest into chunked memories.
	Documents *documents.Documents
	// Connectors: folders synced into documents.
	Connectors *connectors.Connectors
	// Graph: the knowledge graph's entities, relations and mentions.
	Graph *graph.Graph
	// Hooks: the agent hook flows and project identity.
	Hooks *hooks.Hooks
	// Sessions: the agent sessions, their transcripts and continuity.
	Sessions *sessions.Sessions
	// Predictor: the learned ranker (trained by the predictor worker).
	Predictor *ranker.Predictor
	// Feedback: aspect feedback (applied and revised as sessions are scored).
	Feedback *ranker.Feedback
	// Transfer: JSONL export and import, Signet import.
	Transfer *transfer.Transfer
}

// Options are the optional dependencies of an App: the clock, the logger
// and the model providers (built by the caller from the configuration, so
// that this package needs none of them).
type Options struct {
	// Now replaces the clock (tests move it to check time windows).
	Now func() time.Time
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Embedder produces vectors for the vector leg of recall; nil turns the
	// vector leg off (recall is then keyword-only and says so).
	Embedder vectors.Embedder
	// Reranker reorders recall's best candidates (reranker.enabled); nil
	// leaves recall's order as fused.
	Reranker core.Reranker
}

// New builds the App of db configured by cfg.
func New(db *storage.DB, cfg config.Config, opts Options) *App {
	an := analytics.NewAnalytics(opts.Now)
	fg := new(core.Foreground)
	vec := vectors.New(db, cfg.Embedding, vectors.Options{Embedder: opts.Embedder, Now: opts.Now, Logger: opts.Logger,
		Analytics: an, Busy: fg.Busy})
	q := jobs.New(db, cfg.PipelineV2, opts.Now)
	svc := core.NewService(db, cfg, core.ServiceOptions{Now: opts.Now, Logger: opts.Logger, Vectors: vec,
		Reranker: opts.Reranker, Analytics: an, Foreground: fg})
	docs := documents.New(svc, vec)
	log := svc.Logger()
	pred := ranker.NewPredictor(db, cfg.Predictor, svc.Now, log)
	fb := ranker.NewFeedback(db, cfg.Feedback, log)
	sess := sessions.New(db, cfg, svc, fb, svc.Now, log)
	model := ""
	if opts.Embedder != nil {
		model = opts.Embedder.Model()
	}
	return &App{
		Service:    svc,
		Vectors:    vec,
		Jobs:       q,
		Ops:        ops.New(svc, vec, q),
		Pipeline:   pipeline.New(svc, vec, q, fb),
		Documents:  docs,
		Connectors: connectors.New(svc, docs),
		Graph:      graph.New(db),
		Hooks: hooks.New(hooks.Deps{Memories: svc, Sessions: sess, Predictor: pred, Feedback: fb,
			DB: db, Config: cfg, Now: svc.Now, Logger: log, EmbedModel: model}),
		Sessions:  sess,
		Predictor: pred,
		Feedback:  fb,
		Transfer: transfer.New(transfer.Deps{DB: db, Config: cfg, Memories: svc, Vectors: vec,
			EmbeddingModel: model, Log: log}),
	}
}

// Config returns the configuration the App runs with.
func (a *App) Config() config.Config { return a.Service.Config() }

// DB returns the App's store.
func (a *App) DB() *storage.DB { return a.Service.DB() }

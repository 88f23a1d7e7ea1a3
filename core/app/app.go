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
	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// App is one open store with its Service and subsystems.
type App struct {
	// Service is the memory lifecycle (the one write path) and recall.
	Service *core.Service
	// Ops: diagnostics, repairs, maintenance and retention.
	Ops *ops.Ops
	// Pipeline: extraction, decisions, proposals and the graph's writes.
	Pipeline *pipeline.Pipeline
	// Documents: document ingest into chunked memories.
	Documents *documents.Documents
	// Connectors: folders synced into documents.
	Connectors *connectors.Connectors
	// Transfer: JSONL export and import, Signet import.
	Transfer *transfer.Transfer
}

// Options are the optional dependencies of an App: the clock, the logger
// and the model providers (built by the caller from the configuration, so
// that this package needs none of them).
type Options = core.ServiceOptions

// New builds the App of db configured by cfg.
func New(db *storage.DB, cfg config.Config, opts Options) *App {
	svc := core.NewService(db, cfg, opts)
	docs := documents.New(svc)
	model := ""
	if opts.Embedder != nil {
		model = opts.Embedder.Model()
	}
	return &App{
		Service:    svc,
		Ops:        ops.New(svc),
		Pipeline:   pipeline.New(svc),
		Documents:  docs,
		Connectors: connectors.New(svc, docs),
		Transfer: transfer.New(transfer.Deps{DB: db, Config: cfg, Memories: svc, Vectors: svc.Vectors(),
			EmbeddingModel: model, Log: svc.Logger()}),
	}
}

// Config returns the configuration the App runs with.
func (a *App) Config() config.Config { return a.Service.Config() }

// DB returns the App's store.
func (a *App) DB() *storage.DB { return a.Service.DB() }

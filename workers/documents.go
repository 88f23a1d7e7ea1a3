package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/jobs"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// DocumentWorker runs document_ingest jobs from the queue in its own
// loops, apart from the extract worker (which leases only extract jobs),
// so a burst of documents never delays extraction and the reverse. It
// needs no model, so it runs whether or not the LLM pipeline is enabled.
type DocumentWorker struct {
	Svc         *core.Service
	Jobs        *jobs.Queue
	Docs        *documents.Documents
	Concurrency int
	// Poll is how often an idle worker looks for jobs; zero means
	// config.DefaultDocumentsWorkerInterval.
	Poll time.Duration
	Log  *slog.Logger
	// ReapEvery is how often stale leases are reaped and documents whose
	// job died are marked failed; default min(60 s, lease timeout / 2).
	ReapEvery time.Duration
}

// RunDocuments starts the document worker for svc until ctx ends.
func RunDocuments(ctx context.Context, ap *app.App, log *slog.Logger) error {
	cfg := ap.Config().Documents
	return (&DocumentWorker{Svc: ap.Service, Jobs: ap.Jobs, Docs: ap.Documents, Concurrency: cfg.Concurrency, Poll: cfg.WorkerInterval.D(), Log: log}).Run(ctx)
}

// Run processes jobs until ctx ends.
func (w *DocumentWorker) Run(ctx context.Context) error {
	defer w.Svc.PipelineRuntime().WorkerRunning(core.WorkerDocument)()
	log := logOrDiscard(w.Log)
	n := min(max(w.Concurrency, 1), 8)
	poll := w.Poll
	if poll <= 0 {
		poll = config.DefaultDocumentsWorkerInterval
	}
	reap := reapInterval(w.ReapEvery, w.Svc)
	log.Info("document worker started", "concurrency", n, "interval", poll)
	runPool(ctx, n, "doc-", reap, func() { w.reap(ctx, log) }, func(owner string) { w.loop(ctx, owner, poll, log) })
	return nil
}

// reap returns stale leases to the queue and marks failed the documents
// whose job died on a reaped last attempt.
func (w *DocumentWorker) reap(ctx context.Context, log *slog.Logger) {
	reapLeases(ctx, w.Jobs, log)
	if n, err := w.Docs.FailOrphanedDocuments(ctx); err != nil && ctx.Err() == nil {
		log.Warn("mark orphaned documents failed", "err", err)
	} else if n > 0 {
		log.Info("documents whose ingest job died marked failed", "documents", n)
	}
}

func (w *DocumentWorker) loop(ctx context.Context, owner string, poll time.Duration, log *slog.Logger) {
	pollLoop(ctx, poll, func() (bool, error) { return w.Step(ctx, owner) }, func(err error, failures int) {
		log.Warn("document job failed", "err", err, "consecutive", failures)
	})
}

// Step leases and runs at most one document_ingest job. It reports
// whether a job was found. A job's failure is recorded on the job (retry,
// or dead with the document failed) and logged, not returned: the error
// it returns is the worker's own (the queue could not be read or
// written), which backs its loop off. Nothing is leased while mutations
// are frozen.
func (w *DocumentWorker) Step(ctx context.Context, owner string) (bool, error) {
	if w.Svc.MutationsFrozen() {
		return false, nil
	}
	job, err := w.Jobs.Lease(ctx, owner, documents.JobDocumentIngest)
	if err != nil || job == nil {
		return false, err
	}
	res, perr := w.Docs.ProcessDocumentJob(ctx, job)
	if perr == nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := w.Jobs.Complete(cctx, job, res); err != nil {
			return true, fmt.Errorf("complete document job %s: %w", job.ID, err)
		}
		return true, nil
	}
	if errors.Is(perr, storage.ErrLeaseLost) {
		return true, perr // another worker owns it now
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	dead, ferr := w.Docs.FailDocumentJob(fctx, job, perr)
	if ferr != nil {
		return true, errors.Join(perr, ferr)
	}
	// The failure is the document's, recorded on its job (which retries on
	// its own backoff, or is dead with the document failed): not the
	// worker's, so the worker goes straight on to the next document. A bad
	// URL never holds a good document back.
	log := logOrDiscard(w.Log)
	if dead {
		log.Warn("document failed for good", "job", job.ID, "attempts", job.Attempts, "err", perr)
	} else {
		log.Info("document job failed; it will be retried", "job", job.ID, "attempts", job.Attempts, "err", perr)
	}
	return true, nil
}

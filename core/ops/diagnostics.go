package ops

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage/connstore"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/wire"

	"github.com/cairnmem/cairn/storage"
)

// Diagnostics (docs/design/operations.md, "Diagnostics"): six
// Domains, each starting at 1 and losing points per triggered signal,
// weighted into a composite. Every query is an indexed count, so a report
// is cheap enough to poll; Diagnostics also shares one report for
// DiagnosticsTTL.

// Domain names, in report order.
const (
	DomainQueue     = "queue"
	DomainStorage   = "storage"
	DomainIndex     = "index"
	DomainProvider  = "provider"
	DomainMutation  = "mutation"
	DomainConnector = "connector"
)

// DiagnosticsDomains lists the domains in report order.
var DiagnosticsDomains = []string{DomainQueue, DomainStorage, DomainIndex, DomainProvider, DomainMutation, DomainConnector}

// DomainWeights are the weights of Signet's architecture document; they
// sum to 1.
var DomainWeights = map[string]float64{
	DomainQueue: 0.28, DomainStorage: 0.14, DomainIndex: 0.19,
	DomainProvider: 0.24, DomainMutation: 0.10, DomainConnector: 0.05,
}

// Health statuses and their bands (wire.Status*).
const (
	StatusHealthy   = wire.StatusHealthy   // score ≥ 0.8
	StatusDegraded  = wire.StatusDegraded  // score ≥ 0.5
	StatusUnhealthy = wire.StatusUnhealthy // below
)

// Thresholds of the signals.
const (
	QueuePendingMax       = 50
	QueueDeadRateMax      = 0.01
	QueueOldestPendingMax = 300 * time.Second
	QueueStaleLeaseAge    = 10 * time.Minute
	TombstoneRatioMax     = 0.3
	FTSMismatchMax        = 0.1
	EmbeddingCoverageMin  = 0.8
	RecoveredEventsMax    = 5
	DiagnosticsTTL        = wire.DiagnosticsTTL
	CoverageTTL           = 30 * time.Second
	// CoverageMinTTL: when the number of live rows changed, coverage is
	// measured again, but not more often than this.
	CoverageMinTTL = 2 * time.Second
)

// HealthStatus names the band of score.
func HealthStatus(score float64) string {
	switch {
	case score >= 0.8:
		return StatusHealthy
	case score >= 0.5:
		return StatusDegraded
	}
	return StatusUnhealthy
}

// The report's types are the API's (core/wire), so the API encodes what a
// client decodes.
type (
	// Signal is one measured input of a domain.
	Signal = wire.Signal
	// DomainReport is one domain's score (0..1), weight and signals.
	DomainReport = wire.DomainReport
	// HealthScore is a score with its band.
	HealthScore = wire.HealthScore
	// DiagnosticsReport is the whole health report. It is shared between
	// callers for DiagnosticsTTL: treat it as read-only.
	DiagnosticsReport = wire.DiagnosticsReport
)

// ErrUnknownDomain is returned (wrapped in an *Error) for a domain that
// does not exist.
func unknownDomain(name string) *core.Error {
	return core.Invalid("domain", "unknown domain %q; valid domains: %s", name, strings.Join(DiagnosticsDomains, ", "))
}

type diagCache struct {
	mu       sync.Mutex
	report   *DiagnosticsReport
	at       time.Time
	inflight *diagCall

	// Embedding coverage probes every live row, so it is measured at most
	// once per CoverageTTL and reused in between.
	covMu    sync.Mutex
	covAt    time.Time
	covModel string
	covN     int64
	covLive  int64 // live rows when measured
}

type diagCall struct {
	done   chan struct{}
	report *DiagnosticsReport
	err    error
}

// Diagnostics returns the health report, computed at most once per
// DiagnosticsTTL of the service clock: concurrent callers share one
// computation.
func (s *Ops) Diagnostics(ctx context.Context) (*DiagnosticsReport, error) {
	c := &s.diag
	c.mu.Lock()
	now := s.svc.Now()
	if c.report != nil && !now.Before(c.at) && now.Sub(c.at) < DiagnosticsTTL {
		r := c.report
		c.mu.Unlock()
		return r, nil
	}
	call := c.inflight
	if call == nil {
		call = &diagCall{done: make(chan struct{})}
		c.inflight = call
		go func() {
			// Detached from the first caller: its cancellation must not
			// fail the callers waiting on the same computation.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			call.report, call.err = s.ComputeDiagnostics(cctx)
			c.mu.Lock()
			if call.err == nil {
				c.report, c.at = call.report, now
			}
			c.inflight = nil
			c.mu.Unlock()
			close(call.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.report, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// DiagnosticsDomain returns one domain of the (cached) report; an unknown
// Name is an invalid_request error naming the valid ones.
func (s *Ops) DiagnosticsDomain(ctx context.Context, name string) (*DomainReport, error) {
	if _, ok := DomainWeights[name]; !ok {
		return nil, unknownDomain(name)
	}
	r, err := s.Diagnostics(ctx)
	if err != nil {
		return nil, err
	}
	d := *r.Domain(name)
	d.Signals = append([]Signal(nil), d.Signals...)
	return &d, nil
}

// HealthSummary is the composite of the cached report.
func (s *Ops) HealthSummary(ctx context.Context) (HealthScore, error) {
	r, err := s.Diagnostics(ctx)
	if err != nil {
		return HealthScore{}, err
	}
	return r.Composite, nil
}

// ComputeDiagnostics computes a fresh report, bypassing the cache.
func (s *Ops) ComputeDiagnostics(ctx context.Context) (*DiagnosticsReport, error) {
	start := time.Now()
	now := s.svc.Now()
	q := s.svc.DB().Reader()
	rep := &DiagnosticsReport{Timestamp: storage.FormatTime(now), SilentFailures: []Signal{}}
	builders := []func(context.Context, storage.Querier, time.Time) (DomainReport, error){
		s.diagQueue, s.diagStorage, s.diagIndex, s.diagProvider, s.diagMutation, s.diagConnector,
	}
	total, wsum := 0.0, 0.0
	for _, b := range builders {
		d, err := b(ctx, q, now)
		if err != nil {
			return nil, fmt.Errorf("diagnostics %s: %w", d.Name, err)
		}
		d.Weight = DomainWeights[d.Name]
		d.Score = 1
		for i := range d.Signals {
			d.Signals[i].Domain = d.Name
			if d.Signals[i].Triggered && !d.Signals[i].Informational {
				d.Score -= d.Signals[i].Penalty
			}
			if silentSignals[d.Signals[i].Name] {
				rep.SilentFailures = append(rep.SilentFailures, d.Signals[i])
			}
		}
		d.Score = round3(math.Min(1, math.Max(0, d.Score)))
		d.Status = HealthStatus(d.Score)
		total += d.Weight * d.Score
		wsum += d.Weight
		rep.Domains = append(rep.Domains, d)
	}
	if wsum > 0 {
		total /= wsum
	}
	rep.Composite = HealthScore{Score: round3(total), Status: HealthStatus(round3(total))}
	rep.ComputeMs = analytics.DurMs(time.Since(start))
	return rep, nil
}

var silentSignals = map[string]bool{
	"empty_extractions_in_a_row": true, "embedding_coverage": true, "fts_mismatch": true, "secrets_redacted": true,
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// gate returns a signal triggered when over (or, with below, under) the
// Threshold.
func gate(name, unit string, value, threshold, penalty float64, below bool, msg string) Signal {
	trig := value > threshold
	if below {
		trig = value < threshold
	}
	sg := Signal{Name: name, Value: value, Threshold: threshold, Unit: unit, Penalty: penalty, Triggered: trig, Message: msg}
	if !trig {
		sg.Penalty = 0
	}
	return sg
}

func info(name, unit string, value float64, msg string) Signal {
	return Signal{Name: name, Value: value, Unit: unit, Informational: true, Message: msg}
}

func (s *Ops) diagQueue(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainQueue}
	qh, err := storage.ReadQueueHealth(ctx, q, storage.FormatTime(now.Add(-time.Hour)),
		storage.FormatTime(now.Add(-QueueStaleLeaseAge)))
	if err != nil {
		return d, err
	}
	pending, dead, done, stale := qh.Pending, qh.DeadSince, qh.CompletedSince, qh.StaleLeases
	rate := 0.0
	if dead+done > 0 {
		rate = float64(dead) / float64(dead+done)
	}
	age := 0.0
	if qh.OldestPending != "" {
		if t, err := storage.ParseTime(qh.OldestPending); err == nil {
			age = math.Max(0, now.Sub(t).Seconds())
		}
	}
	d.Signals = []Signal{
		gate("pending_jobs", "count", float64(pending), QueuePendingMax, 0.3, false,
			fmt.Sprintf("%d jobs pending (more than %d costs 0.3)", pending, QueuePendingMax)),
		gate("dead_rate", "ratio", round3(rate), QueueDeadRateMax, 0.3, false,
			fmt.Sprintf("%d dead of %d jobs finished in the last hour (above %.0f%% costs 0.3)", dead, dead+done, QueueDeadRateMax*100)),
		gate("oldest_pending_age", "seconds", math.Round(age), QueueOldestPendingMax.Seconds(), 0.2, false,
			fmt.Sprintf("the oldest pending job waits %.0f s (over %.0f s costs 0.2)", age, QueueOldestPendingMax.Seconds())),
		gate("stale_leases", "count", float64(stale), 0, 0.2, false,
			fmt.Sprintf("%d jobs leased more than %s ago (any costs 0.2; repair release-leases frees them)", stale, QueueStaleLeaseAge)),
	}
	return d, nil
}

func (s *Ops) diagStorage(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainStorage}
	total, deleted, err := storage.MemoryCounts(ctx, q)
	if err != nil {
		return d, err
	}
	ratio := 0.0
	if total > 0 {
		ratio = float64(deleted) / float64(total)
	}
	tombstones := gate("tombstone_ratio", "ratio", round3(ratio), TombstoneRatioMax, 0.3, false,
		fmt.Sprintf("%d of %d rows are tombstones (above %.0f%% costs 0.3; retention purges them)", deleted, total, TombstoneRatioMax*100))
	if s.svc.DB().Postgres() {
		// The file's pages and WAL are SQLite's: the database's size is
		// what PostgreSQL reports of it.
		size, err := s.svc.DB().DatabaseSize(ctx)
		if err != nil {
			return d, err
		}
		d.Signals = []Signal{tombstones, info("db_size", "bytes", float64(size), "database size on the PostgreSQL server (pg_database_size)")}
		d.Note = "PostgreSQL: free pages and the WAL are the server's own (pg_stat_database)"
		return d, nil
	}
	pages, size, free, err := storage.PageStats(ctx, q)
	if err != nil {
		return d, err
	}
	var wal int64
	if st, err := os.Stat(s.svc.DB().Path() + "-wal"); err == nil {
		wal = st.Size()
	}
	d.Signals = []Signal{
		tombstones,
		info("db_size", "bytes", float64(pages*size), fmt.Sprintf("database file holds %d pages of %d bytes", pages, size)),
		info("db_free", "bytes", float64(free*size), fmt.Sprintf("%d free pages (reclaimed by VACUUM)", free)),
		info("wal_size", "bytes", float64(wal), "write-ahead log size on disk"),
	}
	return d, nil
}

func (s *Ops) diagIndex(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainIndex}
	// The FTS triggers index every row of memories, tombstones included
	// (soft deletes leave the index alone), so it should hold exactly
	// count(memories) documents; _docsize holds one row per document. The
	// row count comes from memory_counts, kept by its own triggers.
	total, deleted, err := storage.MemoryCounts(ctx, q)
	if err != nil {
		return d, err
	}
	if s.svc.DB().Postgres() {
		d.Note = "PostgreSQL: no full-text index (FTS5 is SQLite's); keyword search runs on the in-memory index"
	} else if err := s.diagFTS(ctx, q, &d, total); err != nil {
		return d, err
	}
	if s.vec.Embedder() == nil {
		d.Note = "no embedder configured: embedding coverage is not scored"
		return d, nil
	}
	live := total - deleted
	cov, embedded, err := s.embeddingCoverage(ctx, q, live, now)
	if err != nil {
		return d, err
	}
	d.Signals = append(d.Signals, gate("embedding_coverage", "ratio", round3(cov), EmbeddingCoverageMin, 0.3, true,
		fmt.Sprintf("%d of %d live memories have a vector for %s (below %.0f%% costs 0.3; counted at most every %s)", embedded, live, s.vec.Embedder().Model(), EmbeddingCoverageMin*100, CoverageTTL)))
	return d, nil
}

// diagFTS scores the full-text index (SQLite's) against total rows.
func (s *Ops) diagFTS(ctx context.Context, q storage.Querier, d *DomainReport, total int64) error {
	fts, err := storage.CountFTSDocuments(ctx, q)
	if err != nil {
		return err
	}
	diff := math.Abs(float64(fts - total))
	mism := 0.0
	if total > 0 {
		mism = diff / float64(total)
	} else if fts > 0 {
		mism = 1
	}
	ftsSig := gate("fts_mismatch", "ratio", round3(mism), FTSMismatchMax, 0.5, false,
		fmt.Sprintf("full-text index holds %d documents for %d memory rows (a gap above %.0f%% costs 0.5; any gap costs 0.2; repair rebuilds it)", fts, total, FTSMismatchMax*100))
	if !ftsSig.Triggered && diff > 0 {
		ftsSig.Triggered, ftsSig.Penalty, ftsSig.Threshold = true, 0.2, 0
	}
	d.Signals = []Signal{ftsSig}
	return nil
}

// embeddingCoverage is the share of live memories with a vector for the
// current model: one probe of the embeddings' unique index per live row
// through the covering live-hash index (about 80 ms for 70k live rows), so
// the count is reused for CoverageTTL of the service clock.
func (s *Ops) embeddingCoverage(ctx context.Context, q storage.Querier, live int64, now time.Time) (float64, int64, error) {
	if live == 0 {
		return 1, 0, nil
	}
	c := &s.diag
	c.covMu.Lock()
	defer c.covMu.Unlock()
	model := s.vec.Embedder().Model()
	age := now.Sub(c.covAt)
	fresh := !c.covAt.IsZero() && c.covModel == model && age >= 0 && age < CoverageTTL &&
		(c.covLive == live || age < CoverageMinTTL) // rows came or went: measure again, at most every CoverageMinTTL
	if fresh {
		return math.Min(1, float64(c.covN)/float64(live)), c.covN, nil
	}
	n, err := storage.CountCoveredMemories(ctx, q, s.vec.Embedder().Model())
	if err != nil {
		return 0, 0, err
	}
	c.covAt, c.covModel, c.covN, c.covLive = now, model, n, live
	return float64(n) / float64(live), n, nil
}

func (s *Ops) diagProvider(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainProvider}
	h := s.svc.Analytics().ProviderHealth()
	ratio := gate("success_rate", "ratio", round3(h.Ratio), 1, round3(1-h.Ratio), true,
		fmt.Sprintf("%d of the last %d provider calls succeeded (each failed share costs its points; 1 with no calls)", h.Successes, h.Samples))
	d.Signals = append(d.Signals, ratio)
	if s.svc.Config().Pipeline.Enabled {
		ps := s.svc.PipelineRuntime().Provider()
		name, avail, perr := ps.Provider, ps.Available, ps.ProviderError
		down := perr != "" && !avail
		v := 0.0
		if down {
			v = 1
		}
		// "Available" only says the provider answered its check: the
		// calls' outcome is said beside it, so a provider that fails most
		// calls is never called available without a word.
		msg := fmt.Sprintf("extraction provider %s available; no provider calls yet", name)
		switch {
		case down:
			msg = fmt.Sprintf("extraction provider %s unavailable: %s (extract jobs stay queued)", name, perr)
		case name == "":
			msg = "extraction worker not started in this process"
		case h.Failures > 0:
			msg = fmt.Sprintf("extraction provider %s reachable, but %.0f%% of the last %d provider calls failed (%d)", name,
				100*float64(h.Failures)/float64(h.Samples), h.Samples, h.Failures)
		case h.Samples > 0:
			msg = fmt.Sprintf("extraction provider %s available; the last %d provider calls succeeded", name, h.Samples)
		}
		d.Signals = append(d.Signals, gate("extraction_provider_unavailable", "count", v, 0, 1, false, msg))
		streak := s.svc.Analytics().EmptyExtractionStreak()
		d.Signals = append(d.Signals, gate("empty_extractions_in_a_row", "count", float64(streak), core.EmptyExtractionsMax-1, 0.3, false,
			fmt.Sprintf("%d extractions in a row over inputs of at least %d characters produced no fact (%d or more costs 0.3: the model may be answering nothing usable)", streak, extract.ExtractMinInputChars, core.EmptyExtractionsMax)))
	} else {
		d.Note = "pipeline disabled: only embedding calls are tracked"
	}
	if s.vec.Embedder() != nil && !s.vec.ProviderHealthy() {
		msg := "embedding provider failed recently"
		if err := s.vec.LastError(); err != nil {
			msg = "embedding provider failed: " + err.Error()
		}
		d.Signals = append(d.Signals, info("embedding_provider_backoff", "count", 1, msg))
	}
	d.Signals = append(d.Signals, info("secrets_redacted", "count", float64(s.svc.Redactor().Count()),
		"secrets redacted from stored content since start (a rising count means agents are pasting credentials)"))
	return d, nil
}

func (s *Ops) diagMutation(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainMutation}
	rec, err := storage.CountHistoryEvents(ctx, q, storage.EventRecovered, storage.FormatTime(now.Add(-7*24*time.Hour)))
	if err != nil {
		return d, err
	}
	frozen, fmsg := 0.0, "mutations allowed"
	if s.svc.MutationsFrozen() {
		frozen, fmsg = 1, "mutations are frozen: writes are refused (costs 0.3)"
	}
	d.Signals = []Signal{
		gate("recovered_7d", "count", float64(rec), RecoveredEventsMax, 0.3, false,
			fmt.Sprintf("%d memories recovered in the last 7 days (more than %d costs 0.3: something deletes what it should not)", rec, RecoveredEventsMax)),
		gate("mutations_frozen", "count", frozen, 0, 0.3, false, fmsg),
	}
	return d, nil
}

func (s *Ops) diagConnector(ctx context.Context, q storage.Querier, now time.Time) (DomainReport, error) {
	d := DomainReport{Name: DomainConnector, Signals: []Signal{}}
	docs, err := storage.ReadDocumentFailures(ctx, q, storage.FormatTime(now.Add(-24*time.Hour)))
	if err != nil {
		return d, err
	}
	if docs.Any {
		failed := docs.Failed
		msg := fmt.Sprintf("%d documents failed to ingest in the last 24 h (any costs 0.3, 5 or more another 0.2)", failed)
		if failed > 0 && docs.LastError != "" {
			msg += "; latest: " + extract.ClipForWarning(docs.LastError, 200)
		}
		d.Signals = append(d.Signals,
			gate("documents_failed_24h", "count", float64(failed), 0, 0.3, false, msg),
			gate("documents_failed_24h_many", "count", float64(failed), 4, 0.2, false, fmt.Sprintf("%d failed documents (5 or more costs 0.2)", failed)))
	}
	broken, err := connstore.ConnectorErrors(ctx, q)
	if err != nil {
		return d, err
	}
	if len(broken) > 0 {
		c := broken[0]
		age := ""
		if t, err := storage.ParseTime(c.LastErrorAt); err == nil {
			age = fmt.Sprintf(" (%s ago)", now.Sub(t).Round(time.Second))
		}
		d.Signals = append(d.Signals, gate("connectors_in_error", "count", float64(len(broken)), 0, 0.3, false,
			fmt.Sprintf("%d connectors failed their last sync; %s: %s%s", len(broken), c.DisplayName,
				extract.ClipForWarning(c.LastError, 200), age)))
	}
	errs, _ := s.svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageConnector, Since: now.Add(-24 * time.Hour)})
	if len(errs) > 0 {
		d.Signals = append(d.Signals, info("connector_errors_24h", "count", float64(len(errs)), "latest: "+errs[0].Code+" "+errs[0].Message))
	}
	if len(d.Signals) == 0 {
		all, err := connstore.ListConnectors(ctx, q)
		if err != nil {
			return d, err
		}
		if len(all) > 0 {
			d.Note = fmt.Sprintf("%d connectors, none in error", len(all))
		} else {
			d.Note = "no connectors: no document has been ingested yet, and hook/agent connectivity is not tracked"
		}
	}
	return d, nil
}

package ops_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"github.com/cairnmem/cairn/workers/llm"
)

func diag(t *testing.T, o *ops.Ops) *ops.DiagnosticsReport {
	t.Helper()
	r, err := o.ComputeDiagnostics(context.Background())
	if err != nil {
		t.Fatalf("diagnostics: %v", err)
	}
	return r
}

func signal(t *testing.T, r *ops.DiagnosticsReport, domain, name string) ops.Signal {
	t.Helper()
	d := r.Domain(domain)
	if d == nil {
		t.Fatalf("no domain %s", domain)
	}
	for _, s := range d.Signals {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("domain %s has no signal %s: %+v", domain, name, d.Signals)
	return ops.Signal{}
}

// wantDomain checks a domain's score and status.
func wantDomain(t *testing.T, r *ops.DiagnosticsReport, domain string, score float64, status string) {
	t.Helper()
	d := r.Domain(domain)
	if math.Abs(d.Score-score) > 1e-9 || d.Status != status {
		t.Fatalf("%s = %.3f %s, want %.3f %s; signals %+v", domain, d.Score, d.Status, score, status, d.Signals)
	}
}

func TestDiagnosticsHealthyWhenEmpty(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	r := diag(t, e.App.Ops)
	if r.Composite.Score != 1 || r.Composite.Status != ops.StatusHealthy {
		t.Fatalf("composite %+v", r.Composite)
	}
	var names []string
	for _, d := range r.Domains {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "queue,storage,index,provider,mutation,connector" {
		t.Fatalf("domain order %v", names)
	}
	sum := 0.0
	for _, w := range ops.DomainWeights {
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("weights sum to %v", sum)
	}
	if c := r.Domain(ops.DomainConnector); !strings.Contains(c.Note, "no connectors") {
		t.Fatalf("connector note %q", c.Note)
	}
}

func TestDiagnosticsQueueThresholds(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	now := e.Clock.Now()
	for range ops.QueuePendingMax {
		e.Job(t, "pending", now, now, nil)
	}
	r := diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainQueue, 1, ops.StatusHealthy) // exactly 50 is fine
	e.Job(t, "pending", now, now, nil)
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainQueue, 0.7, ops.StatusDegraded)
	if s := signal(t, r, "queue", "pending_jobs"); !s.Triggered || s.Value != 51 || s.Penalty != 0.3 {
		t.Fatalf("pending signal %+v", s)
	}
	// Oldest pending job: 300 s is fine, 301 s costs 0.2.
	e.Clock.Advance(300 * time.Second)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainQueue, 0.7, ops.StatusDegraded)
	e.Clock.Advance(time.Second)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainQueue, 0.5, ops.StatusDegraded)

	// Dead rate over jobs finished in the last hour: 1 dead of 100 is 1%,
	// not above; 2 of 101 is.
	now = e.Clock.Now()
	for range 99 {
		e.Job(t, "completed", now, now, nil)
	}
	e.Job(t, "dead", now, now, nil)
	e.Job(t, "dead", now, now.Add(-2*time.Hour), nil) // outside the window
	wantDomain(t, diag(t, e.App.Ops), ops.DomainQueue, 0.5, ops.StatusDegraded)
	e.Job(t, "dead", now, now, nil)
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainQueue, 0.2, ops.StatusUnhealthy)
	if s := signal(t, r, "queue", "dead_rate"); s.Value != 0.02 {
		t.Fatalf("dead rate %+v", s)
	}
	// A lease taken 10 min ago is fine, one older is stale.
	l := now.Add(-ops.QueueStaleLeaseAge)
	e.Job(t, "leased", l, l, &l)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainQueue, 0.2, ops.StatusUnhealthy)
	l2 := l.Add(-time.Second)
	e.Job(t, "leased", l2, l2, &l2)
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainQueue, 0, ops.StatusUnhealthy)
	// Composite is the weighted average.
	want := 0.0
	for _, d := range r.Domains {
		want += d.Weight * d.Score
	}
	if math.Abs(r.Composite.Score-want) > 0.001 || math.Abs(r.Composite.Score-(1-ops.DomainWeights["queue"])) > 0.001 {
		t.Fatalf("composite %v, want %v", r.Composite.Score, want)
	}
	if r.Composite.Status != ops.StatusDegraded { // 0.72: queue at 0, the rest at 1
		t.Fatalf("composite status %s at %v", r.Composite.Status, r.Composite.Score)
	}
}

func TestDiagnosticsStorageAndCounts(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	var ids []string
	for i := range 10 {
		ids = append(ids, e.MustID(t, fmt.Sprintf("storage memory number %d", i)))
	}
	for _, id := range ids[:3] {
		e.Del(t, id, map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	}
	r := diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainStorage, 1, ops.StatusHealthy) // 3 of 10 is not above 0.3
	e.Del(t, ids[3], map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainStorage, 0.7, ops.StatusDegraded)
	// A recover moves the tombstone count back (trigger-kept counts).
	e.Post(t, "/api/memory/"+ids[3]+"/recover", map[string]any{"reason": "oops"}).Want(t, http.StatusOK)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainStorage, 1, ops.StatusHealthy)
	if got, want := e.Count(t, `SELECT deleted FROM memory_counts`), e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1`); got != want || want != 3 {
		t.Fatalf("memory_counts.deleted %d, real %d", got, want)
	}
	// A hard delete (retention purge) keeps the total right.
	e.Exec(t, `DELETE FROM memories WHERE id = ?`, ids[0])
	if got, want := e.Count(t, `SELECT total FROM memory_counts`), e.Count(t, `SELECT count(*) FROM memories`); got != want || want != 9 {
		t.Fatalf("memory_counts.total %d, real %d", got, want)
	}
	r = diag(t, e.App.Ops)
	var pages, size int
	if err := e.RO.QueryRow(`SELECT page_count * page_size, page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&pages, &size); err != nil {
		t.Fatal(err)
	}
	if s := signal(t, r, "storage", "db_size"); int(s.Value) != pages || !s.Informational || s.Value <= 0 {
		t.Fatalf("db_size %+v, want %d", s, pages)
	}
}

func TestDiagnosticsIndexFTSMismatch(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	for i := range 10 {
		e.MustID(t, fmt.Sprintf("indexed memory number %d", i))
	}
	wantDomain(t, diag(t, e.App.Ops), ops.DomainIndex, 1, ops.StatusHealthy)
	unindex := func() {
		e.Exec(t, `INSERT INTO memories_fts(memories_fts, rowid, content)
			SELECT 'delete', rid, content FROM memories WHERE rid = (SELECT min(d.id) FROM memories_fts_docsize d)`)
	}
	unindex() // 1 of 10 missing: a gap, not above 10%
	r := diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainIndex, 0.8, ops.StatusHealthy)
	unindex() // 2 of 10
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainIndex, 0.5, ops.StatusDegraded)
	found := false
	for _, s := range r.SilentFailures {
		found = found || (s.Name == "fts_mismatch" && s.Triggered && s.Domain == "index")
	}
	if !found {
		t.Fatalf("silent failures %+v", r.SilentFailures)
	}
}

func TestDiagnosticsEmbeddingCoverage(t *testing.T) {
	t.Parallel()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "c.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := apitest.NewClock(apitest.ClockStart)
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	ap := app.New(db, cfg, app.Options{Now: clock.Now, Embedder: fixedEmbedder{}})
	svc, o := ap.Service, ap.Ops
	for i := range 8 {
		if _, err := svc.Remember(context.Background(), core.RememberInput{Content: fmt.Sprintf("embedded memory %d", i)}, core.Actor{}); err != nil {
			t.Fatal(err)
		}
	}
	apitest.EmbedPending(t, ap.Vectors)
	r := diag(t, o)
	if s := signal(t, r, "index", "embedding_coverage"); s.Value != 1 || s.Triggered {
		t.Fatalf("coverage %+v", s)
	}
	// Three memories without a vector: 8 of 11 is below 0.8.
	seedless := func(i int) {
		ts := storage.FormatTime(clock.Now())
		err := db.WriteTx(context.Background(), func(tx storage.Tx) error {
			_, err := tx.ExecContext(context.Background(), `INSERT INTO memories (id, content, content_hash, created_at, updated_at) VALUES (?, 'x', ?, ?, ?)`,
				core.NewID(), fmt.Sprintf("nohash%d", i), ts, ts)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		seedless(i)
	}
	// Within the TTL the embedded count is reused (over the current live
	// count): polling stays cheap.
	clock.Advance(ops.DiagnosticsTTL)
	r = diag(t, o)
	s := signal(t, r, "index", "embedding_coverage")
	if !s.Triggered || math.Abs(s.Value-8.0/11) > 0.001 {
		t.Fatalf("coverage %+v", s)
	}
	wantDomain(t, r, ops.DomainIndex, 0.7, ops.StatusDegraded)
	// A new embedded memory: the live count changed, so once
	// CoverageMinTTL has passed the embedded rows are counted again
	// (9 of 12) rather than reused for the whole CoverageTTL (8 of 12).
	one, err := svc.Remember(context.Background(), core.RememberInput{Content: "one more embedded memory"}, core.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ap.Vectors.EmbedRows(context.Background(), []vectors.PendingRow{{ID: one.Memory.ID, Hash: one.Memory.ContentHash, Content: one.Memory.Content}}); err != nil {
		t.Fatal(err)
	}
	if s := signal(t, diag(t, o), "index", "embedding_coverage"); math.Abs(s.Value-8.0/12) > 0.001 {
		t.Fatalf("counted again within CoverageMinTTL: %+v", s)
	}
	clock.Advance(ops.CoverageMinTTL)
	if s := signal(t, diag(t, o), "index", "embedding_coverage"); math.Abs(s.Value-9.0/12) > 0.001 {
		t.Fatalf("not counted again after CoverageMinTTL: %+v", s)
	}
}

func TestDiagnosticsProviderRingAndAvailability(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	an := e.Svc.Analytics()
	if h := an.ProviderHealth(); h.Ratio != 1 || h.Samples != 0 {
		t.Fatalf("no data: %+v", h)
	}
	boom := errors.New("boom")
	for range 100 {
		an.RecordProviderCall("llm:test", time.Millisecond, nil)
	}
	for range 30 {
		an.RecordProviderCall("llm:test", time.Millisecond, boom)
	}
	if h := an.ProviderHealth(); h.Samples != 100 || h.Failures != 30 || h.Ratio != 0.7 {
		t.Fatalf("ring after 130: %+v", h)
	}
	// A provider that answers its check but fails calls is not called
	// available without a word.
	e.Svc.PipelineRuntime().SetProvider("ollama", true, nil)
	r := diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainProvider, 0.7, ops.StatusDegraded)
	if s := signal(t, r, "provider", "extraction_provider_unavailable"); !strings.Contains(s.Message, "ollama reachable, but 30% of the last 100 provider calls failed") {
		t.Fatalf("a failing provider's signal: %q", s.Message)
	}
	for range 70 {
		an.RecordProviderCall("llm:test", time.Millisecond, nil)
	}
	if h := an.ProviderHealth(); h.Failures != 30 {
		t.Fatalf("failures still in the window: %+v", h)
	}
	for range 30 {
		an.RecordProviderCall("llm:test", time.Millisecond, nil)
	}
	if h := an.ProviderHealth(); h.Failures != 0 || h.Ratio != 1 {
		t.Fatalf("failures evicted: %+v", h)
	}
	wantDomain(t, diag(t, e.App.Ops), ops.DomainProvider, 1, ops.StatusHealthy)
	e.Svc.PipelineRuntime().SetProvider("ollama", false, errors.New("connection refused"))
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainProvider, 0, ops.StatusUnhealthy)
	if s := signal(t, r, "provider", "extraction_provider_unavailable"); !strings.Contains(s.Message, "connection refused") {
		t.Fatalf("unavailable signal %+v", s)
	}
}

// silentLLM answers every prompt with a valid, empty extraction.
type silentLLM struct{}

func (silentLLM) Generate(context.Context, string, extract.GenerateOptions) (string, error) {
	return `{"facts": [], "entities": []}`, nil
}
func (silentLLM) Name() string { return "silent/test" }

func TestDiagnosticsEmptyExtractionsInARow(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	w := &workers.PipelineWorker{Svc: e.Svc, Jobs: e.App.Jobs, Pipeline: e.App.Pipeline, LLM: silentLLM{}}
	ctx := context.Background()
	step := func() {
		t.Helper()
		worked, err := w.Step(ctx, "test")
		if err != nil || !worked {
			t.Fatalf("step: %v %v", worked, err)
		}
	}
	// Inputs too short to hold a fact do not count.
	e.MustID(t, "tiny")
	step()
	for i := range core.EmptyExtractionsMax - 1 {
		e.MustID(t, fmt.Sprintf("We decided to deploy the billing service %d on Fridays because the team prefers it.", i))
		step()
	}
	r := diag(t, e.App.Ops)
	if s := signal(t, r, "provider", "empty_extractions_in_a_row"); s.Triggered || s.Value != float64(core.EmptyExtractionsMax-1) {
		t.Fatalf("after %d: %+v", core.EmptyExtractionsMax-1, s)
	}
	wantDomain(t, r, ops.DomainProvider, 1, ops.StatusHealthy)
	e.MustID(t, "The staging database moved to a new host called db-stage-2 with Postgres 16 last week.")
	step()
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainProvider, 0.7, ops.StatusDegraded)
	var silent *ops.Signal
	for i, s := range r.SilentFailures {
		if s.Name == "empty_extractions_in_a_row" {
			silent = &r.SilentFailures[i]
		}
	}
	if silent == nil || !silent.Triggered || silent.Domain != "provider" {
		t.Fatalf("silent failures %+v", r.SilentFailures)
	}
	errs, summary := e.Svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageExtraction})
	if summary[analytics.CodeExtractionEmptyRepeated] != 1 || len(errs) != 1 {
		t.Fatalf("error ring %+v %v", errs, summary)
	}
	if u := e.Svc.Analytics().Usage().Providers["llm:silent/test"]; u.Count != int64(core.EmptyExtractionsMax) || u.Errors != 0 {
		t.Fatalf("provider usage %+v", u)
	}
	if l := e.Svc.Analytics().Latency(analytics.LatencyJobs); l.Count != core.EmptyExtractionsMax+1 {
		t.Fatalf("jobs latency %+v", l)
	}
	// A model that finds facts again ends the streak.
	w.LLM = llm.NewHeuristic()
	e.MustID(t, "We decided to use PostgreSQL for the billing service because it supports row level locking.")
	step()
	wantDomain(t, diag(t, e.App.Ops), ops.DomainProvider, 1, ops.StatusHealthy)
}

func TestDiagnosticsMutationAndFreeze(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	now := e.Clock.Now()
	add := func(at time.Time) {
		e.Exec(t, `INSERT INTO memory_history (id, memory_id, event, changed_by, created_at) VALUES (?, 'm', 'recovered', 'test', ?)`,
			core.NewID(), storage.FormatTime(at))
	}
	add(now.Add(-8 * 24 * time.Hour)) // outside the 7-day window
	for range ops.RecoveredEventsMax {
		add(now.Add(-time.Hour))
	}
	wantDomain(t, diag(t, e.App.Ops), ops.DomainMutation, 1, ops.StatusHealthy)
	add(now)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainMutation, 0.7, ops.StatusDegraded)
	e.Svc.SetMutationsFrozen(true)
	wantDomain(t, diag(t, e.App.Ops), ops.DomainMutation, 0.4, ops.StatusUnhealthy)
}

func TestDiagnosticsConnectorDocuments(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	now := e.Clock.Now()
	doc := func(status, errMsg string, at time.Time) {
		e.Exec(t, `INSERT INTO documents (id, source_type, status, error, created_at, updated_at) VALUES (?, 'text', ?, ?, ?, ?)`, core.NewID(), status, errMsg, storage.FormatTime(at), storage.FormatTime(at))
	}
	doc("done", "", now)
	doc("failed", "old failure", now.Add(-25*time.Hour))
	r := diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainConnector, 1, ops.StatusHealthy)
	if r.Domain(ops.DomainConnector).Note != "" {
		t.Fatalf("note with a documents table: %q", r.Domain(ops.DomainConnector).Note)
	}
	doc("failed", "pdf parser crashed", now.Add(-time.Hour))
	r = diag(t, e.App.Ops)
	wantDomain(t, r, ops.DomainConnector, 0.7, ops.StatusDegraded)
	if s := signal(t, r, "connector", "documents_failed_24h"); !strings.Contains(s.Message, "pdf parser crashed") {
		t.Fatalf("signal %+v", s)
	}
	for range 4 {
		doc("failed", "again", now)
	}
	wantDomain(t, diag(t, e.App.Ops), ops.DomainConnector, 0.5, ops.StatusDegraded)
}

func TestDiagnosticsCacheAndSingleFlight(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	ctx := context.Background()
	var wg sync.WaitGroup
	reps := make([]*ops.DiagnosticsReport, 16)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.App.Ops.Diagnostics(ctx)
			if err != nil {
				t.Error(err)
			}
			reps[i] = r
		}()
	}
	wg.Wait()
	for _, r := range reps[1:] {
		if r != reps[0] {
			t.Fatal("concurrent callers got different reports")
		}
	}
	e.Job(t, "pending", e.Clock.Now(), e.Clock.Now(), nil)
	if r, _ := e.App.Ops.Diagnostics(ctx); r != reps[0] {
		t.Fatal("report recomputed within the TTL")
	}
	e.Clock.Advance(ops.DiagnosticsTTL)
	r, _ := e.App.Ops.Diagnostics(ctx)
	if r == reps[0] || signal(t, r, "queue", "pending_jobs").Value != 1 {
		t.Fatal("report not recomputed after the TTL")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	e.Clock.Advance(ops.DiagnosticsTTL)
	if _, err := e.App.Ops.Diagnostics(cctx); err == nil {
		// A cancelled caller may still win the race with a fast compute;
		// what matters is that the next caller gets a report.
		t.Log("cancelled caller got a report")
	}
	if _, err := e.App.Ops.Diagnostics(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestDiagnosticsAPI(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	r := e.Get(t, "/api/diagnostics").Want(t, http.StatusOK)
	if comp, _ := r.JSON["composite"].(map[string]any); comp["status"] != "healthy" {
		t.Fatalf("composite %s", r)
	}
	if ds, _ := r.JSON["domains"].([]any); len(ds) != 6 {
		t.Fatalf("domains %s", r)
	}
	q := e.Get(t, "/api/diagnostics/queue").Want(t, http.StatusOK)
	if q.Str("name") != "queue" || q.JSON["weight"] != 0.28 {
		t.Fatalf("queue %s", q)
	}
	bad := e.Get(t, "/api/diagnostics/duplicate").Want(t, http.StatusBadRequest)
	if msg := bad.Str("error"); !strings.Contains(msg, `"duplicate"`) || !strings.Contains(msg, "queue, storage, index, provider, mutation, connector") {
		t.Fatalf("unknown domain: %s", bad)
	}
}

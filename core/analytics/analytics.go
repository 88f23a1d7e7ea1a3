package analytics

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
)

// Analytics is cairn's in-memory usage record (docs/design/operations.md,
// "Analytics"): API usage keyed by route pattern, per-actor and
// per-provider counters, a ring of the last 500 errors, and latency
// histograms of the last 1000 samples per operation. It is owned by the Service, so CLI, TUI, MCP and API calls
// all count; everything resets when the process restarts. All methods are
// safe for concurrent use.
type Analytics struct {
	now func() time.Time

	usageMu   sync.Mutex
	endpoints map[string]*UsageCounter
	actors    map[string]*UsageCounter
	providers map[string]*UsageCounter

	errMu  sync.Mutex
	errs   [ErrorRingSize]ErrorEvent
	errN   int // entries held, at most ErrorRingSize
	errPos int // next slot to write

	latency map[string]*latencyRing // fixed keys: the Latency* operations

	provMu    sync.Mutex
	provRing  [ProviderRingSize]bool // true = success
	provN     int
	provPos   int
	provFails int

	emptyStreak atomic.Int64 // consecutive extractions with no fact
}

// Sizes of the in-memory rings.
const (
	ErrorRingSize    = 500
	LatencyRingSize  = 1000
	ProviderRingSize = 100
	// maxUsageKeys bounds each usage map; actor names come from a request
	// header, so beyond this many the rest are folded into "(other)".
	maxUsageKeys = 1000
)

// Operations with a latency histogram.
const (
	LatencyRemember = "remember"
	LatencyRecall   = "recall"
	LatencyMutate   = "mutate"
	LatencyJobs     = "jobs"
)

// LatencyOps lists the operations with a latency histogram, in report order.
var LatencyOps = []string{LatencyRemember, LatencyRecall, LatencyMutate, LatencyJobs}

// Error stages: Signet's, without its predictor's (the learned ranker runs
// in process), plus api and storage.
const (
	StageExtraction = "extraction"
	StageDecision   = "decision"
	StageEmbedding  = "embedding"
	StageMutation   = "mutation"
	StageConnector  = "connector"
	StageAPI        = "api"
	StageStorage    = "storage"
)

// ErrorStages lists the valid stages of an ErrorEvent.
var ErrorStages = []string{StageExtraction, StageDecision, StageEmbedding, StageMutation, StageConnector, StageAPI, StageStorage}

// Error codes by stage.
const (
	CodeExtractionTimeout       = "EXTRACTION_TIMEOUT"
	CodeExtractionParseFail     = "EXTRACTION_PARSE_FAIL"
	CodeExtractionProvider      = "EXTRACTION_PROVIDER_ERROR"
	CodeDecisionTimeout         = "DECISION_TIMEOUT"
	CodeDecisionInvalid         = "DECISION_INVALID"
	CodeDecisionProvider        = "DECISION_PROVIDER_ERROR"
	CodeEmbeddingProviderDown   = "EMBEDDING_PROVIDER_DOWN"
	CodeEmbeddingTimeout        = "EMBEDDING_TIMEOUT"
	CodeMutationConflict        = "MUTATION_CONFLICT"
	CodeMutationScopeDenied     = "MUTATION_SCOPE_DENIED"
	CodeConnectorSyncFail       = "CONNECTOR_SYNC_FAIL"
	CodeConnectorAuthFail       = "CONNECTOR_AUTH_FAIL"
	CodeAPIServerError          = "API_SERVER_ERROR"
	CodeStorageError            = "STORAGE_ERROR"
	CodeExtractionEmptyRepeated = "EXTRACTION_EMPTY_STREAK"
	// CodeModelBudgetSpent: the chosen model's daily token budget is
	// spent; the heuristic extractor learns until the day ends.
	CodeModelBudgetSpent = "MODEL_BUDGET_SPENT"
)

// UsageCounter counts calls of one endpoint, actor or provider.
type UsageCounter struct {
	Count          int64   `json:"count"`
	Errors         int64   `json:"errors"`
	TotalLatencyMs float64 `json:"totalLatencyMs"`
}

// UsageSnapshot is a copy of the usage counters.
type UsageSnapshot struct {
	// Endpoints is keyed by route pattern ("GET /api/memory/{id}"), never
	// the raw path; requests no route matched count as "unmatched".
	Endpoints map[string]UsageCounter `json:"endpoints"`
	// Actors is keyed by the caller's actor (X-Cairn-Actor, or the token's
	// subject when auth is on).
	Actors map[string]UsageCounter `json:"actors"`
	// Providers is keyed "llm:<name>" or "embedding:<provider>/<model>".
	Providers map[string]UsageCounter `json:"providers"`
}

// ErrorEvent is one entry of the error ring.
type ErrorEvent struct {
	Timestamp string `json:"timestamp"`
	Stage     string `json:"stage"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId,omitempty"`
	MemoryID  string `json:"memoryId,omitempty"`
	Actor     string `json:"actor,omitempty"`

	at time.Time
}

// ErrorFilter selects entries of the error ring; zero fields match all.
type ErrorFilter struct {
	Stage string
	Since time.Time
	Limit int // 0 means all
}

// LatencySummary summarises one operation's recent latencies in
// milliseconds (the API's type, core/wire). Percentile p is the sorted
// sample at index ceil(p/100·n)−1; the mean is rounded to the microsecond.
type LatencySummary = wire.LatencySummary

// ProviderHealth is the provider ring's view: outcomes of the last (up
// to) ProviderRingSize LLM and embedding calls.
type ProviderHealth struct {
	Samples   int     `json:"samples"`
	Failures  int     `json:"failures"`
	Successes int     `json:"successes"`
	Ratio     float64 `json:"ratio"` // successes ÷ samples, 1 with no data
}

type latencyRing struct {
	mu  sync.Mutex
	buf [LatencyRingSize]float64
	n   int
	pos int
}

// NewAnalytics returns empty analytics timestamping errors with now (nil
// means time.Now).
func NewAnalytics(now func() time.Time) *Analytics {
	if now == nil {
		now = time.Now
	}
	a := &Analytics{now: now, endpoints: map[string]*UsageCounter{}, actors: map[string]*UsageCounter{},
		providers: map[string]*UsageCounter{}, latency: map[string]*latencyRing{}}
	for _, op := range LatencyOps {
		a.latency[op] = &latencyRing{}
	}
	return a
}

func bump(m map[string]*UsageCounter, key string, failed bool, ms float64) {
	c := m[key]
	if c == nil {
		if len(m) >= maxUsageKeys {
			key = "(other)"
			c = m[key]
		}
		if c == nil {
			c = &UsageCounter{}
			m[key] = c
		}
	}
	c.Count++
	if failed {
		c.Errors++
	}
	c.TotalLatencyMs += ms
}

func DurMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// RecordRequest counts one API request under its route pattern and actor;
// a status of 400 or more counts as an error.
func (a *Analytics) RecordRequest(pattern, actor string, status int, d time.Duration) {
	if pattern == "" {
		pattern = "unmatched"
	}
	failed, ms := status >= 400, DurMs(d)
	a.usageMu.Lock()
	bump(a.endpoints, pattern, failed, ms)
	if actor != "" {
		bump(a.actors, actor, failed, ms)
	}
	a.usageMu.Unlock()
}

// RecordProviderCall counts one call of a provider ("llm:<name>" or
// "embedding:<name>") and feeds the provider ring diagnostics reads.
func (a *Analytics) RecordProviderCall(provider string, d time.Duration, err error) {
	a.usageMu.Lock()
	bump(a.providers, provider, err != nil, DurMs(d))
	a.usageMu.Unlock()
	a.provMu.Lock()
	if a.provN == ProviderRingSize && !a.provRing[a.provPos] {
		a.provFails-- // the evicted outcome was a failure
	}
	a.provRing[a.provPos] = err == nil
	if err != nil {
		a.provFails++
	}
	a.provPos = (a.provPos + 1) % ProviderRingSize
	a.provN = min(a.provN+1, ProviderRingSize)
	a.provMu.Unlock()
}

// ProviderHealth reports the provider ring.
func (a *Analytics) ProviderHealth() ProviderHealth {
	a.provMu.Lock()
	defer a.provMu.Unlock()
	h := ProviderHealth{Samples: a.provN, Failures: a.provFails, Successes: a.provN - a.provFails, Ratio: 1}
	if a.provN > 0 {
		h.Ratio = float64(h.Successes) / float64(a.provN)
	}
	return h
}

// Usage returns a copy of the usage counters.
func (a *Analytics) Usage() UsageSnapshot {
	cp := func(m map[string]*UsageCounter) map[string]UsageCounter {
		out := make(map[string]UsageCounter, len(m))
		for k, v := range m {
			out[k] = *v
		}
		return out
	}
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return UsageSnapshot{Endpoints: cp(a.endpoints), Actors: cp(a.actors), Providers: cp(a.providers)}
}

// RecordError adds e to the error ring, evicting the oldest beyond
// ErrorRingSize; an empty Timestamp is set from the clock.
func (a *Analytics) RecordError(e ErrorEvent) {
	if e.Timestamp == "" {
		e.at = a.now()
		e.Timestamp = storage.FormatTime(e.at)
	} else if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		e.at = t
	} else {
		e.at = a.now()
	}
	if len(e.Message) > 500 {
		e.Message = e.Message[:500] + "…"
	}
	a.errMu.Lock()
	a.errs[a.errPos] = e
	a.errPos = (a.errPos + 1) % ErrorRingSize
	a.errN = min(a.errN+1, ErrorRingSize)
	a.errMu.Unlock()
}

// Errors returns the ring's entries matching f, newest first, and a count
// per code over every matching entry (before Limit).
func (a *Analytics) Errors(f ErrorFilter) ([]ErrorEvent, map[string]int) {
	out := []ErrorEvent{}
	summary := map[string]int{}
	a.errMu.Lock()
	defer a.errMu.Unlock()
	for i := 1; i <= a.errN; i++ {
		e := a.errs[(a.errPos-i+ErrorRingSize)%ErrorRingSize]
		if (f.Stage != "" && e.Stage != f.Stage) || (!f.Since.IsZero() && e.at.Before(f.Since)) {
			continue
		}
		summary[e.Code]++
		if f.Limit <= 0 || len(out) < f.Limit {
			out = append(out, e)
		}
	}
	return out, summary
}

// RecordLatency adds one sample for op (one of LatencyOps; others are
// ignored).
func (a *Analytics) RecordLatency(op string, d time.Duration) {
	r := a.latency[op]
	if r == nil {
		return
	}
	ms := DurMs(d)
	r.mu.Lock()
	r.buf[r.pos] = ms
	r.pos = (r.pos + 1) % LatencyRingSize
	r.n = min(r.n+1, LatencyRingSize)
	r.mu.Unlock()
}

// Since records the time elapsed since start for op; it is meant for one
// deferred line: defer s.analytics.Since(LatencyRecall, time.Now()).
func (a *Analytics) Since(op string, start time.Time) { a.RecordLatency(op, time.Since(start)) }

// LatencySamples returns op's recent samples in milliseconds, oldest first
// (a sparkline's input).
func (a *Analytics) LatencySamples(op string) []float64 {
	r := a.latency[op]
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]float64, 0, r.n)
	start := (r.pos - r.n + LatencyRingSize) % LatencyRingSize
	for i := range r.n {
		out = append(out, r.buf[(start+i)%LatencyRingSize])
	}
	return out
}

// Latency summarises op's recent samples.
func (a *Analytics) Latency(op string) LatencySummary {
	return summarize(a.LatencySamples(op))
}

// LatencyAll summarises every operation of LatencyOps.
func (a *Analytics) LatencyAll() map[string]LatencySummary {
	out := make(map[string]LatencySummary, len(LatencyOps))
	for _, op := range LatencyOps {
		out[op] = a.Latency(op)
	}
	return out
}

func summarize(samples []float64) LatencySummary {
	n := len(samples)
	if n == 0 {
		return LatencySummary{}
	}
	slices.Sort(samples)
	sum := 0.0
	for _, v := range samples {
		sum += v
	}
	return LatencySummary{P50: Percentile(samples, 50), P95: Percentile(samples, 95), P99: Percentile(samples, 99),
		Count: n, Mean: math.Round(sum/float64(n)*1000) / 1000}
}

// Percentile returns the p-th percentile of sorted samples: the sample at
// index ceil(p/100·n)−1 (0 for no samples).
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(n))) - 1
	return sorted[min(max(i, 0), n-1)]
}

// RecordExtraction notes an extraction over an input long enough to hold
// facts; it returns the current streak of such extractions without one.
func (a *Analytics) RecordExtraction(facts int) int64 {
	if facts > 0 {
		a.emptyStreak.Store(0)
		return 0
	}
	return a.emptyStreak.Add(1)
}

// EmptyExtractionStreak is how many extractions in a row, over inputs long
// enough to hold facts, produced none.
func (a *Analytics) EmptyExtractionStreak() int64 { return a.emptyStreak.Load() }

// TimeoutCode is timeout for a model call that ran out of time, else
// other.
func TimeoutCode(err error, timeout, other string) string {
	if IsTimeout(err) {
		return timeout
	}
	return other
}

func IsTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "timeout") || strings.Contains(msg, "timed out") || strings.Contains(msg, "deadline exceeded")
}

// ValidErrorStage reports whether stage names an error stage.
func ValidErrorStage(stage string) bool { return slices.Contains(ErrorStages, stage) }

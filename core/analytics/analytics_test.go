package analytics_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
)

func TestAnalyticsPercentilesExact(t *testing.T) {
	t.Parallel()
	a := analytics.NewAnalytics(nil)
	for i := 100; i >= 1; i-- { // out of order on purpose
		a.RecordLatency(analytics.LatencyRecall, time.Duration(i)*time.Millisecond)
	}
	got := a.Latency(analytics.LatencyRecall)
	want := analytics.LatencySummary{P50: 50, P95: 95, P99: 99, Count: 100, Mean: 50.5}
	if got != want {
		t.Fatalf("latency %+v, want %+v", got, want)
	}
	for i := 1; i <= 10; i++ {
		a.RecordLatency(analytics.LatencyRemember, time.Duration(i)*time.Millisecond)
	}
	// n = 10: p50 → index ceil(5)−1 = 4, p95 → ceil(9.5)−1 = 9, p99 → 9.
	if got := a.Latency(analytics.LatencyRemember); got.P50 != 5 || got.P95 != 10 || got.P99 != 10 || got.Mean != 5.5 {
		t.Fatalf("n=10: %+v", got)
	}
	if got := a.Latency(analytics.LatencyMutate); got != (analytics.LatencySummary{}) {
		t.Fatalf("empty: %+v", got)
	}
	if analytics.Percentile([]float64{7}, 1) != 7 || analytics.Percentile(nil, 50) != 0 {
		t.Fatal("percentile edge cases")
	}
	// The ring keeps the last 1000 samples, oldest first.
	for i := 1; i <= 1100; i++ {
		a.RecordLatency(analytics.LatencyJobs, time.Duration(i)*time.Microsecond)
	}
	s := a.LatencySamples(analytics.LatencyJobs)
	if len(s) != analytics.LatencyRingSize || s[0] != 0.101 || s[len(s)-1] != 1.1 {
		t.Fatalf("samples: n=%d first=%v last=%v", len(s), s[0], s[len(s)-1])
	}
	if l := a.Latency(analytics.LatencyJobs); l.Count != 1000 || l.P50 != 0.6 || l.P99 != 1.09 {
		t.Fatalf("jobs after eviction %+v", l)
	}
	a.RecordLatency("bogus", time.Second) // ignored, no panic
	if a.LatencySamples("bogus") != nil {
		t.Fatal("unknown op has samples")
	}
}

func TestAnalyticsErrorRingEvictionAndFilters(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: clockStart}
	a := analytics.NewAnalytics(clock.Now)
	for i := range analytics.ErrorRingSize + 10 {
		stage, code := analytics.StageExtraction, analytics.CodeExtractionTimeout
		if i%2 == 1 {
			stage, code = analytics.StageEmbedding, analytics.CodeEmbeddingProviderDown
		}
		a.RecordError(analytics.ErrorEvent{Stage: stage, Code: code, Message: fmt.Sprint(i)})
		clock.Advance(time.Second)
	}
	all, summary := a.Errors(analytics.ErrorFilter{})
	if len(all) != analytics.ErrorRingSize || all[0].Message != "509" || all[len(all)-1].Message != "10" {
		t.Fatalf("ring: n=%d newest=%s oldest=%s", len(all), all[0].Message, all[len(all)-1].Message)
	}
	if summary[analytics.CodeExtractionTimeout] != 250 || summary[analytics.CodeEmbeddingProviderDown] != 250 {
		t.Fatalf("summary %v", summary)
	}
	emb, summary := a.Errors(analytics.ErrorFilter{Stage: analytics.StageEmbedding, Limit: 3})
	if len(emb) != 3 || emb[0].Message != "509" || emb[2].Message != "505" || len(summary) != 1 || summary[analytics.CodeEmbeddingProviderDown] != 250 {
		t.Fatalf("stage filter %+v %v", emb, summary)
	}
	// Entry i was recorded at clockStart + i s.
	recent, _ := a.Errors(analytics.ErrorFilter{Since: clockStart.Add(500 * time.Second)})
	if len(recent) != 10 || recent[9].Message != "500" {
		t.Fatalf("since filter: %d", len(recent))
	}
	if recent[0].Timestamp == "" {
		t.Fatal("no timestamp")
	}
}

func TestAnalyticsConcurrentRecording(t *testing.T) {
	t.Parallel()
	a := analytics.NewAnalytics(nil)
	const g, n = 8, 500
	var wg sync.WaitGroup
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range n {
				a.RecordRequest("GET /api/memory/{id}", fmt.Sprint("actor", i), 200+(j%2)*300, time.Millisecond)
				a.RecordLatency(analytics.LatencyRecall, time.Millisecond)
				a.RecordError(analytics.ErrorEvent{Stage: analytics.StageAPI, Code: analytics.CodeAPIServerError})
				var err error
				if j%4 == 0 {
					err = errors.New("x")
				}
				a.RecordProviderCall("llm:x", time.Millisecond, err)
				_ = a.Usage()
				_ = a.LatencyAll()
				_, _ = a.Errors(analytics.ErrorFilter{Limit: 5})
				_ = a.ProviderHealth()
			}
		}()
	}
	wg.Wait()
	u := a.Usage()
	if e := u.Endpoints["GET /api/memory/{id}"]; e.Count != g*n || e.Errors != g*n/2 || e.TotalLatencyMs != g*n {
		t.Fatalf("endpoint %+v", e)
	}
	if len(u.Actors) != g || u.Actors["actor3"].Count != n {
		t.Fatalf("actors %+v", u.Actors)
	}
	if p := u.Providers["llm:x"]; p.Count != g*n || p.Errors != g*n/4 {
		t.Fatalf("provider %+v", p)
	}
	if h := a.ProviderHealth(); h.Samples != analytics.ProviderRingSize {
		t.Fatalf("ring %+v", h)
	}
	if l := a.Latency(analytics.LatencyRecall); l.Count != analytics.LatencyRingSize {
		t.Fatalf("latency %+v", l)
	}
}

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var clockStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

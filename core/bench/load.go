package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LoadOptions describe a mixed load on a running server.
type LoadOptions struct {
	Clients  int
	Duration time.Duration
	// Mix is the share of each operation: "recall" and "remember".
	Mix map[string]float64
	// Queries are recalled (each client picks at random); Texts are
	// remembered in turn (each once; a suffix keeps reused ones new).
	Queries, Texts []string
	Project        string
	// HealthEvery is how often one more caller asks GET /health.
	HealthEvery time.Duration
	// Timeout bounds one request, as a hook's caller would.
	Timeout time.Duration
}

// OpStats are the figures of one operation under load.
type OpStats struct {
	Op       string  `json:"op"`
	Requests int     `json:"requests"`
	OK       int     `json:"ok"`
	Rejected int     `json:"rejected_503"`
	Errors   int     `json:"errors"`
	PerSec   float64 `json:"ok_per_sec"`
	P50MS    float64 `json:"p50_ms"`
	P90MS    float64 `json:"p90_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
	// RejectP99MS is how long a 503 took to come back.
	RejectP99MS float64 `json:"rejected_p99_ms,omitempty"`
	// FirstError is one error met, to tell what failed.
	FirstError string `json:"first_error,omitempty"`
}

// LoadResult is a load run's figures.
type LoadResult struct {
	Elapsed time.Duration
	Ops     []OpStats // recall, remember, then health
}

type sample struct {
	d          time.Duration
	status     int // 0 when the request failed without an answer
	err        string
	retryAfter time.Duration
}

// RunLoad drives the server at addr with opts.Clients callers, each
// sending its next request as soon as the last is answered, for
// opts.Duration, while one more caller asks /health every
// opts.HealthEvery. Every request is timed; a 503 is counted apart.
func RunLoad(ctx context.Context, addr string, opts LoadOptions) (*LoadResult, error) {
	if opts.Clients < 1 || opts.Duration <= 0 || len(opts.Queries) == 0 || len(opts.Texts) == 0 {
		return nil, fmt.Errorf("load: clients, duration, queries and texts are required")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.HealthEvery <= 0 {
		opts.HealthEvery = 100 * time.Millisecond
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = opts.Clients + 4
	hc := &http.Client{Transport: tr, Timeout: opts.Timeout}
	defer tr.CloseIdleConnections()
	base := "http://" + addr
	recallShare := opts.Mix["recall"]
	total := recallShare + opts.Mix["remember"]
	if total <= 0 {
		return nil, fmt.Errorf("load: the mix has no recall or remember share")
	}

	var mu sync.Mutex
	samples := map[string][]sample{}
	record := func(op string, s sample) {
		mu.Lock()
		samples[op] = append(samples[op], s)
		mu.Unlock()
	}
	var next int
	var nextMu sync.Mutex
	nextText := func() string {
		nextMu.Lock()
		defer nextMu.Unlock()
		t := opts.Texts[next%len(opts.Texts)]
		if round := next / len(opts.Texts); round > 0 {
			t = fmt.Sprintf("%s (load %d)", t, round)
		}
		next++
		return t
	}
	call := func(ctx context.Context, method, path string, body any) sample {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
		if err != nil {
			return sample{err: err.Error()}
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		t0 := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return sample{d: time.Since(t0), err: err.Error()}
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s := sample{d: time.Since(t0), status: resp.StatusCode}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			s.retryAfter = time.Duration(secs) * time.Second
		}
		if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusServiceUnavailable {
			s.err = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
		}
		return s
	}

	lctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for c := range opts.Clients {
		r := rand.New(rand.NewPCG(uint64(c), 42))
		wg.Go(func() {
			for lctx.Err() == nil {
				var s sample
				if r.Float64()*total < recallShare {
					q := opts.Queries[r.IntN(len(opts.Queries))]
					s = call(ctx, http.MethodPost, "/api/memory/recall", map[string]any{"query": q, "limit": 10, "project": opts.Project})
					record("recall", s)
				} else {
					s = call(ctx, http.MethodPost, "/api/memory/remember", map[string]any{"content": nextText(), "project": opts.Project})
					record("remember", s)
				}
				// A refused caller waits as told, as a well-behaved client
				// does (a text refused is not remembered: the next is sent).
				if s.status == http.StatusServiceUnavailable && s.retryAfter > 0 {
					select {
					case <-lctx.Done():
					case <-time.After(s.retryAfter):
					}
				}
			}
		})
	}
	wg.Go(func() {
		t := time.NewTicker(opts.HealthEvery)
		defer t.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case <-t.C:
				record("health", call(ctx, http.MethodGet, "/health", nil))
			}
		}
	})
	wg.Wait()
	elapsed := time.Since(start)
	res := &LoadResult{Elapsed: elapsed}
	for _, op := range []string{"recall", "remember", "health"} {
		res.Ops = append(res.Ops, opStats(op, samples[op], elapsed))
	}
	return res, nil
}

func opStats(op string, ss []sample, elapsed time.Duration) OpStats {
	st := OpStats{Op: op, Requests: len(ss)}
	var ok, rejected []time.Duration
	for _, s := range ss {
		switch {
		case s.status/100 == 2:
			ok = append(ok, s.d)
		case s.status == http.StatusServiceUnavailable:
			rejected = append(rejected, s.d)
		default:
			st.Errors++
			if st.FirstError == "" {
				st.FirstError = s.err
			}
		}
	}
	st.OK, st.Rejected = len(ok), len(rejected)
	st.PerSec = float64(len(ok)) / elapsed.Seconds()
	slices.Sort(ok)
	slices.Sort(rejected)
	st.P50MS, st.P90MS, st.P99MS = MS(Percentile(ok, 0.5)), MS(Percentile(ok, 0.9)), MS(Percentile(ok, 0.99))
	if len(ok) > 0 {
		st.MaxMS = MS(ok[len(ok)-1])
	}
	if len(rejected) > 0 {
		st.RejectP99MS = MS(Percentile(rejected, 0.99))
	}
	return st
}

package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/httpapi"
)

// healthLoadClients is how many clients mix remember and recall while
// /health is measured.
const healthLoadClients = 50

// BenchmarkHealthUnderLoad measures GET /health while 50 clients mix
// remember and recall on a real store of a thousand memories. Each
// iteration is one /health request; the latency percentiles seen by the
// client are reported (p50-ms, p90-ms, p99-ms, max-ms), the time the
// handler itself took (handler-p99-ms: without the wait for a CPU to
// accept, read and write the request, which the 50 clients share), and
// the load's own throughput.
//
//	go test -run '^$' -bench BenchmarkHealthUnderLoad -benchtime 300x ./core/httpapi/
func BenchmarkHealthUnderLoad(b *testing.B) {
	ap := benchService(b)
	svc := ap.Service
	ctx := context.Background()
	for i := range 1000 {
		_, err := svc.Remember(ctx, core.RememberInput{
			Content: fmt.Sprintf("seed memory %d: service %d deploys from branch release-%d and pages team %d", i, i%37, i%11, i%7),
			Tags:    []string{"seed", fmt.Sprintf("team%d", i%7)},
		}, core.Actor{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
	}
	h := httpapi.NewAPI(ap, "bench", "127.0.0.1:0").Handler()
	var hmu sync.Mutex
	var handlerLat []time.Duration
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		h.ServeHTTP(w, r)
		if r.URL.Path == "/health" {
			d := time.Since(t0)
			hmu.Lock()
			handlerLat = append(handlerLat, d)
			hmu.Unlock()
		}
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: healthLoadClients + 8, MaxConnsPerHost: 0}}

	post := func(path string, body any) error {
		raw, _ := json.Marshal(body)
		resp, err := client.Post(srv.URL+path, "application/json", bytes.NewReader(raw))
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
		return nil
	}
	loadCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var ops atomic.Int64
	var loadErr atomic.Value
	for c := range healthLoadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; loadCtx.Err() == nil; i++ {
				err := post("/api/memory/remember", map[string]any{
					"content": fmt.Sprintf("load memory %d of client %d: the build cache for service %d lives in /var/cache/b%d", i, c, i%37, c),
					"tags":    []string{"load"},
				})
				if err == nil {
					err = post("/api/memory/recall", map[string]any{"query": fmt.Sprintf("deploy service %d release", (i+c)%37), "limit": 10})
				}
				if err != nil {
					if loadCtx.Err() == nil {
						loadErr.Store(err)
					}
					return
				}
				ops.Add(2)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // let the load reach its steady state

	lat := make([]time.Duration, 0, b.N)
	start := time.Now()
	opsBefore := ops.Load()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		resp, err := client.Get(srv.URL + "/health")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("/health: HTTP %d", resp.StatusCode)
		}
		lat = append(lat, time.Since(t0))
		time.Sleep(5 * time.Millisecond) // a poller, not a flood
	}
	b.StopTimer()
	loadOps := float64(ops.Load()-opsBefore) / time.Since(start).Seconds()
	stop()
	wg.Wait()
	if err, _ := loadErr.Load().(error); err != nil {
		b.Fatalf("load: %v", err)
	}
	pct := func(lat []time.Duration, p float64) float64 {
		slices.Sort(lat)
		i := max(0, int(float64(len(lat))*p+0.999999)-1)
		return float64(lat[min(i, len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(lat, 0.50), "p50-ms")
	b.ReportMetric(pct(lat, 0.90), "p90-ms")
	b.ReportMetric(pct(lat, 0.99), "p99-ms")
	b.ReportMetric(pct(lat, 1), "max-ms")
	hmu.Lock()
	b.ReportMetric(pct(handlerLat, 0.99), "handler-p99-ms")
	hmu.Unlock()
	b.ReportMetric(loadOps, "load-req/s")
}

// BenchmarkHealthHandler is the CPU and the allocations of one /health
// answer through the API's whole handler chain, on an idle store: what a
// health check costs the server besides the wait for a CPU.
//
//	go test -run '^$' -bench BenchmarkHealthHandler -benchmem ./core/httpapi/
func BenchmarkHealthHandler(b *testing.B) {
	ap := benchService(b)
	api := httpapi.NewAPI(ap, "bench", "127.0.0.1:3850")
	h := api.Handler()
	warm := httptest.NewRecorder()
	h.ServeHTTP(warm, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:3850/health", nil))
	api.Wait() // the first answer starts the snapshot: let it land
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:3850/health", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("/health: HTTP %d: %s", w.Code, w.Body)
		}
	}
}

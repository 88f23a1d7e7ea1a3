package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
)

var benchSeq atomic.Int64

func benchRemember(b *testing.B, client *http.Client, url string) {
	n := benchSeq.Add(1)
	body, _ := json.Marshal(map[string]any{
		"content": fmt.Sprintf("benchmark memory %d: the deploy script for project atlas lives in tools/deploy.sh", n),
		"tags":    []string{"bench"},
	})
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkRememberHTTP measures POST /api/memory/remember end to end
// (HTTP, JSON, normalization, one write transaction with history) from one
// client at a time.
func BenchmarkRememberHTTP(b *testing.B) {
	ap := benchService(b)
	srv := httptest.NewServer(httpapi.NewAPI(ap, "bench", "").Handler())
	defer srv.Close()
	url := srv.URL + "/api/memory/remember"
	client := srv.Client()
	b.ResetTimer()
	for b.Loop() {
		benchRemember(b, client, url)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
}

// BenchmarkRememberHTTPConcurrent8 is the same with 8 concurrent clients.
func BenchmarkRememberHTTPConcurrent8(b *testing.B) {
	ap := benchService(b)
	srv := httptest.NewServer(httpapi.NewAPI(ap, "bench", "").Handler())
	defer srv.Close()
	url := srv.URL + "/api/memory/remember"
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	client := &http.Client{Transport: tr}
	// RunParallel starts parallelism × GOMAXPROCS goroutines: make it 8.
	b.SetParallelism(max(1, 8/runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchRemember(b, client, url)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
}

func benchService(b *testing.B) *app.App {
	b.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(b.TempDir(), "bench.db"), NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return app.New(db, config.DefaultConfig(), app.Options{})
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

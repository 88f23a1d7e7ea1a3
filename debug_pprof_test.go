package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// `cairn serve --debug-addr` serves Go's profiler on a loopback address
// only, and stops with the server.
func TestDebugAddrServesTheProfilerOnLoopbackOnly(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:6060", "example.com:6060", "6060"} {
		_, err := serveDebug(context.Background(), addr, log)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--debug-addr") {
			t.Fatalf("--debug-addr %s: %v, want a usage error naming the flag", addr, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := serveDebug(ctx, "127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Fatalf("profiler answered %d: %.200s", resp.StatusCode, body)
	}
	cancel()
	for { // closed with its context
		resp, err := http.Get("http://" + addr + "/debug/pprof/")
		if err != nil {
			break
		}
		resp.Body.Close()
	}
}

package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	cairn "github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
)

// `cairn serve --debug-addr` serves Go's profiler (the API's debug route
// table) on a loopback address only, and stops with the server.
func TestDebugAddrServesTheProfilerOnLoopbackOnly(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:6060", "example.com:6060", "6060"} {
		_, err := listenDebug(addr)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--debug-addr") {
			t.Fatalf("--debug-addr %s: %v, want a usage error naming the flag", addr, err)
		}
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "m.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	api := httpapi.NewAPI(cairn.New(db, config.DefaultConfig(), cairn.Options{}), "test", "")
	ln, err := listenDebug("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveDebug(ctx, ln, api.DebugHandler(), log) }()
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
	<-served
	for { // closed with its context
		resp, err := http.Get("http://" + addr + "/debug/pprof/")
		if err != nil {
			break
		}
		resp.Body.Close()
	}
}

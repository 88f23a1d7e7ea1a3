package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves Go's profiler (/debug/pprof/) on addr, a loopback
// address of its own (`cairn serve --debug-addr 127.0.0.1:6060`), until
// ctx ends: the API's own routes never expose it. It returns the address
// once listening, or the reason it could not.
func serveDebug(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usageError{fmt.Sprintf("--debug-addr %q: want host:port", addr)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", usageError{fmt.Sprintf("--debug-addr %q: the profiler is served on loopback only (127.0.0.1:PORT)", addr)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--debug-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("debug listener", "err", err)
		}
	}()
	log.Info("profiler listening", "addr", ln.Addr().String())
	return ln.Addr().String(), nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// listenDebug binds the profiler's address, a loopback address of its own
// (`cairn serve --debug-addr 127.0.0.1:6060`): the API's own listener
// never serves it. It returns the reason when it cannot.
func listenDebug(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--debug-addr %q: want host:port", addr)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, usageError{fmt.Sprintf("--debug-addr %q: the profiler is served on loopback only (127.0.0.1:PORT)", addr)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr: %w", err)
	}
	return ln, nil
}

// serveDebug serves h (the API's profiler routes, httpapi's DebugHandler)
// on ln until ctx ends; the host runs it beside the API.
func serveDebug(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("profiler listening", "addr", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("debug listener", "err", err)
	}
	return nil
}

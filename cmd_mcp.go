package main

import (
	"context"
	_ "embed"
	"errors"
	"net"

	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/mcpstdio"
	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCP serves cairn's MCP tools over stdio. It answers the client at
// once, with the tools' definitions this binary holds (initialize and
// tools/list wait for nothing else), while it finds which store answers
// the calls: when no other cairn holds the database it opens the store
// itself (with the background workers and, when the address is free, the
// HTTP API); when one does, each call is forwarded to that instance's
// /mcp endpoint, connected on the first call. A call that comes before
// either is ready waits for it. Stdout carries protocol messages only:
// logs go to the log file.
func runMCP(ctx context.Context, args []string) error {
	fs, common := newFlagSet("mcp", "mcp [flags]")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.openLog(false); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// memory_store files a memory under the agent's project (the
	// repository of this process's working directory) when it names none.
	be := mcpstdio.NewBackend()
	srv := mcpstdio.Server(cairnVersion(), a.log, be, a.currentProject())
	runDone := make(chan struct{})
	var runErr error
	go func() { runErr = srv.Run(ctx, &mcp.StdioTransport{}); close(runDone) }()
	// The client going away ends the run, and an open of the store still
	// under way.
	front := func(ctx context.Context) error {
		select {
		case <-runDone:
			return runErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	openCtx, stopOpen := context.WithCancel(ctx)
	defer stopOpen()
	go func() {
		select {
		case <-runDone:
			stopOpen()
		case <-openCtx.Done():
		}
	}()
	st, err := a.openStore(openCtx)
	if err != nil {
		var le *storage.LockedError
		if !errors.As(err, &le) {
			if openCtx.Err() != nil && ctx.Err() == nil {
				return nil // the client left while the store opened
			}
			be.Fail(err)
			return err
		}
		endpoint := "http://" + a.holderAddr(le.Holder) + "/mcp"
		r := mcpstdio.NewRemote(endpoint, le.Holder.PID, cairnVersion(),
			mcp.NewClient(&mcp.Implementation{Name: "cairn-mcp-stdio", Version: cairnVersion()}, nil), a.log)
		defer r.Close()
		be.Set(r)
		a.log.Info("mcp over stdio, proxying", "version", cairnVersion(), "endpoint", endpoint, "pid", le.Holder.PID)
		err = front(ctx)
		a.log.Info("mcp stopped", "err", err)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	a.log.Info("mcp over stdio", "version", cairnVersion(), "db", a.paths.Database)
	local, err := mcpstdio.NewLocal(ctx, httpapi.NewMCPServerFor(st.app, cairnVersion(), httpapi.MCPOptions{}), cairnVersion())
	if err != nil {
		st.Close()
		be.Fail(err)
		return err
	}
	defer local.Close()
	be.Set(local)
	err, _ = a.host(ctx, st, hostOptions{
		// While this process owns the database it also serves the HTTP
		// API (when the address is free), so hooks and the CLI keep
		// working.
		listen: func() (net.Listener, error) {
			ln, err := a.listen()
			if err != nil {
				a.log.Warn("mcp: not serving the HTTP API", "err", err)
				return nil, nil
			}
			return ln, nil
		},
		// The client going away ends the run: the workers stop too.
		front: func(ctx context.Context, _ string) error { return front(ctx) },
	})
	a.log.Info("mcp stopped", "err", err)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// currentProject is the project of this process's working directory (the
// agent's), or none when it cannot be read.
func (a *app) currentProject() string {
	p, err := project.Current(a.cfg)
	if err != nil {
		a.log.Warn("current project", "err", err)
		return ""
	}
	return p
}

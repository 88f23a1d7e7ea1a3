package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func runServe(ctx context.Context, args []string) error {
	fs, common := newFlagSet("serve", "serve [flags]")
	if _, err := parseFlags(fs, args); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.openLog(true); err != nil {
		return err
	}
	return a.serve(ctx, nil)
}

// runDefault is `cairn` with no command. Until the terminal UI lands it
// runs the same service as `cairn serve` in the foreground and says so.
func runDefault(ctx context.Context, args []string) error {
	fs, common := newFlagSet("", "[flags]")
	if _, err := parseFlags(fs, args); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
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
	return a.serve(ctx, func(addr string) {
		fmt.Fprintf(os.Stderr, "cairn %s: serving the API on http://%s (database %s)\n", cairnVersion(), addr, a.paths.Database)
		fmt.Fprintf(os.Stderr, "The terminal UI is not built yet; this runs the same service as `cairn serve`. Logs: %s. Ctrl+C stops.\n", a.paths.LogFile)
	})
}

// serve opens the store, serves the API until ctx ends and shuts down in
// order: stop accepting requests, let in-flight writes finish, checkpoint
// the WAL, release the lock. ready is called once the API listens.
func (a *app) serve(ctx context.Context, ready func(addr string)) error {
	st, err := a.openStore(ctx)
	if err != nil {
		var le *storage.LockedError
		if errors.As(err, &le) {
			return fmt.Errorf("%w; use that instance (its API answers `cairn remember`, `cairn recall`, ...) or stop it first", le)
		}
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			a.log.Error("close store", "err", err)
		}
	}()
	ln, err := a.listen()
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	if err := st.lock.SetAddr(addr); err != nil {
		a.log.Warn("record address in lock file", "err", err)
	}
	api := core.NewAPI(st.svc, cairnVersion(), addr)
	a.log.Info("cairn started", "version", cairnVersion(), "addr", addr, "db", a.paths.Database, "auth", a.cfg.Auth.Mode, "pipeline", st.svc.PipelineMode())
	if ready != nil {
		ready(addr)
	}
	err = serveAPI(ctx, api, ln, a.cfg.Server.ShutdownTimeout.D())
	a.log.Info("cairn stopping")
	return err
}

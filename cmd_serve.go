package main

import (
	"context"
	"errors"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// serveLockWait is how long `cairn serve` retries while another process
// holds the database before it gives up.
const serveLockWait = 3 * time.Second

// runServe is `cairn serve`: the store, the workers and the API without a
// terminal UI, logging to the log file and stderr. With --idle-exit (how
// a hook starts it in the background) it stops after that long without a
// request, logs to the log file only, and leaves quietly when another
// cairn already serves the database.
func runServe(ctx context.Context, args []string) error {
	fs, common := newFlagSet("serve", "serve [flags]")
	idleExit := fs.Duration("idle-exit", 0, "stop after this long without a request (0: never), e.g. 15m")
	debugAddr := fs.String("debug-addr", "", "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *idleExit < 0 {
		return usageError{"--idle-exit must not be negative"}
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	background := *idleExit > 0
	if err := a.openLog(!background); err != nil {
		return err
	}
	opts := serveOptions{idleExit: *idleExit, lockWait: serveLockWait}
	if *debugAddr != "" {
		if opts.debug, err = listenDebug(*debugAddr); err != nil {
			return err
		}
	}
	err = a.serveWith(ctx, opts, nil)
	var le *storage.LockedError
	if background && errors.As(err, &le) {
		a.log.Info("another cairn serves the database: not starting", "pid", le.Holder.PID, "addr", le.Holder.Addr)
		return nil
	}
	return err
}

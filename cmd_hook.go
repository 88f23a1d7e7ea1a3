package main

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/claudecode"
)

// runHook is `cairn hook EVENT`, the Claude Code hook shim (core/harness:
// Run). It never blocks the agent: with cairn down, bad input or a slow
// answer it exits 0 printing nothing.
func runHook(ctx context.Context, args []string) error {
	if harness.Disabled() {
		return nil
	}
	fs, common := newFlagSet("hook", "hook [flags] EVENT  (session-start, user-prompt-submit, pre-compact, post-compact, session-end, remember)")
	name := fs.String("harness", claudecode.Harness.Name, "harness name recorded with what the hook stores")
	timeout := fs.Duration("timeout", 0, "how long to wait for cairn (default 2s; session-end 1s)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return err
		}
		return errors.New(err.Error()) // exit 1: non-blocking for Claude Code
	}
	if len(pos) != 1 {
		return errors.New("usage: cairn hook EVENT")
	}
	return harness.Run(ctx, claudecode.Harness, pos[0], harness.Options{
		Harness: *name,
		Timeout: *timeout,
		Load: func() (*config.Config, config.Paths, error) {
			a, err := loadApp(common)
			if err != nil {
				return nil, config.Paths{}, err
			}
			return a.cfg, a.paths, nil
		},
		ServeArgs: common.args(),
	})
}

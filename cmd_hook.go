package main

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/harness/claudecode"
	"github.com/cairnmem/cairn/core/harness/shim"
)

// runHook is `cairn hook [--harness AGENT] EVENT`, the hook shim of every
// agent harness (core/harness: Run; the agent's events and answer format
// from its package). It never blocks the agent: with cairn down, bad input or a slow
// answer it exits 0 printing nothing.
func runHook(ctx context.Context, args []string) error {
	if shim.Disabled() {
		return nil
	}
	fs, common := newFlagSet("hook", "hook [--harness "+agentNames()+"] EVENT  (session-start, user-prompt-submit, pre-compact, post-compact, session-end, remember)")
	name := fs.String("harness", claudecode.Harness.Name, "the harness that runs the hook: its input and answer format, and who what the hook stores is recorded as")
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
	// Another name than the agents' keeps Claude Code's format (a name
	// only, as --harness was before the other agents).
	h := claudecode.Harness
	if a, ok := agentNamed(*name); ok {
		h = a.hook
	}
	return shim.Run(ctx, h, pos[0], shim.Options{
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

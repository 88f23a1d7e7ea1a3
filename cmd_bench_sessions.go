package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

const benchSessionsUsage = "bench sessions [--data FILE] [--split dev|held-out|all] [--sessions N] [--set section.key=value] [--cost=true] [--binary PATH] [--keep] [--json]"

// benchSessions is `cairn bench sessions` (core/bench/sessions_run.go):
// coding sessions sent through the hook shim exactly as Claude Code sends
// them, to a server with the default configuration and no model; then
// later questions through the prompt hook, scored by whether what it
// injected was learned from a session that answers them.
func benchSessions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench sessions", benchSessionsUsage)
	data := fs.String("data", "", "a session corpus (JSON; default: the built-in one)")
	split := fs.String("split", "all", "run only the dev or the held-out split's sessions and questions (tune on dev)")
	n := fs.Int("sessions", 0, "use only the first N sessions of each project and the questions they answer (0: all)")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on the server, as section.key=value (repeatable)")
	cost := fs.Bool("cost", true, "replay the sessions on a second server with learning off and compare CPU")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one)")
	keep := fs.Bool("keep", false, "keep each server's home folder for inspection")
	drain := fs.Duration("drain-timeout", 10*time.Minute, "how long to wait for the background work after a session")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	verbose := fs.Bool("v", false, "also print what each session left behind and the chatter found")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q: cairn %s", pos[0], benchSessionsUsage)}
	}
	if *n < 0 {
		return usageError{"--sessions must not be negative"}
	}
	if _, err := configWithSets(sets); err != nil {
		return err
	}
	var c *bench.SessionCorpus
	if *data == "" {
		c, err = bench.DefaultSessionCorpus()
	} else {
		c, err = bench.LoadSessionCorpus(*data)
	}
	if err != nil {
		return err
	}
	if c, err = c.OnlySplit(*split); err != nil {
		return usageError{"--" + err.Error()}
	}
	c = c.Slice(*n)
	name := bench.DefaultSessionCorpusName
	if *data != "" {
		name = *data
	}
	fmt.Fprintf(stderr, "bench: %s: %d sessions, %d questions, %d noise statements\n", name, len(c.Sessions), len(c.Questions), len(c.Noise))
	rep, err := bench.RunSessions(ctx, c, bench.SessionsOptions{Binary: *binary, Set: sets, Keep: *keep, Cost: *cost,
		DrainTimeout: *drain, Progress: stderr})
	if err != nil {
		return err
	}
	rep.Corpus = name
	if *asJSON {
		return printJSON(stdout, rep)
	}
	bench.PrintSessionsReport(stdout, rep, *verbose)
	return nil
}

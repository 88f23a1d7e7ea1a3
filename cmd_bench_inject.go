package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

const benchInjectUsage = "bench inject --data FILE [--convs N] [--set section.key=value] [--binary PATH] [--json]"

// benchInject is `cairn bench inject`: what the prompt hook injects. For
// each conversation of FILE, a fresh server (the real binary, default
// configuration, every worker) remembers its turns in its own project,
// drains its background work, and answers the prompt hook for the
// conversation's own questions and for every other conversation's, all
// sent from that project.
func benchInject(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench inject", benchInjectUsage)
	data := fs.String("data", "", "LoCoMo-format JSON file (a list of samples)")
	convs := fs.Int("convs", 0, "use only the first N conversations (0: all; at least 2)")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on every server, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one)")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchInjectUsage}
	}
	samples, _, err := bench.LoadLocomo(*data)
	if err != nil {
		return err
	}
	if *convs > 0 && *convs < len(samples) {
		samples = samples[:*convs]
	}
	if len(samples) < 2 {
		return usageError{"the injection benchmark needs at least two conversations"}
	}
	rep := &bench.InjectReport{Conversations: len(samples)}
	for i, sm := range samples {
		srv, err := bench.StartServer(ctx, bench.ServerOptions{Name: sm.ID, Binary: *binary, Set: sets})
		if err != nil {
			return err
		}
		own, foreign, err := injectOne(ctx, srv, samples, i, stderr)
		srv.Remove()
		if err != nil {
			return err
		}
		rep.Own.Add(own)
		rep.Foreign.Add(foreign)
	}
	rep.Finish()
	if *asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "prompt hook injections: %d conversations, each remembered in its own project\n", rep.Conversations)
	fmt.Fprintf(stdout, "own questions (codes 1-4):     %5d prompts, evidence injected for %.1f%%, %.2f memories per prompt (%.2f when any)\n",
		rep.Own.Prompts, rep.EvidenceHitRate, rep.MemoriesPerPrompt, rep.MemoriesPerInject)
	fmt.Fprintf(stdout, "other conversations' questions: %5d prompts, %.1f%% injected something (false injections), %d memories\n",
		rep.Foreign.Prompts, rep.FalseInjectionRate, rep.Foreign.Memories)
	return nil
}

// injectOne measures conversation i on srv.
func injectOne(ctx context.Context, srv *bench.Server, samples []bench.Sample, i int, progress io.Writer) (own, foreign bench.InjectStats, err error) {
	if err = srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return
	}
	in, err := bench.IngestAPI(ctx, srv.Client, samples[i:i+1], 1, progress)
	if err != nil {
		return
	}
	if _, err = srv.Drain(ctx, 30*time.Minute, progress); err != nil {
		return
	}
	if own, err = bench.InjectOwn(ctx, srv.Client, in); err != nil {
		return
	}
	others := append(append([]bench.Sample{}, samples[:i]...), samples[i+1:]...)
	foreign, err = bench.InjectForeign(ctx, srv.Client, samples[i].ID, others)
	fmt.Fprintf(progress, "bench: %s: own %d prompts, %d with evidence; foreign %d prompts, %d injected\n",
		samples[i].ID, own.Prompts, own.Evidence, foreign.Prompts, foreign.Injected)
	return
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/config"

	"time"

	"github.com/cairnmem/cairn/workers/embedding"

	"github.com/cairnmem/cairn/core"
)

// runBench runs a retrieval benchmark: cairn bench locomo --data FILE.
func runBench(ctx context.Context, args []string) error {
	return benchMain(ctx, args, os.Stdout, os.Stderr)
}

const benchUsage = "bench costs --data FILE [--n N] | bench replay --data FILE [--train N] [--compact-every 10] | bench hooks --data FILE.jsonl [--n N] | bench load --data FILE [--memories N] [--clients 50] [--duration 30s] [--mix recall=0.7,remember=0.3] | bench inject --data FILE | bench remember --data FILE [--n N] [--clients 1,8] | bench floor --data FILE [--set embedding.key=value] [--json] | bench locomo --data FILE [--ablations pipeline-off,keyword,vector] [--clients 1] [--convs N] [--k 10] [--set section.key=value] [--scripted-llm oracle|echo] [--binary PATH] [--keep] [--json] | bench sessions [--split dev|held-out] | bench locomo --loco --data FILE [--factor section.key=off,v2,…]… [--rounds N] [--set …] [--json]"

// benchAblations are the variants measured beside the headline (the
// default configuration, recall in the API's default mode).
var benchAblations = map[string]string{
	"pipeline-off": "a second server with the pipeline off (embedder on)",
	"bare":         "a server with the pipeline and the embedder off",
	"keyword":      "keyword-only recall on the default server",
	"vector":       "vector-only recall on the default server",
}

// benchMain is runBench with its output streams: the report on stdout,
// progress on stderr.
//
// The benchmark runs the product as users run it: the cairn binary as
// `cairn serve` on a throwaway home folder with the default configuration
// and every background worker, turns remembered through POST
// /api/memory/remember, the workers drained (extraction queue empty, every
// vector written) before any question, and questions asked through POST
// /api/memory/recall.
func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "remember" {
		return benchRemember(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "inject" {
		return benchInject(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "hooks" {
		return benchHooks(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "load" {
		return benchLoad(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sessions" {
		return benchSessions(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "costs" {
		return benchCosts(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "replay" {
		return benchReplay(ctx, args[1:], stdout, stderr)
	}
	fs, _ := newFlagSet("bench", benchUsage)
	data := fs.String("data", "", "LoCoMo-format JSON file (a list of samples)")
	ablations := fs.String("ablations", "pipeline-off,keyword,vector", "variants beside the headline: pipeline-off, bare, keyword, vector (or none)")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on every server of this run, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one)")
	clients := fs.Int("clients", 1, "concurrent callers remembering the turns")
	convs := fs.Int("convs", 0, "use only the first N conversations (0: all)")
	k := fs.Int("k", 10, "how many memories to recall per question")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the background work to finish")
	keep := fs.Bool("keep", false, "keep each server's home folder (database and log) for inspection; progress names them")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	loco := fs.Bool("loco", false, "leave-one-conversation-out: tune every --factor on all conversations but one, score the held-out one, in turn")
	var factors factorFlags
	fs.Var(&factors, "factor", "with --loco, a tuned value and the values to try, section.key=off,v2,… (repeatable; the first value turns it off; default: recall's tuned factors)")
	rounds := fs.Int("rounds", 1, "with --loco, passes of coordinate ascent over the factors")
	scripted := fs.String("scripted-llm", "", "add a server whose pipeline model is a scripted one (oracle: the questions whose evidence a memory is, as its hints, a ceiling; echo: a question restating the memory)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"which benchmark? usage: cairn " + benchUsage}
	}
	if pos[0] == "floor" && len(pos) == 1 {
		return benchFloor(ctx, *data, sets, *asJSON, stdout, stderr)
	}
	if pos[0] != "locomo" || len(pos) > 1 {
		return usageError{fmt.Sprintf("unknown benchmark %q (locomo or floor): cairn %s", strings.Join(pos, " "), benchUsage)}
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchUsage}
	}
	if *k < 1 || *k > core.MaxRecallLimit {
		return usageError{fmt.Sprintf("--k must be from 1 to %d", core.MaxRecallLimit)}
	}
	if *convs < 0 {
		return usageError{"--convs must not be negative"}
	}
	if *clients < 1 || *clients > 256 {
		return usageError{"--clients must be from 1 to 256"}
	}
	if *loco {
		if *rounds < 1 || *rounds > 5 {
			return usageError{"--rounds must be from 1 to 5"}
		}
		if *convs > 0 || *scripted != "" {
			return usageError{"--loco uses every conversation and the default pipeline (no --convs, no --scripted-llm)"}
		}
		if _, err := configWithSets(sets); err != nil {
			return err
		}
		return benchLoco(ctx, *data, factors, sets, *binary, *rounds, *k, *clients, *drainTimeout, *keep, *asJSON, stdout, stderr)
	}
	abl, err := parseAblations(*ablations)
	if err != nil {
		return err
	}
	if *scripted != "" && !slices.Contains(bench.ScriptNames, *scripted) {
		return usageError{fmt.Sprintf("--scripted-llm must be one of %s", strings.Join(bench.ScriptNames, ", "))}
	}
	// The servers read the overrides from their environment; checking
	// them here gives a usage error before any server starts.
	if _, err := configWithSets(sets); err != nil {
		return err
	}

	samples, ev, err := bench.LoadLocomo(*data)
	if err != nil {
		return err
	}
	if *convs > 0 && *convs < len(samples) {
		samples = samples[:*convs]
		ev = bench.TotalEvidence(samples)
	}
	rep := bench.NewReport(*data, *k, samples, ev)
	fmt.Fprintf(stderr, "bench: %d conversations, %d turns, %d questions (%d skipped: no valid evidence)\n",
		len(samples), rep.Turns, rep.Questions, ev.Skipped)
	fmt.Fprintf(stderr, "bench: evidence ids: %d repaired, %d dropped\n", ev.Repaired, ev.Dropped)

	runs := []benchRun{{name: "default", modes: []string{""}}}
	if abl["keyword"] {
		runs[0].modes = append(runs[0].modes, core.ModeKeyword)
	}
	if abl["vector"] {
		runs[0].modes = append(runs[0].modes, core.ModeVector)
	}
	for _, a := range []string{"pipeline-off", "bare"} {
		if abl[a] {
			runs = append(runs, benchRun{name: a, set: ablationSets[a], modes: []string{""}})
		}
	}
	if *scripted != "" {
		llm, err := bench.StartScriptedLLM(*scripted, samples)
		if err != nil {
			return err
		}
		defer llm.Close()
		runs = append(runs, benchRun{name: "scripted-" + *scripted, set: llm.ScriptedSets(), modes: []string{""}})
	}
	for _, r := range runs {
		rr, err := r.run(ctx, bench.ServerOptions{Name: r.name, Binary: *binary, Keep: *keep, Set: append(append([]string{}, sets...), r.set...)},
			samples, *clients, *k, *drainTimeout, stderr)
		if err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, rr)
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	bench.PrintBenchReport(stdout, rep)
	return nil
}

// benchRun is one server configuration and the recall modes asked of it.
type benchRun struct {
	name  string
	set   []string
	modes []string
}

// run starts a server, remembers the turns, drains the background work,
// asks the questions, stops the server and reports what it all cost.
func (r benchRun) run(ctx context.Context, o bench.ServerOptions, samples []bench.Sample, clients, k int, drain time.Duration, progress io.Writer) (*bench.RunReport, error) {
	fmt.Fprintf(progress, "bench: %s: starting cairn serve %s\n", r.name, strings.Join(o.Set, " "))
	srv, err := bench.StartServer(ctx, o)
	if err != nil {
		return nil, err
	}
	defer srv.Remove()
	if o.Keep {
		fmt.Fprintf(progress, "bench: %s: home folder %s (kept)\n", r.name, srv.Home())
	}
	// The embedding model loads in the background at start: its cost is
	// start-up, not ingest.
	if _, err := srv.Drain(ctx, drain, io.Discard); err != nil {
		return nil, err
	}
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	cpu0, _ := srv.CPU()
	in, err := bench.IngestAPI(ctx, srv.Client, samples, clients, progress)
	if err != nil {
		return nil, err
	}
	cpu1, _ := srv.CPU()
	t0 := time.Now()
	backlog, err := srv.Drain(ctx, drain, progress)
	if err != nil {
		return nil, err
	}
	drained := time.Since(t0)
	cpu2, cpuOK := srv.CPU()
	fmt.Fprintf(progress, "bench: %s: background work done %s after the last remember\n", r.name, drained.Round(time.Millisecond))
	rr := bench.NewRunReport(r.name, o.Set, in, clients)
	rr.DrainMS = bench.MS(drained)
	rr.PendingProposals = backlog.PendingProposals
	if cpuOK {
		rr.SetCPU(cpu1-cpu0, cpu2-cpu1)
	}
	for _, mode := range r.modes {
		mr, err := bench.AskAPI(ctx, srv.Client, in, mode, k)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "bench: %s: %s recall: %d questions in %.0f ms\n", r.name, mr.Mode, mr.Row("all").N, mr.TotalMS)
		rr.Modes = append(rr.Modes, mr)
	}
	if err := srv.Stop(); err != nil {
		return nil, err
	}
	rr.SetDatabaseBytes(srv.DatabaseBytes())
	return rr, nil
}

// benchFloor measures the relevance floor of the configured embedding
// model (search.min_vector_similarity): how similar it finds questions and
// their evidence, and questions and other people's conversations.
func benchFloor(ctx context.Context, data string, sets []string, asJSON bool, stdout, stderr io.Writer) error {
	if data == "" {
		return usageError{"--data FILE is required: cairn " + benchUsage}
	}
	cfg, err := configWithSets(sets)
	if err != nil {
		return err
	}
	emb, err := embedding.New(cfg.Embedding)
	if err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	if emb == nil {
		return usageError{"the floor is a property of an embedding model, and embedding.provider is none"}
	}
	samples, _, err := bench.LoadLocomo(data)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: floor: embedding %d conversations with %s\n", len(samples), emb.Model())
	rep, err := bench.CalibrateFloor(ctx, emb, samples, 50)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "cosine similarity of questions (as recall embeds them) with turns, model %s\n", rep.Model)
	fmt.Fprintf(stdout, "%-34s %7s %6s %6s %6s %6s %6s %6s\n", "pairs", "n", "p50", "p90", "p95", "p99", "p99.9", "max")
	for _, r := range []struct {
		name string
		d    bench.Dist
	}{{"related (question, its evidence)", rep.Related}, {"unrelated (other conversations)", rep.Unrelated}} {
		fmt.Fprintf(stdout, "%-34s %7d %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f\n", r.name, r.d.N, r.d.P50, r.d.P90, r.d.P95, r.d.P99, r.d.P999, r.d.Max)
	}
	fmt.Fprintf(stdout, "suggested floor (unrelated p99): %.3f; related pairs above it: %.1f%%, unrelated: %.1f%%\n",
		rep.Suggested, 100*rep.RelatedAbove, 100*rep.UnrelatedAbove)
	fmt.Fprintf(stdout, "set it with: search.min_vector_similarity = %.3f\n", rep.Suggested)
	return nil
}

// configWithSets is the default configuration with --set overrides
// (section.key=value) applied; a bad one is a usage error naming it.
func configWithSets(sets []string) (config.Config, error) {
	cfg := config.DefaultConfig()
	for _, kv := range sets {
		key, v, ok := strings.Cut(kv, "=")
		if !ok {
			return cfg, usageError{fmt.Sprintf("--set %q: want section.key=value", kv)}
		}
		if err := cfg.Set(strings.TrimSpace(key), v); err != nil {
			return cfg, usageError{fmt.Sprintf("--set %q: %v", kv, err)}
		}
	}
	return cfg, nil
}

// printJSON prints v as indented JSON (the benchmarks' --json).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func parseAblations(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, a := range strings.Split(s, ",") {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" || a == "none" {
			continue
		}
		if _, ok := benchAblations[a]; !ok {
			names := make([]string, 0, len(benchAblations))
			for n := range benchAblations {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, usageError{fmt.Sprintf("unknown ablation %q (%s, or none)", a, strings.Join(names, ", "))}
		}
		out[a] = true
	}
	return out, nil
}

// setFlags collects repeated --set flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

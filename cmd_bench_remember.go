package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

const benchRememberUsage = "bench remember --data FILE [--n 10000] [--clients 1,8] [--ablations bare,pipeline-off] [--binary PATH[,PATH]] [--json]"

// benchRemember is `cairn bench remember`: the write path under load, as
// agents use it. Each configuration gets a fresh server (the real binary,
// every worker running), the texts (one memory per line of FILE) are
// remembered over HTTP from 1 and from N clients, then the background work
// is drained and what it cost is measured. Configurations alternate, so a
// noisy machine weighs on all of them alike; with several --binary builds,
// each configuration runs on each build in turn.
func benchRemember(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench remember", benchRememberUsage)
	data := fs.String("data", "", "text file: one memory per line")
	n := fs.Int("n", 10000, "how many lines to remember (the first N non-blank lines)")
	clientList := fs.String("clients", "1,8", "comma-separated numbers of concurrent callers")
	ablations := fs.String("ablations", "bare,pipeline-off", "configurations beside the default: bare (pipeline and embedder off), pipeline-off, or none")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on every server, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one); several, comma-separated, are alternated with each configuration")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the background work to finish")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchRememberUsage}
	}
	if *n < 1 {
		return usageError{"--n must be at least 1"}
	}
	var clients []int
	for _, c := range strings.Split(*clientList, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || v < 1 || v > 256 {
			return usageError{fmt.Sprintf("--clients %q: want numbers from 1 to 256", *clientList)}
		}
		clients = append(clients, v)
	}
	abl, err := parseAblations(*ablations)
	if err != nil {
		return err
	}
	configs := []benchRun{{name: "default"}}
	for _, a := range []string{"bare", "pipeline-off"} {
		if abl[a] {
			configs = append(configs, benchRun{name: a, set: ablationSets[a]})
		}
	}
	texts, err := bench.ReadLines(*data, *n)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: remember %d texts from %s\n", len(texts), *data)
	bins := []string{""}
	if *binary != "" {
		bins = strings.Split(*binary, ",")
	}
	var rows []bench.RememberRow
	for _, c := range clients {
		for _, cfg := range configs {
			for _, bin := range bins {
				bin = strings.TrimSpace(bin)
				row, err := bench.RememberLoad(ctx, bench.ServerOptions{Name: cfg.name, Binary: bin, Set: append(append([]string{}, sets...), cfg.set...)},
					texts, c, *drainTimeout, stderr)
				if err != nil {
					return err
				}
				row.Binary = bin
				rows = append(rows, *row)
			}
		}
	}
	if *asJSON {
		return printJSON(stdout, rows)
	}
	fmt.Fprintf(stdout, "remember over HTTP: %d memories per server, then the background work drained\n", len(texts))
	fmt.Fprintf(stdout, "%-14s %7s %8s %7s %7s %9s %9s %8s %8s %9s %s\n", "server", "clients", "rem/s", "p50 ms", "p99 ms", "CPU ms/m", "(after)", "drain s", "DB B/m", "proposals", "binary")
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-14s %7d %8.0f %7.2f %7.2f %9.2f %9.2f %8.1f %8.0f %9d %s\n", r.Server, r.Clients, r.RememberPerSec, r.P50MS, r.P99MS,
			r.IngestCPUMS+r.BackgroundCPUMS, r.BackgroundCPUMS, r.DrainMS/1000, r.DBBytes, r.Proposals, r.Binary)
	}
	return nil
}

// ablationSets are the config overrides of each ablation server.
var ablationSets = map[string][]string{
	"pipeline-off": {"pipeline.enabled=false"},
	"bare":         {"pipeline.enabled=false", "embedding.provider=none"},
}

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

const benchLoadUsage = "bench load --data FILE [--memories 3000] [--clients 50] [--duration 30s] [--mix recall=0.7,remember=0.3] [--health-every 100ms] [--set section.key=value] [--binary PATH[,PATH]] [--json]"

// benchLoad is `cairn bench load`: many agents at once. A fresh server
// (the real binary, every worker) remembers the first --memories lines of
// FILE and finishes its background work; then --clients callers send
// recalls (five to eight words of a random line) and remembers (the
// following lines) in the --mix proportions, each its next request as soon
// as the last is answered, for --duration, while one more caller asks
// /health every --health-every (100 ms). It reports per operation the
// answered rate, p50/p90/p99 latency and the requests refused with 503
// (the server's admission limit), and how fast /health answered under the
// load.
// --binary with several paths measures each build in turn (repeat a path
// to alternate them on a noisy machine).
func benchLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench load", benchLoadUsage)
	data := fs.String("data", "", "text file: one memory per line")
	memories := fs.Int("memories", 3000, "memories stored before the load")
	clients := fs.Int("clients", 50, "concurrent callers")
	duration := fs.Duration("duration", 30*time.Second, "how long the load lasts")
	mixFlag := fs.String("mix", "recall=0.7,remember=0.3", "share of each operation")
	healthEvery := fs.Duration("health-every", 100*time.Millisecond, "how often one more caller asks /health during the load")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on the server, as section.key=value (repeatable)")
	binaries := fs.String("binary", "", "cairn binary to measure (default: this one); two, comma-separated, are measured one after the other")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the background work after the preload")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchLoadUsage}
	}
	if *memories < 1 || *clients < 1 || *clients > 1024 || *duration <= 0 || *healthEvery <= 0 {
		return usageError{"--memories, --clients (1 to 1024), --duration and --health-every must be positive"}
	}
	mix, err := parseMix(*mixFlag)
	if err != nil {
		return err
	}
	if _, err := configWithSets(sets); err != nil {
		return err
	}
	lines, err := bench.ReadLines(*data, *memories+200_000)
	if err != nil {
		return err
	}
	if len(lines) <= *memories {
		return usageError{fmt.Sprintf("%s has %d lines: --memories must leave some to remember under load", *data, len(lines))}
	}
	pre, rest := lines[:*memories], lines[*memories:]
	queries := loadQueries(pre)
	bins := []string{""}
	if *binaries != "" {
		bins = strings.Split(*binaries, ",")
	}
	var rows []bench.LoadRow
	for _, bin := range bins {
		row, err := bench.LoadRun(ctx, bench.ServerOptions{Name: "default", Binary: strings.TrimSpace(bin), Set: sets}, pre, rest, queries,
			bench.LoadOptions{Clients: *clients, Duration: *duration, Mix: mix, Project: "bench", HealthEvery: *healthEvery}, *drainTimeout, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, *row)
	}
	if *asJSON {
		return printJSON(stdout, rows)
	}
	for _, r := range rows {
		name := r.Server
		if r.Binary != "" {
			name += " (" + r.Binary + ")"
		}
		fmt.Fprintf(stdout, "%s: %d memories, %d clients for %.0f s, server CPU %.2f s/s\n", name, r.Memories, r.Clients, r.DurationS, r.CPUPerSec)
		fmt.Fprintf(stdout, "  %-9s %8s %8s %6s %6s %8s %8s %8s %8s\n", "op", "requests", "ok/s", "503", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms")
		for _, o := range r.Ops {
			fmt.Fprintf(stdout, "  %-9s %8d %8.1f %6d %6d %8.2f %8.2f %8.2f %8.2f\n", o.Op, o.Requests, o.PerSec, o.Rejected, o.Errors, o.P50MS, o.P90MS, o.P99MS, o.MaxMS)
			if o.FirstError != "" {
				fmt.Fprintf(stdout, "    first error: %s\n", o.FirstError)
			}
		}
	}
	return nil
}

// parseMix reads recall=0.7,remember=0.3.
func parseMix(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if k = strings.TrimSpace(k); !ok || err != nil || f < 0 || (k != "recall" && k != "remember") {
			return nil, usageError{fmt.Sprintf("--mix %q: want recall=SHARE,remember=SHARE", s)}
		}
		out[k] = f
	}
	if out["recall"]+out["remember"] <= 0 {
		return nil, usageError{fmt.Sprintf("--mix %q: the shares add up to nothing", s)}
	}
	return out, nil
}

// loadQueries are five to eight words from every line stored, as agents'
// prompts name what they look for.
func loadQueries(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		w := strings.Fields(l)
		n := 5 + i%4
		start := (i * 7) % max(1, len(w)-n)
		out = append(out, strings.Join(w[start:min(len(w), start+n)], " "))
	}
	return out
}

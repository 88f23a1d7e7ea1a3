package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

const benchCostsUsage = "bench costs --data FILE [--questions FILE] [--n 10000] [--recalls 200] [--clients 8] [--starts 5] [--binary PATH[,PATH]] [--set section.key=value] [--keep] [--json]"

// benchCosts is `cairn bench costs`: what a user pays for cairn, each
// figure through the API as users call it, the default configuration
// beside the lean one (pipeline and embedder off) in the same run. Both
// servers remember the same texts and drain their background work; then
// the questions are asked of both in turn, one at a time, and each is
// stopped and started again in turn to time a start to its first
// answer.
func benchCosts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench costs", benchCostsUsage)
	data := fs.String("data", "", "text file: one memory per line")
	questions := fs.String("questions", "", "text file: one question per line (default: a few words of every stored line in turn)")
	n := fs.Int("n", 10000, "how many lines to remember")
	recalls := fs.Int("recalls", 200, "questions asked of each server in each mode")
	clients := fs.Int("clients", 8, "concurrent callers remembering the lines")
	starts := fs.Int("starts", 5, "times each server is started again to time its first answer")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on every server, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one); several, comma-separated, are measured side by side")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the background work to finish")
	keep := fs.Bool("keep", false, "leave the servers' home folders in place")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchCostsUsage}
	}
	if *n < 1 || *recalls < 1 || *clients < 1 || *starts < 1 {
		return usageError{"--n, --recalls, --clients and --starts must be at least 1"}
	}
	texts, err := bench.ReadLines(*data, *n)
	if err != nil {
		return err
	}
	qs, err := bench.CostsQuestions(*questions, texts, *recalls)
	if err != nil {
		return err
	}
	bins := []string{""}
	if *binary != "" {
		bins = strings.Split(*binary, ",")
	}
	rows, err := bench.Costs(ctx, bench.CostsOptions{Texts: texts, Questions: qs, Clients: *clients, Starts: *starts,
		Binaries: bins, Sets: sets, Keep: *keep, DrainTimeout: *drainTimeout, Progress: stderr,
		Configs: []bench.CostsConfig{{Name: "default"}, {Name: "lean", Set: ablationSets["bare"]}}})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, rows)
	}
	fmt.Fprintf(stdout, "costs at %d memories (%d remembering callers; %d questions, one caller; %d starts)\n", len(texts), *clients, len(qs), *starts)
	fmt.Fprintf(stdout, "%-8s %9s %9s %8s %15s %15s %8s %8s %9s %7s %15s %s\n", "server", "CPU ms/m", "(after)", "drain s",
		"recall p50/p99", "keyword p50/99", "DB MB", "WAL MB", "WAL max", "RSS MB", "first answer ms", "binary")
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-8s %9.2f %9.2f %8.1f %7.2f/%-7.2f %7.2f/%-7.2f %8.1f %8.1f %9.1f %7.0f %7.0f (max %.0f) %s\n", r.Server, r.CPUMS, r.BackgroundCPUMS, r.DrainS,
			r.RecallP50MS, r.RecallP99MS, r.KeywordP50MS, r.KeywordP99MS, mb(r.DBBytes), mb(r.WALBytes), mb(r.WALMaxSeen), mb(r.RSSBytes),
			r.FirstAnswerMS, r.FirstAnswerMax, r.Binary)
	}
	for _, r := range rows {
		fmt.Fprintf(stdout, "%s: recall method %q, first answer's %q\n", r.Server, r.RecallMethod, r.FirstMethod)
	}
	return nil
}

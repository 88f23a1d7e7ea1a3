package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/workers/embedding"
)

// runBench runs a retrieval benchmark: cairn bench locomo --data FILE.
func runBench(ctx context.Context, args []string) error {
	return benchMain(ctx, args, os.Stdout, os.Stderr)
}

const benchUsage = "bench locomo --data FILE [--modes keyword,vector,hybrid] [--convs N] [--k 10] [--json]"

// benchMain is runBench with its output streams: the report on stdout,
// progress on stderr.
func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, common := newFlagSet("bench", benchUsage)
	data := fs.String("data", "", "LoCoMo-format JSON file (a list of samples)")
	modes := fs.String("modes", "keyword,vector,hybrid", "comma-separated recall modes: keyword, vector, hybrid")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key for this run, as section.key=value (repeatable)")
	sweep := fs.Bool("sweep", false, "also run hybrid over fusion (blend, rrf) × alpha (0.2..0.8) and print the headline of each")
	convs := fs.Int("convs", 0, "use only the first N conversations (0: all)")
	k := fs.Int("k", 10, "how many memories to recall per question")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"which benchmark? usage: cairn " + benchUsage}
	}
	if pos[0] != "locomo" || len(pos) > 1 {
		return usageError{fmt.Sprintf("unknown benchmark %q (only locomo is known): cairn %s", strings.Join(pos, " "), benchUsage)}
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
	modeList, err := parseBenchModes(*modes)
	if err != nil {
		return err
	}

	// The benchmark runs on the default configuration unless a config file
	// or home folder is named explicitly (never the user's own config by
	// accident: figures must be reproducible).
	cfg := config.DefaultConfig()
	if common.config != "" || common.home != "" {
		a, err := loadApp(common)
		if err != nil {
			return err
		}
		a.close()
		cfg = *a.cfg
	}
	// One turn, one memory: no turn may be chunked.
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageError{fmt.Sprintf("--set %q: want section.key=value", kv)}
		}
		if err := cfg.Set(k, v); err != nil {
			return err
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg.Guardrails.MaxContentChars = 100000
	cfg.Guardrails.ChunkTargetChars = 50000
	cfg.Guardrails.MaxRememberChars = max(cfg.Guardrails.MaxRememberChars, 100000)
	cfg.Guardrails.RecallTruncateChars = 100000

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

	needVectors := false
	for _, m := range modeList {
		if m != core.ModeKeyword {
			needVectors = true
		}
	}
	var emb core.Embedder
	if needVectors {
		emb, err = embedding.New(cfg.Embedding)
		if err != nil {
			return fmt.Errorf("embedder: %w", err)
		}
	}

	st, err := bench.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Ingest(ctx, samples, rep, stderr); err != nil {
		return err
	}
	if emb != nil {
		if err := st.Embed(ctx, emb, rep, stderr); err != nil {
			return err
		}
	}
	for _, mode := range modeList {
		mr, err := st.Mode(ctx, mode, *k, stderr)
		if err != nil {
			return err
		}
		rep.Modes = append(rep.Modes, mr)
	}

	if *sweep && emb != nil {
		fmt.Fprintln(stdout, "sweep (hybrid, codes 1-4): fusion alpha  R@1  R@5  R@10  Hit@10  MRR  nDCG@10")
		for _, fusion := range []string{"blend", "rrf"} {
			for _, alpha := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
				mr, err := st.Hybrid(ctx, fusion, alpha, *k)
				if err != nil {
					return err
				}
				h := mr.Row("1-4")
				fmt.Fprintf(stdout, "sweep %-5s %.1f  %5.1f %5.1f %5.1f %6.1f %5.1f %6.1f\n", fusion, alpha, h.R1, h.R5, h.R10, h.Hit, h.MRR, h.NDCG)
			}
		}
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printBenchReport(stdout, rep)
	return nil
}

func parseBenchModes(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, m := range strings.Split(s, ",") {
		m = strings.ToLower(strings.TrimSpace(m))
		if m == "" || seen[m] {
			continue
		}
		switch m {
		case core.ModeKeyword, core.ModeVector, core.ModeHybrid:
		default:
			return nil, usageError{fmt.Sprintf("unknown mode %q (keyword, vector or hybrid)", m)}
		}
		seen[m] = true
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, usageError{"--modes is empty"}
	}
	return out, nil
}

// printBenchReport prints r as tables: each mode by category, then the
// headline of every mode.
func printBenchReport(w io.Writer, r *bench.Report) {
	fmt.Fprintf(w, "LoCoMo retrieval: %d conversations, %d turns -> %d memories, %d questions scored (%d skipped), k=%d\n",
		r.Conversations, r.Turns, r.Memories, r.Questions, r.Evidence.Skipped, r.K)
	fmt.Fprintf(w, "evidence ids: %d repaired, %d dropped\n", r.Evidence.Repaired, r.Evidence.Dropped)
	hitCol := fmt.Sprintf("Hit@%d", r.K)
	for _, m := range r.Modes {
		fmt.Fprintf(w, "\nmode %s (methods: %s)\n", m.Mode, formatMethods(m.Methods))
		fmt.Fprintf(w, "%-4s %-12s %5s %6s %6s %6s %7s %6s %8s\n", "cat", "", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10")
		for _, row := range m.Rows {
			fmt.Fprintf(w, "%-4s %-12s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f\n",
				row.Key, row.Name, row.N, row.R1, row.R5, row.R10, row.Hit, row.MRR, row.NDCG)
		}
	}
	fmt.Fprintf(w, "\nheadline (codes 1-4)\n")
	fmt.Fprintf(w, "%-8s %5s %6s %6s %6s %7s %6s %8s %9s %9s\n", "mode", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10", "p50 ms", "p99 ms")
	for _, m := range r.Modes {
		h := m.Row("1-4")
		fmt.Fprintf(w, "%-8s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f %9.2f %9.2f\n",
			m.Mode, h.N, h.R1, h.R5, h.R10, h.Hit, h.MRR, h.NDCG, m.P50MS, m.P99MS)
	}
	fmt.Fprintf(w, "\ningest: %.0f ms", r.IngestMS)
	switch {
	case r.Embedded:
		fmt.Fprintf(w, "; embedding (%s): %.0f ms", r.EmbeddingModel, r.EmbedMS)
	default:
		fmt.Fprint(w, "; embedding: none")
	}
	fmt.Fprintln(w)
}

func formatMethods(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// setFlags collects repeated --set flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
)

// statusReport is what `cairn status --json` prints.
type statusReport struct {
	Version string `json:"version"`
	// Cairn is what was read: "database PATH", or the running cairn that
	// holds it; Attached says which.
	Cairn            string         `json:"cairn"`
	Attached         bool           `json:"attached"`
	Addr             string         `json:"addr,omitempty"`
	Memories         int            `json:"memories"`
	Forgotten        int            `json:"forgotten"`
	PendingProposals int64          `json:"pendingProposals"`
	Learned          int            `json:"learned"`     // learned from sessions since you last looked
	SeenThrough      string         `json:"seenThrough"` // the newest learned memory seen ("" never looked)
	PipelineMode     string         `json:"pipelineMode"`
	Jobs             map[string]int `json:"jobs"`
	// Shared: a PostgreSQL store, which several servers may serve.
	Shared bool                   `json:"shared,omitempty"`
	Model  *wire.ModelUsageReport `json:"model"`
}

// runStatus is `cairn status`: which cairn it reads, the memories,
// what waits for a person, the queue and a chosen model's use per day.
func runStatus(ctx context.Context, args []string) error {
	fs, common := newFlagSet("status", "status [--json]")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("status takes no arguments, got %q: cairn status [--json]", pos[0])}
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	st, err := be.Status(ctx)
	if err != nil {
		return err
	}
	r := statusReport{Version: cairnVersion(), Cairn: be.Describe(), Attached: be.Addr() != "", Addr: be.Addr(),
		Memories: st.Memories.Total, Forgotten: st.Memories.Deleted, PendingProposals: st.Counts.PendingProposals,
		PipelineMode: st.Pipeline.Mode, Jobs: st.Queue}
	if ac, ok := be.(appClient); ok {
		r.Shared = ac.a.cfg.Storage.URL != ""
	}
	// A token without the permission (team or hybrid auth) leaves a part
	// out rather than failing the whole status.
	if learned, err := be.Learned(ctx, 0); err == nil {
		r.Learned, r.SeenThrough = learned.Count, learned.SeenThrough
	} else if client.StatusOf(err) != http.StatusForbidden {
		return err
	}
	if r.Model, err = be.ModelUsage(ctx); err != nil && client.StatusOf(err) != http.StatusForbidden {
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, r)
	}
	printStatus(os.Stdout, r)
	return nil
}

// printStatus writes r for a person.
func printStatus(out io.Writer, r statusReport) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	reading := "reading " + r.Cairn + " (no cairn is running on it)"
	if r.Shared {
		reading = "reading " + r.Cairn + " (shared: the servers on it are not asked)"
	}
	if r.Attached {
		reading = "attached to " + r.Cairn
	}
	fmt.Fprintf(w, "cairn %s\t%s\n", r.Version, reading)
	fmt.Fprintf(w, "memories\t%d (%d forgotten)\n", r.Memories, r.Forgotten)
	fmt.Fprintf(w, "proposals\t%d pending\n", r.PendingProposals)
	seen := "never looked"
	if r.SeenThrough != "" {
		seen = "seen through " + r.SeenThrough
	}
	fmt.Fprintf(w, "learned\t%d since you last looked (%s; review them in the TUI: L in Recall)\n", r.Learned, seen)
	fmt.Fprintf(w, "pipeline\t%s\n", r.PipelineMode)
	var jobs []string
	for _, s := range []string{"pending", "leased", "completed", "failed", "dead"} {
		jobs = append(jobs, fmt.Sprintf("%s %d", s, r.Jobs[s]))
	}
	fmt.Fprintf(w, "jobs\t%s\n", strings.Join(jobs, " · "))
	m := r.Model
	if m == nil {
		fmt.Fprintln(w, "model use\tnot shown: this token may not read diagnostics")
		_ = w.Flush()
		return
	}
	fmt.Fprintf(w, "model use\t%d tokens today of a daily budget of %d%s\n", m.TokensToday, m.DailyTokenBudget, map[bool]string{true: " (spent: the heuristic learns until tomorrow)"}[m.BudgetSpent])
	_ = w.Flush()
	if len(m.ModelUsage) == 0 {
		fmt.Fprintln(out, "  no model calls in the last 7 days (cairn learns with its built-in heuristic unless you chose a model)")
		return
	}
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "  day\tprovider\tcalls\tfailed\tinput tokens\toutput tokens\tfallbacks\t")
	for _, u := range m.ModelUsage {
		fmt.Fprintf(w, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", u.Day, u.Provider, u.Calls, u.Failed, u.InputTokens, u.OutputTokens, u.Fallbacks)
	}
	_ = w.Flush()
}

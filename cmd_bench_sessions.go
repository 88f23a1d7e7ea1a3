package main

import (
	"context"
	"fmt"
	"io"
	"strings"
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
	printSessionsReport(stdout, rep, *verbose)
	return nil
}

func printSessionsReport(w io.Writer, r *bench.SessionsReport, verbose bool) {
	set := "default configuration"
	if len(r.Set) > 0 {
		set = strings.Join(r.Set, " ")
	}
	fmt.Fprintf(w, "coding sessions through the Claude Code hooks: %s; %s; pipeline %s, provider %s\n", r.Corpus, set, r.Mode, r.Provider)
	fmt.Fprintf(w, "%-9s %5s %5s %9s %9s %8s %8s %6s %9s %8s %9s %9s %9s %6s %9s\n", "split", "sess", "turns", "questions", "answered",
		"+start", "alone", "never", "injected", "alone", "memories", "mem/sess", "proposals", "noise", "chatter")
	for _, f := range r.Splits {
		fmt.Fprintf(w, "%-9s %5d %5d %9d %8.1f%% %7.1f%% %7.1f%% %6d %8.1f%% %7.1f%% %9d %9.2f %9d %6d %4d (%d)\n", f.Split, f.Sessions, f.Turns,
			f.Questions, f.AnsweredPct, f.AnsweredWithStartPct, f.AnsweredAlonePct, f.Never, f.NeverInjectedPct, f.NeverInjectedAlonePct,
			f.Memories, f.MemoriesPerSess, f.Proposals, f.Noise, f.ChatterMemories, f.ChatterProposals)
	}
	fmt.Fprintln(w, "answered: each question in a new session (session start, then the prompt), the prompt hook's inject holds a memory")
	fmt.Fprintln(w, "learned from a session that answers it (chatter does not count); +start: or session start's inject does; alone: the prompt hook in a session")
	fmt.Fprintln(w, "whose start was not sent. injected: never-discussed questions whose prompt injected anything (alone: without session")
	fmt.Fprintln(w, "start). chatter: memories that are noise statements (in parentheses: pending proposals that are).")
	fmt.Fprintf(w, "\nhook processes: session end p50 %.1f ms, p90 %.1f ms, max %.1f ms (%d); prompt p50 %.1f ms, p90 %.1f ms (%d)\n",
		r.SessionEnd.P50MS, r.SessionEnd.P90MS, r.SessionEnd.MaxMS, r.SessionEnd.N, r.Prompt.P50MS, r.Prompt.P90MS, r.Prompt.N)
	if r.Cost != nil {
		fmt.Fprintf(w, "learning cost: server CPU after the session ends until drained %.0f ms with learning, %.0f ms without (pipeline off),\n"+
			"  over %d transcript turns: %.2f ms per turn; whole replay %.0f against %.0f ms: %.2f ms per turn; session end p50 without learning %.1f ms\n",
			r.Cost.OnCPUMS, r.Cost.OffCPUMS, r.Cost.Turns, r.Cost.PerTurnMS, r.Cost.OnTotalCPUMS, r.Cost.OffTotalCPUMS, r.Cost.TotalPerTurnMS, r.Cost.OffSessionEnd)
	}
	for _, c := range r.Compactions {
		fmt.Fprintf(w, "compaction in %s after %d prompts (%.0f ms in): digest %d chars, names %d of the prompts, %d chatter statements, %d repeated lines, /compact instructions %s\n",
			c.Session, c.Prompts, c.ElapsedMS, c.Chars, c.PromptsInDigest, c.ChatterInDigest, c.RepeatedLines, map[bool]string{true: "kept", false: "dropped"}[c.Instructions])
	}
	if r.DeadJobs > 0 {
		fmt.Fprintf(w, "dead jobs: %d\n", r.DeadJobs)
	}
	if len(r.Chatter) > 0 {
		fmt.Fprintf(w, "\nchatter memories:\n")
		for _, c := range r.Chatter {
			fmt.Fprintf(w, "  %s (%s): %q\n", c.Session, c.Split, c.Content)
		}
	}
	if !verbose {
		return
	}
	for _, s := range r.Sessions {
		fmt.Fprintf(w, "\n%s (%s, %s): %d memories, %d pending proposals\n", s.ID, s.Project, s.Split, s.Memories, s.Proposals)
		for _, m := range s.Learned {
			fmt.Fprintf(w, "  + %s\n", m)
		}
		for _, p := range s.Proposed {
			fmt.Fprintf(w, "  ? %s\n", p)
		}
	}
	if len(r.ChatterProposals) > 0 {
		fmt.Fprintf(w, "\nchatter proposals:\n")
		for _, c := range r.ChatterProposals {
			fmt.Fprintf(w, "  %s (%s): %q\n", c.Session, c.Split, c.Content)
		}
	}
	fmt.Fprintf(w, "\nquestions:\n")
	for _, q := range r.Questions {
		fmt.Fprintf(w, "  %s %-8s answered=%-5v start=%-5v alone=%-5v injected=%d alone=%d\n", q.ID, q.Split, q.Answered, q.StartAnswered,
			q.AloneAnswered, q.Injected, q.AloneInjected)
	}
}

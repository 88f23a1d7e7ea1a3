package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core/ranker"
)

// PrintLocoReport prints the folds, their spread, the pooled categories,
// the in-sample figures and each factor's evidence.
func PrintLocoReport(w io.Writer, r *LocoReport) {
	fmt.Fprintf(w, "LoCoMo leave-one-conversation-out: each fold tunes on the other conversations, scores the held-out one (k=%d)\n", r.K)
	fmt.Fprintf(w, "R@10 codes 1-4 (MRR) | all codes | adversarial (5)\n")
	fmt.Fprintf(w, "%-10s %4s  %-22s %-22s %-22s  %s\n", "held out", "n", "tuned", "base (defaults)", "BM25", "chosen on the others")
	cell := func(f FoldFigures) string {
		return fmt.Sprintf("%5.1f (%.3f) %5.1f %5.1f", f.R10, f.MRR, f.R10All, f.Adversarial)
	}
	for _, f := range r.Folds {
		fmt.Fprintf(w, "%-10s %4d  %-22s %-22s %-22s  %s\n", f.Sample, f.Questions, cell(f.Tuned), cell(f.Base), cell(f.BM25), OrNone(f.Chosen))
	}
	sp := func(name string) string {
		s := r.Summary[name]
		if strings.HasSuffix(name, "mrr") {
			return fmt.Sprintf("%.3f sd %.3f [%.3f, %.3f]", s.Mean, s.SD, s.Min, s.Max)
		}
		return fmt.Sprintf("%5.1f sd %4.1f [%5.1f, %5.1f]", s.Mean, s.SD, s.Min, s.Max)
	}
	fmt.Fprintf(w, "\nmean over the held-out folds (sd, [min, max])\n")
	fmt.Fprintf(w, "%-8s %-28s %-28s %-28s\n", "", "R@10 (1-4)", "MRR (1-4)", "R@10 all codes")
	for _, c := range []string{"tuned", "base", "bm25"} {
		fmt.Fprintf(w, "%-8s %-28s %-28s %-28s\n", c, sp(c+"_r_at_10"), sp(c+"_mrr"), sp(c+"_r_at_10_all"))
	}
	fmt.Fprintf(w, "\nheld-out answers pooled over the folds, R@10 by category (MRR)\n")
	fmt.Fprintf(w, "%-14s", "")
	for _, row := range r.PooledTuned {
		fmt.Fprintf(w, " %14s", row.Key+" "+short(row.Name))
	}
	fmt.Fprintln(w)
	for _, x := range []struct {
		name string
		rows []Row
	}{{"tuned (LOCO)", r.PooledTuned}, {"base", r.PooledBase}, {"BM25", r.PooledBM25}, {"in-sample", r.InSample}} {
		fmt.Fprintf(w, "%-14s", x.name)
		for _, row := range x.rows {
			fmt.Fprintf(w, " %14s", fmt.Sprintf("%.1f (%.1f)", row.R10, row.MRR))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "in-sample: tuned on every conversation and scored on them: %s\n", OrNone(r.InSampleChosen))
	fmt.Fprintf(w, "\nfactors: each tuned alone on the other conversations (the rest at the base); folds won against the factor off\n")
	fmt.Fprintf(w, "on R@10 codes 1-4 (the rule: %.0f%% of the folds), all codes and adversarial (5); per fold: chosen value, R@10 (1-4) tuned/off/base, all codes tuned/off, adversarial tuned/off\n", 100*AdoptShare)
	for _, f := range r.Factors {
		verdict := "does not generalize"
		if f.Generalizes {
			verdict = "generalizes"
		}
		var folds []string
		for _, ff := range f.Folds {
			folds = append(folds, fmt.Sprintf("%s: %.1f/%.1f/%.1f all %.1f/%.1f adv %.1f/%.1f", ff.Chosen, ff.Tuned.R10, ff.Off.R10, ff.Base.R10,
				ff.Tuned.R10All, ff.Off.R10All, ff.Tuned.Adversarial, ff.Off.Adversarial))
		}
		fmt.Fprintf(w, "%-30s %s: wins %d (losses %d) on 1-4, %d (%d) all codes, %d (%d) adversarial; base beats off on %d (loses %d); in-sample choice %s\n    %s\n",
			f.Key, verdict, f.Wins, f.Losses, f.WinsAll, f.LossesAll, f.WinsAdv, f.LossesAdv, f.BaseWins, f.BaseLoss, f.InSample, strings.Join(folds, "\n    "))
		for _, vf := range f.ByValue {
			var r, all, adv []string
			for _, ff := range vf.Folds {
				r, all, adv = append(r, fmt.Sprintf("%.1f", ff.R10)), append(all, fmt.Sprintf("%.1f", ff.R10All)), append(adv, fmt.Sprintf("%.1f", ff.Adversarial))
			}
			fmt.Fprintf(w, "    fixed %s: 1-4 %.1f (%s), all %.1f (%s), adversarial %.1f (%s)\n", vf.Value,
				vf.Mean.R10, strings.Join(r, " "), vf.Mean.R10All, strings.Join(all, " "), vf.Mean.Adversarial, strings.Join(adv, " "))
		}
	}
	fmt.Fprintf(w, "\n%d servers over %d stores in %.0f s\n", r.Servers, r.Stores, r.ElapsedS)
}

func OrNone(sets []string) string {
	if len(sets) == 0 {
		return "(base)"
	}
	return strings.Join(sets, " ")
}

func short(name string) string {
	if len(name) > 8 {
		return name[:8]
	}
	return name
}

func PrintSessionsReport(w io.Writer, r *SessionsReport, verbose bool) {
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

// PrintBenchReport prints r: the headline and every ablation's recall,
// each recall run by category, then what the ingest cost each server.
func PrintBenchReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "LoCoMo retrieval through the API: %d conversations, %d turns, %d questions scored (%d skipped), k=%d\n",
		r.Conversations, r.Turns, r.Questions, r.Evidence.Skipped, r.K)
	fmt.Fprintf(w, "evidence ids: %d repaired, %d dropped\n", r.Evidence.Repaired, r.Evidence.Dropped)
	hitCol := fmt.Sprintf("Hit@%d", r.K)
	for _, run := range r.Runs {
		for _, m := range run.Modes {
			fmt.Fprintf(w, "\n%s server, %s recall (methods: %s)\n", run.Name, m.Mode, formatMethods(m.Methods))
			fmt.Fprintf(w, "%-4s %-12s %5s %6s %6s %6s %7s %6s %8s\n", "cat", "", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10")
			for _, row := range m.Rows {
				fmt.Fprintf(w, "%-4s %-12s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f\n",
					row.Key, row.Name, row.N, row.R1, row.R5, row.R10, row.Hit, row.MRR, row.NDCG)
			}
		}
	}
	fmt.Fprintf(w, "\nrecall (codes 1-4; the first line is the headline)\n")
	fmt.Fprintf(w, "%-24s %5s %6s %6s %6s %7s %6s %8s %9s %9s\n", "server / recall", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10", "p50 ms", "p99 ms")
	for _, run := range r.Runs {
		for _, m := range run.Modes {
			h := m.Row("1-4")
			fmt.Fprintf(w, "%-24s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f %9.2f %9.2f\n",
				run.Name+" / "+m.Mode, h.N, h.R1, h.R5, h.R10, h.Hit, h.MRR, h.NDCG, m.P50MS, m.P99MS)
		}
	}
	fmt.Fprintf(w, "\ningest (remember over HTTP, then the background work drained)\n")
	fmt.Fprintf(w, "%-14s %7s %8s %7s %7s %7s %8s %8s %8s %7s %8s %11s\n", "server", "clients", "memories", "rem/s", "p50 ms", "p99 ms",
		"CPU ms/m", "(during", "after)", "drain s", "DB B/m", "proposals/m")
	for _, run := range r.Runs {
		fmt.Fprintf(w, "%-14s %7d %8d %7.0f %7.2f %7.2f %8.2f %8.2f %8.2f %7.1f %8.0f %11.3f\n", run.Name, run.Clients, run.Memories,
			run.RememberPerSec, run.RememberP50MS, run.RememberP99MS, run.CPUMSPerMemory, run.IngestCPUMSPerMemory, run.BackgroundCPUMSPerMemory,
			run.DrainMS/1000, run.DatabaseBytesPerMemory, run.PendingProposalsPerMemory)
	}
	fmt.Fprintln(w, "CPU ms/m: the server's CPU per memory from the first remember until the background work was drained, split into")
	fmt.Fprintln(w, "during the remembers and after the last one. The difference between two servers is what their configurations cost.")
}

// ReplayReport is `cairn bench replay`'s result.
type ReplayReport struct {
	Data         string `json:"data"`
	CompactEvery int    `json:"compact_every"`
	NextPrompts  int    `json:"next_prompts"`
	// Train are the conversations replayed first (the ranker learns from
	// their sessions); Held those replayed after its training.
	Train *ReplayPart `json:"train"`
	Held  *ReplayPart `json:"held_out"`
	All   *ReplayPart `json:"all"`
	// Trained is the ranker after the training conversations; Final after
	// the held-out ones (its moving figures are on their sessions only).
	Trained *ranker.PredictorStatus `json:"ranker_trained,omitempty"`
	Final   *ranker.PredictorStatus `json:"ranker_final,omitempty"`
	// Feedback is what aspect feedback did over the replay.
	Feedback *ranker.AspectFeedbackReport `json:"aspect_feedback,omitempty"`
}

func PrintReplay(w io.Writer, r *ReplayReport) {
	a := r.All
	fmt.Fprintf(w, "session replay through the hooks: %d conversations, %d sessions, %d prompts, a compaction every %d turns (%d)\n",
		a.Conversations, a.Sessions, a.Prompts, r.CompactEvery, a.Recovery.Compactions)
	fmt.Fprintf(w, "\nrecovery: %d evidence turns erased by compactions; found again in\n", a.Recovery.Evidence)
	fmt.Fprintf(w, "  the recovery digest (mean %.0f chars):                    %5.1f%%\n", a.Recovery.DigestChars, a.DigestShare)
	fmt.Fprintf(w, "  the injections (session start + next %d prompts), no digest: %5.1f%%\n", r.NextPrompts, a.InjectionsShare)
	fmt.Fprintf(w, "  digest + injections:                                     %5.1f%%\n", a.BothShare)
	fmt.Fprintf(w, "\nrelevance from session scoring (the ranker's training signal) against the questions' evidence:\n")
	fmt.Fprintf(w, "  %d memories offered, %.1f%% evidence turns; %d found relevant, %.1f%% evidence turns; %.1f%% of the offered evidence found relevant\n",
		a.Relevance.Offered, a.OfferedEvidenceShare, a.Relevance.Relevant, a.RelevantEvidenceShare, a.EvidenceRelevantShare)
	if f := r.Feedback; f != nil {
		fb := f.SinceStart
		fmt.Fprintf(w, "\naspect feedback (rank_weight %g): %d sessions, %d confirmations raised %d aspects; %d decays lowered %d\n",
			f.RankWeight, fb.Sessions, fb.Confirmations, fb.AspectsUpdated, fb.Decays, fb.AspectsDecayed)
	}
	fmt.Fprintf(w, "\nquestions as prompts (codes 1-4, fresh sessions): evidence injected for %.1f%% of %d\n", a.EvidenceHitRate, a.Questions.Prompts)
	if r.Final == nil {
		return
	}
	t, f := r.Trained, r.Final
	fmt.Fprintf(w, "\nlearned ranker: trained on %d sessions of %d conversations (%d offered memories)\n", t.TrainedSessions, r.Train.Conversations, t.Examples)
	fmt.Fprintf(w, "  held out at training (newest quarter): NDCG@10 model %.3f, baseline %.3f (%d groups)\n",
		t.Holdout.NDCGModel, t.Holdout.NDCGBaseline, t.Holdout.Groups)
	fmt.Fprintf(w, "  held-out conversations (%d sessions ranked): NDCG@10 model %.3f, baseline %.3f (moving: %.3f vs %.3f, drift %v)\n",
		f.Moving.Sessions, f.Moving.MeanModel, f.Moving.MeanBaseline, f.Moving.EMAModel, f.Moving.EMABaseline, f.Moving.Drift)
	h := r.Held
	fmt.Fprintf(w, "  held-out questions: evidence injected by the model's choice %.1f%%, the baseline's %.1f%% (%d prompts; model active on %d)\n",
		h.ModelHitRate, h.BaselineHitRate, h.Questions.Ranked, h.QuestionsModelSet)
	fmt.Fprintf(w, "  held-out replay: the model's choice differs from the baseline's at %d of %d session starts, %d of %d prompts\n",
		h.StartDiffer, h.StartRanked, h.PromptDiffer, h.PromptRanked)
	fmt.Fprintf(w, "  status: %s\n", f.Reason)
}

// ReadLines returns the first n non-blank lines of path, trimmed.
func ReadLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() && len(out) < n {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no text", path)
	}
	return out, nil
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

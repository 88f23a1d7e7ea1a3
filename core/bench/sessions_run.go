package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
)

// The session benchmark drives the cairn binary exactly as Claude Code
// does: a `cairn serve` on a throwaway home, and for each session of a
// corpus the hook shim as subprocesses (`cairn hook session-start`, `cairn
// hook user-prompt-submit` for each prompt, `cairn hook session-end`), fed
// Claude Code's hook JSON on stdin from the session's folder inside a
// throwaway repository, with the session's transcript written as Claude
// Code writes it. After each session the server's background work is
// drained (sessions are apart in time). Then every question is asked from
// its project's folder in a new session (session start, then the prompt),
// and what the prompt hook injected is scored.

// SessionsOptions configure a session benchmark run.
type SessionsOptions struct {
	Binary string   // the cairn executable; empty: this process's own
	Set    []string // config overrides, section.key=value
	Keep   bool     // keep the servers' home folders
	// Cost also replays the sessions on a second server with learning off
	// (pipeline.enabled=false) and compares the two servers' CPU.
	Cost         bool
	DrainTimeout time.Duration
	Progress     io.Writer
}

// SessionsReport is `cairn bench sessions`' result.
type SessionsReport struct {
	Corpus   string   `json:"corpus"`
	Set      []string `json:"set,omitempty"`
	Provider string   `json:"provider"`
	Mode     string   `json:"pipeline_mode"`
	// Splits are the figures of the dev split, the held-out split and all.
	Splits []SplitFigures `json:"splits"`
	// Memories are the live memories learned; Proposals the pipeline's
	// pending proposals (shadow mode's unreviewed output).
	Memories  int `json:"memories"`
	Proposals int `json:"pending_proposals"`
	DeadJobs  int `json:"dead_jobs"`
	// Chatter lists the memories that are noise statements (and, for
	// shadow mode, the pending proposals that are).
	Chatter          []ChatterItem `json:"chatter_memories"`
	ChatterProposals []ChatterItem `json:"chatter_proposals"`
	// SessionEnd is the hook process's wall time at session end.
	SessionEnd LatencyFigures `json:"session_end_hook"`
	// Prompt is the prompt hook's wall time, for the sessions' prompts.
	Prompt LatencyFigures `json:"prompt_hook"`
	Cost   *LearningCost  `json:"learning_cost,omitempty"`
	// Compactions are the recovery digests after the sessions' compactions.
	Compactions []CompactionOutcome `json:"compactions"`
	Sessions    []SessionFigures    `json:"sessions"`
	Questions   []QuestionOutcome   `json:"questions"`

	view *storeView
}

// SplitFigures are the headline figures over one split.
type SplitFigures struct {
	Split    string `json:"split"`
	Sessions int    `json:"sessions"`
	Turns    int    `json:"turns"`
	// Answerable questions, and those whose prompt injection holds a
	// memory learned from a session that answers them.
	Questions   int     `json:"answerable_questions"`
	Answered    int     `json:"answered"`
	AnsweredPct float64 `json:"answered_pct"`
	// AnsweredWithStart also counts what session start injected.
	AnsweredWithStart    int     `json:"answered_with_session_start"`
	AnsweredWithStartPct float64 `json:"answered_with_session_start_pct"`
	// AnsweredAlone: the prompt hook in a session whose start was not
	// sent.
	AnsweredAlone    int     `json:"answered_prompt_alone"`
	AnsweredAlonePct float64 `json:"answered_prompt_alone_pct"`
	// Never are the never-discussed questions; NeverInjected those whose
	// prompt injected anything.
	Never            int     `json:"never_discussed"`
	NeverInjected    int     `json:"never_injected"`
	NeverInjectedPct float64 `json:"never_injected_pct"`
	// NeverInjectedAlone: the same, prompt hook without session start.
	NeverInjectedAlone    int     `json:"never_injected_prompt_alone"`
	NeverInjectedAlonePct float64 `json:"never_injected_prompt_alone_pct"`
	Memories              int     `json:"memories"`
	MemoriesPerSess       float64 `json:"memories_per_session"`
	Proposals             int     `json:"pending_proposals"`
	Noise                 int     `json:"noise_statements"`
	ChatterMemories       int     `json:"chatter_memories"`
	ChatterProposals      int     `json:"chatter_proposals"`
}

// ChatterItem is a memory (or proposal) that is a noise statement.
type ChatterItem struct {
	Session string `json:"session"`
	Split   string `json:"split"`
	Content string `json:"content"`
	Noise   string `json:"noise"`
}

// LatencyFigures summarize hook process wall times.
type LatencyFigures struct {
	N     int     `json:"n"`
	P50MS float64 `json:"p50_ms"`
	P90MS float64 `json:"p90_ms"`
	MaxMS float64 `json:"max_ms"`
}

func latencyOf(d []time.Duration) LatencyFigures {
	return LatencyFigures{N: len(d), P50MS: MS(Percentile(d, 0.5)), P90MS: MS(Percentile(d, 0.9)), MaxMS: MS(Percentile(d, 1))}
}

// LearningCost compares the server's CPU over the same sessions with
// learning on (the measured configuration) and off (pipeline disabled).
// The learning is the background work after each session end, until it
// is drained (extraction, decisions, writes, embedding what was learned):
// PerTurnMS is its CPU, less what the same windows cost with learning off,
// per transcript turn (a prompt and the agent's reply). TotalPerTurnMS is
// the same over the whole replay, from the first session start: it also
// holds what the learned memories cost the hooks that recall them.
type LearningCost struct {
	Turns          int     `json:"transcript_turns"`
	OnCPUMS        float64 `json:"learning_cpu_ms_on"`
	OffCPUMS       float64 `json:"learning_cpu_ms_off"`
	PerTurnMS      float64 `json:"learning_cpu_ms_per_turn"`
	OnTotalCPUMS   float64 `json:"total_cpu_ms_on"`
	OffTotalCPUMS  float64 `json:"total_cpu_ms_off"`
	TotalPerTurnMS float64 `json:"total_cpu_ms_per_turn"`
	OffSessionEnd  float64 `json:"session_end_hook_p50_ms_learning_off"`
}

// SessionFigures are what one session left behind.
type SessionFigures struct {
	ID        string   `json:"id"`
	Project   string   `json:"project"`
	Split     string   `json:"split"`
	Turns     int      `json:"turns"`
	Memories  int      `json:"memories"`
	Proposals int      `json:"pending_proposals"`
	Learned   []string `json:"learned,omitempty"`
	Proposed  []string `json:"proposed,omitempty"`
}

// QuestionOutcome is what one question got.
type QuestionOutcome struct {
	ID       string `json:"id"`
	Split    string `json:"split"`
	Never    bool   `json:"never_discussed,omitempty"`
	Answered bool   `json:"answered"`
	// StartAnswered: session start's inject held an answer session's memory.
	StartAnswered bool `json:"answered_by_session_start,omitempty"`
	// Injected counts the memories the prompt hook injected (as matched
	// against the store); InjectedChars the inject's size.
	Injected      int `json:"injected"`
	InjectedChars int `json:"injected_chars"`
	// Alone: the same prompt in a session whose start was not sent (the
	// prompt gate without session start's injections held back).
	AloneAnswered      bool `json:"answered_prompt_alone"`
	AloneInjected      int  `json:"injected_prompt_alone"`
	AloneInjectedChars int  `json:"injected_chars_prompt_alone"`
	// What the prompt hook injected, as the stored memories (session:
	// content), after session start and alone.
	Memories      []string `json:"injected_memories,omitempty"`
	AloneMemories []string `json:"injected_memories_prompt_alone,omitempty"`
}

// Env is the environment the server runs with: hooks run with it too, so
// they find the server and read the same configuration.
func (s *Server) Env() []string { return slices.Clone(s.cmd.Env) }

// pathWithoutClaude is PATH less the folders holding a `claude`
// executable, so no configuration can reach Claude Code's CLI (auto would
// pick it and spend the user's plan).
func pathWithoutClaude(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, "claude")); err == nil && !fi.IsDir() {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// RunSessions runs the session benchmark on c.
func RunSessions(ctx context.Context, c *SessionCorpus, o SessionsOptions) (*SessionsReport, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 10 * time.Minute
	}
	rep := &SessionsReport{Corpus: c.Name, Set: o.Set}
	on, err := replaySessions(ctx, c, "learning", o.Set, o, nil)
	if err != nil {
		return nil, err
	}
	defer on.srv.Remove()
	rep.Provider, rep.Mode = on.provider, on.mode
	rep.SessionEnd, rep.Prompt = latencyOf(on.ends), latencyOf(on.prompts)
	rep.Compactions = on.compacts
	for i := range rep.Compactions {
		co := &rep.Compactions[i]
		words := " " + WordSequence(co.Digest) + " "
		for _, n := range c.Noise {
			if w := WordSequence(n.Text); n.Session == co.Session && strings.Count(w, " ") >= chatterMinWords-1 && strings.Contains(words, " "+w+" ") {
				co.ChatterInDigest++
			}
		}
	}
	if err := rep.collect(ctx, c, on.srv.Client, on.keys); err != nil {
		return nil, err
	}
	if err := rep.ask(ctx, c, on, o.Progress); err != nil {
		return nil, err
	}
	if err := on.srv.Stop(); err != nil {
		return nil, err
	}
	rep.summarize(c)
	if o.Cost {
		off, err := replaySessions(ctx, c, "learning-off", append(slices.Clone(o.Set), "pipeline.enabled=false"), o, on.polls)
		if err != nil {
			return nil, err
		}
		defer off.srv.Remove()
		if err := off.srv.Stop(); err != nil {
			return nil, err
		}
		turns := 0
		for _, s := range c.Sessions {
			turns += len(s.Turns)
		}
		rep.Cost = &LearningCost{Turns: turns, OnCPUMS: MS(on.settleCPU), OffCPUMS: MS(off.settleCPU),
			OnTotalCPUMS: MS(on.cpu), OffTotalCPUMS: MS(off.cpu), OffSessionEnd: latencyOf(off.ends).P50MS}
		if turns > 0 {
			rep.Cost.PerTurnMS = math.Round(100*(rep.Cost.OnCPUMS-rep.Cost.OffCPUMS)/float64(turns)) / 100
			rep.Cost.TotalPerTurnMS = math.Round(100*(rep.Cost.OnTotalCPUMS-rep.Cost.OffTotalCPUMS)/float64(turns)) / 100
		}
	}
	return rep, nil
}

// replay is one server that has seen every session of a corpus.
type replay struct {
	srv      *Server
	env      []string
	work     string            // the throwaway folder holding the repositories
	keys     map[string]string // corpus session id → Claude Code session id
	provider string
	mode     string
	cpu      time.Duration // from the first session start to the last drain
	// settleCPU is the CPU from each session's end until its background
	// work was drained, summed.
	settleCPU time.Duration
	polls     []int // status polls each session's settling took
	ends      []time.Duration
	prompts   []time.Duration
	compacts  []CompactionOutcome
}

// replaySessions starts a server with set and plays every session to it
// through the hook shim, draining its background work after each (polled
// at least match[i] times after session i).
func replaySessions(ctx context.Context, c *SessionCorpus, name string, set []string, o SessionsOptions, match []int) (*replay, error) {
	fmt.Fprintf(o.Progress, "bench: %s: starting cairn serve %s\n", name, strings.Join(set, " "))
	srv, err := StartServer(ctx, ServerOptions{Name: name, Binary: o.Binary, Set: set, Keep: o.Keep,
		ExtraEnv: []string{"PATH=" + pathWithoutClaude(os.Getenv("PATH"))}})
	if err != nil {
		return nil, err
	}
	r := &replay{srv: srv, env: srv.Env(), keys: map[string]string{}}
	ok := false
	defer func() {
		if !ok {
			srv.Remove()
		}
	}()
	if o.Keep {
		fmt.Fprintf(o.Progress, "bench: %s: home folder %s (kept)\n", name, srv.Home())
	}
	r.work = filepath.Join(srv.Home(), "work")
	for _, p := range c.Projects {
		if err := os.MkdirAll(filepath.Join(r.work, p.Name, ".git"), 0o700); err != nil {
			return nil, err
		}
	}
	if err := srv.WaitEmbedderReady(ctx, 2*time.Minute); err != nil {
		return nil, err
	}
	if _, err := srv.Drain(ctx, o.DrainTimeout, io.Discard); err != nil {
		return nil, err
	}
	if r.provider, r.mode, err = pipelineProvider(ctx, srv); err != nil {
		return nil, err
	}
	if r.mode != "disabled" && r.provider != "heuristic" {
		return nil, fmt.Errorf("%s: the pipeline's provider is %q, not the heuristic one: the session benchmark measures learning without a model (is a model server reachable, or pipeline_v2.provider set?)", name, r.provider)
	}
	fmt.Fprintf(o.Progress, "bench: %s: pipeline %s, provider %s\n", name, r.mode, r.provider)
	cpu0, cpuOK := srv.CPU()
	start := time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)
	for i, s := range c.Sessions {
		key := DeterministicUUID("cairn-bench-sessions", s.ID)
		r.keys[s.ID] = key
		if err := r.play(ctx, &c.Sessions[i], key, start.Add(time.Duration(i)*24*time.Hour)); err != nil {
			return nil, fmt.Errorf("%s: session %s: %w", name, s.ID, err)
		}
		minPolls := 0
		if i < len(match) {
			minPolls = match[i]
		}
		c0, _ := srv.CPU()
		polls, err := r.settle(ctx, o, minPolls)
		if err != nil {
			return nil, err
		}
		c1, _ := srv.CPU()
		r.settleCPU += c1 - c0
		r.polls = append(r.polls, polls)
	}
	cpu1, _ := srv.CPU()
	if cpuOK {
		r.cpu = cpu1 - cpu0
	}
	fmt.Fprintf(o.Progress, "bench: %s: %d sessions played, session end p50 %.1f ms\n", name, len(c.Sessions), MS(Percentile(r.ends, 0.5)))
	ok = true
	return r, nil
}

// settle waits until the server's background work is done, polling its
// job queue (GET /api/pipeline/status) and pending embeddings every 100
// ms, at least minPolls times (the polls cost the server CPU too: a
// server compared with another is polled as often), and returns how many
// polls it took. The polls are of counts that cost about the same in a
// store of a few memories as in an empty one (GET /api/status measures
// the store's health, which costs more as it grows: polled instead, it
// charged the learning server for the benchmark's own polling). With the
// pipeline disabled the transcripts' extraction jobs stay queued for
// good: only running jobs and embeddings are waited for.
func (r *replay) settle(ctx context.Context, o SessionsOptions, minPolls int) (int, error) {
	deadline := time.Now().Add(o.DrainTimeout)
	last := time.Now()
	for polls := 1; ; polls++ {
		st, err := queueOf(ctx, r.srv)
		if err != nil {
			return polls, fmt.Errorf("%s: pipeline status: %w", r.srv.Name, err)
		}
		es, err := r.srv.Client.EmbeddingStatus(ctx)
		if err != nil {
			return polls, fmt.Errorf("%s: embedding status: %w", r.srv.Name, err)
		}
		embeddings := 0
		if n, ok := es.Coverage["pending"].(float64); ok && es.Provider != "none" {
			embeddings = int(n)
		}
		jobs := st.Queue["leased"]
		if r.mode != "disabled" {
			jobs += st.Queue["pending"] + st.Queue["failed"]
		}
		if jobs == 0 && embeddings == 0 && polls >= minPolls {
			return polls, nil
		}
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			fmt.Fprintf(o.Progress, "bench: %s: draining: %d jobs, %d embeddings left\n", r.srv.Name, jobs, embeddings)
		}
		if time.Now().After(deadline) {
			return polls, fmt.Errorf("%s: background work not done after %s: %d jobs, %d embeddings left", r.srv.Name, o.DrainTimeout, jobs, embeddings)
		}
		select {
		case <-ctx.Done():
			return polls, ctx.Err()
		case <-r.srv.done:
			return polls, fmt.Errorf("%s: cairn serve exited (%v): %s", r.srv.Name, r.srv.err, r.srv.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// queueStatus is the job queue of GET /api/pipeline/status.
type queueStatus struct {
	Queue map[string]int `json:"queue"`
}

// queueOf reads the server's job queue by status.
func queueOf(ctx context.Context, srv *Server) (*queueStatus, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.Client.BaseURL()+"/api/pipeline/status", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var st queueStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, err
	}
	return &st, nil
}

// pipelineProvider waits until the pipeline has resolved its provider
// and returns it with the pipeline's mode.
func pipelineProvider(ctx context.Context, srv *Server) (provider, mode string, err error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct {
			Mode     string `json:"mode"`
			Provider string `json:"provider"`
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.Client.BaseURL()+"/api/pipeline/status", nil)
		if err != nil {
			return "", "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", "", fmt.Errorf("pipeline status: %w", err)
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil {
			return "", "", fmt.Errorf("pipeline status: %w", err)
		}
		if st.Provider != "" || st.Mode == "disabled" {
			return st.Provider, st.Mode, nil
		}
		if time.Now().After(deadline) {
			return "", st.Mode, errors.New("the pipeline named no provider within 30 s")
		}
		select {
		case <-ctx.Done():
			return "", "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dir is the folder a session or question of project runs in.
func (r *replay) dir(project, sub string) (string, error) {
	d := filepath.Join(r.work, project, filepath.FromSlash(sub))
	return d, os.MkdirAll(d, 0o700)
}

// play runs one session through the hook shim as Claude Code would.
func (r *replay) play(ctx context.Context, s *CorpusSession, key string, start time.Time) error {
	cwd, err := r.dir(s.Project, s.Cwd)
	if err != nil {
		return err
	}
	path := filepath.Join(ClaudeProjectDir(filepath.Join(r.work, ".claude"), cwd), key+".jsonl")
	tr, err := NewClaudeTranscript(path, key, cwd, start)
	if err != nil {
		return err
	}
	base := map[string]any{"session_id": key, "transcript_path": path, "cwd": cwd}
	if _, _, err := r.hook(ctx, "session-start", cwd, base, map[string]any{"hook_event_name": "SessionStart", "source": "startup"}); err != nil {
		return err
	}
	began := time.Now()
	for i, t := range s.Turns {
		if s.Compact != nil && i == s.Compact.AfterTurn {
			if err := r.compact(ctx, s, cwd, base, began); err != nil {
				return err
			}
		}
		_, took, err := r.hook(ctx, "user-prompt-submit", cwd, base, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": t.User})
		if err != nil {
			return err
		}
		r.prompts = append(r.prompts, took)
		if err := tr.User(t.User); err != nil {
			return err
		}
		if err := tr.Assistant(t.Assistant); err != nil {
			return err
		}
	}
	_, took, err := r.hook(ctx, "session-end", cwd, base, map[string]any{"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
	if err != nil {
		return err
	}
	r.ends = append(r.ends, took)
	return nil
}

// CompactionOutcome is what the agent got back after a compaction: the
// recovery digest session start injected with source "compact".
type CompactionOutcome struct {
	Session string `json:"session"`
	Split   string `json:"split"`
	// Prompts is how many prompts the session had before the compaction;
	// PromptsInDigest how many of them the digest names.
	Prompts         int `json:"prompts_before"`
	PromptsInDigest int `json:"prompts_in_digest"`
	// ChatterInDigest counts the noise statements of those prompts the
	// digest carries.
	ChatterInDigest int `json:"chatter_in_digest"`
	// Instructions says whether the user's /compact instructions are in
	// the digest.
	Instructions bool `json:"has_instructions"`
	// RepeatedLines counts digest lines that appear more than once.
	RepeatedLines int `json:"repeated_lines"`
	// ElapsedMS is the session's real time up to the compaction.
	ElapsedMS float64 `json:"elapsed_ms"`
	Chars     int     `json:"digest_chars"`
	Digest    string  `json:"digest"`
}

// compact compacts a session's context as /compact does: the pre-compact
// hook with the user's instructions, then session start with source
// compact; the recovery digest it injects is measured.
func (r *replay) compact(ctx context.Context, s *CorpusSession, cwd string, base map[string]any, began time.Time) error {
	elapsed := time.Since(began)
	if _, _, err := r.hook(ctx, "pre-compact", cwd, base, map[string]any{"hook_event_name": "PreCompact", "trigger": "manual",
		"custom_instructions": s.Compact.Instructions}); err != nil {
		return err
	}
	inject, _, err := r.hook(ctx, "session-start", cwd, base, map[string]any{"hook_event_name": "SessionStart", "source": "compact"})
	if err != nil {
		return err
	}
	digest := inject
	if i := strings.Index(inject, "## Session Recovery"); i >= 0 {
		digest = inject[i:]
		if j := strings.Index(digest[2:], "\n## "); j >= 0 {
			digest = digest[:j+2]
		}
	} else {
		digest = ""
	}
	out := CompactionOutcome{Session: s.ID, Split: s.Split, Prompts: s.Compact.AfterTurn, ElapsedMS: MS(elapsed), Chars: len(digest), Digest: digest}
	words := " " + WordSequence(digest) + " "
	holds := func(t string) bool { w := WordSequence(t); return w != "" && strings.Contains(words, " "+w+" ") }
	for _, t := range s.Turns[:s.Compact.AfterTurn] {
		if holds(firstWords(t.User, 8)) {
			out.PromptsInDigest++
		}
	}
	out.Instructions = holds(s.Compact.Instructions)
	seen := map[string]int{}
	for _, l := range strings.Split(digest, "\n") {
		if l = strings.TrimSpace(l); len(l) > 3 && !strings.HasPrefix(l, "#") {
			if seen[l]++; seen[l] == 2 {
				out.RepeatedLines++
			}
		}
	}
	r.compacts = append(r.compacts, out)
	return nil
}

// firstWords is the first n words of s.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// hook runs `cairn hook EVENT` in cwd with base and extra as its stdin
// JSON, and returns the additionalContext it printed and how long the
// process ran.
func (r *replay) hook(ctx context.Context, event, cwd string, base, extra map[string]any) (string, time.Duration, error) {
	in := map[string]any{}
	for k, v := range base {
		in[k] = v
	}
	for k, v := range extra {
		in[k] = v
	}
	body, err := json.Marshal(in)
	if err != nil {
		return "", 0, err
	}
	cmd := exec.CommandContext(ctx, r.srv.cmd.Path, "hook", event)
	cmd.Env, cmd.Dir, cmd.Stdin = r.env, cwd, bytes.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err = cmd.Run()
	took := time.Since(t0)
	if err != nil {
		return "", took, fmt.Errorf("cairn hook %s: %v: %s", event, err, strings.TrimSpace(errb.String()))
	}
	if out.Len() == 0 {
		return "", took, nil
	}
	var printed struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		return "", took, fmt.Errorf("cairn hook %s printed what Claude Code cannot read: %v: %q", event, err, clip(out.String(), 200))
	}
	return printed.HookSpecificOutput.AdditionalContext, took, nil
}

// storeView is the server's live memories and pending proposals, by the
// corpus session they came from.
type storeView struct {
	memories  []*storedMemory
	proposals map[string][]string // corpus session id → pending proposal facts
}

type storedMemory struct {
	content, words, session string
	chatter                 bool // it is a noise statement: it answers nothing
}

// collect reads what the sessions left in the store: memories by session,
// pending proposals by session, chatter among both.
func (rep *SessionsReport) collect(ctx context.Context, c *SessionCorpus, cl *client.Remote, keys map[string]string) error {
	bySessionKey := map[string]string{}
	for id, k := range keys {
		bySessionKey[k] = id
	}
	view := &storeView{proposals: map[string][]string{}}
	for off := 0; ; {
		page, err := cl.List(ctx, storage.MemoryFilter{}, 500, off)
		if err != nil {
			return fmt.Errorf("list memories: %w", err)
		}
		for _, m := range page.Memories {
			view.memories = append(view.memories, &storedMemory{content: m.Content, words: WordSequence(m.Content), session: bySessionKey[m.SessionID]})
		}
		off += len(page.Memories)
		if !page.HasMore || len(page.Memories) == 0 {
			break
		}
	}
	for id, k := range keys {
		ps, err := cl.Proposals(ctx, wire.ProposalFilter{State: storage.ProposalPending, SourceMemoryID: "session:" + k}, 1000)
		if err != nil {
			return fmt.Errorf("list proposals: %w", err)
		}
		for _, p := range ps.Proposals {
			view.proposals[id] = append(view.proposals[id], p.Fact)
		}
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	rep.DeadJobs = st.Queue["dead"]
	rep.Proposals = int(st.Counts.PendingProposals)
	rep.Memories = len(view.memories)
	split := map[string]string{}
	for _, s := range c.Sessions {
		split[s.ID] = s.Split
	}
	rep.Chatter, rep.ChatterProposals = []ChatterItem{}, []ChatterItem{}
	for _, s := range c.Sessions {
		sf := SessionFigures{ID: s.ID, Project: s.Project, Split: s.Split, Turns: len(s.Turns)}
		for _, m := range view.memories {
			if m.session == s.ID {
				sf.Memories++
				sf.Learned = append(sf.Learned, m.content)
			}
		}
		sf.Proposed = view.proposals[s.ID]
		sf.Proposals = len(sf.Proposed)
		rep.Sessions = append(rep.Sessions, sf)
	}
	// Each memory (or proposal) counts once, with the first noise
	// statement it matches.
	chatter := func(session, content string) (ChatterItem, bool) {
		for _, n := range c.Noise {
			if MatchesChatter(content, n.Text) {
				return ChatterItem{Session: session, Split: split[session], Content: content, Noise: n.Text}, true
			}
		}
		return ChatterItem{}, false
	}
	for _, m := range view.memories {
		if ch, ok := chatter(m.session, m.content); ok {
			rep.Chatter = append(rep.Chatter, ch)
			m.chatter = true
		}
	}
	for _, s := range c.Sessions {
		for _, f := range view.proposals[s.ID] {
			if ch, ok := chatter(s.ID, f); ok {
				rep.ChatterProposals = append(rep.ChatterProposals, ch)
			}
		}
	}
	rep.view = view
	return nil
}

// ask sends every question in a new session of its project as Claude Code
// does (session start, then the question as the prompt), and again in a
// session whose start was not sent (the prompt gate alone: session start's
// injections are not held back from the prompt). A question is answered
// when the prompt hook's inject holds a memory learned from one of its
// answer sessions that is not chatter (a session's "Let me look at the
// migrations." answers no question about them).
func (rep *SessionsReport) ask(ctx context.Context, c *SessionCorpus, r *replay, progress io.Writer) error {
	for i, q := range c.Questions {
		p := c.Project(q.Project)
		cwd, err := r.dir(q.Project, p.Subdir)
		if err != nil {
			return err
		}
		key := DeterministicUUID("cairn-bench-sessions", "question", q.ID)
		path := filepath.Join(ClaudeProjectDir(filepath.Join(r.work, ".claude"), cwd), key+".jsonl")
		base := map[string]any{"session_id": key, "transcript_path": path, "cwd": cwd}
		startCtx, _, err := r.hook(ctx, "session-start", cwd, base, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		inject, _, err := r.hook(ctx, "user-prompt-submit", cwd, base, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": q.Prompt})
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		out := QuestionOutcome{ID: q.ID, Split: q.Split, Never: q.NeverDiscussed(), InjectedChars: len(inject)}
		injected := rep.view.injected(inject)
		out.Injected = len(injected)
		out.Memories = describe(injected)
		for _, m := range injected {
			if !m.chatter && slices.Contains(q.Answers, m.session) {
				out.Answered = true
			}
		}
		for _, m := range rep.view.injected(startCtx) {
			if !m.chatter && slices.Contains(q.Answers, m.session) {
				out.StartAnswered = true
			}
		}
		// The same prompt again in a session whose start was not sent:
		// what the prompt gate finds on its own.
		key = DeterministicUUID("cairn-bench-sessions", "question-alone", q.ID)
		base = map[string]any{"session_id": key, "transcript_path": filepath.Join(filepath.Dir(path), key+".jsonl"), "cwd": cwd}
		alone, _, err := r.hook(ctx, "user-prompt-submit", cwd, base, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": q.Prompt})
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		injected = rep.view.injected(alone)
		out.AloneInjected, out.AloneInjectedChars, out.AloneMemories = len(injected), len(alone), describe(injected)
		for _, m := range injected {
			if !m.chatter && slices.Contains(q.Answers, m.session) {
				out.AloneAnswered = true
			}
		}
		rep.Questions = append(rep.Questions, out)
		if (i+1)%50 == 0 {
			fmt.Fprintf(progress, "bench: %d of %d questions asked\n", i+1, len(c.Questions))
		}
	}
	return nil
}

// describe lists memories as "session: content".
func describe(ms []*storedMemory) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.session+": "+m.content)
	}
	return out
}

// injected returns the stored memories an inject holds (their words, in
// order, inside the inject's).
func (v *storeView) injected(inject string) []*storedMemory {
	if strings.TrimSpace(inject) == "" {
		return nil
	}
	words := " " + WordSequence(inject) + " "
	var out []*storedMemory
	for _, m := range v.memories {
		if m.words != "" && strings.Contains(words, " "+m.words+" ") {
			out = append(out, m)
		}
	}
	return out
}

// summarize computes the split figures.
func (rep *SessionsReport) summarize(c *SessionCorpus) {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return math.Round(1000*float64(a)/float64(b)) / 10
	}
	noiseSplit := map[string]string{}
	for _, s := range c.Sessions {
		noiseSplit[s.ID] = s.Split
	}
	for _, split := range []string{SplitDev, SplitHeldOut, "all"} {
		in := func(s string) bool { return split == "all" || s == split }
		f := SplitFigures{Split: split}
		for _, s := range rep.Sessions {
			if in(s.Split) {
				f.Sessions++
				f.Turns += s.Turns
				f.Memories += s.Memories
				f.Proposals += s.Proposals
			}
		}
		for _, q := range rep.Questions {
			if !in(q.Split) {
				continue
			}
			if q.Never {
				f.Never++
				if q.Injected > 0 || q.InjectedChars > 0 {
					f.NeverInjected++
				}
				if q.AloneInjected > 0 || q.AloneInjectedChars > 0 {
					f.NeverInjectedAlone++
				}
				continue
			}
			f.Questions++
			if q.Answered {
				f.Answered++
			}
			if q.Answered || q.StartAnswered {
				f.AnsweredWithStart++
			}
			if q.AloneAnswered {
				f.AnsweredAlone++
			}
		}
		for _, n := range c.Noise {
			if in(noiseSplit[n.Session]) {
				f.Noise++
			}
		}
		for _, ch := range rep.Chatter {
			if in(ch.Split) {
				f.ChatterMemories++
			}
		}
		for _, ch := range rep.ChatterProposals {
			if in(ch.Split) {
				f.ChatterProposals++
			}
		}
		f.AnsweredPct, f.AnsweredWithStartPct, f.NeverInjectedPct = pct(f.Answered, f.Questions), pct(f.AnsweredWithStart, f.Questions), pct(f.NeverInjected, f.Never)
		f.AnsweredAlonePct, f.NeverInjectedAlonePct = pct(f.AnsweredAlone, f.Questions), pct(f.NeverInjectedAlone, f.Never)
		if f.Sessions > 0 {
			f.MemoriesPerSess = math.Round(100*float64(f.Memories)/float64(f.Sessions)) / 100
		}
		rep.Splits = append(rep.Splits, f)
	}
}

// Split returns the figures of one split ("dev", "held-out", "all").
func (rep *SessionsReport) Split(name string) SplitFigures {
	for _, f := range rep.Splits {
		if f.Split == name {
			return f
		}
	}
	return SplitFigures{Split: name}
}

//go:build integration

package main

import (
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/agenttest"
	"github.com/cairnmem/cairn/core/harness/modeltest"
)

// Claude Code, the real CLI (agenttest.ClaudeCode), with cairn installed
// by `cairn install claude-code`.

// claude installs cairn into Claude Code in the rig's home and returns
// the CLI's path; the hooks and MCP entry must run the test's binary.
func (r *agentRig) installClaude(t *testing.T) string {
	t.Helper()
	bin := agenttest.Install(t, agenttest.ClaudeCode)
	r.install(t, "claude-code")
	settings, err := os.ReadFile(r.home.Path(".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"session-start", "user-prompt-submit", "pre-compact", "post-compact", "session-end"} {
		if want := harness.ShellQuote(cairnBin) + " hook " + ev; !strings.Contains(string(settings), want) {
			t.Fatalf("settings.json has no %q:\n%s", want, settings)
		}
	}
	return bin
}

// claude runs Claude Code headless (-p and args) in the rig's project
// against model. A non-empty stdin is sent as it is (stream-json input).
func (r *agentRig) claude(t *testing.T, bin string, model *modeltest.Server, stdin string, args ...string) *agenttest.Result {
	t.Helper()
	r.home.Setenv(agenttest.ClaudeEnv(model.URL)...)
	res := r.home.Run(t, agenttest.Run{Bin: bin, Args: append([]string{"-p"}, args...), Dir: r.cwd, Stdin: stdin})
	t.Logf("claude -p: exit %d after %v, %d model calls", res.ExitCode, res.Elapsed.Round(10e6), len(model.Calls()))
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\nstdout:\n%s\nstderr:\n%s\nmodel requests:\n%s", res.ExitCode, res.Stdout, res.Stderr, model.Summary())
	}
	return res
}

// claudeResult is the answer of claude -p --output-format json.
type claudeResult struct {
	Type      string `json:"type"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
}

func parseClaudeResult(t *testing.T, stdout string) claudeResult {
	t.Helper()
	var res claudeResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Type != "result" || res.IsError || res.SessionID == "" {
		t.Fatalf("claude's result %+v (%v):\n%s", res, err, stdout)
	}
	return res
}

// claudeEvents reads claude's stream-json output: one JSON object a line.
func claudeEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}

// between is the part of s from the first open to the next close after
// it ("" when open is not in s).
func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, close); j >= 0 {
		return s[:j+len(close)]
	}
	return s
}

// Session start puts the project's memories in the model's request, the
// prompt hook the memory about the prompt, and session end brings the
// transcript into cairn under the project the hooks resolved from the
// CLI's working directory.
func TestClaudeCodeInjectsMemoriesAndRecordsTheSession(t *testing.T) {
	r := newAgentRig(t)
	bin := r.installClaude(t)
	const (
		startMem  = "Atlas builds with make ci from the repository root; plain go build misses the generated protobuf code"
		promptMem = "The atlas deploy script lives in scripts/ship.sh and needs ATLAS_REGION set"
		reply     = "REPLY_7F3: scripts/ship.sh, with ATLAS_REGION set."
		prompt    = "Where does the atlas deploy script live?"
	)
	r.remember(t, map[string]any{"content": startMem, "project": r.project, "importance": 0.9})
	// Too unimportant for session start (a score of 0.2 or less is left
	// out), so only the prompt hook can bring it.
	r.remember(t, map[string]any{"content": promptMem, "project": r.project, "importance": 0.1})
	model := modeltest.NewAnthropic(modeltest.Steps(modeltest.Text(reply)))
	defer model.Close()

	res := parseClaudeResult(t, r.claude(t, bin, model, "", prompt, "--output-format", "json").Stdout)
	if res.Result != reply {
		t.Fatalf("claude answered %q, want the scripted %q", res.Result, reply)
	}
	calls := model.Calls()
	if len(calls) != 1 || !strings.Contains(calls[0].Prompt(), prompt) {
		t.Fatalf("want one model call with the prompt:\n%s", model.Summary())
	}
	text := calls[0].Request.Text()
	start := between(text, "[cairn:context", "[/cairn:context]")
	if !strings.Contains(start, "project="+r.project+" ") || !strings.Contains(start, startMem) {
		t.Fatalf("session-start context of project %s with %q did not reach the model; it got:\n%s", r.project, startMem, start)
	}
	if strings.Contains(start, promptMem) {
		t.Fatalf("the unimportant memory was in the session-start context, so the prompt hook is not tested:\n%s", start)
	}
	if recall := between(text, "[cairn:recall", "[/cairn:recall]"); !strings.Contains(recall, promptMem) {
		t.Fatalf("the prompt hook's memory %q did not reach the model; recall block: %q", promptMem, recall)
	}

	s := r.session(t, res.SessionID)
	if s.Harness != "claude-code" || s.Project != r.project || s.EndedAt == "" || s.PromptCount != 1 {
		t.Fatalf("session %s as cairn recorded it: %+v", res.SessionID, s)
	}
	if !strings.Contains(s.Transcript, prompt) || !strings.Contains(s.Transcript, reply) {
		t.Fatalf("session end brought no transcript with the prompt and the reply: %q", s.Transcript)
	}
}

// The model calls cairn's memory_store as Claude Code offers it: deferred
// behind ToolSearch, loaded, then called. The memory lands in the project
// the MCP server resolved from the CLI's working directory.
func TestClaudeCodeStoresAMemoryThroughToolSearch(t *testing.T) {
	r := newAgentRig(t)
	bin := r.installClaude(t)
	const content = "The atlas staging database runs Postgres 16 on port 5433"
	model := modeltest.NewAnthropic(modeltest.Steps(
		modeltest.Tool("ToolSearch", map[string]any{"query": "select:mcp__cairn__memory_store", "max_results": 1}),
		modeltest.Tool("mcp__cairn__memory_store", map[string]any{"content": content, "tags": []string{"atlas"}}),
		modeltest.Text("Stored."),
	))
	defer model.Close()

	r.claude(t, bin, model, "", "Remember that atlas staging runs Postgres 16 on port 5433",
		"--allowedTools", "mcp__cairn__memory_store", "--output-format", "json")
	calls := model.Calls()
	if len(calls) != 3 {
		t.Fatalf("want 3 model calls (ToolSearch, memory_store, text):\n%s", model.Summary())
	}
	// Deferred: named in a system message (once the MCP server is up,
	// which Claude Code does not wait for), not offered.
	if calls[0].HasTool("mcp__cairn__memory_store") {
		t.Fatalf("memory_store should be deferred in the first call; tools: %v", calls[0].Tools)
	}
	if !calls[1].HasTool("mcp__cairn__memory_store") {
		t.Fatalf("ToolSearch did not load memory_store; tools: %v\n%s", calls[1].Tools, model.Summary())
	}
	results := calls[2].ToolResults()
	if len(results) != 2 || results[1].Name != "mcp__cairn__memory_store" || results[1].IsError {
		t.Fatalf("memory_store result: %+v", results)
	}
	var found *apiMemory
	for _, m := range r.memories(t) {
		if m.Content == content {
			found = &m
		}
	}
	if found == nil {
		t.Fatalf("no memory %q in project %s; the tool said %q", content, r.project, results[1].Text)
	}
	if !strings.Contains(results[1].Text, found.ID) {
		t.Errorf("the tool's answer does not name the memory %s: %q", found.ID, results[1].Text)
	}
	t.Logf("stored %s as %q (who %q)", found.ID, found.Project, found.Who)
}

// /compact in a headless session: PreCompact, the model's summary,
// SessionStart(compact) and PostCompact all go through cairn, and the
// next request carries the recovery digest of where the session was.
func TestClaudeCodeCompactionCarriesTheRecoveryDigest(t *testing.T) {
	r := newAgentRig(t)
	bin := r.installClaude(t)
	const (
		first   = "We are moving the atlas staging database to Postgres 16 this week"
		summary = "SUMMARY_41C: atlas staging moves to Postgres 16."
	)
	var compactions atomic.Int32
	model := modeltest.NewAnthropic(func(c *modeltest.Call) modeltest.Reply {
		// Claude Code's compaction request asks for <analysis> and <summary>.
		if strings.Contains(c.Prompt(), "<summary>") {
			compactions.Add(1)
			return modeltest.Text("<analysis>The user plans a database move.</analysis>\n<summary>" + summary + "</summary>")
		}
		return modeltest.Text("Noted.")
	})
	defer model.Close()
	var in strings.Builder
	for _, p := range []string{first, "/compact", "What should I check next?"} {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		in.Write(append(b, '\n'))
	}

	out := r.claude(t, bin, model, in.String(), "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	var sessionID string
	compacted := false
	for _, ev := range claudeEvents(t, out.Stdout) {
		if ev["type"] == "system" && ev["subtype"] == "compact_boundary" {
			compacted = true
		}
		if id, ok := ev["session_id"].(string); ok {
			sessionID = id
		}
	}
	if !compacted || compactions.Load() != 1 {
		t.Fatalf("no compaction (boundary %v, %d summary calls):\n%s", compacted, compactions.Load(), model.Summary())
	}
	calls := model.Calls()
	last := calls[len(calls)-1]
	if !strings.Contains(last.Prompt(), "What should I check next?") {
		t.Fatalf("the last call is not the prompt after the compaction:\n%s", model.Summary())
	}
	for _, c := range calls[:len(calls)-1] {
		if c.Contains("Session Recovery (after compact") {
			t.Fatalf("call %d, before the compaction, already has a recovery digest", c.Index)
		}
	}
	digest := between(last.Request.Text(), "## Session Recovery (after compact", "[/cairn:context]")
	if !strings.Contains(digest, "Checkpoint (pre-compaction)") || !strings.Contains(digest, first) {
		t.Fatalf("the request after the compaction has no recovery digest of the pre-compaction checkpoint with the first prompt; got %q", digest)
	}

	// (Its checkpoints are not checked: the pre-compaction one and the
	// session end's, within 2.5 s of each other, merge into one.)
	if s := r.session(t, sessionID); s.EndedAt == "" || s.PromptCount < 2 {
		t.Fatalf("session %s as cairn recorded it: %+v", sessionID, s)
	}
	stored := false
	for _, m := range r.memories(t) {
		stored = stored || (m.Type == "session_summary" && strings.Contains(m.Content, summary))
	}
	if !stored {
		t.Fatalf("PostCompact's summary %q is not a session_summary memory of the project", summary)
	}
}

// With cairn hung (it holds its store and its port, accepts connections
// and never answers), every hook gives up within its own deadline: the
// turn completes with the model's answer, no hook output reaches the
// model, and no hook is killed at Claude Code's timeout.
func TestClaudeCodeHooksTimeOutWhenCairnHangs(t *testing.T) {
	r := newAgentRig(t)
	bin := r.installClaude(t)
	r.remember(t, map[string]any{"content": "Atlas builds with make ci", "project": r.project, "importance": 0.9})
	const reply = "REPLY_HUNG_OK"
	model := modeltest.NewAnthropic(modeltest.Steps(modeltest.Text(reply)))
	defer model.Close()

	// A turn with cairn answering, for the wall time beside the hung one.
	ok := r.claude(t, bin, model, "", "What builds atlas?", "--output-format", "json")

	// SIGSTOP: the kernel still accepts on cairn's port and the lock
	// stays held by a live process, so hooks find cairn and wait.
	pid := r.srv.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	before := len(model.Calls())
	out := r.claude(t, bin, model, "", "What builds atlas?", "--output-format", "stream-json", "--verbose")
	t.Logf("turn with cairn answering %v, with cairn hung %v", ok.Elapsed.Round(10e6), out.Elapsed.Round(10e6))

	calls := model.Calls()[before:]
	if len(calls) != 1 {
		t.Fatalf("want one model call with cairn hung:\n%s", model.Summary())
	}
	if calls[0].Contains("[cairn:") {
		t.Fatal("cairn context reached the model while cairn was hung")
	}
	var result string
	hooks := 0
	for _, ev := range claudeEvents(t, out.Stdout) {
		if ev["type"] == "result" {
			result, _ = ev["result"].(string)
		}
		if ev["subtype"] != "hook_response" {
			continue
		}
		hooks++
		// Claude Code reports a hook it killed at its timeout, or one
		// that failed, as another outcome.
		if ev["outcome"] != "success" || ev["exit_code"] != float64(0) || ev["stdout"] != "" {
			t.Errorf("hook %v: outcome %v, exit %v, stdout %q", ev["hook_name"], ev["outcome"], ev["exit_code"], ev["stdout"])
		}
	}
	if hooks == 0 {
		t.Fatalf("no hook_response events in the stream:\n%s", out.Stdout)
	}
	if result != reply {
		t.Fatalf("the turn's result is %q, want %q", result, reply)
	}
}

//go:build integration

package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/harness/agenttest"
	"github.com/cairnmem/cairn/core/harness/modeltest"
)

// Gemini CLI, the real CLI (agenttest.Gemini), with cairn installed by
// `cairn install gemini` over the user's settings.json.

// installGemini writes the user's Gemini settings, installs cairn into
// them and returns the CLI's path.
func (r *agentRig) installGemini(t *testing.T, model *modeltest.Server) string {
	t.Helper()
	bin := agenttest.Install(t, agenttest.Gemini)
	r.home.WriteFile(t, ".gemini/settings.json", agenttest.GeminiSettings)
	out := r.install(t, "gemini")
	data, err := os.ReadFile(r.home.Path(".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Security map[string]any            `json:"security"`
		MCP      map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Security == nil || s.MCP["cairn"]["trust"] != true {
		t.Fatalf("settings.json after cairn install gemini (%v):\n%s\ninstall said:\n%s", err, data, out)
	}
	r.home.Setenv(agenttest.GeminiEnv(model.URL)...)
	return bin
}

// geminiResult is the answer of gemini -p -o json.
type geminiResult struct {
	SessionID string `json:"session_id"`
	Response  string `json:"response"`
}

// One headless turn: the session-start context and the prompt hook's
// memory (searched for the user's words, not the <hook_context> Gemini
// CLI puts before them) reach the model, its memory_store call lands in
// the project of the working directory, the session end brings Gemini
// CLI's chat file into cairn as a transcript, and the PreCompress hooks
// Gemini CLI fires before each model call record no compaction.
func TestGeminiWithCairn(t *testing.T) {
	r := newAgentRig(t)
	const reply = "REPLY_GEMINI_8A: scripts/ship.sh."
	model := modeltest.NewGemini(modeltest.Steps(
		modeltest.Tool("mcp_cairn_memory_store", map[string]any{"content": e2eStored, "tags": []string{"atlas"}}),
		modeltest.Text(reply)))
	defer model.Close()
	bin := r.installGemini(t, model)
	r.rememberE2E(t)

	res := r.home.Run(t, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"-p", e2ePrompt, "-o", "json"}})
	t.Logf("gemini -p: exit %d after %v, %d model calls", res.ExitCode, res.Elapsed.Round(10e6), len(model.Calls()))
	if res.ExitCode != 0 {
		t.Fatalf("gemini exited %d\nstdout:\n%s\nstderr:\n%s\nmodel requests:\n%s", res.ExitCode, res.Stdout, res.Stderr, model.Summary())
	}
	var out geminiResult
	if err := json.Unmarshal([]byte(res.Stdout[strings.Index(res.Stdout, "{"):]), &out); err != nil || !strings.Contains(out.Response, reply) {
		t.Fatalf("gemini's answer %+v (%v):\n%s", out, err, res.Stdout)
	}
	var turn []*modeltest.Call // the turn's calls (not the router's)
	for _, c := range model.Calls() {
		if !c.JSONMode {
			turn = append(turn, c)
		}
	}
	if len(turn) != 2 {
		t.Fatalf("want 2 model calls in the turn (memory_store, text):\n%s", model.Summary())
	}
	r.checkInjected(t, turn[0].Request.Text())
	if recall := between(turn[0].Request.Text(), "[cairn:recall", "]"); strings.Contains(recall, "hook") {
		t.Errorf("the recall query took the words of Gemini CLI's <hook_context>: %q", recall)
	}
	results := turn[1].ToolResults()
	if len(results) != 1 || results[0].IsError {
		t.Fatalf("memory_store result: %+v", results)
	}
	m := r.checkStored(t, results[0].Text)
	t.Logf("stored %s as %q (who %q)", m.ID, m.Project, m.Who)

	s := r.sessionOf(t, "gemini")
	if s.Key != out.SessionID || s.Project != r.project || s.EndedAt == "" || s.PromptCount != 1 {
		t.Fatalf("session %s as cairn recorded it: %+v", out.SessionID, s)
	}
	if !strings.Contains(s.Transcript, "User: "+e2ePrompt) || !strings.Contains(s.Transcript, "Assistant: "+reply) {
		t.Fatalf("session end brought no transcript with the prompt and the reply: %q", s.Transcript)
	}
	if strings.Contains(s.Transcript, "[cairn:") || strings.Contains(s.Transcript, "hook_context") {
		t.Fatalf("injected context is in the stored transcript: %q", s.Transcript)
	}
	for _, c := range s.Continuity.Checkpoints {
		if c.Trigger != "session_end" {
			t.Errorf("a %s checkpoint was recorded: Gemini CLI's PreCompress(auto) was taken for a compaction", c.Trigger)
		}
	}
}

// An automatic compression in a real Gemini CLI session (its threshold
// set low in the user's settings, so a resumed session's history passes
// it): the PreCompress(auto) before the resumed turn's call is taken as a
// compaction and checkpoints the session. The turn that started the
// session, whose PreCompress(auto) hooks compress nothing, records none
// (TestGeminiWithCairn checks the same at the default threshold).
func TestGeminiAutoCompressionCheckpoints(t *testing.T) {
	r := newAgentRig(t)
	const next = "What should I check next?"
	var compressions atomic.Int32
	model := modeltest.NewGemini(func(c *modeltest.Call) modeltest.Reply {
		switch {
		case c.JSONMode:
			return modeltest.Text(modeltest.DefaultJSON)
		case c.Contains("<state_snapshot>"):
			compressions.Add(1)
			return modeltest.Text("<state_snapshot>atlas staging moves to Postgres 16</state_snapshot>")
		case strings.Contains(c.Prompt(), next):
			// Past the session end's debounce, so that the
			// pre-compaction checkpoint stays one of its own.
			time.Sleep(3 * time.Second)
		}
		return modeltest.Text("Noted.")
	})
	defer model.Close()
	bin := r.installGemini(t, model)
	data, err := os.ReadFile(r.home.Path(".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	s["model"] = map[string]any{"compressionThreshold": 0.0001} // 105 tokens of 1,048,576
	data, _ = json.Marshal(s)
	r.home.WriteFile(t, ".gemini/settings.json", string(data))

	checkpoints := func() (triggers []string) {
		var list struct {
			Sessions []apiSession `json:"sessions"`
		}
		r.get(t, "/api/sessions?limit=100", &list)
		for _, l := range list.Sessions {
			for _, c := range r.session(t, l.Key).Continuity.Checkpoints {
				triggers = append(triggers, c.Trigger)
			}
		}
		return triggers
	}
	for i, args := range [][]string{
		{"-p", "We are moving the atlas staging database to Postgres 16", "-o", "json"},
		{"--resume", "latest", "-p", next, "-o", "json"},
	} {
		res := r.home.Run(t, agenttest.Run{Bin: bin, Dir: r.cwd, Args: args})
		t.Logf("gemini %v: exit %d after %v; %d model calls, %d compression calls so far", args[:2], res.ExitCode, res.Elapsed.Round(10e6), len(model.Calls()), compressions.Load())
		if res.ExitCode != 0 {
			t.Fatalf("gemini exited %d\nstdout:\n%s\nstderr:\n%s\nmodel requests:\n%s", res.ExitCode, res.Stdout, res.Stderr, model.Summary())
		}
		if i == 0 {
			if c := compressions.Load(); c != 0 {
				t.Fatalf("the first turn compressed (%d calls)", c)
			}
			if tr := checkpoints(); slices.Contains(tr, "pre_compaction") {
				t.Fatalf("the first turn, which compressed nothing, recorded a pre-compaction checkpoint: %v", tr)
			}
		}
	}
	if compressions.Load() == 0 {
		t.Fatalf("Gemini CLI did not compress:\n%s", model.Summary())
	}
	if tr := checkpoints(); !slices.Contains(tr, "pre_compaction") {
		t.Fatalf("no pre-compaction checkpoint for Gemini CLI's automatic compression; checkpoints %v", tr)
	}
}

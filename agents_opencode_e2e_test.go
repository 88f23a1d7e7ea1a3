//go:build integration

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/agenttest"
	"github.com/cairnmem/cairn/core/harness/modeltest"
)

// OpenCode, the real CLI (agenttest.OpenCode), with cairn installed by
// `cairn install opencode`: cairn's plugin in its config folder and the
// MCP server in the user's opencode.json.

// installOpenCode writes the user's OpenCode config, installs cairn into
// it and returns the CLI's path.
func (r *agentRig) installOpenCode(t *testing.T, model *modeltest.Server) string {
	t.Helper()
	bin := agenttest.Install(t, agenttest.OpenCode)
	r.home.WriteFile(t, ".config/opencode/opencode.json", agenttest.OpenCodeConfig(model.URL, ""))
	out := r.install(t, "opencode")
	plugin, err := os.ReadFile(r.home.Path(".config", "opencode", "plugins", "cairn.js"))
	if err != nil || !strings.Contains(string(plugin), cairnBin) {
		t.Fatalf("no plugin running %s (%v); install said:\n%s", cairnBin, err, out)
	}
	r.home.Setenv(agenttest.OpenCodeEnv()...)
	return bin
}

// One headless turn (opencode run): the plugin brings the session-start
// context into the system prompt and the prompt hook's memory into the
// user's message, the model's memory_store call lands in the project of
// the working directory, and the session is recorded, with the
// conversation, when it goes idle (OpenCode has no session end event).
// No npm install ran: the install spared OpenCode its dependency install.
func TestOpenCodeWithCairn(t *testing.T) {
	r := newAgentRig(t)
	const reply = "REPLY_OPENCODE_2C: scripts/ship.sh."
	model := modeltest.NewChat(func(c *modeltest.Call) modeltest.Reply {
		if len(c.Tools) == 0 { // the title generator
			return modeltest.Text("Atlas deploy script")
		}
		return modeltest.Steps(
			modeltest.Tool("cairn_memory_store", map[string]any{"content": e2eStored, "tags": []string{"atlas"}}),
			modeltest.Text(reply))(c)
	})
	defer model.Close()
	bin := r.installOpenCode(t, model)
	r.rememberE2E(t)

	res := r.home.Run(t, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"run"}, Stdin: e2ePrompt})
	t.Logf("opencode run: exit %d after %v, %d model calls", res.ExitCode, res.Elapsed.Round(10e6), len(model.Calls()))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, reply) {
		t.Fatalf("opencode run: exit %d\nstdout:\n%s\nstderr:\n%s\nmodel requests:\n%s", res.ExitCode, res.Stdout, res.Stderr, model.Summary())
	}
	var turn []*modeltest.Call
	for _, c := range model.Calls() {
		if len(c.Tools) > 0 {
			turn = append(turn, c)
		}
	}
	if len(turn) != 2 {
		t.Fatalf("want 2 model calls in the turn (memory_store, text):\n%s", model.Summary())
	}
	r.checkInjected(t, turn[0].Request.Text())
	results := turn[1].ToolResults()
	if len(results) != 1 || results[0].IsError {
		t.Fatalf("memory_store result: %+v", results)
	}
	m := r.checkStored(t, results[0].Text)
	t.Logf("stored %s as %q (who %q)", m.ID, m.Project, m.Who)

	s := r.sessionOf(t, "opencode")
	if s.Project != r.project || s.EndedAt == "" || s.PromptCount != 1 {
		t.Fatalf("the session as cairn recorded it: %+v", s)
	}
	if !strings.Contains(s.Transcript, "User: "+e2ePrompt) || !strings.Contains(s.Transcript, "Assistant: "+reply) {
		t.Fatalf("the idle session end brought no transcript with the prompt and the reply: %q", s.Transcript)
	}
	if strings.Contains(s.Transcript, "[cairn:") {
		t.Fatalf("cairn's injections are in the stored transcript: %q", s.Transcript)
	}
	if entries, err := os.ReadDir(r.home.Path(".config", "opencode", "node_modules")); err != nil || len(entries) > 0 {
		t.Errorf("OpenCode installed its plugin dependencies (%v): %v", err, entries)
	}
}

//go:build integration

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/agenttest"
	"github.com/cairnmem/cairn/core/harness/modeltest"
)

// Codex CLI, the real CLI (agenttest.Codex), with cairn installed by
// `cairn install codex` over a config.toml that already points Codex at
// the scripted model, as a user's would.

// installCodex writes the user's Codex config, installs cairn into it and
// returns the CLI's path.
func (r *agentRig) installCodex(t *testing.T, model *modeltest.Server) string {
	t.Helper()
	bin := agenttest.Install(t, agenttest.Codex)
	r.home.WriteFile(t, ".codex/config.toml", "# the user's own settings\n"+agenttest.CodexConfig(model.URL))
	out := r.install(t, "codex")
	cfg, err := os.ReadFile(r.home.Path(".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(cfg), "# the user's own settings\n"+agenttest.CodexConfig(model.URL)) ||
		!strings.Contains(string(cfg), "[mcp_servers.cairn]") || !strings.Contains(string(cfg), `CAIRN_HOME = "`+r.cairnHome+`"`) {
		t.Fatalf("config.toml after cairn install codex:\n%s\ninstall said:\n%s", cfg, out)
	}
	r.home.Setenv(agenttest.CodexEnv()...)
	return bin
}

// codexExec runs `codex exec` headless (no hook-trust bypass: the trust
// comes from the install) in the rig's project.
func (r *agentRig) codexExec(t *testing.T, bin string, model *modeltest.Server, prompt string) *agenttest.Result {
	t.Helper()
	res := r.home.Run(t, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"exec", "--skip-git-repo-check", prompt}})
	t.Logf("codex exec: exit %d after %v, %d model calls", res.ExitCode, res.Elapsed.Round(10e6), len(model.Calls()))
	if res.ExitCode != 0 {
		t.Fatalf("codex exited %d\nstdout:\n%s\nstderr:\n%s\nmodel requests:\n%s", res.ExitCode, res.Stdout, res.Stderr, model.Summary())
	}
	return res
}

// One headless turn: the session-start context and the prompt hook's
// memory reach the model, its memory_store call lands in the project of
// the working directory (the repository root, as for Claude Code), and
// the session end brings Codex's transcript into cairn.
func TestCodexWithCairn(t *testing.T) {
	r := newAgentRig(t)
	const reply = "REPLY_CODEX_5D: scripts/ship.sh."
	model := modeltest.NewResponses(modeltest.Steps(
		modeltest.Tool("mcp__cairn__memory_store", map[string]any{"content": e2eStored, "tags": []string{"atlas"}}),
		modeltest.Text(reply)))
	defer model.Close()
	bin := r.installCodex(t, model)
	r.rememberE2E(t)

	res := r.codexExec(t, bin, model, e2ePrompt)
	if !strings.Contains(res.Stdout, reply) {
		t.Fatalf("codex answered %q, want the scripted %q\nstderr:\n%s", res.Stdout, reply, res.Stderr)
	}
	calls := model.Calls()
	if len(calls) != 2 {
		t.Fatalf("want 2 model calls (memory_store, text):\n%s", model.Summary())
	}
	r.checkInjected(t, calls[0].Request.Text())
	results := calls[1].ToolResults()
	if len(results) != 1 || results[0].IsError {
		t.Fatalf("memory_store result: %+v", results)
	}
	m := r.checkStored(t, results[0].Text)
	t.Logf("stored %s as %q (who %q)", m.ID, m.Project, m.Who)

	s := r.sessionOf(t, "codex")
	if s.Project != r.project || s.EndedAt == "" || s.PromptCount != 1 {
		t.Fatalf("the session as cairn recorded it: %+v", s)
	}
	if !strings.Contains(s.Transcript, e2ePrompt) || !strings.Contains(s.Transcript, reply) {
		t.Fatalf("session end brought no transcript with the prompt and the reply: %q", s.Transcript)
	}
	if strings.Contains(s.Transcript, "[cairn:") {
		t.Fatalf("cairn's injections are in the stored transcript: %q", s.Transcript)
	}
}

// A user who never set CAIRN_HOME: install writes no environment into
// Codex's MCP entry (there is nothing to pass on), and the MCP server,
// which gets only the few variables Codex passes (HOME among them), still
// finds the cairn running at its default place: memory_store lands there,
// the hooks reach it and the session is recorded.
func TestCodexWithCairnAtItsDefaultHome(t *testing.T) {
	r := newAgentRigAtDefaultHome(t)
	model := modeltest.NewResponses(modeltest.Steps(
		modeltest.Tool("mcp__cairn__memory_store", map[string]any{"content": e2eStored, "tags": []string{"atlas"}}),
		modeltest.Text("Stored.")))
	defer model.Close()
	bin := agenttest.Install(t, agenttest.Codex)
	r.home.WriteFile(t, ".codex/config.toml", agenttest.CodexConfig(model.URL))
	out := r.install(t, "codex")
	cfg, err := os.ReadFile(r.home.Path(".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "[mcp_servers.cairn]") || strings.Contains(string(cfg), "env =") {
		t.Fatalf("config.toml after cairn install codex with no CAIRN_HOME:\n%s\ninstall said:\n%s", cfg, out)
	}
	r.home.Setenv(agenttest.CodexEnv()...)
	r.rememberE2E(t)

	r.codexExec(t, bin, model, e2ePrompt)
	calls := model.Calls()
	if len(calls) != 2 {
		t.Fatalf("want 2 model calls (memory_store, text):\n%s", model.Summary())
	}
	r.checkInjected(t, calls[0].Request.Text())
	results := calls[1].ToolResults()
	if len(results) != 1 || results[0].IsError {
		t.Fatalf("memory_store result: %+v", results)
	}
	m := r.checkStored(t, results[0].Text)
	t.Logf("stored %s as %q (who %q)", m.ID, m.Project, m.Who)
	if s := r.sessionOf(t, "codex"); s.Project != r.project || s.EndedAt == "" {
		t.Fatalf("the session as cairn recorded it: %+v", s)
	}
}

// A compaction in a resumed headless session (an auto-compaction at a
// low token limit): PreCompact checkpoints the session, and the
// SessionStart Codex sends after it (source compact) brings the recovery
// digest, with the earlier prompt, into the next request.
func TestCodexCompactionCarriesTheRecoveryDigest(t *testing.T) {
	r := newAgentRig(t)
	const first = "We are moving the atlas staging database to Postgres 16 this week"
	model := modeltest.NewResponses(func(c *modeltest.Call) modeltest.Reply {
		if c.Contains("CONTEXT CHECKPOINT COMPACTION") {
			return modeltest.Text("SUMMARY_C0: atlas staging moves to Postgres 16.")
		}
		return modeltest.Text("Noted.")
	})
	defer model.Close()
	bin := agenttest.Install(t, agenttest.Codex)
	r.home.WriteFile(t, ".codex/config.toml", "model_auto_compact_token_limit = 2000\n"+agenttest.CodexConfig(model.URL))
	r.install(t, "codex")
	r.home.Setenv(agenttest.CodexEnv()...)

	r.codexExec(t, bin, model, first)
	res := r.home.Run(t, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"exec", "--skip-git-repo-check", "resume", "--last", "What should I check next?"}})
	t.Logf("codex exec resume: exit %d after %v", res.ExitCode, res.Elapsed.Round(10e6))
	if res.ExitCode != 0 {
		t.Fatalf("codex exec resume exited %d\n%s\nmodel:\n%s", res.ExitCode, res.Stderr, model.Summary())
	}
	if len(model.Find("CONTEXT CHECKPOINT COMPACTION")) == 0 {
		t.Fatalf("no compaction:\n%s", model.Summary())
	}
	calls := model.Calls()
	last := calls[len(calls)-1]
	if !strings.Contains(last.Prompt(), "What should I check next?") {
		t.Fatalf("the last call is not the prompt after the compaction:\n%s", model.Summary())
	}
	digest := between(last.Request.Text(), "## Session Recovery (after compact", "[/cairn:context]")
	if !strings.Contains(digest, "Checkpoint (pre-compaction)") || !strings.Contains(digest, first) {
		t.Fatalf("the request after the compaction has no recovery digest of the pre-compaction checkpoint with the first prompt; got %q\nrequest:\n%s", digest, last.Request.Text())
	}
}

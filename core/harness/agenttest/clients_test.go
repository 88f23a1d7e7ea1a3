//go:build integration

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/modeltest"
)

// project makes an agent's project folder (a repository) in the test's
// temporary folder.
func project(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hookCommand is the probe hook's command line for event.
func hookCommand(t *testing.T, event, log string, inject bool) string {
	c := testBinary(t) + " " + probeHookArg + " " + event + " " + log
	if inject {
		c += " inject"
	}
	return c
}

// checkTurn checks what every CLI's turn must show: the hooks' context in
// the first model call, the probe tool offered under name and called
// through MCP, its result back in a later call.
func checkTurn(t *testing.T, model *modeltest.Server, log, tool string, injected ...string) {
	t.Helper()
	calls := model.Calls()
	var first *modeltest.Call
	for _, c := range calls {
		if len(c.Tools) > 0 { // side calls (a router, a title) offer none
			first = c
			break
		}
	}
	if first == nil {
		t.Fatalf("no model call:\n%s", model.Summary())
	}
	for _, ev := range injected {
		if !first.Contains(hookMarker(ev)) {
			t.Errorf("%s's context did not reach the first model call", ev)
		}
	}
	if !first.HasTool(tool) {
		t.Errorf("the probe tool %s is not offered; tools: %v", tool, first.Tools)
	}
	got := false
	for _, c := range calls {
		for _, r := range c.ToolResults() {
			got = got || (r.Name == tool && strings.Contains(r.Text, probeResult))
		}
	}
	if !got {
		t.Errorf("no call carries the probe's result:\n%s", model.Summary())
	}
	mcpCalls := 0
	for _, e := range probeLog(t, log) {
		if e.Role == "mcp" {
			mcpCalls++
		}
	}
	if mcpCalls != 1 {
		t.Errorf("the probe MCP server got %d calls, want 1", mcpCalls)
	}
}

func TestCodexHeadless(t *testing.T) {
	bin := Install(t, Codex)
	h := NewHome(t)
	dir := project(t)
	log := filepath.Join(t.TempDir(), "probe.log")
	model := modeltest.NewResponses(modeltest.Steps(
		modeltest.Tool("mcp__cairn__"+probeTool, map[string]any{"query": "build"}),
		modeltest.Text("DONE_CODEX")))
	defer model.Close()
	exe := testBinary(t)
	h.WriteFile(t, ".codex/config.toml", CodexConfig(model.URL)+`
[mcp_servers.cairn]
command = "`+exe+`"
args = ["`+probeMCPArg+`", "`+log+`"]
default_tools_approval_mode = "approve"
`)
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact", "Stop"} {
		inject := ev == "SessionStart" || ev == "UserPromptSubmit"
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(t, ev, log, inject), "timeout": 10}}}}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	h.WriteFile(t, ".codex/hooks.json", string(b))
	h.Setenv(CodexEnv()...)

	res := h.Run(t, Run{Bin: bin, Dir: dir, Args: []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "What builds this project?"}})
	t.Logf("codex exec: exit %d after %s\nstderr:\n%s", res.ExitCode, elapsed(res.Elapsed), res.Stderr)
	entries := probeLog(t, log)
	logProbe(t, entries)
	t.Logf("model:\n%s", model.Summary())
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "DONE_CODEX") {
		t.Fatalf("codex exec: exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
	checkTurn(t, model, log, "mcp__cairn__"+probeTool, "SessionStart", "UserPromptSubmit")
	t.Logf("hook events: %v", events(entries))
}

func TestGeminiHeadless(t *testing.T) {
	bin := Install(t, Gemini)
	h := NewHome(t)
	dir := project(t)
	log := filepath.Join(t.TempDir(), "probe.log")
	model := modeltest.NewGemini(modeltest.Steps(
		modeltest.Tool("mcp_cairn_"+probeTool, map[string]any{"query": "build"}),
		modeltest.Text("DONE_GEMINI")))
	defer model.Close()
	var settings map[string]any
	if err := json.Unmarshal([]byte(GeminiSettings), &settings); err != nil {
		t.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"} {
		inject := ev == "SessionStart" || ev == "BeforeAgent" || ev == "AfterTool"
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "name": "probe-" + ev, "command": hookCommand(t, ev, log, inject), "timeout": 10000}}}}
	}
	settings["hooks"] = hooks
	settings["mcpServers"] = map[string]any{"cairn": map[string]any{"command": testBinary(t), "args": []string{probeMCPArg, log}, "trust": true}}
	b, _ := json.MarshalIndent(settings, "", "  ")
	h.WriteFile(t, ".gemini/settings.json", string(b))
	h.Setenv(GeminiEnv(model.URL)...)

	res := h.Run(t, Run{Bin: bin, Dir: dir, Args: []string{"-p", "What builds this project?", "-o", "json"}})
	t.Logf("gemini -p: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, elapsed(res.Elapsed), res.Stdout, res.Stderr)
	entries := probeLog(t, log)
	logProbe(t, entries)
	t.Logf("model:\n%s", model.Summary())
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "DONE_GEMINI") {
		t.Fatalf("gemini -p: exit %d", res.ExitCode)
	}
	checkTurn(t, model, log, "mcp_cairn_"+probeTool, "SessionStart", "BeforeAgent")
	t.Logf("hook events: %v", events(entries))
}

// openCodePlugin logs every plugin hook OpenCode calls to log (as probe
// entries of role plugin) and injects context through the two hooks that
// reach the model: a system message and a text part of the user message.
func openCodePlugin(log string) string {
	logJS, _ := json.Marshal(log)
	return `import { appendFileSync } from "node:fs"
const LOG = ` + string(logJS) + `
const cut = (k, v) => (typeof v === "string" && v.length > 600 ? v.slice(0, 600) + "…" : v)
const log = (event, stdin) => { try { appendFileSync(LOG, JSON.stringify({ role: "plugin", event, stdin }, cut) + "\n") } catch (e) {} }
export const Probe = async (ctx) => {
  log("init", { directory: ctx.directory, worktree: ctx.worktree, keys: Object.keys(ctx) })
  return {
    event: async ({ event }) => { log("event:" + event.type, event.properties) },
    "chat.message": async (input, output) => {
      log("chat.message", { input, message: output.message, parts: output.parts })
      const tpl = output.parts.find((p) => p.type === "text")
      if (tpl) output.parts.push({ ...tpl, id: tpl.id.replace(/.$/, "z"), text: "` + hookMarker("chat.message") + `", synthetic: true })
    },
    "experimental.chat.system.transform": async (input, output) => {
      log("experimental.chat.system.transform", { input })
      output.system.push("` + hookMarker("system.transform") + `")
    },
    "experimental.session.compacting": async (input, output) => { log("experimental.session.compacting", { input, output }) },
    "tool.execute.before": async (input, output) => { log("tool.execute.before", { input, output }) },
    "tool.execute.after": async (input, output) => { log("tool.execute.after", { input, output }) },
    "command.execute.before": async (input, output) => { log("command.execute.before", { input }) },
  }
}
`
}

func TestOpenCodeHeadless(t *testing.T) {
	bin := Install(t, OpenCode)
	h := NewHome(t)
	dir := project(t)
	log := filepath.Join(t.TempDir(), "probe.log")
	model := modeltest.NewChat(func(c *modeltest.Call) modeltest.Reply {
		if len(c.Tools) == 0 { // the title generator
			return modeltest.Text("Probe session")
		}
		return modeltest.Steps(modeltest.Tool("cairn_"+probeTool, map[string]any{"query": "build"}), modeltest.Text("DONE_OPENCODE"))(c)
	})
	defer model.Close()
	mcpJSON, _ := json.Marshal(map[string]any{"cairn": map[string]any{"type": "local", "command": []string{testBinary(t), probeMCPArg, log}, "enabled": true}})
	h.WriteFile(t, ".config/opencode/opencode.json", OpenCodeConfig(model.URL, string(mcpJSON)))
	h.WriteFile(t, ".config/opencode/plugins/probe.js", openCodePlugin(log))
	if err := OpenCodeSkipDependencyInstall(h.Path(".config/opencode")); err != nil {
		t.Fatal(err)
	}
	h.Setenv(OpenCodeEnv()...)

	res := h.Run(t, Run{Bin: bin, Dir: dir, Args: []string{"run"}, Stdin: "What builds this project?"})
	t.Logf("opencode run: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, elapsed(res.Elapsed), res.Stdout, res.Stderr)
	entries := probeLog(t, log)
	logProbe(t, entries)
	t.Logf("model:\n%s", model.Summary())
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "DONE_OPENCODE") {
		t.Fatalf("opencode run: exit %d", res.ExitCode)
	}
	checkTurn(t, model, log, "cairn_"+probeTool, "chat.message", "system.transform")
	t.Logf("plugin events: %v", events(entries))
}

func TestClaudeCodeHeadless(t *testing.T) {
	bin := Install(t, ClaudeCode)
	h := NewHome(t)
	dir := project(t)
	log := filepath.Join(t.TempDir(), "probe.log")
	tool := "mcp__cairn__" + probeTool
	// Claude Code defers MCP tools: ToolSearch loads one, then it is called.
	model := modeltest.NewAnthropic(modeltest.Steps(
		modeltest.Tool("ToolSearch", map[string]any{"query": "select:" + tool, "max_results": 1}),
		modeltest.Tool(tool, map[string]any{"query": "build"}),
		modeltest.Text("DONE_CLAUDE")))
	defer model.Close()
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact", "Stop"} {
		inject := ev == "SessionStart" || ev == "UserPromptSubmit"
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(t, ev, log, inject), "timeout": 10}}}}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	h.WriteFile(t, ".claude/settings.json", string(b))
	b, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"cairn": map[string]any{"type": "stdio", "command": testBinary(t), "args": []string{probeMCPArg, log}}}})
	h.WriteFile(t, ".claude.json", string(b))
	h.Setenv(ClaudeEnv(model.URL)...)

	res := h.Run(t, Run{Bin: bin, Dir: dir, Args: []string{"-p", "What builds this project?", "--allowedTools", tool}})
	t.Logf("claude -p: exit %d after %s\nstderr:\n%s", res.ExitCode, elapsed(res.Elapsed), res.Stderr)
	entries := probeLog(t, log)
	logProbe(t, entries)
	t.Logf("model:\n%s", model.Summary())
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "DONE_CLAUDE") {
		t.Fatalf("claude -p: exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
	// The first call offers ToolSearch, not the deferred tool: the check
	// of the offer is on the call after ToolSearch loaded it.
	calls := model.Calls()
	if len(calls) != 3 || !calls[1].HasTool(tool) {
		t.Fatalf("want ToolSearch to load %s for the second call:\n%s", tool, model.Summary())
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit"} {
		if !calls[0].Contains(hookMarker(ev)) {
			t.Errorf("%s's context did not reach the model", ev)
		}
	}
	if r := calls[2].ToolResults(); len(r) != 2 || !strings.Contains(r[1].Text, probeResult) {
		t.Errorf("probe result not sent back: %+v", r)
	}
	t.Logf("hook events: %v", events(entries))
}

// Each pinned CLI installs (or is in the cache) and says it is the
// version pinned. .ci/run runs this first, so the installs happen in a
// step of their own.
func TestInstalledVersions(t *testing.T) {
	for _, cli := range All {
		t.Run(cli.Name, func(t *testing.T) {
			bin := Install(t, cli)
			res := NewHome(t).Run(t, Run{Bin: bin, Args: []string{"--version"}, Dir: t.TempDir()})
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, cli.Version) {
				t.Fatalf("%s --version: exit %d, %q (want %s)\n%s", cli.Bin, res.ExitCode, res.Stdout, cli.Version, res.Stderr)
			}
			t.Logf("%s --version: %s (%s)", cli.Bin, strings.TrimSpace(res.Stdout), elapsed(res.Elapsed))
		})
	}
}

// Codex runs user hooks only once trusted: without trust entries in
// config.toml the hooks are skipped; with CodexHookTrust's they run.
func TestCodexHookTrust(t *testing.T) {
	bin := Install(t, Codex)
	h := NewHome(t)
	dir := project(t)
	log := filepath.Join(t.TempDir(), "probe.log")
	model := modeltest.NewResponses(modeltest.Steps(modeltest.Text("DONE")))
	defer model.Close()
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit"} {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(t, ev, log, true), "timeout": 10}}}}
	}
	hooks["SessionStart"].([]any)[0].(map[string]any)["matcher"] = "startup|resume"
	hooksJSON, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	hooksPath := h.WriteFile(t, ".codex/hooks.json", string(hooksJSON))
	h.Setenv(CodexEnv()...)
	run := func() *modeltest.Call {
		t.Helper()
		before := len(model.Calls())
		res := h.Run(t, Run{Bin: bin, Dir: dir, Args: []string{"exec", "--skip-git-repo-check", "What builds this project?"}})
		if res.ExitCode != 0 || len(model.Calls()) != before+1 {
			t.Fatalf("codex exec: exit %d\n%s\nmodel:\n%s", res.ExitCode, res.Stderr, model.Summary())
		}
		return model.Calls()[before]
	}

	h.WriteFile(t, ".codex/config.toml", CodexConfig(model.URL))
	if c := run(); c.Contains(hookMarker("SessionStart")) || len(probeLog(t, log)) != 0 {
		t.Fatal("untrusted hooks ran")
	}
	trust, err := CodexHookTrust(hooksPath, hooksJSON)
	if err != nil {
		t.Fatal(err)
	}
	h.WriteFile(t, ".codex/config.toml", CodexConfig(model.URL)+trust)
	c := run()
	for _, ev := range []string{"SessionStart", "UserPromptSubmit"} {
		if !c.Contains(hookMarker(ev)) {
			t.Errorf("trusted %s hook's context did not reach the model; trust tables:%s", ev, trust)
		}
	}
}

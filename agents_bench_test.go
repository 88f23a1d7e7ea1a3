//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/mcpstdio"

	"github.com/cairnmem/cairn/core/harness/agenttest"
	"github.com/cairnmem/cairn/core/harness/modeltest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What cairn adds to a real client's turn: the same headless turn of the
// real CLI against the same scripted model, run in homes that differ only
// in cairn's install (none; hooks only; hooks and MCP server), one after
// the other in rotating order so that the machine's load falls on each
// alike, with cairn serve running (as a hook leaves it). Each figure is a
// whole CLI run, start to exit, one prompt with one model call: what a
// user waits for. Run with
//
//	go test -tags integration -run '^$' -bench 'Turn' -benchtime 15x .
//
// and read the metrics: p50 of each variant in ms, and the median of the
// differences between the runs of one round (cairn minus bare), which is
// what cairn adds.

// turnVariant is one home a turn runs in.
type turnVariant struct {
	name string
	run  func(b *testing.B) time.Duration
}

// benchTurns runs the variants b.N rounds each, rotating their order,
// and reports their p50s and what each adds over the first one.
func benchTurns(b *testing.B, variants []turnVariant) {
	for _, v := range variants { // warm up: first runs fill caches
		v.run(b)
	}
	times := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range variants {
			k := (i + j) % len(variants)
			times[k] = append(times[k], variants[k].run(b))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	base := median(times[0])
	for k, v := range variants {
		b.ReportMetric(ms(median(times[k])), v.name+"-p50-ms")
		if k == 0 {
			continue
		}
		diffs := make([]time.Duration, len(times[k]))
		for i := range diffs {
			diffs[i] = times[k][i] - times[0][i]
		}
		b.ReportMetric(ms(median(diffs)), v.name+"-added-ms")
		b.Logf("%s: p50 %.0f ms vs %s %.0f ms; median paired difference %+.0f ms (runs: %v)", v.name, ms(median(times[k])), variants[0].name, ms(base), ms(median(diffs)), round(times[k]))
	}
	b.Logf("%s runs: %v", variants[0].name, round(times[0]))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func round(d []time.Duration) []string {
	out := make([]string, len(d))
	for i, x := range d {
		out[i] = fmt.Sprint(x.Round(time.Millisecond))
	}
	return out
}

// benchRig is a cairn serve with memories, and a home per variant.
func benchRig(b *testing.B) (*agentRig, []*agentRig) {
	r := newAgentRig(b)
	r.rememberE2E(b)
	for i := 0; i < 40; i++ {
		r.remember(b, map[string]any{"content": fmt.Sprintf("Atlas note %d: the service %d listens on port %d and is owned by team %d", i, i, 8000+i, i%5), "project": r.project})
	}
	homes := make([]*agentRig, 5)
	for i := range homes {
		h := *r
		h.home = agenttest.NewHome(b)
		h.home.Setenv("CAIRN_HOME=" + r.cairnHome)
		homes[i] = &h
	}
	return r, homes
}

// BenchmarkClaudeCodeTurn: `claude -p` with no cairn; with hooks on the
// same events that run `true` (what Claude Code's running of a hook costs,
// whatever the hook); with cairn's hooks (session start, prompt, session
// end run; install --no-mcp); and with cairn's hooks and MCP server (cairn
// install claude-code). With CAIRN_BENCH_BEFORE=PATH, also with the hooks
// and MCP server of that build.
func BenchmarkClaudeCodeTurn(b *testing.B) {
	bin := agenttest.Install(b, agenttest.ClaudeCode)
	model := modeltest.NewAnthropic(func(*modeltest.Call) modeltest.Reply { return modeltest.Text("Noted.") })
	defer model.Close()
	r, homes := benchRig(b)
	noop := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "SessionEnd"} {
		noop[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "true", "timeout": 5}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": noop})
	homes[1].home.WriteFile(b, ".claude/settings.json", string(settings))
	homes[2].install(b, "claude-code", "--no-mcp")
	homes[3].install(b, "claude-code")
	timing := timedHooks(b, homes[4])
	names := []string{"bare", "noop-hooks", "hooks", "hooks+mcp", "hooks-timed"}
	// cairn's hooks and, as its MCP server, this test binary answering
	// with cairn's tool list and nothing else (noopMCP): what Claude Code
	// adds for an MCP server that costs nothing but its process.
	noopHome := *r
	noopHome.home = agenttest.NewHome(b)
	noopHome.home.Setenv("CAIRN_HOME=" + r.cairnHome)
	noopHome.install(b, "claude-code")
	useNoopMCP(b, noopHome.home.Path(".claude.json"))
	homes = append(homes, &noopHome)
	names = append(names, "hooks+noop-mcp")
	// CAIRN_BENCH_BEFORE names another build of cairn: one more home
	// has its hooks and MCP server (installed by it), to compare builds
	// in the same run.
	if before := os.Getenv("CAIRN_BENCH_BEFORE"); before != "" {
		h := *r
		h.home = agenttest.NewHome(b)
		h.home.Setenv("CAIRN_HOME=" + r.cairnHome)
		cmd := exec.Command(before, "install", "claude-code", "--force")
		cmd.Env = append(h.home.Env(), "CAIRN_HOME="+r.cairnHome)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s install claude-code: %v\n%s", before, err, out)
		}
		homes = append(homes, &h)
		names = append(names, "hooks+mcp-before")
	}
	var variants []turnVariant
	for i, name := range names {
		h := homes[i]
		h.home.Setenv(agenttest.ClaudeEnv(model.URL)...)
		variants = append(variants, turnVariant{name, func(b *testing.B) time.Duration {
			res := h.home.Run(b, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"-p", e2ePrompt}})
			if res.ExitCode != 0 {
				b.Fatalf("%s: claude exited %d: %s", name, res.ExitCode, res.Stderr)
			}
			return res.Elapsed
		}})
	}
	benchTurns(b, variants)
	if !model.Reached("[cairn:recall") {
		b.Fatal("no turn got cairn's prompt context: the hooks did not run")
	}
	timing.report(b)
}

// hookTiming collects how long each of cairn's hooks takes as the CLI
// runs it: the hooks of a home run through a bash wrapper that notes the
// time ($EPOCHREALTIME, no process of its own) before it execs nothing
// but cairn and after cairn exits.
type hookTiming struct{ log string }

// timedHooks installs cairn's Claude Code hooks in h (no MCP) with each
// command wrapped.
func timedHooks(b *testing.B, h *agentRig) hookTiming {
	dir := b.TempDir()
	t := hookTiming{log: filepath.Join(dir, "hooks.log")}
	wrapper := filepath.Join(dir, "timed-hook")
	script := "#!/bin/bash\ns=$EPOCHREALTIME\n" + harness.ShellQuote(cairnBin) + " hook \"$1\"\nrc=$?\necho \"$1 $s $EPOCHREALTIME\" >> " + harness.ShellQuote(t.log) + "\nexit $rc\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	hooks := map[string]any{}
	for ev, arg := range map[string]string{"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
		"PreCompact": "pre-compact", "PostCompact": "post-compact", "SessionEnd": "session-end"} {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": wrapper + " " + arg, "timeout": 5}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": hooks})
	h.home.WriteFile(b, ".claude/settings.json", string(settings))
	return t
}

// report reports each hook's p50 (and logs every run of it).
func (t hookTiming) report(b *testing.B) {
	data, err := os.ReadFile(t.log)
	if err != nil {
		b.Fatal(err)
	}
	runs := map[string][]time.Duration{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev string
		var start, end float64
		if _, err := fmt.Sscan(line, &ev, &start, &end); err != nil {
			b.Fatalf("hook log line %q: %v", line, err)
		}
		runs[ev] = append(runs[ev], time.Duration((end-start)*float64(time.Second)))
	}
	for _, ev := range []string{"session-start", "user-prompt-submit", "session-end"} {
		b.ReportMetric(float64(median(runs[ev]).Microseconds())/1000, ev+"-hook-p50-ms")
		b.Logf("%s hook as Claude Code runs it: p50 %v (runs: %v)", ev, median(runs[ev]).Round(time.Millisecond), round(runs[ev]))
	}
}

// BenchmarkCodexTurn: `codex exec` with no cairn, with cairn's hooks
// (trusted), and with its hooks and MCP server.
func BenchmarkCodexTurn(b *testing.B) {
	bin := agenttest.Install(b, agenttest.Codex)
	model := modeltest.NewResponses(func(*modeltest.Call) modeltest.Reply { return modeltest.Text("Noted.") })
	defer model.Close()
	r, homes := benchRig(b)
	for i, h := range homes {
		h.home.WriteFile(b, ".codex/config.toml", agenttest.CodexConfig(model.URL))
		h.home.Setenv(agenttest.CodexEnv()...)
		switch i {
		case 1:
			h.install(b, "codex", "--no-mcp")
		case 2:
			h.install(b, "codex")
		}
	}
	var variants []turnVariant
	for i, name := range []string{"bare", "hooks", "hooks+mcp"} {
		h := homes[i]
		variants = append(variants, turnVariant{name, func(b *testing.B) time.Duration {
			res := h.home.Run(b, agenttest.Run{Bin: bin, Dir: r.cwd, Args: []string{"exec", "--skip-git-repo-check", e2ePrompt}})
			if res.ExitCode != 0 {
				b.Fatalf("%s: codex exited %d: %s", name, res.ExitCode, res.Stderr)
			}
			return res.Elapsed
		}})
	}
	benchTurns(b, variants)
	if !model.Reached("[cairn:recall") {
		b.Fatal("no turn got cairn's prompt context: the hooks did not run")
	}
}

// BenchmarkPromptHook: what the prompt hook adds to a turn, measured on
// the real hook command as an agent runs it (a process per prompt, the
// agent's JSON on stdin, its answer on stdout; Claude Code, Codex and
// Gemini CLI wait for it before calling the model), against a running
// cairn holding the memories of the real-client tests and 40 more. Side
// by side, in rotating order: `true` (any hook's process, the floor),
// `cairn version` (cairn's binary starting and exiting) and `cairn hook
// user-prompt-submit` (cairn on; off, no hook runs at all). Metrics: the
// p50 wall time of each, the median paired difference of the hook over
// `true`, and the hook process's own CPU time (user+sys: what the
// machine's load does not inflate; the server's recall is on top). Run
// with
//
//	go test -tags integration -run '^$' -bench 'PromptHook' -benchtime 200x .
func BenchmarkPromptHook(b *testing.B) {
	r, _ := benchRig(b)
	// A session per run: within one, a memory is not injected again for
	// 5 prompts.
	runs := 0
	input := func() []byte {
		runs++
		return hookJSON(map[string]any{"session_id": fmt.Sprintf("bench-%d", runs), "cwd": r.cwd, "hook_event_name": "UserPromptSubmit", "prompt": e2ePrompt})
	}
	env := append(r.home.Env(), "CAIRN_HOME="+r.cairnHome, "CAIRN_HOOKS_AUTOSTART=false")
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	type variant struct {
		name string
		args []string
		wall []time.Duration
		cpu  []time.Duration
	}
	vs := []*variant{
		{name: "true", args: []string{truePath}},
		{name: "cairn-version", args: []string{cairnBin, "version"}},
		{name: "cairn-hook", args: []string{cairnBin, "hook", "user-prompt-submit"}},
	}
	run := func(v *variant) {
		cmd := exec.Command(v.args[0], v.args[1:]...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, r.cwd, bytes.NewReader(input())
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v: %v", v.args, err)
		}
		v.wall = append(v.wall, time.Since(start))
		v.cpu = append(v.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if v.name == "cairn-hook" && !strings.Contains(out.String(), e2ePromptMem) {
			b.Fatalf("the hook did not answer with the prompt's memory: %s", out.String())
		}
	}
	for _, v := range vs { // warm up
		run(v)
		v.wall, v.cpu = nil, nil
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range vs {
			run(vs[(i+j)%len(vs)])
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, v := range vs {
		b.ReportMetric(ms(median(v.wall)), v.name+"-p50-ms")
		b.ReportMetric(ms(median(v.cpu)), v.name+"-cpu-p50-ms")
	}
	diffs := make([]time.Duration, b.N)
	for i := range diffs {
		diffs[i] = vs[2].wall[i] - vs[0].wall[i]
	}
	b.ReportMetric(ms(median(diffs)), "hook-over-true-ms")
	slices.Sort(vs[2].wall)
	b.Logf("cairn hook user-prompt-submit: p50 %v, p90 %v wall, p50 %v CPU; true p50 %v; cairn version p50 %v",
		median(vs[2].wall).Round(time.Millisecond/10), vs[2].wall[len(vs[2].wall)*9/10].Round(time.Millisecond/10),
		median(vs[2].cpu).Round(time.Millisecond/10), median(vs[0].wall).Round(time.Millisecond/10), median(vs[1].wall).Round(time.Millisecond/10))
}

// noopMCPEnv makes the test binary a stdio MCP server listing cairn's
// tools and answering nothing else (noopMCP), for BenchmarkClaudeCodeTurn.
const noopMCPEnv = "CAIRN_TEST_NOOP_MCP"

// noopMCP serves cairn's tool list over stdio with handlers that do
// nothing, until stdin closes.
func noopMCP() int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: "noop"}, nil)
	for _, tool := range mcpstdio.Tools() {
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// useNoopMCP points the cairn MCP server of a Claude Code config file at
// noopMCP.
func useNoopMCP(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		b.Fatal(err)
	}
	servers, _ := cfg["mcpServers"].(map[string]any)
	srv, _ := servers["cairn"].(map[string]any)
	if srv == nil {
		b.Fatalf("%s: no cairn MCP server", path)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	srv["command"], srv["args"], srv["env"] = exe, []any{}, map[string]any{noopMCPEnv: "1"}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		b.Fatal(err)
	}
}

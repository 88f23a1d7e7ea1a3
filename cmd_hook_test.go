//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runHookBin runs `cairn hook ARGS` with stdin and returns stdout, stderr
// and how long it took; the shim must always exit 0. It starts no server
// in the background unless env says CAIRN_HOOKS_AUTOSTART=true.
func runHookBin(t *testing.T, home string, env []string, stdin []byte, args ...string) (string, string, time.Duration) {
	t.Helper()
	cmd := cairnCmd(home, append([]string{"hook"}, args...)...)
	cmd.Env = append(append(cmd.Env, "CAIRN_HOOKS_AUTOSTART=false"), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn hook %v: %v\nstderr: %s", args, err, errb.String())
	}
	return out.String(), errb.String(), time.Since(start)
}

func hookJSON(fields map[string]any) []byte {
	b, _ := json.Marshal(fields)
	return b
}

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestHookShimLive(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	project := filepath.Join(t.TempDir(), "proj")
	other := filepath.Join(t.TempDir(), "other")
	postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "the release train leaves every tuesday", "project": project})
	postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "the release train of the other client is monthly", "project": other})

	common := map[string]any{"session_id": "cc-1", "transcript_path": "/nonexistent.jsonl", "cwd": project,
		"permission_mode": "default", "prompt_id": "p1", "effort": map[string]any{"level": "high"}, "brand_new_field": []int{1}}
	with := func(kv ...any) []byte {
		m := map[string]any{}
		for k, v := range common {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return hookJSON(m)
	}

	out, _, _ := runHookBin(t, home, nil, with("hook_event_name", "SessionStart", "source", "startup", "model", "claude"), "session-start")
	var got struct {
		H struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.H.Event != "SessionStart" {
		t.Fatalf("session-start output %q: %v", out, err)
	}
	if !strings.Contains(got.H.Context, "every tuesday") || strings.Contains(got.H.Context, "monthly") || len([]rune(got.H.Context)) > 10000 {
		t.Fatalf("session-start context:\n%s", got.H.Context)
	}

	out, _, _ = runHookBin(t, home, nil, with("hook_event_name", "UserPromptSubmit", "prompt", "when does the release train leave?"), "user-prompt-submit")
	// Listed at session start, but the prompt is about it: a session
	// start list is not an answer, so it is injected now…
	if !strings.Contains(out, "every tuesday") {
		t.Fatalf("the prompt about a memory listed at session start did not get it: %q", out)
	}
	// …and, given as an answer, not again at the next prompt.
	out, _, _ = runHookBin(t, home, nil, with("hook_event_name", "UserPromptSubmit", "prompt", "when does the release train leave?"), "user-prompt-submit")
	if out != "" {
		t.Fatalf("prompt re-injected what the last prompt got as an answer: %s", out)
	}
	common["session_id"] = "cc-2"
	out, _, _ = runHookBin(t, home, nil, with("hook_event_name", "UserPromptSubmit", "prompt", "when does the release train leave?"), "user-prompt-submit")
	if !strings.Contains(out, "[cairn:recall") || !strings.Contains(out, "every tuesday") || strings.Contains(out, "monthly") {
		t.Fatalf("prompt inject: %s", out)
	}

	// Session end with a Claude Code transcript.
	tp := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(tp, []byte(`{"type":"user","message":{"role":"user","content":"ship it on tuesday"}}`+"\n"+
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Shipped."}]}}`+"\n"), 0o600)
	out, _, took := runHookBin(t, home, nil, with("hook_event_name", "SessionEnd", "reason", "prompt_input_exit", "transcript_path", tp), "session-end")
	if out != "" || took > 1500*time.Millisecond {
		t.Fatalf("session-end printed %q in %v", out, took)
	}
	_, s := getJSON(t, "http://"+addr+"/api/sessions/cc-2")
	if s["transcript"] != "User: ship it on tuesday\nAssistant: Shipped." || s["ended_at"] == nil {
		t.Fatalf("session: %v", s)
	}

	// remember through the shim, then CAIRN_NO_HOOKS=1 silences everything.
	runHookBin(t, home, nil, with("content", "hooks remember this fact"), "remember")
	// cairn refusing the event is reported on stderr with its answer, and
	// nothing is spooled: it would only be refused again.
	out, errOut, _ := runHookBin(t, home, nil, with("content", 42), "remember")
	if out != "" || !strings.Contains(errOut, "cairn hook remember: HTTP 400: {") || !strings.Contains(errOut, `"code":"invalid_request"`) {
		t.Fatalf("refused remember: stdout %q stderr %q", out, errOut)
	}
	if spooled, _ := filepath.Glob(filepath.Join(home, "hook-spool", "*.json")); len(spooled) != 0 {
		t.Fatalf("a refused event was spooled: %v", spooled)
	}
	out, _, _ = runHookBin(t, home, []string{"CAIRN_NO_HOOKS=1"}, with("hook_event_name", "SessionStart"), "session-start")
	if out != "" {
		t.Fatalf("CAIRN_NO_HOOKS=1 printed %q", out)
	}
	// Empty, truncated and huge stdin: exit 0, nothing printed.
	for name, in := range map[string][]byte{
		"empty":     nil,
		"truncated": []byte(`{"session_id":"x","cwd":"/tmp","prompt":"hel`),
		"array":     []byte(`[1,2]`),
		"huge":      append(append([]byte(`{"prompt":"`), bytes.Repeat([]byte("a"), 17<<20)...), []byte(`"}`)...),
	} {
		if out, _, _ := runHookBin(t, home, nil, in, "user-prompt-submit"); out != "" {
			t.Fatalf("%s stdin printed %q", name, out)
		}
	}
}

func TestHookShimDownSpoolsThenIngestsOnce(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(t.TempDir(), "proj")
	in := hookJSON(map[string]any{"session_id": "down-1", "cwd": project, "hook_event_name": "UserPromptSubmit", "prompt": "anything about releases"})
	out, _, took := runHookBin(t, home, nil, in, "user-prompt-submit")
	if out != "" || took > 2*time.Second {
		t.Fatalf("down: printed %q in %v", out, took)
	}
	out, _, _ = runHookBin(t, home, nil, hookJSON(map[string]any{"session_id": "down-1", "cwd": project, "content": "spooled while down: deploys need two approvals"}), "remember")
	if out != "" {
		t.Fatalf("remember printed %q", out)
	}
	tp := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(tp, []byte(`{"type":"user","message":{"role":"user","content":"we need two approvals"}}`+"\n"), 0o600)
	runHookBin(t, home, nil, hookJSON(map[string]any{"session_id": "down-1", "cwd": project, "transcript_path": tp, "reason": "other", "hook_event_name": "SessionEnd"}), "session-end")
	os.Remove(tp) // gone by the next start: the spool holds its content
	spooled, _ := filepath.Glob(filepath.Join(home, "hook-spool", "*.json"))
	if len(spooled) != 2 {
		t.Fatalf("spool files: %v", spooled)
	}

	count := func(addr string) int {
		_, l := getJSON(t, "http://"+addr+"/api/memories?limit=100")
		n := 0
		for _, m := range l["memories"].([]any) {
			if strings.Contains(m.(map[string]any)["content"].(string), "two approvals") {
				n++
			}
		}
		return n
	}
	for i := range 2 {
		addr := freeAddr(t)
		srv := startServer(t, home, addr)
		if n := count(addr); n != 1 {
			srv.stop(t)
			t.Fatalf("start %d: spooled memory present %d times (is core.IngestSpool called from app.serve?)", i+1, n)
		}
		_, s := getJSON(t, "http://"+addr+"/api/sessions/down-1")
		if s["transcript"] != "User: we need two approvals" {
			srv.stop(t)
			t.Fatalf("start %d: spooled transcript: %v", i+1, s)
		}
		srv.stop(t)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "hook-spool", "*.json")); len(left) != 0 {
		t.Fatalf("spool not emptied: %v", left)
	}
}

func TestHookShimUnknownEventIsNonBlocking(t *testing.T) {
	cmd := cairnCmd(t.TempDir(), "hook", "nope")
	cmd.Stdin = strings.NewReader("{}")
	err := cmd.Run()
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("unknown event: %v (must exit 1, never 2, which blocks the prompt)", err)
	}
}

// TestHookShimStartsServer: with no cairn running, session start still
// injects the project's memories (answered from the store, read-only),
// from any folder of the repository and for a memory saved under the
// project's short name; the hook leaves a background server behind that
// the next hooks use; a remember through the shim with no server is
// stored exactly once, however often the server starts.
func TestHookShimStartsServer(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	env := []string{"CAIRN_HOOKS_AUTOSTART=true", "CAIRN_ADDR=" + addr}
	repo := filepath.Join(t.TempDir(), "atlas")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "services", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopHolder(t, home) })

	// A remember through the shim with nothing running: spooled, then
	// stored by the server the hook starts.
	out, _, _ := runHookBin(t, home, env, hookJSON(map[string]any{"session_id": "auto-1", "cwd": sub,
		"content": "Staging postgres runs on port 5433", "importance": 1}), "remember")
	if out != "" {
		t.Fatalf("remember printed %q", out)
	}
	waitHolder(t, home, addr)
	count := func() int {
		_, l := getJSON(t, "http://"+addr+"/api/memories?limit=100")
		n := 0
		for _, m := range l["memories"].([]any) {
			mm := m.(map[string]any)
			if strings.Contains(mm["content"].(string), "port 5433") {
				if mm["project"] != repo {
					t.Errorf("the hook's memory has project %v, want the repository root %s", mm["project"], repo)
				}
				n++
			}
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("the remember is stored %d times, want once", n)
	}
	// The next hook uses that server.
	out, _, _ = runHookBin(t, home, env, hookJSON(map[string]any{"session_id": "auto-2", "cwd": repo, "hook_event_name": "SessionStart"}), "session-start")
	if !strings.Contains(out, "port 5433") || !strings.Contains(out, "project="+repo) {
		t.Fatalf("session start through the background server: %q", out)
	}
	_, s := getJSON(t, "http://"+addr+"/api/sessions/auto-2")
	if s["project"] != repo {
		t.Fatalf("the server recorded the session as %v", s)
	}

	// Nothing running again: the answer comes from the store itself, for
	// a memory the CLI stored under the short name.
	stopHolder(t, home)
	if code, err := cairnCmd(home, "remember", "--project", "atlas", "atlas deploys with make ship").CombinedOutput(); err != nil {
		t.Fatalf("cairn remember: %v: %s", err, code)
	}
	out, _, _ = runHookBin(t, home, env, hookJSON(map[string]any{"session_id": "auto-3", "cwd": sub, "hook_event_name": "SessionStart"}), "session-start")
	if !strings.Contains(out, "port 5433") {
		t.Fatalf("session start with no server running injected: %q", out)
	}
	waitHolder(t, home, addr)
	if n := count(); n != 1 {
		t.Fatalf("after a restart the remember is stored %d times, want once", n)
	}
	// The server's open gave the short name its project's identity.
	_, l := getJSON(t, "http://"+addr+"/api/memories?limit=100")
	for _, m := range l["memories"].([]any) {
		mm := m.(map[string]any)
		if strings.Contains(mm["content"].(string), "make ship") && mm["project"] != repo {
			t.Errorf("the memory stored with --project atlas has project %v after the server opened the store, want %s", mm["project"], repo)
		}
	}
}

// waitHolder waits for a server on addr to hold home's store and answer.
func waitHolder(t *testing.T, home, addr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if info, ok := readLock(home); ok && info.Addr == addr {
			if resp, err := http.Get("http://" + addr + "/health"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no background server came up on %s; log:\n%s", addr, readLog(home))
}

// stopHolder stops the server holding home's store, if any.
func stopHolder(t *testing.T, home string) {
	t.Helper()
	info, ok := readLock(home)
	if !ok {
		return
	}
	p, err := os.FindProcess(info.PID)
	if err != nil || p.Signal(syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Kill()
	t.Errorf("the background server did not stop on SIGTERM")
}

type lockInfo struct {
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
}

func readLock(home string) (lockInfo, bool) {
	var info lockInfo
	b, err := os.ReadFile(filepath.Join(home, "memories.db.lock"))
	if err != nil || json.Unmarshal(b, &info) != nil {
		return info, false
	}
	return info, info.PID > 0
}

func readLog(home string) string {
	b, _ := os.ReadFile(filepath.Join(home, "logs", "cairn.log"))
	return string(b)
}

// The shim sends the transcript so far at a compaction (with the user's
// /compact instructions) and when the prompt hook asks for it in a long
// session: what the session taught is learned before it ends.
func TestHookShimLearnsDuringTheSession(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[continuity]\nprompt_interval = 2\n\n[embedding]\nprovider = \"none\"\n"), 0o600)
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	project := filepath.Join(t.TempDir(), "proj")
	tp := filepath.Join(t.TempDir(), "t.jsonl")
	line := func(s string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": s}})
		return string(b) + "\n"
	}
	os.WriteFile(tp, []byte(line("We decided to use sqlc instead of gorm because gorm hid N+1 queries.")+"{broken\n"), 0o600)
	with := func(kv ...any) []byte {
		m := map[string]any{"session_id": "cc-learn", "transcript_path": tp, "cwd": project}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return hookJSON(m)
	}
	runHookBin(t, home, nil, with("hook_event_name", "PreCompact", "trigger", "manual", "custom_instructions", "Keep the sqlc decision."), "pre-compact")
	_, s := getJSON(t, "http://"+addr+"/api/sessions/cc-learn")
	if tr, _ := s["transcript"].(string); !strings.Contains(tr, "sqlc instead of gorm") || s["ended_at"] != nil {
		t.Fatalf("the compaction did not send the transcript so far: %v", s)
	}
	if w, _ := s["transcript_warning"].(string); !strings.Contains(w, "1 unreadable lines left out") {
		t.Fatalf("the unreadable line is not said: %v", s)
	}
	out, _, _ := runHookBin(t, home, nil, with("hook_event_name", "SessionStart", "source", "compact"), "session-start")
	if !strings.Contains(out, "Keep the sqlc decision.") {
		t.Fatalf("the recovery digest lacks the /compact instructions: %s", out)
	}
	// Two prompts later (continuity.prompt_interval) the prompt hook asks
	// for the transcript, which has grown.
	f, _ := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(line("We paginate with cursors from now on, never OFFSET."))
	f.Close()
	for range 2 {
		runHookBin(t, home, nil, with("hook_event_name", "UserPromptSubmit", "prompt", "carry on"), "user-prompt-submit")
	}
	_, s = getJSON(t, "http://"+addr+"/api/sessions/cc-learn")
	if tr, _ := s["transcript"].(string); !strings.Contains(tr, "never OFFSET") {
		t.Fatalf("the long session's transcript was not sent: %v", s["transcript"])
	}
}

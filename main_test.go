//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The integration tests of package main build the real binary once
// (TestMain) and run it: as a server, as the CLI against a server or a
// store, as the hook shim, the MCP server and, under tmux, the terminal UI.
// They need the integration build tag: go test -tags integration .

// cairnBin is the binary TestMain built.
var cairnBin string

func TestMain(m *testing.M) {
	if os.Getenv(noopMCPEnv) != "" {
		os.Exit(noopMCP())
	}
	dir, err := os.MkdirTemp("", "cairn-bin-")
	if err != nil {
		panic(err)
	}
	cairnBin = filepath.Join(dir, "cairn")
	out, err := exec.Command("go", "build", "-o", cairnBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build cairn: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// cairnCmd runs the binary with CAIRN_HOME set to home.
func cairnCmd(home string, args ...string) *exec.Cmd {
	cmd := exec.Command(cairnBin, args...)
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
	return cmd
}

type server struct {
	cmd    *exec.Cmd
	addr   string
	stderr *lockedBuffer
}

func startServer(t testing.TB, home, addr string) *server {
	t.Helper()
	return startServerCmd(t, cairnCmd(home, "serve", "--addr", addr), addr)
}

// startServerCmd starts cmd, a cairn serve on addr, and waits for it to
// answer.
func startServerCmd(t testing.TB, cmd *exec.Cmd, addr string) *server {
	t.Helper()
	s := &server{addr: addr, stderr: &lockedBuffer{}}
	s.cmd = cmd
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.cmd.Process.Kill()
	t.Fatalf("server did not come up: %s", s.stderr)
	return nil
}

func (s *server) stop(t testing.TB) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exited with %v: %s", err, s.stderr)
		}
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		t.Fatal("server did not stop on SIGTERM")
	}
}

func postJSON(t testing.TB, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// An acknowledged remember survives kill -9 of the server.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)

	// Let writes flow, then kill the server mid-stream.
	acked := killMidWrites(t, srv, addr, 200, 15*time.Second)
	if len(acked) < 50 {
		t.Fatalf("only %d writes acknowledged before the kill", len(acked))
	}

	srv = startServer(t, home, addr)
	defer srv.stop(t)
	for _, id := range acked {
		resp, err := http.Get("http://" + addr + "/api/memory/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("acknowledged memory %s is missing after kill -9 (status %d)", id, resp.StatusCode)
		}
	}
	t.Logf("%d acknowledged writes all present after kill -9", len(acked))
}

// killMidWrites has four writers remember through addr, srv's address,
// until want writes are acknowledged (or wait passes), then kills srv
// with SIGKILL mid-stream and returns the ids of the acknowledged writes.
func killMidWrites(t *testing.T, srv *server, addr string, want int, wait time.Duration) []string {
	t.Helper()
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 5 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				b, _ := json.Marshal(map[string]any{"content": fmt.Sprintf("writer %d wrote memory number %d about durability", w, i)})
				resp, err := client.Post("http://"+addr+"/api/memory/remember", "application/json", bytes.NewReader(b))
				if err != nil {
					return // the server is gone
				}
				var out map[string]any
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, out["id"].(string))
					mu.Unlock()
				}
			}
		}()
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= want {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srv.cmd.Wait()
	close(stop)
	wg.Wait()
	return acked
}

func TestSecondInstanceAndClientMode(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)

	// A second server on the same database says who holds it.
	out, err := cairnCmd(home, "serve", "--addr", freeAddr(t)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another cairn (pid") || !strings.Contains(string(out), addr) {
		t.Fatalf("second serve: err=%v out=%s", err, out)
	}
	// A taken port is explained.
	other := t.TempDir()
	out, err = cairnCmd(other, "serve", "--addr", addr).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already in use") {
		t.Fatalf("port taken: err=%v out=%s", err, out)
	}

	// The CLI talks to the running instance instead of opening the store.
	out, err = cairnCmd(home, "remember", "--tags", "infra,db", "postgres runs on port 5433 in staging").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "remembered") {
		t.Fatalf("remember via API: %v %s", err, out)
	}
	resp, _ := http.Get("http://" + addr + "/api/memories")
	var list struct {
		Memories []struct {
			Content string   `json:"content"`
			Tags    []string `json:"tags"`
			Who     string   `json:"who"`
		} `json:"memories"`
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Memories) != 1 || list.Memories[0].Who != "cli" || len(list.Memories[0].Tags) != 2 {
		t.Fatalf("memory from the CLI: %+v", list.Memories)
	}
	out, err = cairnCmd(home, "recall", "which port does postgres use").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "5433") {
		t.Fatalf("recall via API: %v %s", err, out)
	}
	srv.stop(t)

	// With nothing running the CLI opens the store itself.
	out, err = cairnCmd(home, "recall", "postgres").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "5433") {
		t.Fatalf("recall direct: %v %s", err, out)
	}
	if wal, err := os.Stat(filepath.Join(home, "memories.db-wal")); err == nil && wal.Size() != 0 {
		t.Fatalf("WAL not checkpointed at shutdown: %d bytes", wal.Size())
	}
}

// Export, import into a fresh store, export again: identical bytes.
func TestExportImportRoundTrip(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	base := "http://" + addr
	var ids []string
	for _, c := range []map[string]any{
		{"content": "critical: [security]: never commit secrets", "who": "alice", "project": "atlas"},
		{"content": "User prefers bun over npm", "tags": []string{"tooling"}, "importance": 0.6},
		{"content": "Ünïcödé: 東京 meeting moved to Thursday 🚀", "source_type": "bench", "source_id": "b-1"},
		{"content": "to be deleted later"},
	} {
		code, out := postJSON(t, base+"/api/memory/remember", c)
		if code != 200 {
			t.Fatalf("remember: %d %v", code, out)
		}
		ids = append(ids, out["id"].(string))
	}
	req, _ := http.NewRequest(http.MethodPatch, base+"/api/memory/"+ids[1], strings.NewReader(`{"reason":"fix","content":"User prefers bun over npm and pnpm","importance":0.7}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("patch: %v", err)
	}
	req, _ = http.NewRequest(http.MethodDelete, base+"/api/memory/"+ids[3]+"?reason=cleanup", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("delete: %v", err)
	}
	first := filepath.Join(t.TempDir(), "a.jsonl")
	if out, err := cairnCmd(home, "export", "--include-deleted", "-o", first).CombinedOutput(); err != nil {
		t.Fatalf("export via API: %v %s", err, out)
	}
	srv.stop(t)

	fresh := t.TempDir()
	out, err := cairnCmd(fresh, "import", first).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 4 memories") {
		t.Fatalf("import: %v %s", err, out)
	}
	second := filepath.Join(t.TempDir(), "b.jsonl")
	if out, err := cairnCmd(fresh, "export", "--include-deleted", "-o", second).CombinedOutput(); err != nil {
		t.Fatalf("export direct: %v %s", err, out)
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", a, b)
	}
	if n := bytes.Count(a, []byte("\n")); n != 4 {
		t.Fatalf("export has %d lines, want 4", n)
	}
	// Importing again changes nothing.
	out, err = cairnCmd(fresh, "import", first).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 0 memories") || !strings.Contains(string(out), "4 already present") {
		t.Fatalf("re-import: %v %s", err, out)
	}
	// A bad line stops the import before anything is written.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"content":"fine line","importance":0.5}`+"\n"+`{"content":"bad","importance":"high"}`+"\n"), 0o600)
	out, err = cairnCmd(t.TempDir(), "import", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "line 2") || !strings.Contains(string(out), "importance") {
		t.Fatalf("bad import: %v %s", err, out)
	}
}

func TestCLIUsageAndConfig(t *testing.T) {
	home := t.TempDir()
	out, err := cairnCmd(home, "config").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `addr = "127.0.0.1:3850"`) {
		t.Fatalf("config: %v %s", err, out)
	}
	cmd := cairnCmd(home, "config")
	cmd.Env = append(cmd.Env, "CAIRN_AUTH_MODE=open")
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "CAIRN_AUTH_MODE") && !strings.Contains(string(out), "auth.mode") {
		t.Fatalf("bad env config: %v %s", err, out)
	}
	out, err = cairnCmd(home, "frobnicate").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "unknown command") {
		t.Fatalf("unknown command: %v %s", err, out)
	}
	out, err = cairnCmd(home, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "cairn ") {
		t.Fatalf("version: %v %s", err, out)
	}
	// -h is help, never the version; --json on config, version.
	out, err = cairnCmd(home, "version", "-h").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "usage: cairn version") {
		t.Fatalf("version -h: %v %s", err, out)
	}
	out, err = cairnCmd(home, "version", "--json").Output()
	var v map[string]string
	if err != nil || json.Unmarshal(out, &v) != nil || v["version"] == "" {
		t.Fatalf("version --json: %v %s", err, out)
	}
	out, err = cairnCmd(home, "config", "--json").Output()
	var c struct {
		ConfigFile  string `json:"configFile"`
		ConfigFound bool   `json:"configFound"`
		Database    string `json:"database"`
		Config      map[string]map[string]any
	}
	if err != nil || json.Unmarshal(out, &c) != nil || c.Config["server"]["addr"] != "127.0.0.1:3850" || c.ConfigFound ||
		!strings.HasPrefix(c.Database, home) {
		t.Fatalf("config --json: %v %s", err, out)
	}
	// A bad configuration value is a usage error (2), as a bad flag is.
	cmd = cairnCmd(home, "config")
	cmd.Env = append(cmd.Env, "CAIRN_AUTH_MODE=open")
	if _, err = cmd.CombinedOutput(); exitStatus(err) != 2 {
		t.Fatalf("bad env config exits %d, want 2", exitStatus(err))
	}
	if _, err = cairnCmd(home, "config", "--nope").CombinedOutput(); exitStatus(err) != 2 {
		t.Fatalf("a bad flag exits %d, want 2", exitStatus(err))
	}
	// A typo in --type is refused with the nearest known type.
	out, err = cairnCmd(home, "remember", "--type", "decison", "we ship on tuesdays").CombinedOutput()
	if exitStatus(err) != 2 || !strings.Contains(string(out), `--type: unknown type "decison": did you mean "decision"?`) {
		t.Fatalf("remember --type with a typo: %d %s", exitStatus(err), out)
	}
	// memory.extra_types adds types a person may pick.
	if out, err = cairnCmd(home, "remember", "--type", "incident", "the march outage was a full disk").CombinedOutput(); exitStatus(err) != 2 {
		t.Fatalf("remember --type incident without memory.extra_types: %d %s", exitStatus(err), out)
	}
	cmd = cairnCmd(home, "remember", "--type", "incident", "the march outage was a full disk")
	cmd.Env = append(cmd.Env, "CAIRN_MEMORY_EXTRA_TYPES=incident,runbook")
	if out, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("remember --type incident with memory.extra_types: %v %s", err, out)
	}
}

// exitStatus is a command's exit status (0 when it succeeded).
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// tmuxSession runs the real binary in a detached tmux session on a private
// server, so the test sees exactly what a terminal would show.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

// keys sends tmux key names ("Escape", "C-s") or literal text.
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmux("send-keys", "-t", s.name, k)
		// A lone Escape followed at once by another key reads as alt+key;
		// terminals separate them by timing, so does the test.
		time.Sleep(60 * time.Millisecond)
	}
}

func (s *tmuxSession) text(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.name, "-l", text)
}

// waitFor polls the screen until it contains want.
func (s *tmuxSession) waitFor(want string, d time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture()
		if strings.Contains(screen, want) {
			return screen
		}
		time.Sleep(30 * time.Millisecond)
	}
	s.t.Fatalf("screen never showed %q; last frame:\n%s", want, screen)
	return ""
}

// waitUntil waits for a frame that ok accepts.
func (s *tmuxSession) waitUntil(what string, d time.Duration, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	var screen string
	for time.Now().Before(deadline) {
		if screen = s.capture(); ok(screen) {
			return screen
		}
		time.Sleep(30 * time.Millisecond)
	}
	s.t.Fatalf("waited for %s; last frame:\n%s", what, screen)
	return ""
}

func TestTUIEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-%d", os.Getpid()), name: "cairn"}
	exitFile := filepath.Join(home, "exit-status")
	script := fmt.Sprintf("CAIRN_HOME=%q TERM=xterm-256color %q --addr %s; echo $? > %q", home, cairnBin, addr, exitFile)
	start := time.Now()
	s.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitFor("recent memories", 20*time.Second)
	t.Logf("first frame after %v", time.Since(start))

	// An agent remembers something through the API: it appears without a keypress.
	code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{
		"content": "postgres runs on port 5433 in staging", "tags": []string{"infra"}})
	if code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	id, _ := body["id"].(string)
	s.waitFor("postgres runs on port 5433", 5*time.Second)
	postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "the deploy script lives in ops/deploy.sh"})
	s.waitFor("ops/deploy.sh", 5*time.Second)

	// Search as you type.
	s.keys("/")
	s.text("postgres")
	screen := s.waitFor(" recall", 5*time.Second) // "keyword recall" or "hybrid recall"
	if !strings.Contains(screen, "› ") || !strings.Contains(screen[strings.Index(screen, "› "):], "postgres runs") {
		t.Fatalf("search for postgres does not rank it first:\n%s", screen)
	}
	s.keys("Escape")
	// The search box lets go of the keyboard before the next key is sent
	// (on a loaded machine a key right behind Escape reads as alt+key).
	s.waitUntil("the search box to let go", 5*time.Second, func(screen string) bool { return !strings.Contains(screen, "in search") })

	// Edit it: e, type, ctrl+s, a reason, enter.
	s.keys("e")
	s.waitFor("Edit ", 5*time.Second)
	s.keys("C-e")
	s.text(" (edited in e2e)")
	s.keys("C-s")
	s.waitFor("Why this change?", 5*time.Second)
	s.text("e2e check")
	s.keys("Enter")
	s.waitFor("saved ", 5*time.Second)

	resp, err := http.Get("http://" + addr + "/api/memory/" + id)
	if err != nil {
		t.Fatal(err)
	}
	var mem struct {
		Content   string `json:"content"`
		Version   int    `json:"version"`
		UpdatedBy string `json:"updated_by"`
	}
	json.NewDecoder(resp.Body).Decode(&mem)
	resp.Body.Close()
	if mem.Content != "postgres runs on port 5433 in staging (edited in e2e)" || mem.Version != 2 || mem.UpdatedBy != "tui" {
		t.Fatalf("after the edit the API shows %+v", mem)
	}

	// The Diagnostics pane (its number is in the tab bar): run the
	// non-destructive FTS check by key and see its result.
	screen = s.capture()
	i := strings.Index(screen, " Diagnostics")
	if i < 1 {
		t.Fatalf("no Diagnostics tab:\n%s", screen)
	}
	s.keys(screen[i-1 : i])
	// The pane is open (its body wraps long descriptions, so what is
	// below the domains may be further down).
	s.waitFor("Repairs: press a key", 5*time.Second)
	s.keys("f")
	screen = s.waitFor("✓ check-fts: 0 affected", 10*time.Second)
	if !strings.Contains(screen, "full-text index consistent") || !strings.Contains(screen, " → ") {
		t.Fatalf("check-fts result without its message or score change:\n%s", screen)
	}

	// Quit: exit status 0, the lock released, the API gone.
	s.keys("q")
	deadline := time.Now().Add(15 * time.Second)
	var status []byte
	for time.Now().Before(deadline) {
		if status, err = os.ReadFile(exitFile); err == nil && len(status) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.TrimSpace(string(status)) != "0" {
		t.Fatalf("exit status %q; screen:\n%s", status, s.capture())
	}
	lock, err := storage.AcquireLock(filepath.Join(home, "memories.db"))
	if err != nil {
		t.Fatalf("lock not released: %v", err)
	}
	lock.Release()
	if _, err := http.Get("http://" + addr + "/health"); err == nil {
		t.Fatal("the API still answers after quit")
	}
}

// TestTUIPipelineEndToEnd follows a session through the pipeline on screen:
// an agent's session ends with a transcript, the heuristic provider
// extracts its facts in shadow mode (Jobs shows the job complete), the
// operator approves one proposal (Proposals), and the new memory shows in
// Recall. (A remembered memory proposes nothing with the heuristic
// provider: its facts are its own sentences.)
func TestTUIPipelineEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-pipe-%d", os.Getpid()), name: "cairn"}
	env := "CAIRN_PIPELINE_V2_PROVIDER=heuristic CAIRN_PIPELINE_V2_POLL_INTERVAL=100ms CAIRN_PIPELINE_SHADOW_MODE=true"
	script := fmt.Sprintf("CAIRN_HOME=%q %s TERM=xterm-256color %q --addr %s", home, env, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("recent memories", 20*time.Second)

	source := "We decided to use PostgreSQL for the billing service because it supports row level locking. " +
		"The team prefers Go for all new backend services going forward. " +
		"Container images are published to the internal registry every Tuesday morning."
	turn, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": source}})
	code, body := postJSON(t, "http://"+addr+"/api/hooks/session-end", map[string]any{"harness": "claude-code",
		"session_id": "e2e-1", "cwd": "/work/e2e", "transcript": string(turn)})
	if code != 200 {
		t.Fatalf("session-end: %d %v", code, body)
	}

	// Jobs: the session's extract job completes while we watch.
	s.keys("3")
	s.waitFor("completed 1 ·", 20*time.Second)
	s.waitFor("session_extract", time.Second)

	// Proposals: pick the first proposal whose fact is not the start of the
	// source, so finding it in Recall proves the approval wrote it.
	var list struct {
		Proposals []struct {
			ID   string `json:"id"`
			Fact string `json:"fact"`
		} `json:"proposals"`
	}
	fetchJSON(t, "http://"+addr+"/api/proposals?state=pending", &list)
	pick := -1
	for i, p := range list.Proposals {
		if len(p.Fact) >= 24 && !strings.HasPrefix(source, p.Fact[:24]) {
			pick = i
			break
		}
	}
	if pick < 0 {
		t.Fatalf("no proposal to approve apart from the source's own start: %+v", list.Proposals)
	}
	fact := list.Proposals[pick].Fact
	s.keys("5")
	s.waitFor(fmt.Sprintf("%d pending proposals", len(list.Proposals)), 10*time.Second)
	for range pick {
		s.keys("j")
	}
	s.keys("a")
	s.waitFor("approved ADD", 10*time.Second)
	var p struct {
		State           string `json:"state"`
		DecidedBy       string `json:"decidedBy"`
		AppliedMemoryID string `json:"appliedMemoryId"`
	}
	fetchJSON(t, "http://"+addr+"/api/proposals/"+list.Proposals[pick].ID, &p)
	if p.State != "applied" || p.DecidedBy != "tui" || p.AppliedMemoryID == "" {
		t.Fatalf("after approval the API shows %+v", p)
	}

	// Recall: the new memory is there.
	s.keys("1")
	s.waitFor(fact[:24], 10*time.Second)
	s.keys("q")
}

func fetchJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// click sends a left click at the 0-based cell (x, y) as the terminal
// would (SGR mouse: press, then release).
func (s *tmuxSession) click(x, y int) {
	s.t.Helper()
	for _, end := range []string{"M", "m"} {
		seq := fmt.Sprintf("\x1b[<0;%d;%d%s", x+1, y+1, end)
		args := []string{"send-keys", "-t", s.name, "-H"}
		for _, b := range []byte(seq) {
			args = append(args, fmt.Sprintf("%02x", b))
		}
		s.tmux(args...)
	}
}

// lastLines is the screen's last n lines.
func lastLines(screen string, n int) []string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[max(0, len(lines)-n):]
}

// TestTUIDailyUseAt80x24 checks the fixes of daily use on a real terminal
// of 80×24: the hint line keeps ? and q, the ? help shows the global keys
// first, enter in the search box opens the result, the project column,
// an action's notice on its own line above an intact status bar, History
// filtering as you type with free text, and a click on a tab.
func TestTUIDailyUseAt80x24(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-daily-%d", os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q TERM=xterm-256color %q --addr %s", home, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	screen := s.waitFor("recent memories", 20*time.Second)

	hint := lastLines(screen, 1)[0]
	if !strings.Contains(hint, "? keys") || !strings.Contains(hint, "q quit") {
		t.Fatalf("the hint line at 80 columns lost ? or q: %q", hint)
	}
	s.keys("?")
	screen = s.waitFor("Global", 5*time.Second)
	for _, want := range []string{"next pane", "go to pane", "q         quit", "Recall", "show deleted"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the ? help at 80 columns lacks %q:\n%s", want, screen)
		}
	}
	if l := strings.Split(screen, "\n")[1]; !strings.HasPrefix(l, "Global") || !strings.Contains(l, "Recall") {
		t.Fatalf("the global keys are not first:\n%s", screen)
	}
	s.keys("Escape")

	for _, m := range []map[string]any{
		{"content": "the webshop deploy needs VPN access on staging", "project": "github.com/acme/webshop"},
		{"content": "atlas keeps its nightly backups for 30 days"},
	} {
		if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", m); code != 200 {
			t.Fatalf("remember: %d %v", code, body)
		}
	}
	screen = s.waitFor("nightly backups", 5*time.Second)
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "webshop deploy") && !strings.Contains(l, " webshop ") {
			t.Fatalf("no project column: %q", l)
		}
	}

	// Enter in the search box opens the selected result.
	s.keys("/")
	s.text("deploy VPN")
	s.waitFor(" recall", 5*time.Second)
	s.keys("Enter")
	screen = s.waitFor("Fields", 5*time.Second)
	if !strings.Contains(screen, "github.com/acme/webshop") {
		t.Fatalf("enter did not open the webshop memory:\n%s", screen)
	}

	// Pin it: the notice has its own line; the status bar keeps its end.
	s.keys("p")
	screen = s.waitFor("pinned ", 5*time.Second)
	last := lastLines(screen, 3)
	if !strings.Contains(last[0], "pinned ") || !strings.Contains(last[1], "memories") ||
		!strings.Contains(last[1], " db ") || !strings.HasSuffix(strings.TrimSpace(last[1]), "ms") {
		t.Fatalf("the notice is not on its own line above an intact status bar:\n%s", strings.Join(last, "\n"))
	}
	s.keys("Escape")

	// History by a click on its tab; a bare word filters as you type.
	screen = s.capture()
	x := strings.Index(screen, "2 History")
	if x < 0 {
		t.Fatalf("no History tab:\n%s", screen)
	}
	s.click(len([]rune(screen[:x])), 0)
	s.waitFor("events, newest first", 5*time.Second)
	s.keys("/")
	s.text("backups")
	screen = s.waitFor(`1 events, newest first · text="backups"`, 5*time.Second)
	if !strings.Contains(screen, "remember · atlas keeps") {
		t.Fatalf("the text filter does not show the event:\n%s", screen)
	}
	s.keys("Escape", "q")
}

// TestTUIEntitiesAndConnectorsAt80x24 opens a memory's entity and syncs a
// connector on a real 80×24 terminal: the memory's detail lists its
// entities, E and enter open one (the memories that mention it), enter
// opens one of them, esc walks back; the Jobs pane's connectors view (c)
// shows the folder of connectors.roots and s syncs it, saying what it
// added.
func TestTUIEntitiesAndConnectorsAt80x24(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	notes := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "oncall.md"), []byte("The on-call rota hands over every Monday at 09:00."), 0o644); err != nil {
		t.Fatal(err)
	}
	// A long poll: the sync the test asks for is the only one after the first.
	cfg := fmt.Sprintf("[connectors]\nroots = [%q]\npoll_interval = \"24h\"\n", notes)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-graph-%d", os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q TERM=xterm-256color %q --addr %s", home, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("recent memories", 20*time.Second)

	// Two memories name Terraform; the newer one heads the list.
	for _, c := range []string{"Terraform state lives in the ops bucket", "We provision the staging cluster with Terraform"} {
		if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": c}); code != 200 {
			t.Fatalf("remember: %d %v", code, body)
		}
	}
	s.waitFor("We provision the staging", 5*time.Second)
	// The folder's note is ingested meanwhile: find the memory by search.
	s.keys("/")
	s.text("provision staging cluster")
	s.waitFor(" recall", 5*time.Second)
	s.keys("Enter")
	screen := s.waitFor("Entities (", 5*time.Second)
	if !strings.Contains(screen, "Terraform") {
		t.Fatalf("the memory's entities do not name Terraform:\n%s", screen)
	}
	// Pick Terraform (the most mentioned comes first) and open it.
	s.keys("E", "Enter")
	screen = s.waitFor("entity · Terraform", 5*time.Second)
	for _, want := range []string{"named by 2 memories", "Memories that mention it (2)", "Terraform state lives", "We provision the staging"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the entity view lacks %q:\n%s", want, screen)
		}
	}
	for _, l := range strings.Split(screen, "\n") {
		if len([]rune(l)) > 80 {
			t.Fatalf("a line wider than 80 columns: %q", l)
		}
	}
	// The second memory row (the older one) opens in the detail view.
	s.keys("j", "Enter")
	screen = s.waitFor("Terraform state lives in the ops bucket", 5*time.Second)
	if !strings.Contains(screen, "Fields") || strings.Contains(screen, "entity · ") {
		t.Fatalf("enter on a memory does not open it:\n%s", screen)
	}
	s.keys("Escape")
	s.waitFor("entity · Terraform", 5*time.Second)
	s.keys("Escape", "Escape", "Escape")
	s.waitFor(" recall ·", 5*time.Second)

	// Jobs, then its connectors view: the folder, synced once at start.
	s.keys("3")
	s.waitFor("c connectors", 5*time.Second)
	s.keys("c")
	screen = s.waitFor("Connectors (1)", 5*time.Second)
	if !strings.Contains(screen, "notes") || !strings.Contains(screen, notes) {
		t.Fatalf("the connector is not listed:\n%s", screen)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.capture(), "idle     1") {
		if time.Now().After(deadline) {
			t.Fatalf("the first sync never showed:\n%s", s.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(notes, "backup.md"), []byte("Backups run nightly at 02:00 from cron."), 0o644); err != nil {
		t.Fatal(err)
	}
	s.keys("s")
	screen = s.waitFor("synced notes: 1 added, 0 changed, 0 removed", 10*time.Second)
	if !strings.Contains(screen, "idle     2") {
		t.Fatalf("the connector's files after the sync:\n%s", screen)
	}
	s.keys("q")
}

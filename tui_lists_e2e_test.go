//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tuiSizes are the terminal sizes the list tests run at: the smallest a
// person is expected to use, and a wide one.
var tuiSizes = [][2]int{{80, 24}, {140, 45}}

// startTUIWith imports n numbered notes into a fresh store, then runs the
// TUI on it in tmux at w×h; it returns the session and the API address.
func startTUIWith(t *testing.T, n, w, h int) (*tmuxSession, string) {
	t.Helper()
	return startTUI(t, tuiStart{notes: n, w: w, h: h})
}

// tuiStart says how startTUI runs the TUI.
type tuiStart struct {
	notes int    // numbered notes imported first ("paged note 0000 about the atlas service", …)
	w, h  int    // the terminal's size
	env   string // more NAME=VALUE words for the TUI's environment
	// serve starts `cairn serve` on the store first: the TUI attaches to
	// it as a client.
	serve bool
}

// startTUI imports o.notes numbered notes into a fresh store, then runs
// the TUI on it in tmux at o.w×o.h (the client of a `cairn serve` with
// o.serve); it returns the session and the API address.
func startTUI(t *testing.T, o tuiStart) (*tmuxSession, string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	if o.notes > 0 {
		file := filepath.Join(t.TempDir(), "notes.jsonl")
		var sb strings.Builder
		for i := range o.notes {
			fmt.Fprintf(&sb, `{"content": "paged note %04d about the atlas service", "type": "fact"}`+"\n", i)
		}
		if err := os.WriteFile(file, []byte(sb.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		imp := cairnCmd(home, "import", file)
		imp.Env = append(imp.Env, "CAIRN_EMBEDDING_PROVIDER=none")
		if out, err := imp.CombinedOutput(); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
	}
	addr := freeAddr(t)
	if o.serve {
		cmd := cairnCmd(home, "serve", "--addr", addr)
		cmd.Env = append(cmd.Env, "CAIRN_EMBEDDING_PROVIDER=none")
		srv := startServerCmd(t, cmd, addr)
		t.Cleanup(func() { srv.stop(t) })
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-%s-%d", strings.NewReplacer("/", "-").Replace(strings.ToLower(t.Name())), os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q CAIRN_EMBEDDING_PROVIDER=none %s TERM=xterm-256color %q --addr %s", home, o.env, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", fmt.Sprint(o.w), "-y", fmt.Sprint(o.h), "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("recent memories", 20*time.Second)
	if o.serve {
		s.waitFor("client of "+addr+" (", 10*time.Second)
	}
	return s, addr
}

// TestTUIPaging: with 1,200 memories, at 80×24 and at 140×45, Recall and
// History reach every row by paging (G reads the last page), say where the
// cursor is, and a memory arriving while the list is scrolled is announced
// above it.
func TestTUIPaging(t *testing.T) {
	for _, size := range tuiSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) { tuiPaging(t, size[0], size[1]) })
	}
}

func tuiPaging(t *testing.T, w, h int) {
	s, addr := startTUIWith(t, 1200, w, h)
	screen := s.waitFor("1,200 · 1 of 1,200 · recent memories", 10*time.Second)
	if !strings.Contains(screen, "paged note 1199") {
		t.Fatalf("the newest memory is not first:\n%s", screen)
	}
	s.keys("G")
	screen = s.waitFor("1,200 of 1,200", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "paged note 0000") {
		t.Fatalf("G does not reach the oldest memory: %q\n%s", sel, screen)
	}
	// Page up from the bottom: pages above are read as the cursor goes.
	for range 6 {
		s.keys("PPage")
	}
	// Six pages of the list's height up: the position and the selected
	// row agree (at 80×24, row 1,086: note 0114).
	var pos int
	s.waitUntil("the position and the selected row agree", 10*time.Second, func(screen string) bool {
		if m := positionRE.FindStringSubmatch(screen); m != nil {
			pos, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		}
		return pos > 0 && pos < 1200-6*(h-12) && strings.Contains(selectedLine(screen), fmt.Sprintf("paged note %04d", 1200-pos))
	})
	if w == 80 && pos != 1086 {
		t.Fatalf("six pages up at 80×24: row %d, want 1,086", pos)
	}
	mid := fmt.Sprintf("paged note %04d", 1200-pos)

	// A memory remembered while the list is scrolled is announced.
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "a late note about the borealis cluster"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1 new ↑ g", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, mid) {
		t.Fatalf("the selection moved when a memory arrived: %q\n%s", sel, screen)
	}
	s.keys("g")
	screen = s.waitFor("1 of 1,201", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "borealis") || strings.Contains(screen, "new ↑") {
		t.Fatalf("g does not show the new memory: %q\n%s", sel, screen)
	}

	// History: 1,201 created events, every one reachable.
	s.keys("2")
	s.waitFor("1,201 events, newest first · 1 of 1,201", 10*time.Second)
	s.keys("G")
	screen = s.waitFor("1,201 of 1,201", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "created") {
		t.Fatalf("G in History: %q\n%s", sel, screen)
	}
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "another late note"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1 new ↑ g", 10*time.Second)
	if !strings.Contains(screen, "1,202 of 1,202") {
		t.Fatalf("History's position after an event arrived above:\n%s", screen)
	}
	s.keys("q")
}

// positionRE reads a list header's "N of TOTAL".
var positionRE = regexp.MustCompile(`([\d,]+) of 1,200`)

// selectedLine is the screen's row under the cursor ("› …").
func selectedLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "›") {
			return l
		}
	}
	return ""
}

// TestTUIPalette: with 1,200 memories, at 80×24 and at 140×45, the
// command palette opens with ":" and with ctrl+p on a real terminal,
// lists as many actions as the screen has room for, finds another pane's
// action by a few letters and runs it there. Through it, History's o
// orders the 1,200 events oldest first: G reaches the newest, an event
// that arrives on the last row is followed, and one that arrives while
// the list is scrolled up is announced below it ("1 new ↓ G").
func TestTUIPalette(t *testing.T) {
	for _, size := range tuiSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) { tuiPalette(t, size[0], size[1]) })
	}
}

func tuiPalette(t *testing.T, w, h int) {
	s, addr := startTUIWith(t, 1200, w, h)
	s.waitFor("1,200 · 1 of 1,200 · recent memories", 10*time.Second)
	s.keys("2")
	s.waitFor("1,200 events, newest first · 1 of 1,200", 10*time.Second)
	s.keys(":")
	screen := s.waitFor("actions · ↑/↓ pick", 5*time.Second)
	// The palette's rows fill the body: the terminal's height less the
	// tab bar, the box, the count, the status bar and the hint line.
	m := regexp.MustCompile(`(\d+) actions · ↑/↓ pick`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no count of actions:\n%s", screen)
	}
	total, _ := strconv.Atoi(m[1])
	if rows, want := paletteRows(screen), min(total, h-5); rows != want {
		t.Fatalf("%d of %d actions listed at %d×%d, want %d:\n%s", rows, total, w, h, want, screen)
	}
	if sel := selectedLine(screen); !strings.Contains(sel, "History") {
		t.Fatalf("the active pane's actions do not come first: %q\n%s", sel, screen)
	}

	// History's sort, by its pane's name and the action.
	s.text("history sort")
	s.waitUntil("History's sort", 5*time.Second, func(screen string) bool {
		return strings.Contains(selectedLine(screen), "sort: newest/oldest first")
	})
	s.keys("Enter")
	screen = s.waitFor("1,200 events, oldest first · 1 of 1,200", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "paged note 0000") {
		t.Fatalf("oldest first, the first event is not the oldest: %q\n%s", sel, screen)
	}
	s.keys("G")
	screen = s.waitFor("1,200 of 1,200", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "paged note 1199") {
		t.Fatalf("G oldest first does not reach the newest event: %q\n%s", sel, screen)
	}
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "a late note about the borealis cluster"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1,201 of 1,201", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "a late note") || strings.Contains(screen, "new ↓") {
		t.Fatalf("the last row does not follow the new event: %q\n%s", sel, screen)
	}
	s.keys("PPage")
	screen = s.waitUntil("the page above", 5*time.Second, func(screen string) bool {
		return !strings.Contains(selectedLine(screen), "a late note")
	})
	mid := selectedLine(screen)
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "another late note"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1 new ↓ G", 10*time.Second)
	if sel := selectedLine(screen); sel != mid || !strings.Contains(screen, "of 1,202") {
		t.Fatalf("an event arriving below moved the selection (%q, was %q) or the total:\n%s", sel, mid, screen)
	}
	s.keys("G")
	screen = s.waitFor("1,202 of 1,202", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "another late note") || strings.Contains(screen, "new ↓") {
		t.Fatalf("G does not go to the event that arrived: %q\n%s", sel, screen)
	}

	// Another pane's action by a few letters.
	s.keys(":")
	s.waitFor("actions · ↑/↓ pick", 5*time.Second)
	s.text("shwdel")
	screen = s.waitUntil("the show deleted action", 5*time.Second, func(screen string) bool {
		return strings.Contains(selectedLine(screen), "show deleted")
	})
	if !strings.Contains(selectedLine(screen), "Recall") {
		t.Fatalf("the match is not Recall's: %q\n%s", selectedLine(screen), screen)
	}
	s.keys("Enter")
	s.waitFor("deleted memories (D to go back", 5*time.Second)
	s.keys("C-p")
	s.waitFor("actions · ↑/↓ pick", 5*time.Second)
	s.text("go to diag")
	s.keys("Enter")
	s.waitFor("Repairs: press a key", 10*time.Second)
	s.keys("q")
}

// paletteRows counts the actions the palette lists on screen: the rows
// after its count line, up to the status bar.
func paletteRows(screen string) int {
	lines := strings.Split(screen, "\n")
	n := 0
	for i, l := range lines {
		if !strings.Contains(l, "actions · ↑/↓ pick") {
			continue
		}
		for _, row := range lines[i+1:] {
			if !strings.HasPrefix(row, "  ") && !strings.HasPrefix(row, "› ") {
				break
			}
			n++
		}
		break
	}
	return n
}

// TestTUIOpenMemoryFollowsRecall: with 1,200 memories, at 80×24 and at
// 140×45, in a TUI that owns the store and in one attached to a running
// `cairn serve`, an open memory shows the access an agent's recall
// counted, which no event announces, without being reopened, and stays
// scrolled where it was.
func TestTUIOpenMemoryFollowsRecall(t *testing.T) {
	for _, size := range tuiSizes {
		for _, serve := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d", size[0], size[1])
			if serve {
				name += "-client"
			}
			t.Run(name, func(t *testing.T) {
				s, addr := startTUI(t, tuiStart{notes: 1200, w: size[0], h: size[1], serve: serve})
				s.waitFor("1,200 · 1 of 1,200 · recent memories", 10*time.Second)
				s.keys("Enter")
				screen := s.waitFor("accessed    never", 10*time.Second)
				row := lineIndex(screen, "type        fact")
				if size[1] < 30 {
					// At 24 rows the detail is longer than the screen:
					// scrolled two lines, it must stay so.
					s.keys("j", "j")
					row -= 2
					s.waitUntil("the detail scrolled", 5*time.Second, func(screen string) bool {
						return lineIndex(screen, "type        fact") == row
					})
				}
				var res struct {
					Results []struct {
						ID      string `json:"id"`
						Content string `json:"content"`
					} `json:"results"`
				}
				code, body := postJSON(t, "http://"+addr+"/api/memory/recall", map[string]any{"query": "1199", "limit": 1})
				raw, _ := json.Marshal(body)
				if err := json.Unmarshal(raw, &res); code != 200 || err != nil || len(res.Results) != 1 || !strings.Contains(res.Results[0].Content, "1199") {
					t.Fatalf("recall: %d %s", code, raw)
				}
				screen = s.waitFor("accessed    1 times, last", 10*time.Second)
				if got := lineIndex(screen, "type        fact"); row < 0 || got != row {
					t.Fatalf("the detail moved: its type line is on row %d, was %d:\n%s", got, row, screen)
				}
				s.keys("Escape", "q")
			})
		}
	}
}

// lineIndex is the number of the screen's first line containing want, or
// -1.
func lineIndex(screen, want string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, want) {
			return i
		}
	}
	return -1
}

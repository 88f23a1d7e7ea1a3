//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTUIProposalsListKeys drives the Proposals pane of the real binary
// on a store of 1,200 memories, at 80×24 and at 140×45: the heuristic
// provider proposes a session's facts, o sorts them, / filters them,
// space marks two that a approves after one question, ctrl+z reopens
// both, and the status bar's pending count says what the pane's header
// says at every step.
func TestTUIProposalsListKeys(t *testing.T) {
	for _, size := range tuiSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) { tuiProposalsListKeys(t, size[0], size[1]) })
	}
}

func tuiProposalsListKeys(t *testing.T, w, h int) {
	s, addr := startTUI(t, tuiStart{notes: 1200, w: w, h: h,
		env: "CAIRN_PIPELINE_V2_PROVIDER=heuristic CAIRN_PIPELINE_V2_POLL_INTERVAL=100ms CAIRN_PIPELINE_SHADOW_MODE=true"})
	s.waitFor("1,200 · 1 of 1,200 · recent memories", 10*time.Second)

	source := "We decided to use PostgreSQL for the billing service because it supports row level locking. " +
		"The team prefers Go for all new backend services going forward. " +
		"Container images are published to the internal registry every Tuesday morning."
	turn, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": source}})
	if code, body := postJSON(t, "http://"+addr+"/api/hooks/session-end", map[string]any{"harness": "claude-code",
		"session_id": "e2e-props", "cwd": "/work/e2e", "transcript": string(turn)}); code != 200 {
		t.Fatalf("session-end: %d %v", code, body)
	}
	type proposal struct {
		ID    string `json:"id"`
		Fact  string `json:"fact"`
		State string `json:"state"`
	}
	var list struct {
		Proposals []proposal `json:"proposals"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(list.Proposals) < 2 && time.Now().Before(deadline) {
		fetchJSON(t, "http://"+addr+"/api/proposals?state=pending", &list)
		time.Sleep(100 * time.Millisecond)
	}
	n := len(list.Proposals)
	if n < 2 {
		t.Fatalf("the session proposed %d facts", n)
	}

	s.keys("5")
	s.waitUntil("the pane and the status bar to count the same", 10*time.Second, func(screen string) bool {
		return strings.Contains(screen, fmt.Sprintf("%d pending proposals, newest first", n)) &&
			strings.Contains(screen, fmt.Sprintf("%d proposals pending", n))
	})

	// o: oldest first; the rows come in the order of creation.
	s.keys("o")
	// The header names the order at once; the rows follow when read.
	s.waitUntil("the facts in the order the session stated them", 5*time.Second, func(screen string) bool {
		a, b, c := lineIndex(screen, "We decided to use"), lineIndex(screen, "The team prefers"), lineIndex(screen, "Container images are")
		return strings.Contains(screen, fmt.Sprintf("%d pending proposals, oldest first", n)) && a >= 0 && a < b && b < c
	})
	// The selected proposal shows whole below the list at every size; at
	// 140 columns its row holds the whole fact too, and the hint line
	// has room for the sort key.
	s.keys("G")
	screen := s.waitUntil("the last proposal selected", 5*time.Second, func(screen string) bool {
		return strings.Contains(selectedLine(screen), "Container images")
	})
	whole := "Container images are published to the internal registry every Tuesday morning."
	if strings.Count(screen, whole) < 1 || !strings.Contains(screen, "? keys") || !strings.Contains(screen, "q quit") {
		t.Fatalf("at %d×%d the selected fact is not whole below the list, or the hint line lost ? keys or q quit:\n%s", w, h, screen)
	}
	if w >= 140 && (!strings.Contains(selectedLine(screen), whole) || !strings.Contains(screen, "o sort") || !strings.Contains(screen, "1200 memories")) {
		t.Fatalf("at %d×%d the row does not hold the whole fact, or the hints or the status bar are cut:\n%s", w, h, screen)
	}

	// /: a word of one fact keeps that one.
	s.keys("/")
	s.text("Tuesday")
	screen = s.waitFor(`matching "Tuesday"`, 5*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "Container images") || !strings.Contains(screen, "1 pending proposals (of") {
		t.Fatalf("the filter selects %q:\n%s", sel, screen)
	}
	// Two escapes, the second once the first has closed the box: sent
	// together, a terminal may read them as one alt+escape.
	s.keys("Escape")
	s.waitUntil("the filter box to close", 5*time.Second, func(screen string) bool {
		return !strings.Contains(screen, "esc/↓ back to the list")
	})
	s.keys("Escape")
	s.waitUntil("the filter to clear", 5*time.Second, func(screen string) bool {
		return !strings.Contains(screen, "matching") && strings.Contains(screen, fmt.Sprintf("%d pending proposals, oldest first", n))
	})

	// space, space, a, y: the first two approved after one question.
	s.keys("g", "Space", "Space")
	s.waitFor("2 marked (a approves", 5*time.Second)
	s.keys("a")
	s.waitFor("Approve the 2 marked proposals (", 5*time.Second)
	s.keys("y")
	s.waitFor("approved 2 proposals · ctrl+z undoes", 10*time.Second)
	s.waitUntil("the status bar to follow the approval", 10*time.Second, func(screen string) bool {
		return strings.Contains(screen, fmt.Sprintf("%d pending proposals", n-2)) && (n == 2 || strings.Contains(screen, fmt.Sprintf("%d proposals pending", n-2)))
	})
	fetchJSON(t, "http://"+addr+"/api/proposals?state=pending", &list)
	if len(list.Proposals) != n-2 {
		t.Fatalf("after the bulk approve %d are pending, want %d", len(list.Proposals), n-2)
	}

	// ctrl+z: both reopened.
	s.keys("C-z")
	s.waitFor("reopened 2 proposals", 10*time.Second)
	s.waitFor(fmt.Sprintf("%d proposals pending", n), 10*time.Second)
	fetchJSON(t, "http://"+addr+"/api/proposals?state=pending", &list)
	if len(list.Proposals) != n {
		t.Fatalf("after the undo %d are pending, want %d", len(list.Proposals), n)
	}
	s.keys("q")
}

// TestTUISearchKeepsProjectsAt40And140 searches memories of six projects
// that say nearly the same thing on a 40-column terminal, then at 140:
// every result names its project, and the memory's text keeps about half
// of a narrow line.
func TestTUISearchKeepsProjectsAt40And140(t *testing.T) {
	s, addr := startTUIWith(t, 0, 40, 24)
	projects := []string{"gateway", "billing", "search", "ledger", "mailer", "auth"}
	for _, p := range projects {
		if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{
			"content": "Deploys of " + p + " go through a manual approval in the release channel", "project": "github.com/acme/" + p,
		}); code != 200 {
			t.Fatalf("remember: %d %v", code, body)
		}
	}
	// ok: six results, each naming its project and keeping minText
	// cells of its text.
	ok := func(minText int) func(string) bool {
		return func(screen string) bool {
			rows := 0
			for _, line := range strings.Split(screen, "\n") {
				i := strings.Index(line, "Deploys of")
				if i < 0 {
					continue
				}
				named := false
				for _, p := range projects {
					named = named || strings.Contains(line[:i], " "+p+" ")
				}
				if !named || len([]rune(strings.TrimRight(line[i:], " "))) < minText {
					return false
				}
				rows++
			}
			return rows == len(projects)
		}
	}
	s.keys("/")
	s.text("deploys approval")
	s.waitFor("recall", 10*time.Second)
	s.waitUntil("six results, each with its project and 18 cells of text at 40 columns", 10*time.Second, ok(18))
	s.tmux("resize-window", "-t", s.name, "-x", "140", "-y", "45")
	s.waitUntil("six results, each with its project and 60 cells of text at 140 columns", 10*time.Second, ok(60))
	s.keys("Escape", "q")
}

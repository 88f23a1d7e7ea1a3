package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/text"
)

// The built-in corpus is valid and has what the issue asks of it: 20+
// sessions over 2+ projects, 150+ answerable and 20+ never-discussed
// questions, a noise corpus, and about a third held out.
func TestDefaultSessionCorpus(t *testing.T) {
	c, err := DefaultSessionCorpus()
	if err != nil {
		t.Fatal(err)
	}
	answerable, never, held := 0, 0, 0
	for _, q := range c.Questions {
		if q.NeverDiscussed() {
			never++
		} else {
			answerable++
		}
	}
	for _, s := range c.Sessions {
		if s.Split == SplitHeldOut {
			held++
		}
	}
	if len(c.Projects) < 2 || len(c.Sessions) < 20 || answerable < 150 || never < 20 || len(c.Noise) < 100 {
		t.Errorf("%d projects, %d sessions, %d answerable and %d never-discussed questions, %d noise statements",
			len(c.Projects), len(c.Sessions), answerable, never, len(c.Noise))
	}
	if share := float64(held) / float64(len(c.Sessions)); share < 0.25 || share > 0.45 {
		t.Errorf("%d of %d sessions held out", held, len(c.Sessions))
	}
	dev, err := c.OnlySplit(SplitDev)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range dev.Questions {
		for _, a := range q.Answers {
			if dev.Session(a) == nil {
				t.Errorf("dev question %s is answered by held-out session %s", q.ID, a)
			}
		}
	}
	if _, err := c.OnlySplit("train"); err == nil || !strings.Contains(err.Error(), `"train"`) {
		t.Errorf("unknown split: %v", err)
	}
}

// A corpus with a mistake is refused with an error naming the field.
func TestSessionCorpusErrorsNameTheField(t *testing.T) {
	valid := func() map[string]any {
		return map[string]any{
			"name":     "t",
			"projects": []any{map[string]any{"name": "api", "subdir": "internal/x"}},
			"sessions": []any{map[string]any{"id": "s1", "project": "api", "split": "dev", "turns": []any{
				map[string]any{"user": "We use pnpm.", "assistant": []any{map[string]any{"text": "Noted."}, map[string]any{"tool": "Bash", "input": "ls", "output": "a"}}}}}},
			"questions": []any{map[string]any{"id": "q1", "project": "api", "split": "dev", "answers": []any{"s1"}, "prompt": "Which package manager?"}},
			"noise":     []any{map[string]any{"session": "s1", "text": "Noted."}},
		}
	}
	b, _ := json.Marshal(valid())
	if _, err := ParseSessionCorpus(b); err != nil {
		t.Fatalf("valid corpus refused: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(m map[string]any)
		field string
	}{
		{"no projects", func(m map[string]any) { m["projects"] = []any{} }, "projects"},
		{"project path escapes", func(m map[string]any) { proj(m)["subdir"] = "../etc" }, "projects[0].subdir"},
		{"unknown project", func(m map[string]any) { sess(m)["project"] = "web" }, "sessions[0].project"},
		{"bad split", func(m map[string]any) { sess(m)["split"] = "test" }, "sessions[0].split"},
		{"no turns", func(m map[string]any) { sess(m)["turns"] = []any{} }, "sessions[0].turns"},
		{"empty prompt", func(m map[string]any) { turn(m)["user"] = " " }, "sessions[0].turns[0].user"},
		{"unknown tool", func(m map[string]any) { block(m, 1)["tool"] = "Browser" }, "sessions[0].turns[0].assistant[1].tool"},
		{"empty block", func(m map[string]any) { block(m, 0)["text"] = "" }, "sessions[0].turns[0].assistant[0]"},
		{"unknown answer", func(m map[string]any) { question(m)["answers"] = []any{"s9"} }, "questions[0].answers"},
		{"held answer, dev question", func(m map[string]any) { sess(m)["split"] = "held-out" }, "questions[0].split"},
		{"noise not said", func(m map[string]any) {
			m["noise"] = []any{map[string]any{"session": "s1", "text": "Let me look."}}
		}, "noise[0].text"},
		{"not JSON", nil, "not a session corpus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := valid()
			b := []byte("{")
			if tc.edit != nil {
				tc.edit(m)
				b, _ = json.Marshal(m)
			}
			_, err := ParseSessionCorpus(b)
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
}

func proj(m map[string]any) map[string]any { return m["projects"].([]any)[0].(map[string]any) }
func sess(m map[string]any) map[string]any { return m["sessions"].([]any)[0].(map[string]any) }
func turn(m map[string]any) map[string]any { return sess(m)["turns"].([]any)[0].(map[string]any) }
func block(m map[string]any, i int) map[string]any {
	return turn(m)["assistant"].([]any)[i].(map[string]any)
}
func question(m map[string]any) map[string]any { return m["questions"].([]any)[0].(map[string]any) }

// Slice keeps the first sessions of each project and only the questions
// they answer.
func TestSessionCorpusSlice(t *testing.T) {
	c, err := DefaultSessionCorpus()
	if err != nil {
		t.Fatal(err)
	}
	s := c.Slice(1)
	if len(s.Sessions) != len(c.Projects) {
		t.Fatalf("%d sessions", len(s.Sessions))
	}
	never := map[string]int{}
	for _, q := range s.Questions {
		if q.NeverDiscussed() {
			never[q.Project]++
		}
		for _, a := range q.Answers {
			if s.Session(a) == nil {
				t.Errorf("question %s needs session %s, which the slice left out", q.ID, a)
			}
		}
	}
	for p, n := range never {
		if n != 1 {
			t.Errorf("%d never-discussed questions of %s", n, p)
		}
	}
	for _, n := range s.Noise {
		if s.Session(n.Session) == nil {
			t.Errorf("noise of session %s kept", n.Session)
		}
	}
	if c.Slice(0) != c {
		t.Error("Slice(0) is not the whole corpus")
	}
}

func TestMatchesChatter(t *testing.T) {
	for _, tc := range []struct {
		memory, noise string
		want          bool
	}{
		{"Write a haiku about autumn leaves.", "Write a haiku about autumn leaves.", true},
		{"Lol nice Also write tests for the invoice queries.", "Also write tests for the invoice queries.", true},
		{"Let me look", "Sounds good, let me look at the repository layout first.", true},
		{"We decided to use sqlc instead of gorm.", "Got it.", false},
		{"The staging database is reset every Sunday, ok", "ok", false}, // too short to be evidence
		{"make check is green", "make check is greenish", false},        // words, not characters
		{"", "anything at all here", false},
	} {
		if got := MatchesChatter(tc.memory, tc.noise); got != tc.want {
			t.Errorf("MatchesChatter(%q, %q) = %v", tc.memory, tc.noise, got)
		}
	}
}

// The transcript is Claude Code's JSONL: user prompts as strings, the
// agent's blocks one a line with tool calls answered by tool_result
// entries; cairn's reader keeps the conversation and leaves tool output
// out.
func TestClaudeTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(ClaudeProjectDir(dir, "/home/dev/ledger-api"), "s.jsonl")
	if !strings.HasSuffix(filepath.Dir(path), "-home-dev-ledger-api") {
		t.Errorf("project dir %s", filepath.Dir(path))
	}
	tr, err := NewClaudeTranscript(path, "s", "/home/dev/ledger-api", time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.User("Run the tests."); err != nil {
		t.Fatal(err)
	}
	err = tr.Assistant([]AssistantBlock{{Text: "Let me run them."}, {Tool: "Bash", Input: "go test ./...", Output: "ok  \tpkg\t0.1s"},
		{Tool: "Read", Input: "go.mod", Output: "module x"}, {Text: "All packages pass."}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 7 { // user, text, tool_use, tool_result, tool_use, tool_result, text
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	var parent string
	for i, l := range lines {
		var e struct {
			Type       string `json:"type"`
			UUID       string `json:"uuid"`
			ParentUUID any    `json:"parentUuid"`
			SessionID  string `json:"sessionId"`
			Message    struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if e.SessionID != "s" || e.UUID == "" || (i == 0) != (e.ParentUUID == nil) || i > 0 && e.ParentUUID != parent {
			t.Errorf("line %d: %s", i+1, l)
		}
		parent = e.UUID
	}
	if !strings.Contains(lines[2], `"type":"tool_use"`) || !strings.Contains(lines[3], `"type":"tool_result"`) || !strings.Contains(lines[3], `"toolUseResult"`) {
		t.Errorf("tool call and result:\n%s\n%s", lines[2], lines[3])
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := text.NormalizeTranscript(f, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if want := "User: Run the tests.\nAssistant: Let me run them.\nAssistant: All packages pass."; n.Format != "claude-code" || n.Text != want {
		t.Errorf("read as %s: %q, want %q", n.Format, n.Text, want)
	}
}

func TestPathWithoutClaude(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{with, without} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(with, "claude"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := pathWithoutClaude(with + string(filepath.ListSeparator) + without); got != without {
		t.Errorf("PATH %q, want %q", got, without)
	}
}

func TestDeterministicUUID(t *testing.T) {
	a, b := DeterministicUUID("x", "1"), DeterministicUUID("x", "1")
	if a != b || a == DeterministicUUID("x", "2") || len(a) != 36 || a[14] != '4' {
		t.Errorf("%s %s", a, b)
	}
}

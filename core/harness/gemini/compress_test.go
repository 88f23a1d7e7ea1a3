package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatFile writes a Gemini CLI chat file whose last model message has
// the given input tokens (the shape of 0.61.0's: a header, messages, the
// model message written again with its tokens, a $set line).
func chatFile(t *testing.T, dir string, tokens int, model string) string {
	t.Helper()
	p := filepath.Join(dir, "session-2026-11-28T05-00-4f1c0000.jsonl")
	lines := []string{
		`{"sessionId":"4f1c","projectHash":"ab","startTime":"2026-11-28T05:00:00.000Z","lastUpdated":"2026-11-28T05:00:01.000Z","kind":"main"}`,
		`{"id":"m1","timestamp":"2026-11-28T05:00:00.100Z","type":"user","content":[{"text":"hi"}]}`,
		`{"id":"m2","timestamp":"2026-11-28T05:00:00.900Z","type":"gemini","content":"earlier","tokens":{"input":999999999},"model":"gemini-3.8-flash"}`,
		`{"id":"m3","timestamp":"2026-11-28T05:00:00.900Z","type":"gemini","content":"hello","model":"` + model + `"}`,
		fmt.Sprintf(`{"id":"m3","timestamp":"2026-11-28T05:00:00.900Z","type":"gemini","content":"hello","tokens":{"input":%d,"output":3,"total":%d},"model":"%s"}`, tokens, tokens+3, model),
		`{"$set":{"lastUpdated":"2026-11-28T05:00:01.000Z"}}`,
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// PreCompress(auto) is a compaction only when the last prompt reached the
// threshold Gemini CLI compresses at; manual always is; anything else,
// or a chat file that cannot tell, is not.
func TestCompressing(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write := func(dir, body string) {
		os.MkdirAll(filepath.Join(dir, ".gemini"), 0o700)
		if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := func(trigger, path string) map[string]any {
		return map[string]any{"session_id": "g1", "cwd": cwd, "trigger": trigger, "transcript_path": path}
	}
	dir := t.TempDir()
	cases := []struct {
		name          string
		user, ws      string
		tokens        int
		model         string
		trigger, path string
		want          bool
	}{
		{name: "manual", trigger: "manual", want: true},
		{name: "no trigger", trigger: "", tokens: 900000, want: false},
		{name: "auto, no chat file", trigger: "auto", path: filepath.Join(dir, "missing.jsonl"), want: false},
		{name: "auto, relative path", trigger: "auto", path: "chat.jsonl", want: false},
		{name: "auto, below half of 1,048,576", trigger: "auto", tokens: 524287, model: "gemini-3.8-flash", want: false},
		{name: "auto, at half of 1,048,576", trigger: "auto", tokens: 524288, model: "gemini-3.8-flash", want: true},
		{name: "auto, Gemma 4 limit", trigger: "auto", tokens: 128000, model: "gemma-4-31b-it", want: true},
		{name: "auto, user threshold", user: `{"model": {"compressionThreshold": 0.2}}`, trigger: "auto", tokens: 300000, model: "gemini-3.8-flash", want: true},
		{name: "auto, workspace wins", user: `{"model": {"compressionThreshold": 0.2}}`, ws: `{"model": {"compressionThreshold": 0.9}}`, trigger: "auto", tokens: 600000, model: "gemini-3.8-flash", want: false},
		{name: "auto, threshold 0 is unset", user: `{"model": {"compressionThreshold": 0}}`, trigger: "auto", tokens: 600000, model: "gemini-3.8-flash", want: true},
		{name: "auto, settings with comments", user: "// mine\n{\"model\": {\"compressionThreshold\": 0.1}}", trigger: "auto", tokens: 200000, model: "gemini-3.8-flash", want: false},
	}
	for _, c := range cases {
		os.RemoveAll(filepath.Join(home, ".gemini"))
		os.RemoveAll(filepath.Join(cwd, ".gemini"))
		if c.user != "" {
			write(home, c.user)
		}
		if c.ws != "" {
			write(cwd, c.ws)
		}
		path := c.path
		if path == "" && c.tokens > 0 {
			path = chatFile(t, dir, c.tokens, c.model)
		}
		if got := compressing(in(c.trigger, path), home); got != c.want {
			t.Errorf("%s: compressing = %v, want %v", c.name, got, c.want)
		}
	}
}

// Only the end of a long chat file is read, and a first line cut in the
// middle is not taken for a message.
func TestLastPromptTokensReadsTheEnd(t *testing.T) {
	dir := t.TempDir()
	p := chatFile(t, dir, 700000, "gemini-3.8-flash")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	pad := `{"id":"u","type":"user","content":"` + strings.Repeat("x", 1000) + `"}` + "\n"
	for range (chatTail / len(pad)) + 10 {
		f.WriteString(pad)
	}
	f.Close()
	if n, _ := lastPromptTokens(p); n != 0 {
		t.Errorf("tokens %d from beyond the tail that is read", n)
	}
	os.WriteFile(p, []byte(`{"id":"m","type":"gemini","tokens":{"input":42},"model":"m"}`+"\n"+pad), 0o600)
	if n, m := lastPromptTokens(p); n != 42 || m != "m" {
		t.Errorf("tokens %d, model %q; want 42, m", n, m)
	}
}

// Any chat file, however broken, is read without a panic into a count
// that is 0 or one of its messages' input tokens (seeds in
// testdata/fuzz/FuzzLastPromptTokens).
func FuzzLastPromptTokens(f *testing.F) {
	f.Add(`{"id":"m","type":"gemini","tokens":{"input":42},"model":"m"}` + "\n")
	f.Add(`{"id":"m","type":"gemini","tokens":{"input":-5}}`)
	f.Add("\x00\n{\"tokens\":")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(dir, "chat.jsonl")
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		n, _ := lastPromptTokens(p)
		if n < 0 || (n > 0 && !strings.Contains(data, fmt.Sprint(n))) {
			t.Fatalf("tokens %d from %q", n, data)
		}
	})
}

package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// Transcripts of each harness as its file holds them (shapes read from
// the real clients' files: Claude Code, Codex, Gemini CLI; Cursor's from
// its documents).
var harnessTranscripts = map[string]struct {
	in, format, want string
}{
	"gemini": {
		in: `{"sessionId":"4f1c","projectHash":"ab12","startTime":"2026-11-28T05:00:00.000Z","lastUpdated":"2026-11-28T05:00:01.000Z","kind":"main"}
{"id":"m1","timestamp":"2026-11-28T05:00:00.100Z","type":"user","content":[{"text":"<hook_context>[cairn:context project=/p]\nold memories\n[/cairn:context]</hook_context>\n\nWhere does the deploy script live?"}]}
{"$set":{"lastUpdated":"2026-11-28T05:00:00.200Z"}}
{"id":"m2","timestamp":"2026-11-28T05:00:00.900Z","type":"gemini","content":[{"text":"thinking about it","thought":true},{"text":"In scripts/ship.sh."}],"toolCalls":[{"name":"mcp_cairn_memory_search","args":{"query":"deploy"}}],"tokens":{"input":10},"model":"gemini-3.8-flash"}
{"id":"m3","timestamp":"2026-11-28T05:00:01.000Z","type":"user","content":[{"functionResponse":{"name":"x","response":{"output":"y"}}}]}
{"id":"m4","timestamp":"2026-11-28T05:00:01.000Z","type":"info","content":"Request cancelled."}
{"id":"m5","timestamp":"2026-11-28T05:00:01.000Z","type":"gemini","content":"Done."}
`,
		format: "gemini",
		want:   "User: Where does the deploy script live?\nAssistant: In scripts/ship.sh.\nAssistant: Done.",
	},
	// cairn's context cut short by the answer's cap: no closing marker
	// inside the wrapper, and the user's words after it are kept.
	"gemini, context cut short": {
		in:     `{"id":"m1","timestamp":"2026-11-28T05:00:00.100Z","type":"user","content":[{"text":"<hook_context>[cairn:context project=/p]\nold memories\n[truncated]</hook_context>\n\nWhere does the deploy script live?"}]}` + "\n",
		format: "gemini",
		want:   "User: Where does the deploy script live?",
	},
	"cursor": {
		in: `{"role":"user","message":{"content":[{"type":"text","text":"Where does the deploy script live?"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"In scripts/ship.sh."},{"type":"tool_use","name":"Read"}]}}
`,
		format: "jsonl",
		want:   "User: Where does the deploy script live?\nAssistant: In scripts/ship.sh.",
	},
	"opencode plugin": {
		in:     `{"role":"user","content":"Where does the deploy script live?"}` + "\n" + `{"role":"assistant","content":"In scripts/ship.sh."}` + "\n",
		format: "jsonl",
		want:   "User: Where does the deploy script live?\nAssistant: In scripts/ship.sh.",
	},
}

func TestNormalizeHarnessTranscripts(t *testing.T) {
	for name, c := range harnessTranscripts {
		tr, err := text.NormalizeTranscript(strings.NewReader(c.in), 100000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tr.Format != c.format || tr.Text != c.want {
			t.Errorf("%s: format %q, text\n%s\nwant %q\n%s", name, tr.Format, tr.Text, c.format, c.want)
		}
	}
}

// Any input normalizes without error into valid text within the cap, and
// what cairn injected never comes back.
func FuzzNormalizeTranscript(f *testing.F) {
	for _, c := range harnessTranscripts {
		f.Add(c.in)
	}
	f.Add(`{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" + `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"[cairn:recall]x[/cairn:recall]ok"}]}}`)
	f.Add(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`)
	f.Add(`{"type":"gemini","content":{"text":"one part"}}`)
	f.Add(`{"type":"user","content":[{"text":"a"},{"text":null}]}`)
	f.Add("plain text\n<hook_context>x</hook_context>")
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := text.NormalizeTranscript(strings.NewReader(in), 2000)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Text) > 2000+100 {
			t.Fatalf("%d bytes over the cap", len(tr.Text))
		}
		if utf8.ValidString(in) && !utf8.ValidString(tr.Text) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", tr.Text)
		}
		if tr.Format != "text" && strings.Contains(tr.Text, "[/cairn:recall]") {
			t.Fatalf("an injected block came back: %q", tr.Text)
		}
	})
}

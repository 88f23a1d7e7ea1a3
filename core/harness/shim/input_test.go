package shim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/claudecode"
	"github.com/cairnmem/cairn/core/harness/codex"
	"github.com/cairnmem/cairn/core/harness/cursor"
	"github.com/cairnmem/cairn/core/harness/gemini"
	"github.com/cairnmem/cairn/core/harness/opencode"
	"github.com/cairnmem/cairn/core/harness/shim"
)

// What each harness sends its hooks, as the real clients sent it
// (docs/agents.md; Cursor: its documents), one payload per cairn event.
var recorded = map[string]map[string]string{
	"claude-code": {
		"session-start":      `{"session_id":"c1","transcript_path":"/h/.claude/projects/-p/c1.jsonl","cwd":"/p/sub","hook_event_name":"SessionStart","source":"startup"}`,
		"user-prompt-submit": `{"session_id":"c1","transcript_path":"/t","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt_id":"x","permission_mode":"default","prompt":"Where is the deploy script?"}`,
		"post-compact":       `{"session_id":"c1","cwd":"/p","hook_event_name":"PostCompact","trigger":"manual","compact_summary":"we moved the db"}`,
	},
	"codex": {
		"session-start":      `{"session_id":"019a","transcript_path":"/h/.codex/sessions/2026/11/28/rollout-x.jsonl","cwd":"/p","hook_event_name":"SessionStart","model":"gpt","permission_mode":"bypassPermissions","source":"startup"}`,
		"user-prompt-submit": `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/p","hook_event_name":"UserPromptSubmit","model":"gpt","permission_mode":"bypassPermissions","prompt":"Where is the deploy script?"}`,
		"pre-compact":        `{"session_id":"019a","turn_id":"t2","cwd":"/p","hook_event_name":"PreCompact","model":"gpt","trigger":"auto"}`,
		"session-end":        `{"session_id":"019a","transcript_path":"/h/.codex/sessions/r.jsonl","cwd":"/p","hook_event_name":"SessionEnd","reason":"other"}`,
	},
	"gemini": {
		"session-start":      `{"session_id":"g1","transcript_path":"/h/.gemini/tmp/p/chats/session-1.jsonl","cwd":"/p","hook_event_name":"SessionStart","timestamp":"2026-11-28T05:00:00.000Z","source":"startup"}`,
		"user-prompt-submit": `{"session_id":"g1","cwd":"/p","hook_event_name":"BeforeAgent","timestamp":"2026-11-28T05:00:00.000Z","prompt":"<hook_context>[cairn:context project=/p]\natlas hook context words\n[/cairn:context]</hook_context>\n\nWhere is the deploy script?"}`,
		"pre-compact":        `{"session_id":"g1","cwd":"/p","hook_event_name":"PreCompress","timestamp":"2026-11-28T05:00:00.000Z","trigger":"manual"}`,
		"session-end":        `{"session_id":"g1","transcript_path":"/h/.gemini/tmp/p/chats/session-1.jsonl","cwd":"/p","hook_event_name":"SessionEnd","timestamp":"2026-11-28T05:00:00.000Z","reason":"exit"}`,
	},
	"opencode": {
		"session-start":      `{"session_id":"ses_1","cwd":"/p","source":"startup"}`,
		"user-prompt-submit": `{"session_id":"ses_1","cwd":"/p","prompt":"Where is the deploy script?"}`,
		"session-end":        `{"session_id":"ses_1","cwd":"/p","reason":"idle","transcript":"{\"role\":\"user\",\"content\":\"hi\"}"}`,
	},
	"cursor": {
		"session-start":      `{"hook_event_name":"sessionStart","conversation_id":"conv-1","generation_id":"gen-1","workspace_roots":["/p"],"model":"auto","cursor_version":"1.7","user_email":"u@example.com"}`,
		"user-prompt-submit": `{"hook_event_name":"beforeSubmitPrompt","conversation_id":"conv-1","generation_id":"gen-2","workspace_roots":["/p"],"prompt":"Where is the deploy script?","attachments":[{"type":"file","file_path":"/p/a.go"}]}`,
		"pre-compact":        `{"hook_event_name":"preCompact","conversation_id":"conv-1","workspace_roots":["/p"],"trigger":"auto"}`,
		"session-end":        `{"hook_event_name":"sessionEnd","conversation_id":"conv-1","session_id":"conv-1","workspace_roots":["/p"],"transcript_path":"/h/.cursor/t.jsonl","reason":"completed"}`,
	},
}

var all = map[string]harness.Harness{
	"claude-code": claudecode.Harness, "codex": codex.Harness, "gemini": gemini.Harness,
	"opencode": opencode.Harness, "cursor": cursor.Harness,
}

// Each harness's recorded input decodes to the session, working folder
// and prompt cairn needs, with what the harness adds around the prompt
// taken out; Gemini CLI's PreCompress before each model call (auto) is
// skipped.
func TestRecordedInputs(t *testing.T) {
	for name, events := range recorded {
		h := all[name]
		for event, data := range events {
			req, skip, err := shim.DecodeInput(h, event, []byte(data))
			if err != nil || skip {
				t.Errorf("%s %s: skip %v, %v", name, event, skip, err)
				continue
			}
			if req.Harness != h.Name || req.SessionKey == "" || !strings.HasPrefix(req.Project, "/p") {
				t.Errorf("%s %s: %+v", name, event, req)
			}
			if event == "user-prompt-submit" && req.Prompt != "Where is the deploy script?" {
				t.Errorf("%s %s: prompt %q", name, event, req.Prompt)
			}
		}
	}
	if _, skip, _ := shim.DecodeInput(gemini.Harness, "pre-compact", []byte(`{"session_id":"g1","trigger":"auto"}`)); !skip {
		t.Error("Gemini CLI's PreCompress(auto) was taken for a compaction")
	}
	req, _, _ := shim.DecodeInput(cursor.Harness, "session-start", []byte(`{"conversation_id":"c","cwd":"/q"}`))
	if req.SessionKey != "c" || req.Project != "/q" {
		t.Errorf("cursor with cwd: %+v", req)
	}
}

// Each harness's answer is in the format it reads back: Claude Code's
// hookSpecificOutput for Claude Code, Codex, Gemini CLI and cairn's
// OpenCode plugin; Cursor's additional_context.
func TestAnswers(t *testing.T) {
	for name, h := range all {
		for event, ev := range h.Events {
			if ev.Path == "" || ev.Timeout <= 0 {
				t.Errorf("%s %s: %+v", name, event, ev)
			}
			if ev.Name == "" {
				continue
			}
			var b bytes.Buffer
			if err := h.Print(&b, ev, "<m> & more"); err != nil {
				t.Fatal(err)
			}
			var out struct {
				H *struct {
					Event   string `json:"hookEventName"`
					Context string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
				Context  *string `json:"additional_context"`
				Continue *bool   `json:"continue"`
			}
			if err := json.Unmarshal(b.Bytes(), &out); err != nil || strings.Count(b.String(), "\n") != 1 {
				t.Fatalf("%s %s: %q %v", name, event, b.String(), err)
			}
			switch {
			case name == "cursor":
				if out.Context == nil || *out.Context != "<m> & more" || (ev.Name == "beforeSubmitPrompt") != (out.Continue != nil && *out.Continue) {
					t.Errorf("%s %s: %s", name, event, b.String())
				}
			case out.H == nil || out.H.Event != ev.Name || out.H.Context != "<m> & more":
				t.Errorf("%s %s: %s", name, event, b.String())
			}
		}
	}
	if got := harness.Cut(strings.Repeat("é", 20), 15); len([]rune(got)) != 15 || !strings.HasSuffix(got, "\n[truncated]") {
		t.Errorf("cut: %q", got)
	}
}

// Whatever a harness sends, the shim's reading of it does not fail but
// with an error naming the field at fault.
func FuzzHookInput(f *testing.F) {
	for _, events := range recorded {
		for _, data := range events {
			f.Add(data)
		}
	}
	f.Add(`{"session_id":3}`)
	f.Add(`{"workspace_roots":[null,"x"],"conversation_id":{}}`)
	f.Add(`{"prompt":"<hook_context>unclosed","trigger":5}`)
	f.Add(`{"tags":{"a":1},"limit":"x"}`)
	f.Add("plain text")
	f.Fuzz(func(t *testing.T, data string) {
		for name, h := range all {
			for event := range h.Events {
				_, _, err := shim.DecodeInput(h, event, []byte(data))
				if err == nil {
					continue
				}
				var ce *core.Error
				if !errors.As(err, &ce) || ce.Extra["field"] == nil {
					t.Fatalf("%s %s: %q: an error naming no field: %v", name, event, data, err)
				}
			}
		}
	})
}

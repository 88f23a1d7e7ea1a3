package bench

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ClaudeTranscript writes a session's transcript as Claude Code does: one
// JSON object a line, appended as the session goes. A user prompt is a
// "user" entry whose message content is the prompt; the agent's reply is
// "assistant" entries whose content is blocks (text, tool_use), one block a
// line, one message id per model response; each tool's answer is a "user"
// entry holding a tool_result block (and Claude Code's toolUseResult).
type ClaudeTranscript struct {
	Path      string
	sessionID string
	cwd       string
	clock     time.Time
	parent    string
	seq       int
}

// claudeCodeVersion is the version the entries claim, as Claude Code
// records its own.
const claudeCodeVersion = "2.0.14"

// claudeModel is the model the assistant entries name.
const claudeModel = "claude-sonnet-4-5-20250929"

// NewClaudeTranscript creates (truncates) the transcript file at path for
// the session with sessionID running in cwd; entries are stamped from
// start on, a few seconds apart.
func NewClaudeTranscript(path, sessionID, cwd string, start time.Time) (*ClaudeTranscript, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, err
	}
	return &ClaudeTranscript{Path: path, sessionID: sessionID, cwd: cwd, clock: start.UTC()}, nil
}

// ClaudeProjectDir is where Claude Code keeps the transcripts of sessions
// run in cwd, under its home folder: every '/' and '.' of cwd becomes '-'.
func ClaudeProjectDir(claudeHome, cwd string) string {
	name := strings.NewReplacer("/", "-", ".", "-").Replace(cwd)
	return filepath.Join(claudeHome, "projects", name)
}

// DeterministicUUID is a version-4-shaped UUID derived from parts, so
// that two runs of a benchmark name their sessions and entries alike.
func DeterministicUUID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func (t *ClaudeTranscript) next(kind string) (uuid, stamp string) {
	t.seq++
	t.clock = t.clock.Add(3 * time.Second)
	return DeterministicUUID(t.sessionID, kind, fmt.Sprint(t.seq)), t.clock.Format("2006-01-02T15:04:05.000Z")
}

func (t *ClaudeTranscript) write(entry map[string]any) error {
	f, err := os.OpenFile(t.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	return err
}

func (t *ClaudeTranscript) entry(kind, uuid, stamp string) map[string]any {
	var parent any
	if t.parent != "" {
		parent = t.parent
	}
	t.parent = uuid
	return map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": t.cwd,
		"sessionId": t.sessionID, "version": claudeCodeVersion, "gitBranch": "main", "type": kind, "uuid": uuid, "timestamp": stamp}
}

// User appends the user's prompt.
func (t *ClaudeTranscript) User(prompt string) error {
	uuid, stamp := t.next("user")
	e := t.entry("user", uuid, stamp)
	e["message"] = map[string]any{"role": "user", "content": prompt}
	return t.write(e)
}

// Assistant appends the agent's reply: its text and tool calls in order,
// each tool call followed by the tool's result.
func (t *ClaudeTranscript) Assistant(blocks []AssistantBlock) error {
	msgID := ""
	for i, b := range blocks {
		if msgID == "" {
			msgID = "msg_" + strings.ReplaceAll(DeterministicUUID(t.sessionID, "msg", fmt.Sprint(t.seq, i)), "-", "")[:24]
		}
		uuid, stamp := t.next("assistant")
		e := t.entry("assistant", uuid, stamp)
		e["requestId"] = "req_" + strings.ReplaceAll(DeterministicUUID(t.sessionID, "req", msgID), "-", "")[:24]
		var content map[string]any
		stop := any(nil)
		toolID := ""
		if b.Tool == "" {
			content = map[string]any{"type": "text", "text": b.Text}
			if i == len(blocks)-1 {
				stop = "end_turn"
			}
		} else {
			toolID = "toolu_" + strings.ReplaceAll(DeterministicUUID(t.sessionID, "tool", uuid), "-", "")[:24]
			content = map[string]any{"type": "tool_use", "id": toolID, "name": b.Tool, "input": t.toolInput(b)}
			stop = "tool_use"
		}
		e["message"] = map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": claudeModel,
			"content": []any{content}, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 12000 + 40*t.seq, "output_tokens": 20 + len(b.Text)/4}}
		if err := t.write(e); err != nil {
			return err
		}
		if toolID == "" {
			continue
		}
		// The tool's answer comes back as a user entry; the next model
		// response is a new message.
		msgID = ""
		uuid, stamp = t.next("tool_result")
		r := t.entry("user", uuid, stamp)
		r["message"] = map[string]any{"role": "user", "content": []any{map[string]any{
			"tool_use_id": toolID, "type": "tool_result", "content": b.Output, "is_error": b.IsError}}}
		r["toolUseResult"] = t.toolUseResult(b)
		if err := t.write(r); err != nil {
			return err
		}
	}
	return nil
}

func (t *ClaudeTranscript) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.cwd, p)
}

// toolInput is a tool call's input as Claude Code's tools take it.
func (t *ClaudeTranscript) toolInput(b AssistantBlock) map[string]any {
	switch b.Tool {
	case "Bash":
		return map[string]any{"command": b.Input, "description": "Run " + clip(b.Input, 40)}
	case "Read":
		return map[string]any{"file_path": t.abs(b.Input)}
	case "Edit":
		return map[string]any{"file_path": t.abs(b.Input), "old_string": "", "new_string": ""}
	case "Write":
		return map[string]any{"file_path": t.abs(b.Input), "content": ""}
	case "Grep":
		return map[string]any{"pattern": b.Input, "output_mode": "content", "-n": true}
	default: // Glob
		return map[string]any{"pattern": b.Input}
	}
}

func (t *ClaudeTranscript) toolUseResult(b AssistantBlock) any {
	switch b.Tool {
	case "Bash":
		return map[string]any{"stdout": b.Output, "stderr": "", "interrupted": false, "isImage": false}
	case "Read":
		return map[string]any{"type": "text", "file": map[string]any{"filePath": t.abs(b.Input), "content": b.Output,
			"numLines": strings.Count(b.Output, "\n") + 1, "startLine": 1, "totalLines": strings.Count(b.Output, "\n") + 1}}
	default:
		return b.Output
	}
}

//go:build integration

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every agent's hook, run by the real binary with the input that agent
// sends (Cursor's as its documents give it: no cwd, the folder in
// workspace_roots), from the same folder inside a repository, records its
// session under the same project as Claude Code's, and answers in the
// agent's format with the project's memories.
func TestEveryAgentHasClaudeCodesProject(t *testing.T) {
	r := newAgentRig(t)
	r.rememberE2E(t)
	inputs := map[string]map[string]any{
		"claude-code": {"session_id": "id-claude", "cwd": r.cwd, "hook_event_name": "SessionStart", "source": "startup"},
		"codex":       {"session_id": "id-codex", "cwd": r.cwd, "hook_event_name": "SessionStart", "model": "gpt", "source": "startup"},
		"gemini":      {"session_id": "id-gemini", "cwd": r.cwd, "hook_event_name": "SessionStart", "timestamp": "2026-11-28T05:00:00Z", "source": "startup"},
		"opencode":    {"session_id": "id-opencode", "cwd": r.cwd, "source": "startup"},
		"cursor":      {"hook_event_name": "sessionStart", "conversation_id": "id-cursor", "generation_id": "g1", "workspace_roots": []string{r.cwd}, "model": "auto"},
	}
	for agent, in := range inputs {
		out, stderr, took := runHookBin(t, r.cairnHome, nil, hookJSON(in), "--harness", agent, "session-start")
		t.Logf("%s: %v", agent, took.Round(1e6))
		var ans struct {
			H struct {
				Context string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
			Context string `json:"additional_context"`
		}
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatalf("%s: answer %q (%v); stderr %s", agent, out, err, stderr)
		}
		ctx := ans.H.Context
		if agent == "cursor" {
			ctx = ans.Context
		}
		if !strings.Contains(ctx, e2eStartMem) || !strings.Contains(ctx, "project="+r.project+" ") {
			t.Errorf("%s: the session-start answer is not the project's: %s", agent, out)
		}
	}
	var list struct {
		Sessions []apiSession `json:"sessions"`
	}
	r.get(t, "/api/sessions?limit=100", &list)
	projects := map[string]string{}
	for _, s := range list.Sessions {
		projects[s.Harness] = s.Project
	}
	for agent := range inputs {
		if projects[agent] != projects["claude-code"] || projects[agent] != r.project {
			t.Errorf("%s's session is in project %q; Claude Code's in %q (want %s)", agent, projects[agent], projects["claude-code"], r.project)
		}
	}
}

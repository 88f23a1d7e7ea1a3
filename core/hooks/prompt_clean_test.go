package hooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// What a harness puts around the user's words in the prompt its hook
// gets, cairn's own session-start context included, is not searched for:
// Gemini CLI's <hook_context> (with cairn's context in it, whole or cut
// short by the answer's cap), Claude Code's <system-reminder>, and
// cairn's markers on their own. The prompt hook is reached over the API
// here, as a hook run without --harness gemini (a hand-written hook, an
// older install) reaches it: the server cleans the prompt itself.
func TestPromptHookSearchesOnlyTheUsersWords(t *testing.T) {
	e := apitest.NewEnv(t)
	for _, m := range []string{
		"atlas staging runs Postgres 16 on the db-stage host",
		"atlas deploys go through scripts/ship.sh, never by hand",
		"hook context reminder system: words a wrapper would bring",
	} {
		e.Mem(t, m, map[string]any{"project": projA})
	}
	start := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "gemini", "cwd": projA, "session_id": "g1", "source": "startup"}).Want(t, 200).Str("inject")
	if !strings.Contains(start, "[/cairn:context]") {
		t.Fatalf("session-start context: %q", start)
	}
	const ask = "Which Postgres version does staging use?"
	for name, prompt := range map[string]string{
		"gemini hook_context":     "<hook_context>" + start + "</hook_context>\n\n" + ask,
		"gemini cut short":        "<hook_context>" + start[:len(start)/2] + "\n[truncated]</hook_context>\n\n" + ask,
		"another hook's context":  "<hook_context>hook context from another tool</hook_context>\n\n" + ask,
		"claude system-reminder":  ask + "\n<system-reminder>reminder: the system context hook</system-reminder>",
		"cairn's markers in text": start + "\n" + ask,
	} {
		r := e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "gemini", "cwd": projA, "session_id": "g1", "prompt": prompt}).Want(t, 200)
		var terms []string
		for _, v := range r.JSON["queryTerms"].([]any) {
			terms = append(terms, v.(string))
		}
		for _, w := range []string{"hook", "context", "system", "reminder", "cairn", "project", "atlas", "deploys"} {
			if slices.Contains(terms, w) {
				t.Errorf("%s: the recall query took %q from around the prompt: %v", name, w, terms)
			}
		}
		if !slices.Contains(terms, "postgres") || !slices.Contains(terms, "staging") {
			t.Errorf("%s: the recall query lost the user's words: %v", name, terms)
		}
	}
}

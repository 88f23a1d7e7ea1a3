package hooks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// evolutionOf is a memory's evolution as GET /api/memory/{id} shows it.
func evolutionOf(t *testing.T, e *apitest.Env, id string) map[string]any {
	t.Helper()
	r := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	evo, _ := r.JSON["evolution"].(map[string]any)
	return evo
}

// superseded are the ids a remember answer says it superseded.
func superseded(r *apitest.Resp) []string {
	var out []string
	list, _ := r.JSON["superseded"].([]any)
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

// Scopes (docs/design/evolution.md, "Scopes and slots"): a user memory
// follows the user into every project, an agent memory stays with its
// agent, and the hooks list each scope on its own, within its own budget,
// apart from the project's memories.
func TestScopes(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	const atlas, webshop = "/p/atlas", "/p/webshop"
	pref := e.Remember(t, "the user prefers tabs over spaces in every language", "scope", "user", "project", atlas)
	if pref.Str("project") != "" {
		t.Fatalf("a user memory holds no project: %s", pref)
	}
	if evo := evolutionOf(t, e, pref.Str("id")); evo["scope"] != "user" {
		t.Fatalf("scope: %v", evo)
	}
	codex := e.MustID(t, "codex must run make lint before committing", "scope", "agent", "who", "codex")
	claude := e.MustID(t, "claude-code keeps its scratch notes in NOTES.md", "scope", "Agent", "who", "claude-code")
	// The project's own list is longer than its budget; the scopes keep
	// theirs.
	for i := range 40 {
		e.MustID(t, fmt.Sprintf("webshop note %d: the checkout service retries payment webhooks with exponential backoff", i), "project", webshop)
	}

	start := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": webshop}).Want(t, 200)
	inject := start.Str("inject")
	user := strings.Index(inject, "## About the User")
	agent := strings.Index(inject, "## This Agent")
	if user < 0 || agent < 0 || !strings.Contains(inject[user:], "tabs over spaces") || !strings.Contains(inject[agent:], "NOTES.md") {
		t.Fatalf("session start lists the user's and the agent's memories in their sections:\n%s", inject)
	}
	if strings.Contains(inject, "make lint") {
		t.Fatalf("another agent's memory was injected:\n%s", inject)
	}
	scopes := map[string]string{}
	for _, m := range start.List(t, "memories") {
		s, _ := m["scope"].(string)
		scopes[m["id"].(string)] = s
	}
	if scopes[pref.Str("id")] != "user" || scopes[claude] != "agent" {
		t.Fatalf("memories: %v", scopes)
	}

	// A prompt: the user's memory is considered in every project, another
	// agent's never.
	p := e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": webshop,
		"prompt": "should this file use tabs or spaces?"}).Want(t, 200)
	if !strings.Contains(p.Str("inject"), "tabs over spaces") {
		t.Fatalf("prompt: %s", p)
	}
	p = e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": webshop,
		"prompt": "what must run before committing, make lint?"}).Want(t, 200)
	if strings.Contains(p.String(), "make lint before") {
		t.Fatalf("another agent's memory at a prompt: %s", p)
	}
	p = e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "codex", "project": atlas,
		"prompt": "what must run before committing, make lint?"}).Want(t, 200)
	if !strings.Contains(p.Str("inject"), "make lint before") {
		t.Fatalf("the agent's own memory at a prompt: %s", p)
	}
	r := e.Post(t, "/api/hooks/recall", map[string]any{"harness": "claude-code", "project": webshop, "query": "make lint before committing"}).Want(t, 200)
	if strings.Contains(r.String(), codex) {
		t.Fatalf("hook recall returned another agent's memory: %s", r)
	}

	// The user scope's budget is its own: 0 turns the section off.
	off := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Hooks.UserChars = 0 })
	off.MustID(t, "the user prefers tabs over spaces", "scope", "user")
	if s := off.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": atlas}).Want(t, 200).Str("inject"); strings.Contains(s, "tabs") {
		t.Fatalf("user_chars 0:\n%s", s)
	}

	// A key has one value per scope: the user's editor is one across
	// projects, and a project's own key does not touch it.
	vim := e.MustID(t, "editor: vim", "key", "editor", "scope", "user", "project", atlas)
	nano := e.MustID(t, "editor: nano", "key", "editor", "project", atlas)
	helix := e.Remember(t, "editor: helix", "key", "editor", "scope", "user", "project", webshop)
	if sup := superseded(helix); len(sup) != 1 || sup[0] != vim {
		t.Fatalf("the user's key: %v", sup)
	}
	if e.Get(t, "/api/memory/"+nano).Bool("is_deleted") {
		t.Fatal("the project's key was superseded by the user's")
	}

	e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "scope": "team"}).WantInvalid(t, "scope", "project, user or agent")
}

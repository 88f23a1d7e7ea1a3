package httpapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// Evolution's rules are specified in core/evolution; these are the parts
// the HTTP edge adds: where the API shows them.

// superseded lists the ids a remember answer says it superseded.
func superseded(r *apitest.Resp) []string {
	var out []string
	list, _ := r.JSON["superseded"].([]any)
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

// evolutionOf is a memory's evolution as GET /api/memory/{id} shows it.
func evolutionOf(t *testing.T, e *apitest.Env, id string) map[string]any {
	t.Helper()
	r := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	evo, _ := r.JSON["evolution"].(map[string]any)
	return evo
}

// What evolution shows over HTTP: the remember answer's "superseded", GET's
// "evolution" (key, successor, predecessors, reinforcement, attributes),
// an edit's "superseded" and "restored", recall's explained "evidence",
// and a bad key as a 400 naming the field.
func TestEvolutionOverHTTP(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	old := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: Europe/Stockholm", "key": "timezone", "project": "atlas"}).Want(t, 200).Str("id")
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: America/New_York", "key": "  TimeZone ", "project": "atlas"}).Want(t, 200)
	cur := r.Str("id")
	if got := superseded(r); !slices.Equal(got, []string{old}) {
		t.Fatalf("the answer names what it superseded: %s", r)
	}
	gone := e.Get(t, "/api/memory/"+old+"?include_deleted=true").Want(t, 200)
	if evo, _ := gone.JSON["evolution"].(map[string]any); !gone.Bool("is_deleted") || evo["superseded_by"] != cur || evo["key"] != "timezone" {
		t.Fatalf("the old value: %s", gone)
	}
	e.Get(t, "/api/memory/"+old).WantErr(t, 404, "not_found")
	if evo := evolutionOf(t, e, cur); evo["key"] != "timezone" || !slices.Equal(apitest.Strs(evo["supersedes"]), []string{old}) {
		t.Fatalf("the new value: %v", evo)
	}
	again := e.Post(t, "/api/memory/remember", map[string]any{"content": "timezone: America/New_York", "key": "timezone", "project": "atlas"}).Want(t, 200)
	if !again.Bool("deduped") || again.Str("id") != cur || evolutionOf(t, e, cur)["reinforced"] != float64(1) {
		t.Fatalf("restated: %s, %v", again, evolutionOf(t, e, cur))
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "key": strings.Repeat("k", 200)}).WantInvalid(t, "key", "at most")
	e.Post(t, "/api/memory/remember", map[string]any{"content": strings.Repeat("A long keyed fact. ", 400), "key": "k"}).WantInvalid(t, "key", "short")
	e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "scope": "team"}).WantInvalid(t, "scope", "project, user or agent")

	// Attributes, as entity, aspect, name, value, kind and status.
	pg14 := e.MustID(t, "staging runs Postgres 14", "project", "atlas")
	pg16 := e.MustID(t, "staging runs Postgres 16", "project", "atlas")
	attrs, _ := evolutionOf(t, e, pg14)["attributes"].([]any)
	if len(attrs) != 1 {
		t.Fatalf("attributes: %v", attrs)
	}
	a := attrs[0].(map[string]any)
	if a["entity"] != "staging" || a["aspect"] != "versions" || a["name"] != "postgres version" || a["value"] != "14" ||
		a["kind"] != "attribute" || a["status"] != "superseded" || a["superseded_by"] != pg16 {
		t.Fatalf("the attribute: %v", a)
	}
	// An edit's answer names what it retired and what it brought back.
	p := e.Patch(t, pg16, map[string]any{"content": "prod runs Postgres 17", "reason": "edit"}).Want(t, 200)
	if !slices.Equal(apitest.Strs(p.JSON["restored"]), []string{pg14}) {
		t.Fatalf("the correction did not restore 14: %s", p)
	}
	alice := e.MustID(t, "the billing service is owned by Alice", "project", "atlas")
	note := e.MustID(t, "the coffee machine is broken", "project", "atlas")
	p = e.Patch(t, note, map[string]any{"content": "the billing service is owned by Bob", "reason": "edit"}).Want(t, 200)
	if !slices.Equal(apitest.Strs(p.JSON["superseded"]), []string{alice}) {
		t.Fatalf("the edit did not supersede Alice: %s", p)
	}

	// Recall explains evidence.
	res := e.Post(t, "/api/memory/recall", map[string]any{"query": "which timezone", "project": "atlas", "explain": true}).Want(t, 200)
	hits := res.List(t, "results")
	if len(hits) == 0 || hits[0]["id"] != cur {
		t.Fatalf("recall: %s", res)
	}
	if ev, ok := hits[0]["explain"].(map[string]any)["evidence"].(float64); !ok || ev <= 1 {
		t.Fatalf("a restated fact's evidence: %v", hits[0]["explain"])
	}
}

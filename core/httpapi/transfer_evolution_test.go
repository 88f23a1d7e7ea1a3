package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// evolutionStore states facts that evolve: keyed values that replace each
// other, plain statements whose attributes supersede, user and agent
// memories, a restated fact and a forgotten one. It returns the ids by
// name.
func evolutionStore(t *testing.T, e *apitest.Env) map[string]string {
	t.Helper()
	ids := map[string]string{}
	rem := func(name, content string, extra ...any) {
		ids[name] = e.MustID(t, content, extra...)
		e.Clock.Advance(time.Hour)
	}
	rem("tz1", "timezone: Europe/Stockholm", "key", "timezone", "project", "atlas")
	rem("tz2", "timezone: America/New_York", "key", "timezone", "project", "atlas")
	rem("pg14", "staging runs Postgres 14", "project", "atlas")
	rem("pg16", "staging runs Postgres 16", "project", "atlas")
	rem("tabs", "the user prefers tabs over spaces", "scope", "user")
	rem("agent", "this agent answers in French", "scope", "agent", "who", "claude-code")
	rem("again", "the billing service is owned by Bob", "project", "atlas")
	e.Clock.Advance(48 * time.Hour)
	if r := e.Remember(t, "the billing service is owned by Bob", "project", "atlas"); r.Str("id") != ids["again"] {
		t.Fatalf("restated: %s", r)
	}
	rem("gone", "the printer on floor 2 needs toner", "project", "atlas")
	e.Del(t, ids["gone"], map[string]any{"reason": "not a fact"}).Want(t, 200)
	return ids
}

// evolutionView is a memory's evolution as GET shows it, without the
// attribute rows' own ids.
func evolutionView(t *testing.T, e *apitest.Env, id string) string {
	t.Helper()
	g := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	ev, _ := g.JSON["evolution"].(map[string]any)
	if attrs, ok := ev["attributes"].([]any); ok {
		for _, a := range attrs {
			delete(a.(map[string]any), "id")
		}
	}
	b, _ := json.Marshal(map[string]any{"evolution": ev, "is_deleted": g.JSON["is_deleted"], "confidence": g.JSON["confidence"]})
	return string(b)
}

func recallIDs(t *testing.T, e *apitest.Env, query string, extra ...any) []string {
	t.Helper()
	body := map[string]any{"query": query, "limit": 10}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	r := e.Post(t, "/api/memory/recall", body).Want(t, 200)
	var out []string
	for _, x := range r.List(t, "results") {
		out = append(out, x["id"].(string))
	}
	return out
}

// Export and import carry what evolution added: scope, key, confidence,
// reinforcement, last confirmation, both ends of every supersession and
// the attributes. The imported store exports the same bytes, shows the
// same evolution, recalls the same, restores the superseded, and lets a
// newer statement supersede an imported one.
func TestExportImportCarriesEvolution(t *testing.T) {
	t.Parallel()
	src := apitest.NewEnv(t, apitest.NoEmbed)
	ids := evolutionStore(t, src)

	ex := src.Get(t, "/api/memories/export").Want(t, 200)
	lines := ndjson(t, ex.Raw)
	byID := map[string]map[string]any{}
	for _, l := range lines {
		if id, ok := l["id"].(string); ok {
			byID[id] = l
		}
	}
	// Superseded memories travel without include_deleted (both ends of a
	// supersession); the forgotten one does not.
	for _, name := range []string{"tz1", "pg14"} {
		ev, _ := byID[ids[name]]["evolution"].(map[string]any)
		if byID[ids[name]] == nil || ev["superseded_by"] == nil {
			t.Fatalf("%s: superseded memory not exported with its successor: %v", name, byID[ids[name]])
		}
	}
	if byID[ids["gone"]] != nil {
		t.Fatalf("a forgotten memory was exported without include_deleted")
	}
	for name, want := range map[string]string{"tz2": `"key":"timezone"`, "tabs": `"scope":"user"`, "agent": `"scope":"agent"`,
		"again": `"reinforced":1`, "pg16": `"value":"16"`, "pg14": `"status":"superseded"`} {
		b, _ := json.Marshal(byID[ids[name]]["evolution"])
		if !strings.Contains(string(b), want) {
			t.Fatalf("%s: export evolution %s lacks %s", name, b, want)
		}
	}

	dst := apitest.NewEnv(t, apitest.NoEmbed)
	r := dst.Post(t, "/api/memories/import", apitest.RawBody(ex.Raw)).Want(t, 200)
	if r.Num("imported") != float64(len(lines)-1) {
		t.Fatalf("import: %s", r)
	}
	// The imported store exports the same bytes and shows the same
	// evolution for every memory.
	if again := dst.Get(t, "/api/memories/export").Want(t, 200); !bytes.Equal(again.Raw, ex.Raw) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", ex.Raw, again.Raw)
	}
	for name, id := range ids {
		if name == "gone" {
			continue
		}
		if a, b := evolutionView(t, src, id), evolutionView(t, dst, id); a != b {
			t.Fatalf("%s: evolution differs after the round trip:\n%s\n%s", name, a, b)
		}
	}
	// The same recall, scope filters included.
	for _, q := range [][]any{{"timezone"}, {"which postgres does staging run", "project", "atlas"}, {"who owns billing", "project", "atlas"},
		{"tabs or spaces", "scope", "user"}, {"French", "scope", "agent"}} {
		if a, b := recallIDs(t, src, q[0].(string), q[1:]...), recallIDs(t, dst, q[0].(string), q[1:]...); !slices.Equal(a, b) || len(a) == 0 {
			t.Fatalf("recall %q differs after the round trip: %v vs %v", q[0], a, b)
		}
	}
	// A superseded memory can be restored in the imported store.
	dst.Post(t, "/api/memory/"+ids["tz1"]+"/recover", map[string]any{"reason": "restore"}).Want(t, 200)
	if g := dst.Get(t, "/api/memory/"+ids["tz1"]).Want(t, 200); g.JSON["evolution"].(map[string]any)["superseded_by"] != nil {
		t.Fatalf("restored memory keeps its successor: %s", g)
	}
	// The imported attributes supersede as remembered ones do.
	r = dst.Remember(t, "staging runs Postgres 17", "project", "atlas").Want(t, 200)
	if !slices.Contains(apitest.Strs(r.JSON["superseded"]), ids["pg16"]) {
		t.Fatalf("a newer value did not supersede the imported one: %s", r)
	}
	r = dst.Remember(t, "timezone: Asia/Tokyo", "key", "timezone", "project", "atlas").Want(t, 200)
	if !slices.Contains(apitest.Strs(r.JSON["superseded"]), ids["tz2"]) {
		t.Fatalf("a newer keyed value did not supersede the imported one: %s", r)
	}
}

// An export made before evolution (no "evolution" on its lines) imports
// with the defaults: project scope, no key, no reinforcement, no
// successor and no attributes (attributes are carried, not read again).
func TestImportOldExportDefaults(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	body := `{"id":"old-1","content":"staging runs Postgres 14","project":"atlas","created_at":"2024-01-02T03:04:05Z"}` + "\n" +
		`{"id":"old-2","content":"the coffee machine is broken","project":"atlas"}` + "\n" +
		`{"id":"old-3","content":"an old forgotten one","is_deleted":true,"deleted_at":"2024-02-02T03:04:05Z"}` + "\n"
	if r := e.Post(t, "/api/memories/import", apitest.RawBody(body)).Want(t, 200); r.Num("imported") != 3 {
		t.Fatalf("import: %s", r)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE scope IS NOT NULL OR memory_key IS NOT NULL OR superseded_by IS NOT NULL
		OR reinforced_count <> 0 OR last_confirmed_at IS NOT NULL`); n != 0 {
		t.Fatalf("an old export got %d memories with evolution", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM entity_attributes`); n != 0 {
		t.Fatalf("an old export got %d attributes", n)
	}
	if g := e.Get(t, "/api/memory/old-1").Want(t, 200); g.JSON["evolution"] != nil || g.Str("project") != "atlas" {
		t.Fatalf("old-1: %s", g)
	}
}

// A successor whose content a live memory already holds is not written
// (deduped): the memories it superseded point at that memory instead.
func TestImportRepointsADedupedSuccessor(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	twin := e.MustID(t, "timezone: America/New_York", "project", "atlas")
	body := `{"id":"s-new","content":"timezone: America/New_York","project":"atlas","evolution":{"key":"timezone"}}` + "\n" +
		`{"id":"s-old","content":"timezone: Europe/Stockholm","project":"atlas","is_deleted":true,"deleted_at":"2025-01-01T00:00:00Z","evolution":{"key":"timezone","superseded_by":"s-new"}}` + "\n"
	r := e.Post(t, "/api/memories/import", apitest.RawBody(body)).Want(t, 200)
	if r.Num("deduped") != 1 || r.Num("imported") != 1 {
		t.Fatalf("import: %s", r)
	}
	g := e.Get(t, "/api/memory/s-old?include_deleted=true").Want(t, 200)
	if by := g.JSON["evolution"].(map[string]any)["superseded_by"]; by != twin {
		t.Fatalf("superseded_by %v, want the live twin %s", by, twin)
	}
}

// Bad evolution on a line is refused with its line and field before
// anything is written.
func TestImportEvolutionBadInput(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	stored := e.MustID(t, "a memory already in the store")
	good := `{"content":"fine line"}` + "\n"
	deleted := `"is_deleted":true,"deleted_at":"2025-01-01T00:00:00Z"`
	long := strings.Repeat("word ", 150)
	cases := []struct {
		name, body, field string
		line              float64
	}{
		{"unknown scope", good + `{"content":"x","evolution":{"scope":"team"}}`, "evolution.scope", 2},
		{"scope not a string", good + `{"content":"x","evolution":{"scope":5}}`, "evolution.scope", 2},
		{"user memory with a project", good + `{"content":"x","project":"atlas","evolution":{"scope":"user"}}`, "project", 2},
		{"agent memory without who", good + `{"content":"x","evolution":{"scope":"agent"}}`, "who", 2},
		{"bad key", good + `{"content":"x","evolution":{"key":"a\u0001b"}}`, "evolution.key", 2},
		{"key on a chunk", good + `{"content":"x","source_type":"chunk","source_id":"g","evolution":{"key":"k"}}`, "evolution.key", 2},
		{"key on long content", good + `{"content":"` + long + `","evolution":{"key":"k"}}`, "evolution.key", 2},
		{"negative reinforcement", good + `{"content":"x","evolution":{"reinforced":-1}}`, "evolution.reinforced", 2},
		{"reinforcement not a number", good + `{"content":"x","evolution":{"reinforced":"many"}}`, "evolution.reinforced", 2},
		{"bad last confirmed", good + `{"content":"x","evolution":{"last_confirmed_at":"later"}}`, "evolution.last_confirmed_at", 2},
		{"successor of a live memory", good + `{"id":"a","content":"x"}` + "\n" + `{"id":"b","content":"y","evolution":{"superseded_by":"a"}}`, "evolution.superseded_by", 3},
		{"successor nowhere", good + `{"id":"b","content":"y",` + deleted + `,"evolution":{"superseded_by":"nowhere"}}`, "evolution.superseded_by", 2},
		{"its own successor", good + `{"id":"b","content":"y",` + deleted + `,"evolution":{"superseded_by":"b"}}`, "evolution.superseded_by", 2},
		{"a cycle", good + `{"id":"a","content":"x",` + deleted + `,"evolution":{"superseded_by":"c"}}` + "\n" +
			`{"id":"b","content":"y",` + deleted + `,"evolution":{"superseded_by":"a"}}` + "\n" +
			`{"id":"c","content":"z",` + deleted + `,"evolution":{"superseded_by":"b"}}`, "evolution.superseded_by", 2},
		{"attribute without value", good + `{"content":"x","evolution":{"attributes":[{"entity":"e","name":"n","kind":"attribute","status":"live"}]}}`, "evolution.attributes[0].value", 2},
		{"attribute kind", good + `{"content":"x","evolution":{"attributes":[{"entity":"e","name":"n","value":"v","kind":"rumour","status":"live"}]}}`, "evolution.attributes[0].kind", 2},
		{"attribute status", good + `{"content":"x","evolution":{"attributes":[{"entity":"e","name":"n","value":"v","kind":"attribute","status":"dead"}]}}`, "evolution.attributes[0].status", 2},
		{"superseded attribute without successor", good + `{"content":"x","evolution":{"attributes":[{"entity":"e","name":"n","value":"v","kind":"attribute","status":"superseded"}]}}`, "evolution.attributes[0].superseded_by", 2},
		{"attribute successor nowhere", good + `{"content":"x","evolution":{"attributes":[{"entity":"e","name":"n","value":"v","kind":"attribute","status":"live"},{"entity":"e","name":"m","value":"v","kind":"attribute","status":"superseded","superseded_by":"nowhere"}]}}`, "evolution.attributes[1].superseded_by", 2},
		{"evolution not an object", good + `{"content":"x","evolution":[1]}`, "evolution", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.State(t)
			r := e.Post(t, "/api/memories/import", apitest.RawBody(c.body+"\n")).WantErr(t, 400, core.CodeInvalidRequest)
			if r.Num("line") != c.line || r.Str("field") != c.field {
				t.Fatalf("want line %v field %s: %s", c.line, c.field, r)
			}
			e.Unchanged(t, before)
		})
	}
	// A successor already in the store is fine.
	body := fmt.Sprintf(`{"id":"old","content":"an older value",%s,"evolution":{"superseded_by":%q}}`+"\n", deleted, stored)
	e.Post(t, "/api/memories/import", apitest.RawBody(body)).Want(t, 200)
	g := e.Get(t, "/api/memory/"+stored).Want(t, 200)
	if !slices.Contains(apitest.Strs(g.JSON["evolution"].(map[string]any)["supersedes"]), "old") {
		t.Fatalf("the store's memory does not list the imported one it supersedes: %s", g)
	}
}

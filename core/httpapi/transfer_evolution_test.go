package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// What export and import carry of evolution is specified in
// core/transfer; here is what the import route answers to bad lines.

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

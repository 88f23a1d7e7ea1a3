package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

var api = core.Actor{Name: "api", Type: core.ActorOperator} // who the HTTP API records a local caller as

// remember stores in, failing the test on error.
func remember(t *testing.T, e *apitest.Env, in core.RememberInput) *core.RememberResult {
	t.Helper()
	res, err := e.Svc.Remember(context.Background(), in, api)
	if err != nil {
		t.Fatalf("remember %q: %v", in.Content, err)
	}
	return res
}

// export is the store's JSONL export (without the API's trailer line), as
// the API encodes it.
func export(t *testing.T, e *apitest.Env) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := e.App.Transfer.Export(context.Background(), storage.MemoryFilter{}, func(r *transfer.ExportRecord) error { return enc.Encode(r) }); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// importJSONL parses body as the API and the CLI do and imports it.
func importJSONL(t *testing.T, e *apitest.Env, body string) *transfer.ImportResult {
	t.Helper()
	lines, ce := httpapi.ReadImportLines(strings.NewReader(body))
	if ce != nil {
		t.Fatal(ce)
	}
	res, err := e.App.Transfer.Import(context.Background(), lines, api)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// get reads memory id, deleted or not.
func get(t *testing.T, e *apitest.Env, id string) *core.Memory {
	t.Helper()
	m, err := e.Svc.Get(context.Background(), id, true)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

// evolutionStore states facts that evolve: keyed values that replace each
// other, plain statements whose attributes supersede, user and agent
// memories, a restated fact and a forgotten one. It returns the ids by
// name.
func evolutionStore(t *testing.T, e *apitest.Env) map[string]string {
	t.Helper()
	ids := map[string]string{}
	rem := func(name string, in core.RememberInput) {
		ids[name] = remember(t, e, in).Memory.ID
		e.Clock.Advance(time.Hour)
	}
	rem("tz1", core.RememberInput{Content: "timezone: Europe/Stockholm", Key: "timezone", Project: "atlas"})
	rem("tz2", core.RememberInput{Content: "timezone: America/New_York", Key: "timezone", Project: "atlas"})
	rem("pg14", core.RememberInput{Content: "staging runs Postgres 14", Project: "atlas"})
	rem("pg16", core.RememberInput{Content: "staging runs Postgres 16", Project: "atlas"})
	rem("tabs", core.RememberInput{Content: "the user prefers tabs over spaces", Scope: "user"})
	rem("agent", core.RememberInput{Content: "this agent answers in French", Scope: "agent", Who: "claude-code"})
	rem("again", core.RememberInput{Content: "the billing service is owned by Bob", Project: "atlas"})
	e.Clock.Advance(48 * time.Hour)
	if r := remember(t, e, core.RememberInput{Content: "the billing service is owned by Bob", Project: "atlas"}); r.Memory.ID != ids["again"] {
		t.Fatalf("restated: %+v", r)
	}
	rem("gone", core.RememberInput{Content: "the printer on floor 2 needs toner", Project: "atlas"})
	if _, err := e.Svc.Forget(context.Background(), core.ForgetInput{ID: ids["gone"], Reason: "not a fact"}, api); err != nil {
		t.Fatal(err)
	}
	return ids
}

// evolutionView is a memory's evolution as Get shows it, without the
// attribute rows' own ids.
func evolutionView(t *testing.T, e *apitest.Env, id string) string {
	t.Helper()
	m := get(t, e, id)
	evo := m.Evolution
	if evo != nil {
		c := *evo
		c.Attributes = nil
		for _, a := range evo.Attributes {
			a2 := *a
			a2.ID = ""
			c.Attributes = append(c.Attributes, &a2)
		}
		evo = &c
	}
	b, _ := json.Marshal(map[string]any{"evolution": evo, "is_deleted": m.IsDeleted, "confidence": m.Confidence})
	return string(b)
}

// recallIDs are the ids of the best 10 memories for query within f.
func recallIDs(t *testing.T, e *apitest.Env, query string, f storage.MemoryFilter) []string {
	t.Helper()
	res, err := e.Svc.Recall(context.Background(), core.RecallInput{Query: query, Limit: 10, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Results {
		out = append(out, h.ID)
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
	src := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ids := evolutionStore(t, src)

	ex := export(t, src)
	byID := map[string]map[string]any{}
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(ex), []byte("\n")) {
		var l map[string]any
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		byID[l["id"].(string)] = l
		n++
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

	dst := apitest.NewStoreEnv(t, apitest.NoEmbed)
	if r := importJSONL(t, dst, string(ex)); r.Imported != n {
		t.Fatalf("import: %+v, want %d imported", r, n)
	}
	// The imported store exports the same bytes and shows the same
	// evolution for every memory.
	if again := export(t, dst); !bytes.Equal(again, ex) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", ex, again)
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
	for _, q := range []struct {
		query string
		f     storage.MemoryFilter
	}{{"timezone", storage.MemoryFilter{}}, {"which postgres does staging run", storage.MemoryFilter{Project: "atlas"}},
		{"who owns billing", storage.MemoryFilter{Project: "atlas"}}, {"tabs or spaces", storage.MemoryFilter{Scope: "user"}},
		{"French", storage.MemoryFilter{Scope: "agent"}}} {
		if a, b := recallIDs(t, src, q.query, q.f), recallIDs(t, dst, q.query, q.f); !slices.Equal(a, b) || len(a) == 0 {
			t.Fatalf("recall %q differs after the round trip: %v vs %v", q.query, a, b)
		}
	}
	// A superseded memory can be restored in the imported store.
	if _, err := dst.Svc.Recover(context.Background(), core.RecoverInput{ID: ids["tz1"], Reason: "restore"}, api); err != nil {
		t.Fatal(err)
	}
	if m := get(t, dst, ids["tz1"]); m.IsDeleted || (m.Evolution != nil && m.Evolution.SupersededBy != "") {
		t.Fatalf("restored memory keeps its successor: %+v %+v", m, m.Evolution)
	}
	// The imported attributes supersede as remembered ones do.
	if r := remember(t, dst, core.RememberInput{Content: "staging runs Postgres 17", Project: "atlas"}); !slices.Contains(r.Superseded, ids["pg16"]) {
		t.Fatalf("a newer value did not supersede the imported one: %+v", r)
	}
	if r := remember(t, dst, core.RememberInput{Content: "timezone: Asia/Tokyo", Key: "timezone", Project: "atlas"}); !slices.Contains(r.Superseded, ids["tz2"]) {
		t.Fatalf("a newer keyed value did not supersede the imported one: %+v", r)
	}
}

// An export made before evolution (no "evolution" on its lines) imports
// with the defaults: project scope, no key, no reinforcement, no
// successor and no attributes (attributes are carried, not read again).
func TestImportOldExportDefaults(t *testing.T) {
	t.Parallel()
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	body := `{"id":"old-1","content":"staging runs Postgres 14","project":"atlas","created_at":"2024-01-02T03:04:05Z"}` + "\n" +
		`{"id":"old-2","content":"the coffee machine is broken","project":"atlas"}` + "\n" +
		`{"id":"old-3","content":"an old forgotten one","is_deleted":true,"deleted_at":"2024-02-02T03:04:05Z"}` + "\n"
	if r := importJSONL(t, e, body); r.Imported != 3 {
		t.Fatalf("import: %+v", r)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE scope IS NOT NULL OR memory_key IS NOT NULL OR superseded_by IS NOT NULL
		OR reinforced_count <> 0 OR last_confirmed_at IS NOT NULL`); n != 0 {
		t.Fatalf("an old export got %d memories with evolution", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM entity_attributes`); n != 0 {
		t.Fatalf("an old export got %d attributes", n)
	}
	if m := get(t, e, "old-1"); m.IsDeleted || m.Evolution != nil || m.Project != "atlas" {
		t.Fatalf("old-1: %+v %+v", m, m.Evolution)
	}
}

// A successor whose content a live memory already holds is not written
// (deduped): the memories it superseded point at that memory instead.
func TestImportRepointsADedupedSuccessor(t *testing.T) {
	t.Parallel()
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	twin := remember(t, e, core.RememberInput{Content: "timezone: America/New_York", Project: "atlas"}).Memory.ID
	body := `{"id":"s-new","content":"timezone: America/New_York","project":"atlas","evolution":{"key":"timezone"}}` + "\n" +
		`{"id":"s-old","content":"timezone: Europe/Stockholm","project":"atlas","is_deleted":true,"deleted_at":"2025-01-01T00:00:00Z","evolution":{"key":"timezone","superseded_by":"s-new"}}` + "\n"
	if r := importJSONL(t, e, body); r.Deduped != 1 || r.Imported != 1 {
		t.Fatalf("import: %+v", r)
	}
	if by := get(t, e, "s-old").Evolution.SupersededBy; by != twin {
		t.Fatalf("superseded_by %v, want the live twin %s", by, twin)
	}
}

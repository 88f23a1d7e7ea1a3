package core_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/transfer"
)

// graphRows lists every entity (name, type, mentions) and every link
// (memory content → entity name, mention text) of a store, sorted, so two
// stores written different ways can be compared.
func graphRows(t *testing.T, e *apitest.Env) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'entity ' || canonical_name || ' ' || entity_type || ' ' || mentions FROM entities`,
		`SELECT 'link ' || m.content || ' → ' || e.canonical_name || ' (' || mm.mention_text || ')'
			FROM memory_entity_mentions mm JOIN memories m ON m.rid = mm.memory_rid JOIN entities e ON e.rid = mm.entity_rid`,
	} {
		rows, err := e.RO.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// TestImportGraphAsRemember checks that the bulk import links entities
// exactly as the write path does memory by memory: the same entities and
// types (a later mention naming the type of an "unknown" entity), the
// same mention counts (one per memory, however often it names the
// entity), the same links, tentative mentions linked only to entities
// already known, across several import transactions.
func TestImportGraphAsRemember(t *testing.T) {
	contents := []string{
		"Alice moved the Atlas service from MySQL to PostgreSQL 16.",
		"PostgreSQL backups run nightly; Alice checks them with Grafana.",
		"Grafana reads from Prometheus and from PostgreSQL.",
		"Alice said the Atlas dashboards are slow.",
		"Painting is fun, Alice and Bob agree.",
		"Bob uses Grafana, Grafana and more Grafana.",
	}
	var lines []transfer.ImportLine
	for i := 0; i < 2100; i++ { // more than one import transaction
		c := contents[i%len(contents)]
		if i >= len(contents) {
			c = fmt.Sprintf("%s (note %d)", c, i)
		}
		lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{Content: c, Type: "fact", Importance: 0.5, Confidence: 1}})
	}
	imp := apitest.NewStoreEnv(t, apitest.NoPipeline)
	res, err := imp.App.Transfer.Import(context.Background(), lines, core.Actor{Name: "test"})
	if err != nil || res.Imported != len(lines) {
		t.Fatalf("import: %v %+v", err, res)
	}
	rem := apitest.NewStoreEnv(t, apitest.NoPipeline)
	for _, l := range lines {
		if _, err := rem.Svc.Remember(context.Background(), core.RememberInput{Content: l.Memory.Content, Type: "fact"}, core.Actor{Name: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	got, want := graphRows(t, imp), graphRows(t, rem)
	if !slices.Equal(got, want) {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("import has %q", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("remember has %q", w)
			}
		}
		t.Fatal("the import's graph differs from the one remember builds")
	}
}

// TestImportDedupsWithinTheFile checks the dedup rules on records of the
// same import, which the store does not hold yet when they are checked:
// a repeated id is already present, repeated content in a project and a
// repeated idempotency key are duplicates; the same content in another
// project, or as a tombstone, is not.
func TestImportDedupsWithinTheFile(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoPipeline)
	mem := func(id, content, project, key string, deleted bool) core.Memory {
		m := core.Memory{ID: id, Content: content, Project: project, IdempotencyKey: key, Type: "fact", Importance: 0.5, Confidence: 1, IsDeleted: deleted}
		if deleted {
			m.DeletedAt = "2026-02-01T00:00:00.000Z"
		}
		return m
	}
	lines := []transfer.ImportLine{
		{Line: 1, Memory: mem("a", "the build uses make", "p", "", false)},
		{Line: 2, Memory: mem("a", "another text under the same id", "p", "", false)},
		{Line: 3, Memory: mem("", "the build uses make", "p", "", false)},
		{Line: 4, Memory: mem("", "the build uses make", "q", "", false)},
		{Line: 5, Memory: mem("", "the build uses make", "p", "", true)},
		{Line: 6, Memory: mem("", "first under the key", "p", "k1", false)},
		{Line: 7, Memory: mem("", "second under the key", "p", "k1", false)},
	}
	res, err := e.App.Transfer.Import(context.Background(), lines, core.Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported != 4 || res.Existing != 1 || res.Deduped != 2 {
		t.Fatalf("result %+v, want 4 imported (lines 1, 4, 5, 6), 1 existing (line 2), 2 deduped (lines 3, 7)", res)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE content = 'the build uses make' AND project = 'p' AND is_deleted = 0`); n != 1 {
		t.Fatalf("%d live copies in project p", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE idempotency_key = 'k1'`); n != 1 {
		t.Fatalf("%d memories under key k1", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE reason = 'import'`); n != 4 {
		t.Fatalf("%d import events, want 4", n)
	}
}

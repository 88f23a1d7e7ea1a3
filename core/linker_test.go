package core_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/transfer"
)

// linkedNames returns the canonical names linked to memory id, sorted.
func linkedNames(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	rows, err := e.RO.Query(`SELECT e.canonical_name FROM memory_entity_mentions mm JOIN entities e ON e.rid = mm.entity_rid
		JOIN memories m ON m.rid = mm.memory_rid WHERE m.id = ? ORDER BY e.canonical_name`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func mentionsOf(t *testing.T, e *apitest.Env, canonical string) int {
	t.Helper()
	return e.Count(t, `SELECT COALESCE((SELECT mentions FROM entities WHERE canonical_name = ?), -1)`, canonical)
}

// TestRememberLinksEntitiesInline: with the pipeline off, the entities a
// memory names and its links exist as soon as remember returns.
func TestRememberLinksEntitiesInline(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "We switched from MySQL to PostgreSQL 16; Dana Scully owns core/graph.go and storage.UpsertEntity().")
	if got, want := linkedNames(t, e, id), []string{"core/graph.go", "dana scully", "mysql", "postgresql", "storage.upsertentity"}; !slices.Equal(got, want) {
		t.Fatalf("linked %q, want %q", got, want)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions mm JOIN entities e ON e.rid = mm.entity_rid
		JOIN memories m ON m.rid = mm.memory_rid WHERE m.id = ? AND e.canonical_name = 'postgresql' AND e.entity_type = 'service' AND mm.mention_text = 'PostgreSQL 16'`, id); n != 1 {
		t.Fatal("postgresql's type or the mention's text (with its version) is wrong")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs`); n != 0 {
		t.Fatalf("%d jobs: the linker must not need the pipeline", n)
	}
	// The graph listing sees them at once.
	r := e.Get(t, "/api/graph/entities?q=postgres").Want(t, http.StatusOK)
	if ents := r.List(t, "entities"); len(ents) != 1 || ents[0]["mentions"].(float64) != 1 {
		t.Fatalf("GET /api/graph/entities: %s", r)
	}
	// The same content again is deduplicated: nothing counted twice.
	e.Remember(t, "We switched from MySQL to PostgreSQL 16; Dana Scully owns core/graph.go and storage.UpsertEntity().")
	if n := mentionsOf(t, e, "postgresql"); n != 1 {
		t.Fatalf("postgresql mentions %d after a deduplicated remember", n)
	}
	// A long memory is chunked; each chunk links what it names.
	long := "Dana Scully reviewed the Redis cache settings in detail. " + strings.Repeat("Nothing else to note here at all. ", 20) +
		"Fox Mulder moved the nightly job to Kubernetes."
	r = e.Post(t, "/api/memory/remember", map[string]any{"content": long}).Want(t, http.StatusOK)
	ids := apitest.Strs(r.JSON["ids"])
	if len(ids) < 2 || !slices.Contains(linkedNames(t, e, ids[0]), "redis") || !slices.Contains(linkedNames(t, e, ids[len(ids)-1]), "kubernetes") {
		t.Fatalf("chunks not linked: %s", r)
	}
	if n := mentionsOf(t, e, "dana scully"); n != 2 {
		t.Fatalf("dana scully mentions %d, want 2", n)
	}
}

// TestSpeakerLabelIsNotAnEntity: conversation turns stored as "<speaker>:
// <text>" do not make their speaker an entity; a name the text itself
// mentions is one, and once known, a name opening a turn links too.
func TestSpeakerLabelIsNotAnEntity(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	a := e.MustID(t, "Caroline: I went to the LGBTQ support group yesterday")
	if got := linkedNames(t, e, a); !slices.Equal(got, []string{"lgbtq"}) {
		t.Fatalf("linked %q", got)
	}
	b := e.MustID(t, "Melanie: Thanks, Caroline! Sounds great.") // a vocative
	if got := linkedNames(t, e, b); len(got) != 0 {
		t.Fatalf("vocative linked %q", got)
	}
	for _, n := range []string{"caroline", "melanie", "user", "assistant", "sentence"} {
		if mentionsOf(t, e, n) != -1 {
			t.Fatalf("%q is an entity", n)
		}
	}
	c := e.MustID(t, "Melanie: I think Caroline was brave to speak there.")
	if got := linkedNames(t, e, c); !slices.Equal(got, []string{"caroline"}) {
		t.Fatalf("a name in the text not linked: %q", got)
	}
	// "Caroline" opening a sentence is tentative: linked now that the
	// store knows her.
	d := e.MustID(t, "Melanie: Caroline told me about the parade.")
	if got := linkedNames(t, e, d); !slices.Equal(got, []string{"caroline"}) {
		t.Fatalf("tentative name not linked to the known entity: %q", got)
	}
	f := e.MustID(t, "Melanie: Painting is my favourite way to relax.")
	if got := linkedNames(t, e, f); len(got) != 0 || mentionsOf(t, e, "painting") != -1 {
		t.Fatalf("a sentence-opening word became an entity: %q", got)
	}
	g := e.MustID(t, "User: how do I run the tests?\nAssistant: run the race tests from the repo root.")
	if got := linkedNames(t, e, g); len(got) != 0 {
		t.Fatalf("role labels linked: %q", got)
	}
}

// TestDecisionAutoProtection: decision language makes a decision of
// importance 0.85 unless the caller said otherwise.
func TestDecisionAutoProtection(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	tests := []struct {
		content string
		extra   []any
		typ     string
		imp     float64
	}{
		{"We decided to use SQLite over Postgres", nil, "decision", 0.85},
		{"We went with pnpm for the monorepo", nil, "decision", 0.85},
		{"The user prefers tabs over spaces", nil, "preference", 0.85}, // inference is more specific
		{"We decided to use Bazel", []any{"importance", 0.3}, "decision", 0.3},
		{"We decided to use Buck2", []any{"type", "note"}, "note", 0.85},
		{"critical: we decided to drop Windows", nil, "decision", 1},
		{"I went with my sister to the park", nil, "fact", 0.8},
		{"Mira: I finally adopted a greyhound named Biscuit", nil, "fact", 0.8},
	}
	for _, tt := range tests {
		r := e.Remember(t, tt.content, tt.extra...)
		if r.Str("type") != tt.typ || r.Num("importance") != tt.imp {
			t.Errorf("%q %v: type %q importance %v, want %q %v", tt.content, tt.extra, r.Str("type"), r.Num("importance"), tt.typ, tt.imp)
		}
	}
}

// TestRelinkOnModifyAndRecover: a content change replaces the memory's
// links (an entity no memory names any more goes); recover links again;
// forget keeps the links for the retention sweep, which purges them.
func TestRelinkOnModifyAndRecover(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoPipeline)
	a := e.MustID(t, "The nightly job runs on Kubernetes and writes to Redis.")
	b := e.MustID(t, "Redis keeps the session cache.")
	e.Patch(t, a, map[string]any{"content": "The nightly job runs on Nomad and writes to Redis.", "reason": "moved"}).Want(t, http.StatusOK)
	if got := linkedNames(t, e, a); !slices.Equal(got, []string{"nomad", "redis"}) {
		t.Fatalf("after modify linked %q", got)
	}
	if mentionsOf(t, e, "kubernetes") != -1 || mentionsOf(t, e, "redis") != 2 || mentionsOf(t, e, "nomad") != 1 {
		t.Fatalf("counts after modify: kubernetes %d redis %d nomad %d", mentionsOf(t, e, "kubernetes"), mentionsOf(t, e, "redis"), mentionsOf(t, e, "nomad"))
	}
	// A change that keeps the content (tags only) leaves links alone.
	e.Patch(t, a, map[string]any{"tags": []string{"infra"}, "reason": "tag"}).Want(t, http.StatusOK)
	if mentionsOf(t, e, "redis") != 2 {
		t.Fatal("a tag change relinked")
	}

	// Forget: links stay (recall ignores tombstones) until the sweep.
	e.Del(t, a, map[string]any{"reason": "gone"}).Want(t, http.StatusOK)
	if got := linkedNames(t, e, a); len(got) != 2 {
		t.Fatalf("forget dropped links: %q", got)
	}
	e.Post(t, "/api/memory/"+a+"/recover", map[string]any{"reason": "back"}).Want(t, http.StatusOK)
	if got := linkedNames(t, e, a); !slices.Equal(got, []string{"nomad", "redis"}) || mentionsOf(t, e, "redis") != 2 {
		t.Fatalf("after recover linked %q, redis %d", got, mentionsOf(t, e, "redis"))
	}
	e.Del(t, a, map[string]any{"reason": "gone again"}).Want(t, http.StatusOK)
	e.Clock.Advance(e.Svc.Config().Retention.TombstoneWindow.D() + time.Hour)
	rep, err := e.App.Ops.RetentionSweep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.GraphLinks != 2 || rep.GraphEntities != 1 {
		t.Fatalf("sweep %+v", rep)
	}
	if mentionsOf(t, e, "nomad") != -1 || mentionsOf(t, e, "redis") != 1 || len(linkedNames(t, e, b)) != 1 {
		t.Fatalf("after sweep: nomad %d redis %d", mentionsOf(t, e, "nomad"), mentionsOf(t, e, "redis"))
	}
}

// TestImportLinks: imported memories are linked like remembered ones;
// imported tombstones are not.
func TestImportLinks(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoPipeline)
	lines := []transfer.ImportLine{
		{Line: 1, Memory: core.Memory{ID: "m-live", Content: "Grafana dashboards read from Prometheus.", Type: "fact", Importance: 0.5, Confidence: 1}},
		{Line: 2, Memory: core.Memory{ID: "m-dead", Content: "Sentry used to read from Graphite.", Type: "fact", Importance: 0.5, Confidence: 1,
			IsDeleted: true, DeletedAt: "2026-02-01T00:00:00.000Z"}},
	}
	if _, err := e.App.Transfer.Import(context.Background(), lines, core.Actor{Name: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := linkedNames(t, e, "m-live"); !slices.Equal(got, []string{"grafana", "prometheus"}) {
		t.Fatalf("imported memory linked %q", got)
	}
	if got := linkedNames(t, e, "m-dead"); len(got) != 0 {
		t.Fatalf("imported tombstone linked %q", got)
	}
}

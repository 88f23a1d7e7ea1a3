package httpapi_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

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

// attributesOf renders a memory's attributes as entity|name|value|kind|status lines.
func attributesOf(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	var out []string
	attrs, _ := evolutionOf(t, e, id)["attributes"].([]any)
	for _, x := range attrs {
		a := x.(map[string]any)
		out = append(out, strings.Join([]string{a["entity"].(string), a["aspect"].(string), a["name"].(string), a["value"].(string), a["kind"].(string), a["status"].(string)}, "|"))
	}
	return out
}

// Statements the linker can read supersede the values they replace without
// a key and without a model: the old memory leaves recall, points to its
// successor, and comes back with recover; a memory still holding another
// live fact, a pinned one, and another project's are left alone.
func TestAttributesSupersede(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	const p = "/home/dev/atlas"
	rem := func(content string, extra ...any) *apitest.Resp {
		body := map[string]any{"content": content, "project": p}
		for i := 0; i+1 < len(extra); i += 2 {
			body[extra[i].(string)] = extra[i+1]
		}
		return e.Post(t, "/api/memory/remember", body).Want(t, 200)
	}
	v14 := rem("staging runs Postgres 14").Str("id")
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("attributes of the first value: %v", got)
	}
	other := e.MustID(t, "staging runs Postgres 12", "project", "/home/dev/webshop")
	both := rem("prod runs Postgres 14, and the prod database listens on port 5432").Str("id")
	pinned := rem("the billing service is owned by Alice", "pinned", true).Str("id")

	r16 := rem("staging runs Postgres 16 since the October upgrade")
	v16 := r16.Str("id")
	if got := superseded(r16); !slices.Equal(got, []string{v14}) {
		t.Fatalf("the answer names what it superseded: %v (%s)", got, r16)
	}
	evo := evolutionOf(t, e, v14)
	if evo["superseded_by"] != v16 {
		t.Fatalf("the old value points to its successor: %v", evo)
	}
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|superseded"}) {
		t.Fatalf("the old attribute: %v", got)
	}
	if sup, _ := evolutionOf(t, e, v16)["supersedes"].([]any); len(sup) != 1 || sup[0] != v14 {
		t.Fatalf("the successor lists it: %v", evolutionOf(t, e, v16))
	}
	res := e.Post(t, "/api/memory/recall", map[string]any{"query": "which postgres version does staging run", "project": p}).Want(t, 200)
	if s := res.String(); strings.Contains(s, "Postgres 14\"") || !strings.Contains(s, "Postgres 16") {
		t.Fatalf("recall: %s", s)
	}
	if e.Get(t, "/api/memory/"+other).Bool("is_deleted") {
		t.Fatal("another project's value was superseded")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'superseded'`, v14); n != 1 {
		t.Fatalf("superseded events: %d", n)
	}

	// A memory holding another live fact stays; only its attribute goes.
	r15 := rem("prod runs Postgres 15")
	if got := superseded(r15); len(got) != 0 {
		t.Fatalf("a memory still holding the prod port was retired: %v", got)
	}
	if e.Get(t, "/api/memory/"+both).Bool("is_deleted") {
		t.Fatal("the two-fact memory was deleted")
	}
	if got := attributesOf(t, e, both); !slices.Equal(got, []string{"prod|versions|postgres version|14|attribute|superseded", "prod database|network|port|5432|attribute|live"}) {
		t.Fatalf("two facts: %v", got)
	}
	// A pinned memory is never retired by a reading.
	if got := superseded(rem("the billing service is owned by Bob since the reorg")); len(got) != 0 {
		t.Fatalf("a pinned memory was retired: %v", got)
	}
	if e.Get(t, "/api/memory/"+pinned).Bool("is_deleted") {
		t.Fatal("pinned memory deleted")
	}

	// Statements of change: a move names the old value, a reversed
	// decision retires its constraint.
	ci := rem("builds run on CircleCI").Str("id")
	if got := superseded(rem("we migrated builds from CircleCI to GitHub Actions")); !slices.Equal(got, []string{ci}) {
		t.Fatalf("a move: %v", got)
	}
	gorm := rem("we decided to use gorm for the data layer").Str("id")
	if got := attributesOf(t, e, gorm); !slices.Equal(got, []string{"data layer|decisions|choice|gorm|constraint|live"}) {
		t.Fatalf("a decision is a constraint: %v", got)
	}
	rev := rem("we reversed the gorm decision and use sqlc")
	if got := superseded(rev); !slices.Equal(got, []string{gorm}) {
		t.Fatalf("a reversed decision: %v", got)
	}
	if got := attributesOf(t, e, rev.Str("id")); !slices.Equal(got, []string{"data layer|decisions|choice|sqlc|constraint|live"}) {
		t.Fatalf("the decision that replaced it: %v", got)
	}

	// Ambiguous: two values in one memory supersede nothing.
	if got := superseded(rem("staging runs Postgres 15 and staging runs Postgres 17")); len(got) != 0 {
		t.Fatalf("an ambiguous memory superseded %v", got)
	}

	// Recovered, the old value is live again; the next new value retires
	// both.
	e.Post(t, "/api/memory/"+v14+"/recover", map[string]any{"reason": "wrong"}).Want(t, 200)
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("recovered attributes: %v", got)
	}
	if got := superseded(rem("staging runs Postgres 17")); !slices.Equal(got, []string{v14, v16}) {
		t.Fatalf("after recover: %v", got)
	}
}

// memory.supersede_attributes off: statements are plain memories again.
func TestAttributesSupersedeOff(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Memory.SupersedeAttributes = false })
	old := e.MustID(t, "staging runs Postgres 14", "project", "atlas")
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "staging runs Postgres 16", "project": "atlas"}).Want(t, 200)
	if got := superseded(r); len(got) != 0 || e.Get(t, "/api/memory/"+old).Bool("is_deleted") {
		t.Fatalf("superseded with the switch off: %v", got)
	}
	if n := e.Count(t, `SELECT count(*) FROM entity_attributes`); n != 0 {
		t.Fatalf("%d attributes written", n)
	}
}

// Evidence (confidence × reinforcement × staleness, seed 004) is one
// explained factor of recall: a fact stated again outranks an equally
// relevant one stated once, an inferred one ranks below a stated one, a
// year without confirmation weighs 0.3 (pinned memories excepted), and
// memory.evidence_weight = 0 turns it off.
func TestEvidenceRanksRecall(t *testing.T) {
	evidence := func(e *apitest.Env) map[string]float64 {
		out := map[string]float64{}
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "kestrel rollout checklist", "explain": true, "limit": 10}).Want(t, 200)
		for _, h := range r.List(t, "results") {
			out[h["content"].(string)] = h["explain"].(map[string]any)["evidence"].(float64)
		}
		return out
	}
	e := apitest.NewEnv(t, apitest.NoEmbed)
	const (
		once   = "the kestrel rollout checklist is in the ops wiki"
		thrice = "the kestrel rollout checklist is in the release doc"
		infer  = "the kestrel rollout checklist is in the runbook repo"
		pin    = "the kestrel rollout checklist is in the pinned handbook"
	)
	e.MustID(t, once)
	for range 3 {
		e.Remember(t, thrice)
	}
	e.MustID(t, infer, "source_type", "inferred")
	e.MustID(t, pin, "pinned", true)
	got := evidence(e)
	w := config.DefaultMemoryEvidenceWeight
	want := map[string]float64{once: 1, thrice: math.Pow(1.2, w), infer: math.Pow(0.5, w), pin: 1}
	for c, w := range want {
		if math.Abs(got[c]-w) > 0.001 {
			t.Errorf("%q: evidence %.4f, want %.4f", c, got[c], w)
		}
	}
	r := e.Post(t, "/api/memory/recall", map[string]any{"query": "kestrel rollout checklist", "limit": 10}).Want(t, 200)
	var order []string
	for _, h := range r.List(t, "results") {
		order = append(order, h["content"].(string))
	}
	if len(order) != 4 || order[0] != thrice || order[3] != infer {
		t.Fatalf("ranking: %q", order)
	}

	e.Clock.Advance(400 * 24 * time.Hour)
	got = evidence(e)
	if math.Abs(got[once]-math.Pow(0.3, w)) > 0.001 || got[pin] != 1 {
		t.Fatalf("a year later: %v", got)
	}

	off := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Memory.EvidenceWeight = 0 })
	off.MustID(t, infer, "source_type", "inferred")
	if got := evidence(off); got[infer] != 1 {
		t.Fatalf("weight 0: %v", got)
	}
}

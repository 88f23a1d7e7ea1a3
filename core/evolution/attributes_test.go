package evolution_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// Statements the linker can read supersede the values they replace without
// a key and without a model: the old memory leaves recall, points to its
// successor, and comes back with recover; a memory still holding another
// live fact, a pinned one, and another project's are left alone.
func TestAttributesSupersede(t *testing.T) {
	e := newEnv(t)
	const p = "/home/dev/atlas"
	rem := func(content string) *core.RememberResult {
		return remember(t, e, core.RememberInput{Content: content, Project: p})
	}
	v14 := rem("staging runs Postgres 14").Memory.ID
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("attributes of the first value: %v", got)
	}
	other := memID(t, e, "staging runs Postgres 12", "/home/dev/webshop")
	both := rem("prod runs Postgres 14, and the prod database listens on port 5432").Memory.ID
	yes := true
	pinned := remember(t, e, core.RememberInput{Content: "the billing service is owned by Alice", Project: p, Pinned: &yes}).Memory.ID

	r16 := rem("staging runs Postgres 16 since the October upgrade")
	v16 := r16.Memory.ID
	if got := r16.Superseded; !slices.Equal(got, []string{v14}) {
		t.Fatalf("the answer names what it superseded: %v", got)
	}
	evo := evolutionOf(t, e, v14)
	if evo.SupersededBy != v16 {
		t.Fatalf("the old value points to its successor: %+v", evo)
	}
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|superseded"}) {
		t.Fatalf("the old attribute: %v", got)
	}
	if sup := evolutionOf(t, e, v16).Supersedes; len(sup) != 1 || sup[0] != v14 {
		t.Fatalf("the successor lists it: %+v", evolutionOf(t, e, v16))
	}
	res := recall(t, e, core.RecallInput{Query: "which postgres version does staging run", Filter: storage.MemoryFilter{Project: p}})
	if anyContent(res, func(c string) bool { return strings.HasSuffix(c, "Postgres 14") }) ||
		!anyContent(res, func(c string) bool { return strings.Contains(c, "Postgres 16") }) {
		t.Fatalf("recall: %q", contents(res))
	}
	if gone(t, e, other) {
		t.Fatal("another project's value was superseded")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'superseded'`, v14); n != 1 {
		t.Fatalf("superseded events: %d", n)
	}

	// A memory holding another live fact stays; only its attribute goes.
	r15 := rem("prod runs Postgres 15")
	if got := r15.Superseded; len(got) != 0 {
		t.Fatalf("a memory still holding the prod port was retired: %v", got)
	}
	if gone(t, e, both) {
		t.Fatal("the two-fact memory was deleted")
	}
	if got := attributesOf(t, e, both); !slices.Equal(got, []string{"prod|versions|postgres version|14|attribute|superseded", "prod database|network|port|5432|attribute|live"}) {
		t.Fatalf("two facts: %v", got)
	}
	// A pinned memory is never retired by a reading.
	if got := rem("the billing service is owned by Bob since the reorg").Superseded; len(got) != 0 {
		t.Fatalf("a pinned memory was retired: %v", got)
	}
	if gone(t, e, pinned) {
		t.Fatal("pinned memory deleted")
	}

	// Statements of change: a move names the old value, a reversed
	// decision retires its constraint.
	ci := rem("builds run on CircleCI").Memory.ID
	if got := rem("we migrated builds from CircleCI to GitHub Actions").Superseded; !slices.Equal(got, []string{ci}) {
		t.Fatalf("a move: %v", got)
	}
	gorm := rem("we decided to use gorm for the data layer").Memory.ID
	if got := attributesOf(t, e, gorm); !slices.Equal(got, []string{"data layer|decisions|choice|gorm|constraint|live"}) {
		t.Fatalf("a decision is a constraint: %v", got)
	}
	rev := rem("we reversed the gorm decision and use sqlc")
	if got := rev.Superseded; !slices.Equal(got, []string{gorm}) {
		t.Fatalf("a reversed decision: %v", got)
	}
	if got := attributesOf(t, e, rev.Memory.ID); !slices.Equal(got, []string{"data layer|decisions|choice|sqlc|constraint|live"}) {
		t.Fatalf("the decision that replaced it: %v", got)
	}

	// Ambiguous: two values in one memory supersede nothing.
	if got := rem("staging runs Postgres 15 and staging runs Postgres 17").Superseded; len(got) != 0 {
		t.Fatalf("an ambiguous memory superseded %v", got)
	}

	// Recovered, the old value is live again; the next new value retires
	// both.
	recoverMemory(t, e, v14, "wrong")
	if got := attributesOf(t, e, v14); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("recovered attributes: %v", got)
	}
	if got := rem("staging runs Postgres 17").Superseded; !slices.Equal(got, []string{v14, v16}) {
		t.Fatalf("after recover: %v", got)
	}
}

// memory.supersede_attributes off: statements are plain memories again.
func TestAttributesSupersedeOff(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.Memory.SupersedeAttributes = false })
	old := memID(t, e, "staging runs Postgres 14", "atlas")
	r := remember(t, e, core.RememberInput{Content: "staging runs Postgres 16", Project: "atlas"})
	if got := r.Superseded; len(got) != 0 || gone(t, e, old) {
		t.Fatalf("superseded with the switch off: %v", got)
	}
	if n := e.Count(t, `SELECT count(*) FROM entity_attributes`); n != 0 {
		t.Fatalf("%d attributes written", n)
	}
}

// Evidence (confidence × reinforcement × staleness,
// docs/design/evolution.md, "Evidence") is one explained factor of recall:
// a fact stated again outranks an equally relevant one stated once, an
// inferred one ranks below a stated one, a year without confirmation weighs
// 0.3 (pinned memories excepted), and memory.evidence_weight = 0 turns it
// off.
func TestEvidenceRanksRecall(t *testing.T) {
	evidence := func(res *core.RecallResult) map[string]float64 {
		out := map[string]float64{}
		for _, h := range res.Results {
			out[h.Content] = h.Explain.Evidence
		}
		return out
	}
	query := core.RecallInput{Query: "kestrel rollout checklist", Explain: true, Limit: 10}
	e := newEnv(t)
	const (
		once   = "the kestrel rollout checklist is in the ops wiki"
		thrice = "the kestrel rollout checklist is in the release doc"
		infer  = "the kestrel rollout checklist is in the runbook repo"
		pin    = "the kestrel rollout checklist is in the pinned handbook"
	)
	memID(t, e, once, "")
	for range 3 {
		memID(t, e, thrice, "")
	}
	remember(t, e, core.RememberInput{Content: infer, SourceType: "inferred"})
	yes := true
	remember(t, e, core.RememberInput{Content: pin, Pinned: &yes})
	got := evidence(recall(t, e, query))
	w := config.DefaultMemoryEvidenceWeight
	want := map[string]float64{once: 1, thrice: math.Pow(1.2, w), infer: math.Pow(0.5, w), pin: 1}
	for c, w := range want {
		if math.Abs(got[c]-w) > 0.001 {
			t.Errorf("%q: evidence %.4f, want %.4f", c, got[c], w)
		}
	}
	order := contents(recall(t, e, core.RecallInput{Query: "kestrel rollout checklist", Limit: 10}))
	if len(order) != 4 || order[0] != thrice || order[3] != infer {
		t.Fatalf("ranking: %q", order)
	}

	e.Clock.Advance(400 * 24 * time.Hour)
	got = evidence(recall(t, e, query))
	if math.Abs(got[once]-math.Pow(0.3, w)) > 0.001 || got[pin] != 1 {
		t.Fatalf("a year later: %v", got)
	}

	off := newEnv(t, func(c *config.Config) { c.Memory.EvidenceWeight = 0 })
	remember(t, off, core.RememberInput{Content: infer, SourceType: "inferred"})
	if got := evidence(recall(t, off, query)); got[infer] != 1 {
		t.Fatalf("weight 0: %v", got)
	}
}

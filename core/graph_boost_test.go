package core_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// testBoostWeight is the graph boost these tests turn on (the default is
// off: see config.DefaultGraphBoostWeight).
const testBoostWeight = 0.1

func boostOn(c *config.Config) { c.Graph.BoostWeight = testBoostWeight }

// boostEnv is a keyword-only store of n memories that all match "ledger
// audit": "Vantablack" is named by half of them (common), "Quetzal" by
// two (rare), "Ostrava" by one that the query does not name.
// The boost is off by default; these tests turn it on at this weight.
func boostEnv(t *testing.T, mods ...func(*config.Config)) (e *apitest.Env, common, rare, rareAndCommon, other, plain string) {
	e = apitest.NewStoreEnv(t, append([]func(*config.Config){apitest.NoPipeline, boostOn}, mods...)...)
	const n = 20
	for i := range n / 2 {
		id := e.MustID(t, fmt.Sprintf("ledger audit %d: the report went to the Vantablack desk in the %d office.", i, i))
		if i == 0 {
			common = id
		}
	}
	rare = e.MustID(t, "ledger audit note: the report went to the Quetzal desk.")
	rareAndCommon = e.MustID(t, "ledger audit note: the Quetzal desk and the Vantablack desk agree.")
	other = e.MustID(t, "ledger audit note: the report went to the Ostrava desk.")
	plain = e.MustID(t, "ledger audit note: the report went to the usual desk.")
	for i := range n/2 - 4 {
		e.MustID(t, fmt.Sprintf("lunch menu %d has soup", i))
	}
	return
}

func explain(t *testing.T, e *apitest.Env, q string) map[string]*core.ScoreParts {
	t.Helper()
	res := apitest.Recall(t, e.Svc, core.RecallInput{Query: q, Explain: true, Limit: 50})
	out := map[string]*core.ScoreParts{}
	for _, h := range res.Results {
		out[h.ID] = h.Explain
	}
	return out
}

// TestGraphBoostOnlyRareNamedEntities: the boost lifts the memories that
// mention an entity the query names, by the entity's rarity; an entity
// mentioned by half the memories lifts nothing; an entity the query does
// not name lifts nothing.
func TestGraphBoostOnlyRareNamedEntities(t *testing.T) {
	e, common, rare, rareAndCommon, other, plain := boostEnv(t)
	if n := mentionsOf(t, e, "vantablack"); n != 11 {
		t.Fatalf("vantablack mentions %d", n)
	}
	got := explain(t, e, "ledger audit for the Vantablack and Quetzal desks")
	for _, id := range []string{common, rare, rareAndCommon, other, plain} {
		if got[id] == nil {
			t.Fatalf("memory %s not recalled", id)
		}
	}
	if got[common].Graph != 0 {
		t.Errorf("a memory naming only the common entity got %v", got[common].Graph)
	}
	if got[other].Graph != 0 || got[plain].Graph != 0 {
		t.Errorf("memories naming nothing the query names got %v and %v", got[other].Graph, got[plain].Graph)
	}
	if got[rare].Graph <= 0 || got[rareAndCommon].Graph <= 0 {
		t.Fatalf("rare entity gave no boost: %+v %+v", got[rare], got[rareAndCommon])
	}
	// The lift is boost_weight × rarity: Quetzal is named by 2 of 20 live
	// memories, rarity log(20/4)/log(10).
	w := testBoostWeight * math.Log(20.0/4) / math.Log(10)
	if want := math.Round(w*(1-got[rare].Fused)*10000) / 10000; math.Abs(got[rare].Graph-want) > 1e-4 {
		t.Errorf("graph part %v, want %v", got[rare].Graph, want)
	}
	// Only a named entity counts: asking about the Vantablack desk alone
	// lifts nothing.
	for id, p := range explain(t, e, "ledger audit at the Vantablack desk") {
		if p.Graph != 0 {
			t.Errorf("memory %s lifted by a common entity: %+v", id, p)
		}
	}
	// Substrings are not names: "quetz" names nothing.
	for id, p := range explain(t, e, "ledger audit quetz") {
		if p.Graph != 0 {
			t.Errorf("memory %s lifted by a substring: %+v", id, p)
		}
	}
}

// TestGraphBoostConfig: graph.enabled = false and boost_weight = 0 turn
// the boost off; the weight scales it.
func TestGraphBoostConfig(t *testing.T) {
	q := "ledger audit for the Vantablack and Quetzal desks"
	for _, tc := range []struct {
		name   string
		mod    func(*config.Config)
		linked bool
		boost  bool
	}{
		{"disabled", func(c *config.Config) { c.Graph.Enabled = false }, false, false},
		{"weight zero", func(c *config.Config) { c.Graph.BoostWeight = 0 }, true, false},
		{"weight one", func(c *config.Config) { c.Graph.BoostWeight = 1 }, true, true},
		{"deadline passed", func(c *config.Config) { c.Graph.BoostTimeout = config.Duration(time.Nanosecond) }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, rare, _, _, _ := boostEnv(t, tc.mod)
			if linked := mentionsOf(t, e, "quetzal") == 2; linked != tc.linked {
				t.Fatalf("linked = %v", linked)
			}
			p := explain(t, e, q)[rare]
			if p == nil || (p.Graph > 0) != tc.boost {
				t.Fatalf("graph part %+v", p)
			}
			if tc.boost {
				w := math.Log(20.0/4) / math.Log(10) // weight 1 × rarity
				if want := w * (1 - p.Fused); math.Abs(p.Graph-want) > 1e-3 {
					t.Fatalf("graph part %v, want %v", p.Graph, want)
				}
			}
		})
	}
}

// TestGraphBoostOneHopNeverAdds: an entity one relation away from a named
// one lifts the candidates mentioning it at half weight, but a memory the
// keyword and vector legs did not find is never added.
func TestGraphBoostOneHopNeverAdds(t *testing.T) {
	e, _, rare, _, _, plain := boostEnv(t)
	hop := e.MustID(t, "ledger audit note: the report went to the Zanzibar desk.")
	away := e.MustID(t, "Zanzibar has nothing in common with the question.")
	e.Exec(t, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, created_at, updated_at)
		SELECT 'r1', a.id, b.id, 'near', '2026-01-01', '2026-01-01' FROM entities a, entities b
		WHERE a.canonical_name = 'quetzal' AND b.canonical_name = 'zanzibar'`)
	got := explain(t, e, "ledger audit for the Vantablack and Quetzal desks")
	if got[away] != nil {
		t.Fatalf("the boost added a memory no leg found: %+v", got[away])
	}
	if got[hop] == nil || got[hop].Graph <= 0 || got[plain].Graph != 0 {
		t.Fatalf("one hop: hop %+v plain %+v", got[hop], got[plain])
	}
	// Zanzibar (2 of 22) is as rare as Quetzal (2 of 22) and counts half.
	if r := got[hop].Graph / (1 - got[hop].Fused) / (got[rare].Graph / (1 - got[rare].Fused)); math.Abs(r-0.5) > 0.01 {
		t.Fatalf("hop weight ratio %v, want 0.5", r)
	}
}

// BenchmarkRecallGraph measures what the graph (boost and hub dampening)
// costs recall: the store of BenchmarkRecall10k/100k (linked by the
// inline linker on import) and its queries, each recalled by a service
// with graph.enabled off and one with it on, alternately in the same loop
// so that the machine's noise hits both alike. It reports both p50s and
// their ratio.
func BenchmarkRecallGraph(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		base := recallStore(b, n)
		with := func(mod func(*config.Config)) *core.Service {
			cfg := base.Config()
			mod(&cfg)
			ap := app.New(base.DB(), cfg, app.Options{Embedder: apitest.Builtin(b)})
			if err := ap.Vectors.WarmVectors(context.Background()); err != nil {
				b.Fatal(err)
			}
			return ap.Service
		}
		on, off := with(boostOn), with(func(c *config.Config) { c.Graph.Enabled = false })
		for _, mode := range []string{core.ModeKeyword, core.ModeVector, core.ModeHybrid} {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, mode), func(b *testing.B) {
				ctx := context.Background()
				svcs := [2]*core.Service{off, on}
				for _, svc := range svcs {
					for _, q := range benchQueries {
						svc.Recall(ctx, core.RecallInput{Query: q, Mode: mode, NoTracking: true})
					}
				}
				var lat [2][]time.Duration
				i := 0
				for b.Loop() {
					in := core.RecallInput{Query: benchQueries[i%len(benchQueries)], Mode: mode, NoTracking: true,
						Filter: storage.MemoryFilter{Project: []string{"", "atlas"}[(i/len(benchQueries))%2]}}
					for k := range 2 {
						v := (i + k) % 2 // alternate which goes first
						t0 := time.Now()
						res, err := svcs[v].Recall(ctx, in)
						lat[v] = append(lat[v], time.Since(t0))
						if err != nil || len(res.Results) == 0 {
							b.Fatalf("recall: %v %v", err, res)
						}
					}
					i++
				}
				p50 := func(l []time.Duration) float64 {
					slices.Sort(l)
					return float64(l[len(l)/2].Microseconds()) / 1000
				}
				offMS, onMS := p50(lat[0]), p50(lat[1])
				b.ReportMetric(offMS, "p50-off-ms")
				b.ReportMetric(onMS, "p50-on-ms")
				b.ReportMetric(onMS/offMS, "on/off")
			})
		}
	}
}

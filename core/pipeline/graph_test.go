package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core"
)

func TestGraphPersistDedupShortNamesConfidence(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	// The inline linker already made "billing service" at remember time.
	a := e.MustID(t, "first memory about the billing service")
	b := e.MustID(t, "second memory about the billing service")
	if n := e.Count(t, `SELECT mentions FROM entities WHERE canonical_name = 'billing service' AND entity_type = 'service'`); n != 2 {
		t.Fatalf("linker mentions of billing service %d, want 2", n)
	}
	st := e.Persist(t, a, extract.ExtractionResult{
		Entities: []extract.Entity{
			{Source: "Billing  Service", SourceType: "system", Relationship: "uses", Target: "PostgreSQL", TargetType: "tool", Confidence: 0.8},
			{Source: "billing service", Relationship: "uses", Target: "Qt", Confidence: 0.9}, // "qt" is too short
			{Source: "User", Relationship: "prefers", Target: "PostgreSQL", Confidence: 0.9}, // a role word
		},
		Mentions: []extract.Mention{{Name: "  BILLING service ", Type: "name"}, {Name: "api", Type: "name"}},
	})
	// Refined, not duplicated: billing service existed and was linked;
	// postgresql is new; qt, user and api are skipped.
	if st.EntitiesCreated != 1 || st.Entities != 2 || st.Mentions != 1 || st.RelationsNew != 1 || st.Skipped != 3 {
		t.Fatalf("stats %+v", st)
	}
	if n := e.Count(t, `SELECT count(*) FROM entities`); n != 2 {
		t.Fatalf("entities %d", n)
	}
	// The triple's type replaces the linker's guess; the count is unchanged.
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE canonical_name = 'billing service' AND name = 'billing service' AND entity_type = 'system' AND mentions = 2`); n != 1 {
		t.Fatal("billing service not refined in place")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?) AND confidence = 0.9`, a); n != 2 {
		t.Fatal("the extractor's confidence did not replace the linker's lower one")
	}
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE length(canonical_name) < 3 OR canonical_name IN ('user', 'api')`); n != 0 {
		t.Fatal("short or generic name stored")
	}
	// Another memory names the same entities: mentions grow, the relation's
	// confidence is the running average.
	st = e.Persist(t, b, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "BILLING SERVICE", Relationship: "uses", Target: "postgresql", Confidence: 0.4},
	}})
	if st.EntitiesCreated != 0 || st.Mentions != 1 || st.RelationsNew != 0 || st.Relations != 1 {
		t.Fatalf("second stats %+v", st)
	}
	if n := e.Count(t, `SELECT mentions FROM entities WHERE canonical_name = 'postgresql'`); n != 2 {
		t.Fatalf("postgresql mentions %d", n)
	}
	var mentions int
	var conf float64
	if err := e.RO.QueryRow(`SELECT mentions, confidence FROM relations`).Scan(&mentions, &conf); err != nil {
		t.Fatal(err)
	}
	if mentions != 2 || math.Abs(conf-0.6) > 1e-9 {
		t.Fatalf("relation mentions %d confidence %v, want 2 and 0.6", mentions, conf)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?) AND mention_text = 'PostgreSQL'`, a); n != 1 {
		t.Fatal("mention text not kept")
	}
	list, err := e.App.Graph.Entities(context.Background(), "Billing", 10)
	if err != nil || len(list) != 1 || list[0].Mentions != 2 {
		t.Fatalf("GraphEntities: %+v %v", list, err)
	}
	r := e.Get(t, "/api/graph/entities?q=billing&limit=5").Want(t, 200)
	if ents := r.List(t, "entities"); len(ents) != 1 || ents[0]["mentions"].(float64) != 2 {
		t.Fatalf("GET /api/graph/entities: %s", r)
	}
	e.Get(t, "/api/graph/entities?limit=0").WantInvalid(t, "limit", "limit must be an integer from 1 to 1000")
}

// TestGraphPersistSkipsSpeakerLabels: the heuristic extractor sees
// "Caroline" open a conversational turn; the label is not an entity of the
// turn (every turn of hers would share it), but a name the text itself
// mentions is.
func TestGraphPersistSkipsSpeakerLabels(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	id := e.MustID(t, "Caroline: I went to the support group with Melanie and Oliver yesterday.")
	res := extract.HeuristicExtract("Caroline: I went to the support group with Melanie and Oliver yesterday.")
	names := map[string]bool{}
	for _, m := range res.Mentions {
		names[m.Name] = true
	}
	if !names["Caroline"] {
		t.Fatalf("the heuristic extractor no longer offers the label (%v): this test checks nothing", res.Mentions)
	}
	st := e.Persist(t, id, res)
	if st.EntitiesCreated != 0 {
		t.Fatalf("the pipeline created entities the linker did not: %+v", st)
	}
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE canonical_name = 'caroline'`); n != 0 {
		t.Fatal("a speaker label became an entity")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions mm JOIN entities e ON e.rid = mm.entity_rid
		WHERE mm.memory_rid = (SELECT rid FROM memories WHERE id = ?) AND e.canonical_name IN ('melanie', 'oliver')`, id); n != 2 {
		t.Fatalf("names in the text linked: %d, want 2", n)
	}
	// A relation whose subject is the speaker keeps its other end.
	st = e.Persist(t, id, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "Caroline", Relationship: "attends", Target: "support group meetings", Confidence: 0.9},
	}})
	if st.RelationsNew != 0 || st.EntitiesCreated != 1 || st.Skipped != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestGraphPersistIdempotent(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	a := e.MustID(t, "the billing service uses postgresql")
	res := extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "billing service", Relationship: "uses", Target: "postgresql", Confidence: 0.8},
	}}
	e.Persist(t, a, res)
	res.Entities[0].Confidence = 0.2
	st := e.Persist(t, a, res) // the same memory re-processed
	if st.Mentions != 0 || st.EntitiesCreated != 0 || st.RelationsNew != 0 {
		t.Fatalf("re-processing wrote %+v", st)
	}
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE mentions = 1`); n != 2 {
		t.Fatal("mentions double counted")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions`); n != 2 {
		t.Fatalf("links %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM relations WHERE mentions = 1 AND confidence = 0.8`); n != 1 {
		t.Fatal("relation counted again for the same memory")
	}
}

func recallParts(t *testing.T, e *apitest.Env, q string) map[string]*core.RecallHit {
	t.Helper()
	res, err := e.Svc.Recall(context.Background(), core.RecallInput{Query: q, Explain: true, NoTracking: true, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*core.RecallHit{}
	for _, h := range res.Results {
		out[h.ID] = h
	}
	return out
}

func TestGraphBoostLiftsLinkedMemory(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Graph.BoostWeight = 0.1 }) // off by default
	e.MustID(t, "deploy script deploy script deploy script")                                           // the best keyword hit, so the others score below 1
	a := e.MustID(t, "the deploy script for alpha")
	b := e.MustID(t, "the deploy script for bravo")
	d := e.MustID(t, "the deploy script for delta")
	x := e.MustID(t, "an unrelated note about infrastructure")
	for i := range 12 { // the store is large enough for Kubernetes to be rare
		e.MustID(t, fmt.Sprintf("filler note number %d about lunch", i))
	}
	// The query names "zephyr pipeline"; a and d reach it one hop away.
	e.Persist(t, x, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "Zephyr Pipeline", Relationship: "runs_on", Target: "Kubernetes", Confidence: 0.9},
	}})
	e.Persist(t, a, extract.ExtractionResult{Entities: []extract.Entity{{Source: "alpha team", Relationship: "uses", Target: "Kubernetes", Confidence: 0.9}}})
	e.Persist(t, d, extract.ExtractionResult{Entities: []extract.Entity{{Source: "delta team", Relationship: "uses", Target: "Kubernetes", Confidence: 0.9}}})

	hits := recallParts(t, e, "deploy script of the zephyr pipeline")
	ha, hb, hd := hits[a], hits[b], hits[d]
	if ha == nil || hb == nil || hd == nil {
		t.Fatalf("missing hits: %v", hits)
	}
	if ha.Explain.Graph <= 0 || hb.Explain.Graph != 0 {
		t.Fatalf("graph parts a=%v b=%v", ha.Explain.Graph, hb.Explain.Graph)
	}
	if ha.Explain.Fused != hb.Explain.Fused || ha.Score <= hb.Score {
		t.Fatalf("a (linked) %+v should beat b %+v", ha.Explain, hb.Explain)
	}
	// A deleted memory is never boosted (nor returned); the live one still is.
	e.Del(t, d, map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	hits = recallParts(t, e, "deploy script of the zephyr pipeline")
	if hits[d] != nil || hits[a] == nil || hits[a].Explain.Graph <= 0 {
		t.Fatalf("after delete: %v", hits)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?)`, d); n != 2 {
		t.Fatal("the deleted memory's links are kept for retention to purge")
	}
}

// TestGraphHubDampening: a memory whose every entity is a hub (named by
// at least half the live memories) is dampened ×0.7, unless the query
// names the hub; an entity merely above the 90th percentile of mention
// counts is no hub.
func TestGraphHubDampening(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	hub := e.MustID(t, "zebra notes on the hub topic")
	plain := e.MustID(t, "zebra notes on a niche topic")
	often := e.MustID(t, "zebra notes on a frequent topic")
	link := func(id, name string) {
		t.Helper()
		e.Persist(t, id, extract.ExtractionResult{Entities: []extract.Entity{{Source: name, Relationship: "is", Target: name, Confidence: 1}}})
	}
	link(hub, "Acme Corp")
	link(plain, "Niche Alder")
	link(often, "Frequent Widget")
	// 24 memories: Acme Corp is named by 12 of them, Frequent Widget by 6
	// (far above the 90th percentile of mention counts, 1), the rest by one.
	for i := 1; i <= 21; i++ {
		id := e.MustID(t, fmt.Sprintf("filler memory number %d", i))
		switch {
		case i <= 11:
			link(id, "Acme Corp")
		case i <= 16:
			link(id, "Frequent Widget")
		default:
			link(id, fmt.Sprintf("Niche Thing%c", 'a'+i))
		}
	}
	hits := recallParts(t, e, "zebra notes")
	if hits[hub] == nil || hits[plain] == nil || hits[often] == nil {
		t.Fatalf("missing hits %v", hits)
	}
	if got := hits[hub].Explain.Dampening; math.Abs(got-0.7) > 1e-9 {
		t.Fatalf("hub dampening %v, want 0.7", got)
	}
	if got := hits[plain].Explain.Dampening; got != 1 {
		t.Fatalf("non-hub dampening %v, want 1", got)
	}
	if got := hits[often].Explain.Dampening; got != 1 {
		t.Fatalf("an entity above the P90 but named by a quarter of the store dampened: %v", got)
	}
	// A query naming the hub targets it: its memories are not dampened.
	if got := recallParts(t, e, "zebra notes about Acme Corp")[hub].Explain.Dampening; got != 1 {
		t.Fatalf("hub named by the query dampened: %v", got)
	}
	// A memory linked to a hub and a non-hub is not dampened.
	link(hub, "Rare Widget")
	if got := recallParts(t, e, "zebra notes")[hub].Explain.Dampening; got != 1 {
		t.Fatalf("mixed links dampened: %v", got)
	}
	// With the graph off, nothing is a hub and nothing is persisted.
	hub2 := e.MustID(t, "zebra notes on another hub topic")
	link(hub2, "Acme Corp")
	if got := recallParts(t, e, "zebra notes")[hub2].Explain.Dampening; math.Abs(got-0.7) > 1e-9 {
		t.Fatalf("second hub memory: dampening %v", got)
	}
	e.Rebuild(func(c *config.Config) { c.Graph.Enabled = false })
	if got := recallParts(t, e, "zebra notes")[hub2].Explain.Dampening; got != 1 {
		t.Fatalf("graph off, dampening %v", got)
	}
	if st := e.Persist(t, plain, extract.ExtractionResult{Entities: []extract.Entity{{Source: "Other Widget", Relationship: "is", Target: "Other Widget", Confidence: 1}}}); st.Entities != 0 {
		t.Fatalf("graph off, persisted %+v", st)
	}
}

func TestPipelinePersistsGraph(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	src := e.MustID(t, "Cairn uses Redis for session caching and rate limiting in production. We decided to keep it that way.")
	linked := e.Count(t, `SELECT count(*) FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?)`, src)
	if linked != 1 {
		t.Fatalf("the linker linked %d entities at remember time, want 1 (redis; Cairn only opens a sentence)", linked)
	}
	res := runOneJob(t, e)
	if res.Graph == nil || res.Graph.Error != "" || res.Graph.Entities != 2 || res.Graph.Mentions != 1 || res.Graph.RelationsNew != 1 {
		t.Fatalf("graph stats %+v (entities %v)", res.Graph, res.Entities)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?)`, src); n != linked+res.Graph.Mentions {
		t.Fatalf("links %d, stats %+v", n, res.Graph)
	}
	if n := e.Count(t, `SELECT count(*) FROM entities WHERE canonical_name = 'redis' AND mentions = 1`); n != 1 {
		t.Fatal("redis not one entity with one mention")
	}
	if n := e.Count(t, `SELECT count(*) FROM relations WHERE relation_type = 'uses'`); n != 1 {
		t.Fatal("no uses relation")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE memory_id = ? AND json_extract(result, '$.graph.relationsCreated') = 1`, src); n != 1 {
		t.Fatal("graph stats not in the stored job result")
	}
}

package pipeline_test

import (
	"encoding/json"
	"testing"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

func runOneJob(t *testing.T, e *apitest.Env) *pipeline.ExtractJobResult {
	t.Helper()
	return runScripted(t, e, llm.NewHeuristic())
}

// The built-in heuristic provider extracts a memory's own sentences: none
// of them is proposed (each restates its source), and no decision search
// runs. Questions, greetings and speaker labels never become facts.
func TestHeuristicProposesNothingThatRestatesItsSource(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	src := e.MustID(t, billingMemory)
	res := runOneJob(t, e)
	if res.FactCount != 2 || len(res.Proposals) != 0 || res.Screened["restates_source"] != 2 {
		t.Fatalf("facts %d proposals %d screened %v", res.FactCount, len(res.Proposals), res.Screened)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals`); n != 0 {
		t.Fatalf("%d proposals stored", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND extraction_status = 'completed'`, src); n != 1 {
		t.Fatal("source extraction_status not completed")
	}
	// A package description whose code fence the extractor drops is still
	// its own source (found among 5,000 real notes).
	e.MustID(t, "collection of roundrobin utilities: ``` >>> import roundrobin >>> get_roundrobin = roundrobin.basic([\"A\", \"B\", \"C\"]) >>> ''.join([get_roundrobin() for _ in range(7)]) 'ABCABCA' ```")
	if res := runOneJob(t, e); len(res.Proposals) != 0 || res.Screened["restates_source"] == 0 {
		t.Fatalf("fenced memory: proposals %d screened %v", len(res.Proposals), res.Screened)
	}
	got := extract.HeuristicExtract("Caroline: Hey Mel, how are you doing today?\nMelanie: Thanks so much!\nCaroline: I went to the LGBTQ support group yesterday and it was powerful.")
	if len(got.Facts) != 1 || got.Facts[0].Content != "I went to the LGBTQ support group yesterday and it was powerful." {
		t.Fatalf("facts of a chat: %+v", got.Facts)
	}
}

// rephrasing is a model (a scripted Ollama server) that extracts facts in
// its own words, as an LLM does, and decides "add" for each.
func rephrasing(t *testing.T, facts ...string) extract.LLM {
	t.Helper()
	var fs []map[string]any
	for _, f := range facts {
		fs = append(fs, map[string]any{"content": f, "type": "fact", "confidence": 0.9})
	}
	b, err := json.Marshal(map[string]any{"facts": fs, "entities": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	m := &scriptedModel{extract: string(b), decide: func(extract.Fact, []extract.Candidate) string {
		return `{"action": "add", "confidence": 0.9, "reason": "new information"}`
	}}
	return m.serve(t)
}

const (
	billingMemory = "We decided to use PostgreSQL for the billing service because it supports row level locking. The team prefers Go for all new backend services going forward."
	billingFact1  = "The billing service runs on PostgreSQL for its row level locking."
	billingFact2  = "New backend services are written in Go."
)

func TestPipelineShadowApproveReject(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Pipeline.ShadowMode = true })
	src := e.MustID(t, billingMemory)
	res := runScripted(t, e, rephrasing(t, billingFact1, billingFact2))
	if res.WriteMode != "shadow" || res.FactCount < 2 || len(res.Proposals) < 2 {
		t.Fatalf("result: mode=%s facts=%d proposals=%d warnings=%v", res.WriteMode, res.FactCount, len(res.Proposals), res.Warnings)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'none' AND changed_by = 'pipeline-shadow'`, src); n != len(res.Proposals) {
		t.Fatalf("history events %d, proposals %d", n, len(res.Proposals))
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE source_type = 'pipeline-v2'`); n != 0 {
		t.Fatalf("shadow mode wrote %d memories", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND extraction_status = 'completed'`, src); n != 1 {
		t.Fatal("source extraction_status not completed")
	}
	list := e.Get(t, "/api/proposals?state=pending&action=add")
	props, _ := list.JSON["proposals"].([]any)
	if list.Status != 200 || len(props) < 2 {
		t.Fatalf("list: %d %s", list.Status, list.Raw)
	}
	p0 := props[0].(map[string]any)["id"].(string)
	p1 := props[1].(map[string]any)["id"].(string)
	ap := e.Do(t, "POST", "/api/proposals/"+p0+"/approve", map[string]any{"reason": "looks right"}, apitest.Hdr("X-Cairn-Actor", "alice", "X-Cairn-Actor-Type", "operator"))
	if ap.Status != 200 {
		t.Fatalf("approve: %d %s", ap.Status, ap.Raw)
	}
	newID := ap.JSON["proposal"].(map[string]any)["appliedMemoryId"].(string)
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'created' AND changed_by = 'alice' AND actor_type = 'operator'`, newID); n != 1 {
		t.Fatal("approved memory has no created event by the operator")
	}
	if again := e.Do(t, "POST", "/api/proposals/"+p0+"/approve", map[string]any{}, nil); again.Status != 409 {
		t.Fatalf("approve twice: %d", again.Status)
	}
	if r := e.Post(t, "/api/proposals/"+p1+"/reject", map[string]any{}); r.Status != 400 {
		t.Fatalf("reject without reason: %d", r.Status)
	}
	if r := e.Post(t, "/api/proposals/"+p1+"/reject", map[string]any{"reason": "too vague"}); r.Status != 200 {
		t.Fatalf("reject: %d %s", r.Status, r.Raw)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'none' AND reason LIKE 'proposal rejected: too vague'`, src); n != 1 {
		t.Fatal("rejection not in history")
	}
	st := e.Get(t, "/api/pipeline/status")
	if st.Status != 200 || st.JSON["mode"] != "shadow" {
		t.Fatalf("status: %s", st.Raw)
	}
	for _, path := range []string{"/api/jobs/", "/api/memory/jobs/"} {
		job := e.Get(t, path+res.Proposals[0].JobID)
		if job.Status != 200 || job.JSON["status"] != storage.JobCompleted {
			t.Fatalf("%s: %s", path, job.Raw)
		}
	}
}

func TestPipelineControlledWriteDedupAndLowConfidence(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) {
		c.Embedding.Provider = "none"
		c.Pipeline.ShadowMode = false
		c.PipelineV2.MinFactConfidenceForWrite = 0.0
	})
	e.MustID(t, billingMemory)
	model := rephrasing(t, billingFact1, billingFact2)
	res := runScripted(t, e, model)
	if res.WriteMode != "controlled-write" || res.WriteStats.Added != 2 {
		t.Fatalf("controlled write: %+v warnings=%v", res.WriteStats, res.Warnings)
	}
	n := e.Count(t, `SELECT count(*) FROM memories WHERE source_type = 'pipeline-v2' AND who = 'pipeline-v2'`)
	if n != res.WriteStats.Added {
		t.Fatalf("memories %d, added %d", n, res.WriteStats.Added)
	}
	// The same facts from another memory: they restate live memories and
	// are not proposed again.
	e.MustID(t, "Note: "+billingMemory)
	res2 := runScripted(t, e, model)
	if len(res2.Proposals) != 0 || res2.Screened["restates_live_memory"] != 2 {
		t.Fatalf("second run: proposals %d screened %v", len(res2.Proposals), res2.Screened)
	}
}

func TestPipelineLowConfidenceSkipped(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) {
		c.Embedding.Provider = "none"
		c.Pipeline.ShadowMode = false
		c.PipelineV2.MinFactConfidenceForWrite = 1.0
	})
	e.MustID(t, billingMemory)
	res := runScripted(t, e, rephrasing(t, billingFact1))
	if res.WriteStats.Added != 0 || res.WriteStats.Skipped == 0 {
		t.Fatalf("%+v", res.WriteStats)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE skipped_reason = 'low_fact_confidence' AND state = 'pending'`); n == 0 {
		t.Fatal("no low_fact_confidence proposal")
	}
}

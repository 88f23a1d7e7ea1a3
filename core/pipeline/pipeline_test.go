package pipeline_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

func runOneJob(t *testing.T, e *apitest.Env) *pipeline.ExtractJobResult {
	t.Helper()
	ctx := context.Background()
	job, err := e.Svc.Jobs().Lease(ctx, "test", core.JobExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := pipeline.For(e.Svc).ProcessExtractJob(ctx, job, llm.NewHeuristic())
	if err != nil {
		t.Fatalf("process: %v", err)
	}
	return res
}

func TestPipelineShadowApproveReject(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	src := e.MustID(t, "We decided to use PostgreSQL for the billing service because it supports row level locking. The team prefers Go for all new backend services going forward.")
	res := runOneJob(t, e)
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
	e.MustID(t, "We decided to use PostgreSQL for the billing service because it supports row level locking. The team prefers Go for all new backend services going forward.")
	res := runOneJob(t, e)
	if res.WriteMode != "controlled-write" || res.WriteStats.Added == 0 {
		t.Fatalf("controlled write: %+v warnings=%v", res.WriteStats, res.Warnings)
	}
	n := e.Count(t, `SELECT count(*) FROM memories WHERE source_type = 'pipeline-v2' AND who = 'pipeline-v2'`)
	if n != res.WriteStats.Added {
		t.Fatalf("memories %d, added %d", n, res.WriteStats.Added)
	}
	// The same content again: every fact dedups onto the memories above.
	e.MustID(t, "Note: we decided to use PostgreSQL for the billing service because it supports row level locking. The team prefers Go for all new backend services going forward.")
	res2 := runOneJob(t, e)
	if res2.WriteStats.Deduped+res2.WriteStats.Recorded == 0 {
		t.Fatalf("second run did not dedup: %+v", res2.WriteStats)
	}
}

func TestPipelineLowConfidenceSkipped(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) {
		c.Embedding.Provider = "none"
		c.Pipeline.ShadowMode = false
		c.PipelineV2.MinFactConfidenceForWrite = 1.0
	})
	e.MustID(t, "We decided to use PostgreSQL for the billing service because it supports row level locking.")
	res := runOneJob(t, e)
	if res.WriteStats.Added != 0 || res.WriteStats.Skipped == 0 {
		t.Fatalf("%+v", res.WriteStats)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE skipped_reason = 'low_fact_confidence' AND state = 'pending'`); n == 0 {
		t.Fatal("no low_fact_confidence proposal")
	}
}

package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// scriptedModel is an Ollama server (POST /api/generate, the real wire
// format) whose answers are scripted per prompt kind.
type scriptedModel struct {
	extract    string
	decide     func(fact extract.Fact, cands []extract.Candidate) string
	contradict string
	hang       bool // contradiction calls never answer
	calls      atomic.Int64
	checks     atomic.Int64
}

func (m *scriptedModel) serve(t *testing.T) extract.LLM {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/generate" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		m.calls.Add(1)
		var out string
		if _, ok := extract.ExtractionPromptInput(req.Prompt); ok {
			out = m.extract
		} else if f, c, ok := extract.DecisionPromptInput(req.Prompt); ok {
			out = m.decide(f, c)
		} else if strings.Contains(req.Prompt, extract.ContradictionBeginMarker) {
			m.checks.Add(1)
			if m.hang {
				<-r.Context().Done()
				return
			}
			out = m.contradict
		} else {
			http.Error(w, "unexpected prompt", 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "qwen3:4b", "response": out, "done": true, "done_reason": "stop"})
	}))
	t.Cleanup(srv.Close)
	m2, err := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "qwen3:4b", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return m2
}

const (
	oldFact = "The billing service stores invoices in PostgreSQL on the primary cluster in Frankfurt."
	newFact = "The billing service stores invoices in MySQL on the primary cluster in Frankfurt."
)

// decideEnv stores the target memory (its own extract job retired) and a
// source memory whose extraction yields newFact; it returns the target id.
func decideEnv(t *testing.T, mods ...func(*config.Config)) (*apitest.Env, string) {
	t.Helper()
	e := apitest.NewEnv(t, append([]func(*config.Config){func(c *config.Config) { c.Embedding.Provider = "none" }}, mods...)...)
	target := e.MustID(t, oldFact)
	if err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		_, err := tx.ExecContext(context.Background(), `UPDATE memory_jobs SET status = 'completed' WHERE memory_id = ?`, target)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.MustID(t, "After the migration last week, the billing service moved its invoices to MySQL; the Frankfurt primary cluster keeps them.")
	return e, target
}

func extractAnswer(fact string) string {
	return "<think>The user moved databases.</think>\n```json\n{\"facts\": [{\"content\": \"" + fact + "\", \"type\": \"fact\", \"confidence\": 0.9}], \"entities\": []}\n```"
}

func updateTo(target string) func(extract.Fact, []extract.Candidate) string {
	return func(_ extract.Fact, cands []extract.Candidate) string {
		return `{"action": "update", "targetId": "` + target + `", "confidence": 0.85, "reason": "the database changed"}`
	}
}

func runScripted(t *testing.T, e *apitest.Env, m extract.LLM) *pipeline.ExtractJobResult {
	t.Helper()
	job, err := e.App.Jobs.Lease(context.Background(), "test", jobs.Extract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := e.App.Pipeline.ProcessExtractJob(context.Background(), job, m)
	if err != nil {
		t.Fatalf("process: %v", err)
	}
	return res
}

func TestDecisionWithAHallucinatedTargetIsDropped(t *testing.T) {
	e, target := decideEnv(t)
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo("0198f00d-dead-7bad-beef-000000000000")}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 0 {
		t.Fatalf("a hallucinated target made a proposal: %+v", res.Proposals[0])
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "not one of the candidates") {
		t.Fatalf("warnings do not say why: %q", res.Warnings)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals`); n != 0 {
		t.Fatalf("%d proposals stored", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND content = ? AND version = 1`, target, oldFact); n != 1 {
		t.Fatal("target changed")
	}
	// The job is completed with the warning visible in its result.
	jobs := e.Get(t, "/api/jobs?status=completed&type=extract").List(t, "jobs")
	found := false
	for _, j := range jobs {
		if r, _ := j["result"].(string); strings.Contains(r, "not one of the candidates") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no completed job records the warning: %v", jobs)
	}
}

func TestPinnedTargetIsNeverChanged(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) {
		c.Pipeline.ShadowMode = false
		c.PipelineV2.AllowUpdateDelete = true
		c.PipelineV2.SemanticContradiction = false
	})
	e.Patch(t, target, map[string]any{"pinned": true, "reason": "keep"}).Want(t, 200)
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target)}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 1 || !res.Proposals[0].Blocked || res.Proposals[0].BlockedReason != "pinned_target" {
		t.Fatalf("proposal: %+v warnings %q", res.Proposals[0], res.Warnings)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND content = ?`, target, oldFact); n != 1 {
		t.Fatal("pinned target changed by the pipeline")
	}
	// An operator approving it is refused too: unpin first.
	e.Post(t, "/api/proposals/"+res.Proposals[0].ID+"/approve", map[string]any{"reason": "ok"}).WantErr(t, 409, core.CodePinned)
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending'`); n != 1 {
		t.Fatal("refused approval changed the proposal's state")
	}
}

func TestApprovingAStaleUpdateFails(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) { c.Pipeline.ShadowMode = true; c.PipelineV2.SemanticContradiction = false })
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target)}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 1 || res.Proposals[0].Action != "update" || !res.Proposals[0].Shadow {
		t.Fatalf("proposals: %+v", res.Proposals)
	}
	pid := res.Proposals[0].ID
	// Someone edits the target after the proposal was made.
	e.Patch(t, target, map[string]any{"content": "The billing service stores invoices in CockroachDB.", "reason": "moved again"}).Want(t, 200)
	e.Post(t, "/api/proposals/"+pid+"/approve", map[string]any{"reason": "ok"}).WantErr(t, 409, core.CodeVersionConflict)
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND content LIKE '%CockroachDB%'`, target); n != 1 {
		t.Fatal("stale approval overwrote the newer content")
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE id = ? AND state = 'pending'`, pid); n != 1 {
		t.Fatal("stale proposal left pending state")
	}
	// Rejected instead: recorded in history with the reason.
	e.Post(t, "/api/proposals/"+pid+"/reject", map[string]any{"reason": "superseded"}).Want(t, 200)
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE reason LIKE '%superseded%'`); n < 1 {
		t.Fatal("rejection not in history")
	}
}

func TestSemanticContradictionFlagsReview(t *testing.T) {
	controlled := func(c *config.Config) {
		c.Pipeline.ShadowMode = false
		c.PipelineV2.AllowUpdateDelete = true
		c.PipelineV2.SemanticContradictionTimeout = config.Duration(300 * time.Millisecond)
	}
	if risk, why := extract.DetectContradiction(newFact, oldFact); risk {
		t.Fatalf("the syntactic detector already flags these (%s); the test needs a pair it misses", why)
	}
	cases := []struct {
		name       string
		answer     string
		hang       bool
		wantReview bool
	}{
		{"confident yes", "Sure.\n{\"contradicts\": true, \"confidence\": 0.92, \"reason\": \"PostgreSQL and MySQL cannot both hold them\",}", false, true},
		{"unsure yes", `{"contradicts": true, "confidence": 0.4, "reason": "maybe"}`, false, false},
		{"no", `{"contradicts": false, "confidence": 0.9, "reason": "compatible"}`, false, false},
		{"garbage", `I cannot answer that`, false, false},
		{"hangs", "", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, target := decideEnv(t, controlled)
			m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target), contradict: tc.answer, hang: tc.hang}
			res := runScripted(t, e, m.serve(t))
			if m.checks.Load() != 1 || len(res.Proposals) != 1 {
				t.Fatalf("checks=%d proposals=%+v warnings=%q", m.checks.Load(), res.Proposals, res.Warnings)
			}
			p := res.Proposals[0]
			if p.ReviewNeeded != tc.wantReview || p.ContradictionRisk != tc.wantReview {
				t.Fatalf("review=%v risk=%v, want %v (warnings %q)", p.ReviewNeeded, p.ContradictionRisk, tc.wantReview, res.Warnings)
			}
			// The target keeps its content either way: an applied update
			// supersedes it with a memory holding the fact.
			if tc.wantReview {
				if !p.Blocked || p.BlockedReason != "contradiction_review_needed" {
					t.Fatalf("flagged proposal not held for review: %+v", p)
				}
				if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 0 AND superseded_by IS NULL`, target); n != 1 {
					t.Fatal("a flagged update retired its target")
				}
			} else {
				if res.WriteStats.Updated != 1 {
					t.Fatalf("unflagged update not applied: %+v %q", res.WriteStats, res.Warnings)
				}
				if n := e.Count(t, `SELECT count(*) FROM memories o JOIN memories n ON n.id = o.superseded_by
					WHERE o.id = ? AND o.is_deleted = 1 AND n.content = ? AND n.is_deleted = 0`, target, newFact); n != 1 {
					t.Fatal("the applied update did not supersede its target with the fact")
				}
			}
			if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND content = ?`, target, oldFact); n != 1 {
				t.Fatal("the target's content was overwritten")
			}
			if (tc.hang || tc.name == "garbage") && len(res.Warnings) == 0 {
				t.Fatal("a failed check left no warning")
			}
		})
	}
}

func TestSemanticContradictionSkippedForUnrelatedOrHeuristic(t *testing.T) {
	ctx := context.Background()
	v, ok, _ := extract.ParseContradiction("```json\n{\"contradicts\": \"yes\", \"confidence\": 7}\n```")
	if !ok || !v.Contradicts || v.Confidence != 1 {
		t.Fatalf("parse: %+v ok=%v", v, ok)
	}
	if _, ok, w := extract.ParseContradiction(`{"contradicts": "perhaps"}`); ok || len(w) == 0 {
		t.Fatal("a non-boolean verdict was accepted")
	}
	// Few shared words: no model call at all.
	e, target := decideEnv(t)
	m := &scriptedModel{extract: extractAnswer("Invoices now live in MySQL."), decide: updateTo(target), contradict: `{"contradicts": true, "confidence": 1}`}
	res := runScripted(t, e, m.serve(t))
	if m.checks.Load() != 0 || len(res.Proposals) != 1 || res.Proposals[0].ReviewNeeded {
		t.Fatalf("checks=%d proposals=%+v", m.checks.Load(), res.Proposals)
	}
	_ = ctx
}

// In controlled-write mode with updates allowed, the update is applied after
// the job's transaction; the job's stored result and the proposal then say
// so (the stored result is the final one).
func TestAppliedUpdateIsInTheStoredJobResult(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) {
		c.Pipeline.ShadowMode = false
		c.PipelineV2.AllowUpdateDelete = true
	})
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target), contradict: `{"contradicts": false, "reason": "same subject"}`}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 1 || res.WriteStats.Updated != 1 {
		t.Fatalf("result: %+v warnings %q", res.WriteStats, res.Warnings)
	}
	p := res.Proposals[0]
	job := e.Get(t, "/api/jobs/"+p.JobID).Want(t, 200)
	var stored pipeline.ExtractJobResult
	if err := json.Unmarshal([]byte(job.Str("result")), &stored); err != nil {
		t.Fatalf("stored result: %v\n%s", err, job.Raw)
	}
	if stored.WriteStats.Updated != 1 || len(stored.Proposals) != 1 || stored.Proposals[0].State != storage.ProposalApplied {
		t.Fatalf("stored result: %+v proposals %+v", stored.WriteStats, stored.Proposals)
	}
	if got := e.Get(t, "/api/proposals/"+p.ID).Want(t, 200); got.Str("state") != storage.ProposalApplied {
		t.Fatalf("proposal: %s", got.Raw)
	}
}

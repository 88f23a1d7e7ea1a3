package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// Learning from sessions by default (issue 34): what a session teaches is
// live memory of its project, observed knowledge (confidence 0.7), with the
// session as its source; hedged facts stay pending; a change replacing an
// existing memory is written at once and the old memory's retirement
// waits for review, unless pipeline_v2.allow_update_delete.

// endSession ends session key of projA with the user prompts as its
// Claude Code transcript, then runs its learning job with the heuristic
// provider.
func endSession(t *testing.T, e *apitest.Env, key string, prompts ...string) *pipeline.ExtractJobResult {
	t.Helper()
	var lines []string
	for _, p := range prompts {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
		lines = append(lines, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Understood. Let me look at the code first, then I will make the change you asked for and run the whole test suite again."}]}}`)
	}
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": key, "cwd": projA,
		"transcript": strings.Join(lines, "\n")}).Want(t, 200)
	return runSessionJob(t, e)
}

// runSessionJob runs the next session learning job with the heuristic
// provider.
func runSessionJob(t *testing.T, e *apitest.Env) *pipeline.ExtractJobResult {
	t.Helper()
	ctx := context.Background()
	job, err := e.App.Jobs.Lease(ctx, "test", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSessionLearningIsLiveByDefault(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	if cfg := config.DefaultConfig(); cfg.Pipeline.ShadowMode || cfg.PipelineV2.AllowUpdateDelete {
		t.Fatalf("default config: shadow %v, allow_update_delete %v; want learning live, updates for review", cfg.Pipeline.ShadowMode, cfg.PipelineV2.AllowUpdateDelete)
	}
	res := endSession(t, e, "s-live",
		"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
		"Maybe the staging cluster moves to Frankfurt next quarter, probably after the audit.")
	if res.WriteMode != "controlled-write" || res.WriteStats.Added != 1 {
		t.Fatalf("result: mode %s stats %+v proposals %+v", res.WriteMode, res.WriteStats, res.Proposals)
	}
	var m struct {
		ID, Content, SessionID, Who, SourceType, SourceID, Project string
		Confidence                                                 float64
	}
	row := e.RO.QueryRow(`SELECT id, content, session_id, who, source_type, source_id, project, confidence FROM memories WHERE is_deleted = 0 AND content LIKE '%sqlc%'`)
	if err := row.Scan(&m.ID, &m.Content, &m.SessionID, &m.Who, &m.SourceType, &m.SourceID, &m.Project, &m.Confidence); err != nil {
		t.Fatalf("the decision is not a live memory: %v", err)
	}
	if m.SessionID != "s-live" || m.SourceID != "session:s-live" || m.Project != projA || m.Confidence != evolution.ConfidenceObserved {
		t.Fatalf("learned memory: %+v; want session s-live, source session:s-live, project %s, confidence %v", m, projA, evolution.ConfidenceObserved)
	}
	// The hedged fact stays a pending proposal.
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending' AND skipped_reason = 'low_fact_confidence' AND fact LIKE '%Frankfurt%'`); n != 1 {
		t.Fatalf("hedged fact: %d pending proposals", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE content LIKE '%Frankfurt%'`); n != 0 {
		t.Fatal("a hedged fact became memory")
	}
	// Shadow mode remains a setting: nothing is written then.
	e2 := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Pipeline.ShadowMode = true })
	if res := endSession(t, e2, "s-shadow", "We decided to use sqlc instead of gorm because gorm hid N+1 queries."); res.WriteMode != "shadow" || res.WriteStats.Added != 0 {
		t.Fatalf("shadow mode: %+v", res.WriteStats)
	}
	if n := e2.Count(t, `SELECT count(*) FROM memories WHERE source_type = 'pipeline-v2'`); n != 0 {
		t.Fatalf("shadow mode wrote %d memories", n)
	}
}

// A fact a model re-derives from a remembered memory is inferred (0.5,
// docs/design/evolution.md#confidence-by-source): the memory itself is
// live, the rewording waits for review.
func TestFactsOfARememberedMemoryWaitForReview(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	e.MustID(t, billingMemory)
	res := runScripted(t, e, rephrasing(t, billingFact1))
	if res.WriteStats.Added != 0 || res.WriteStats.Skipped != 1 {
		t.Fatalf("stats %+v", res.WriteStats)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending' AND skipped_reason = 'inferred_below_write_confidence'`); n != 1 {
		t.Fatalf("%d pending inferred proposals", n)
	}
	// Lowering the threshold to the inferred confidence writes them.
	e2 := apitest.NewEnv(t, func(c *config.Config) {
		c.Embedding.Provider = "none"
		c.PipelineV2.MinFactConfidenceForWrite = evolution.ConfidenceInferred
	})
	e2.MustID(t, billingMemory)
	if res := runScripted(t, e2, rephrasing(t, billingFact1)); res.WriteStats.Added != 1 {
		t.Fatalf("threshold 0.5: %+v", res.WriteStats)
	}
}

const (
	gooseSession = "For migrations we use goose, and the migration files go in internal/db/migrations."
	atlasSession = "goose's out-of-order migrations bit us twice this month. From now on we use Atlas for migrations instead of goose."
)

// A later session's change ("we use Atlas instead of goose") is live at
// once; the memory about goose is superseded when the user approves the
// proposal (or at once with allow_update_delete). Until then the prompt
// hook puts the current value first and marks the old one.
func TestLearnedChangeSupersedesAfterReview(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	endSession(t, e, "s-goose", gooseSession)
	var goose string
	if err := e.RO.QueryRow(`SELECT id FROM memories WHERE content LIKE '%we use goose%'`).Scan(&goose); err != nil {
		t.Fatalf("the goose session taught nothing: %v", err)
	}
	res := endSession(t, e, "s-atlas", atlasSession)
	var upd *storage.Proposal
	for _, p := range res.Proposals {
		if p.Action == extract.ActionUpdate {
			upd = p
		}
	}
	if upd == nil || upd.TargetMemoryID != goose || upd.State != storage.ProposalPending || upd.BlockedReason != "update_delete_not_allowed" || upd.AppliedMemoryID == "" {
		t.Fatalf("update proposal: %+v (all: %+v)", upd, res.Proposals)
	}
	atlas := upd.AppliedMemoryID
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 0 AND content LIKE '%Atlas%'`, atlas); n != 1 {
		t.Fatal("the new value is not live while the update waits for review")
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 0`, goose); n != 1 {
		t.Fatal("the old value was retired without review")
	}
	// "Which tool now?" gets the current value first, the old one marked.
	inject := e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "cwd": projA,
		"prompt": "Which tool do we use for migrations now, goose?"}).Want(t, 200).Str("inject")
	ia, ig := strings.Index(inject, "Atlas for migrations"), strings.Index(inject, "we use goose")
	if ia < 0 || ig >= 0 && ig < ia {
		t.Fatalf("the current value is not first:\n%s", inject)
	}
	if ig >= 0 && !strings.Contains(inject[ig:], "replaced by a later memory, pending review") {
		t.Fatalf("the old value is not marked:\n%s", inject)
	}
	// Approving the proposal supersedes goose by the live Atlas memory.
	e.Post(t, "/api/proposals/"+upd.ID+"/approve", map[string]any{"reason": "right"}).Want(t, 200)
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 1 AND superseded_by = ?`, goose, atlas); n != 1 {
		t.Fatal("approval did not supersede the old value by the learned one")
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 0 AND content LIKE '%Atlas%'`); n != 1 {
		t.Fatal("approval duplicated the learned memory")
	}

	// With allow_update_delete the supersession is applied at once.
	e2 := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.PipelineV2.AllowUpdateDelete = true })
	endSession(t, e2, "s-goose", gooseSession)
	res = endSession(t, e2, "s-atlas", atlasSession)
	if res.WriteStats.Updated != 1 {
		t.Fatalf("allow_update_delete: %+v %+v", res.WriteStats, res.Warnings)
	}
	if n := e2.Count(t, `SELECT count(*) FROM memories m JOIN memories s ON s.id = m.superseded_by
		WHERE m.is_deleted = 1 AND m.content LIKE '%we use goose%' AND s.content LIKE '%Atlas%' AND s.is_deleted = 0`); n != 1 {
		t.Fatal("the goose memory is not superseded by the Atlas one")
	}
}

// A session never replaces what it taught itself earlier (at a
// compaction): its change is decided against what was known before it.
func TestASessionNeverSupersedesItself(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.PipelineV2.AllowUpdateDelete = true })
	first := []string{gooseSession}
	endSession(t, e, "s-one", first...)
	res := endSession(t, e, "s-one", append(first, atlasSession)...)
	for _, p := range res.Proposals {
		if p.Action != extract.ActionAdd {
			t.Fatalf("a session's fact %s its own memory: %+v", p.Action, p)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 0 AND (content LIKE '%we use goose%' OR content LIKE '%Atlas%')`); n != 2 {
		t.Fatalf("%d live memories of the session, want both", n)
	}
}

// The decision prompt tells a model which candidates come from the same
// session; a model that updates one anyway gets an add.
func TestSameSessionCandidateIsNeverAModelsTarget(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.PipelineV2.AllowUpdateDelete = true })
	endSession(t, e, "s-two", gooseSession)
	var sawSame bool
	m := &scriptedModel{extract: extractAnswer("The team uses Atlas for migrations now, not goose."), decide: func(f extract.Fact, cands []extract.Candidate) string {
		for _, c := range cands {
			if c.SameSession {
				sawSame = true
				return fmt.Sprintf(`{"action": "update", "targetId": %q, "confidence": 0.9, "reason": "newer"}`, c.ID)
			}
		}
		return `{"action": "add", "confidence": 0.9, "reason": "new"}`
	}}
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-two", "cwd": projA,
		"transcript": "User: " + gooseSession + "\nUser: " + strings.Repeat("We moved the migrations to Atlas this week after the goose trouble. ", 4)}).Want(t, 200)
	job, err := e.App.Jobs.Lease(context.Background(), "test", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := e.App.Pipeline.ProcessExtractJob(context.Background(), job, m.serve(t))
	if err != nil {
		t.Fatal(err)
	}
	if !sawSame {
		t.Fatal("the model was not told which candidate is from the same session")
	}
	for _, p := range res.Proposals {
		if p.Action != extract.ActionAdd {
			t.Fatalf("proposal %+v; want add", p)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1`); n != 0 {
		t.Fatal("a session's memory was retired by its own session")
	}
}

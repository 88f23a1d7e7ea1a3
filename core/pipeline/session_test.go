package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/workers/llm"
)

// A session-end transcript becomes a session_extract job; the pipeline
// extracts its facts (never the blocks cairn injected) into proposals
// whose source is the session: in shadow mode they wait for review, by
// default they are live memories (TestSessionLearningIsLiveByDefault).

// projA is the project of the sessions these tests end.
const projA = "/work/alpha"

func TestSessionExtractJob(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Pipeline.ShadowMode = true })
	ctx := context.Background()
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"We decided to use PostgreSQL for the billing service because it supports row level locking.\n[cairn:recall | query=\"x\" | results=1]\n- The old cache server Memcachier must never come back\n[/cairn:recall]"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Understood. The deploy pipeline now publishes container images to the internal registry every Tuesday, and the team prefers small releases."}]}}`,
	}
	r := e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-42", "cwd": projA,
		"transcript": strings.Join(lines, "\n")}).Want(t, 200)
	jobID := r.Str("jobId")
	job, err := e.App.Jobs.Lease(ctx, "w", jobs.ExtractTypes...)
	if err != nil || job == nil || job.ID != jobID || job.JobType != jobs.SessionExtract {
		t.Fatalf("leased %+v (%v), want session job %s", job, err, jobID)
	}
	res, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "completed" || res.Source != "session:s-42" || len(res.Proposals) < 2 {
		t.Fatalf("result: %+v", res)
	}
	for _, p := range res.Proposals {
		if strings.Contains(p.Fact, "Memcachier") {
			t.Fatalf("an injected recall block was extracted: %q", p.Fact)
		}
		if p.SourceMemoryID != "session:s-42" || !p.Shadow {
			t.Fatalf("proposal: %+v", p)
		}
	}
	// The transcript's entities are in the graph, linked to no memory.
	if res.Graph == nil || res.Graph.Entities == 0 || res.Graph.Mentions != 0 {
		t.Fatalf("graph: %+v", res.Graph)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions mm WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = mm.memory_rid)`); n != 0 {
		t.Fatalf("%d mentions link a session as if it were a memory", n)
	}
	// Approving one writes a memory in the session's project.
	ap := e.Post(t, "/api/proposals/"+res.Proposals[0].ID+"/approve", map[string]any{"reason": "yes"}).Want(t, 200)
	_ = ap
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE source_id = 'session:s-42' AND project = ? AND session_id = 's-42'`, projA); n != 1 {
		t.Fatalf("approved session fact not stored with its project: %d", n)
	}
	// The memory it wrote is linked to the entities its text names.
	if n := e.Count(t, `SELECT count(*) FROM memory_entity_mentions mm JOIN memories m ON m.rid = mm.memory_rid
		WHERE m.source_id = 'session:s-42'`); n == 0 {
		t.Fatal("the approved session fact is linked to no entity")
	}
	if j, _ := e.App.Jobs.Get(ctx, jobID); j.Status != "completed" {
		t.Fatalf("job %s", j.Status)
	}

	// A short transcript is skipped without a model call.
	r = e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-43",
		"transcript": `{"type":"user","message":{"role":"user","content":"ok thanks, bye for now then"}}`}).Want(t, 200)
	if r.Str("jobId") != "" {
		job, _ = e.App.Jobs.Lease(ctx, "w", jobs.ExtractTypes...)
		res, err = e.App.Pipeline.ProcessExtractJob(ctx, job, failingModel{})
		if err != nil || res.Status != "skipped" {
			t.Fatalf("short transcript: %+v %v", res, err)
		}
	}
}

type failingModel struct{}

func (failingModel) Name() string { return "broken" }
func (failingModel) Generate(context.Context, string, extract.GenerateOptions) (string, error) {
	return "", context.DeadlineExceeded
}

// In controlled-write mode a session's facts are written at once, each
// linked to the entities it names.
func TestSessionExtractControlledWrite(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Pipeline.ShadowMode = false })
	ctx := context.Background()
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-7", "cwd": projA,
		"transcript": `{"type":"user","message":{"role":"user","content":"We decided to use PostgreSQL for the billing service because it supports row level locking. The deploy pipeline publishes container images to the internal Harbor registry every Tuesday. The on-call rotation for the payments team changes every Monday at noon."}}`}).Want(t, 200)
	job, err := e.App.Jobs.Lease(ctx, "w", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic())
	if err != nil || res.WriteStats.Added == 0 {
		t.Fatalf("result: %+v %v", res, err)
	}
	if n := e.Count(t, `SELECT count(DISTINCT mm.memory_rid) FROM memory_entity_mentions mm JOIN memories m ON m.rid = mm.memory_rid
		WHERE m.source_id = 'session:s-7'`); n == 0 {
		t.Fatal("no written session fact is linked to an entity")
	}
}

// A resumed session ends again with its transcript grown: the next job
// extracts only the turns added since, and a fact already proposed is not
// proposed again.
func TestResumedSessionExtractsOnlyNewTurns(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Pipeline.ShadowMode = true })
	ctx := context.Background()
	turn1 := `{"type":"user","message":{"role":"user","content":"We decided to use PostgreSQL for the billing service because it supports row level locking across every invoice table. The deploy pipeline publishes container images to the internal registry every Tuesday morning."}}`
	turn2 := `{"type":"user","message":{"role":"user","content":"The on-call rotation for the payments team changes every Monday at noon, and the staging cluster moved to the Frankfurt data centre last month after the outage in Dublin. Alerts for the payments API now page the secondary on-call engineer after ten minutes."}}`
	run := func(transcript string) *pipeline.ExtractJobResult {
		t.Helper()
		e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-9", "cwd": projA, "transcript": transcript}).Want(t, 200)
		job, err := e.App.Jobs.Lease(ctx, "w", jobs.SessionExtract)
		if err != nil || job == nil {
			t.Fatalf("lease: %v %v", job, err)
		}
		res, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run(turn1)
	if first.Status != "completed" || len(first.Proposals) != 2 || first.SessionFrom != 0 {
		t.Fatalf("first end: %+v", first)
	}
	second := run(turn1 + "\n" + turn2)
	if second.Status != "completed" || second.SessionFrom == 0 || len(second.Proposals) != 2 {
		t.Fatalf("second end: status %s from %d proposals %+v", second.Status, second.SessionFrom, second.Proposals)
	}
	for _, p := range second.Proposals {
		if strings.Contains(p.Fact, "PostgreSQL") || strings.Contains(p.Fact, "Tuesday") {
			t.Fatalf("an earlier turn was extracted again: %q", p.Fact)
		}
	}
	// Ending again with nothing new: skipped, nothing proposed.
	third := run(turn1 + "\n" + turn2)
	if third.Status != "skipped" || !strings.Contains(third.SkipReason, "no new turns") {
		t.Fatalf("third end: %+v", third)
	}
	// A transcript that no longer starts with what was extracted (cut by
	// the size cap, say) is read whole, but its facts are not proposed twice.
	fourth := run(turn2 + "\n" + turn1)
	if fourth.Status != "completed" || fourth.SessionFrom != 0 || len(fourth.Proposals) != 0 || fourth.Screened["proposed_before"] != 4 {
		t.Fatalf("fourth end: from %d proposals %d screened %v", fourth.SessionFrom, len(fourth.Proposals), fourth.Screened)
	}
	if n := e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending'`); n != 4 {
		t.Fatalf("%d pending proposals, want 4", n)
	}
}

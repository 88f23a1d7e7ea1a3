package pipeline_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// checkSuperseded asserts that the pipeline's update retired target in
// favour of a memory holding fact, with history on both, and returns the
// successor's id.
func checkSuperseded(t *testing.T, e *apitest.Env, target, fact, proposal string) string {
	t.Helper()
	old := e.Get(t, "/api/memory/"+target+"?include_deleted=true").Want(t, 200)
	if !old.Bool("is_deleted") || old.Str("content") != oldFact {
		t.Fatalf("the target is not retired with its content kept: %s", old.Raw)
	}
	evo, _ := old.JSON["evolution"].(map[string]any)
	successor, _ := evo["superseded_by"].(string)
	if successor == "" {
		t.Fatalf("the target does not point to a successor: %s", old.Raw)
	}
	next := e.Get(t, "/api/memory/"+successor).Want(t, 200)
	if next.Bool("is_deleted") || next.Str("content") != fact {
		t.Fatalf("successor: %s", next.Raw)
	}
	nevo, _ := next.JSON["evolution"].(map[string]any)
	if sup, _ := nevo["supersedes"].([]any); len(sup) != 1 || sup[0] != target {
		t.Fatalf("the successor does not list the target: %s", next.Raw)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'superseded'
		AND json_extract(metadata, '$.proposalId') = ? AND json_extract(metadata, '$.successor') = ?`, target, proposal, successor); n != 1 {
		t.Fatalf("the target's history has %d superseded events naming the proposal", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'supersedes'
		AND json_extract(metadata, '$.proposalId') = ? AND json_extract(metadata, '$.supersedes') = ?`, successor, proposal, target); n != 1 {
		t.Fatalf("the successor's history has %d supersedes events naming the proposal and the target", n)
	}
	if p := e.Get(t, "/api/proposals/"+proposal).Want(t, 200); p.Str("state") != storage.ProposalApplied || p.Str("appliedMemoryId") != successor {
		t.Fatalf("proposal: %s", p.Raw)
	}
	rec := e.Post(t, "/api/memory/recall", map[string]any{"query": "where does the billing service store invoices", "mode": "keyword"}).Want(t, 200)
	if s := rec.String(); strings.Contains(s, target) || !strings.Contains(s, successor) {
		t.Fatalf("recall after supersession: %s", s)
	}
	return successor
}

// In controlled-write mode with updates allowed, an UPDATE decision
// supersedes its target with a memory holding the fact: nothing is
// overwritten, both sides record it, and recover restores the old memory.
func TestPipelineUpdateSupersedes(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) {
		c.Pipeline.ShadowMode = false
		c.PipelineV2.AllowUpdateDelete = true
		c.PipelineV2.SemanticContradiction = false
	})
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target)}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 1 || res.WriteStats.Updated != 1 {
		t.Fatalf("result: %+v warnings %q", res.WriteStats, res.Warnings)
	}
	successor := checkSuperseded(t, e, target, newFact, res.Proposals[0].ID)
	if res.Proposals[0].AppliedMemoryID != successor {
		t.Fatalf("the job's result names %q as applied, not the successor %s", res.Proposals[0].AppliedMemoryID, successor)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND who = 'pipeline-v2' AND source_id IS NOT NULL`, successor); n != 1 {
		t.Fatal("the successor is not the pipeline's, derived from its source")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'created'
		AND json_extract(metadata, '$.supersedes') = ?`, successor, target); n != 1 {
		t.Fatal("the successor's created event does not name the memory it supersedes")
	}

	// Restorable: recover brings the old memory back and clears the link.
	e.Post(t, "/api/memory/"+target+"/recover", map[string]any{"reason": "the update was wrong"}).Want(t, 200)
	back := e.Get(t, "/api/memory/"+target).Want(t, 200)
	if back.Bool("is_deleted") {
		t.Fatalf("recovered: %s", back.Raw)
	}
	if evo, _ := back.JSON["evolution"].(map[string]any); evo != nil && evo["superseded_by"] != nil {
		t.Fatalf("the successor link stayed after recover: %v", evo)
	}
}

// Approving a shadow-mode UPDATE proposal applies it the same way; when a
// live memory already holds the fact, that memory is the successor (no
// duplicate is written).
func TestApprovedUpdateSupersedes(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) { c.Pipeline.ShadowMode = true; c.PipelineV2.SemanticContradiction = false })
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target)}
	res := runScripted(t, e, m.serve(t))
	if len(res.Proposals) != 1 || !res.Proposals[0].Shadow {
		t.Fatalf("proposals: %+v", res.Proposals)
	}
	pid := res.Proposals[0].ID
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 0`, target); n != 1 {
		t.Fatal("shadow mode touched the target")
	}
	// The fact is stated meanwhile by someone: that memory becomes the
	// successor.
	stated := e.MustID(t, newFact)
	memories := e.Count(t, `SELECT count(*) FROM memories`)
	e.Post(t, "/api/proposals/"+pid+"/approve", map[string]any{"reason": "right"}).Want(t, 200)
	if got := checkSuperseded(t, e, target, newFact, pid); got != stated {
		t.Fatalf("successor %s, want the live memory holding the fact %s", got, stated)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != memories {
		t.Fatalf("approval wrote %d memories next to the one holding the fact", n-memories)
	}
	// Decided once: a second approval is refused.
	e.Post(t, "/api/proposals/"+pid+"/approve", map[string]any{"reason": "again"}).WantErr(t, 409, "proposal_not_pending")
}

// An approved update whose successor is new carries the target's key, so
// the keyed fact keeps one live value.
func TestApprovedUpdateCarriesTheKey(t *testing.T) {
	e, target := decideEnv(t, func(c *config.Config) { c.PipelineV2.SemanticContradiction = false })
	e.Exec(t, `UPDATE memories SET memory_key = 'billing.invoices.db' WHERE id = ?`, target)
	m := &scriptedModel{extract: extractAnswer(newFact), decide: updateTo(target)}
	res := runScripted(t, e, m.serve(t))
	e.Post(t, "/api/proposals/"+res.Proposals[0].ID+"/approve", map[string]any{"reason": "right"}).Want(t, 200)
	successor := checkSuperseded(t, e, target, newFact, res.Proposals[0].ID)
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND memory_key = 'billing.invoices.db'`, successor); n != 1 {
		t.Fatal("the successor did not take the target's key")
	}
}

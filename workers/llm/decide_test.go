package llm

import (
	"testing"

	"github.com/cairnmem/cairn/core/extract"
)

// The heuristic's decisions: a change updates the memory that still holds
// the old thing; never one that already left it, holds the new thing, or
// comes from the fact's own session.
func TestHeuristicDecidesChanges(t *testing.T) {
	cand := func(id, content string) extract.Candidate {
		return extract.Candidate{ID: id, Type: "fact", Content: content}
	}
	goose := cand("goose", "For migrations we use goose, and the files go in internal/db/migrations.")
	for _, tc := range []struct {
		name   string
		fact   string
		cands  []extract.Candidate
		action string
		target string
	}{
		{"instead of", "From now on we use Atlas for migrations instead of goose.", []extract.Candidate{goose}, extract.ActionUpdate, "goose"},
		{"from … to", "We're moving the unit tests from Jest to Vitest.", []extract.Candidate{cand("jest", "Unit tests run with Jest and jsdom.")}, extract.ActionUpdate, "jest"},
		{"no longer", "We no longer use Redis for sessions.", []extract.Candidate{cand("redis", "Sessions are stored in Redis with a 24 h TTL.")}, extract.ActionUpdate, "redis"},
		{"switched to, same purpose", "We switched the unit tests to Vitest.", []extract.Candidate{cand("jest", "We use Jest for the unit tests.")}, extract.ActionUpdate, "jest"},
		{"an unrelated memory", "From now on we use Atlas for migrations instead of goose.", []extract.Candidate{cand("pg", "The database is Postgres 16.")}, extract.ActionAdd, ""},
		{"already left behind", "We use Atlas for migrations instead of goose.", []extract.Candidate{cand("nogoose", "Not goose: its out-of-order migrations bit us.")}, extract.ActionAdd, ""},
		{"already holds the new thing", "We use Atlas for migrations instead of goose.", []extract.Candidate{cand("both", "Atlas replaced goose for the migrations last month, and goose is gone.")}, extract.ActionAdd, ""},
		{"same session", "From now on we use Atlas for migrations instead of goose.", []extract.Candidate{{ID: "goose", Type: "fact", Content: goose.Content, SameSession: true}}, extract.ActionAdd, ""},
		{"a duplicate", "For migrations we use goose, and the files go in internal/db/migrations.", []extract.Candidate{goose}, extract.ActionNone, "goose"},
	} {
		d := heuristicDecide(extract.Fact{Content: tc.fact, Confidence: 0.8}, tc.cands)
		if d.Action != tc.action || d.TargetID != tc.target {
			t.Errorf("%s: %s %q; want %s %q", tc.name, d.Action, d.TargetID, tc.action, tc.target)
		}
	}
}

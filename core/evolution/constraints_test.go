package evolution_test

import (
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// A memory holding a live constraint attribute (a decision the linker
// read) gets the dampening's resolution boost even when it is short; once
// the decision is reversed (its constraint superseded) the boost goes with
// it, and a plain fact never gets it.
func TestConstraintsGetTheResolutionBoost(t *testing.T) {
	e := newEnv(t)
	const p = "/home/dev/atlas"
	query := core.RecallInput{Query: "sqlc data layer", Explain: true, Mode: core.ModeKeyword, Filter: storage.MemoryFilter{Project: p}}
	damp := func(e *apitest.Env) map[string]float64 {
		out := map[string]float64{}
		for _, h := range recall(t, e, query).Results {
			out[h.ID] = h.Explain.Dampening
		}
		return out
	}
	decision := memID(t, e, "we decided to use sqlc for the data layer", p)
	fact := memID(t, e, "the data layer has sqlc queries in db/query", p)
	if got := attributesOf(t, e, decision); len(got) != 1 || got[0] != "data layer|decisions|choice|sqlc|constraint|live" {
		t.Fatalf("the decision is not read as a constraint: %v", got)
	}
	got := damp(e)
	if got[decision] != 1.2 || got[fact] != 1 {
		t.Fatalf("dampening: decision %v, fact %v; want 1.2 and 1", got[decision], got[fact])
	}
	// Turning dampening off turns the boost off with it.
	off := newEnv(t, func(c *config.Config) { c.Search.Dampening = false })
	id := memID(t, off, "we decided to use sqlc for the data layer", p)
	if d, ok := damp(off)[id]; ok && d != 1 {
		t.Fatalf("boost without dampening: %v", d)
	}
	// Reversed: the constraint is superseded and the new decision holds it.
	rev := memID(t, e, "we reversed the sqlc decision and use gorm for the data layer", p)
	got = damp(e)
	if _, ok := got[decision]; ok {
		t.Fatalf("the reversed decision is still recalled: %v", got)
	}
	if got[rev] != 1.2 {
		t.Fatalf("the decision that replaced it: %v", got[rev])
	}
}

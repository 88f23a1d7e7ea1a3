package httpapi_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A memory holding a live constraint attribute (a decision the linker
// read) gets the dampening's resolution boost even when it is short; once
// the decision is reversed (its constraint superseded) the boost goes with
// it, and a plain fact never gets it.
func TestConstraintsGetTheResolutionBoost(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	const p = "/home/dev/atlas"
	rem := func(content string) string {
		return e.Post(t, "/api/memory/remember", map[string]any{"content": content, "project": p}).Want(t, 200).Str("id")
	}
	decision := rem("we decided to use sqlc for the data layer")
	fact := rem("the data layer has sqlc queries in db/query")
	if got := attributesOf(t, e, decision); len(got) != 1 || got[0] != "data layer|decisions|choice|sqlc|constraint|live" {
		t.Fatalf("the decision is not read as a constraint: %v", got)
	}
	damp := func() map[string]float64 {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "sqlc data layer", "project": p, "explain": true, "mode": "keyword", "include_deleted": true}).Want(t, 200)
		out := map[string]float64{}
		for _, h := range r.List(t, "results") {
			out[h["id"].(string)] = h["explain"].(map[string]any)["dampening"].(float64)
		}
		return out
	}
	got := damp()
	if got[decision] != 1.2 || got[fact] != 1 {
		t.Fatalf("dampening: decision %v, fact %v; want 1.2 and 1", got[decision], got[fact])
	}
	// Turning dampening off turns the boost off with it.
	off := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Search.Dampening = false })
	id := off.Post(t, "/api/memory/remember", map[string]any{"content": "we decided to use sqlc for the data layer", "project": p}).Want(t, 200).Str("id")
	r := off.Post(t, "/api/memory/recall", map[string]any{"query": "sqlc data layer", "project": p, "explain": true, "mode": "keyword"}).Want(t, 200)
	for _, h := range r.List(t, "results") {
		if h["id"] == id && h["explain"].(map[string]any)["dampening"].(float64) != 1 {
			t.Fatalf("boost without dampening: %v", h["explain"])
		}
	}
	// Reversed: the constraint is superseded and the new decision holds it.
	rev := rem("we reversed the sqlc decision and use gorm for the data layer")
	got = damp()
	if _, ok := got[decision]; ok {
		t.Fatalf("the reversed decision is still recalled: %v", got)
	}
	if got[rev] != 1.2 {
		t.Fatalf("the decision that replaced it: %v", got[rev])
	}
}

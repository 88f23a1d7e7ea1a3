package core_test

import (
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// recallIDs runs a keyword-only recall through the handler.
func recallIDs(t *testing.T, e *apitest.Env, query string) []string {
	t.Helper()
	r := e.Post(t, "/api/memory/recall", map[string]any{"query": query, "mode": "keyword"}).Want(t, http.StatusOK)
	var ids []string
	for _, h := range r.List(t, "results") {
		ids = append(ids, h["id"].(string))
	}
	return ids
}

// TestKeywordIndexFollowsWrites checks that the in-memory keyword index
// answers recall right after each kind of write: a new memory is found at
// once, an edited one by its new words only, a forgotten one not at all,
// and a row removed from the table (as the retention purge removes it)
// leaves the index.
func TestKeywordIndexFollowsWrites(t *testing.T) {
	e := apitest.NewEnv(t)
	a := e.MustID(t, "the quokka lives on Rottnest island")
	b := e.MustID(t, "the numbat eats termites in the woodland")
	if got := recallIDs(t, e, "quokka"); len(got) != 1 || got[0] != a {
		t.Fatalf("quokka: %v, want [%s]", got, a)
	}
	if st := core.KeywordIndexStats(e.Svc); st.Docs != 2 {
		t.Fatalf("the keyword index holds %d documents, want 2 (recall did not use it)", st.Docs)
	}
	c := e.MustID(t, "a wombat digs burrows")
	if got := recallIDs(t, e, "wombat"); len(got) != 1 || got[0] != c {
		t.Fatalf("new memory: wombat finds %v, want [%s]", got, c)
	}
	e.Patch(t, a, map[string]any{"content": "the bilby has long ears", "reason": "test"}).Want(t, http.StatusOK)
	if got := recallIDs(t, e, "quokka"); len(got) != 0 {
		t.Fatalf("edited memory still found by its old words: %v", got)
	}
	if got := recallIDs(t, e, "bilby"); len(got) != 1 || got[0] != a {
		t.Fatalf("edited memory: bilby finds %v, want [%s]", got, a)
	}
	e.Del(t, c, map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	if got := recallIDs(t, e, "wombat"); len(got) != 0 {
		t.Fatalf("forgotten memory found: %v", got)
	}
	e.Exec(t, `DELETE FROM memories WHERE id = ?`, b)
	if got := recallIDs(t, e, "numbat termites"); len(got) != 0 {
		t.Fatalf("removed row found: %v", got)
	}
	if st := core.KeywordIndexStats(e.Svc); st.Docs != 2 {
		t.Fatalf("the keyword index holds %d documents after the removal, want 2 (one live, one forgotten)", st.Docs)
	}
}

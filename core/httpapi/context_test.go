package httpapi_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// Contextual indexing: a memory stated in a session is found by the words
// of the memory stated before it there (an answer by its question), in
// both keyword engines. The context follows its predecessor: an edit
// re-indexes the successor, a purge leaves it without context, and the
// full-text index stays consistent throughout. A memory outside the
// session, or stated with the setting off, has no context.
func TestSessionContextIndexing(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprintf("keyword_index=%v", inMemory), func(t *testing.T) {
			e := apitest.NewEnv(t, apitest.NoPipeline, func(c *config.Config) { c.Search.KeywordIndex = inMemory })
			ids := func(query string) []string {
				t.Helper()
				res := e.Post(t, "/api/memory/recall", map[string]any{"query": query, "project": "gym"}).Want(t, 200)
				var out []string
				for _, h := range res.List(t, "results") {
					out = append(out, h["id"].(string))
				}
				return out
			}
			question := e.MustID(t, "Maria: How often do you all work out together?", "session_id", "s1", "project", "gym")
			answer := e.MustID(t, "John: Three times a week; it keeps us on track.", "session_id", "s1", "project", "gym")
			elsewhere := e.MustID(t, "John: Twice a month; that keeps us on track too.", "project", "gym")
			other := e.MustID(t, "Tim: Four times a week, it keeps me on track.", "session_id", "s2", "project", "gym")

			got := ids("how often do they work out")
			if !slices.Contains(got, answer) || !slices.Contains(got, question) {
				t.Fatalf("the answer is found by its question's words: %v (question %s, answer %s)", got, question, answer)
			}
			if slices.Contains(got, elsewhere) || slices.Contains(got, other) {
				t.Fatalf("a memory outside the session has no context: %v", got)
			}
			if n := e.Count(t, `SELECT count(*) FROM memories WHERE context_rid IS NOT NULL`); n != 1 {
				t.Fatalf("%d memories have a context, want 1", n)
			}

			// The question is edited: its old words no longer find the
			// answer, its new ones do.
			e.Patch(t, question, map[string]any{"content": "Maria: Which days are the swimming lessons?", "reason": "typo"}).Want(t, 200)
			if got := ids("how often do they work out"); slices.Contains(got, answer) {
				t.Fatalf("the answer is still found by its predecessor's old words: %v", got)
			}
			if got := ids("swimming lessons"); !slices.Contains(got, answer) {
				t.Fatalf("the answer is not found by its predecessor's new words: %v", got)
			}

			// The question is forgotten and purged: the answer keeps its
			// own words and loses the context.
			e.Del(t, question, map[string]any{"reason": "done"}).Want(t, 200)
			e.Clock.Advance(400 * 24 * time.Hour)
			if _, err := e.App.Ops.RetentionSweep(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ?`, question); n != 0 {
				t.Fatal("the question was not purged")
			}
			if got := ids("swimming lessons"); len(got) != 0 {
				t.Fatalf("a purged predecessor still finds its successor: %v", got)
			}
			if got := ids("three times a week"); !slices.Contains(got, answer) {
				t.Fatalf("the answer by its own words: %v", got)
			}
			if n := e.Count(t, `SELECT count(*) FROM memories WHERE context_rid IS NOT NULL`); n != 0 {
				t.Fatalf("%d memories still point to a purged context", n)
			}
			if e.DB.Postgres() {
				return // no full-text index to check
			}
			if err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error { return storage.CheckFTSIntegrity(context.Background(), tx) }); err != nil {
				t.Fatalf("full-text index after edit and purge: %v", err)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		e := apitest.NewEnv(t, apitest.NoPipeline, func(c *config.Config) { c.Search.SessionContext = false })
		e.MustID(t, "Maria: How often do you all work out together?", "session_id", "s1")
		e.MustID(t, "John: Three times a week; it keeps us on track.", "session_id", "s1")
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE context_rid IS NOT NULL`); n != 0 {
			t.Fatalf("search.session_context = false: %d memories have a context", n)
		}
	})
}

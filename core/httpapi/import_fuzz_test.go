package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// FuzzImportBody posts a JSONL body to the import route: whatever the
// lines hold (their evolution included), the answer is never a 5xx, a
// refused body writes nothing, and what an accepted one writes is whole:
// every successor named exists, every superseded memory is retired, no
// chain of supersession loops, every attribute belongs to a memory.
func FuzzImportBody(f *testing.F) {
	e := apitest.NewStoreEnv(f, apitest.NoEmbed)
	e.MustID(f, "a memory already in the store")
	f.Fuzz(func(t *testing.T, body []byte) {
		before := e.State(t)
		attrs0 := e.Count(t, `SELECT count(*) FROM entity_attributes`)
		r := e.Do(t, "POST", "/api/memories/import", apitest.RawBody(body), nil)
		checkAnswer(t, r, body)
		if r.Status != http.StatusOK {
			e.Unchanged(t, before)
			if n := e.Count(t, `SELECT count(*) FROM entity_attributes`); n != attrs0 {
				t.Fatalf("input %q: refused with %d but %d attributes were written", body, r.Status, n-attrs0)
			}
			return
		}
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE superseded_by IS NOT NULL
			AND (is_deleted = 0 OR superseded_by NOT IN (SELECT id FROM memories))`); n != 0 {
			t.Fatalf("input %q: %d memories with a successor that is missing, or not retired", body, n)
		}
		if n := e.Count(t, `WITH RECURSIVE chain(start, cur, depth) AS (
				SELECT id, superseded_by, 1 FROM memories WHERE superseded_by IS NOT NULL
				UNION ALL SELECT c.start, m.superseded_by, c.depth + 1 FROM chain c JOIN memories m ON m.id = c.cur
				WHERE m.superseded_by IS NOT NULL AND c.depth < 1000)
			SELECT count(*) FROM chain WHERE cur = start`); n != 0 {
			t.Fatalf("input %q: a cycle of supersession was written", body)
		}
		if n := e.Count(t, `SELECT count(*) FROM entity_attributes WHERE memory_id NOT IN (SELECT id FROM memories)
			OR (status = 'superseded') <> (superseded_by IS NOT NULL)`); n != 0 {
			t.Fatalf("input %q: %d attributes without their memory or with a wrong status", body, n)
		}
	})
}

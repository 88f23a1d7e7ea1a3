package httpapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A new attribute supersedes a sibling of another name on the same
// entity and aspect only when the contradiction detector finds that a
// sentence naming the sibling contradicts it; a contradiction the
// detector cannot pin on the sibling becomes a proposal for review, and
// siblings that merely coexist are left alone.
func TestSiblingAttributesSupersede(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	const p = "/home/dev/atlas"
	rem := func(content string) *apitest.Resp {
		return e.Post(t, "/api/memory/remember", map[string]any{"content": content, "project": p}).Want(t, 200)
	}
	proposals := func() int { return e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending'`) }

	pg := rem("staging runs Postgres 14").Str("id")
	// Coexisting siblings (same entity, same aspect, another name):
	// nothing is superseded and nothing is proposed.
	redis := rem("staging runs Redis 7")
	if got := superseded(redis); len(got) != 0 || proposals() != 0 {
		t.Fatalf("a coexisting sibling superseded %v, proposals %d", got, proposals())
	}
	if got := attributesOf(t, e, redis.Str("id")); !slices.Equal(got, []string{"staging|versions|redis version|7|attribute|live"}) {
		t.Fatalf("redis: %v", got)
	}

	// Clear: the second sentence names Postgres and negates it.
	my := rem("staging runs MySQL 8. Staging no longer runs Postgres.")
	if got := superseded(my); !slices.Equal(got, []string{pg}) {
		t.Fatalf("the contradicted sibling was not superseded: %v (%s)", got, my)
	}
	if evolutionOf(t, e, pg)["superseded_by"] != my.Str("id") {
		t.Fatalf("the old memory points to its successor: %v", evolutionOf(t, e, pg))
	}
	if got := attributesOf(t, e, pg); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|superseded"}) {
		t.Fatalf("the sibling's attribute: %v", got)
	}
	// The sentence is explained by Postgres: Redis is neither retired nor
	// put up for review.
	if e.Get(t, "/api/memory/"+redis.Str("id")).Bool("is_deleted") || proposals() != 0 {
		t.Fatalf("the other sibling was touched: proposals %d", proposals())
	}
	res := e.Post(t, "/api/memory/recall", map[string]any{"query": "which database does staging run postgres", "project": p}).Want(t, 200)
	if strings.Contains(res.String(), pg) {
		t.Fatalf("the superseded memory is still recalled: %s", res)
	}

	// Ambiguous: a negation in a sentence that names no sibling. A
	// proposal for review, nothing retired.
	amb := rem("prod runs Postgres 15")
	ruby := rem("prod runs Ruby 3.2. The old cluster is not used by prod.")
	if got := superseded(ruby); len(got) != 0 {
		t.Fatalf("an ambiguous contradiction superseded %v", got)
	}
	if e.Get(t, "/api/memory/"+amb.Str("id")).Bool("is_deleted") {
		t.Fatal("an ambiguous contradiction retired the sibling")
	}
	list := e.Get(t, "/api/proposals?state=pending").List(t, "proposals")
	if len(list) != 1 || list[0]["targetMemoryId"] != amb.Str("id") || list[0]["sourceMemoryId"] != ruby.Str("id") ||
		list[0]["action"] != "update" || list[0]["reviewNeeded"] != true {
		t.Fatalf("review proposals: %v", list)
	}
	// Approving it supersedes the sibling with the new memory itself.
	e.Post(t, "/api/proposals/"+list[0]["id"].(string)+"/approve", map[string]any{"reason": "prod moved"}).Want(t, 200)
	if evolutionOf(t, e, amb.Str("id"))["superseded_by"] != ruby.Str("id") {
		t.Fatalf("approval: %v", evolutionOf(t, e, amb.Str("id")))
	}

	// Restorable.
	e.Post(t, "/api/memory/"+pg+"/recover", map[string]any{"reason": "still there"}).Want(t, 200)
	if got := attributesOf(t, e, pg); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("recovered: %v", got)
	}
}

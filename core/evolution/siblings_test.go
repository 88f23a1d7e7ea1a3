package evolution_test

import (
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/storage"
)

// A new attribute supersedes a sibling of another name on the same
// entity and aspect only when the contradiction detector finds that a
// sentence naming the sibling contradicts it; a contradiction the
// detector cannot pin on the sibling becomes a proposal for review, and
// siblings that merely coexist are left alone.
func TestSiblingAttributesSupersede(t *testing.T) {
	e := newEnv(t)
	const p = "/home/dev/atlas"
	rem := func(content string) *core.RememberResult {
		return remember(t, e, core.RememberInput{Content: content, Project: p})
	}
	proposals := func() int { return e.Count(t, `SELECT count(*) FROM pipeline_proposals WHERE state = 'pending'`) }

	pg := rem("staging runs Postgres 14").Memory.ID
	// Coexisting siblings (same entity, same aspect, another name):
	// nothing is superseded and nothing is proposed.
	redis := rem("staging runs Redis 7")
	if got := redis.Superseded; len(got) != 0 || proposals() != 0 {
		t.Fatalf("a coexisting sibling superseded %v, proposals %d", got, proposals())
	}
	if got := attributesOf(t, e, redis.Memory.ID); !slices.Equal(got, []string{"staging|versions|redis version|7|attribute|live"}) {
		t.Fatalf("redis: %v", got)
	}

	// Clear: the second sentence names Postgres and negates it.
	my := rem("staging runs MySQL 8. Staging no longer runs Postgres.")
	if got := my.Superseded; !slices.Equal(got, []string{pg}) {
		t.Fatalf("the contradicted sibling was not superseded: %v", got)
	}
	if evolutionOf(t, e, pg).SupersededBy != my.Memory.ID {
		t.Fatalf("the old memory points to its successor: %+v", evolutionOf(t, e, pg))
	}
	if got := attributesOf(t, e, pg); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|superseded"}) {
		t.Fatalf("the sibling's attribute: %v", got)
	}
	// The sentence is explained by Postgres: Redis is neither retired nor
	// put up for review.
	if gone(t, e, redis.Memory.ID) || proposals() != 0 {
		t.Fatalf("the other sibling was touched: proposals %d", proposals())
	}
	res := recall(t, e, core.RecallInput{Query: "which database does staging run postgres", Filter: storage.MemoryFilter{Project: p}})
	for _, h := range res.Results {
		if h.ID == pg {
			t.Fatalf("the superseded memory is still recalled: %q", contents(res))
		}
	}

	// Ambiguous: a negation in a sentence that names no sibling. A
	// proposal for review, nothing retired.
	amb := rem("prod runs Postgres 15")
	ruby := rem("prod runs Ruby 3.2. The old cluster is not used by prod.")
	if got := ruby.Superseded; len(got) != 0 {
		t.Fatalf("an ambiguous contradiction superseded %v", got)
	}
	if gone(t, e, amb.Memory.ID) {
		t.Fatal("an ambiguous contradiction retired the sibling")
	}
	list, err := e.App.Pipeline.ListProposals(ctx, pipeline.ProposalFilter{State: storage.ProposalPending}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].TargetMemoryID != amb.Memory.ID || list[0].SourceMemoryID != ruby.Memory.ID ||
		list[0].Action != "update" || !list[0].ReviewNeeded {
		t.Fatalf("review proposals: %+v", list)
	}
	// Approving it supersedes the sibling with the new memory itself.
	if _, err := e.App.Pipeline.ApproveProposal(ctx, list[0].ID, api, "prod moved"); err != nil {
		t.Fatal(err)
	}
	if evolutionOf(t, e, amb.Memory.ID).SupersededBy != ruby.Memory.ID {
		t.Fatalf("approval: %+v", evolutionOf(t, e, amb.Memory.ID))
	}

	// Restorable.
	recoverMemory(t, e, pg, "still there")
	if got := attributesOf(t, e, pg); !slices.Equal(got, []string{"staging|versions|postgres version|14|attribute|live"}) {
		t.Fatalf("recovered: %v", got)
	}
}

package evolution_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// attributeValues lists a memory's attributes as "entity/name=value status".
func attributeValues(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	var out []string
	for _, a := range evolutionOf(t, e, id).Attributes {
		out = append(out, a.Entity+"/"+a.Name+"="+a.Value+" "+a.Status)
	}
	slices.Sort(out)
	return out
}

func supersededBy(t *testing.T, e *apitest.Env, id string) string {
	t.Helper()
	return evolutionOf(t, e, id).SupersededBy
}

// Editing a memory's content re-reads its attributes in the edit's
// transaction: what it no longer states goes, what it newly states
// supersedes as a remembered statement does, what it still states stays
// (and supersedes nothing again), and what it superseded for a statement
// it no longer makes comes back.
func TestEditRereadsAttributes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rem := func(content string) string {
		id := memID(t, e, content, "atlas")
		e.Clock.Advance(time.Hour)
		return id
	}
	pg14 := rem("staging runs Postgres 14")
	pg16 := rem("staging runs Postgres 16")
	if supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("setup: 14 not superseded by 16")
	}

	// A new value replaces the memory's own: the old row goes, the
	// memory it retired stays retired (it still states the attribute).
	r := edit(t, e, pg16, "staging runs Postgres 17")
	if got := attributeValues(t, e, pg16); !slices.Equal(got, []string{"staging/postgres version=17 live"}) {
		t.Fatalf("after the edit to 17: %v", got)
	}
	if len(r.Restored) != 0 || supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("the edit to 17 brought back 14: %+v", r)
	}

	// The edit drops the statement it superseded 14 with: 14 comes back,
	// with its history saying why, and recall finds it again.
	r = edit(t, e, pg16, "prod runs Postgres 17")
	if !slices.Equal(r.Restored, []string{pg14}) {
		t.Fatalf("the correction did not restore 14: %+v", r)
	}
	if got := attributeValues(t, e, pg14); !slices.Equal(got, []string{"staging/postgres version=14 live"}) || supersededBy(t, e, pg14) != "" {
		t.Fatalf("restored 14: %v, superseded by %q", got, supersededBy(t, e, pg14))
	}
	if got := attributeValues(t, e, pg16); !slices.Equal(got, []string{"prod/postgres version=17 live"}) {
		t.Fatalf("after the correction: %v", got)
	}
	hist, err := e.Svc.MemoryHistory(ctx, pg14, 200)
	if err != nil {
		t.Fatal(err)
	}
	if ev := hist[len(hist)-1].Event; ev != "recovered" {
		t.Fatalf("history of 14 ends with %q", ev)
	}
	if ids := recallIDs(t, e, "which postgres does staging run", "atlas"); len(ids) == 0 || ids[0] != pg14 {
		t.Fatalf("recall after the correction: %v", ids)
	}

	// An edit that newly states a value supersedes as remembering it
	// would: the memory holding the old value is retired.
	alice := rem("the billing service is owned by Alice")
	note := rem("the coffee machine is broken")
	r = edit(t, e, note, "the billing service is owned by Bob")
	if !slices.Equal(r.Superseded, []string{alice}) || supersededBy(t, e, alice) != note {
		t.Fatalf("the edit did not supersede Alice: %+v", r)
	}
	if got := attributeValues(t, e, alice); !slices.Equal(got, []string{"billing service/owner=alice superseded"}) {
		t.Fatalf("Alice's attribute: %v", got)
	}
	if _, err := e.Svc.Get(ctx, alice, false); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("Alice is still found: %v", err)
	}

	// A statement the edit keeps is not stated again: it does not retire a
	// value stated after it.
	node18 := rem("the frontend builds with Node 18")
	node20 := rem("the frontend builds with Node 20")
	recoverMemory(t, e, node18, "both true for a while")
	r = edit(t, e, node18, "the frontend builds with Node 18 (the legacy app)")
	if len(r.Superseded) != 0 || supersededBy(t, e, node20) != "" {
		t.Fatalf("an unchanged statement retired a newer value: %+v", r)
	}
	if got := attributeValues(t, e, node20); !slices.Equal(got, []string{"frontend/node version=20 live"}) {
		t.Fatalf("Node 20's attribute: %v", got)
	}

	// A fresh statement contradicting a sibling supersedes it, as a
	// remembered one does.
	pg := rem("the reporting box runs Postgres 14")
	chat := rem("the team lunch moved to Friday")
	r = edit(t, e, chat, "the reporting box runs MySQL 8. The reporting box no longer runs Postgres.")
	if !slices.Equal(r.Superseded, []string{pg}) {
		t.Fatalf("the edit did not supersede the contradicted sibling: %+v", r)
	}

	// Moving a memory to another project moves its statements: what it
	// superseded in the old project comes back, and in the new one it
	// supersedes as stated there.
	redis2 := rem("redis maxmemory is 2gb")
	redis4 := rem("redis maxmemory is 4gb")
	other := memID(t, e, "redis maxmemory is 1gb", "beacon")
	beacon := "beacon"
	r = modify(t, e, core.Patch{ID: redis4, Project: &beacon, Reason: "wrong project"})
	if !slices.Equal(r.Restored, []string{redis2}) || !slices.Equal(r.Superseded, []string{other}) {
		t.Fatalf("moving the memory: %+v", r)
	}
	if supersededBy(t, e, redis2) != "" || supersededBy(t, e, other) != redis4 {
		t.Fatalf("after the move: 2gb superseded by %q, beacon's 1gb by %q", supersededBy(t, e, redis2), supersededBy(t, e, other))
	}
}

// A memory an edit would bring back stays retired, its successor link
// kept, when the write path's recover refuses it: a live memory holds its
// idempotency key (or its content) now.
func TestEditRestoreRefusedByRecover(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pg14 := remember(t, e, core.RememberInput{Content: "staging runs Postgres 14", Project: "atlas", IdempotencyKey: "k-14"}).Memory.ID
	pg16 := memID(t, e, "staging runs Postgres 16", "atlas")
	if supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("setup: 14 not superseded by 16")
	}
	holder := remember(t, e, core.RememberInput{Content: "the coffee machine is broken", Project: "atlas", IdempotencyKey: "k-14"}).Memory.ID
	r := edit(t, e, pg16, "prod runs Postgres 17")
	if len(r.Restored) != 0 || !gone(t, e, pg14) || supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("a refused restore: %+v, 14 superseded by %q", r, supersededBy(t, e, pg14))
	}
	// Its attribute is live again all the same: the edit no longer states
	// what superseded it.
	if got := attributeValues(t, e, pg14); !slices.Equal(got, []string{"staging/postgres version=14 live"}) {
		t.Fatalf("14's attribute: %v", got)
	}
	if gone(t, e, holder) {
		t.Fatal("the memory holding the key was touched")
	}
}

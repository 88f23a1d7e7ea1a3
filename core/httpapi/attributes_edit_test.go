package httpapi_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// attributeValues lists a memory's attributes as "entity/name=value status".
func attributeValues(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	g := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	ev, _ := g.JSON["evolution"].(map[string]any)
	var out []string
	attrs, _ := ev["attributes"].([]any)
	for _, x := range attrs {
		a := x.(map[string]any)
		out = append(out, a["entity"].(string)+"/"+a["name"].(string)+"="+a["value"].(string)+" "+a["status"].(string))
	}
	slices.Sort(out)
	return out
}

func supersededBy(t *testing.T, e *apitest.Env, id string) string {
	t.Helper()
	g := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	ev, _ := g.JSON["evolution"].(map[string]any)
	by, _ := ev["superseded_by"].(string)
	return by
}

// Editing a memory's content through PATCH re-reads its attributes in the
// edit's transaction: what it no longer states goes, what it newly states
// supersedes as a remembered statement does, what it still states stays
// (and supersedes nothing again), and what it superseded for a statement
// it no longer makes comes back.
func TestEditRereadsAttributes(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	rem := func(content string) string {
		id := e.MustID(t, content, "project", "atlas")
		e.Clock.Advance(time.Hour)
		return id
	}
	patch := func(id, content string) *apitest.Resp {
		return e.Patch(t, id, map[string]any{"content": content, "reason": "edit"}).Want(t, 200)
	}
	pg14 := rem("staging runs Postgres 14")
	pg16 := rem("staging runs Postgres 16")
	if supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("setup: 14 not superseded by 16")
	}

	// A new value replaces the memory's own: the old row goes, the
	// memory it retired stays retired (it still states the attribute).
	r := patch(pg16, "staging runs Postgres 17")
	if got := attributeValues(t, e, pg16); !slices.Equal(got, []string{"staging/postgres version=17 live"}) {
		t.Fatalf("after the edit to 17: %v", got)
	}
	if len(apitest.Strs(r.JSON["restored"])) != 0 || supersededBy(t, e, pg14) != pg16 {
		t.Fatalf("the edit to 17 brought back 14: %s", r)
	}

	// The edit drops the statement it superseded 14 with: 14 comes back,
	// with its history saying why, and recall finds it again.
	r = patch(pg16, "prod runs Postgres 17")
	if !slices.Equal(apitest.Strs(r.JSON["restored"]), []string{pg14}) {
		t.Fatalf("the correction did not restore 14: %s", r)
	}
	if got := attributeValues(t, e, pg14); !slices.Equal(got, []string{"staging/postgres version=14 live"}) || supersededBy(t, e, pg14) != "" {
		t.Fatalf("restored 14: %v, superseded by %q", got, supersededBy(t, e, pg14))
	}
	if got := attributeValues(t, e, pg16); !slices.Equal(got, []string{"prod/postgres version=17 live"}) {
		t.Fatalf("after the correction: %v", got)
	}
	if ev := apitest.EventNames(e.HistoryEvents(t, pg14)); ev[len(ev)-1] != "recovered" {
		t.Fatalf("history of 14: %v", ev)
	}
	if ids := recallIDs(t, e, "which postgres does staging run", "project", "atlas"); len(ids) == 0 || ids[0] != pg14 {
		t.Fatalf("recall after the correction: %v", ids)
	}

	// An edit that newly states a value supersedes as remembering it
	// would: the memory holding the old value is retired.
	alice := rem("the billing service is owned by Alice")
	note := rem("the coffee machine is broken")
	r = patch(note, "the billing service is owned by Bob")
	if !slices.Equal(apitest.Strs(r.JSON["superseded"]), []string{alice}) || supersededBy(t, e, alice) != note {
		t.Fatalf("the edit did not supersede Alice: %s", r)
	}
	if got := attributeValues(t, e, alice); !slices.Equal(got, []string{"billing service/owner=alice superseded"}) {
		t.Fatalf("Alice's attribute: %v", got)
	}
	e.Get(t, "/api/memory/"+alice).WantErr(t, 404, "not_found")

	// A statement the edit keeps is not stated again: it does not retire a
	// value stated after it.
	node18 := rem("the frontend builds with Node 18")
	node20 := rem("the frontend builds with Node 20")
	e.Post(t, "/api/memory/"+node18+"/recover", map[string]any{"reason": "both true for a while"}).Want(t, 200)
	r = patch(node18, "the frontend builds with Node 18 (the legacy app)")
	if len(apitest.Strs(r.JSON["superseded"])) != 0 || supersededBy(t, e, node20) != "" {
		t.Fatalf("an unchanged statement retired a newer value: %s", r)
	}
	if got := attributeValues(t, e, node20); !slices.Equal(got, []string{"frontend/node version=20 live"}) {
		t.Fatalf("Node 20's attribute: %v", got)
	}

	// A fresh statement contradicting a sibling supersedes it, as a
	// remembered one does.
	pg := rem("the reporting box runs Postgres 14")
	chat := rem("the team lunch moved to Friday")
	r = patch(chat, "the reporting box runs MySQL 8. The reporting box no longer runs Postgres.")
	if !slices.Equal(apitest.Strs(r.JSON["superseded"]), []string{pg}) {
		t.Fatalf("the edit did not supersede the contradicted sibling: %s", r)
	}

	// Moving a memory to another project moves its statements: what it
	// superseded in the old project comes back, and in the new one it
	// supersedes as stated there.
	redis2 := rem("redis maxmemory is 2gb")
	redis4 := rem("redis maxmemory is 4gb")
	other := e.MustID(t, "redis maxmemory is 1gb", "project", "beacon")
	r = e.Patch(t, redis4, map[string]any{"project": "beacon", "reason": "wrong project"}).Want(t, 200)
	if !slices.Equal(apitest.Strs(r.JSON["restored"]), []string{redis2}) || !slices.Equal(apitest.Strs(r.JSON["superseded"]), []string{other}) {
		t.Fatalf("moving the memory: %s", r)
	}
	if supersededBy(t, e, redis2) != "" || supersededBy(t, e, other) != redis4 {
		t.Fatalf("after the move: 2gb superseded by %q, beacon's 1gb by %q", supersededBy(t, e, redis2), supersededBy(t, e, other))
	}
}

package ops_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A project over retention.max_memories_per_project forgets its oldest
// unused memories, never pinned ones, decisions, keyed facts or recently
// used ones; the dry run says so first; what goes is recoverable.
func TestRetentionBoundsAProject(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Retention.MaxMemoriesPerProject = 3 })
	mem := func(content string, extra ...any) string {
		return e.MustID(t, content, append([]any{"project", "atlas"}, extra...)...)
	}
	old1 := mem("the build box was called hal9000")
	old2 := mem("lunch orders go to the ops channel")
	pinned := mem("never force-push main", "pinned", true)
	decision := mem("we decided to use sqlc over gorm", "type", "decision")
	keyed := mem("timezone: Europe/Stockholm", "key", "timezone")
	used := mem("the staging database listens on 5433")
	for _, c := range []string{"webshop uses stripe", "webshop builds with vite", "webshop deploys friday"} {
		e.MustID(t, c, "project", "webshop")
	}
	e.Clock.Advance(60 * day)
	if _, err := e.Svc.Recall(ctx, core.RecallInput{Query: "staging database 5433", Limit: 1}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(day)

	preview, err := e.App.Ops.RetentionPreview(ctx)
	if err != nil || preview.Pruned != 2 {
		t.Fatalf("dry run: %+v %v", preview, err)
	}
	rep := sweep(t, e)
	if rep.Pruned != 2 {
		t.Fatalf("pruned %d, want 2 (the rest of atlas is protected)", rep.Pruned)
	}
	for id, gone := range map[string]bool{old1: true, old2: true, pinned: false, decision: false, keyed: false, used: false} {
		m, err := e.Svc.Get(ctx, id, true)
		if err != nil || m.IsDeleted != gone {
			t.Errorf("%s: deleted=%v, want %v (%v)", id, m != nil && m.IsDeleted, gone, err)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND reason LIKE 'retention: the project is over%'`, old1); n != 1 {
		t.Fatalf("history reason: %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE project = 'webshop' AND is_deleted = 0`); n != 3 {
		t.Fatalf("a project at its bound keeps all: %d", n)
	}
	if _, err := e.Svc.Recover(ctx, core.RecoverInput{ID: old1, Reason: "still true"}, core.Actor{Name: "t", Type: core.ActorOperator}); err != nil {
		t.Fatalf("recover a pruned memory: %v", err)
	}
}

// Each scope has its own bound (per-slot caps: docs/design/evolution.md,
// "Pruning"): the user scope under retention.max_memories_user, each agent
// under retention.max_memories_per_agent, and neither counts in a project.
func TestRetentionBoundsScopes(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) {
		c.Retention.MaxMemoriesUser, c.Retention.MaxMemoriesPerAgent, c.Retention.MaxMemoriesPerProject = 2, 1, 3
	})
	var user []string
	for _, c := range []string{"the user likes dark themes", "the user writes in British English", "the user prefers short answers", "the user is on a Mac"} {
		user = append(user, e.MustID(t, c, "scope", "user", "project", "atlas"))
	}
	codex := []string{e.MustID(t, "codex runs make lint", "scope", "agent", "who", "codex"), e.MustID(t, "codex commits with -s", "scope", "agent", "who", "codex")}
	claude := e.MustID(t, "claude-code keeps notes in NOTES.md", "scope", "agent", "who", "claude-code")
	for _, c := range []string{"atlas builds with make", "atlas uses sqlite", "atlas ships weekly"} {
		e.MustID(t, c, "project", "atlas")
	}
	e.Clock.Advance(60 * day)
	preview, err := e.App.Ops.RetentionPreview(ctx)
	if err != nil || preview.Pruned != 3 {
		t.Fatalf("dry run: %+v %v", preview, err)
	}
	if rep := sweep(t, e); rep.Pruned != 3 {
		t.Fatalf("pruned %d, want 3: two of the user's, one of codex's", rep.Pruned)
	}
	live := func(ids ...string) (n int) {
		for _, id := range ids {
			if m, err := e.Svc.Get(ctx, id, true); err == nil && !m.IsDeleted {
				n++
			}
		}
		return n
	}
	if live(user...) != 2 || live(codex...) != 1 || live(claude) != 1 {
		t.Fatalf("live: user %d, codex %d, claude %d", live(user...), live(codex...), live(claude))
	}
	if live(user[2], user[3]) != 2 {
		t.Fatal("the oldest of the user's went first")
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE project = 'atlas' AND is_deleted = 0`); n != 3 {
		t.Fatalf("the project at its bound keeps all: %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND reason LIKE 'retention: the user scope is over%'`, user[0]); n != 1 {
		t.Fatalf("history reason: %d", n)
	}
}

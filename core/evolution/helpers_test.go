package evolution_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// Evolution runs inside core's write path, so its tests drive it there:
// a real store, the Service and its subsystems as the binary builds them
// (apitest), with no embedder.

var ctx = context.Background()

// api is who the HTTP API records a local caller as.
var api = core.Actor{Name: "api", Type: core.ActorOperator}

// newEnv opens a fresh store with no embedder and the configuration
// changed by mods.
func newEnv(t testing.TB, mods ...func(*config.Config)) *apitest.Env {
	t.Helper()
	return apitest.NewStoreEnv(t, append([]func(*config.Config){apitest.NoEmbed}, mods...)...)
}

// remember stores in as the API's caller, failing the test on error.
func remember(t testing.TB, e *apitest.Env, in core.RememberInput) *core.RememberResult {
	t.Helper()
	res, err := e.Svc.Remember(ctx, in, api)
	if err != nil {
		t.Fatalf("remember %q: %v", in.Content, err)
	}
	return res
}

// memID remembers content in project and returns its id.
func memID(t testing.TB, e *apitest.Env, content, project string) string {
	t.Helper()
	return remember(t, e, core.RememberInput{Content: content, Project: project}).Memory.ID
}

// get reads memory id, deleted or not.
func get(t testing.TB, e *apitest.Env, id string) *core.Memory {
	t.Helper()
	m, err := e.Svc.Get(ctx, id, true)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

// gone reports whether memory id is deleted (retired).
func gone(t testing.TB, e *apitest.Env, id string) bool {
	t.Helper()
	return get(t, e, id).IsDeleted
}

// evolutionOf is a memory's evolution as Get shows it (empty when it has
// none).
func evolutionOf(t testing.TB, e *apitest.Env, id string) *evolution.Evolution {
	t.Helper()
	if evo := get(t, e, id).Evolution; evo != nil {
		return evo
	}
	return &evolution.Evolution{}
}

// attributesOf renders a memory's attributes as
// entity|aspect|name|value|kind|status lines.
func attributesOf(t testing.TB, e *apitest.Env, id string) []string {
	t.Helper()
	var out []string
	for _, a := range evolutionOf(t, e, id).Attributes {
		out = append(out, strings.Join([]string{a.Entity, a.Aspect, a.Name, a.Value, a.Kind, a.Status}, "|"))
	}
	return out
}

// modify applies p as the API's caller, failing the test on error.
func modify(t testing.TB, e *apitest.Env, p core.Patch) *core.MutationResult {
	t.Helper()
	res, err := e.Svc.Modify(ctx, p, api)
	if err != nil {
		t.Fatalf("modify %s: %v", p.ID, err)
	}
	return res
}

// edit changes memory id's content.
func edit(t testing.TB, e *apitest.Env, id, content string) *core.MutationResult {
	t.Helper()
	return modify(t, e, core.Patch{ID: id, Content: &content, Reason: "edit"})
}

// recoverMemory recovers memory id, failing the test on error.
func recoverMemory(t testing.TB, e *apitest.Env, id, reason string) {
	t.Helper()
	if _, err := e.Svc.Recover(ctx, core.RecoverInput{ID: id, Reason: reason}, api); err != nil {
		t.Fatalf("recover %s: %v", id, err)
	}
}

// recall runs in as the API does (access tracked), failing the test on
// error.
func recall(t testing.TB, e *apitest.Env, in core.RecallInput) *core.RecallResult {
	t.Helper()
	res, err := e.Svc.Recall(ctx, in)
	if err != nil {
		t.Fatalf("recall %q: %v", in.Query, err)
	}
	return res
}

// recallIDs are the ids of the best 10 memories of project for query.
func recallIDs(t testing.TB, e *apitest.Env, query, project string) []string {
	t.Helper()
	var out []string
	for _, h := range recall(t, e, core.RecallInput{Query: query, Limit: 10, Filter: storage.MemoryFilter{Project: project}}).Results {
		out = append(out, h.ID)
	}
	return out
}

// contents are the hits' contents, in order.
func contents(res *core.RecallResult) []string {
	var out []string
	for _, h := range res.Results {
		out = append(out, h.Content)
	}
	return out
}

// anyContent reports whether a hit's content satisfies ok.
func anyContent(res *core.RecallResult, ok func(string) bool) bool {
	for _, h := range res.Results {
		if ok(h.Content) {
			return true
		}
	}
	return false
}

// wantInvalid asserts err is an invalid_request naming field, whose
// message contains msg.
func wantInvalid(t testing.TB, err error, field, msg string) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeInvalidRequest || e.Extra["field"] != field || !strings.Contains(e.Message, msg) {
		t.Fatalf("want invalid_request on %s containing %q, got %#v (%v)", field, msg, e, err)
	}
}

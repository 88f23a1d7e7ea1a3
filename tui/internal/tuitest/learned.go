package tuitest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/workers/llm"
)

// LearnFrom ends the agent session key of project with the user prompts
// as its Claude Code transcript and runs its learning job with the
// built-in heuristic, as the worker does: what the prompts teach becomes
// memories learned from the session.
func LearnFrom(t testing.TB, ap *app.App, key, project string, prompts ...string) {
	t.Helper()
	var lines []string
	for _, p := range prompts {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
	}
	ctx := context.Background()
	if _, err := ap.Hooks.SessionEnd(ctx, hooks.Request{Harness: "claude-code", SessionKey: key, Project: project,
		Transcript: strings.Join(lines, "\n")}); err != nil {
		t.Fatal(err)
	}
	job, err := ap.Jobs.Lease(ctx, "test", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease the session's job: %v %v", job, err)
	}
	if _, err := ap.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
		t.Fatal(err)
	}
}

// LearnedPrompts teach four memories, one each.
var LearnedPrompts = []string{
	"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
	"The team prefers table driven tests for every parser in this repository.",
	"Always run make lint before pushing, the CI rejects unformatted code.",
	"We decided to keep the staging database on PostgreSQL 16 because the extensions need it.",
}

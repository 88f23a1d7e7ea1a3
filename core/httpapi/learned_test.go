package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/workers/llm"
)

// learnFrom ends session key with the user prompts as its transcript and
// runs its learning job with the built-in heuristic, as the worker would.
func learnFrom(t *testing.T, e *apitest.Env, key string, prompts ...string) {
	t.Helper()
	var lines []string
	for _, p := range prompts {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
	}
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": key, "cwd": "/work/alpha",
		"transcript": strings.Join(lines, "\n")}).Want(t, 200)
	ctx := context.Background()
	job, err := e.App.Jobs.Lease(ctx, "test", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	if _, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
		t.Fatal(err)
	}
}

type learnedAnswer struct {
	SeenThrough string `json:"seenThrough"`
	Count       int    `json:"count"`
	Memories    []struct {
		ID, Content, Who string
		SourceID         string `json:"source_id"`
		CreatedAt        string `json:"created_at"`
	} `json:"memories"`
}

func learnedOf(t *testing.T, r *apitest.Resp) learnedAnswer {
	t.Helper()
	var out learnedAnswer
	if err := json.Unmarshal(r.Raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// What was learned since the person last looked (issue 34): the memories
// sessions taught, newest first, each kept (no longer new) or dropped
// (forgotten), and "last looked" advancing once nothing new is left or
// when the person marks everything seen; it persists in the store.
func TestLearnedSinceLastLooked(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none" })
	if l := learnedOf(t, e.Get(t, "/api/learned").Want(t, http.StatusOK)); l.Count != 0 || l.SeenThrough != "" || len(l.Memories) != 0 {
		t.Fatalf("a new store: %+v", l)
	}
	e.MustID(t, "We deploy on Tuesdays after the standup.") // stated, not learned
	e.Clock.Advance(time.Minute)
	learnFrom(t, e, "s-1",
		"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
		"The team prefers table driven tests for every parser in this repository.",
		"Always run make lint before pushing, the CI rejects unformatted code.")
	l := learnedOf(t, e.Get(t, "/api/learned").Want(t, http.StatusOK))
	if l.Count < 3 || len(l.Memories) != l.Count {
		t.Fatalf("after a session: %+v", l)
	}
	for _, m := range l.Memories {
		if m.Who != "pipeline-v2" || m.SourceID != "session:s-1" || strings.Contains(m.Content, "Tuesdays") {
			t.Fatalf("not a learned memory: %+v", m)
		}
	}
	n := l.Count
	if c := learnedOf(t, e.Get(t, "/api/learned?limit=0").Want(t, http.StatusOK)); c.Count != n || len(c.Memories) != 0 {
		t.Fatalf("the count alone: %+v", c)
	}

	// Keep the first, drop the second: both leave the new set; "last
	// looked" does not move while some are left.
	kept, dropped := l.Memories[0].ID, l.Memories[1].ID
	l = learnedOf(t, e.Post(t, "/api/learned/review", map[string]any{"keep": []string{kept}}).Want(t, http.StatusOK))
	e.Del(t, dropped, map[string]any{"reason": "wrong"}).Want(t, http.StatusOK)
	l = learnedOf(t, e.Get(t, "/api/learned").Want(t, http.StatusOK))
	if l.Count != n-2 || l.SeenThrough != "" {
		t.Fatalf("after keeping and dropping one each: %+v, want %d new", l, n-2)
	}
	for _, m := range l.Memories {
		if m.ID == kept || m.ID == dropped {
			t.Fatalf("%s is still new: %+v", m.ID, l)
		}
	}
	// Keep the rest: nothing is new, "last looked" is the newest learned
	// memory and the kept marks are gone.
	var rest []string
	for _, m := range l.Memories {
		rest = append(rest, m.ID)
	}
	l = learnedOf(t, e.Post(t, "/api/learned/review", map[string]any{"keep": rest}).Want(t, http.StatusOK))
	if l.Count != 0 || l.SeenThrough != "2026-03-01T12:01:00.000Z" || e.Count(t, "SELECT count(*) FROM learned_reviews") != 0 {
		t.Fatalf("after reviewing everything: %+v, %d kept marks", l, e.Count(t, "SELECT count(*) FROM learned_reviews"))
	}
	// A dropped memory recovered was seen: it is not new again.
	e.Post(t, "/api/memory/"+dropped+"/recover", map[string]any{"reason": "undo"}).Want(t, http.StatusOK)
	if l = learnedOf(t, e.Get(t, "/api/learned").Want(t, http.StatusOK)); l.Count != 0 {
		t.Fatalf("after a recover: %+v", l)
	}

	// A later session is new; marking all seen through its newest clears it.
	e.Clock.Advance(time.Hour)
	learnFrom(t, e, "s-2", "The team prefers squash merges for every pull request in this repository.",
		"We decided to keep the staging database on PostgreSQL 16 because the extensions need it.",
		"Hello again, thanks for the help yesterday with the flaky tests, that was really useful for the team.")
	l = learnedOf(t, e.Get(t, "/api/learned").Want(t, http.StatusOK))
	if l.Count != 2 || l.Memories[0].SourceID != "session:s-2" {
		t.Fatalf("after a second session: %+v", l)
	}
	l = learnedOf(t, e.Post(t, "/api/learned/review", map[string]any{"seenThrough": l.Memories[0].CreatedAt}).Want(t, http.StatusOK))
	if l.Count != 0 || l.SeenThrough != "2026-03-01T13:01:00.000Z" {
		t.Fatalf("after marking all seen: %+v", l)
	}
	// It is in the store: a service opened again reads the same.
	if got, _ := e.App.Ops.Learned(context.Background(), 10); got.SeenThrough != l.SeenThrough || got.Count != 0 {
		t.Fatalf("ops: %+v", got)
	}

	e.Post(t, "/api/learned/review", map[string]any{"seenThrough": "yesterday"}).WantInvalid(t, "seenThrough", "not a time")
	e.Post(t, "/api/learned/review", map[string]any{"keep": []string{""}}).WantInvalid(t, "keep", "empty")
}

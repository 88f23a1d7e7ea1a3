package client_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// What was learned since the person last looked, and a model's use per
// day, read the same in process and over HTTP; a review through one is
// seen through the other (the TUI and cairn status use either).
func TestLearnedAndModelUsageBothBackends(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	cfg.Embedding.Provider = "none"
	ap := app.New(db, cfg, app.Options{})
	srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
	t.Cleanup(srv.Close)
	local := client.Local(ap, client.LocalOptions{Actor: testActor})
	remote := client.HTTP(strings.TrimPrefix(srv.URL, "http://"), client.Options{Actor: testActor})

	var lines []string
	for _, p := range []string{"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
		"The team prefers table driven tests for every parser in this repository.",
		"Always run make lint before pushing, the CI rejects unformatted code."} {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
	}
	if _, err := ap.Hooks.SessionEnd(ctx, hooks.Request{Harness: "claude-code", SessionKey: "s-1", Project: "/work/alpha", Transcript: strings.Join(lines, "\n")}); err != nil {
		t.Fatal(err)
	}
	job, err := ap.Jobs.Lease(ctx, "test", jobs.SessionExtract)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	if _, err := ap.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.AddModelUsage(ctx, tx, storage.ModelUsage{Day: ap.Service.Now().UTC().Format("2006-01-02"), Provider: "ollama", Calls: 2, InputTokens: 900, OutputTokens: 80})
	}); err != nil {
		t.Fatal(err)
	}

	same := func(what string, read func(c client.Client) (any, error)) {
		t.Helper()
		l, err := read(local)
		if err != nil {
			t.Fatalf("%s in process: %v", what, err)
		}
		r, err := read(remote)
		if err != nil {
			t.Fatalf("%s over HTTP: %v", what, err)
		}
		lj, _ := json.Marshal(l)
		rj, _ := json.Marshal(r)
		if !reflect.DeepEqual(lj, rj) {
			t.Fatalf("%s differs:\nin process %s\nover HTTP  %s", what, lj, rj)
		}
	}
	learned := func(c client.Client) (any, error) { return c.Learned(ctx, 10) }
	same("learned", learned)
	same("model usage", func(c client.Client) (any, error) { return c.ModelUsage(ctx) })

	l, _ := local.Learned(ctx, 10)
	if l.Count != 3 || len(l.Memories) != 3 {
		t.Fatalf("learned: %+v", l)
	}
	r, err := remote.ReviewLearned(ctx, ops.LearnedReview{Keep: []string{l.Memories[0].ID}}, 10)
	if err != nil || r.Count != 2 {
		t.Fatalf("keep over HTTP: %+v %v", r, err)
	}
	same("learned after a keep", learned)
	if r, err = local.ReviewLearned(ctx, ops.LearnedReview{SeenThrough: l.Memories[0].CreatedAt}, 10); err != nil || r.Count != 0 || r.SeenThrough == "" {
		t.Fatalf("seen in process: %+v %v", r, err)
	}
	same("learned after all seen", learned)
	u, _ := remote.ModelUsage(ctx)
	if len(u.ModelUsage) != 1 || u.ModelUsage[0].Calls != 2 || u.TokensToday != 980 || u.DailyTokenBudget != cfg.PipelineV2.DailyTokenBudget {
		t.Fatalf("model usage over HTTP: %+v", u)
	}
}

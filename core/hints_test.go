package core_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func TestHeuristicHints(t *testing.T) {
	h := core.HeuristicHints("User prefers tabs over spaces", "preference", 5)
	if len(h) != 2 || h[0] != "what does the user prefer or like: user prefers tabs spaces" {
		t.Fatalf("hints = %q", h)
	}
	if got := core.HeuristicHints("we deploy on Fridays", "fact", 5); !slices.Equal(got, []string{"ship release rollout"}) {
		t.Fatalf("synonym hint = %q", got)
	}
	if got := core.HeuristicHints("zzz qqq", "fact", 5); len(got) != 0 {
		t.Fatalf("nothing to say, yet hints = %q", got)
	}
	if got := core.HeuristicHints("user prefers to deploy", "preference", 1); len(got) != 1 {
		t.Fatalf("max not honoured: %q", got)
	}
}

func TestHintsLiftKeywordRecallByMax(t *testing.T) {
	ctx := context.Background()
	cfg := config.DefaultConfig()
	cfg.Hints.Enabled = true
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "h.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := core.NewService(db, cfg, core.ServiceOptions{})
	res, err := svc.Remember(ctx, core.RememberInput{Content: "we deploy on Fridays"}, core.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Recall(ctx, core.RecallInput{Query: "when do we ship?", Explain: true, NoTracking: true})
	if err != nil || len(out.Results) != 1 || out.Results[0].ID != res.Memory.ID {
		t.Fatalf("hint did not find the memory: %+v %v", out, err)
	}
	if e := out.Results[0].Explain; e.Hint != 1 || e.Keyword <= 0 || e.Coverage != 0 || e.BM25 != 0 {
		t.Fatalf("explain of a hint-only match: %+v", e)
	}
	// Editing the content replaces the hints.
	c := "the cat sleeps all day"
	if _, err := svc.Modify(ctx, core.Patch{ID: res.Memory.ID, Reason: "t", Content: &c}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	out, _ = svc.Recall(ctx, core.RecallInput{Query: "when do we ship?", NoTracking: true})
	if len(out.Results) != 0 {
		t.Fatalf("stale hints still match: %+v", out.Results)
	}
	out, _ = svc.Recall(ctx, core.RecallInput{Query: "which pet sleeps", NoTracking: true})
	if len(out.Results) != 1 {
		t.Fatalf("new hints do not match: %+v", out.Results)
	}
}

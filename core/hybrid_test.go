package core_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

func remember(t *testing.T, svc *core.Service, content, project string) string {
	t.Helper()
	res, err := svc.Remember(context.Background(), core.RememberInput{Content: content, Project: project}, core.Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory.ID
}

func ids(res *core.RecallResult) []string {
	var out []string
	for _, h := range res.Results {
		out = append(out, h.ID)
	}
	return out
}

func TestHybridFindsParaphrasesKeywordsMiss(t *testing.T) {
	ctx := context.Background()
	// "ship" and "deploy" are 0.33 apart for the built-in model, below its
	// relevance floor: this test is about fusion, so the floor is off.
	ap := apitest.NewApp(t, apitest.Builtin(t), apitest.NoFloor)
	svc := ap.Service
	deploy := remember(t, svc, "we deploy on Fridays", "")
	remember(t, svc, "my cat is grey", "")
	remember(t, svc, "the database migration failed with a schema error", "")
	apitest.EmbedPending(t, ap.Vectors)

	kw := apitest.Recall(t, svc, core.RecallInput{Query: "when do we ship?", Mode: core.ModeKeyword})
	if slices.Contains(ids(kw), deploy) {
		t.Fatal("keyword search should not connect 'ship' with 'deploy'")
	}
	res := apitest.Recall(t, svc, core.RecallInput{Query: "when do we ship?", Explain: true, Limit: 3})
	if res.Method != core.ModeHybrid {
		t.Fatalf("method = %s", res.Method)
	}
	if len(res.Results) == 0 || res.Results[0].ID != deploy {
		t.Fatalf("hybrid top result = %v, want the deploy memory", ids(res))
	}
	top := res.Results[0]
	if top.Source != core.ModeVector || top.Explain == nil || top.Explain.Vector <= 0 || top.Explain.Keyword != 0 {
		t.Fatalf("explain of a vector-only hit: %+v source %s", top.Explain, top.Source)
	}
	// Both legs: an exact keyword match also has its similarity.
	res = apitest.Recall(t, svc, core.RecallInput{Query: "database migration", Explain: true, Limit: 1})
	if e := res.Results[0].Explain; e.Keyword != 1 || e.Vector <= 0 || e.BM25 >= 0 || e.Final <= 0 {
		t.Fatalf("explain of a hybrid hit: %+v", e)
	}
	st, err := ap.Vectors.EmbeddingStatus(ctx)
	if err != nil || st.Coverage["pending"] != 0 || !st.IndexReady || st.Indexed != 3 {
		t.Fatalf("status after writes: %+v %v", st, err)
	}
}

func TestVectorLegHonoursFiltersAndDeletes(t *testing.T) {
	ctx := context.Background()
	ap := apitest.NewApp(t, apitest.Builtin(t), apitest.NoFloor)
	svc := ap.Service
	a := remember(t, svc, "we deploy on Fridays", "atlas")
	b := remember(t, svc, "deployments happen every Friday afternoon", "zephyr")
	apitest.EmbedPending(t, ap.Vectors)
	q := core.RecallInput{Query: "when do we ship releases?", Mode: core.ModeVector}

	q.Filter = storage.MemoryFilter{Project: "zephyr"}
	if got := ids(apitest.Recall(t, svc, q)); !slices.Equal(got, []string{b}) {
		t.Fatalf("project filter on the vector leg: %v", got)
	}
	q.Filter = storage.MemoryFilter{Tags: []string{"nope"}}
	if got := ids(apitest.Recall(t, svc, q)); len(got) != 0 {
		t.Fatalf("tag filter on the vector leg: %v", got)
	}
	q.Filter = storage.MemoryFilter{}
	if _, err := svc.Forget(ctx, core.ForgetInput{ID: a, Reason: "test"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	if got := ids(apitest.Recall(t, svc, q)); slices.Contains(got, a) {
		t.Fatalf("deleted memory still found by vectors: %v", got)
	}
	if _, err := svc.Recover(ctx, core.RecoverInput{ID: a, Reason: "test"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	if got := ids(apitest.Recall(t, svc, q)); !slices.Contains(got, a) {
		t.Fatalf("recovered memory not found by vectors: %v", got)
	}
	// A content change replaces the vector: the old meaning is gone.
	content := "my cat is grey and sleeps all day"
	if _, err := svc.Modify(ctx, core.Patch{ID: a, Reason: "test", Content: &content}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	// Until the tracker embeds the new content, the old vector is out of
	// the index: the old meaning no longer finds the memory.
	if got := ids(apitest.Recall(t, svc, core.RecallInput{Query: "when do we ship releases?", Mode: core.ModeVector})); slices.Contains(got, a) {
		t.Fatalf("edited memory still found by its old meaning: %v", got)
	}
	apitest.EmbedPending(t, ap.Vectors)
	res := apitest.Recall(t, svc, core.RecallInput{Query: "pets sleeping", Mode: core.ModeVector, Limit: 1})
	if got := ids(res); !slices.Equal(got, []string{a}) {
		t.Fatalf("edited memory not found by its new meaning: %v", got)
	}
	// Type, pinned and importance edits reach the vector leg's filters.
	typ := "note"
	if _, err := svc.Modify(ctx, core.Patch{ID: b, Reason: "test", Type: &typ}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	q.Filter = storage.MemoryFilter{Type: "note"}
	if got := ids(apitest.Recall(t, svc, q)); !slices.Equal(got, []string{b}) {
		t.Fatalf("type filter after an edit: %v", got)
	}
}

func TestRecallDegradesToKeywordWhenProviderFails(t *testing.T) {
	emb := apitest.Builtin(t)
	ap := apitest.NewApp(t, emb)
	svc := ap.Service
	id := remember(t, svc, "postgres runs on port 5433 in staging", "")
	apitest.EmbedPending(t, ap.Vectors)
	emb.SetFail(errors.New("connection refused"))
	res := apitest.Recall(t, svc, core.RecallInput{Query: "which port does postgres use"})
	if res.Method != core.ModeKeyword || len(res.Warnings) == 0 || !slices.Equal(ids(res), []string{id}) {
		t.Fatalf("degraded recall: method %s warnings %v ids %v", res.Method, res.Warnings, ids(res))
	}
	// Writes still succeed; the memory waits for the tracker.
	res2, err := svc.Remember(context.Background(), core.RememberInput{Content: "redis listens on 6380"}, core.Actor{})
	if err != nil || res2.Embedded {
		t.Fatalf("remember with the provider down: %v embedded=%v", err, res2 != nil && res2.Embedded)
	}
	n, _ := ap.Vectors.CountPendingEmbeddings(context.Background())
	if n != 1 {
		t.Fatalf("pending = %d, want 1", n)
	}
	emb.SetFail(nil)
	if err := ap.Vectors.EmbedPending(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := ap.Vectors.CountPendingEmbeddings(context.Background()); n != 0 {
		t.Fatalf("pending after the tracker = %d", n)
	}
	if res := apitest.Recall(t, svc, core.RecallInput{Query: "which port does redis use"}); res.Method != core.ModeHybrid {
		t.Fatalf("method after recovery = %s", res.Method)
	}
}

func TestRecallWithoutEmbedderIsKeyword(t *testing.T) {
	svc := apitest.NewService(t, nil)
	remember(t, svc, "postgres runs on port 5433", "")
	res := apitest.Recall(t, svc, core.RecallInput{Query: "postgres"})
	if res.Method != core.ModeKeyword || len(res.Results) != 1 {
		t.Fatalf("%+v", res)
	}
	res = apitest.Recall(t, svc, core.RecallInput{Query: "postgres", Mode: core.ModeVector})
	if len(res.Results) != 0 {
		t.Fatal("vector mode without vectors should find nothing")
	}
}

func TestSimilarAndEmbeddingsExport(t *testing.T) {
	ctx := context.Background()
	ap := apitest.NewApp(t, apitest.Builtin(t))
	svc := ap.Service
	a := remember(t, svc, "we deploy on Fridays", "")
	b := remember(t, svc, "deployments go out every Friday", "")
	remember(t, svc, "my cat is grey", "")
	apitest.EmbedPending(t, ap.Vectors)
	sim, err := svc.Similar(ctx, a, 1, "")
	if err != nil || len(sim) != 1 || sim[0].ID != b {
		t.Fatalf("similar: %+v %v", sim, err)
	}
	rows, total, err := ap.Vectors.Embeddings(ctx, 2, 0, true)
	if err != nil || total != 3 || len(rows) != 2 || len(rows[0].Vector) != uselite.Dimensions {
		t.Fatalf("embeddings export: %d %d %v", total, len(rows), err)
	}
}

func TestAccessTrackingDoesNotReindexOrVersion(t *testing.T) {
	ctx := context.Background()
	svc := apitest.NewService(t, nil)
	id := remember(t, svc, "postgres runs on port 5433", "")
	if _, err := svc.Recall(ctx, core.RecallInput{Query: "postgres"}); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Get(ctx, id, false)
	if err != nil || m.AccessCount != 1 || m.LastAccessed == "" || m.Version != 1 {
		t.Fatalf("after recall: %+v %v", m, err)
	}
}

// The relevance floor: a query that shares no content word with any memory
// and is no closer to any than unrelated text gets nothing, in every mode;
// without the floor the nearest memories come back however far.
func TestRecallFloorDropsNonsense(t *testing.T) {
	for _, floor := range []bool{true, false} {
		var mods []func(*config.Config)
		if !floor {
			mods = append(mods, apitest.NoFloor)
		}
		ap := apitest.NewApp(t, apitest.Builtin(t), mods...)
		svc := ap.Service
		remember(t, svc, "we deploy on Fridays", "")
		cat := remember(t, svc, "my cat is grey and sleeps all day", "")
		remember(t, svc, "the database migration failed with a schema error", "")
		apitest.EmbedPending(t, ap.Vectors)
		for _, mode := range []string{"", core.ModeVector} {
			res := apitest.Recall(t, svc, core.RecallInput{Query: "zzzzqqq nonexistent", Mode: mode})
			if floor && len(res.Results) != 0 {
				t.Fatalf("mode %q with the floor: %d results for nonsense", mode, len(res.Results))
			}
			if !floor && len(res.Results) == 0 {
				t.Fatalf("mode %q without the floor: the nearest memories should come back", mode)
			}
		}
		if floor && svc.VectorFloor() != 0.393 {
			t.Fatalf("built-in model floor = %v", svc.VectorFloor())
		}
		// A real paraphrase with no shared word clears the floor.
		res := apitest.Recall(t, svc, core.RecallInput{Query: "pets napping", Mode: core.ModeVector, Limit: 1})
		if got := ids(res); !slices.Equal(got, []string{cat}) {
			t.Fatalf("floor=%v: paraphrase: %v", floor, got)
		}
	}
}

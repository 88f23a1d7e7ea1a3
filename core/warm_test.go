package core_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A server that just started answers its first searches without waiting
// for its indexes: while the embedding model and the vector index load, a
// hybrid recall answers from keywords and says so; while the keyword index
// is built, FTS5 answers. Once both are loaded, recall is hybrid again and
// answers from the keyword index.
func TestRecallAnswersWhileTheIndexesWarm(t *testing.T) {
	ctx := context.Background()
	ap := apitest.NewApp(t, apitest.Builtin(t), apitest.NoFloor)
	svc := ap.Service
	deploy := remember(t, svc, "we deploy on Fridays after the release review", "")
	remember(t, svc, "my cat is grey", "")
	apitest.EmbedPending(t, ap.Vectors)

	// What a server does at start, before its API answers.
	warmVectors, warmKeywords := ap.Vectors.StartWarm(), svc.WarmKeywordIndex(ctx)
	res := apitest.Recall(t, svc, core.RecallInput{Query: "when do we deploy?"})
	if res.Method != core.ModeKeyword || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "still loading") }) {
		t.Fatalf("recall while warming: method %q, warnings %q; want keyword and a warning", res.Method, res.Warnings)
	}
	if len(res.Results) == 0 || res.Results[0].ID != deploy {
		t.Fatalf("recall while warming found %v, want the deploy memory first", ids(res))
	}
	if st := core.KeywordIndexStats(svc); st.Docs != 0 {
		t.Fatalf("the first search built the keyword index (%d docs): it waited for it", st.Docs)
	}
	// Vector-only recall, asked for explicitly, waits instead.
	if res := apitest.Recall(t, svc, core.RecallInput{Query: "when do we deploy?", Mode: core.ModeVector}); res.Method != core.ModeVector {
		t.Fatalf("vector recall while warming: method %q", res.Method)
	}

	if err := warmKeywords(ctx); err != nil {
		t.Fatal(err)
	}
	if err := warmVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if st := core.KeywordIndexStats(svc); st.Docs != 2 {
		t.Fatalf("keyword index after warming: %+v, want 2 docs", st)
	}
	res = apitest.Recall(t, svc, core.RecallInput{Query: "when do we deploy?"})
	if res.Method != core.ModeHybrid || len(res.Warnings) != 0 || len(res.Results) == 0 || res.Results[0].ID != deploy {
		t.Fatalf("recall once warm: method %q, warnings %q, results %v", res.Method, res.Warnings, ids(res))
	}
}

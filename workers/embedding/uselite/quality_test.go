package uselite

import (
	"math"
	"os"
	"slices"
	"testing"
)

// paraphrases are query → passage pairs in the style of an agent's memory:
// each query should retrieve its own passage among all passages.
var paraphrases = []struct{ query, passage string }{
	{"schema upgrade error", "the database migration failed"},
	{"when do we ship?", "we deploy on Fridays"},
	{"how do I run the tests?", "use make test to execute the unit test suite"},
	{"which package manager should I use?", "this repo uses pnpm, never npm or yarn"},
	{"where are the API keys stored?", "secrets live in the vault, not in environment files"},
	{"the build is slow", "compilation takes ten minutes because of the large C++ dependencies"},
	{"who reviews pull requests?", "Alice approves all code changes before they are merged"},
	{"login is broken", "users cannot sign in after the auth service update"},
	{"what python version do we need?", "the project requires Python 3.11 or newer"},
	{"fix the flaky test", "the integration test sometimes times out on CI"},
	{"memory leak in the server", "the backend process uses more and more RAM until it crashes"},
	{"code style rules", "we format everything with gofmt and lint with staticcheck"},
	{"how to release to production", "run the deploy script and then promote the canary"},
	{"database backups", "a snapshot of Postgres is taken every night at 2am"},
	{"rate limiting", "the API rejects clients that send too many requests per minute"},
	{"dark mode colors", "the theme uses a black background with light grey text"},
	{"logging configuration", "set LOG_LEVEL=debug to see verbose output"},
	{"customer complaint about invoices", "a client said the billing statement was wrong"},
	{"cache invalidation bug", "stale data is served after an update because Redis is not cleared"},
	{"onboarding new developers", "new engineers should read the setup guide on their first day"},
	{"dependency upgrade", "bump the library versions in go.mod"},
	{"timezone problem", "dates are shown in UTC instead of the user's local time"},
}

// retrieval embeds the paraphrase set and returns the number of queries
// whose own passage ranks first, and the mean reciprocal rank.
func retrieval(tb testing.TB, m *Model) (top1 int, mrr float64) {
	tb.Helper()
	var queries, passages []string
	for _, p := range paraphrases {
		queries = append(queries, p.query)
		passages = append(passages, p.passage)
	}
	qv, err := m.Embed(queries)
	if err != nil {
		tb.Fatal(err)
	}
	pv, err := m.Embed(passages)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range qv {
		want := cosine(qv[i], pv[i])
		rank := 1
		for j := range pv {
			if j != i && cosine(qv[i], pv[j]) > want {
				rank++
			}
		}
		if rank == 1 {
			top1++
		}
		mrr += 1 / float64(rank)
	}
	return top1, mrr / float64(len(qv))
}

func TestSanityOrdering(t *testing.T) {
	m := loadTestModel(t)
	v, err := m.Embed([]string{"we deploy on Fridays", "when do we ship?", "my cat is grey"})
	if err != nil {
		t.Fatal(err)
	}
	related, unrelated := cosine(v[0], v[1]), cosine(v[0], v[2])
	t.Logf("cos(deploy, ship) = %.3f, cos(deploy, cat) = %.3f", related, unrelated)
	if related <= unrelated {
		t.Errorf("cos(deploy, ship) = %.3f should exceed cos(deploy, cat) = %.3f", related, unrelated)
	}
}

func TestParaphraseRetrieval(t *testing.T) {
	m := loadTestModel(t)
	top1, mrr := retrieval(t, m)
	t.Logf("paraphrase retrieval: top-1 %d/%d, MRR %.3f", top1, len(paraphrases), mrr)
	// Measured: top-1 10/22 with both the float32 weights (MRR 0.575; their
	// vectors match the JS runtime's to 1e-6) and the embedded int8 weights
	// (MRR 0.568). USE-lite is weak on
	// paraphrases that share no words; the floors leave room for a
	// rounding-level rank change only.
	if top1 < 9 || mrr < 0.53 {
		t.Errorf("paraphrase retrieval regressed: top-1 %d/%d, MRR %.3f", top1, len(paraphrases), mrr)
	}
}

// TestCompareWeights compares the embedded (compact) weights with another
// conversion, normally the float32 one. It only runs when
// USELITE_COMPARE_DIR names a folder written by internal/convert, e.g.
//
//	go run ./workers/embedding/uselite/internal/convert -pkg pkg/package \
//	    -format float32 -out /tmp/use-f32
//	USELITE_COMPARE_DIR=/tmp/use-f32 go test ./workers/embedding/uselite \
//	    -run CompareWeights -v
func TestCompareWeights(t *testing.T) {
	dir := os.Getenv("USELITE_COMPARE_DIR")
	if dir == "" {
		t.Skip("USELITE_COMPARE_DIR not set")
	}
	other, err := loadFS(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	m := loadTestModel(t)

	var texts []string
	var want [][]float32
	for _, c := range loadReference(t) {
		texts = append(texts, c.input())
		want = append(want, c.Vec)
	}
	for _, p := range paraphrases {
		texts = append(texts, p.query, p.passage)
		want = append(want, nil, nil)
	}
	a, _ := m.Embed(texts)
	b, _ := other.Embed(texts)
	minCos, minCosOtherJS, maxDiffOtherJS := 1.0, 1.0, 0.0
	for i := range texts {
		minCos = min(minCos, cosine(a[i], b[i]))
		if want[i] != nil {
			minCosOtherJS = min(minCosOtherJS, cosine(b[i], want[i]))
			for j := range b[i] {
				maxDiffOtherJS = max(maxDiffOtherJS, math.Abs(float64(b[i][j]-want[i][j])))
			}
		}
	}
	t.Logf("embedded vs %s over %d texts: min cosine %.6f", dir, len(texts), minCos)
	t.Logf("%s vs JS reference: min cosine %.7f, max |diff| %.3g", dir, minCosOtherJS, maxDiffOtherJS)
	t1a, mrrA := retrieval(t, m)
	t1b, mrrB := retrieval(t, other)
	t.Logf("paraphrase top-1/MRR: embedded %d/%d %.4f, %s %d/%d %.4f",
		t1a, len(paraphrases), mrrA, dir, t1b, len(paraphrases), mrrB)
	if !slices.Equal(m.tok.scores, other.tok.scores) {
		t.Errorf("vocabularies differ")
	}
}

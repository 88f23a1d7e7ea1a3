package core_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/core"
)

// The fuzz targets share one store per target (opened once, before
// f.Fuzz) and call the API handler in process, which is several times
// faster per input than going through a listener. Seed inputs live in
// testdata/fuzz/<FuzzName>/ and run as ordinary tests with `go test`.

// checkAnswer asserts the invariants every API answer keeps: never a 5xx,
// always a JSON object, and errors in the {"error","code"} shape.
func checkAnswer(t *testing.T, r *resp, input []byte) {
	t.Helper()
	if r.Status >= 500 {
		t.Fatalf("input %q: %s", input, r)
	}
	if r.JSON == nil {
		t.Fatalf("input %q: answer is not a JSON object: %s", input, r)
	}
	if r.Status >= 400 {
		if r.str("error") == "" || r.str("code") == "" {
			t.Fatalf("input %q: error answer without error/code: %s", input, r)
		}
	}
}

// liveState counts what a request may change, cheaply.
func (e *env) liveState(t testing.TB) (live, deleted, history int) {
	t.Helper()
	err := e.ro.QueryRow(`SELECT COALESCE(SUM(is_deleted = 0), 0), COALESCE(SUM(is_deleted = 1), 0),
		(SELECT count(*) FROM memory_history) FROM memories`).Scan(&live, &deleted, &history)
	if err != nil {
		t.Fatalf("live state: %v", err)
	}
	return
}

func FuzzRememberBody(f *testing.F) {
	e := newStoreEnv(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		live0, _, hist0 := e.liveState(t)
		r := e.do(t, "POST", "/api/memory/remember", rawBody(body), nil)
		checkAnswer(t, r, body)
		live1, _, hist1 := e.liveState(t)
		if r.Status != http.StatusOK {
			if live1 != live0 || hist1 != hist0 {
				t.Fatalf("input %q: refused with %d but the store changed (%d→%d rows, %d→%d history)", body, r.Status, live0, live1, hist0, hist1)
			}
			return
		}
		if live1-live0 != hist1-hist0 {
			t.Fatalf("input %q: %d memories created but %d history events", body, live1-live0, hist1-hist0)
		}
		ids := []string{r.str("id")}
		if r.boolean("chunked") {
			ids = strs(r.JSON["ids"])
			if len(ids) == 0 || int(r.num("chunk_count")) != len(ids) || r.str("group_id") == "" {
				t.Fatalf("input %q: chunked answer %s", body, r)
			}
		}
		for _, id := range ids {
			g := e.do(t, "GET", "/api/memory/"+id, nil, nil)
			if g.Status != http.StatusOK {
				t.Fatalf("input %q: remembered %s but GET says %s", body, id, g)
			}
			c := g.str("content")
			if c == "" || c != strings.TrimSpace(c) || !utf8.ValidString(c) {
				t.Fatalf("input %q: stored content %q", body, c)
			}
			if imp := g.num("importance"); imp < 0 || imp > 1 {
				t.Fatalf("input %q: importance %v", body, imp)
			}
			if _, ok := g.JSON["tags"].([]any); !ok {
				t.Fatalf("input %q: tags not an array: %s", body, g)
			}
		}
	})
}

func FuzzPatchBody(f *testing.F) {
	e := newStoreEnv(f)
	target := e.mustID(f, "fuzz patch target")
	e.mustID(f, "fuzz duplicate candidate")
	f.Fuzz(func(t *testing.T, body []byte) {
		before := e.do(t, "GET", "/api/memory/"+target, nil, nil).want(t, http.StatusOK)
		_, _, hist0 := e.liveState(t)
		r := e.do(t, "PATCH", "/api/memory/"+target, rawBody(body), nil)
		checkAnswer(t, r, body)
		after := e.do(t, "GET", "/api/memory/"+target, nil, nil).want(t, http.StatusOK)
		_, _, hist1 := e.liveState(t)
		v0, v1 := before.num("version"), after.num("version")
		if r.Status == http.StatusOK && r.str("status") == "updated" {
			if r.num("newVersion") != v0+1 || v1 != v0+1 || hist1 != hist0+1 {
				t.Fatalf("input %q: updated %s, version %v→%v, history %d→%d", body, r, v0, v1, hist0, hist1)
			}
			if c := after.str("content"); c == "" || !utf8.ValidString(c) {
				t.Fatalf("input %q: content %q", body, c)
			}
			if imp := after.num("importance"); imp < 0 || imp > 1 {
				t.Fatalf("input %q: importance %v", body, imp)
			}
			return
		}
		if r.Status == http.StatusOK && r.str("status") != "no_changes" {
			t.Fatalf("input %q: 200 with status %q", body, r.str("status"))
		}
		if v1 != v0 || hist1 != hist0 || after.str("content") != before.str("content") {
			t.Fatalf("input %q: answered %s but the memory changed (version %v→%v, history %d→%d)", body, r, v0, v1, hist0, hist1)
		}
	})
}

func FuzzForgetBody(f *testing.F) {
	e := newStoreEnv(f)
	n := 0
	replenish := func(tb testing.TB) {
		for {
			live, _, _ := e.liveState(tb)
			if live >= 8 {
				return
			}
			n++
			e.mustID(tb, fmt.Sprintf("fuzz forget memory %d about deploys", n), "tags", []string{"fuzz", fmt.Sprint(n % 3)}, "pinned", n%4 == 0)
		}
	}
	for i := range 8 {
		n++
		e.mustID(f, fmt.Sprintf("fuzz forget memory %d about deploys", n), "tags", []string{"fuzz", fmt.Sprint(i % 3)}, "pinned", i%4 == 0)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		replenish(t)
		live0, del0, hist0 := e.liveState(t)
		r := e.do(t, "POST", "/api/memory/forget", rawBody(body), nil)
		checkAnswer(t, r, body)
		live1, del1, hist1 := e.liveState(t)
		if r.Status == http.StatusOK && r.str("mode") == "execute" {
			deleted := 0
			results, _ := r.JSON["results"].([]any)
			for _, res := range results {
				if res.(map[string]any)["status"] == "deleted" {
					deleted++
				}
			}
			if int(r.num("deleted")) != deleted || live0-live1 != deleted || del1-del0 != deleted || hist1-hist0 != deleted {
				t.Fatalf("input %q: answered deleted=%v (%d results deleted); live %d→%d, deleted %d→%d, history %d→%d",
					body, r.num("deleted"), deleted, live0, live1, del0, del1, hist0, hist1)
			}
			return
		}
		if r.Status == http.StatusOK {
			if r.str("mode") != "preview" {
				t.Fatalf("input %q: mode %q", body, r.str("mode"))
			}
			// An empty preview omits "candidates" (reported separately by
			// TestBatchForgetEmptySelectionShape); treat it as empty here.
			cands, _ := r.JSON["candidates"].([]any)
			for _, c := range cands {
				id, _ := c.(map[string]any)["id"].(string)
				if g := e.do(t, "GET", "/api/memory/"+id, nil, nil); g.Status != http.StatusOK {
					t.Fatalf("input %q: preview offers %s which is not live: %s", body, id, g)
				}
			}
		}
		if live1 != live0 || del1 != del0 || hist1 != hist0 {
			t.Fatalf("input %q: answered %s but the store changed", body, r)
		}
	})
}

func FuzzRecallBody(f *testing.F) {
	e := newStoreEnv(f)
	for _, c := range []string{deployFact, "User prefers bun over npm for TypeScript projects.", "Ünïcödé test: 東京 meeting moved to Thursday 🚀",
		"critical: never commit secrets to git", "[infra,db]: postgres runs on port 5433 in staging"} {
		e.mustID(f, c)
	}
	gone := e.mustID(f, "deleted deploy atlas postgres secrets meeting notes")
	e.del(f, gone, map[string]any{"reason": "fuzz"}).want(f, http.StatusOK)
	f.Fuzz(func(t *testing.T, body []byte) {
		r := e.do(t, "POST", "/api/memory/recall", rawBody(body), nil)
		checkAnswer(t, r, body)
		if r.Status != http.StatusOK {
			return
		}
		hits := r.list(t, "results")
		if len(hits) > core.MaxRecallLimit {
			t.Fatalf("input %q: %d results", body, len(hits))
		}
		for _, h := range hits {
			if h["id"] == gone {
				t.Fatalf("input %q: recall returned the deleted memory", body)
			}
			if s, _ := h["score"].(float64); s < 0 || s > 1 {
				t.Fatalf("input %q: score %v", body, h["score"])
			}
		}
	})
}

// isJSSpace mirrors JavaScript's \s, which the prefix parser trims.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029',
		'\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

func FuzzParsePrefixes(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		p := text.ParsePrefixes(in)
		if !strings.HasSuffix(in, p.Body) {
			t.Fatalf("ParsePrefixes(%q).Body = %q is not a suffix of the input", in, p.Body)
		}
		if r, _ := utf8.DecodeRuneInString(p.Body); p.Body != "" && isJSSpace(r) {
			t.Fatalf("ParsePrefixes(%q).Body = %q starts with whitespace", in, p.Body)
		}
		trimmed := strings.TrimLeftFunc(in, isJSSpace)
		if p.Pinned && !(len(trimmed) >= 9 && strings.EqualFold(trimmed[:9], "critical:")) {
			t.Fatalf("ParsePrefixes(%q) pinned without a critical: prefix", in)
		}
		if !p.Pinned && len(trimmed) >= 9 && strings.EqualFold(trimmed[:9], "critical:") {
			t.Fatalf("ParsePrefixes(%q) missed the critical: prefix", in)
		}
		if len(p.Tags) > 0 && !strings.Contains(in, "]:") {
			t.Fatalf("ParsePrefixes(%q) found tags %q without a [..]: prefix", in, p.Tags)
		}
		if p.Tags == nil && !p.Pinned && p.Body != trimmed {
			t.Fatalf("ParsePrefixes(%q) stripped something without finding a prefix: body %q", in, p.Body)
		}
		seen := map[string]bool{}
		for _, tag := range p.Tags {
			if tag == "" || tag != text.CollapseSpace(tag) || strings.Contains(tag, ",") || tag != strings.ToLower(tag) {
				t.Fatalf("ParsePrefixes(%q): bad tag %q in %q", in, tag, p.Tags)
			}
			if seen[strings.ToLower(tag)] {
				t.Fatalf("ParsePrefixes(%q): repeated tag %q", in, tag)
			}
			seen[strings.ToLower(tag)] = true
		}
	})
}

func FuzzSanitizeFTSQuery(f *testing.F) {
	e := newStoreEnv(f)
	for _, c := range []string{deployFact, "Ünïcödé test: 東京 meeting moved to Thursday 🚀", "crème brûlée", "İstanbul ǅ ﬁ"} {
		e.mustID(f, c)
	}
	f.Fuzz(func(t *testing.T, q string) {
		match := text.SanitizeFTSQuery(q)
		if match == "" {
			if terms := text.QueryTerms(q); len(terms) != 0 {
				t.Fatalf("SanitizeFTSQuery(%q) = \"\" but QueryTerms = %q", q, terms)
			}
			return
		}
		terms := strings.Split(match, " OR ")
		if len(terms) > 32 {
			t.Fatalf("SanitizeFTSQuery(%q) has %d terms", q, len(terms))
		}
		for _, term := range terms {
			if len(term) < 3 || term[0] != '"' || term[len(term)-1] != '"' || strings.Contains(term[1:len(term)-1], `"`) {
				t.Fatalf("SanitizeFTSQuery(%q): term %q is not one quoted string", q, term)
			}
		}
		var n int
		if err := e.ro.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, match).Scan(&n); err != nil {
			t.Fatalf("SanitizeFTSQuery(%q) = %q: SQLite: %v", q, match, err)
		}
		// The same text through the API never fails either.
		r := e.do(t, "POST", "/api/memory/recall", map[string]any{"query": q}, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("recall %q: %s", q, r)
		}
	})
}

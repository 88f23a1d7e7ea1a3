package httpapi_test

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/core"
)

// The fuzz targets share one store per target (opened once, before
// f.Fuzz) and call the API handler in process, which is several times
// faster per input than going through a listener. Seed inputs live in
// testdata/fuzz/<FuzzName>/ and run as ordinary tests with `go test`.

// checkAnswer asserts the invariants every API answer keeps: never a 5xx,
// always a JSON object, and errors in the {"error","code"} shape.
func checkAnswer(t *testing.T, r *apitest.Resp, input []byte) {
	t.Helper()
	if r.Status >= 500 {
		t.Fatalf("input %q: %s", input, r)
	}
	if r.JSON == nil {
		t.Fatalf("input %q: answer is not a JSON object: %s", input, r)
	}
	if r.Status >= 400 {
		if r.Str("error") == "" || r.Str("code") == "" {
			t.Fatalf("input %q: error answer without error/code: %s", input, r)
		}
	}
}

func FuzzRememberBody(f *testing.F) {
	e := apitest.NewStoreEnv(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		live0, _, hist0 := e.LiveState(t)
		r := e.Do(t, "POST", "/api/memory/remember", apitest.RawBody(body), nil)
		checkAnswer(t, r, body)
		live1, _, hist1 := e.LiveState(t)
		if r.Status != http.StatusOK {
			if live1 != live0 || hist1 != hist0 {
				t.Fatalf("input %q: refused with %d but the store changed (%d→%d rows, %d→%d history)", body, r.Status, live0, live1, hist0, hist1)
			}
			return
		}
		if live1-live0 != hist1-hist0 {
			t.Fatalf("input %q: %d memories created but %d history events", body, live1-live0, hist1-hist0)
		}
		ids := []string{r.Str("id")}
		if r.Bool("chunked") {
			ids = apitest.Strs(r.JSON["ids"])
			if len(ids) == 0 || int(r.Num("chunk_count")) != len(ids) || r.Str("group_id") == "" {
				t.Fatalf("input %q: chunked answer %s", body, r)
			}
		}
		for _, id := range ids {
			g := e.Do(t, "GET", "/api/memory/"+id, nil, nil)
			if g.Status != http.StatusOK {
				t.Fatalf("input %q: remembered %s but GET says %s", body, id, g)
			}
			c := g.Str("content")
			if c == "" || c != strings.TrimSpace(c) || !utf8.ValidString(c) {
				t.Fatalf("input %q: stored content %q", body, c)
			}
			if imp := g.Num("importance"); imp < 0 || imp > 1 {
				t.Fatalf("input %q: importance %v", body, imp)
			}
			if _, ok := g.JSON["tags"].([]any); !ok {
				t.Fatalf("input %q: tags not an array: %s", body, g)
			}
		}
	})
}

func FuzzPatchBody(f *testing.F) {
	e := apitest.NewStoreEnv(f)
	target := e.MustID(f, "fuzz patch target")
	e.MustID(f, "fuzz duplicate candidate")
	f.Fuzz(func(t *testing.T, body []byte) {
		before := e.Do(t, "GET", "/api/memory/"+target, nil, nil).Want(t, http.StatusOK)
		_, _, hist0 := e.LiveState(t)
		r := e.Do(t, "PATCH", "/api/memory/"+target, apitest.RawBody(body), nil)
		checkAnswer(t, r, body)
		after := e.Do(t, "GET", "/api/memory/"+target, nil, nil).Want(t, http.StatusOK)
		_, _, hist1 := e.LiveState(t)
		v0, v1 := before.Num("version"), after.Num("version")
		if r.Status == http.StatusOK && r.Str("status") == "updated" {
			if r.Num("newVersion") != v0+1 || v1 != v0+1 || hist1 != hist0+1 {
				t.Fatalf("input %q: updated %s, version %v→%v, history %d→%d", body, r, v0, v1, hist0, hist1)
			}
			if c := after.Str("content"); c == "" || !utf8.ValidString(c) {
				t.Fatalf("input %q: content %q", body, c)
			}
			if imp := after.Num("importance"); imp < 0 || imp > 1 {
				t.Fatalf("input %q: importance %v", body, imp)
			}
			return
		}
		if r.Status == http.StatusOK && r.Str("status") != "no_changes" {
			t.Fatalf("input %q: 200 with status %q", body, r.Str("status"))
		}
		if v1 != v0 || hist1 != hist0 || after.Str("content") != before.Str("content") {
			t.Fatalf("input %q: answered %s but the memory changed (version %v→%v, history %d→%d)", body, r, v0, v1, hist0, hist1)
		}
	})
}

func FuzzForgetBody(f *testing.F) {
	e := apitest.NewStoreEnv(f)
	n := 0
	replenish := func(tb testing.TB) {
		for {
			live, _, _ := e.LiveState(tb)
			if live >= 8 {
				return
			}
			n++
			e.MustID(tb, fmt.Sprintf("fuzz forget memory %d about deploys", n), "tags", []string{"fuzz", fmt.Sprint(n % 3)}, "pinned", n%4 == 0)
		}
	}
	for i := range 8 {
		n++
		e.MustID(f, fmt.Sprintf("fuzz forget memory %d about deploys", n), "tags", []string{"fuzz", fmt.Sprint(i % 3)}, "pinned", i%4 == 0)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		replenish(t)
		live0, del0, hist0 := e.LiveState(t)
		r := e.Do(t, "POST", "/api/memory/forget", apitest.RawBody(body), nil)
		checkAnswer(t, r, body)
		live1, del1, hist1 := e.LiveState(t)
		if r.Status == http.StatusOK && r.Str("mode") == "execute" {
			deleted := 0
			results, _ := r.JSON["results"].([]any)
			for _, res := range results {
				if res.(map[string]any)["status"] == "deleted" {
					deleted++
				}
			}
			if int(r.Num("deleted")) != deleted || live0-live1 != deleted || del1-del0 != deleted || hist1-hist0 != deleted {
				t.Fatalf("input %q: answered deleted=%v (%d results deleted); live %d→%d, deleted %d→%d, history %d→%d",
					body, r.Num("deleted"), deleted, live0, live1, del0, del1, hist0, hist1)
			}
			return
		}
		if r.Status == http.StatusOK {
			if r.Str("mode") != "preview" {
				t.Fatalf("input %q: mode %q", body, r.Str("mode"))
			}
			// An empty preview omits "candidates" (reported separately by
			// TestBatchForgetEmptySelectionShape); treat it as empty here.
			cands, _ := r.JSON["candidates"].([]any)
			for _, c := range cands {
				id, _ := c.(map[string]any)["id"].(string)
				if g := e.Do(t, "GET", "/api/memory/"+id, nil, nil); g.Status != http.StatusOK {
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
	e := apitest.NewStoreEnv(f)
	for _, c := range []string{deployFact, "User prefers bun over npm for TypeScript projects.", "Ünïcödé test: 東京 meeting moved to Thursday 🚀",
		"critical: never commit secrets to git", "[infra,db]: postgres runs on port 5433 in staging"} {
		e.MustID(f, c)
	}
	gone := e.MustID(f, "deleted deploy atlas postgres secrets meeting notes")
	e.Del(f, gone, map[string]any{"reason": "fuzz"}).Want(f, http.StatusOK)
	f.Fuzz(func(t *testing.T, body []byte) {
		r := e.Do(t, "POST", "/api/memory/recall", apitest.RawBody(body), nil)
		checkAnswer(t, r, body)
		if r.Status != http.StatusOK {
			return
		}
		hits := r.List(t, "results")
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

func FuzzSanitizeFTSQuery(f *testing.F) {
	apitest.SQLiteOnly(f, "FTS5's MATCH")
	e := apitest.NewStoreEnv(f)
	for _, c := range []string{deployFact, "Ünïcödé test: 東京 meeting moved to Thursday 🚀", "crème brûlée", "İstanbul ǅ ﬁ"} {
		e.MustID(f, c)
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
		if err := e.RO.QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, match).Scan(&n); err != nil {
			t.Fatalf("SanitizeFTSQuery(%q) = %q: SQLite: %v", q, match, err)
		}
		// The same text through the API never fails either.
		r := e.Do(t, "POST", "/api/memory/recall", map[string]any{"query": q}, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("recall %q: %s", q, r)
		}
	})
}

// FuzzBrowserGuard sends a recall with fuzzed Host, Origin, Sec-Fetch-Site
// and Content-Type headers. Whatever they hold, the answer is JSON and
// never a 5xx, and a request the guard lets through had a loopback, IP or
// allowed Host, a loopback or trusted Origin (or none, and no cross-site
// fetch metadata) and a JSON body.
func FuzzBrowserGuard(f *testing.F) {
	const trusted = "https://dash.example.com"
	e := apitest.NewStoreEnv(f, apitest.NoPipeline, func(c *config.Config) {
		c.Server.AllowedOrigins = []string{trusted}
		c.Server.AllowedHosts = []string{"cairn.lan"}
	})
	f.Fuzz(func(t *testing.T, host, origin, site, contentType string) {
		// The handler is called in process: the headers need not be
		// valid on the wire.
		h := http.Header{"Content-Type": nil}
		for k, v := range map[string]string{"Origin": origin, "Sec-Fetch-Site": site, "Content-Type": contentType} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if host == "" {
			host = "127.0.0.1"
		}
		h.Set("Host", host)
		input := []byte(fmt.Sprintf("host=%q origin=%q site=%q type=%q", host, origin, site, contentType))
		r := e.Do(t, "POST", "/api/memory/recall", `{"query":"guard","track":false}`, h)
		checkAnswer(t, r, input)
		if r.Status == http.StatusForbidden || r.Status == http.StatusUnsupportedMediaType {
			return
		}
		hn := strings.TrimSuffix(strings.ToLower(strings.Trim(hostOnly(h.Get("Host")), "[]")), ".")
		if hn != "localhost" && hn != "cairn.lan" && net.ParseIP(hn) == nil {
			t.Fatalf("%s: a foreign Host passed the guard: %s", input, r)
		}
		if o := h.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			ok := err == nil && (strings.EqualFold(strings.TrimSuffix(o, "/"), trusted) ||
				((u.Scheme == "http" || u.Scheme == "https") && loopbackHostname(u.Hostname())))
			if !ok {
				t.Fatalf("%s: a foreign Origin passed the guard: %s", input, r)
			}
		} else if strings.EqualFold(h.Get("Sec-Fetch-Site"), "cross-site") {
			t.Fatalf("%s: a cross-site request passed the guard: %s", input, r)
		}
		if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || !strings.Contains(mt, "json") {
			t.Fatalf("%s: a body that is not JSON passed the guard: %s", input, r)
		}
	})
}

func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

func loopbackHostname(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

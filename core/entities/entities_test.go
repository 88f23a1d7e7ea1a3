package entities

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// linked renders Link's answer as "canonical/type" (with "@version" and a
// trailing "?" for tentative mentions), for table tests.
func linked(content string) []string {
	var out []string
	for _, m := range Link(content) {
		s := m.Canonical + "/" + m.Type
		if m.Version != "" {
			s += "@" + m.Version
		}
		if m.Tentative {
			s += "?"
		}
		out = append(out, s)
	}
	return out
}

func TestLink(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		// Conversation turns (LoCoMo's shape: "<speaker>: <text>").
		{"speaker label is not an entity", "Caroline: I went to the LGBTQ support group yesterday",
			[]string{"lgbtq/unknown"}},
		{"vocatives name the listener, not the subject", "Melanie: Wow, Caroline, that's so nice! Thanks, Mel!",
			nil},
		{"greeting vocative", "John: Hey Maria! Wanted to let you know that I'm running for office again.", nil},
		{"a speaker named in the body is an entity", "Melanie: I think Caroline told me about the parade in Boston.",
			[]string{"caroline/person", "boston/person"}},
		{"a name opening the turn is tentative", "Melanie: Caroline told me about it.", []string{"caroline/person?"}},
		{"possessive", "Caroline: Did you see Melanie's new pottery? It's lovely.", []string{"melanie/person"}},
		{"sentence-opening common words", "Tim: Wow! Painting is such a great outlet. Yesterday was fun. Great job!",
			nil},
		{"opener verbs are dropped", "Upgraded React v18 to 18.3.1 last week.",
			[]string{"react/library@v18", "18.3.1/version"}},
		{"titles with connectors", `Tim: I'm reading "The Name of the Wind" and rewatching Lord of the Rings.`,
			[]string{"name of the wind/unknown", "lord of the rings/person"}},
		{"role labels", "User: how do I run the tests?\nAssistant: run the race tests from the repo root.", nil},
		{"role words are never entities", "The User asked the Assistant about Sentence 1.", nil},
		{"days and months", "On Monday in March we shipped it.", nil},
		{"a name confirmed later in the text", "Alice fixed it. Thanks to Alice the build is green.",
			[]string{"alice/person"}},
		{"a lone sentence opener is tentative", "Alice fixed the flaky test.", []string{"alice/person?"}},
		// Software memories.
		{"tools and versions", "We switched from MySQL to PostgreSQL 16 because we need JSONB columns.",
			[]string{"mysql/service", "postgresql/service@16", "jsonb/unknown"}},
		{"ambiguous tool names need a capital", "The user prefers tabs in Go code; let's go rust-free.",
			[]string{"go/tool"}},
		{"go module paths", "Use github.com/ncruces/go-sqlite3 instead of mattn/go-sqlite3; it needs no cgo.",
			[]string{"github.com/ncruces/go-sqlite3/library", "mattn/go-sqlite3/library"}},
		{"paths and globs", "Config lives in ~/.config/cairn/config.toml and *.toml files; see ./core/graph.go and /etc/hosts.",
			[]string{"~/.config/cairn/config.toml/file", "*.toml/file", "./core/graph.go/file", "/etc/hosts/file"}},
		{"code identifiers", "Call storage.UpsertEntity() inside the tx; max_content_chars is 500 and parseConfig() panics.",
			[]string{"storage.upsertentity/code", "max_content_chars/code", "parseconfig/code"}},
		{"scoped packages", "Bumped @tanstack/react-query to v5.", []string{"@tanstack/react-query/library"}},
		{"kind nouns type the name before them", "The billing service calls the Stripe API through the zod library.",
			[]string{"billing service/service", "stripe/service", "zod/library"}},
		{"standard packages", "net/http and encoding/json are in the standard library; read and/or write 24/7.",
			[]string{"net/http/library", "encoding/json/library"}},
		{"standalone versions", "Broken since v1.4.2, fixed in 1.4.3; rated 3.5 stars.",
			[]string{"broken/person?", "v1.4.2/version", "1.4.3/version"}},
		{"urls and files", "See https://pkg.go.dev/net/http and README.md (e.g. the intro).",
			[]string{"https://pkg.go.dev/net/http/url", "readme.md/file"}},
		{"camel case", "HTTPClient wraps TypeScript types; McDonald's is closed.", []string{"httpclient/tool", "typescript/tool", "mcdonald/tool"}},
		{"multi-word names", "We met the Acme Corp team in New York about the GraphQL gateway.",
			[]string{"acme corp/person", "new york/person", "graphql/library"}},
		{"bullets keep line starts", "- Caroline: loves hiking\n* Biscuit is fun", []string{"biscuit/person?"}},
		{"generic acronyms", "The API returns JSON over HTTP; TODO: fix the CLI.", nil},
		{"calls with plural suffixes are words", "Add the file(s) to parse(ctx).", []string{"parse/code"}},
		{"empty", "", nil},
		{"punctuation only", "... -- !!! ()", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := linked(tt.content)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Link(%q)\n got %q\nwant %q", tt.content, got, tt.want)
			}
		})
	}
}

func TestLinkSpansAndDedup(t *testing.T) {
	content := "Melanie: I told Caroline, and caroline told Oliver. Caroline's dog Oliver runs Postgres 16."
	ms := Link(content)
	for _, m := range ms {
		if content[m.Start:m.End] != m.Name || Canonical(m.Name) != m.Canonical {
			t.Errorf("span of %+v does not hold its name", m)
		}
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Canonical)
	}
	if want := []string{"caroline", "oliver", "postgres"}; !slices.Equal(names, want) {
		t.Fatalf("mentions %q, want %q (each once, first appearance)", names, want)
	}
	if ms[0].Start != strings.Index(content, "Caroline") {
		t.Errorf("first mention spans %d, want the first occurrence", ms[0].Start)
	}
	if ms[2].Text() != "Postgres 16" {
		t.Errorf("mention text %q", ms[2].Text())
	}
}

func TestLinkCapsMentions(t *testing.T) {
	var b strings.Builder
	for i := range 3 * MaxMentions {
		fmt.Fprintf(&b, "see pkg%d.Func%d and ", i, i)
	}
	if n := len(Link(b.String())); n != MaxMentions {
		t.Fatalf("%d mentions, want the cap %d", n, MaxMentions)
	}
}

func TestGeneric(t *testing.T) {
	for _, c := range []string{"", "user", "assistant", "sentence", "i", "we", "they", "monday", "may", "the", "wow",
		"thanks", "api", "service", "ab", "the user", "new service"} {
		if !Generic(c) {
			t.Errorf("Generic(%q) = false", c)
		}
	}
	for _, c := range []string{"caroline", "go", "postgres", "new york", "billing service", "net/http", "mel"} {
		if Generic(c) {
			t.Errorf("Generic(%q) = true", c)
		}
	}
}

func TestSpeakerLabels(t *testing.T) {
	tests := []struct {
		content string
		want    []string
	}{
		{"Caroline: I went to the LGBTQ support group yesterday", []string{"caroline"}},
		{"Dr. Jones: take two\nUser: ok\nAssistant: done", []string{"dr. jones", "user", "assistant"}},
		{"We met Caroline: she was fine", nil},
		{"Melanie went to the park: it was sunny", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := SpeakerLabels(tt.content); !slices.Equal(got, tt.want) {
			t.Errorf("SpeakerLabels(%q) = %q, want %q", tt.content, got, tt.want)
		}
	}
}

func TestQueryKeys(t *testing.T) {
	got := QueryKeys("What did Caroline's support group in New York decide about net/http?")
	for _, want := range []string{"caroline", "new york", "net/http", "support group", "caroline support group"} {
		if !slices.Contains(got, want) {
			t.Errorf("QueryKeys misses %q: %q", want, got)
		}
	}
	for _, bad := range []string{"what", "did", "what did", "york decide about net/http", "group in new york"} {
		if slices.Contains(got, bad) {
			t.Errorf("QueryKeys has %q: %q", bad, got)
		}
	}
	if k := QueryKeys("Where did Melanie go camping with her rust bucket?"); slices.Contains(k, "go") || slices.Contains(k, "rust") {
		t.Errorf("ordinary words name curated tools: %q", k)
	}
	if k := QueryKeys("Is the CLI written in Go or Rust?"); !slices.Contains(k, "go") || !slices.Contains(k, "rust") {
		t.Errorf("capitalised tools not keys: %q", k)
	}
	if k := QueryKeys("Did Storage.UpsertEntity() change?"); !slices.Contains(k, "storage.upsertentity") {
		t.Errorf("call not a key: %q", k)
	}
	if k := QueryKeys(strings.Repeat("alpha beta gamma ", 2000)); len(k) > maxQueryKeys {
		t.Errorf("%d keys", len(k))
	}
}

func TestLinkDeterministic(t *testing.T) {
	c := "Caroline: Melanie and Oliver visited Paris; Oliver's vet uses PostgreSQL 16 and ./x/y.go."
	a, b := Link(c), Link(c)
	if !slices.Equal(a, b) {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
}

// realistic are 200-character memories of both kinds the linker sees.
var realistic = []string{
	"Caroline: I went to the LGBTQ support group yesterday and it was so powerful. Melanie, you should come next time! " +
		"The stories there reminded me why I want to work in counseling and mental health.",
	"We switched from MySQL to PostgreSQL 16 because we need JSONB columns; the billing service now calls " +
		"storage.UpsertEntity() and config lives in ~/.config/cairn/config.toml (see core/graph.go).",
	"John: Hey Maria! Wanted to let you know that I'm running for office again. It's been a wild ride, but I'm more " +
		"excited than ever! How have you been since the trip to Banff with Samantha?",
	"Decided to use github.com/ncruces/go-sqlite3 over mattn/go-sqlite3: no cgo, FTS5 built in. The Go 1.22 toolchain " +
		"and the Kubernetes deploy (v1.4.2) are unchanged; Alice owns the migration.",
}

func BenchmarkLink(b *testing.B) {
	var n int
	for _, c := range realistic {
		n += len(c)
	}
	b.SetBytes(int64(n / len(realistic)))
	for i := 0; i < b.N; i++ {
		Link(realistic[i%len(realistic)])
	}
}

func BenchmarkIsDecision(b *testing.B) {
	for i := 0; i < b.N; i++ {
		IsDecision(realistic[i%len(realistic)])
	}
}

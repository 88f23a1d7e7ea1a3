package text

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestNormalizeContent(t *testing.T) {
	tests := []struct {
		name, in, storage, normalized, hashBasis string
	}{
		{"plain", "We deploy on Fridays", "We deploy on Fridays", "we deploy on fridays", "we deploy on fridays"},
		{"trim and collapse", "  the DEPLOY\tscript \n\n lives   here.  ", "the DEPLOY script lives here.", "the deploy script lives here", "the deploy script lives here"},
		{"trailing punctuation run", "Ship it!?!...", "Ship it!?!...", "ship it", "ship it"},
		{"inner punctuation kept", "a.b, c; d: e", "a.b, c; d: e", "a.b, c; d: e", "a.b, c; d: e"},
		{"only punctuation falls back to lowered storage", "?!.", "?!.", "", "?!."},
		{"unicode whitespace collapses", "a\u00a0\u2003b\u3000c\ufeff", "a b c", "a b c", "a b c"},
		{"U+0085 is not JS whitespace", "a\u0085b", "a\u0085b", "a\u0085b", "a\u0085b"},
		{"unicode kept", "Ünïcödé test: 東京 meeting moved 🚀", "Ünïcödé test: 東京 meeting moved 🚀", "ünïcödé test: 東京 meeting moved 🚀", "ünïcödé test: 東京 meeting moved 🚀"},
		{"dotted capital I lowers as JavaScript does", "İstanbul", "İstanbul", "i\u0307stanbul", "i\u0307stanbul"},
		{"empty", "   ", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NormalizeContent(tt.in)
			if got.Storage != tt.storage || got.Normalized != tt.normalized {
				t.Fatalf("NormalizeContent(%q) = %q / %q, want %q / %q", tt.in, got.Storage, got.Normalized, tt.storage, tt.normalized)
			}
			if got.Hash != sha(tt.hashBasis) {
				t.Fatalf("hash of %q: got %s, want sha256(%q)", tt.in, got.Hash, tt.hashBasis)
			}
		})
	}
}

func TestNormalizeDedupsVariants(t *testing.T) {
	base := NormalizeContent("The deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod.").Hash
	for _, v := range []string{
		"  the DEPLOY script for project atlas lives in   tools/deploy.sh and needs AWS_PROFILE=prod.  ",
		"The deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod",
		"the deploy script for project atlas lives in tools/deploy.sh and needs aws_profile=prod!!",
	} {
		if h := NormalizeContent(v).Hash; h != base {
			t.Errorf("%q hashed differently from the original", v)
		}
	}
	if NormalizeContent("deploy on fridays").Hash == NormalizeContent("deploy on mondays").Hash {
		t.Fatal("different content must hash differently")
	}
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		in     string
		body   string
		pinned bool
		tags   []string
	}{
		{"never commit secrets to git", "never commit secrets to git", false, nil},
		{"critical: never commit secrets to git", "never commit secrets to git", true, nil},
		{"CRITICAL:never commit", "never commit", true, nil},
		{"  Critical:   spaced", "spaced", true, nil},
		{"[infra,db]: postgres runs on port 5433", "postgres runs on port 5433", false, []string{"infra", "db"}},
		{"[Infra, DB , infra]:x", "x", false, []string{"infra", "db"}},
		{"critical: [project,auth]: never expose tokens", "never expose tokens", true, []string{"project", "auth"}},
		{"critical:", "", true, nil},
		{"[a]:", "", false, []string{"a"}},
		{"[not tags] just brackets", "[not tags] just brackets", false, nil},
		{"[]: empty tag list", "[]: empty tag list", false, nil},
		{"text then critical: stays", "text then critical: stays", false, nil},
		{"[a,[b]]: nested", "[a,[b]]: nested", false, nil},
	}
	for _, tt := range tests {
		p := ParsePrefixes(tt.in)
		if p.Body != tt.body || p.Pinned != tt.pinned || !slices.Equal(p.Tags, tt.tags) {
			t.Errorf("ParsePrefixes(%q) = {%q %v %q}, want {%q %v %q}", tt.in, p.Body, p.Pinned, p.Tags, tt.body, tt.pinned, tt.tags)
		}
	}
}

func TestInferType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"User prefers bun over npm", "preference"},
		{"she likes dark mode", "preference"},
		{"we want fast builds", "preference"},
		{"We decided to use SQLite", "decision"},
		{"the team agreed on tabs", "decision"},
		{"we will use postgres", "decision"},
		{"I learned that WAL helps", "learning"},
		{"discovered a faster path", "learning"},
		{"TIL go has generics", "learning"},
		{"there is a bug in the parser", "issue"},
		{"issue with login", "issue"},
		{"the build is broken", "issue"},
		{"never commit secrets", "rule"},
		{"always run tests", "rule"},
		{"you must sign commits", "rule"},
		{"postgres runs on port 5433", "fact"},
		// The first rule in table order decides, not the first position in the text.
		{"never say we prefer tabs", "preference"},
	}
	for _, tt := range tests {
		if got := InferType(tt.in); got != tt.want {
			t.Errorf("InferType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestChunkContent(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 133; i++ {
		b.WriteString("Sentence number ")
		b.WriteString(strings.Repeat("x", i%3))
		b.WriteString(" talks about the huge content test and chunking behaviour. ")
	}
	chunks := ChunkContent(b.String(), 300)
	if len(chunks) < 30 || len(chunks) > 60 {
		t.Fatalf("got %d chunks for ~10 KB of 75-char sentences, want about 44", len(chunks))
	}
	for i, c := range chunks {
		if n := CharCount(c); n > 300 {
			t.Errorf("chunk %d has %d chars, over the 300 target", i, n)
		}
		if !strings.HasSuffix(c, ".") {
			t.Errorf("chunk %d does not end on a sentence: %q", i, c)
		}
	}
	if joined := strings.Join(chunks, " "); joined != CollapseSpace(b.String()) {
		t.Fatal("chunks do not reassemble into the original text")
	}

	long := strings.Repeat("word ", 1000) // no sentence punctuation at all
	pieces := ChunkContent(long, 300)
	for i, p := range pieces {
		if n := CharCount(p); n > 300 || n == 0 {
			t.Fatalf("hard split piece %d has %d chars", i, n)
		}
		if strings.HasPrefix(p, " ") || strings.HasSuffix(p, " ") || strings.Contains(p, "wor d") {
			t.Fatalf("hard split broke a word or left spaces: %q", p)
		}
	}
	if got := strings.Join(pieces, " "); got != strings.TrimSpace(long) {
		t.Fatal("hard split pieces do not reassemble")
	}
	if got := ChunkContent("   ", 300); len(got) != 0 {
		t.Fatalf("blank content gave chunks: %q", got)
	}
}

func TestSanitizeFTSQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"what does the user prefer for builds?", `"user" OR "prefer" OR "builds"`},
		{`"deploy" AND (atlas OR *) NEAR -x ^ :`, `"deploy" OR "atlas" OR "near" OR "x"`},
		{"the and of", `"the" OR "and" OR "of"`}, // only stopwords: keep them
		{"東京 meeting", `"東京" OR "meeting"`},
		{"!!! ??? ...", ""},
		{"", ""},
		{"Deploy deploy DEPLOY", `"deploy"`},
		{"tools/deploy.sh AWS_PROFILE=prod", `"tools" OR "deploy" OR "sh" OR "aws" OR "profile" OR "prod"`},
		{"\xff\xfe bad utf8 \xc3", `"bad" OR "utf8"`},
		{"when did Caroline go to the lake?", `"caroline" OR "go" OR "lake" OR "went" OR "gone"`},
	}
	for _, tt := range tests {
		if got := SanitizeFTSQuery(tt.in); got != tt.want {
			t.Errorf("SanitizeFTSQuery(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	huge := strings.Repeat("alpha beta gamma delta ", 5000)
	if n := len(QueryTerms(huge)); n > maxQueryTerms {
		t.Fatalf("%d terms from a 100 KB query, cap is %d", n, maxQueryTerms)
	}
}

// ChunkLines keeps lines whole and apart, packs them up to the target,
// drops blank lines and cuts a line longer than the target at sentences.
func TestChunkLines(t *testing.T) {
	long := strings.Repeat("This sentence is long enough. ", 4) // 120 characters
	in := "user: first\n\nassistant: second\nuser: third line here\n" + long
	got := ChunkLines(in, 40)
	want := []string{"user: first\nassistant: second", "user: third line here",
		"This sentence is long enough.", "This sentence is long enough.", "This sentence is long enough.", "This sentence is long enough."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ChunkLines:\n%q\nwant\n%q", got, want)
	}
	if got := ChunkLines("", 40); len(got) != 0 {
		t.Fatalf("empty: %q", got)
	}
}

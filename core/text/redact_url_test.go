package text_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		found    []string
	}{
		{"https://example.com/docs/page?lang=en#intro", "https://example.com/docs/page?lang=en#intro", nil},
		{"https://admin:hunter2@intranet.example.com/wiki", "https://admin:[REDACTED:url_password]@intranet.example.com/wiki",
			[]string{"a user name or password"}},
		{"https://dana:p@ss@word@host/x", "https://dana:[REDACTED:url_password]@host/x", []string{"a user name or password"}},
		{"https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r", "https://[REDACTED:url_user]@github.com/o/r",
			[]string{"a user name or password"}},
		{"https://x-access-token:ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r.git",
			"https://x-access-token:[REDACTED:url_password]@github.com/o/r.git", []string{"a user name or password"}},
		{"https://git@github.com/o/r", "https://git@github.com/o/r", nil},
		{"https://api.example.com/v1/items?access_token=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789&page=2",
			"https://api.example.com/v1/items?access_token=[REDACTED:url_secret]&page=2", []string{"query parameter access_token"}},
		{"https://x.example/a?token=abc&key=AIzaSyA-abcdefghijklmnopqrstuvwxyz012345&sig=Zm9vYmFy%2Bbaz",
			"https://x.example/a?token=[REDACTED:url_secret]&key=[REDACTED:url_secret]&sig=[REDACTED:url_secret]",
			[]string{"query parameter token", "query parameter key", "query parameter sig"}},
		{"https://bucket.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=0123abcd&X-Amz-Security-Token=FQoGZXIvYXdz",
			"https://bucket.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[REDACTED:url_secret]&X-Amz-Signature=[REDACTED:url_secret]&X-Amz-Security-Token=[REDACTED:url_secret]",
			[]string{"query parameter X-Amz-Credential", "query parameter X-Amz-Signature", "query parameter X-Amz-Security-Token"}},
		{"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=AbCdEf%2B123%3D", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=[REDACTED:url_secret]",
			[]string{"query parameter sig"}},
		{"https://app.example/cb#access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln&token_type=bearer&expires_in=3600",
			"https://app.example/cb#access_token=[REDACTED:url_secret]&token_type=bearer&expires_in=3600", []string{"fragment parameter access_token"}},
		{"https://db.example/app?password=s3cret&client_secret=abc&api_key=k1&apiKey=k2&pwd=x&pass=y",
			"https://db.example/app?password=[REDACTED:url_secret]&client_secret=[REDACTED:url_secret]&api_key=[REDACTED:url_secret]&apiKey=[REDACTED:url_secret]&pwd=[REDACTED:url_secret]&pass=[REDACTED:url_secret]", nil},
		// Names that only sound like secrets, and short keys, stay.
		{"https://example.com/search?key=2024-q3&sort_key=name&token_type=bearer&max_tokens=5&code=US&keyword=go",
			"https://example.com/search?key=2024-q3&sort_key=name&token_type=bearer&max_tokens=5&code=US&keyword=go", nil},
		{"https://drive.google.com/open?id=1aBcDeFgHiJkLmNoPqRsTuVwXyZ012345", "https://drive.google.com/open?id=1aBcDeFgHiJkLmNoPqRsTuVwXyZ012345", nil},
		{"https://docs.google.com/document/d/1aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdEF/edit", "https://docs.google.com/document/d/1aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdEF/edit", nil},
		{"https://example.com/oauth?code=4f9a2b7c1d3e5f60718293a4", "https://example.com/oauth?code=[REDACTED:url_secret]", []string{"query parameter code"}},
		// Tokens in the path.
		{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://hooks.slack.com/services/[REDACTED:url_secret]",
			[]string{"a token in the path"}},
		{"https://api.example.com/bot/ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/send", "https://api.example.com/bot/[REDACTED:url_secret]/send",
			[]string{"a token in the path"}},
		// Not quite URLs.
		{"example.com/x?token=abc", "example.com/x?token=[REDACTED:url_secret]", nil},
		{"not a url", "not a url", nil},
		{"", "", nil},
	} {
		got := text.RedactURL(tc.in)
		if got != tc.want {
			t.Errorf("RedactURL(%q)\n got  %q\n want %q", tc.in, got, tc.want)
		}
		if again := text.RedactURL(got); again != got {
			t.Errorf("RedactURL not idempotent: %q then %q", got, again)
		}
		found := text.URLSecrets(tc.in)
		if (len(found) == 0) != (got == tc.in) || tc.found != nil && !slices.Equal(found, tc.found) {
			t.Errorf("URLSecrets(%q) = %q, want %q", tc.in, found, tc.found)
		}
	}
}

func TestRedactURLsIn(t *testing.T) {
	in := `fetch https://dana:hunter2@wiki.example/p?access_token=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789: HTTP 404 Not Found; see "https://example.com/ok"`
	want := `fetch https://dana:[REDACTED:url_password]@wiki.example/p?access_token=[REDACTED:url_secret]: HTTP 404 Not Found; see "https://example.com/ok"`
	if got := text.RedactURLsIn(in); got != want {
		t.Errorf("RedactURLsIn:\n got  %q\n want %q", got, want)
	}
	for _, s := range []string{"no url here", "a://", "x :// y"} {
		if got := text.RedactURLsIn(s); got != s {
			t.Errorf("RedactURLsIn(%q) = %q", s, got)
		}
	}
}

// FuzzRedactURL: never panics, idempotent, and keeps everything but the
// replaced values.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"https://u:p@h/x?token=a#b", "https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@h", "a?b=c&d=e;f=g#h=i",
		"https://[REDACTED:url_user]:x@h", "://@", "http://h/?sig=&=x", "x:y@z", "https://h/%zz?%zz=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := text.RedactURL(s)
		if twice := text.RedactURL(once); twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if (once == s) != (len(text.URLSecrets(s)) == 0) {
			t.Fatalf("URLSecrets disagrees with RedactURL on %q", s)
		}
		rest := s
		for _, piece := range strings.Split(markerRE.ReplaceAllString(once, "\x00"), "\x00") {
			i := strings.Index(rest, piece)
			if i < 0 {
				t.Fatalf("kept text %q is not the input's: %q -> %q", piece, s, once)
			}
			rest = rest[i+len(piece):]
		}
		if l := text.RedactURLsIn("see " + s + " now"); !strings.HasPrefix(l, "see ") {
			t.Fatalf("RedactURLsIn lost the prefix: %q", l)
		}
	})
}

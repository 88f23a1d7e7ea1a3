package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// FuzzRedact: the redactor never panics, is idempotent
// (Redact(Redact(x)) == Redact(x)), keeps valid UTF-8 valid, and only ever
// replaces text with markers (what it keeps is x's own text, in order).
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"PGPASSWORD=hunter2 psql", "mysql://root:p@ss@word1@h/db", "redis://:pw@h", "the password is hunter2.",
		"Authorization: Basic dTpw", "curl -u a:b x", "mysql -pX y", "sshpass -p 'a b' ssh h",
		"-----BEGIN PRIVATE KEY-----\nabc", "qttools5-private-dev: Use at your own risk.",
		`"private_key_id": "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"`, "token=[REDACTED:x]=y", "a: b: c= d",
		// The forms of issue 29.
		"pwd: Tr0ub4dor&3", "pass=hunter22", "username admin password Adm1n!2024", "log in with password Welc0me!2024",
		"default creds admin / P@ssw0rd!", "login as admin:Tr0ub4dor9", `{"user": "admin", "pass": "S3cure!pass", "pwd": "x"}`,
		"auth: ZGVwbG95OlBhc3N3MHJkIQ==", "the api key is 0123456789abcdef0123456789abcdef",
		"the twilio auth token is 4f9a2b7c1d3e5f60718293a4b5c6d7e8", `password = "correct horse battery staple"`,
		"--- PASS: TestX (0.00s)", "pass: 120/150", "secret:0001&rdquo;", "login: a:b:c / d", "user [REDACTED:x] password y1!zzz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once, n := text.Redact(s)
		twice, m := text.Redact(once)
		if twice != once || m != 0 {
			t.Fatalf("not idempotent: %q\n once  %q\n twice %q", s, once, twice)
		}
		if n == 0 && once != s {
			t.Fatalf("changed without a redaction: %q -> %q", s, once)
		}
		if utf8.ValidString(s) && !utf8.ValidString(once) {
			t.Fatalf("broke UTF-8: %q -> %q", s, once)
		}
		// Every kept piece is s's, in order.
		rest := s
		for _, piece := range strings.Split(markerRE.ReplaceAllString(once, "\x00"), "\x00") {
			i := strings.Index(rest, piece)
			if i < 0 {
				t.Fatalf("kept text %q is not the input's: %q -> %q", piece, s, once)
			}
			rest = rest[i+len(piece):]
		}
	})
}

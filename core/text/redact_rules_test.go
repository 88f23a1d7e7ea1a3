package text_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
)

func TestRedactEachKind(t *testing.T) {
	cases := []struct{ name, in, secret, kind string }{
		{"openai", "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234 here", "sk-proj-AbCdEf", "openai_key"},
		{"openai legacy", "OPENAI sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sk-AbCd", "openai_key"},
		{"anthropic", "use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz", "sk-ant-api03", "anthropic_key"},
		{"github classic", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghp_AbCd", "github_token"},
		{"github pat", "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz", "github_pat_11", "github_token"},
		{"gitlab", "token glpat-xYz0123456789abcdEFGH here", "glpat-xYz", "gitlab_token"},
		{"aws", "aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"},
		{"slack", "xoxb-123456789012-abcdefghijkl", "xoxb-1234", "slack_token"},
		{"stripe", "key sk_live_4eC39HqLyjWDarjtT1zdp7dc here", "sk_live_4eC3", "stripe_key"},
		{"google", "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345", "AIzaSyA", "google_api_key"},
		{"jwt", "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk end", "eyJzdWIi", "jwt"},
		{"bearer", "curl -H 'Authorization: Bearer abcdefghijk0123456789'", "abcdefghijk0123456789", "bearer_token"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "b3BlbnNzaC1rZXkt", "private_key"},
		{"url password", "postgres://admin:s3cr3tpw@db.internal:5432/app", "s3cr3tpw", "url_password"},
		{"env line", "DEBUG=1\nSTRIPE_SECRET_KEY=rk_live_abc123\nexport DB_PASSWORD='p@ss w0rd'\n", "rk_live_abc123", "env_secret"},
		{"inline", "the db password: hunter2hunter2 works", "hunter2hunter2", "inline_secret"},
		{"high entropy", "token value Zx8Qm2Lk9Vb4Nc7Rt1Yp6Wd3Hs5Gf0Ja2Ke", "Zx8Qm2Lk9Vb4", "high_entropy"},
		// The gaps of issue 15.
		{"PGPASSWORD", "PGPASSWORD=hunter2 psql -h db app", "hunter2", "env_secret"},
		{"MYSQL_ROOT_PASSWORD", "docker run -e MYSQL_ROOT_PASSWORD=my-secret-pw mysql", "my-secret-pw", "env_secret"},
		{"passphrase=", "gpg --batch passphrase=Corr3ct-Horse", "Corr3ct-Horse", "inline_secret"},
		{"redis empty user", "redis://:r3dis-pa55@cache:6379/0", "r3dis-pa55", "url_password"},
		{"@ in password", "mysql://root:p@ss@word1@127.0.0.1/shop", "ss@word1", "url_password"},
		{"userinfo without a scheme", "psql admin:s3cr3tpw@db.internal:5432/app", "s3cr3tpw", "url_password"},
		{"userinfo to a bare host", "ssh deploy:Passw0rd@buildbox", "Passw0rd", "url_password"},
		{"userinfo in a DSN", `DSN="app:c0rrect-horse@tcp(db:3306)/shop"`, "c0rrect-horse", "url_password"},
		{"prose", "the password is hunter2, keep it", "hunter2", "prose_password"},
		{"short basic", "Authorization: Basic dTpw", "dTpw", "basic_auth"},
		{"curl -u", "curl -u admin:hunter2 https://jenkins/api", "hunter2", "basic_auth"},
		{"mysql -p", "mysql -u root -pSup3rS3cret shop", "Sup3rS3cret", "cli_password"},
		{"sshpass", "sshpass -p Passw0rd ssh deploy@host", "Passw0rd", "cli_password"},
		{"32 hex", `api_key = "d41d8cd98f00b204e9800998ecf8427e"`, "d41d8cd98f00b204", "inline_secret"},
		{"gcp private_key_id", `"private_key_id": "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c",`, "1f2e3d4c5b6a7988", "inline_secret"},
		// The forms of issue 29.
		{"pwd:", "ftp pwd: Tr0ub4dor&3", "Tr0ub4dor&3", "inline_secret"},
		{"pass=", "user=app pass=S3cure!pass", "S3cure!pass", "inline_secret"},
		{"username password", "username admin password Adm1n!2024", "Adm1n!2024", "prose_password"},
		{"with password", "log in with password Welc0me!2024 first", "Welc0me!2024", "prose_password"},
		{"user / password", "default creds admin / P@ssw0rd!", "P@ssw0rd!", "prose_password"},
		{"user:password", "login as admin:Tr0ub4dor9 on staging", "Tr0ub4dor9", "prose_password"},
		{"json pass", `{"user": "admin", "pass": "S3cure!pass"}`, "S3cure!pass", "inline_secret"},
		{"json pwd", `{"pwd": "Hunter2!x"}`, "Hunter2!x", "inline_secret"},
		{"yaml auth", "    auth: ZGVwbG95OlBhc3N3MHJkIQ==", "ZGVwbG95", "inline_secret"},
		{"api key prose", "the api key is 0123456789abcdef0123456789abcdef", "0123456789abcdef", "prose_secret"},
		{"twilio prose", "the twilio auth token is 4f9a2b7c1d3e5f60718293a4b5c6d7e8", "4f9a2b7c1d3e5f60", "prose_secret"},
		{"passphrase", `password = "correct horse battery staple"`, "correct horse", "inline_secret"},
	}
	for _, c := range cases {
		out, n := text.Redact(c.in)
		if n == 0 || strings.Contains(out, c.secret) {
			t.Errorf("%s: %q -> %q (%d)", c.name, c.in, out, n)
		}
		if !strings.Contains(out, "[REDACTED:"+c.kind+"]") {
			t.Errorf("%s: kind %s not named: %q", c.name, c.kind, out)
		}
	}
	// What is kept.
	for in, want := range map[string]string{
		"postgres://admin:s3cr3tpw@db.internal:5432/app":                                        "postgres://admin:[REDACTED:url_password]@db.internal:5432/app",
		"mysql://root:p@ss@word1@127.0.0.1/shop":                                                "mysql://root:[REDACTED:url_password]@127.0.0.1/shop",
		"DEBUG=1\nSTRIPE_SECRET_KEY=rk_live_abc123\nexport DB_PASSWORD='p@ss w0rd'\n":           "DEBUG=1\nSTRIPE_SECRET_KEY=[REDACTED:env_secret]\nexport DB_PASSWORD=[REDACTED:env_secret]\n",
		"export PGPASSWORD=hunter2; psql app":                                                   "export PGPASSWORD=[REDACTED:env_secret]; psql app",
		"the password is hunter2.":                                                              "the password is [REDACTED:prose_password].",
		`curl -u 'ci:c1-pass' https://x`:                                                        `curl -u 'ci:[REDACTED:basic_auth]' https://x`,
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\nkept":          "[REDACTED:private_key]\nkept",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl and more text": "Authorization: Bearer [REDACTED:jwt] and more text",
	} {
		if out, _ := text.Redact(in); out != want {
			t.Errorf("%q:\n got  %q\n want %q", in, out, want)
		}
	}
}

// The envLine rule of old took everything after "NAME:" when the name held
// a secret-ish word: 18 of 10k Debian descriptions were lost, and ten then
// collapsed as duplicates. Ordinary text, hashes, UUIDs and paths are left
// alone.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"qttools5-private-dev: Use at your own risk.",
		"qttools5-private-dev: This package contains private header development files.",
		"libsecret-1-dev: Secret store (development files)",
		"keyutils: Linux Key Management Utilities",
		"Password: Use a long one.",
		"we use sqlite with WAL; see core/recall.go line 120",
		"commit 7457221c0a1b2c3d4e5f60718293a4b5c6d7e8f9 fixed it",
		"id 0193f4a2-7c1e-7b3a-9f00-123456789abc",
		"KEYBOARD_LAYOUT=us",
		"the monkey=banana rule",
		"TOKEN_TTL=86400",
		"max_tokens: 4096",
		"password = request.form['password']",
		"token: Option<String>,",
		"export GITHUB_TOKEN=${GITHUB_TOKEN:-}",
		"PWD=/home/dana/src",
		"the password is required",
		"mysql -u root -p appdb",
		"docker run -u 1000:1000 alpine",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dana@laptop",
		"git clone git@github.com:cairnmem/cairn.git",
		"mail john.doe@example.com about it",
		"standup at 10:30@office",
		"Re:lunch@noon",
		"image: nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
		"mailto:security@example.org",
		"user:password@host in the docs means nothing here",
		"see https://example.com/a:b@c for details",
		// Near misses of the forms of issue 29.
		"--- PASS: TestRedactURL (0.00s)",
		"pass: 120/150 fail: 30",
		"pwd: /home/dana/src",
		`cmd.Env = append(os.Environ(), "PWD="+dir, "GOROOT="+root)`,
		"username and password fields are required",
		"log in with password authentication or a key",
		"read / write access for the deploy user login",
		"see login.go:120 for the password check",
		"role:Admin for every login",
		"auth: required",
		"the api key is required for every call",
		"the primary key is 0193f4a2-7c1e-7b3a-9f00-123456789abc",
		`// If the token is "STOP", stop the scanning.`,
		`password = "Enter your password"`,
		"credentials: &securityCredentials,",
	} {
		if out, n := text.Redact(s); n != 0 || out != s {
			t.Errorf("false positive: %q -> %q", s, out)
		}
	}
}

// Redacting twice changes nothing: markers are never taken for secrets.
func TestRedactIdempotent(t *testing.T) {
	for _, s := range []string{
		"PASSWORD=hunter2 and token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		"postgres://u:p@ss@h/db password is Xk9#mQ2 Authorization: Basic dTpw",
		`{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", "client_secret": "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz01"}`,
	} {
		once, _ := text.Redact(s)
		if twice, n := text.Redact(once); twice != once || n != 0 {
			t.Errorf("%q:\n once  %q\n twice %q (%d)", s, once, twice, n)
		}
	}
}

package text

import (
	"encoding/base64"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Secret redaction. Text from agents (hook writes, transcripts, summaries)
// and text going back to agents (hook injects) pass through Redact, so a
// key pasted into a prompt never becomes a memory and is never replayed.
// Each removed secret is replaced by [REDACTED:KIND] and counted.
//
// Redaction must be precise as well as thorough: what it removes is lost
// for good, and ordinary text mistaken for a secret is data loss. So every
// rule needs a shape a secret has and prose does not: a vendor's prefix,
// a credential's place (a URL's password, an Authorization header, a
// command's password flag), or an assignment whose name says secret and
// whose value looks like one. The labelled corpus in
// testdata/redaction measures both sides (redact_corpus_test.go).
//
// The finders below each report spans of the original text; overlapping
// spans are merged and each merged span becomes one marker. Finders skip
// text that is already a marker, so redacting twice changes nothing.

const redactedPrefix = "[REDACTED:"

func redactedMark(kind string) string { return redactedPrefix + kind + "]" }

// span is a secret found at s[start:end].
type span struct {
	start, end int
	kind       string
}

// finder adds the secrets it finds in s; lower is s with ASCII letters
// lower-cased (same length), for case-insensitive hints.
type finder func(s, lower string, add func(start, end int, kind string))

var finders = []finder{
	findPrivateKeys,
	findTokens,
	findURLPasswords,
	findUserinfoPasswords,
	findHeaders,
	findCommandPasswords,
	findProsePasswords,
	findCredentialProse,
	findAssignments,
	findWebhooks,
}

// Redact replaces secrets in s and returns the result and how many it
// replaced.
func Redact(s string) (string, int) {
	spans := redactSpans(s)
	if len(spans) == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(redactedMark(sp.kind))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String(), len(spans)
}

// redactSpans returns the secrets of s, sorted and merged: no two overlap.
// A merged span keeps the kind of the one that starts first (the first
// finder's on a tie).
func redactSpans(s string) []span {
	if s == "" {
		return nil
	}
	lower := asciiLower(s)
	var found []span
	add := func(start, end int, kind string) {
		if start < end && !strings.HasPrefix(s[start:], redactedPrefix) {
			found = append(found, span{start, end, kind})
		}
	}
	for _, f := range finders {
		f(s, lower, add)
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortStableFunc(found, func(a, b span) int { return a.start - b.start })
	out := found[:1]
	for _, sp := range found[1:] {
		cur := &out[len(out)-1]
		if sp.start < cur.end {
			cur.end = max(cur.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// lineAt returns the bounds of the line holding s[i].
func lineAt(s string, i int) (int, int) {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return start, len(s)
	}
	return start, i + end
}

// eachLineWith calls fn once for every line of s whose lower-cased text
// holds one of hints, in order.
func eachLineWith(s, lower string, hints []string, fn func(start, end int)) {
	var lines [][2]int
	for _, h := range hints {
		for from := 0; from < len(s); {
			i := strings.Index(lower[from:], h)
			if i < 0 {
				break
			}
			start, end := lineAt(s, from+i)
			lines = append(lines, [2]int{start, end})
			from = end + 1
		}
	}
	if len(hints) > 1 {
		slices.SortFunc(lines, func(a, b [2]int) int { return a[0] - b[0] })
		lines = slices.Compact(lines)
	}
	for _, l := range lines {
		fn(l[0], l[1])
	}
}

// addGroups adds submatch group of every match of re in s[start:end].
func addGroups(s string, start, end int, re *regexp.Regexp, group int, kind string, ok func(string) bool, add func(int, int, string)) {
	for _, m := range re.FindAllStringSubmatchIndex(s[start:end], -1) {
		gs, ge := m[2*group], m[2*group+1]
		if gs < 0 || (ok != nil && !ok(s[start+gs:start+ge])) {
			continue
		}
		add(start+gs, start+ge, kind)
	}
}

// ---- private keys -----------------------------------------------------------

var pemKey = lazyRegexp(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)

// puttyKey is a PuTTY private key file's private part.
var puttyKey = lazyRegexp(`Private-Lines: \d+\r?\n(?:[A-Za-z0-9+/=]+\r?\n?)+`)

func findPrivateKeys(s, _ string, add func(int, int, string)) {
	if strings.Contains(s, "PRIVATE KEY") {
		for _, m := range pemKey().FindAllStringIndex(s, -1) {
			add(m[0], m[1], "private_key")
		}
	}
	if strings.Contains(s, "Private-Lines: ") {
		for _, m := range puttyKey().FindAllStringIndex(s, -1) {
			add(m[0], m[1], "private_key")
		}
	}
}

// ---- vendor tokens ----------------------------------------------------------

// A vendorToken is recognised by its prefix; re is matched at the start
// of a token run (see findTokens).
type vendorToken struct {
	prefix string
	re     func() *regexp.Regexp // compiled on first use: most texts hold no prefix of most vendors
	kind   string
	fixed  bool // of fixed length: no letter or digit may follow it
}

var vendorTokens = sync.OnceValue(func() []vendorToken {
	return []vendorToken{
		{"sk-ant-", onceRegexp(`^sk-ant-[A-Za-z0-9_-]{20,}`), "anthropic_key", false},
		{"sk-", onceRegexp(`^sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), "openai_key", false},
		{"gh", onceRegexp(`^gh[pousr]_[A-Za-z0-9]{30,}`), "github_token", false},
		{"github_pat_", onceRegexp(`^github_pat_[A-Za-z0-9_]{22,}`), "github_token", false},
		{"gl", onceRegexp(`^gl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat|ffct)-[A-Za-z0-9_-]{20,}`), "gitlab_token", false},
		{"GR1348941", onceRegexp(`^GR1348941[A-Za-z0-9_-]{20,}`), "gitlab_token", false},
		{"A", onceRegexp(`^(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}`), "aws_access_key", true},
		{"xox", onceRegexp(`^xox[abposre]-[A-Za-z0-9-]{10,}`), "slack_token", false},
		{"xapp-", onceRegexp(`^xapp-\d-[A-Za-z0-9-]{10,}`), "slack_token", false},
		{"sk_", onceRegexp(`^sk_(?:live|test)_[A-Za-z0-9]{16,}`), "stripe_key", false},
		{"rk_", onceRegexp(`^rk_(?:live|test)_[A-Za-z0-9]{16,}`), "stripe_key", false},
		{"whsec_", onceRegexp(`^whsec_[A-Za-z0-9+/]{20,}`), "stripe_key", false},
		{"AIza", onceRegexp(`^AIza[0-9A-Za-z_-]{35}`), "google_api_key", false},
		{"ya29.", onceRegexp(`^ya29\.[0-9A-Za-z_-]{20,}`), "google_oauth_token", false},
		{"GOCSPX-", onceRegexp(`^GOCSPX-[A-Za-z0-9_-]{20,}`), "google_client_secret", false},
		{"eyJ", onceRegexp(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), "jwt", false},
		{"npm_", onceRegexp(`^npm_[A-Za-z0-9]{36}`), "npm_token", false},
		{"pypi-", onceRegexp(`^pypi-[A-Za-z0-9_-]{50,}`), "pypi_token", false},
		{"dckr_pat_", onceRegexp(`^dckr_pat_[A-Za-z0-9_-]{20,}`), "docker_token", false},
		{"HRKU-", onceRegexp(`^HRKU-[A-Za-z0-9_-]{20,}`), "heroku_key", false},
		{"SK", onceRegexp(`^SK[0-9a-fA-F]{32}`), "twilio_key", true},
		{"SG.", onceRegexp(`^SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), "sendgrid_key", false},
		{"hv", onceRegexp(`^hv[sb]\.[A-Za-z0-9_-]{24,}`), "vault_token", false},
		{"hf_", onceRegexp(`^hf_[A-Za-z0-9]{30,}`), "huggingface_token", false},
		{"dop_v1_", onceRegexp(`^dop_v1_[a-f0-9]{64}`), "digitalocean_token", false},
		{"shp", onceRegexp(`^shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`), "shopify_token", false},
	}
})

// isTokenChar reports whether c can be part of a token run: the
// characters of keys, tokens and their base64.
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '+' || c == '/' || c == '='
}

// findTokens walks the runs of token characters and reports vendor tokens
// by their prefix, and long random strings (high entropy).
func findTokens(s, lower string, add func(int, int, string)) {
	for i := 0; i < len(s); {
		if !isTokenChar(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenChar(s[j]) {
			j++
		}
		findInRun(s, lower, i, j, add)
		i = j
	}
}

// vendorsByFirst indexes vendorTokens by the first byte of their prefix.
var vendorsByFirst = sync.OnceValue(func() (idx [256][]int) {
	for i, v := range vendorTokens() {
		idx[v.prefix[0]] = append(idx[v.prefix[0]], i)
	}
	return idx
})

func findInRun(s, lower string, start, end int, add func(int, int, string)) {
	findVendorInRun(s, start, end, add)
	findRandomInRun(s, lower, start, end, add)
}

// findVendorTokens reports the vendor tokens of s (findTokens without the
// high-entropy guess).
func findVendorTokens(s string, add func(int, int, string)) {
	for i := 0; i < len(s); {
		if !isTokenChar(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenChar(s[j]) {
			j++
		}
		findVendorInRun(s, i, j, add)
		i = j
	}
}

// findVendorInRun reports the vendor tokens of the token run s[start:end].
func findVendorInRun(s string, start, end int, add func(int, int, string)) {
	// A vendor token may start anywhere a word starts inside the run
	// (after "=", "/" or "."): key=sk-..., /v1/ghp_...
	for k := start; k < end; k++ {
		if k > start && isWordChar(s[k-1]) {
			continue
		}
		for _, vi := range vendorsByFirst()[s[k]] {
			v := vendorTokens()[vi]
			if !strings.HasPrefix(s[k:end], v.prefix) {
				continue
			}
			m := v.re().FindStringIndex(s[k:end])
			if m == nil {
				continue
			}
			e := k + m[1]
			if v.fixed && e < end && isAlnum(s[e]) {
				continue
			}
			add(k, e, v.kind)
			k = e - 1
			break
		}
	}
}

// findRandomInRun reports the long random strings of the token run
// s[start:end].
func findRandomInRun(s, lower string, start, end int, add func(int, int, string)) {
	// High entropy: long random strings, piece by piece between dots and
	// assignments (an "=" that is not base64's closing padding).
	for p := start; p < end; {
		q := p
		for q < end && s[q] != '.' && !(s[q] == '=' && q+1 < end && s[q+1] != '=') {
			q++
		}
		if q-p >= 32 {
			findRandom(s, lower, p, q, add)
		}
		p = q + 1
	}
}

// findRandom reports the pieces of s[p:q] between slashes (path and URL
// segments) that look random, unless a hash is named just before them
// (sha256:..., "integrity": "sha512-...": a digest is no secret; nor is an SSH public key).
func findRandom(s, lower string, p, q int, add func(int, int, string)) {
	if afterHashName(lower, p) {
		return
	}
	for k := p; k < q; {
		e := strings.IndexByte(s[k:q], '/')
		if e < 0 {
			e = q - k
		}
		if e >= 32 && looksRandom(s[k:k+e]) {
			add(k, k+e, "high_entropy")
		}
		k += e + 1
	}
}

func afterHashName(lower string, i int) bool {
	before := lower[max(0, i-24):min(len(lower), i+7)] // and its own start: sha512-...
	for _, w := range []string{"sha", "md5", "hash", "digest", "checksum", "integrity", "fingerprint", "ssh-"} {
		if strings.Contains(before, w) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool { return isWordChar(c) && c != '_' }

func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// looksRandom picks long random strings (runs of 32 or more token
// characters without a dot): they must mix letter cases and digits and
// their Shannon entropy must be high, which spares words, paths, hex
// hashes and UUIDs.
// identifierLike is a name made of words joined by - or _ (file and
// package names: 1994-17th-NCSC-proceedings-vol-1,
// OES_compressed_ETC1_RGB8_texture): three parts or more, two in three of
// them words, acronyms or numbers.
func identifierLike(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) < 3 {
		return false
	}
	words := 0
	for _, p := range parts {
		if wordPart().MatchString(p) {
			words++
		}
	}
	return 3*words >= 2*len(parts)
}

// camelWords is a CamelCase name: words of three letters or more cover
// most of it (AbstractSingletonProxyFactoryBean2Impl).
func camelWords(s string) bool {
	covered := 0
	for _, m := range camelWord().FindAllStringIndex(s, -1) {
		covered += m[1] - m[0]
	}
	return 10*covered >= 7*len(s)
}

var camelWord = lazyRegexp(`[A-Z]?[a-z]{3,}`)

var wordPart = lazyRegexp(`^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+|[A-Z]+[0-9]+|[0-9]+|[0-9]+[a-z]{1,3}|[A-Za-z][a-z]*[0-9]+)$`)

func looksRandom(s string) bool {
	var lower, upper, digit bool
	var counts [256]int
	for i := 0; i < len(s); i++ {
		c := s[i]
		counts[c]++
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !lower || !upper || !digit || strings.Contains(s, "REDACTED") || identifierLike(s) || camelWords(s) {
		return false
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h >= 4.2
}

// ---- passwords in URLs ------------------------------------------------------

// findURLPasswords finds scheme://[user]:password@host. The password
// runs to the last "@" of the authority (which ends at a blank or a
// slash), so one holding "@" is removed whole.
func findURLPasswords(s, _ string, add func(int, int, string)) {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return
		}
		i += from
		from = i + 3
		j := i // the scheme: a letter, then letters, digits, + . -
		for j > 0 && i-j < 21 && (isAlnum(s[j-1]) || s[j-1] == '+' || s[j-1] == '.' || s[j-1] == '-') {
			j--
		}
		for j < i && !('a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z') {
			j++
		}
		if i-j < 2 {
			continue
		}
		k, e := i+3, i+3
		for e < len(s) && s[e] != '/' && s[e] != ' ' && s[e] != '\t' && s[e] != '\n' && s[e] != '\r' && s[e] != '\f' && s[e] != '\v' {
			e++
		}
		at := strings.LastIndexByte(s[k:e], '@')
		if at < 0 {
			continue
		}
		c := strings.IndexByte(s[k:k+at], ':')
		if c < 0 || strings.IndexByte(s[k:k+c], '@') >= 0 || c+1 == at || strings.Contains(s[k+c+1:k+at], redactedPrefix) {
			continue
		}
		add(k+c+1, k+at, "url_password")
	}
}

// findUserinfoPasswords finds user:password@host written without a
// scheme ("psql admin:s3cr3t@db.internal/app", "deploy:Passw0rd@buildbox").
// Without the scheme the form is held to more: the user starts a word
// (after a blank, a quote or a bracket) with a letter and holds only
// letters, digits, '.', '_' and '-'; the password has no blank and is
// four bytes or more with a digit or a symbol, and is no version number;
// a host name follows the '@'. An address ("dana@laptop"), a time
// ("10:30@home"), a mailto, an image digest ("nginx:1.25@sha256:…") or a
// scheme's URL (findURLPasswords) is not this. A password of letters only
// is left: in prose it is mostly not one.
func findUserinfoPasswords(s, _ string, add func(int, int, string)) {
	for from := 0; from < len(s); {
		a := strings.IndexByte(s[from:], '@')
		if a < 0 {
			return
		}
		a += from
		from = a + 1
		// The host: a letter or digit first.
		if a+1 >= len(s) || !isAlnum(s[a+1]) {
			continue
		}
		// Back from the '@' to the start of the word: no blank, no quote.
		w := a
		for w > 0 && a-w < 200 && !isBlankOrOpen(s[w-1]) {
			w--
		}
		if w > 0 && !isBlankOrOpen(s[w-1]) {
			continue // longer than any userinfo
		}
		if strings.Contains(s[max(0, w-1):a], redactedPrefix) {
			continue // a marker of an earlier pass
		}
		c := strings.IndexByte(s[w:a], ':')
		if c <= 0 {
			continue
		}
		c += w
		user, pw := s[w:c], s[c+1:a]
		if !userName(user) || !userPassword(pw) || strings.EqualFold(user, "mailto") || imageDigest(s[a+1:]) {
			continue
		}
		add(c+1, a, "url_password")
	}
}

// isBlankOrOpen ends a word going backwards: a blank, a quote or an
// opening bracket.
func isBlankOrOpen(c byte) bool {
	return strings.IndexByte(" \t\n\r\f\v\"'`([{<=", c) >= 0
}

func userName(u string) bool {
	if len(u) == 0 || len(u) > 64 || !('a' <= u[0] && u[0] <= 'z' || 'A' <= u[0] && u[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(u); i++ {
		if c := u[i]; !isWordChar(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func userPassword(p string) bool {
	if len(p) < 4 || len(p) > 128 || strings.Contains(p, redactedPrefix) || strings.Contains(p, "//") {
		return false
	}
	other, version := false, true
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c == 0x7f {
			return false
		}
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			other = true
		}
		if !('0' <= c && c <= '9' || c == '.') {
			version = false
		}
	}
	return other && !version
}

// imageDigest reports a container image's digest after the '@'
// ("nginx:1.25@sha256:…").
func imageDigest(after string) bool {
	for _, d := range []string{"sha256:", "sha384:", "sha512:"} {
		if strings.HasPrefix(after, d) {
			return true
		}
	}
	return false
}

// ---- Authorization headers and bearer tokens -----------------------------------

var (
	authHeader   = lazyRegexp(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(basic|bearer|token|apikey|sso-key)\s+([^\s"',;]+)`)
	bearerToken  = lazyRegexp(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`)
	azureSASSig  = lazyRegexp(`[?&;]sig=([A-Za-z0-9%+/=]{16,})`)
	headerHints  = []string{"authorization", "bearer"}
	basicAuthMin = 3
)

func findHeaders(s, lower string, add func(int, int, string)) {
	eachLineWith(s, lower, headerHints, func(start, end int) {
		for _, m := range authHeader().FindAllStringSubmatchIndex(s[start:end], -1) {
			v := s[start+m[4] : start+m[5]]
			if len(v) < basicAuthMin || !plainValue(v) || envName().MatchString(v) {
				continue // Bearer $TOKEN, Bearer <token>, Bearer API_KEY
			}
			kind := "bearer_token"
			if strings.EqualFold(s[start+m[2]:start+m[3]], "basic") {
				kind = "basic_auth"
			}
			add(start+m[4], start+m[5], kind)
		}
		addGroups(s, start, end, bearerToken(), 1, "bearer_token", func(v string) bool {
			return strings.ContainsAny(v, "0123456789._~+/-")
		}, add)
	})
	if strings.Contains(lower, "sig=") {
		eachLineWith(s, lower, []string{"sig="}, func(start, end int) {
			addGroups(s, start, end, azureSASSig(), 1, "azure_sas", nil, add)
		})
	}
}

// ---- passwords on command lines ----------------------------------------------

// argValue is a command-line argument: quoted (quotes included) or bare.
const argValue = `("[^"\n]*"|'[^'\n]*'|[^\s"']+)`

var (
	// curl -u user:pw, --user user:pw, -uuser:pw
	curlUser = lazyRegexp(`\s(?:-u|--user|--proxy-user)(?:\s+|=)?["']?[^\s:"']*:([^\s"']+)`)
	// mysql -pPW (the password joined to -p)
	mysqlP = lazyRegexp(`\s-p("[^"\n]*"|'[^'\n]*'|[^\s"'-][^\s"']*)`)
	// sshpass -p PW
	sshpassP = lazyRegexp(`\s-p\s*` + argValue)
	// docker login -p PW
	loginP = lazyRegexp(`\s-p\s+` + argValue)
	// --password=PW, --db-password PW, --passphrase PW
	passwordFlag = lazyRegexp(`(?i)\s--(?:[a-z]+-)*(?:password|passwd|passphrase)(?:=|\s+)` + argValue)
	// --token PW, --api-key PW (shaped values only)
	tokenFlag = lazyRegexp(`(?i)\s--(?:[a-z]+-)*(?:token|api-key|apikey|secret-key|access-key)(?:=|\s+)` + argValue)
	// openssl -pass pass:PW
	opensslPass = lazyRegexp(`\s-pass(?:in|out)?\s+pass:` + argValue)
)

// commandRule finds a password argument on lines naming one of commands.
type commandRule struct {
	commands []string              // lower-case hints, one must be on the line
	re       func() *regexp.Regexp // compiled when a line names a command
	kind     string
	ok       func(string) bool
}

var commandRules = sync.OnceValue(func() []commandRule {
	return []commandRule{
		{[]string{"curl"}, curlUser, "basic_auth", plainValue},
		{[]string{"mysql", "mariadb"}, mysqlP, "cli_password", plainArg},
		{[]string{"sshpass"}, sshpassP, "cli_password", plainArg},
		{[]string{" login"}, loginP, "cli_password", plainArg},
		{[]string{"--"}, passwordFlag, "cli_password", plainArg},
		{[]string{"--"}, tokenFlag, "cli_password", func(v string) bool { return plainArg(v) && codeShaped(argText(v)) }},
		{[]string{"-pass"}, opensslPass, "cli_password", plainArg},
	}
})

// argText is an argument without its quotes.
func argText(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func plainArg(v string) bool { return plainValue(argText(v)) }

func findCommandPasswords(s, lower string, add func(int, int, string)) {
	for _, r := range commandRules() {
		eachLineWith(s, lower, r.commands, func(start, end int) {
			// Only after the command's name on its line (and the blank
			// before it, where the rules start).
			from := end
			for _, c := range r.commands {
				if i := strings.Index(lower[start:end], c); i >= 0 {
					from = min(from, max(start, start+i-1))
				}
			}
			addGroups(s, from, end, r.re(), 1, r.kind, r.ok, add)
		})
	}
}

// plainValue is a value that is not a reference, a placeholder or a flag.
func plainValue(v string) bool {
	return v != "" && v[0] != '-' && v[0] != '<' && !isReference(v) && !isPlaceholder(v)
}

// ---- passwords in prose -------------------------------------------------------

// prosePassword is "the password is X", "my passphrase was: X".
var prosePassword = lazyRegexp(`(?i)\b(?:password|passphrase|passwd|passcode|pwd)(?:\s+(?:for|of|to|on|at)(?:\s+\S+){1,4}?)?\s+(?:is|was|will be|would be|should be|remains)\s*:?\s+`)

func findProsePasswords(s, lower string, add func(int, int, string)) {
	eachLineWith(s, lower, []string{"pass", "pwd"}, func(start, end int) {
		for _, m := range prosePassword().FindAllStringIndex(s[start:end], -1) {
			vs, ve, quoted := readValue(s, start+m[1], end, true)
			if vs == ve {
				continue
			}
			v := unquote(s[vs:ve], quoted)
			if quoted {
				if plainValue(v) && !isKeyword(v) {
					add(vs, ve, "prose_password")
				}
				continue
			}
			v = strings.TrimRight(v, ".,;:)")
			ve = vs + len(v)
			if len(v) >= 4 && plainValue(v) && !isKeyword(v) && proseShaped(v) {
				add(vs, ve, "prose_password")
			}
		}
	})
}

// proseShaped is a word that is not an English word: it has a digit or a
// symbol, or a capital after its first letter.
func proseShaped(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case '0' <= c && c <= '9', c > 0x7f:
			return true
		case 'a' <= c && c <= 'z':
		case 'A' <= c && c <= 'Z':
			if i > 0 {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// ---- assignments: NAME=value, name: value, "name": "value" ------------------------

// findAssignments reports the value of every assignment whose name says
// secret (PASSWORD, TOKEN, SECRET, API_KEY, ...) when the value looks like
// one. An environment-style name (MYSQL_ROOT_PASSWORD, PGPASSWORD) takes
// any plain value; a code-style name (password, apiKey, "client_secret")
// needs a value that is no code: a literal string, or a word with digits
// or symbols that is not an expression or a dotted name.
func findAssignments(s, lower string, add func(int, int, string)) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' && c != ':' {
			continue
		}
		sep := i
		valueFrom := i + 1
		switch {
		case c == '=' && i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '~'): // ==, =~
			i++
			continue
		case c == '=' && i > 0 && strings.IndexByte("=!<>:+-*/%|&^?", s[i-1]) >= 0: // !=, <=, :=, += ...
			continue
		case c == '=' && i+1 < len(s) && s[i+1] == '>': // =>
			valueFrom = i + 2
		case c == ':' && i+1 < len(s) && s[i+1] == '=': // :=
			valueFrom = i + 2
		case c == ':' && i+1 < len(s) && s[i+1] == ':': // ::
			i++
			continue
		}
		name, env := assignmentName(s, sep)
		if name == "" || !maybeSecretName(lower[sep-len(name)-nameTail(s, sep):sep]) || !secretName(name) {
			continue
		}
		// Skip the blanks after the separator (not a line break).
		v := valueFrom
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		end := strings.IndexByte(s[v:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += v
		}
		vs, ve, quoted := readValue(s, v, end, env)
		if !env && !quoted && c == ':' && ve > vs {
			// After a colon (YAML, prose) "&" is part of the value, not a
			// query's next parameter: pwd: Tr0ub4dor&3.
			for ve < end && strings.IndexByte(" \t\r\"'`,;)]}", s[ve]) < 0 && !htmlEntity().MatchString(s[ve:end]) {
				ve++
			}
		}
		if vs == ve || strings.HasPrefix(s[vs:], redactedPrefix) {
			continue
		}
		val := unquote(s[vs:ve], quoted)
		kind := "inline_secret"
		if env {
			kind = "env_secret"
		}
		if secretValue(name, val, quoted, env, c == ':') {
			add(vs, ve, kind)
		}
	}
}

// nameTail is how many bytes lie between a name and its separator at sep
// (blanks and a closing quote).
func nameTail(s string, sep int) int {
	j := sep
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	return sep - j
}

// maybeSecretName is a cheap test on a lower-cased name (and what follows
// it) before secretName splits it into words.
func maybeSecretName(lower string) bool {
	for _, w := range []string{"pass", "pwd", "pw", "secret", "token", "key", "credential", "auth", "cookie"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// assignmentName reads the name before the separator at sep: an
// identifier, maybe quoted, maybe followed by blanks. env reports an
// environment-style name (upper case, digits, underscores).
func assignmentName(s string, sep int) (string, bool) {
	j := sep
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	end := j
	for j > 0 && end-j < 80 && (isWordChar(s[j-1]) || s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	if j == end || end-j >= 80 || (j > 0 && (isWordChar(s[j-1]) || s[j-1] == '.' || s[j-1] == '-')) {
		return "", false
	}
	name := s[j:end]
	if c := name[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
		return "", false
	}
	env := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			env = false
			break
		}
	}
	return name, env
}

// readValue reads the value at s[v:end]: a quoted string (to its closing
// quote on the line, quotes included) or a bare word. A bare word of an
// environment-style assignment runs to a blank; of code, also to , ; & and
// closing brackets.
func readValue(s string, v, end int, env bool) (int, int, bool) {
	if v >= end {
		return v, v, false
	}
	if q := s[v]; q == '"' || q == '\'' || q == '`' {
		for k := v + 1; k < end; k++ {
			if s[k] == '\\' {
				k++
				continue
			}
			if s[k] == q {
				return v, k + 1, true
			}
		}
		return v, end, true // unterminated: the rest of the line
	}
	stop := " \t\r\"'`"
	if !env {
		stop += ",;&)]}"
	}
	k := v
	for k < end && strings.IndexByte(stop, s[k]) < 0 {
		k++
	}
	for env && k > v && s[k-1] == ';' { // export A=b; next command
		k--
	}
	return v, k, false
}

func unquote(v string, quoted bool) string {
	if !quoted || len(v) < 2 {
		return strings.TrimLeft(v, "\"'`")
	}
	if v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v[1:]
}

// secretValue decides whether val, assigned to name, is a secret.
func secretValue(name, val string, quoted, env, colon bool) bool {
	if !plainValue(val) || isKeyword(val) || strings.EqualFold(val, name) || strings.Contains(val, "://") || strings.Contains(val, redactedPrefix) {
		return false // a URL's password is findURLPasswords' to find
	}
	if strings.HasPrefix(val, "/") || strings.HasPrefix(val, "~/") || strings.HasPrefix(val, "./") || winPath().MatchString(val) {
		return false // the path of a file holding the secret
	}
	if words := nameWords(name); words[len(words)-1] == "COOKIE" {
		if _, v, ok := strings.Cut(val, "="); ok { // Cookie: name=value
			val = v
		}
		return codeShaped(val) && len(val) >= 8
	}
	if strings.EqualFold(name, "auth") { // docker config.json "auth": base64(user:password), and its YAML
		return quoted && len(val) >= 8 && base64ish(val) && codeShaped(val) || base64UserPassword(val)
	}
	if words := nameWords(name); len(words) == 1 && (words[0] == "PWD" || words[0] == "PASS" || words[0] == "PW") {
		// pass=, pwd:, "pass": alone are passwords only with a password's
		// shape; PASS: and PWD: in capitals are test logs and the shell's
		// folder ("--- PASS: TestX", "PWD: /srv/app").
		// PWD in capitals is the shell's folder ("PWD="+dir, PWD: /srv).
		if env && (colon || words[0] == "PWD") || strings.ContainsAny(val, " \t") || strings.ContainsAny(val[:1], "+,&*") {
			return false
		}
		return codeShaped(val) && strings.ContainsFunc(val, isASCIILetter) // not a score: pass: 120/150
	}
	if env {
		// A one-word name before a colon ("TOKEN: expired") is as likely
		// a log line as a setting: it needs a secret's shape.
		if colon && !strings.ContainsAny(name, "_") && !quoted && !codeShaped(val) {
			return false
		}
		return quoted || (len(val) >= 3 && !strings.ContainsAny(val[:1], "!|>"))
	}
	if quoted {
		words := nameWords(name)
		last := words[len(words)-1]
		if strings.ContainsAny(val, " \t") && last != "PASSPHRASE" { // a passphrase has words
			// A password of words ("correct horse battery staple") is
			// one; a prompt or a description ("Enter your password") is not.
			return strings.Contains(last, "PASS") && passphraseLike(val)
		}
		return len(val) >= 4 && !isLabel(val)
	}
	return codeShaped(val)
}

// codeShaped is a bare value that is no code and looks like a secret: six
// characters or more with a digit or a symbol, not a number, not an
// expression, not a dotted name.
func codeShaped(v string) bool {
	if len(v) < 6 || strings.ContainsAny(v, "()[]{}<>") || strings.ContainsAny(v[:1], "!|>") {
		return false
	}
	digits, symbols, letters := 0, 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
			letters++
		default:
			symbols++
		}
	}
	if letters == 0 && symbols == 0 { // a number
		return false
	}
	if dottedName().MatchString(v) || versionLike().MatchString(v) || hyphenWords().MatchString(v) {
		return false
	}
	return digits > 0 || symbols > 0
}

var (
	htmlEntity  = lazyRegexp(`^&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);`)
	hyphenWords = lazyRegexp(`^[A-Za-z]+(?:[':-][A-Za-z]+)+[.,!?]?$`)
	envName     = lazyRegexp(`^[A-Z][A-Z_]*$`)
	winPath     = lazyRegexp(`^[A-Za-z]:\\`)
	dottedName  = lazyRegexp(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)
	versionLike = lazyRegexp(`^v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?$`)
	placeholder = lazyRegexp(`(?i)^(?:<[^>]*>|\[[^\]]*\]|\{[^}]*\}|x{3,}|\*{3,}|\.{3,}|#{3,}|-+|.*(?:\.\.\.|…)|changeme.*|your.*|(?:my|the|some|a)[_-]?(?:pass(?:word)?|passwd|secret|token|(?:api)?key)|.*[_-]here|example|dummy|placeholder|redacted|masked|hidden|\*+[a-z0-9]{0,4})$`)
)

// isReference is a value that names a secret kept elsewhere: $VAR, ${VAR},
// %(name)s, {{ var }}, an environment lookup.
func isReference(v string) bool {
	return strings.HasPrefix(v, "$") || strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.Contains(v, "%(") ||
		strings.HasPrefix(v, "%") || strings.HasPrefix(v, "env:") || strings.HasPrefix(v, "secret:") || strings.HasPrefix(v, "vault:")
}

func isPlaceholder(v string) bool { return placeholder().MatchString(v) }

var keywords = map[string]bool{
	"none": true, "null": true, "nil": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"undefined": true, "required": true, "optional": true, "string": true, "str": true, "int": true, "bool": true,
	"boolean": true, "bytes": true, "secret": true, "password": true, "token": true, "empty": true, "unset": true,
	"default": true, "auto": true, "env": true, "file": true, "prompt": true, "stdin": true, "any": true, "self": true,
}

func isKeyword(v string) bool { return keywords[strings.ToLower(v)] }

// isLabel is a quoted word that reads as a user interface label
// ("Password", "Passwort", "API key").
func isLabel(v string) bool {
	if len(v) < 2 || !('A' <= v[0] && v[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(v); i++ {
		if c := v[i]; !('a' <= c && c <= 'z' || c >= 0x80) {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// base64UserPassword is a bare base64 value that decodes to
// user:password (a docker auth entry written in YAML).
func base64UserPassword(v string) bool {
	if len(v) < 8 || !base64ish(v) {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return false
		}
	}
	user, pw, ok := strings.Cut(string(b), ":")
	if !ok || user == "" || len(pw) < 3 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// passphraseLike is a password of words: three to eight lower-case words
// of letters, none of them a word prompts and descriptions are made of
// ("the", "your", "enter", "password", "must", ...).
func passphraseLike(v string) bool {
	words := strings.Fields(v)
	if len(words) < 3 || len(words) > 8 {
		return false
	}
	for _, w := range words {
		if len(w) < 3 || promptWords[w] {
			return false
		}
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				return false
			}
		}
	}
	return true
}

// promptWords make a quoted phrase a prompt, a label or a description
// rather than a passphrase.
var promptWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for you your our their his her its not are was were will would should could can cannot
	must may might have has had been being this that these those with from into onto over under than then there here what which
	who whom whose when where why how all any each every some such only also just very more most less least few many much
	enter type input provide please confirm repeat retype choose pick new old current again forgot forgotten reset change
	password passwords passwd passphrase passcode pass secret token key user username users login account email name field
	value required optional invalid incorrect wrong missing empty placeholder example sample default characters chars letters
	long short length minimum maximum min max least most contain contains include includes characters database server host`) {
		m[w] = true
	}
	return m
}()

func base64ish(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isWordChar(c) && c != '_' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// secretWords end a name that names a secret: DB_PASSWORD, apiToken,
// client_secret.
var secretWords = []string{"PASSWORD", "PASSWD", "PASSPHRASE", "PASSCODE", "SECRET", "TOKEN", "APIKEY", "CREDENTIAL", "CREDENTIALS", "COOKIE"}

// keyQualifiers make KEY a secret: API_KEY, secretKey, AccountKey,
// private_key_id (a GCP service account's), not primary_key or sort_key.
var keyQualifiers = map[string]bool{
	"API": true, "SECRET": true, "ACCESS": true, "PRIVATE": true, "SSH": true, "ENCRYPTION": true, "SIGNING": true,
	"MASTER": true, "LICENSE": true, "CLIENT": true, "AUTH": true, "APP": true, "SERVICE": true, "ACCOUNT": true,
	"SHARED": true, "CONSUMER": true, "WEBHOOK": true, "DEPLOY": true, "ENCRYPT": true, "HMAC": true, "JWT": true,
	"SECURITY": true, "ADMIN": true, "ROOT": true, "RSA": true, "PGP": true, "GPG": true, "STRIPE": true, "AWS": true,
	"OPENAI": true, "ANTHROPIC": true, "SENDGRID": true, "MAILGUN": true, "DD": true, "DATADOG": true, "TWILIO": true,
	"HEROKU": true, "GITHUB": true, "GITLAB": true, "SLACK": true, "SUBSCRIPTION": true, "STORAGE": true, "SAS": true,
}

// secretName reports whether an assignment's name names a secret. Its
// last word decides (a secret word, KEY after a qualifier, or a word
// ending in a secret word such as PGPASSWORD), so TOKEN_TTL,
// password_min_length and max_tokens are not secrets.
func secretName(name string) bool {
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	if last := words[len(words)-1]; len(words) > 1 && (last == "BASE" || last == "VALUE") {
		words = words[:len(words)-1] // SECRET_KEY_BASE
	}
	n := len(words)
	last := words[n-1]
	switch {
	case slices.Contains(secretWords, last):
		return true
	case last == "PWD" || last == "PASS" || last == "PW":
		return true // alone (pass=, "pwd":), checked against its value in secretValue
	case last == "KEY" && n > 1 && keyQualifiers[words[n-2]]:
		return true
	case last == "ID" && n > 2 && words[n-2] == "KEY" && (words[n-3] == "PRIVATE"):
		return true
	case last == "AUTH" && n == 1:
		return true // checked against its value in secretValue
	}
	for _, w := range []string{"PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "APIKEY", "SECRETKEY", "ACCESSKEY", "PRIVATEKEY"} {
		if strings.HasSuffix(last, w) && len(last) > len(w) {
			return true
		}
	}
	return false
}

// nameWords splits an identifier into upper-cased words at _ . - and
// case changes: apiKey, APIKey, api_key and API-KEY are all API KEY.
func nameWords(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToUpper(name[start:end]))
		}
		start = end
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '.' || c == '-' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && 'A' <= c && c <= 'Z' {
			prev := name[i-1]
			nextLower := i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z'
			if 'a' <= prev && prev <= 'z' || '0' <= prev && prev <= '9' || ('A' <= prev && prev <= 'Z' && nextLower) {
				flush(i)
			}
		}
	}
	flush(len(name))
	return words
}

// ---- webhooks -----------------------------------------------------------------

var webhook = lazyRegexp(`(?:hooks\.slack\.com/(?:services|workflows|triggers)|discord(?:app)?\.com/api/webhooks)/([A-Za-z0-9/_-]{8,})`)

func findWebhooks(s, lower string, add func(int, int, string)) {
	eachLineWith(s, lower, []string{"hooks.slack.com", "/api/webhooks/"}, func(start, end int) {
		addGroups(s, start, end, webhook(), 1, "webhook_secret", nil, add)
	})
}

package text

import (
	"net/url"
	"slices"
	"strings"
)

// URLs are stored (a document's source_url), logged and shown in errors.
// A URL can carry credentials in three places: its userinfo
// (user:password@host), its query or fragment (?access_token=ghp_…,
// &sig=…, #id_token=…) and, more rarely, its path (a webhook's secret, a
// token as a path segment). RedactURL removes them; the rest of the URL
// keeps its bytes, so what is logged still says which page it was.

// RedactURL returns raw with its credentials replaced by markers:
//
//   - the password of user:password@ ([REDACTED:url_password]), and a user
//     name that is itself a token ([REDACTED:url_user]);
//   - the value of a query or fragment parameter whose name says secret
//     (token, access_token, secret, password, pass, pwd, sig, signature,
//     auth, api_key, apikey, credential, session, jwt, X-Amz-Signature,
//     X-Amz-Security-Token, X-Goog-Credential, ...; the last word of the
//     name decides, so token_type is kept), the value of key=, code= or
//     sid= when it looks like a secret (16 characters or more mixing
//     letters and digits), and any value that is a vendor's token
//     ([REDACTED:url_secret]);
//   - a vendor's token or a webhook's secret in the path.
//
// raw need not be a valid URL: a string without a scheme is read as a
// path with an optional query and fragment. Redacting twice changes
// nothing.
func RedactURL(raw string) string {
	out, _ := redactURL(raw)
	return out
}

// URLSecrets names the credentials RedactURL would remove from raw ("a
// user name or password", "query parameter access_token", "a token in the
// path"), in order, or nil when raw holds none.
func URLSecrets(raw string) []string {
	_, found := redactURL(raw)
	return found
}

// RedactURLsIn applies RedactURL to every URL (scheme://…, up to a blank,
// a quote or an angle bracket) in free text: a log line, an error message.
func RedactURLsIn(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	last := 0
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			break
		}
		i += from
		start := i
		for start > last && (isAlnum(s[start-1]) || s[start-1] == '+' || s[start-1] == '.' || s[start-1] == '-') {
			start--
		}
		end := i + 3
		for end < len(s) && !urlStop(s[end]) {
			end++
		}
		// Trailing punctuation belongs to the sentence: "see https://x/a."
		for end > i+3 && (strings.IndexByte(".,;:!?", s[end-1]) >= 0 ||
			s[end-1] == ')' && strings.Count(s[start:end], "(") < strings.Count(s[start:end], ")")) {
			end--
		}
		if start < i {
			b.WriteString(s[last:start])
			b.WriteString(RedactURL(s[start:end]))
			last = end
		}
		from = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func urlStop(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == 0x7f
}

// urlSpan is a part of a URL to replace by a marker.
type urlSpan struct {
	start, end int
	kind, what string
}

func redactURL(raw string) (string, []string) {
	var spans []urlSpan
	add := func(start, end int, kind, what string) {
		if start < end && !strings.HasPrefix(raw[start:end], redactedPrefix) {
			spans = append(spans, urlSpan{start, end, kind, what})
		}
	}
	// scheme ":" ["//" authority] path ["?" query] ["#" fragment]
	rest := 0
	if c := strings.IndexByte(raw, ':'); c > 0 && validScheme(raw[:c]) {
		rest = c + 1
		if strings.HasPrefix(raw[rest:], "//") {
			a := rest + 2
			e := a
			for e < len(raw) && raw[e] != '/' && raw[e] != '?' && raw[e] != '#' && !urlStop(raw[e]) {
				e++
			}
			if at := strings.LastIndexByte(raw[a:e], '@'); at >= 0 {
				userinfo := raw[a : a+at]
				from := 0
				if strings.HasPrefix(userinfo, redactedPrefix) { // a marker of an earlier pass
					from = max(0, strings.IndexByte(userinfo, ']'))
				}
				user, pw, hasPW := userinfo, "", false
				if c := strings.IndexByte(userinfo[from:], ':'); c >= 0 {
					user, pw, hasPW = userinfo[:from+c], userinfo[from+c+1:], true
				}
				if secretUser(user) {
					add(a, a+len(user), "url_user", "a user name or password")
				}
				if hasPW && pw != "" {
					add(a+len(user)+1, a+at, "url_password", "a user name or password")
				}
			}
			rest = e
		}
	}
	pathEnd := len(raw)
	if i := strings.IndexAny(raw[rest:], "?#"); i >= 0 {
		pathEnd = rest + i
	}
	if rest < pathEnd {
		path := raw[:pathEnd] // whole prefix: the webhook finder needs the host
		findVendorTokens(path[rest:], func(s, e int, _ string) { add(rest+s, rest+e, "url_secret", "a token in the path") })
		findWebhooks(path, asciiLower(path), func(s, e int, _ string) {
			if s >= rest {
				add(s, e, "url_secret", "a token in the path")
			}
		})
	}
	if pathEnd < len(raw) && raw[pathEnd] == '?' {
		qEnd := len(raw)
		if i := strings.IndexByte(raw[pathEnd:], '#'); i >= 0 {
			qEnd = pathEnd + i
		}
		redactParams(raw, pathEnd+1, qEnd, "query parameter ", add)
		pathEnd = qEnd
	}
	if pathEnd < len(raw) && raw[pathEnd] == '#' {
		if strings.IndexByte(raw[pathEnd:], '=') >= 0 {
			redactParams(raw, pathEnd+1, len(raw), "fragment parameter ", add)
		} else {
			findVendorTokens(raw[pathEnd+1:], func(s, e int, _ string) {
				add(pathEnd+1+s, pathEnd+1+e, "url_secret", "a token in the fragment")
			})
		}
	}
	if len(spans) == 0 {
		return raw, nil
	}
	slices.SortStableFunc(spans, func(a, b urlSpan) int { return a.start - b.start })
	var b strings.Builder
	var found []string
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // inside one already replaced
		}
		b.WriteString(raw[last:sp.start])
		b.WriteString(redactedMark(sp.kind))
		last = sp.end
		if !slices.Contains(found, sp.what) {
			found = append(found, sp.what)
		}
	}
	b.WriteString(raw[last:])
	return b.String(), found
}

func validScheme(s string) bool {
	if s == "" || len(s) > 32 || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// secretUser is a URL's user name that is a credential itself
// (https://ghp_…@github.com, a long random string).
func secretUser(u string) bool {
	if u == "" || strings.HasPrefix(u, redactedPrefix) {
		return false
	}
	if d, err := url.PathUnescape(u); err == nil {
		u = d
	}
	secret := false
	findVendorTokens(u, func(int, int, string) { secret = true })
	return secret || len(u) >= 32 && looksRandom(u) || len(u) >= 20 && hexOrBase64Secret(u)
}

// redactParams redacts the secret values of the name=value pairs (split
// at & and ;) of raw[start:end].
func redactParams(raw string, start, end int, label string, add func(int, int, string, string)) {
	for p := start; p < end; {
		q := p
		for q < end && raw[q] != '&' && raw[q] != ';' {
			q++
		}
		if eq := strings.IndexByte(raw[p:q], '='); eq > 0 {
			name, value := raw[p:p+eq], raw[p+eq+1:q]
			if secretParam(name, value) {
				shown := name
				if d, err := url.QueryUnescape(name); err == nil {
					shown = d
				}
				add(p+eq+1, q, "url_secret", label+CleanLine(shown))
			}
		}
		p = q + 1
	}
}

// paramSecretWords end a parameter name that names a secret.
var paramSecretWords = map[string]bool{
	"TOKEN": true, "SECRET": true, "PASSWORD": true, "PASSWD": true, "PASS": true, "PWD": true, "PW": true,
	"PASSPHRASE": true, "SIG": true, "SIGNATURE": true, "APIKEY": true, "CREDENTIAL": true, "CREDENTIALS": true,
	"AUTH": true, "AUTHORIZATION": true, "JWT": true, "SESSION": true, "SESSIONID": true, "ACCESSKEY": true,
	"SECRETKEY": true, "PRIVATEKEY": true, "OTP": true,
}

// paramMaybeSecretWords end a name whose value is a secret when it looks
// like one: key=, code=, sid=.
var paramMaybeSecretWords = map[string]bool{"KEY": true, "CODE": true, "SID": true}

func secretParam(name, value string) bool {
	if value == "" || strings.HasPrefix(value, redactedPrefix) {
		return false
	}
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	if d, err := url.QueryUnescape(value); err == nil {
		value = d
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x80 && (isAlnum(byte(r)) || r == '_') {
			return r
		}
		return '_'
	}, name)
	words := nameWords(name)
	vendor := false
	findVendorTokens(value, func(int, int, string) { vendor = true })
	if vendor {
		return true
	}
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	switch {
	case paramSecretWords[last]:
		return true
	case last == "KEY" && len(words) > 1 && keyQualifiers[words[len(words)-2]]:
		return true
	case paramMaybeSecretWords[last]:
		return hexOrBase64Secret(value) || len(value) >= 32 && looksRandom(value)
	}
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "SIGNATURE", "APIKEY"} {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	return false
}

// hexOrBase64Secret is a value of 16 characters or more, of token
// characters only, mixing letters and digits: a key, not a word or a
// number.
func hexOrBase64Secret(v string) bool {
	if len(v) < 16 {
		return false
	}
	letters, digits := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case '0' <= c && c <= '9':
			digits = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letters = true
		case c == '-' || c == '_' || c == '+' || c == '/' || c == '=' || c == '.':
		default:
			return false
		}
	}
	return letters && digits
}

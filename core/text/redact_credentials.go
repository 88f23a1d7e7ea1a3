package text

import (
	"strings"
)

// ---- credentials written as people write them ---------------------------------
//
// The assignment rules need a NAME=value or name: value; people also
// write "username admin password Adm1n!2024", "log in with password
// Welc0me!1", "creds admin / P@ssw0rd!", "login as admin:Tr0ub4dor9" and
// "the twilio auth token is 4f9a…". Each form below is held to more than
// its words: a value with a password's or a key's shape (digits or
// symbols, several character classes, or a long hex or base64 run), and
// for the bare pairs a line that speaks of logging in or credentials.

var (
	// "username admin password X", "user deploy password: X".
	credentialPair = lazyRegexp(`(?i)\b(?:user(?:name)?|login|account)\s+([^\s,;:]+)\s+(?:password|passwd|passphrase|passcode|pwd|pass)\s*:?\s+`)
	// "with password X", "with the password 'X'".
	withPassword = lazyRegexp(`(?i)\bwith\s+(?:the\s+|a\s+)?(?:password|passwd|passphrase|passcode|pwd)\s*:?\s+`)
	// "the api key is X", "the twilio auth token is X", "the access
	// token for the staging api is X". A bare "key" is not enough (the
	// primary key, the cache key).
	proseKey = lazyRegexp(`(?i)\b(?:(?:api|access|secret|auth|private|client|app|account|bearer|refresh|session|signing|webhook|license)[ _-]?(?:key|token|secret)|token|secret)(?:\s+(?:for|of|to|on|at)(?:\s+\S+){1,4}?)?\s+(?:is|was|will be|would be|should be|remains)\s*:?\s+`)
	// "admin / P@ssw0rd!".
	slashPair = lazyRegexp(`(?:^|[\s(\["'])[A-Za-z][A-Za-z0-9._-]{0,63}\s+/\s+`)
	// Values that name a technique, not a secret: "with password SHA256".
	techTerm = lazyRegexp(`(?i)^(?:sha|md5|pbkdf2|bcrypt|argon2|scrypt|aes|rsa|hmac|tls|ssl|oauth|2fa|mfa|totp|utf|base64|x509)[\w-]*$`)
)

// credentialHints are the words of a line where a bare user/password or
// user:password pair is a credential.
var credentialHints = []string{"login", "log in", "logon", "sign in", "signin", "creds", "credential", "password", "passwd", "username", "basic auth"}

// pairUserStop are words that stand where a user name would and are none
// ("username and password", "user name password").
var pairUserStop = map[string]bool{
	"and": true, "or": true, "name": true, "names": true, "id": true, "ids": true, "and/or": true, "field": true, "fields": true,
	"is": true, "has": true, "with": true, "the": true, "a": true, "an": true, "to": true, "for": true, "of": true, "nor": true,
	"&": true, "/": true, "password": true, "passwords": true, "credentials": true, "or/and": true, "must": true, "needs": true,
}

// pairLabels are names before a colon that label a value ("role:Admin",
// "user:dana") rather than being a user.
var pairLabels = map[string]bool{
	"login": true, "user": true, "username": true, "password": true, "passwd": true, "pass": true, "pwd": true, "role": true,
	"scope": true, "type": true, "mode": true, "status": true, "level": true, "auth": true, "creds": true, "credentials": true,
	"account": true, "email": true, "host": true, "port": true, "db": true, "database": true, "key": true, "token": true,
	"secret": true, "group": true, "team": true, "env": true, "stage": true, "region": true, "vault": true, "file": true,
	"http": true, "https": true, "ssh": true, "git": true, "mailto": true, "urn": true, "tel": true, "data": true,
	"session": true, "agent": true, "source": true, "project": true, "tag": true, "kind": true, "tcp": true, "udp": true, "unix": true, "server": true, "note": true, "error": true, "warning": true, "info": true,
}

func findCredentialProse(s, lower string, add func(int, int, string)) {
	// Each regular expression runs only on lines that hold its words
	// (cheap substring tests first: most lines hold none).
	eachLineWith(s, lower, []string{"pass", "pwd"}, func(start, end int) {
		line := lower[start:end]
		if strings.Contains(line, "user") || strings.Contains(line, "login") || strings.Contains(line, "account") {
			for _, m := range credentialPair().FindAllStringSubmatchIndex(s[start:end], -1) {
				if pairUserStop[strings.ToLower(s[start+m[2]:start+m[3]])] {
					continue
				}
				addProseValue(s, start+m[1], end, "prose_password", passwordWord, add)
			}
		}
		if strings.Contains(line, "with") {
			for _, m := range withPassword().FindAllStringIndex(s[start:end], -1) {
				addProseValue(s, start+m[1], end, "prose_password", passwordWord, add)
			}
		}
	})
	eachLineWith(s, lower, []string{"key", "token", "secret"}, func(start, end int) {
		line := lower[start:end]
		if !strings.Contains(line, " is") && !strings.Contains(line, " was") && !strings.Contains(line, " be") && !strings.Contains(line, " remains") {
			return
		}
		for _, m := range proseKey().FindAllStringIndex(s[start:end], -1) {
			addProseValue(s, start+m[1], end, "prose_secret", keyShaped, add)
		}
	})
	eachLineWith(s, lower, credentialHints, func(start, end int) {
		if strings.Contains(s[start:end], "/") {
			for _, m := range slashPair().FindAllStringIndex(s[start:end], -1) {
				addProseValue(s, start+m[1], end, "prose_password", strongPassword, add)
			}
		}
		findColonPairs(s, start, end, add)
	})
}

// addProseValue reads the value at s[v:end] (quoted, or a word to the
// next blank without its closing punctuation) and adds it when ok says
// it is one (a quoted password also when it is a passphrase of words).
func addProseValue(s string, v, end int, kind string, ok func(string) bool, add func(int, int, string)) {
	vs, ve, quoted := readValue(s, v, end, true)
	if vs == ve || strings.HasPrefix(s[vs:], redactedPrefix) {
		return
	}
	val := unquote(s[vs:ve], quoted)
	if quoted {
		if ok(val) || kind == "prose_password" && passphraseLike(val) {
			add(vs, ve, kind)
		}
		return
	}
	val = strings.TrimRight(val, ".,;:)") // a password may end in ! or ?
	if ok(val) {
		add(vs, vs+len(val), kind)
	}
}

// passwordWord is a bare word that reads as a password: four characters
// or more, not an English word (a digit, a symbol or an inner capital),
// not a keyword, a reference, a placeholder or a technique.
func passwordWord(v string) bool {
	return len(v) >= 4 && plainValue(v) && !isKeyword(v) && proseShaped(v) && !techTerm().MatchString(v) &&
		!versionLike().MatchString(v) && !strings.Contains(v, "://")
}

// strongPassword is a bare word that can only be a password: six
// characters or more with a letter and three of lower case, upper case,
// digits and symbols, and no slash (not a path or a fraction).
func strongPassword(v string) bool {
	if len(v) < 6 || strings.ContainsAny(v, "/\\") || !passwordWord(v) {
		return false
	}
	var lower, upper, digit, symbol int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			lower = 1
		case 'A' <= c && c <= 'Z':
			upper = 1
		case '0' <= c && c <= '9':
			digit = 1
		default:
			symbol = 1
		}
	}
	return lower+upper >= 1 && lower+upper+digit+symbol >= 3
}

// keyShaped is a bare key or token: sixteen characters or more of token
// characters mixing letters and digits (hex keys included, which the
// high-entropy rule leaves), and no path, version, URL or named digest.
func keyShaped(v string) bool {
	if !hexOrBase64Secret(v) || strings.HasPrefix(v, "/") || versionLike().MatchString(v) || dottedName().MatchString(v) {
		return false
	}
	return !identifierLike(v) && !camelWords(v)
}

// findColonPairs finds user:password without a host on s[start:end] (a
// line that speaks of credentials): "login as admin:Tr0ub4dor9", "basic
// auth ci:c1-Pa55word". The user is a word of letters, digits, _ and -
// after a blank, a quote or a bracket, and no label (role:, user:, https:);
// the password runs to a blank, a quote or closing punctuation, holds no
// '@', '/' or ':' (userinfo, paths, times and URLs are not this), and is
// strong: six characters or more of three character classes.
func findColonPairs(s string, start, end int, add func(int, int, string)) {
	for i := start; i < end; i++ {
		if s[i] != ':' {
			continue
		}
		u := i
		for u > start && (isWordChar(s[u-1]) || s[u-1] == '-') {
			u--
		}
		if u == i || i-u > 64 || !isASCIILetter(rune(s[u])) || u > start && !isBlankOrOpen(s[u-1]) || pairLabels[strings.ToLower(s[u:i])] ||
			u > 0 && strings.HasPrefix(s[u-1:], redactedPrefix) {
			continue
		}
		v := i + 1
		e := v
		for e < end && strings.IndexByte(" \t\r\"'`,;)]}", s[e]) < 0 {
			e++
		}
		val := strings.TrimRight(s[v:e], ".")
		if strings.ContainsAny(val, "@/:") || strings.HasPrefix(val, redactedPrefix) || dottedName().MatchString(val) {
			continue
		}
		if strongPassword(val) {
			add(v, v+len(val), "prose_password")
		}
	}
}

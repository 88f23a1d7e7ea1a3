package text

import (
	"math"
	"regexp"
	"strings"
)

// Secret redaction. Text from agents (hook writes, transcripts, summaries)
// and text going back to agents (hook injects) pass through Redact, so a
// key pasted into a prompt never becomes a memory and is never replayed.
// Each removed secret is replaced by [REDACTED:KIND] and counted.

type redactRule struct {
	kind string
	re   *regexp.Regexp
	// group, when > 0, is the submatch replaced; the rest of the match is
	// kept (the "Bearer " word, the user name of a URL).
	group int
}

var redactRules = []redactRule{
	{kind: "private_key", re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
	{kind: "url_password", re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s/:@]+:([^\s/@]+)@`), group: 1},
	{kind: "anthropic_key", re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{kind: "openai_key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
	{kind: "github_token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{kind: "aws_access_key", re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{kind: "slack_token", re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{kind: "google_api_key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{kind: "inline_secret", re: regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)["']?[ \t]*[=:][ \t]*["']?([^\s"',;]{4,})`), group: 1},
	{kind: "bearer_token", re: regexp.MustCompile(`(?i)\b(?:bearer\s+|authorization:\s*(?:basic|token)\s+)([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
}

// envLine is NAME=value or NAME: value at the start of a line, optionally
// after "export"; the value is redacted when the name looks secret.
var envLine = regexp.MustCompile(`(?m)^([ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:][ \t]*)(\S[^\r\n]*)`)

var secretNameParts = map[string]bool{
	"KEY": true, "APIKEY": true, "SECRET": true, "TOKEN": true, "PASSWORD": true, "PASSWD": true,
	"PWD": true, "PASS": true, "CREDENTIAL": true, "CREDENTIALS": true, "AUTH": true, "PRIVATE": true,
	"DSN": true, "COOKIE": true, "SESSION": true, "SIGNATURE": true,
}

func secretName(name string) bool {
	parts := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '.' || r == '-' })
	for _, p := range parts {
		if secretNameParts[p] {
			return true
		}
	}
	return false
}

// highEntropy finds long token-like strings; candidates are kept only when
// they mix letter cases and digits and their Shannon entropy is high, which
// spares words, paths, hex hashes and UUIDs.
var highEntropy = regexp.MustCompile(`[A-Za-z0-9+/_=-]{32,}`)

func looksRandom(s string) bool {
	var lower, upper, digit bool
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	if !lower || !upper || !digit || strings.Contains(s, "REDACTED") {
		return false
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h >= 4.2
}

const redactedPrefix = "[REDACTED:"

func redactedMark(kind string) string { return redactedPrefix + kind + "]" }

// Redact replaces secrets in s and returns the result and how many it
// replaced.
func Redact(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	n := 0
	for _, rule := range redactRules {
		if rule.group == 0 {
			s = rule.re.ReplaceAllStringFunc(s, func(string) string { n++; return redactedMark(rule.kind) })
			continue
		}
		s = replaceGroup(s, rule.re, rule.group, func(string) string { n++; return redactedMark(rule.kind) })
	}
	s = replaceGroup(s, envLine, 3, nil, func(m []string) (string, bool) {
		if !secretName(m[2]) {
			return "", false
		}
		v := strings.TrimSpace(m[3])
		if strings.HasPrefix(strings.Trim(v, `"'`), redactedPrefix) || v == `""` || v == "''" {
			return "", false
		}
		n++
		return redactedMark("env_secret"), true
	})
	s = highEntropy.ReplaceAllStringFunc(s, func(tok string) string {
		if !looksRandom(tok) {
			return tok
		}
		n++
		return redactedMark("high_entropy")
	})
	return s, n
}

// replaceGroup replaces submatch group of every match of re in s. fn maps
// the group's text; alternatively check sees all submatches and decides.
func replaceGroup(s string, re *regexp.Regexp, group int, fn func(string) string, check ...func([]string) (string, bool)) string {
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range idx {
		gs, ge := m[2*group], m[2*group+1]
		if gs < 0 {
			continue
		}
		var repl string
		if len(check) > 0 {
			subs := make([]string, len(m)/2)
			for i := range subs {
				if m[2*i] >= 0 {
					subs[i] = s[m[2*i]:m[2*i+1]]
				}
			}
			r, ok := check[0](subs)
			if !ok {
				continue
			}
			repl = r
		} else {
			if strings.HasPrefix(s[gs:ge], redactedPrefix) {
				continue
			}
			repl = fn(s[gs:ge])
		}
		b.WriteString(s[last:gs])
		b.WriteString(repl)
		last = ge
	}
	b.WriteString(s[last:])
	return b.String()
}

package text

import (
	"strings"
)

// Prefixes is what a remember's leading markers asked for.
type Prefixes struct {
	Body   string   // content with the markers removed
	Pinned bool     // "critical:" was present
	Tags   []string // from "[a,b]:", lower-cased, in order, without duplicates
}

// ParsePrefixes reads the markers at the start of a remember
// (docs/design/memory.md, "Prefixes"): "critical:" (case-insensitive) pins
// the memory with importance 1.0, and "[tag1,tag2]:" sets tags. They
// combine, critical first: "critical: [project,auth]: never expose tokens".
func ParsePrefixes(content string) Prefixes {
	var p Prefixes
	s := strings.TrimLeftFunc(content, IsSpace)
	if len(s) >= len("critical:") && strings.EqualFold(s[:len("critical:")], "critical:") {
		p.Pinned = true
		s = strings.TrimLeftFunc(s[len("critical:"):], IsSpace)
	}
	if strings.HasPrefix(s, "[") {
		if end := strings.Index(s, "]:"); end > 1 {
			inner := s[1:end]
			if !strings.ContainsAny(inner, "[]\n") {
				p.Tags = SplitTags(strings.ToLower(inner))
				s = strings.TrimLeftFunc(s[end+2:], IsSpace)
			}
		}
	}
	p.Body = s
	return p
}

// SplitTags splits a comma-separated tag list, trimming each tag and
// dropping empty ones and repeats.
func SplitTags(s string) []string {
	return CleanTags(strings.Split(s, ","))
}

// CleanTags trims tags, collapses inner whitespace and drops empty ones and
// case-insensitive repeats, keeping the first spelling.
func CleanTags(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range in {
		t = CollapseSpace(t)
		k := strings.ToLower(t)
		if t == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	return out
}

// typeRules is the ordered substring table of type inference
// (docs/design/memory.md, "Type inference"): the first rule with a
// matching substring decides.
var typeRules = []struct {
	typ  string
	subs []string
}{
	{"preference", []string{"prefer", "likes", "want"}},
	{"decision", []string{"decided", "agreed", "will use"}},
	{"learning", []string{"learned", "discovered", "til "}},
	{"issue", []string{"bug", "issue", "broken"}},
	{"rule", []string{"never", "always", "must"}},
}

// InferType classifies content by the first matching substring rule, or
// "fact" when none matches. An explicit type always wins over this.
func InferType(content string) string {
	lower := strings.ToLower(content)
	for _, r := range typeRules {
		for _, sub := range r.subs {
			if strings.Contains(lower, sub) {
				return r.typ
			}
		}
	}
	return "fact"
}

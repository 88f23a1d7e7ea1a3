package core

import (
	"slices"
	"strings"
)

// KnownTypes are the memory types a person picks from (the TUI form and
// the CLI's --type): the pipeline's fact types (extract.FactTypes) and
// the ones remember infers from a text. Agents writing through the API
// may still use their own; a person's typo should not make a new type.
var KnownTypes = []string{"fact", "preference", "decision", "procedural", "semantic", "rule", "learning", "issue", "episodic"}

// Types is the set a person picks from: KnownTypes and the configured
// extra ones (memory.extra_types), each once.
func Types(extra []string) []string {
	out := slices.Clone(KnownTypes)
	for _, t := range extra {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// CheckType refuses a type not in known (nil: KnownTypes), naming field
// and the nearest known type when the given one looks like a typo of it.
// An empty type is fine (it is inferred).
func CheckType(field, t string, known []string) error {
	if known == nil {
		known = KnownTypes
	}
	t = strings.TrimSpace(t)
	if t == "" || slices.Contains(known, t) {
		return nil
	}
	if near := nearestType(t, known); near != "" {
		return Invalid(field, "unknown type %q: did you mean %q? (known: %s)", t, near, strings.Join(known, ", "))
	}
	return Invalid(field, "unknown type %q (known: %s; memory.extra_types adds more)", t, strings.Join(known, ", "))
}

// nearestType is the known type within two edits of t (or that t starts
// with, or that starts with t), or "".
func nearestType(t string, known []string) string {
	lt := strings.ToLower(t)
	best, bestD := "", 3
	for _, k := range known {
		if lt == k || (len(lt) >= 3 && (strings.HasPrefix(k, lt) || strings.HasPrefix(lt, k))) {
			return k
		}
		if d := editDistance(lt, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

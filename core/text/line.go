package text

import "strings"

// Truncate returns the first n runes of s (all of s when it is shorter;
// "" when n ≤ 0).
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// OneLine joins the words of s with single spaces: one line, without
// leading or trailing space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

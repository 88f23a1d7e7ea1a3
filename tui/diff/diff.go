// Package diff computes a line diff of two texts with a longest common
// subsequence, for showing what an edit changed.
package diff

import "strings"

// Op says what happened to a line.
type Op int

// Line operations.
const (
	Same Op = iota
	Removed
	Added
)

// Line is one line of a diff.
type Line struct {
	Op   Op
	Text string
}

// MaxCells bounds the LCS table (rows × columns). Beyond it the diff
// degrades to "all old lines removed, all new lines added", which is still
// correct, rather than allocating without limit on huge memories.
const MaxCells = 4_000_000

// Lines diffs old against new line by line.
func Lines(old, new string) []Line {
	a, b := split(old), split(new)
	// Trim the common prefix and suffix: edits are usually local, and this
	// keeps the table small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []Line
	for _, l := range a[:pre] {
		out = append(out, Line{Same, l})
	}
	out = append(out, lcs(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, Line{Same, l})
	}
	return out
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func lcs(a, b []string) []Line {
	n, m := len(a), len(b)
	var out []Line
	if n*m > MaxCells {
		for _, l := range a {
			out = append(out, Line{Removed, l})
		}
		for _, l := range b {
			out = append(out, Line{Added, l})
		}
		return out
	}
	// t[i][j] is the LCS length of a[i:] and b[j:].
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, Line{Same, a[i]})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, Line{Removed, a[i]})
			i++
		default:
			out = append(out, Line{Added, b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Line{Removed, a[i]})
	}
	for ; j < m; j++ {
		out = append(out, Line{Added, b[j]})
	}
	return out
}

package text

import (
	"strings"
	"unicode/utf8"
)

// ChunkDocument cuts text into windows of at most size characters (code
// points), each starting overlap characters before the previous one ended.
// A window ends, when it can, at a paragraph or sentence end, else at a
// space, found in its last fifth; otherwise it is cut at size. Text no
// longer than size is one chunk.
func ChunkDocument(body string, size, overlap int) []string {
	if size < 1 {
		size = 1
	}
	overlap = max(min(overlap, size-1), 0)
	if strings.TrimFunc(body, IsSpace) == "" {
		return nil
	}
	if utf8.RuneCountInString(body) <= size {
		return []string{body}
	}
	r := []rune(body)
	var out []string
	start := 0
	for start < len(r) {
		end := start + size
		if end >= len(r) {
			out = append(out, string(r[start:]))
			break
		}
		lo := max(start+overlap+1, end-size/5)
		cut := -1
		space := -1
		for j := end - 1; j >= lo; j-- {
			c := r[j]
			if c == '\n' || ((c == '.' || c == '!' || c == '?') && IsSpace(r[j+1])) {
				cut = j + 1
				break
			}
			if space < 0 && IsSpace(c) {
				space = j + 1
			}
		}
		if cut < 0 {
			cut = space
		}
		if cut < 0 {
			cut = end
		}
		out = append(out, string(r[start:cut]))
		start = cut - overlap
	}
	return out
}

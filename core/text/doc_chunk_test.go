package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkDocument(t *testing.T) {
	if got := ChunkDocument("  \n ", 10, 2); got != nil {
		t.Fatalf("blank: %q", got)
	}
	if got := ChunkDocument("short", 10, 2); len(got) != 1 || got[0] != "short" {
		t.Fatalf("short: %q", got)
	}
	// Rune-safe: multi-byte characters are never split.
	text := strings.Repeat("日本語のテキスト", 100)
	chunks := ChunkDocument(text, 50, 10)
	for i, c := range chunks {
		if !utf8.ValidString(c) || utf8.RuneCountInString(c) > 50 {
			t.Fatalf("chunk %d: %d runes, valid %v", i, utf8.RuneCountInString(c), utf8.ValidString(c))
		}
		if i > 0 {
			prev := []rune(chunks[i-1])
			if !strings.HasPrefix(c, string(prev[len(prev)-10:])) {
				t.Fatalf("chunk %d does not overlap chunk %d by 10 runes", i, i-1)
			}
		}
	}
	// The chunks cover the text: dropping each overlap rebuilds it.
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 {
			c = string([]rune(c)[10:])
		}
		b.WriteString(c)
	}
	if b.String() != text {
		t.Fatal("chunks minus overlaps do not rebuild the text")
	}
	// A cut prefers a sentence end near the window's end.
	s := strings.Repeat("word ", 30) + "End here. " + strings.Repeat("more ", 30)
	first := ChunkDocument(s, 170, 20)[0]
	if !strings.HasSuffix(first, "End here.") {
		t.Fatalf("first chunk does not end at the sentence: %q", first)
	}
	// Overlap at or above size is clamped so the cut always advances.
	if got := ChunkDocument(strings.Repeat("x", 100), 10, 50); len(got) != 91 {
		t.Fatalf("clamped overlap: %d chunks", len(got))
	}
}

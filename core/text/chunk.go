package text

import (
	"strings"
	"unicode/utf8"
)

// ChunkContent splits long content into chunks of about target characters,
// as Signet's remember guardrail does: split after sentence-ending
// punctuation (. ! ?) followed by whitespace, pack whole sentences greedily
// while the chunk stays within target, and hard-split any sentence longer
// than twice the target at word boundaries where possible.
func ChunkContent(content string, target int) []string {
	if target < 1 {
		target = 1
	}
	var chunks []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if s := CollapseSpace(cur.String()); s != "" {
			chunks = append(chunks, s)
		}
		cur.Reset()
		curLen = 0
	}
	for _, sentence := range splitSentences(content) {
		n := utf8.RuneCountInString(sentence)
		if n > 2*target {
			flush()
			chunks = append(chunks, hardSplit(sentence, target)...)
			continue
		}
		if curLen > 0 && curLen+1+n > target {
			flush()
		}
		if curLen > 0 {
			cur.WriteByte(' ')
			curLen++
		}
		cur.WriteString(sentence)
		curLen += n
	}
	flush()
	return chunks
}

// splitSentences splits s after '.', '!' or '?' when whitespace follows,
// returning trimmed, non-empty sentences.
func splitSentences(s string) []string {
	var out []string
	start := 0
	prevEnd := false
	for i, r := range s {
		if IsSpace(r) && prevEnd {
			if part := CollapseSpace(s[start:i]); part != "" {
				out = append(out, part)
			}
			start = i
		}
		prevEnd = r == '.' || r == '!' || r == '?'
	}
	if part := CollapseSpace(s[start:]); part != "" {
		out = append(out, part)
	}
	return out
}

// hardSplit cuts s into pieces of at most target characters, breaking at the
// last space inside the window when there is one.
func hardSplit(s string, target int) []string {
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		if len(runes) <= target {
			out = append(out, strings.TrimSpace(string(runes)))
			break
		}
		cut := target
		for i := target; i > target/2; i-- {
			if runes[i] == ' ' {
				cut = i
				break
			}
		}
		if piece := strings.TrimSpace(string(runes[:cut])); piece != "" {
			out = append(out, piece)
		}
		runes = runes[cut:]
		for len(runes) > 0 && runes[0] == ' ' {
			runes = runes[1:]
		}
	}
	return out
}

// ChunkLines splits long text into chunks of about target characters at
// line breaks, keeping each line whole and the line breaks inside a chunk
// (a transcript's messages stay apart); a line longer than target is cut
// with ChunkContent. Blank lines are dropped.
func ChunkLines(content string, target int) []string {
	if target < 1 {
		target = 1
	}
	var chunks []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if cur.Len() > 0 {
			chunks = append(chunks, cur.String())
		}
		cur.Reset()
		curLen = 0
	}
	for _, line := range strings.Split(CollapseSpaceLines(content), "\n") {
		n := utf8.RuneCountInString(line)
		if n == 0 {
			continue
		}
		if n > target {
			flush()
			chunks = append(chunks, ChunkContent(line, target)...)
			continue
		}
		if curLen > 0 && curLen+1+n > target {
			flush()
		}
		if curLen > 0 {
			cur.WriteByte('\n')
			curLen++
		}
		cur.WriteString(line)
		curLen += n
	}
	flush()
	return chunks
}

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
	p := packer{target: max(target, 1), sep: ' ', clean: CollapseSpace}
	for _, sentence := range splitSentences(content) {
		if n := utf8.RuneCountInString(sentence); n > 2*p.target {
			p.cut(hardSplit(sentence, p.target))
		} else {
			p.add(sentence, n)
		}
	}
	return p.done()
}

// packer gathers pieces greedily into chunks of about target characters,
// joined by sep, as ChunkContent and ChunkLines pack.
type packer struct {
	target int
	sep    byte
	clean  func(string) string // applied to each chunk; nil keeps it as it is
	chunks []string
	cur    strings.Builder
	n      int // characters in cur
}

// flush ends the current chunk (an empty one is dropped).
func (p *packer) flush() {
	c := p.cur.String()
	if p.clean != nil {
		c = p.clean(c)
	}
	if c != "" {
		p.chunks = append(p.chunks, c)
	}
	p.cur.Reset()
	p.n = 0
}

// add appends a piece of n characters, starting a new chunk when it would
// not fit in the current one.
func (p *packer) add(piece string, n int) {
	if p.n > 0 && p.n+1+n > p.target {
		p.flush()
	}
	if p.n > 0 {
		p.cur.WriteByte(p.sep)
		p.n++
	}
	p.cur.WriteString(piece)
	p.n += n
}

// cut ends the current chunk and adds chunks made elsewhere (a piece too
// long to pack).
func (p *packer) cut(chunks []string) {
	p.flush()
	p.chunks = append(p.chunks, chunks...)
}

// done ends the last chunk and returns them all.
func (p *packer) done() []string {
	p.flush()
	return p.chunks
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
	p := packer{target: max(target, 1), sep: '\n'}
	for _, line := range strings.Split(CollapseSpaceLines(content), "\n") {
		switch n := utf8.RuneCountInString(line); {
		case n == 0:
		case n > p.target:
			p.cut(ChunkContent(line, p.target))
		default:
			p.add(line, n)
		}
	}
	return p.done()
}

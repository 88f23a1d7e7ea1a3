package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal and agent safety. Everything cairn stores came from somewhere
// else (an agent, an import, a connector's file, a fetched web page), and
// everything it shows goes to a terminal or back to an agent. A terminal
// obeys control characters and escape sequences in what it prints: OSC 52
// writes the clipboard, OSC 0 the window title, OSC 8 plants a link whose
// text lies about its target, CSI 2J clears the screen, DCS talks to the
// terminal itself. An agent reads ESC, BEL and NUL as text it may act on.
//
// One sanitizer removes them, with three entry points:
//
//   - Display: multi-line text (content, history reasons, diffs, hook and
//     MCP text, and documents and connector files at ingest).
//   - DisplayLine: a one-line field shown to a person (tags, type, who,
//     source and session ids, project names, titles): as Display, line
//     breaks and tabs become spaces, and invisible formatting characters
//     (zero-width, bidi controls) are shown as <U+200B>, so two look-alike
//     identifiers never look the same.
//   - CleanLine: a one-line field cairn derives and stores from outside text
//     (a fetched page's <title>, a file name in a tag): as DisplayLine, but
//     invisible characters are dropped and whitespace runs collapse. Its
//     result passes CheckIdentifier.
//
// What is removed, in every mode:
//
//   - C0 controls (U+0000–U+001F) except line feed and tab (so a carriage
//     return, a backspace or a form feed can never overprint a line), DEL
//     (U+007F) and C1 controls (U+0080–U+009F), as characters and as raw
//     8-bit bytes;
//   - every escape sequence whole, not just its ESC: CSI (ESC [ or C1 CSI,
//     SGR colours included) to its final byte; OSC, DCS, SOS, PM and APC
//     (ESC ] P X ^ _ or their C1 forms) to their terminator (BEL, ST as
//     ESC \ or C1 ST, CAN or SUB, or the next ESC or C1 introducer); other
//     escape sequences (ESC, intermediates, a final byte); a lone ESC. A
//     string sequence that is never terminated ends at the end of its
//     line, so a stray ESC ] cannot hide the rest of a memory;
//   - invalid UTF-8, which becomes U+FFFD (the output is always valid).
//
// Display also drops the explicit bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069: "Trojan Source" reordering), the
// Unicode tag characters (U+E0000–U+E007F, invisible text used to smuggle
// instructions to a model) and all but the first of a run of variation
// selectors (the same trick). It keeps the bidi marks (LRM, RLM, ALM) and
// the zero-width joiners that real text needs.
//
// The output of each entry point never holds what it removes, and each is
// idempotent: Display(Display(s)) == Display(s).

// Display returns s safe to print to a terminal or hand to an agent as
// multi-line text: see the comment above for what is removed.
func Display(s string) string { return sanitize(s, modeText) }

// DisplayLine returns s safe to show as one line: Display's removals, line
// breaks and tabs as spaces, and invisible formatting characters made
// visible as <U+XXXX>. Use it for identifiers and short fields.
func DisplayLine(s string) string { return sanitize(s, modeLine) }

// CleanLine returns s as a clean one-line value to store: Display's
// removals, invisible formatting characters dropped, whitespace runs
// collapsed to one space, and no space at either end.
func CleanLine(s string) string { return sanitize(s, modeClean) }

type sanitizeMode int

const (
	modeText  sanitizeMode = iota // Display
	modeLine                      // DisplayLine
	modeClean                     // CleanLine
)

// sanitize is the one scanner behind the three entry points.
func sanitize(s string, mode sanitizeMode) string {
	i := firstUnsafe(s, mode)
	if i == len(s) {
		return s
	}
	if mode == modeClean && i > 0 && s[i-1] == ' ' {
		i-- // the writer decides on a space before what changes
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	var prev rune // the last rune written (for the emoji joiner)
	if i > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	space := false // modeClean: a space is pending
	write := func(str string, r rune) {
		if mode == modeClean {
			if isCleanSpace(r) {
				space = b.Len() > 0
				prev = ' '
				return
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
		}
		b.WriteString(str)
		prev = r
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case c >= 0x80 && c <= 0x9f: // a raw 8-bit C1 control
			i = skipC1(s, c, i+1)
			continue
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // U+0080–U+009F
			i = skipC1(s, s[i+1], i+2)
			continue
		case c < 0x20 || c == 0x7f:
			if c == '\n' || c == '\t' {
				if mode == modeText {
					write(s[i:i+1], rune(c))
				} else {
					write(" ", ' ')
				}
			}
			i++
			continue
		case c < 0x80:
			write(s[i:i+1], rune(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			write("\uFFFD", utf8.RuneError)
			i++
			continue
		}
		if variationSelector(r) && variationSelector(prev) {
			i += n // a run of them carries hidden data, not a glyph's variant
			continue
		}
		switch mode {
		case modeText:
			if !textDropped(r) {
				write(s[i:i+n], r)
			}
		case modeLine:
			switch {
			case r == '\u2028' || r == '\u2029':
				write(" ", ' ')
			case invisible(r) && !emojiJoiner(prev, s[i+n:], r):
				write(fmt.Sprintf("<U+%04X>", r), '>')
			default:
				write(s[i:i+n], r)
			}
		case modeClean:
			if !invisible(r) || emojiJoiner(prev, s[i+n:], r) {
				write(s[i:i+n], r)
			}
		}
		i += n
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte sanitize would change,
// or len(s): most text is returned as it is, without a copy.
func firstUnsafe(s string, mode sanitizeMode) int {
	if mode == modeClean && s != "" {
		if r, _ := utf8.DecodeRuneInString(s); isCleanSpace(r) {
			return 0
		}
	}
	var prev rune
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case c == '\n' || c == '\t':
				if mode != modeText {
					return i
				}
			case c < 0x20 || c == 0x7f:
				return i
			case c == ' ' && mode == modeClean && prev == ' ':
				return i
			}
			prev = rune(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r >= 0x80 && r <= 0x9f, variationSelector(r) && variationSelector(prev):
			return i
		case mode == modeText && textDropped(r):
			return i
		case mode != modeText && (invisible(r) && !emojiJoiner(prev, s[i+n:], r) || r == '\u2028' || r == '\u2029'):
			return i
		case mode == modeClean && isCleanSpace(r):
			return i
		}
		prev = r
		i += n
	}
	if mode == modeClean && s != "" {
		if r, n := utf8.DecodeLastRuneInString(s); isCleanSpace(r) {
			return len(s) - n
		}
	}
	return len(s)
}

// skipEscape returns the index just past the escape sequence whose ESC is
// at j-1.
func skipEscape(s string, j int) int {
	if j >= len(s) {
		return j
	}
	switch s[j] {
	case '[':
		return skipCSI(s, j+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC
		return skipString(s, j+1)
	}
	// nF and Fp/Fe/Fs: intermediates 0x20–0x2F, then a final 0x30–0x7E.
	k := j
	for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
		k++
	}
	if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
		return k + 1
	}
	return k // a lone ESC: what follows is text again
}

// skipC1 returns the index past the C1 control c (ending at j) and the
// sequence it introduces.
func skipC1(s string, c byte, j int) int {
	switch c {
	case 0x9b: // CSI
		return skipCSI(s, j)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(s, j)
	}
	return j
}

// skipCSI returns the index past a control sequence whose introducer ends
// at j: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final
// byte 0x40–0x7E. A malformed sequence ends before the byte that breaks
// it (that byte is then judged on its own).
func skipCSI(s string, j int) int {
	k := j
	for k < len(s) && s[k] >= 0x30 && s[k] <= 0x3f {
		k++
	}
	for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
		k++
	}
	if k < len(s) && s[k] >= 0x40 && s[k] <= 0x7e {
		return k + 1
	}
	return k
}

// skipString returns the index past a control string (OSC, DCS, SOS, PM,
// APC) whose introducer ends at j. It ends at BEL, CAN, SUB or ST (ESC \
// or C1 ST, all consumed), or before any other ESC or C1 introducer
// (which starts a sequence of its own, as in a terminal). Never
// terminated, it ends at the end of its line (the line feed is kept).
//
// Every byte that can start a sequence also ends a string, so a string
// scanned to the end without a terminator holds no other sequence: the
// scan is linear overall.
func skipString(s string, j int) int {
	nl := -1
	for k := j; k < len(s); {
		c := s[k]
		if c < 0x80 {
			switch {
			case c == 0x07 || c == 0x18 || c == 0x1a: // BEL, CAN, SUB
				return k + 1
			case c == 0x1b:
				if k+1 < len(s) && s[k+1] == '\\' {
					return k + 2
				}
				return k
			case c == '\n' && nl < 0:
				nl = k
			}
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[k:])
		if r == utf8.RuneError && n == 1 && c <= 0x9f {
			r = rune(c) // a raw 8-bit C1 control
		}
		if r >= 0x80 && r <= 0x9f {
			if r == 0x9c { // ST
				return k + n
			}
			return k
		}
		k += n
	}
	if nl >= 0 {
		return nl
	}
	return len(s)
}

// textDropped are the characters Display removes beyond controls: explicit
// bidi embeddings, overrides and isolates, and Unicode tag characters.
func textDropped(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r >= 0xe0000 && r <= 0xe007f
}

// invisible are the characters a one-line field may not hold unseen:
// format characters (Cf: zero-width space and joiners, bidi marks,
// embeddings, overrides and isolates, soft hyphen, word joiner, BOM, tag
// characters, ...) and the variation selectors' invisible cousins that
// render as nothing (U+115F, U+1160, U+3164, U+FFA0 Hangul fillers,
// U+034F combining grapheme joiner).
func invisible(r rune) bool {
	if r < 0xad {
		return false
	}
	switch r {
	case 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// variationSelector is U+FE00–U+FE0F or U+E0100–U+E01EF. One after a
// character picks its glyph (❤️); a run of them renders as nothing and can
// carry bytes unseen ("variation selector smuggling"), so every mode keeps
// only the first of a run.
func variationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// emojiJoiner reports whether r is a zero-width joiner inside an emoji
// sequence (👩‍💻): after an emoji or its modifier, before an emoji. Such a
// joiner is part of what the reader sees.
func emojiJoiner(prev rune, rest string, r rune) bool {
	if r != 0x200d || !emojiPart(prev) {
		return false
	}
	next, n := utf8.DecodeRuneInString(rest)
	return n > 0 && unicode.Is(unicode.So, next)
}

func emojiPart(r rune) bool {
	return unicode.Is(unicode.So, r) || r >= 0x1f3fb && r <= 0x1f3ff || r == 0xfe0f
}

// isCleanSpace is whitespace CleanLine collapses: what IsSpace covers,
// and line and paragraph separators.
func isCleanSpace(r rune) bool { return IsSpace(r) || r == '\u2028' || r == '\u2029' }

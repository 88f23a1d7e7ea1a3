package fetch

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// StripHTML reduces an HTML page to its text and returns the text of its
// first <title>. It is a small tolerant scanner, not a full HTML parser:
// script, style, noscript and template contents are dropped, comments and
// declarations are skipped, tags are removed, block elements become line
// breaks (a blank line around paragraphs, headings, lists and tables),
// entities are decoded (in text only, so an escaped "&lt;b&gt;" stays
// text) and whitespace runs collapse to one space. Malformed markup never
// panics: an unterminated tag or comment ends the text.
//
// Decoded text goes through text.Display and the title through
// text.CleanLine: "&#x1b;]52;c;…&#x7;" is harmless in a browser but real
// ESC and BEL bytes once decoded, and neither the body nor the title (which
// becomes a tag) may carry a control character or an escape sequence.
func StripHTML(s string) (body, title string) {
	var w htmlTextWriter
	w.out.Grow(len(s) / 2)
	titleSeen := false
	i := 0
	textStart := 0
	flushText := func(end int) {
		if end > textStart {
			w.text(text.Display(html.UnescapeString(s[textStart:end])))
		}
	}
	for i < len(s) {
		if s[i] != '<' {
			i++
			continue
		}
		// Comments, declarations and processing instructions.
		if strings.HasPrefix(s[i:], "<!--") {
			flushText(i)
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				i = len(s)
			} else {
				i += 4 + end + 3
			}
			textStart = i
			continue
		}
		if i+1 < len(s) && (s[i+1] == '!' || s[i+1] == '?') {
			flushText(i)
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				i = len(s)
			} else {
				i += end + 1
			}
			textStart = i
			continue
		}
		closing := i+1 < len(s) && s[i+1] == '/'
		nameStart := i + 1
		if closing {
			nameStart++
		}
		nameEnd := nameStart
		for nameEnd < len(s) && isTagNameByte(s[nameEnd], nameEnd == nameStart) {
			nameEnd++
		}
		if nameEnd == nameStart {
			i++ // a lone '<' is body
			continue
		}
		flushText(i)
		name := strings.ToLower(s[nameStart:nameEnd])
		end := tagEnd(s, nameEnd)
		selfClosing := end > 1 && s[end-2] == '/'
		i = end
		textStart = i
		if !closing {
			switch {
			case rawTextElements[name] && !selfClosing:
				// Skip to the matching end tag (raw text: no markup inside).
				i = skipRawText(s, i, name)
				textStart = i
				continue
			case name == "title" && !selfClosing:
				stop := findEndTag(s, i, "title")
				if !titleSeen {
					title = text.CleanLine(html.UnescapeString(s[i:stop]))
					titleSeen = true
				}
				i = skipRawText(s, i, "title")
				textStart = i
				continue
			}
		}
		switch {
		case blockElements[name] > 0:
			w.brk(blockElements[name])
		case name == "td" || name == "th":
			w.space = true
		}
	}
	flushText(len(s))
	return w.out.String(), title
}

// htmlTextWriter collects text with collapsed whitespace and the line
// breaks block elements ask for.
type htmlTextWriter struct {
	out   strings.Builder
	brks  int  // pending line breaks (1 or 2) before the next text
	space bool // a space is pending before the next text
}

func (w *htmlTextWriter) brk(n int) { w.brks = max(w.brks, n); w.space = false }

func (w *htmlTextWriter) text(t string) {
	body := text.CollapseSpace(t)
	if body == "" {
		if t != "" && w.brks == 0 {
			w.space = true
		}
		return
	}
	if w.out.Len() > 0 {
		switch {
		case w.brks > 0:
			w.out.WriteString("\n\n"[:w.brks])
		case w.space || startsWithSpace(t):
			w.out.WriteByte(' ')
		}
	}
	w.out.WriteString(body)
	w.brks = 0
	w.space = endsWithSpace(t)
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return text.IsSpace(r)
}

func endsWithSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return text.IsSpace(r)
}

// rawTextElements hold text that is not part of the page's text.
var rawTextElements = map[string]bool{"script": true, "style": true, "noscript": true, "template": true}

// blockElements break the line: 2 leaves a blank line (paragraphs,
// headings, lists, tables), 1 starts a new line.
var blockElements = map[string]int{
	"address": 2, "article": 2, "aside": 2, "blockquote": 2, "body": 2, "caption": 2, "details": 2,
	"dialog": 2, "dl": 2, "fieldset": 2, "figure": 2, "footer": 2, "form": 2, "h1": 2, "h2": 2,
	"h3": 2, "h4": 2, "h5": 2, "h6": 2, "head": 2, "header": 2, "hr": 2, "html": 2, "main": 2,
	"nav": 2, "ol": 2, "p": 2, "pre": 2, "section": 2, "table": 2, "ul": 2,
	"br": 1, "dd": 1, "div": 1, "dt": 1, "figcaption": 1, "li": 1, "option": 1, "summary": 1, "tr": 1,
}

func isTagNameByte(c byte, first bool) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return true
	}
	return !first && (c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_' || c == '.')
}

// tagEnd returns the index just past the '>' closing the tag whose name
// ends at i, skipping quoted attribute values; len(s) when unterminated.
func tagEnd(s string, i int) int {
	var quote byte
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return len(s)
}

// findEndTag returns the index of "</name" (any case) at or after i, or
// len(s).
func findEndTag(s string, i int, name string) int {
	for i < len(s) {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return len(s)
		}
		k := i + j + 2
		if k+len(name) <= len(s) && strings.EqualFold(s[k:k+len(name)], name) {
			after := k + len(name)
			if after == len(s) || !isTagNameByte(s[after], false) {
				return i + j
			}
		}
		i = k
	}
	return len(s)
}

// skipRawText returns the index just past the end tag of name.
func skipRawText(s string, i int, name string) int {
	stop := findEndTag(s, i, name)
	if stop >= len(s) {
		return len(s)
	}
	return tagEnd(s, stop+2+len(name))
}

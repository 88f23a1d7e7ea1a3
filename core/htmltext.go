package core

import (
	"html"
	"strings"
)

// StripHTML reduces an HTML page to its text and returns the text of its
// first <title>. It is a small tolerant scanner, not a full HTML parser:
// script, style, noscript and template contents are dropped, comments and
// declarations are skipped, tags are removed, block elements become line
// breaks, entities are decoded (in text only, so an escaped "&lt;b&gt;"
// stays text), spaces within a line collapse and blank lines collapse to
// one. Malformed markup never panics: an unterminated tag or comment ends
// the text.
func StripHTML(s string) (text, title string) {
	var out strings.Builder
	out.Grow(len(s) / 2)
	titleSeen := false
	i := 0
	textStart := 0
	flushText := func(end int) {
		if end > textStart {
			out.WriteString(html.UnescapeString(s[textStart:end]))
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
			i++ // a lone '<' is text
			continue
		}
		flushText(i)
		name := strings.ToLower(s[nameStart:nameEnd])
		end := tagEnd(s, nameEnd)
		selfClosing := end > 1 && s[end-2] == '/'
		i = end
		textStart = i
		if closing {
			if blockElements[name] {
				out.WriteByte('\n')
			}
			continue
		}
		switch {
		case rawTextElements[name] && !selfClosing:
			// Skip to the matching end tag (raw text: no markup inside).
			i = skipRawText(s, i, name)
			textStart = i
			continue
		case name == "title" && !selfClosing:
			stop := findEndTag(s, i, "title")
			if !titleSeen {
				title = CollapseSpace(html.UnescapeString(s[i:stop]))
				titleSeen = true
			}
			i = skipRawText(s, i, "title")
			textStart = i
			continue
		}
		if blockElements[name] {
			out.WriteByte('\n')
		} else if name == "td" || name == "th" {
			out.WriteByte(' ')
		}
	}
	flushText(len(s))
	return tidyText(out.String()), title
}

// rawTextElements hold text that is not part of the page's text.
var rawTextElements = map[string]bool{"script": true, "style": true, "noscript": true, "template": true}

// blockElements start and end a line.
var blockElements = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "br": true, "dd": true,
	"details": true, "dialog": true, "div": true, "dl": true, "dt": true, "fieldset": true,
	"figcaption": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true, "li": true,
	"main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true,
	"summary": true, "table": true, "tr": true, "ul": true, "body": true, "html": true, "head": true,
	"caption": true, "option": true,
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

// tidyText collapses spaces within lines, trims lines and keeps at most
// one blank line between paragraphs.
func tidyText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for _, line := range strings.Split(s, "\n") {
		line = CollapseSpace(line)
		if line == "" {
			if b.Len() > 0 {
				blank++
			}
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

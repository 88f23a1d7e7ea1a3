package text

import (
	"strings"
)

// Markers around everything cairn injects, so transcripts and prompts can
// be stripped of it before extraction (no feedback loop).
const (
	ContextOpen  = "[cairn:context"
	ContextClose = "[/cairn:context]"
	RecallOpen   = "[cairn:recall"
	RecallClose  = "[/cairn:recall]"
)

var injectedBlock = lazyRegexp(`(?s)\[cairn:(?:context|recall)\b[^\]\n]*\].*?(?:\[/cairn:(?:context|recall)\]|\z)`)

// StripInjected removes cairn's injected blocks from text.
func StripInjected(s string) string {
	if !strings.Contains(s, "[cairn:") {
		return s
	}
	return injectedBlock().ReplaceAllString(s, "")
}

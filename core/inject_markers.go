package core

import (
	"regexp"
	"strings"
)

// Markers around everything cairn injects, so transcripts and prompts can
// be stripped of it before extraction (no feedback loop).
const (
	contextOpen  = "[cairn:context"
	contextClose = "[/cairn:context]"
	recallOpen   = "[cairn:recall"
	recallClose  = "[/cairn:recall]"
)

var injectedBlock = regexp.MustCompile(`(?s)\[cairn:(?:context|recall)\b[^\]\n]*\].*?(?:\[/cairn:(?:context|recall)\]|\z)`)

// StripInjected removes cairn's injected blocks from text.
func StripInjected(s string) string {
	if !strings.Contains(s, "[cairn:") {
		return s
	}
	return injectedBlock.ReplaceAllString(s, "")
}

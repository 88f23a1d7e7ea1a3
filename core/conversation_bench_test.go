package core

import (
	"fmt"
	"strings"
	"testing"
)

// conversationCandidates are n candidates as a conversation's recall
// finds them: turns of two speakers ("Name: text"), each after the one
// before it in its session, with scores.
func conversationCandidates(n int) map[string]*candidate {
	words := strings.Fields("pottery class charity race support group camping kids painting adoption school music " +
		"guitar violin festival beach hiking dog cat garden book poem parade friends family weekend summer")
	cands := make(map[string]*candidate, n)
	for i := range n {
		speaker := []string{"Melanie", "Caroline"}[i%2]
		var b strings.Builder
		fmt.Fprintf(&b, "%s:", speaker)
		for j := range 12 {
			b.WriteString(" " + words[(i*7+j*5)%len(words)])
		}
		id := fmt.Sprintf("m%03d", i)
		c := &candidate{id: id, mem: &Memory{ID: id, Content: b.String()}, rel: float64(n-i) / float64(n)}
		if i > 0 {
			c.prevID = fmt.Sprintf("m%03d", i-1)
		}
		cands[id] = c
	}
	return cands
}

// BenchmarkConversationScoring measures what the speaker factor (with
// and without the margin) and the session neighbour lift add to one
// recall's scoring of 100 conversation turns (search.top_k 50 from each
// leg), side by side.
func BenchmarkConversationScoring(b *testing.B) {
	cands := conversationCandidates(100)
	q := []string{"caroline", "charity", "race", "realize"}
	for _, bc := range []struct {
		name string
		run  func()
	}{
		{"speaker/margin=1", func() { speakerFactors(q, cands, 0.3, 1) }},
		{"speaker/margin=0.2", func() { speakerFactors(q, cands, 0.3, 0.2) }},
		{"speaker/margin=0", func() { speakerFactors(q, cands, 0.3, 0) }},
		{"neighbor/w=0", func() { neighborLift(cands, 0) }},
		{"neighbor/w=0.2", func() { neighborLift(cands, 0.2) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.run()
			}
		})
	}
}

package core

import (
	"strconv"
	"strings"
	"testing"
)

func TestSpeakerLabel(t *testing.T) {
	for content, want := range map[string]string{
		"Melanie: I signed up for a pottery class.":              "melanie",
		"Dr. Jane Smith: the results are in":                     "dr",
		"Jean-Luc: engage":                                       "jean-luc",
		"O'Brien: fine":                                          "o'brien",
		"Ünal: merhaba":                                          "ünal",
		"User: prefers tabs":                                     "user",
		"melanie: lower case is not a label":                     "",
		"see http://example.com: a link":                         "",
		"Deploy to staging at 10:30: done":                       "",
		"A: one letter":                                          "",
		"Four Capitalised Words Here: too long":                  "",
		" Melanie: leading space":                                "",
		"Melanie:no space after the colon":                       "",
		"Release 1.2: notes":                                     "",
		"A very long label that is not a speaker name at all: x": "",
		"": "",
	} {
		if got := speakerLabel(content); got != want {
			t.Errorf("speakerLabel(%q) = %q, want %q", content, got, want)
		}
	}
}

func TestSpeakerFactors(t *testing.T) {
	mk := func(content string) *candidate { return &candidate{mem: &Memory{Content: content}} }
	cands := map[string]*candidate{
		"m":  mk("Melanie: running helps"),
		"c":  mk("Caroline: Melanie, how do you relax?"),
		"n":  mk("the gym opens at six"),
		"nm": {},
	}
	got := speakerFactors([]string{"melanie", "relax"}, cands, 0.3)
	if len(got) != 1 || got["c"] != 0.7 {
		t.Fatalf("factors = %v, want only c at 0.7", got)
	}
	if got := speakerFactors([]string{"relax"}, cands, 0.3); got != nil {
		t.Fatalf("a query naming no speaker: %v", got)
	}
	if got := speakerFactors([]string{"melanie"}, cands, 0); got != nil {
		t.Fatalf("weight 0: %v", got)
	}
}

func FuzzSpeakerLabel(f *testing.F) {
	for _, s := range []string{"Melanie: hi", "Dr. Jane Smith: x", "a: b", "Ünal: x", ": x", "A B C D: x", "X\xff: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		l := speakerLabel(content)
		if l == "" {
			return
		}
		if len(l) > maxLabelBytes || strings.ContainsAny(l, " :\t\n") || !strings.Contains(content, ": ") {
			t.Fatalf("label %q of %q", l, content)
		}
	})
}

// BenchmarkSpeakerFactors is the factor's cost on one recall's candidates
// (two legs of search.top_k 50, LoCoMo-like turns).
func BenchmarkSpeakerFactors(b *testing.B) {
	cands := map[string]*candidate{}
	for i := range 100 {
		who := []string{"Melanie", "Caroline"}[i%2]
		cands[strconv.Itoa(i)] = &candidate{mem: &Memory{Content: who + ": I went camping with the kids last weekend and we roasted marshmallows."}}
	}
	q := []string{"melanie", "activities", "kids"}
	for b.Loop() {
		speakerFactors(q, cands, 0.3)
	}
}

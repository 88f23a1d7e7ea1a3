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
	got := speakerFactors([]string{"melanie", "relax"}, cands, 0.3, 1)
	if len(got) != 1 || got["c"] != 0.7 {
		t.Fatalf("factors = %v, want only c at 0.7", got)
	}
	if got := speakerFactors([]string{"relax"}, cands, 0.3, 1); got != nil {
		t.Fatalf("a query naming no speaker: %v", got)
	}
	if got := speakerFactors([]string{"melanie"}, cands, 0, 1); got != nil {
		t.Fatalf("weight 0: %v", got)
	}
}

// TestSpeakerMargin: a turn of the other speaker keeps its score when it
// holds the question's other words better than any turn of the named
// speaker by more than the margin (the question attributes the other's
// words to the named person).
func TestSpeakerMargin(t *testing.T) {
	mk := func(content string) *candidate { return &candidate{mem: &Memory{Content: content}} }
	cands := map[string]*candidate{
		"mel":   mk("Melanie: I ran a charity race for mental health last weekend"),
		"car":   mk("Caroline: that sounds lovely, Melanie"),
		"car2":  mk("Caroline: I went to a support group yesterday"),
		"plain": mk("no label here at all"),
	}
	for _, tc := range []struct {
		name   string
		q      []string
		margin float64
		want   map[string]float64
	}{
		// "What did Caroline realize after her charity race?": only
		// Melanie ran it; the best turn of Caroline holds none of
		// realize, charity, race.
		{"wrong person, margin 1: demoted as always", []string{"caroline", "realize", "charity", "race"}, 1, map[string]float64{"mel": 0.7}},
		{"wrong person, margin 0.5: Melanie's turn (2/3) keeps its score", []string{"caroline", "realize", "charity", "race"}, 0.5, map[string]float64{}},
		{"wrong person, margin 0.7: within the margin, demoted", []string{"caroline", "realize", "charity", "race"}, 0.7, map[string]float64{"mel": 0.7}},
		// "What did Caroline do at the support group?": her own turn holds
		// the words; Melanie's turns are demoted.
		{"right person", []string{"caroline", "support", "group"}, 0, map[string]float64{"mel": 0.7}},
		// A question of names only: nothing else to compare, demoted.
		{"names only", []string{"caroline", "melanie"}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := speakerFactors(tc.q, cands, 0.3, tc.margin)
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("factors = %v, want none (both named)", got)
				}
				return
			}
			if len(got) != len(tc.want) {
				t.Fatalf("factors = %v, want %v", got, tc.want)
			}
			for id, f := range tc.want {
				if got[id] != f {
					t.Errorf("factor of %s = %v, want %v", id, got[id], f)
				}
			}
		})
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
		speakerFactors(q, cands, 0.3, 0.25)
	}
}

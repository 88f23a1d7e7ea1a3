package uselite

import "testing"

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", " ", "we deploy on Fridays", "Café crème", "東京 meeting", "🚀", "\x00\xff", "ＡＢＣ ﬁ"} {
		f.Add(s)
	}
	m := loadTestModel(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := m.Tokenize(s)
		if len(ids) > MaxTokens {
			t.Fatalf("%d tokens", len(ids))
		}
		for i, id := range ids {
			if id < 0 || id >= len(m.tok.scores) || (id > 0 && id < reservedSymbols) {
				t.Fatalf("bad id %d", id)
			}
			if i > 0 && id == unknownID && ids[i-1] == unknownID {
				t.Fatalf("unmerged unknown tokens in %v", ids)
			}
		}
		// Any non-empty text yields at least one token ("▁" at least).
		if s != "" && len(ids) == 0 {
			t.Fatalf("no tokens for %q", s)
		}
	})
}

func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "   ", "hello world", "\t\x00é"} {
		f.Add(s)
	}
	m := loadTestModel(f)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			s = s[:512] // keep each run cheap; long inputs are capped anyway
		}
		v, err := m.Embed([]string{s, s + " x"})
		if err != nil {
			t.Fatal(err)
		}
		checkVector(t, "fuzz", v[0])
		checkVector(t, "fuzz", v[1])
	})
}
